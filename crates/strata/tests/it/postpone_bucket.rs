//! Postpone-bucket tables (`bucket = -2`): writes land in `bucket-postpone` as Java's
//! `PostponeBucketWriter` writes them (arrival order, sequence number -1, no statistics,
//! `totalBuckets = -2`); batch reads see the real buckets only; the compaction moves the
//! postponed records into real buckets (`postpone.default-bucket-num` for a new partition,
//! the partition's own count for a known one) in one COMPACT commit.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::table::Table;
use strata::write::CompactRequest;
use strata_spec::kv::RowKind;

use crate::lifecycle_support::Lake;

fn rows(ids: &[i64], dt: &str, tag: &str) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("dt", ArrowType::Utf8, false),
        Field::new("v", ArrowType::Utf8, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(vec![dt; ids.len()])),
            Arc::new(StringArray::from(
                ids.iter().map(|i| format!("{tag}-{i}")).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap()
}

async fn create(lake: &Lake, extra: &str) -> Table {
    lake.create(
        "db.p",
        &format!(
            r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"dt","type":"STRING NOT NULL"}},
            {{"name":"v","type":"STRING"}}],"partitionKeys":["dt"],"primaryKeys":["id","dt"],
            "options":{{"bucket":"-2"{extra}}}}}"#
        ),
    )
    .await
}

async fn read(t: &Table) -> BTreeMap<(String, i64), String> {
    let plan = t.new_scan().plan().await.unwrap();
    let mut out = BTreeMap::new();
    for b in t.new_read().to_batches(plan.splits).await.unwrap() {
        let ids = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let dts = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
        let vs = b.column(2).as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.num_rows() {
            out.insert(
                (dts.value(i).to_string(), ids.value(i)),
                vs.value(i).to_string(),
            );
        }
    }
    out
}

#[tokio::test]
async fn postpone_writes_then_compaction_moves_rows_to_real_buckets() {
    let lake = Lake::new();
    let t = create(&lake, r#","postpone.default-bucket-num":"3""#).await;
    // Unsorted keys, a key twice, a delete of a key that is not there yet.
    let mut w = t.new_write().unwrap();
    w.write(&rows(&[5, 1, 5, 9], "a", "one")).await.unwrap();
    w.write_with_kinds(&rows(&[7], "b", "gone"), &[RowKind::Delete])
        .await
        .unwrap();
    let messages = w.prepare_commit().await.unwrap();
    assert!(messages
        .iter()
        .all(|m| m.bucket == -2 && m.total_buckets == -2));
    t.new_commit().unwrap().commit(messages).await.unwrap();

    let live = strata::system::live_files(&t, None).await.unwrap();
    assert_eq!(live.files.len(), 2);
    for f in &live.files {
        assert_eq!((f.bucket, f.total_buckets, f.file.level), (-2, -2, 0));
        assert_eq!(
            (f.file.min_sequence_number, f.file.max_sequence_number),
            (-1, -1)
        );
        assert!(
            f.file.file_name.starts_with("data--u-"),
            "{}",
            f.file.file_name
        );
        assert!(f.file.file_name.contains("-s-") && f.file.file_name.contains("-w-"));
        assert_eq!(f.file.value_stats_cols, Some(vec![]));
    }
    let a = live
        .files
        .iter()
        .find(|f| f.partition_text == "dt=a")
        .unwrap();
    // Arrival order: min key = first record's key, max key = last record's key.
    assert_eq!(a.file.row_count, 4);
    let (min, max) = (format!("{:?}", a.min_key), format!("{:?}", a.max_key));
    assert!(min.contains('5') && max.contains('9'), "{min} {max}");
    let b = live
        .files
        .iter()
        .find(|f| f.partition_text == "dt=b")
        .unwrap();
    assert_eq!(b.file.delete_row_count, Some(1));
    assert!(lake
        .table_dir("db.p")
        .join("dt=a/bucket-postpone")
        .join(&a.file.file_name)
        .is_file());
    // Batch reads see the real buckets only: nothing yet.
    assert!(read(&t).await.is_empty());

    let report = t
        .compact(&CompactRequest::default(), &|_, _| {})
        .await
        .unwrap();
    assert!(report.snapshot.is_some());
    let live = strata::system::live_files(&t, None).await.unwrap();
    assert!(live
        .files
        .iter()
        .all(|f| f.bucket >= 0 && f.total_buckets == 3));
    let got = read(&t).await;
    let want: BTreeMap<(String, i64), String> = [(1, "one-1"), (5, "one-5"), (9, "one-9")]
        .into_iter()
        .map(|(k, v)| (("a".to_string(), k), v.to_string()))
        .collect();
    assert_eq!(got, want);

    // More postponed rows: the known partition keeps its 3 buckets, a new one takes 3 too;
    // updates and deletes replay after the compacted rows.
    let mut w = t.new_write().unwrap();
    w.write(&rows(&[1, 2], "a", "two")).await.unwrap();
    w.write_with_kinds(&rows(&[9], "a", "x"), &[RowKind::Delete])
        .await
        .unwrap();
    t.new_commit()
        .unwrap()
        .commit(w.prepare_commit().await.unwrap())
        .await
        .unwrap();
    assert_eq!(read(&t).await, want, "postponed rows are not read");
    t.compact(&CompactRequest::default(), &|_, _| {})
        .await
        .unwrap();
    let got = read(&t).await;
    let want: BTreeMap<(String, i64), String> = [(1, "two-1"), (2, "two-2"), (5, "one-5")]
        .into_iter()
        .map(|(k, v)| (("a".to_string(), k), v.to_string()))
        .collect();
    assert_eq!(got, want);
    let live = strata::system::live_files(&t, None).await.unwrap();
    assert!(live
        .files
        .iter()
        .all(|f| f.bucket >= 0 && f.total_buckets == 3));
    assert!(!lake
        .table_dir("db.p")
        .join("dt=a/bucket-postpone")
        .read_dir()
        .map(|mut d| d.any(|e| {
            let name = e.unwrap().file_name();
            live.files
                .iter()
                .any(|f| name.to_str() == Some(f.file.file_name.as_str()))
        }))
        .unwrap_or(false));
}

#[tokio::test]
async fn target_row_num_per_bucket_chooses_a_new_partitions_bucket_count() {
    let lake = Lake::new();
    let t = create(&lake, r#","postpone.target-row-num-per-bucket":"4""#).await;
    let ids: Vec<i64> = (0..10).collect();
    t.write_batches([rows(&ids, "a", "v")], None).await.unwrap();
    t.compact(&CompactRequest::default(), &|_, _| {})
        .await
        .unwrap();
    let live = strata::system::live_files(&t, None).await.unwrap();
    // ceil(10 / 4) = 3 buckets.
    assert!(live.files.iter().all(|f| f.total_buckets == 3));
    assert_eq!(read(&t).await.len(), 10);
}

#[tokio::test]
async fn overwrite_alter_and_rescale_of_a_postpone_table() {
    use strata::commit::OverwriteScope;
    use strata_spec::schema::SchemaChange;
    use strata_spec::Datum;
    let lake = Lake::new();
    let t = create(&lake, "").await;
    t.write_batches([rows(&[1, 2, 3], "a", "one")], None)
        .await
        .unwrap();
    t.compact(&CompactRequest::default(), &|_, _| {})
        .await
        .unwrap();
    // INSERT OVERWRITE of a postpone table parks the new rows too (Java's overwrite goes through
    // the same postpone writer) and drops the partition's real buckets.
    let scope = OverwriteScope::Static(vec![("dt".to_string(), Some(Datum::String("a".into())))]);
    t.write_batches([rows(&[7], "a", "new")], Some(scope))
        .await
        .unwrap();
    let live = strata::system::live_files(&t, None).await.unwrap();
    assert!(
        live.files.iter().all(|f| f.bucket == -2),
        "{:?}",
        live.files
    );
    assert!(read(&t).await.is_empty());
    // Postponed rows block a rescale (an overwrite would drop them) until compacted.
    let request = strata::write::RescaleRequest {
        bucket_num: Some(2),
        partition: vec![("dt".to_string(), "a".to_string())],
    };
    let e = t.rescale(&request).await.unwrap_err();
    assert!(e.to_string().contains("compact the table first"), "{e}");
    t.compact(&CompactRequest::default(), &|_, _| {})
        .await
        .unwrap();
    let report = t.rescale(&request).await.unwrap();
    assert_eq!((report.bucket_num, report.rows), (2, 1));
    let live = strata::system::live_files(&t, None).await.unwrap();
    assert!(live.files.iter().all(|f| f.total_buckets == 2));
    // Leaving the postpone bucket on a table with data is refused by strata (files left in
    // bucket-postpone would read as a real bucket); Java's rule refuses -1.
    let e = t
        .alter(&[SchemaChange::set_option("bucket", "4")])
        .await
        .unwrap_err();
    assert!(e.to_string().contains("from -2 (postpone)"), "{e}");
    // Bucket count per partition survives further postponed writes: dt=a keeps 2.
    t.write_batches([rows(&[8], "a", "more")], None)
        .await
        .unwrap();
    t.compact(&CompactRequest::default(), &|_, _| {})
        .await
        .unwrap();
    let live = strata::system::live_files(&t, None).await.unwrap();
    assert!(live.files.iter().all(|f| f.total_buckets == 2));
    assert_eq!(read(&t).await.len(), 2);
}

#[tokio::test]
async fn a_retraction_the_merge_engine_refuses_fails_the_postpone_write() {
    let lake = Lake::new();
    let t = create(&lake, r#","merge-engine":"first-row""#).await;
    let mut w = t.new_write().unwrap();
    w.write(&rows(&[1], "a", "x")).await.unwrap();
    // Java's PostponeBucketWriter.validateRetract: first-row refuses -D at write time, so no
    // file is committed that no compaction could take.
    let e = w
        .write_with_kinds(&rows(&[1], "a", "x"), &[RowKind::Delete])
        .await
        .unwrap_err();
    assert!(e.to_string().contains("First row merge engine"), "{e}");
    w.abort().await;
    assert!(t.snapshot_manager().latest_id().await.unwrap().is_none());
}

#[tokio::test]
async fn postpone_writes_keep_their_snapshots_and_the_compaction_expires_them() {
    // Java: `PrimaryKeyFileStoreTable.newExpireRunnable` is null for bucket = -2, so commits of
    // postponed writes never expire snapshots (Flink's `testPostponeWriteNotExpireSnapshots`);
    // the postpone compaction commits through the table with a real bucket count
    // (`PostponeUtils.tableForPostponeCompact`, write-only off), which does expire.
    let lake = Lake::new();
    let retain = r#","snapshot.num-retained.min":"3","snapshot.num-retained.max":"3""#;
    let t = create(&lake, retain).await;
    for i in 0..5 {
        t.write_batches([rows(&[i], "a", "v")], None).await.unwrap();
    }
    let ids = t.snapshot_manager().list_ids().await.unwrap();
    assert_eq!(ids, vec![1, 2, 3, 4, 5]);
    let report = t
        .compact(&CompactRequest::default(), &|_, _| {})
        .await
        .unwrap();
    assert_eq!(report.snapshot, Some(6));
    let ids = t.snapshot_manager().list_ids().await.unwrap();
    assert_eq!(ids, vec![4, 5, 6]);
    assert_eq!(read(&t).await.len(), 5);
    // Postponed writes after the compaction again keep every snapshot.
    t.write_batches([rows(&[9], "a", "v")], None).await.unwrap();
    let ids = t.snapshot_manager().list_ids().await.unwrap();
    assert_eq!(ids, vec![4, 5, 6, 7]);

    // The same writes to a fixed-bucket table expire as usual.
    let fixed = lake
        .create(
            "db.f",
            &format!(
                r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"dt","type":"STRING NOT NULL"}},
                {{"name":"v","type":"STRING"}}],"partitionKeys":["dt"],"primaryKeys":["id","dt"],
                "options":{{"bucket":"2"{retain}}}}}"#
            ),
        )
        .await;
    for i in 0..5 {
        fixed
            .write_batches([rows(&[i], "a", "v")], None)
            .await
            .unwrap();
    }
    let ids = fixed.snapshot_manager().list_ids().await.unwrap();
    assert_eq!(ids, vec![3, 4, 5]);
}
