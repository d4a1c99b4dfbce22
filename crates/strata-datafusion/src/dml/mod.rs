//! Writes from SQL: `INSERT` (the [`sink`]), `UPDATE` and `DELETE` (row kinds on primary-key
//! tables, [`primary_key`]; copy-on-write rewrites on append tables, [`cow`]) and `MERGE INTO`
//! ([`merge`]), each one strata write and one commit.
//!
//! **Where it sits.** DataFusion's entry points for writes are methods of the target's
//! `TableProvider` (`insert_into`, `delete_from`, `update`, `merge_into`), so the provider
//! ([`crate::provider::table`]) calls down into this layer with one line per statement, after
//! its own refusals (a time-travel view, `scan.*` options). A statement that must read the
//! target's rows gets them through the narrow [`target::DmlTarget`] handle the provider passes
//! down — this layer never imports the provider. Below it are only [`crate::error`],
//! [`crate::leaf_exec`] and strata.
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | the entry points: which path a statement takes (primary-key or append table) |
//! | [`target`] | [`target::DmlTarget`], what a statement needs of its table |
//! | [`sink`] | [`sink::StrataSink`]: rows in, one write, one commit (INSERT, and the row-kind paths) |
//! | [`primary_key`] | `DELETE` / `UPDATE` on primary-key tables as `-D` / `+U` |
//! | [`cow`] | `DELETE` / `UPDATE` on append tables, copy-on-write |
//! | [`merge`] | `MERGE INTO` on primary-key tables, as row kinds |
//! | [`data_evolution`] | `MERGE INTO` on data-evolution tables, by row id |
//! | [`rules`] | what a merge engine lets a row-level statement do (no rows needed) |
//! | [`row_effect`] | each written record checked to take effect under the merge engine |

pub(crate) mod cow;
pub(crate) mod data_evolution;
pub(crate) mod merge;
pub(crate) mod primary_key;
pub(crate) mod row_effect;
pub(crate) mod rules;
pub mod sink;
pub(crate) mod target;

use std::sync::Arc;

use datafusion::catalog::Session;
use datafusion::common::{DFSchemaRef, Result};
use datafusion::logical_expr::dml::{InsertOp, MergeIntoClause};
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
use strata::table::Table;

use target::DmlTarget;

/// `INSERT INTO` / `INSERT OVERWRITE` of `input` into `table` ([`sink::insert`]).
pub(crate) fn insert(
    table: &Table,
    input: Arc<dyn ExecutionPlan>,
    op: InsertOp,
) -> Result<Arc<dyn ExecutionPlan>> {
    sink::insert(table, input, op)
}

/// `DELETE FROM`: row kinds on a primary-key table, a copy-on-write rewrite on an append table.
pub(crate) async fn delete(
    target: &dyn DmlTarget,
    state: &dyn Session,
    filters: Vec<Expr>,
) -> Result<Arc<dyn ExecutionPlan>> {
    if target.table().is_primary_key_table() {
        primary_key::delete(target, state, filters).await
    } else {
        cow::delete(target, state, filters).await
    }
}

/// `UPDATE`: no primary-key or partition column assigned; then row kinds on a primary-key
/// table, a copy-on-write rewrite on an append table.
pub(crate) async fn update(
    target: &dyn DmlTarget,
    state: &dyn Session,
    assignments: Vec<(String, Expr)>,
    filters: Vec<Expr>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let names: Vec<&str> = assignments.iter().map(|(n, _)| n.as_str()).collect();
    rules::check_assignments(target.table(), "UPDATE", &names)?;
    if target.table().is_primary_key_table() {
        primary_key::update(target, state, assignments, filters).await
    } else {
        cow::update(target, state, assignments, filters).await
    }
}

/// `MERGE INTO`: by row id on a data-evolution table ([`data_evolution`]), else [`merge`].
pub(crate) async fn merge_into(
    target: &dyn DmlTarget,
    state: &dyn Session,
    source: Arc<dyn ExecutionPlan>,
    merge_schema: DFSchemaRef,
    on: Expr,
    clauses: Vec<MergeIntoClause>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let data_evolution = !target.table().is_primary_key_table()
        && target
            .table()
            .options()
            .data_evolution_enabled()
            .map_err(|e| crate::error::plan_error(e.to_string()))?;
    if data_evolution {
        data_evolution::merge_into(target, state, source, merge_schema, on, clauses).await
    } else {
        merge::merge_into(target, state, source, merge_schema, on, clauses).await
    }
}
