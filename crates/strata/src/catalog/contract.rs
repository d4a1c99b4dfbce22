//! The catalog contract: the [`Catalog`] trait and [`CatalogSnapshotCommit`], below the
//! catalogs that implement them (`filesystem`), so an implementation imports this file and
//! `mod.rs` only re-exports. Views and functions (`objects`) are methods with defaults that
//! refuse by name: only Paimon's REST catalog keeps them.

use std::fmt::Debug;
use std::sync::Arc;

use async_trait::async_trait;
use strata_spec::schema::{Schema, SchemaChange, TableSchema};
use strata_spec::snapshot::Snapshot;

use super::objects::{no_functions, no_views, Function, FunctionChange, View, ViewChange};
use crate::table::{CommitContext, Identifier, RollbackInstant, SnapshotCommit, Table};
use crate::Result;

/// A catalog of databases and tables (Java's `Catalog`). Identifiers are `database.table`.
#[async_trait]
pub trait Catalog: Send + Sync + Debug {
    /// Where the catalog lives, for messages (a warehouse path, a server URI).
    fn location(&self) -> String;

    /// Database names, sorted.
    async fn list_databases(&self) -> Result<Vec<String>>;

    /// Whether database `db` exists.
    async fn database_exists(&self, db: &str) -> Result<bool>;

    /// Creates database `db`; an existing one is an error unless `ignore_if_exists`.
    async fn create_database(&self, db: &str, ignore_if_exists: bool) -> Result<()>;

    /// Drops database `db`; with `cascade` its tables too, otherwise it must be empty. A missing
    /// one is an error unless `ignore_if_not_exists`.
    async fn drop_database(
        &self,
        db: &str,
        ignore_if_not_exists: bool,
        cascade: bool,
    ) -> Result<()>;

    /// Table names of database `db`, sorted.
    async fn list_tables(&self, db: &str) -> Result<Vec<String>>;

    /// Whether table `id` exists.
    async fn table_exists(&self, id: &Identifier) -> Result<bool>;

    /// Creates table `id` with `schema` (and its database if missing). `Ok(false)` when it
    /// existed and `ignore_if_exists` was set.
    async fn create_table(
        &self,
        id: &Identifier,
        schema: &Schema,
        ignore_if_exists: bool,
    ) -> Result<bool>;

    /// Drops table `id` with all its files.
    async fn drop_table(&self, id: &Identifier, ignore_if_not_exists: bool) -> Result<()>;

    /// `ALTER TABLE`: applies `changes` in order and commits the next schema. `Ok(None)` when
    /// the table does not exist and `ignore_if_not_exists` was set.
    async fn alter_table(
        &self,
        id: &Identifier,
        changes: Vec<SchemaChange>,
        ignore_if_not_exists: bool,
    ) -> Result<Option<Arc<TableSchema>>>;

    /// Loads table `id` at its latest schema, publishing its snapshots through this catalog's
    /// decision ([`Table::snapshot_commit`]).
    async fn get_table(&self, id: &Identifier) -> Result<Table>;

    /// Decides a commit: makes `snapshot` table `id`'s snapshot `snapshot.id` (Java's
    /// `Catalog.commitSnapshot`). The same contract as [`SnapshotCommit::commit`]: `Ok(false)`
    /// when the id is taken by another commit or the catalog's latest snapshot is not
    /// `ctx.base_snapshot_uuid`.
    async fn commit_snapshot(
        &self,
        id: &Identifier,
        snapshot: &Snapshot,
        ctx: &CommitContext,
    ) -> Result<bool>;

    /// Rolls table `id` back to `instant` on the catalog's side (Java's `Catalog.rollbackTo`).
    /// The same contract as [`SnapshotCommit::rollback_to`]: `Ok(false)` (the default) when the
    /// catalog does not manage versions and the table rolls back through its files.
    async fn rollback_to(
        &self,
        id: &Identifier,
        instant: &RollbackInstant,
        from_snapshot: Option<i64>,
    ) -> Result<bool> {
        let _ = (id, instant, from_snapshot);
        Ok(false)
    }

    // ---- views (Java's `Catalog.listViews`, `getView`, …; REST catalogs keep them) ------

    /// View names of database `db`, sorted.
    async fn list_views(&self, db: &str) -> Result<Vec<String>> {
        let _ = db;
        Err(no_views(&self.location(), "listViews"))
    }

    /// View `id` (`ErrorKind::NotFound` when there is none).
    async fn get_view(&self, id: &Identifier) -> Result<View> {
        let _ = id;
        Err(no_views(&self.location(), "getView"))
    }

    /// Creates `view` (its database must exist); an existing view is an error unless
    /// `ignore_if_exists`.
    async fn create_view(&self, view: &View, ignore_if_exists: bool) -> Result<()> {
        let _ = (view, ignore_if_exists);
        Err(no_views(&self.location(), "createView"))
    }

    /// Applies `changes` to view `id` in order (options, comment, dialects: Java's
    /// `alterView`); a missing view is an error unless `ignore_if_not_exists`.
    async fn alter_view(
        &self,
        id: &Identifier,
        changes: Vec<ViewChange>,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        let _ = (id, changes, ignore_if_not_exists);
        Err(no_views(&self.location(), "alterView"))
    }

    /// Drops view `id`; a missing view is an error unless `ignore_if_not_exists`.
    async fn drop_view(&self, id: &Identifier, ignore_if_not_exists: bool) -> Result<()> {
        let _ = (id, ignore_if_not_exists);
        Err(no_views(&self.location(), "dropView"))
    }

    /// Renames view `from` to `to`; a missing `from` is an error unless `ignore_if_not_exists`,
    /// an existing `to` always.
    async fn rename_view(
        &self,
        from: &Identifier,
        to: &Identifier,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        let _ = (from, to, ignore_if_not_exists);
        Err(no_views(&self.location(), "renameView"))
    }

    // ---- functions (Java's `Catalog.listFunctions`, `getFunction`, …) ------------------

    /// Function names of database `db`, sorted.
    async fn list_functions(&self, db: &str) -> Result<Vec<String>> {
        let _ = db;
        Err(no_functions(&self.location(), "listFunctions"))
    }

    /// Function `id` (`ErrorKind::NotFound` when there is none).
    async fn get_function(&self, id: &Identifier) -> Result<Function> {
        let _ = id;
        Err(no_functions(&self.location(), "getFunction"))
    }

    /// Creates `function` (its database must exist); an existing one is an error unless
    /// `ignore_if_exists`.
    async fn create_function(&self, function: &Function, ignore_if_exists: bool) -> Result<()> {
        let _ = (function, ignore_if_exists);
        Err(no_functions(&self.location(), "createFunction"))
    }

    /// Applies `changes` to function `id` in order (Java's `alterFunction`); a missing
    /// function is an error unless `ignore_if_not_exists`.
    async fn alter_function(
        &self,
        id: &Identifier,
        changes: Vec<FunctionChange>,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        let _ = (id, changes, ignore_if_not_exists);
        Err(no_functions(&self.location(), "alterFunction"))
    }

    /// Drops function `id`; a missing one is an error unless `ignore_if_not_exists`.
    async fn drop_function(&self, id: &Identifier, ignore_if_not_exists: bool) -> Result<()> {
        let _ = (id, ignore_if_not_exists);
        Err(no_functions(&self.location(), "dropFunction"))
    }
}

/// A table's [`SnapshotCommit`] that asks its catalog ([`Catalog::commit_snapshot`]): Java's
/// `CatalogSnapshotCommit`, for catalogs that decide commits on their side.
#[derive(Clone, Debug)]
pub struct CatalogSnapshotCommit {
    catalog: Arc<dyn Catalog>,
    identifier: Identifier,
}

impl CatalogSnapshotCommit {
    /// Commits of table `identifier`, decided by `catalog`.
    pub fn new(catalog: Arc<dyn Catalog>, identifier: Identifier) -> Self {
        CatalogSnapshotCommit {
            catalog,
            identifier,
        }
    }
}

#[async_trait]
impl SnapshotCommit for CatalogSnapshotCommit {
    async fn commit(&self, snapshot: &Snapshot, ctx: &CommitContext) -> Result<bool> {
        self.catalog
            .commit_snapshot(&self.identifier, snapshot, ctx)
            .await
    }

    async fn rollback_to(
        &self,
        instant: &RollbackInstant,
        from_snapshot: Option<i64>,
    ) -> Result<bool> {
        self.catalog
            .rollback_to(&self.identifier, instant, from_snapshot)
            .await
    }
}
