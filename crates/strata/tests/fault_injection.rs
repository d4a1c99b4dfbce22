//! Fault injection in-process: every fault point of `strata::fault::POINTS` armed to fail once
//! during a write → compaction → commit of a primary-key table.
//!
//! Where the failure happens before the snapshot is published, the commit fails, the table
//! reads exactly the last successful commit and every file the failed attempt wrote (data
//! files, compaction outputs, manifests, lists) is gone again. Where it happens after (the
//! acknowledgement of the snapshot, the LATEST hint), the commit succeeds exactly once. Either
//! way the next commit works and nothing committed is lost. (Aborting the process at each point
//! is tested with real processes in strata-cli's `reliability.rs`.)
//!
//! The fault registry is process-wide, so this binary holds one test only.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use common::*;
use strata::fault::{FaultAction, FaultGuard, FaultWhen, POINTS};
use strata::table::Table;

fn rows(ids: &[i64], v: i64) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("v", ArrowType::Int64, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(Int64Array::from(vec![v; ids.len()])),
        ],
    )
    .unwrap()
}

/// Every file under the table directory (relative paths).
fn files(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(dir).unwrap().to_str().unwrap().to_string());
            }
        }
    }
    out
}

/// One write of `ids` with a full compaction, committed as `identifier`; the writer cleans up
/// on failure unless the commit may have landed.
async fn write_and_commit(t: &Table, ids: &[i64], identifier: i64) -> strata::Result<()> {
    let mut w = t.new_write()?;
    let commit = t.new_commit()?.with_commit_user("faulty");
    let r = async {
        w.write(&rows(ids, identifier)).await?;
        w.compact(&|_, _| true, true).await?;
        let m = w.prepare_commit().await?;
        commit.commit_identified(identifier, m, None).await
    }
    .await;
    match r {
        Ok(_) => Ok(()),
        Err(e) => {
            if !e.may_have_committed() {
                w.abort().await;
            }
            Err(e)
        }
    }
}

async fn read_pairs(t: &Table) -> Vec<(i64, i64)> {
    let plan = t.new_scan().plan().await.unwrap();
    let mut out = Vec::new();
    for b in t.new_read().to_batches(plan.splits).await.unwrap() {
        let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let v = b.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
        for i in 0..b.num_rows() {
            out.push((id.value(i), v.value(i)));
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn every_fault_point_fails_cleanly_or_commits_once() {
    for point in POINTS {
        let wh = Warehouse::new();
        let t = wh
            .create(
                "db.t",
                r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"BIGINT"}],
                  "primaryKeys":["id"],"options":{"bucket":"1","write-only":"true"}}"#,
            )
            .await;
        let dir = wh.table_dir("db", "t");
        write_and_commit(&t, &[1, 2, 3], 1).await.unwrap();
        write_and_commit(&t, &[3, 4], 2).await.unwrap();
        let model_before = vec![(1, 1), (2, 1), (3, 2), (4, 2)];
        let files_before = files(&dir);
        let snapshots_before = t.snapshot_manager().list_ids().await.unwrap();

        let result = {
            // Every hint write fails while armed (a later snapshot's hint would repair it).
            let when = match *point {
                "commit.hint-update" => FaultWhen::From(1),
                _ => FaultWhen::Nth(1),
            };
            let _armed = FaultGuard::new(point, FaultAction::Error, when);
            write_and_commit(&t, &[4, 5], 3).await
        };
        let after_publish = matches!(*point, "commit.after-snapshot" | "commit.hint-update");
        let model_after = vec![(1, 1), (2, 1), (3, 2), (4, 3), (5, 3)];
        if after_publish {
            result.unwrap_or_else(|e| panic!("{point}: {e}"));
            // Exactly one APPEND of identifier 3 (plus its COMPACT).
            let appends: Vec<_> = t
                .snapshot_manager()
                .all()
                .await
                .unwrap()
                .into_iter()
                .filter(|s| s.commit_identifier == 3)
                .map(|s| s.commit_kind)
                .collect();
            assert_eq!(
                appends,
                vec![
                    strata_spec::snapshot::CommitKind::Append,
                    strata_spec::snapshot::CommitKind::Compact
                ],
                "{point}"
            );
            assert_eq!(read_pairs(&t).await, model_after, "{point}");
        } else {
            let err = result.expect_err(point);
            assert!(
                err.to_string()
                    .contains(&format!("injected fault at {point}")),
                "{point}: {err}"
            );
            assert_eq!(read_pairs(&t).await, model_before, "{point}");
            assert_eq!(
                t.snapshot_manager().list_ids().await.unwrap(),
                snapshots_before,
                "{point}"
            );
            assert_eq!(
                files(&dir),
                files_before,
                "{point}: the failed attempt left files"
            );
            // The job retries the same identifier: it lands now, once.
            write_and_commit(&t, &[4, 5], 3).await.unwrap();
            assert_eq!(read_pairs(&t).await, model_after, "{point}");
        }
        if *point == "commit.hint-update" {
            let hint = std::fs::read_to_string(dir.join("snapshot/LATEST")).unwrap();
            let latest = t.snapshot_manager().latest_id().await.unwrap().unwrap();
            assert_ne!(hint.trim(), latest.to_string(), "the hint should be stale");
        }
        // The next commit works on top of whatever happened.
        write_and_commit(&t, &[6], 4).await.unwrap();
        let mut want = model_after.clone();
        want.push((6, 4));
        assert_eq!(read_pairs(&t).await, want, "{point}");
    }
}
