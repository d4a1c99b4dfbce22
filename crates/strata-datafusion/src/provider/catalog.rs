//! strata's filesystem catalog as DataFusion's [`CatalogProvider`] (databases are schemas) and
//! [`SchemaProvider`] (tables, and their system tables `t$snapshots`, `t$files`, …; a name
//! that is no table but a view of the catalog resolves to the view's query, `super::view`;
//! DataFusion's `CREATE VIEW` / `DROP VIEW` of a plain `SessionContext` create and drop the
//! catalog's view through `register_table` / `deregister_table`).
//!
//! DataFusion asks for schema and table names synchronously while strata's catalog is async
//! (it lists directories, perhaps on S3); those calls run the listing to completion on the
//! current tokio runtime from a scoped thread (`block_on`), so they work from inside and
//! outside async code. Table lookups (`SchemaProvider::table`) are async and need no bridge.

use std::future::Future;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::catalog::{CatalogProvider, MemorySchemaProvider, SchemaProvider};
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::TableProvider;
use strata::catalog::{Catalog, Identifier};

use super::options::TableOptions;
use super::system_tables;
use super::table::StrataTable;
use super::view::{view_of_plan, view_provider};
use crate::error::{plan_error, to_df};

/// The database unqualified names refer to until `USE db`, listed even before it exists.
pub const DEFAULT_DATABASE: &str = "default";

/// Runs `f` to completion from synchronous code: on the current tokio runtime when there is
/// one (from a scoped thread, so a runtime worker is never blocked inside itself), else on a
/// small runtime of its own.
/// `t$branch_b$snapshots` → (`t$branch_b`, `Some("snapshots")`); `t$branch_b` → (`t$branch_b`,
/// `None`); `t$snapshots` → (`t`, `Some("snapshots")`): the table (with its branch, which
/// `Identifier::new` reads) and the system table (Java's `Identifier.splitObjectName`).
pub(crate) fn split_system(name: &str) -> (&str, Option<&str>) {
    let (head, rest) = match name.split_once('$') {
        Some(p) => p,
        None => return (name, None),
    };
    if !rest.to_ascii_lowercase().starts_with("branch_") {
        return (head, Some(rest));
    }
    match rest.split_once('$') {
        Some((branch, system)) => (&name[..head.len() + 1 + branch.len()], Some(system)),
        None => (name, None),
    }
}

pub(crate) fn block_on<F>(f: F) -> Result<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    let handle = tokio::runtime::Handle::try_current();
    std::thread::scope(|s| {
        s.spawn(move || match handle {
            Ok(h) => Ok(h.block_on(f)),
            Err(_) => tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map(|rt| rt.block_on(f))
                .map_err(|e| DataFusionError::Execution(format!("cannot start a runtime: {e}"))),
        })
        .join()
        .unwrap_or_else(|_| {
            Err(DataFusionError::Execution(
                "a catalog listing panicked".to_string(),
            ))
        })
    })
}

/// A strata warehouse as a DataFusion catalog: one schema per database.
#[derive(Debug, Clone)]
pub struct StrataCatalog {
    catalog: Arc<dyn Catalog>,
    /// Per-statement tables of a SQL session (`SqlSession`: time travel, option hints): schema
    /// [`REFS_SCHEMA`], never listed.
    refs: Option<Arc<MemorySchemaProvider>>,
    /// How many views deep this catalog resolves names (0: a session's own).
    view_depth: usize,
}

/// The hidden schema of per-statement tables.
pub(crate) const REFS_SCHEMA: &str = "__strata_refs";

impl StrataCatalog {
    /// The catalog's databases as DataFusion schemas.
    pub fn new(catalog: Arc<dyn Catalog>) -> Self {
        StrataCatalog {
            catalog,
            refs: None,
            view_depth: 0,
        }
    }

    pub(crate) fn with_refs(mut self, refs: Arc<MemorySchemaProvider>) -> Self {
        self.refs = Some(refs);
        self
    }

    /// The strata catalog.
    pub fn inner(&self) -> &Arc<dyn Catalog> {
        &self.catalog
    }
}

impl CatalogProvider for StrataCatalog {
    fn schema_names(&self) -> Vec<String> {
        let catalog = self.catalog.clone();
        block_on(async move { catalog.list_databases().await })
            .ok()
            .and_then(|r| r.ok())
            .unwrap_or_default()
    }

    fn schema(&self, name: &str) -> Option<Arc<dyn SchemaProvider>> {
        if name == REFS_SCHEMA {
            return self.refs.clone().map(|r| r as Arc<dyn SchemaProvider>);
        }
        let catalog = self.catalog.clone();
        let db = name.to_string();
        let exists = block_on(async move { catalog.database_exists(&db).await })
            .ok()?
            .ok()?;
        // `default` always resolves (Paimon catalogs create it on first use).
        (exists || name == DEFAULT_DATABASE).then(|| {
            let mut schema = StrataSchema::new(self.catalog.clone(), name);
            schema.view_depth = self.view_depth;
            Arc::new(schema) as Arc<dyn SchemaProvider>
        })
    }

    /// `CREATE SCHEMA`: creates the database (the provider given is not used).
    fn register_schema(
        &self,
        name: &str,
        _schema: Arc<dyn SchemaProvider>,
    ) -> Result<Option<Arc<dyn SchemaProvider>>> {
        let catalog = self.catalog.clone();
        let db = name.to_string();
        block_on(async move { catalog.create_database(&db, false).await })?.map_err(to_df)?;
        Ok(None)
    }

    /// `DROP SCHEMA [CASCADE]`.
    fn deregister_schema(
        &self,
        name: &str,
        cascade: bool,
    ) -> Result<Option<Arc<dyn SchemaProvider>>> {
        let previous = self.schema(name);
        let catalog = self.catalog.clone();
        let db = name.to_string();
        block_on(async move { catalog.drop_database(&db, false, cascade).await })?
            .map_err(to_df)?;
        Ok(previous)
    }
}

/// One database of a strata warehouse as a DataFusion schema.
#[derive(Debug, Clone)]
pub struct StrataSchema {
    catalog: Arc<dyn Catalog>,
    database: String,
    view_depth: usize,
}

impl StrataSchema {
    pub fn new(catalog: Arc<dyn Catalog>, database: &str) -> Self {
        StrataSchema {
            catalog,
            database: database.to_string(),
            view_depth: 0,
        }
    }

    /// The catalog's view `name` of this database, `None` when there is none or the catalog
    /// keeps no views.
    async fn find_view(&self, name: &str) -> Result<Option<strata::catalog::View>> {
        let Ok(id) = strata::catalog::object_identifier("view", &self.database, name) else {
            return Ok(None);
        };
        match self.catalog.get_view(&id).await {
            Ok(v) => Ok(Some(v)),
            Err(e)
                if matches!(
                    e.kind(),
                    strata::ErrorKind::NotFound | strata::ErrorKind::Unsupported
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(to_df(e)),
        }
    }

    fn identifier(&self, table: &str) -> Result<Identifier> {
        Identifier::new(self.database.clone(), table.to_string()).map_err(to_df)
    }
}

#[async_trait]
impl SchemaProvider for StrataSchema {
    fn table_names(&self) -> Vec<String> {
        let catalog = self.catalog.clone();
        let db = self.database.clone();
        block_on(async move { catalog.list_tables(&db).await })
            .ok()
            .and_then(|r| r.ok())
            .unwrap_or_default()
    }

    /// `t` is the table, `t$snapshots` etc. its system tables; `t$options...` never reaches
    /// here: time travel and dynamic options are resolved by the SQL session (`SqlSession`).
    async fn table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        let (base, system) = split_system(name);
        let id = self.identifier(base)?;
        if !self.catalog.table_exists(&id).await.map_err(to_df)? {
            if system.is_some() {
                return Ok(None);
            }
            let Some(view) = self.find_view(name).await? else {
                return Ok(None);
            };
            let warehouse = StrataCatalog {
                catalog: self.catalog.clone(),
                refs: None,
                view_depth: self.view_depth + 1,
            };
            return view_provider(&view, Arc::new(warehouse), self.view_depth)
                .await
                .map(Some);
        }
        let table = self.catalog.get_table(&id).await.map_err(to_df)?;
        match system {
            Some(s) => Ok(Some(system_tables::provider(&table, s).await?)),
            None => Ok(Some(Arc::new(
                StrataTable::new(table).await.map_err(to_df)?,
            ))),
        }
    }

    fn table_exist(&self, name: &str) -> bool {
        let (base, _) = split_system(name);
        let catalog = self.catalog.clone();
        let Ok(id) = self.identifier(base) else {
            return false;
        };
        block_on(async move { catalog.table_exists(&id).await })
            .ok()
            .and_then(|r| r.ok())
            .unwrap_or(false)
    }

    /// Tables are created with strata's DDL (`CREATE TABLE ... PRIMARY KEY ... PARTITIONED BY
    /// ... WITH (...)` through the SQL session (`SqlSession`)), which knows keys and options.
    /// A DataFusion view (`CREATE VIEW` of a plain `SessionContext`) becomes the catalog's view.
    fn register_table(
        &self,
        name: String,
        table: Arc<dyn TableProvider>,
    ) -> Result<Option<Arc<dyn TableProvider>>> {
        if let Some(v) = table.downcast_ref::<datafusion::catalog::view::ViewTable>() {
            let definition = v.definition().ok_or_else(|| {
                plan_error(format!("view {}.{name} has no SQL text", self.database))
            })?;
            let query = super::view::query_of_create_view(definition)?;
            if query.contains(REFS_SCHEMA) {
                return Err(plan_error(format!(
                    "view {}.{name}: a view's query cannot use time travel or OPTIONS hints \
                     (the catalog keeps the query text, not the snapshot it read)",
                    self.database
                )));
            }
            let id =
                strata::catalog::object_identifier("view", &self.database, &name).map_err(to_df)?;
            let view = view_of_plan(id, v.schema().as_ref(), &query)?;
            let catalog = self.catalog.clone();
            block_on(async move { catalog.create_view(&view, false).await })?.map_err(to_df)?;
            return Ok(None);
        }
        Err(plan_error(format!(
            "cannot register a DataFusion table as {}.{name}: create strata tables with \
             strata's SQL (strata_datafusion::SqlSession) or strata's catalog API",
            self.database
        )))
    }

    /// `DROP TABLE` (the table and its files), or `DROP VIEW` of the catalog's view `name`.
    fn deregister_table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        let catalog = self.catalog.clone();
        let id = self.identifier(name)?;
        let schema = self.clone();
        let view_name = name.to_string();
        block_on(async move {
            if !catalog.table_exists(&id).await? {
                if let Ok(Some(v)) = schema.find_view(&view_name).await {
                    return catalog.drop_view(&v.identifier, false).await;
                }
            }
            catalog.drop_table(&id, false).await
        })?
        .map_err(to_df)?;
        Ok(None)
    }
}

/// Opens `db.t` with per-query options (time travel, dynamic options) as a provider.
pub(crate) async fn open_table(
    catalog: &dyn Catalog,
    id: &Identifier,
    options: &TableOptions,
) -> Result<Arc<dyn TableProvider>> {
    let table = catalog.get_table(id).await.map_err(to_df)?;
    options.apply(&table).await
}
