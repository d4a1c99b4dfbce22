//! Input files for `strata write`: Parquet, JSON lines and CSV, chosen by extension.
//!
//! Every file is decoded into Arrow batches and handed to the table writer, which matches
//! columns to the table by name and casts them to the table's types. JSON lines are decoded
//! directly into the table's Arrow schema (unknown keys are an error); CSV files are decoded
//! with their header's columns typed like the table's columns of the same name. In JSON lines a
//! VARIANT column takes any JSON value, encoded as Paimon's variant binary (`variant_input`). All files of
//! one call form one commit; on any error the files written so far are deleted.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::datatypes::{Field, Schema};
use arrow::record_batch::RecordBatch;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use strata::commit::{OverwriteScope, SnapshotOperation};
use strata::table::Table;

use crate::error::{msg, Result};

/// Rows per decoded input batch.
const BATCH_ROWS: usize = 65_536;

/// What a write did.
pub struct WriteReport {
    pub rows: u64,
    pub files: usize,
    /// The last snapshot created (the COMPACT one when the write compacted).
    pub snapshot_id: Option<i64>,
    /// Compaction tasks run by the write.
    pub compaction: Vec<strata::write::CompactionMetrics>,
    /// Why the compaction of this write did not land (the data did).
    pub compact_error: Option<strata::ReportedError>,
    /// Why the snapshot expiry after the commit failed (the commit landed).
    pub expire_error: Option<strata::ReportedError>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Parquet,
    Jsonl,
    Csv,
}

fn kind_of(path: &Path) -> Result<Kind> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("parquet") => Ok(Kind::Parquet),
        Some("jsonl") | Some("ndjson") | Some("json") => Ok(Kind::Jsonl),
        Some("csv") => Ok(Kind::Csv),
        _ => Err(msg(format!(
            "cannot tell the format of {}: use a .parquet, .jsonl or .csv extension",
            path.display()
        ))),
    }
}

/// Writes all `files` into `table` as one commit.
pub async fn write_files(
    table: &Table,
    files: &[PathBuf],
    overwrite: Option<OverwriteScope>,
) -> Result<WriteReport> {
    // Validate every input before writing anything.
    let mut inputs = Vec::new();
    let mut total_bytes = 0u64;
    for f in files {
        let kind = kind_of(f)?;
        let meta = std::fs::metadata(f)
            .map_err(|e| msg(format!("cannot read input file {}: {e}", f.display())))?;
        total_bytes += meta.len();
        inputs.push((f.clone(), kind, meta.len()));
    }
    let bar = ProgressBar::with_draw_target(Some(total_bytes), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {bytes}/{total_bytes} ({eta})")
            .expect("the progress template is a valid constant")
            .progress_chars("=> "),
    );
    let mut write = table.new_write()?.with_overwrite(overwrite.is_some());
    // VARIANT columns take any JSON in JSON lines (`variant_input`).
    let variants: Vec<String> = table
        .schema()
        .fields
        .iter()
        .filter(|f| matches!(f.data_type.kind, strata::spec::TypeKind::Variant))
        .map(|f| f.name.clone())
        .collect();
    let result = async {
        for (path, kind, size) in &inputs {
            bar.set_message(path.display().to_string());
            let target = write.arrow_schema().clone();
            let batches = decode(path, *kind, &target, &variants)?;
            for b in batches {
                let b = b?;
                write
                    .write(&b)
                    .await
                    .map_err(|e| msg(format!("{}: {e}", path.display())))?;
            }
            bar.inc(*size);
        }
        let rows = write.rows_written();
        let messages = write.prepare_commit().await?;
        let compaction = write.take_compaction_metrics();
        let files: usize = messages.iter().map(|m| m.new_files.len()).sum();
        // `strata write` is Spark's INSERT INTO / INSERT OVERWRITE: the snapshot says WRITE or
        // OVERWRITE (Java 2.0 `Snapshot.operation`, `PaimonBatchWriteBase`).
        let operation = if overwrite.is_some() {
            SnapshotOperation::Overwrite
        } else {
            SnapshotOperation::Write
        };
        let committed = table
            .new_commit()?
            .with_operation(Some(operation))
            .commit_messages(messages, overwrite)
            .await?;
        Ok(WriteReport {
            rows,
            files,
            snapshot_id: committed.latest(),
            compaction,
            compact_error: committed.compact_error,
            expire_error: committed.expire_error,
        })
    }
    .await;
    bar.finish_and_clear();
    if result
        .as_ref()
        .is_err_and(|e: &crate::error::CliError| !e.may_have_committed())
    {
        write.abort().await;
    }
    result
}

type BatchIter = Box<dyn Iterator<Item = Result<RecordBatch>>>;

fn open(path: &Path) -> Result<File> {
    File::open(path).map_err(|e| msg(format!("cannot open {}: {e}", path.display())))
}

fn decode(path: &Path, kind: Kind, target: &Arc<Schema>, variants: &[String]) -> Result<BatchIter> {
    let shown = path.display().to_string();
    match kind {
        Kind::Parquet => {
            let reader = ParquetRecordBatchReaderBuilder::try_new(open(path)?)
                .and_then(|b| b.with_batch_size(BATCH_ROWS).build())
                .map_err(|e| msg(format!("{shown}: not a readable Parquet file: {e}")))?;
            Ok(Box::new(
                reader.map(move |r| r.map_err(|e| msg(format!("{shown}: {e}")))),
            ))
        }
        Kind::Jsonl if !variants.is_empty() => {
            let lines = crate::variant_input::VariantLines::new(
                BufReader::new(open(path)?),
                variants.to_vec(),
            );
            let reader = arrow_json::ReaderBuilder::new(target.clone())
                .with_batch_size(BATCH_ROWS)
                .with_strict_mode(true)
                .build(BufReader::new(lines))
                .map_err(|e| msg(format!("{shown}: {e}")))?;
            Ok(Box::new(reader.map(move |r| {
                r.map_err(|e| msg(format!("{shown}: invalid JSON line input: {e}")))
            })))
        }
        Kind::Jsonl => {
            let reader = arrow_json::ReaderBuilder::new(target.clone())
                .with_batch_size(BATCH_ROWS)
                .with_strict_mode(true)
                .build(BufReader::new(open(path)?))
                .map_err(|e| msg(format!("{shown}: {e}")))?;
            Ok(Box::new(reader.map(move |r| {
                r.map_err(|e| msg(format!("{shown}: invalid JSON line input: {e}")))
            })))
        }
        Kind::Csv => {
            let mut header = String::new();
            BufReader::new(open(path)?)
                .read_line(&mut header)
                .map_err(|e| msg(format!("{shown}: {e}")))?;
            let names = parse_csv_header(&header);
            if names.is_empty() {
                return Err(msg(format!(
                    "{shown}: empty CSV file (a header line is required)"
                )));
            }
            let mut fields = Vec::with_capacity(names.len());
            for n in &names {
                let f = target.field_with_name(n).map_err(|_| {
                    msg(format!(
                        "{shown}: CSV column {n:?} is not a column of the table (columns: {})",
                        target
                            .fields()
                            .iter()
                            .map(|f| f.name().as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })?;
                if f.data_type().is_nested() {
                    return Err(msg(format!(
                        "{shown}: column {n} has nested type {}; CSV cannot carry it — use Parquet or JSON lines",
                        f.data_type()
                    )));
                }
                fields.push(Field::new(n, f.data_type().clone(), true));
            }
            let schema = Arc::new(Schema::new(fields));
            let reader = arrow_csv::ReaderBuilder::new(schema)
                .with_header(true)
                .with_batch_size(BATCH_ROWS)
                .build(BufReader::new(open(path)?))
                .map_err(|e| msg(format!("{shown}: {e}")))?;
            Ok(Box::new(reader.map(move |r| {
                r.map_err(|e| msg(format!("{shown}: invalid CSV input: {e}")))
            })))
        }
    }
}

/// Column names of a CSV header line (RFC 4180 quoting).
fn parse_csv_header(line: &str) -> Vec<String> {
    let line = line.trim_end_matches(['\r', '\n']);
    if line.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_header() {
        assert_eq!(parse_csv_header("a,b,\"c,d\"\n"), vec!["a", "b", "c,d"]);
        assert_eq!(parse_csv_header("\"x\"\"y\"\r\n"), vec!["x\"y"]);
        assert!(parse_csv_header("\n").is_empty());
    }

    #[test]
    fn kinds() {
        assert_eq!(kind_of(Path::new("a.PARQUET")).unwrap(), Kind::Parquet);
        assert_eq!(kind_of(Path::new("a.jsonl")).unwrap(), Kind::Jsonl);
        assert!(kind_of(Path::new("a.txt")).is_err());
    }
}
