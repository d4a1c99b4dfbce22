//! `schema/schema-N` files: reading any version, creating `schema-0`, and committing schema
//! changes (`schema-(N+1)`, Java's `SchemaManager.commitChanges`).
//!
//! Schemas are immutable once written, so every version read is cached for the life of the
//! manager (a scan over files of many schema versions reads each schema file once).
//!
//! A schema change is committed optimistically, like a snapshot: read the latest schema N,
//! apply the changes ([`TableSchema::apply_changes_with`], pure), and create `schema-(N+1)`
//! only if it does not exist (put-if-absent: a hard link locally, `If-None-Match: *` on S3).
//! A writer that loses the race re-reads the new latest schema and applies its changes to
//! that one, so concurrent `ALTER TABLE`s serialize and none is lost; a change that no longer
//! applies (the column it renames was dropped meanwhile) fails with the reason.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use strata_spec::schema::{SchemaChange, TableSchema};

use crate::clock::Clock;
use crate::error::ErrorDetail;
use crate::io::FileIO;
use crate::meta::{SnapshotManager, TablePaths};
use crate::{Error, Result};

/// Reads and creates the schema versions of one table.
#[derive(Debug, Clone)]
pub struct SchemaManager {
    io: FileIO,
    paths: TablePaths,
    cache: Arc<Mutex<HashMap<i64, Arc<TableSchema>>>>,
}

impl SchemaManager {
    pub fn new(io: FileIO, paths: TablePaths) -> Self {
        SchemaManager {
            io,
            paths,
            cache: Arc::default(),
        }
    }

    /// Ids of all schema versions present, ascending.
    pub async fn list_ids(&self) -> Result<Vec<i64>> {
        let (_, files) = self.io.list_dir(&self.paths.schema_dir()).await?;
        let mut ids: Vec<i64> = files
            .iter()
            .filter_map(|m| m.location.filename())
            .filter_map(|n| n.strip_prefix("schema-"))
            .filter_map(|n| n.parse().ok())
            .collect();
        ids.sort_unstable();
        Ok(ids)
    }

    /// The newest schema version, `None` if the table has no schema (does not exist).
    pub async fn latest(&self) -> Result<Option<Arc<TableSchema>>> {
        match self.list_ids().await?.last() {
            Some(id) => Ok(Some(self.schema(*id).await?)),
            None => Ok(None),
        }
    }

    /// Schema version `id` (cached).
    pub async fn schema(&self, id: i64) -> Result<Arc<TableSchema>> {
        if let Some(s) = self.cache_get(id) {
            return Ok(s);
        }
        let path = self.paths.schema_file(id);
        let bytes = self.io.get(&path).await?;
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            Error::corrupt(
                self.io.display(&path),
                strata_spec::SpecError::invalid("schema file", format!("not UTF-8: {e}")),
            )
        })?;
        let schema =
            TableSchema::from_json(text).map_err(|e| Error::corrupt(self.io.display(&path), e))?;
        if schema.id != id {
            return Err(Error::corrupt(
                self.io.display(&path),
                strata_spec::SpecError::invalid(
                    "schema file",
                    format!("file is schema-{id} but its id is {}", schema.id),
                ),
            ));
        }
        let schema = Arc::new(schema);
        self.cache
            .lock()
            .expect("schema cache lock is never held across a panic")
            .insert(id, schema.clone());
        Ok(schema)
    }

    fn cache_get(&self, id: i64) -> Option<Arc<TableSchema>> {
        self.cache
            .lock()
            .expect("schema cache lock is never held across a panic")
            .get(&id)
            .cloned()
    }

    /// Applies `changes` to the latest schema and writes the result as the next version
    /// (see the module docs): Java's `SchemaManager.commitChanges`. Returns the new schema.
    /// The new schema's `timeMillis` is `clock`'s time.
    pub async fn commit_changes(
        &self,
        changes: &[SchemaChange],
        clock: &dyn Clock,
    ) -> Result<Arc<TableSchema>> {
        self.commit_changes_checked(changes, clock, |_, _| Ok(()))
            .await
    }

    /// [`SchemaManager::commit_changes`] with a check of each candidate before it is written:
    /// `check(history, new)` gets every existing schema version (ascending; the last is the
    /// one changed) and the new schema, and refuses it with an error. It runs again after a
    /// lost race, on the schema then current.
    pub async fn commit_changes_checked(
        &self,
        changes: &[SchemaChange],
        clock: &dyn Clock,
        mut check: impl FnMut(&[Arc<TableSchema>], &TableSchema) -> Result<()>,
    ) -> Result<Arc<TableSchema>> {
        /// Lost races in a row before giving up (Java retries without bound; a store whose
        /// listing never shows the version that blocks the create would loop forever).
        const MAX_ATTEMPTS: usize = 100;
        let has_snapshots = SnapshotManager::new(self.io.clone(), self.paths.clone())
            .latest_id()
            .await?
            .is_some();
        let table = self.io.display(self.paths.root());
        for _ in 0..MAX_ATTEMPTS {
            let ids = self.list_ids().await?;
            if ids.is_empty() {
                return Err(ErrorDetail::TableNotFound(table).into());
            }
            let mut history = Vec::with_capacity(ids.len());
            for id in &ids {
                history.push(self.schema(*id).await?);
            }
            let latest = history[history.len() - 1].clone();
            let now = clock.now_millis();
            let new = latest.apply_changes_with(changes, now, has_snapshots)?;
            check(&history, &new)?;
            if self.create(&new).await? {
                let new = Arc::new(new);
                self.cache_lock().insert(new.id, new.clone());
                return Ok(new);
            }
            // Another writer created schema-(N+1) first: apply the changes to that one.
        }
        Err(ErrorDetail::CommitConflict {
            table,
            message: format!(
                "schema change lost {MAX_ATTEMPTS} races in a row: another writer keeps \
                 creating the next schema version"
            ),
        }
        .into())
    }

    fn cache_lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Arc<TableSchema>>> {
        self.cache
            .lock()
            .expect("schema cache lock is never held across a panic")
    }

    /// Writes `schema` as `schema-<schema.id>` if that version does not exist yet.
    /// Returns `false` when the file already exists (someone else created that version).
    pub async fn create(&self, schema: &TableSchema) -> Result<bool> {
        let path = self.paths.schema_file(schema.id);
        let json = schema.to_json()?;
        self.io.put_if_absent(&path, json.into_bytes()).await
    }
}
