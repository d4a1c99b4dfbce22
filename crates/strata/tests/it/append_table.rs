//! End-to-end tests of append tables through the library API: write → commit → scan → read,
//! on a real local warehouse, asserting on rows read back, files on disk and snapshot JSON.

use std::sync::Arc;

use crate::common::*;
use arrow_array::{Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::commit::OverwriteScope;
use strata::expr::parse_sql_predicate;
use strata::ErrorKind;

fn batch(ids: &[i64], dts: &[Option<&str>], vs: &[Option<i32>]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("dt", ArrowType::Utf8, true),
        Field::new("v", ArrowType::Int32, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(dts.to_vec())),
            Arc::new(Int32Array::from(vs.to_vec())),
        ],
    )
    .unwrap()
}

const PARTITIONED: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"dt","type":"STRING"},
 {"name":"v","type":"INT"}],"partitionKeys":["dt"],"options":{"bucket":"-1"}}"#;

#[tokio::test]
async fn write_read_partitioned_with_overwrite_and_time_travel() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", PARTITIONED).await;
    let s1 = t
        .write_batches(
            [batch(
                &[1, 2, 3],
                &[Some("a"), Some("b"), None],
                &[Some(10), None, Some(30)],
            )],
            None,
        )
        .await
        .unwrap();
    assert_eq!(s1, Some(1));
    let s2 = t
        .write_batches(
            [batch(
                &[4, 5],
                &[Some("a"), Some("c")],
                &[Some(40), Some(50)],
            )],
            None,
        )
        .await
        .unwrap();
    assert_eq!(s2, Some(2));
    assert_eq!(read_ids(&t, None, None).await, vec![1, 2, 3, 4, 5]);

    // Partition directories follow Java's rules; NULL goes to the default partition.
    let root = wh.table_dir("db", "t");
    assert!(root.join("dt=a/bucket-0").is_dir());
    assert!(root.join("dt=__DEFAULT_PARTITION__/bucket-0").is_dir());
    assert!(root.join("snapshot/LATEST").is_file());
    assert_eq!(
        std::fs::read_to_string(root.join("snapshot/LATEST")).unwrap(),
        "2"
    );

    // Dynamic overwrite replaces only partition a.
    let s3 = t
        .write_batches(
            [batch(&[6], &[Some("a")], &[Some(60)])],
            Some(OverwriteScope::Dynamic),
        )
        .await
        .unwrap();
    assert_eq!(s3, Some(3));
    assert_eq!(read_ids(&t, None, None).await, vec![2, 3, 5, 6]);
    let snap = t.snapshot_manager().snapshot(3).await.unwrap();
    assert_eq!(snap.commit_kind.as_str(), "OVERWRITE");
    assert_eq!(snap.total_record_count, 4);
    assert_eq!(snap.delta_record_count, -1);

    // Static overwrite of the default (NULL) partition with nothing deletes it.
    let s4 = t
        .write_batches(
            std::iter::empty(),
            Some(OverwriteScope::Static(vec![("dt".into(), None)])),
        )
        .await
        .unwrap();
    assert_eq!(s4, Some(4));
    assert_eq!(read_ids(&t, None, None).await, vec![2, 5, 6]);

    // Time travel.
    assert_eq!(read_ids(&t, None, Some(1)).await, vec![1, 2, 3]);
    assert_eq!(read_ids(&t, None, Some(2)).await, vec![1, 2, 3, 4, 5]);

    // Filters: partition pruning + exact filtering.
    assert_eq!(
        read_ids(&t, Some("dt = 'c' OR id = 6"), None).await,
        vec![5, 6]
    );
    let plan = t
        .new_scan()
        .with_filter(parse_sql_predicate("dt = 'c'").unwrap())
        .plan()
        .await
        .unwrap();
    assert_eq!(plan.splits.len(), 1);
    assert!(
        plan.metrics.manifests_skipped_by_partition + plan.metrics.entries_skipped_by_partition > 0
    );
}

#[tokio::test]
async fn whole_table_overwrite_and_stats_pruning() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.u",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"dt","type":"STRING"},
               {"name":"v","type":"INT"}],"options":{"metadata.stats-mode":"full"}}"#,
        )
        .await;
    t.write_batches([batch(&[1, 2], &[None, None], &[Some(1), Some(2)])], None)
        .await
        .unwrap();
    t.write_batches(
        [batch(&[100, 200], &[None, None], &[Some(1), Some(2)])],
        None,
    )
    .await
    .unwrap();
    let plan = t
        .new_scan()
        .with_filter(parse_sql_predicate("id >= 100").unwrap())
        .plan()
        .await
        .unwrap();
    let files: usize = plan.splits.iter().map(|s| s.files.len()).sum();
    assert_eq!(files, 1, "the file with ids 1..2 is pruned by its stats");
    assert_eq!(plan.metrics.files_skipped_by_stats, 1);
    assert_eq!(read_ids(&t, Some("id >= 100"), None).await, vec![100, 200]);

    t.write_batches(
        [batch(&[7], &[None], &[None])],
        Some(OverwriteScope::Dynamic),
    )
    .await
    .unwrap();
    assert_eq!(read_ids(&t, None, None).await, vec![7]);
}

#[tokio::test]
async fn fixed_bucket_routing_is_stable() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.b",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"dt","type":"STRING"},
               {"name":"v","type":"INT"}],"options":{"bucket":"4","bucket-key":"id"}}"#,
        )
        .await;
    let ids: Vec<i64> = (0..100).collect();
    let dts = vec![None; 100];
    let vs: Vec<Option<i32>> = (0..100).map(Some).collect();
    t.write_batches([batch(&ids, &dts, &vs)], None)
        .await
        .unwrap();
    let plan = t.new_scan().plan().await.unwrap();
    assert_eq!(plan.splits.len(), 4);
    for s in &plan.splits {
        assert_eq!(s.total_buckets, 4);
        // Every id in this bucket hashes to it.
        let rows = t.new_read().to_batches(vec![s.clone()]).await.unwrap();
        for b in rows {
            let col = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
            for i in 0..col.len() {
                let key = strata_spec::binary_row::BinaryRow::from_datums(
                    &[Some(strata_spec::Datum::BigInt(col.value(i)))],
                    &[strata_spec::DataType::not_null(
                        strata_spec::TypeKind::BigInt,
                    )],
                )
                .unwrap();
                assert_eq!(strata_spec::bucket::bucket_of(key.hash_code(), 4), s.bucket);
            }
        }
    }
    assert_eq!(read_ids(&t, None, None).await, ids);
}

#[tokio::test]
async fn bad_input_is_rejected_and_table_unchanged() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", PARTITIONED).await;
    t.write_batches([batch(&[1], &[Some("a")], &[Some(1)])], None)
        .await
        .unwrap();
    // Extra column.
    let extra = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("nope", ArrowType::Int64, true),
    ]));
    let b = RecordBatch::try_new(
        extra,
        vec![
            Arc::new(Int64Array::from(vec![1])),
            Arc::new(Int64Array::from(vec![2])),
        ],
    )
    .unwrap();
    let err = t.write_batches([b], None).await.unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
    // Missing NOT NULL column.
    let missing = Arc::new(ArrowSchema::new(vec![Field::new(
        "v",
        ArrowType::Int32,
        true,
    )]));
    let b = RecordBatch::try_new(missing, vec![Arc::new(Int32Array::from(vec![1]))]).unwrap();
    let err = t.write_batches([b], None).await.unwrap_err();
    assert!(err.to_string().contains("id"), "{err}");
    // Unknown column in a filter.
    let err = t
        .new_scan()
        .with_filter(parse_sql_predicate("zzz = 1").unwrap())
        .plan()
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");
    assert_eq!(err.table(), Some("db.t"), "{err}");
    // Nothing changed, and no stray data files were left behind.
    assert_eq!(t.snapshot_manager().latest_id().await.unwrap(), Some(1));
    assert_eq!(count_data_files(&wh.table_dir("db", "t")), 1);
}

#[tokio::test]
async fn corrupt_metadata_names_the_file() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", PARTITIONED).await;
    t.write_batches([batch(&[1], &[Some("a")], &[Some(1)])], None)
        .await
        .unwrap();
    let snap = t.snapshot_manager().snapshot(1).await.unwrap();
    let list = wh
        .table_dir("db", "t")
        .join("manifest")
        .join(&snap.delta_manifest_list);
    let bytes = std::fs::read(&list).unwrap();
    std::fs::write(&list, &bytes[..bytes.len() / 2]).unwrap();
    let err = t.new_scan().plan().await.unwrap_err();
    assert!(err.to_string().contains(&snap.delta_manifest_list), "{err}");

    let snap_file = wh.table_dir("db", "t").join("snapshot/snapshot-1");
    std::fs::write(&snap_file, b"{\"id\": 1, ").unwrap();
    let err = t.snapshot_manager().snapshot(1).await.unwrap_err();
    assert!(err.to_string().contains("snapshot-1"), "{err}");
}

#[tokio::test]
async fn concurrent_commits_all_land() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", PARTITIONED).await;
    let mut tasks = Vec::new();
    for i in 0..6i64 {
        let t = t.clone();
        tasks.push(tokio::spawn(async move {
            t.write_batches([batch(&[i], &[Some("p")], &[Some(i as i32)])], None)
                .await
                .unwrap()
        }));
    }
    let mut ids: Vec<i64> = Vec::new();
    for task in tasks {
        ids.push(task.await.unwrap().unwrap());
    }
    ids.sort();
    assert_eq!(
        ids,
        vec![1, 2, 3, 4, 5, 6],
        "every commit got its own snapshot"
    );
    assert_eq!(read_ids(&t, None, None).await, vec![0, 1, 2, 3, 4, 5]);
    let latest = t.snapshot_manager().latest().await.unwrap().unwrap();
    assert_eq!(latest.total_record_count, 6);
}
