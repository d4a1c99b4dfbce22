//! Views of the JDBC catalog, as Java 2.0's `JdbcCatalog` keeps them: one `paimon_views` row
//! per view (`catalog_key`, `database_name`, `view_name`, `view_schema`), the `view_schema`
//! column holding Java's `ViewSchema` JSON as `JsonSerdeUtil.toJson` writes it (Jackson's
//! pretty printer). Create, alter, drop and rename run under the same per-name lock as tables
//! (`runWithLock` / `runWithLocks`), and a view and a table never share a name. The
//! [`Catalog`](crate::catalog::Catalog) view methods of `super::operations` call these.
//!
//! Java's errors, in strata's kinds: `ViewNotExistException` → not found,
//! `ViewAlreadyExistException` (also when a table holds the name) → already exists,
//! `DatabaseNotExistException` → database not found, `DialectAlreadyExistException` /
//! `DialectNotExistException` → already exists / not found naming the dialect, and
//! `renameView`'s `IllegalArgumentException` for a missing target database → invalid argument.
//! Java's JDBC catalog has no functions; strata's neither (the trait's refusal stays).

use strata_spec::json::to_jackson_pretty;

use super::catalog::JdbcCatalog;
use super::sql;
use super::store::SqlFailure;
use crate::catalog::objects::{View, ViewChange, ViewSchema};
use crate::error::ErrorDetail;
use crate::table::Identifier;
use crate::{Error, Result};

fn view_not_found(id: &Identifier) -> Error {
    ErrorDetail::NotFound(format!("view {id} does not exist")).into()
}

fn view_exists(id: &Identifier) -> Error {
    ErrorDetail::AlreadyExists(format!("view {id} already exists")).into()
}

fn check_view_id(id: &Identifier) -> Result<()> {
    if id.branch.is_some() {
        return Err(Error::invalid_argument(format!(
            "view {id}: a view has no branches ('$branch_' belongs to tables)"
        )));
    }
    Ok(())
}

/// Java's `ViewSchema` JSON (`JsonSerdeUtil.toJson`).
fn schema_json(schema: &ViewSchema) -> Result<String> {
    to_jackson_pretty(schema).map_err(|e| ErrorDetail::Invariant(e.to_string()).into())
}

/// `alterView`'s loop: options, comment and dialects changed in order.
fn apply_changes(id: &Identifier, schema: &mut ViewSchema, changes: Vec<ViewChange>) -> Result<()> {
    for change in changes {
        match change {
            ViewChange::SetOption { key, value } => {
                schema.options.insert(key, value);
            }
            ViewChange::RemoveOption { key } => {
                schema.options.remove(&key);
            }
            ViewChange::UpdateComment { comment } => schema.comment = comment,
            ViewChange::AddDialect { dialect, query } => {
                if schema.dialects.contains_key(&dialect) {
                    return Err(ErrorDetail::AlreadyExists(format!(
                        "dialect {dialect} already exists in view {id}"
                    ))
                    .into());
                }
                schema.dialects.insert(dialect, query);
            }
            ViewChange::UpdateDialect { dialect, query } => {
                let Some(q) = schema.dialects.get_mut(&dialect) else {
                    return Err(ErrorDetail::NotFound(format!(
                        "dialect {dialect} does not exist in view {id}"
                    ))
                    .into());
                };
                *q = query;
            }
            ViewChange::DropDialect { dialect } => {
                if schema.dialects.remove(&dialect).is_none() {
                    return Err(ErrorDetail::NotFound(format!(
                        "dialect {dialect} does not exist in view {id}"
                    ))
                    .into());
                }
            }
        }
    }
    Ok(())
}

impl JdbcCatalog {
    /// `listViews`: the system database has none; a missing database is an error.
    pub(super) async fn jdbc_list_views(&self, db: &str) -> Result<Vec<String>> {
        if db == "sys" {
            return Ok(Vec::new());
        }
        if !self.db_exists(db).await? {
            return Err(ErrorDetail::DatabaseNotFound(db.to_string()).into());
        }
        let mut names = self
            .fetch(
                &format!("listing the views of {db}"),
                sql::LIST_VIEWS_SQL,
                vec![self.key(), db.into()],
                "view_name",
            )
            .await?;
        names.sort();
        Ok(names)
    }

    /// `getView`: the row's `ViewSchema` JSON.
    pub(super) async fn jdbc_get_view(&self, id: &Identifier) -> Result<View> {
        check_view_id(id)?;
        let what = format!("reading view {id}");
        let json = self
            .fetch(
                &what,
                sql::GET_VIEW_SQL,
                vec![
                    self.key(),
                    id.database.as_str().into(),
                    id.table.as_str().into(),
                ],
                "view_schema",
            )
            .await?;
        let Some(json) = json.into_iter().next() else {
            return Err(view_not_found(id));
        };
        let schema: ViewSchema = serde_json::from_str(&json).map_err(|e| {
            Error::from(ErrorDetail::Invariant(format!(
                "{what}: its view_schema is not a ViewSchema JSON: {e}"
            )))
        })?;
        Ok(View {
            identifier: id.clone(),
            schema,
        })
    }

    /// `createView`: the database must exist; under the lock, no table or view of the name,
    /// then the row.
    pub(super) async fn jdbc_create_view(&self, view: &View, ignore_if_exists: bool) -> Result<()> {
        let id = view.identifier.clone();
        check_view_id(&id)?;
        if !self.db_exists(&id.database).await? {
            return Err(ErrorDetail::DatabaseNotFound(id.database.clone()).into());
        }
        let json = schema_json(&view.schema)?;
        let this = self.clone();
        let id2 = id.clone();
        self.run_with_lock(&id, async move {
            let id = id2;
            if this.table_row_exists(&id.database, &id.table).await?
                || this.view_row_exists(&id.database, &id.table).await?
            {
                return if ignore_if_exists {
                    Ok(())
                } else {
                    Err(view_exists(&id))
                };
            }
            let args = vec![
                this.key(),
                id.database.as_str().into(),
                id.table.as_str().into(),
                json.into(),
            ];
            match this.store.execute(sql::INSERT_VIEW_SQL, args).await {
                Ok(1) => Ok(()),
                Ok(n) => Err(ErrorDetail::Invariant(format!(
                    "Failed to insert view {id}: affected {n} rows"
                ))
                .into()),
                Err(SqlFailure::UniqueViolation(_)) => Err(view_exists(&id)),
                Err(e) => Err(this.store.error(&format!("creating view {id}"), &e)),
            }
        })
        .await
    }

    /// `alterView`: under the lock, the changes applied to the stored schema, which is
    /// written back.
    pub(super) async fn jdbc_alter_view(
        &self,
        id: &Identifier,
        changes: Vec<ViewChange>,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        check_view_id(id)?;
        let this = self.clone();
        let id2 = id.clone();
        self.run_with_lock(id, async move {
            let id = id2;
            let mut schema = match this.jdbc_get_view(&id).await {
                Ok(v) => v.schema,
                Err(e) if e.kind() == crate::ErrorKind::NotFound && ignore_if_not_exists => {
                    return Ok(())
                }
                Err(e) => return Err(e),
            };
            apply_changes(&id, &mut schema, changes)?;
            let args = vec![
                schema_json(&schema)?.into(),
                this.key(),
                id.database.as_str().into(),
                id.table.as_str().into(),
            ];
            let n = this
                .exec(&format!("altering view {id}"), sql::UPDATE_VIEW_SQL, args)
                .await?;
            if n == 0 {
                return Err(view_not_found(&id));
            }
            Ok(())
        })
        .await
    }

    /// `dropView`: under the lock, the row.
    pub(super) async fn jdbc_drop_view(
        &self,
        id: &Identifier,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        check_view_id(id)?;
        let this = self.clone();
        let id2 = id.clone();
        self.run_with_lock(id, async move {
            let id = id2;
            if !this.view_row_exists(&id.database, &id.table).await? {
                return if ignore_if_not_exists {
                    Ok(())
                } else {
                    Err(view_not_found(&id))
                };
            }
            let args = vec![
                this.key(),
                id.database.as_str().into(),
                id.table.as_str().into(),
            ];
            let n = this
                .exec(&format!("dropping view {id}"), sql::DROP_VIEW_SQL, args)
                .await?;
            if n != 1 {
                return Err(ErrorDetail::Invariant(format!(
                    "Failed to drop view {id}: affected {n} rows"
                ))
                .into());
            }
            Ok(())
        })
        .await
    }

    /// `renameView`: under both names' locks (taken in Java's order), `from` must be a view,
    /// `to`'s database must exist and `to` be neither a view nor a table.
    pub(super) async fn jdbc_rename_view(
        &self,
        from: &Identifier,
        to: &Identifier,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        check_view_id(from)?;
        check_view_id(to)?;
        let this = self.clone();
        let (from2, to2) = (from.clone(), to.clone());
        let work = async move {
            let (from, to) = (from2, to2);
            if !this.view_row_exists(&from.database, &from.table).await? {
                return if ignore_if_not_exists {
                    Ok(())
                } else {
                    Err(view_not_found(&from))
                };
            }
            if !this.db_exists(&to.database).await? {
                return Err(Error::invalid_argument(format!(
                    "Database {} does not exist.",
                    to.database
                )));
            }
            if this.view_row_exists(&to.database, &to.table).await?
                || this.table_row_exists(&to.database, &to.table).await?
            {
                return Err(view_exists(&to));
            }
            let args = vec![
                to.database.as_str().into(),
                to.table.as_str().into(),
                this.key(),
                from.database.as_str().into(),
                from.table.as_str().into(),
            ];
            match this.store.execute(sql::RENAME_VIEW_SQL, args).await {
                Ok(0) => Err(view_not_found(&from)),
                Ok(_) => Ok(()),
                Err(SqlFailure::UniqueViolation(_)) => Err(view_exists(&to)),
                Err(e) => Err(this
                    .store
                    .error(&format!("renaming view {from} to {to}"), &e)),
            }
        };
        if from.database == to.database && from.table == to.table {
            return self.run_with_lock(from, work).await;
        }
        // runWithLocks: the smaller lock key first.
        let (first, second) = if (&from.database, &from.table) <= (&to.database, &to.table) {
            (from.clone(), to.clone())
        } else {
            (to.clone(), from.clone())
        };
        let this = self.clone();
        self.run_with_lock(
            &first,
            async move { this.run_with_lock(&second, work).await },
        )
        .await
    }
}
