//! The compaction strategy of a primary-key table.
//!
//! * [`CompactStrategy`]: plain [`UniversalCompaction`], or force-up-level-0 (Java
//!   `ForceUpLevel0Compaction`) for tables that need lookup or set
//!   `compaction.force-up-level-0`: when universal picks nothing, level-0 runs are pushed up
//!   anyway — on every call (RADICAL) or every `lookup-compact.max-interval`-th call (GENTLE).
//!   Chosen as in Java `MergeTreeCompactManagerFactory.createCompactStrategy`.
//! * [`EarlyFullCompaction`] (Java `EarlyFullCompaction`): full compaction by time
//!   (`compaction.optimization-interval`), small total size (`compaction.total-size-threshold`)
//!   or large non-max-level size (`compaction.incremental-size-threshold`).
//! * [`CompactStrategy::pick_full_compaction`]: explicit full compaction (Java
//!   `CompactStrategy.pickFullCompaction`).
//! * [`compaction_file_size`]: the small-file threshold of compaction tasks (Java
//!   `CoreOptions.compactionFileSize`).

use strata_spec::manifest::DataFileMeta;
use strata_spec::options::{CoreOptions, OptionEnum};

pub(crate) use super::early_full::{estimate_last_full_compaction, EarlyFullCompaction};
use super::universal::{OffPeakHours, PickTime, UniversalCompaction};
use super::{CompactUnit, LevelSortedRun};
use crate::error::ErrorDetail;
use crate::Result;

/// `compaction.small-file-ratio`
pub(crate) const COMPACTION_SMALL_FILE_RATIO: &str = "compaction.small-file-ratio";
/// `lookup-compact`
pub(crate) const LOOKUP_COMPACT: &str = "lookup-compact";
/// `lookup-compact.max-interval`
pub(crate) const LOOKUP_COMPACT_MAX_INTERVAL: &str = "lookup-compact.max-interval";

/// `lookup-compact` (Java `LookupCompactMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LookupCompactMode {
    /// Push level 0 up after every pick that found nothing (the default).
    Radical,
    /// Push level 0 up every `lookup-compact.max-interval`-th time.
    Gentle,
}

impl OptionEnum for LookupCompactMode {
    const VALUES: &'static [(&'static str, Self)] = &[
        ("radical", LookupCompactMode::Radical),
        ("gentle", LookupCompactMode::Gentle),
    ];
}

/// `(long) (target-file-size × compaction.small-file-ratio)`: compaction rewrites single-run
/// files below this size instead of upgrading them. Like Java, any ratio that parses as a double
/// is accepted and the cast saturates (NaN → 0).
pub fn compaction_file_size(opts: &CoreOptions, has_primary_key: bool) -> Result<i64> {
    let target = opts.target_file_size(has_primary_key)?;
    let ratio = match opts.get(COMPACTION_SMALL_FILE_RATIO) {
        None => 0.7,
        Some(v) => v
            .trim()
            .parse::<f64>()
            .map_err(|_| ErrorDetail::InvalidOption {
                key: COMPACTION_SMALL_FILE_RATIO.to_string(),
                message: format!("`{v}` is not a double"),
            })?,
    };
    Ok((target as f64 * ratio) as i64)
}

/// The strategy of one bucket's compaction manager.
#[derive(Clone, Debug)]
pub(crate) enum CompactStrategy {
    /// Plain universal compaction.
    Universal(UniversalCompaction),
    /// Universal, and when it picks nothing, force level 0 up (Java `ForceUpLevel0Compaction`).
    ForceUpLevel0 {
        universal: UniversalCompaction,
        /// `None`: every time (RADICAL, `compaction.force-up-level-0`); `Some(n)`: every n-th
        /// time (GENTLE).
        max_interval: Option<i32>,
        /// Calls since the last forced pick (GENTLE).
        trigger_count: i32,
    },
}

impl CompactStrategy {
    /// The strategy of a bucket with no restored files (no initial last-full time).
    pub(crate) fn from_options(opts: &CoreOptions, need_lookup: bool) -> Result<Self> {
        Self::for_bucket(opts, need_lookup, &[])
    }

    /// The strategy of a bucket restored from `restored` (Java `createCompactStrategy`): with
    /// `need_lookup`, force-up-level-0 in the `lookup-compact` mode; else with
    /// `compaction.force-up-level-0`, force-up-level-0 every time; else universal.
    pub(crate) fn for_bucket(
        opts: &CoreOptions,
        need_lookup: bool,
        restored: &[DataFileMeta],
    ) -> Result<Self> {
        let num_levels = opts.num_levels()?;
        let trigger = opts.num_sorted_run_compaction_trigger()?;
        let early = EarlyFullCompaction::from_options(
            opts,
            estimate_last_full_compaction(restored, num_levels),
        )?;
        let universal = UniversalCompaction::new(
            opts.compaction_max_size_amplification_percent()?,
            opts.compaction_size_ratio()?,
            trigger,
            early,
            OffPeakHours::from_options(opts)?,
        )?;
        if need_lookup {
            let mode = opts
                .get_enum::<LookupCompactMode>(LOOKUP_COMPACT)?
                .unwrap_or(LookupCompactMode::Radical);
            let max_interval = match mode {
                LookupCompactMode::Radical => None,
                LookupCompactMode::Gentle => {
                    let set = opts.get_i32(LOOKUP_COMPACT_MAX_INTERVAL)?;
                    Some(set.unwrap_or(trigger.saturating_mul(2)).max(trigger))
                }
            };
            return Ok(CompactStrategy::ForceUpLevel0 {
                universal,
                max_interval,
                trigger_count: 0,
            });
        }
        if opts.compaction_force_up_level_0()? {
            return Ok(CompactStrategy::ForceUpLevel0 {
                universal,
                max_interval: None,
                trigger_count: 0,
            });
        }
        Ok(CompactStrategy::Universal(universal))
    }

    /// The universal compaction inside the strategy.
    #[cfg(test)]
    pub(crate) fn universal(&self) -> &UniversalCompaction {
        match self {
            CompactStrategy::Universal(u) | CompactStrategy::ForceUpLevel0 { universal: u, .. } => {
                u
            }
        }
    }

    /// Picks a unit after a flush (Java `CompactStrategy.pick`).
    pub(crate) fn pick(
        &mut self,
        num_levels: i32,
        runs: &[LevelSortedRun],
        time: PickTime,
    ) -> Option<CompactUnit> {
        match self {
            CompactStrategy::Universal(u) => u.pick(num_levels, runs, time),
            CompactStrategy::ForceUpLevel0 {
                universal,
                max_interval,
                trigger_count,
            } => {
                if let Some(unit) = universal.pick(num_levels, runs, time) {
                    return Some(unit);
                }
                match *max_interval {
                    None => universal.force_pick_l0(num_levels, runs, time),
                    Some(max) => {
                        *trigger_count = trigger_count.wrapping_add(1);
                        if *trigger_count == max {
                            *trigger_count = 0;
                            universal.force_pick_l0(num_levels, runs, time)
                        } else {
                            None
                        }
                    }
                }
            }
        }
    }

    /// A pick that takes every level-0 run up (the commit's re-planning of a lookup
    /// compaction that lost a conflict: its level-0 files must leave level 0 now): the
    /// strategy's own pick when it includes level 0 — every universal unit that starts at
    /// level 0 takes all of level 0 (`UniversalCompaction.createUnit` never outputs to level
    /// 0) — else level 0 forced up, whatever `lookup-compact` says. `None` without level-0
    /// runs.
    pub(crate) fn pick_level0_up(
        &mut self,
        num_levels: i32,
        runs: &[LevelSortedRun],
        time: PickTime,
    ) -> Option<CompactUnit> {
        if runs.first().is_none_or(|r| r.level != 0) {
            return None;
        }
        let universal = match self {
            CompactStrategy::Universal(u) | CompactStrategy::ForceUpLevel0 { universal: u, .. } => {
                u
            }
        };
        match universal.pick(num_levels, runs, time) {
            Some(unit) if unit.files.iter().any(|f| f.level == 0) => Some(unit),
            _ => universal.force_pick_l0(num_levels, runs, time),
        }
    }

    /// Explicit full compaction. No runs: nothing. A single run already at the max level: only
    /// its files for which `needs_rewrite` holds (forced rewrite, expired records, a deletion
    /// vector), each rewritten alone (`file_rewrite`), or nothing. Otherwise every run to the
    /// max level.
    pub(crate) fn pick_full_compaction(
        num_levels: i32,
        runs: &[LevelSortedRun],
        needs_rewrite: &dyn Fn(&DataFileMeta) -> bool,
    ) -> Option<CompactUnit> {
        let max_level = num_levels - 1;
        match runs {
            [] => None,
            [only] if only.level == max_level => {
                let files: Vec<DataFileMeta> = only
                    .files
                    .iter()
                    .filter(|f| needs_rewrite(f))
                    .cloned()
                    .collect();
                (!files.is_empty()).then_some(CompactUnit {
                    output_level: max_level,
                    files,
                    file_rewrite: true,
                })
            }
            _ => Some(CompactUnit::from_runs(max_level, runs)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsm::compact::picking_tests::{file, runs, T0};

    const HOUR: i64 = 3_600_000;

    fn opts(pairs: &[(&str, &str)]) -> CoreOptions {
        let mut o = CoreOptions::default();
        for (k, v) in pairs {
            o.set(*k, *v);
        }
        o
    }

    fn at(now_millis: i64) -> PickTime {
        PickTime { now_millis, ..T0 }
    }

    fn shape(unit: &Option<CompactUnit>) -> Option<(i32, usize)> {
        unit.as_ref().map(|u| (u.output_level, u.files.len()))
    }

    #[test]
    fn strategy_from_options() {
        let s = CompactStrategy::from_options(&opts(&[]), false).unwrap();
        assert!(matches!(s, CompactStrategy::Universal(_)));
        assert!(s.universal().early_full().is_none());
        let s = CompactStrategy::from_options(&opts(&[]), true).unwrap();
        assert!(matches!(
            s,
            CompactStrategy::ForceUpLevel0 {
                max_interval: None,
                ..
            }
        ));
        let s =
            CompactStrategy::from_options(&opts(&[("compaction.force-up-level-0", "true")]), false)
                .unwrap();
        assert!(matches!(
            s,
            CompactStrategy::ForceUpLevel0 {
                max_interval: None,
                ..
            }
        ));
        // GENTLE: max(trigger, max-interval or 2 × trigger).
        let gentle = |extra: &[(&str, &str)]| {
            let mut pairs = vec![("lookup-compact", "GENTLE")];
            pairs.extend_from_slice(extra);
            match CompactStrategy::from_options(&opts(&pairs), true).unwrap() {
                CompactStrategy::ForceUpLevel0 { max_interval, .. } => max_interval,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(gentle(&[]), Some(10));
        assert_eq!(gentle(&[("lookup-compact.max-interval", "3")]), Some(5));
        assert_eq!(gentle(&[("lookup-compact.max-interval", "7")]), Some(7));
        // GENTLE without lookup is plain universal.
        let s = CompactStrategy::from_options(&opts(&[("lookup-compact", "gentle")]), false);
        assert!(matches!(s.unwrap(), CompactStrategy::Universal(_)));

        for (key, value) in [
            ("compaction.offpeak-ratio", "abc"),
            ("compaction.offpeak.start.hour", "1.5"),
            ("compaction.optimization-interval", "soon"),
            ("compaction.total-size-threshold", "big"),
            ("lookup-compact", "lazy"),
            ("num-sorted-run.compaction-trigger", "0"),
        ] {
            let err = CompactStrategy::from_options(&opts(&[(key, value)]), true).unwrap_err();
            assert!(err.to_string().contains(key), "{key}: {err}");
        }
    }

    #[test]
    fn gentle_forces_level_0_every_nth_pick() {
        let o = opts(&[
            ("lookup-compact", "gentle"),
            ("lookup-compact.max-interval", "3"),
        ]);
        let mut s = CompactStrategy::from_options(&o, true).unwrap();
        // Trigger 5, max interval max(5, 3) = 5: four quiet picks, then a forced one.
        let r = runs(&[(0, 100), (5, 1000)]);
        for _ in 0..4 {
            assert_eq!(s.pick(6, &r, T0), None);
        }
        assert_eq!(shape(&s.pick(6, &r, T0)), Some((4, 1)));
        assert_eq!(s.pick(6, &r, T0), None);
        // RADICAL forces every time.
        let mut s = CompactStrategy::from_options(&opts(&[]), true).unwrap();
        assert_eq!(shape(&s.pick(6, &r, T0)), Some((4, 1)));
        assert_eq!(shape(&s.pick(6, &r, T0)), Some((4, 1)));
    }

    #[test]
    fn compaction_file_size_is_java_long_cast() {
        let o = |ratio: Option<&str>| {
            let mut pairs = vec![("target-file-size", "64kb")];
            pairs.extend(ratio.map(|r| ("compaction.small-file-ratio", r)));
            compaction_file_size(&opts(&pairs), true)
        };
        assert_eq!(o(None).unwrap(), 45_875);
        assert_eq!(o(Some("0.05")).unwrap(), 3_276);
        assert_eq!(o(Some("1")).unwrap(), 65_536);
        // 128 MiB × 0.7 = 93 952 409.6 for primary-key tables by default.
        assert_eq!(compaction_file_size(&opts(&[]), true).unwrap(), 93_952_409);
        let err = o(Some("lots")).unwrap_err().to_string();
        assert!(err.contains("compaction.small-file-ratio"), "{err}");
    }

    #[test]
    fn early_full_compaction_by_interval() {
        // The restored max-level files were fully compacted at 10 h.
        let mut restored = vec![
            file("a", 5, 100, (1, 2), (0, 0)),
            file("b", 5, 100, (3, 4), (0, 0)),
        ];
        restored[0].creation_time = Some(10 * HOUR);
        restored[1].creation_time = Some(9 * HOUR);
        let mut l0 = file("l0", 0, 1, (5, 5), (1, 1));
        l0.creation_time = Some(20 * HOUR);
        restored.push(l0);
        assert_eq!(estimate_last_full_compaction(&restored, 6), Some(10 * HOUR));
        assert_eq!(estimate_last_full_compaction(&restored, 7), None);

        let o = opts(&[("compaction.optimization-interval", "1 h")]);
        let mut s = CompactStrategy::for_bucket(&o, false, &restored).unwrap();
        let r = runs(&[(0, 1), (5, 200)]);
        // Exactly one hour later is not "more than" the interval.
        assert_eq!(s.pick(6, &r, at(11 * HOUR)), None);
        let unit = s.pick(6, &r, at(11 * HOUR + 1));
        assert_eq!(shape(&unit), Some((5, 2)));
        let early = s.universal().early_full().unwrap();
        assert_eq!(early.last_full_compaction(), Some(11 * HOUR + 1));
        assert_eq!(s.pick(6, &r, at(12 * HOUR)), None);
        // A single run never triggers.
        assert_eq!(s.pick(6, &runs(&[(3, 5)]), at(100 * HOUR)), None);
        // No restored max-level file: the first pick is a full compaction.
        let mut fresh = CompactStrategy::from_options(&o, false).unwrap();
        assert_eq!(shape(&fresh.pick(6, &r, at(0))), Some((5, 2)));
    }

    #[test]
    fn early_full_compaction_by_size_and_full_picks_update_it() {
        let mut e = EarlyFullCompaction::from_options(
            &opts(&[("compaction.total-size-threshold", "1kb")]),
            None,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            shape(&e.try_full_compact(6, &runs(&[(0, 500), (3, 523)]), 7)),
            Some((5, 2))
        );
        assert_eq!(e.last_full_compaction(), Some(7));
        assert_eq!(e.try_full_compact(6, &runs(&[(0, 500), (3, 524)]), 8), None);

        let mut e = EarlyFullCompaction::new(None, None, Some(1000), None);
        // Only runs below the max level count: 600 + 400 is not above 1000.
        assert_eq!(
            e.try_full_compact(6, &runs(&[(0, 600), (4, 400), (5, 9999)]), 1),
            None
        );
        assert_eq!(
            shape(&e.try_full_compact(6, &runs(&[(0, 601), (4, 400), (5, 9999)]), 2)),
            Some((5, 3))
        );
        assert!(EarlyFullCompaction::from_options(&opts(&[]), Some(1))
            .unwrap()
            .is_none());

        // Size amplification and "all runs taken" record a full compaction too.
        let early = EarlyFullCompaction::new(Some(HOUR), None, None, Some(0));
        let mut u = UniversalCompaction::new(200, 1, 5, Some(early), None).unwrap();
        let amp = runs(&[(0, 100), (0, 100), (0, 100), (0, 100), (5, 150)]);
        assert_eq!(shape(&u.pick(6, &amp, at(5))), Some((5, 5)));
        assert_eq!(u.early_full().unwrap().last_full_compaction(), Some(5));
        let all = runs(&[
            (0, 100),
            (0, 100),
            (0, 100),
            (0, 100),
            (0, 100),
            (1, 100_000),
        ]);
        assert_eq!(shape(&u.pick(6, &all, at(6))), Some((5, 6)));
        assert_eq!(u.early_full().unwrap().last_full_compaction(), Some(6));
        let partial = runs(&[
            (0, 100),
            (0, 100),
            (0, 100),
            (0, 100),
            (0, 100),
            (5, 100_000),
        ]);
        assert_eq!(shape(&u.pick(6, &partial, at(7))), Some((4, 5)));
        assert_eq!(u.early_full().unwrap().last_full_compaction(), Some(6));
    }

    #[test]
    fn explicit_full_compaction() {
        let never = |_: &DataFileMeta| false;
        assert_eq!(CompactStrategy::pick_full_compaction(6, &[], &never), None);
        let top = vec![LevelSortedRun {
            level: 5,
            files: vec![
                file("x", 5, 1, (1, 2), (0, 0)),
                file("y", 5, 1, (3, 4), (0, 0)),
            ],
        }];
        assert_eq!(CompactStrategy::pick_full_compaction(6, &top, &never), None);
        let unit = CompactStrategy::pick_full_compaction(6, &top, &|f| f.file_name == "y").unwrap();
        assert_eq!((unit.output_level, unit.file_rewrite), (5, true));
        assert_eq!(unit.files.len(), 1);
        assert_eq!(unit.files[0].file_name, "y");
        // A single run below the max level, or several runs: everything to the max level.
        let low = runs(&[(3, 10)]);
        let unit = CompactStrategy::pick_full_compaction(6, &low, &never).unwrap();
        assert_eq!(
            (unit.output_level, unit.files.len(), unit.file_rewrite),
            (5, 1, false)
        );
        let many = runs(&[(0, 10), (0, 10), (5, 10)]);
        assert_eq!(
            shape(&CompactStrategy::pick_full_compaction(6, &many, &never)),
            Some((5, 3))
        );
    }
}
