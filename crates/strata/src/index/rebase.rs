//! Rebasing a commit's HASH index changes onto the snapshot it actually lands on.
//!
//! A dynamic-bucket writer ([`super::DynamicBucketAssigner`]) writes, for every bucket that
//! received new keys, a complete new HASH file (the bucket's previous file ∪ the new hashes)
//! and commits "DELETE previous, ADD new". Java's `DynamicBucketIndexMaintainer` does the same
//! and documents the consequence: only one writer per partition. With two writers the second
//! commit replaces the first one's file with its own, built from the older index — the first
//! writer's keys drop out of the index, and their next update is routed to another bucket,
//! which leaves the key in two buckets (a duplicate row to every reader).
//!
//! strata detects it at commit time, per attempt, against the latest snapshot:
//!
//! * **the bucket's file changed** (the live HASH files of a (partition, bucket) are not the
//!   ones this commit deletes): a new file is written holding the live files' hashes ∪ this
//!   commit's file, and the changes become "DELETE every live file, ADD the union". Both
//!   writers' keys stay; the rows are already in that bucket, so nothing else changes.
//! * **another writer put one of this commit's hashes in a different bucket** (it assigned the
//!   same key, or a key with the same hash, concurrently): the rows of that key are now in two
//!   buckets and no index can route its updates to both. The commit is refused with
//!   `ErrorDetail::CommitConflict` naming the partition, the buckets and the index file, before
//!   anything is published; the write can be retried and then routes the key to the bucket
//!   the index holds.
//!
//! "Another writer's file" means a live HASH file that was not live in the snapshot the writer
//! loaded its index from (`CommitMessage::index_base`); without that snapshot every live file
//! of the partition is checked, which is slower but equally exact.

use std::collections::{BTreeMap, HashMap, HashSet};

use object_store::path::Path;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{FileKind, IndexManifestEntry};
use strata_spec::snapshot::Snapshot;

use super::hash_file::{HashIndexFiles, HASH_INDEX};
use super::manifest::IndexManifestStore;
use crate::error::ErrorDetail;
use crate::table::Table;
use crate::Result;

/// The outcome of [`rebase_hash_changes`] when the index moved under the commit.
#[derive(Debug)]
pub(crate) struct RebasedIndex {
    /// The commit's index changes, with rebased buckets replaced.
    pub changes: Vec<IndexManifestEntry>,
    /// HASH files written for the rebase (delete them if the attempt does not land).
    pub written: Vec<Path>,
    /// The commit's own HASH files the rebase replaced (delete them once the attempt landed:
    /// no snapshot references them).
    pub replaced: Vec<Path>,
}

/// Rebases `changes` (a commit's index changes) onto `latest` whose live index entries are
/// `live`. `base` is the snapshot the writer's index was loaded from (`None`: unknown or an
/// empty table). Returns `None` when the index did not move under the commit.
pub(crate) async fn rebase_hash_changes(
    table: &Table,
    latest: &Snapshot,
    live: &[IndexManifestEntry],
    changes: &[IndexManifestEntry],
    base: Option<i64>,
) -> Result<Option<RebasedIndex>> {
    let is_hash = |e: &&IndexManifestEntry| e.index_file.index_type == HASH_INDEX;
    let adds: Vec<&IndexManifestEntry> = changes
        .iter()
        .filter(is_hash)
        .filter(|e| e.kind == FileKind::Add)
        .collect();
    if adds.is_empty() || base == Some(latest.id) {
        return Ok(None);
    }
    let partitions: HashSet<&BinaryRow> = adds.iter().map(|e| &e.partition).collect();
    // What the commit replaces, per (partition, bucket).
    let mut deleted: HashMap<(&BinaryRow, i32), HashSet<&str>> = HashMap::new();
    for e in changes.iter().filter(is_hash) {
        if e.kind == FileKind::Delete {
            deleted
                .entry((&e.partition, e.bucket))
                .or_default()
                .insert(e.index_file.file_name.as_str());
        }
    }
    let mut live_by_bucket: BTreeMap<(Vec<u8>, i32), Vec<&IndexManifestEntry>> = BTreeMap::new();
    for e in live.iter().filter(is_hash) {
        if e.kind == FileKind::Add && partitions.contains(&e.partition) {
            live_by_bucket
                .entry((e.partition.as_bytes().to_vec(), e.bucket))
                .or_default()
                .push(e);
        }
    }
    let base_names = base_hash_files(table, base).await?;
    let files = HashIndexFiles::new(table)?;
    let name_of = |p: &BinaryRow| table.partition_text(p).unwrap_or_else(|_| format!("{p:?}"));

    // This commit's hashes per (partition, bucket), read once.
    let mut mine: BTreeMap<(Vec<u8>, i32), (usize, HashSet<i32>)> = BTreeMap::new();
    for (i, a) in changes.iter().enumerate() {
        if a.kind == FileKind::Add && a.index_file.index_type == HASH_INDEX {
            let hashes = files.read(&a.partition, a.bucket, &a.index_file).await?;
            mine.insert(
                (a.partition.as_bytes().to_vec(), a.bucket),
                (i, hashes.into_iter().collect()),
            );
        }
    }

    let mut rebased: BTreeMap<usize, Vec<IndexManifestEntry>> = BTreeMap::new();
    let mut written = Vec::new();
    let mut replaced = Vec::new();
    let result = async {
        for ((pbytes, bucket), entries) in &live_by_bucket {
            let moved: Vec<&&IndexManifestEntry> = entries
                .iter()
                .filter(|e| !base_names.contains(e.index_file.file_name.as_str()))
                .collect();
            let own = mine.get(&(pbytes.clone(), *bucket));
            let partition = &entries[0].partition;
            // Another bucket of the partition: none of this commit's hashes may be there.
            if own.is_none() {
                for e in moved {
                    let theirs = files.read(&e.partition, e.bucket, &e.index_file).await?;
                    for ((p2, b2), (_, hashes)) in mine.range((pbytes.clone(), i32::MIN)..) {
                        if p2 != pbytes {
                            break;
                        }
                        if let Some(h) = theirs.iter().find(|h| hashes.contains(h)) {
                            return Err(ErrorDetail::CommitConflict {
                                table: table.identifier().to_string(),
                                message: format!(
                                    "a concurrent writer put key hash {h} of partition {} in \
                                     bucket {} (index file {}) while this commit wrote it to \
                                     bucket {b2}; a key in two buckets would be read twice, so \
                                     nothing was committed (retry the write: it routes the key \
                                     to bucket {})",
                                    name_of(partition),
                                    e.bucket,
                                    e.index_file.file_name,
                                    e.bucket
                                ),
                            }
                            .into());
                        }
                    }
                }
                continue;
            }
            let (at, hashes) = own.expect("checked above");
            let expected = deleted.get(&(partition, *bucket));
            let same = expected.is_some_and(|d| {
                d.len() == entries.len()
                    && entries
                        .iter()
                        .all(|e| d.contains(e.index_file.file_name.as_str()))
            });
            if same {
                continue;
            }
            // The bucket's index changed under this commit: union with what is live now.
            let mut union: Vec<i32> = hashes.iter().copied().collect();
            for e in entries {
                union.extend(files.read(&e.partition, e.bucket, &e.index_file).await?);
            }
            let (meta, path) = files.write(partition, *bucket, union).await?;
            written.push(path);
            let ours = &changes[*at];
            replaced.push(files.path(&ours.partition, ours.bucket, &ours.index_file)?);
            let mut out: Vec<IndexManifestEntry> = entries
                .iter()
                .map(|e| IndexManifestEntry {
                    kind: FileKind::Delete,
                    ..(*e).clone()
                })
                .collect();
            out.push(IndexManifestEntry {
                kind: FileKind::Add,
                partition: partition.clone(),
                bucket: *bucket,
                index_file: meta,
            });
            rebased.insert(*at, out);
        }
        Ok(())
    }
    .await;
    if let Err(e) = result {
        files.delete_quietly(&written).await;
        return Err(e);
    }
    if rebased.is_empty() {
        return Ok(None);
    }
    // The rebased buckets' own DELETE entries are superseded by the DELETEs of what is live.
    let rebased_keys: HashSet<(&BinaryRow, i32)> = rebased
        .keys()
        .map(|&i| (&changes[i].partition, changes[i].bucket))
        .collect();
    let mut out = Vec::with_capacity(changes.len());
    for (i, c) in changes.iter().enumerate() {
        if let Some(r) = rebased.get(&i) {
            out.extend(r.iter().cloned());
        } else if !(c.index_file.index_type == HASH_INDEX
            && c.kind == FileKind::Delete
            && rebased_keys.contains(&(&c.partition, c.bucket)))
        {
            out.push(c.clone());
        }
    }
    Ok(Some(RebasedIndex {
        changes: out,
        written,
        replaced,
    }))
}

/// Names of the HASH files live in snapshot `base` (empty when there is none or it expired:
/// then every live file counts as another writer's, which only costs reads).
async fn base_hash_files(table: &Table, base: Option<i64>) -> Result<HashSet<String>> {
    let Some(id) = base else {
        return Ok(HashSet::new());
    };
    let snapshot = match table.snapshot_manager().snapshot(id).await {
        Ok(s) => s,
        Err(e) if e.is_snapshot_not_found() => return Ok(HashSet::new()),
        Err(e) => return Err(e),
    };
    let entries = IndexManifestStore::new(table)?
        .read_snapshot(&snapshot)
        .await?;
    Ok(entries
        .into_iter()
        .filter(|e| e.index_file.index_type == HASH_INDEX && e.kind == FileKind::Add)
        .map(|e| e.index_file.file_name)
        .collect())
}
