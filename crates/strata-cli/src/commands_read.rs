//! `strata read`: rows of a table as a text table, JSON lines, CSV or Parquet, with a
//! projection that may name MAP keys (`m['k']`), a SQL filter, time travel, a limit, and
//! `--metrics` (one JSON line on stderr after the rows: files, row groups and bytes read).
//!
//! `--incremental A..B` reads the changes between snapshots (or tags) A (exclusive) and B
//! (inclusive) instead of one snapshot — Paimon's `incremental-between`, in the mode of
//! `--incremental-mode` (`incremental-between-scan-mode`) — every row with its kind in a first
//! `rowkind` column (`+I`, `-U`, `+U`, `-D`); `--incremental-timestamp T1..T2` gives the range
//! as times (`incremental-between-timestamp`).

use std::path::PathBuf;
use std::sync::Arc;

use futures::StreamExt;
use strata::catalog::FileSystemCatalog;
use strata::expr::parse_sql_predicate;
use strata::read::ReadMetrics;

use crate::commands::{msg, Result};
use crate::output;

/// Arguments of `strata read`.
#[derive(clap::Args, Debug)]
pub struct ReadArgs {
    /// DB.TABLE
    pub table: String,
    /// Comma-separated columns to output; a MAP key is written m['key'] (output column
    /// named m['key'], NULL when the map is NULL or lacks the key). Commas inside quotes
    /// belong to the item: m['a,b'] is one column
    #[arg(long, value_name = "COLS")]
    pub columns: Vec<String>,
    /// SQL boolean expression, e.g. "dt = '2024-01-01' AND id < 10" or "m['usage'] > 30"
    #[arg(long = "where", value_name = "EXPR")]
    pub filter: Option<String>,
    /// Time travel to this snapshot id
    #[arg(long, conflicts_with_all = ["tag", "timestamp", "timestamp_millis"])]
    pub snapshot: Option<i64>,
    /// Time travel to this tag (reads even after the tagged snapshot expired)
    #[arg(long, conflicts_with_all = ["timestamp", "timestamp_millis"])]
    pub tag: Option<String>,
    /// Time travel to the latest snapshot committed at or before this local time,
    /// 'yyyy-MM-dd HH:mm:ss[.fff]' (scan.timestamp)
    #[arg(long, conflicts_with = "timestamp_millis")]
    pub timestamp: Option<String>,
    /// Time travel to the latest snapshot committed at or before this epoch millisecond
    /// (scan.timestamp-millis)
    #[arg(long, value_name = "MILLIS")]
    pub timestamp_millis: Option<i64>,
    /// Output at most N rows
    #[arg(long)]
    pub limit: Option<usize>,
    /// Output format
    #[arg(long, value_enum, default_value_t = output::Format::Table)]
    pub format: output::Format,
    /// Write to this file instead of stdout
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// After the rows, print one JSON line to stderr: filesRead, filesSkipped, rowGroupsRead,
    /// rowGroupsSkipped, pageRowsSkipped, bytesRead, rowsOutput, scanSkippedFiles
    #[arg(long)]
    pub metrics: bool,
    /// Read the changes between snapshots START (exclusive) and END (inclusive), given as
    /// snapshot ids or tag names, START..END (incremental-between); rows come with their
    /// kind in a first column `rowkind`
    #[arg(
        long,
        value_name = "START..END",
        conflicts_with_all = ["snapshot", "tag", "timestamp", "timestamp_millis", "filter", "metrics", "incremental_timestamp"]
    )]
    pub incremental: Option<String>,
    /// Like --incremental, the range as times T1..T2: epoch milliseconds or local
    /// 'yyyy-MM-dd HH:mm:ss' (incremental-between-timestamp)
    #[arg(
        long,
        value_name = "T1..T2",
        conflicts_with_all = ["snapshot", "tag", "timestamp", "timestamp_millis", "filter", "metrics"]
    )]
    pub incremental_timestamp: Option<String>,
    /// How --incremental reads: auto (changelog when the table has a changelog producer,
    /// else delta), delta (records the APPEND snapshots added), changelog (changelog
    /// files), diff (END compared with START) (incremental-between-scan-mode)
    #[arg(long, value_name = "MODE")]
    pub incremental_mode: Option<String>,
    /// With --incremental between two tags: read the snapshots between them (delta or
    /// changelog) instead of their diff (incremental-between-tag-to-snapshot)
    #[arg(long)]
    pub incremental_tag_to_snapshot: bool,
}

pub async fn run(catalog: &FileSystemCatalog, args: ReadArgs) -> Result<()> {
    let mut t = catalog.get_table(&args.table.parse()?).await?;
    if args.incremental.is_some() || args.incremental_timestamp.is_some() {
        return crate::commands_read_incremental::run(&t, &args).await;
    }
    if args.incremental_mode.is_some() || args.incremental_tag_to_snapshot {
        return Err(msg(
            "--incremental-mode and --incremental-tag-to-snapshot need --incremental or \
             --incremental-timestamp",
        ));
    }
    // A table whose own options ask for an incremental read (`incremental-between*`, Java's
    // INCREMENTAL startup mode) is read that way when no snapshot is named, as Java reads it.
    let explicit = args.snapshot.is_some()
        || args.tag.is_some()
        || args.timestamp.is_some()
        || args.timestamp_millis.is_some();
    if !explicit && t.options().startup_mode()? == strata::spec::options::StartupMode::Incremental {
        if let Some(scan) = strata::scan::IncrementalScan::from_options(&t)? {
            if args.filter.is_some() || args.metrics {
                return Err(msg(format!(
                    "table {} is read incrementally (its incremental-between options); \
                     --where and --metrics do not apply to incremental reads",
                    t.identifier()
                )));
            }
            return crate::commands_read_incremental::run_scan(&t, &args, scan).await;
        }
    }
    // --tag / --timestamp / --timestamp-millis: the snapshot as the tag (or the timeline)
    // has it, read with the schema it was committed with.
    let travel = crate::commands_maintenance::travel_target(
        args.tag.as_deref(),
        args.timestamp.as_deref(),
        args.timestamp_millis,
    )?;
    let travelled = match &travel {
        Some(target) => {
            let s = target.resolve(&t).await?;
            t = strata::maintenance::time_travel::table_at(&t, &s).await?;
            Some(s)
        }
        None => None,
    };
    if let Some(id) = args.snapshot {
        // Time travel reads with the schema the snapshot was committed with.
        t = t.at_snapshot(id).await?;
    }
    let predicate = match &args.filter {
        Some(text) => Some(parse_sql_predicate(text)?),
        None => None,
    };
    let mut scan = t.new_scan();
    if let Some(id) = args.snapshot {
        scan = scan.with_snapshot(id);
    }
    if let Some(s) = travelled {
        scan = scan.with_snapshot_meta(s);
    }
    if let Some(p) = &predicate {
        scan = scan.with_filter(p.clone());
    }
    let plan = scan.plan().await?;
    let mut read = t.new_read();
    if !args.columns.is_empty() {
        let mut cols = Vec::new();
        for text in &args.columns {
            cols.extend(split_columns(text)?);
        }
        read = read.with_projection(cols);
    }
    if let Some(p) = predicate {
        read = read.with_filter(p);
    }
    if let Some(n) = args.limit {
        read = read.with_limit(n);
    }
    let metrics = Arc::new(ReadMetrics::default());
    if args.metrics {
        read = read.with_metrics(metrics.clone());
    }
    let schema = read.output_schema()?;
    let rows = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counter = rows.clone();
    let stream = read
        .to_stream(plan.splits)?
        .inspect(move |b| {
            if let Ok(b) = b {
                counter.fetch_add(b.num_rows() as u64, std::sync::atomic::Ordering::Relaxed);
            }
        })
        .boxed();
    output::write_stream(stream, schema, args.format, args.output.as_deref()).await?;
    if args.metrics {
        let mut line = serde_json::to_value(metrics.snapshot())
            .map_err(|e| msg(format!("cannot print metrics: {e}")))?;
        if let Some(obj) = line.as_object_mut() {
            obj.insert(
                "rowsOutput".into(),
                rows.load(std::sync::atomic::Ordering::Relaxed).into(),
            );
            obj.insert("scanSkippedFiles".into(), plan.metrics.skipped_files.into());
        }
        eprintln!("{line}");
    }
    Ok(())
}

/// Splits a `--columns` list at commas outside quotes (`'…'` and `"…"`, doubled quotes
/// included), trimming each item: `id, m['a,b']` is `id` and `m['a,b']`.
pub fn split_columns(text: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (None, ',') => {
                out.push(std::mem::take(&mut current));
                continue;
            }
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
        current.push(c);
    }
    if quote.is_some() {
        return Err(msg(format!("--columns {text:?}: unterminated quote")));
    }
    out.push(current);
    let out: Vec<String> = out.into_iter().map(|s| s.trim().to_string()).collect();
    if out.iter().any(String::is_empty) {
        return Err(msg(format!("--columns {text:?}: empty column name")));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::split_columns;

    #[test]
    fn splits_outside_quotes() {
        let s = |t: &str| split_columns(t).unwrap();
        assert_eq!(s("id"), ["id"]);
        assert_eq!(s("id, m['usage'] ,v"), ["id", "m['usage']", "v"]);
        assert_eq!(s("m['a,b'],m['it''s,x']"), ["m['a,b']", "m['it''s,x']"]);
        assert_eq!(s("\"a,b\"['k'],x"), ["\"a,b\"['k']", "x"]);
        assert!(split_columns("m['a").is_err());
        assert!(split_columns("a,,b").is_err());
    }
}
