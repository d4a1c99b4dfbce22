//! The filesystem catalog: a warehouse directory holding `<db>.db/` database
//! directories, each holding table directories. No metadata beyond the tables' own files: a
//! table exists when its `schema/` directory holds a `schema-N` file, exactly as Java's
//! `FileSystemCatalog` decides, so warehouses are shared with Java, pypaimon and paimon-rust.
//! Commits are decided by the warehouse itself: a create-if-absent of the snapshot file
//! ([`crate::table::FileSnapshotCommit`]).
//!
//! `db.t$branch_b` ([`Identifier::branch`]) is table `t` on branch `b`: its schema, snapshots
//! and tags are the branch's (`branch/branch-b/`), as Java's `AbstractCatalog` loads it.
//! Creating, dropping and renaming a branch identifier is refused (Java's `checkNotBranch`).

use object_store::path::Path;
use strata_spec::schema::{Schema, SchemaChange, TableSchema};
use strata_spec::snapshot::Snapshot;

use std::sync::Arc;

use crate::cache::Cache;
use crate::catalog::contract::Catalog;
use crate::clock::{Clock, SystemClock};
use crate::error::ErrorDetail;
use crate::io::{FileIO, StoreKind};
use crate::meta::SnapshotManager;
use crate::meta::{SchemaManager, TablePaths};
use crate::table::Identifier;
use crate::table::Table;
use crate::Result;

/// Suffix of database directories (`Catalog.DB_SUFFIX`).
pub const DB_SUFFIX: &str = ".db";

/// The empty object that makes a database directory exist on an object store (see
/// `FileSystemCatalog::mkdirs`).
pub(crate) const DATABASE_MARKER: &str = ".strata-database";

/// A Paimon filesystem catalog rooted at a warehouse location.
#[derive(Clone, Debug)]
pub struct FileSystemCatalog {
    io: FileIO,
    warehouse: Path,
    cache: Option<Arc<dyn Cache>>,
    /// Where this catalog and its tables read the time.
    clock: Arc<dyn Clock>,
    /// Java's `table-default.*` catalog options, without the prefix.
    table_defaults: std::collections::BTreeMap<String, String>,
}

impl FileSystemCatalog {
    /// Opens the warehouse at `location` (local directory, `s3://bucket/path` configured from
    /// the `AWS_*` environment, or `memory://name`).
    pub fn open(location: &str) -> Result<Self> {
        let (io, warehouse) = FileIO::for_location(location)?;
        Ok(Self::new(io, warehouse))
    }

    /// Opens the warehouse at `location` with catalog options: for `s3://` warehouses Paimon's
    /// `s3.endpoint`, `s3.access-key`, `s3.secret-key`, `s3.region`, `s3.path-style-access`
    /// (over the environment; see [`crate::io::S3_OPTION_KEYS`]).
    pub fn open_with_options(
        location: &str,
        options: &std::collections::HashMap<String, String>,
    ) -> Result<Self> {
        let (io, warehouse) = FileIO::for_location_with_options(location, options)?;
        Ok(Self::new(io, warehouse))
    }

    /// A catalog over the warehouse directory `warehouse` of the store `io` (no I/O yet; the
    /// directory need not exist), with no shared cache, the system clock and no table defaults.
    pub fn new(io: FileIO, warehouse: Path) -> Self {
        FileSystemCatalog {
            io,
            warehouse,
            cache: None,
            clock: Arc::new(SystemClock),
            table_defaults: Default::default(),
        }
    }

    /// Table options every table created through this catalog gets unless its schema sets
    /// them: Java's `table-default.<key>` catalog options (given here without the prefix),
    /// applied at `createTable` only (`AbstractCatalog.copyTableDefaultOptions`). Validated
    /// with the new table's options.
    pub fn with_table_defaults(
        mut self,
        defaults: impl IntoIterator<Item = (String, String)>,
    ) -> Self {
        self.table_defaults = defaults.into_iter().collect();
        self
    }

    /// The `table-default.*` options (without the prefix).
    pub fn table_defaults(&self) -> &std::collections::BTreeMap<String, String> {
        &self.table_defaults
    }

    /// Gives every table loaded from this catalog `cache` as its shared metadata cache
    /// ([`crate::cache`]); clones of the catalog share it.
    pub fn with_cache(mut self, cache: Arc<dyn Cache>) -> Self {
        self.cache = Some(cache);
        self
    }

    /// Gives this catalog and every table loaded from it `clock` as the time commits, expiry,
    /// cleanup and writers read ([`crate::clock`]; default [`SystemClock`]).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The file I/O of the warehouse's store, which every table loaded from this catalog uses.
    pub fn file_io(&self) -> &FileIO {
        &self.io
    }

    /// Human-readable warehouse location.
    pub fn location(&self) -> String {
        self.io.display(&self.warehouse)
    }

    fn database_path(&self, db: &str) -> Path {
        self.warehouse.clone().join(format!("{db}{DB_SUFFIX}"))
    }

    /// Directory of a table (of the main branch's, for a branch identifier).
    pub fn table_path(&self, id: &Identifier) -> Path {
        self.database_path(&id.database).join(id.table.as_str())
    }

    /// Database names, sorted. On a local filesystem empty database directories count too.
    pub async fn list_databases(&self) -> Result<Vec<String>> {
        let mut names: Vec<String> = self
            .io
            .list_dir_names(&self.warehouse)
            .await?
            .into_iter()
            .filter_map(|n| n.strip_suffix(DB_SUFFIX).map(str::to_string))
            .collect();
        names.sort();
        Ok(names)
    }

    /// Whether `db` is a database of the warehouse (a `<db>.db` directory; see
    /// [`Self::list_databases`]).
    pub async fn database_exists(&self, db: &str) -> Result<bool> {
        Ok(self.list_databases().await?.iter().any(|d| d == db))
    }

    /// Creates a database directory.
    pub async fn create_database(&self, db: &str, ignore_if_exists: bool) -> Result<()> {
        Identifier::validate_name("database", db)?;
        if self.database_exists(db).await? {
            return if ignore_if_exists {
                Ok(())
            } else {
                Err(ErrorDetail::DatabaseAlreadyExists(db.to_string()).into())
            };
        }
        self.mkdirs(&self.database_path(db)).await
    }

    /// A database directory. On a local filesystem a directory; an object store has none, so
    /// an empty object [`DATABASE_MARKER`] inside it makes the prefix list as a directory —
    /// the role of the `<db>.db/` marker object Hadoop's S3A writes for Java's
    /// `FileSystemCatalog.createDatabaseImpl` (`fileIO.mkdirs`). Without it a database created
    /// on an object store did not exist until its first table (and a REST server answered its
    /// `createTable` with 404 DATABASE). Java, pypaimon and strata list only directories as
    /// tables, so the marker is never a table; `drop_database` deletes it with the prefix.
    async fn mkdirs(&self, path: &Path) -> Result<()> {
        if self.io.kind() == StoreKind::Local {
            return self.io.create_dir_all(path).await;
        }
        self.io
            .put(&path.clone().join(DATABASE_MARKER), Vec::<u8>::new())
            .await
    }

    /// Drops a database; with `cascade` its tables too, otherwise it must be empty.
    pub async fn drop_database(
        &self,
        db: &str,
        ignore_if_not_exists: bool,
        cascade: bool,
    ) -> Result<()> {
        if !self.database_exists(db).await? {
            return if ignore_if_not_exists {
                Ok(())
            } else {
                Err(ErrorDetail::DatabaseNotFound(db.to_string()).into())
            };
        }
        if !cascade && !self.list_tables(db).await?.is_empty() {
            return Err(ErrorDetail::DatabaseNotEmpty(db.to_string()).into());
        }
        self.io.delete_prefix(&self.database_path(db)).await
    }

    /// Table names of a database, sorted.
    pub async fn list_tables(&self, db: &str) -> Result<Vec<String>> {
        if !self.database_exists(db).await? {
            return Err(ErrorDetail::DatabaseNotFound(db.to_string()).into());
        }
        let (dirs, _) = self.io.list_dir(&self.database_path(db)).await?;
        let mut names = Vec::new();
        for d in dirs {
            let Some(name) = d.filename().map(str::to_string) else {
                continue;
            };
            let sm = SchemaManager::new(self.io.clone(), TablePaths::new(d.clone()));
            if !sm.list_ids().await?.is_empty() {
                names.push(name);
            }
        }
        names.sort();
        Ok(names)
    }

    /// The paths of `id`, on its branch.
    fn table_paths(&self, id: &Identifier) -> TablePaths {
        TablePaths::new(self.table_path(id)).with_branch(id.branch.as_deref())
    }

    /// Whether `id` is a table: its directory (its branch's, for `t$branch_b`) holds at least
    /// one `schema/schema-N` file.
    pub async fn table_exists(&self, id: &Identifier) -> Result<bool> {
        let sm = SchemaManager::new(self.io.clone(), self.table_paths(id));
        Ok(!sm.list_ids().await?.is_empty())
    }

    /// Java's `checkNotBranch`: `method` is refused for a branch identifier.
    fn check_not_branch(id: &Identifier, method: &str) -> Result<()> {
        if id.branch.is_some() {
            return Err(ErrorDetail::InvalidArgument(format!(
                "Cannot '{method}' for branch table '{id}', please modify the table with the \
                 default branch."
            ))
            .into());
        }
        Ok(())
    }

    /// Creates a table (and its database if missing) by writing `schema/schema-0`.
    /// Returns `false` when the table existed and `ignore_if_exists` was set.
    pub async fn create_table(
        &self,
        id: &Identifier,
        schema: &Schema,
        ignore_if_exists: bool,
    ) -> Result<bool> {
        Self::check_not_branch(id, "createTable")?;
        if let Some(b) = schema.options.get("branch") {
            if !b.trim().is_empty() && b != "main" {
                return Err(ErrorDetail::InvalidArgument(format!(
                    "creating table {id} with option `branch` = `{b}`: a table is created on \
                     its main branch; create branches with create_branch"
                ))
                .into());
            }
        }
        if self.table_exists(id).await? {
            return if ignore_if_exists {
                Ok(false)
            } else {
                Err(ErrorDetail::TableAlreadyExists(id.to_string()).into())
            };
        }
        let mut schema = schema.clone();
        for (k, v) in &self.table_defaults {
            schema.options.entry(k.clone()).or_insert_with(|| v.clone());
        }
        let table_schema = TableSchema::create(0, &schema, self.clock.now_millis())?;
        crate::table::validate_options(&table_schema)?;
        crate::table::refuse_unsupported_options(
            &table_schema.options,
            &format!(
                "creating table {id} (a table strata cannot write correctly; create it with Java \
                 Paimon, Spark or Flink if they are its writers)"
            ),
        )?;
        self.create_database(&id.database, true).await?;
        let paths = TablePaths::new(self.table_path(id));
        let sm = SchemaManager::new(self.io.clone(), paths);
        if !sm.create(&table_schema).await? {
            // Lost a race with a concurrent creator.
            return if ignore_if_exists {
                Ok(false)
            } else {
                Err(ErrorDetail::TableAlreadyExists(id.to_string()).into())
            };
        }
        Ok(true)
    }

    /// Drops a table: deletes its whole directory (data, manifests, snapshots, schemas).
    pub async fn drop_table(&self, id: &Identifier, ignore_if_not_exists: bool) -> Result<()> {
        Self::check_not_branch(id, "dropTable")?;
        if !self.table_exists(id).await? {
            return if ignore_if_not_exists {
                Ok(())
            } else {
                Err(ErrorDetail::TableNotFound(id.to_string()).into())
            };
        }
        self.io.delete_prefix(&self.table_path(id)).await
    }

    /// `ALTER TABLE`: applies `changes` (in order) to the table's latest schema and commits
    /// the result as schema N+1, exactly as Java's `Catalog.alterTable` /
    /// `SchemaManager.commitChanges` do (see [`Table::alter`] for what strata refuses on top).
    /// Returns the new schema, or `None` when the table does not exist and
    /// `ignore_if_not_exists` is set. Tables loaded afterwards ([`Self::get_table`]) use it.
    pub async fn alter_table(
        &self,
        id: &Identifier,
        changes: Vec<SchemaChange>,
        ignore_if_not_exists: bool,
    ) -> Result<Option<Arc<TableSchema>>> {
        let table = match self.get_table(id).await {
            Ok(t) => t,
            Err(e) if ignore_if_not_exists && e.is_table_not_found() => return Ok(None),
            Err(e) => return Err(e),
        };
        let altered = table.alter(&changes).await?;
        Ok(Some(altered.schema().clone()))
    }

    /// Loads a table at its latest schema; `t$branch_b` on branch `b`, with the `branch`
    /// option set to `b` (never written), as Java's `tableSchemaInFileSystem` does. A main
    /// schema that carries a `branch` option (set by ALTER TABLE) opens that branch, as
    /// Java's `CoreOptions.branch` makes it.
    pub async fn get_table(&self, id: &Identifier) -> Result<Table> {
        let mut id = id.clone();
        let mut paths = self.table_paths(&id);
        let mut sm = SchemaManager::new(self.io.clone(), paths.clone());
        let Some(mut schema) = sm.latest().await? else {
            return Err(ErrorDetail::TableNotFound(id.to_string()).into());
        };
        if id.branch.is_none() {
            if let Some(b) = schema.options.get("branch").cloned() {
                id = id.with_branch(Some(&b))?;
                if id.branch.is_some() {
                    paths = self.table_paths(&id);
                    sm = SchemaManager::new(self.io.clone(), paths.clone());
                    schema = sm.latest().await?.ok_or_else(|| {
                        crate::Error::from(ErrorDetail::TableNotFound(id.to_string()))
                    })?;
                }
            }
        }
        let schema = crate::table::with_branch_option(&schema, paths.branch());
        let table = Table::new(id.clone(), self.io.clone(), paths, sm, schema)?
            .with_clock(self.clock.clone());
        Ok(match &self.cache {
            Some(c) => table.with_cache(c.clone()),
            None => table,
        })
    }
}

/// The trait over the inherent methods above (which callers holding the concrete type use).
#[async_trait::async_trait]
impl Catalog for FileSystemCatalog {
    fn location(&self) -> String {
        FileSystemCatalog::location(self)
    }
    async fn list_databases(&self) -> Result<Vec<String>> {
        FileSystemCatalog::list_databases(self).await
    }
    async fn database_exists(&self, db: &str) -> Result<bool> {
        FileSystemCatalog::database_exists(self, db).await
    }
    async fn create_database(&self, db: &str, ignore_if_exists: bool) -> Result<()> {
        FileSystemCatalog::create_database(self, db, ignore_if_exists).await
    }
    async fn drop_database(
        &self,
        db: &str,
        ignore_if_not_exists: bool,
        cascade: bool,
    ) -> Result<()> {
        FileSystemCatalog::drop_database(self, db, ignore_if_not_exists, cascade).await
    }
    async fn list_tables(&self, db: &str) -> Result<Vec<String>> {
        FileSystemCatalog::list_tables(self, db).await
    }
    async fn table_exists(&self, id: &Identifier) -> Result<bool> {
        FileSystemCatalog::table_exists(self, id).await
    }
    async fn create_table(
        &self,
        id: &Identifier,
        schema: &Schema,
        ignore_if_exists: bool,
    ) -> Result<bool> {
        FileSystemCatalog::create_table(self, id, schema, ignore_if_exists).await
    }
    async fn drop_table(&self, id: &Identifier, ignore_if_not_exists: bool) -> Result<()> {
        FileSystemCatalog::drop_table(self, id, ignore_if_not_exists).await
    }
    async fn alter_table(
        &self,
        id: &Identifier,
        changes: Vec<SchemaChange>,
        ignore_if_not_exists: bool,
    ) -> Result<Option<Arc<TableSchema>>> {
        FileSystemCatalog::alter_table(self, id, changes, ignore_if_not_exists).await
    }
    async fn get_table(&self, id: &Identifier) -> Result<Table> {
        FileSystemCatalog::get_table(self, id).await
    }
    /// The warehouse's create-if-absent of `snapshot/snapshot-N` (what every table of this
    /// catalog does itself through [`crate::table::FileSnapshotCommit`]).
    async fn commit_snapshot(
        &self,
        id: &Identifier,
        snapshot: &Snapshot,
        _ctx: &crate::table::CommitContext,
    ) -> Result<bool> {
        let paths = self.table_paths(id);
        SnapshotManager::new(self.io.clone(), paths)
            .try_publish(snapshot)
            .await
    }
}
