//! [`CompactManager`]: the compaction side of one bucket's writer (Java
//! `MergeTreeCompactManager` + the compaction half of `MergeTreeWriter`).
//!
//! The manager keeps the bucket's [`Levels`] (restored from the latest snapshot, plus every
//! level-0 file flushed since). After each flush the writer calls [`CompactManager::trigger`]:
//! unless a task is already running, the [`CompactStrategy`] picks a unit and the task runs
//! on its own tokio task, overlapping with further writes. Its result is collected at the next
//! flush (waiting when more than `num-sorted-run.stop-trigger` runs pile up: back-pressure) or
//! at prepare-commit (always waiting in batch mode, like Java's batch writer). Results fold
//! into the commit increment as Java's `updateCompactResult` does: an output of an earlier
//! compaction of the same commit window that is compacted again is dropped from `after`
//! (and deleted, unless an upgrade kept its name).
//!
//! Buckets that need lookup compaction (deletion vectors, first-row) hold a
//! [`BucketLookup`]: each task gets the levels above its output level and the bucket's
//! deletion vectors (`crate::lsm::compact::bucket::plan_task`, shared with the commit's
//! re-planning of a lost compaction); the deletions a task finds join the bucket's vectors,
//! whose files the compaction rewrote lose theirs (Java `BucketedDvMaintainer`).
//! [`CompactManager::take_deletion_vectors`] hands the whole set to the commit when it
//! changed.

use std::collections::HashMap;
use std::sync::Arc;

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::DataFileMeta;
use strata_spec::DataType;
use tokio::task::JoinHandle;

use crate::error::ErrorDetail;
use crate::format::deletion_vector::DeletionVector;
pub(super) use crate::lsm::compact::bucket::BucketLookup;
use crate::lsm::compact::bucket::{plan_task, TaskInputs};
use crate::lsm::compact::levels::Levels;
use crate::lsm::compact::lookup::LookupChangelog;
use crate::lsm::compact::rewriter::MergeTreeCompactRewriter;
use crate::lsm::compact::strategy::CompactStrategy;
use crate::lsm::compact::task::{run_compact_task, CompactRewriter, TaskMetrics, TaskOptions};
use crate::lsm::compact::universal::PickTime;
use crate::lsm::compact::{CompactResult, CompactUnit};
use crate::{Error, Result};

type TaskOutput = Result<(CompactResult, TaskMetrics)>;

/// One finished compaction task of a bucket, for users and benchmarks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactionMetrics {
    /// The partition of the compacted bucket, as Paimon's `BinaryRow`.
    pub partition: BinaryRow,
    /// The compacted bucket.
    pub bucket: i32,
    /// What the task read, upgraded and wrote, and how long it took.
    pub task: TaskMetrics,
}

/// What compaction changed since the last commit ([`CompactManager::drain`]).
pub(super) struct CompactIncrement {
    pub before: Vec<DataFileMeta>,
    pub after: Vec<DataFileMeta>,
    pub changelog: Vec<DataFileMeta>,
    pub metrics: Vec<CompactionMetrics>,
}

/// How the bucket picks.
pub(super) enum Picking {
    /// `write-only`: never compact on write (an explicit compaction still runs).
    Off,
    /// The table's strategy (universal or force-up-level-0).
    Strategy(CompactStrategy),
    /// Every pick is a full compaction (`force-lookup` tables: strata's lookup compaction
    /// covers deletion vectors and first-row only, so such buckets stay at one level).
    AlwaysFull,
}

/// Per-table settings shared by the bucket managers.
#[derive(Clone)]
pub(super) struct CompactSettings {
    pub key_types: Arc<Vec<DataType>>,
    pub task: TaskOptions,
    pub stop_trigger: usize,
    pub deletion_vectors: bool,
    /// `changelog-producer = full-compaction`: what compactions into the max level write.
    pub full_changelog: Option<Arc<LookupChangelog>>,
}

pub(super) struct CompactManager {
    partition: BinaryRow,
    bucket: i32,
    levels: Levels,
    picking: Picking,
    settings: CompactSettings,
    rewriter: Arc<MergeTreeCompactRewriter>,
    running: Option<JoinHandle<TaskOutput>>,
    compact_before: Vec<DataFileMeta>,
    compact_after: Vec<DataFileMeta>,
    /// Changelog files compaction wrote since the last commit.
    compact_changelog: Vec<DataFileMeta>,
    metrics: Vec<CompactionMetrics>,
    lookup: Option<BucketLookup>,
}

impl CompactManager {
    pub(super) fn new(
        partition: BinaryRow,
        bucket: i32,
        levels: Levels,
        picking: Picking,
        settings: CompactSettings,
        rewriter: Arc<MergeTreeCompactRewriter>,
    ) -> Self {
        CompactManager {
            partition,
            bucket,
            levels,
            picking,
            settings,
            rewriter,
            running: None,
            compact_before: Vec::new(),
            compact_after: Vec::new(),
            compact_changelog: Vec::new(),
            metrics: Vec::new(),
            lookup: None,
        }
    }

    /// Compacts with lookups ([`crate::lsm::compact::lookup`]), starting from `lookup`'s
    /// deletion vectors.
    pub(super) fn with_lookup(mut self, lookup: BucketLookup) -> Self {
        self.lookup = Some(lookup);
        self
    }

    /// The bucket's deletion vectors when they changed since the last call (every vector of
    /// a live file, possibly none left), for a new deletion-vector index file.
    pub(super) fn take_deletion_vectors(&mut self) -> Option<HashMap<String, DeletionVector>> {
        self.lookup.as_mut()?.take_changed_vectors()
    }

    pub(super) fn add_new_file(&mut self, file: DataFileMeta) -> Result<()> {
        self.levels.add_level0_file(file)
    }

    /// More sorted runs than `num-sorted-run.stop-trigger`: the next flush waits.
    pub(super) fn should_wait_for_latest(&self) -> bool {
        self.levels.number_of_sorted_runs() > self.settings.stop_trigger
    }

    /// More runs than `stop-trigger + 1`: prepare-commit waits.
    pub(super) fn should_wait_for_commit(&self) -> bool {
        self.levels.number_of_sorted_runs() > self.settings.stop_trigger + 1
    }

    /// Starts a compaction task if none is running and the strategy picks a unit (`full`:
    /// compact everything into the max level).
    pub(super) fn trigger(&mut self, full: bool) -> Result<()> {
        if self.running.is_some() {
            return Ok(());
        }
        let runs = self.levels.level_sorted_runs();
        let num_levels = self.levels.number_of_levels();
        let unit = if full || matches!(self.picking, Picking::AlwaysFull) {
            if full || !self.levels.level0().is_empty() {
                CompactStrategy::pick_full_compaction(num_levels, &runs, &|_| {
                    self.settings.task.force_rewrite_all_files
                })
            } else {
                None
            }
        } else {
            match &mut self.picking {
                Picking::Off | Picking::AlwaysFull => None,
                Picking::Strategy(s) => s.pick(num_levels, &runs, PickTime::now()),
            }
        };
        let Some(unit) = unit else { return Ok(()) };
        if unit.files.is_empty() {
            return Ok(());
        }
        if unit.files.len() == 1 && unit.files[0].level == unit.output_level && !unit.file_rewrite {
            return Ok(());
        }
        self.submit(unit);
        Ok(())
    }

    fn submit(&mut self, unit: CompactUnit) {
        let key_types = self.settings.key_types.clone();
        let (options, rewriter) = plan_task(
            &self.levels,
            &unit,
            TaskInputs {
                base: &self.settings.task,
                key_types: &key_types,
                deletion_vectors: self.settings.deletion_vectors,
                full_changelog: self.settings.full_changelog.as_ref(),
                lookup: self.lookup.as_ref(),
                rewriter: self.rewriter.clone(),
            },
        );
        self.running = Some(tokio::spawn(async move {
            run_compact_task(unit, &key_types, &options, &rewriter).await
        }));
    }

    /// Collects the running task: waits for it when `blocking`, else only if it is done.
    pub(super) async fn sync(&mut self, blocking: bool) -> Result<()> {
        let Some(handle) = self.running.as_ref() else {
            return Ok(());
        };
        if !blocking && !handle.is_finished() {
            return Ok(());
        }
        let handle = self.running.take().expect("checked above");
        let (result, task) = handle.await.map_err(|e| {
            Error::from(ErrorDetail::Invariant(format!(
                "compaction task of bucket {} panicked: {e}",
                self.bucket
            )))
        })??;
        self.levels.update(&result.before, &result.after)?;
        if let Some(lookup) = &mut self.lookup {
            lookup.apply(&result, self.bucket)?;
        }
        self.compact_changelog
            .extend(result.changelog.iter().cloned());
        self.fold(result).await;
        self.metrics.push(CompactionMetrics {
            partition: self.partition.clone(),
            bucket: self.bucket,
            task,
        });
        Ok(())
    }

    /// Java `MergeTreeWriter.updateCompactResult`.
    async fn fold(&mut self, result: CompactResult) {
        let after_names: Vec<&str> = result.after.iter().map(|f| f.file_name.as_str()).collect();
        let mut intermediate = Vec::new();
        for f in &result.before {
            if let Some(pos) = self
                .compact_after
                .iter()
                .position(|a| a.file_name == f.file_name && a.level == f.level)
            {
                self.compact_after.remove(pos);
                let kept = self
                    .compact_before
                    .iter()
                    .any(|b| b.file_name == f.file_name)
                    || after_names.contains(&f.file_name.as_str());
                if !kept {
                    intermediate.push(f.clone());
                }
            } else if !self
                .compact_before
                .iter()
                .any(|b| b.file_name == f.file_name)
            {
                self.compact_before.push(f.clone());
            }
        }
        self.rewriter.discard(&intermediate).await;
        self.compact_after.extend(result.after);
    }

    /// Hands over the compaction increment and metrics since the last call.
    pub(super) fn drain(&mut self) -> CompactIncrement {
        CompactIncrement {
            before: std::mem::take(&mut self.compact_before),
            after: std::mem::take(&mut self.compact_after),
            changelog: std::mem::take(&mut self.compact_changelog),
            metrics: std::mem::take(&mut self.metrics),
        }
    }

    /// Stops a running task and deletes every file compaction wrote in this window.
    pub(super) async fn abort(&mut self) {
        if let Some(h) = self.running.take() {
            if let Ok(Ok((result, _))) = h.await {
                self.rewriter.discard(&result.changelog).await;
                let new: Vec<DataFileMeta> = result
                    .after
                    .into_iter()
                    .filter(|a| !result.before.iter().any(|b| b.file_name == a.file_name))
                    .collect();
                self.rewriter.discard(&new).await;
            }
        }
        let changelog = std::mem::take(&mut self.compact_changelog);
        self.rewriter.discard(&changelog).await;
        let before = std::mem::take(&mut self.compact_before);
        let new: Vec<DataFileMeta> = std::mem::take(&mut self.compact_after)
            .into_iter()
            .filter(|a| !before.iter().any(|b| b.file_name == a.file_name))
            .filter(|a| a.file_source == Some(strata_spec::manifest::FileSource::Compact))
            .collect();
        self.rewriter.discard(&new).await;
    }
}
