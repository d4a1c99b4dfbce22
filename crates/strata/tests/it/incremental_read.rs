//! Incremental reads (`IncrementalScan` + `IncrementalRead`, Paimon's `incremental-between`):
//! delta, diff and auto modes, ranges by snapshot ids, tags and times, the option-driven
//! path, and the errors, on primary-key and append tables strata writes (updates and deletes
//! as row kinds, compactions in the range).

use arrow::array::{Array, Int64Array, StringArray};
use strata::maintenance::TableLifecycle;
use strata::scan::{IncrementalBetween, IncrementalMode, IncrementalScan};
use strata::spec::kv::RowKind;
use strata::table::Table;

use crate::lifecycle_support::{batch, full_compact, sleep_ms, write, Lake};

/// (row kind, id, v) of every row, sorted.
type Rows = Vec<(String, i64, Option<String>)>;

async fn read(t: &Table, scan: IncrementalScan) -> Rows {
    let plan = scan.plan().await.unwrap();
    let read = t.new_incremental_read();
    let schema = read.output_schema().unwrap();
    assert_eq!(schema.field(0).name(), "rowkind");
    let mut out = Vec::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        assert_eq!(b.schema(), schema);
        let k = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
        let id = b.column(schema.index_of("id").unwrap());
        let id = id.as_any().downcast_ref::<Int64Array>().unwrap();
        let v = b.column(schema.index_of("v").unwrap());
        let v = v.as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.num_rows() {
            let value = (!v.is_null(i)).then(|| v.value(i)[..1].to_string());
            out.push((k.value(i).to_string(), id.value(i), value));
        }
    }
    out.sort();
    out
}

async fn between(t: &Table, start: i64, end: i64, mode: IncrementalMode) -> Rows {
    read(
        t,
        t.new_incremental_scan(IncrementalBetween::ids(start, end))
            .with_mode(mode),
    )
    .await
}

fn rows(list: &[(&str, i64, &str)]) -> Rows {
    let mut out: Rows = list
        .iter()
        .map(|(k, id, v)| (k.to_string(), *id, Some(v.to_string())))
        .collect();
    out.sort();
    out
}

async fn write_kinds(t: &Table, ids: std::ops::Range<i64>, version: &str, kinds: &[RowKind]) {
    let mut w = t.new_write().unwrap();
    w.write_with_kinds(&batch(ids, version), kinds)
        .await
        .unwrap();
    t.new_commit()
        .unwrap()
        .commit(w.prepare_commit().await.unwrap())
        .await
        .unwrap();
}

/// Snapshots: 1 APPEND +I 0..4 `a`; 2 APPEND +U 1, +U 2 `b`, -D 3; 3 COMPACT (full);
/// 4 APPEND +I 5, 6 `c`.
async fn pk_history(lake: &Lake) -> Table {
    let t = lake.pk_table("db.pk", r#","write-only":"true""#).await;
    assert_eq!(write(&t, batch(0..4, "a")).await, 1);
    // Distinct commit times for the reads by time.
    sleep_ms(3).await;
    write_kinds(
        &t,
        1..4,
        "b",
        &[RowKind::UpdateAfter, RowKind::UpdateAfter, RowKind::Delete],
    )
    .await;
    sleep_ms(3).await;
    assert_eq!(full_compact(&t).await, 3);
    sleep_ms(3).await;
    assert_eq!(write(&t, batch(5..7, "c")).await, 4);
    t
}

#[tokio::test]
async fn delta_reads_every_record_the_append_snapshots_added() {
    let lake = Lake::new();
    let t = pk_history(&lake).await;
    let all = rows(&[
        ("+I", 0, "a"),
        ("+I", 1, "a"),
        ("+I", 2, "a"),
        ("+I", 3, "a"),
        ("+U", 1, "b"),
        ("+U", 2, "b"),
        ("-D", 3, "b"),
        ("+I", 5, "c"),
        ("+I", 6, "c"),
    ]);
    // The COMPACT snapshot 3 adds nothing to a delta read.
    assert_eq!(between(&t, 0, 4, IncrementalMode::Delta).await, all);
    assert_eq!(
        between(&t, 1, 3, IncrementalMode::Delta).await,
        rows(&[("+U", 1, "b"), ("+U", 2, "b"), ("-D", 3, "b")])
    );
    assert!(between(&t, 2, 3, IncrementalMode::Delta).await.is_empty());
    // auto on a table without a changelog producer is delta.
    assert_eq!(between(&t, 0, 4, IncrementalMode::Auto).await, all);
    // START = END is an empty read, as in Java.
    assert!(between(&t, 2, 2, IncrementalMode::Delta).await.is_empty());
    let plan = t
        .new_incremental_scan(IncrementalBetween::ids(0, 4))
        .plan()
        .await
        .unwrap();
    assert_eq!(plan.mode, IncrementalMode::Delta);
    assert_eq!((plan.start_snapshot, plan.end_snapshot), (Some(0), Some(4)));
}

#[tokio::test]
async fn diff_compares_the_merged_snapshots_key_by_key() {
    let lake = Lake::new();
    let t = pk_history(&lake).await;
    // 1 → 4: 1 and 2 updated, 3 deleted (shown with START's values), 5 and 6 added; 0 is
    // unchanged although compaction rewrote its file.
    assert_eq!(
        between(&t, 1, 4, IncrementalMode::Diff).await,
        rows(&[
            ("+U", 1, "b"),
            ("+U", 2, "b"),
            ("-D", 3, "a"),
            ("+I", 5, "c"),
            ("+I", 6, "c"),
        ])
    );
    // 2 → 4: START already held 3 as a delete and 1, 2 as they are now.
    assert_eq!(
        between(&t, 2, 4, IncrementalMode::Diff).await,
        rows(&[("+I", 5, "c"), ("+I", 6, "c")])
    );
    // 2 → 3: the compaction changed no row (the delete record of 3 is gone, not a change).
    assert!(between(&t, 2, 3, IncrementalMode::Diff).await.is_empty());
    // Backwards is refused, as Java refuses END < START.
    let e = t
        .new_incremental_scan(IncrementalBetween::ids(4, 1))
        .with_mode(IncrementalMode::Diff)
        .plan()
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("incremental-between") && e.contains("4,1"),
        "{e}"
    );
    // A diff needs both snapshots.
    let e = t
        .new_incremental_scan(IncrementalBetween::ids(0, 4))
        .with_mode(IncrementalMode::Diff)
        .plan()
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("snapshot 0 does not exist"), "{e}");
}

#[tokio::test]
async fn tags_read_as_a_diff_unless_tag_to_snapshot() {
    let lake = Lake::new();
    let t = pk_history(&lake).await;
    t.create_tag("first", Some(1), None).await.unwrap();
    t.create_tag("last", Some(4), None).await.unwrap();
    let diff = between(&t, 1, 4, IncrementalMode::Diff).await;
    // Java reads two tags as a diff whatever the mode.
    let scan = t.new_incremental_scan(IncrementalBetween::tags("first", "last"));
    assert_eq!(read(&t, scan.clone()).await, diff);
    assert_eq!(
        read(&t, scan.clone().with_mode(IncrementalMode::Delta)).await,
        diff
    );
    assert_eq!(
        read(&t, scan.clone().with_tag_to_snapshot(true)).await,
        between(&t, 1, 4, IncrementalMode::Delta).await
    );
    let e = t
        .new_incremental_scan(IncrementalBetween::tags("last", "first"))
        .plan()
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("tag end first with snapshot id 1"), "{e}");
    let e = t
        .new_incremental_scan(IncrementalBetween::tags("first", "nope"))
        .plan()
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("didn't find two tags") && e.contains("nope"),
        "{e}"
    );
}

#[tokio::test]
async fn times_resolve_to_the_snapshots_at_or_before_them() {
    let lake = Lake::new();
    let t = pk_history(&lake).await;
    let sm = t.snapshot_manager();
    let time = |s: strata::spec::snapshot::Snapshot| s.time_millis;
    let t1 = time(sm.snapshot(1).await.unwrap());
    let t4 = time(sm.snapshot(4).await.unwrap());
    let by_time = |start: i64, end: i64, mode| {
        t.new_incremental_scan(IncrementalBetween::Timestamps { start, end })
            .with_mode(mode)
    };
    // (t1, t4]: snapshot 1 is the start.
    let plan = by_time(t1, t4, IncrementalMode::Delta)
        .plan()
        .await
        .unwrap();
    assert_eq!((plan.start_snapshot, plan.end_snapshot), (Some(1), Some(4)));
    // From before the first snapshot: the delta starts before it, the diff at it (Paimon
    // 1.4 and 2.0).
    assert_eq!(
        read(&t, by_time(t1 - 1_000, t4, IncrementalMode::Delta)).await,
        between(&t, 0, 4, IncrementalMode::Delta).await
    );
    assert_eq!(
        read(&t, by_time(t1 - 1_000, t4, IncrementalMode::Diff)).await,
        between(&t, 1, 4, IncrementalMode::Diff).await
    );
    // Entirely after the latest snapshot, or equal times: empty.
    assert!(read(&t, by_time(t4 + 1, t4 + 9, IncrementalMode::Delta))
        .await
        .is_empty());
    assert!(read(&t, by_time(t1, t1, IncrementalMode::Delta))
        .await
        .is_empty());
    let e = by_time(t4, t1, IncrementalMode::Delta)
        .plan()
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("incremental-between-timestamp"), "{e}");
}

#[tokio::test]
async fn options_drive_the_scan_and_plain_scans_refuse_them() {
    let lake = Lake::new();
    let t = pk_history(&lake).await;
    let opt = |pairs: &[(&str, &str)]| {
        t.with_dynamic_options(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())))
            .unwrap()
    };
    let dyn_t = opt(&[
        ("incremental-between", "1,4"),
        ("incremental-between-scan-mode", "diff"),
    ]);
    let scan = IncrementalScan::from_options(&dyn_t).unwrap().unwrap();
    assert_eq!(
        read(&dyn_t, scan).await,
        between(&t, 1, 4, IncrementalMode::Diff).await
    );
    assert!(IncrementalScan::from_options(&t).unwrap().is_none());
    // A whole-snapshot scan of such a table would be silently wrong: refused.
    let e = dyn_t.new_scan().plan().await.unwrap_err().to_string();
    assert!(e.contains("incremental-between"), "{e}");

    // Errors name the option and the value.
    let e = IncrementalScan::from_options(&opt(&[
        ("incremental-between", "1,4"),
        ("incremental-between-scan-mode", "sideways"),
    ]))
    .err()
    .map(|e| e.to_string())
    .unwrap_or_else(|| "accepted".into());
    assert!(
        e.contains("incremental-between-scan-mode") && e.contains("sideways"),
        "{e}"
    );
    let scan = |text: &str| {
        IncrementalScan::from_options(&opt(&[("incremental-between", text)]))
            .unwrap()
            .unwrap()
    };
    let e = scan("3,9").plan().await.unwrap_err().to_string();
    assert!(
        e.contains("incremental-between") && e.contains("(3, 9]") && e.contains("[1, 4]"),
        "{e}"
    );
    // changelog on a table without a changelog producer.
    let e = t
        .new_incremental_scan(IncrementalBetween::ids(1, 4))
        .with_mode(IncrementalMode::Changelog)
        .plan()
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("incremental-between-scan-mode") && e.contains("changelog-producer = none"),
        "{e}"
    );
}

#[tokio::test]
async fn append_tables_read_added_files_partitioned() {
    let lake = Lake::new();
    let t = lake
        .create(
            "db.log",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"},
                {"name":"p","type":"STRING"}],
                "partitionKeys":["p"],"options":{"bucket":"-1"}}"#,
        )
        .await;
    let with_p = |ids: std::ops::Range<i64>, v: &str, p: &str| {
        let b = batch(ids, v);
        let n = b.num_rows();
        let mut cols = b.columns().to_vec();
        cols.push(std::sync::Arc::new(StringArray::from(vec![p; n])));
        let mut fields: Vec<_> = b.schema().fields().iter().cloned().collect();
        fields.push(std::sync::Arc::new(arrow::datatypes::Field::new(
            "p",
            arrow::datatypes::DataType::Utf8,
            true,
        )));
        arrow::array::RecordBatch::try_new(
            std::sync::Arc::new(arrow::datatypes::Schema::new(fields)),
            cols,
        )
        .unwrap()
    };
    write(&t, with_p(0..3, "a", "x")).await;
    write(&t, with_p(3..5, "b", "y")).await;
    write(&t, with_p(5..6, "c", "x")).await;
    let second_and_third = rows(&[("+I", 3, "b"), ("+I", 4, "b"), ("+I", 5, "c")]);
    assert_eq!(
        between(&t, 1, 3, IncrementalMode::Delta).await,
        second_and_third
    );
    assert_eq!(
        between(&t, 1, 3, IncrementalMode::Diff).await,
        second_and_third
    );
    assert_eq!(between(&t, 0, 3, IncrementalMode::Auto).await.len(), 6);
    // A projection keeps the kind first.
    let plan = t
        .new_incremental_scan(IncrementalBetween::ids(2, 3))
        .plan()
        .await
        .unwrap();
    let read = t
        .new_incremental_read()
        .with_projection(vec!["p".into(), "id".into()]);
    let batches = read.to_batches(plan.splits).await.unwrap();
    let schema = batches[0].schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["rowkind", "p", "id"]);
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 1);
}

#[tokio::test]
async fn diff_across_buckets_and_many_batches() {
    let lake = Lake::new();
    let t = lake
        .create(
            "db.wide",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"}],
                "primaryKeys":["id"],"options":{"bucket":"3","write-only":"true"}}"#,
        )
        .await;
    write(&t, batch(0..5000, "a")).await;
    // Every third key updated, every seventh deleted, new keys appended.
    let updated: Vec<i64> = (0..5000).filter(|i| i % 3 == 0).collect();
    let mut w = t.new_write().unwrap();
    for id in &updated {
        w.write(&batch(*id..*id + 1, "b")).await.unwrap();
    }
    let deleted: Vec<i64> = (0..5000).filter(|i| i % 7 == 0 && i % 3 != 0).collect();
    for id in &deleted {
        w.write_with_kinds(&batch(*id..*id + 1, "z"), &[RowKind::Delete])
            .await
            .unwrap();
    }
    w.write(&batch(5000..5100, "c")).await.unwrap();
    t.new_commit()
        .unwrap()
        .commit(w.prepare_commit().await.unwrap())
        .await
        .unwrap();
    full_compact(&t).await;
    let plan = t
        .new_incremental_scan(IncrementalBetween::ids(1, 3))
        .with_mode(IncrementalMode::Diff)
        .plan()
        .await
        .unwrap();
    let got = {
        let read = t.new_incremental_read().with_batch_size(100);
        let mut out = Vec::new();
        for b in read.to_batches(plan.splits).await.unwrap() {
            let k = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
            let id = b.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
            for i in 0..b.num_rows() {
                out.push((k.value(i).to_string(), id.value(i)));
            }
        }
        out.sort();
        out
    };
    let mut want: Vec<(String, i64)> = updated
        .iter()
        .map(|i| ("+I".to_string(), *i))
        .chain(deleted.iter().map(|i| ("-D".to_string(), *i)))
        .chain((5000..5100).map(|i| ("+I".to_string(), i)))
        .collect();
    want.sort();
    assert_eq!(got, want);
}

#[tokio::test]
async fn changelog_reads_the_input_records_of_every_snapshot() {
    let lake = Lake::new();
    let t = lake
        .pk_table(
            "db.input",
            r#","write-only":"true","changelog-producer":"input""#,
        )
        .await;
    write(&t, batch(0..3, "a")).await;
    write_kinds(&t, 1..3, "b", &[RowKind::UpdateAfter, RowKind::Delete]).await;
    full_compact(&t).await;
    write(&t, batch(1..2, "c")).await;
    let all = rows(&[
        ("+I", 0, "a"),
        ("+I", 1, "a"),
        ("+I", 2, "a"),
        ("+U", 1, "b"),
        ("-D", 2, "b"),
        ("+I", 1, "c"),
    ]);
    assert_eq!(between(&t, 0, 4, IncrementalMode::Changelog).await, all);
    // auto on a table with a changelog producer reads the changelog.
    assert_eq!(between(&t, 0, 4, IncrementalMode::Auto).await, all);
    assert_eq!(
        between(&t, 1, 2, IncrementalMode::Changelog).await,
        rows(&[("+U", 1, "b"), ("-D", 2, "b")])
    );
    // The same range as a delta and as a diff.
    assert_eq!(between(&t, 0, 4, IncrementalMode::Delta).await, all);
    assert_eq!(
        between(&t, 1, 4, IncrementalMode::Diff).await,
        rows(&[("+I", 1, "c"), ("-D", 2, "a")])
    );
}

#[tokio::test]
async fn diff_of_a_partitioned_table_with_a_projection() {
    let lake = Lake::new();
    let t = lake
        .create(
            "db.parts",
            r#"{"fields":[{"name":"p","type":"STRING NOT NULL"},{"name":"id","type":"BIGINT NOT NULL"},
                {"name":"v","type":"STRING"}],
                "partitionKeys":["p"],"primaryKeys":["p","id"],
                "options":{"bucket":"2","write-only":"true"}}"#,
        )
        .await;
    let rows_of = |p: &str, ids: std::ops::Range<i64>, v: &str| {
        let b = batch(ids, v);
        let n = b.num_rows();
        let schema = std::sync::Arc::new(arrow::datatypes::Schema::new(vec![
            arrow::datatypes::Field::new("p", arrow::datatypes::DataType::Utf8, false),
            arrow::datatypes::Field::new("id", arrow::datatypes::DataType::Int64, false),
            arrow::datatypes::Field::new("v", arrow::datatypes::DataType::Utf8, true),
        ]));
        arrow::array::RecordBatch::try_new(
            schema,
            vec![
                std::sync::Arc::new(StringArray::from(vec![p; n])),
                b.column(0).clone(),
                b.column(1).clone(),
            ],
        )
        .unwrap()
    };
    write(&t, rows_of("x", 0..10, "a")).await;
    write(&t, rows_of("y", 0..10, "a")).await;
    // Same ids in x updated, y untouched, a delete in y.
    write(&t, rows_of("x", 0..3, "b")).await;
    let mut w = t.new_write().unwrap();
    w.write_with_kinds(&rows_of("y", 9..10, "z"), &[RowKind::Delete])
        .await
        .unwrap();
    t.new_commit()
        .unwrap()
        .commit(w.prepare_commit().await.unwrap())
        .await
        .unwrap();
    full_compact(&t).await;
    let plan = t
        .new_incremental_scan(IncrementalBetween::ids(2, 5))
        .with_mode(IncrementalMode::Diff)
        .plan()
        .await
        .unwrap();
    let read = t
        .new_incremental_read()
        .with_projection(vec!["v".into(), "p".into(), "id".into()]);
    let mut got = Vec::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        let names: Vec<String> = b
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        assert_eq!(names, ["rowkind", "v", "p", "id"]);
        let col = |i: usize| b.column(i).as_any().downcast_ref::<StringArray>().unwrap();
        let id = b.column(3).as_any().downcast_ref::<Int64Array>().unwrap();
        for i in 0..b.num_rows() {
            got.push((
                col(0).value(i).to_string(),
                col(2).value(i).to_string(),
                id.value(i),
                col(1).value(i)[..1].to_string(),
            ));
        }
    }
    got.sort();
    let want: Vec<(String, String, i64, String)> = [
        ("+I", "x", 0, "b"),
        ("+I", "x", 1, "b"),
        ("+I", "x", 2, "b"),
        ("-D", "y", 9, "a"),
    ]
    .into_iter()
    .map(|(k, p, id, v)| (k.into(), p.into(), id, v.into()))
    .collect();
    assert_eq!(got, want);
}
