//! Decoupled changelog lifecycle (`changelog.time-retained` / `changelog.num-retained.*` above
//! `snapshot.*`, Java `ExpireSnapshotsImpl` + `ExpireChangelogImpl`): expired snapshots become
//! `changelog/changelog-N` with the snapshot's JSON and keep the files their changes are read
//! from; streams read those changes; changelog expiry deletes what only they used; orphan
//! cleanup and rollback respect them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use arrow::array::{Array, Int64Array, StringArray};
use futures::StreamExt;
use strata::maintenance::{
    ChangelogExpireConfig, ExpireChangelogs, ExpireConfig, ExpireSnapshots, TableLifecycle,
};
use strata::spec::kv::RowKind;
use strata::stream::StartingPosition;
use strata::table::Table;

use crate::lifecycle_support::*;

/// Commit `i`: upserts of a sliding window of ids and, every other commit, a delete.
async fn commit(t: &Table, i: i64) -> i64 {
    let mut w = t.new_write().unwrap();
    let ups = batch(i * 3..i * 3 + 10, &format!("c{i}"));
    w.write_with_kinds(&ups, &vec![RowKind::Insert; ups.num_rows()])
        .await
        .unwrap();
    if i % 2 == 1 {
        let del = batch(i * 3 - 2..i * 3 - 1, "x");
        w.write_with_kinds(&del, &[RowKind::Delete]).await.unwrap();
    }
    let c = t
        .new_commit()
        .unwrap()
        .commit_messages(w.prepare_commit().await.unwrap(), None)
        .await
        .unwrap();
    c.append.unwrap()
}

async fn expire_snapshots(t: &Table, retain_min: i32) -> Vec<i64> {
    tokio::time::sleep(Duration::from_millis(3)).await;
    ExpireSnapshots::new(t)
        .unwrap()
        .with_config(ExpireConfig {
            retain_max: i32::MAX,
            retain_min,
            time_retained: Duration::ZERO,
            max_deletes: 1000,
        })
        .expire()
        .await
        .unwrap()
        .expired
}

fn changelog_config(retain_max: i32) -> ChangelogExpireConfig {
    ChangelogExpireConfig {
        retain_max,
        retain_min: 1,
        time_retained: Duration::ZERO,
        max_deletes: 1000,
    }
}

/// Replays a stream from `start` until `until` into id → v; also the snapshot ids seen.
async fn replay(
    t: &Table,
    start: StartingPosition,
    until: i64,
) -> (BTreeMap<i64, String>, Vec<i64>) {
    let mut s = t
        .new_stream_read()
        .with_start(start)
        .with_poll_interval(Duration::from_millis(10))
        .until_snapshot(until)
        .changes()
        .unwrap();
    let (mut model, mut ids) = (BTreeMap::new(), Vec::new());
    while let Some(b) = s.next().await {
        let b = b.unwrap();
        if ids.last() != Some(&b.snapshot_id) {
            ids.push(b.snapshot_id);
        }
        let col = |i: usize| b.batch.column(i).clone();
        let (kind, id, v) = (col(0), col(1), col(2));
        let kind = kind.as_any().downcast_ref::<StringArray>().unwrap();
        let id = id.as_any().downcast_ref::<Int64Array>().unwrap();
        let v = v.as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.batch.num_rows() {
            match kind.value(i) {
                "+I" | "+U" => {
                    model.insert(id.value(i), v.value(i).to_string());
                }
                _ => {
                    model.remove(&id.value(i));
                }
            }
        }
    }
    (model, ids)
}

async fn stream_error(t: &Table, start: StartingPosition) -> String {
    t.new_stream_read()
        .with_start(start)
        .changes()
        .unwrap()
        .next()
        .await
        .unwrap()
        .unwrap_err()
        .to_string()
}

fn names_in(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn changelog_files_on_disk(dir: &Path) -> BTreeSet<String> {
    files_on_disk(dir)
        .into_iter()
        .filter(|f| f.contains("changelog-") && f.ends_with(".parquet"))
        .map(|f| f.rsplit('/').next().unwrap_or(&f).to_string())
        .collect()
}

/// The changelog files the long-lived changelogs `ids` name.
async fn changelog_files_of(t: &Table, ids: &[i64]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for id in ids {
        let c = t.changelog_manager().changelog(*id).await.unwrap();
        let list = c.changelog_manifest_list.unwrap();
        let metas = t.manifest_store().read_list(&list).await.unwrap();
        for entries in t.manifest_store().read_manifests(&metas).await.unwrap() {
            out.extend(entries.into_iter().map(|e| e.file.file_name));
        }
    }
    out
}

async fn no_orphans(t: &Table) {
    let far = chrono::Utc::now().timestamp_millis() + 86_400_000;
    let r = t.remove_orphan_files(far, true).await.unwrap();
    assert_eq!(r.count(), 0, "orphans: {:?}", r.files);
}

#[tokio::test]
async fn input_producer_changelogs_outlive_their_snapshots() {
    let lake = Lake::new();
    let t = lake
        .pk_table(
            "db.t",
            r#","changelog-producer":"input","write-only":"true","changelog.time-retained":"7d""#,
        )
        .await;
    let dir = lake.table_dir("db.t");
    let mut jsons = BTreeMap::new();
    for i in 1..=6 {
        assert_eq!(commit(&t, i).await, i);
        jsons.insert(
            i,
            std::fs::read_to_string(dir.join(format!("snapshot/snapshot-{i}"))).unwrap(),
        );
    }
    let final_rows = rows(&t, None).await;
    let all_changelog_files = changelog_files_on_disk(&dir);

    assert_eq!(expire_snapshots(&t, 2).await, [1, 2, 3, 4]);
    assert_eq!(snapshot_ids_on_disk(&dir), [5, 6]);
    let changelog_dir = dir.join("changelog");
    assert_eq!(
        names_in(&changelog_dir),
        [
            "LATEST",
            "changelog-1",
            "changelog-2",
            "changelog-3",
            "changelog-4"
        ]
        .map(String::from)
        .into(),
        "Java writes changelog-N and the LATEST hint, no EARLIEST"
    );
    assert_eq!(
        std::fs::read_to_string(changelog_dir.join("LATEST")).unwrap(),
        "4"
    );
    for i in 1..=4 {
        assert_eq!(
            std::fs::read_to_string(changelog_dir.join(format!("changelog-{i}"))).unwrap(),
            jsons[&i],
            "changelog-{i} is the snapshot's JSON"
        );
    }
    assert_eq!(
        changelog_files_on_disk(&dir),
        all_changelog_files,
        "changelog files stay"
    );
    no_orphans(&t).await;

    // A stream from snapshot 1 reads 1..4 from changelog/, then 5 and 6.
    let (model, ids) = replay(&t, StartingPosition::FromSnapshot(1), 6).await;
    assert_eq!(ids, [1, 2, 3, 4, 5, 6]);
    assert_eq!(model, final_rows);
    // From a time: the changelogs are searched too.
    let t2 = t
        .changelog_manager()
        .changelog(2)
        .await
        .unwrap()
        .time_millis;
    let (_, ids) = replay(&t, StartingPosition::FromTimestamp(t2), 6).await;
    assert_eq!(ids, [3, 4, 5, 6]);
    // A whole-snapshot start needs the snapshot.
    let err = stream_error(&t, StartingPosition::FromSnapshotFull(2)).await;
    assert!(err.contains("snapshot 2 expired"), "{err}");
    // Incremental (batch) reads follow Java: only snapshots, the range error stays.
    let err = t
        .new_incremental_scan(strata::scan::IncrementalBetween::ids(1, 6))
        .plan()
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("out of the available snapshots"), "{err}");

    // Changelog expiry: keep the changelogs of the last 4 ids (3..6); changelog 4 (the
    // latest) always stays as the end of the range, so 1, 2 and 3 go... and 3 is older than
    // the window only if its id is below latest - max + 1 = 3: 1 and 2 go by count, 3 by time.
    tokio::time::sleep(Duration::from_millis(3)).await;
    let gone = changelog_files_of(&t, &[1, 2, 3]).await;
    let kept = changelog_files_of(&t, &[4]).await;
    let r = ExpireChangelogs::new(&t)
        .unwrap()
        .with_config(changelog_config(4))
        .expire()
        .await
        .unwrap();
    assert_eq!(r.expired, [1, 2, 3]);
    assert_eq!(r.earliest, Some(4));
    assert_eq!(r.deleted.long_lived_changelogs, 3);
    assert_eq!(
        names_in(&changelog_dir),
        ["EARLIEST", "LATEST", "changelog-4"]
            .map(String::from)
            .into()
    );
    assert_eq!(
        std::fs::read_to_string(changelog_dir.join("EARLIEST")).unwrap(),
        "4"
    );
    let on_disk = changelog_files_on_disk(&dir);
    assert!(
        gone.is_disjoint(&on_disk),
        "changelog files of 1..3 deleted"
    );
    assert!(kept.is_subset(&on_disk), "changelog files of 4 kept");
    no_orphans(&t).await;
    let err = stream_error(&t, StartingPosition::FromSnapshot(3)).await;
    assert!(err.contains("no changelog/changelog-3"), "{err}");
    let (_, ids) = replay(&t, StartingPosition::FromSnapshot(4), 6).await;
    assert_eq!(ids, [4, 5, 6]);
    assert_eq!(rows(&t, None).await, final_rows);
}

#[tokio::test]
async fn none_producer_keeps_the_delta_files_until_the_changelog_expires() {
    let lake = Lake::new();
    let t = lake
        .pk_table(
            "db.t",
            r#","write-only":"true","changelog.num-retained.min":"20""#,
        )
        .await;
    let dir = lake.table_dir("db.t");
    for i in 1..=3 {
        commit(&t, i).await;
    }
    assert_eq!(full_compact(&t).await, 4);
    commit(&t, 5).await;
    commit(&t, 6).await;
    let final_rows = rows(&t, None).await;

    // Snapshot expiry keeps the APPEND files that compaction 4 removed: changelogs 1..3 read
    // them.
    assert_eq!(expire_snapshots(&t, 2).await, [1, 2, 3, 4]);
    no_orphans(&t).await;
    let (model, ids) = replay(&t, StartingPosition::FromSnapshot(1), 6).await;
    assert_eq!(ids, [1, 2, 3, 5, 6], "COMPACT snapshot 4 holds no changes");
    assert_eq!(model, final_rows);

    // changelog.num-retained.min = 20 keeps everything.
    let r = ExpireChangelogs::new(&t).unwrap().expire().await.unwrap();
    assert!(r.expired.is_empty());
    // Expire 1..3 (4 is the latest changelog): their files stay, changelog 4 removes them.
    let r = ExpireChangelogs::new(&t)
        .unwrap()
        .with_config(changelog_config(1))
        .expire()
        .await
        .unwrap();
    assert_eq!(r.expired, [1, 2, 3]);
    assert_eq!(r.deleted.data_files, 0);
    no_orphans(&t).await;
    // Delete them all (Java's delete_all): the compacted APPEND files go, the hints too.
    let e = ExpireChangelogs::new(&t).unwrap();
    let plan = e.plan_all().await.unwrap();
    let r = e.execute(&plan).await.unwrap();
    assert_eq!(r.expired, [4]);
    assert!(r.deleted.data_files > 0);
    assert!(names_in(&dir.join("changelog")).is_empty());
    assert_exact_files(&t, &dir).await;
    no_orphans(&t).await;
    assert_eq!(rows(&t, None).await, final_rows);
}

#[tokio::test]
async fn after_commit_expiry_runs_both_and_consumers_protect_changelogs() {
    let lake = Lake::new();
    let t = lake
        .pk_table(
            "db.t",
            r#","changelog-producer":"input","snapshot.num-retained.min":"1","snapshot.num-retained.max":"2","changelog.num-retained.max":"4","num-sorted-run.compaction-trigger":"1000","num-sorted-run.stop-trigger":"2000""#,
        )
        .await;
    let dir = lake.table_dir("db.t");
    for i in 1..=8 {
        commit(&t, i).await;
    }
    // Snapshots: the last 2; changelogs: those of ids 5..6 (the last 4 ids minus the
    // snapshots), the latest changelog always kept.
    assert_eq!(snapshot_ids_on_disk(&dir), [7, 8]);
    assert_eq!(t.changelog_manager().list_ids().await.unwrap(), [5, 6]);
    let (_, ids) = replay(&t, StartingPosition::FromSnapshot(5), 8).await;
    assert_eq!(ids, [5, 6, 7, 8]);

    // A consumer at snapshot 6 (a changelog by now) keeps changelog 6 and every later
    // snapshot.
    let consumers = strata::maintenance::consumers::ConsumerManager::new(&t);
    consumers.reset("c1", 6).await.unwrap();
    for i in 9..=12 {
        commit(&t, i).await;
        if i == 11 {
            t.create_tag("t11", Some(11), None).await.unwrap();
        }
    }
    assert_eq!(snapshot_ids_on_disk(&dir), (7..=12).collect::<Vec<_>>());
    assert_eq!(t.changelog_manager().list_ids().await.unwrap(), [6]);
    let (_, ids) = replay(&t, StartingPosition::FromSnapshot(6), 12).await;
    assert_eq!(ids, (6..=12).collect::<Vec<_>>());
    // Without the consumer, the next commit expires down to the retention again.
    consumers.delete("c1").await.unwrap();
    commit(&t, 13).await;
    assert_eq!(snapshot_ids_on_disk(&dir), [12, 13]);
    assert_eq!(t.changelog_manager().list_ids().await.unwrap(), [10, 11]);
    no_orphans(&t).await;

    // Rollback (Java `RollbackHelper`): changelogs above the target are deleted.
    t.create_tag("t12", Some(12), None).await.unwrap();
    commit(&t, 14).await;
    assert_eq!(t.changelog_manager().list_ids().await.unwrap(), [11, 12]);
    let r = t.rollback_to_tag("t12").await.unwrap();
    assert_eq!(r.snapshot_id, 12);
    assert_eq!(t.changelog_manager().list_ids().await.unwrap(), [11, 12]);
    let r = t.rollback_to_tag("t11").await.unwrap();
    assert_eq!((r.snapshot_id, r.deleted.long_lived_changelogs), (11, 1));
    assert_eq!(t.changelog_manager().list_ids().await.unwrap(), [11]);
    assert_eq!(
        std::fs::read_to_string(dir.join("changelog/LATEST")).unwrap(),
        "11"
    );
    assert_eq!(rows(&t, None).await, rows(&t, Some(11)).await);
}
