//! The `files` system table (Java's `FilesTable`) and strata's own `levels` table, both one row
//! per live data file of a snapshot (latest by default), from [`super::live_files`].
//!
//! `levels` is not a Paimon table: it shows each bucket's LSM tree — the file's level, its
//! sorted run in Paimon's order (level-0 files one run each, newest first, then one run per
//! non-empty level), its key range and sequence numbers — ordered run by run.

use std::cmp::Ordering;

use arrow_array::RecordBatch;
use strata_spec::manifest::{DataFileMeta, FileSource};
use strata_spec::{DataField, DataType, TypeKind};

use super::batch::{col, string, Cell, Rows};
use super::java_text::{object_text, row_text};
use super::live::{compare_keys, compare_values, live_files, KeyValues, LiveFile};
use super::stats_text::stats_text;
use crate::table::Table;
use crate::Result;

/// Columns of `files` (Java 2.0 `FilesTable.TABLE_TYPE`).
pub(super) fn files_fields() -> Vec<DataField> {
    vec![
        col(0, "partition", string(), true),
        col(1, "bucket", TypeKind::Int, false),
        col(2, "file_path", string(), false),
        col(3, "file_format", string(), false),
        col(4, "schema_id", TypeKind::BigInt, false),
        col(5, "level", TypeKind::Int, false),
        col(6, "record_count", TypeKind::BigInt, false),
        col(7, "file_size_in_bytes", TypeKind::BigInt, false),
        col(8, "min_key", string(), true),
        col(9, "max_key", string(), true),
        col(10, "null_value_counts", string(), false),
        col(11, "min_value_stats", string(), false),
        col(12, "max_value_stats", string(), false),
        col(13, "min_sequence_number", TypeKind::BigInt, true),
        col(14, "max_sequence_number", TypeKind::BigInt, true),
        col(15, "creation_time", TypeKind::Timestamp(3), true),
        col(16, "deleteRowCount", TypeKind::BigInt, true),
        col(17, "file_source", string(), true),
        col(18, "first_row_id", TypeKind::BigInt, true),
        col(
            19,
            "write_cols",
            TypeKind::Array(Box::new(DataType::string())),
            true,
        ),
    ]
}

/// Columns of strata's `levels`.
pub(super) fn levels_fields() -> Vec<DataField> {
    vec![
        col(0, "partition", string(), true),
        col(1, "bucket", TypeKind::Int, false),
        col(2, "level", TypeKind::Int, false),
        col(3, "sorted_run", TypeKind::Int, false),
        col(4, "file_name", string(), false),
        col(5, "min_key", string(), true),
        col(6, "max_key", string(), true),
        col(7, "record_count", TypeKind::BigInt, false),
        col(8, "file_size_in_bytes", TypeKind::BigInt, false),
        col(9, "min_sequence_number", TypeKind::BigInt, false),
        col(10, "max_sequence_number", TypeKind::BigInt, false),
        col(11, "delete_row_count", TypeKind::BigInt, true),
        col(12, "file_source", string(), true),
    ]
}

/// The table as of `snapshot_id` (its schema then), or as it is.
async fn at(table: &Table, snapshot_id: Option<i64>) -> Result<Table> {
    match snapshot_id {
        Some(id) => table.at_snapshot(id).await,
        None => Ok(table.clone()),
    }
}

/// `min_key` / `max_key`: `Arrays.toString` of the key values (`[1, a]`), NULL for files
/// without a key (append tables) or whose key does not decode.
fn key_cell(k: &KeyValues) -> Cell {
    match k {
        Some(values) if !values.is_empty() => {
            let parts: Vec<String> = values
                .iter()
                .map(|v| v.as_ref().map_or("null".to_string(), object_text))
                .collect();
            Cell::Str(format!("[{}]", parts.join(", ")))
        }
        _ => Cell::Null,
    }
}

fn source_cell(s: Option<FileSource>) -> Cell {
    match s {
        Some(FileSource::Append) => "APPEND".into(),
        Some(FileSource::Compact) => "COMPACT".into(),
        None => Cell::Null,
    }
}

/// `DataFilePathFactory.formatIdentifier`: the extension, before a compression extension.
fn format_identifier(name: &str) -> String {
    const COMPRESSION: [&str; 6] = ["gz", "bz2", "deflate", "snappy", "lz4", "zst"];
    let mut parts = name.rsplitn(3, '.');
    let last = parts.next().unwrap_or_default();
    if COMPRESSION.iter().any(|c| c.eq_ignore_ascii_case(last)) {
        if let (Some(format), Some(_)) = (parts.next(), parts.next()) {
            return format.to_string();
        }
    }
    if name.contains('.') {
        last.to_string()
    } else {
        String::new()
    }
}

/// The `files` system table of the latest snapshot.
pub async fn files(table: &Table) -> Result<RecordBatch> {
    files_at(table, None).await
}

/// The `files` system table of snapshot `snapshot_id` (default: the latest), with the columns
/// and statistics as of that snapshot's schema (Java's `scan.snapshot-id` on `t$files`).
pub async fn files_at(table: &Table, snapshot_id: Option<i64>) -> Result<RecordBatch> {
    let table = at(table, snapshot_id).await?;
    let live = live_files(&table, snapshot_id).await?;
    let ptypes = table.schema().partition_type().types();
    let io = table.file_io();
    let mut rows = Rows::new(format!("{}$files", table.identifier()), files_fields());
    for f in &live.files {
        let m = &f.file;
        let path = match &m.external_path {
            Some(p) => p.clone(),
            None => {
                let partition_path = table.partition_computer().partition_path(&f.partition);
                io.display(
                    &table
                        .paths()
                        .data_file(&partition_path, f.bucket, &m.file_name),
                )
            }
        };
        let data_schema = table.schema_manager().schema(m.schema_id).await?;
        let stats = stats_text(m, &data_schema, table.schema(), &path)?;
        rows.push(vec![
            Cell::Str(row_text(&f.partition, &ptypes)),
            Cell::Int(f.bucket),
            Cell::Str(path),
            Cell::Str(format_identifier(&m.file_name)),
            Cell::Long(m.schema_id),
            Cell::Int(m.level),
            Cell::Long(m.row_count),
            Cell::Long(m.file_size),
            key_cell(&f.min_key),
            key_cell(&f.max_key),
            Cell::Str(stats.null_value_counts),
            Cell::Str(stats.min_value_stats),
            Cell::Str(stats.max_value_stats),
            Cell::Long(m.min_sequence_number),
            Cell::Long(m.max_sequence_number),
            m.creation_time.map_or(Cell::Null, Cell::Millis),
            m.delete_row_count.into(),
            source_cell(m.file_source),
            m.first_row_id.into(),
            m.write_cols.clone().map_or(Cell::Null, Cell::StrList),
        ])?;
    }
    rows.finish()
}

/// Paimon's level-0 order (`Levels`): newest first by max sequence number, then min sequence
/// number, creation time and name.
fn level0_order(a: &DataFileMeta, b: &DataFileMeta) -> Ordering {
    b.max_sequence_number
        .cmp(&a.max_sequence_number)
        .then_with(|| a.min_sequence_number.cmp(&b.min_sequence_number))
        .then_with(|| a.creation_time.cmp(&b.creation_time))
        .then_with(|| a.file_name.cmp(&b.file_name))
}

/// The files of one (partition, bucket) with their sorted-run numbers, run by run.
fn with_sorted_runs(mut files: Vec<&LiveFile>) -> Vec<(i32, &LiveFile)> {
    files.sort_by(|a, b| match (a.file.level, b.file.level) {
        (0, 0) => level0_order(&a.file, &b.file),
        (x, y) if x != y => x.cmp(&y),
        _ => compare_keys(&a.min_key, &b.min_key)
            .then_with(|| a.file.file_name.cmp(&b.file.file_name)),
    });
    let mut out = Vec::with_capacity(files.len());
    let mut run = -1;
    let mut prev_level = None;
    for f in files {
        if f.file.level == 0 || prev_level != Some(f.file.level) {
            run += 1;
        }
        prev_level = Some(f.file.level);
        out.push((run, f));
    }
    out
}

/// strata's `levels` table of the latest snapshot.
pub async fn levels(table: &Table) -> Result<RecordBatch> {
    levels_at(table, None).await
}

/// strata's `levels` table of snapshot `snapshot_id` (default: the latest): one row per live
/// file, bucket by bucket, in sorted-run order.
pub async fn levels_at(table: &Table, snapshot_id: Option<i64>) -> Result<RecordBatch> {
    let table = at(table, snapshot_id).await?;
    let live = live_files(&table, snapshot_id).await?;
    let ptypes = table.schema().partition_type().types();
    let mut rows = Rows::new(format!("{}$levels", table.identifier()), levels_fields());
    // `live.files` is ordered by partition then bucket: consecutive runs are the buckets.
    let mut start = 0;
    while start < live.files.len() {
        let first = &live.files[start];
        let end = live.files[start..]
            .iter()
            .position(|f| {
                f.bucket != first.bucket
                    || compare_values(&f.partition, &first.partition) != Ordering::Equal
            })
            .map_or(live.files.len(), |n| start + n);
        let partition = row_text(&first.partition, &ptypes);
        for (run, f) in with_sorted_runs(live.files[start..end].iter().collect()) {
            let m = &f.file;
            rows.push(vec![
                Cell::Str(partition.clone()),
                Cell::Int(f.bucket),
                Cell::Int(m.level),
                Cell::Int(run),
                Cell::Str(m.file_name.clone()),
                key_cell(&f.min_key),
                key_cell(&f.max_key),
                Cell::Long(m.row_count),
                Cell::Long(m.file_size),
                Cell::Long(m.min_sequence_number),
                Cell::Long(m.max_sequence_number),
                m.delete_row_count.into(),
                source_cell(m.file_source),
            ])?;
        }
        start = end;
    }
    rows.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_identifiers() {
        assert_eq!(format_identifier("data-a-0.parquet"), "parquet");
        assert_eq!(format_identifier("data-a-0.orc"), "orc");
        assert_eq!(format_identifier("data-a-0.csv.gz"), "csv");
        assert_eq!(format_identifier("data-a-0.zst"), "zst");
    }
}
