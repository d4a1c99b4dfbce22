//! Streaming consumers: `consumer/consumer-<id>` files holding `{"nextSnapshot": N}`, the next
//! snapshot a named reader will read (Java `ConsumerManager`, `Consumer`). Snapshot expiry never
//! deletes snapshot N or later while such a file says N (see [`super::expire`]), so a reader
//! that stops and resumes with the same id continues where it was, however long it was away.
//!
//! The file is overwritten as the reader progresses (`ConsumerManager.resetConsumer`), with
//! Java's JSON; ids are refused when they could not be a file name.

use object_store::path::Path;

use crate::io::FileIO;

use crate::error::ErrorDetail;
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
    /// The consumers of `table`: the `consumer/consumer-<id>` files in its directory.
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
            .consumer_dir()
            .join(format!("{CONSUMER_PREFIX}{id}")))
    }

    /// The next snapshot consumer `id` reads, `None` when it has no file.
    pub async fn next_snapshot(&self, id: &str) -> Result<Option<i64>> {
        read_next_snapshot(self.table.file_io(), &self.path(id)?).await
    }

    /// Records that consumer `id` reads `next_snapshot` next (Java `resetConsumer`).
    pub async fn reset(&self, id: &str, next_snapshot: i64) -> Result<()> {
        let path = self.path(id)?;
        let json = format!("{{\n  \"nextSnapshot\" : {next_snapshot}\n}}");
        self.table.file_io().put(&path, json.into_bytes()).await
    }

    /// Every consumer with the next snapshot it reads (Java `ConsumerManager.consumers`: the
    /// `consumer/consumer-<id>` files), sorted by id; a consumer removed while listing is
    /// skipped.
    pub async fn consumers(&self) -> Result<Vec<(String, i64)>> {
        let io = self.table.file_io();
        let (_, files) = io.list_dir(&self.table.paths().consumer_dir()).await?;
        let mut out = Vec::new();
        for f in files {
            let Some(id) = f
                .location
                .filename()
                .and_then(|n| n.strip_prefix(CONSUMER_PREFIX))
                .filter(|id| !id.is_empty())
            else {
                continue;
            };
            if let Some(next) = read_next_snapshot(io, &f.location).await? {
                out.push((id.to_string(), next));
            }
        }
        out.sort();
        Ok(out)
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
        return Err(ErrorDetail::InvalidOption {
            key: "consumer-id".into(),
            message: format!(
                "'{id}' cannot name a consumer file (consumer/consumer-<id>): use a non-empty \
                 id without slashes or surrounding spaces"
            ),
        }
        .into());
    }
    Ok(())
}

/// Reads a consumer file's `nextSnapshot`; `None` when the file does not exist. Another
/// engine may be rewriting the file in place (Java's local file system does, at every Flink
/// checkpoint), so an unparsable file — or one whose read failed mid-rewrite — is read again,
/// 10 times 200 ms apart, before it is reported corrupt (or the error returned), as Java's
/// `Consumer.fromPath` does.
pub(crate) async fn read_next_snapshot(io: &FileIO, path: &Path) -> Result<Option<i64>> {
    const ATTEMPTS: usize = 10;
    let mut attempt = 0;
    loop {
        attempt += 1;
        // A read that races the rewrite can also fail in the store (the file shrank between
        // its size and its bytes: "requested range was invalid"): read again too.
        let bytes = match io.get_opt(path).await {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(None),
            Err(e) if attempt >= ATTEMPTS => return Err(e),
            Err(_) => {
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                continue;
            }
        };
        let parsed = serde_json::from_slice::<serde_json::Value>(&bytes)
            .map_err(|e| format!("not JSON: {e}"))
            .and_then(|v| {
                v.get("nextSnapshot")
                    .and_then(|n| n.as_i64())
                    .ok_or_else(|| "no integer member nextSnapshot".to_string())
            });
        match parsed {
            Ok(next) => return Ok(Some(next)),
            Err(message) if attempt >= ATTEMPTS => {
                return Err(Error::corrupt(
                    io.display(path),
                    strata_spec::SpecError::invalid(
                        "consumer file",
                        format!("{message} (read {ATTEMPTS} times, 200 ms apart)"),
                    ),
                ))
            }
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(200)).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A consumer file another engine is rewriting in place reads as empty for a moment: it is
    /// read again until it parses, and reported corrupt (naming it) only when it never does.
    #[tokio::test]
    async fn a_consumer_file_being_rewritten_is_read_again() {
        let io = FileIO::memory();
        let path = Path::from("t/consumer/consumer-flink");
        assert_eq!(read_next_snapshot(&io, &path).await.unwrap(), None);
        io.put(&path, "").await.unwrap();
        let writer = {
            let (io, path) = (io.clone(), path.clone());
            tokio::spawn(async move {
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                io.put(&path, r#"{"nextSnapshot":42}"#).await.unwrap();
            })
        };
        assert_eq!(read_next_snapshot(&io, &path).await.unwrap(), Some(42));
        writer.await.unwrap();
        io.put(&path, "{").await.unwrap();
        let err = read_next_snapshot(&io, &path)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("consumer-flink") && err.contains("10 times"),
            "{err}"
        );
    }

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
