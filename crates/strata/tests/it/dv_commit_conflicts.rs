//! A compaction of an append table with deletion vectors racing a DELETE (a new deletion
//! vector for a file the compaction rewrites), in both orders, decided by the commit's pairing
//! of each data file with its vector (Java's `ConflictDetection.buildDeltaEntriesWithDV`).
//!
//! The race is deterministic: the compaction's table publishes through a `SnapshotCommit` that,
//! at the compaction's first publish, commits the DELETE first (so the compaction loses the
//! snapshot id after its pre-commit vector check passed, and retries on the newer snapshot).
//! Without the commit-time check the retry landed, and the row the DELETE removed came back.

use std::sync::{Arc, Mutex};

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::commit::CommitMessage;
use strata::table::{SnapshotCommit, Table};
use strata::write::CompactRequest;
use strata::ErrorKind;
use strata_spec::manifest::{DataFileMeta, FileKind, IndexFileMeta, IndexManifestEntry};
use strata_spec::snapshot::{CommitKind, Snapshot};

use crate::common::*;

fn ids(range: std::ops::Range<i64>) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![Field::new(
        "id",
        ArrowType::Int64,
        false,
    )]));
    RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from_iter_values(range))]).unwrap()
}

fn schema(options: &str) -> String {
    format!(
        r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}}],"options":{{"deletion-vectors.enabled":"true",{options}}}}}"#
    )
}

/// Three files of ten rows: ids 0..30.
async fn seeded(wh: &Warehouse, options: &str) -> Table {
    let t = wh.create("db.t", &schema(options)).await;
    for i in 0..3 {
        t.write_batches([ids(i * 10..i * 10 + 10)], None)
            .await
            .unwrap();
    }
    t
}

async fn read_ids(t: &Table) -> Vec<i64> {
    let plan = t.new_scan().plan().await.unwrap();
    let mut out = Vec::new();
    for b in t.new_read().to_batches(plan.splits).await.unwrap() {
        let c = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        out.extend(c.values().iter().copied());
    }
    out.sort();
    out
}

async fn live(t: &Table) -> Vec<DataFileMeta> {
    let plan = t.new_scan().plan().await.unwrap();
    let mut files: Vec<DataFileMeta> = plan.splits.into_iter().flat_map(|s| s.files).collect();
    files.sort_by_key(|f| f.min_sequence_number);
    files
}

/// A DELETE of row `pos` of `file`, planned on the latest snapshot (the file's first vector;
/// a fixed bucket's live index file is replaced), not committed.
async fn prepare_delete(t: &Table, file: &DataFileMeta, pos: u64) -> Vec<CommitMessage> {
    use strata::read::deletion_vectors::DeletionVector;
    use strata::unstable::format::encode_deletion_vectors_index;
    use strata::unstable::index::DELETION_VECTORS_INDEX;

    let mut dv = DeletionVector::new_empty(false);
    dv.delete(pos).unwrap();
    let (bytes, ranges) = encode_deletion_vectors_index(&[(file.file_name.clone(), dv)]).unwrap();
    let name = format!("index-race-{}", file.file_name);
    let size = bytes.len() as i64;
    t.file_io()
        .put(&t.paths().index_file(&name), bytes::Bytes::from(bytes))
        .await
        .unwrap();
    let plan = t.new_scan().plan().await.unwrap();
    let split = plan
        .splits
        .iter()
        .find(|s| s.files.iter().any(|f| f.file_name == file.file_name))
        .unwrap();
    let mut msg = CommitMessage::new(split.partition.clone(), split.bucket, split.total_buckets);
    msg.index_changes.push(IndexManifestEntry {
        kind: FileKind::Add,
        partition: split.partition.clone(),
        bucket: split.bucket,
        index_file: IndexFileMeta {
            index_type: DELETION_VECTORS_INDEX.into(),
            file_name: name,
            file_size: size,
            row_count: 1,
            dv_ranges: Some(ranges),
            external_path: None,
            global_index: None,
        },
    });
    vec![msg]
}

/// A concurrent DELETE: prepared messages, or row ids of a data-evolution table.
enum Delete {
    Messages(Vec<CommitMessage>),
    RowIds(Vec<i64>),
}

/// Publishes through `inner`; at the first COMPACT publish it commits `delete` (through the
/// plain table) first, as a concurrent writer would.
struct DeleteFirst {
    inner: Arc<dyn SnapshotCommit>,
    plain: Table,
    delete: Mutex<Option<Delete>>,
}

impl std::fmt::Debug for DeleteFirst {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DeleteFirst")
    }
}

#[async_trait::async_trait]
impl SnapshotCommit for DeleteFirst {
    async fn commit(
        &self,
        snapshot: &Snapshot,
        ctx: &strata::table::CommitContext,
    ) -> strata::Result<bool> {
        let pending = if snapshot.commit_kind == CommitKind::Compact {
            self.delete.lock().unwrap().take()
        } else {
            None
        };
        let id = match pending {
            None => return self.inner.commit(snapshot, ctx).await,
            Some(Delete::Messages(m)) => self.plain.new_commit()?.commit(m).await?,
            Some(Delete::RowIds(ids)) => self.plain.delete_row_ids(&ids).await?,
        };
        assert!(id.is_some(), "the concurrent DELETE committed nothing");
        self.inner.commit(snapshot, ctx).await
    }
}

/// The compaction loses its snapshot id to a DELETE of row 3 (file 0's first vector) that
/// lands after the compaction was planned and pre-checked: the commit sees the vector on a
/// file it rewrites, gives up, and the compaction is planned again with the vector. Unaware
/// and fixed buckets, and a data-evolution table (row id 3 deleted in its anchor's vector).
#[tokio::test]
async fn compaction_losing_to_a_first_delete_does_not_resurrect_the_row() {
    for options in [
        r#""bucket":"-1","compaction.min.file-num":"2""#,
        r#""bucket":"1","bucket-key":"id","compaction.min.file-num":"3""#,
        r#""bucket":"-1","row-tracking.enabled":"true","data-evolution.enabled":"true",
        "compaction.min.file-num":"2""#,
    ] {
        let wh = Warehouse::new();
        let t = seeded(&wh, options).await;
        let files = live(&t).await;
        assert_eq!(files.len(), 3, "{options}");
        let delete = if options.contains("data-evolution") {
            Delete::RowIds(vec![3])
        } else {
            Delete::Messages(prepare_delete(&t, &files[0], 3).await)
        };
        let hook = Arc::new(DeleteFirst {
            inner: t.snapshot_commit().clone(),
            plain: t.clone(),
            delete: Mutex::new(Some(delete)),
        });
        let racing = t.clone().with_snapshot_commit(hook.clone());
        racing
            .compact(&CompactRequest::default(), &|_, _| {})
            .await
            .unwrap_or_else(|e| panic!("{options}: {e}"));
        assert!(
            hook.delete.lock().unwrap().is_none(),
            "{options}: the DELETE did not race"
        );
        let want: Vec<i64> = (0..30).filter(|i| *i != 3).collect();
        assert_eq!(
            read_ids(&t).await,
            want,
            "{options}: a deleted row came back"
        );
        // The compaction did land (planned again, with the vector applied).
        let after = live(&t).await;
        assert!(
            after.iter().all(|f| f.file_name != files[0].file_name),
            "{options}: file 0 was not compacted: {after:?}"
        );
    }
}

/// A DELETE planned before a compaction that removed its file commits after it: it fails as a
/// conflict instead of attaching a vector to a dead file (the row, rewritten by the
/// compaction, would stay visible while the DELETE reports success).
#[tokio::test]
async fn delete_after_a_compaction_removed_its_file_conflicts() {
    for options in [
        r#""bucket":"-1","compaction.min.file-num":"2""#,
        r#""bucket":"1","bucket-key":"id","compaction.min.file-num":"3""#,
    ] {
        let wh = Warehouse::new();
        let t = seeded(&wh, options).await;
        let files = live(&t).await;
        let delete = prepare_delete(&t, &files[0], 3).await;
        t.compact(&CompactRequest::default(), &|_, _| {})
            .await
            .unwrap();
        assert!(live(&t)
            .await
            .iter()
            .all(|f| f.file_name != files[0].file_name));
        let err = t
            .new_commit()
            .unwrap()
            .commit(delete)
            .await
            .expect_err("a vector for a compacted file was committed");
        assert_eq!(err.kind(), ErrorKind::Conflict, "{options}: {err}");
        assert!(err.to_string().contains(&files[0].file_name), "{err}");
        // Nothing was published: every row is still there.
        assert_eq!(read_ids(&t).await, (0..30).collect::<Vec<_>>(), "{options}");
    }
}
