//! [`SqlContext`]: what every statement of a SQL session runs against — the DataFusion
//! context with the warehouse as its default catalog, the warehouse, and the per-statement
//! tables of time travel and option hints — and what the statements strata handles itself
//! share: name resolution, DataFusion planning of a statement after its table references are
//! resolved, and the empty and one-table results.
//!
//! The leaf of the SQL layer's state: [`super::session::SqlSession`] owns one and dispatches
//! each statement; [`super::ddl`], [`super::alter`] and [`super::procedures`] take it as their
//! argument, so none of them imports the session back.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow_array::RecordBatch;
use datafusion::catalog::{MemorySchemaProvider, SchemaProvider};
use datafusion::common::{DFSchema, Result};
use datafusion::dataframe::DataFrame;
use datafusion::datasource::{MemTable, TableProvider};
use datafusion::execution::context::SessionContext;
use datafusion::logical_expr::{EmptyRelation, LogicalPlan};
use datafusion::prelude::SessionConfig;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::Statement;
use strata::catalog::{Catalog, Identifier};

use super::rewrite::Parsed;
use super::row_id_merge;
use crate::error::{plan_error, to_df};
use crate::provider::catalog::{
    open_table, split_system, StrataCatalog, DEFAULT_DATABASE, REFS_SCHEMA,
};
use crate::provider::options::TableOptions;

/// The name of the warehouse catalog in a session (also the one a view's query is planned in).
pub const CATALOG: &str = crate::provider::view::CATALOG;

/// A session's DataFusion context over a strata warehouse (see the module doc).
pub(crate) struct SqlContext {
    ctx: SessionContext,
    catalog: Arc<dyn Catalog>,
    refs: Arc<MemorySchemaProvider>,
    statements: AtomicU64,
}

impl SqlContext {
    /// A context on `catalog` with `config` (its default catalog and schema set to the
    /// warehouse, information schema on, spans collected for error positions).
    pub(crate) fn new(catalog: Arc<dyn Catalog>, config: SessionConfig) -> Self {
        let mut config = config
            .with_default_catalog_and_schema(CATALOG, DEFAULT_DATABASE)
            .with_create_default_catalog_and_schema(false)
            .with_information_schema(true);
        // Planning errors then carry the position of what they concern (error::error_position).
        config.options_mut().sql_parser.collect_spans = true;
        let ctx = SessionContext::new_with_config(config);
        let refs = Arc::new(MemorySchemaProvider::new());
        ctx.register_catalog(
            CATALOG,
            Arc::new(StrataCatalog::new(catalog.clone()).with_refs(refs.clone())),
        );
        SqlContext {
            ctx,
            catalog,
            refs,
            statements: AtomicU64::new(0),
        }
    }

    /// The DataFusion context.
    pub(crate) fn context(&self) -> &SessionContext {
        &self.ctx
    }

    /// The warehouse.
    pub(crate) fn catalog(&self) -> &Arc<dyn Catalog> {
        &self.catalog
    }

    /// The database unqualified table names refer to.
    pub(crate) fn current_database(&self) -> String {
        self.ctx
            .state()
            .config()
            .options()
            .catalog
            .default_schema
            .clone()
    }

    /// Makes `name` the database unqualified table names refer to.
    pub(crate) fn set_current_database(&self, name: String) {
        let state = self.ctx.state_ref();
        state
            .write()
            .config_mut()
            .options_mut()
            .catalog
            .default_schema = name;
    }

    /// Resolves a table name as written (`t`, `db.t`, `paimon.db.t`).
    pub(crate) fn identifier(&self, parts: &[String]) -> Result<Identifier> {
        let (db, table) = match parts {
            [t] => (self.current_database(), t.clone()),
            [db, t] => (db.clone(), t.clone()),
            [c, db, t] if c == CATALOG => (db.clone(), t.clone()),
            [c, _, _] => {
                return Err(plan_error(format!(
                    "catalog {c} is not this session's warehouse ({CATALOG})"
                )))
            }
            _ => {
                return Err(plan_error(format!(
                    "invalid table name {}",
                    parts.join(".")
                )))
            }
        };
        Identifier::new(db, table).map_err(to_df)
    }

    /// Plans and runs `stmt` with DataFusion, after resolving time travel and option hints.
    pub(crate) async fn datafusion_statement(
        &self,
        parsed: &Parsed,
        stmt: &mut Statement,
    ) -> Result<DataFrame> {
        let n = self.statements.fetch_add(1, Ordering::Relaxed);
        let prefix = [CATALOG.to_string(), REFS_SCHEMA.to_string()];
        let merge_targets = row_id_merge::prepare(
            self.catalog.as_ref(),
            &|p| self.identifier(p),
            parsed,
            stmt,
            &prefix,
            n,
        )
        .await?;
        let refs = parsed.resolve_refs(stmt, &prefix, n)?;
        let mut registered = Vec::new();
        let result = async {
            for (alias, provider) in merge_targets {
                self.refs.register_table(alias.clone(), provider)?;
                registered.push(alias);
            }
            for r in &refs {
                let (base, system) = match r.name.last().map(|t| split_system(t)) {
                    Some((_, Some(s))) => (true, s.to_string()),
                    _ => (false, String::new()),
                };
                let options = TableOptions::new(r.options.clone());
                let provider = if base && system.eq_ignore_ascii_case("audit_log") {
                    // `t$audit_log` takes the incremental options (Java's AuditLogTable).
                    let mut parts = r.name.clone();
                    if let Some(last) = parts.last_mut() {
                        *last = split_system(last).0.to_string();
                    }
                    let id = self.identifier(&parts)?;
                    let table = self.catalog.get_table(&id).await.map_err(to_df)?;
                    options.apply_audit_log(&table).await?
                } else if base {
                    return Err(plan_error(format!(
                        "{}: system table ${system} has no time travel or options",
                        r.name.join(".")
                    )));
                } else {
                    let id = self.identifier(&r.name)?;
                    open_table(self.catalog.as_ref(), &id, &options).await?
                };
                self.refs.register_table(r.alias.clone(), provider)?;
                registered.push(r.alias.clone());
            }
            let state = self.ctx.state();
            let plan = state
                .statement_to_plan(DFStatement::Statement(Box::new(stmt.clone())))
                .await?;
            self.ctx.execute_logical_plan(plan).await
        }
        .await;
        // The plan holds its providers; the names are no longer needed.
        for alias in registered {
            let _ = self.refs.deregister_table(&alias);
        }
        result
    }

    /// A result with no rows and no columns (DDL).
    pub(crate) fn empty(&self) -> DataFrame {
        let plan = LogicalPlan::EmptyRelation(EmptyRelation {
            produce_one_row: false,
            schema: Arc::new(DFSchema::empty()),
        });
        DataFrame::new(self.ctx.state(), plan)
    }

    /// A result table of `batch`.
    pub(crate) fn result(&self, batch: RecordBatch) -> Result<DataFrame> {
        let table = MemTable::try_new(batch.schema(), vec![vec![batch]])?;
        self.ctx.read_table(Arc::new(table))
    }

    /// The provider of table `name` with per-query `options` (time travel, dynamic options).
    pub(crate) async fn table_with_options(
        &self,
        name: &str,
        options: BTreeMap<String, String>,
    ) -> Result<Arc<dyn TableProvider>> {
        let parts: Vec<String> = name.split('.').map(str::to_string).collect();
        let id = self.identifier(&parts)?;
        open_table(self.catalog.as_ref(), &id, &TableOptions::new(options)).await
    }
}
