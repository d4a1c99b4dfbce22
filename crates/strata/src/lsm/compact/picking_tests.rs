//! Tests of compaction picking: worked examples of `UniversalCompaction` picking (HEAD
//! behaviour, as Paimon's own classes pick), their margins, off-peak hours,
//! and property tests of the unit's shape. Also the shared test-file builders.

use proptest::prelude::*;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::DataFileMeta;
use strata_spec::stats::SimpleStats;
use strata_spec::{DataType, Datum, TypeKind};

use super::levels::Levels;
use super::strategy::CompactStrategy;
use super::universal::{OffPeakHours, PickTime, UniversalCompaction};
use super::{CompactUnit, LevelSortedRun};

/// The key types of the test files: one `INT NOT NULL`.
pub(crate) fn key_types() -> Vec<DataType> {
    vec![DataType::not_null(TypeKind::Int)]
}

pub(crate) fn int_key(k: i32) -> BinaryRow {
    BinaryRow::from_datums(&[Some(Datum::Int(k))], &key_types()).expect("an INT key always encodes")
}

/// A data file with keys `min..=max` and sequence numbers `seq`.
pub(crate) fn file(
    name: &str,
    level: i32,
    size: i64,
    keys: (i32, i32),
    seq: (i64, i64),
) -> DataFileMeta {
    DataFileMeta {
        file_name: name.into(),
        file_size: size,
        row_count: 1,
        min_key: int_key(keys.0),
        max_key: int_key(keys.1),
        key_stats: SimpleStats::empty(),
        value_stats: SimpleStats::empty(),
        min_sequence_number: seq.0,
        max_sequence_number: seq.1,
        schema_id: 0,
        level,
        extra_files: Vec::new(),
        creation_time: None,
        delete_row_count: Some(0),
        embedded_index: None,
        file_source: None,
        value_stats_cols: None,
        external_path: None,
        first_row_id: None,
        write_cols: None,
    }
}

/// Runs of one file each, `(level, size)` newest first; files are named `r0`, `r1`, …
pub(crate) fn runs(spec: &[(i32, i64)]) -> Vec<LevelSortedRun> {
    spec.iter()
        .enumerate()
        .map(|(i, &(level, size))| LevelSortedRun {
            level,
            files: vec![file(
                &format!("r{i}"),
                level,
                size,
                (i as i32, i as i32),
                (0, 0),
            )],
        })
        .collect()
}

/// Universal compaction with the defaults: amp 200, ratio 1, trigger 5.
pub(crate) fn universal() -> UniversalCompaction {
    UniversalCompaction::new(200, 1, 5, None, None).expect("trigger 5 is valid")
}

pub(crate) const T0: PickTime = PickTime {
    now_millis: 1_000_000,
    hour: 12,
};

fn names(files: &[DataFileMeta]) -> Vec<&str> {
    files.iter().map(|f| f.file_name.as_str()).collect()
}

fn shape(unit: &Option<CompactUnit>) -> Option<(i32, usize)> {
    unit.as_ref().map(|u| (u.output_level, u.files.len()))
}

// ---- §8.3: the experiment ------------------------------------------------------------------

/// Six 2 000-key files of 7 400 B from key `base`, sequence numbers from `seq`; `a1` holds the
/// lowest keys and sequence numbers.
fn commit(prefix: &str, base: i32, seq: i64) -> Vec<DataFileMeta> {
    (0..6)
        .map(|i| {
            let k = base + i * 2000;
            let s = seq + i64::from(i) * 2000;
            file(
                &format!("{prefix}{}", i + 1),
                0,
                7400,
                (k + 1, k + 2000),
                (s, s + 1999),
            )
        })
        .collect()
}

fn relevel(files: &[DataFileMeta], level: i32) -> Vec<DataFileMeta> {
    files
        .iter()
        .map(|f| DataFileMeta { level, ..f.clone() })
        .collect()
}

/// Adds the flushed `files` to the tree and picks.
fn step(
    levels: &mut Levels,
    strategy: &mut CompactStrategy,
    files: &[DataFileMeta],
) -> Option<CompactUnit> {
    levels.update(&[], files).unwrap();
    let runs = levels.level_sorted_runs();
    strategy.pick(levels.number_of_levels(), &runs, T0)
}

/// Applies a task that upgrades every picked file to the output level.
fn upgrade(levels: &mut Levels, unit: &CompactUnit) {
    let moved: Vec<DataFileMeta> = unit
        .files
        .iter()
        .filter(|f| f.level != unit.output_level)
        .cloned()
        .collect();
    levels
        .update(&moved, &relevel(&moved, unit.output_level))
        .unwrap();
}

fn layout(levels: &Levels) -> Vec<(i32, usize, i64)> {
    levels
        .level_sorted_runs()
        .iter()
        .map(|r| (r.level, r.files.len(), r.total_size()))
        .collect()
}

#[test]
fn experiment_8_3_plain_universal() {
    let opts = strata_spec::options::CoreOptions::default();
    let mut strategy = CompactStrategy::from_options(&opts, false).unwrap();
    assert!(matches!(strategy, CompactStrategy::Universal(_)));
    let mut levels = Levels::new(key_types(), opts.num_levels().unwrap(), Vec::new()).unwrap();
    assert_eq!(levels.number_of_levels(), 6);

    // E: one 1 500 B file, one run < trigger → nothing.
    let e = file("e", 0, 1500, (300_001, 300_010), (0, 9));
    assert_eq!(step(&mut levels, &mut strategy, &[e]), None);

    // A: 7 runs, rule 1 (size amplification) → all 7 files to L5, newest first.
    let a = commit("a", 0, 10);
    let unit = step(&mut levels, &mut strategy, &a).unwrap();
    assert_eq!(unit.output_level, 5);
    assert_eq!(
        names(&unit.files),
        ["a6", "a5", "a4", "a3", "a2", "a1", "e"]
    );
    assert!(!unit.file_rewrite);
    upgrade(&mut levels, &unit);
    assert_eq!(layout(&levels), [(5, 7, 45_900)]);

    // B: rule 2 stops before L5 (44 844 < 45 900) → the 6 B files to L4.
    let b = commit("b", 100_000, 20_000);
    let unit = step(&mut levels, &mut strategy, &b).unwrap();
    assert_eq!(unit.output_level, 4);
    assert_eq!(names(&unit.files), ["b6", "b5", "b4", "b3", "b2", "b1"]);
    upgrade(&mut levels, &unit);
    assert_eq!(layout(&levels), [(4, 6, 44_400), (5, 7, 45_900)]);

    // C: rule 2 absorbs L4 and L5 → all 19 files to L5.
    let c = commit("c", 0, 40_000);
    let unit = step(&mut levels, &mut strategy, &c).unwrap();
    assert_eq!((unit.output_level, unit.files.len()), (5, 19));
    assert_eq!(
        &names(&unit.files)[..8],
        ["c6", "c5", "c4", "c3", "c2", "c1", "b1", "b2"]
    );
    // Task: (a_i, c_i) rewritten into r1..r6 @L5, b_i upgraded L4 → L5, E stays.
    let mut before: Vec<DataFileMeta> = unit.files.clone();
    before.retain(|f| f.file_name != "e");
    let mut after = commit("r", 0, 40_000);
    after = relevel(&after, 5);
    after.extend(relevel(&levels.run_of_level(4).unwrap(), 5));
    levels.update(&before, &after).unwrap();
    assert_eq!(layout(&levels), [(5, 13, 90_300)]);

    // D: 44 844 < 90 300 → the 6 D files to L4.
    let d = commit("d", 200_000, 60_000);
    let unit = step(&mut levels, &mut strategy, &d).unwrap();
    assert_eq!((unit.output_level, unit.files.len()), (4, 6));
    upgrade(&mut levels, &unit);
    assert_eq!(layout(&levels), [(4, 6, 44_400), (5, 13, 90_300)]);
}

#[test]
fn experiment_8_3_force_up_level_0_pushes_e_alone() {
    let mut opts = strata_spec::options::CoreOptions::default();
    opts.set("compaction.force-up-level-0", "true");
    let mut strategy = CompactStrategy::from_options(&opts, false).unwrap();
    let mut levels = Levels::new(key_types(), 6, Vec::new()).unwrap();
    let e = file("e", 0, 1500, (300_001, 300_010), (0, 9));
    let unit = step(&mut levels, &mut strategy, &[e]).unwrap();
    assert_eq!((unit.output_level, names(&unit.files)), (5, vec!["e"]));
    upgrade(&mut levels, &unit);
    // A: all 7 runs to L5 again, but only a1..a6 actually move.
    let unit = step(&mut levels, &mut strategy, &commit("a", 0, 10)).unwrap();
    assert_eq!((unit.output_level, unit.files.len()), (5, 7));
}

/// Runs after A (all at L5: six A files + E) followed by a commit of six L0 files.
fn after_a(b_sizes: [i64; 6], a_total: i64, e: i64) -> Vec<LevelSortedRun> {
    let mut spec: Vec<(i32, i64)> = b_sizes.iter().map(|&s| (0, s)).collect();
    spec.push((5, a_total + e));
    runs(&spec)
}

#[test]
fn experiment_8_3_margins() {
    let pick = |r: &[LevelSortedRun]| universal().pick(6, r, T0);
    // With A = B, B stays below L5 only when E > 444 B.
    assert_eq!(
        shape(&pick(&after_a([7400; 6], 44_400, 1500))),
        Some((4, 6))
    );
    assert_eq!(shape(&pick(&after_a([7400; 6], 44_400, 445))), Some((4, 6)));
    // 44 400 × 1.01 = 44 844 exactly: not smaller → absorbed.
    assert_eq!(shape(&pick(&after_a([7400; 6], 44_400, 444))), Some((5, 7)));
    assert_eq!(shape(&pick(&after_a([7400; 6], 44_400, 300))), Some((5, 7)));

    // A newest B file of 7 000 B: rule 2 gives nothing, rule 3 (7 > 5 runs, start with 3)
    // still takes the six B files to L4.
    let r = after_a([7000, 7400, 7400, 7400, 7400, 7400], 44_400, 1500);
    assert_eq!(universal().pick_for_size_ratio(5, &r, T0), None);
    assert_eq!(universal().pick_for_size_amp(5, &r, T0), None);
    let unit = pick(&r).unwrap();
    assert_eq!(
        (unit.output_level, names(&unit.files)),
        (4, vec!["r0", "r1", "r2", "r3", "r4", "r5"])
    );

    // After B, a C more than 1 % smaller than B does not absorb L4: C alone goes to L3.
    let mut spec = vec![(0, 7000); 6];
    spec.extend([(4, 44_400), (5, 45_900)]);
    assert_eq!(shape(&pick(&runs(&spec))), Some((3, 6)));
    // ... while equal-sized C files absorb L4 and L5.
    let mut spec = vec![(0, 7400); 6];
    spec.extend([(4, 44_400), (5, 45_900)]);
    assert_eq!(shape(&pick(&runs(&spec))), Some((5, 8)));

    // After A, a large E still ends in one full compaction (rule 2 takes all 7 runs).
    let r = runs(&[
        (0, 7400),
        (0, 7400),
        (0, 7400),
        (0, 7400),
        (0, 7400),
        (0, 7400),
        (0, 40_000),
    ]);
    assert_eq!(universal().pick_for_size_amp(5, &r, T0), None);
    assert_eq!(shape(&universal().pick(6, &r, T0)), Some((5, 7)));
}

// ---- §8.5: more picking examples -----------------------------------------------------------

#[test]
fn picking_examples_8_5_head() {
    type Row = (Vec<(i32, i64)>, Option<(i32, usize)>, Option<(i32, usize)>);
    let rows: Vec<Row> = vec![
        // 1: rule 3 starts with 2 runs, stops at L3 → L2.
        (
            vec![(0, 10), (0, 100), (0, 100), (0, 100), (3, 1000), (5, 5000)],
            Some((2, 4)),
            Some((2, 4)),
        ),
        // 2: HEAD absorbs the L1 run once triggered, stops at L5 → L4.
        (
            vec![(0, 100), (0, 100), (0, 100), (0, 100), (1, 1000), (5, 5000)],
            Some((4, 5)),
            Some((4, 5)),
        ),
        // 3: rule 1 → full compaction.
        (
            vec![(0, 100), (0, 100), (0, 100), (0, 100), (5, 150)],
            Some((5, 5)),
            Some((5, 5)),
        ),
        // 4: fewer runs than the trigger; forcePickL0 pushes L0 to L4.
        (
            vec![(0, 100), (0, 100), (0, 100), (5, 1000)],
            None,
            Some((4, 3)),
        ),
        // 5: extends into L1, which is everything → max level.
        (
            vec![
                (0, 100),
                (0, 100),
                (0, 100),
                (0, 100),
                (0, 100),
                (1, 100_000),
            ],
            Some((5, 6)),
            Some((5, 6)),
        ),
    ];
    for (i, (spec, want_pick, want_force)) in rows.into_iter().enumerate() {
        let r = runs(&spec);
        assert_eq!(
            shape(&universal().pick(6, &r, T0)),
            want_pick,
            "row {}",
            i + 1
        );
        assert_eq!(
            shape(&universal().force_pick_l0(6, &r, T0)),
            want_force,
            "row {}",
            i + 1
        );
    }
}

#[test]
fn force_pick_l0_without_level_0_picks_nothing() {
    let r = runs(&[(3, 100), (5, 1000)]);
    assert_eq!(universal().force_pick_l0(6, &r, T0), None);
    assert_eq!(universal().force_pick_l0(6, &[], T0), None);
    assert_eq!(universal().pick(6, &[], T0), None);
}

#[test]
fn create_unit_never_outputs_level_0() {
    // The first run left out is L1 → output would be 0; extends into L1 and outputs there.
    let r = runs(&[(0, 1), (0, 1), (1, 10), (4, 1000)]);
    let unit = universal().create_unit(&r, 5, 2, T0);
    assert_eq!((unit.output_level, unit.files.len()), (1, 3));
    // Only L0 runs left out: takes everything → max level.
    let r = runs(&[(0, 1), (0, 1), (0, 1)]);
    assert_eq!(
        shape(&Some(universal().create_unit(&r, 5, 1, T0))),
        Some((5, 3))
    );
}

// ---- off-peak hours ------------------------------------------------------------------------

#[test]
fn off_peak_hours_window() {
    let wrap = OffPeakHours::new(22, 6, 20).unwrap();
    for (hour, ratio) in [
        (21, 0),
        (22, 20),
        (23, 20),
        (0, 20),
        (5, 20),
        (6, 0),
        (12, 0),
    ] {
        assert_eq!(wrap.current_ratio(hour), ratio, "hour {hour}");
    }
    let day = OffPeakHours::new(2, 5, 7).unwrap();
    for (hour, ratio) in [(1, 0), (2, 7), (4, 7), (5, 0)] {
        assert_eq!(day.current_ratio(hour), ratio, "hour {hour}");
    }
    assert_eq!(OffPeakHours::new(-1, 5, 7), None);
    assert_eq!(OffPeakHours::new(3, -1, 7), None);
    assert_eq!(OffPeakHours::new(4, 4, 7), None);
    assert_eq!(
        PickTime::from_local_millis(23 * 3_600_000 + 59_999).hour,
        23
    );
    assert_eq!(PickTime::from_local_millis(-1).hour, 23);
}

#[test]
fn off_peak_ratio_widens_size_ratio() {
    let mut opts = strata_spec::options::CoreOptions::default();
    opts.set("compaction.offpeak.start.hour", "22");
    opts.set("compaction.offpeak.end.hour", "6");
    opts.set("compaction.offpeak-ratio", "20");
    let mut strategy = CompactStrategy::from_options(&opts, false).unwrap();
    // 5 × 100 B at L0, 550 B at L5: 500 × 1.01 = 505 < 550, but 500 × 1.21 = 605 ≥ 550.
    let r = runs(&[(0, 100), (0, 100), (0, 100), (0, 100), (0, 100), (5, 550)]);
    let peak = PickTime::from_local_millis(12 * 3_600_000);
    let off_peak = PickTime::from_local_millis(23 * 3_600_000);
    assert_eq!(shape(&strategy.pick(6, &r, peak)), Some((4, 5)));
    assert_eq!(shape(&strategy.pick(6, &r, off_peak)), Some((5, 6)));
    let at_3 = PickTime { hour: 3, ..peak };
    assert_eq!(shape(&strategy.pick(6, &r, at_3)), Some((5, 6)));
}

// ---- properties ----------------------------------------------------------------------------

/// `(num_levels, runs)`: 0..8 level-0 runs, then some of the levels 1..num_levels, each with
/// 1..4 files; sizes both tiny and large.
fn arb_runs() -> impl Strategy<Value = (i32, Vec<LevelSortedRun>)> {
    let size = prop_oneof![1i64..200, 1i64..20_000, 1i64..2_000_000];
    (2i32..=7).prop_flat_map(move |num_levels| {
        let l0 = prop::collection::vec(size.clone(), 0..8);
        let higher = prop::collection::vec(
            prop::option::of(prop::collection::vec(size.clone(), 1..4)),
            (num_levels - 1) as usize,
        );
        (Just(num_levels), l0, higher).prop_map(|(num_levels, l0, higher)| {
            let mut n = 0;
            let mut next = |level: i32, size: i64| {
                n += 1;
                file(&format!("f{n}"), level, size, (n, n), (0, 0))
            };
            let mut out: Vec<LevelSortedRun> = l0
                .into_iter()
                .map(|s| LevelSortedRun {
                    level: 0,
                    files: vec![next(0, s)],
                })
                .collect();
            for (i, sizes) in higher.into_iter().enumerate() {
                if let Some(sizes) = sizes {
                    let level = i as i32 + 1;
                    let files = sizes.into_iter().map(|s| next(level, s)).collect();
                    out.push(LevelSortedRun { level, files });
                }
            }
            (num_levels, out)
        })
    })
}

/// Checks the shape of a unit and returns how many runs it took.
fn check_unit(num_levels: i32, runs: &[LevelSortedRun], unit: &CompactUnit) -> usize {
    let max_level = num_levels - 1;
    let taken = (1..=runs.len())
        .find(|&k| {
            let prefix: Vec<&DataFileMeta> = runs[..k].iter().flat_map(|r| &r.files).collect();
            prefix.len() == unit.files.len() && prefix.iter().zip(&unit.files).all(|(a, b)| *a == b)
        })
        .expect("the unit is a prefix of the runs");
    assert!(unit.output_level >= 1, "output level {}", unit.output_level);
    assert_eq!(unit.output_level == max_level, taken == runs.len());
    assert!(runs[..taken].iter().all(|r| r.level <= unit.output_level));
    if let Some(first_left) = runs.get(taken) {
        assert!(unit.output_level < first_left.level);
    }
    assert!(!unit.file_rewrite);
    taken
}

proptest! {
    #[test]
    fn picked_units_are_prefixes(
        (num_levels, runs) in arb_runs(),
        trigger in 1i32..=7,
        ratio in 0i32..=10,
        amp in 0i32..=400,
    ) {
        let mut u = UniversalCompaction::new(amp, ratio, trigger, None, None).unwrap();
        let unit = u.pick(num_levels, &runs, T0);
        if runs.len() < trigger as usize {
            prop_assert_eq!(&unit, &None);
        }
        if let Some(unit) = &unit {
            check_unit(num_levels, &runs, unit);
        }
        // Picking is a pure function of its inputs.
        prop_assert_eq!(&u.pick(num_levels, &runs, T0), &unit);

        let l0 = runs.iter().take_while(|r| r.level == 0).count();
        match u.force_pick_l0(num_levels, &runs, T0) {
            None => prop_assert_eq!(l0, 0),
            Some(unit) => prop_assert!(check_unit(num_levels, &runs, &unit) >= l0),
        }
    }

    #[test]
    fn levels_runs_feed_picking(
        (num_levels, runs) in arb_runs(),
        force in any::<bool>(),
    ) {
        // Rebuilding the tree from the files gives back the same runs.
        let files: Vec<DataFileMeta> = runs.iter().flat_map(|r| r.files.clone()).collect();
        let levels = Levels::new(key_types(), num_levels, files).unwrap();
        prop_assert_eq!(levels.number_of_sorted_runs(), runs.len());
        let rebuilt = levels.level_sorted_runs();
        prop_assert_eq!(rebuilt.len(), runs.len());
        for (a, b) in rebuilt.iter().zip(&runs) {
            prop_assert_eq!(a.level, b.level);
            prop_assert_eq!(a.total_size(), b.total_size());
        }
        let mut opts = strata_spec::options::CoreOptions::default();
        opts.set("compaction.force-up-level-0", force.to_string());
        let mut strategy = CompactStrategy::from_options(&opts, false).unwrap();
        if let Some(unit) = strategy.pick(levels.number_of_levels(), &rebuilt, T0) {
            check_unit(levels.number_of_levels(), &rebuilt, &unit);
        }
    }
}
