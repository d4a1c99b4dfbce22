//! `strata files` and `strata levels`: the live data files of a snapshot and the LSM tree
//! they form in each (partition, bucket).
//!
//! Both list every live file of the snapshot with the library's
//! [`strata::system::live_files`] (read straight from the manifests, not through scan
//! planning, which leaves out level-0 files of first-row and deletion-vector tables; partition
//! values and min/max keys decoded; ordered by partition, bucket, level and min key), the
//! listing behind the `files` and `levels` system tables too. `files` prints them as JSON
//! lines or an aligned table; `levels` prints one line per level per bucket, or hands a plain
//! data model built by [`strata::system::levels_doc`] to the SVG drawing
//! ([`strata_levels_svg::render_svg`]).
//! Compaction is visible in both: an upgraded file keeps its name and changes level, a
//! rewritten one disappears and new `COMPACT` files appear.

use std::io::Write;
use std::path::PathBuf;

use serde_json::{json, Map, Value};
use strata::system::{key_text, FileBox, KeyValues, LevelsDoc, LiveFile};
use strata::table::Table;
use strata_levels_svg::{human_size, short_file_name};
use strata_spec::manifest::FileSource;
use strata_spec::snapshot::Snapshot;

use crate::error::{msg, write_error as werr, Result};
use crate::json_values::{datum_to_json, key_to_json};

/// Output of `strata files`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilesFormat {
    /// One JSON object per file (camelCase keys).
    Jsonl,
    /// An aligned, human-readable table.
    Text,
}

/// Options of `strata levels`.
#[derive(Debug, Default)]
pub struct LevelsArgs {
    /// `k=v` pairs selecting partitions (a subset of the partition columns).
    pub partition: Vec<String>,
    pub bucket: Option<i32>,
    pub snapshot: Option<i64>,
    pub svg: Option<PathBuf>,
}

/// `strata files`.
pub async fn files(table: &Table, snapshot: Option<i64>, format: FilesFormat) -> Result<()> {
    let (_, live) = live_files(table, snapshot).await?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match format {
        FilesFormat::Jsonl => {
            let ptype = table.schema().partition_type();
            for f in &live {
                let key_types = table.key_types_for(f.file.schema_id).await?;
                let mut partition = Map::new();
                for (field, v) in ptype.fields.iter().zip(&f.partition) {
                    partition.insert(
                        field.name.clone(),
                        v.as_ref().map(datum_to_json).unwrap_or(Value::Null),
                    );
                }
                let m = &f.file;
                let line = json!({
                    "partition": partition,
                    "bucket": f.bucket,
                    "level": m.level,
                    "fileName": m.file_name,
                    "fileSize": m.file_size,
                    "rowCount": m.row_count,
                    "minKey": key_to_json(&m.min_key, &key_types)?,
                    "maxKey": key_to_json(&m.max_key, &key_types)?,
                    "minSequenceNumber": m.min_sequence_number,
                    "maxSequenceNumber": m.max_sequence_number,
                    "deleteRowCount": m.delete_row_count,
                    "schemaId": m.schema_id,
                    "fileSource": m.file_source.map(source_text),
                    "creationTime": m.creation_time,
                });
                writeln!(out, "{line}").map_err(werr)?;
            }
        }
        FilesFormat::Text => {
            let text = files_table(&live);
            out.write_all(text.as_bytes()).map_err(werr)?;
        }
    }
    out.flush().map_err(werr)
}

/// `strata levels`.
pub async fn levels(table: &Table, args: LevelsArgs) -> Result<()> {
    let partition = partition_pairs(table, &args.partition)?;
    let doc = strata::system::levels_doc(table, args.snapshot, &partition, args.bucket)
        .await
        .map_err(|e| match e.message().strip_prefix("invalid argument: ") {
            // The library's message without its "invalid argument: " prefix.
            Some(m) => msg(m.to_string()),
            None => e.into(),
        })?;
    if !table.is_primary_key_table() {
        eprintln!(
            "note: {} has no primary key: its files have no key ranges and all sit at level 0",
            table.identifier()
        );
    }
    match &args.svg {
        Some(path) => {
            let svg = strata_levels_svg::render_svg(&doc);
            std::fs::write(path, svg)
                .map_err(|e| msg(format!("cannot write {}: {e}", path.display())))?;
            let files: usize = doc.panels.iter().map(|p| p.files.len()).sum();
            eprintln!(
                "wrote {}: {} bucket(s), {files} file(s) of {} at snapshot {}",
                path.display(),
                doc.panels.len(),
                doc.table,
                doc.snapshot_id
            );
            Ok(())
        }
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(render_text(&doc).as_bytes()).map_err(werr)?;
            out.flush().map_err(werr)
        }
    }
}

/// `--partition k=v` arguments as (column, value) pairs, checked against the table's partition
/// columns so that a bad spec is reported in terms of the option.
fn partition_pairs(table: &Table, spec: &[String]) -> Result<Vec<(String, String)>> {
    if spec.is_empty() {
        return Ok(Vec::new());
    }
    let id = table.identifier();
    if table.schema().partition_type().fields.is_empty() {
        return Err(msg(format!(
            "{id} is not partitioned: --partition does not apply"
        )));
    }
    let mut pairs = Vec::with_capacity(spec.len());
    for kv in spec {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| msg(format!("--partition expects K=V[,K=V], got {kv:?}")))?;
        pairs.push((k.trim().to_string(), v.to_string()));
    }
    table
        .partition_computer()
        .parse_partial_spec(&pairs)
        .map_err(|e| msg(format!("--partition {}: {e} (table {id})", spec.join(","))))?;
    Ok(pairs)
}

fn source_text(s: FileSource) -> &'static str {
    match s {
        FileSource::Append => "APPEND",
        FileSource::Compact => "COMPACT",
    }
}

/// The snapshot (`None` for a table without snapshots) and its live files, ordered by
/// partition, bucket, level, min key and file name ([`strata::system::live_files`]); a missing
/// snapshot is reported with the ids the table has.
async fn live_files(
    table: &Table,
    snapshot: Option<i64>,
) -> Result<(Option<Snapshot>, Vec<LiveFile>)> {
    match strata::system::live_files(table, snapshot).await {
        Ok(live) => Ok((live.snapshot, live.files)),
        Err(e) if e.kind() == strata::ErrorKind::NotFound && e.snapshot().is_some() => {
            let id = e.snapshot().unwrap_or_default();
            let ids = table.snapshot_manager().list_ids().await?;
            let have = match (ids.first(), ids.last()) {
                (Some(a), Some(b)) if a == b => format!("it has snapshot {a} only"),
                (Some(a), Some(b)) => format!("it has snapshots {a}..{b}"),
                _ => "it has no snapshots".to_string(),
            };
            Err(msg(format!(
                "snapshot {id} not found in {} ({have})",
                table.identifier()
            )))
        }
        Err(e) => Err(e.into()),
    }
}

/// `min..max`, or `-` for files without keys (append tables).
fn key_range_text(min: &KeyValues, max: &KeyValues) -> String {
    let empty = |k: &KeyValues| matches!(k, Some(v) if v.is_empty());
    if empty(min) && empty(max) {
        "-".to_string()
    } else {
        format!("{}..{}", key_text(min), key_text(max))
    }
}

/// The aligned table of `strata files --format text`.
fn files_table(files: &[LiveFile]) -> String {
    let header = [
        "PARTITION",
        "BUCKET",
        "LEVEL",
        "FILE",
        "ROWS",
        "SIZE",
        "KEYS",
        "SEQUENCE",
        "DELETES",
        "SOURCE",
    ];
    // Right-aligned columns (numbers).
    let right = [
        false, true, true, false, true, true, false, false, true, false,
    ];
    let mut rows: Vec<[String; 10]> = Vec::with_capacity(files.len());
    for f in files {
        let m = &f.file;
        rows.push([
            if f.partition_text.is_empty() {
                "-".to_string()
            } else {
                f.partition_text.clone()
            },
            f.bucket.to_string(),
            m.level.to_string(),
            m.file_name.clone(),
            m.row_count.to_string(),
            human_size(m.file_size),
            key_range_text(&f.min_key, &f.max_key),
            format!("{}..{}", m.min_sequence_number, m.max_sequence_number),
            m.delete_row_count
                .map(|d| d.to_string())
                .unwrap_or_else(|| "-".to_string()),
            m.file_source.map(source_text).unwrap_or("-").to_string(),
        ]);
    }
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[String]| {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i > 0 {
                l.push_str("  ");
            }
            let pad = widths[i].saturating_sub(c.chars().count());
            if right[i] {
                l.push_str(&" ".repeat(pad));
                l.push_str(c);
            } else {
                l.push_str(c);
                if i + 1 < cells.len() {
                    l.push_str(&" ".repeat(pad));
                }
            }
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(&header.map(String::from));
    for r in &rows {
        line(r);
    }
    out
}

/// The text picture of `strata levels`: per (partition, bucket) a heading and one line per
/// level from L0 to the highest level present, files in key order as
/// `short-name [min..max] size`.
pub fn render_text(doc: &LevelsDoc) -> String {
    let mut out = format!("{} at snapshot {}\n", doc.table, doc.snapshot_id);
    for p in &doc.panels {
        let bytes: i64 = p.files.iter().map(|f| f.file_size).sum();
        let rows: i64 = p.files.iter().map(|f| f.row_count).sum();
        let place = if p.partition.is_empty() {
            format!("bucket {}", p.bucket)
        } else {
            format!("partition {}, bucket {}", p.partition, p.bucket)
        };
        out.push_str(&format!(
            "{place}: {} file(s), {}, {rows} row(s)\n",
            p.files.len(),
            human_size(bytes)
        ));
        let max_level = p.files.iter().map(|f| f.level).max().unwrap_or(0).max(0);
        let width = format!("L{max_level}").len();
        for level in 0..=max_level {
            let mut files: Vec<&FileBox> = p.files.iter().filter(|f| f.level == level).collect();
            files.sort_by(|a, b| {
                a.min_key
                    .cmp(&b.min_key)
                    .then_with(|| a.max_key.cmp(&b.max_key))
                    .then_with(|| a.file_name.cmp(&b.file_name))
            });
            let cells: Vec<String> = files
                .iter()
                .map(|f| {
                    let keys = if f.min_key.cells.is_empty() && f.max_key.cells.is_empty() {
                        String::new()
                    } else {
                        format!(" [{}..{}]", f.min_key.label, f.max_key.label)
                    };
                    format!(
                        "{}{keys} {}",
                        short_file_name(&f.file_name),
                        human_size(f.file_size)
                    )
                })
                .collect();
            let body = if cells.is_empty() {
                "(empty)".to_string()
            } else {
                cells.join("  |  ")
            };
            out.push_str(&format!("  {:<width$}  {body}\n", format!("L{level}")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata::system::{BucketPanel, Key, KeyCell, Source};
    use strata_spec::Datum;

    fn key(v: i64) -> Key {
        Key {
            cells: vec![KeyCell::Int(v as i128)],
            label: v.to_string(),
        }
    }

    fn fb(name: &str, level: i32, min: i64, max: i64, size: i64) -> FileBox {
        FileBox {
            file_name: name.to_string(),
            level,
            file_size: size,
            row_count: 10,
            min_key: key(min),
            max_key: key(max),
            min_sequence_number: 0,
            max_sequence_number: 9,
            delete_row_count: Some(0),
            source: Source::Append,
        }
    }

    #[test]
    fn text_lists_levels_in_key_order_with_empty_levels() {
        let doc = LevelsDoc {
            table: "db.t".into(),
            snapshot_id: 4,
            panels: vec![BucketPanel {
                partition: "dt=1".into(),
                bucket: 2,
                files: vec![
                    fb(
                        "data-bbbbbbbb-1111-2222-3333-444444444444-1.parquet",
                        2,
                        50,
                        99,
                        2048,
                    ),
                    fb(
                        "data-aaaaaaaa-1111-2222-3333-444444444444-0.parquet",
                        2,
                        1,
                        49,
                        100,
                    ),
                    fb(
                        "data-cccccccc-1111-2222-3333-444444444444-0.parquet",
                        0,
                        10,
                        20,
                        5,
                    ),
                ],
            }],
        };
        let text = render_text(&doc);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "db.t at snapshot 4");
        assert_eq!(
            lines[1],
            "partition dt=1, bucket 2: 3 file(s), 2.1 KiB, 30 row(s)"
        );
        assert_eq!(lines[2], "  L0  cccccccc-0 [10..20] 5 B");
        assert_eq!(lines[3], "  L1  (empty)");
        assert_eq!(
            lines[4],
            "  L2  aaaaaaaa-0 [1..49] 100 B  |  bbbbbbbb-1 [50..99] 2.0 KiB"
        );
    }

    #[test]
    fn key_range_texts() {
        let one: KeyValues = Some(vec![Some(Datum::BigInt(7))]);
        assert_eq!(key_range_text(&Some(vec![]), &Some(vec![])), "-");
        assert_eq!(key_range_text(&one, &one), "7..7");
    }
}
