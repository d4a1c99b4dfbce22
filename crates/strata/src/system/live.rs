//! The live data files of a snapshot, read straight from its manifests, with partition values
//! and min/max keys decoded: the one listing behind the `files` and `levels` system tables and
//! the `strata files` / `strata levels` commands.
//!
//! Every live file is listed, whatever its level: scan planning leaves out the level-0 files of
//! first-row and deletion-vector tables (their readers skip them), but Java's `FilesTable`
//! plans with a level filter that keeps every level, and so does this listing.

use std::cmp::Ordering;
use std::collections::HashMap;

use strata_spec::manifest::{merge_entries, DataFileMeta};
use strata_spec::snapshot::Snapshot;
use strata_spec::{DataType, Datum};

use crate::table::Table;
use crate::Result;

/// A decoded min/max key: one value per trimmed primary-key column (empty for append tables),
/// `None` when the stored key does not match the key type of the file's schema.
pub type KeyValues = Option<Vec<Option<Datum>>>;

/// One live data file with its partition and keys decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveFile {
    /// Partition values, in partition-key order.
    pub partition: Vec<Option<Datum>>,
    /// `k=v,k2=v2` (empty for an unpartitioned table), for messages and the CLI.
    pub partition_text: String,
    /// The bucket the file lives in (`bucket-N` directory).
    pub bucket: i32,
    /// The bucket count the file was written with (`_TOTAL_BUCKETS`).
    pub total_buckets: i32,
    /// The file's smallest primary key (Java `DataFileMeta.minKey`), decoded.
    pub min_key: KeyValues,
    /// The file's largest primary key (Java `DataFileMeta.maxKey`), decoded.
    pub max_key: KeyValues,
    /// The file's metadata as its live ADD entry holds it.
    pub file: DataFileMeta,
}

/// A snapshot's live files (`snapshot` is `None`, and `files` empty, for a table without
/// snapshots).
#[derive(Clone, Debug, Default)]
pub struct LiveFiles {
    /// The snapshot read; `None` when the table has no snapshot.
    pub snapshot: Option<Snapshot>,
    /// The live data files of that snapshot (see [`live_files`] for their order).
    pub files: Vec<LiveFile>,
}

/// The live files of snapshot `snapshot_id` (default: the latest) ordered by partition,
/// bucket, level, min key and file name. A missing snapshot is
/// `ErrorDetail::SnapshotNotFound`.
pub async fn live_files(table: &Table, snapshot_id: Option<i64>) -> Result<LiveFiles> {
    let sm = table.snapshot_manager();
    let snapshot = match snapshot_id {
        Some(id) => Some(sm.snapshot(id).await?),
        None => sm.latest().await?,
    };
    let Some(snapshot) = snapshot else {
        return Ok(LiveFiles::default());
    };
    let store = table.manifest_store();
    let metas = store.data_manifests(&snapshot).await?;
    let entries = store.read_manifests(&metas).await?;
    let live = merge_entries(entries.into_iter().flatten())?.adds;

    let ptypes = table.schema().partition_type().types();
    let mut key_types: HashMap<i64, Vec<DataType>> = HashMap::new();
    let mut files = Vec::with_capacity(live.len());
    for e in live {
        let partition = e.partition.to_datums(&ptypes)?;
        let partition_text = table.partition_text(&e.partition)?;
        let types = match key_types.get(&e.file.schema_id) {
            Some(t) => t,
            None => {
                let t = table.key_types_for(e.file.schema_id).await?;
                key_types.entry(e.file.schema_id).or_insert(t)
            }
        };
        let decode = |row: &strata_spec::binary_row::BinaryRow| -> Result<KeyValues> {
            if row.arity() == 0 {
                Ok(Some(Vec::new()))
            } else if row.arity() != types.len() {
                Ok(None)
            } else {
                Ok(Some(row.to_datums(types)?))
            }
        };
        files.push(LiveFile {
            partition,
            partition_text,
            bucket: e.bucket,
            total_buckets: e.total_buckets,
            min_key: decode(&e.file.min_key)?,
            max_key: decode(&e.file.max_key)?,
            file: e.file,
        });
    }
    files.sort_by(|a, b| {
        compare_values(&a.partition, &b.partition)
            .then(a.bucket.cmp(&b.bucket))
            .then(a.file.level.cmp(&b.file.level))
            .then_with(|| compare_keys(&a.min_key, &b.min_key))
            .then_with(|| a.file.file_name.cmp(&b.file.file_name))
    });
    Ok(LiveFiles {
        snapshot: Some(snapshot),
        files,
    })
}

/// Lexicographic order of value lists, NULL first (values of one column compare by
/// [`Datum::compare`]).
pub fn compare_values(a: &[Option<Datum>], b: &[Option<Datum>]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(x), Some(y)) => x.compare(y).unwrap_or(Ordering::Equal),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// Order of decoded keys; undecodable keys last.
pub fn compare_keys(a: &KeyValues, b: &KeyValues) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => compare_values(a, b),
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_order_puts_nulls_first() {
        let a = vec![None, Some(Datum::Int(1))];
        let b = vec![Some(Datum::Int(0)), Some(Datum::Int(0))];
        assert_eq!(compare_values(&a, &b), Ordering::Less);
        assert_eq!(
            compare_values(&[Some(Datum::Int(2))], &[Some(Datum::Int(10))]),
            Ordering::Less
        );
        assert_eq!(compare_keys(&None, &Some(vec![])), Ordering::Greater);
    }
}
