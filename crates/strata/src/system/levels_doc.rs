//! The data model `strata levels` draws ([`LevelsDoc`]: one panel per selected (partition,
//! bucket), a box per live file) and [`levels_doc`], which builds it from a snapshot's live
//! files ([`crate::system::live_files`]). Public at [`crate::system`]; the SVG drawing of it is
//! the `strata-levels-svg` crate, beside the front ends.

use std::cmp::Ordering;
use std::collections::BTreeSet;

use strata_spec::manifest::FileSource;
use strata_spec::snapshot::Snapshot;
use strata_spec::Datum;

use crate::error::ErrorDetail;
use crate::system::live::{compare_values, live_files, KeyValues, LiveFile};
use crate::table::Table;
use crate::{Error, Result};

/// Everything drawn: one panel per (partition, bucket), stacked.
#[derive(Clone, Debug)]
pub struct LevelsDoc {
    /// `db.table`.
    pub table: String,
    /// The snapshot drawn (Java's `Snapshot.id`).
    pub snapshot_id: i64,
    /// One panel per selected (partition, bucket), in partition then bucket order.
    pub panels: Vec<BucketPanel>,
}

/// One bucket of one partition.
#[derive(Clone, Debug)]
pub struct BucketPanel {
    /// `k=v,k2=v2`; empty for an unpartitioned table.
    pub partition: String,
    /// The bucket (`bucket-N` directory).
    pub bucket: i32,
    /// The bucket's live data files (empty for a selected fixed bucket without files), in the
    /// order of [`crate::system::live_files`]: level, min key, file name.
    pub files: Vec<FileBox>,
}

/// Where a file came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Written by a writer flush.
    Append,
    /// Written by compaction.
    Compact,
    /// Not recorded (old writers).
    Unknown,
}

/// One data file.
#[derive(Clone, Debug)]
pub struct FileBox {
    /// The data file's name (Java `DataFileMeta.fileName`).
    pub file_name: String,
    /// The LSM level the file is at (Java `DataFileMeta.level`; level-0 files may overlap).
    pub level: i32,
    /// The file's size in bytes (Java `DataFileMeta.fileSize`).
    pub file_size: i64,
    /// Records in the file, deletes included (Java `DataFileMeta.rowCount`).
    pub row_count: i64,
    /// The file's smallest primary key (Java `DataFileMeta.minKey`).
    pub min_key: Key,
    /// The file's largest primary key (Java `DataFileMeta.maxKey`).
    pub max_key: Key,
    /// The smallest `_SEQUENCE_NUMBER` in the file (Java `DataFileMeta.minSequenceNumber`).
    pub min_sequence_number: i64,
    /// The largest `_SEQUENCE_NUMBER` in the file (Java `DataFileMeta.maxSequenceNumber`).
    pub max_sequence_number: i64,
    /// Retract records (`-U`, `-D`) in the file (Java `DataFileMeta.deleteRowCount`); `None`
    /// when the writer did not record it.
    pub delete_row_count: Option<i64>,
    /// Whether a flush or a compaction wrote the file (Java `DataFileMeta.fileSource`).
    pub source: Source,
}

/// A key: its values for ordering and placing, and its text for labels.
#[derive(Clone, Debug)]
pub struct Key {
    /// One cell per key column; empty for files without keys (append tables).
    pub cells: Vec<KeyCell>,
    /// The key as text: the value for one column, `(a, b)` for several, `()` without key
    /// columns, `?` when undecodable (see [`key_text`]).
    pub label: String,
}

/// One key column's value. Integers also carry DATE, TIME, TIMESTAMP (as nanoseconds) and
/// DECIMAL (unscaled) values, which order and space like their numbers.
#[derive(Clone, Debug)]
pub enum KeyCell {
    /// SQL NULL.
    Null,
    /// A BOOLEAN.
    Bool(bool),
    /// An integer, DATE (days), TIME (ms of the day), TIMESTAMP (ns since the epoch) or DECIMAL
    /// (unscaled) value.
    Int(i128),
    /// A FLOAT or DOUBLE.
    Float(f64),
    /// A CHAR or VARCHAR.
    Text(String),
    /// A BINARY or VARBINARY.
    Bytes(Vec<u8>),
}

impl KeyCell {
    fn rank(&self) -> u8 {
        match self {
            KeyCell::Null => 0,
            KeyCell::Bool(_) => 1,
            KeyCell::Int(_) => 2,
            KeyCell::Float(_) => 3,
            KeyCell::Text(_) => 4,
            KeyCell::Bytes(_) => 5,
        }
    }

    /// NULL first; floats in IEEE total order; text by UTF-8 bytes (Paimon's order).
    fn cmp_cell(&self, other: &KeyCell) -> Ordering {
        match (self, other) {
            (KeyCell::Bool(a), KeyCell::Bool(b)) => a.cmp(b),
            (KeyCell::Int(a), KeyCell::Int(b)) => a.cmp(b),
            (KeyCell::Float(a), KeyCell::Float(b)) => a.total_cmp(b),
            (KeyCell::Text(a), KeyCell::Text(b)) => a.as_bytes().cmp(b.as_bytes()),
            (KeyCell::Bytes(a), KeyCell::Bytes(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Key) -> Ordering {
        for (a, b) in self.cells.iter().zip(&other.cells) {
            let o = a.cmp_cell(b);
            if o != Ordering::Equal {
                return o;
            }
        }
        self.cells.len().cmp(&other.cells.len())
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Key {}

/// The LSM trees of snapshot `snapshot` of `table` (default: the latest), the picture of
/// `strata levels`: one panel per (partition, bucket) with files, in partition then bucket
/// order, each file a [`FileBox`].
///
/// `partition` keeps the partitions matching its `(column, value)` pairs, a subset of the
/// partition columns with values as in partition paths (`dt=2024-01-01`); `bucket` keeps one
/// bucket, drawn (empty if need be) in every selected partition when it lies in a fixed-bucket
/// table's range.
///
/// Errors: a table without snapshots, a missing snapshot (naming the ids the table has) and a
/// partition or bucket without files are `ErrorDetail::NotFound`; a partition filter on an
/// unpartitioned table, unknown columns, unparsable values and a bucket outside a fixed-bucket
/// table's range are `ErrorDetail::InvalidArgument`.
pub async fn levels_doc(
    table: &Table,
    snapshot: Option<i64>,
    partition: &[(String, String)],
    bucket: Option<i32>,
) -> Result<LevelsDoc> {
    let live = match live_files(table, snapshot).await {
        Ok(live) => live,
        Err(e) if e.is_snapshot_not_found() => {
            let id = e.snapshot().unwrap_or_default();
            return Err(snapshot_not_found(table, id).await);
        }
        Err(e) => return Err(e),
    };
    let Some(snapshot) = live.snapshot else {
        return Err(ErrorDetail::NotFound(format!(
            "{} has no snapshots yet: nothing to show",
            table.identifier()
        ))
        .into());
    };
    let files = select_partitions(table, &snapshot, live.files, partition)?;
    let groups = select_buckets(table, &snapshot, files, bucket)?;
    Ok(LevelsDoc {
        table: table.identifier().to_string(),
        snapshot_id: snapshot.id,
        panels: groups
            .into_iter()
            .map(|(partition, bucket, files)| BucketPanel {
                partition,
                bucket,
                files: files.iter().map(file_box).collect(),
            })
            .collect(),
    })
}

/// Snapshot `id` is missing: `ErrorDetail::NotFound` with the ids the table has.
async fn snapshot_not_found(table: &Table, id: i64) -> Error {
    let ids = match table.snapshot_manager().list_ids().await {
        Ok(ids) => ids,
        Err(e) => return e,
    };
    let have = match (ids.first(), ids.last()) {
        (Some(a), Some(b)) if a == b => format!("it has snapshot {a} only"),
        (Some(a), Some(b)) => format!("it has snapshots {a}..{b}"),
        _ => "it has no snapshots".to_string(),
    };
    ErrorDetail::NotFound(format!(
        "snapshot {id} not found in {} ({have})",
        table.identifier()
    ))
    .into()
}

/// Readable text of a key: the value for one column, `(a, b)` for several, `?` undecodable.
pub fn key_text(k: &KeyValues) -> String {
    let Some(values) = k else {
        return "?".to_string();
    };
    let one = |v: &Option<Datum>| match v {
        Some(d) => d.to_string(),
        None => "null".to_string(),
    };
    match values.as_slice() {
        [v] => one(v),
        vs => format!("({})", vs.iter().map(one).collect::<Vec<_>>().join(", ")),
    }
}

/// Keeps the files of partitions matching `spec` (`(column, value)` pairs, a subset of the
/// partition columns). Unknown columns, unparsable values and specs matching no partition are
/// errors.
fn select_partitions(
    table: &Table,
    snapshot: &Snapshot,
    live: Vec<LiveFile>,
    spec: &[(String, String)],
) -> Result<Vec<LiveFile>> {
    if spec.is_empty() {
        return Ok(live);
    }
    let id = table.identifier();
    let ptype = table.schema().partition_type();
    if ptype.fields.is_empty() {
        return Err(ErrorDetail::InvalidArgument(format!(
            "{id} is not partitioned: a partition filter does not apply"
        ))
        .into());
    }
    let spec_text = spec
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    let wanted = table
        .partition_computer()
        .parse_partial_spec(spec)
        .map_err(|e| {
            ErrorDetail::InvalidArgument(format!("partition {spec_text}: {e} (table {id})"))
        })?;
    let matches = |f: &LiveFile| {
        wanted.iter().all(|(i, v)| match (f.partition.get(*i), v) {
            (Some(None), None) => true,
            (Some(Some(a)), Some(b)) => a.compare(b) == Some(Ordering::Equal),
            _ => false,
        })
    };
    let all: BTreeSet<String> = live.iter().map(|f| f.partition_text.clone()).collect();
    let kept: Vec<LiveFile> = live.into_iter().filter(|f| matches(f)).collect();
    if kept.is_empty() {
        let mut listed: Vec<String> = all.iter().take(10).cloned().collect();
        if all.len() > 10 {
            listed.push(format!("… {} more", all.len() - 10));
        }
        return Err(ErrorDetail::NotFound(format!(
            "partition {spec_text} not found in {id} at snapshot {} (partitions with files: {})",
            snapshot.id,
            if listed.is_empty() {
                "none".to_string()
            } else {
                listed.join("; ")
            }
        ))
        .into());
    }
    Ok(kept)
}

/// Groups files by (partition, bucket), keeping only `bucket` when given. A fixed-bucket
/// table's bucket must be in `0..bucket`; an empty bucket in range gets an empty group per
/// partition. Other tables' buckets must have files.
fn select_buckets(
    table: &Table,
    snapshot: &Snapshot,
    live: Vec<LiveFile>,
    bucket: Option<i32>,
) -> Result<Vec<(String, i32, Vec<LiveFile>)>> {
    let id = table.identifier();
    let total = table.options().bucket()?;
    if let Some(b) = bucket {
        if total > 0 && !(0..total).contains(&b) {
            return Err(ErrorDetail::InvalidArgument(format!(
                "bucket {b} is out of range: {id} has {total} bucket(s), 0..{}",
                total - 1
            ))
            .into());
        }
        if total <= 0 && !live.iter().any(|f| f.bucket == b) {
            let present: BTreeSet<i32> = live.iter().map(|f| f.bucket).collect();
            return Err(ErrorDetail::NotFound(format!(
                "bucket {b} not found in {id} at snapshot {} (buckets with files: {})",
                snapshot.id,
                if present.is_empty() {
                    "none".to_string()
                } else {
                    present
                        .iter()
                        .map(|b| b.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ))
            .into());
        }
    }
    // `live` is sorted by partition then bucket: consecutive runs form the groups.
    type Group = (Vec<Option<Datum>>, String, i32, Vec<LiveFile>);
    let mut groups: Vec<Group> = Vec::new();
    for f in live {
        let same_partition = groups
            .last()
            .is_some_and(|g| compare_values(&g.0, &f.partition) == Ordering::Equal);
        let new_group = match bucket {
            // One group per partition, even when the bucket is empty there.
            Some(_) => !same_partition,
            None => !same_partition || groups.last().is_some_and(|g| g.2 != f.bucket),
        };
        if new_group {
            let b = bucket.unwrap_or(f.bucket);
            groups.push((f.partition.clone(), f.partition_text.clone(), b, Vec::new()));
        }
        if let Some(g) = groups.last_mut() {
            if g.2 == f.bucket {
                g.3.push(f);
            }
        }
    }
    Ok(groups
        .into_iter()
        .map(|(_, p, b, files)| (p, b, files))
        .collect())
}

fn key_cell(v: &Option<Datum>) -> KeyCell {
    match v {
        None => KeyCell::Null,
        Some(d) => match d {
            Datum::Boolean(b) => KeyCell::Bool(*b),
            Datum::TinyInt(x) => KeyCell::Int(*x as i128),
            Datum::SmallInt(x) => KeyCell::Int(*x as i128),
            Datum::Int(x) | Datum::Date(x) | Datum::Time(x) => KeyCell::Int(*x as i128),
            Datum::BigInt(x) => KeyCell::Int(*x as i128),
            Datum::Float(x) => KeyCell::Float(*x as f64),
            Datum::Double(x) => KeyCell::Float(*x),
            // One column has one scale, so unscaled values order (and space) like the values.
            Datum::Decimal { unscaled, .. } => KeyCell::Int(*unscaled),
            Datum::String(s) => KeyCell::Text(s.clone()),
            Datum::Bytes(b) => KeyCell::Bytes(b.clone()),
            Datum::Timestamp { millis, nanos } | Datum::TimestampLtz { millis, nanos } => {
                KeyCell::Int(*millis as i128 * 1_000_000 + *nanos as i128)
            }
        },
    }
}

fn to_key(k: &KeyValues) -> Key {
    Key {
        cells: k
            .as_ref()
            .map(|vs| vs.iter().map(key_cell).collect())
            .unwrap_or_default(),
        label: key_text(k),
    }
}

fn file_box(f: &LiveFile) -> FileBox {
    let m = &f.file;
    FileBox {
        file_name: m.file_name.clone(),
        level: m.level,
        file_size: m.file_size,
        row_count: m.row_count,
        min_key: to_key(&f.min_key),
        max_key: to_key(&f.max_key),
        min_sequence_number: m.min_sequence_number,
        max_sequence_number: m.max_sequence_number,
        delete_row_count: m.delete_row_count,
        source: match m.file_source {
            Some(FileSource::Append) => Source::Append,
            Some(FileSource::Compact) => Source::Compact,
            None => Source::Unknown,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_texts() {
        let one: KeyValues = Some(vec![Some(Datum::BigInt(7))]);
        let two: KeyValues = Some(vec![Some(Datum::String("a".into())), None]);
        assert_eq!(key_text(&one), "7");
        assert_eq!(key_text(&two), "(a, null)");
        assert_eq!(key_text(&None), "?");
        assert_eq!(key_text(&Some(vec![])), "()");
    }

    #[test]
    fn keys_order_like_their_values_and_keep_their_text() {
        let k = |vs: Vec<Option<Datum>>| to_key(&Some(vs));
        let a = k(vec![Some(Datum::Int(2)), Some(Datum::String("b".into()))]);
        let b = k(vec![Some(Datum::Int(10)), Some(Datum::String("a".into()))]);
        assert!(a < b);
        assert_eq!(a.label, "(2, b)");
        assert!(k(vec![None]) < k(vec![Some(Datum::Int(i32::MIN))]));
        let ts = |millis, nanos| k(vec![Some(Datum::Timestamp { millis, nanos })]);
        assert!(ts(1, 999_999) < ts(2, 0));
        let undecodable = to_key(&None);
        assert!(undecodable.cells.is_empty());
        assert_eq!(undecodable.label, "?");
    }
}
