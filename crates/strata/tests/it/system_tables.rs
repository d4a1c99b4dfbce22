//! `strata::system`: every system table of a partitioned append table with two appends, an
//! INSERT OVERWRITE, tags and a consumer, checked against what the table's own files say: file
//! names equal to the scan plan's, paths and sizes on disk, statistics text, snapshot ids,
//! kinds and local commit times, schema JSON equal to the schema file, partition and bucket
//! sums equal to the files', time travel, dispatch by name. Primary-key tables (levels before
//! and after compaction, deletion vectors) are in `system_tables_pk`; the helpers here are
//! shared with it. The expected texts were checked against Java Paimon 2.0 reading the same
//! tables.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use arrow_array::{
    Array, BooleanArray, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
    TimestampMillisecondArray,
};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use chrono::TimeZone;
use strata::commit::OverwriteScope;
use strata::maintenance::TableLifecycle;
use strata::system;
use strata::table::Table;

use crate::common::Warehouse;

pub(crate) fn col<'a, T: 'static>(b: &'a RecordBatch, name: &str) -> &'a T {
    let i = b
        .schema()
        .index_of(name)
        .unwrap_or_else(|_| panic!("no column {name}"));
    b.column(i)
        .as_any()
        .downcast_ref::<T>()
        .unwrap_or_else(|| panic!("column {name} has type {}", b.column(i).data_type()))
}

pub(crate) fn strs(b: &RecordBatch, name: &str) -> Vec<Option<String>> {
    let a = col::<StringArray>(b, name);
    (0..a.len())
        .map(|i| (!a.is_null(i)).then(|| a.value(i).to_string()))
        .collect()
}

pub(crate) fn strs_nn(b: &RecordBatch, name: &str) -> Vec<String> {
    strs(b, name).into_iter().map(|s| s.unwrap()).collect()
}

pub(crate) fn longs(b: &RecordBatch, name: &str) -> Vec<Option<i64>> {
    let a = col::<Int64Array>(b, name);
    (0..a.len())
        .map(|i| (!a.is_null(i)).then(|| a.value(i)))
        .collect()
}

pub(crate) fn longs_nn(b: &RecordBatch, name: &str) -> Vec<i64> {
    longs(b, name).into_iter().map(|v| v.unwrap()).collect()
}

pub(crate) fn ints(b: &RecordBatch, name: &str) -> Vec<i32> {
    let a = col::<Int32Array>(b, name);
    (0..a.len()).map(|i| a.value(i)).collect()
}

pub(crate) fn times(b: &RecordBatch, name: &str) -> Vec<Option<i64>> {
    let a = col::<TimestampMillisecondArray>(b, name);
    (0..a.len())
        .map(|i| (!a.is_null(i)).then(|| a.value(i)))
        .collect()
}

/// Epoch millis as the local wall-clock time, as epoch millis of that local date-time.
pub(crate) fn local(ms: i64) -> i64 {
    chrono::Local
        .timestamp_millis_opt(ms)
        .single()
        .unwrap()
        .naive_local()
        .and_utc()
        .timestamp_millis()
}

pub(crate) fn basename(p: &str) -> String {
    p.rsplit('/').next().unwrap().to_string()
}

/// Live file names of the scan plan of `snapshot` (latest when `None`).
pub(crate) async fn plan_files(t: &Table, snapshot: Option<i64>) -> BTreeSet<String> {
    let mut scan = t.new_scan();
    if let Some(s) = snapshot {
        scan = scan.with_snapshot(s);
    }
    scan.plan()
        .await
        .unwrap()
        .splits
        .into_iter()
        .flat_map(|s| s.files.into_iter().map(|f| f.file_name))
        .collect()
}

/// The table's schema file `id` as JSON.
pub(crate) fn schema_file(dir: &std::path::Path, id: i64) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("schema").join(format!("schema-{id}"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

const EVENTS: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
  {"name":"dt","type":"STRING"},{"name":"amount","type":"DOUBLE"},{"name":"name","type":"STRING"}],
  "partitionKeys":["dt"],"options":{"bucket":"-1"},"comment":"events"}"#;

fn events(rows: &[(i64, &str, Option<f64>, Option<&str>)]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("dt", ArrowType::Utf8, true),
        Field::new("amount", ArrowType::Float64, true),
        Field::new("name", ArrowType::Utf8, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(
                rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            )),
            Arc::new(StringArray::from(
                rows.iter().map(|r| Some(r.1)).collect::<Vec<_>>(),
            )),
            Arc::new(Float64Array::from(
                rows.iter().map(|r| r.2).collect::<Vec<_>>(),
            )),
            Arc::new(StringArray::from(
                rows.iter().map(|r| r.3).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap()
}

#[tokio::test]
async fn partitioned_append_table() {
    let w = Warehouse::new();
    let t = w.create("db.events", EVENTS).await;
    let dir = w.table_dir("db", "events");
    for name in system::system_table_names() {
        let b = system::system_table(&t, name).await.unwrap();
        match *name {
            "schemas" => assert_eq!(b.num_rows(), 1),
            "options" => assert!(b.num_rows() > 0),
            _ => assert_eq!(b.num_rows(), 0, "{name} of a table without snapshots"),
        }
        assert_eq!(
            b.schema(),
            system::system_table_schema(name).unwrap(),
            "{name}"
        );
    }
    assert_eq!(system::files(&t).await.unwrap().num_rows(), 0);

    let s1 = t
        .write_batches(
            [events(&[
                (1, "2024-01-01", Some(0.5), Some("a")),
                (2, "2024-01-01", Some(1e10), Some("b")),
                (3, "2024-01-02", None, Some("c")),
            ])],
            None,
        )
        .await
        .unwrap();
    assert_eq!(s1, Some(1));
    t.write_batches([events(&[(4, "2024-01-02", Some(2.25), None)])], None)
        .await
        .unwrap();

    // files: the scan plan's files, with partitions, statistics and paths as Java shows them.
    let f = system::files(&t).await.unwrap();
    assert_eq!(f.num_columns(), 20);
    let paths = strs_nn(&f, "file_path");
    let names: BTreeSet<String> = paths.iter().map(|p| basename(p)).collect();
    assert_eq!(names, plan_files(&t, None).await);
    assert_eq!(names.len(), 3);
    for p in &paths {
        let len = std::fs::metadata(p).unwrap().len() as i64;
        let i = paths.iter().position(|x| x == p).unwrap();
        assert_eq!(longs_nn(&f, "file_size_in_bytes")[i], len, "{p}");
        assert!(p.starts_with(dir.to_str().unwrap()), "{p}");
    }
    assert_eq!(
        strs_nn(&f, "partition"),
        ["{2024-01-01}", "{2024-01-02}", "{2024-01-02}"]
    );
    assert!(strs_nn(&f, "file_format").iter().all(|x| x == "parquet"));
    assert!(ints(&f, "level").iter().all(|l| *l == 0));
    assert!(strs(&f, "min_key").iter().all(Option::is_none));
    assert!(strs(&f, "max_key").iter().all(Option::is_none));
    assert_eq!(longs_nn(&f, "record_count"), [2, 1, 1]);
    assert!(strs_nn(&f, "file_source").iter().all(|x| x == "APPEND"));
    assert!(times(&f, "creation_time").iter().all(Option::is_some));
    assert!(col::<arrow_array::ListArray>(&f, "write_cols").is_null(0));
    let by_part = |p: &str, column: &str| -> Vec<String> {
        let parts = strs_nn(&f, "partition");
        strs_nn(&f, column)
            .into_iter()
            .zip(parts)
            .filter(|(_, q)| q == p)
            .map(|(v, _)| v)
            .collect()
    };
    assert_eq!(
        by_part("{2024-01-01}", "null_value_counts"),
        ["{amount=0, dt=0, id=0, name=0}"]
    );
    assert_eq!(
        by_part("{2024-01-01}", "min_value_stats"),
        ["{amount=0.5, dt=2024-01-01, id=1, name=a}"]
    );
    assert_eq!(
        by_part("{2024-01-01}", "max_value_stats"),
        ["{amount=1.0E10, dt=2024-01-01, id=2, name=b}"]
    );
    let mins: BTreeSet<String> = by_part("{2024-01-02}", "min_value_stats")
        .into_iter()
        .collect();
    assert_eq!(
        mins,
        BTreeSet::from([
            "{amount=null, dt=2024-01-02, id=3, name=c}".to_string(),
            "{amount=2.25, dt=2024-01-02, id=4, name=null}".to_string()
        ])
    );
    let nulls: BTreeSet<String> = by_part("{2024-01-02}", "null_value_counts")
        .into_iter()
        .collect();
    assert_eq!(
        nulls,
        BTreeSet::from([
            "{amount=1, dt=0, id=0, name=0}".to_string(),
            "{amount=0, dt=0, id=0, name=1}".to_string()
        ])
    );

    // Time travel: the files of snapshot 1 are its scan plan's.
    let f1 = system::files_at(&t, Some(1)).await.unwrap();
    let names1: BTreeSet<String> = strs_nn(&f1, "file_path")
        .iter()
        .map(|p| basename(p))
        .collect();
    assert_eq!(names1, plan_files(&t, Some(1)).await);
    assert_eq!(names1.len(), 2);
    let err = system::files_at(&t, Some(9)).await.unwrap_err();
    assert!(
        err.kind() == strata::ErrorKind::NotFound && err.snapshot() == Some(9),
        "{err}"
    );

    // INSERT OVERWRITE of one partition, then tags.
    t.write_batches(
        [events(&[(5, "2024-01-01", Some(-1.0), Some("z"))])],
        Some(OverwriteScope::Dynamic),
    )
    .await
    .unwrap();
    t.create_tag("v1", Some(1), None).await.unwrap();
    t.create_tag("a-kept", None, Some(Duration::from_secs(3600)))
        .await
        .unwrap();

    // snapshots: ids, kinds, counts, local commit times, manifest lists.
    let s = system::snapshots(&t).await.unwrap();
    let snaps = t.snapshot_manager().all().await.unwrap();
    assert_eq!(longs_nn(&s, "snapshot_id"), [1, 2, 3]);
    assert_eq!(
        strs_nn(&s, "commit_kind"),
        ["APPEND", "APPEND", "OVERWRITE"]
    );
    assert_eq!(longs(&s, "total_record_count"), [Some(3), Some(4), Some(3)]);
    assert_eq!(
        longs(&s, "delta_record_count"),
        [Some(3), Some(1), Some(-1)]
    );
    assert_eq!(
        times(&s, "commit_time"),
        snaps
            .iter()
            .map(|x| Some(local(x.time_millis)))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        strs_nn(&s, "base_manifest_list"),
        snaps
            .iter()
            .map(|x| x.base_manifest_list.clone())
            .collect::<Vec<_>>()
    );
    assert_eq!(
        strs_nn(&s, "commit_user"),
        snaps
            .iter()
            .map(|x| x.commit_user.clone())
            .collect::<Vec<_>>()
    );
    assert!(strs(&s, "changelog_manifest_list")
        .iter()
        .all(Option::is_none));

    // schemas: the schema file's members as flat JSON.
    let file = schema_file(&dir, 0);
    let sc = system::schemas(&t).await.unwrap();
    assert_eq!(longs_nn(&sc, "schema_id"), [0]);
    assert_eq!(
        strs_nn(&sc, "fields"),
        [serde_json::to_string(&file["fields"]).unwrap()]
    );
    assert_eq!(strs_nn(&sc, "partition_keys"), [r#"["dt"]"#]);
    assert_eq!(strs_nn(&sc, "primary_keys"), ["[]"]);
    let opts: serde_json::Value = serde_json::from_str(&strs_nn(&sc, "options")[0]).unwrap();
    assert_eq!(opts, file["options"]);
    assert_eq!(strs(&sc, "comment"), [Some("events".to_string())]);
    assert_eq!(
        times(&sc, "update_time"),
        [Some(local(file["timeMillis"].as_i64().unwrap()))]
    );

    // options: the schema file's options.
    let o = system::options(&t).await.unwrap();
    let got: BTreeMap<String, String> = strs_nn(&o, "key")
        .into_iter()
        .zip(strs_nn(&o, "value"))
        .collect();
    let want: BTreeMap<String, String> = file["options"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect();
    assert_eq!(got, want);

    // manifests of the latest snapshot: their adds minus deletes are the live files.
    let m = system::manifests(&t).await.unwrap();
    let latest = t.snapshot_manager().latest().await.unwrap().unwrap();
    let metas = t.manifest_store().data_manifests(&latest).await.unwrap();
    assert_eq!(
        strs_nn(&m, "file_name"),
        metas
            .iter()
            .map(|x| x.file_name.clone())
            .collect::<Vec<_>>()
    );
    let added: i64 = longs_nn(&m, "num_added_files").iter().sum();
    let deleted: i64 = longs_nn(&m, "num_deleted_files").iter().sum();
    assert_eq!((added, deleted), (4, 1));
    for p in strs_nn(&m, "min_partition_stats") {
        assert!(p == "{2024-01-01}" || p == "{2024-01-02}", "{p}");
    }
    assert_eq!(
        system::manifests_at(&t, Some(1)).await.unwrap().num_rows(),
        1
    );

    // partitions and buckets: sums of the live files.
    let f = system::files(&t).await.unwrap();
    let parts = strs_nn(&f, "partition");
    let sizes = longs_nn(&f, "file_size_in_bytes");
    let created = times(&f, "creation_time");
    let size_of = |p: &str| -> i64 {
        parts
            .iter()
            .zip(&sizes)
            .filter(|(q, _)| *q == p)
            .map(|(_, s)| s)
            .sum()
    };
    let newest = |p: &str| {
        parts
            .iter()
            .zip(&created)
            .filter(|(q, _)| *q == p)
            .filter_map(|(_, c)| *c)
            .max()
    };
    let pt = system::partitions(&t).await.unwrap();
    assert_eq!(
        strs_nn(&pt, "partition"),
        ["dt=2024-01-01", "dt=2024-01-02"]
    );
    assert_eq!(longs_nn(&pt, "record_count"), [1, 2]);
    assert_eq!(longs_nn(&pt, "file_count"), [1, 2]);
    assert_eq!(
        longs_nn(&pt, "file_size_in_bytes"),
        [size_of("{2024-01-01}"), size_of("{2024-01-02}")]
    );
    assert_eq!(
        times(&pt, "last_update_time"),
        [newest("{2024-01-01}"), newest("{2024-01-02}")]
    );
    assert_eq!(longs(&pt, "deleted_record_count"), [Some(0), Some(0)]);
    assert!(times(&pt, "created_at").iter().all(Option::is_none));
    let done = col::<BooleanArray>(&pt, "done");
    assert!(!done.value(0) && !done.value(1));
    let live = system::live_files(&t, None).await.unwrap();
    assert_eq!(ints(&pt, "total_buckets"), [live.files[0].total_buckets; 2]);
    let old = system::partitions_at(&t, Some(2)).await.unwrap();
    assert_eq!(longs_nn(&old, "record_count"), [2, 2]);

    let bk = system::buckets(&t).await.unwrap();
    assert_eq!(strs_nn(&bk, "partition"), ["{2024-01-01}", "{2024-01-02}"]);
    assert_eq!(ints(&bk, "bucket"), [0, 0]);
    assert_eq!(longs_nn(&bk, "record_count"), [1, 2]);
    assert_eq!(longs_nn(&bk, "file_count"), [1, 2]);
    assert_eq!(
        longs_nn(&bk, "file_size_in_bytes"),
        longs_nn(&pt, "file_size_in_bytes")
    );

    // tags, by name.
    let tg = system::tags(&t).await.unwrap();
    assert_eq!(strs_nn(&tg, "tag_name"), ["a-kept", "v1"]);
    assert_eq!(longs_nn(&tg, "snapshot_id"), [3, 1]);
    assert_eq!(longs(&tg, "record_count"), [Some(3), Some(3)]);
    assert_eq!(strs(&tg, "time_retained"), [Some("PT1H".to_string()), None]);
    let created = times(&tg, "create_time");
    assert!(created[0].is_some() && created[1].is_none());
    assert_eq!(
        times(&tg, "commit_time"),
        [
            Some(local(snaps[2].time_millis)),
            Some(local(snaps[0].time_millis))
        ]
    );

    // consumers: none, then one file.
    let c = system::consumers(&t).await.unwrap();
    assert_eq!((c.num_rows(), c.num_columns()), (0, 2));
    std::fs::create_dir_all(dir.join("consumer")).unwrap();
    std::fs::write(
        dir.join("consumer/consumer-flink-1"),
        r#"{"nextSnapshot":2}"#,
    )
    .unwrap();
    let c = system::consumers(&t).await.unwrap();
    assert_eq!(strs_nn(&c, "consumer_id"), ["flink-1"]);
    assert_eq!(longs_nn(&c, "next_snapshot_id"), [2]);
    std::fs::write(dir.join("consumer/consumer-bad"), "{").unwrap();
    let err = system::consumers(&t).await.unwrap_err().to_string();
    assert!(err.contains("consumer-bad"), "{err}");
    std::fs::remove_file(dir.join("consumer/consumer-bad")).unwrap();

    // levels of an append table: every file at level 0, one sorted run each.
    let lv = system::levels(&t).await.unwrap();
    assert_eq!(lv.num_rows(), 3);
    assert!(ints(&lv, "level").iter().all(|l| *l == 0));
    assert_eq!(ints(&lv, "sorted_run"), [0, 0, 1]);

    // Dispatch by name, case-insensitively; errors name the table and the known tables.
    assert_eq!(
        system::system_table(&t, "FILES").await.unwrap(),
        system::files(&t).await.unwrap()
    );
    let err = system::system_table(&t, "snapshot")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("db.events") && err.contains("snapshots, schemas, options"),
        "{err}"
    );
    let err = system::system_table_at(&t, "tags", Some(1))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("db.events$tags"), "{err}");
    assert_eq!(
        system::system_table_at(&t, "files", Some(1)).await.unwrap(),
        f1
    );
}
