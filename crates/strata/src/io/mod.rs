//! File I/O: [`FileIO`], strata's one storage seam, over `object_store`.
//!
//! Backends: the local filesystem (default) and an in-memory store (tests). Every path is an
//! `object_store::path::Path`; for the local filesystem that is the absolute path without its
//! leading `/`.
//!
//! ## Contract the layers above rely on
//! * [`FileIO::put`] replaces the whole object atomically (readers see the old or the new bytes).
//! * [`FileIO::put_if_absent`] creates the object only if nothing exists at the path and reports
//!   `false` when something does — the compare-and-swap that snapshot commits and schema
//!   creation are built on. Local FS: staging file + hard link (fails if the target exists);
//!   memory: checked under the store's lock.
//! * [`FileIO::delete`] is idempotent: deleting a missing object is not an error.
//! * [`FileIO::list`] is recursive and unordered; [`FileIO::list_dir`] lists one level.
//! * A missing directory lists as empty.

pub(crate) mod parallel;

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use futures::TryStreamExt;
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};

use crate::{Error, Result};

/// Which backend a [`FileIO`] talks to (decides how paths are shown to users).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    Local,
    Memory,
}

/// Handle to a storage backend. Cheap to clone.
#[derive(Clone, Debug)]
pub struct FileIO {
    store: Arc<dyn ObjectStore>,
    kind: StoreKind,
}

impl FileIO {
    /// The local filesystem.
    pub fn local() -> Self {
        FileIO {
            store: Arc::new(LocalFileSystem::new()),
            kind: StoreKind::Local,
        }
    }

    /// A fresh, empty in-memory store.
    pub fn memory() -> Self {
        FileIO {
            store: Arc::new(InMemory::new()),
            kind: StoreKind::Memory,
        }
    }

    /// Resolves a warehouse location: `memory://name` (a fresh in-memory store), or a local
    /// directory (absolute or relative to the working directory; `file://` prefix allowed).
    pub fn for_location(location: &str) -> Result<(FileIO, Path)> {
        if let Some(rest) = location.strip_prefix("memory://") {
            return Ok((FileIO::memory(), Path::from(rest)));
        }
        let local = location.strip_prefix("file://").unwrap_or(location);
        if local.is_empty() {
            return Err(Error::InvalidArgument("empty warehouse location".into()));
        }
        let mut abs = std::path::PathBuf::from(local);
        if abs.is_relative() {
            let cwd = std::env::current_dir().map_err(|e| {
                Error::InvalidArgument(format!("cannot resolve relative path {local}: {e}"))
            })?;
            abs = cwd.join(abs);
        }
        let abs = normalize(&abs);
        let path = Path::from_absolute_path(&abs).map_err(|e| {
            Error::InvalidArgument(format!("invalid warehouse path {}: {e}", abs.display()))
        })?;
        Ok((FileIO::local(), path))
    }

    pub fn kind(&self) -> StoreKind {
        self.kind
    }

    /// The underlying store (for the Parquet object reader/writer).
    pub fn store(&self) -> Arc<dyn ObjectStore> {
        self.store.clone()
    }

    /// How a path is shown to users: absolute filesystem path or `memory://` URL.
    pub fn display(&self, path: &Path) -> String {
        match self.kind {
            StoreKind::Local => format!("/{path}"),
            StoreKind::Memory => format!("memory://{path}"),
        }
    }

    /// Reads a whole object.
    pub async fn get(&self, path: &Path) -> Result<Bytes> {
        let res = self
            .store
            .get(path)
            .await
            .map_err(|e| Error::io(self.display(path), e))?;
        res.bytes()
            .await
            .map_err(|e| Error::io(self.display(path), e))
    }

    /// Reads a whole object, `None` if it does not exist.
    pub async fn get_opt(&self, path: &Path) -> Result<Option<Bytes>> {
        match self.store.get(path).await {
            Ok(r) => Ok(Some(
                r.bytes()
                    .await
                    .map_err(|e| Error::io(self.display(path), e))?,
            )),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(Error::io(self.display(path), e)),
        }
    }

    /// Reads a byte range of an object.
    pub async fn get_range(&self, path: &Path, range: Range<u64>) -> Result<Bytes> {
        self.store
            .get_range(path, range)
            .await
            .map_err(|e| Error::io(self.display(path), e))
    }

    /// Size and modification time of an object.
    pub async fn head(&self, path: &Path) -> Result<ObjectMeta> {
        self.store
            .head(path)
            .await
            .map_err(|e| Error::io(self.display(path), e))
    }

    /// True if an object exists at `path`.
    pub async fn exists(&self, path: &Path) -> Result<bool> {
        match self.store.head(path).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(Error::io(self.display(path), e)),
        }
    }

    /// Writes (or atomically replaces) an object.
    pub async fn put(&self, path: &Path, bytes: impl Into<Bytes>) -> Result<()> {
        self.store
            .put(path, PutPayload::from_bytes(bytes.into()))
            .await
            .map_err(|e| Error::io(self.display(path), e))?;
        Ok(())
    }

    /// Creates an object only if none exists; `Ok(false)` when the path is taken.
    pub async fn put_if_absent(&self, path: &Path, bytes: impl Into<Bytes>) -> Result<bool> {
        let opts = PutOptions {
            mode: PutMode::Create,
            ..Default::default()
        };
        match self
            .store
            .put_opts(path, PutPayload::from_bytes(bytes.into()), opts)
            .await
        {
            Ok(_) => Ok(true),
            Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
            Err(e) => Err(Error::io(self.display(path), e)),
        }
    }

    /// Deletes an object; a missing object is not an error.
    pub async fn delete(&self, path: &Path) -> Result<()> {
        match self.store.delete(path).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(Error::io(self.display(path), e)),
        }
    }

    /// Deletes every object under `prefix`.
    pub async fn delete_prefix(&self, prefix: &Path) -> Result<()> {
        for meta in self.list(prefix).await? {
            self.delete(&meta.location).await?;
        }
        if self.kind == StoreKind::Local {
            // Object stores have no directories; on a local disk remove the emptied tree.
            let dir = std::path::PathBuf::from(self.display(prefix));
            if dir.exists() {
                std::fs::remove_dir_all(&dir).map_err(|e| {
                    Error::io(
                        self.display(prefix),
                        object_store::Error::Generic {
                            store: "LocalFileSystem",
                            source: Box::new(e),
                        },
                    )
                })?;
            }
        }
        Ok(())
    }

    /// All objects under `prefix`, recursively, in no particular order.
    pub async fn list(&self, prefix: &Path) -> Result<Vec<ObjectMeta>> {
        let stream = self.store.list(Some(prefix));
        match stream.try_collect::<Vec<_>>().await {
            Ok(v) => Ok(v),
            Err(object_store::Error::NotFound { .. }) => Ok(Vec::new()),
            Err(e) => Err(Error::io(self.display(prefix), e)),
        }
    }

    /// One level under `prefix`: (sub-directory paths, objects).
    pub async fn list_dir(&self, prefix: &Path) -> Result<(Vec<Path>, Vec<ObjectMeta>)> {
        match self.store.list_with_delimiter(Some(prefix)).await {
            Ok(r) => Ok((r.common_prefixes, r.objects)),
            Err(object_store::Error::NotFound { .. }) => Ok((Vec::new(), Vec::new())),
            Err(e) => Err(Error::io(self.display(prefix), e)),
        }
    }
}

/// Removes `.` and `..` components without touching the filesystem.
fn normalize(p: &std::path::Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn contract(io: FileIO, root: Path) {
        let p = root.clone().join("a").join("x");
        assert!(io.get_opt(&p).await.unwrap().is_none());
        assert!(io
            .put_if_absent(&p, Bytes::from_static(b"one"))
            .await
            .unwrap());
        assert!(!io
            .put_if_absent(&p, Bytes::from_static(b"two"))
            .await
            .unwrap());
        assert_eq!(io.get(&p).await.unwrap(), Bytes::from_static(b"one"));
        io.put(&p, Bytes::from_static(b"three")).await.unwrap();
        assert_eq!(io.get(&p).await.unwrap(), Bytes::from_static(b"three"));
        assert_eq!(
            io.get_range(&p, 1..3).await.unwrap(),
            Bytes::from_static(b"hr")
        );
        io.put(
            &root.clone().join("a").join("d").join("y"),
            Bytes::from_static(b"y"),
        )
        .await
        .unwrap();
        let (dirs, files) = io.list_dir(&root.clone().join("a")).await.unwrap();
        assert_eq!(dirs.len(), 1);
        assert_eq!(files.len(), 1);
        assert_eq!(io.list(&root).await.unwrap().len(), 2);
        io.delete(&p).await.unwrap();
        io.delete(&p).await.unwrap(); // idempotent
        assert!(!io.exists(&p).await.unwrap());
        assert!(io
            .list(&root.clone().join("missing"))
            .await
            .unwrap()
            .is_empty());
        io.delete_prefix(&root.clone().join("a")).await.unwrap();
        assert!(io.list(&root).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn memory_backend_meets_contract() {
        let (io, root) = FileIO::for_location("memory://wh").unwrap();
        contract(io, root).await;
    }

    #[tokio::test]
    async fn local_backend_meets_contract() {
        let dir = tempfile::tempdir().unwrap();
        let (io, root) = FileIO::for_location(dir.path().to_str().unwrap()).unwrap();
        contract(io, root).await;
    }
}
