//! `UPDATE` and `DELETE` on append tables: copy-on-write rewrites of the touched files.
//!
//! An append table has no key to write a `-D` or `+U` against, so a row-level change rewrites
//! the data files holding the rows it changes, as Paimon's Spark connector does for append
//! tables without deletion vectors (`DeleteFromPaimonTableCommand`,
//! `UpdatePaimonTableCommand`, copy-on-write):
//!
//! 1. plan the newest snapshot with the pushed-down part of the condition (file statistics
//!    prune the files that cannot hold a matching row);
//! 2. read each remaining file whole and evaluate the condition on its rows; a file without
//!    a matching row is left alone;
//! 3. write the file's rows again — without the matching rows (DELETE), or with the
//!    assignments applied to them (UPDATE) — through the table's writer (its file sizes,
//!    format, bucketing);
//! 4. commit the new files and the removal of the rewritten ones in one APPEND snapshot
//!    (`CommitMessage::deleted_files`, Java's `DataIncrement.deletedFiles`). The commit fails
//!    as a conflict when a concurrent commit removed a rewritten file in between (a compaction,
//!    another UPDATE), and then nothing changes.
//!
//! The work happens when the plan runs (an `EXPLAIN` rewrites nothing); the plan returns
//! DataFusion's one-row `count` of changed rows. Tables with `deletion-vectors.enabled` are
//! refused: Paimon marks their rows deleted in deletion vectors instead, which strata does not
//! write for append tables yet.
//!
//! On a data-evolution table an `UPDATE` rewrites nothing: only the assigned columns of the
//! selected rows are written, by row id (`Table::update_columns`), as Spark does there; a
//! `DELETE` marks the selected rows in deletion vectors (`Table::delete_row_ids`) and needs
//! `deletion-vectors.enabled`, as Spark's `PaimonDeleteTable` says (a rewrite would give the
//! surviving rows new row ids).

use std::fmt;
use std::sync::Arc;

use arrow::array::{Array, BooleanArray, RecordBatch, UInt64Array};
use arrow::compute::kernels::zip::zip;
use arrow::compute::{cast, filter_record_batch, not, prep_null_mask_filter};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::Session;
use datafusion::common::{DFSchema, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::expr_rewriter::unnormalize_col;
use datafusion::logical_expr::utils::conjunction;
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::execution_plan::EmissionType;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, SendableRecordBatchStream,
};
use futures::StreamExt;
use strata::commit::{CommitMessage, SnapshotOperation};
use strata::expr::Predicate;
use strata::scan::DataSplit;
use strata::table::Table;
use strata::write::RowIdChanges;

use super::target::DmlTarget;
use crate::error::{plan_error, to_df};
use crate::leaf_exec::{self, leaf_plan_methods};

/// What a rewrite does to the rows its condition selects.
#[derive(Debug, Clone)]
enum Change {
    Delete,
    /// (column index, new value) per assigned column.
    Update(Vec<(usize, Arc<dyn PhysicalExpr>)>),
}

/// DELETE FROM an append table.
pub(crate) async fn delete(
    target: &dyn DmlTarget,
    state: &dyn Session,
    filters: Vec<Expr>,
) -> Result<Arc<dyn ExecutionPlan>> {
    plan(target, state, filters, Vec::new(), "DELETE").await
}

/// UPDATE of an append table.
pub(crate) async fn update(
    target: &dyn DmlTarget,
    state: &dyn Session,
    assignments: Vec<(String, Expr)>,
    filters: Vec<Expr>,
) -> Result<Arc<dyn ExecutionPlan>> {
    plan(target, state, filters, assignments, "UPDATE").await
}

async fn plan(
    target: &dyn DmlTarget,
    state: &dyn Session,
    filters: Vec<Expr>,
    assignments: Vec<(String, Expr)>,
    what: &'static str,
) -> Result<Arc<dyn ExecutionPlan>> {
    let table = target.table();
    let dv = table
        .schema()
        .options
        .get("deletion-vectors.enabled")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let data_evolution = table
        .options()
        .data_evolution_enabled()
        .map_err(|e| plan_error(e.to_string()))?;
    if data_evolution && !dv && what == "DELETE" {
        // Spark's `PaimonDeleteTable`, word for word.
        return Err(plan_error(format!(
            "DELETE on {}: Can only perform deletion operation on data evolution tables with \
             DeletionVector enabled (set 'deletion-vectors.enabled' = 'true')",
            table.identifier()
        )));
    }
    if dv && !data_evolution {
        return Err(plan_error(format!(
            "{what} on {}: the append table has 'deletion-vectors.enabled'; Paimon marks its \
             rows deleted in deletion vectors, which strata does not write for append tables \
             yet (tables without deletion vectors are rewritten copy-on-write)",
            table.identifier()
        )));
    }
    let schema = target.schema();
    let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
    let filters: Vec<Expr> = filters.into_iter().map(unnormalize_col).collect();
    let predicate = target.predicate(&filters);
    let condition = match conjunction(filters) {
        Some(c) => Some(state.create_physical_expr(c, &df_schema)?),
        None => None,
    };
    let change = if what == "DELETE" {
        Change::Delete
    } else {
        let mut out = Vec::with_capacity(assignments.len());
        for (name, expr) in assignments {
            let index = schema.index_of(&name).map_err(|_| {
                plan_error(format!(
                    "UPDATE on {}: no column {name}",
                    table.identifier()
                ))
            })?;
            out.push((
                index,
                state.create_physical_expr(unnormalize_col(expr), &df_schema)?,
            ));
        }
        Change::Update(out)
    };
    Ok(Arc::new(CopyOnWriteExec::new(
        table.clone(),
        schema,
        predicate,
        condition,
        change,
    )))
}

/// Runs a copy-on-write UPDATE or DELETE (see the module doc); one partition, one `count` row.
#[derive(Debug)]
pub struct CopyOnWriteExec {
    table: Table,
    table_schema: SchemaRef,
    predicate: Option<Predicate>,
    condition: Option<Arc<dyn PhysicalExpr>>,
    change: Change,
    properties: Arc<PlanProperties>,
}

impl CopyOnWriteExec {
    fn new(
        table: Table,
        table_schema: SchemaRef,
        predicate: Option<Predicate>,
        condition: Option<Arc<dyn PhysicalExpr>>,
        change: Change,
    ) -> Self {
        let out = Arc::new(Schema::new(vec![Field::new(
            "count",
            DataType::UInt64,
            false,
        )]));
        let properties = leaf_exec::properties(out, 1, EmissionType::Final);
        CopyOnWriteExec {
            table,
            table_schema,
            predicate,
            condition,
            change,
            properties,
        }
    }
}

impl DisplayAs for CopyOnWriteExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let what = match &self.change {
            Change::Delete => "delete",
            Change::Update(_) => "update",
        };
        leaf_exec::display_head(f, "CopyOnWriteExec", &self.table)?;
        write!(f, ", {what}")?;
        if let Some(c) = &self.condition {
            write!(f, ", condition={c}")?;
        }
        Ok(())
    }
}

impl ExecutionPlan for CopyOnWriteExec {
    leaf_plan_methods!("CopyOnWriteExec");

    fn execute(
        &self,
        _partition: usize,
        _context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let out = self.properties.eq_properties.schema().clone();
        let rewrite = Rewrite {
            table: self.table.clone(),
            table_schema: self.table_schema.clone(),
            predicate: self.predicate.clone(),
            condition: self.condition.clone(),
            change: self.change.clone(),
        };
        let schema = out.clone();
        let stream = futures::stream::once(async move {
            let changed = rewrite.run().await?;
            Ok(RecordBatch::try_new(
                out,
                vec![Arc::new(UInt64Array::from(vec![changed]))],
            )?)
        });
        Ok(leaf_exec::record_stream(schema, stream))
    }
}

struct Rewrite {
    table: Table,
    table_schema: SchemaRef,
    predicate: Option<Predicate>,
    condition: Option<Arc<dyn PhysicalExpr>>,
    change: Change,
}

impl Rewrite {
    /// Rewrites and commits; the number of rows changed.
    async fn run(&self) -> Result<u64> {
        let data_evolution = self
            .table
            .options()
            .data_evolution_enabled()
            .map_err(|e| plan_error(e.to_string()))?;
        if data_evolution {
            return match &self.change {
                Change::Update(assignments) => self.update_columns(assignments).await,
                Change::Delete => self.delete_row_ids().await,
            };
        }
        // The latest snapshot, whatever the table's scan.* options say: the rewrite replaces
        // what is live now.
        let mut scan = self.table.new_scan().with_latest();
        if let Some(p) = &self.predicate {
            scan = scan.with_filter(p.clone());
        }
        let plan = scan.plan().await.map_err(to_df)?;
        if plan.snapshot.is_none() {
            return Ok(0);
        }
        let mut write = self.table.new_write().map_err(to_df)?;
        let result = self.rewrite(plan.splits, &mut write).await;
        let (changed, removed) = match result {
            Ok(r) => r,
            Err(e) => {
                write.abort().await;
                return Err(e);
            }
        };
        if changed == 0 {
            write.abort().await;
            return Ok(0);
        }
        let mut messages = match write.prepare_commit().await {
            Ok(m) => m,
            Err(e) => {
                write.abort().await;
                return Err(to_df(e));
            }
        };
        messages.extend(removed);
        // A commit that certainly failed removes the files it would have added.
        let operation = match self.change {
            Change::Delete => SnapshotOperation::Delete,
            Change::Update(_) => SnapshotOperation::Update,
        };
        self.table
            .new_commit()
            .map_err(to_df)?
            .with_operation(Some(operation))
            .commit(messages)
            .await
            .map_err(to_df)?;
        Ok(changed)
    }

    /// Writes the surviving and changed rows of every touched file; the rows changed and the
    /// messages removing the touched files.
    async fn rewrite(
        &self,
        splits: Vec<DataSplit>,
        write: &mut strata::write::TableWrite,
    ) -> Result<(u64, Vec<CommitMessage>)> {
        let mut changed = 0u64;
        let mut removed = Vec::new();
        for split in splits {
            let mut message =
                CommitMessage::new(split.partition.clone(), split.bucket, split.total_buckets);
            for file in &split.files {
                // DELETE without a condition: the whole file goes, unread.
                if self.condition.is_none() && matches!(self.change, Change::Delete) {
                    changed += u64::try_from(file.row_count).unwrap_or(0);
                    message.deleted_files.push(file.clone());
                    continue;
                }
                let single = DataSplit {
                    snapshot_id: split.snapshot_id,
                    partition: split.partition.clone(),
                    bucket: split.bucket,
                    total_buckets: split.total_buckets,
                    files: vec![file.clone()],
                    raw_convertible: true,
                    row_range: None,
                    branch: split.branch.clone(),
                };
                // Strings as views: the condition and assignments were planned against the
                // provider's schema.
                let mut stream = self
                    .table
                    .new_read()
                    .with_string_views()
                    .to_stream(vec![single])
                    .map_err(to_df)?;
                let mut out = Vec::new();
                let mut matched = 0usize;
                while let Some(batch) = stream.next().await {
                    let batch = batch.map_err(to_df)?;
                    let mask = self.mask(&batch)?;
                    matched += mask.true_count();
                    out.push(self.apply(&batch, &mask)?);
                }
                if matched == 0 {
                    continue;
                }
                changed += matched as u64;
                for b in out.iter().filter(|b| b.num_rows() > 0) {
                    write.write(b).await.map_err(to_df)?;
                }
                message.deleted_files.push(file.clone());
            }
            if !message.deleted_files.is_empty() {
                removed.push(message);
            }
        }
        Ok((changed, removed))
    }

    /// UPDATE of a data-evolution table: only the assigned columns of the selected rows are
    /// written, by row id (`Table::update_columns`: one file of those columns per row-id range,
    /// as Spark's data-evolution `UPDATE` / `MERGE INTO`); no data file is rewritten.
    async fn update_columns(&self, assignments: &[(usize, Arc<dyn PhysicalExpr>)]) -> Result<u64> {
        let mut scan = self.table.new_scan().with_latest();
        if let Some(p) = &self.predicate {
            scan = scan.with_filter(p.clone());
        }
        let plan = scan.plan().await.map_err(to_df)?;
        if plan.snapshot.is_none() {
            return Ok(0);
        }
        // The table's columns (the condition and assignments index them), then `_ROW_ID`.
        let mut names: Vec<String> = self
            .table_schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        names.push("_ROW_ID".to_string());
        let mut stream = self
            .table
            .new_read()
            .with_string_views()
            .with_projection(names)
            .to_stream(plan.splits)
            .map_err(to_df)?;
        let row_id = self.table_schema.fields().len();
        let mut fields = vec![Field::new("_ROW_ID", DataType::Int64, false)];
        for (index, _) in assignments {
            let f = self.table_schema.field(*index);
            fields.push(Field::new(f.name(), f.data_type().clone(), true));
        }
        let out_schema = Arc::new(Schema::new(fields));
        let mut out = Vec::new();
        while let Some(batch) = stream.next().await {
            let batch = batch.map_err(to_df)?;
            let mask = self.mask(&batch)?;
            if mask.true_count() == 0 {
                continue;
            }
            let mut columns = vec![arrow::compute::filter(batch.column(row_id), &mask)?];
            for (index, expr) in assignments {
                let target = self.table_schema.field(*index).data_type();
                let value = expr.evaluate(&batch)?.into_array(batch.num_rows())?;
                let value = if value.data_type() == target {
                    value
                } else {
                    cast(&value, target)?
                };
                columns.push(arrow::compute::filter(&value, &mask)?);
            }
            out.push(RecordBatch::try_new(out_schema.clone(), columns)?);
        }
        let changes = arrow::compute::concat_batches(&out_schema, &out)?;
        let changed = changes.num_rows() as u64;
        if changed > 0 {
            // Spark's UPDATE of a data-evolution table commits an UPDATE snapshot.
            self.table
                .apply_row_id_changes(
                    RowIdChanges::new()
                        .with_updates(changes)
                        .with_operation(SnapshotOperation::Update),
                )
                .await
                .map_err(to_df)?;
        }
        Ok(changed)
    }

    /// DELETE on a data-evolution table with deletion vectors: the selected rows marked
    /// deleted in their anchor files' deletion vectors, by row id (`Table::delete_row_ids`, as
    /// Spark's `DeleteFromPaimonTableCommand` there); no data file is rewritten.
    async fn delete_row_ids(&self) -> Result<u64> {
        let mut scan = self.table.new_scan().with_latest();
        if let Some(p) = &self.predicate {
            scan = scan.with_filter(p.clone());
        }
        let plan = scan.plan().await.map_err(to_df)?;
        if plan.snapshot.is_none() {
            return Ok(0);
        }
        let mut names: Vec<String> = self
            .table_schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        names.push("_ROW_ID".to_string());
        let mut stream = self
            .table
            .new_read()
            .with_string_views()
            .with_projection(names)
            .to_stream(plan.splits)
            .map_err(to_df)?;
        let row_id = self.table_schema.fields().len();
        let mut ids: Vec<i64> = Vec::new();
        while let Some(batch) = stream.next().await {
            let batch = batch.map_err(to_df)?;
            let mask = self.mask(&batch)?;
            if mask.true_count() == 0 {
                continue;
            }
            let selected = arrow::compute::filter(batch.column(row_id), &mask)?;
            let selected = cast(&selected, &DataType::Int64)?;
            let selected = selected
                .as_any()
                .downcast_ref::<arrow::array::Int64Array>()
                .ok_or_else(|| plan_error("_ROW_ID is not BIGINT"))?;
            ids.extend(selected.iter().flatten());
        }
        if !ids.is_empty() {
            self.table.delete_row_ids(&ids).await.map_err(to_df)?;
        }
        Ok(ids.len() as u64)
    }

    /// The rows the condition selects (NULL: not selected).
    fn mask(&self, batch: &RecordBatch) -> Result<BooleanArray> {
        let Some(condition) = &self.condition else {
            return Ok(BooleanArray::from(vec![true; batch.num_rows()]));
        };
        let value = condition.evaluate(batch)?.into_array(batch.num_rows())?;
        let mask = value
            .as_any()
            .downcast_ref::<BooleanArray>()
            .ok_or_else(|| plan_error("the condition is not a boolean expression"))?;
        Ok(if mask.null_count() > 0 {
            prep_null_mask_filter(mask)
        } else {
            mask.clone()
        })
    }

    /// The file's rows after the change: the unselected ones, with the selected ones updated.
    fn apply(&self, batch: &RecordBatch, mask: &BooleanArray) -> Result<RecordBatch> {
        match &self.change {
            Change::Delete => Ok(filter_record_batch(batch, &not(mask)?)?),
            Change::Update(assignments) => {
                let mut columns = batch.columns().to_vec();
                for (index, expr) in assignments {
                    let target = self.table_schema.field(*index).data_type();
                    let value = expr.evaluate(batch)?.into_array(batch.num_rows())?;
                    let value = if value.data_type() == target {
                        value
                    } else {
                        cast(&value, target)?
                    };
                    columns[*index] = zip(mask, &value, &columns[*index])?;
                }
                Ok(RecordBatch::try_new(batch.schema(), columns)?)
            }
        }
    }
}
