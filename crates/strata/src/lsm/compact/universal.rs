//! [`UniversalCompaction`]: which sorted runs of a bucket to compact, and into which level
//! (Java `UniversalCompaction` at Paimon HEAD, and `OffPeakHours`).
//!
//! Runs are ordered newest first (`Levels::level_sorted_runs`). A pick tries, in order:
//! 0. early full compaction, if configured ([`EarlyFullCompaction`]);
//! 1. size amplification: at least `trigger` runs and `younger × 100 > max_size_amp × oldest`
//!    → every run to the max level;
//! 2. size ratio: at least `trigger` runs → [`UniversalCompaction::size_ratio_pick`] from the
//!    newest run;
//! 3. run count: more than `trigger` runs → `size_ratio_pick` starting with the
//!    `runs − trigger + 1` newest runs.
//!
//! A unit is always a prefix of the runs. Its output level is the max level when every run is
//! taken, else one below the first run left out, and never 0.
//!
//! This is the HEAD behaviour (after apache/paimon#9185): once a pick is triggered it keeps
//! absorbing runs at level ≤ 1 even when they are much bigger, and [`force_pick_l0`] starts
//! with the level-0 runs only. The arithmetic is Java's: rule 1 in `long` (wrapping),
//! the ratio test in `double` (`candidate × (100.0 + ratio + offPeakRatio) / 100.0 < next`).
//!
//! Picking is a pure function of the runs, the strategy state and a [`PickTime`] the caller
//! passes in (Java reads the clock inside).
//!
//! [`force_pick_l0`]: UniversalCompaction::force_pick_l0

use strata_spec::options::CoreOptions;

use super::early_full::EarlyFullCompaction;
use super::{CompactUnit, LevelSortedRun};
use crate::error::ErrorDetail;
use crate::Result;

/// `compaction.offpeak.start.hour`
pub(crate) const COMPACTION_OFFPEAK_START_HOUR: &str = "compaction.offpeak.start.hour";
/// `compaction.offpeak.end.hour`
pub(crate) const COMPACTION_OFFPEAK_END_HOUR: &str = "compaction.offpeak.end.hour";
/// `compaction.offpeak-ratio`
pub(crate) const COMPACTION_OFFPEAK_RATIO: &str = "compaction.offpeak-ratio";

const MILLIS_PER_HOUR: i64 = 3_600_000;

/// The time a pick runs at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PickTime {
    /// Milliseconds of the writer's local wall clock encoded as if it were UTC: the clock of
    /// `_CREATION_TIME` (`kv_file_writer::local_now_millis`). Early full compaction compares it
    /// with file creation times; only differences matter, so this equals Java's epoch
    /// arithmetic except across a daylight-saving change.
    pub now_millis: i64,
    /// Local hour of the day, 0..=23 (off-peak hours).
    pub hour: i32,
}

impl PickTime {
    /// The time at local-wall-clock millis `millis` (hour derived from it).
    pub(crate) fn from_local_millis(millis: i64) -> Self {
        PickTime {
            now_millis: millis,
            hour: millis.div_euclid(MILLIS_PER_HOUR).rem_euclid(24) as i32,
        }
    }

    /// The current time of this machine.
    pub(crate) fn now() -> Self {
        Self::from_local_millis(crate::lsm::kv_file_writer::local_now_millis())
    }
}

/// Off-peak hours: inside `[start, end)` (wrapping past midnight when `start > end`) the
/// off-peak ratio is added to `compaction.size-ratio`. Java `OffPeakHours`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OffPeakHours {
    start_hour: i32,
    end_hour: i32,
    ratio: i32,
}

impl OffPeakHours {
    /// `None` (off-peak disabled) when either hour is −1 or both are equal, as in Java.
    pub(crate) fn new(start_hour: i32, end_hour: i32, ratio: i32) -> Option<Self> {
        if start_hour == -1 || end_hour == -1 || start_hour == end_hour {
            return None;
        }
        Some(OffPeakHours {
            start_hour,
            end_hour,
            ratio,
        })
    }

    /// From `compaction.offpeak.start.hour` / `.end.hour` (default −1) and
    /// `compaction.offpeak-ratio` (default 0). Like Java, hours outside 0..=23 are accepted.
    pub(crate) fn from_options(opts: &CoreOptions) -> Result<Option<Self>> {
        let start = opts.get_i32(COMPACTION_OFFPEAK_START_HOUR)?.unwrap_or(-1);
        let end = opts.get_i32(COMPACTION_OFFPEAK_END_HOUR)?.unwrap_or(-1);
        let ratio = opts.get_i32(COMPACTION_OFFPEAK_RATIO)?.unwrap_or(0);
        Ok(Self::new(start, end, ratio))
    }

    /// The extra ratio at local hour `hour`: the off-peak ratio inside the window, else 0.
    pub(crate) fn current_ratio(&self, hour: i32) -> i32 {
        let off_peak = if self.start_hour <= self.end_hour {
            self.start_hour <= hour && hour < self.end_hour
        } else {
            hour < self.end_hour || self.start_hour <= hour
        };
        if off_peak {
            self.ratio
        } else {
            0
        }
    }
}

/// Universal compaction picking (Java `UniversalCompaction`). Holds the early-full-compaction
/// state, hence `&mut self` on the picks.
#[derive(Clone, Debug)]
pub(crate) struct UniversalCompaction {
    max_size_amp: i32,
    size_ratio: i32,
    num_run_compaction_trigger: i32,
    early_full: Option<EarlyFullCompaction>,
    off_peak: Option<OffPeakHours>,
}

/// Sum of the sizes of `runs` (Java `long` addition).
fn size_of(runs: &[LevelSortedRun]) -> i64 {
    runs.iter()
        .fold(0i64, |acc, r| acc.wrapping_add(r.total_size()))
}

impl UniversalCompaction {
    /// `max_size_amp` = `compaction.max-size-amplification-percent`, `size_ratio` =
    /// `compaction.size-ratio`, `num_run_compaction_trigger` =
    /// `num-sorted-run.compaction-trigger` (must be ≥ 1).
    pub(crate) fn new(
        max_size_amp: i32,
        size_ratio: i32,
        num_run_compaction_trigger: i32,
        early_full: Option<EarlyFullCompaction>,
        off_peak: Option<OffPeakHours>,
    ) -> Result<Self> {
        if num_run_compaction_trigger < 1 {
            return Err(ErrorDetail::InvalidOption {
                key: strata_spec::options::NUM_SORTED_RUNS_COMPACTION_TRIGGER.to_string(),
                message: format!("must be at least 1, got {num_run_compaction_trigger}"),
            }
            .into());
        }
        Ok(UniversalCompaction {
            max_size_amp,
            size_ratio,
            num_run_compaction_trigger,
            early_full,
            off_peak,
        })
    }

    /// The early-full-compaction state, if configured.
    #[cfg(test)]
    pub(crate) fn early_full(&self) -> Option<&EarlyFullCompaction> {
        self.early_full.as_ref()
    }

    fn trigger(&self) -> usize {
        // `new` guarantees trigger ≥ 1.
        self.num_run_compaction_trigger as usize
    }

    /// The universal pick: early full, size amplification, size ratio, run count.
    pub(crate) fn pick(
        &mut self,
        num_levels: i32,
        runs: &[LevelSortedRun],
        time: PickTime,
    ) -> Option<CompactUnit> {
        let max_level = num_levels - 1;
        if let Some(early) = self.early_full.as_mut() {
            if let Some(unit) = early.try_full_compact(num_levels, runs, time.now_millis) {
                return Some(unit);
            }
        }
        if let Some(unit) = self.pick_for_size_amp(max_level, runs, time) {
            return Some(unit);
        }
        if let Some(unit) = self.pick_for_size_ratio(max_level, runs, time) {
            return Some(unit);
        }
        if runs.len() > self.trigger() {
            let count = runs.len() - self.trigger() + 1;
            return self.size_ratio_pick(max_level, runs, count, false, time);
        }
        None
    }

    /// Pushes the level-0 runs up even below the trigger (used by `ForceUpLevel0Compaction`):
    /// starts with every level-0 run, already triggered. `None` when there is no level-0 run.
    pub(crate) fn force_pick_l0(
        &mut self,
        num_levels: i32,
        runs: &[LevelSortedRun],
        time: PickTime,
    ) -> Option<CompactUnit> {
        let count = runs.iter().take_while(|r| r.level <= 0).count();
        if count == 0 {
            return None;
        }
        self.size_ratio_pick(num_levels - 1, runs, count, true, time)
    }

    /// Rule 1: with at least `trigger` runs, everything to `max_level` when the younger runs
    /// are more than `max_size_amp` percent of the oldest one.
    pub(crate) fn pick_for_size_amp(
        &mut self,
        max_level: i32,
        runs: &[LevelSortedRun],
        time: PickTime,
    ) -> Option<CompactUnit> {
        if runs.len() < self.trigger() {
            return None;
        }
        let (oldest, younger) = runs.split_last()?;
        let candidate = size_of(younger);
        let earliest = oldest.total_size();
        if candidate.wrapping_mul(100) > i64::from(self.max_size_amp).wrapping_mul(earliest) {
            if let Some(early) = self.early_full.as_mut() {
                early.update_last_full_compaction(time.now_millis);
            }
            return Some(CompactUnit::from_runs(max_level, runs));
        }
        None
    }

    /// Rule 2: with at least `trigger` runs, [`Self::size_ratio_pick`] from the newest run.
    pub(crate) fn pick_for_size_ratio(
        &mut self,
        max_level: i32,
        runs: &[LevelSortedRun],
        time: PickTime,
    ) -> Option<CompactUnit> {
        if runs.len() < self.trigger() {
            return None;
        }
        self.size_ratio_pick(max_level, runs, 1, false, time)
    }

    /// Starting with the `candidate_count` newest runs, absorbs the next run while it is not
    /// much bigger than the candidates (`candidate × (100 + ratio) / 100 ≥ next`); once
    /// triggered (forced, or more than one run taken) runs at level ≤ 1 are absorbed anyway.
    /// Returns the unit of the taken runs, or `None` if it never triggered.
    pub(crate) fn size_ratio_pick(
        &mut self,
        max_level: i32,
        runs: &[LevelSortedRun],
        candidate_count: usize,
        force: bool,
        time: PickTime,
    ) -> Option<CompactUnit> {
        let mut count = candidate_count.min(runs.len());
        let mut candidate = size_of(&runs[..count]);
        let mut triggered = force || count > 1;
        let ratio = 100.0
            + f64::from(self.size_ratio)
            + f64::from(self.off_peak.map_or(0, |o| o.current_ratio(time.hour)));
        for next in &runs[count..] {
            let next_size = next.total_size();
            if (candidate as f64) * ratio / 100.0 < next_size as f64
                && (!triggered || next.level > 1)
            {
                break;
            }
            candidate = candidate.wrapping_add(next_size);
            count += 1;
            triggered = true;
        }
        triggered.then(|| self.create_unit(runs, max_level, count, time))
    }

    /// The unit of the `run_count` newest runs: output one level below the first run left out;
    /// if that is level 0, takes more runs up to the first one above level 0 and outputs at its
    /// level; taking every run outputs at `max_level` (and counts as a full compaction).
    pub(crate) fn create_unit(
        &mut self,
        runs: &[LevelSortedRun],
        max_level: i32,
        run_count: usize,
        time: PickTime,
    ) -> CompactUnit {
        let mut count = run_count.min(runs.len());
        let mut output_level = match runs.get(count) {
            None => max_level,
            Some(next) => (next.level - 1).max(0),
        };
        if output_level == 0 {
            while let Some(next) = runs.get(count) {
                count += 1;
                if next.level != 0 {
                    output_level = next.level;
                    break;
                }
            }
        }
        if count == runs.len() {
            if let Some(early) = self.early_full.as_mut() {
                early.update_last_full_compaction(time.now_millis);
            }
            output_level = max_level;
        }
        CompactUnit::from_runs(output_level, &runs[..count])
    }
}
