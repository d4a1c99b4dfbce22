//! A commit's messages split into the manifest entries of its snapshots (Java
//! `ManifestEntryChanges`): new files, compaction, changelogs, index changes and the planning
//! snapshot of each compacted bucket.

use strata_spec::manifest::{FileKind, IndexManifestEntry, ManifestEntry};

use super::lookup_conflicts;
use super::message::CommitMessage;

pub(super) struct SplitMessages {
    /// ADD entries of new files.
    pub(super) adds: Vec<ManifestEntry>,
    pub(super) index: Vec<IndexManifestEntry>,
    /// The oldest `index_base` of the messages with index changes or a base (`None` if any of
    /// them is `None`).
    pub(super) index_base: Option<i64>,
    /// DELETE entries of compacted files, then ADD entries of compaction outputs (Java
    /// `ManifestEntryChanges`).
    pub(super) compact: Vec<ManifestEntry>,
    /// ADD entries of the new data's changelog files (`appendChangelog`).
    pub(super) changelog: Vec<ManifestEntry>,
    /// ADD entries of the compaction's changelog files (`compactChangelog`).
    pub(super) compact_changelog: Vec<ManifestEntry>,
    /// Index changes of the compaction (deletion-vector index files).
    pub(super) compact_index: Vec<IndexManifestEntry>,
    /// The planning snapshot of each compacted (partition, bucket).
    pub(super) compact_bases: lookup_conflicts::CompactBases,
}

pub(super) fn split_messages(messages: Vec<CommitMessage>) -> SplitMessages {
    let mut out = SplitMessages {
        adds: Vec::new(),
        index: Vec::new(),
        index_base: None,
        compact: Vec::new(),
        changelog: Vec::new(),
        compact_changelog: Vec::new(),
        compact_index: Vec::new(),
        compact_bases: Default::default(),
    };
    let mut compact_adds = Vec::new();
    let mut bases: Vec<Option<i64>> = Vec::new();
    for m in messages {
        // Messages with index changes, and those of cross-partition-upsert writes (no index
        // files, a base: the snapshot their key index was bootstrapped from).
        if !m.index_changes.is_empty() || m.index_base.is_some() {
            bases.push(m.index_base);
        }
        if !m.compact_before.is_empty()
            || !m.compact_after.is_empty()
            || !m.compact_index_changes.is_empty()
        {
            out.compact_bases
                .insert((m.partition.clone(), m.bucket), m.compact_base);
        }
        out.index.extend(m.index_changes);
        out.compact_index.extend(m.compact_index_changes);
        let entry = |kind, file| ManifestEntry {
            kind,
            partition: m.partition.clone(),
            bucket: m.bucket,
            total_buckets: m.total_buckets,
            file,
        };
        for f in m.new_files {
            out.adds.push(entry(FileKind::Add, f));
        }
        for f in m.deleted_files {
            out.adds.push(entry(FileKind::Delete, f));
        }
        for f in m.compact_before {
            out.compact.push(entry(FileKind::Delete, f));
        }
        for f in m.compact_after {
            compact_adds.push(entry(FileKind::Add, f));
        }
        for f in m.new_changelog {
            out.changelog.push(entry(FileKind::Add, f));
        }
        for f in m.compact_changelog {
            out.compact_changelog.push(entry(FileKind::Add, f));
        }
    }
    out.compact.extend(compact_adds);
    out.index_base = if bases.contains(&None) {
        None
    } else {
        bases.into_iter().flatten().min()
    };
    out
}
