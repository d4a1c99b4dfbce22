//! Rolling a table's schema back: [`Table::rollback_schema`], Java's `SchemaManager.rollbackTo`
//! (served by Paimon's REST catalog as `rollbackSchema`, `Catalog.rollbackSchema`).
//!
//! The schema versions above the target are deleted, newest first, and only when nothing
//! still needs them: no snapshot, tag or long-lived changelog of the table's branch may have
//! been written with a newer schema (their files were written with it and are read with it).
//! Data files are never touched. Handles loaded before the rollback keep the schemas they had
//! read; load the table again.

use std::collections::BTreeSet;

use super::tags::TagManager;
use super::Table;
use crate::meta::ChangelogManager;
use crate::{Error, Result};

impl Table {
    /// Deletes the schema versions above `schema_id` (Java's `SchemaManager.rollbackTo`): refused
    /// (nothing deleted) when schema `schema_id` does not exist or a snapshot, tag or long-lived
    /// changelog of this branch still refers to a newer schema. Returns the deleted ids.
    pub async fn rollback_schema(&self, schema_id: i64) -> Result<Vec<i64>> {
        let schemas = self.schema_manager().list_ids().await?;
        if !schemas.contains(&schema_id) {
            return Err(Error::invalid_argument(format!(
                "Schema {schema_id} does not exist."
            )));
        }
        let mut used: BTreeSet<i64> = BTreeSet::new();
        for s in self.snapshot_manager().all().await? {
            used.insert(s.schema_id);
        }
        for t in TagManager::new(self).all().await? {
            used.insert(t.snapshot.schema_id);
        }
        let changelogs = ChangelogManager::new(self.file_io().clone(), self.paths().clone());
        for c in changelogs.all().await? {
            used.insert(c.schema_id);
        }
        if let Some(conflict) = used.range(schema_id + 1..).next() {
            return Err(Error::invalid_argument(format!(
                "Cannot rollback to schema {schema_id}, schema {conflict} is still referenced by \
                 snapshots/tags/changelogs."
            )));
        }
        let mut deleted: Vec<i64> = schemas.into_iter().filter(|id| *id > schema_id).collect();
        deleted.sort_unstable_by(|a, b| b.cmp(a));
        for id in &deleted {
            self.file_io()
                .delete(&self.paths().schema_file(*id))
                .await?;
        }
        Ok(deleted)
    }
}
