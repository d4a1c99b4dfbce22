//! The [`TableCommit`] value and the table-level facts every step of a commit reads (the
//! trimmed primary key's types, the bucket-count refusal). A leaf under the commit's steps
//! (`attempt`, `retry`, `lookup_conflicts`, `recompact`); the steps themselves are driven from
//! `commit/mod.rs`.

use crate::error::ErrorDetail;
use std::time::Duration;

use strata_spec::binary_row::BinaryRow;
use strata_spec::snapshot::SnapshotOperation;

use crate::table::Table;
use crate::Error;

/// Commits [`CommitMessage`]s of one table as snapshots.
pub struct TableCommit {
    pub(super) table: Table,
    pub(super) commit_user: String,
    pub(super) max_retries: u32,
    pub(super) min_retry_wait: Duration,
    pub(super) max_retry_wait: Duration,
    pub(super) timeout: Option<Duration>,
    /// Java 2.0 `Snapshot.operation` of every snapshot this committer creates.
    pub(super) operation: Option<SnapshotOperation>,
    /// Java `FileStoreCommit.rowIdCheckConflict`: the snapshot a column update or row-id
    /// change was computed on; its commits are checked for row-id range conflicts
    /// (`row_id_conflicts`) like COMPACT commits.
    pub(super) row_id_check_from: Option<i64>,
}

impl TableCommit {
    /// Sets the logical operation written into every snapshot this committer creates (Java
    /// 2.0 `BatchTableCommit.withOperation`; default: none, as Java's core API). SQL front ends
    /// set it per statement as Spark does (INSERT → [`SnapshotOperation::Write`], INSERT
    /// OVERWRITE → [`SnapshotOperation::Overwrite`], DELETE, UPDATE, MERGE INTO). Like Java, it
    /// applies to the COMPACT snapshot of the same commit too. Java 1.x readers ignore it.
    pub fn with_operation(mut self, operation: Option<SnapshotOperation>) -> Self {
        self.operation = operation;
        self
    }

    /// Java `FileStoreCommit.rowIdCheckConflict`: the commits are checked, on the latest
    /// snapshot of every attempt, for row-id ranges that no longer line up with the live files
    /// (`row_id_conflicts`), as MERGE INTO / UPDATE of a data-evolution table sets it with the
    /// snapshot its files were written against (`None`: unchecked, except COMPACT commits).
    pub(crate) fn with_row_id_check_from(mut self, snapshot: Option<i64>) -> Self {
        self.row_id_check_from = snapshot;
        self
    }

    /// The logical operation written into this committer's snapshots.
    pub fn operation(&self) -> Option<SnapshotOperation> {
        self.operation
    }

    /// Java's `FileStoreCommitImpl.isRtasAfterTruncate`: a REPLACE TABLE AS SELECT (or CREATE
    /// OR REPLACE) committed right after a TRUNCATE snapshot starts from an empty base and drops
    /// the previous snapshot's state (index manifest, `nextRowId`, watermark). strata has no
    /// such statement and does not build that snapshot: refused by name rather than written
    /// differently from Java.
    pub(super) async fn refuse_rtas_after_truncate(&self) -> crate::Result<()> {
        if !matches!(
            self.operation,
            Some(SnapshotOperation::ReplaceTableAsSelect)
                | Some(SnapshotOperation::CreateOrReplaceTableAsSelect)
        ) {
            return Ok(());
        }
        let latest = self.table.snapshot_manager().latest().await?;
        if latest.is_some_and(|s| s.operation.as_deref() == Some("TRUNCATE")) {
            return Err(ErrorDetail::Unsupported(format!(
                "a {} commit right after the TRUNCATE snapshot of {}: Java resets the snapshot                  state there (FileStoreCommitImpl.isRtasAfterTruncate), which strata does not do",
                self.operation.map(SnapshotOperation::as_str).unwrap_or_default(),
                self.table.identifier()
            ))
            .into());
        }
        Ok(())
    }
}

/// Java's refusal of a write into a partition whose live files were written with another
/// bucket count (`AbstractFileStoreWrite.scanExistingFileMetas`,
/// `ConflictDetection.bucketNumMismatch`): the table's `bucket` changed and the partition was
/// not rewritten since. Nothing is written or committed.
pub(crate) fn bucket_num_mismatch(
    table: &Table,
    partition: &BinaryRow,
    total: i32,
    previous: i32,
) -> Error {
    let part = if table.schema().partition_keys.is_empty() {
        "table".to_string()
    } else {
        format!(
            "partition {}",
            table
                .partition_text(partition)
                .unwrap_or_else(|_| format!("{partition:?}"))
        )
    };
    ErrorDetail::CommitConflict {
        table: table.identifier().to_string(),
        message: format!(
            "Try to write {part} with a new bucket num {total}, but the previous bucket num is \
             {previous}. Please switch to batch mode, and perform INSERT OVERWRITE to rescale \
             current data layout first."
        ),
    }
    .into()
}

/// Types of the trimmed primary key (min/max keys of data files).
pub(super) fn trimmed_key_types(table: &Table) -> Vec<strata_spec::DataType> {
    let schema = table.schema();
    let row_type = schema.row_type();
    schema
        .trimmed_primary_keys()
        .iter()
        .filter_map(|k| row_type.field(k).map(|f| f.data_type.clone()))
        .collect()
}
