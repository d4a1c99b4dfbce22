//! `MERGE INTO` a row-tracking table that names its system columns `_ROW_ID` and
//! `_SEQUENCE_NUMBER` (Java `SpecialFields.ROW_ID` / `SEQUENCE_NUMBER`), as Spark users write
//! backfills with Paimon's `MergeIntoPaimonDataEvolutionTable`:
//!
//! ```sql
//! MERGE INTO t USING (SELECT _ROW_ID, f(x) AS c FROM t) s ON t._ROW_ID = s._ROW_ID
//! WHEN MATCHED THEN UPDATE SET t.c = s.c
//! ```
//!
//! DataFusion plans `ON`, `SET` and the source against the tables' schemas, which hold only
//! the data columns. Before planning, a statement that names either system column is rewritten:
//!
//! * the target is renamed to a per-statement table whose schema ends with the two system
//!   columns ([`RowIdMergeTarget`]); it takes only `MERGE` (the data-evolution path,
//!   `crate::dml::data_evolution`, reads the target's row ids itself and keeps the two columns
//!   read-only), and its alias stays the name as written, so `t._ROW_ID` resolves;
//! * every row-tracking table read in the `USING` relation reads `name$row_tracking` instead
//!   (the table's columns, then `_ROW_ID` and `_SEQUENCE_NUMBER`), under the name as written.
//!
//! Anything else is refused naming the column: a target without `row-tracking.enabled` and
//! `data-evolution.enabled`, a primary-key target, a time-travel clause or an `OPTIONS` hint on
//! the target.

use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::{DFSchemaRef, Result};
use datafusion::datasource::{TableProvider, TableType};
use datafusion::logical_expr::dml::MergeIntoClause;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::sql::sqlparser::ast::{
    visit_expressions, visit_expressions_mut, AssignmentTarget, BinaryOperator, Expr as SqlExpr,
    Ident, Merge, MergeAction, MergeClauseKind, ObjectName, ObjectNamePart, Statement, TableAlias,
    TableFactor, Visit, VisitMut, Visitor, VisitorMut,
};

use super::rewrite::Parsed;
use crate::error::{plan_error, to_df};
use crate::provider::table::StrataTable;
use strata::catalog::{Catalog, Identifier};

/// Java `SpecialFields.ROW_ID`.
const ROW_ID: &str = "_ROW_ID";
/// Java `SpecialFields.SEQUENCE_NUMBER`.
const SEQUENCE_NUMBER: &str = "_SEQUENCE_NUMBER";

/// The system column a statement names, if any (the first found).
fn system_column(stmt: &Statement) -> Option<&'static str> {
    let mut found = None;
    let _ = visit_expressions(stmt, |e| {
        let ident = match e {
            SqlExpr::Identifier(i) => Some(i),
            SqlExpr::CompoundIdentifier(parts) => parts.last(),
            _ => None,
        };
        if let Some(i) = ident {
            for c in [ROW_ID, SEQUENCE_NUMBER] {
                if i.value.eq_ignore_ascii_case(c) {
                    found = Some(c);
                    return ControlFlow::Break(());
                }
            }
        }
        ControlFlow::Continue(())
    });
    found
}

fn name_parts(name: &ObjectName) -> Vec<String> {
    name.0
        .iter()
        .filter_map(|p| match p {
            ObjectNamePart::Identifier(i) => Some(i.value.clone()),
            _ => None,
        })
        .collect()
}

/// The table names read in a relation.
struct Names(Vec<Vec<String>>);

impl Visitor for Names {
    type Break = ();
    fn pre_visit_table_factor(&mut self, f: &TableFactor) -> ControlFlow<()> {
        if let TableFactor::Table { name, .. } = f {
            self.0.push(name_parts(name));
        }
        ControlFlow::Continue(())
    }
}

/// Renames the reads of `names` to their `$row_tracking` table, under the name as written.
struct ToRowTracking(BTreeSet<Vec<String>>);

impl VisitorMut for ToRowTracking {
    type Break = ();
    fn pre_visit_table_factor(&mut self, f: &mut TableFactor) -> ControlFlow<()> {
        let TableFactor::Table {
            name,
            alias,
            version,
            ..
        } = f
        else {
            return ControlFlow::Continue(());
        };
        let parts = name_parts(name);
        if version.is_some() || !self.0.contains(&parts) {
            return ControlFlow::Continue(());
        }
        if alias.is_none() {
            if let Some(last) = name.0.last().and_then(|p| p.as_ident()) {
                *alias = Some(TableAlias {
                    explicit: true,
                    name: last.clone(),
                    columns: vec![],
                    at: None,
                });
            }
        }
        if let Some(ObjectNamePart::Identifier(last)) = name.0.last_mut() {
            let value = match last.quote_style {
                Some(_) => last.value.clone(),
                None => last.value.to_lowercase(),
            };
            *last = Ident::with_quote('"', format!("{value}$row_tracking"));
        }
        ControlFlow::Continue(())
    }
}

/// Rewrites a `MERGE INTO` that names `_ROW_ID` / `_SEQUENCE_NUMBER` (see the module doc);
/// the per-statement tables to register (name in the session's per-statement schema,
/// provider). Any other statement is left alone.
pub(crate) async fn prepare(
    catalog: &dyn Catalog,
    identifier: &(dyn Fn(&[String]) -> Result<Identifier> + Sync),
    parsed: &Parsed,
    stmt: &mut Statement,
    prefix: &[String],
    statement: u64,
) -> Result<Vec<(String, Arc<dyn TableProvider>)>> {
    let Some(column) = system_column(stmt) else {
        return Ok(Vec::new());
    };
    if !matches!(stmt, Statement::Merge(_)) {
        return Ok(Vec::new());
    }
    // Spark resolves the system columns case-insensitively; DataFusion lowercases unquoted
    // names, so they are quoted as Java spells them.
    let _ = visit_expressions_mut(stmt, |e| {
        let idents: Vec<&mut Ident> = match e {
            SqlExpr::Identifier(i) => vec![i],
            SqlExpr::CompoundIdentifier(parts) => parts.last_mut().into_iter().collect(),
            _ => Vec::new(),
        };
        for i in idents {
            if let Some(c) = [ROW_ID, SEQUENCE_NUMBER]
                .into_iter()
                .find(|c| i.quote_style.is_none() && i.value.eq_ignore_ascii_case(c))
            {
                *i = Ident::with_quote('"', c);
            }
        }
        ControlFlow::<()>::Continue(())
    });
    let Statement::Merge(merge) = stmt else {
        return Ok(Vec::new());
    };
    if let TableFactor::Table { name, .. } = &merge.table {
        let parts = name_parts(name);
        refuse_self_merge_not_matched(&parts.join("."), &parts, merge)?;
    }
    let TableFactor::Table {
        name,
        alias,
        version,
        ..
    } = &mut merge.table
    else {
        return Ok(Vec::new());
    };
    let parts = name_parts(name);
    let shown = parts.join(".");
    // The system columns are read-only (the commit assigns them).
    for clause in &merge.clauses {
        let assigned: Vec<&ObjectName> = match &clause.action {
            MergeAction::Update(u) => u
                .assignments
                .iter()
                .flat_map(|a| match &a.target {
                    AssignmentTarget::ColumnName(n) => vec![n],
                    AssignmentTarget::Tuple(ns) => ns.iter().collect(),
                })
                .collect(),
            MergeAction::Insert(i) => i.columns.iter().collect(),
            _ => Vec::new(),
        };
        for n in assigned {
            let last = name_parts(n).pop().unwrap_or_default();
            if let Some(c) = [ROW_ID, SEQUENCE_NUMBER]
                .into_iter()
                .find(|c| last.eq_ignore_ascii_case(c))
            {
                return Err(plan_error(format!(
                    "MERGE INTO {shown}: column {c} is a system column of row tracking and \
                     cannot be assigned (the commit assigns it)"
                )));
            }
        }
    }
    if version.is_some() || parsed.hint_of(name).is_some() {
        return Err(plan_error(format!(
            "MERGE INTO {shown}: a MERGE that names {column} takes no time travel or OPTIONS \
             hint on its target"
        )));
    }
    let id = identifier(&parts)?;
    let table = catalog.get_table(&id).await.map_err(to_df)?;
    let options = table.options();
    let row_tracking = options
        .row_tracking_enabled()
        .map_err(|e| plan_error(e.to_string()))?;
    let data_evolution = options
        .data_evolution_enabled()
        .map_err(|e| plan_error(e.to_string()))?;
    if table.is_primary_key_table() || !row_tracking || !data_evolution {
        return Err(plan_error(format!(
            "MERGE INTO {shown}: column {column} is a system column of row tracking, usable in \
             MERGE only on a table with row-tracking.enabled and data-evolution.enabled (and no \
             primary key)"
        )));
    }

    // The target: a per-statement table with the system columns, under the name as written.
    let renamed = format!("s{statement}_rowid");
    if alias.is_none() {
        if let Some(last) = name.0.last().and_then(|p| p.as_ident()) {
            *alias = Some(TableAlias {
                explicit: true,
                name: last.clone(),
                columns: vec![],
                at: None,
            });
        }
    }
    let mut new_name: Vec<ObjectNamePart> = prefix
        .iter()
        .map(|p| ObjectNamePart::Identifier(Ident::with_quote('"', p.clone())))
        .collect();
    new_name.push(ObjectNamePart::Identifier(Ident::with_quote(
        '"',
        renamed.clone(),
    )));
    *name = ObjectName(new_name);
    let inner = StrataTable::new(table).await.map_err(to_df)?;
    let target: Arc<dyn TableProvider> = Arc::new(RowIdMergeTarget::new(Arc::new(inner)));

    // The source: row-tracking tables read with their system columns.
    let mut names = Names(Vec::new());
    let _ = Visit::visit(&merge.source, &mut names);
    let mut tracked = BTreeSet::new();
    for parts in names.0 {
        if tracked.contains(&parts) || parts.last().is_none_or(|l| l.contains('$')) {
            continue;
        }
        let Ok(id) = identifier(&parts) else {
            continue;
        };
        // Names that are no table of the catalog (a CTE, a session table) are left alone.
        let Ok(t) = catalog.get_table(&id).await else {
            continue;
        };
        if t.options().row_tracking_enabled().unwrap_or(false) {
            tracked.insert(parts);
        }
    }
    let _ = VisitMut::visit(&mut merge.source, &mut ToRowTracking(tracked));
    Ok(vec![(renamed, target)])
}

/// Java's self-merge rule (`MergeIntoPaimonDataEvolutionTable.isSelfMergeOnRowId`): a MERGE of
/// a table with itself on exactly `t._ROW_ID = s._ROW_ID` takes only `WHEN MATCHED` clauses.
fn refuse_self_merge_not_matched(shown: &str, target: &[String], merge: &Merge) -> Result<()> {
    let TableFactor::Table { name, .. } = &merge.source else {
        return Ok(());
    };
    let is_row_id = |e: &SqlExpr| match e {
        SqlExpr::Identifier(i) => i.value == ROW_ID,
        SqlExpr::CompoundIdentifier(p) => p.last().is_some_and(|i| i.value == ROW_ID),
        _ => false,
    };
    let on_row_id = matches!(merge.on.as_ref(), SqlExpr::BinaryOp { left, op: BinaryOperator::Eq, right }
        if is_row_id(left) && is_row_id(right));
    let not_matched = merge
        .clauses
        .iter()
        .any(|c| !matches!(c.clause_kind, MergeClauseKind::Matched));
    if on_row_id && not_matched && name_parts(name) == target {
        return Err(plan_error(format!(
            "MERGE INTO {shown}: Self-Merge on _ROW_ID only supports WHEN MATCHED actions. WHEN \
             NOT MATCHED and WHEN NOT MATCHED BY SOURCE are not supported."
        )));
    }
    Ok(())
}

/// The target of a `MERGE INTO` that names the system columns: the table's columns, then
/// `_ROW_ID` and `_SEQUENCE_NUMBER` (both non-null `BIGINT`, read-only); it takes only `MERGE`.
#[derive(Debug)]
pub(crate) struct RowIdMergeTarget {
    inner: Arc<StrataTable>,
    schema: SchemaRef,
}

impl RowIdMergeTarget {
    fn new(inner: Arc<StrataTable>) -> Self {
        let mut fields: Vec<Field> = inner
            .schema()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        fields.push(Field::new(ROW_ID, DataType::Int64, false));
        fields.push(Field::new(SEQUENCE_NUMBER, DataType::Int64, false));
        RowIdMergeTarget {
            inner,
            schema: Arc::new(Schema::new(fields)),
        }
    }
}

#[async_trait]
impl TableProvider for RowIdMergeTarget {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        _state: &dyn Session,
        _projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Err(plan_error(format!(
            "{}: the MERGE target with {ROW_ID} is read only by the MERGE itself",
            self.inner.table().identifier()
        )))
    }

    async fn merge_into(
        &self,
        state: &dyn Session,
        source: Arc<dyn ExecutionPlan>,
        merge_schema: DFSchemaRef,
        on: Expr,
        clauses: Vec<MergeIntoClause>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.inner
            .merge_into(state, source, merge_schema, on, clauses)
            .await
    }
}
