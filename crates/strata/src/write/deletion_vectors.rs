//! The deletion vectors of the buckets a primary-key write touches (deletion-vector tables):
//! restored at the first write from the snapshot the bucket files are restored from, handed to
//! each bucket's lookup compaction, and written back as one new index file per bucket whose
//! vectors changed (Java `BucketedDvMaintainer.writeDeletionVectorsIndex`), which replaces the
//! bucket's previous index files in the COMPACT snapshot.

use std::collections::HashMap;

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{FileKind, IndexManifestEntry};
use strata_spec::snapshot::Snapshot;

use crate::format::deletion_vector::DeletionVector;
use crate::index::deletion_vectors::DeletionVectorIndexWriter;
use crate::table::Table;
use crate::Result;

/// The deletion vectors of one bucket as the latest snapshot had them, and the index files
/// holding them (replaced by the next index file strata writes for the bucket).
struct RestoredVectors {
    vectors: HashMap<String, DeletionVector>,
    index_files: Vec<IndexManifestEntry>,
}

/// Deletion vectors and their index files per (partition, bucket).
#[derive(Default)]
pub(super) struct BucketVectors {
    buckets: HashMap<(BinaryRow, i32), RestoredVectors>,
    /// Writes the index files (created at the first one).
    writer: Option<DeletionVectorIndexWriter>,
}

impl BucketVectors {
    /// The vectors of every bucket of snapshot `s` (the one the writer restored its files
    /// from).
    pub(super) async fn restore(table: &Table, s: &Snapshot) -> Result<Self> {
        let mut buckets: HashMap<(BinaryRow, i32), RestoredVectors> = HashMap::new();
        let store = crate::index::IndexManifestStore::new(table)?;
        for e in store.read_snapshot(s).await? {
            if e.index_file.index_type != crate::index::DELETION_VECTORS_INDEX {
                continue;
            }
            let key = (e.partition.clone(), e.bucket);
            if !buckets.contains_key(&key) {
                let vectors = crate::read::deletion_vectors::load_deletion_vectors(
                    table,
                    s,
                    &e.partition,
                    e.bucket,
                )
                .await?
                .into_iter()
                .map(|(file, dv)| (file, (*dv).clone()))
                .collect();
                buckets.insert(
                    key.clone(),
                    RestoredVectors {
                        vectors,
                        index_files: Vec::new(),
                    },
                );
            }
            buckets
                .get_mut(&key)
                .expect("inserted above")
                .index_files
                .push(e);
        }
        Ok(BucketVectors {
            buckets,
            writer: None,
        })
    }

    /// A copy of one bucket's vectors (data file name → vector).
    pub(super) fn of_bucket(&self, key: &(BinaryRow, i32)) -> HashMap<String, DeletionVector> {
        self.buckets
            .get(key)
            .map(|r| r.vectors.clone())
            .unwrap_or_default()
    }

    /// Writes a bucket's deletion vectors as a new index file and returns the index changes of
    /// the compaction: ADD the new file, DELETE the bucket's previous ones.
    pub(super) async fn write(
        &mut self,
        table: &Table,
        key: &(BinaryRow, i32),
        vectors: HashMap<String, DeletionVector>,
    ) -> Result<Vec<IndexManifestEntry>> {
        let writer = match &self.writer {
            Some(w) => w,
            None => self.writer.insert(DeletionVectorIndexWriter::new(table)?),
        };
        let mut list: Vec<(String, DeletionVector)> =
            vectors.into_iter().filter(|(_, v)| !v.is_empty()).collect();
        list.sort_by(|a, b| a.0.cmp(&b.0));
        let (entry, _path) = writer.write(&key.0, key.1, &list).await?;
        let restored = self
            .buckets
            .entry(key.clone())
            .or_insert_with(|| RestoredVectors {
                vectors: HashMap::new(),
                index_files: Vec::new(),
            });
        let mut changes: Vec<_> = std::mem::take(&mut restored.index_files)
            .into_iter()
            .map(|mut e| {
                e.kind = FileKind::Delete;
                e
            })
            .collect();
        restored.index_files.push(entry.clone());
        changes.push(entry);
        Ok(changes)
    }
}
