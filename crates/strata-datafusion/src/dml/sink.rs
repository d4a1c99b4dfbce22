//! [`StrataSink`]: rows into a strata table, one write and one commit per statement — INSERT
//! INTO / INSERT OVERWRITE, and the row kinds of DELETE / UPDATE / MERGE on primary-key tables.
//!
//! Every statement is one strata write and one commit, run by DataFusion's `DataSinkExec` over
//! a [`StrataSink`]: the input rows go through `TableWrite` (the table's bucketing, sorting,
//! merge engine and file sizes), and the commit happens after the last batch. A failure before
//! the commit deletes the files written, so a failed statement changes nothing. The statement
//! returns DataFusion's one-row `count`.
//!
//! DELETE and UPDATE on primary-key tables are written as row kinds, as Paimon's Spark
//! connector does (`DeleteFromPaimonTableCommand`, `UpdatePaimonTableCommand`): the rows the
//! condition selects are read (merged), and written back as `-D`, or with the assignments
//! applied as `+U`, in one commit. DELETE needs a merge engine that removes a row on `-D`
//! (Java's `PrimaryKeyTableUtils.validatePKUpsertDeletable`) and no `ignore-delete`; UPDATE
//! needs `deduplicate` or `partial-update` (Java's `RowLevelOp.Update`) and may not assign
//! primary-key or partition columns. Each record is then checked to take effect under the
//! table's merge engine before it is written (`super::row_effect`): a statement that would
//! report success while its rows stay as they were fails before its commit. The plans that
//! select those rows are in `super::primary_key`, the refusals that need no rows in
//! `super::rules`. On append tables DELETE and UPDATE rewrite the touched files instead
//! (`super::cow`); `MERGE INTO` (`super::merge`) writes each row with its own kind
//! ([`SinkMode::KindColumn`]).

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use arrow::array::{Array, Int8Array, RecordBatch};
use arrow::row::{RowConverter, SortField};

use arrow_schema::SchemaRef;
use async_trait::async_trait;
use datafusion::common::Result;
use datafusion::datasource::sink::{DataSink, DataSinkExec};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, SendableRecordBatchStream,
};
use futures::StreamExt;
use strata::commit::{OverwriteScope, SnapshotOperation};
use strata::spec::kv::RowKind;
use strata::table::Table;

use super::row_effect::RowEffectCheck;
use crate::error::{plan_error, to_df};

/// How a [`StrataSink`] commits its rows.
#[derive(Debug, Clone)]
pub enum SinkMode {
    /// An APPEND commit (`INSERT INTO`).
    Append,
    /// An OVERWRITE commit of this scope (`INSERT OVERWRITE`).
    Overwrite(OverwriteScope),
    /// Every row written with this row kind, an APPEND commit (DELETE as `-D`, UPDATE as `+U`).
    RowKind(RowKind),
    /// Each row's kind in the input's last column, [`ROW_KIND_COLUMN`] (Paimon's row-kind
    /// byte, Int8), which is not written; an APPEND commit (`MERGE INTO`). No primary key may
    /// be updated or deleted twice (a target row matched by two source rows).
    KindColumn,
}

impl SinkMode {
    /// The snapshot operation Spark's Paimon writer commits for this mode's statement
    /// (`PaimonBatchWriteBase`, `DeleteFromPaimonTableCommand`, `UpdatePaimonTableCommand`,
    /// `MergeIntoPaimonTable`): INSERT → WRITE, INSERT OVERWRITE → OVERWRITE, DELETE,
    /// UPDATE, MERGE INTO → MERGE.
    pub fn operation(&self) -> SnapshotOperation {
        match self {
            SinkMode::Append => SnapshotOperation::Write,
            SinkMode::Overwrite(_) => SnapshotOperation::Overwrite,
            SinkMode::RowKind(RowKind::Delete) => SnapshotOperation::Delete,
            SinkMode::RowKind(_) => SnapshotOperation::Update,
            SinkMode::KindColumn => SnapshotOperation::Merge,
        }
    }
}

/// The name of the row-kind column of a [`SinkMode::KindColumn`] input.
pub const ROW_KIND_COLUMN: &str = "__strata_row_kind";

/// A DataFusion [`DataSink`] writing into a strata table, committing once at the end.
#[derive(Debug)]
pub struct StrataSink {
    table: Table,
    mode: SinkMode,
    schema: SchemaRef,
    /// Row-level statements on primary-key tables: each record must take effect
    /// (`super::row_effect`); its stored row may follow the table's columns in the input.
    check: Option<Arc<RowEffectCheck>>,
    /// The snapshot's logical operation (Java 2.0 `Snapshot.operation`).
    operation: SnapshotOperation,
}

impl StrataSink {
    /// A sink committing as `mode` says; the snapshot's operation is the one Spark writes for
    /// the statement of that mode ([`SinkMode::operation`]).
    pub fn new(table: Table, mode: SinkMode, schema: SchemaRef) -> Self {
        StrataSink {
            operation: mode.operation(),
            table,
            mode,
            schema,
            check: None,
        }
    }

    /// Writes `operation` into the snapshot instead of the mode's (CREATE TABLE AS SELECT).
    pub fn with_operation(mut self, operation: SnapshotOperation) -> Self {
        self.operation = operation;
        self
    }

    /// Checks every record with `check` before writing it; the input holds the table's
    /// columns, then (with `check.old_columns`) the stored row's, then the kind column.
    pub(crate) fn with_check(mut self, check: Option<RowEffectCheck>) -> Self {
        self.check = check.map(Arc::new);
        self
    }

    /// The batch's records (the table's columns) and their kinds, after the check.
    fn records(&self, batch: &RecordBatch) -> Result<(RecordBatch, Option<Vec<RowKind>>)> {
        let (batch, kinds) = match &self.mode {
            SinkMode::KindColumn => {
                let (data, kinds) = split_kinds(batch)?;
                (data, Some(kinds))
            }
            SinkMode::RowKind(kind) => (batch.clone(), Some(vec![*kind; batch.num_rows()])),
            _ => (batch.clone(), None),
        };
        let Some(check) = &self.check else {
            return Ok((batch, kinds));
        };
        let width = check.width();
        let data = batch.project(&(0..width).collect::<Vec<_>>())?;
        let old = if check.old_columns {
            Some(batch.project(&(width..2 * width).collect::<Vec<_>>())?)
        } else {
            None
        };
        if let Some(kinds) = &kinds {
            check.check(&data, old.as_ref(), kinds)?;
        }
        Ok((data, kinds))
    }
}

impl DisplayAs for StrataSink {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "StrataSink: table={}, mode={:?}",
            self.table.identifier(),
            self.mode
        )
    }
}

#[async_trait]
impl DataSink for StrataSink {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    async fn write_all(
        &self,
        mut data: SendableRecordBatchStream,
        _context: &Arc<TaskContext>,
    ) -> Result<u64> {
        let overwrite = matches!(self.mode, SinkMode::Overwrite(_));
        let mut write = self
            .table
            .new_write()
            .map_err(to_df)?
            .with_overwrite(overwrite);
        let mut matched = MatchedKeys::new(&self.table, &self.schema)?;
        let result: Result<u64> = async {
            while let Some(batch) = data.next().await {
                let (batch, kinds) = self.records(&batch?)?;
                match kinds {
                    Some(kinds) => {
                        if matches!(self.mode, SinkMode::KindColumn) {
                            matched.check(&self.table, &batch, &kinds)?;
                        }
                        write
                            .write_with_kinds(&batch, &kinds)
                            .await
                            .map_err(to_df)?
                    }
                    None => write.write(&batch).await.map_err(to_df)?,
                }
            }
            let rows = write.rows_written();
            let messages = write.prepare_commit().await.map_err(to_df)?;
            let commit = self
                .table
                .new_commit()
                .map_err(to_df)?
                .with_operation(Some(self.operation));
            match &self.mode {
                SinkMode::Overwrite(scope) => commit.overwrite(scope.clone(), messages).await,
                _ => commit.commit(messages).await,
            }
            .map_err(to_df)?;
            Ok(rows)
        }
        .await;
        if let Err(e) = &result {
            let may_have_committed = match e {
                datafusion::error::DataFusionError::External(inner) => inner
                    .downcast_ref::<strata::Error>()
                    .is_some_and(strata::Error::may_have_committed),
                _ => false,
            };
            if !may_have_committed {
                write.abort().await;
            }
        }
        result
    }
}

/// INSERT INTO (`Append`) and INSERT OVERWRITE (`Overwrite`: [`overwrite_scope`];
/// `Replace`: the whole table).
pub(crate) fn insert(
    table: &Table,
    input: Arc<dyn ExecutionPlan>,
    op: InsertOp,
) -> Result<Arc<dyn ExecutionPlan>> {
    let mode = match op {
        InsertOp::Append => SinkMode::Append,
        InsertOp::Overwrite => SinkMode::Overwrite(overwrite_scope(table)?),
        InsertOp::Replace => SinkMode::Overwrite(OverwriteScope::WholeTable),
    };
    insert_with(table, input, mode)
}

/// The scope of `INSERT OVERWRITE t …` without a `PARTITION` clause, by the table's
/// `dynamic-partition-overwrite` (its options, with the statement's `/*+ OPTIONS(…) */` hint
/// on top): `true` (the default) replaces the partitions the new rows fall in, `false` the
/// whole table — Java's `FileStoreCommitImpl.overwrite`, which Flink's INSERT OVERWRITE
/// follows. (`INSERT OVERWRITE t PARTITION (k = v)` replaces the partitions the spec
/// matches, as Spark's static overwrite, in the SQL layer's DDL.)
pub(crate) fn overwrite_scope(table: &Table) -> Result<OverwriteScope> {
    let dynamic = table
        .options()
        .dynamic_partition_overwrite()
        .map_err(|e| to_df(e.into()))?;
    Ok(if dynamic {
        OverwriteScope::Dynamic
    } else {
        OverwriteScope::WholeTable
    })
}

/// A `DataSinkExec` writing `input` into `table` as `mode` says.
pub fn insert_with(
    table: &Table,
    input: Arc<dyn ExecutionPlan>,
    mode: SinkMode,
) -> Result<Arc<dyn ExecutionPlan>> {
    insert_checked(table, input, mode, None)
}

/// [`insert_with`] writing `operation` into the snapshot instead of the mode's.
pub(crate) fn insert_operation(
    table: &Table,
    input: Arc<dyn ExecutionPlan>,
    mode: SinkMode,
    operation: SnapshotOperation,
) -> Result<Arc<dyn ExecutionPlan>> {
    let sink = StrataSink::new(table.clone(), mode, input.schema()).with_operation(operation);
    Ok(Arc::new(DataSinkExec::new(input, Arc::new(sink), None)))
}

/// [`insert_with`], each record checked by `check` first (row-level statements).
pub(crate) fn insert_checked(
    table: &Table,
    input: Arc<dyn ExecutionPlan>,
    mode: SinkMode,
    check: Option<RowEffectCheck>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let sink = StrataSink::new(table.clone(), mode, input.schema()).with_check(check);
    // The schema the sink reports is the input's; the kind and old columns are dropped in
    // `write_all`.
    Ok(Arc::new(DataSinkExec::new(input, Arc::new(sink), None)))
}

/// Splits a [`SinkMode::KindColumn`] batch into its table columns and its row kinds.
fn split_kinds(batch: &RecordBatch) -> Result<(RecordBatch, Vec<RowKind>)> {
    let n = batch.num_columns();
    let kinds = batch
        .column(n.saturating_sub(1))
        .as_any()
        .downcast_ref::<Int8Array>()
        .ok_or_else(|| plan_error(format!("the last input column is not {ROW_KIND_COLUMN}")))?;
    let kinds = kinds
        .iter()
        .map(|k| {
            RowKind::from_byte(k.unwrap_or(-1))
                .map_err(|e| plan_error(format!("{ROW_KIND_COLUMN}: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((batch.project(&(0..n - 1).collect::<Vec<_>>())?, kinds))
}

/// The primary keys a MERGE updated or deleted so far, to refuse a second change of one
/// (Spark's `MERGE_CARDINALITY_VIOLATION`; which change wins would otherwise be arbitrary).
struct MatchedKeys {
    key_columns: Vec<usize>,
    converter: Option<RowConverter>,
    seen: HashSet<Box<[u8]>>,
}

impl MatchedKeys {
    fn new(table: &Table, schema: &SchemaRef) -> Result<Self> {
        let key_columns: Vec<usize> = table
            .schema()
            .primary_keys
            .iter()
            .filter_map(|k| schema.index_of(k).ok())
            .collect();
        let converter = if key_columns.is_empty() {
            None
        } else {
            let fields = key_columns
                .iter()
                .map(|&i| SortField::new(schema.field(i).data_type().clone()))
                .collect();
            Some(RowConverter::new(fields)?)
        };
        Ok(MatchedKeys {
            key_columns,
            converter,
            seen: HashSet::new(),
        })
    }

    fn check(&mut self, table: &Table, batch: &RecordBatch, kinds: &[RowKind]) -> Result<()> {
        let Some(converter) = &self.converter else {
            return Ok(());
        };
        let columns: Vec<_> = self
            .key_columns
            .iter()
            .map(|&i| batch.column(i).clone())
            .collect();
        let rows = converter.convert_columns(&columns)?;
        for (i, kind) in kinds.iter().enumerate() {
            if matches!(kind, RowKind::Insert) {
                continue;
            }
            if !self.seen.insert(rows.row(i).as_ref().into()) {
                let key = self
                    .key_columns
                    .iter()
                    .map(|&c| {
                        arrow::util::display::array_value_to_string(batch.column(c), i)
                            .unwrap_or_default()
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(plan_error(format!(
                    "MERGE INTO {}: the target row with primary key ({key}) is matched by more \
                     than one source row; make the ON condition match each target row at most \
                     once",
                    table.identifier()
                )));
            }
        }
        Ok(())
    }
}
