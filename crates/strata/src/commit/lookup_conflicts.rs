//! Conflicts of lookup compactions: COMPACT commits of tables that compact with lookups
//! (deletion vectors, first-row, `changelog-producer = lookup`; `crate::lsm::compact::lookup`).
//!
//! A lookup compaction writes each key it moves up after looking it up in the levels above
//! its output, as they were in the snapshot it was planned on (`CommitMessage::compact_base`):
//! the older record found there is marked deleted (deletion vectors), kept (first-row) or
//! becomes the changelog's before-image. Readers of deletion-vector and first-row tables do
//! not merge levels, so this is what keeps every key in one file. Java's conflict detection
//! (`ConflictDetection`) only checks that the deleted files are live and that no level
//! overlaps itself; two writers that compacted the same bucket concurrently can both land
//! with outputs on different levels (or on one level in disjoint key ranges), and each
//! output's keys were never looked up in the other's: a key is then read twice, or its
//! older record is not deleted. So, per attempt, for every bucket whose levels moved since
//! the compaction was planned:
//!
//! * a file added at a level ≥ 1 since then whose key range overlaps an output of this
//!   compaction is a conflict (its keys were not looked up): the caller re-plans the
//!   compaction on the new snapshot (`super::recompact`);
//! * the bucket's deletion vectors are rebased onto the live ones
//!   (`crate::index::dv_rebase`): new deletions added to the live vectors, a new deletion in
//!   a file that was rewritten since, or a rewritten input whose vector changed, is a
//!   conflict.
//!
//! Nothing moved (only this committer's own snapshots since the base, typically its APPEND
//! snapshot): no check, nothing read.

use crate::error::ErrorDetail;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};

use object_store::path::Path;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{FileKind, IndexManifestEntry, ManifestEntry};
use strata_spec::snapshot::Snapshot;

use super::table_commit::{trimmed_key_types, TableCommit};
use crate::index::deletion_vectors::DeletionVectorIndexWriter;
use crate::index::dv_rebase::{rebase_bucket_vectors, BucketDvChange};
use crate::index::DELETION_VECTORS_INDEX;
use crate::lsm::interval_partition::compare_keys;
use crate::{Error, Result};

/// The compaction's snapshot base per (partition, bucket) (`CommitMessage::compact_base`).
pub(super) type CompactBases = HashMap<(BinaryRow, i32), Option<i64>>;

/// What a COMPACT attempt of a lookup table checks against.
pub(super) struct LookupCheck<'a> {
    pub latest: &'a Snapshot,
    /// Live entries of the touched partitions in `latest`.
    pub live: &'a [ManifestEntry],
    /// Live index entries of `latest`.
    pub live_index: &'a [IndexManifestEntry],
    /// The COMPACT's entries.
    pub delta: &'a [ManifestEntry],
    /// The COMPACT's index changes.
    pub index: &'a [IndexManifestEntry],
    pub bases: &'a CompactBases,
}

/// The COMPACT's index changes after rebasing deletion vectors.
pub(super) struct RebasedDv {
    pub changes: Vec<IndexManifestEntry>,
    /// Index files written by the rebase (delete them if the attempt does not land).
    pub written: Vec<Path>,
    /// This commit's own index files the rebase replaced (no snapshot references them once
    /// the attempt lands).
    pub replaced: Vec<Path>,
}

/// A bucket's partition and the COMPACT entries of the bucket.
type BucketDelta<'a> = (&'a BinaryRow, Vec<&'a ManifestEntry>);

/// A base snapshot's live entries and index entries of the touched partitions.
struct BaseState {
    live: Vec<ManifestEntry>,
    index: Vec<IndexManifestEntry>,
}

impl TableCommit {
    /// Checks a lookup table's COMPACT attempt (see the module doc); returns its rebased
    /// index changes when deletion vectors were rebased.
    pub(super) async fn check_lookup_compaction(
        &self,
        c: LookupCheck<'_>,
        deletion_vectors: bool,
    ) -> Result<Option<RebasedDv>> {
        let table = &self.table;
        let key_types = trimmed_key_types(table);
        let conflict = |message: String| {
            Error::from(ErrorDetail::CommitConflict {
                table: table.identifier().to_string(),
                message,
            })
        };
        let mut by_bucket: BTreeMap<(Vec<u8>, i32), BucketDelta<'_>> = BTreeMap::new();
        for e in c.delta {
            by_bucket
                .entry((e.partition.as_bytes().to_vec(), e.bucket))
                .or_insert_with(|| (&e.partition, Vec::new()))
                .1
                .push(e);
        }
        let mut bases: HashMap<i64, Option<BaseState>> = HashMap::new();
        let mut rebased: Vec<((BinaryRow, i32), Vec<IndexManifestEntry>)> = Vec::new();
        let mut written: Vec<Path> = Vec::new();
        let mut replaced: Vec<Path> = Vec::new();
        let dv_writer = if deletion_vectors {
            Some(DeletionVectorIndexWriter::new(table)?)
        } else {
            None
        };
        let result = async {
            for ((_, bucket), (partition, delta)) in &by_bucket {
                let bucket = *bucket;
                let Some(Some(base_id)) = c.bases.get(&((*partition).clone(), bucket)).copied()
                else {
                    continue;
                };
                if base_id == c.latest.id {
                    continue;
                }
                if let std::collections::hash_map::Entry::Vacant(slot) = bases.entry(base_id) {
                    let state = if self.only_own_since(base_id, c.latest.id).await? {
                        None
                    } else {
                        Some(self.base_state(base_id, c.delta).await.map_err(|e| {
                            conflict(format!(
                                "bucket {bucket} was compacted on snapshot {base_id}, which \
                                 cannot be read any more to check what changed since: {e}"
                            ))
                        })?)
                    };
                    slot.insert(state);
                }
                let Some(base) = bases.get(&base_id).and_then(Option::as_ref) else {
                    continue;
                };
                let in_bucket =
                    |e: &&ManifestEntry| &e.partition == *partition && e.bucket == bucket;
                let base_files: HashSet<(&str, i32)> = base
                    .live
                    .iter()
                    .filter(in_bucket)
                    .map(|e| (e.file.file_name.as_str(), e.file.level))
                    .collect();
                let deleted: HashSet<&str> = delta
                    .iter()
                    .filter(|e| e.kind == FileKind::Delete)
                    .map(|e| e.file.file_name.as_str())
                    .collect();
                let upgraded_from_above_0: HashSet<&str> = delta
                    .iter()
                    .filter(|e| e.kind == FileKind::Delete && e.file.level >= 1)
                    .map(|e| e.file.file_name.as_str())
                    .collect();
                // Outputs whose keys this compaction looked up (upgrades of files already
                // above level 0 carry keys that were visible before).
                let outputs: Vec<&&ManifestEntry> = delta
                    .iter()
                    .filter(|e| {
                        e.kind == FileKind::Add
                            && e.file.level >= 1
                            && !upgraded_from_above_0.contains(e.file.file_name.as_str())
                    })
                    .collect();
                for added in c.live.iter().filter(in_bucket).filter(|e| {
                    e.file.level >= 1
                        && !base_files.contains(&(e.file.file_name.as_str(), e.file.level))
                }) {
                    for out in &outputs {
                        if overlaps(&key_types, &added.file, &out.file)? {
                            return Err(conflict(format!(
                                "LSM conflicts detected! Give up committing. Data file {} \
                                 (bucket {bucket}, level {}) was added by a concurrent commit \
                                 after snapshot {base_id}, which this lookup compaction was \
                                 planned on, and overlaps in key range its output {} (level \
                                 {}), whose keys were not looked up in it",
                                added.file.file_name,
                                added.file.level,
                                out.file.file_name,
                                out.file.level
                            )));
                        }
                    }
                }
                let Some(writer) = &dv_writer else { continue };
                let is_dv = |e: &&IndexManifestEntry| {
                    e.index_file.index_type == DELETION_VECTORS_INDEX
                        && &e.partition == *partition
                        && e.bucket == bucket
                        && e.kind == FileKind::Add
                };
                let ours = c.index.iter().find(is_dv);
                let mut live_after: HashSet<&str> = c
                    .live
                    .iter()
                    .filter(in_bucket)
                    .map(|e| e.file.file_name.as_str())
                    .filter(|n| !deleted.contains(n))
                    .collect();
                live_after.extend(
                    delta
                        .iter()
                        .filter(|e| e.kind == FileKind::Add)
                        .map(|e| e.file.file_name.as_str()),
                );
                let change = BucketDvChange {
                    partition,
                    bucket,
                    base_index: base.index.iter().filter(is_dv).collect(),
                    live_index: c.live_index.iter().filter(is_dv).collect(),
                    ours,
                    rewritten: deleted
                        .iter()
                        .copied()
                        .filter(|n| !live_after.contains(n))
                        .collect(),
                    live_after: live_after.clone(),
                };
                if let Some(r) = rebase_bucket_vectors(table, writer, &change).await? {
                    written.push(r.written);
                    if let Some(o) = ours {
                        replaced.push(writer.path_of(
                            partition,
                            bucket,
                            &o.index_file.file_name,
                        )?);
                    }
                    rebased.push((((*partition).clone(), bucket), r.changes));
                }
            }
            Ok::<_, Error>(())
        }
        .await;
        if let Err(e) = result {
            if let Some(w) = &dv_writer {
                w.delete_quietly(&written).await;
            }
            return Err(e);
        }
        if rebased.is_empty() {
            return Ok(None);
        }
        let touched: HashSet<&(BinaryRow, i32)> = rebased.iter().map(|(k, _)| k).collect();
        let mut changes: Vec<IndexManifestEntry> = c
            .index
            .iter()
            .filter(|e| {
                !(e.index_file.index_type == DELETION_VECTORS_INDEX
                    && touched.contains(&(e.partition.clone(), e.bucket)))
            })
            .cloned()
            .collect();
        for (_, r) in rebased {
            changes.extend(r);
        }
        Ok(Some(RebasedDv {
            changes,
            written,
            replaced,
        }))
    }

    /// Whether every snapshot after `base` up to `latest` is this committer's own (nothing
    /// another writer did can have moved the levels). An expired snapshot counts as not own.
    async fn only_own_since(&self, base: i64, latest: i64) -> Result<bool> {
        let sm = self.table.snapshot_manager();
        for id in base + 1..=latest {
            match sm.snapshot(id).await {
                Ok(s) if s.commit_user == self.commit_user => {}
                Ok(_) => return Ok(false),
                Err(e) if e.is_snapshot_not_found() => return Ok(false),
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }

    /// The live entries (of the partitions `delta` touches) and index entries of snapshot
    /// `id`.
    async fn base_state(&self, id: i64, delta: &[ManifestEntry]) -> Result<BaseState> {
        let table = &self.table;
        let snapshot = table.snapshot_manager().snapshot(id).await?;
        let mut touched: Vec<BinaryRow> = delta.iter().map(|e| e.partition.clone()).collect();
        touched.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        touched.dedup();
        let metas = table.manifest_store().data_manifests(&snapshot).await?;
        let live = crate::scan::live_entries_of_partitions(table, &metas, &touched).await?;
        let index = crate::index::IndexManifestStore::new(table)?
            .read_snapshot(&snapshot)
            .await?;
        Ok(BaseState { live, index })
    }
}

/// Whether the key ranges of two data files overlap.
fn overlaps(
    key_types: &[strata_spec::DataType],
    a: &strata_spec::manifest::DataFileMeta,
    b: &strata_spec::manifest::DataFileMeta,
) -> Result<bool> {
    let (a_min, a_max) = (
        a.min_key.to_datums(key_types)?,
        a.max_key.to_datums(key_types)?,
    );
    let (b_min, b_max) = (
        b.min_key.to_datums(key_types)?,
        b.max_key.to_datums(key_types)?,
    );
    Ok(compare_keys(&a_min, &b_max) != Ordering::Greater
        && compare_keys(&b_min, &a_max) != Ordering::Greater)
}
