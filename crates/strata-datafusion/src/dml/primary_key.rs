//! `DELETE` and `UPDATE` on primary-key tables, written as row kinds (see [`super::sink`] for
//! the rules): the rows the condition selects are read through the target's own provider
//! (merged, the newest snapshot) and written back as `-D`, or with the assignments applied as
//! `+U`, each record checked to take effect first ([`super::row_effect`]).

use std::sync::Arc;

use datafusion::catalog::Session;
use datafusion::common::{Column, Result};
use datafusion::logical_expr::expr_rewriter::unnormalize_col;
use datafusion::logical_expr::utils::conjunction;
use datafusion::logical_expr::{Expr, LogicalPlanBuilder};
use datafusion::physical_plan::ExecutionPlan;
use strata::spec::kv::RowKind;

use super::row_effect::{RowEffectCheck, OLD_PREFIX};
use super::rules::{check_deletable, check_updatable};
use super::sink::{insert_checked, SinkMode};
use super::target::DmlTarget;

fn column(name: &str) -> Expr {
    Expr::Column(Column::new_unqualified(name))
}

/// The rows of `target` that `filters` select, as a physical plan of `columns`.
async fn selected_rows(
    target: &dyn DmlTarget,
    state: &dyn Session,
    filters: Vec<Expr>,
    columns: Vec<Expr>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let source = target.rows();
    let mut builder = LogicalPlanBuilder::scan("target", source, None)?;
    // The statement's qualifiers (`t.c`, `db.t.c`) are dropped: the scan has its own name.
    let filters = filters.into_iter().map(unnormalize_col).collect::<Vec<_>>();
    if let Some(condition) = conjunction(filters) {
        builder = builder.filter(condition)?;
    }
    let plan = builder.project(columns)?.build()?;
    state.create_physical_plan(&plan).await
}

/// DELETE FROM a primary-key table: the selected rows written as `-D`.
pub(crate) async fn delete(
    target: &dyn DmlTarget,
    state: &dyn Session,
    filters: Vec<Expr>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let table = target.table();
    check_deletable(table, "DELETE")?;
    let columns = target
        .schema()
        .fields()
        .iter()
        .map(|f| column(f.name()))
        .collect();
    let input = selected_rows(target, state, filters, columns).await?;
    let check = RowEffectCheck::new(table, "DELETE", false)?;
    insert_checked(table, input, SinkMode::RowKind(RowKind::Delete), check)
}

/// UPDATE of a primary-key table: the selected rows with the assignments applied, as `+U`
/// (the assigned columns already checked, [`super::rules::check_assignments`]).
pub(crate) async fn update(
    target: &dyn DmlTarget,
    state: &dyn Session,
    assignments: Vec<(String, Expr)>,
    filters: Vec<Expr>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let table = target.table();
    check_updatable(table, "UPDATE")?;
    let schema = target.schema();
    let mut columns: Vec<Expr> = schema
        .fields()
        .iter()
        .map(|f| {
            let name = f.name();
            match assignments.iter().find(|(c, _)| c == name) {
                Some((_, e)) => unnormalize_col(e.clone()).alias(name),
                None => column(name),
            }
        })
        .collect();
    let check = RowEffectCheck::new(table, "UPDATE", true)?;
    if check.is_some() {
        // The stored row beside the updated one, for the check.
        columns.extend(
            schema
                .fields()
                .iter()
                .map(|f| column(f.name()).alias(format!("{OLD_PREFIX}{}", f.name()))),
        );
    }
    let input = selected_rows(target, state, filters, columns).await?;
    insert_checked(table, input, SinkMode::RowKind(RowKind::UpdateAfter), check)
}
