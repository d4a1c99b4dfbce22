//! Early full compaction (Java `EarlyFullCompaction`): full compaction by time or size, step 0
//! of every universal pick. A leaf under the universal picker and the strategy that builds it.

use super::{CompactUnit, LevelSortedRun};
use crate::Result;
use strata_spec::manifest::DataFileMeta;
use strata_spec::options::CoreOptions;

/// `compaction.optimization-interval`
pub(crate) const COMPACTION_OPTIMIZATION_INTERVAL: &str = "compaction.optimization-interval";
/// `compaction.total-size-threshold`
pub(crate) const COMPACTION_TOTAL_SIZE_THRESHOLD: &str = "compaction.total-size-threshold";
/// `compaction.incremental-size-threshold`
pub(crate) const COMPACTION_INCREMENTAL_SIZE_THRESHOLD: &str =
    "compaction.incremental-size-threshold";

/// Milliseconds (or bytes) as a Java `long`, saturating.
fn to_i64(v: u128) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// The latest creation time of the restored files at `num_levels - 1`: the initial "last full
/// compaction" of [`EarlyFullCompaction`] (Java 2.0+ `estimateLastFullCompactionTime`; uses the
/// `num-levels` option, not the tree's level count). `None` when no such file has one.
pub(crate) fn estimate_last_full_compaction(
    restored: &[DataFileMeta],
    num_levels: i32,
) -> Option<i64> {
    let max_level = num_levels - 1;
    restored
        .iter()
        .filter(|f| f.level == max_level)
        .filter_map(|f| f.creation_time)
        .filter(|t| *t >= 0)
        .max()
}

/// Early full compaction (Java `EarlyFullCompaction`): step 0 of every universal pick.
/// Times are `PickTime::now_millis` values (local wall clock, like `_CREATION_TIME`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct EarlyFullCompaction {
    full_compaction_interval: Option<i64>,
    total_size_threshold: Option<i64>,
    incremental_size_threshold: Option<i64>,
    last_full_compaction: Option<i64>,
}

impl EarlyFullCompaction {
    /// Interval in milliseconds, thresholds in bytes; `initial_last_full` is the time of the
    /// last known full compaction (see [`estimate_last_full_compaction`]).
    pub(crate) fn new(
        full_compaction_interval: Option<i64>,
        total_size_threshold: Option<i64>,
        incremental_size_threshold: Option<i64>,
        initial_last_full: Option<i64>,
    ) -> Self {
        EarlyFullCompaction {
            full_compaction_interval,
            total_size_threshold,
            incremental_size_threshold,
            last_full_compaction: initial_last_full,
        }
    }

    /// From the three options; `None` when none of them is set.
    pub(crate) fn from_options(
        opts: &CoreOptions,
        initial_last_full: Option<i64>,
    ) -> Result<Option<Self>> {
        let interval = opts
            .get_duration(COMPACTION_OPTIMIZATION_INTERVAL)?
            .map(|d| to_i64(d.as_millis()));
        let total = opts
            .get_memory_size(COMPACTION_TOTAL_SIZE_THRESHOLD)?
            .map(|b| to_i64(b.into()));
        let incremental = opts
            .get_memory_size(COMPACTION_INCREMENTAL_SIZE_THRESHOLD)?
            .map(|b| to_i64(b.into()));
        if interval.is_none() && total.is_none() && incremental.is_none() {
            return Ok(None);
        }
        Ok(Some(Self::new(
            interval,
            total,
            incremental,
            initial_last_full,
        )))
    }

    /// When the last full compaction happened, if known.
    #[cfg(test)]
    pub(crate) fn last_full_compaction(&self) -> Option<i64> {
        self.last_full_compaction
    }

    /// Records a full compaction at `now`.
    pub(crate) fn update_last_full_compaction(&mut self, now: i64) {
        self.last_full_compaction = Some(now);
    }

    /// Every run to the max level when (in order) the interval has passed since the last full
    /// compaction (or none is known), the total size is below its threshold, or the size outside
    /// the max level is above its threshold. Never for a single run.
    pub(crate) fn try_full_compact(
        &mut self,
        num_levels: i32,
        runs: &[LevelSortedRun],
        now: i64,
    ) -> Option<CompactUnit> {
        if runs.len() == 1 {
            return None;
        }
        let max_level = num_levels - 1;
        let due = self.full_compaction_interval.is_some_and(|interval| {
            self.last_full_compaction
                .is_none_or(|last| now.wrapping_sub(last) > interval)
        });
        let small = self.total_size_threshold.is_some_and(|threshold| {
            runs.iter()
                .fold(0i64, |acc, r| acc.wrapping_add(r.total_size()))
                < threshold
        });
        let incremental = self.incremental_size_threshold.is_some_and(|threshold| {
            runs.iter()
                .filter(|r| r.level != max_level)
                .fold(0i64, |acc, r| acc.wrapping_add(r.total_size()))
                > threshold
        });
        if due || small || incremental {
            self.update_last_full_compaction(now);
            return Some(CompactUnit::from_runs(max_level, runs));
        }
        None
    }
}
