//! A column update of a data-evolution table (`Table::update_columns`, MERGE INTO's matched
//! updates through `Table::apply_row_id_changes`) racing a data-evolution compaction, decided by
//! the commit's row-id range check (Java's `ConflictDetection.checkRowIdRangeConflicts` with
//! `FileStoreCommit.rowIdCheckConflict`).
//!
//! The race is deterministic: the update's table publishes through a `SnapshotCommit` that, at
//! the update's first publish, compacts the table first (so the update loses the snapshot id
//! after its pre-commit `check_unchanged` passed, and retries on the compacted snapshot).
//! Without the commit-time check the retry landed a column file of row ids [0, 9] over the
//! compacted file [0, 29], which the reader cannot stitch.

use std::sync::{Arc, Mutex};

use arrow_array::{Array, Int32Array, Int64Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::table::{SnapshotCommit, Table};
use strata::write::{CompactRequest, RowIdChanges};
use strata::ErrorKind;
use strata_spec::snapshot::{CommitKind, Snapshot};

use crate::common::*;

const TABLE: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"INT"}],
 "options":{"bucket":"-1","row-tracking.enabled":"true","data-evolution.enabled":"true",
 "compaction.min.file-num":"2"}}"#;

fn rows(ids: std::ops::Range<i64>) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("v", ArrowType::Int32, true),
    ]));
    let vs: Vec<i32> = ids.clone().map(|i| i as i32).collect();
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from_iter_values(ids)),
            Arc::new(Int32Array::from(vs)),
        ],
    )
    .unwrap()
}

fn update(rids: &[i64], vs: &[i32]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("_ROW_ID", ArrowType::Int64, false),
        Field::new("v", ArrowType::Int32, true),
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

/// Three files of ten rows: ids (and row ids) 0..30, v = id.
async fn seeded(wh: &Warehouse) -> Table {
    let t = wh.create("db.t", TABLE).await;
    for i in 0..3 {
        t.write_batches([rows(i * 10..i * 10 + 10)], None)
            .await
            .unwrap();
    }
    t
}

/// (id, v) sorted by id.
async fn read(t: &Table) -> Vec<(i64, Option<i32>)> {
    let plan = t.new_scan().plan().await.unwrap();
    let mut out = Vec::new();
    for b in t.new_read().to_batches(plan.splits).await.unwrap() {
        let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let v = b.column(1).as_any().downcast_ref::<Int32Array>().unwrap();
        for i in 0..b.num_rows() {
            out.push((id.value(i), (!v.is_null(i)).then(|| v.value(i))));
        }
    }
    out.sort();
    out
}

async fn live_files(t: &Table) -> Vec<String> {
    let plan = t.new_scan().plan().await.unwrap();
    let mut names: Vec<String> = plan
        .splits
        .into_iter()
        .flat_map(|s| s.files.into_iter().map(|f| f.file_name))
        .collect();
    names.sort();
    names
}

/// Publishes through `inner`; at the first publish of `kind` it first runs the concurrent
/// writer's commit (`race`, through the plain table).
struct OtherFirst {
    inner: Arc<dyn SnapshotCommit>,
    plain: Table,
    kind: CommitKind,
    race: Mutex<Option<Race>>,
}

/// The concurrent commit.
enum Race {
    Compact,
    Update(RecordBatch),
}

impl std::fmt::Debug for OtherFirst {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OtherFirst")
    }
}

#[async_trait::async_trait]
impl SnapshotCommit for OtherFirst {
    async fn commit(
        &self,
        snapshot: &Snapshot,
        ctx: &strata::table::CommitContext,
    ) -> strata::Result<bool> {
        let pending = if snapshot.commit_kind == self.kind {
            self.race.lock().unwrap().take()
        } else {
            None
        };
        match pending {
            None => {}
            Some(Race::Compact) => {
                self.plain
                    .compact(&CompactRequest::default(), &|_, _| {})
                    .await?;
            }
            Some(Race::Update(batch)) => {
                self.plain.update_columns(&batch).await?;
            }
        }
        self.inner.commit(snapshot, ctx).await
    }
}

fn racing(t: &Table, kind: CommitKind, race: Race) -> (Table, Arc<OtherFirst>) {
    let hook = Arc::new(OtherFirst {
        inner: t.snapshot_commit().clone(),
        plain: t.clone(),
        kind,
        race: Mutex::new(Some(race)),
    });
    (t.clone().with_snapshot_commit(hook.clone()), hook)
}

/// An update planned on the three files loses its snapshot id to a compaction into one file
/// of row ids [0, 29]: it fails as a conflict, nothing of it is published, and the compacted
/// table reads as before. Both `update_columns` and MERGE's `apply_row_id_changes`.
#[tokio::test]
async fn column_update_losing_to_a_compaction_conflicts() {
    for merge in [false, true] {
        let wh = Warehouse::new();
        let t = seeded(&wh).await;
        let before = live_files(&t).await;
        assert_eq!(before.len(), 3);
        let (racing, hook) = racing(&t, CommitKind::Append, Race::Compact);
        let batch = update(&[1, 2], &[100, 200]);
        let result = if merge {
            racing
                .apply_row_id_changes(RowIdChanges::new().with_updates(batch))
                .await
        } else {
            racing.update_columns(&batch).await
        };
        assert!(
            hook.race.lock().unwrap().is_none(),
            "merge={merge}: the compaction did not race"
        );
        let err = result.expect_err("a column file over a compacted range was committed");
        assert_eq!(err.kind(), ErrorKind::Conflict, "merge={merge}: {err}");
        assert!(
            err.to_string().contains("For Data Evolution table"),
            "merge={merge}: {err}"
        );
        // The compaction landed; the update did not.
        let after = live_files(&t).await;
        assert_eq!(after.len(), 1, "merge={merge}: {after:?}");
        assert!(!before.contains(&after[0]), "merge={merge}");
        let want: Vec<(i64, Option<i32>)> = (0..30).map(|i| (i, Some(i as i32))).collect();
        assert_eq!(read(&t).await, want, "merge={merge}");
        // Run again on the compacted table, the update lands.
        t.update_columns(&update(&[1, 2], &[100, 200]))
            .await
            .unwrap();
        let mut want = want;
        want[1].1 = Some(100);
        want[2].1 = Some(200);
        assert_eq!(read(&t).await, want, "merge={merge}");
    }
}

/// The reverse order: a compaction planned on the three files loses its snapshot id to a
/// column update of [0, 9]. Its COMPACT commit is checked too (Java checks every COMPACT):
/// the update's file is never left stacked over a subrange of the compacted file, and the
/// updated values are read.
#[tokio::test]
async fn compaction_losing_to_a_column_update_keeps_the_update() {
    let wh = Warehouse::new();
    let t = seeded(&wh).await;
    let (racing, hook) = racing(
        &t,
        CommitKind::Compact,
        Race::Update(update(&[1, 2], &[100, 200])),
    );
    // The compaction either fails as a conflict or is planned again with the update.
    match racing.compact(&CompactRequest::default(), &|_, _| {}).await {
        Ok(_) => {}
        Err(e) => assert_eq!(e.kind(), ErrorKind::Conflict, "{e}"),
    }
    assert!(
        hook.race.lock().unwrap().is_none(),
        "the update did not race"
    );
    let mut want: Vec<(i64, Option<i32>)> = (0..30).map(|i| (i, Some(i as i32))).collect();
    want[1].1 = Some(100);
    want[2].1 = Some(200);
    assert_eq!(read(&t).await, want);
}
