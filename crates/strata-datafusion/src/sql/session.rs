//! [`SqlSession`]: SQL over a strata warehouse.
//!
//! A DataFusion `SessionContext` whose default catalog is the warehouse (`StrataCatalog`,
//! one schema per database, `default` first), plus the statements DataFusion has no Paimon
//! meaning for, handled here:
//!
//! | statement | handled by |
//! |---|---|
//! | `CREATE TABLE … [PRIMARY KEY (…)] [PARTITIONED BY (…)] [WITH ('k' = 'v')]`, `CREATE TABLE … AS SELECT`, `DROP TABLE`, `ALTER TABLE` | `super::ddl` |
//! | `CALL sys.compact(…)`, `sys.expire_snapshots`, `sys.create_tag`, `sys.delete_tag`, `sys.rollback`, `sys.remove_orphan_files` | `super::procedures` |
//! | `INSERT … PARTITION (k = v) …` (static partitions) | `super::ddl::insert_static_partition` |
//! | `CREATE [OR REPLACE] VIEW … AS …`, `DROP VIEW` (the catalog's views) | `super::views` |
//! | `USE db` | the session's default schema |
//! | time travel and `/*+ OPTIONS(…) */` on any table reference | `super::rewrite` |
//! | `incremental-between*` options on a table or its `t$audit_log` | `crate::provider::incremental` |
//!
//! Everything else — queries, `INSERT INTO`, `INSERT OVERWRITE`, `UPDATE`, `DELETE`,
//! `EXPLAIN`, `SHOW TABLES`, `CREATE SCHEMA` — is DataFusion's, over strata's providers.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::RecordBatch;
use datafusion::common::Result;
use datafusion::dataframe::DataFrame;
use datafusion::datasource::TableProvider;
use datafusion::execution::context::SessionContext;
use datafusion::prelude::SessionConfig;
use datafusion::sql::sqlparser::ast::{ObjectType, Statement, Use};
use datafusion::sql::sqlparser::dialect::{Dialect, GenericDialect};
use strata::catalog::{Catalog, Identifier};

use super::context::SqlContext;
use super::{alter, ddl, procedures, rewrite, variant, views};
use crate::error::{plan_error, to_df};
use crate::provider::catalog::block_on;

pub use super::context::CATALOG;
pub use crate::provider::catalog::DEFAULT_DATABASE;

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
    inner: SqlContext,
}

impl SqlSession {
    /// A session on `catalog` with DataFusion's default configuration (information schema on).
    pub fn new(catalog: Arc<dyn Catalog>) -> Self {
        Self::with_config(catalog, SessionConfig::new())
    }

    /// A session with `config` (its default catalog and schema are set to the warehouse).
    pub fn with_config(catalog: Arc<dyn Catalog>, config: SessionConfig) -> Self {
        let inner = SqlContext::new(catalog, config);
        variant::register(inner.context());
        SqlSession { inner }
    }

    /// The DataFusion context (register more tables or functions on it).
    pub fn context(&self) -> &SessionContext {
        self.inner.context()
    }

    /// The warehouse.
    pub fn catalog(&self) -> &Arc<dyn Catalog> {
        self.inner.catalog()
    }

    /// The database unqualified table names refer to.
    pub fn current_database(&self) -> String {
        self.inner.current_database()
    }

    /// Resolves a table name as written (`t`, `db.t`, `paimon.db.t`).
    pub fn identifier(&self, parts: &[String]) -> Result<Identifier> {
        self.inner.identifier(parts)
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

    /// Dispatches one statement: the ones with a Paimon meaning to their handlers, the rest to
    /// DataFusion (after time travel and option hints are resolved).
    async fn statement(&self, parsed: &rewrite::Parsed, mut stmt: Statement) -> Result<DataFrame> {
        let cx = &self.inner;
        match &stmt {
            Statement::CreateTable(ct) => return ddl::create_table(cx, parsed, ct).await,
            Statement::Drop {
                object_type: ObjectType::Table,
                if_exists,
                names,
                ..
            } => return ddl::drop_tables(cx, names, *if_exists).await,
            Statement::AlterTable(a) => return alter::alter_table(cx, a).await,
            Statement::CreateView(cv) => return views::create_view(cx, cv).await,
            Statement::Drop {
                object_type: ObjectType::View,
                if_exists,
                names,
                ..
            } => return views::drop_views(cx, names, *if_exists).await,
            Statement::Call(f) => return procedures::call(cx, f).await,
            Statement::Use(u) => return self.use_database(u),
            Statement::Insert(insert) if insert.partitioned.is_some() => {
                return ddl::insert_static_partition(cx, parsed, insert).await
            }
            _ => {}
        }
        if let Statement::Insert(insert) = &stmt {
            let insert = insert.clone();
            let planned = cx.datafusion_statement(parsed, &mut stmt).await;
            return variant::checked_insert(cx, &insert, planned).await;
        }
        cx.datafusion_statement(parsed, &mut stmt).await
    }

    fn use_database(&self, u: &Use) -> Result<DataFrame> {
        let name = match u {
            Use::Object(n) | Use::Database(n) | Use::Schema(n) => n.to_string(),
            other => return Err(plan_error(format!("unsupported: {other}"))),
        };
        let name = name.trim_matches('"').trim_matches('`').to_string();
        let catalog = self.catalog().clone();
        let db = name.clone();
        let exists = block_on(async move { catalog.database_exists(&db).await })?.map_err(to_df)?;
        if !exists {
            return Err(plan_error(format!("database {name} does not exist")));
        }
        self.inner.set_current_database(name);
        Ok(self.inner.empty())
    }

    /// Per-query options of every table reference, for callers building their own plans.
    pub async fn table_with_options(
        &self,
        name: &str,
        options: BTreeMap<String, String>,
    ) -> Result<Arc<dyn TableProvider>> {
        self.inner.table_with_options(name, options).await
    }
}
