//! `MERGE INTO` a data-evolution table (`data-evolution.enabled`), by row id, as Paimon's Spark
//! connector does there (`MergeIntoPaimonDataEvolutionTable`):
//!
//! * the target's rows with their `_ROW_ID` are joined with the `USING` source on the `ON`
//!   condition; every joined row takes the first `WHEN` clause of its kind whose condition
//!   holds (inner join for `WHEN MATCHED` only, right join with `WHEN NOT MATCHED`, full join
//!   with `WHEN NOT MATCHED BY SOURCE`);
//! * `WHEN MATCHED THEN UPDATE SET` writes only the changed columns — the union of the columns
//!   the `UPDATE` clauses assign, `SET c = t.c` not counted — for the matched row ids, one file
//!   per row-id range (`Table::update_columns`' files): no data file is rewritten and every row
//!   keeps its `_ROW_ID`;
//! * `WHEN MATCHED THEN DELETE` and `WHEN NOT MATCHED BY SOURCE THEN DELETE` mark the rows in
//!   deletion vectors, which needs `deletion-vectors.enabled` (Java: "MERGE INTO DELETE on
//!   DataEvolution table requires deletion-vectors.enabled=true.");
//! * `WHEN NOT MATCHED THEN INSERT` appends new rows, which get new row ids at the commit;
//! * all of it is one commit (`Table::apply_row_id_changes`, Java's one `MERGE` commit).
//!
//! A target planned with the system columns (`crate::sql::row_id_merge`: a statement naming
//! `_ROW_ID` / `_SEQUENCE_NUMBER`) also carries both, read with the rows, so `ON t._ROW_ID =
//! s._ROW_ID`, `SET` values and `WHEN` conditions can use them; assigning either is refused.
//!
//! Java's clause rules apply: `WHEN MATCHED` takes `UPDATE` and `DELETE`, `WHEN NOT MATCHED`
//! only `INSERT`, `WHEN NOT MATCHED BY SOURCE` only `DELETE` (an `UPDATE` there is refused with
//! Java's message). A target row matched by two source rows fails the statement before its
//! commit (its row id would be written twice). Partition columns cannot be assigned.
//!
//! The target's rows are read when the statement is planned (the join needs them as a
//! relation); the write happens when the plan runs and returns DataFusion's one-row `count`.

use std::fmt;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, Int32Array, Int64Array, RecordBatch, UInt64Array};
use arrow::compute::{cast as cast_array, filter, filter_record_batch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::Session;
use datafusion::common::{Column, DFSchemaRef, Result, ScalarValue, TableReference};
use datafusion::datasource::{provider_as_source, MemTable};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::dml::{MergeIntoAction, MergeIntoClause, MergeIntoClauseKind};
use datafusion::logical_expr::{lit, when, Expr, LogicalPlanBuilder};
use datafusion::physical_plan::execution_plan::EmissionType;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, SendableRecordBatchStream,
};
use futures::StreamExt;
use strata::commit::SnapshotOperation;
use strata::table::Table;
use strata::write::RowIdChanges;

use super::merge::{join_source, merged_columns, TARGET_MARK};
use super::rules;
use super::target::DmlTarget;
use crate::error::{plan_error, to_df};
use crate::leaf_exec::{self, leaf_plan_methods};

const ROW_ID: &str = "_ROW_ID";
/// Java `SpecialFields.SEQUENCE_NUMBER`.
const SEQUENCE_NUMBER: &str = "_SEQUENCE_NUMBER";
const ROW_ID_OUT: &str = "__strata_merge_row_id";
const ACTION_OUT: &str = "__strata_merge_clause";

/// What a `WHEN` clause does to its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Update,
    Delete,
    Insert,
}

/// The plan of a `MERGE INTO` on a data-evolution table (see the module doc).
pub(crate) async fn merge_into(
    target: &dyn DmlTarget,
    state: &dyn Session,
    source: Arc<dyn ExecutionPlan>,
    merge_schema: DFSchemaRef,
    on: Expr,
    clauses: Vec<MergeIntoClause>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let table = target.table();
    let target_schema = target.schema();
    let n_target = target_schema.fields().len();
    let target_ref: TableReference = merge_schema
        .qualified_field(0)
        .0
        .cloned()
        .ok_or_else(|| plan_error("MERGE INTO: the target columns have no qualifier"))?;
    // A target planned with the system columns (`_ROW_ID`, `_SEQUENCE_NUMBER` after the
    // table's, see `crate::sql::row_id_merge`): `ON`, `SET` and the source may name them.
    let system = merge_schema.fields().len() == n_target + 2 + source.schema().fields().len()
        && merge_schema.field(n_target).name() == ROW_ID
        && merge_schema.field(n_target + 1).name() == SEQUENCE_NUMBER;
    let n_merge_target = if system { n_target + 2 } else { n_target };
    refuse_system_assignments(table, &clauses)?;
    let actions = check_clauses(table, &target_ref, &clauses)?;

    // The columns the UPDATE clauses change, in the table's order (Java's `updateColumns`:
    // an assignment of a column to itself changes nothing).
    let mut updated: Vec<usize> = Vec::new();
    for clause in &clauses {
        if let MergeIntoAction::Update(assignments) = &clause.action {
            for (name, value) in assignments {
                let same = matches!(value, Expr::Column(c)
                    if &c.name == name && c.relation.as_ref().is_none_or(|r| r == &target_ref));
                if same {
                    continue;
                }
                let index = target_schema.index_of(name).map_err(|_| {
                    plan_error(format!(
                        "MERGE INTO {}: no column {name}",
                        table.identifier()
                    ))
                })?;
                if !updated.contains(&index) {
                    updated.push(index);
                }
            }
        }
    }
    updated.sort_unstable();

    // The target: its rows with their row ids, read now, under the statement's name for it.
    let rows = read_with_row_ids(table, &target_schema, system).await?;
    let mut fields: Vec<Field> = target_schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.push(Field::new(ROW_ID, DataType::Int64, false));
    if system {
        fields.push(Field::new(SEQUENCE_NUMBER, DataType::Int64, false));
    }
    let rows_schema = Arc::new(Schema::new(fields));
    let mem = MemTable::try_new(rows_schema, vec![rows])?;
    let mut target_cols: Vec<Expr> = target_schema
        .fields()
        .iter()
        .map(|f| Expr::Column(Column::new(Some(target_ref.clone()), f.name())))
        .collect();
    if system {
        for c in [ROW_ID, SEQUENCE_NUMBER] {
            target_cols.push(Expr::Column(Column::new(Some(target_ref.clone()), c)));
        }
    }
    target_cols.push(Expr::Column(Column::new(Some(target_ref.clone()), ROW_ID)).alias(ROW_ID_OUT));
    target_cols.push(lit(true).alias(TARGET_MARK));
    let target_plan =
        LogicalPlanBuilder::scan(target_ref.clone(), provider_as_source(Arc::new(mem)), None)?
            .project(target_cols)?;

    let joined = join_source(
        table,
        target_plan,
        source,
        &merge_schema,
        n_merge_target,
        on,
        &clauses,
    )?;
    let (conditions, mut outputs) = merged_columns(&target_ref, &target_schema, &clauses)?;
    outputs.push(Expr::Column(Column::new_unqualified(ROW_ID_OUT)).alias(ROW_ID_OUT));
    let mut clause_case: Option<datafusion::logical_expr::conditional_expressions::CaseBuilder> =
        None;
    for (i, condition) in conditions.iter().enumerate() {
        let value = lit(i as i32);
        clause_case = Some(match clause_case {
            None => when(condition.clone(), value),
            Some(mut b) => b.when(condition.clone(), value),
        });
    }
    let clause_expr = match clause_case {
        Some(mut b) => b.otherwise(lit(ScalarValue::Int32(None)))?,
        None => return Err(plan_error("MERGE INTO needs at least one WHEN clause")),
    };
    outputs.push(clause_expr.alias(ACTION_OUT));
    let plan = joined
        .project(outputs)?
        .filter(Expr::Column(Column::new_unqualified(ACTION_OUT)).is_not_null())?
        .build()?;
    let input = state.create_physical_plan(&plan).await?;
    Ok(Arc::new(DataEvolutionMergeExec::new(
        table.clone(),
        target_schema,
        input,
        actions,
        updated,
    )))
}

/// `_ROW_ID` and `_SEQUENCE_NUMBER` are read-only (Java assigns both at the commit): an
/// `UPDATE SET` or `INSERT` naming one is refused naming it.
fn refuse_system_assignments(table: &Table, clauses: &[MergeIntoClause]) -> Result<()> {
    for clause in clauses {
        let names: Vec<&String> = match &clause.action {
            MergeIntoAction::Update(assignments) => assignments.iter().map(|(n, _)| n).collect(),
            MergeIntoAction::Insert { columns, .. } => columns.iter().collect(),
            MergeIntoAction::Delete => Vec::new(),
        };
        for name in names {
            if let Some(c) = [ROW_ID, SEQUENCE_NUMBER]
                .into_iter()
                .find(|c| name.eq_ignore_ascii_case(c))
            {
                return Err(plan_error(format!(
                    "MERGE INTO {}: column {c} is a system column of row tracking and cannot \
                     be assigned (the commit assigns it)",
                    table.identifier()
                )));
            }
        }
    }
    Ok(())
}

/// Java's clause rules for data-evolution tables, the key and partition checks of `UPDATE`,
/// and the `INSERT` column lists; the action of each clause.
fn check_clauses(
    table: &Table,
    target_ref: &TableReference,
    clauses: &[MergeIntoClause],
) -> Result<Vec<Action>> {
    let schema = table.schema();
    let dv = table
        .schema()
        .options
        .get("deletion-vectors.enabled")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let mut actions = Vec::with_capacity(clauses.len());
    for clause in clauses {
        let by_source = clause.kind.canonical() == MergeIntoClauseKind::NotMatchedBySource;
        match &clause.action {
            MergeIntoAction::Delete => {
                if !dv {
                    return Err(plan_error(format!(
                        "MERGE INTO {}: MERGE INTO DELETE on DataEvolution table requires \
                         deletion-vectors.enabled=true.",
                        table.identifier()
                    )));
                }
                actions.push(Action::Delete);
            }
            MergeIntoAction::Update(assignments) => {
                if by_source {
                    return Err(plan_error(format!(
                        "MERGE INTO {}: Only DELETE clause is supported in \
                         MergeIntoPaimonDataEvolutionTable for SQL: WHEN NOT MATCHED BY SOURCE.",
                        table.identifier()
                    )));
                }
                let names: Vec<&str> = assignments
                    .iter()
                    .filter(|(name, value)| {
                        !matches!(value, Expr::Column(c)
                            if &c.name == name
                                && c.relation.as_ref().is_none_or(|r| r == target_ref))
                    })
                    .map(|(n, _)| n.as_str())
                    .collect();
                rules::check_assignments(table, "MERGE INTO", &names)?;
                actions.push(Action::Update);
            }
            MergeIntoAction::Insert { columns, values } => {
                if !columns.is_empty() && columns.len() != values.len() {
                    return Err(plan_error(format!(
                        "MERGE INTO {}: INSERT names {} columns and gives {} values",
                        table.identifier(),
                        columns.len(),
                        values.len()
                    )));
                }
                if let Some(c) = columns
                    .iter()
                    .find(|c| schema.fields.iter().all(|f| &&f.name != c))
                {
                    return Err(plan_error(format!(
                        "MERGE INTO {}: INSERT names column {c}, which the table does not have",
                        table.identifier()
                    )));
                }
                actions.push(Action::Insert);
            }
        }
    }
    Ok(actions)
}

/// The table's rows now (the newest snapshot), its columns as `schema` plans them, then
/// `_ROW_ID` (and `_SEQUENCE_NUMBER` with `sequence`).
async fn read_with_row_ids(
    table: &Table,
    schema: &SchemaRef,
    sequence: bool,
) -> Result<Vec<RecordBatch>> {
    let plan = table.new_scan().with_latest().plan().await.map_err(to_df)?;
    let mut names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    names.push(ROW_ID.to_string());
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    fields.push(Field::new(ROW_ID, DataType::Int64, false));
    if sequence {
        names.push(SEQUENCE_NUMBER.to_string());
        fields.push(Field::new(SEQUENCE_NUMBER, DataType::Int64, false));
    }
    let out_schema = Arc::new(Schema::new(fields));
    if plan.snapshot.is_none() {
        return Ok(vec![RecordBatch::new_empty(out_schema)]);
    }
    let mut stream = table
        .new_read()
        .with_string_views()
        .with_projection(names)
        .to_stream(plan.splits)
        .map_err(to_df)?;
    let mut out = Vec::new();
    while let Some(batch) = stream.next().await {
        let batch = batch.map_err(to_df)?;
        let mut columns = Vec::with_capacity(batch.num_columns());
        for (i, f) in out_schema.fields().iter().enumerate() {
            let c = batch.column(i);
            columns.push(if c.data_type() == f.data_type() {
                c.clone()
            } else {
                cast_array(c, f.data_type())?
            });
        }
        out.push(RecordBatch::try_new(out_schema.clone(), columns)?);
    }
    if out.is_empty() {
        out.push(RecordBatch::new_empty(out_schema));
    }
    Ok(out)
}

/// Runs a data-evolution `MERGE INTO` (see the module doc); one partition, one `count` row.
#[derive(Debug)]
pub struct DataEvolutionMergeExec {
    table: Table,
    table_schema: SchemaRef,
    input: Arc<dyn ExecutionPlan>,
    actions: Vec<Action>,
    updated: Vec<usize>,
    properties: Arc<PlanProperties>,
}

impl DataEvolutionMergeExec {
    fn new(
        table: Table,
        table_schema: SchemaRef,
        input: Arc<dyn ExecutionPlan>,
        actions: Vec<Action>,
        updated: Vec<usize>,
    ) -> Self {
        let out = Arc::new(Schema::new(vec![Field::new(
            "count",
            DataType::UInt64,
            false,
        )]));
        let properties = leaf_exec::properties(out, 1, EmissionType::Final);
        DataEvolutionMergeExec {
            table,
            table_schema,
            input,
            actions,
            updated,
            properties,
        }
    }
}

impl DisplayAs for DataEvolutionMergeExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        leaf_exec::display_head(f, "DataEvolutionMergeExec", &self.table)?;
        let names: Vec<&str> = self
            .updated
            .iter()
            .map(|&i| self.table_schema.field(i).name().as_str())
            .collect();
        write!(f, ", updated=[{}]", names.join(", "))
    }
}

impl ExecutionPlan for DataEvolutionMergeExec {
    leaf_plan_methods!("DataEvolutionMergeExec");

    fn execute(
        &self,
        _partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let out = self.properties.eq_properties.schema().clone();
        let schema = out.clone();
        let table = self.table.clone();
        let table_schema = self.table_schema.clone();
        let input = self.input.clone();
        let actions = self.actions.clone();
        let updated = self.updated.clone();
        let stream = futures::stream::once(async move {
            let batches = datafusion::physical_plan::collect(input, context).await?;
            let changed = apply(&table, &table_schema, batches, &actions, &updated).await?;
            Ok(RecordBatch::try_new(
                out,
                vec![Arc::new(UInt64Array::from(vec![changed]))],
            )?)
        });
        Ok(leaf_exec::record_stream(schema, stream))
    }
}

/// Splits the merged rows by their clause's action and applies them in one commit; the rows
/// changed.
async fn apply(
    table: &Table,
    table_schema: &SchemaRef,
    batches: Vec<RecordBatch>,
    actions: &[Action],
    updated: &[usize],
) -> Result<u64> {
    let n = table_schema.fields().len();
    let mut changes = RowIdChanges::new();
    let mut changed = 0u64;
    let mut update_fields = vec![Field::new(ROW_ID, DataType::Int64, false)];
    for &i in updated {
        let f = table_schema.field(i);
        update_fields.push(Field::new(f.name(), f.data_type().clone(), true));
    }
    let update_schema = Arc::new(Schema::new(update_fields));
    let mut updates = Vec::new();
    let mut deletes: Vec<i64> = Vec::new();
    for batch in batches {
        let clause = batch
            .column(n + 1)
            .as_any()
            .downcast_ref::<Int32Array>()
            .ok_or_else(|| plan_error("MERGE INTO: the clause column is not INT"))?;
        let of = |action: Action| -> arrow::array::BooleanArray {
            clause
                .iter()
                .map(|c| Some(c.is_some_and(|c| actions[c as usize] == action)))
                .collect()
        };
        let row_ids = batch.column(n);
        let update = of(Action::Update);
        if update.true_count() > 0 && !updated.is_empty() {
            let mut columns: Vec<ArrayRef> = vec![filter(row_ids, &update)?];
            for &i in updated {
                columns.push(filter(batch.column(i), &update)?);
            }
            updates.push(RecordBatch::try_new(update_schema.clone(), columns)?);
        }
        changed += update.true_count() as u64;
        let delete = of(Action::Delete);
        if delete.true_count() > 0 {
            let ids = filter(row_ids, &delete)?;
            let ids = ids
                .as_any()
                .downcast_ref::<Int64Array>()
                .ok_or_else(|| plan_error("MERGE INTO: _ROW_ID is not BIGINT"))?;
            deletes.extend(ids.iter().flatten());
        }
        changed += delete.true_count() as u64;
        let insert = of(Action::Insert);
        if insert.true_count() > 0 {
            let rows = RecordBatch::try_new(table_schema.clone(), batch.columns()[..n].to_vec())?;
            changes = changes.with_inserts(filter_record_batch(&rows, &insert)?);
        }
        changed += insert.true_count() as u64;
    }
    if !updates.is_empty() {
        changes = changes.with_updates(arrow::compute::concat_batches(&update_schema, &updates)?);
    }
    // Spark's `MergeIntoPaimonDataEvolutionTable` commits a MERGE snapshot.
    changes = changes
        .with_deletes(deletes)
        .with_operation(SnapshotOperation::Merge);
    if changed > 0 {
        table.apply_row_id_changes(changes).await.map_err(to_df)?;
    }
    Ok(changed)
}
