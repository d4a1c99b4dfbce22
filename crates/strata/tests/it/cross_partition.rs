//! Cross-partition upsert (`bucket = -1`, a primary key without every partition key: Java's
//! `KEY_DYNAMIC` bucket mode, `GlobalIndexAssigner`): a key that arrives in another partition
//! leaves its old one (deduplicate), updates the old row (partial-update, aggregation) or is
//! dropped (first-row); new keys fill the buckets of their partition up to
//! `dynamic-bucket.target-row-num`; a fresh writer bootstraps the index from the table;
//! INSERT OVERWRITE routes through the same index, as Java's.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::common::*;
use arrow_array::{Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::table::Table;
use strata::write::CompactRequest;

/// Primary key `id`, partition key `dt`, `bucket = -1`; ENGINE and OPTS spliced in.
fn schema(engine: &str, extra: &str) -> String {
    format!(
        r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"dt","type":"STRING NOT NULL"}},
 {{"name":"v","type":"INT"}}],"partitionKeys":["dt"],"primaryKeys":["id"],
 "options":{{"bucket":"-1","merge-engine":"{engine}"{extra}}}}}"#
    )
}

fn rows(rows: &[(i64, &str, Option<i32>)]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("dt", ArrowType::Utf8, false),
        Field::new("v", ArrowType::Int32, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.0))),
            Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.1))),
            Arc::new(Int32Array::from(
                rows.iter().map(|r| r.2).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap()
}

/// id → (dt, v) as a batch read returns them.
async fn table_rows(t: &Table) -> BTreeMap<i64, (String, Option<i32>)> {
    let plan = t.new_scan().plan().await.unwrap();
    let mut out = BTreeMap::new();
    for b in t.new_read().to_batches(plan.splits).await.unwrap() {
        let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let dt = arrow_cast::cast(b.column(1), &ArrowType::Utf8).unwrap();
        let dt = dt.as_any().downcast_ref::<StringArray>().unwrap();
        let v = b.column(2).as_any().downcast_ref::<Int32Array>().unwrap();
        for i in 0..b.num_rows() {
            let v = (!v.is_null(i)).then(|| v.value(i));
            assert!(
                out.insert(id.value(i), (dt.value(i).to_string(), v))
                    .is_none(),
                "key {} read twice",
                id.value(i)
            );
        }
    }
    out
}

fn model(rows: &[(i64, &str, Option<i32>)]) -> BTreeMap<i64, (String, Option<i32>)> {
    rows.iter()
        .map(|(id, dt, v)| (*id, (dt.to_string(), *v)))
        .collect()
}

/// (partition dt, bucket) → record count of the live files.
async fn buckets(t: &Table) -> BTreeMap<(String, i32), i64> {
    let plan = t.new_scan().plan().await.unwrap();
    let mut out = BTreeMap::new();
    for s in plan.splits {
        let dt = match s
            .partition
            .to_datums(&[strata_spec::DataType::string()])
            .unwrap()[0]
        {
            Some(strata_spec::Datum::String(ref s)) => s.to_string(),
            ref other => panic!("{other:?}"),
        };
        *out.entry((dt, s.bucket)).or_insert(0) += s.files.iter().map(|f| f.row_count).sum::<i64>();
    }
    out
}

/// Deduplicate (`DeleteExistingProcessor`): the key moves, its old partition gets a DELETE,
/// within one batch, across writes (a fresh writer bootstraps from the table), and after a full
/// compaction; the old partition's retraction is a real delete record.
#[tokio::test]
async fn deduplicate_moves_a_key_to_its_new_partition() {
    let wh = Warehouse::new();
    let t = wh.create("db.x", &schema("deduplicate", "")).await;
    t.write_batches(
        [rows(&[
            (1, "a", Some(1)),
            (2, "a", Some(2)),
            (3, "b", Some(3)),
        ])],
        None,
    )
    .await
    .unwrap();
    // Moved by a second write: 1 to b; and within one batch 3 to a and back to b.
    t.write_batches(
        [rows(&[
            (1, "b", Some(10)),
            (3, "a", Some(30)),
            (3, "b", Some(31)),
        ])],
        None,
    )
    .await
    .unwrap();
    let want = model(&[(1, "b", Some(10)), (2, "a", Some(2)), (3, "b", Some(31))]);
    assert_eq!(table_rows(&t).await, want);
    // Partition a holds the retraction of key 1 (and the insert and retraction of 3).
    let before = buckets(&t).await;
    assert!(before[&("a".to_string(), 0)] >= 3, "{before:?}");
    // A full compaction drops the deletes; the rows stay.
    t.compact(
        &CompactRequest {
            full: true,
            ..Default::default()
        },
        &|_, _| {},
    )
    .await
    .unwrap();
    assert_eq!(table_rows(&t).await, want);
    let after = buckets(&t).await;
    assert_eq!(after[&("a".to_string(), 0)], 1, "{after:?}");
    // Deletes travel too: -D of 2 in partition b removes it from a (Java processes row kinds
    // alike: the retraction goes to a, the delete itself to b).
    let mut w = t.new_write().unwrap();
    w.write_with_kinds(
        &rows(&[(2, "b", Some(2))]),
        &[strata_spec::kv::RowKind::Delete],
    )
    .await
    .unwrap();
    let msgs = w.prepare_commit().await.unwrap();
    t.new_commit().unwrap().commit(msgs).await.unwrap();
    assert_eq!(
        table_rows(&t).await,
        model(&[(1, "b", Some(10)), (3, "b", Some(31))])
    );
}

/// Partial-update (`UseOldExistingProcessor`): a key arriving in another partition updates
/// the row where it lives; first-row (`SkipNewExistingProcessor`): it is dropped.
#[tokio::test]
async fn partial_update_and_first_row_keep_the_old_partition() {
    let wh = Warehouse::new();
    let t = wh.create("db.p", &schema("partial-update", "")).await;
    t.write_batches([rows(&[(1, "a", Some(1)), (2, "a", None)])], None)
        .await
        .unwrap();
    t.write_batches(
        [rows(&[
            (1, "b", None),
            (2, "b", Some(20)),
            (3, "b", Some(3)),
        ])],
        None,
    )
    .await
    .unwrap();
    assert_eq!(
        table_rows(&t).await,
        model(&[(1, "a", Some(1)), (2, "a", Some(20)), (3, "b", Some(3))])
    );

    let f = wh.create("db.f", &schema("first-row", "")).await;
    f.write_batches([rows(&[(1, "a", Some(1))])], None)
        .await
        .unwrap();
    f.write_batches([rows(&[(1, "b", Some(10)), (2, "b", Some(2))])], None)
        .await
        .unwrap();
    // First-row tables read level 0 only after compaction, as in Java.
    f.compact(
        &CompactRequest {
            full: true,
            ..Default::default()
        },
        &|_, _| {},
    )
    .await
    .unwrap();
    assert_eq!(
        table_rows(&f).await,
        model(&[(1, "a", Some(1)), (2, "b", Some(2))])
    );
}

/// New keys fill a partition's buckets in order up to `dynamic-bucket.target-row-num` (Java's
/// `BucketAssigner`), counted from the bootstrapped keys; a moved key frees its place.
#[tokio::test]
async fn buckets_fill_up_to_the_target_row_count() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.b",
            &schema("deduplicate", r#","dynamic-bucket.target-row-num":"2""#),
        )
        .await;
    t.write_batches(
        [rows(&[(1, "a", None), (2, "a", None), (3, "a", None)])],
        None,
    )
    .await
    .unwrap();
    let got = buckets(&t).await;
    assert_eq!(
        got,
        BTreeMap::from([(("a".into(), 0), 2), (("a".into(), 1), 1)])
    );
    // A fresh writer counts bucket 1 as holding one key: key 4 joins it, key 5 opens bucket 2.
    t.write_batches([rows(&[(4, "a", None), (5, "a", None)])], None)
        .await
        .unwrap();
    let got = buckets(&t).await;
    assert_eq!(got[&("a".to_string(), 1)], 2, "{got:?}");
    assert_eq!(got[&("a".to_string(), 2)], 1, "{got:?}");
    // INSERT OVERWRITE counts the bootstrapped keys as Java's assigner does (they are
    // replaced only at commit): the new key takes bucket 2, the one with room.
    t.write_batches(
        [rows(&[(9, "a", None)])],
        Some(strata::commit::OverwriteScope::Dynamic),
    )
    .await
    .unwrap();
    assert_eq!(buckets(&t).await, BTreeMap::from([(("a".into(), 2), 1)]));
}

/// Two writers bootstrapped from the same snapshot: the first commit lands, the second is
/// refused as a conflict (it could leave a key in two partitions), and nothing of it is
/// committed; a commit of the same writer after its own earlier commits lands.
#[tokio::test]
async fn a_concurrent_writer_is_refused_at_commit() {
    let wh = Warehouse::new();
    let t = wh.create("db.c", &schema("deduplicate", "")).await;
    t.write_batches([rows(&[(1, "a", Some(1))])], None)
        .await
        .unwrap();
    let mut w1 = t.new_write().unwrap();
    let mut w2 = t.new_write().unwrap();
    w1.write(&rows(&[(1, "b", Some(2))])).await.unwrap();
    w2.write(&rows(&[(1, "c", Some(3))])).await.unwrap();
    let m1 = w1.prepare_commit().await.unwrap();
    let m2 = w2.prepare_commit().await.unwrap();
    let c1 = t.new_commit().unwrap();
    c1.commit(m1).await.unwrap();
    let err = t.new_commit().unwrap().commit(m2).await.unwrap_err();
    assert_eq!(err.kind(), strata::ErrorKind::Conflict, "{err}");
    assert!(err.to_string().contains("KEY_DYNAMIC"), "{err}");
    assert_eq!(table_rows(&t).await, model(&[(1, "b", Some(2))]));
    // The first writer goes on: its index knows its own commit.
    w1.write(&rows(&[(1, "c", Some(4))])).await.unwrap();
    c1.commit(w1.prepare_commit().await.unwrap()).await.unwrap();
    assert_eq!(table_rows(&t).await, model(&[(1, "c", Some(4))]));
}

/// Deletion-vector tables: the bootstrap reads every level (level 0 too, which their batch
/// scans skip) with the deletion vectors applied, so a key moved twice by fresh writers lives
/// in exactly one partition after each write and each full compaction.
#[tokio::test]
async fn deletion_vector_tables_bootstrap_every_level() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.dv",
            &schema("deduplicate", r#","deletion-vectors.enabled":"true""#),
        )
        .await;
    let full = || CompactRequest {
        full: true,
        ..Default::default()
    };
    t.write_batches([rows(&[(1, "a", Some(1)), (2, "a", Some(2))])], None)
        .await
        .unwrap();
    t.compact(&full(), &|_, _| {}).await.unwrap();
    t.write_batches([rows(&[(1, "b", Some(10))])], None)
        .await
        .unwrap();
    t.write_batches([rows(&[(1, "c", Some(20)), (2, "b", Some(21))])], None)
        .await
        .unwrap();
    t.compact(&full(), &|_, _| {}).await.unwrap();
    assert_eq!(
        table_rows(&t).await,
        model(&[(1, "c", Some(20)), (2, "b", Some(21))])
    );
    t.write_batches([rows(&[(1, "a", Some(30))])], None)
        .await
        .unwrap();
    t.compact(&full(), &|_, _| {}).await.unwrap();
    assert_eq!(
        table_rows(&t).await,
        model(&[(1, "a", Some(30)), (2, "b", Some(21))])
    );
}

/// `cross-partition-upsert.index-ttl`: buckets none of whose files were created within the TTL
/// are left out of the bootstrap (Java's `IndexBootstrap.filterSplit`), so their keys are not
/// known and a row of such a key in another partition is a new key there, as in Java.
#[tokio::test]
async fn index_ttl_leaves_old_buckets_out_of_the_bootstrap() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.ttl",
            &schema(
                "deduplicate",
                r#","cross-partition-upsert.index-ttl":"1 h""#,
            ),
        )
        .await;
    t.write_batches([rows(&[(1, "a", Some(1))])], None)
        .await
        .unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    // Within the TTL the key moves.
    let soon = t
        .clone()
        .with_clock(Arc::new(strata::clock::ManualClock::new(now + 60_000)));
    soon.write_batches([rows(&[(1, "b", Some(2))])], None)
        .await
        .unwrap();
    assert_eq!(table_rows(&t).await, model(&[(1, "b", Some(2))]));
    // Three hours later the buckets are out of the index: key 1 is new in partition c.
    let later = t
        .clone()
        .with_clock(Arc::new(strata::clock::ManualClock::new(
            now + 3 * 3_600_000,
        )));
    later
        .write_batches([rows(&[(1, "c", Some(3))])], None)
        .await
        .unwrap();
    let plan = t.new_scan().plan().await.unwrap();
    let n: usize = t
        .new_read()
        .to_batches(plan.splits)
        .await
        .unwrap()
        .iter()
        .map(|b| b.num_rows())
        .sum();
    assert_eq!(n, 2, "key 1 in b and in c, as Java's TTL allows");
}

/// `ignore-delete = true`: the retraction of a moved key is a delete the table ignores, so the
/// key stays in both partitions, as in Java (whose `RowKindFilter` drops the assigner's DELETE).
#[tokio::test]
async fn ignore_delete_leaves_a_moved_key_in_both_partitions_as_java() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.id",
            &schema("deduplicate", r#","ignore-delete":"true""#),
        )
        .await;
    t.write_batches([rows(&[(1, "a", Some(1))])], None)
        .await
        .unwrap();
    t.write_batches([rows(&[(1, "b", Some(2))])], None)
        .await
        .unwrap();
    let got = buckets(&t).await;
    assert_eq!(
        got,
        BTreeMap::from([(("a".into(), 0), 1), (("b".into(), 0), 1)]),
        "one record of key 1 in each partition"
    );
    let plan = t.new_scan().plan().await.unwrap();
    let n: usize = t
        .new_read()
        .to_batches(plan.splits)
        .await
        .unwrap()
        .iter()
        .map(|b| b.num_rows())
        .sum();
    assert_eq!(n, 2);
}

/// INSERT OVERWRITE routes rows through the key index bootstrapped from the table, as Java's
/// `GlobalDynamicBucketSink` does whatever the overwrite: a key living in another partition is
/// retracted there, so a dynamic overwrite replaces that partition too (with only the
/// retraction: its other rows go, as in Java); a static overwrite refuses a retraction outside
/// its partition (Java's "does not belong to this partition"); a whole-table overwrite keeps
/// only the new rows.
#[tokio::test]
async fn overwrite_routes_keys_through_the_index_as_java() {
    use strata::commit::OverwriteScope;
    let wh = Warehouse::new();
    let t = wh.create("db.ow", &schema("deduplicate", "")).await;
    let first = [
        (1, "a", Some(1)),
        (2, "a", Some(2)),
        (3, "b", Some(3)),
        (4, "c", Some(4)),
    ];
    t.write_batches([rows(&first)], None).await.unwrap();
    // Dynamic: 1 moves a → b; a (its retraction) and b (the new rows) are replaced.
    t.write_batches(
        [rows(&[(1, "b", Some(10)), (5, "b", Some(50))])],
        Some(OverwriteScope::Dynamic),
    )
    .await
    .unwrap();
    assert_eq!(
        table_rows(&t).await,
        model(&[(1, "b", Some(10)), (4, "c", Some(4)), (5, "b", Some(50))])
    );
    let latest = t.snapshot_manager().latest().await.unwrap().unwrap();
    assert_eq!(
        latest.commit_kind,
        strata_spec::snapshot::CommitKind::Overwrite
    );
    // A key of the overwritten partition stays in its bucket; the index sees the new rows.
    t.write_batches([rows(&[(5, "c", Some(51))])], None)
        .await
        .unwrap();
    assert_eq!(
        table_rows(&t).await,
        model(&[(1, "b", Some(10)), (4, "c", Some(4)), (5, "c", Some(51))])
    );
    // Static dt = b: key 4 lives in c, its retraction falls outside the partition.
    let spec = || {
        OverwriteScope::Static(vec![(
            "dt".to_string(),
            Some(strata_spec::Datum::String("b".into())),
        )])
    };
    let e = t
        .write_batches([rows(&[(4, "b", Some(40))])], Some(spec()))
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("outside the overwritten partition"), "{e}");
    t.write_batches(
        [rows(&[(1, "b", Some(11)), (6, "b", Some(60))])],
        Some(spec()),
    )
    .await
    .unwrap();
    assert_eq!(
        table_rows(&t).await,
        model(&[
            (1, "b", Some(11)),
            (4, "c", Some(4)),
            (5, "c", Some(51)),
            (6, "b", Some(60))
        ])
    );
    // The whole table: only the new rows stay (4's retraction in c is replaced too).
    t.write_batches(
        [rows(&[(4, "a", Some(44))])],
        Some(OverwriteScope::WholeTable),
    )
    .await
    .unwrap();
    assert_eq!(table_rows(&t).await, model(&[(4, "a", Some(44))]));
    // A later writer bootstraps from the overwritten table: 4 moves on from a.
    t.write_batches([rows(&[(4, "b", Some(45))])], None)
        .await
        .unwrap();
    assert_eq!(table_rows(&t).await, model(&[(4, "b", Some(45))]));
}
