//! Streaming reads (`Table::new_stream_read`): a writer commits while a stream follows; the
//! changes the stream returns, replayed from empty, give the final table exactly, and expiry
//! during the run never removes a snapshot a registered consumer still needs.

use std::collections::BTreeMap;
use std::time::Duration;

use arrow::array::{Array, Int64Array, StringArray};
use futures::StreamExt;
use strata::spec::kv::RowKind;
use strata::stream::{ChangeBatch, StartingPosition};
use strata::table::Table;

use crate::lifecycle_support::{batch, rows, Lake};

/// Applies changes to a model (id → v): `+I`/`+U` upsert, `-U`/`-D` remove.
fn replay(model: &mut BTreeMap<i64, String>, b: &ChangeBatch) {
    let kind = b
        .batch
        .column(0)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    let id = b
        .batch
        .column(1)
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap();
    let v = b
        .batch
        .column(2)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    for i in 0..b.batch.num_rows() {
        match kind.value(i) {
            "+I" | "+U" => {
                model.insert(id.value(i), v.value(i).to_string());
            }
            "-U" | "-D" => {
                model.remove(&id.value(i));
            }
            other => panic!("row kind {other}"),
        }
    }
}

/// Commit `i`: upserts of a sliding window of ids, and a delete of an older id. Returns the
/// snapshot holding its changes: the APPEND one, or the COMPACT one when compaction derives the
/// changelog (`changelog-producer = lookup` / `full-compaction`).
async fn commit(t: &Table, i: i64) -> i64 {
    let mut w = t.new_write().unwrap();
    let ups = batch(i * 3..i * 3 + 10, &format!("c{i}"));
    w.write_with_kinds(&ups, &vec![RowKind::Insert; ups.num_rows()])
        .await
        .unwrap();
    if i % 3 == 0 && i > 0 {
        let del = batch(i - 1..i, "x");
        w.write_with_kinds(&del, &[RowKind::Delete]).await.unwrap();
    }
    let c = t
        .new_commit()
        .unwrap()
        .commit_messages(w.prepare_commit().await.unwrap(), None)
        .await
        .unwrap();
    assert!(c.expire_error.is_none(), "{:?}", c.expire_error);
    let producer = t.options().changelog_producer().unwrap();
    match producer {
        strata::spec::options::ChangelogProducer::Lookup
        | strata::spec::options::ChangelogProducer::FullCompaction => c.compact.unwrap(),
        _ => c.append.unwrap(),
    }
}

async fn follow_while_writing(options: &str, commits: i64) {
    let lake = Lake::new();
    let t = lake.pk_table("db.s", options).await;
    commit(&t, 0).await;
    // The writer's last commit is the one the reader stops after (later COMPACT snapshots
    // hold no changes).
    let writer = {
        let t = t.clone();
        tokio::spawn(async move {
            let mut last = 0;
            for i in 1..commits {
                last = commit(&t, i).await;
                if i % 20 == 0 {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            }
            last
        })
    };
    // The stream starts from the earliest snapshot (whole), then follows every change.
    let mut stream = t
        .new_stream_read()
        .with_start(StartingPosition::Earliest)
        .with_consumer_id("tail-test")
        .with_poll_interval(Duration::from_millis(5))
        .changes()
        .unwrap();
    let mut model = BTreeMap::new();
    let mut last_snapshot = 0;
    let mut writer = Some(writer);
    let mut stop_after = i64::MAX;
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while last_snapshot < stop_after {
        assert!(std::time::Instant::now() < deadline, "the stream keeps up");
        if writer.as_ref().is_some_and(|w| w.is_finished()) {
            stop_after = writer.take().unwrap().await.unwrap();
        }
        let Ok(next) = tokio::time::timeout(Duration::from_millis(200), stream.next()).await else {
            continue;
        };
        let next = next.expect("the stream does not end").unwrap();
        assert!(next.snapshot_id >= last_snapshot, "snapshots in order");
        last_snapshot = next.snapshot_id;
        replay(&mut model, &next);
        // The snapshots the consumer still needs were kept by every expiry so far.
        let earliest = t.snapshot_manager().earliest_id().await.unwrap().unwrap();
        assert!(
            earliest <= last_snapshot + 1,
            "expired {earliest} > {last_snapshot} + 1"
        );
    }
    assert_eq!(last_snapshot, stop_after);
    assert_eq!(
        model,
        rows(&t, None).await,
        "the replayed changes are the table"
    );
    // The consumer file says the next snapshot to read; expiry ran (few snapshots remain).
    let consumers = strata::maintenance::consumers::ConsumerManager::new(&t);
    let next = consumers.next_snapshot("tail-test").await.unwrap().unwrap();
    assert!(next >= last_snapshot, "{next} {last_snapshot}");
    let retained = t.snapshot_manager().all().await.unwrap().len();
    assert!(
        retained < commits as usize,
        "expiry ran: {retained} snapshots"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_changelog_stream_replays_to_the_table_while_expiry_runs() {
    follow_while_writing(
        r#","changelog-producer":"input","snapshot.num-retained.min":"1","snapshot.num-retained.max":"3""#,
        200,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lookup_changelog_stream_replays_to_the_table_while_expiry_runs() {
    follow_while_writing(
        r#","changelog-producer":"lookup","snapshot.num-retained.min":"1","snapshot.num-retained.max":"3""#,
        200,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_compaction_changelog_stream_replays_to_the_table() {
    follow_while_writing(
        r#","changelog-producer":"full-compaction","snapshot.num-retained.min":"1","snapshot.num-retained.max":"3""#,
        60,
    )
    .await;
}

/// `compacted-full`: the latest COMPACT snapshot whole, then the changes after it.
#[tokio::test]
async fn compacted_full_starts_at_the_latest_compaction() {
    let lake = Lake::new();
    let t = lake.pk_table("db.cf", "").await;
    commit(&t, 0).await;
    commit(&t, 1).await;
    let mut w = t.new_write().unwrap();
    w.compact(&|_, _| true, true).await.unwrap();
    let c = t
        .new_commit()
        .unwrap()
        .commit_messages(w.prepare_commit().await.unwrap(), None)
        .await
        .unwrap();
    let compacted = c.compact.expect("a COMPACT snapshot");
    let at_compaction = rows(&t, Some(compacted)).await;
    let later = commit(&t, 2).await;
    let mut stream = t
        .new_stream_read()
        .with_start(StartingPosition::CompactedFull)
        .until_snapshot(later)
        .changes()
        .unwrap();
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!(first.snapshot_id, compacted);
    let mut model = BTreeMap::new();
    replay(&mut model, &first);
    assert_eq!(model, at_compaction);
    while let Some(b) = stream.next().await {
        let b = b.unwrap();
        assert!(b.snapshot_id > compacted);
        replay(&mut model, &b);
    }
    assert_eq!(model, rows(&t, None).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delta_stream_of_a_table_without_changelog_replays_to_the_table() {
    follow_while_writing(
        r#","snapshot.num-retained.min":"1","snapshot.num-retained.max":"3""#,
        60,
    )
    .await;
}

#[tokio::test]
async fn starting_positions_consumers_resume_and_expired_snapshots_are_errors() {
    let lake = Lake::new();
    let t = lake
        .pk_table(
            "db.pos",
            r#","changelog-producer":"input","write-only":"true""#,
        )
        .await;
    for i in 0..4 {
        crate::lifecycle_support::write(&t, batch(i * 10..i * 10 + 10, "a")).await;
    }
    let collect = |start, consumer: Option<&'static str>| {
        let t = t.clone();
        async move {
            let mut r = t.new_stream_read().with_start(start).until_snapshot(4);
            if let Some(c) = consumer {
                r = r.with_consumer_id(c);
            }
            let mut out: Vec<(i64, usize)> = Vec::new();
            let mut s = r.changes().unwrap();
            while let Some(b) = s.next().await {
                let b = b.unwrap();
                match out.last_mut() {
                    Some((id, n)) if *id == b.snapshot_id => *n += b.batch.num_rows(),
                    _ => out.push((b.snapshot_id, b.batch.num_rows())),
                }
            }
            out
        }
    };
    // latest-full: snapshot 4 whole (40 rows), nothing after it (bounded at 4).
    assert_eq!(
        collect(StartingPosition::LatestFull, None).await,
        vec![(4, 40)]
    );
    // from-snapshot 3: the changes of 3 and 4.
    assert_eq!(
        collect(StartingPosition::FromSnapshot(3), None).await,
        vec![(3, 10), (4, 10)]
    );
    // from-snapshot-full 2: snapshot 2 whole, then 3 and 4.
    assert_eq!(
        collect(StartingPosition::FromSnapshotFull(2), Some("c1")).await,
        vec![(2, 20), (3, 10), (4, 10)]
    );
    // The consumer resumes after what it read, whatever the start says.
    let consumers = strata::maintenance::consumers::ConsumerManager::new(&t);
    assert_eq!(consumers.next_snapshot("c1").await.unwrap(), Some(5));
    crate::lifecycle_support::write(&t, batch(100..105, "b")).await;
    let mut s = t
        .new_stream_read()
        .with_start(StartingPosition::Earliest)
        .with_consumer_id("c1")
        .until_snapshot(5)
        .changes()
        .unwrap();
    let b = s.next().await.unwrap().unwrap();
    assert_eq!((b.snapshot_id, b.batch.num_rows()), (5, 5));
    assert!(s.next().await.is_none());

    // Expired snapshots are an error, not a gap.
    // The consumer c1 keeps snapshot 6 (its next) and later: delete it, then expire to one.
    consumers.delete("c1").await.unwrap();
    strata::maintenance::ExpireSnapshots::new(&t)
        .unwrap()
        .with_config(strata::maintenance::ExpireConfig {
            retain_max: 1,
            retain_min: 1,
            time_retained: Duration::ZERO,
            max_deletes: 1000,
        })
        .expire()
        .await
        .unwrap();
    let err = t
        .new_stream_read()
        .with_start(StartingPosition::FromSnapshot(2))
        .changes()
        .unwrap()
        .next()
        .await
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(err.contains("expired"), "{err}");
    // Consumer ids that cannot name a file are refused.
    assert!(t
        .new_stream_read()
        .with_consumer_id("a/b")
        .changes()
        .is_err());
}
