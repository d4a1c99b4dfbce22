//! Runs every `tests/slt/*.slt` file (sqllogictest format, as DataFusion's own SQL tests) on a
//! fresh warehouse through [`SqlSession`]. `cargo test -p strata-datafusion --test
//! sqllogictests -- NAME` runs the files whose name contains NAME.
//!
//! Values print as DataFusion's Arrow display does; NULL as `NULL`, the empty string as
//! `(empty)`. Column types: `I` integers, `R` floats and decimals, `T` everything else.
//!
//! Each file gets its own warehouse; with `control substitution on`, `$WAREHOUSE` in a
//! statement or a `system` command is its path (to plant files a test needs, such as an orphan
//! file or a consumer), and `let name` binds a query's value to `$name`.

#![recursion_limit = "256"]

use std::path::PathBuf;

use arrow::util::display::{ArrayFormatter, FormatOptions};
use arrow_schema::DataType;
use async_trait::async_trait;
use datafusion::error::DataFusionError;
use sqllogictest::{AsyncDB, DBOutput, DefaultColumnType, Runner};
use strata::catalog::FileSystemCatalog;
use strata_datafusion::SqlSession;

struct StrataDb {
    session: SqlSession,
}

fn column_type(t: &DataType) -> DefaultColumnType {
    match t {
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64 => DefaultColumnType::Integer,
        DataType::Float32 | DataType::Float64 | DataType::Decimal128(_, _) => {
            DefaultColumnType::FloatingPoint
        }
        _ => DefaultColumnType::Text,
    }
}

#[async_trait]
impl AsyncDB for StrataDb {
    type Error = DataFusionError;
    type ColumnType = DefaultColumnType;

    async fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, DataFusionError> {
        let df = self.session.sql(sql).await?;
        let schema = df.schema().as_arrow().clone();
        let batches = df.collect().await?;
        if schema.fields().is_empty() {
            return Ok(DBOutput::StatementComplete(0));
        }
        let options = FormatOptions::default().with_null("NULL");
        let mut rows = Vec::new();
        for b in &batches {
            let formatters = b
                .columns()
                .iter()
                .map(|c| ArrayFormatter::try_new(c.as_ref(), &options))
                .collect::<Result<Vec<_>, _>>()?;
            for r in 0..b.num_rows() {
                let cells: Vec<String> = formatters
                    .iter()
                    .map(|f| {
                        let v = f.value(r).to_string();
                        if v.is_empty() {
                            "(empty)".to_string()
                        } else {
                            v
                        }
                    })
                    .collect();
                // A multi-line value (EXPLAIN's plans) is written as DataFusion's own SQL tests
                // write it: the other cells on a row, then one row per line, numbered, with
                // indentation as dashes (`02)--FilterExec`).
                match cells.iter().position(|c| c.contains('\n')) {
                    None => rows.push(cells),
                    Some(i) => {
                        let mut first = cells.clone();
                        let text = first.remove(i);
                        rows.push(first);
                        for (n, line) in text.lines().enumerate() {
                            let body = line.trim_start();
                            let dashes = "-".repeat(line.len() - body.len());
                            rows.push(vec![format!("{:02}){dashes}{body}", n + 1)]);
                        }
                    }
                }
            }
        }
        Ok(DBOutput::Rows {
            types: schema
                .fields()
                .iter()
                .map(|f| column_type(f.data_type()))
                .collect(),
            rows,
        })
    }

    async fn shutdown(&mut self) {}

    fn engine_name(&self) -> &str {
        "strata"
    }

    async fn sleep(dur: std::time::Duration) {
        tokio::time::sleep(dur).await
    }
}

fn files(filter: Option<&str>) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/slt");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/slt exists")
        .map(|e| e.expect("readable directory").path())
        .filter(|p| p.extension().is_some_and(|e| e == "slt"))
        .filter(|p| filter.is_none_or(|f| p.to_string_lossy().contains(f)))
        .collect();
    out.sort();
    out
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let files = files(filter.as_deref());
    assert!(!files.is_empty(), "no .slt files match");
    let mut failed = Vec::new();
    for file in &files {
        let warehouse = tempfile::tempdir().expect("a temporary warehouse");
        let path = warehouse
            .path()
            .to_str()
            .expect("UTF-8 temp path")
            .to_string();
        let location = path.clone();
        let mut runner = Runner::new(move || {
            let location = location.clone();
            async move {
                let catalog = FileSystemCatalog::open(&location)
                    .map_err(|e| DataFusionError::External(Box::new(e)))?;
                Ok(StrataDb {
                    session: SqlSession::new(std::sync::Arc::new(catalog)),
                })
            }
        });
        runner.set_var("WAREHOUSE".to_string(), path);
        let name = file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        match runner.run_file_async(file).await {
            Ok(()) => println!("ok   {name}"),
            Err(e) => {
                println!("FAIL {name}\n{e}");
                failed.push(name);
            }
        }
        drop(warehouse);
    }
    if !failed.is_empty() {
        eprintln!(
            "{} of {} SQL files failed: {}",
            failed.len(),
            files.len(),
            failed.join(", ")
        );
        std::process::exit(1);
    }
}
