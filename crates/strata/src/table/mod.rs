//! [`Table`]: the context of one table directory at one schema version — identifier, file
//! I/O, paths, schema, options, metadata managers and the shared cache — that every table
//! operation takes. This module sits below the operations and imports none of them: each
//! operation adds its own entry point to `Table` in its own module (Rust allows `impl Table`
//! blocks anywhere in the crate), so the dependencies only run downwards:
//!
//! ```text
//! table.new_write()  -> TableWrite  -> CommitMessages        (crate::write)
//! table.new_commit() -> TableCommit -> snapshot-N            (crate::commit)
//! table.new_scan()   -> TableScan   -> Plan { splits }       (crate::scan)
//! table.new_read()   -> TableRead   -> stream of RecordBatch (crate::read)
//! table.write_batches(...)                                   (crate::write)
//! ```
//!
//! Schema changes are this module's own: [`Table::alter`] (in `alter`) commits
//! `schema-(N+1)` and returns the table at it.

use std::sync::Arc;

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::ManifestCompression;
use strata_spec::options::CoreOptions;
use strata_spec::partition::PartitionComputer;
use strata_spec::schema::TableSchema;

mod alter;
pub mod branches;
mod identifier;
mod schema_rollback;
mod snapshot_commit;
pub mod tags;

pub use identifier::Identifier;
pub use snapshot_commit::{CommitContext, FileSnapshotCommit, RollbackInstant, SnapshotCommit};

use crate::cache::Cache;
use crate::clock::{Clock, SystemClock};
use crate::error::ErrorDetail;
use crate::io::FileIO;
use crate::meta::{ManifestStore, SchemaManager, SnapshotManager, TablePaths};
use crate::{Error, Result};

/// One Paimon table at a given schema version.
#[derive(Clone, Debug)]
pub struct Table {
    inner: Arc<TableInner>,
    /// The shared metadata cache scans of this table use (see [`crate::cache`]).
    cache: Option<Arc<dyn Cache>>,
    /// Who publishes this table's snapshots: its catalog's decision ([`SnapshotCommit`]).
    snapshot_commit: Arc<dyn SnapshotCommit>,
    /// Where commits, expiry, cleanup and writers read the time.
    clock: Arc<dyn Clock>,
}

#[derive(Debug)]
struct TableInner {
    identifier: Identifier,
    io: FileIO,
    paths: TablePaths,
    schema_manager: SchemaManager,
    snapshot_manager: SnapshotManager,
    manifest_store: ManifestStore,
    schema: Arc<TableSchema>,
    options: CoreOptions,
    partition_computer: PartitionComputer,
    /// Whether every schema up to this one has this schema's bucket count (computed once).
    bucket_history: tokio::sync::OnceCell<bool>,
}

impl Table {
    pub(crate) fn new(
        identifier: Identifier,
        io: FileIO,
        paths: TablePaths,
        schema_manager: SchemaManager,
        schema: Arc<TableSchema>,
    ) -> Result<Self> {
        let options = schema.options();
        let compression = ManifestCompression::from_options(
            options.manifest_compression(),
            options.file_compression_zstd_level()?,
        )
        .map_err(|e| ErrorDetail::InvalidOption {
            key: "manifest.compression".into(),
            message: e.to_string(),
        })?;
        let partition_computer = PartitionComputer::new(
            schema.partition_type(),
            options.partition_default_name(),
            options.partition_legacy_name()?,
        );
        // Data files may sit under `data-file.path-directory` (Java reads them there).
        let paths = paths.with_data_directory(options.get("data-file.path-directory"));
        let snapshot_manager = SnapshotManager::new(io.clone(), paths.clone());
        Ok(Table {
            snapshot_commit: Arc::new(FileSnapshotCommit::new(snapshot_manager.clone())),
            clock: Arc::new(SystemClock),
            inner: Arc::new(TableInner {
                snapshot_manager,
                manifest_store: ManifestStore::new(io.clone(), paths.clone(), compression),
                identifier,
                io,
                paths,
                schema_manager,
                schema,
                options,
                partition_computer,
                bucket_history: tokio::sync::OnceCell::new(),
            }),
            cache: None,
        })
    }

    /// This table at another of its schemas: the same identity, storage, cache and
    /// [`SnapshotCommit`] (time travel to an older schema, dynamic options, an altered schema),
    /// on the same branch (whose `branch` option the schema gets).
    pub(crate) fn with_schema(&self, schema: Arc<TableSchema>) -> Result<Table> {
        let schema = with_branch_option(&schema, self.paths().branch());
        let mut table = Table::new(
            self.identifier().clone(),
            self.file_io().clone(),
            self.paths().clone(),
            self.schema_manager().clone(),
            schema,
        )?;
        table.cache = self.cache.clone();
        table.snapshot_commit = self.snapshot_commit.clone();
        table.clock = self.clock.clone();
        Ok(table)
    }

    /// This table publishing its snapshots through `commit` (its catalog's
    /// [`SnapshotCommit`]; a table starts with [`FileSnapshotCommit`]).
    pub fn with_snapshot_commit(mut self, commit: Arc<dyn SnapshotCommit>) -> Table {
        self.snapshot_commit = commit;
        self
    }

    /// Who publishes this table's snapshots.
    pub fn snapshot_commit(&self) -> &Arc<dyn SnapshotCommit> {
        &self.snapshot_commit
    }

    /// This table reading the time from `clock` (a table starts with [`SystemClock`]).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Table {
        self.clock = clock;
        self
    }

    /// Where this table's commits, expiry, cleanup and writers read the time.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    /// This table with `cache` as the shared metadata cache of its scans. Share one cache
    /// between all tables of a process (e.g. with [`crate::catalog::FileSystemCatalog::with_cache`]).
    pub fn with_cache(mut self, cache: Arc<dyn Cache>) -> Table {
        self.cache = Some(cache);
        self
    }

    /// This table with `options` overriding its schema's options for this handle only (Java's
    /// `Table.copy(dynamicOptions)`): nothing is written. Keys and values are validated like
    /// table options.
    pub fn with_dynamic_options(
        &self,
        options: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Table> {
        let options: std::collections::BTreeMap<String, String> = options.into_iter().collect();
        if let Some(b) = options.get("branch") {
            let wanted = if b.trim().is_empty() {
                "main"
            } else {
                b.as_str()
            };
            if wanted != self.branch() {
                return Err(ErrorDetail::Unsupported(format!(
                    "dynamic option `branch` = `{b}` for {}: a handle stays on its branch \
                     ({}); open `{}$branch_{b}` instead",
                    self.identifier(),
                    self.branch(),
                    self.identifier().main()
                ))
                .into());
            }
        }
        refuse_unsupported_options(
            &options,
            &format!("dynamic options for {}", self.identifier()),
        )?;
        let mut schema = (**self.schema()).clone();
        schema.options.extend(options);
        validate_options(&schema)?;
        self.with_schema(Arc::new(schema))
    }

    /// The shared metadata cache, if one is configured.
    pub fn cache(&self) -> Option<&Arc<dyn Cache>> {
        self.cache.as_ref()
    }

    /// The table's `database.table` name.
    pub fn identifier(&self) -> &Identifier {
        &self.inner.identifier
    }
    /// The file I/O of the store the table lives in.
    pub fn file_io(&self) -> &FileIO {
        &self.inner.io
    }
    /// The table directory's layout: where its schema, snapshot, manifest and data files go.
    pub fn paths(&self) -> &TablePaths {
        &self.inner.paths
    }
    /// Table location as shown to users.
    pub fn location(&self) -> String {
        self.inner.io.display(self.inner.paths.root())
    }
    /// The schema this handle reads and writes with (the latest when loaded).
    pub fn schema(&self) -> &Arc<TableSchema> {
        &self.inner.schema
    }
    /// The table's options (Java's `CoreOptions`) from this handle's schema.
    pub fn options(&self) -> &CoreOptions {
        &self.inner.options
    }
    /// The schema versions (`schema/schema-N`) of the table (Java `SchemaManager`).
    pub fn schema_manager(&self) -> &SchemaManager {
        &self.inner.schema_manager
    }
    /// The snapshots (`snapshot/snapshot-N` and the hints) of the table (Java `SnapshotManager`).
    pub fn snapshot_manager(&self) -> &SnapshotManager {
        &self.inner.snapshot_manager
    }
    /// The long-lived changelogs in `changelog/` (Java `FileStoreTable#changelogManager`).
    pub fn changelog_manager(&self) -> crate::meta::ChangelogManager {
        crate::meta::ChangelogManager::new(self.inner.io.clone(), self.inner.paths.clone())
    }
    /// Reads and writes the table's manifest lists and manifest files.
    pub fn manifest_store(&self) -> &ManifestStore {
        &self.inner.manifest_store
    }
    /// Turns the table's partition values into partition text and directory names (`k=v/…`).
    pub fn partition_computer(&self) -> &PartitionComputer {
        &self.inner.partition_computer
    }
    /// Whether the table has a primary key (a merge-tree table, Java's `PrimaryKeyFileStoreTable`).
    pub fn is_primary_key_table(&self) -> bool {
        !self.inner.schema.primary_keys.is_empty()
    }

    /// Whether every schema version up to this handle's has its `bucket` option, so that no
    /// ALTER TABLE changed the bucket count (read once per handle; a missing schema file counts
    /// as a change). Files of a partition rescaled by an overwrite with another count are not
    /// ruled out by this: readers that hash keys to buckets check each entry's count.
    pub(crate) async fn bucket_count_never_altered(&self) -> Result<bool> {
        self.inner
            .bucket_history
            .get_or_try_init(|| async {
                let current = self.schema().options().get("bucket").map(str::to_string);
                for id in 0..self.schema().id {
                    match self.schema_manager().schema(id).await {
                        Ok(s) => {
                            if s.options().get("bucket").map(str::to_string) != current {
                                return Ok(false);
                            }
                        }
                        Err(e) if e.kind() == crate::ErrorKind::NotFound => return Ok(false),
                        Err(e) => return Err(e),
                    }
                }
                Ok(true)
            })
            .await
            .copied()
    }

    /// Relative partition directory of a partition row, e.g. `dt=2024-01-01/`.
    pub fn partition_path(&self, partition: &BinaryRow) -> Result<String> {
        let values = partition.to_datums(&self.schema().partition_type().types())?;
        Ok(self.inner.partition_computer.partition_path(&values))
    }

    /// `e` with the partition (as `k=v,...` text; left out for an unpartitioned table) and the
    /// bucket it happened in, as its context.
    pub(crate) fn error_in_bucket(&self, e: Error, partition: &BinaryRow, bucket: i32) -> Error {
        let e = e.with_bucket(bucket);
        match self.partition_text(partition) {
            Ok(text) if !text.is_empty() => e.with_partition(text),
            _ => e,
        }
    }

    /// `k=v,k2=v2` text of a partition row, for messages.
    pub fn partition_text(&self, partition: &BinaryRow) -> Result<String> {
        let values = partition.to_datums(&self.schema().partition_type().types())?;
        Ok(self
            .inner
            .partition_computer
            .to_map(&values)
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(","))
    }
}

/// Refuses the options among `options` that strata does not implement (Java Paimon options
/// that change what is written, merged, committed or read: the audit in
/// `strata_spec::options::support`), naming each with its value and why. `what` says what
/// was being done ("creating table db.t", "writing to db.t", ...).
pub fn refuse_unsupported_options(
    options: &std::collections::BTreeMap<String, String>,
    what: &str,
) -> Result<()> {
    let refused = strata_spec::options::support::unsupported_options(options);
    if refused.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = refused
        .iter()
        .map(|(key, why)| {
            format!(
                "`{key}` = `{}` ({why})",
                options.get(key).map(String::as_str).unwrap_or_default()
            )
        })
        .collect();
    let err = Error::from(ErrorDetail::Unsupported(format!(
        "{what}: strata does not implement {} {}, so it refuses rather than ignores {}",
        if list.len() == 1 { "option" } else { "options" },
        list.join("; "),
        if list.len() == 1 { "it" } else { "them" }
    )));
    Err(match refused.as_slice() {
        [(key, _)] => err.with_option(key),
        _ => err,
    })
}

/// Checks a new table's options: unknown keys and bad values are rejected with the key named,
/// and features strata does not implement yet are refused rather than silently ignored.
pub fn validate_options(schema: &TableSchema) -> Result<()> {
    let is_pk = !schema.primary_keys.is_empty();
    strata_spec::options::validate(&schema.options, is_pk).map_err(|e| match e {
        strata_spec::SpecError::Invalid { context, message } => {
            Error::from(ErrorDetail::InvalidOption {
                key: context,
                message,
            })
        }
        other => ErrorDetail::Spec(other).into(),
    })?;
    let opts = schema.options();
    let format = opts.file_format();
    if format != "parquet" {
        return Err(ErrorDetail::InvalidOption {
            key: "file.format".into(),
            message: format!("strata writes only parquet data files, got {format}"),
        }
        .into());
    }
    Ok(())
}

impl Table {
    /// Types of the trimmed primary key of schema `schema_id` (empty for append tables): the
    /// row type of `_MIN_KEY`/`_MAX_KEY` of files written with that schema.
    pub async fn key_types_for(&self, schema_id: i64) -> Result<Vec<strata_spec::DataType>> {
        let s = self.schema_manager().schema(schema_id).await?;
        let row = s.row_type();
        Ok(s.trimmed_primary_keys()
            .iter()
            .filter_map(|k| row.field(k))
            .map(|f| f.data_type.clone())
            .collect())
    }
}

impl Table {
    /// This table as of snapshot `id`: the same table with the schema that snapshot was
    /// committed with, so time travel shows the columns as they were then.
    pub async fn at_snapshot(&self, id: i64) -> Result<Table> {
        let snapshot = self.snapshot_manager().snapshot(id).await?;
        if snapshot.schema_id == self.schema().id {
            return Ok(self.clone());
        }
        let schema = self.schema_manager().schema(snapshot.schema_id).await?;
        self.with_schema(schema)
    }
}

/// `schema` with the `branch` option set to `branch` in memory (Java's
/// `AbstractCatalog.tableSchemaInFileSystem` / `switchToBranch`); never written.
pub(crate) fn with_branch_option(schema: &Arc<TableSchema>, branch: &str) -> Arc<TableSchema> {
    if branch == crate::meta::paths::MAIN_BRANCH
        || schema.options.get("branch").is_some_and(|b| b == branch)
    {
        return schema.clone();
    }
    let mut s = (**schema).clone();
    s.options.insert("branch".into(), branch.into());
    Arc::new(s)
}
