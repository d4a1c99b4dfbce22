//! `MERGE INTO` on primary-key tables, written as row kinds in one commit.
//!
//! DataFusion plans the `USING` source and hands it to [`TableProvider::merge_into`] with the
//! `ON` condition and the `WHEN` clauses; the provider does the rest. strata does what Paimon's
//! Spark connector does for primary-key tables (`MergeIntoPaimonTable`): the target (its
//! merged rows, the newest snapshot) is joined with the source on the `ON` condition, every
//! joined row takes the first `WHEN` clause of its kind whose condition holds, and the result
//! is written as row kinds — `+U` for `UPDATE SET`, `-D` for `DELETE`, `+I` for `INSERT` — in
//! one write and one commit. Rows no clause applies to are not written.
//!
//! * The join is an inner join when every clause is `WHEN MATCHED`, a right join (all source
//!   rows) with `WHEN NOT MATCHED [BY TARGET]`, a full join with `WHEN NOT MATCHED BY SOURCE`.
//! * Each output column is one `CASE` over the clauses; a branch casts its value to the
//!   column's type, columns an `INSERT` leaves out are NULL, and an `UPDATE` keeps the
//!   columns it does not assign.
//! * A target row matched by two source rows is an error (SQL's cardinality rule, Spark's
//!   `MERGE_CARDINALITY_VIOLATION`): the sink checks that no primary key is updated or deleted
//!   twice, and the statement fails before its commit.
//! * Assigning a primary-key or partition column is refused (the row would move); so are
//!   `UPDATE` on merge engines that cannot apply one and `DELETE` on engines that do not remove
//!   rows on `-D` or tables that drop them (`ignore-delete`), with the same checks as
//!   `UPDATE` / `DELETE` (see [`super::rules`]). `first-row` and `aggregation` tables take no
//!   MERGE at all (Spark's `RowLevelOp.MergeInto`): an `INSERT` of a key the table holds would be
//!   dropped or aggregated into the stored row.
//! * Every `UPDATE` and `DELETE` change is checked against the target row it changes under the
//!   table's merge engine ([`super::row_effect`]): a change that would not take effect
//!   (`partial-update` and NULL, aggregate functions, sequence groups, `sequence.field`) fails
//!   the statement before its commit.
//!
//! Data-evolution tables take MERGE by row id instead ([`super::data_evolution`]). Other
//! append tables are refused: their MERGE needs a copy-on-write rewrite of the matched files
//! joined with the source, which strata does only for `UPDATE` / `DELETE` (see [`super::cow`]).

use std::sync::Arc;

use arrow_schema::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::{Column, DFSchemaRef, JoinType, Result, ScalarValue, TableReference};
use datafusion::datasource::{provider_as_source, TableProvider, TableType};
use datafusion::logical_expr::dml::{MergeIntoAction, MergeIntoClause, MergeIntoClauseKind};
use datafusion::logical_expr::{cast, lit, when, Expr, LogicalPlanBuilder};
use datafusion::physical_expr::expressions::Column as PhysicalColumn;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::ExecutionPlan;
use strata::spec::kv::RowKind;
use strata::table::Table;

use super::row_effect::{RowEffectCheck, OLD_PREFIX};
use super::rules;
use super::sink::{self, SinkMode, ROW_KIND_COLUMN};
use super::target::DmlTarget;
use crate::error::plan_error;

pub(super) const TARGET_MARK: &str = "__strata_merge_target";
pub(super) const SOURCE_MARK: &str = "__strata_merge_source";
pub(super) const SOURCE_SCAN: &str = "__strata_merge_using";

/// The plan of one `MERGE INTO` statement (see the module doc).
pub(crate) async fn merge_into(
    target: &dyn DmlTarget,
    state: &dyn Session,
    source: Arc<dyn ExecutionPlan>,
    merge_schema: DFSchemaRef,
    on: Expr,
    clauses: Vec<MergeIntoClause>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let table = target.table();
    if !table.is_primary_key_table() {
        return Err(plan_error(format!(
            "MERGE INTO {}: the table has no primary key; strata writes MERGE as row kinds of \
             a primary-key table (append tables take UPDATE and DELETE, rewritten \
             copy-on-write, but not MERGE)",
            table.identifier()
        )));
    }
    rules::check_mergeable(table)?;
    check_clauses(target, &clauses)?;

    let target_schema = target.schema();
    let n_target = target_schema.fields().len();
    let target_ref: TableReference = merge_schema
        .qualified_field(0)
        .0
        .cloned()
        .ok_or_else(|| plan_error("MERGE INTO: the target columns have no qualifier"))?;

    // The target: every column under the statement's name for the table, and a marker.
    let target_source = target.rows();
    let mut target_cols: Vec<Expr> = target_schema
        .fields()
        .iter()
        .map(|f| Expr::Column(Column::new(Some(target_ref.clone()), f.name())))
        .collect();
    target_cols.push(lit(true).alias(TARGET_MARK));
    let target_plan =
        LogicalPlanBuilder::scan(target_ref.clone(), target_source, None)?.project(target_cols)?;

    let joined = join_source(
        table,
        target_plan,
        source,
        &merge_schema,
        n_target,
        on,
        &clauses,
    )?;
    let (conditions, mut outputs) = merged_columns(&target_ref, &target_schema, &clauses)?;
    let mut kind_case: Option<datafusion::logical_expr::conditional_expressions::CaseBuilder> =
        None;
    for (clause, condition) in clauses.iter().zip(&conditions) {
        let kind = match &clause.action {
            MergeIntoAction::Delete => RowKind::Delete,
            MergeIntoAction::Update(_) => RowKind::UpdateAfter,
            MergeIntoAction::Insert { .. } => RowKind::Insert,
        };
        let value = lit(kind.to_byte());
        kind_case = Some(match kind_case {
            None => when(condition.clone(), value),
            Some(mut b) => b.when(condition.clone(), value),
        });
    }
    let kind_expr = match kind_case {
        Some(mut b) => b.otherwise(lit(ScalarValue::Int8(None)))?,
        None => return Err(plan_error("MERGE INTO needs at least one WHEN clause")),
    };
    // The stored row beside each change, for the check that every change takes effect
    // (NULL for an insert: no target row).
    let check = RowEffectCheck::new(table, "MERGE INTO", true)?;
    if check.is_some() {
        for field in target_schema.fields() {
            outputs.push(
                Expr::Column(Column::new(Some(target_ref.clone()), field.name()))
                    .alias(format!("{OLD_PREFIX}{}", field.name())),
            );
        }
    }
    outputs.push(kind_expr.alias(ROW_KIND_COLUMN));

    let plan = joined
        .project(outputs)?
        .filter(Expr::Column(Column::new_unqualified(ROW_KIND_COLUMN)).is_not_null())?
        .build()?;
    let input = state.create_physical_plan(&plan).await?;
    sink::insert_checked(table, input, SinkMode::KindColumn, check)
}

/// The value an `INSERT` clause gives column `name` (at `index` in the table).
pub(super) fn insert_value(
    columns: &[String],
    values: &[Expr],
    name: &str,
    index: usize,
) -> Result<Expr> {
    if columns.is_empty() {
        return values.get(index).cloned().ok_or_else(|| {
            plan_error(format!(
                "MERGE INTO: WHEN NOT MATCHED THEN INSERT has {} values, the table more columns \
                 (no value for column {name})",
                values.len()
            ))
        });
    }
    Ok(columns
        .iter()
        .position(|c| c == name)
        .and_then(|i| values.get(i).cloned())
        .unwrap_or(Expr::Literal(ScalarValue::Null, None)))
}

/// The target plan joined with the planned `USING` relation on `on`: the source's columns
/// under their statement qualifiers (the `merge_schema` columns after the first
/// `n_merge_target`, which are the target's) and a marker; an inner join when every clause is
/// `WHEN MATCHED`, a right join with `WHEN NOT MATCHED [BY TARGET]`, a full join with
/// `WHEN NOT MATCHED BY SOURCE`. Shared with [`super::data_evolution`].
pub(super) fn join_source(
    table: &Table,
    target_plan: LogicalPlanBuilder,
    source: Arc<dyn ExecutionPlan>,
    merge_schema: &DFSchemaRef,
    n_merge_target: usize,
    on: Expr,
    clauses: &[MergeIntoClause],
) -> Result<LogicalPlanBuilder> {
    let source_fields = source.schema();
    if source_fields.fields().len() + n_merge_target != merge_schema.fields().len() {
        return Err(plan_error(format!(
            "MERGE INTO {}: the USING relation has {} columns, its plan {}",
            table.identifier(),
            merge_schema.fields().len().saturating_sub(n_merge_target),
            source_fields.fields().len()
        )));
    }
    let mut source_cols = Vec::with_capacity(source_fields.fields().len() + 1);
    for (i, f) in source_fields.fields().iter().enumerate() {
        let (qualifier, logical) = merge_schema.qualified_field(n_merge_target + i);
        source_cols.push(
            Expr::Column(Column::new(Some(SOURCE_SCAN), f.name()))
                .alias_qualified(qualifier.cloned(), logical.name()),
        );
    }
    source_cols.push(lit(true).alias(SOURCE_MARK));
    let using = provider_as_source(Arc::new(PlannedSource { plan: source }));
    let source_plan = LogicalPlanBuilder::scan(SOURCE_SCAN, using, None)?
        .project(source_cols)?
        .build()?;
    let join_type = if clauses
        .iter()
        .any(|c| c.kind.canonical() == MergeIntoClauseKind::NotMatchedBySource)
    {
        JoinType::Full
    } else if clauses.iter().any(|c| c.kind.is_not_matched_by_target()) {
        JoinType::Right
    } else {
        JoinType::Inner
    };
    target_plan.join_on(source_plan, join_type, vec![on])
}

/// Which clause each joined row takes (one condition per clause: the first of its kind whose
/// condition holds) and each target column's merged value: one `CASE` over the clauses, a
/// branch cast to the column's type, an `UPDATE` keeping what it does not assign, an `INSERT`
/// leaving out columns NULL. Shared with [`super::data_evolution`].
pub(super) fn merged_columns(
    target_ref: &TableReference,
    target_schema: &SchemaRef,
    clauses: &[MergeIntoClause],
) -> Result<(Vec<Expr>, Vec<Expr>)> {
    let target_mark = Expr::Column(Column::new_unqualified(TARGET_MARK));
    let source_mark = Expr::Column(Column::new_unqualified(SOURCE_MARK));
    let conditions: Vec<Expr> = clauses
        .iter()
        .map(|c| {
            let kind = match c.kind.canonical() {
                MergeIntoClauseKind::Matched => target_mark
                    .clone()
                    .is_not_null()
                    .and(source_mark.clone().is_not_null()),
                MergeIntoClauseKind::NotMatchedBySource => source_mark.clone().is_null(),
                _ => target_mark.clone().is_null(),
            };
            match &c.predicate {
                Some(p) => kind.and(p.clone()),
                None => kind,
            }
        })
        .collect();
    let mut outputs = Vec::with_capacity(target_schema.fields().len() + 2);
    for (col_index, field) in target_schema.fields().iter().enumerate() {
        let target_col = Expr::Column(Column::new(Some(target_ref.clone()), field.name()));
        let mut case: Option<datafusion::logical_expr::conditional_expressions::CaseBuilder> = None;
        for (clause, condition) in clauses.iter().zip(&conditions) {
            let value = match &clause.action {
                MergeIntoAction::Delete => target_col.clone(),
                MergeIntoAction::Update(assignments) => assignments
                    .iter()
                    .find(|(name, _)| name == field.name())
                    .map(|(_, e)| e.clone())
                    .unwrap_or_else(|| target_col.clone()),
                MergeIntoAction::Insert { columns, values } => {
                    insert_value(columns, values, field.name(), col_index)?
                }
            };
            let value = cast(value, field.data_type().clone());
            case = Some(match case {
                None => when(condition.clone(), value),
                Some(mut b) => b.when(condition.clone(), value),
            });
        }
        let expr = match case {
            Some(mut b) => b.otherwise(cast(
                lit(ScalarValue::try_from(field.data_type())?),
                field.data_type().clone(),
            ))?,
            None => return Err(plan_error("MERGE INTO needs at least one WHEN clause")),
        };
        outputs.push(expr.alias(field.name()));
    }
    Ok((conditions, outputs))
}

/// The checks of `UPDATE` and `DELETE` (merge engine, key and partition columns), per clause.
fn check_clauses(target: &dyn DmlTarget, clauses: &[MergeIntoClause]) -> Result<()> {
    let table = target.table();
    let schema = table.schema();
    for clause in clauses {
        match &clause.action {
            MergeIntoAction::Delete => rules::check_deletable(table, "MERGE INTO")?,
            MergeIntoAction::Update(assignments) => {
                rules::check_updatable(table, "MERGE INTO")?;
                let names: Vec<&str> = assignments.iter().map(|(n, _)| n.as_str()).collect();
                rules::check_assignments(table, "MERGE INTO", &names)?;
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
                for c in columns {
                    if schema.fields.iter().all(|f| &f.name != c) {
                        return Err(plan_error(format!(
                            "MERGE INTO {}: INSERT names column {c}, which the table does not \
                             have",
                            table.identifier()
                        )));
                    }
                }
                for key in &schema.primary_keys {
                    if !columns.is_empty() && !columns.iter().any(|c| c == key) {
                        return Err(plan_error(format!(
                            "MERGE INTO {}: INSERT must give primary-key column {key}",
                            table.identifier()
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The planned `USING` relation as a table, so that it can join the target in a logical plan.
#[derive(Debug)]
pub(super) struct PlannedSource {
    pub(super) plan: Arc<dyn ExecutionPlan>,
}

#[async_trait]
impl TableProvider for PlannedSource {
    fn schema(&self) -> SchemaRef {
        self.plan.schema()
    }

    fn table_type(&self) -> TableType {
        TableType::Temporary
    }

    async fn scan(
        &self,
        _state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(projection) = projection else {
            return Ok(self.plan.clone());
        };
        let schema = self.plan.schema();
        let exprs: Vec<(Arc<dyn datafusion::physical_expr::PhysicalExpr>, String)> = projection
            .iter()
            .map(|&i| {
                let name = schema.field(i).name().clone();
                (
                    Arc::new(PhysicalColumn::new(&name, i))
                        as Arc<dyn datafusion::physical_expr::PhysicalExpr>,
                    name,
                )
            })
            .collect();
        Ok(Arc::new(ProjectionExec::try_new(exprs, self.plan.clone())?))
    }
}
