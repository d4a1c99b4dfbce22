//! Deletion vectors on the read path: the vectors of a snapshot's (partition, bucket) loaded
//! from its index manifest, cached per read, and applied to decoded batches (tables with
//! `deletion-vectors.enabled`).
//!
//! The live `DELETION_VECTORS` entries of a snapshot's index manifest list, per data file, a
//! byte range of an index file (`index/index-…`); the bytes there are one vector in Java's
//! 32- or 64-bit form, decoded by [`crate::format::deletion_vector`] (which also holds the
//! encoder and the index-file layout). A set bit is the position of a deleted row in the data
//! file. Readers apply the vector while decoding the file.

use std::collections::HashMap;
use std::sync::Arc;

use strata_spec::binary_row::BinaryRow;
use strata_spec::snapshot::Snapshot;

use crate::format::deletion_vector::decode_vector;
pub use crate::format::deletion_vector::DeletionVector;
use crate::index::deletion_vectors::deletion_vector_file_path;
use crate::index::{IndexManifestStore, DELETION_VECTORS_INDEX};
use crate::table::Table;
use crate::{Error, Result};

/// Deletion vectors by data-file name for one (partition, bucket) of a snapshot.
pub async fn load_deletion_vectors(
    table: &Table,
    snapshot: &Snapshot,
    partition: &BinaryRow,
    bucket: i32,
) -> Result<HashMap<String, Arc<DeletionVector>>> {
    let mut out = HashMap::new();
    if snapshot.index_manifest.is_none() {
        return Ok(out);
    }
    let entries = IndexManifestStore::new(table)?
        .read_snapshot(snapshot)
        .await?;
    for e in entries {
        if e.index_file.index_type != DELETION_VECTORS_INDEX
            || &e.partition != partition
            || e.bucket != bucket
        {
            continue;
        }
        // An index file Java wrote outside the table directory is read where it is.
        let (io, path) = match &e.index_file.external_path {
            Some(uri) => table.file_io().resolve_external(uri)?,
            None => (
                table.file_io().clone(),
                deletion_vector_file_path(table, &e)?,
            ),
        };
        let display = io.display(&path);
        for r in e.index_file.dv_ranges.iter().flatten() {
            let start = r.offset as u64;
            // 32-bit entries record the payload length (plus 4-byte length prefix and CRC),
            // 64-bit ones the whole length; read the larger, bounded by the file.
            let end =
                (start + 4 + r.length.max(0) as u64 + 4).min(e.index_file.file_size.max(0) as u64);
            let bytes = io.get_range(&path, start..end).await?;
            let dv = decode_vector(&bytes, Some(r.length as i64)).map_err(|err| {
                Error::corrupt(
                    display.clone(),
                    strata_spec::SpecError::invalid(
                        "deletion-vector index file",
                        format!("vector of {} at offset {start}: {err}", r.data_file_name),
                    ),
                )
            })?;
            out.insert(r.data_file_name.clone(), Arc::new(dv));
        }
    }
    Ok(out)
}

/// Deletion vectors of the (partition, bucket)s of one read, loaded once per bucket.
#[derive(Default)]
pub struct DvCache {
    loaded: tokio::sync::Mutex<HashMap<(BinaryRow, i32, i64), DvMap>>,
    /// Snapshots given as metadata (a tag's copy, which outlives the snapshot file), by id.
    known: HashMap<i64, Snapshot>,
}

/// Deletion vectors by data-file name.
pub type DvMap = Arc<HashMap<String, Arc<DeletionVector>>>;

impl DvCache {
    /// A cache that takes `snapshots` from their metadata instead of their snapshot files
    /// (tags of expired snapshots).
    pub fn with_snapshots(snapshots: impl IntoIterator<Item = Snapshot>) -> Self {
        DvCache {
            known: snapshots.into_iter().map(|s| (s.id, s)).collect(),
            ..DvCache::default()
        }
    }

    /// The vector of `file` in (partition, bucket) of snapshot `snapshot_id`, if any.
    pub async fn get(
        &self,
        table: &Table,
        snapshot_id: i64,
        partition: &BinaryRow,
        bucket: i32,
        file: &str,
    ) -> Result<Option<Arc<DeletionVector>>> {
        let key = (partition.clone(), bucket, snapshot_id);
        let mut loaded = self.loaded.lock().await;
        if !loaded.contains_key(&key) {
            let snapshot = match self.known.get(&snapshot_id) {
                Some(s) => s.clone(),
                None => table.snapshot_manager().snapshot(snapshot_id).await?,
            };
            let map = load_deletion_vectors(table, &snapshot, partition, bucket).await?;
            loaded.insert(key.clone(), Arc::new(map));
        }
        Ok(loaded[&key].get(file).cloned())
    }
}

/// Drops the rows of `batch` (rows `first_position..` of its file) that `dv` marks deleted.
pub fn apply(
    batch: arrow_array::RecordBatch,
    first_position: u64,
    dv: &DeletionVector,
) -> Result<arrow_array::RecordBatch> {
    let n = batch.num_rows();
    if (0..n as u64).all(|i| !dv.is_deleted(first_position + i)) {
        return Ok(batch);
    }
    let keep: arrow_array::BooleanArray = (0..n as u64)
        .map(|i| Some(!dv.is_deleted(first_position + i)))
        .collect();
    arrow_select::filter::filter_record_batch(&batch, &keep)
        .map_err(|e| Error::arrow("applying a deletion vector", e))
}
