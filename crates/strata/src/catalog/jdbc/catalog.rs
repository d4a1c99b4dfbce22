//! [`JdbcCatalog`]: its options, its tables created at open (Java's
//! `initializeCatalogTablesIfNeed`), and the row lookups, property rows and locks its
//! operations (`super::operations`) are made of.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use strata_spec::schema::TableSchema;

use super::lock::JdbcCatalogLock;
use super::sql;
use super::store::{SqlArg, SqlStore};
use crate::catalog::filesystem::{FileSystemCatalog, DB_SUFFIX};
use crate::error::ErrorDetail;
use crate::io::StoreKind;
use crate::meta::{SchemaManager, TablePaths};
use crate::table::Identifier;
use crate::Result;

/// `JdbcCatalog.DATABASE_EXISTS_PROPERTY`.
pub(super) const DATABASE_EXISTS_PROPERTY: &str = "exists";
/// `Catalog.DB_LOCATION_PROP`.
pub(super) const DB_LOCATION_PROP: &str = "location";

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
    pub(super) files: FileSystemCatalog,
    /// `warehouse` as given (the `location` property of new databases).
    pub(super) warehouse: String,
    pub(super) store: SqlStore,
    pub(super) catalog_key: String,
    /// Present when `lock.enabled` (or its default) holds.
    pub(super) lock: Option<JdbcCatalogLock>,
    pub(super) sync_all_properties: bool,
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
        let parsed = crate::catalog::options::split(
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

    pub(super) fn key(&self) -> SqlArg {
        SqlArg::Str(self.catalog_key.clone())
    }

    pub(super) async fn exec(&self, what: &str, sql: &str, args: Vec<SqlArg>) -> Result<u64> {
        self.store
            .execute(sql, args)
            .await
            .map_err(|e| self.store.error(what, &e))
    }

    /// The first column of each row.
    pub(super) async fn fetch(
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

    pub(super) async fn exists(&self, what: &str, sql: &str, args: Vec<SqlArg>) -> Result<bool> {
        let rows = self
            .store
            .query(sql, args, &[])
            .await
            .map_err(|e| self.store.error(what, &e))?;
        Ok(!rows.is_empty())
    }

    /// `JdbcUtils.databaseExists`: a table row, a property row or a view row.
    pub(super) async fn db_exists(&self, db: &str) -> Result<bool> {
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
    pub(super) async fn table_row_exists(&self, db: &str, table: &str) -> Result<bool> {
        self.exists(
            &format!("looking up table {db}.{table}"),
            sql::GET_TABLE_SQL,
            vec![self.key(), db.into(), table.into()],
        )
        .await
    }

    pub(super) async fn view_row_exists(&self, db: &str, name: &str) -> Result<bool> {
        self.exists(
            &format!("looking up view {db}.{name}"),
            sql::GET_VIEW_SQL,
            vec![self.key(), db.into(), name.into()],
        )
        .await
    }

    /// `newDatabasePath(name).toString()`: the `location` property Java stores.
    pub(super) fn database_location(&self, db: &str) -> String {
        let w = self.warehouse.trim_end_matches('/');
        let w = match w.strip_prefix("file:///") {
            Some(rest) => format!("file:/{rest}"),
            None => w.to_string(),
        };
        format!("{w}/{db}{DB_SUFFIX}")
    }

    /// Java's `checkNotBranch` / `assertMainBranch`.
    pub(super) fn check_main_branch(id: &Identifier, method: &str) -> Result<()> {
        if id.branch.is_some() {
            return Err(crate::Error::unsupported(format!(
                "{method} of branch table {id}: Java's JdbcCatalog does not support table \
                 branches, and neither does strata's"
            )));
        }
        Ok(())
    }

    /// `runWithLock(identifier, callable)`: the per-process lock always, the JDBC lock when on.
    pub(super) async fn run_with_lock<T, F>(&self, id: &Identifier, work: F) -> Result<T>
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
    pub(super) fn table_properties(schema: &TableSchema) -> BTreeMap<String, String> {
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
    pub(super) async fn sync_table_properties(&self, id: &Identifier, replace: bool) -> Result<()> {
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
    pub(super) async fn drop_table_files(&self, id: &Identifier) -> Result<()> {
        let path = self.files.table_path(id);
        self.files.file_io().delete_prefix(&path).await
    }
}
