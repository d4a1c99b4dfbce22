//! Lookup compaction (`crate::lsm::compact::lookup`): deletion-vector and first-row tables
//! compact new level-0 files up with lookups into the higher levels instead of fully compacting
//! every bucket a write touches. Checked on real outcomes: several levels stay populated, the
//! deletion-vector index files mark the superseded rows, and the read that applies deletion
//! vectors without merging (level 0 skipped, Java's semantics), the merge-on-read and an
//! in-memory model agree after every commit.

use std::collections::BTreeMap;

use arrow::array::{Array, Int64Array, StringArray};
use strata::spec::kv::RowKind;
use strata::table::Table;

use crate::lifecycle_support::{batch, rows, Lake};

/// Writes the `(ids, tag, kind)` parts as one commit.
async fn commit(t: &Table, parts: &[(std::ops::Range<i64>, String, RowKind)]) {
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
}

fn value(id: i64, tag: &str) -> String {
    let b = batch(id..id + 1, tag);
    let v = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
    v.value(0).to_string()
}

/// The rows of a merge-on-read of `t` (every level merged, deletion vectors applied).
async fn merged_rows(t: &Table) -> BTreeMap<i64, String> {
    let t = t
        .with_dynamic_options([(
            "deletion-vectors.merge-on-read".to_string(),
            "true".to_string(),
        )])
        .unwrap();
    rows(&t, None).await
}

/// Levels of the live files of the latest snapshot.
async fn levels(t: &Table) -> Vec<i32> {
    let plan = t
        .with_dynamic_options([(
            "deletion-vectors.merge-on-read".to_string(),
            "true".to_string(),
        )])
        .unwrap()
        .new_scan()
        .plan()
        .await
        .unwrap();
    let mut out: Vec<i32> = plan
        .splits
        .iter()
        .flat_map(|s| s.files.iter().map(|f| f.level))
        .collect();
    out.sort();
    out
}

async fn deletion_vector_files(t: &Table) -> usize {
    let s = t.snapshot_manager().latest().await.unwrap().unwrap();
    let store = strata::unstable::index::IndexManifestStore::new(t).unwrap();
    store
        .read_snapshot(&s)
        .await
        .unwrap()
        .iter()
        .filter(|e| e.index_file.index_type == "DELETION_VECTORS")
        .map(|e| e.index_file.dv_ranges.as_ref().map_or(0, |r| r.len()))
        .sum()
}

#[tokio::test]
async fn deletion_vector_tables_compact_up_with_lookups_not_full_compactions() {
    let lake = Lake::new();
    let t = lake
        .pk_table(
            "db.dv",
            r#","deletion-vectors.enabled":"true","num-sorted-run.compaction-trigger":"3""#,
        )
        .await;
    let mut model = BTreeMap::new();
    let commits: Vec<Vec<(std::ops::Range<i64>, String, RowKind)>> = vec![
        vec![(0..2000, "a".into(), RowKind::Insert)],
        vec![(100..200, "b".into(), RowKind::UpdateAfter)],
        vec![
            (150..160, "c".into(), RowKind::Delete),
            (3000..3100, "c".into(), RowKind::Insert),
        ],
        vec![(1000..1010, "d".into(), RowKind::UpdateAfter)],
        vec![(190..260, "e".into(), RowKind::UpdateAfter)],
        vec![(0..5, "f".into(), RowKind::Delete)],
    ];
    let mut saw_levels = false;
    for (i, parts) in commits.iter().enumerate() {
        commit(&t, parts).await;
        for (ids, tag, kind) in parts {
            for id in ids.clone() {
                if *kind == RowKind::Delete {
                    model.remove(&id);
                } else {
                    model.insert(id, value(id, tag));
                }
            }
        }
        // The deletion-vector read (level 0 skipped, no merge) and the merge-on-read agree.
        assert_eq!(
            rows(&t, None).await,
            model,
            "deletion-vector read after commit {i}"
        );
        assert_eq!(
            merged_rows(&t).await,
            model,
            "merge-on-read after commit {i}"
        );
        let lv = levels(&t).await;
        assert!(
            !lv.contains(&0),
            "level 0 compacted up after commit {i}: {lv:?}"
        );
        let distinct: std::collections::BTreeSet<i32> = lv.iter().copied().collect();
        saw_levels |= distinct.len() > 1;
    }
    assert!(
        saw_levels,
        "files stayed on more than one level at some point"
    );
    assert!(deletion_vector_files(&t).await > 0 || levels(&t).await.len() == 1);
}

#[tokio::test]
async fn deletion_vectors_mark_superseded_rows_of_upper_levels() {
    let lake = Lake::new();
    let t = lake
        .pk_table("db.dv2", r#","deletion-vectors.enabled":"true""#)
        .await;
    commit(&t, &[(0..1000, "a".into(), RowKind::Insert)]).await;
    // The first commit lands at the max level; an update of 10 keys is compacted to a lower
    // level, and the 10 old rows get a deletion vector.
    commit(&t, &[(10..20, "b".into(), RowKind::UpdateAfter)]).await;
    let lv = levels(&t).await;
    assert!(lv.len() >= 2, "{lv:?}");
    assert_eq!(
        deletion_vector_files(&t).await,
        1,
        "one data file has a vector"
    );
    let s = t.snapshot_manager().latest().await.unwrap().unwrap();
    let store = strata::unstable::index::IndexManifestStore::new(&t).unwrap();
    let entries = store.read_snapshot(&s).await.unwrap();
    let dv: Vec<_> = entries
        .iter()
        .filter(|e| e.index_file.index_type == "DELETION_VECTORS")
        .collect();
    assert_eq!(dv.len(), 1);
    let ranges = dv[0].index_file.dv_ranges.as_ref().unwrap();
    assert_eq!(ranges[0].cardinality, Some(10));
    let got = rows(&t, None).await;
    assert_eq!(got.len(), 1000);
    assert_eq!(got[&15], value(15, "b"));
    assert_eq!(got[&25], value(25, "a"));
}

#[tokio::test]
async fn partial_update_merges_the_looked_up_row() {
    let lake = Lake::new();
    let json = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"a","type":"STRING"},
        {"name":"b","type":"STRING"}],"primaryKeys":["id"],
        "options":{"bucket":"1","deletion-vectors.enabled":"true","merge-engine":"partial-update"}}"#;
    let t = lake.create("db.pu", json).await;
    let write = |ids: Vec<i64>, a: Option<&str>, b: Option<&str>| {
        let t = t.clone();
        let (a, b) = (a.map(str::to_string), b.map(str::to_string));
        async move {
            let n = ids.len();
            let schema = std::sync::Arc::new(arrow::datatypes::Schema::new(vec![
                arrow::datatypes::Field::new("id", arrow::datatypes::DataType::Int64, false),
                arrow::datatypes::Field::new("a", arrow::datatypes::DataType::Utf8, true),
                arrow::datatypes::Field::new("b", arrow::datatypes::DataType::Utf8, true),
            ]));
            let batch = arrow::record_batch::RecordBatch::try_new(
                schema,
                vec![
                    std::sync::Arc::new(Int64Array::from(ids)),
                    std::sync::Arc::new(StringArray::from(vec![a.as_deref(); n])),
                    std::sync::Arc::new(StringArray::from(vec![b.as_deref(); n])),
                ],
            )
            .unwrap();
            t.write_batches([batch], None).await.unwrap();
        }
    };
    write((0..100).collect(), Some("a1"), None).await;
    write((10..20).collect(), None, Some("b1")).await;
    write((15..30).collect(), Some("a2"), None).await;
    let read = |t: Table| async move {
        let splits = t.new_scan().plan().await.unwrap().splits;
        let mut out = BTreeMap::new();
        for b in t.new_read().to_batches(splits).await.unwrap() {
            let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
            let a = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
            let bb = b.column(2).as_any().downcast_ref::<StringArray>().unwrap();
            for i in 0..b.num_rows() {
                let get = |c: &StringArray| (!c.is_null(i)).then(|| c.value(i).to_string());
                out.insert(id.value(i), (get(a), get(bb)));
            }
        }
        out
    };
    let got = read(t.clone()).await;
    assert_eq!(got.len(), 100);
    assert_eq!(got[&5], (Some("a1".into()), None));
    assert_eq!(got[&12], (Some("a1".into()), Some("b1".into())));
    assert_eq!(got[&17], (Some("a2".into()), Some("b1".into())));
    assert_eq!(got[&25], (Some("a2".into()), None));
    let merged = read(
        t.with_dynamic_options([("deletion-vectors.merge-on-read".into(), "true".into())])
            .unwrap(),
    )
    .await;
    assert_eq!(got, merged);
}

#[tokio::test]
async fn first_row_tables_keep_first_rows_by_lookup() {
    let lake = Lake::new();
    let t = lake
        .pk_table("db.first", r#","merge-engine":"first-row""#)
        .await;
    commit(&t, &[(0..500, "a".into(), RowKind::Insert)]).await;
    commit(&t, &[(400..600, "b".into(), RowKind::Insert)]).await;
    commit(&t, &[(550..700, "c".into(), RowKind::Insert)]).await;
    let got = rows(&t, None).await;
    assert_eq!(got.len(), 700);
    assert_eq!(got[&450], value(450, "a"));
    assert_eq!(got[&560], value(560, "b"));
    assert_eq!(got[&650], value(650, "c"));
    let lv = levels(&t).await;
    assert!(!lv.contains(&0), "{lv:?}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 8, ..Default::default() })]

    /// Random upserts and deletes into a deletion-vector table with the input changelog: after
    /// each commit the read that applies deletion vectors without merging, the merge-on-read,
    /// and the changelog replayed from empty all equal the model.
    #[test]
    fn deletion_vector_read_merged_read_and_changelog_agree(
        commits in proptest::collection::vec(
            proptest::collection::vec((0i64..600, 1i64..150, proptest::bool::weighted(0.3)), 1..3),
            1..7,
        ),
        trigger in 2i32..5,
    ) {
        let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let lake = Lake::new();
            let t = lake
                .pk_table(
                    "db.prop",
                    &format!(
                        r#","deletion-vectors.enabled":"true","changelog-producer":"input","target-file-size":"16kb","num-sorted-run.compaction-trigger":"{trigger}""#
                    ),
                )
                .await;
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
                assert_eq!(rows(&t, None).await, model, "deletion-vector read, commit {c}");
                assert_eq!(merged_rows(&t).await, model, "merge-on-read, commit {c}");
                let last = t.snapshot_manager().latest_id().await.unwrap().unwrap();
                assert_eq!(
                    crate::changelog_input::replay_changelog(&t, last).await,
                    model,
                    "replayed changelog, commit {c}"
                );
            }
        });
    }
}

#[tokio::test]
async fn overwrite_of_a_deletion_vector_table_starts_its_vectors_afresh() {
    let lake = Lake::new();
    let t = lake
        .pk_table("db.dvow", r#","deletion-vectors.enabled":"true""#)
        .await;
    commit(&t, &[(0..1000, "a".into(), RowKind::Insert)]).await;
    commit(&t, &[(10..20, "b".into(), RowKind::UpdateAfter)]).await;
    assert_eq!(deletion_vector_files(&t).await, 1);
    t.write_batches(
        [batch(500..600, "o")],
        Some(strata::commit::OverwriteScope::WholeTable),
    )
    .await
    .unwrap();
    let got = rows(&t, None).await;
    assert_eq!(got.len(), 100);
    assert_eq!(got[&550], value(550, "o"));
    assert_eq!(merged_rows(&t).await, got);
    assert_eq!(
        deletion_vector_files(&t).await,
        0,
        "no vector outlives the overwrite"
    );
    // Writing on after the overwrite compacts with lookups again.
    commit(&t, &[(550..560, "p".into(), RowKind::UpdateAfter)]).await;
    let got = rows(&t, None).await;
    assert_eq!(got.len(), 100);
    assert_eq!(got[&555], value(555, "p"));
    assert_eq!(merged_rows(&t).await, got);
}
