//! Reads of tables another engine wrote: strata reads them as Java Paimon does or refuses
//! before returning a row (issue 29). Tables are shaped here as Java leaves them (a schema
//! version with another `bucket`, options strata's own writers refuse, files with Java 2.x
//! manifest fields); `tests/interop/test_read_audit.py` has Java write them for real.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::common::{read_ids, Warehouse};
use crate::lifecycle_support::{batch, rows, rows_of, write};
use strata::cache::LruCache;
use strata::commit::CommitMessage;
use strata::maintenance::TableLifecycle;
use strata::table::Table;
use strata_spec::manifest::DataFileMeta;
use strata_spec::schema::TableSchema;

/// Writes the table's next schema version as another engine's ALTER TABLE would: the latest
/// schema with `options` set (`None` removes the key). Returns the table reloaded.
async fn alter_as_java(wh: &Warehouse, name: &str, options: &[(&str, Option<&str>)]) -> Table {
    let (db, t) = name.split_once('.').unwrap();
    let dir = wh.table_dir(db, t).join("schema");
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
    for (k, v) in options {
        match v {
            Some(v) => schema.options.insert(k.to_string(), v.to_string()),
            None => schema.options.remove(*k),
        };
    }
    std::fs::write(
        dir.join(format!("schema-{}", latest + 1)),
        schema.to_json().unwrap(),
    )
    .unwrap();
    wh.catalog.get_table(&name.parse().unwrap()).await.unwrap()
}

fn pk_schema(bucket: i32, partitioned: bool) -> String {
    let part = if partitioned {
        r#","partitionKeys":["dt"]"#
    } else {
        ""
    };
    let dt = if partitioned {
        r#",{"name":"dt","type":"STRING NOT NULL"}"#
    } else {
        ""
    };
    let pk = if partitioned {
        r#"["id","dt"]"#
    } else {
        r#"["id"]"#
    };
    format!(
        r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"v","type":"STRING"}}{dt}],
        "primaryKeys":{pk}{part},"options":{{"bucket":"{bucket}"}}}}"#
    )
}

/// Rows `ids` with a `dt` column.
fn batch_dt(ids: std::ops::Range<i64>, dt: &str) -> arrow_array::RecordBatch {
    use arrow_array::{ArrayRef, StringArray};
    let b = batch(ids, "v");
    let n = b.num_rows();
    let mut fields: Vec<arrow_schema::Field> =
        b.schema().fields().iter().map(|f| (**f).clone()).collect();
    fields.push(arrow_schema::Field::new(
        "dt",
        arrow_schema::DataType::Utf8,
        false,
    ));
    let mut cols: Vec<ArrayRef> = b.columns().to_vec();
    cols.push(Arc::new(StringArray::from(vec![dt; n])));
    arrow_array::RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), cols).unwrap()
}

#[tokio::test]
async fn point_reads_of_a_rescaled_table_use_each_partitions_bucket_count() {
    let wh = Warehouse::new();
    let t = wh.create("db.r", &pk_schema(2, true)).await;
    write(&t, batch_dt(0..100, "a")).await;
    // Java: ALTER TABLE r SET ('bucket' = '4'); new partitions get 4 buckets, `a` keeps 2.
    let t = alter_as_java(&wh, "db.r", &[("bucket", Some("4"))]).await;
    write(&t, batch_dt(100..200, "b")).await;
    assert_eq!(read_ids(&t, None, None).await, (0..200).collect::<Vec<_>>());
    let cached = t.clone().with_cache(Arc::new(LruCache::new(64 << 20)));
    let cached = cached
        .with_dynamic_options([("scan.manifest-entry-cache.max-snapshots".into(), "3".into())])
        .unwrap();
    for table in [&t, &cached] {
        let mut missing = Vec::new();
        for k in 0..200i64 {
            let dt = if k < 100 { "a" } else { "b" };
            for filter in [format!("id = {k}"), format!("id = {k} AND dt = '{dt}'")] {
                if read_ids(table, Some(&filter), None).await != [k] {
                    missing.push(filter);
                }
            }
        }
        assert!(missing.is_empty(), "point reads found nothing: {missing:?}");
    }
}

#[tokio::test]
async fn a_partition_rescaled_without_alter_is_found_through_the_entry_cache() {
    // Java's `rescale` action overwrites one partition with another bucket count and leaves
    // the schema as it is: only the entries know. The cache of one bucket must not hide the
    // files in the others.
    let wh = Warehouse::new();
    let t = wh.create("db.r", &pk_schema(2, true)).await;
    write(&t, batch_dt(0..100, "a")).await;
    write(&t, batch_dt(100..200, "b")).await;
    let four = t
        .with_dynamic_options([("bucket".into(), "4".into())])
        .unwrap();
    four.write_batches(
        [batch_dt(0..100, "a")],
        Some(strata::commit::OverwriteScope::Dynamic),
    )
    .await
    .unwrap();
    let totals: std::collections::BTreeSet<i32> = t
        .new_scan()
        .plan()
        .await
        .unwrap()
        .splits
        .iter()
        .map(|s| s.total_buckets)
        .collect();
    assert_eq!(
        totals,
        [2, 4].into(),
        "partition a was rescaled to 4 buckets"
    );
    let cached = t
        .with_cache(Arc::new(LruCache::new(64 << 20)))
        .with_dynamic_options([("scan.manifest-entry-cache.max-snapshots".into(), "3".into())])
        .unwrap();
    let mut missing = Vec::new();
    for k in 0..200i64 {
        if read_ids(&cached, Some(&format!("id = {k}")), None).await != [k] {
            missing.push(k);
        }
    }
    assert!(missing.is_empty(), "keys not found: {missing:?}");
}

#[tokio::test]
async fn the_tables_scan_options_choose_what_a_read_returns() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.s",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"}],
            "primaryKeys":["id"],"options":{"bucket":"2"}}"#,
        )
        .await;
    let s1 = write(&t, batch(0..10, "one")).await;
    t.create_tag("first", Some(s1), None).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let s2 = write(&t, batch(5..20, "two")).await;
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let s3 = write(&t, batch(15..30, "three")).await;
    let at = |id| rows(&t, Some(id));
    let (r1, r2, r3) = (at(s1).await, at(s2).await, at(s3).await);
    assert!(r1 != r2 && r2 != r3);
    let time2 = t.snapshot_manager().snapshot(s2).await.unwrap().time_millis;

    let with = |opts: &[(&str, String)]| {
        t.with_dynamic_options(opts.iter().map(|(k, v)| (k.to_string(), v.clone())))
            .unwrap()
    };
    type Case<'a> = (Vec<(&'a str, String)>, &'a BTreeMap<i64, String>);
    let cases: Vec<Case> = vec![
        (vec![("scan.snapshot-id", s1.to_string())], &r1),
        (vec![("scan.tag-name", "first".into())], &r1),
        (vec![("scan.version", "first".into())], &r1),
        (vec![("scan.version", s2.to_string())], &r2),
        (vec![("scan.timestamp-millis", time2.to_string())], &r2),
        (vec![("log.scan.timestamp-millis", time2.to_string())], &r2),
        (
            vec![
                ("scan.mode", "from-snapshot-full".into()),
                ("scan.snapshot-id", s2.to_string()),
            ],
            &r2,
        ),
        (vec![("scan.mode", "latest".into())], &r3),
        (
            vec![("scan.creation-time-millis", (time2).to_string())],
            &r2,
        ),
    ];
    for (opts, expected) in cases {
        let table = with(&opts);
        assert_eq!(&rows(&table, None).await, expected, "{opts:?}");
    }
    // Stored in the table's options (Java's ALTER TABLE ... SET), not only dynamic ones.
    let stored = alter_as_java(&wh, "db.s", &[("scan.snapshot-id", Some(&s1.to_string()))]).await;
    assert_eq!(rows(&stored, None).await, r1);
    // An explicit snapshot wins, and writes that rewrite what they read see the latest.
    assert_eq!(rows(&stored, Some(s2)).await, r2);
    assert_eq!(rows_of(&stored, stored.new_scan().with_latest()).await, r3);
    // scan.bucket: one bucket only.
    let b0 = with(&[("scan.bucket", "0".into())]);
    let plan = b0.new_scan().plan().await.unwrap();
    assert!(!plan.splits.is_empty() && plan.splits.iter().all(|s| s.bucket == 0));
    assert!(rows(&b0, None).await.len() < r3.len());
    // Errors name what is wrong.
    let e = rows_err(&with(&[("scan.snapshot-id", "99".into())])).await;
    assert!(e.contains("99"), "{e}");
    // A mode without the option it needs is refused as Java's SchemaValidation does.
    let e = t
        .with_dynamic_options([("scan.mode".to_string(), "from-snapshot".to_string())])
        .unwrap_err()
        .to_string();
    assert!(e.contains("scan.snapshot-id"), "{e}");
    let e = t
        .with_dynamic_options([
            ("scan.mode".to_string(), "latest".to_string()),
            ("scan.snapshot-id".to_string(), "1".to_string()),
        ])
        .unwrap_err()
        .to_string();
    assert!(e.contains("must be null"), "{e}");
    let e = rows_err(&with(&[("scan.watermark", "5".into())])).await;
    assert!(e.contains("watermark"), "{e}");
}

#[tokio::test]
async fn compacted_full_and_file_creation_time_select_files_as_java_does() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.c",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"}],
            "primaryKeys":["id"],"options":{"bucket":"1","write-only":"true"}}"#,
        )
        .await;
    write(&t, batch(0..10, "one")).await;
    let compacted = crate::lifecycle_support::full_compact(&t).await;
    let at_compaction = rows(&t, Some(compacted)).await;
    tokio::time::sleep(std::time::Duration::from_millis(30)).await;
    let cut = chrono::Utc::now().timestamp_millis();
    tokio::time::sleep(std::time::Duration::from_millis(30)).await;
    write(&t, batch(100..110, "two")).await;
    let c = t
        .with_dynamic_options([("scan.mode".to_string(), "compacted-full".to_string())])
        .unwrap();
    assert_eq!(rows(&c, None).await, at_compaction);
    let f = t
        .with_dynamic_options([(
            "scan.file-creation-time-millis".to_string(),
            cut.to_string(),
        )])
        .unwrap();
    let newer: Vec<i64> = rows(&f, None).await.into_keys().collect();
    assert_eq!(newer, (100..110).collect::<Vec<_>>());
}

async fn rows_err(t: &Table) -> String {
    t.new_scan().plan().await.unwrap_err().to_string()
}

#[tokio::test]
async fn reads_refuse_options_that_change_the_rows_they_do_not_honour() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.o",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"}],
            "options":{"bucket":"-1"}}"#,
        )
        .await;
    write(&t, batch(0..10, "a")).await;
    for (key, value) in [("type", "format-table"), ("scan.partitions", "dt=1")] {
        let t = alter_as_java(&wh, "db.o", &[(key, Some(value))]).await;
        let e = rows_err(&t).await;
        assert!(
            e.contains(key) && e.contains("refuses"),
            "{key} = {value}: {e}"
        );
        // Streams and incremental reads refuse it too.
        let e = t
            .new_stream_read()
            .with_start(strata::stream::StartingPosition::Earliest)
            .changes()
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains(key), "stream of {key}: {e}");
        let e = t
            .new_incremental_scan(strata::scan::IncrementalBetween::ids(0, 1))
            .plan()
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains(key), "incremental read of {key}: {e}");
        alter_as_java(&wh, "db.o", &[(key, None)]).await;
    }
    // Options that do not change the rows read fine.
    let t = alter_as_java(
        &wh,
        "db.o",
        &[
            ("row-tracking.enabled", Some("true")),
            ("file-index.bloom-filter.columns", Some("v")),
            ("target-file-row-num", Some("5")),
            ("metadata.iceberg.storage", Some("table-location")),
        ],
    )
    .await;
    assert_eq!(read_ids(&t, None, None).await, (0..10).collect::<Vec<_>>());
    // Streaming-only options refuse streams only.
    let t = alter_as_java(&wh, "db.o", &[("streaming-read-overwrite", Some("true"))]).await;
    assert_eq!(read_ids(&t, None, None).await.len(), 10);
    let e = t.new_stream_read().changes().err().unwrap().to_string();
    assert!(e.contains("streaming-read-overwrite"), "{e}");
}

/// A copy of the table's one data file under a new name in its bucket directory (Java never
/// deletes and re-adds a file of one name in a commit).
fn copy_as(wh: &Warehouse, db: &str, table: &str, file: &DataFileMeta, name: &str) -> DataFileMeta {
    let dir = wh.table_dir(db, table).join("bucket-0");
    std::fs::copy(dir.join(&file.file_name), dir.join(name)).unwrap();
    DataFileMeta {
        file_name: name.to_string(),
        ..file.clone()
    }
}

/// The live file of a one-file append table and a message that replaces it by `replacement`.
async fn replace_file(t: &Table, replacement: DataFileMeta) {
    let plan = t.new_scan().plan().await.unwrap();
    let split = &plan.splits[0];
    let mut msg = CommitMessage::new(split.partition.clone(), split.bucket, split.total_buckets);
    msg.deleted_files = split.files.clone();
    msg.new_files = vec![replacement];
    t.new_commit()
        .unwrap()
        .commit_messages(vec![msg], None)
        .await
        .unwrap();
}

async fn one_file(t: &Table) -> DataFileMeta {
    let plan = t.new_scan().plan().await.unwrap();
    assert_eq!(plan.splits.len(), 1);
    assert_eq!(plan.splits[0].files.len(), 1);
    plan.splits[0].files[0].clone()
}

#[tokio::test]
async fn files_strata_cannot_read_are_refused_while_planning() {
    let wh = Warehouse::new();
    let schema = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"}],
        "options":{"bucket":"-1"}}"#;
    let t = wh.create("db.f", schema).await;
    write(&t, batch(0..10, "a")).await;
    let real = one_file(&t).await;
    // A second file of a format strata has no reader for, beside a readable one: the plan is
    // refused, so no row of the readable file is returned first.
    let lance = DataFileMeta {
        file_name: real.file_name.replace(".parquet", ".lance"),
        ..real.clone()
    };
    let mut msg = CommitMessage::new(strata_spec::binary_row::BinaryRow::empty(), 0, -1);
    msg.new_files = vec![lance.clone()];
    t.new_commit()
        .unwrap()
        .commit_messages(vec![msg], None)
        .await
        .unwrap();
    let e = rows_err(&t).await;
    assert!(e.contains(&lance.file_name) && e.contains(".lance"), "{e}");

    // A file holding some columns of its rows (data evolution).
    let t = wh.create("db.g", schema).await;
    write(&t, batch(0..10, "a")).await;
    let real = one_file(&t).await;
    let partial = copy_as(&wh, "db", "g", &real, "data-partial-0.parquet");
    replace_file(
        &t,
        DataFileMeta {
            write_cols: Some(vec!["v".into()]),
            ..partial
        },
    )
    .await;
    let e = rows_err(&t).await;
    assert!(
        e.contains("writeCols") && e.contains("data-partial-0.parquet"),
        "{e}"
    );

    // External paths: read where they are (a local file: URI), refused on a scheme strata has
    // no store for.
    let t = wh.create("db.h", schema).await;
    write(&t, batch(0..10, "a")).await;
    let real = one_file(&t).await;
    let src = wh
        .table_dir("db", "h")
        .join("bucket-0")
        .join(&real.file_name);
    let elsewhere = tempfile::tempdir().unwrap();
    let moved = elsewhere.path().join("data-moved-0.parquet");
    std::fs::copy(&src, &moved).unwrap();
    replace_file(
        &t,
        DataFileMeta {
            file_name: "data-moved-0.parquet".into(),
            external_path: Some(format!("file:{}", moved.display())),
            ..real.clone()
        },
    )
    .await;
    std::fs::remove_file(&src).unwrap();
    assert_eq!(read_ids(&t, None, None).await, (0..10).collect::<Vec<_>>());
    let t = wh.create("db.i", schema).await;
    write(&t, batch(0..10, "a")).await;
    let real = one_file(&t).await;
    replace_file(
        &t,
        DataFileMeta {
            file_name: "data-oss-0.parquet".into(),
            external_path: Some("oss://bucket/ext/data-oss-0.parquet".into()),
            ..real.clone()
        },
    )
    .await;
    let e = rows_err(&t).await;
    assert!(e.contains("oss://bucket/ext") && e.contains("oss"), "{e}");
}
