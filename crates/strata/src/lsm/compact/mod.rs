//! LSM compaction of one bucket.
//!
//! | module | what | Java |
//! |---|---|---|
//! | [`levels`] | the bucket's files by level: level 0 newest first, one sorted run per level ≥ 1 | `Levels` |
//! | [`universal`] | which runs to compact and to which level: size amplification, size ratio, run count | `UniversalCompaction` |
//! | [`strategy`] | the strategy a table gets (universal, force-up-level-0), early/forced full compaction | `CompactStrategy`, `ForceUpLevel0Compaction`, `EarlyFullCompaction` |
//! | [`task`] | what a picked unit turns into: key-disjoint sections, upgrade instead of rewrite where possible | `MergeTreeCompactTask` |
//! | [`expire`] | record-level TTL: expired records dropped by compaction | `RecordLevelExpire` |
//! | [`rewriter`] | the merge read + rolling write of the sections that must be rewritten | `MergeTreeCompactRewriter` |
//! | [`lookup`] | lookup compaction: keys looked up in the levels above the output | `LookupMergeTreeCompactRewriter` |
//! | [`bucket`] | one bucket's compaction: table settings, lookup state and deletion vectors, the task of a unit (shared by the writer and the commit's re-planning) | `MergeTreeCompactManager`, `BucketedDvMaintainer` |
//!
//! Picking ([`universal`], [`strategy`]) is a pure function of the level state, so it is
//! unit-tested on Paimon's worked examples; the task and the rewriter do the I/O.

pub(crate) mod bucket;
mod early_full;
pub(crate) mod expire;
pub(crate) mod levels;
pub(crate) mod lookup;
#[cfg(test)]
mod picking_tests;
pub(crate) mod rewriter;
pub(crate) mod strategy;
pub(crate) mod task;
pub(crate) mod universal;

use strata_spec::manifest::DataFileMeta;

/// A sorted run at a level: level-0 runs hold one file, higher levels all their files (in key
/// order). Java `LevelSortedRun`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LevelSortedRun {
    pub level: i32,
    pub files: Vec<DataFileMeta>,
}

impl LevelSortedRun {
    /// Sum of the run's file sizes in bytes (Java `SortedRun.totalSize`).
    pub(crate) fn total_size(&self) -> i64 {
        self.files.iter().map(|f| f.file_size).sum()
    }
}

/// What a strategy picked: files to compact into `output_level`. Java `CompactUnit`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CompactUnit {
    pub output_level: i32,
    pub files: Vec<DataFileMeta>,
    /// Rewrite each file on its own (full compaction of a bucket already at the max level whose
    /// files need rewriting: `FileRewriteCompactTask`).
    pub file_rewrite: bool,
}

impl CompactUnit {
    /// The files of `runs`, in run order.
    pub(crate) fn from_runs(output_level: i32, runs: &[LevelSortedRun]) -> Self {
        CompactUnit {
            output_level,
            files: runs.iter().flat_map(|r| r.files.iter().cloned()).collect(),
            file_rewrite: false,
        }
    }
}

/// Files before and after a compaction. Java `CompactResult`: `before` become DELETE entries,
/// `after` ADD entries; an upgraded file is in both, at its old and its new level.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CompactResult {
    pub before: Vec<DataFileMeta>,
    pub after: Vec<DataFileMeta>,
    /// Rows of files outside the compaction that a lookup compaction found superseded: data
    /// file name → row positions for its deletion vector ([`lookup`]).
    pub deletions: lookup::LookupOutcome,
    /// Changelog files a lookup compaction wrote (`changelog-producer = lookup`).
    pub changelog: Vec<DataFileMeta>,
}

impl CompactResult {
    pub(crate) fn merge(&mut self, other: CompactResult) {
        self.before.extend(other.before);
        self.after.extend(other.after);
        self.changelog.extend(other.changelog);
        for (file, positions) in other.deletions {
            self.deletions.entry(file).or_default().extend(positions);
        }
    }
}
