//! Compaction of unaware-bucket append tables with deletion vectors
//! (`deletion-vectors.enabled`), as Java Paimon 2.0's `AppendCompactCoordinator` in
//! deletion-vector mode and `AppendCompactTask` with an `AppendDeleteFileMaintainer` do it.
//!
//! - Candidates: files below the small-file size, and files whose deletion vector marks more
//!   than `compaction.delete-ratio-threshold` of their rows deleted (`tooHighDeleteRatio`; a
//!   vector without cardinality counts as too many).
//! - Packing (`packInDeletionVectorVMode`): candidates with a deletion vector are grouped by
//!   the index file holding it (a task rewrites every vector of an index file it touches);
//!   the groups, smallest first, fill bins that become tasks once they hold more than one file
//!   and 2 × `target-file-size` (with `source.split.open-file-cost` per file), and what is left
//!   of them is always a task (deleted rows must go). Candidates without a vector are packed as
//!   the plain coordinator does, when there are at least two.
//! - Rewrite: the rows are read with their deletion vectors applied (Java's `compactRewrite`
//!   with a `dvFactory`).
//! - Index files (`AppendDeleteFileMaintainer.persist`): every index file holding the vector
//!   of a rewritten file is DELETEd; the vectors it holds of files not rewritten are written to
//!   a new index file (ADD), all in the same COMPACT snapshot (`CompactIncrement`'s new and
//!   deleted index files). strata writes one index file where Java rolls at
//!   `deletion-vector.index-file.target-size`.
//!
//! Fixed-bucket tables use the same index rewrite (each bucket's one index file, rewritten
//! even when no vector is left, as `BucketedDvMaintainer`); their picking is the caller's.
//! Row-tracking tables keep their rows' `_ROW_ID`s, read before the vectors apply (the caller).

use std::collections::{BTreeMap, HashMap, HashSet};

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{DataFileMeta, FileKind, IndexManifestEntry};
use strata_spec::snapshot::Snapshot;

use crate::index::deletion_vectors::DeletionVectorIndexWriter;
use crate::index::DELETION_VECTORS_INDEX;
use crate::table::Table;
use crate::Result;

/// The deletion vectors of one partition of an unaware-bucket table (bucket 0): which index
/// file holds each data file's vector, and the vector's cardinality.
#[derive(Default)]
pub(super) struct PartitionVectors {
    /// data file name → (index file name, cardinality).
    by_file: HashMap<String, (String, Option<i64>)>,
    /// The live deletion-vector index entries of the partition.
    entries: Vec<IndexManifestEntry>,
}

/// The deletion vectors of every partition of snapshot `s`, by partition bytes.
pub(super) async fn load(
    table: &Table,
    s: &Snapshot,
) -> Result<BTreeMap<Vec<u8>, PartitionVectors>> {
    let mut out: BTreeMap<Vec<u8>, PartitionVectors> = BTreeMap::new();
    let store = crate::index::IndexManifestStore::new(table)?;
    for e in store.read_snapshot(s).await? {
        if e.index_file.index_type != DELETION_VECTORS_INDEX {
            continue;
        }
        let p = out.entry(e.partition.as_bytes().to_vec()).or_default();
        for r in e.index_file.dv_ranges.iter().flatten() {
            p.by_file.insert(
                r.data_file_name.clone(),
                (e.index_file.file_name.clone(), r.cardinality),
            );
        }
        p.entries.push(e);
    }
    Ok(out)
}

impl PartitionVectors {
    /// Java `AppendCompactCoordinator.tooHighDeleteRatio`.
    pub(super) fn too_high_delete_ratio(&self, f: &DataFileMeta, threshold: f64) -> bool {
        match self.by_file.get(&f.file_name) {
            Some((_, None)) => true,
            Some((_, Some(c))) => (*c as f64) > f.row_count as f64 * threshold,
            None => false,
        }
    }

    /// Whether `f` has a deletion vector.
    pub(super) fn has_vector(&self, f: &DataFileMeta) -> bool {
        self.by_file.contains_key(&f.file_name)
    }

    /// The index changes of rewriting `compacted` (data file names) in this partition
    /// (`AppendDeleteFileMaintainer.persist`): each index file holding a vector of one of them
    /// DELETEd, the vectors it holds of other files written to a new one (ADD,
    /// `writeUnchangedDeletionVector`), and `added` (new vectors of new files) to one more.
    /// Returns the changes and the paths written (for aborts).
    pub(super) async fn rewrite_index(
        &self,
        table: &Table,
        partition: &BinaryRow,
        compacted: &HashSet<String>,
        added: Vec<(String, crate::read::deletion_vectors::DeletionVector)>,
        bucketed: bool,
        writer: &mut Option<DeletionVectorIndexWriter>,
    ) -> Result<(Vec<IndexManifestEntry>, Vec<object_store::path::Path>)> {
        let mut changes = Vec::new();
        let mut written = Vec::new();
        for e in &self.entries {
            let ranges = e.index_file.dv_ranges.as_deref().unwrap_or_default();
            if !ranges.iter().any(|r| compacted.contains(&r.data_file_name)) {
                continue;
            }
            let vectors = crate::index::deletion_vectors::read_index_vectors(table, &[e]).await?;
            let mut kept: Vec<_> = vectors
                .into_iter()
                .filter(|(name, _)| !compacted.contains(name))
                .collect();
            kept.sort_by(|a, b| a.0.cmp(&b.0));
            if !kept.is_empty() || bucketed {
                let w = match writer {
                    Some(w) => w,
                    None => writer.insert(DeletionVectorIndexWriter::new(table)?),
                };
                let (entry, path) = w.write(partition, e.bucket, &kept).await?;
                changes.push(entry);
                written.push(path);
            }
            let mut old = e.clone();
            old.kind = FileKind::Delete;
            changes.push(old);
        }
        if !added.is_empty() {
            let w = match writer {
                Some(w) => w,
                None => writer.insert(DeletionVectorIndexWriter::new(table)?),
            };
            let (entry, path) = w.write(partition, 0, &added).await?;
            changes.push(entry);
            written.push(path);
        }
        Ok((changes, written))
    }

    /// The vectors of the data files `names` (those that have one), read from their index
    /// files.
    pub(super) async fn vectors_of(
        &self,
        table: &Table,
        names: &HashSet<String>,
    ) -> Result<HashMap<String, crate::read::deletion_vectors::DeletionVector>> {
        let entries: Vec<&IndexManifestEntry> = self
            .entries
            .iter()
            .filter(|e| {
                e.index_file
                    .dv_ranges
                    .iter()
                    .flatten()
                    .any(|r| names.contains(&r.data_file_name))
            })
            .collect();
        let mut all = crate::index::deletion_vectors::read_index_vectors(table, &entries).await?;
        all.retain(|name, _| names.contains(name));
        Ok(all)
    }
}

impl PartitionVectors {
    /// Java `SubCoordinator.packInDeletionVectorVMode` over one partition's candidates: the
    /// tasks of the files with vectors, and the files without (packed by the caller as the
    /// plain coordinator does, when there are at least two).
    pub(super) fn pack(
        &self,
        files: &[DataFileMeta],
        target_file_size: u64,
        open_file_cost: u64,
    ) -> (Vec<Vec<DataFileMeta>>, Vec<DataFileMeta>) {
        let mut with_dv: BTreeMap<&str, Vec<DataFileMeta>> = BTreeMap::new();
        let mut rest = Vec::new();
        for f in files {
            match self.by_file.get(&f.file_name) {
                Some((index, _)) => with_dv.entry(index.as_str()).or_default().push(f.clone()),
                None => rest.push(f.clone()),
            }
        }
        let mut groups: Vec<Vec<DataFileMeta>> = with_dv.into_values().collect();
        groups.sort_by_key(|g| g.iter().map(|f| f.file_size).sum::<i64>());
        let mut out = Vec::new();
        let mut bin: Vec<DataFileMeta> = Vec::new();
        let mut total = 0u64;
        for g in groups {
            for f in g {
                total += f.file_size.max(0) as u64 + open_file_cost;
                bin.push(f);
            }
            if bin.len() > 1 && total >= target_file_size.saturating_mul(2) {
                out.push(std::mem::take(&mut bin));
                total = 0;
            }
        }
        // Files with deletion vectors must be compacted.
        if !bin.is_empty() {
            out.push(bin);
        }
        (out, rest)
    }
}

/// Refuses, as a commit conflict (the caller plans again), a compaction whose rewritten files
/// got a new or changed deletion vector after snapshot `planned`: their rows were read with
/// the older vectors, so the newer deletions would come back (Java's `ConflictDetection`
/// pairs each deleted data file with its vector for the same reason). An early exit before
/// the commit: a vector changed after this check is refused by the commit itself, which pairs
/// every deleted data file with its vector on the latest snapshot of each attempt
/// (`commit::dv_conflicts`).
pub(super) async fn check_vectors_unchanged(
    table: &Table,
    planned: i64,
    vectors: &BTreeMap<Vec<u8>, PartitionVectors>,
    compacted: &[(BinaryRow, Vec<String>)],
) -> Result<()> {
    let Some(latest) = table.snapshot_manager().latest().await? else {
        return Ok(());
    };
    if latest.id == planned {
        return Ok(());
    }
    let now = load(table, &latest).await?;
    let none = PartitionVectors::default();
    for (partition, names) in compacted {
        let key = partition.as_bytes();
        let (before, after) = (
            vectors.get(key).unwrap_or(&none),
            now.get(key).unwrap_or(&none),
        );
        if let Some(name) = names
            .iter()
            .find(|n| before.by_file.get(*n) != after.by_file.get(*n))
        {
            return Err(crate::error::ErrorDetail::CommitConflict {
                table: table.identifier().to_string(),
                message: format!(
                    "the deletion vector of {name}, which this compaction rewrote, changed \
                     after snapshot {planned}"
                ),
            }
            .into());
        }
    }
    Ok(())
}
