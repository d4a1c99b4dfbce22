//! [`SqlSession`]: SQL over a strata warehouse.
//!
//! A DataFusion `SessionContext` whose default catalog is the warehouse ([`StrataCatalog`],
//! one schema per database, `default` first), plus the statements DataFusion has no Paimon
//! meaning for, handled here:
//!
//! | statement | handled by |
//! |---|---|
//! | `CREATE TABLE … [PRIMARY KEY (…)] [PARTITIONED BY (…)] [WITH ('k' = 'v')]`, `CREATE TABLE … AS SELECT`, `DROP TABLE`, `ALTER TABLE` | [`crate::ddl`] |
//! | `CALL sys.compact(…)`, `sys.expire_snapshots`, `sys.create_tag`, `sys.delete_tag`, `sys.rollback`, `sys.remove_orphan_files` | [`crate::procedures`] |
//! | `INSERT … PARTITION (k = v) …` (static partitions) | [`crate::ddl::insert_static_partition`] |
//! | `USE db` | the session's default schema |
//! | time travel and `/*+ OPTIONS(…) */` on any table reference | [`crate::rewrite`] |
//! | `incremental-between*` options on a table or its `t$audit_log` | [`crate::incremental`] |
//!
//! Everything else — queries, `INSERT INTO`, `INSERT OVERWRITE`, `UPDATE`, `DELETE`,
//! `EXPLAIN`, `SHOW TABLES`, `CREATE SCHEMA` — is DataFusion's, over strata's providers.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow_array::RecordBatch;
use datafusion::catalog::{MemorySchemaProvider, SchemaProvider};
use datafusion::common::{DFSchema, Result};
use datafusion::dataframe::DataFrame;
use datafusion::datasource::MemTable;
use datafusion::execution::context::SessionContext;
use datafusion::logical_expr::{EmptyRelation, LogicalPlan};
use datafusion::prelude::SessionConfig;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{ObjectType, Statement, Use};
use datafusion::sql::sqlparser::dialect::{Dialect, GenericDialect};
use strata::catalog::{FileSystemCatalog, Identifier};

use crate::catalog::{open_table, StrataCatalog, REFS_SCHEMA};
use crate::error::{plan_error, to_df};
use crate::options::TableOptions;
use crate::{ddl, procedures, rewrite};

/// The name of the warehouse catalog in a session.
pub const CATALOG: &str = "paimon";
/// The database unqualified names refer to until `USE db`.
pub const DEFAULT_DATABASE: &str = "default";

/// sqlparser's generic dialect with time travel (`VERSION AS OF`, `TIMESTAMP AS OF`).
#[derive(Debug, Default)]
pub struct StrataDialect(GenericDialect);

impl Dialect for StrataDialect {
    /// The parser's checks for the generic dialect hold for this one (`ADD COLUMN … FIRST |
    /// AFTER x` among them).
    fn dialect(&self) -> std::any::TypeId {
        std::any::TypeId::of::<GenericDialect>()
    }
    fn is_identifier_start(&self, ch: char) -> bool {
        self.0.is_identifier_start(ch)
    }
    fn is_identifier_part(&self, ch: char) -> bool {
        self.0.is_identifier_part(ch)
    }
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        ch == '"' || ch == '`'
    }
    fn supports_table_versioning(&self) -> bool {
        true
    }
    fn supports_filter_during_aggregation(&self) -> bool {
        true
    }
    /// `MAP<K, V>` column types (Flink/Spark DDL), not only ClickHouse's `Map(K, V)`.
    fn supports_map_literal_with_angle_brackets(&self) -> bool {
        true
    }
}

/// Parsed statements (see [`SqlSession::parse_script`]).
pub struct Script {
    parsed: rewrite::Parsed,
}

impl Script {
    /// Number of statements.
    pub fn len(&self) -> usize {
        self.parsed.statements.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parsed.statements.is_empty()
    }

    /// Statement `i` as SQL text.
    pub fn statement_text(&self, i: usize) -> String {
        self.parsed
            .statements
            .get(i)
            .map(|s| s.to_string())
            .unwrap_or_default()
    }
}

/// SQL over a strata warehouse.
pub struct SqlSession {
    ctx: SessionContext,
    catalog: Arc<FileSystemCatalog>,
    refs: Arc<MemorySchemaProvider>,
    statements: AtomicU64,
}

impl SqlSession {
    /// A session on `catalog` with DataFusion's default configuration (information schema on).
    pub fn new(catalog: FileSystemCatalog) -> Self {
        Self::with_config(catalog, SessionConfig::new())
    }

    /// A session with `config` (its default catalog and schema are set to the warehouse).
    pub fn with_config(catalog: FileSystemCatalog, config: SessionConfig) -> Self {
        let mut config = config
            .with_default_catalog_and_schema(CATALOG, DEFAULT_DATABASE)
            .with_create_default_catalog_and_schema(false)
            .with_information_schema(true);
        // Planning errors then carry the position of what they concern (error::error_position).
        config.options_mut().sql_parser.collect_spans = true;
        let ctx = SessionContext::new_with_config(config);
        let catalog = Arc::new(catalog);
        let refs = Arc::new(MemorySchemaProvider::new());
        ctx.register_catalog(
            CATALOG,
            Arc::new(StrataCatalog::new(catalog.clone()).with_refs(refs.clone())),
        );
        SqlSession {
            ctx,
            catalog,
            refs,
            statements: AtomicU64::new(0),
        }
    }

    /// The DataFusion context (register more tables or functions on it).
    pub fn context(&self) -> &SessionContext {
        &self.ctx
    }

    /// The warehouse.
    pub fn catalog(&self) -> &Arc<FileSystemCatalog> {
        &self.catalog
    }

    /// The database unqualified table names refer to.
    pub fn current_database(&self) -> String {
        self.ctx
            .state()
            .config()
            .options()
            .catalog
            .default_schema
            .clone()
    }

    /// Resolves a table name as written (`t`, `db.t`, `paimon.db.t`).
    pub fn identifier(&self, parts: &[String]) -> Result<Identifier> {
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

    /// Runs one statement and returns its result (a query's rows, a procedure's result
    /// table, nothing for DDL). Several statements: use [`Self::execute_script`].
    pub async fn sql(&self, sql: &str) -> Result<DataFrame> {
        let script = self.parse_script(sql)?;
        match script.len() {
            1 => self.run(&script, 0).await,
            0 => Err(plan_error("no SQL statement given")),
            n => Err(plan_error(format!(
                "{n} statements given to sql(); run scripts with execute_script"
            ))),
        }
    }

    /// Runs every statement of `sql` in order, collecting each result; stops at the first
    /// error.
    pub async fn execute_script(&self, sql: &str) -> Result<Vec<(String, Vec<RecordBatch>)>> {
        let script = self.parse_script(sql)?;
        let mut out = Vec::new();
        for i in 0..script.len() {
            let batches = self.run(&script, i).await?.collect().await?;
            out.push((script.statement_text(i), batches));
        }
        Ok(out)
    }

    /// Parses a script of statements, to run them one by one with [`Self::run`].
    pub fn parse_script(&self, sql: &str) -> Result<Script> {
        Ok(Script {
            parsed: rewrite::parse(sql, &StrataDialect::default())?,
        })
    }

    /// Runs statement `i` of `script`.
    pub async fn run(&self, script: &Script, i: usize) -> Result<DataFrame> {
        let stmt = script
            .parsed
            .statements
            .get(i)
            .cloned()
            .ok_or_else(|| plan_error(format!("the script has no statement {i}")))?;
        self.statement(&script.parsed, stmt).await
    }

    async fn statement(&self, parsed: &rewrite::Parsed, mut stmt: Statement) -> Result<DataFrame> {
        match &stmt {
            Statement::CreateTable(ct) => return ddl::create_table(self, parsed, ct).await,
            Statement::Drop {
                object_type: ObjectType::Table,
                if_exists,
                names,
                ..
            } => return ddl::drop_tables(self, names, *if_exists).await,
            Statement::AlterTable(alter) => return ddl::alter_table(self, alter).await,
            Statement::Call(f) => return procedures::call(self, f).await,
            Statement::Use(u) => return self.use_database(u),
            Statement::Insert(insert) if insert.partitioned.is_some() => {
                return ddl::insert_static_partition(self, parsed, insert).await
            }
            _ => {}
        }
        self.datafusion_statement(parsed, &mut stmt).await
    }

    /// Plans and runs `stmt` with DataFusion, after resolving time travel and option hints.
    pub(crate) async fn datafusion_statement(
        &self,
        parsed: &rewrite::Parsed,
        stmt: &mut Statement,
    ) -> Result<DataFrame> {
        let n = self.statements.fetch_add(1, Ordering::Relaxed);
        let prefix = [CATALOG.to_string(), REFS_SCHEMA.to_string()];
        let refs = parsed.resolve_refs(stmt, &prefix, n)?;
        let mut registered = Vec::new();
        let result = async {
            for r in &refs {
                let (base, system) = match r.name.last().and_then(|t| t.split_once('$')) {
                    Some((_, s)) => (true, s.to_string()),
                    None => (false, String::new()),
                };
                let options = TableOptions::new(r.options.clone());
                let provider = if base && system.eq_ignore_ascii_case("audit_log") {
                    // `t$audit_log` takes the incremental options (Java's AuditLogTable).
                    let mut parts = r.name.clone();
                    if let Some(last) = parts.last_mut() {
                        *last = last.split_once('$').map_or(last.clone(), |(t, _)| t.into());
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
                    open_table(&self.catalog, &id, &options).await?
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

    fn use_database(&self, u: &Use) -> Result<DataFrame> {
        let name = match u {
            Use::Object(n) | Use::Database(n) | Use::Schema(n) => n.to_string(),
            other => return Err(plan_error(format!("unsupported: {other}"))),
        };
        let name = name.trim_matches('"').trim_matches('`').to_string();
        let catalog = self.catalog.clone();
        let db = name.clone();
        let exists = crate::catalog::block_on(async move { catalog.database_exists(&db).await })?
            .map_err(to_df)?;
        if !exists {
            return Err(plan_error(format!("database {name} does not exist")));
        }
        let state = self.ctx.state_ref();
        state
            .write()
            .config_mut()
            .options_mut()
            .catalog
            .default_schema = name;
        Ok(self.empty())
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

    /// Per-query options of every table reference, for callers building their own plans.
    pub async fn table_with_options(
        &self,
        name: &str,
        options: BTreeMap<String, String>,
    ) -> Result<Arc<dyn datafusion::datasource::TableProvider>> {
        let parts: Vec<String> = name.split('.').map(str::to_string).collect();
        let id = self.identifier(&parts)?;
        open_table(&self.catalog, &id, &TableOptions::new(options)).await
    }
}
