//! The commit protocol through the library API: exactly-once commits by (commitUser,
//! commitIdentifier), Paimon's conflict rules between concurrent commits (compaction against
//! compaction, overwrite against append), and concurrent committers on one table.
//! Fault injection lives in `fault_injection.rs` (its own binary: the fault registry is
//! process-wide).

use std::sync::Arc;

use crate::common::*;
use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::commit::OverwriteScope;
use strata::table::Table;
use strata::ErrorKind;
use strata_spec::snapshot::CommitKind;

fn ids(ids: &[i64]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("v", ArrowType::Int64, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(Int64Array::from(
                ids.iter().map(|i| i * 10).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap()
}

const PK: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"BIGINT"}],
  "primaryKeys":["id"],"options":{"bucket":"1","write-only":"true"}}"#;
const APPEND: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"BIGINT"}],
  "options":{"bucket":"-1"}}"#;

async fn messages(t: &Table, rows: &[i64]) -> Vec<strata::commit::CommitMessage> {
    let mut w = t.new_write().unwrap();
    w.write(&ids(rows)).await.unwrap();
    w.prepare_commit().await.unwrap()
}

#[tokio::test]
async fn commit_identified_applies_each_identifier_once() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", APPEND).await;
    let c = t.new_commit().unwrap().with_commit_user("job-1");
    let r1 = c
        .commit_identified(1, messages(&t, &[1, 2]).await, None)
        .await
        .unwrap();
    assert_eq!(r1.append, Some(1));
    let r2 = c
        .commit_identified(2, messages(&t, &[3]).await, None)
        .await
        .unwrap();
    assert_eq!(r2.append, Some(2));

    // The job restarts (a new committer, same user) and replays identifier 2: skipped.
    let t = wh
        .catalog
        .get_table(&"db.t".parse().unwrap())
        .await
        .unwrap();
    let again = t.new_commit().unwrap().with_commit_user("job-1");
    assert_eq!(again.filter_committed(&[1, 2, 3]).await.unwrap(), vec![3]);
    let replay = again
        .commit_identified(2, messages(&t, &[3]).await, None)
        .await
        .unwrap();
    assert!(replay.already_committed);
    assert_eq!(replay.latest(), None);
    assert_eq!(t.snapshot_manager().latest_id().await.unwrap(), Some(2));
    assert_eq!(read_ids(&t, None, None).await, vec![1, 2, 3]);

    // Identifier 3 is new; another user is independent of job-1's identifiers.
    let r3 = again
        .commit_identified(3, messages(&t, &[4]).await, None)
        .await
        .unwrap();
    assert_eq!(r3.append, Some(3));
    let other = t.new_commit().unwrap().with_commit_user("job-2");
    assert_eq!(other.filter_committed(&[1]).await.unwrap(), vec![1]);
    let s = t.snapshot_manager().snapshot(3).await.unwrap();
    assert_eq!((s.commit_user.as_str(), s.commit_identifier), ("job-1", 3));
    assert_eq!(read_ids(&t, None, None).await, vec![1, 2, 3, 4]);
}

/// Two compactions planned on the same snapshot: the first lands, the second finds its input
/// files gone ("File deletion conflicts detected"), is abandoned, and its output files are
/// deleted; the data is untouched.
#[tokio::test]
async fn concurrent_compactions_conflict_and_the_loser_cleans_up() {
    let wh = Warehouse::new();
    let t = wh.create("db.pk", PK).await;
    for chunk in [[1, 2, 3], [2, 3, 4], [3, 4, 5]] {
        t.write_batches([ids(&chunk)], None).await.unwrap();
    }
    let mut a = t.new_write().unwrap();
    let mut b = t.new_write().unwrap();
    a.compact(&|_, _| true, true).await.unwrap();
    b.compact(&|_, _| true, true).await.unwrap();
    let ma = a.prepare_commit().await.unwrap();
    let mb = b.prepare_commit().await.unwrap();
    let b_outputs: Vec<String> = mb
        .iter()
        .flat_map(|m| m.compact_after.iter().map(|f| f.file_name.clone()))
        .collect();
    assert!(!b_outputs.is_empty());

    let won = t.new_commit().unwrap().commit(ma).await.unwrap();
    assert_eq!(won, Some(4));
    let lost = t.new_commit().unwrap().commit(mb).await;
    match lost {
        Err(e) if e.kind() == ErrorKind::Conflict => {
            let message = e.message();
            assert!(
                message.contains("File deletion conflicts detected"),
                "{message}"
            );
            assert!(message.contains("abandoned"), "{message}");
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert_eq!(t.snapshot_manager().latest_id().await.unwrap(), Some(4));
    let s = t.snapshot_manager().snapshot(4).await.unwrap();
    assert_eq!(s.commit_kind, CommitKind::Compact);
    let bucket = wh.table_dir("db", "pk").join("bucket-0");
    for f in &b_outputs {
        assert!(
            !bucket.join(f).exists(),
            "abandoned compaction output {f} left behind"
        );
    }
    assert_eq!(read_ids(&t, None, None).await, vec![1, 2, 3, 4, 5]);
}

/// INSERT OVERWRITE is serialized where its snapshot lands: an append committed before it is
/// replaced with everything else, one committed after it survives.
#[tokio::test]
async fn overwrite_replaces_appends_that_landed_before_it() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", APPEND).await;
    t.write_batches([ids(&[1, 2])], None).await.unwrap();

    // The overwrite's data is written first ...
    let mut w = t.new_write().unwrap().with_overwrite(true);
    w.write(&ids(&[100])).await.unwrap();
    let overwrite = w.prepare_commit().await.unwrap();
    // ... a concurrent append lands ...
    t.write_batches([ids(&[3])], None).await.unwrap();
    // ... and the overwrite commits on top of it: its deletes are chosen from the latest
    // snapshot of its own attempt, so the append is replaced too.
    let id = t
        .new_commit()
        .unwrap()
        .overwrite(OverwriteScope::WholeTable, overwrite)
        .await
        .unwrap();
    assert_eq!(id, Some(3));
    assert_eq!(read_ids(&t, None, None).await, vec![100]);
    t.write_batches([ids(&[4])], None).await.unwrap();
    assert_eq!(read_ids(&t, None, None).await, vec![4, 100]);
    assert_eq!(read_ids(&t, None, Some(2)).await, vec![1, 2, 3]);
}

/// Eight committers racing on one table from one process (separate commit users): every
/// commit lands exactly once, the ids are consecutive, nothing is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_committers_each_land_once() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.t",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"BIGINT"}],
          "options":{"bucket":"-1","commit.max-retries":"100","commit.min-retry-wait":"1 ms"}}"#,
        )
        .await;
    let mut tasks = Vec::new();
    for w in 0..8i64 {
        let t = t.clone();
        tasks.push(tokio::spawn(async move {
            let c = t.new_commit().unwrap().with_commit_user(format!("w{w}"));
            for i in 1..=5i64 {
                let m = messages(&t, &[w * 100 + i]).await;
                c.commit_identified(i, m, None).await.unwrap();
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let sm = t.snapshot_manager();
    assert_eq!(sm.list_ids().await.unwrap(), (1..=40).collect::<Vec<i64>>());
    let mut seen = std::collections::BTreeSet::new();
    for s in sm.all().await.unwrap() {
        assert!(
            seen.insert((s.commit_user.clone(), s.commit_identifier)),
            "{s:?}"
        );
    }
    let want: Vec<i64> = (0..8)
        .flat_map(|w| (1..=5).map(move |i| w * 100 + i))
        .collect();
    let mut want = want;
    want.sort();
    assert_eq!(read_ids(&t, None, None).await, want);
}
