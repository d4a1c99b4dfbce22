//! Writes to a fixed-bucket table whose `bucket` was changed by another engine (Java allows
//! `ALTER TABLE … SET ('bucket' = '4')` and keeps old partitions in their old bucket count until
//! they are overwritten; every manifest entry records its own `totalBuckets`). As Java
//! (`AbstractFileStoreWrite.scanExistingFileMetas`, `ConflictDetection`): a write or compaction
//! into a partition whose live files have another bucket count is refused with Java's message
//! before anything is committed, in the writer when it restores the bucket, and at commit for
//! APPEND commits too (a concurrent rescale); an INSERT OVERWRITE of the partition with the
//! new count rewrites it, after which writes work again.

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::commit::OverwriteScope;
use strata::table::Table;
use strata::write::CompactRequest;
use strata_spec::schema::TableSchema;
use strata_spec::Datum;

use crate::lifecycle_support::Lake;

fn rows(ids: std::ops::Range<i64>, dt: &str, tag: &str) -> RecordBatch {
    let ids: Vec<i64> = ids.collect();
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("dt", ArrowType::Utf8, false),
        Field::new("v", ArrowType::Utf8, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.clone())),
            Arc::new(StringArray::from(vec![dt; ids.len()])),
            Arc::new(StringArray::from(
                ids.iter().map(|i| format!("{tag}-{i}")).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap()
}

/// What Java's `ALTER TABLE … SET ('bucket' = 'n')` does to the files: the next schema
/// version with the new option (strata's own ALTER refuses it on a table with data).
fn alter_bucket_as_java(lake: &Lake, name: &str, bucket: i32) {
    let dir = lake.table_dir(name).join("schema");
    let latest = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            e.unwrap()
                .file_name()
                .to_str()?
                .strip_prefix("schema-")?
                .parse::<i64>()
                .ok()
        })
        .max()
        .unwrap();
    let text = std::fs::read_to_string(dir.join(format!("schema-{latest}"))).unwrap();
    let mut schema = TableSchema::from_json(&text).unwrap();
    schema.id = latest + 1;
    schema
        .options
        .insert("bucket".to_string(), bucket.to_string());
    std::fs::write(
        dir.join(format!("schema-{}", latest + 1)),
        schema.to_json().unwrap(),
    )
    .unwrap();
}

async fn create(lake: &Lake, name: &str, pk: bool) -> Table {
    let keys = if pk {
        r#""primaryKeys":["id","dt"],"#
    } else {
        ""
    };
    let bucket_key = if pk { "" } else { r#","bucket-key":"id""# };
    lake.create(
        name,
        &format!(
            r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"dt","type":"STRING NOT NULL"}},
            {{"name":"v","type":"STRING"}}],"partitionKeys":["dt"],{keys}
            "options":{{"bucket":"2"{bucket_key}}}}}"#
        ),
    )
    .await
}

/// (total buckets of each live file of partition `dt`), sorted and deduplicated.
async fn totals(t: &Table, dt: &str) -> Vec<i32> {
    let live = strata::system::live_files(t, None).await.unwrap();
    let mut out: Vec<i32> = live
        .files
        .iter()
        .filter(|f| f.partition_text == format!("dt={dt}"))
        .map(|f| f.total_buckets)
        .collect();
    out.sort();
    out.dedup();
    out
}

async fn count_rows(t: &Table) -> usize {
    let plan = t.new_scan().plan().await.unwrap();
    let batches = t.new_read().to_batches(plan.splits).await.unwrap();
    batches.iter().map(|b| b.num_rows()).sum()
}

const JAVA_MESSAGE: &str = "Try to write partition dt=1 with a new bucket num 4, but the \
                            previous bucket num is 2. Please switch to batch mode, and perform \
                            INSERT OVERWRITE to rescale current data layout first.";

#[tokio::test]
async fn writes_into_a_partition_of_the_old_bucket_count_are_refused_until_overwritten() {
    for pk in [true, false] {
        let lake = Lake::new();
        let t = create(&lake, "db.t", pk).await;
        t.write_batches([rows(0..40, "1", "one")], None)
            .await
            .unwrap();
        alter_bucket_as_java(&lake, "db.t", 4);
        let t = lake.table("db.t").await;
        let snapshots = t.snapshot_manager().latest_id().await.unwrap();
        let files_before = crate::lifecycle_support::data_files_on_disk(&lake.table_dir("db.t"));

        // A write into dt=1 (old layout: 2 buckets) is refused with Java's message, nothing
        // committed, nothing left behind. Before: it committed files with 4 buckets next to
        // the old ones and updated keys landed in a second bucket (read twice).
        let err = t
            .write_batches([rows(0..40, "1", "two")], None)
            .await
            .unwrap_err();
        assert!(err.to_string().contains(JAVA_MESSAGE), "pk={pk}: {err}");
        assert_eq!(err.kind(), strata::ErrorKind::Conflict);
        assert_eq!(t.snapshot_manager().latest_id().await.unwrap(), snapshots);
        assert_eq!(
            crate::lifecycle_support::data_files_on_disk(&lake.table_dir("db.t")),
            files_before,
            "pk={pk}: files left behind"
        );
        if pk {
            // So is a compaction of it (Java's compaction job fails the same way).
            let err = t
                .compact(
                    &CompactRequest {
                        full: true,
                        ..Default::default()
                    },
                    &|_, _| {},
                )
                .await
                .unwrap_err();
            assert!(err.to_string().contains(JAVA_MESSAGE), "{err}");
        }

        // A new partition takes the new count.
        t.write_batches([rows(100..140, "2", "new")], None)
            .await
            .unwrap();
        assert_eq!(totals(&t, "2").await, [4]);

        // INSERT OVERWRITE of dt=1 rescales it; writes work again afterwards.
        t.write_batches(
            [rows(0..40, "1", "three")],
            Some(OverwriteScope::Static(vec![(
                "dt".to_string(),
                Some(Datum::String("1".into())),
            )])),
        )
        .await
        .unwrap();
        assert_eq!(totals(&t, "1").await, [4]);
        t.write_batches([rows(20..60, "1", "four")], None)
            .await
            .unwrap();
        assert_eq!(totals(&t, "1").await, [4]);
        let expected = if pk { 60 + 40 } else { 40 + 40 + 40 };
        assert_eq!(count_rows(&t).await, expected, "pk={pk}");
    }
}

#[tokio::test]
async fn an_append_planned_before_a_concurrent_rescale_is_refused_at_commit() {
    for pk in [true, false] {
        let lake = Lake::new();
        let t2 = create(&lake, "db.t", pk).await;
        t2.write_batches([rows(0..40, "1", "one")], None)
            .await
            .unwrap();
        // A writer with the 2-bucket table prepares its files ...
        let mut w = t2.new_write().unwrap();
        w.write(&rows(40..80, "1", "late")).await.unwrap();
        let messages = w.prepare_commit().await.unwrap();
        // ... while another engine rescales dt=1 to 4 buckets.
        alter_bucket_as_java(&lake, "db.t", 4);
        let t4 = lake.table("db.t").await;
        t4.write_batches(
            [rows(0..40, "1", "rescaled")],
            Some(OverwriteScope::Static(vec![(
                "dt".to_string(),
                Some(Datum::String("1".into())),
            )])),
        )
        .await
        .unwrap();
        let latest = t4.snapshot_manager().latest_id().await.unwrap();
        let err = t2
            .new_commit()
            .unwrap()
            .commit_messages(messages, None)
            .await
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains(
                "Try to write partition dt=1 with a new bucket num 2, but the previous \
                           bucket num is 4"
            ),
            "pk={pk}: {text}"
        );
        assert_eq!(t4.snapshot_manager().latest_id().await.unwrap(), latest);
        assert_eq!(totals(&t4, "1").await, [4]);
        assert_eq!(count_rows(&t4).await, 40);
    }
}
