//! Paimon's JDBC catalog (`metastore = jdbc`), as Java's `org.apache.paimon.jdbc.JdbcCatalog`
//! defines it: databases and tables are rows of a SQL database (SQLite or PostgreSQL) and the
//! tables' files live in the warehouse exactly as the filesystem catalog lays them out
//! (`<warehouse>/<db>.db/<table>`, written through [`FileSystemCatalog`]), so Java's
//! `JdbcCatalog` and strata share one catalog: the same tables and rows (`sql`), the same
//! `exists` row per database, the same table-property rows (`sync-all-properties`), the same
//! lock rows (`lock`).
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | [`JdbcCatalog`]: options, the tables at open, the `Catalog` operations |
//! | `sql` | Java's `JdbcUtils` statements and the lock dialects' SQL, verbatim |
//! | `store` | the database: SQLite (rusqlite) or PostgreSQL (tokio-postgres) |
//! | `lock` | `JdbcCatalogLock` and the commit under it (`JdbcSnapshotCommit`) |
//!
//! Options (Java's names): `uri` (`jdbc:sqlite:/path/cat.db`, `jdbc:postgresql://host:port/db`;
//! MySQL refused), `warehouse`, `catalog-key` (default `jdbc`), `jdbc.user`, `jdbc.password`,
//! `lock.enabled` (default: on for object-store warehouses, as `AbstractCatalog.lockEnabled`),
//! `lock.type` (only `jdbc`), `lock-check-max-sleep` (8 s), `lock-acquire-timeout` (8 min),
//! `lock-key-max-length` (255), `sync-all-properties` (true), `client-pool-size` (validated;
//! strata opens one SQLite connection per statement and keeps one PostgreSQL connection), plus
//! the options every catalog takes (`s3.*`, `table-default.*`). Other `jdbc.*` driver
//! properties are refused by name.
//!
//! Where strata differs, on purpose: `drop_database(cascade)` also deletes the dropped tables'
//! directories (Java leaves them, and then cannot create a table of the same name again);
//! `create_table` creates a missing database as every strata catalog does (Java requires it).
//! Branch identifiers (`t$branch_b`) are refused as Java's `JdbcCatalog` refuses them
//! (`assertMainBranch`); views are not defined through strata (their databases and names are
//! honoured: listed, counted as existing, refused as table names).

mod lock;
mod sql;
mod store;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use strata_spec::schema::{Schema, SchemaChange, TableSchema};
use strata_spec::snapshot::Snapshot;

use self::lock::{JdbcCatalogLock, JdbcSnapshotCommit};
use self::store::{SqlArg, SqlFailure, SqlStore};
use super::contract::Catalog;
use super::filesystem::{FileSystemCatalog, DB_SUFFIX};
use crate::error::ErrorDetail;
use crate::io::StoreKind;
use crate::meta::{SchemaManager, SnapshotManager, TablePaths};
use crate::table::{CommitContext, Identifier, Table};
use crate::Result;

/// `JdbcCatalog.DATABASE_EXISTS_PROPERTY`.
const DATABASE_EXISTS_PROPERTY: &str = "exists";
/// `Catalog.DB_LOCATION_PROP`.
const DB_LOCATION_PROP: &str = "location";

/// The keys a JDBC catalog takes besides those of every catalog.
const JDBC_KEYS: &[&str] = &[
    "uri",
    "catalog-key",
    "lock.enabled",
    "lock.type",
    "lock-check-max-sleep",
    "lock-acquire-timeout",
    "lock-key-max-length",
    "client-pool-size",
    "sync-all-properties",
];

/// Java's `JdbcCatalog` (see the module doc).
#[derive(Clone, Debug)]
pub(crate) struct JdbcCatalog {
    files: FileSystemCatalog,
    /// `warehouse` as given (the `location` property of new databases).
    warehouse: String,
    store: SqlStore,
    catalog_key: String,
    /// Present when `lock.enabled` (or its default) holds.
    lock: Option<JdbcCatalogLock>,
    sync_all_properties: bool,
}

fn parse_bool(key: &str, value: &str) -> Result<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(crate::Error::invalid_option(
            key,
            format!("`{value}` is not a boolean (true or false)"),
        )),
    }
}

fn parse_duration(key: &str, value: Option<&String>, default: Duration) -> Result<Duration> {
    match value {
        None => Ok(default),
        Some(v) => strata_spec::options::units::parse_duration(v)
            .map_err(|e| crate::Error::invalid_option(key, format!("`{v}`: {e}"))),
    }
}

fn parse_positive(key: &str, value: Option<&String>, default: u32) -> Result<u32> {
    match value {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| {
                crate::Error::invalid_option(key, format!("`{v}` is not a positive integer"))
            }),
    }
}

/// Per-process locks by (catalog key, database, object): Java's `LOCAL_LOCKS` stripes, which
/// make a name's check-then-create atomic inside one process even with `lock.enabled = false`.
fn local_lock(key: String) -> Arc<tokio::sync::Mutex<()>> {
    static LOCKS: OnceLock<Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>> = OnceLock::new();
    let mut locks = LOCKS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    locks.entry(key).or_default().clone()
}

impl JdbcCatalog {
    /// Opens the catalog of `options` (`metastore = jdbc`): connects, and creates Java's tables
    /// that are missing (`initializeCatalogTablesIfNeed`; the lock table only when the lock is
    /// on).
    pub(crate) async fn open(options: &BTreeMap<String, String>) -> Result<Self> {
        let parsed = super::options::split(
            options,
            &|k| JDBC_KEYS.contains(&k) || k.starts_with("jdbc."),
            "uri, catalog-key, jdbc.user, jdbc.password, lock.enabled, lock.type, \
             lock-check-max-sleep, lock-acquire-timeout, lock-key-max-length, client-pool-size, \
             sync-all-properties",
        )?;
        let own = &parsed.own;
        for key in own.keys().filter(|k| k.starts_with("jdbc.")) {
            if key != "jdbc.user" && key != "jdbc.password" {
                return Err(crate::Error::unsupported(format!(
                    "catalog option {key}: strata's JDBC catalog passes only jdbc.user and \
                     jdbc.password to the database (other JDBC driver properties are not \
                     implemented)"
                ))
                .with_option(key));
            }
        }
        let warehouse = parsed.warehouse.clone().ok_or_else(|| {
            crate::Error::invalid_option(
                "warehouse",
                "a JDBC catalog needs `warehouse` (where its tables' files live)",
            )
        })?;
        let uri = own.get("uri").ok_or_else(|| {
            crate::Error::invalid_option(
                "uri",
                "a JDBC catalog needs `uri` (jdbc:sqlite:/path/catalog.db or \
                 jdbc:postgresql://host:port/database)",
            )
        })?;
        if let Some(t) = own.get("lock.type") {
            if t != "jdbc" {
                return Err(crate::Error::unsupported(format!(
                    "catalog option lock.type = {t}: a JDBC catalog locks through its database \
                     (lock.type = jdbc, Java's JdbcCatalogLockFactory)"
                ))
                .with_option("lock.type"));
            }
        }
        let store = SqlStore::open(
            uri,
            own.get("jdbc.user").map(String::as_str),
            own.get("jdbc.password").map(String::as_str),
        )?;
        parse_positive("client-pool-size", own.get("client-pool-size"), 2)?;
        let catalog_key = own
            .get("catalog-key")
            .cloned()
            .unwrap_or_else(|| "jdbc".to_string());
        let files = FileSystemCatalog::open_with_options(&warehouse, &parsed.io)?
            .with_table_defaults(parsed.table_defaults.clone());
        let lock_enabled = match own.get("lock.enabled") {
            Some(v) => parse_bool("lock.enabled", v)?,
            // AbstractCatalog.lockEnabled: fileIO.isObjectStore()
            None => files.file_io().kind() == StoreKind::S3,
        };
        let sync_all_properties = match own.get("sync-all-properties") {
            Some(v) => parse_bool("sync-all-properties", v)?,
            None => true,
        };
        let max_key_length =
            parse_positive("lock-key-max-length", own.get("lock-key-max-length"), 255)?;
        let lock = if lock_enabled {
            Some(JdbcCatalogLock::new(
                store.clone(),
                catalog_key.clone(),
                parse_duration(
                    "lock-check-max-sleep",
                    own.get("lock-check-max-sleep"),
                    Duration::from_secs(8),
                )?,
                parse_duration(
                    "lock-acquire-timeout",
                    own.get("lock-acquire-timeout"),
                    Duration::from_secs(8 * 60),
                )?,
                max_key_length as usize,
            ))
        } else {
            None
        };
        for (name, ddl) in [
            (sql::CATALOG_TABLE_NAME, sql::CREATE_CATALOG_TABLE),
            (
                sql::DATABASE_PROPERTIES_TABLE_NAME,
                sql::CREATE_DATABASE_PROPERTIES_TABLE,
            ),
            (
                sql::TABLE_PROPERTIES_TABLE_NAME,
                sql::CREATE_TABLE_PROPERTIES_TABLE,
            ),
            (sql::VIEW_TABLE_NAME, sql::CREATE_VIEW_TABLE),
        ] {
            store.create_table_if_absent(name, ddl).await?;
        }
        if lock.is_some() {
            store
                .create_table_if_absent(
                    sql::DISTRIBUTED_LOCKS_TABLE_NAME,
                    &sql::create_distributed_locks_table(max_key_length),
                )
                .await?;
        }
        Ok(JdbcCatalog {
            files,
            warehouse,
            store,
            catalog_key,
            lock,
            sync_all_properties,
        })
    }

    fn key(&self) -> SqlArg {
        SqlArg::Str(self.catalog_key.clone())
    }

    async fn exec(&self, what: &str, sql: &str, args: Vec<SqlArg>) -> Result<u64> {
        self.store
            .execute(sql, args)
            .await
            .map_err(|e| self.store.error(what, &e))
    }

    /// The first column of each row.
    async fn fetch(
        &self,
        what: &str,
        sql: &str,
        args: Vec<SqlArg>,
        column: &str,
    ) -> Result<Vec<String>> {
        let rows = self
            .store
            .query(sql, args, &[column])
            .await
            .map_err(|e| self.store.error(what, &e))?;
        Ok(rows
            .into_iter()
            .filter_map(|mut r| r.pop().flatten())
            .collect())
    }

    async fn exists(&self, what: &str, sql: &str, args: Vec<SqlArg>) -> Result<bool> {
        let rows = self
            .store
            .query(sql, args, &[])
            .await
            .map_err(|e| self.store.error(what, &e))?;
        Ok(!rows.is_empty())
    }

    /// `JdbcUtils.databaseExists`: a table row, a property row or a view row.
    async fn db_exists(&self, db: &str) -> Result<bool> {
        let what = format!("looking up database {db}");
        for sql in [
            sql::GET_DATABASE_SQL,
            sql::GET_DATABASE_PROPERTIES_SQL,
            sql::GET_VIEW_DATABASE_SQL,
        ] {
            if self.exists(&what, sql, vec![self.key(), db.into()]).await? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `JdbcUtils.tableExists` on the table's row.
    async fn table_row_exists(&self, db: &str, table: &str) -> Result<bool> {
        self.exists(
            &format!("looking up table {db}.{table}"),
            sql::GET_TABLE_SQL,
            vec![self.key(), db.into(), table.into()],
        )
        .await
    }

    async fn view_row_exists(&self, db: &str, name: &str) -> Result<bool> {
        self.exists(
            &format!("looking up view {db}.{name}"),
            sql::GET_VIEW_SQL,
            vec![self.key(), db.into(), name.into()],
        )
        .await
    }

    /// `newDatabasePath(name).toString()`: the `location` property Java stores.
    fn database_location(&self, db: &str) -> String {
        let w = self.warehouse.trim_end_matches('/');
        let w = match w.strip_prefix("file:///") {
            Some(rest) => format!("file:/{rest}"),
            None => w.to_string(),
        };
        format!("{w}/{db}{DB_SUFFIX}")
    }

    /// Java's `checkNotBranch` / `assertMainBranch`.
    fn check_main_branch(id: &Identifier, method: &str) -> Result<()> {
        if id.branch.is_some() {
            return Err(crate::Error::unsupported(format!(
                "{method} of branch table {id}: Java's JdbcCatalog does not support table \
                 branches, and neither does strata's"
            )));
        }
        Ok(())
    }

    /// `runWithLock(identifier, callable)`: the per-process lock always, the JDBC lock when on.
    async fn run_with_lock<T, F>(&self, id: &Identifier, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: std::future::Future<Output = Result<T>> + Send + 'static,
    {
        let local = local_lock(format!(
            "{}\0{}\0{}",
            self.catalog_key, id.database, id.table
        ));
        let _guard = local.lock().await;
        match &self.lock {
            None => work.await,
            Some(lock) => lock.run_with_lock(&id.database, &id.table, work).await,
        }
    }

    /// `collectTableProperties`: the schema's options plus `primary-key`, `partition`,
    /// `bucket-key` joined by commas.
    fn table_properties(schema: &TableSchema) -> BTreeMap<String, String> {
        let mut props: BTreeMap<String, String> = schema
            .options
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !schema.primary_keys.is_empty() {
            props.insert("primary-key".into(), schema.primary_keys.join(","));
        }
        if !schema.partition_keys.is_empty() {
            props.insert("partition".into(), schema.partition_keys.join(","));
        }
        let bucket_keys = schema.bucket_keys();
        if !bucket_keys.is_empty() {
            props.insert("bucket-key".into(), bucket_keys.join(","));
        }
        props
    }

    /// Replaces the table's property rows with those of its latest schema (when
    /// `sync-all-properties`).
    async fn sync_table_properties(&self, id: &Identifier, replace: bool) -> Result<()> {
        if !self.sync_all_properties {
            return Ok(());
        }
        let what = format!("writing the properties of table {id}");
        let sm = SchemaManager::new(
            self.files.file_io().clone(),
            TablePaths::new(self.files.table_path(id)),
        );
        let Some(schema) = sm.latest().await? else {
            return Ok(());
        };
        if replace {
            self.exec(
                &what,
                sql::DELETE_ALL_TABLE_PROPERTIES_SQL,
                vec![
                    self.key(),
                    id.database.as_str().into(),
                    id.table.as_str().into(),
                ],
            )
            .await?;
        }
        let props = Self::table_properties(&schema);
        if props.is_empty() {
            return Ok(());
        }
        let mut args = Vec::with_capacity(props.len() * 5);
        for (k, v) in &props {
            args.extend([
                self.key(),
                id.database.as_str().into(),
                id.table.as_str().into(),
                k.as_str().into(),
                v.as_str().into(),
            ]);
        }
        let n = self
            .exec(&what, &sql::insert_table_properties(props.len()), args)
            .await?;
        if n != props.len() as u64 {
            return Err(ErrorDetail::Invariant(format!(
                "{what}: Failed to insert: {n} of {} succeeded",
                props.len()
            ))
            .into());
        }
        Ok(())
    }

    /// The table's files and rows, as `dropTableImpl` removes them.
    async fn drop_table_files(&self, id: &Identifier) -> Result<()> {
        let path = self.files.table_path(id);
        self.files.file_io().delete_prefix(&path).await
    }
}

#[async_trait]
impl Catalog for JdbcCatalog {
    fn location(&self) -> String {
        format!(
            "JDBC catalog {} at {} (warehouse {})",
            self.catalog_key,
            self.store.uri(),
            self.files.location()
        )
    }

    /// `listDatabases`: the databases of table, property and view rows, sorted.
    async fn list_databases(&self) -> Result<Vec<String>> {
        let mut out = std::collections::BTreeSet::new();
        for sql in [
            sql::LIST_ALL_TABLE_DATABASES_SQL,
            sql::LIST_ALL_PROPERTY_DATABASES_SQL,
            sql::LIST_ALL_VIEW_DATABASES_SQL,
        ] {
            out.extend(
                self.fetch("listing databases", sql, vec![self.key()], "database_name")
                    .await?,
            );
        }
        Ok(out.into_iter().collect())
    }

    async fn database_exists(&self, db: &str) -> Result<bool> {
        self.db_exists(db).await
    }

    /// `createDatabase`: the `exists` row and the `location` property.
    async fn create_database(&self, db: &str, ignore_if_exists: bool) -> Result<()> {
        Identifier::validate_name("database", db)?;
        if self.db_exists(db).await? {
            return if ignore_if_exists {
                Ok(())
            } else {
                Err(ErrorDetail::DatabaseAlreadyExists(db.to_string()).into())
            };
        }
        let location = self.database_location(db);
        let props = [
            (DATABASE_EXISTS_PROPERTY, "true"),
            (DB_LOCATION_PROP, location.as_str()),
        ];
        let mut args = Vec::new();
        for (k, v) in props {
            args.extend([self.key(), db.into(), k.into(), v.into()]);
        }
        let what = format!("creating database {db}");
        match self
            .store
            .execute(&sql::insert_database_properties(props.len()), args)
            .await
        {
            Ok(_) => Ok(()),
            // a concurrent creator won
            Err(SqlFailure::UniqueViolation(_)) if ignore_if_exists => Ok(()),
            Err(SqlFailure::UniqueViolation(_)) => {
                Err(ErrorDetail::DatabaseAlreadyExists(db.to_string()).into())
            }
            Err(e) => Err(self.store.error(&what, &e)),
        }
    }

    /// `dropDatabase`: refused when not empty (tables or views) unless `cascade`; then the
    /// rows go, and (strata) the dropped tables' directories.
    async fn drop_database(
        &self,
        db: &str,
        ignore_if_not_exists: bool,
        cascade: bool,
    ) -> Result<()> {
        if !self.db_exists(db).await? {
            return if ignore_if_not_exists {
                Ok(())
            } else {
                Err(ErrorDetail::DatabaseNotFound(db.to_string()).into())
            };
        }
        let what = format!("dropping database {db}");
        let tables = self.list_tables(db).await?;
        let views = self
            .fetch(
                &what,
                sql::LIST_VIEWS_SQL,
                vec![self.key(), db.into()],
                "view_name",
            )
            .await?;
        if !cascade && (!tables.is_empty() || !views.is_empty()) {
            return Err(ErrorDetail::DatabaseNotEmpty(db.to_string()).into());
        }
        let args = || vec![self.key(), db.into()];
        self.exec(&what, sql::DELETE_TABLES_SQL, args()).await?;
        self.exec(&what, sql::DELETE_ALL_DATABASE_PROPERTIES_SQL, args())
            .await?;
        if self.sync_all_properties {
            self.exec(&what, sql::DELETE_ALL_TABLE_PROPERTIES_FOR_DB_SQL, args())
                .await?;
        }
        self.exec(&what, sql::DELETE_VIEWS_SQL, args()).await?;
        for t in tables {
            self.drop_table_files(&Identifier::new(db, t)?).await?;
        }
        Ok(())
    }

    /// `listTables`: the database's table rows, sorted.
    async fn list_tables(&self, db: &str) -> Result<Vec<String>> {
        if !self.db_exists(db).await? {
            return Err(ErrorDetail::DatabaseNotFound(db.to_string()).into());
        }
        let mut names = self
            .fetch(
                &format!("listing the tables of {db}"),
                sql::LIST_TABLES_SQL,
                vec![self.key(), db.into()],
                "table_name",
            )
            .await?;
        names.sort();
        Ok(names)
    }

    /// The table's row (and, for a branch, the branch's schema files).
    async fn table_exists(&self, id: &Identifier) -> Result<bool> {
        if !self.table_row_exists(&id.database, &id.table).await? {
            return Ok(false);
        }
        if id.branch.is_some() {
            return self.files.table_exists(id).await;
        }
        Ok(true)
    }

    /// `createTable`: under the lock, no table or view of the name, `schema-0` written, the
    /// table row inserted (the files removed again if that fails), the property rows.
    async fn create_table(
        &self,
        id: &Identifier,
        schema: &Schema,
        ignore_if_exists: bool,
    ) -> Result<bool> {
        Self::check_main_branch(id, "createTable")?;
        if schema.options.contains_key("path") {
            return Err(crate::Error::unsupported(
                "The current catalog JdbcCatalog does not support specifying the table path \
                 when creating a table.",
            )
            .with_option("path"));
        }
        self.create_database(&id.database, true).await?;
        let this = self.clone();
        let (id2, schema) = (id.clone(), schema.clone());
        let created = self
            .run_with_lock(id, async move {
                let id = id2;
                if this.table_row_exists(&id.database, &id.table).await?
                    || this.view_row_exists(&id.database, &id.table).await?
                {
                    return if ignore_if_exists {
                        Ok(false)
                    } else {
                        Err(ErrorDetail::TableAlreadyExists(id.to_string()).into())
                    };
                }
                this.files.create_table(&id, &schema, false).await?;
                let inserted = this
                    .store
                    .execute(
                        sql::DO_COMMIT_CREATE_TABLE_SQL,
                        vec![
                            this.key(),
                            id.database.as_str().into(),
                            id.table.as_str().into(),
                        ],
                    )
                    .await;
                match inserted {
                    Ok(1) => {}
                    Ok(n) => {
                        let _ = this.drop_table_files(&id).await;
                        return Err(ErrorDetail::Invariant(format!(
                            "Failed to create table {id} in catalog {}: {n} rows inserted",
                            this.catalog_key
                        ))
                        .into());
                    }
                    Err(e) => {
                        let _ = this.drop_table_files(&id).await;
                        return Err(match e {
                            SqlFailure::UniqueViolation(_) => {
                                ErrorDetail::TableAlreadyExists(id.to_string()).into()
                            }
                            e => this.store.error(&format!("creating table {id}"), &e),
                        });
                    }
                }
                this.sync_table_properties(&id, false).await?;
                Ok(true)
            })
            .await?;
        Ok(created)
    }

    /// `dropTable`: the row, the property rows, then the files; a table with files but no row
    /// is left alone, as Java's `dropTableImpl` skips it.
    async fn drop_table(&self, id: &Identifier, ignore_if_not_exists: bool) -> Result<()> {
        Self::check_main_branch(id, "dropTable")?;
        let exists = self.table_row_exists(&id.database, &id.table).await?
            || self.files.table_exists(id).await?;
        if !exists {
            return if ignore_if_not_exists {
                Ok(())
            } else {
                Err(ErrorDetail::TableNotFound(id.to_string()).into())
            };
        }
        let what = format!("dropping table {id}");
        let args = || {
            vec![
                self.key(),
                id.database.as_str().into(),
                id.table.as_str().into(),
            ]
        };
        if self.exec(&what, sql::DROP_TABLE_SQL, args()).await? == 0 {
            return Ok(());
        }
        if self.sync_all_properties {
            self.exec(&what, sql::DELETE_ALL_TABLE_PROPERTIES_SQL, args())
                .await?;
        }
        self.drop_table_files(id).await
    }

    /// `alterTable`: the schema change under the lock, then the property rows again.
    async fn alter_table(
        &self,
        id: &Identifier,
        changes: Vec<SchemaChange>,
        ignore_if_not_exists: bool,
    ) -> Result<Option<Arc<TableSchema>>> {
        Self::check_main_branch(id, "alterTable")?;
        if !self.table_row_exists(&id.database, &id.table).await? {
            return if ignore_if_not_exists {
                Ok(None)
            } else {
                Err(ErrorDetail::TableNotFound(id.to_string()).into())
            };
        }
        let files = self.files.clone();
        let id2 = id.clone();
        let altered = self
            .run_with_lock(
                id,
                async move { files.alter_table(&id2, changes, false).await },
            )
            .await?;
        self.sync_table_properties(id, true).await?;
        Ok(altered)
    }

    /// `getTable`: the row must exist; the table is read from its files and, with the lock
    /// on, publishes its snapshots under it.
    async fn get_table(&self, id: &Identifier) -> Result<Table> {
        Self::check_main_branch(id, "getTable")?;
        if !self.table_row_exists(&id.database, &id.table).await? {
            return Err(ErrorDetail::TableNotFound(id.to_string()).into());
        }
        let table = self.files.get_table(id).await.map_err(|e| {
            if e.is_table_not_found() {
                crate::Error::from(ErrorDetail::NotFound(format!(
                    "There is no paimon table in {}",
                    self.files.file_io().display(&self.files.table_path(id))
                )))
            } else {
                e
            }
        })?;
        Ok(match &self.lock {
            None => table,
            Some(lock) => {
                let commit = JdbcSnapshotCommit::new(
                    lock.clone(),
                    id.database.clone(),
                    id.table.clone(),
                    table.snapshot_manager().clone(),
                );
                table.with_snapshot_commit(Arc::new(commit))
            }
        })
    }

    /// A create-if-absent of `snapshot-N`, under the lock when it is on.
    async fn commit_snapshot(
        &self,
        id: &Identifier,
        snapshot: &Snapshot,
        _ctx: &CommitContext,
    ) -> Result<bool> {
        Self::check_main_branch(id, "commitSnapshot")?;
        let snapshots = SnapshotManager::new(
            self.files.file_io().clone(),
            TablePaths::new(self.files.table_path(id)),
        );
        let snapshot = snapshot.clone();
        let publish = async move { snapshots.try_publish(&snapshot).await };
        match &self.lock {
            None => publish.await,
            Some(lock) => lock.run_with_lock(&id.database, &id.table, publish).await,
        }
    }
}
