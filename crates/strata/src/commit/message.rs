//! [`CommitMessage`]: the new, deleted and compacted files of one (partition, bucket) a writer
//! hands to the commit (Java `CommitMessageImpl`), and what attaches index changes to it.

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{DataFileMeta, IndexManifestEntry};

/// `commitIdentifier` of batch commits (Java `BatchWriteBuilder.COMMIT_IDENTIFIER`).
pub const BATCH_COMMIT_IDENTIFIER: i64 = i64::MAX;

/// New files of one (partition, bucket), produced by a writer.
#[derive(Clone, Debug)]
pub struct CommitMessage {
    /// The partition the files belong to, as Paimon's `BinaryRow` of the partition columns
    /// (Java's `CommitMessage.partition`; empty for an unpartitioned table).
    pub partition: BinaryRow,
    /// The bucket the files belong to (Java's `CommitMessage.bucket`; `0` for the files of
    /// `bucket = -1` append tables).
    pub bucket: i32,
    /// The partition's number of buckets when the files were written (Java's
    /// `CommitMessage.totalBuckets`), written into each entry's `totalBuckets`; after a bucket
    /// rescale, a commit refuses a count that differs from the partition's live files.
    pub total_buckets: i32,
    /// Data files the writer added (Java `DataIncrement.newFiles`): ADD entries of the APPEND
    /// snapshot.
    pub new_files: Vec<DataFileMeta>,
    /// Files of the table this commit removes alongside `new_files`, in the same APPEND
    /// snapshot (Java `DataIncrement.deletedFiles`): a copy-on-write UPDATE or DELETE replaces
    /// the files it rewrote. Each must still be live when the commit lands, or the commit
    /// fails as a conflict.
    pub deleted_files: Vec<DataFileMeta>,
    /// Changelog files of the new data (Java `DataIncrement.changelogFiles`; written by
    /// `changelog-producer = input`): ADD entries of the APPEND snapshot's changelog manifest
    /// list, read by streaming and incremental readers of the changelog.
    pub new_changelog: Vec<DataFileMeta>,
    /// Compaction: files removed (DELETE entries; an upgraded file at its old level).
    pub compact_before: Vec<DataFileMeta>,
    /// Compaction: files added (ADD entries; an upgraded file at its new level, same name).
    pub compact_after: Vec<DataFileMeta>,
    /// Changelog files produced by the compaction (Java `CompactIncrement.changelogFiles`):
    /// the COMPACT snapshot's changelog manifest list.
    pub compact_changelog: Vec<DataFileMeta>,
    /// Index file changes of this (partition, bucket): ADD of new index files, DELETE of the
    /// ones they replace (e.g. from `DynamicBucketAssigner::prepare_commit`). Each entry
    /// carries its own partition and bucket, which the commit uses as they are.
    pub index_changes: Vec<IndexManifestEntry>,
    /// Index file changes of the compaction (Java `CompactIncrement.newIndexFiles` /
    /// `deletedIndexFiles`): the bucket's new deletion-vector index file (ADD) and the one it
    /// replaces (DELETE), committed with the COMPACT snapshot.
    pub compact_index_changes: Vec<IndexManifestEntry>,
    /// The snapshot whose index `index_changes` were computed against
    /// (`DynamicBucketAssigner::base_snapshot`; `None`: an empty table, or unknown). The commit
    /// rebases HASH changes onto the snapshot it lands on when other writers changed the index
    /// since (see `crate::index::rebase`); `None` only makes that check read more files.
    pub index_base: Option<i64>,
    /// The snapshot the compaction of this bucket was planned on (the writer restored the
    /// bucket's levels and deletion vectors from it). Lookup compactions (deletion vectors,
    /// first-row, `changelog-producer = lookup`) are checked against what changed in the
    /// bucket since and their deletion vectors rebased (`lookup_conflicts`); `None` (unknown)
    /// skips that check.
    pub compact_base: Option<i64>,
}

impl CommitMessage {
    /// An empty message of one (partition, bucket).
    pub fn new(partition: BinaryRow, bucket: i32, total_buckets: i32) -> Self {
        CommitMessage {
            partition,
            bucket,
            total_buckets,
            new_files: Vec::new(),
            deleted_files: Vec::new(),
            new_changelog: Vec::new(),
            compact_before: Vec::new(),
            compact_after: Vec::new(),
            compact_changelog: Vec::new(),
            index_changes: Vec::new(),
            compact_index_changes: Vec::new(),
            index_base: None,
            compact_base: None,
        }
    }

    /// Whether the message carries nothing to commit.
    pub fn is_empty(&self) -> bool {
        self.new_files.is_empty()
            && self.deleted_files.is_empty()
            && self.new_changelog.is_empty()
            && self.compact_before.is_empty()
            && self.compact_after.is_empty()
            && self.compact_changelog.is_empty()
            && self.index_changes.is_empty()
            && self.compact_index_changes.is_empty()
    }
}

/// Puts each index change into the message of its (partition, bucket), adding a message
/// without data files (with `total_buckets`) where there is none.
pub fn attach_index_changes(
    messages: &mut Vec<CommitMessage>,
    changes: Vec<IndexManifestEntry>,
    total_buckets: i32,
) {
    for c in changes {
        match messages
            .iter_mut()
            .find(|m| m.partition == c.partition && m.bucket == c.bucket)
        {
            Some(m) => m.index_changes.push(c),
            None => messages.push(CommitMessage {
                index_changes: vec![c.clone()],
                ..CommitMessage::new(c.partition.clone(), c.bucket, total_buckets)
            }),
        }
    }
}
