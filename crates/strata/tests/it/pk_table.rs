//! End-to-end tests of primary-key tables through the library API: upserts and deletes over
//! many commits, flushes and spills, read back by merge-on-read and compared with a model.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::common::*;
use arrow_array::{Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use proptest::prelude::*;
use strata::table::Table;
use strata_spec::kv::RowKind;

fn batch(ids: &[i64], vs: &[Option<i32>], names: &[Option<&str>]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("v", ArrowType::Int32, true),
        Field::new("name", ArrowType::Utf8, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(Int32Array::from(vs.to_vec())),
            Arc::new(StringArray::from(names.to_vec())),
        ],
    )
    .unwrap()
}

fn schema_json(options: &str) -> String {
    format!(
        r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"v","type":"INT"}},
        {{"name":"name","type":"STRING"}}],"primaryKeys":["id"],"options":{{{options}}}}}"#
    )
}

/// All rows as (id, v, name), sorted by id.
async fn read_all(t: &Table, filter: Option<&str>) -> Vec<(i64, Option<i32>, Option<String>)> {
    let mut scan = t.new_scan();
    let mut read = t.new_read();
    if let Some(f) = filter {
        let p = strata::expr::parse_sql_predicate(f).unwrap();
        scan = scan.with_filter(p.clone());
        read = read.with_filter(p);
    }
    let plan = scan.plan().await.unwrap();
    let mut out = Vec::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let v = b.column(1).as_any().downcast_ref::<Int32Array>().unwrap();
        let n = b.column(2).as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.num_rows() {
            out.push((
                id.value(i),
                (!v.is_null(i)).then(|| v.value(i)),
                (!n.is_null(i)).then(|| n.value(i).to_string()),
            ));
        }
    }
    out.sort();
    out
}

async fn commit_with_kinds(t: &Table, b: &RecordBatch, kinds: &[RowKind]) -> Option<i64> {
    let mut w = t.new_write().unwrap();
    w.write_with_kinds(b, kinds).await.unwrap();
    let msgs = w.prepare_commit().await.unwrap();
    t.new_commit().unwrap().commit(msgs).await.unwrap()
}

#[tokio::test]
async fn upserts_and_deletes_across_commits() {
    let wh = Warehouse::new();
    let t = wh.create("db.pk", &schema_json(r#""bucket":"2""#)).await;
    t.write_batches(
        [batch(
            &[1, 2, 3, 4],
            &[Some(10), Some(20), Some(30), Some(40)],
            &[Some("a"), Some("b"), Some("c"), Some("d")],
        )],
        None,
    )
    .await
    .unwrap();
    // Update 2 and 3 (3 twice in one batch: the later one wins), insert 5.
    t.write_batches(
        [batch(
            &[3, 2, 5, 3],
            &[Some(31), Some(21), Some(50), Some(32)],
            &[None, Some("bb"), Some("e"), Some("cc")],
        )],
        None,
    )
    .await
    .unwrap();
    // Delete 1 and 5.
    let t = wh
        .catalog
        .get_table(&"db.pk".parse().unwrap())
        .await
        .unwrap();
    commit_with_kinds(
        &t,
        &batch(&[1, 5], &[None, None], &[None, None]),
        &[RowKind::Delete, RowKind::Delete],
    )
    .await
    .unwrap();
    let rows = read_all(&t, None).await;
    assert_eq!(
        rows,
        vec![
            (2, Some(21), Some("bb".into())),
            (3, Some(32), Some("cc".into())),
            (4, Some(40), Some("d".into())),
        ]
    );
    // A value filter runs after the merge: the old version of 3 (v = 30) must not come back.
    assert_eq!(read_all(&t, Some("v = 30")).await, vec![]);
    assert_eq!(
        read_all(&t, Some("id >= 3")).await,
        vec![
            (3, Some(32), Some("cc".into())),
            (4, Some(40), Some("d".into()))
        ]
    );

    // File metadata: level 0, key range, sequence numbers, delete counts.
    let plan = t.new_scan().plan().await.unwrap();
    let files: Vec<_> = plan.splits.iter().flat_map(|s| s.files.clone()).collect();
    assert!(files.iter().all(|f| f.level == 0));
    let deletes: i64 = files.iter().map(|f| f.delete_row_count.unwrap()).sum();
    assert_eq!(deletes, 2);
    let max_seq = files.iter().map(|f| f.max_sequence_number).max().unwrap();
    // 4 + 4 + 2 records over two buckets: sequence numbers are per bucket, so the largest is
    // below the total but at least half of it.
    assert!((4..10).contains(&max_seq), "max seq {max_seq}");
}

#[tokio::test]
async fn row_kind_field_and_ignore_delete() {
    let wh = Warehouse::new();
    let json = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"INT"},
        {"name":"op","type":"STRING"}],"primaryKeys":["id"],
        "options":{"bucket":"1","rowkind.field":"op"}}"#;
    let t = wh.create("db.rk", json).await;
    let b = |ids: &[i64], ops: &[&str]| {
        let schema = Arc::new(ArrowSchema::new(vec![
            Field::new("id", ArrowType::Int64, false),
            Field::new("v", ArrowType::Int32, true),
            Field::new("op", ArrowType::Utf8, true),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(ids.to_vec())),
                Arc::new(Int32Array::from(
                    ids.iter().map(|i| *i as i32).collect::<Vec<_>>(),
                )),
                Arc::new(StringArray::from(ops.to_vec())),
            ],
        )
        .unwrap()
    };
    t.write_batches([b(&[1, 2, 3], &["+I", "+I", "+I"])], None)
        .await
        .unwrap();
    t.write_batches([b(&[2, 3], &["-D", "+U"])], None)
        .await
        .unwrap();
    assert_eq!(read_ids(&t, None, None).await, vec![1, 3]);
    let bad = t.write_batches([b(&[9], &["?X"])], None).await.unwrap_err();
    assert!(bad.to_string().contains("op"), "{bad}");
}

#[tokio::test]
async fn small_buffer_spills_and_flushes_keep_every_row() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.spill",
            &schema_json(r#""bucket":"1","write-buffer-size":"64kb","target-file-size":"32kb""#),
        )
        .await;
    let mut w = t.new_write().unwrap();
    let mut model = BTreeMap::new();
    for round in 0..20i64 {
        let ids: Vec<i64> = (0..2000).map(|i| (i * 7 + round * 13) % 15000).collect();
        let vs: Vec<Option<i32>> = ids.iter().map(|i| Some((*i + round) as i32)).collect();
        for (i, v) in ids.iter().zip(&vs) {
            model.insert(*i, *v);
        }
        let names: Vec<Option<&str>> = vec![Some("x"); ids.len()];
        w.write(&batch(&ids, &vs, &names)).await.unwrap();
    }
    let msgs = w.prepare_commit().await.unwrap();
    let files: usize = msgs.iter().map(|m| m.new_files.len()).sum();
    assert!(
        files > 1,
        "a 32kb target must roll into several files, got {files}"
    );
    t.new_commit().unwrap().commit(msgs).await.unwrap();
    let rows = read_all(&t, None).await;
    let got: BTreeMap<i64, Option<i32>> = rows.into_iter().map(|(i, v, _)| (i, v)).collect();
    assert_eq!(got, model);
}

#[derive(Clone, Debug)]
enum Op {
    Upsert(i64, i32),
    Delete(i64),
}

fn ops() -> impl Strategy<Value = Vec<Vec<Op>>> {
    let op = prop_oneof![
        3 => (0i64..40, any::<i32>()).prop_map(|(k, v)| Op::Upsert(k, v)),
        1 => (0i64..40).prop_map(Op::Delete),
    ];
    prop::collection::vec(prop::collection::vec(op, 1..60), 1..5)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]
    /// Random upserts/deletes over several commits with a tiny buffer (forced spills) read back
    /// equal to a map model (deduplicate engine).
    #[test]
    fn dedup_matches_model(commits in ops(), buckets in 1i32..3) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async move {
            let wh = Warehouse::new();
            let t = wh
                .create(
                    "db.p",
                    &schema_json(&format!(r#""bucket":"{buckets}","write-buffer-size":"1kb""#)),
                )
                .await;
            let mut model: BTreeMap<i64, i32> = BTreeMap::new();
            for commit in commits {
                let mut w = t.new_write().unwrap();
                for chunk in commit.chunks(7) {
                    let mut ids = Vec::new();
                    let mut vs = Vec::new();
                    let mut kinds = Vec::new();
                    for op in chunk {
                        match op {
                            Op::Upsert(k, v) => {
                                ids.push(*k);
                                vs.push(Some(*v));
                                kinds.push(RowKind::Insert);
                                model.insert(*k, *v);
                            }
                            Op::Delete(k) => {
                                ids.push(*k);
                                vs.push(None);
                                kinds.push(RowKind::Delete);
                                model.remove(k);
                            }
                        }
                    }
                    let names = vec![None; ids.len()];
                    w.write_with_kinds(&batch(&ids, &vs, &names), &kinds).await.unwrap();
                }
                let msgs = w.prepare_commit().await.unwrap();
                t.new_commit().unwrap().commit(msgs).await.unwrap();
            }
            let got: BTreeMap<i64, i32> = read_all(&t, None)
                .await
                .into_iter()
                .map(|(k, v, _)| (k, v.unwrap()))
                .collect();
            assert_eq!(got, model);
        });
    }
}

#[tokio::test]
async fn dynamic_bucket_upserts_and_overwrite() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.dyn",
            &schema_json(r#""bucket":"-1","dynamic-bucket.target-row-num":"10""#),
        )
        .await;
    let ids: Vec<i64> = (0..35).collect();
    let vs: Vec<Option<i32>> = ids.iter().map(|i| Some(*i as i32)).collect();
    let names = vec![None; ids.len()];
    t.write_batches([batch(&ids, &vs, &names)], None)
        .await
        .unwrap();
    let plan = t.new_scan().plan().await.unwrap();
    assert_eq!(
        plan.splits.len(),
        4,
        "35 keys at 10 per bucket fill 4 buckets"
    );
    // Updates go to the bucket already holding the key: still 4 buckets, one version each.
    let upd: Vec<i64> = (0..35).step_by(5).collect();
    let uvs: Vec<Option<i32>> = upd.iter().map(|i| Some(-(*i as i32))).collect();
    t.write_batches([batch(&upd, &uvs, &vec![None; upd.len()])], None)
        .await
        .unwrap();
    let rows = read_all(&t, None).await;
    assert_eq!(rows.len(), 35);
    assert_eq!(rows[5].1, Some(-5));
    assert_eq!(t.new_scan().plan().await.unwrap().splits.len(), 4);
    // An overwrite replaces everything, index included.
    t.write_batches(
        [batch(&[100, 101], &[Some(1), Some(2)], &[None, None])],
        Some(strata::commit::OverwriteScope::WholeTable),
    )
    .await
    .unwrap();
    let rows = read_all(&t, None).await;
    assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), vec![100, 101]);
}

/// One commit of (key, value, is_delete) operations for the engine property tests.
type Commit = Vec<(i64, Option<i32>, bool)>;

/// Java's `PartialUpdateMergeFunction` with `remove-record-on-delete` over one key's records
/// (oldest first) as (is_delete, v); a lone record passes through.
fn partial_update_reduce(recs: &[(bool, Option<i32>)]) -> (bool, Option<i32>) {
    if recs.len() == 1 {
        return recs[0];
    }
    let (mut v, mut delete_row, mut meet_insert) = (None, false, false);
    for (del, x) in recs {
        delete_row = false;
        if *del {
            // The row is reset to the delete record's values.
            delete_row = true;
            v = *x;
        } else {
            if x.is_some() {
                v = *x;
            }
            meet_insert = true;
        }
    }
    (delete_row || !meet_insert, v)
}

fn engine_ops() -> impl Strategy<Value = Vec<Commit>> {
    let op = (
        0i64..30,
        prop::option::weighted(0.8, -1000i32..1000),
        prop::bool::weighted(0.15),
    );
    prop::collection::vec(prop::collection::vec(op, 1..50), 1..5)
}

/// Writes `commits` (a tiny buffer forces spills) and returns the (id, v) rows read back.
async fn run_engine(options: &str, commits: &[Commit]) -> Vec<(i64, Option<i32>)> {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.e",
            &schema_json(&format!(
                r#""bucket":"2","write-buffer-size":"1kb",{options}"#
            )),
        )
        .await;
    for commit in commits {
        let mut w = t.new_write().unwrap();
        for chunk in commit.chunks(9) {
            let ids: Vec<i64> = chunk.iter().map(|o| o.0).collect();
            let vs: Vec<Option<i32>> = chunk.iter().map(|o| o.1).collect();
            let kinds: Vec<RowKind> = chunk
                .iter()
                .map(|o| {
                    if o.2 {
                        RowKind::Delete
                    } else {
                        RowKind::Insert
                    }
                })
                .collect();
            let names = vec![None; ids.len()];
            w.write_with_kinds(&batch(&ids, &vs, &names), &kinds)
                .await
                .unwrap();
        }
        let msgs = w.prepare_commit().await.unwrap();
        t.new_commit().unwrap().commit(msgs).await.unwrap();
    }
    read_all(&t, None)
        .await
        .into_iter()
        .map(|(k, v, _)| (k, v))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, .. ProptestConfig::default() })]

    /// partial-update with `partial-update.remove-record-on-delete`: non-null values overwrite,
    /// NULLs keep the old value, -D removes the row.
    #[test]
    fn partial_update_matches_model(commits in engine_ops()) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let got = rt.block_on(run_engine(
            r#""merge-engine":"partial-update","partial-update.remove-record-on-delete":"true""#,
            &commits,
        ));
        // Paimon merges a key's records of one commit when it flushes, and the flushed records
        // of all commits when it reads: the model does the same two-level reduction.
        let mut per_key: BTreeMap<i64, Vec<(bool, Option<i32>)>> = BTreeMap::new();
        for commit in &commits {
            let mut in_commit: BTreeMap<i64, Vec<(bool, Option<i32>)>> = BTreeMap::new();
            for (k, v, del) in commit {
                in_commit.entry(*k).or_default().push((*del, *v));
            }
            for (k, recs) in in_commit {
                per_key.entry(k).or_default().push(partial_update_reduce(&recs));
            }
        }
        let model: BTreeMap<i64, Option<i32>> = per_key
            .into_iter()
            .filter_map(|(k, recs)| {
                let (del, v) = partial_update_reduce(&recs);
                (!del).then_some((k, v))
            })
            .collect();
        prop_assert_eq!(got, model.into_iter().collect::<Vec<_>>());
    }

    /// aggregation with `sum` on v: NULLs are skipped, -D retracts (subtracts) its value; a key
    /// is present once any record for it was written (aggregation never deletes without
    /// `aggregation.remove-record-on-delete`), except that a lone -D is dropped at read.
    #[test]
    fn aggregation_sum_matches_model(commits in engine_ops()) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let got = rt.block_on(run_engine(
            r#""merge-engine":"aggregation","fields.v.aggregate-function":"sum""#,
            &commits,
        ));
        // key -> (sum, number of records)
        let mut model: BTreeMap<i64, (Option<i64>, usize, bool)> = BTreeMap::new();
        for (k, v, del) in commits.iter().flatten() {
            let e = model.entry(*k).or_insert((None, 0, false));
            if let Some(v) = v {
                let v = *v as i64;
                e.0 = Some(e.0.unwrap_or(0) + if *del { -v } else { v });
            } else if *del && e.0.is_none() {
                // retracting NULL from NULL stays NULL
            }
            e.1 += 1;
            e.2 = *del;
        }
        let want: Vec<(i64, Option<i32>)> = model
            .into_iter()
            // A key whose only record is a -D passes through unmerged and is dropped as a delete.
            .filter(|(_, (_, n, last_del))| !(*n == 1 && *last_del))
            .map(|(k, (s, _, _))| (k, s.map(|s| s as i32)))
            .collect();
        prop_assert_eq!(got, want);
    }
}

#[tokio::test]
async fn first_row_keeps_the_first_record_and_reads_empty_before_compaction() {
    let wh = Warehouse::new();
    // write-only: level 0 stays uncompacted, as when a separate job owns compaction.
    let t = wh
        .create(
            "db.fr",
            &schema_json(r#""bucket":"1","merge-engine":"first-row","write-only":"true""#),
        )
        .await;
    let mut w = t.new_write().unwrap();
    w.write(&batch(
        &[1, 2, 1],
        &[Some(10), Some(20), Some(11)],
        &[None, None, None],
    ))
    .await
    .unwrap();
    let msgs = w.prepare_commit().await.unwrap();
    let file = msgs[0].new_files[0].clone();
    assert_eq!(file.row_count, 2, "the flush keeps one record per key");
    t.new_commit().unwrap().commit(msgs).await.unwrap();
    // Level-0 files are skipped by batch scans of first-row tables (Java semantics).
    let plan = t.new_scan().plan().await.unwrap();
    assert!(plan.splits.is_empty());
    assert_eq!(plan.metrics.files_skipped_by_level, 1);
    // The record kept for key 1 is the first one (v = 10): read the file itself.
    let dir = wh
        .table_dir("db", "fr")
        .join("bucket-0")
        .join(&file.file_name);
    let f = std::fs::File::open(dir).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReader::try_new(f, 1024).unwrap();
    let b = reader.into_iter().next().unwrap().unwrap();
    let v = b
        .column_by_name("v")
        .unwrap()
        .as_any()
        .downcast_ref::<Int32Array>()
        .unwrap();
    assert_eq!(v.values().to_vec(), vec![10, 20]);

    // Without write-only every commit compacts first-row buckets to one level, so the rows
    // are visible right away; the lone file is upgraded (same name), not rewritten.
    let t = wh
        .create(
            "db.fr2",
            &schema_json(r#""bucket":"1","merge-engine":"first-row""#),
        )
        .await;
    let mut w = t.new_write().unwrap();
    w.write(&batch(
        &[1, 2, 1],
        &[Some(10), Some(20), Some(11)],
        &[None, None, None],
    ))
    .await
    .unwrap();
    let msgs = w.prepare_commit().await.unwrap();
    let name = msgs[0].new_files[0].file_name.clone();
    assert_eq!(msgs[0].compact_after.len(), 1);
    assert_eq!(msgs[0].compact_after[0].file_name, name);
    assert_eq!(msgs[0].compact_after[0].level, 5);
    t.new_commit().unwrap().commit(msgs).await.unwrap();
    let got = read_all(&t, None).await;
    assert_eq!(got, vec![(1, Some(10), None), (2, Some(20), None)]);
    // A later write's first rows lose to the existing ones.
    t.write_batches([batch(&[1, 3], &[Some(12), Some(30)], &[None, None])], None)
        .await
        .unwrap();
    let got = read_all(&t, None).await;
    assert_eq!(
        got,
        vec![
            (1, Some(10), None),
            (2, Some(20), None),
            (3, Some(30), None)
        ]
    );
    let plan = t.new_scan().plan().await.unwrap();
    assert_eq!(
        plan.metrics.files_skipped_by_level, 0,
        "no live level-0 file"
    );
}
