//! `changelog-producer = lookup`: each commit's lookup compaction compares every key it brings
//! up from level 0 with the key's older record (among the compacted files, or looked up in the
//! levels above) and writes `+I`, `-U`/`+U` or `-D` changelog records to the COMPACT
//! snapshot (Java `LookupChangelogMergeFunctionWrapper`). Checked on the snapshots' changelog
//! files, on `changelog-producer.row-deduplicate`, and by property tests: after every commit
//! the read, the merge-on-read and the changelog replayed from empty equal an in-memory model,
//! with and without deletion vectors, for deduplicate and for a `sum` aggregation (whose
//! superseded records stay in higher levels and must not be summed again).

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{Array, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::spec::kv::RowKind;
use strata::spec::snapshot::CommitKind;
use strata::table::Table;

use crate::changelog_input::changelog_batches;
use crate::lifecycle_support::{batch, rows, Lake};

const LOOKUP: &str = r#","changelog-producer":"lookup""#;

/// Writes the `(ids, tag, kind)` parts as one commit; returns the snapshots it created.
async fn commit(t: &Table, parts: &[(std::ops::Range<i64>, String, RowKind)]) -> Vec<i64> {
    let mut w = t.new_write().unwrap();
    for (ids, tag, kind) in parts {
        let b = batch(ids.clone(), tag);
        w.write_with_kinds(&b, &vec![*kind; b.num_rows()])
            .await
            .unwrap();
    }
    let c = t
        .new_commit()
        .unwrap()
        .commit_messages(w.prepare_commit().await.unwrap(), None)
        .await
        .unwrap();
    assert!(c.compact_error.is_none(), "{:?}", c.compact_error);
    c.append.into_iter().chain(c.compact).collect()
}

fn value(id: i64, tag: &str) -> String {
    let b = batch(id..id + 1, tag);
    let v = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
    v.value(0).to_string()
}

/// The changelog of snapshot `id` as (kind, id, v), in file order.
async fn changelog_of(t: &Table, id: i64) -> Vec<(String, i64, String)> {
    let mut out = Vec::new();
    for b in changelog_batches(t, id).await {
        let kind = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
        let ids = b.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
        let v = b.column(2).as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.num_rows() {
            out.push((
                kind.value(i).to_string(),
                ids.value(i),
                v.value(i).to_string(),
            ));
        }
    }
    out
}

/// The error of a first write to `t` (empty when it succeeds).
async fn write_error(t: &Table) -> String {
    async {
        let mut w = t.new_write()?;
        w.write(&batch(0..1, "a")).await?;
        w.prepare_commit().await
    }
    .await
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default()
}

#[tokio::test]
async fn lookup_compaction_writes_insert_update_and_delete_changelog() {
    let lake = Lake::new();
    let t = lake.pk_table("db.lc", LOOKUP).await;
    let ids = commit(&t, &[(0..10, "a".into(), RowKind::Insert)]).await;
    assert_eq!(ids.len(), 2, "an APPEND and a COMPACT snapshot: {ids:?}");
    let sm = t.snapshot_manager();
    let append = sm.snapshot(ids[0]).await.unwrap();
    let compact = sm.snapshot(ids[1]).await.unwrap();
    assert_eq!(append.commit_kind, CommitKind::Append);
    assert_eq!(append.changelog_manifest_list, None);
    assert_eq!(compact.commit_kind, CommitKind::Compact);
    assert_eq!(compact.changelog_record_count, Some(10));
    let expected: Vec<_> = (0..10)
        .map(|i| ("+I".to_string(), i, value(i, "a")))
        .collect();
    assert_eq!(changelog_of(&t, ids[1]).await, expected);
    assert!(changelog_of(&t, ids[0]).await.is_empty());

    let ids = commit(
        &t,
        &[
            (0..3, "b".into(), RowKind::Insert),
            (5..7, "x".into(), RowKind::Delete),
            (10..12, "c".into(), RowKind::Insert),
            (20..21, "y".into(), RowKind::Delete),
        ],
    )
    .await;
    let mut expected = Vec::new();
    for i in 0..3 {
        expected.push(("-U".to_string(), i, value(i, "a")));
        expected.push(("+U".to_string(), i, value(i, "b")));
    }
    for i in 5..7 {
        // The before-image: a delete's changelog holds the row that was deleted.
        expected.push(("-D".to_string(), i, value(i, "a")));
    }
    for i in 10..12 {
        expected.push(("+I".to_string(), i, value(i, "c")));
    }
    assert_eq!(changelog_of(&t, *ids.last().unwrap()).await, expected);

    let mut model: BTreeMap<i64, String> = (0..10).map(|i| (i, value(i, "a"))).collect();
    for i in 0..3 {
        model.insert(i, value(i, "b"));
    }
    model.remove(&5);
    model.remove(&6);
    for i in 10..12 {
        model.insert(i, value(i, "c"));
    }
    assert_eq!(rows(&t, None).await, model);
    let last = sm.latest_id().await.unwrap().unwrap();
    assert_eq!(
        crate::changelog_input::replay_changelog(&t, last).await,
        model
    );
}

#[tokio::test]
async fn row_deduplicate_drops_updates_that_change_nothing() {
    let lake = Lake::new();
    for (dedupe, ignore) in [(false, None), (true, None), (true, Some("v"))] {
        let name = format!("db.dd_{dedupe}_{}", ignore.is_some());
        let mut extra = format!(r#"{LOOKUP},"changelog-producer.row-deduplicate":"{dedupe}""#);
        if let Some(f) = ignore {
            extra.push_str(&format!(
                r#","changelog-producer.row-deduplicate-ignore-fields":"{f}""#
            ));
        }
        let t = lake.pk_table(&name, &extra).await;
        commit(&t, &[(0..4, "a".into(), RowKind::Insert)]).await;
        // 0..2 written again with the same values, 2..4 with new ones.
        let ids = commit(
            &t,
            &[
                (0..2, "a".into(), RowKind::Insert),
                (2..4, "b".into(), RowKind::Insert),
            ],
        )
        .await;
        let got = changelog_of(&t, *ids.last().unwrap()).await;
        let changed: Vec<i64> = got.iter().map(|(_, id, _)| *id).collect();
        match (dedupe, ignore) {
            (false, _) => assert_eq!(changed, [0, 0, 1, 1, 2, 2, 3, 3], "{got:?}"),
            (true, None) => assert_eq!(changed, [2, 2, 3, 3], "{got:?}"),
            // Ignoring the only value field: every update is "the same row".
            (true, Some(_)) => assert!(changed.is_empty(), "{got:?}"),
        }
    }
    let bad = lake
        .pk_table(
            "db.bad",
            &format!(
                r#"{LOOKUP},"changelog-producer.row-deduplicate":"true","changelog-producer.row-deduplicate-ignore-fields":"nope""#
            ),
        )
        .await;
    let err = write_error(&bad).await;
    assert!(
        err.contains("row-deduplicate-ignore-fields") && err.contains("nope"),
        "{err}"
    );
}

/// The schema of the aggregation tables: `id`, `v BIGINT` summed.
fn sum_batch(rows: &[(i64, i64)]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("v", ArrowType::Int64, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.0))),
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.1))),
        ],
    )
    .unwrap()
}

async fn sum_rows(t: &Table) -> BTreeMap<i64, i64> {
    let plan = t.new_scan().plan().await.unwrap();
    let mut out = BTreeMap::new();
    for b in t.new_read().to_batches(plan.splits).await.unwrap() {
        let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let v = b.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
        for i in 0..b.num_rows() {
            out.insert(id.value(i), v.value(i));
        }
    }
    out
}

/// The sum table's changelog of snapshots `(0, last]` replayed from empty.
async fn replay_sums(t: &Table, last: i64) -> BTreeMap<i64, i64> {
    let mut model = BTreeMap::new();
    for id in 1..=last {
        for b in changelog_batches(t, id).await {
            let kind = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
            let ids = b.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
            let v = b.column(2).as_any().downcast_ref::<Int64Array>().unwrap();
            for i in 0..b.num_rows() {
                match kind.value(i) {
                    "+I" | "+U" => {
                        model.insert(ids.value(i), v.value(i));
                    }
                    _ => {
                        model.remove(&ids.value(i));
                    }
                }
            }
        }
    }
    model
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 8, ..Default::default() })]

    /// Random upserts and deletes into a lookup-changelog table (with and without deletion
    /// vectors) or a full-compaction-changelog table: after each commit the read, the
    /// merge-on-read and the changelog replayed from empty all equal the model.
    #[test]
    fn lookup_changelog_replays_to_the_table(
        commits in proptest::collection::vec(
            proptest::collection::vec((0i64..600, 1i64..150, proptest::bool::weighted(0.3)), 1..3),
            1..7,
        ),
        trigger in 2i32..5,
        dv in proptest::bool::ANY,
        full in proptest::bool::ANY,
    ) {
        // Deletion vectors go with the lookup producer only.
        let (producer, dv) = if full { ("full-compaction", false) } else { ("lookup", dv) };
        let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let lake = Lake::new();
            let t = lake
                .pk_table(
                    "db.prop",
                    &format!(
                        r#","changelog-producer":"{producer}","deletion-vectors.enabled":"{dv}","target-file-size":"16kb","num-sorted-run.compaction-trigger":"{trigger}""#
                    ),
                )
                .await;
            let merged = t
                .with_dynamic_options([(
                    "deletion-vectors.merge-on-read".to_string(),
                    "true".to_string(),
                )])
                .unwrap();
            let mut model = BTreeMap::new();
            for (c, parts) in commits.iter().enumerate() {
                let parts: Vec<(std::ops::Range<i64>, String, RowKind)> = parts
                    .iter()
                    .enumerate()
                    .map(|(p, (lo, len, del))| {
                        let kind = if *del { RowKind::Delete } else { RowKind::Insert };
                        (*lo..lo + len, format!("c{c}p{p}"), kind)
                    })
                    .collect();
                commit(&t, &parts).await;
                for (ids, tag, kind) in &parts {
                    for id in ids.clone() {
                        if *kind == RowKind::Delete {
                            model.remove(&id);
                        } else {
                            model.insert(id, value(id, tag));
                        }
                    }
                }
                assert_eq!(rows(&t, None).await, model, "read, commit {c}");
                assert_eq!(rows(&merged, None).await, model, "merge-on-read, commit {c}");
                let last = t.snapshot_manager().latest_id().await.unwrap().unwrap();
                assert_eq!(
                    crate::changelog_input::replay_changelog(&t, last).await,
                    model,
                    "replayed changelog, commit {c}"
                );
            }
        });
    }

    /// A `sum` aggregation with the lookup producer and no deletion vectors: a lookup
    /// compaction merges the older sum into the new record and leaves the older record where it
    /// is, so reads and later compactions must take only a key's newest record above level 0
    /// (Java `LookupMergeFunction`) or they would add it twice.
    #[test]
    fn lookup_changelog_of_a_sum_table_never_counts_twice(
        commits in proptest::collection::vec(
            proptest::collection::vec((0i64..300, 1i64..100, 1i64..50), 1..3),
            1..8,
        ),
        trigger in 2i32..4,
    ) {
        let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let lake = Lake::new();
            let t = lake
                .create(
                    "db.sums",
                    &format!(
                        r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"v","type":"BIGINT"}}],
                        "primaryKeys":["id"],"options":{{"bucket":"1","merge-engine":"aggregation",
                        "fields.v.aggregate-function":"sum","changelog-producer":"lookup",
                        "target-file-size":"8kb","num-sorted-run.compaction-trigger":"{trigger}"}}}}"#
                    ),
                )
                .await;
            let mut model: BTreeMap<i64, i64> = BTreeMap::new();
            for (c, parts) in commits.iter().enumerate() {
                let mut w = t.new_write().unwrap();
                for (lo, len, amount) in parts {
                    let rows: Vec<(i64, i64)> = (*lo..lo + len).map(|i| (i, *amount)).collect();
                    w.write(&sum_batch(&rows)).await.unwrap();
                    for (i, a) in rows {
                        *model.entry(i).or_default() += a;
                    }
                }
                let done = t
                    .new_commit()
                    .unwrap()
                    .commit_messages(w.prepare_commit().await.unwrap(), None)
                    .await
                    .unwrap();
                assert!(done.compact_error.is_none(), "{:?}", done.compact_error);
                assert_eq!(sum_rows(&t).await, model, "read, commit {c}");
                let last = t.snapshot_manager().latest_id().await.unwrap().unwrap();
                assert_eq!(replay_sums(&t, last).await, model, "replayed changelog, commit {c}");
            }
        });
    }
}

/// `changelog-producer = full-compaction`: each commit fully compacts the buckets it writes
/// (`full-compaction.delta-commits`, 1 unless set) and the compaction into the max level
/// writes the changelog of every key it changes, against the key's record at the max level
/// (Java `FullChangelogMergeFunctionWrapper`).
#[tokio::test]
async fn full_compaction_producer_writes_the_changelog_of_each_full_compaction() {
    let lake = Lake::new();
    let t = lake
        .pk_table("db.fc", r#","changelog-producer":"full-compaction""#)
        .await;
    let ids = commit(&t, &[(0..6, "a".into(), RowKind::Insert)]).await;
    assert_eq!(ids.len(), 2, "{ids:?}");
    let expected: Vec<_> = (0..6)
        .map(|i| ("+I".to_string(), i, value(i, "a")))
        .collect();
    assert_eq!(changelog_of(&t, ids[1]).await, expected);
    let ids = commit(
        &t,
        &[
            (0..2, "b".into(), RowKind::Insert),
            (4..5, "x".into(), RowKind::Delete),
            (8..9, "c".into(), RowKind::Insert),
        ],
    )
    .await;
    let expected = vec![
        ("-U".to_string(), 0, value(0, "a")),
        ("+U".to_string(), 0, value(0, "b")),
        ("-U".to_string(), 1, value(1, "a")),
        ("+U".to_string(), 1, value(1, "b")),
        ("-D".to_string(), 4, value(4, "a")),
        ("+I".to_string(), 8, value(8, "c")),
    ];
    assert_eq!(changelog_of(&t, *ids.last().unwrap()).await, expected);

    // Every second commit: the changelog of two commits comes with the second.
    let t2 = lake
        .pk_table(
            "db.fc2",
            r#","changelog-producer":"full-compaction","full-compaction.delta-commits":"2""#,
        )
        .await;
    let mut model = BTreeMap::new();
    for (c, (lo, tag)) in [(0i64, "a"), (3, "b"), (1, "c"), (5, "d"), (2, "e")]
        .iter()
        .enumerate()
    {
        commit(&t2, &[(*lo..lo + 4, tag.to_string(), RowKind::Insert)]).await;
        for i in *lo..lo + 4 {
            model.insert(i, value(i, tag));
        }
        assert_eq!(rows(&t2, None).await, model, "read after commit {c}");
    }
    let last = t2.snapshot_manager().latest_id().await.unwrap().unwrap();
    let replayed = crate::changelog_input::replay_changelog(&t2, last).await;
    // The replayed changelog is the table as of the last full compaction.
    let compacts: Vec<i64> = {
        let mut v = Vec::new();
        for id in 1..=last {
            let s = t2.snapshot_manager().snapshot(id).await.unwrap();
            if s.commit_kind == CommitKind::Compact {
                v.push(id);
            }
        }
        v
    };
    assert!(!compacts.is_empty());
    let at_last_compact = rows(&t2, Some(*compacts.last().unwrap())).await;
    assert_eq!(replayed, at_last_compact);

    let err = lake
        .pk_table(
            "db.fc_dv",
            r#","changelog-producer":"full-compaction","deletion-vectors.enabled":"true""#,
        )
        .await;
    let e = write_error(&err).await;
    assert!(
        e.contains("full-compaction") && e.contains("deletion-vectors"),
        "{e}"
    );
}
