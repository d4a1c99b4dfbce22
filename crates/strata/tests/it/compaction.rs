//! The compaction experiment that upgrades big non-overlapping files instead of rewriting them,
//! reproduced end to end: two tables identical but for `compaction.small-file-ratio`, five
//! batch commits E, A, B, C, D; after each, the COMPACT snapshot's files are checked by name
//! and level (upgraded files keep their names, rewritten ones get new names).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::common::*;
use arrow_array::{Array, Int32Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::table::Table;
use strata_spec::manifest::DataFileMeta;
use strata_spec::snapshot::CommitKind;

/// Payload of one row: the same text for the same offset in every commit (only the version
/// letter differs), so the files of A, B, C and D have nearly equal sizes, as in the seed.
/// E's ten rows carry a longer, less compressible payload: the seed's inequalities need
/// `1.01 × B < A + E` (B must stop below A in the size-ratio rule), i.e. E larger than 1% of
/// a 12000-row commit, while E stays below the 3276-byte small-file threshold. The key ranges
/// are the seed's shifted by 1,000,000 so that every commit's keys have the same magnitude:
/// with keys 1.. for A and 100001.. for B, B's files compress up to 8% worse than A's under
/// some deflate backends (zlib-rs, which a workspace build enables) and the inequality flips.
fn payload(id: i32, version: &str) -> String {
    if version == "e" {
        let h = |k: u64| (id as u64 ^ k).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        return format!("e-{:016x}{:016x}{:016x}{:016x}", h(1), h(2), h(3), h(4));
    }
    format!("{version}-payload-{:010}", id % 100_000)
}

fn batch(ids: std::ops::RangeInclusive<i32>, version: &str) -> RecordBatch {
    let ids: Vec<i32> = ids.collect();
    let vals: Vec<String> = ids.iter().map(|i| payload(*i, version)).collect();
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int32, false),
        Field::new("v", ArrowType::Utf8, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int32Array::from(ids)),
            Arc::new(StringArray::from(vals)),
        ],
    )
    .unwrap()
}

fn schema_json(ratio: Option<&str>) -> String {
    let ratio = ratio
        .map(|r| format!(r#","compaction.small-file-ratio":"{r}""#))
        .unwrap_or_default();
    format!(
        r#"{{"fields":[{{"name":"id","type":"INT NOT NULL"}},{{"name":"v","type":"STRING"}}],
        "primaryKeys":["id"],"options":{{"bucket":"1","target-file-size":"64kb",
        "file.compression":"gzip"{ratio}}}}}"#
    )
}

/// Live files of the latest snapshot.
async fn live(t: &Table) -> Vec<DataFileMeta> {
    let plan = t.new_scan().plan().await.unwrap();
    plan.splits.into_iter().flat_map(|s| s.files).collect()
}

/// name → level of the live files.
async fn levels(t: &Table) -> BTreeMap<String, i32> {
    live(t)
        .await
        .into_iter()
        .map(|f| (f.file_name, f.level))
        .collect()
}

async fn rows(t: &Table) -> BTreeMap<i32, String> {
    let plan = t.new_scan().plan().await.unwrap();
    let mut out = BTreeMap::new();
    for b in t.new_read().to_batches(plan.splits).await.unwrap() {
        let id = b.column(0).as_any().downcast_ref::<Int32Array>().unwrap();
        let v = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.num_rows() {
            assert!(out.insert(id.value(i), v.value(i).to_string()).is_none());
        }
    }
    out
}

struct Step {
    append: DataFileMeta,
    /// New files of the APPEND snapshot.
    new_files: Vec<String>,
    metrics: Vec<strata::write::CompactionMetrics>,
}

/// One batch commit; returns what the APPEND snapshot added and the compaction metrics.
async fn commit(t: &Table, b: RecordBatch) -> Step {
    let mut w = t.new_write().unwrap();
    w.write(&b).await.unwrap();
    let msgs = w.prepare_commit().await.unwrap();
    let metrics = w.take_compaction_metrics();
    let new_files: Vec<String> = msgs
        .iter()
        .flat_map(|m| m.new_files.iter().map(|f| f.file_name.clone()))
        .collect();
    let append = msgs[0].new_files[0].clone();
    t.new_commit().unwrap().commit(msgs).await.unwrap();
    Step {
        append,
        new_files,
        metrics,
    }
}

async fn latest_kinds(t: &Table, n: usize) -> Vec<CommitKind> {
    let all = t.snapshot_manager().all().await.unwrap();
    all[all.len() - n..].iter().map(|s| s.commit_kind).collect()
}

#[tokio::test]
async fn seed_experiment_upgrades_instead_of_rewriting() {
    let wh = Warehouse::new();
    let ct = wh.create("db.ct", &schema_json(Some("0.05"))).await;
    let ct_def = wh.create("db.ct_def", &schema_json(None)).await;
    let mut model: BTreeMap<i32, String> = BTreeMap::new();

    // E: 10 rows, one small file; nothing to compact yet.
    for t in [&ct, &ct_def] {
        let s = commit(t, batch(1_300_001..=1_300_010, "e")).await;
        assert!(s.metrics.is_empty());
        assert_eq!(s.new_files.len(), 1);
        assert!(
            s.append.file_size < 3276,
            "E is small: {}",
            s.append.file_size
        );
    }
    model.extend((1_300_001..=1_300_010).map(|i| (i, payload(i, "e"))));
    let e_name = levels(&ct).await.into_keys().next().unwrap();

    // A: 12000 rows → 6 level-0 files of about 2000 rows; E + A → L5.
    let a = commit(&ct, batch(1_000_001..=1_012_000, "a")).await;
    assert_eq!(a.new_files.len(), 6, "12000 rows roll into 6 files at 64kb");
    assert_eq!(
        latest_kinds(&ct, 2).await,
        [CommitKind::Append, CommitKind::Compact]
    );
    let m = &a.metrics[0].task;
    assert_eq!((m.output_level, m.upgraded_files, m.rewrites), (5, 7, 0));
    assert_eq!(m.output_bytes, 0, "upgrades write nothing");
    let after_a = levels(&ct).await;
    let mut expected: BTreeSet<String> = a.new_files.iter().cloned().collect();
    expected.insert(e_name.clone());
    assert_eq!(
        after_a.keys().cloned().collect::<BTreeSet<_>>(),
        expected,
        "same names"
    );
    assert!(after_a.values().all(|l| *l == 5));

    let a_def = commit(&ct_def, batch(1_000_001..=1_012_000, "a")).await;
    let m = &a_def.metrics[0].task;
    assert_eq!((m.output_level, m.upgraded_files, m.rewrites), (5, 0, 1));
    let def_after_a = levels(&ct_def).await;
    assert!(
        def_after_a.keys().all(|n| !a_def.new_files.contains(n)),
        "all rewritten"
    );
    model.extend((1_000_001..=1_012_000).map(|i| (i, payload(i, "a"))));
    assert_eq!(rows(&ct).await, model);
    assert_eq!(rows(&ct_def).await, model);

    // B: disjoint keys → six upgrades to L4.
    let b = commit(&ct, batch(1_100_001..=1_112_000, "b")).await;
    let m = &b.metrics[0].task;
    assert_eq!((m.output_level, m.upgraded_files, m.rewrites), (4, 6, 0));
    let after_b = levels(&ct).await;
    for n in &b.new_files {
        assert_eq!(after_b[n], 4);
    }
    let b_def = commit(&ct_def, batch(1_100_001..=1_112_000, "b")).await;
    assert_eq!(b_def.metrics[0].task.upgraded_files, 0);
    model.extend((1_100_001..=1_112_000).map(|i| (i, payload(i, "b"))));

    // C: updates A → one rewrite of A+C into L5, B upgraded L4 → L5, E untouched.
    let c = commit(&ct, batch(1_000_001..=1_012_000, "c")).await;
    let m = &c.metrics[0].task;
    assert_eq!((m.output_level, m.upgraded_files, m.rewrites), (5, 6, 1));
    assert_eq!(m.rewritten_input_files, 12);
    let snap = ct.snapshot_manager().latest().await.unwrap().unwrap();
    assert_eq!(snap.commit_kind, CommitKind::Compact);
    assert_eq!(snap.delta_record_count, -12000, "A's old versions are gone");
    let after_c = levels(&ct).await;
    assert_eq!(after_c.len(), 13);
    assert!(after_c.values().all(|l| *l == 5));
    for n in b.new_files.iter().chain([&e_name]) {
        assert!(after_c.contains_key(n), "{n} keeps its name");
    }
    for n in a.new_files.iter().chain(&c.new_files) {
        assert!(!after_c.contains_key(n), "{n} was rewritten");
    }
    let c_def = commit(&ct_def, batch(1_000_001..=1_012_000, "c")).await;
    assert_eq!(c_def.metrics[0].task.upgraded_files, 0);
    let def_after_c = levels(&ct_def).await;
    assert!(def_after_c
        .keys()
        .all(|n| !def_after_a.contains_key(n) && !after_b.contains_key(n)));
    model.extend((1_000_001..=1_012_000).map(|i| (i, payload(i, "c"))));
    assert_eq!(rows(&ct).await, model);
    assert_eq!(rows(&ct_def).await, model);

    // D: disjoint → six upgrades to L4.
    let d = commit(&ct, batch(1_200_001..=1_212_000, "d")).await;
    let m = &d.metrics[0].task;
    assert_eq!((m.output_level, m.upgraded_files, m.rewrites), (4, 6, 0));
    let d_def = commit(&ct_def, batch(1_200_001..=1_212_000, "d")).await;
    assert_eq!(d_def.metrics[0].task.upgraded_files, 0);
    model.extend((1_200_001..=1_212_000).map(|i| (i, payload(i, "d"))));
    assert_eq!(rows(&ct).await, model);
    assert_eq!(rows(&ct_def).await, model);
    let after_d = levels(&ct).await;
    assert_eq!(after_d.values().filter(|l| **l == 4).count(), 6);
    assert_eq!(after_d.values().filter(|l| **l == 5).count(), 13);
}

/// Files in the bucket directory.
fn files_on_disk(wh: &Warehouse, table: &str) -> BTreeSet<String> {
    std::fs::read_dir(wh.table_dir("db", table).join("bucket-0"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect()
}

#[tokio::test]
async fn a_losing_compaction_is_abandoned_cleanly() {
    let wh = Warehouse::new();
    let js = schema_json(None).replace(r#""bucket":"1""#, r#""bucket":"1","write-only":"true""#);
    let t = wh.create("db.race", &js).await;
    let mut model = BTreeMap::new();
    for (k, v) in [(1, "a"), (2, "b"), (3, "c")] {
        let s = commit(&t, batch(1..=3000 * k, v)).await;
        assert!(s.metrics.is_empty(), "write-only never compacts on write");
        model.extend((1..=3000 * k).map(|i| (i, payload(i, v))));
    }
    assert!(levels(&t).await.values().all(|l| *l == 0));
    let before_race = files_on_disk(&wh, "race");

    // Two compactions of the same bucket planned on the same snapshot.
    let mut w1 = t.new_write().unwrap();
    let mut w2 = t.new_write().unwrap();
    assert_eq!(w1.compact(&|_, _| true, true).await.unwrap(), 1);
    assert_eq!(w2.compact(&|_, _| true, true).await.unwrap(), 1);
    let m1 = w1.prepare_commit().await.unwrap();
    let m2 = w2.prepare_commit().await.unwrap();
    let w2_outputs: Vec<String> = m2[0]
        .compact_after
        .iter()
        .map(|f| f.file_name.clone())
        .collect();
    assert!(!w2_outputs.is_empty());
    let first = t.new_commit().unwrap().commit(m1).await.unwrap().unwrap();
    let snap = t.snapshot_manager().snapshot(first).await.unwrap();
    assert_eq!(snap.commit_kind, CommitKind::Compact);
    let err = t.new_commit().unwrap().commit(m2).await.unwrap_err();
    let text = err.to_string();
    assert!(text.contains("File deletion conflicts detected"), "{text}");
    assert!(text.contains("abandoned"), "{text}");
    // Nothing published, the loser's files are gone, the winner's are there.
    assert_eq!(t.snapshot_manager().latest_id().await.unwrap(), Some(first));
    let on_disk = files_on_disk(&wh, "race");
    for f in &w2_outputs {
        assert!(
            !on_disk.contains(f),
            "{f} of the losing compaction was removed"
        );
    }
    assert!(levels(&t).await.values().all(|l| *l == 5));
    assert!(
        on_disk.is_superset(&before_race),
        "old files stay for older snapshots"
    );
    assert_eq!(rows(&t).await, model);
}

#[tokio::test]
async fn compaction_drops_deletes_at_the_max_level_and_keeps_them_below() {
    let wh = Warehouse::new();
    let js = r#"{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"v","type":"STRING"},
        {"name":"op","type":"STRING"}],"primaryKeys":["id"],
        "options":{"bucket":"1","rowkind.field":"op","write-only":"true"}}"#;
    let t = wh.create("db.del", js).await;
    let mk = |ids: Vec<i32>, op: &str| {
        let n = ids.len();
        let schema = Arc::new(ArrowSchema::new(vec![
            Field::new("id", ArrowType::Int32, false),
            Field::new("v", ArrowType::Utf8, true),
            Field::new("op", ArrowType::Utf8, true),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int32Array::from(ids)),
                Arc::new(StringArray::from(vec!["x"; n])),
                Arc::new(StringArray::from(vec![op; n])),
            ],
        )
        .unwrap()
    };
    t.write_batches([mk((1..=100).collect(), "+I")], None)
        .await
        .unwrap();
    t.write_batches([mk((1..=50).collect(), "-D")], None)
        .await
        .unwrap();
    let live_files = live(&t).await;
    assert_eq!(
        live_files
            .iter()
            .map(|f| f.delete_row_count.unwrap())
            .sum::<i64>(),
        50
    );
    // Full compaction: everything to the max level, deletes dropped.
    let mut w = t.new_write().unwrap();
    w.compact(&|_, _| true, true).await.unwrap();
    let msgs = w.prepare_commit().await.unwrap();
    let m = w.take_compaction_metrics();
    assert_eq!(m[0].task.output_level, 5);
    let id = t.new_commit().unwrap().commit(msgs).await.unwrap().unwrap();
    let snap = t.snapshot_manager().snapshot(id).await.unwrap();
    assert_eq!(snap.total_record_count, 50, "only the 50 live rows remain");
    let after = live(&t).await;
    assert!(after
        .iter()
        .all(|f| f.level == 5 && f.delete_row_count == Some(0)));
    let ids: Vec<i32> = rows(&t).await.into_keys().collect();
    assert_eq!(ids, (51..=100).collect::<Vec<_>>());
    // A compaction that is not a full one stays below: nothing left to do at max level.
    let mut w = t.new_write().unwrap();
    w.compact(&|_, _| true, true).await.unwrap();
    let msgs = w.prepare_commit().await.unwrap();
    assert!(
        msgs.iter().all(|m| m.compact_after.is_empty()),
        "already compact"
    );
}

/// Level ≥ 1 files of each level never overlap (checked on the live files).
async fn assert_levels_disjoint(t: &Table) {
    let mut by_level: BTreeMap<i32, Vec<(i32, i32)>> = BTreeMap::new();
    let key = [strata_spec::DataType::not_null(
        strata_spec::types::TypeKind::Int,
    )];
    for f in live(t).await {
        if f.level == 0 {
            continue;
        }
        let lo = f.min_key.to_datums(&key).unwrap()[0].clone();
        let hi = f.max_key.to_datums(&key).unwrap()[0].clone();
        let (Some(strata_spec::Datum::Int(lo)), Some(strata_spec::Datum::Int(hi))) = (lo, hi)
        else {
            panic!("int keys")
        };
        by_level.entry(f.level).or_default().push((lo, hi));
    }
    for (level, mut ranges) in by_level {
        ranges.sort();
        for w in ranges.windows(2) {
            assert!(w[0].1 < w[1].0, "level {level} overlaps: {w:?}");
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 6, ..Default::default() })]

    /// Random upsert commits with small files and random compaction settings: after every
    /// commit (APPEND + COMPACT) the rows equal a model and no level ≥ 1 overlaps.
    #[test]
    fn random_commits_compact_to_the_model(
        commits in proptest::collection::vec((0i32..3000, 1i32..2500), 3..9),
        ratio in proptest::sample::select(vec!["0.05", "0.7"]),
        trigger in 2i32..6,
    ) {
        let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let wh = Warehouse::new();
            let js = schema_json(Some(ratio)).replace(
                r#""target-file-size":"64kb""#,
                &format!(r#""target-file-size":"16kb","num-sorted-run.compaction-trigger":"{trigger}""#),
            );
            let t = wh.create("db.p", &js).await;
            let mut model = BTreeMap::new();
            for (i, (lo, len)) in commits.iter().enumerate() {
                let v = format!("v{i}");
                commit(&t, batch(*lo..=lo + len, &v)).await;
                model.extend((*lo..=lo + len).map(|k| (k, payload(k, &v))));
                assert_eq!(rows(&t).await, model, "after commit {i}");
                assert_levels_disjoint(&t).await;
            }
        });
    }
}

#[tokio::test]
async fn record_level_ttl_drops_expired_rows_in_compaction() {
    let wh = Warehouse::new();
    let js = r#"{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"ts","type":"BIGINT"}],
        "primaryKeys":["id"],"options":{"bucket":"1","write-only":"true",
        "record-level.expire-time":"1 h","record-level.time-field":"ts"}}"#;
    let t = wh.create("db.ttl", js).await;
    let now_ms = chrono::Utc::now().timestamp_millis();
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int32, false),
        Field::new("ts", ArrowType::Int64, true),
    ]));
    // ids 0..10 two hours old, 10..20 fresh (epoch milliseconds), 20 without a time.
    let ids: Vec<i32> = (0..21).collect();
    let ts: Vec<Option<i64>> = ids
        .iter()
        .map(|i| match i {
            0..=9 => Some(now_ms - 2 * 3600 * 1000),
            10..=19 => Some(now_ms),
            _ => None,
        })
        .collect();
    let b = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int32Array::from(ids)),
            Arc::new(arrow_array::Int64Array::from(ts)),
        ],
    )
    .unwrap();
    t.write_batches([b], None).await.unwrap();
    let mut w = t.new_write().unwrap();
    w.compact(&|_, _| true, true).await.unwrap();
    let msgs = w.prepare_commit().await.unwrap();
    let m = w.take_compaction_metrics();
    assert_eq!(
        m[0].task.rewrites, 1,
        "a file with expired rows is rewritten, not upgraded"
    );
    assert_eq!(m[0].task.output_rows, 11);
    t.new_commit().unwrap().commit(msgs).await.unwrap();
    let plan = t.new_scan().plan().await.unwrap();
    let mut got = Vec::new();
    for b in t.new_read().to_batches(plan.splits).await.unwrap() {
        let id = b.column(0).as_any().downcast_ref::<Int32Array>().unwrap();
        got.extend(id.values().iter().copied());
    }
    got.sort();
    assert_eq!(got, (10..21).collect::<Vec<_>>());
}
