//! The `Catalog` operations of [`JdbcCatalog`], method by method as Java's `JdbcCatalog`
//! (and `AbstractCatalog`) define them, on the rows and locks of `super::catalog`.

use std::collections::BTreeSet;
use std::sync::Arc;

use async_trait::async_trait;
use strata_spec::schema::{Schema, SchemaChange, TableSchema};
use strata_spec::snapshot::Snapshot;

use super::catalog::{JdbcCatalog, DATABASE_EXISTS_PROPERTY, DB_LOCATION_PROP};
use super::lock::JdbcSnapshotCommit;
use super::sql;
use super::store::SqlFailure;
use crate::catalog::contract::Catalog;
use crate::catalog::objects::{View, ViewChange};
use crate::error::ErrorDetail;
use crate::meta::{SnapshotManager, TablePaths};
use crate::table::{CommitContext, Identifier, Table};
use crate::Result;

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
        let mut out = BTreeSet::new();
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
                    table.file_io().clone(),
                    table.paths().clone(),
                );
                table.with_snapshot_commit(Arc::new(commit))
            }
        })
    }

    /// `listViews` (`super::views`).
    async fn list_views(&self, db: &str) -> Result<Vec<String>> {
        self.jdbc_list_views(db).await
    }

    /// `getView`.
    async fn get_view(&self, id: &Identifier) -> Result<View> {
        self.jdbc_get_view(id).await
    }

    /// `createView`.
    async fn create_view(&self, view: &View, ignore_if_exists: bool) -> Result<()> {
        self.jdbc_create_view(view, ignore_if_exists).await
    }

    /// `alterView`.
    async fn alter_view(
        &self,
        id: &Identifier,
        changes: Vec<ViewChange>,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        self.jdbc_alter_view(id, changes, ignore_if_not_exists)
            .await
    }

    /// `dropView`.
    async fn drop_view(&self, id: &Identifier, ignore_if_not_exists: bool) -> Result<()> {
        self.jdbc_drop_view(id, ignore_if_not_exists).await
    }

    /// `renameView`.
    async fn rename_view(
        &self,
        from: &Identifier,
        to: &Identifier,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        self.jdbc_rename_view(from, to, ignore_if_not_exists).await
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
