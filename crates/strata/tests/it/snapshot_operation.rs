//! The `operation` of snapshots (Java 2.0 `Snapshot.Operation`) through the library:
//! `TableCommit::with_operation` writes it into every snapshot of the commit (the APPEND and the
//! COMPACT one, as Java's `FileStoreCommitImpl` keeps one operation per committer), a plain
//! commit and a dedicated compaction leave it out (null, as Java's core API), and the
//! data-evolution row-id changes carry theirs (`delete_row_ids` DELETE as Java's
//! `DataEvolutionDelete`).

use std::sync::Arc;

use crate::common::*;
use arrow_array::{Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::commit::{OverwriteScope, SnapshotOperation};
use strata::table::Table;
use strata::write::{CompactRequest, RowIdChanges};
use strata_spec::snapshot::CommitKind;

const PK_TABLE: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"dt","type":"STRING"},{"name":"v","type":"INT"}],
 "primaryKeys":["id"],"options":{"bucket":"1","full-compaction.delta-commits":"1"}}"#;

const DE_TABLE: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"dt","type":"STRING"},{"name":"v","type":"INT"}],
 "options":{"bucket":"-1","row-tracking.enabled":"true","data-evolution.enabled":"true","deletion-vectors.enabled":"true"}}"#;

const APPEND_TABLE: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"dt","type":"STRING"},{"name":"v","type":"INT"}],
 "options":{"bucket":"-1"}}"#;

fn rows(ids: &[i64], vs: &[i32]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("dt", ArrowType::Utf8, true),
        Field::new("v", ArrowType::Int32, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(vec!["a"; ids.len()])),
            Arc::new(Int32Array::from(vs.to_vec())),
        ],
    )
    .unwrap()
}

/// One commit of `batch` with `operation` (an overwrite of the whole table when `overwrite`).
async fn commit(
    t: &Table,
    batch: RecordBatch,
    overwrite: bool,
    operation: Option<SnapshotOperation>,
) -> strata::commit::Committed {
    let mut w = t.new_write().unwrap().with_overwrite(overwrite);
    w.write(&batch).await.unwrap();
    let messages = w.prepare_commit().await.unwrap();
    let c = t.new_commit().unwrap().with_operation(operation);
    assert_eq!(c.operation(), operation);
    c.commit_messages(messages, overwrite.then_some(OverwriteScope::WholeTable))
        .await
        .unwrap()
}

/// (commit kind, operation) of every snapshot, and the raw JSON of the last.
async fn operations(
    wh: &Warehouse,
    t: &Table,
    name: &str,
) -> (Vec<(CommitKind, Option<String>)>, String) {
    let sm = t.snapshot_manager();
    let mut out = Vec::new();
    let ids = sm.list_ids().await.unwrap();
    for id in &ids {
        let s = sm.snapshot(*id).await.unwrap();
        out.push((s.commit_kind, s.operation));
    }
    let last = ids.last().copied().unwrap();
    let path = wh
        .table_dir("db", name)
        .join("snapshot")
        .join(format!("snapshot-{last}"));
    (out, std::fs::read_to_string(path).unwrap())
}

#[tokio::test]
async fn plain_commit_writes_no_operation_and_with_operation_writes_it_last() {
    let wh = Warehouse::new();
    let t = wh.create("db.a", APPEND_TABLE).await;
    commit(&t, rows(&[1, 2], &[1, 2]), false, None).await;
    let (ops, json) = operations(&wh, &t, "a").await;
    assert_eq!(ops, vec![(CommitKind::Append, None)]);
    assert!(!json.contains("operation"), "{json}");

    commit(
        &t,
        rows(&[3], &[3]),
        true,
        Some(SnapshotOperation::Overwrite),
    )
    .await;
    commit(&t, rows(&[4], &[4]), false, Some(SnapshotOperation::Write)).await;
    let (ops, json) = operations(&wh, &t, "a").await;
    assert_eq!(
        ops,
        vec![
            (CommitKind::Append, None),
            (CommitKind::Overwrite, Some("OVERWRITE".into())),
            (CommitKind::Append, Some("WRITE".into())),
        ]
    );
    // Java 2.0's member order: `operation` after `nextRowId`, the last member.
    assert!(
        json.ends_with(",\n  \"operation\" : \"WRITE\"\n}"),
        "{json}"
    );
    assert_eq!(read_ids(&t, None, None).await, vec![3, 4]);
}

#[tokio::test]
async fn the_compact_snapshot_of_a_commit_has_its_operation_a_dedicated_compaction_none() {
    let wh = Warehouse::new();
    let t = wh.create("db.pk", PK_TABLE).await;
    commit(
        &t,
        rows(&[1, 2], &[1, 2]),
        false,
        Some(SnapshotOperation::Write),
    )
    .await;
    // `full-compaction.delta-commits` = 1: the writer compacts, one commit makes APPEND + COMPACT.
    let c = commit(
        &t,
        rows(&[2, 3], &[20, 30]),
        false,
        Some(SnapshotOperation::Merge),
    )
    .await;
    assert!(c.compact.is_some(), "the writer compacted");
    let (ops, _) = operations(&wh, &t, "pk").await;
    let merge = Some("MERGE".to_string());
    assert_eq!(
        ops[ops.len() - 2..],
        [
            (CommitKind::Append, merge.clone()),
            (CommitKind::Compact, merge)
        ]
    );

    let before = ops.len();
    commit(&t, rows(&[4], &[40]), false, None).await;
    t.compact(
        &CompactRequest {
            full: true,
            ..Default::default()
        },
        &|_, _| {},
    )
    .await
    .unwrap();
    let (ops, json) = operations(&wh, &t, "pk").await;
    assert_eq!(
        ops.last().map(|o| o.0),
        Some(CommitKind::Compact),
        "{ops:?}"
    );
    assert!(ops[before..].iter().all(|(_, op)| op.is_none()), "{ops:?}");
    assert!(!json.contains("operation"), "{json}");
}

#[tokio::test]
async fn row_id_changes_carry_their_operation() {
    let wh = Warehouse::new();
    let t = wh.create("db.de", DE_TABLE).await;
    t.write_batches([rows(&[1, 2, 3], &[1, 2, 3])], None)
        .await
        .unwrap();
    let changes = RowIdChanges::new()
        .with_inserts(rows(&[4], &[4]))
        .with_operation(SnapshotOperation::Merge);
    t.apply_row_id_changes(changes).await.unwrap();
    t.delete_row_ids(&[0]).await.unwrap();
    let (ops, _) = operations(&wh, &t, "de").await;
    assert_eq!(
        ops,
        vec![
            (CommitKind::Append, None),
            (CommitKind::Append, Some("MERGE".into())),
            (CommitKind::Append, Some("DELETE".into())),
        ]
    );
    assert_eq!(read_ids(&t, None, None).await, vec![2, 3, 4]);
}

#[tokio::test]
async fn replace_table_as_select_right_after_a_truncate_is_refused() {
    let wh = Warehouse::new();
    let t = wh.create("db.r", APPEND_TABLE).await;
    commit(&t, rows(&[1], &[1]), false, None).await;
    // A TRUNCATE as Java's `truncateTable` writes it: an OVERWRITE of everything, no new files.
    t.new_commit()
        .unwrap()
        .with_operation(Some(SnapshotOperation::Truncate))
        .overwrite(OverwriteScope::WholeTable, Vec::new())
        .await
        .unwrap();
    let (ops, _) = operations(&wh, &t, "r").await;
    assert_eq!(
        ops.last(),
        Some(&(CommitKind::Overwrite, Some("TRUNCATE".into())))
    );
    let mut w = t.new_write().unwrap();
    w.write(&rows(&[2], &[2])).await.unwrap();
    let messages = w.prepare_commit().await.unwrap();
    let err = t
        .new_commit()
        .unwrap()
        .with_operation(Some(SnapshotOperation::ReplaceTableAsSelect))
        .commit(messages.clone())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), strata::ErrorKind::Unsupported, "{err}");
    assert!(err.to_string().contains("isRtasAfterTruncate"), "{err}");
    // Any other operation (or none) commits after the truncate.
    t.new_commit().unwrap().commit(messages).await.unwrap();
    assert_eq!(read_ids(&t, None, None).await, vec![2]);
}
