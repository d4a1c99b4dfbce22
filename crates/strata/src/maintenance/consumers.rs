//! Streaming consumers: `consumer/consumer-<id>` files holding `{"nextSnapshot": N}`, the next
//! snapshot a named reader will read (Java `ConsumerManager`, `Consumer`). Snapshot expiry never
//! deletes snapshot N or later while such a file says N (see [`super::expire`]), so a reader
//! that stops and resumes with the same id continues where it was, however long it was away.
//!
//! The file is overwritten as the reader progresses (`ConsumerManager.resetConsumer`), with
//! Java's JSON; ids are refused when they could not be a file name.

use object_store::path::Path;

use crate::table::Table;
use crate::{Error, Result};

/// Prefix of consumer files in `consumer/` (`ConsumerManager.CONSUMER_PREFIX`).
pub const CONSUMER_PREFIX: &str = "consumer-";

/// The consumers of one table.
#[derive(Clone)]
pub struct ConsumerManager {
    table: Table,
}

impl ConsumerManager {
    pub fn new(table: &Table) -> Self {
        ConsumerManager {
            table: table.clone(),
        }
    }

    fn path(&self, id: &str) -> Result<Path> {
        validate_consumer_id(id)?;
        Ok(self
            .table
            .paths()
            .root()
            .clone()
            .join("consumer")
            .join(format!("{CONSUMER_PREFIX}{id}")))
    }

    /// The next snapshot consumer `id` reads, `None` when it has no file.
    pub async fn next_snapshot(&self, id: &str) -> Result<Option<i64>> {
        let path = self.path(id)?;
        let io = self.table.file_io();
        let Some(bytes) = io.get_opt(&path).await? else {
            return Ok(None);
        };
        let bad = |m: String| {
            Error::corrupt(
                io.display(&path),
                strata_spec::SpecError::invalid("consumer file", m),
            )
        };
        let value: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|e| bad(format!("not JSON: {e}")))?;
        value
            .get("nextSnapshot")
            .and_then(|v| v.as_i64())
            .map(Some)
            .ok_or_else(|| bad("no integer member nextSnapshot".into()))
    }

    /// Records that consumer `id` reads `next_snapshot` next (Java `resetConsumer`).
    pub async fn reset(&self, id: &str, next_snapshot: i64) -> Result<()> {
        let path = self.path(id)?;
        let json = format!("{{\n  \"nextSnapshot\" : {next_snapshot}\n}}");
        self.table.file_io().put(&path, json.into_bytes()).await
    }

    /// Removes consumer `id` (Java `deleteConsumer`); no error when it does not exist.
    pub async fn delete(&self, id: &str) -> Result<()> {
        let path = self.path(id)?;
        let io = self.table.file_io();
        if io.get_opt(&path).await?.is_some() {
            io.delete(&path).await?;
        }
        Ok(())
    }
}

/// A consumer id becomes a file name: non-empty, no path separators, no `..`.
pub fn validate_consumer_id(id: &str) -> Result<()> {
    if id.is_empty() || id.contains(['/', '\\']) || id == "." || id == ".." || id.trim() != id {
        return Err(Error::InvalidOption {
            key: "consumer-id".into(),
            message: format!(
                "'{id}' cannot name a consumer file (consumer/consumer-<id>): use a non-empty \
                 id without slashes or surrounding spaces"
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_are_not_file_names_are_refused() {
        for bad in ["", "a/b", "..", " x", "a\\b"] {
            assert!(validate_consumer_id(bad).is_err(), "{bad:?}");
        }
        for good in ["job-1", "etl.daily", "x_y"] {
            validate_consumer_id(good).unwrap();
        }
    }
}
