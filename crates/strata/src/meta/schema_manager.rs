//! `schema/schema-N` files: reading any version, creating `schema-0`.
//!
//! Schemas are immutable once written, so every version read is cached for the life of the
//! manager (a scan over files of many schema versions reads each schema file once).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use strata_spec::schema::TableSchema;

use crate::io::FileIO;
use crate::meta::TablePaths;
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

    /// Writes `schema` as `schema-<schema.id>` if that version does not exist yet.
    /// Returns `false` when the file already exists (someone else created that version).
    pub async fn create(&self, schema: &TableSchema) -> Result<bool> {
        let path = self.paths.schema_file(schema.id);
        let json = schema.to_json()?;
        self.io.put_if_absent(&path, json.into_bytes()).await
    }
}
