//! Rollback to a snapshot and to a tag (also one whose snapshot expired), and time travel by
//! tag and by timestamp, on real tables.

use std::time::Duration;

use crate::lifecycle_support::*;
use strata::maintenance::time_travel::snapshot_at_or_before;
use strata::maintenance::{ExpireConfig, ExpireSnapshots, TableLifecycle, TravelTarget};

#[tokio::test]
async fn rollback_to_a_snapshot_deletes_newer_snapshots_tags_and_their_files() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    let dir = lake.table_dir("db.t");
    let h = build_history(&t).await;
    let rows_at_3 = rows(&t, Some(3)).await;
    t.create_tag("t2", Some(2), None).await.unwrap();
    t.create_tag("t4", Some(4), None).await.unwrap();
    let live5 = live_files(&t, &t.snapshot_manager().snapshot(5).await.unwrap()).await;

    let r = t.rollback_to_snapshot(3).await.unwrap();
    assert_eq!(r.snapshot_id, 3);
    assert_eq!(r.removed_snapshots, [5, 4]);
    assert_eq!(r.removed_tags, ["t4"]);
    assert!(!r.restored_from_tag);
    assert_eq!(snapshot_ids_on_disk(&dir), [1, 2, 3]);
    assert_eq!(
        std::fs::read_to_string(dir.join("snapshot/LATEST")).unwrap(),
        "3"
    );
    assert!(!dir.join("tag/tag-t4").exists() && dir.join("tag/tag-t2").exists());
    // Files only s4/s5 had are gone; the upgraded A and B (live in s3) stay.
    let on_disk = data_files_on_disk(&dir);
    assert!(on_disk.contains(&h.a) && on_disk.contains(&h.b));
    for f in live5 {
        if f != h.a && f != h.b {
            assert!(
                !on_disk.contains(&f),
                "{f} was only used by removed snapshots"
            );
        }
    }
    assert_exact_files(&t, &dir).await;
    assert_eq!(rows(&t, None).await, rows_at_3);

    // The table goes on from there: the next commit is snapshot 4 again.
    let id = write(&t, batch(9000..9010, "z")).await;
    assert_eq!(id, 4);
    let mut expected = rows_at_3.clone();
    for i in 9000..9010i64 {
        let v = rows(&t, None).await.get(&i).cloned().expect("new row");
        assert!(v.starts_with("z-"));
        expected.insert(i, v);
    }
    assert_eq!(rows(&t, None).await, expected);
    assert_exact_files(&t, &dir).await;

    // Errors name what is wrong.
    let e = t.rollback_to_snapshot(77).await.unwrap_err().to_string();
    assert!(e.contains("77"), "{e}");
    let e = t.rollback_to_tag("nope").await.unwrap_err().to_string();
    assert!(e.contains("nope"), "{e}");
}

#[tokio::test]
async fn rollback_to_a_tag_whose_snapshot_expired_restores_the_snapshot() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    let dir = lake.table_dir("db.t");
    build_history(&t).await;
    let rows_at_2 = rows(&t, Some(2)).await;
    let s2_json = t
        .snapshot_manager()
        .snapshot(2)
        .await
        .unwrap()
        .to_json()
        .unwrap();
    t.create_tag("t2", Some(2), None).await.unwrap();
    ExpireSnapshots::new(&t)
        .unwrap()
        .with_config(ExpireConfig {
            retain_max: i32::MAX,
            retain_min: 2,
            time_retained: Duration::ZERO,
            max_deletes: 100,
        })
        .expire()
        .await
        .unwrap();
    assert_eq!(snapshot_ids_on_disk(&dir), [4, 5]);

    let r = t.rollback_to_tag("t2").await.unwrap();
    assert!(r.restored_from_tag);
    assert_eq!(r.removed_snapshots, [5, 4]);
    assert_eq!(snapshot_ids_on_disk(&dir), [2]);
    assert_eq!(
        std::fs::read_to_string(dir.join("snapshot/snapshot-2")).unwrap(),
        s2_json
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("snapshot/EARLIEST")).unwrap(),
        "2"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("snapshot/LATEST")).unwrap(),
        "2"
    );
    // Files added by the snapshots between the tag and the removed ones (s3, s4 expired) go too.
    assert_exact_files(&t, &dir).await;
    assert_eq!(rows(&t, None).await, rows_at_2);
    assert!(dir.join("tag/tag-t2").exists());
}

#[tokio::test]
async fn time_travel_by_timestamp_and_tag() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    let h = build_history(&t).await;
    let at = |ms| snapshot_at_or_before(&t, ms);
    assert_eq!(at(h.times[2]).await.unwrap().id, 3);
    assert_eq!(at(h.times[2] + 1).await.unwrap().id, 3);
    assert_eq!(at(h.times[2] - 1).await.unwrap().id, 2);
    assert_eq!(at(h.times[4] + 100_000).await.unwrap().id, 5);
    let e = at(h.times[0] - 1).await.unwrap_err().to_string();
    assert!(e.contains("no snapshot earlier than or equal"), "{e}");

    for (i, s) in (1..=5).enumerate() {
        let (tt, scan) = t
            .travel_to(&TravelTarget::TimestampMillis(h.times[i]))
            .await
            .unwrap();
        assert_eq!(
            rows_of(&tt, scan).await,
            rows(&t, Some(s)).await,
            "snapshot {s}"
        );
    }
    // A local timestamp text resolves like its epoch millis.
    let local = chrono::TimeZone::timestamp_millis_opt(&chrono::Local, h.times[2])
        .unwrap()
        .format("%Y-%m-%d %H:%M:%S%.3f")
        .to_string();
    let target = TravelTarget::timestamp(&local).unwrap();
    assert_eq!(target, TravelTarget::TimestampMillis(h.times[2]));

    // Tags with a retention time carry Java's tag fields and expire after the next commit.
    let tag = t
        .create_tag("short", Some(1), Some(Duration::from_millis(1)))
        .await
        .unwrap();
    assert!(tag.create_time.is_some());
    let text = std::fs::read_to_string(lake.table_dir("db.t").join("tag/tag-short")).unwrap();
    assert!(
        text.contains("\"tagCreateTime\" : [ ")
            && text.contains("\"tagTimeRetained\" : 0.001000000"),
        "{text}"
    );
    let (tt, scan) = t
        .travel_to(&TravelTarget::Tag("short".into()))
        .await
        .unwrap();
    assert_eq!(rows_of(&tt, scan).await, rows(&t, Some(1)).await);
    sleep_ms(5).await;
    write(&t, batch(7000..7001, "x")).await;
    assert!(
        t.tags().await.unwrap().is_empty(),
        "the expired tag was deleted after the commit"
    );
}
