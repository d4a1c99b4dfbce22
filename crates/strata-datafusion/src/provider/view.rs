//! Paimon views (`strata::catalog::View`, kept by a REST catalog) as DataFusion views: a view
//! name resolves to a [`ViewTable`] of its query — the `datafusion` dialect's query when the
//! view has one, else its default `query` (Java's `View.query(dialect)`) — planned in a
//! context whose default catalog is the warehouse and whose default schema is the view's
//! database, with the output columns renamed to the view's `fields` (engines name computed
//! columns differently). A query that does not parse or plan is an error naming the view and
//! the dialect. Views over views nest up to [`MAX_VIEW_DEPTH`] (a view reading itself is an
//! error, not a hang).
//!
//! The other way, [`view_of_plan`] makes the Paimon view of a planned `CREATE VIEW`: the
//! columns from the plan's schema, the query text as default `query` and as the `datafusion`
//! dialect (as Java's Flink and Spark catalogs write `{"flink": query}` / `{"spark": query}`).
//!
//! This file imports nothing of this folder: the catalog (`catalog.rs`) hands in the catalog
//! provider the view's query resolves names against.

use std::sync::Arc;

use datafusion::catalog::view::ViewTable;
use datafusion::catalog::CatalogProvider;
use datafusion::common::Result;
use datafusion::datasource::TableProvider;
use datafusion::execution::context::SessionContext;
use datafusion::logical_expr::{col, LogicalPlanBuilder};
use datafusion::prelude::SessionConfig;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::Statement;
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use strata::catalog::{Identifier, View, DATAFUSION_DIALECT};

use crate::error::{plan_error, to_df};

/// The name of the warehouse catalog in a SQL session (`SqlSession`), and in the context a
/// view's query is planned in.
pub const CATALOG: &str = "paimon";

/// How deep views over views resolve before the lookup is refused as a cycle.
pub(crate) const MAX_VIEW_DEPTH: usize = 16;

/// Which query of `view` DataFusion plans, and the dialect's name for messages.
pub(crate) fn chosen_query(view: &View) -> (&str, &str) {
    match view.schema.dialects.get(DATAFUSION_DIALECT) {
        Some(q) => (q.as_str(), DATAFUSION_DIALECT),
        None => (view.schema.query.as_str(), "default"),
    }
}

/// The single query statement of `sql`, or an error naming `what`.
pub(crate) fn parse_query(sql: &str, what: &str) -> Result<Statement> {
    let mut statements = Parser::parse_sql(&GenericDialect {}, sql)
        .map_err(|e| plan_error(format!("{what} does not parse: {e}")))?;
    match (statements.pop(), statements.is_empty()) {
        (Some(s @ Statement::Query(_)), true) => Ok(s),
        _ => Err(plan_error(format!(
            "{what} is not one query (SELECT …, VALUES …, WITH …)"
        ))),
    }
}

/// `view` as a DataFusion view: its query planned against `warehouse` (registered as
/// [`CATALOG`], the view's database as the default schema).
pub(crate) async fn view_provider(
    view: &View,
    warehouse: Arc<dyn CatalogProvider>,
    depth: usize,
) -> Result<Arc<dyn TableProvider>> {
    let (query, dialect) = chosen_query(view);
    let what = format!("view {}: its {dialect} query ({query:?})", view.identifier);
    if depth >= MAX_VIEW_DEPTH {
        return Err(plan_error(format!(
            "view {}: views nest deeper than {MAX_VIEW_DEPTH} (a view reading itself?)",
            view.identifier
        )));
    }
    let statement = parse_query(query, &what)?;
    let config = SessionConfig::new()
        .with_default_catalog_and_schema(CATALOG, &view.identifier.database)
        .with_create_default_catalog_and_schema(false)
        .with_information_schema(false);
    let ctx = SessionContext::new_with_config(config);
    ctx.register_catalog(CATALOG, warehouse);
    let plan = ctx
        .state()
        .statement_to_plan(DFStatement::Statement(Box::new(statement)))
        .await
        .map_err(|e| plan_error(format!("{what} does not plan: {e}")))?;
    let fields = &view.schema.fields;
    let planned = plan.schema().fields().len();
    let plan = if fields.is_empty() {
        plan
    } else if planned != fields.len() {
        return Err(plan_error(format!(
            "{what} gives {planned} columns, the view declares {} ({})",
            fields.len(),
            fields
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    } else {
        // The view's column names, whatever the engine named computed columns.
        let exprs = plan
            .schema()
            .columns()
            .into_iter()
            .zip(fields)
            .map(|(c, f)| col(c).alias(&f.name))
            .collect::<Vec<_>>();
        LogicalPlanBuilder::from(plan).project(exprs)?.build()?
    };
    Ok(Arc::new(ViewTable::new(plan, Some(query.to_string()))))
}

/// The query of DataFusion's view `definition` (the `CREATE VIEW … AS query` text DataFusion
/// keeps with a [`ViewTable`]).
pub(crate) fn query_of_create_view(definition: &str) -> Result<String> {
    let statements = Parser::parse_sql(&GenericDialect {}, definition).map_err(|e| {
        plan_error(format!(
            "view definition {definition:?} does not parse: {e}"
        ))
    })?;
    match statements.as_slice() {
        [Statement::CreateView(cv)] => Ok(cv.query.to_string()),
        _ => Err(plan_error(format!(
            "view definition {definition:?} is not one CREATE VIEW"
        ))),
    }
}

/// The Paimon view `id` of a planned query: columns from `schema`, `query` as the default query
/// and the `datafusion` dialect's.
pub(crate) fn view_of_plan(
    id: Identifier,
    schema: &arrow_schema::Schema,
    query: &str,
) -> Result<View> {
    let row = strata::arrow::from_arrow_schema(schema).map_err(to_df)?;
    Ok(View::new(id, row.fields, query, Some(DATAFUSION_DIALECT)))
}
