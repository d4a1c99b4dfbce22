//! `strata sql`: SQL over the warehouse (strata-datafusion's `SqlSession`).
//!
//! * `strata sql -e "SELECT …; INSERT …"` runs the statements and exits;
//! * `strata sql -f script.sql` runs a file (`-` for stdin);
//! * `strata sql` alone opens a shell: statements end with `;` and may span lines, history is
//!   kept in `~/.strata_history`, and backslash commands list things: `\l` databases, `\d`
//!   tables of the current database, `\d TABLE` a table's columns, keys and options,
//!   `\timing` toggles timing, `\q` quits, `\?` helps.
//!
//! Results print as an aligned table (or JSON lines, CSV, Parquet with `--format`); a statement
//! without a result prints `OK`. Parquet holds one result, the last statement's; the results
//! before it show as tables on stderr. An error names what it concerns and shows the offending line
//! with carets under it: the column of a syntax error, or what a planning error concerns (an
//! unknown column or table, a function call; DataFusion's diagnostics).

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use strata::catalog::Catalog;
use strata_datafusion::SqlSession;

use crate::error::{msg, Result};
use crate::output;

/// Arguments of `strata sql`.
#[derive(clap::Args, Debug)]
pub struct SqlArgs {
    /// Run these statements (separated by `;`) and exit
    #[arg(
        short = 'e',
        long = "execute",
        value_name = "SQL",
        conflicts_with = "file"
    )]
    pub execute: Option<String>,
    /// Run the statements of this file (`-`: standard input) and exit
    #[arg(short = 'f', long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Output format of results
    #[arg(long, value_enum, default_value_t = output::Format::Table)]
    pub format: output::Format,
    /// Write results to this file instead of stdout (with several results, the last one)
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Print each statement's wall time to stderr
    #[arg(long)]
    pub timing: bool,
}

pub async fn run(catalog: &Arc<dyn Catalog>, args: SqlArgs) -> Result<()> {
    let session = SqlSession::new(catalog.clone());
    let text = match (&args.execute, &args.file) {
        (Some(sql), _) => Some(sql.clone()),
        (None, Some(p)) if p.as_os_str() == "-" => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| msg(format!("cannot read SQL from stdin: {e}")))?;
            Some(s)
        }
        (None, Some(p)) => Some(
            std::fs::read_to_string(p)
                .map_err(|e| msg(format!("cannot read SQL file {}: {e}", p.display())))?,
        ),
        (None, None) if !std::io::stdin().is_terminal() => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| msg(format!("cannot read SQL from stdin: {e}")))?;
            Some(s)
        }
        (None, None) => None,
    };
    match text {
        Some(sql) => run_script(&session, &sql, &args, args.timing).await,
        None => shell(&session, &args).await,
    }
}

/// Runs every statement of `sql`; stops at the first error.
async fn run_script(session: &SqlSession, sql: &str, args: &SqlArgs, timing: bool) -> Result<()> {
    let script = session
        .parse_script(sql)
        .map_err(|e| msg(located(sql, &e)))?;
    for i in 0..script.len() {
        let started = Instant::now();
        let df = session
            .run(&script, i)
            .await
            .map_err(|e| msg(located(sql, &e)))?;
        let last = i + 1 == script.len();
        if !last && args.format == output::Format::Parquet {
            // One Parquet file goes to stdout or --output: the last result. Earlier ones (an
            // INSERT's count, say) are shown on stderr.
            print_to_stderr(df).await?;
        } else {
            print_result(df, args, if last { args.output.as_deref() } else { None }).await?;
        }
        if timing {
            eprintln!("({:.3} s)", started.elapsed().as_secs_f64());
        }
    }
    Ok(())
}

async fn print_result(
    df: datafusion::dataframe::DataFrame,
    args: &SqlArgs,
    output: Option<&std::path::Path>,
) -> Result<()> {
    let schema = std::sync::Arc::new(df.schema().as_arrow().clone());
    if schema.fields().is_empty() {
        let _ = df.collect().await.map_err(|e| msg(e.to_string()))?;
        eprintln!("OK");
        return Ok(());
    }
    let stream = df
        .execute_stream()
        .await
        .map_err(|e| msg(e.to_string()))?
        .map(|b| b.map_err(strata_datafusion::error::from_df))
        .boxed();
    output::write_stream(stream, schema, args.format, output).await
}

/// A result as a table on stderr (`OK` for a statement without one).
async fn print_to_stderr(df: datafusion::dataframe::DataFrame) -> Result<()> {
    let empty = df.schema().fields().is_empty();
    let batches = df.collect().await.map_err(|e| msg(e.to_string()))?;
    if empty {
        eprintln!("OK");
    } else {
        let text = arrow::util::pretty::pretty_format_batches(&batches)
            .map_err(|e| msg(format!("cannot format a result: {e}")))?;
        eprintln!("{text}");
    }
    Ok(())
}

/// The message of a planning error with the offending line and carets under what it concerns:
/// the span DataFusion's planner gives (an unknown column or table, a bad function call), or
/// the position in a parser message.
fn located(sql: &str, e: &datafusion::error::DataFusionError) -> String {
    let message = e.to_string();
    match strata_datafusion::error::error_position(e) {
        Some((line, column, end)) => match sql.lines().nth(line - 1) {
            Some(text) => format!(
                "{message}\n  {text}\n  {}{}",
                " ".repeat(column - 1),
                "^".repeat(end - column)
            ),
            None => message,
        },
        None => with_caret(sql, &message),
    }
}

/// The message of an error, with the offending line and a caret under the column when the
/// message gives one (`… at Line: 2, Column: 15`).
pub fn with_caret(sql: &str, message: &str) -> String {
    let position = message.find("Line: ").and_then(|at| {
        let rest = &message[at + 6..];
        let (line, rest) = rest.split_once(", Column: ")?;
        let column: String = rest.chars().take_while(char::is_ascii_digit).collect();
        Some((
            line.trim().parse::<usize>().ok()?,
            column.parse::<usize>().ok()?,
        ))
    });
    match position {
        Some((line, column)) if line >= 1 => match sql.lines().nth(line - 1) {
            Some(text) => format!(
                "{message}\n  {text}\n  {}^",
                " ".repeat(column.saturating_sub(1))
            ),
            None => message.to_string(),
        },
        _ => message.to_string(),
    }
}

const HELP: &str = "statements end with ';'
  \\l            list databases
  \\d            list tables of the current database
  \\d TABLE      columns, keys and options of a table
  \\timing       toggle statement timing
  \\q            quit";

async fn shell(session: &SqlSession, args: &SqlArgs) -> Result<()> {
    let mut editor = rustyline::DefaultEditor::new()
        .map_err(|e| msg(format!("cannot start the line editor: {e}")))?;
    let history = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".strata_history"));
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    eprintln!(
        "strata sql on {} — \\? for help, \\q to quit",
        session.catalog().location()
    );
    let mut timing = args.timing;
    let mut buffer = String::new();
    loop {
        let prompt = if buffer.is_empty() {
            format!("{}> ", session.current_database())
        } else {
            "   ...> ".to_string()
        };
        let line = match editor.readline(&prompt) {
            Ok(l) => l,
            Err(rustyline::error::ReadlineError::Interrupted) => {
                buffer.clear();
                continue;
            }
            Err(rustyline::error::ReadlineError::Eof) => break,
            Err(e) => return Err(msg(format!("cannot read input: {e}"))),
        };
        let trimmed = line.trim();
        if buffer.is_empty() && trimmed.starts_with('\\') {
            let _ = editor.add_history_entry(trimmed);
            match backslash(session, trimmed, &mut timing).await {
                Ok(true) => break,
                Ok(false) => {}
                Err(e) => eprintln!("error: {e}"),
            }
            continue;
        }
        buffer.push_str(&line);
        buffer.push('\n');
        if !trimmed.ends_with(';') {
            continue;
        }
        let sql = std::mem::take(&mut buffer);
        let _ = editor.add_history_entry(sql.trim());
        if let Err(e) = run_script(session, &sql, args, timing).await {
            eprintln!("error: {e}");
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    Ok(())
}

/// Runs a backslash command; `true` to quit.
async fn backslash(session: &SqlSession, command: &str, timing: &mut bool) -> Result<bool> {
    let mut parts = command.split_whitespace();
    let sql = match (parts.next(), parts.next()) {
        (Some("\\q"), _) => return Ok(true),
        (Some("\\?"), _) => {
            eprintln!("{HELP}");
            return Ok(false);
        }
        (Some("\\timing"), _) => {
            *timing = !*timing;
            eprintln!("timing is {}", if *timing { "on" } else { "off" });
            return Ok(false);
        }
        (Some("\\l"), _) => "SELECT schema_name AS database FROM information_schema.schemata \
                             WHERE catalog_name = 'paimon' ORDER BY 1"
            .to_string(),
        (Some("\\d"), None) => format!(
            "SELECT table_name FROM information_schema.tables WHERE table_catalog = 'paimon' \
             AND table_schema = '{}' ORDER BY 1",
            session.current_database().replace('\'', "''")
        ),
        (Some("\\d"), Some(table)) => {
            let t = table.trim_end_matches(';');
            let parts: Vec<String> = t.split('.').map(str::to_string).collect();
            let id = session.identifier(&parts).map_err(|e| msg(e.to_string()))?;
            let t = session.catalog().get_table(&id).await?;
            let s = t.schema();
            for f in &s.fields {
                println!("{:<24} {}", f.name, f.data_type);
            }
            if !s.primary_keys.is_empty() {
                println!("primary key: {}", s.primary_keys.join(", "));
            }
            if !s.partition_keys.is_empty() {
                println!("partitioned by: {}", s.partition_keys.join(", "));
            }
            for (k, v) in &s.options {
                println!("option {k} = {v}");
            }
            return Ok(false);
        }
        _ => return Err(msg(format!("unknown command {command}; \\? lists them"))),
    };
    let df = session.sql(&sql).await.map_err(|e| msg(e.to_string()))?;
    let args = SqlArgs {
        execute: None,
        file: None,
        format: output::Format::Table,
        output: None,
        timing: false,
    };
    print_result(df, &args, None).await?;
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::with_caret;

    #[test]
    fn caret_points_at_the_column() {
        let sql = "SELECT 1;\nSELEC x FROM t";
        let m = with_caret(
            sql,
            "sql parser error: Expected: an SQL statement, found: SELEC at Line: 2, Column: 1",
        );
        assert!(m.ends_with("\n  SELEC x FROM t\n  ^"), "{m}");
        assert_eq!(with_caret(sql, "no position"), "no position");
    }
}
