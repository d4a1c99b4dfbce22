//! Snapshot expiry on real tables: exactly the files of retained snapshots and tags stay,
//! upgraded files survive while live, tags protect files, `snapshot.time-retained` is
//! honoured, the run after every commit works, and a run stopped after any number of
//! deletions leaves a readable table that a rerun finishes.

use std::time::Duration;

use crate::lifecycle_support::*;
use strata::maintenance::{ExpireConfig, ExpireSnapshots, TableLifecycle};
use strata::table::Table;

fn config(retain_min: i32, retain_max: i32) -> ExpireConfig {
    ExpireConfig {
        retain_max,
        retain_min,
        time_retained: Duration::ZERO,
        max_deletes: 1000,
    }
}

async fn expire(t: &Table, retain_min: i32) -> strata::maintenance::ExpireReport {
    // `time_retained = 0` still keeps a snapshot committed in this very millisecond (Java's
    // `olderThanMills <= timeMillis` stops expiry): let the clock move past the last commit.
    tokio::time::sleep(Duration::from_millis(3)).await;
    ExpireSnapshots::new(t)
        .unwrap()
        .with_config(config(retain_min, i32::MAX))
        .expire()
        .await
        .unwrap()
}

#[tokio::test]
async fn expiry_keeps_exactly_the_retained_files_and_upgraded_files_while_live() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    let dir = lake.table_dir("db.t");
    let h = build_history(&t).await;
    let latest_rows = rows(&t, None).await;
    let rows_at_3 = rows(&t, Some(3)).await;
    assert_exact_files(&t, &dir).await;

    // Keep s2..s5: s2 upgraded A (DELETE L0 + ADD Lmax in one delta) — A must stay.
    let r = expire(&t, 4).await;
    assert_eq!(r.expired, [1]);
    assert_eq!(snapshot_ids_on_disk(&dir), [2, 3, 4, 5]);
    assert!(
        data_files_on_disk(&dir).contains(&h.a),
        "upgraded A is live in s2, s3"
    );
    assert_eq!(r.deleted.data_files, 0);
    assert_exact_files(&t, &dir).await;
    assert_eq!(
        std::fs::read_to_string(dir.join("snapshot/EARLIEST")).unwrap(),
        "2"
    );

    // Keep s3..s5: s3 still has A (upgraded) and B live.
    let r = expire(&t, 3).await;
    assert_eq!(r.expired, [2]);
    let on_disk = data_files_on_disk(&dir);
    assert!(on_disk.contains(&h.a) && on_disk.contains(&h.b));
    assert_exact_files(&t, &dir).await;
    assert_eq!(rows(&t, Some(3)).await, rows_at_3);

    // Keep s4, s5: A and B were rewritten in s4, so nothing uses them any more.
    let r = expire(&t, 2).await;
    assert_eq!(r.expired, [3]);
    let on_disk = data_files_on_disk(&dir);
    assert!(!on_disk.contains(&h.a) && !on_disk.contains(&h.b));
    assert_eq!(r.deleted.data_files, 2);
    assert_exact_files(&t, &dir).await;
    assert_eq!(rows(&t, None).await, latest_rows);
    assert_eq!(t.snapshot_manager().earliest_id().await.unwrap(), Some(4));

    // Nothing more to expire with 2 retained: a no-op.
    let r = expire(&t, 2).await;
    assert!(r.expired.is_empty());
    assert_eq!(r.deleted.total(), 0);
}

#[tokio::test]
async fn tags_protect_their_files_and_deleting_the_tag_frees_them() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    let dir = lake.table_dir("db.t");
    let h = build_history(&t).await;
    let rows_at_3 = rows(&t, Some(3)).await;
    t.create_tag("before-rewrite", Some(3), None).await.unwrap();
    let tag_file = dir.join("tag/tag-before-rewrite");
    assert_eq!(
        std::fs::read_to_string(&tag_file).unwrap(),
        t.snapshot_manager()
            .snapshot(3)
            .await
            .unwrap()
            .to_json()
            .unwrap(),
        "a tag without retention is the snapshot JSON"
    );

    let r = expire(&t, 1).await;
    assert_eq!(r.expired, [1, 2, 3, 4]);
    assert_eq!(snapshot_ids_on_disk(&dir), [5]);
    let on_disk = data_files_on_disk(&dir);
    assert!(
        on_disk.contains(&h.a) && on_disk.contains(&h.b),
        "the tag holds A and B"
    );
    assert_exact_files(&t, &dir).await;

    // The tag still reads as s3 did, through the tag's copy of the snapshot.
    let (tt, scan) = t
        .travel_to(&strata::maintenance::TravelTarget::Tag(
            "before-rewrite".into(),
        ))
        .await
        .unwrap();
    assert_eq!(rows_of(&tt, scan).await, rows_at_3);

    let d = t.delete_tag("before-rewrite").await.unwrap();
    assert!(!tag_file.exists());
    assert_eq!(d.deleted.tags, 1);
    assert!(d.deleted.data_files >= 2, "{d:?}");
    let on_disk = data_files_on_disk(&dir);
    assert!(!on_disk.contains(&h.a) && !on_disk.contains(&h.b));
    assert_exact_files(&t, &dir).await;
    assert!(t.delete_tag("before-rewrite").await.is_err());
}

#[tokio::test]
async fn deleting_a_tag_of_a_live_snapshot_deletes_only_the_tag_file() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    let dir = lake.table_dir("db.t");
    build_history(&t).await;
    t.create_tag("x", None, None).await.unwrap();
    assert_eq!(t.tags().await.unwrap()[0].snapshot.id, 5);
    let before = files_on_disk(&dir);
    let d = t.delete_tag("x").await.unwrap();
    assert_eq!(d.deleted.total(), 1);
    let mut expected = before;
    expected.remove("tag/tag-x");
    assert_eq!(files_on_disk(&dir), expected);
    // Bad input is refused with the name in the message.
    let e = t.create_tag("", None, None).await.unwrap_err().to_string();
    assert!(e.contains("blank"), "{e}");
    let e = t
        .create_tag("y", Some(42), None)
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("42"), "{e}");
    t.create_tag("y", None, None).await.unwrap();
    let e = t.create_tag("y", None, None).await.unwrap_err().to_string();
    assert!(e.contains("already exists"), "{e}");
}

#[tokio::test]
async fn time_retained_keeps_snapshots_whose_successor_is_young() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    let dir = lake.table_dir("db.t");
    let h = build_history(&t).await;
    assert!(h.times.windows(2).all(|w| w[0] < w[1]), "{:?}", h.times);
    let hour = Duration::from_secs(3600);
    let at = |now: i64| {
        ExpireSnapshots::new(&t)
            .unwrap()
            .with_config(ExpireConfig {
                time_retained: hour,
                ..config(1, i32::MAX)
            })
            .with_now_millis(now)
    };
    // "now" one hour after s2: s1 may expire (its successor s2 is an hour old), s2 not yet
    // (s3 is younger than an hour).
    let r = at(h.times[1] + 3_600_001).expire().await.unwrap();
    assert_eq!(r.expired, [1]);
    // An hour after s4: s2 and s3 go, s4 stays.
    let r = at(h.times[3] + 3_600_001).expire().await.unwrap();
    assert_eq!(r.expired, [2, 3]);
    assert_eq!(snapshot_ids_on_disk(&dir), [4, 5]);
    // retain-max forces expiry whatever the age.
    let r = ExpireSnapshots::new(&t)
        .unwrap()
        .with_config(ExpireConfig {
            time_retained: hour * 1000,
            ..config(1, 1)
        })
        .expire()
        .await
        .unwrap();
    assert_eq!(r.expired, [4]);
    assert_exact_files(&t, &dir).await;
}

/// The exact boundary of `snapshot.time-retained`, Java 2.0's `ExpireSnapshotsImpl`: with
/// `now - time-retained = T`, snapshot `n` expires only once its successor `n + 1` was
/// committed before `T` (strictly). Java 1.4 compared snapshot `n`'s own time, and would expire
/// one snapshot more at every step below; strata keeps the rule that never expires a snapshot
/// either version keeps (see `ExpireSnapshots::plan`).
#[tokio::test]
async fn time_retained_boundary_is_the_successor_commit_time() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", r#","write-only":"true""#).await;
    for i in 0..5 {
        assert_eq!(write(&t, batch(i * 10..i * 10 + 10, "v")).await, i + 1);
        sleep_ms(3).await;
    }
    let time = |id: i64| {
        let t = t.clone();
        async move { t.snapshot_manager().snapshot(id).await.unwrap().time_millis }
    };
    let mut times = Vec::new();
    for id in 1..=5 {
        times.push(time(id).await);
    }
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
    let retained = Duration::from_secs(60);
    let expired_when_older_than = |older_than: i64| {
        let t = t.clone();
        async move {
            ExpireSnapshots::new(&t)
                .unwrap()
                .with_config(ExpireConfig {
                    time_retained: retained,
                    ..config(1, i32::MAX)
                })
                .with_now_millis(older_than + 60_000)
                .plan()
                .await
                .unwrap()
                .expired
        }
    };
    assert_eq!(expired_when_older_than(times[0]).await, Vec::<i64>::new());
    for k in 2..=5i64 {
        let tk = times[k as usize - 1];
        // Snapshot k committed exactly at the window's start: k - 1 is still the snapshot of
        // that instant and stays (Java 1.4 expired it).
        assert_eq!(
            expired_when_older_than(tk).await,
            (1..k - 1).collect::<Vec<_>>(),
            "older than {tk} (snapshot {k}'s commit time)"
        );
        // One millisecond later snapshot k is older than the window: k - 1 goes.
        assert_eq!(
            expired_when_older_than(tk + 1).await,
            (1..k).collect::<Vec<_>>(),
            "older than {} (just after snapshot {k})",
            tk + 1
        );
    }
    // Nothing was deleted by planning.
    assert_eq!(
        snapshot_ids_on_disk(&lake.table_dir("db.t")),
        [1, 2, 3, 4, 5]
    );
}

#[tokio::test]
async fn expire_limit_bounds_one_run() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    let dir = lake.table_dir("db.t");
    build_history(&t).await;
    let r = ExpireSnapshots::new(&t)
        .unwrap()
        .with_config(ExpireConfig {
            max_deletes: 2,
            ..config(1, i32::MAX)
        })
        .expire()
        .await
        .unwrap();
    assert_eq!(r.expired, [1, 2]);
    assert_exact_files(&t, &dir).await;
}

#[tokio::test]
async fn expiry_runs_after_every_commit_with_the_table_options() {
    let lake = Lake::new();
    let t = lake
        .pk_table(
            "db.t",
            r#","snapshot.num-retained.min":"2","snapshot.num-retained.max":"3","snapshot.time-retained":"1 h""#,
        )
        .await;
    let dir = lake.table_dir("db.t");
    for i in 0..6 {
        write(&t, batch(i * 100..i * 100 + 300, &format!("v{i}"))).await;
        let ids = snapshot_ids_on_disk(&dir);
        assert!(
            ids.len() <= 3,
            "at most 3 snapshots after commit {i}: {ids:?}"
        );
    }
    // Young snapshots: the time rule keeps more than the minimum, the maximum still holds.
    assert_eq!(snapshot_ids_on_disk(&dir).len(), 3);
    assert_exact_files(&t, &dir).await;
    let mut expected = std::collections::BTreeMap::new();
    for i in 0..6i64 {
        for (k, v) in rows_of_batch(batch(i * 100..i * 100 + 300, &format!("v{i}"))) {
            expected.insert(k, v);
        }
    }
    assert_eq!(rows(&t, None).await, expected);

    // write-only tables never expire after a commit.
    let w = lake
        .pk_table(
            "db.w",
            r#","snapshot.num-retained.min":"1","snapshot.num-retained.max":"1","write-only":"true""#,
        )
        .await;
    for i in 0..3 {
        write(&w, batch(i * 10..i * 10 + 10, "w")).await;
    }
    assert_eq!(snapshot_ids_on_disk(&lake.table_dir("db.w")), [1, 2, 3]);
}

fn rows_of_batch(b: arrow_array::RecordBatch) -> Vec<(i64, String)> {
    use arrow_array::{Array, Int64Array, StringArray};
    let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
    let v = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
    (0..b.num_rows())
        .map(|i| (id.value(i), v.value(i).to_string()))
        .collect()
}

#[tokio::test]
async fn an_interrupted_expiry_leaves_a_readable_table_and_a_rerun_finishes() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    build_history(&t).await;
    t.create_tag("t2", Some(2), None).await.unwrap();
    let latest_rows = rows(&t, None).await;
    let rows_at_4 = rows(&t, Some(4)).await;
    let expire_cfg = config(2, i32::MAX);

    // The uninterrupted run, on a copy: the reference end state.
    let reference = lake.copy();
    let rt = reference.table("db.t").await;
    let plan = ExpireSnapshots::new(&rt)
        .unwrap()
        .with_config(expire_cfg.clone())
        .plan()
        .await
        .unwrap();
    assert_eq!(plan.expired, [1, 2, 3]);
    let n = plan.deletions.len();
    assert!(n >= 6, "{plan:?}");
    // Crash-safe order: data files first, snapshot files last in id order.
    use strata::maintenance::FileCategory as C;
    let pos = |c: C| plan.deletions.iter().position(|d| d.category == c);
    let last = |c: C| plan.deletions.iter().rposition(|d| d.category == c);
    let before = |a: C, b: C| match (last(a), pos(b)) {
        (Some(x), Some(y)) => x < y,
        _ => true,
    };
    assert!(pos(C::Data).is_some() && pos(C::ManifestList).is_some());
    assert!(before(C::Data, C::Manifest), "data files before manifests");
    assert!(
        before(C::Data, C::ManifestList),
        "data files before manifest lists"
    );
    assert!(
        before(C::Manifest, C::ManifestList),
        "manifests before their lists"
    );
    assert!(before(C::ManifestList, C::Snapshot), "snapshot files last");
    let snaps: Vec<String> = plan
        .deletions
        .iter()
        .filter(|d| d.category == C::Snapshot)
        .map(|d| d.path.to_string())
        .collect();
    assert!(snaps
        .iter()
        .zip(["snapshot-1", "snapshot-2", "snapshot-3"])
        .all(|(p, n)| p.ends_with(n)));
    ExpireSnapshots::new(&rt)
        .unwrap()
        .with_config(expire_cfg.clone())
        .execute(&plan)
        .await
        .unwrap();
    let end_state = files_on_disk(&reference.table_dir("db.t"));
    assert_exact_files(&rt, &reference.table_dir("db.t")).await;

    for k in [0, 1, n / 3, n / 2, n - 2, n - 1, n] {
        let copy = lake.copy();
        let dir = copy.table_dir("db.t");
        let ct = copy.table("db.t").await;
        // A run that stopped after its first k deletions.
        let plan = ExpireSnapshots::new(&ct)
            .unwrap()
            .with_config(expire_cfg.clone())
            .plan()
            .await
            .unwrap();
        for d in &plan.deletions[..k] {
            std::fs::remove_file(format!("/{}", d.path)).unwrap();
        }
        // Still readable: the latest snapshot, the first retained one, the tag.
        assert_eq!(rows(&ct, None).await, latest_rows, "k = {k}");
        assert_eq!(rows(&ct, Some(4)).await, rows_at_4, "k = {k}");
        let (tt, scan) = ct
            .travel_to(&strata::maintenance::TravelTarget::Tag("t2".into()))
            .await
            .unwrap();
        rows_of(&tt, scan).await;
        // The rerun finishes the job: same files as the uninterrupted run.
        ExpireSnapshots::new(&ct)
            .unwrap()
            .with_config(expire_cfg.clone())
            .expire()
            .await
            .unwrap();
        assert_eq!(files_on_disk(&dir), end_state, "k = {k}");
    }
}

#[tokio::test]
async fn clean_empty_directories_removes_emptied_partitions() {
    use std::sync::Arc;
    let lake = Lake::new();
    let t = lake
        .create(
            "db.p",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"dt","type":"STRING"}],
            "partitionKeys":["dt"],"options":{"bucket":"-1","snapshot.clean-empty-directories":"true"}}"#,
        )
        .await;
    let dir = lake.table_dir("db.p");
    let rows_of_dt = |dt: &str| {
        let schema = Arc::new(arrow_schema::Schema::new(vec![
            arrow_schema::Field::new("id", arrow_schema::DataType::Int64, false),
            arrow_schema::Field::new("dt", arrow_schema::DataType::Utf8, true),
        ]));
        arrow_array::RecordBatch::try_new(
            schema,
            vec![
                Arc::new(arrow_array::Int64Array::from(vec![1, 2])),
                Arc::new(arrow_array::StringArray::from(vec![dt, dt])),
            ],
        )
        .unwrap()
    };
    t.write_batches([rows_of_dt("a")], None).await.unwrap();
    t.write_batches(
        [rows_of_dt("b")],
        Some(strata::commit::OverwriteScope::WholeTable),
    )
    .await
    .unwrap();
    assert!(dir.join("dt=a/bucket-0").exists());
    let r = expire(&t, 1).await;
    assert_eq!(r.expired, [1]);
    assert_eq!(r.deleted.data_files, 1);
    assert!(
        !dir.join("dt=a").exists(),
        "the emptied partition directory is removed"
    );
    assert!(dir.join("dt=b/bucket-0").exists());
    assert_exact_files(&t, &dir).await;
}

#[tokio::test]
async fn expiry_deletes_index_files_no_retained_snapshot_uses() {
    let lake = Lake::new();
    // Dynamic-bucket primary-key table: every commit replaces the HASH index file of the
    // buckets it writes to.
    let t = lake
        .create(
            "db.d",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"}],
            "primaryKeys":["id"],"options":{"bucket":"-1"}}"#,
        )
        .await;
    let dir = lake.table_dir("db.d");
    for i in 0..4 {
        write(&t, batch(i * 50..i * 50 + 60, &format!("d{i}"))).await;
    }
    let index_of = |t: strata::table::Table| async move {
        let store = strata::unstable::index::IndexManifestStore::new(&t).unwrap();
        let mut out = std::collections::BTreeSet::new();
        for s in retained(&t).await {
            for e in store.read_snapshot(&s).await.unwrap() {
                out.insert(e.index_file.file_name);
            }
        }
        out
    };
    let before = files_on_disk(&dir.join("index"));
    assert!(before.len() >= 4, "one HASH file per commit: {before:?}");
    assert_eq!(before, index_of(t.clone()).await);
    let latest = rows(&t, None).await;
    let r = expire(&t, 1).await;
    assert_eq!(r.expired, [1, 2, 3]);
    assert!(r.deleted.index_files >= 3, "{r:?}");
    assert!(r.deleted.index_manifests >= 3, "{r:?}");
    let after = files_on_disk(&dir.join("index"));
    assert_eq!(after, index_of(t.clone()).await);
    assert!(after.len() < before.len());
    assert_exact_files(&t, &dir).await;
    assert_eq!(rows(&t, None).await, latest);
    // The table keeps assigning keys to their buckets from the retained index.
    write(&t, batch(0..10, "again")).await;
    assert_eq!(rows(&t, None).await.len(), latest.len());
}

#[tokio::test]
async fn a_consumer_protects_the_snapshot_it_reads_next() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    let dir = lake.table_dir("db.t");
    build_history(&t).await;
    std::fs::create_dir_all(dir.join("consumer")).unwrap();
    std::fs::write(
        dir.join("consumer/consumer-job1"),
        "{\n  \"nextSnapshot\" : 3\n}",
    )
    .unwrap();
    let r = expire(&t, 1).await;
    assert_eq!(r.expired, [1, 2]);
    assert_eq!(snapshot_ids_on_disk(&dir), [3, 4, 5]);
    std::fs::write(dir.join("consumer/consumer-job1"), "not json").unwrap();
    let e = ExpireSnapshots::new(&t)
        .unwrap()
        .with_config(config(1, i32::MAX))
        .expire()
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("consumer-job1"), "{e}");
    assert_exact_files(&t, &dir).await;
}

#[tokio::test]
async fn a_failing_expiry_after_a_commit_is_reported_not_returned() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    let dir = lake.table_dir("db.t");
    write(&t, batch(0..10, "a")).await;
    std::fs::create_dir_all(dir.join("consumer")).unwrap();
    std::fs::write(dir.join("consumer/consumer-broken"), "{").unwrap();
    let mut w = t.new_write().unwrap();
    w.write(&batch(10..20, "b")).await.unwrap();
    let messages = w.prepare_commit().await.unwrap();
    let c = t
        .new_commit()
        .unwrap()
        .commit_messages(messages, None)
        .await
        .expect("the commit itself succeeds");
    assert_eq!(c.append, Some(2));
    let e = c.expire_error.expect("the expiry failure is reported");
    assert!(e.message().contains("consumer-broken"), "{e}");
    assert_eq!(rows(&t, None).await.len(), 20);
}
