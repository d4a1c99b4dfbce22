//! Two concurrent column updates of a data-evolution table over the same row-id range, decided
//! by the commit's per-column check (Java 2.0 `ConflictDetection.checkForRowIdFromSnapshot`
//! with `RowIdColumnConflictChecker`).
//!
//! A column update writes the file of a row-id range whole (the rows it does not change with
//! their values at its base snapshot), so a second update of the same column landing after a
//! first one would undo the first one's changes (a lost update): it must fail as a conflict.
//! Updates of different columns both land. The race is deterministic: the update's table
//! publishes through a `SnapshotCommit` that, at the update's first publish, lands the other
//! update first (so the update loses the snapshot id and retries on the other one's snapshot).

use std::sync::{Arc, Mutex};

use arrow_array::{Array, Int32Array, Int64Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::table::{SnapshotCommit, Table};
use strata::write::RowIdChanges;
use strata::ErrorKind;
use strata_spec::snapshot::{CommitKind, Snapshot};

use crate::common::*;

const TABLE: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"INT"},
 {"name":"w","type":"INT"}],
 "options":{"bucket":"-1","row-tracking.enabled":"true","data-evolution.enabled":"true"}}"#;

/// One file of ten rows: ids (and row ids) 0..10, v = w = id.
async fn seeded(wh: &Warehouse) -> Table {
    let t = wh.create("db.t", TABLE).await;
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("v", ArrowType::Int32, true),
        Field::new("w", ArrowType::Int32, true),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from_iter_values(0..10)),
            Arc::new(Int32Array::from_iter_values(0..10)),
            Arc::new(Int32Array::from_iter_values(0..10)),
        ],
    )
    .unwrap();
    t.write_batches([batch], None).await.unwrap();
    t
}

/// An update of column `col` of the rows `rids`.
fn update(col: &str, rids: &[i64], vs: &[i32]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("_ROW_ID", ArrowType::Int64, false),
        Field::new(col, ArrowType::Int32, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(rids.to_vec())),
            Arc::new(Int32Array::from(vs.to_vec())),
        ],
    )
    .unwrap()
}

/// (id, v, w) sorted by id.
async fn read(t: &Table) -> Vec<(i64, i32, i32)> {
    let plan = t.new_scan().plan().await.unwrap();
    let mut out = Vec::new();
    for b in t.new_read().to_batches(plan.splits).await.unwrap() {
        let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let v = b.column(1).as_any().downcast_ref::<Int32Array>().unwrap();
        let w = b.column(2).as_any().downcast_ref::<Int32Array>().unwrap();
        for i in 0..b.num_rows() {
            assert!(!v.is_null(i) && !w.is_null(i));
            out.push((id.value(i), v.value(i), w.value(i)));
        }
    }
    out.sort();
    out
}

/// The seeded rows with `(row, v, w)` changes applied.
fn expected(changes: &[(usize, Option<i32>, Option<i32>)]) -> Vec<(i64, i32, i32)> {
    let mut want: Vec<(i64, i32, i32)> = (0..10).map(|i| (i, i as i32, i as i32)).collect();
    for &(row, v, w) in changes {
        if let Some(v) = v {
            want[row].1 = v;
        }
        if let Some(w) = w {
            want[row].2 = w;
        }
    }
    want
}

/// Publishes through `inner`; at the first APPEND publish it first lands the other writer's
/// column update (through the plain table).
struct OtherUpdateFirst {
    inner: Arc<dyn SnapshotCommit>,
    plain: Table,
    other: Mutex<Option<RecordBatch>>,
}

impl std::fmt::Debug for OtherUpdateFirst {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OtherUpdateFirst")
    }
}

#[async_trait::async_trait]
impl SnapshotCommit for OtherUpdateFirst {
    async fn commit(
        &self,
        snapshot: &Snapshot,
        ctx: &strata::table::CommitContext,
    ) -> strata::Result<bool> {
        let pending = if snapshot.commit_kind == CommitKind::Append {
            self.other.lock().unwrap().take()
        } else {
            None
        };
        if let Some(batch) = pending {
            self.plain.update_columns(&batch).await?;
        }
        self.inner.commit(snapshot, ctx).await
    }
}

fn racing(t: &Table, other: RecordBatch) -> (Table, Arc<OtherUpdateFirst>) {
    let hook = Arc::new(OtherUpdateFirst {
        inner: t.snapshot_commit().clone(),
        plain: t.clone(),
        other: Mutex::new(Some(other)),
    });
    (t.clone().with_snapshot_commit(hook.clone()), hook)
}

async fn run(t: &Table, batch: RecordBatch, merge: bool) -> strata::Result<Option<i64>> {
    if merge {
        t.apply_row_id_changes(RowIdChanges::new().with_updates(batch))
            .await
    } else {
        t.update_columns(&batch).await
    }
}

/// Row 1's v = 100 lands while an update of row 2's v (planned before it) commits: that update
/// fails as a conflict (its file of [0, 9] holds row 1's old v and would undo 100), nothing of
/// it is published, and running it again keeps both changes. Both `update_columns` and MERGE's
/// `apply_row_id_changes`.
#[tokio::test]
async fn same_column_updates_over_the_same_rows_conflict() {
    for merge in [false, true] {
        let wh = Warehouse::new();
        let t = seeded(&wh).await;
        let (racing, hook) = racing(&t, update("v", &[1], &[100]));
        let result = run(&racing, update("v", &[2], &[200]), merge).await;
        assert!(
            hook.other.lock().unwrap().is_none(),
            "merge={merge}: the other update did not race"
        );
        let err = match result {
            Err(e) => e,
            // Without the check the update commits and row 1's v reads 1 again.
            Ok(id) => panic!(
                "merge={merge}: a lost update was committed as snapshot {id:?}, rows 0..3 \
                 (id, v, w) read {:?}",
                &read(&t).await[..3]
            ),
        };
        assert_eq!(err.kind(), ErrorKind::Conflict, "merge={merge}: {err}");
        assert!(
            err.to_string().contains(
                "For Data Evolution table, multiple 'MERGE INTO' operations have encountered \
                 conflicts, updating the same file, which can render some updates ineffective."
            ),
            "merge={merge}: {err}"
        );
        // The other update landed, this one did not.
        assert_eq!(
            read(&t).await,
            expected(&[(1, Some(100), None)]),
            "merge={merge}"
        );
        // Run again on the latest snapshot: both changes are kept.
        run(&t, update("v", &[2], &[200]), merge).await.unwrap();
        assert_eq!(
            read(&t).await,
            expected(&[(1, Some(100), None), (2, Some(200), None)]),
            "merge={merge}"
        );
    }
}

/// Updates of different columns of the same rows do not conflict (Java allows it): both land
/// and the reader stitches each column from its newest file.
#[tokio::test]
async fn different_column_updates_over_the_same_rows_both_land() {
    for merge in [false, true] {
        let wh = Warehouse::new();
        let t = seeded(&wh).await;
        let (racing, hook) = racing(&t, update("w", &[1], &[100]));
        run(&racing, update("v", &[2], &[200]), merge)
            .await
            .unwrap_or_else(|e| panic!("merge={merge}: {e}"));
        assert!(hook.other.lock().unwrap().is_none(), "merge={merge}");
        assert_eq!(
            read(&t).await,
            expected(&[(1, None, Some(100)), (2, Some(200), None)]),
            "merge={merge}"
        );
    }
}
