//! File I/O: [`FileIO`], strata's one storage seam, over `object_store`.
//!
//! Backends: the local filesystem (default), S3 and S3-compatible object stores
//! (`s3://bucket/prefix`, [`s3`]) and an in-memory store (tests). Every path is an
//! `object_store::path::Path`; for the local filesystem that is the absolute path without its
//! leading `/`, for S3 the object key inside the bucket. Users see paths as `/abs/path`,
//! `s3://bucket/key` or `memory://key` ([`FileIO::display`]).
//!
//! ## Contract the layers above rely on
//! * [`FileIO::put`] replaces the whole object atomically (readers see the old or the new bytes).
//! * [`FileIO::put_if_absent`] creates the object only if nothing exists at the path and reports
//!   `false` when something does — the compare-and-swap that snapshot commits and schema
//!   creation are built on. Local FS: staging file + hard link (fails if the target exists);
//!   memory: checked under the store's lock; S3: a PUT with `If-None-Match: *`, which the store
//!   decides atomically (412/304 → `false`). A store without conditional writes fails the
//!   commit with an error; it never silently overwrites.
//! * [`FileIO::delete`] is idempotent: deleting a missing object is not an error.
//! * [`FileIO::list`] is recursive and unordered; [`FileIO::list_dir`] lists one level.
//! * A missing directory lists as empty. Object stores have no directories: a "directory"
//!   exists while some object lies under it, and [`FileIO::delete_prefix`] leaves nothing.
//! * [`FileIO::get_range`] returns exactly the requested bytes; [`FileIO::head`] gives the size.
//!
//! `tests::contract` checks all of this for each backend; `crates/strata/tests/object_store_s3.rs`
//! runs it against a real S3-compatible server on loopback.

pub(crate) mod credentials;
pub(crate) mod parallel;
pub(crate) mod producer;
mod s3;

pub use s3::OPTION_KEYS as S3_OPTION_KEYS;

use std::collections::HashMap;

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use futures::{StreamExt, TryStreamExt};
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};

use crate::error::ErrorDetail;
use crate::{Error, Result};

/// Which backend a [`FileIO`] talks to (decides how paths are shown to users).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    /// The local filesystem; paths are absolute paths without their leading `/`.
    Local,
    /// An in-memory store (`memory://`), for tests and examples; lost with the process.
    Memory,
    /// S3 or an S3-compatible object store; paths are keys in one bucket.
    S3,
}

/// Handle to a storage backend. Cheap to clone.
#[derive(Clone, Debug)]
pub struct FileIO {
    store: Arc<dyn ObjectStore>,
    kind: StoreKind,
    /// Bucket and endpoint of an S3 store.
    s3: Option<s3::S3Target>,
}

/// A client for another bucket than the warehouse's, built once per (bucket, options) and
/// kept for the process (external paths of one table name a few buckets, read file by file).
fn sibling_s3(bucket: &str, options: &HashMap<String, String>) -> Result<FileIO> {
    static CLIENTS: std::sync::OnceLock<std::sync::Mutex<HashMap<String, FileIO>>> =
        std::sync::OnceLock::new();
    let mut opts: Vec<_> = options.iter().collect();
    opts.sort();
    let key = format!("{bucket}\u{0}{opts:?}");
    let clients = CLIENTS.get_or_init(Default::default);
    if let Some(io) = clients.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(io);
    }
    let io = FileIO::s3(bucket, options)?;
    if let Ok(mut c) = clients.lock() {
        c.insert(key, io.clone());
    }
    Ok(io)
}

impl FileIO {
    /// The local filesystem.
    pub fn local() -> Self {
        FileIO {
            store: Arc::new(LocalFileSystem::new()),
            kind: StoreKind::Local,
            s3: None,
        }
    }

    /// A fresh, empty in-memory store.
    pub fn memory() -> Self {
        FileIO {
            store: Arc::new(InMemory::new()),
            kind: StoreKind::Memory,
            s3: None,
        }
    }

    /// A client for one S3 bucket, configured from the `AWS_*` environment and then the
    /// catalog `options` (`s3.endpoint`, `s3.access-key`, ...: see [`s3`]).
    pub fn s3(bucket: &str, options: &HashMap<String, String>) -> Result<Self> {
        Self::s3_with_credentials(bucket, options, None)
    }

    /// [`FileIO::s3`] signing with `credentials` that expire and are fetched again (a REST
    /// catalog's vended data token, [`credentials`]).
    pub(crate) fn s3_with_credentials(
        bucket: &str,
        options: &HashMap<String, String>,
        credentials: Option<credentials::RefreshingCredentials>,
    ) -> Result<Self> {
        let (store, target) = s3::build(bucket, options, credentials)?;
        Ok(FileIO {
            store,
            kind: StoreKind::S3,
            s3: Some(target),
        })
    }

    /// Resolves a warehouse location with no catalog options; see
    /// [`FileIO::for_location_with_options`].
    pub fn for_location(location: &str) -> Result<(FileIO, Path)> {
        Self::for_location_with_options(location, &HashMap::new())
    }

    /// Resolves a warehouse location: `s3://bucket/prefix` or `s3a://...` (an S3 client
    /// configured from the environment and `options`), `memory://name` (a fresh in-memory
    /// store), or a local directory (absolute or relative to the working directory; `file://`
    /// prefix allowed). Any other `scheme://` is an error.
    pub fn for_location_with_options(
        location: &str,
        options: &HashMap<String, String>,
    ) -> Result<(FileIO, Path)> {
        if s3::is_s3_location(location) {
            let (bucket, path) = s3::parse_location(location)?;
            return Ok((FileIO::s3(&bucket, options)?, path));
        }
        if let Some(rest) = location.strip_prefix("memory://") {
            return Ok((FileIO::memory(), Path::from(rest)));
        }
        let local = location.strip_prefix("file://").unwrap_or(location);
        if local.is_empty() {
            return Err(ErrorDetail::InvalidLocation {
                location: location.to_string(),
                message: "empty warehouse location".into(),
            }
            .into());
        }
        if let Some((scheme, _)) = local.split_once("://") {
            if !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric()) {
                return Err(ErrorDetail::InvalidLocation {
                    location: location.to_string(),
                    message: format!(
                        "unsupported warehouse location {location}: scheme {scheme}:// is not \
                         supported (use a local path, file://, s3://, s3a:// or memory://)"
                    ),
                }
                .into());
            }
        }
        let mut abs = std::path::PathBuf::from(local);
        if abs.is_relative() {
            let cwd = std::env::current_dir().map_err(|e| {
                Error::from(ErrorDetail::InvalidLocation {
                    location: local.to_string(),
                    message: format!("cannot resolve relative path {local}: {e}"),
                })
            })?;
            abs = cwd.join(abs);
        }
        let abs = normalize(&abs);
        let path = Path::from_absolute_path(&abs).map_err(|e| {
            Error::from(ErrorDetail::InvalidLocation {
                location: abs.display().to_string(),
                message: format!("invalid warehouse path {}: {e}", abs.display()),
            })
        })?;
        Ok((FileIO::local(), path))
    }

    /// [`FileIO::for_location_with_options`] signing S3 requests with `credentials` that
    /// expire and are fetched again ([`credentials`]); a location off S3 needs none and is
    /// resolved without them.
    #[cfg_attr(not(feature = "rest"), allow(dead_code))]
    pub(crate) fn for_location_with_credentials(
        location: &str,
        options: &HashMap<String, String>,
        credentials: Option<credentials::RefreshingCredentials>,
    ) -> Result<(FileIO, Path)> {
        match credentials {
            Some(c) if s3::is_s3_location(location) => {
                let (bucket, path) = s3::parse_location(location)?;
                Ok((
                    FileIO::s3_with_credentials(&bucket, options, Some(c))?,
                    path,
                ))
            }
            _ => Self::for_location_with_options(location, options),
        }
    }

    /// The backend this handle talks to.
    pub fn kind(&self) -> StoreKind {
        self.kind
    }

    /// The store and path of a file another engine wrote outside the table directory (a
    /// manifest entry's `_EXTERNAL_PATH`, Java's `data-file.external-paths`): a full URI.
    /// `file:` URIs and absolute paths are read from the local filesystem; `s3://` / `s3a://`
    /// keys from this store when they are in its bucket, else from a client for their bucket
    /// built with this store's options (endpoint, credentials); `memory://` keys from this
    /// in-memory store. Any other scheme (`oss://`, `hdfs://`, `gs://`, ...) is refused with
    /// an error naming the path, so a read fails before returning a row rather than with a
    /// "not found" inside the warehouse.
    pub fn resolve_external(&self, uri: &str) -> Result<(FileIO, Path)> {
        let refuse = |why: String| {
            ErrorDetail::Unsupported(format!(
                "data file at external path {uri}: {why}; strata reads external paths on the \
                 local filesystem (file:), on S3 (s3://, s3a://) and in memory://"
            ))
            .into()
        };
        if s3::is_s3_location(uri) {
            let (bucket, path) = s3::parse_location(uri)?;
            return match &self.s3 {
                Some(t) if *t.bucket == *bucket => Ok((self.clone(), path)),
                Some(t) => Ok((sibling_s3(&bucket, &t.options)?, path)),
                None => Ok((sibling_s3(&bucket, &HashMap::new())?, path)),
            };
        }
        if let Some(rest) = uri.strip_prefix("memory://") {
            return match self.kind {
                StoreKind::Memory => Ok((self.clone(), Path::from(rest))),
                _ => Err(refuse(
                    "an in-memory path outside an in-memory warehouse".into(),
                )),
            };
        }
        let local = match uri.strip_prefix("file:") {
            Some(rest) => rest,
            None if uri.starts_with('/') => uri,
            None => {
                let scheme = uri.split_once("://").map_or(uri, |(s, _)| s);
                return Err(refuse(format!("scheme {scheme}:// is not supported")));
            }
        };
        // `file:/a`, `file:///a` and `file://host/a` (the host is ignored, as Hadoop does for
        // `localhost`).
        let local = match local.strip_prefix("//") {
            Some(rest) => match rest.find('/') {
                Some(i) => &rest[i..],
                None => return Err(refuse("no path after file://".into())),
            },
            None => local,
        };
        let path = Path::from_absolute_path(std::path::Path::new(local))
            .map_err(|e| refuse(format!("not a valid local path ({e})")))?;
        let io = match self.kind {
            StoreKind::Local => self.clone(),
            _ => FileIO::local(),
        };
        Ok((io, path))
    }

    /// The underlying store (for the Parquet object reader/writer).
    pub fn store(&self) -> Arc<dyn ObjectStore> {
        self.store.clone()
    }

    /// The S3 endpoint this store talks to (`None` for AWS's default, or not S3).
    pub fn endpoint(&self) -> Option<&str> {
        self.s3.as_ref().and_then(|t| t.endpoint.as_deref())
    }

    /// How a path is shown to users: absolute filesystem path, `s3://bucket/key` or
    /// `memory://` URL.
    pub fn display(&self, path: &Path) -> String {
        match self.kind {
            StoreKind::Local => format!("/{path}"),
            StoreKind::Memory => format!("memory://{path}"),
            StoreKind::S3 => {
                let bucket = self.s3.as_ref().map_or("", |t| &t.bucket);
                format!("s3://{bucket}/{path}")
            }
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
        let objects = self.list(prefix).await?;
        if self.kind == StoreKind::S3 {
            // Bulk deletes (DeleteObjects, up to 1000 keys a request).
            let paths = futures::stream::iter(objects.into_iter().map(|m| Ok(m.location)));
            let mut deleted = self.store.delete_stream(Box::pin(paths));
            while let Some(r) = deleted.next().await {
                match r {
                    Ok(_) | Err(object_store::Error::NotFound { .. }) => {}
                    Err(e) => return Err(Error::io(self.display(prefix), e)),
                }
            }
            return Ok(());
        }
        for meta in objects {
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

    /// Names of the directories directly under `prefix`. On a local filesystem these are the
    /// real directories, empty ones included (read on tokio's blocking pool); on object stores,
    /// which have no directories, the common prefixes of the objects below. A missing `prefix`
    /// has none; any other failure is an error naming it.
    pub async fn list_dir_names(&self, prefix: &Path) -> Result<Vec<String>> {
        if self.kind != StoreKind::Local {
            let (dirs, _) = self.list_dir(prefix).await?;
            return Ok(dirs
                .iter()
                .filter_map(|d| d.filename().map(str::to_string))
                .collect());
        }
        let dir = std::path::PathBuf::from(self.display(prefix));
        let shown = dir.display().to_string();
        let what = format!("listing {shown}");
        blocking(what, move || {
            let list = || -> std::io::Result<Vec<String>> {
                let rd = match std::fs::read_dir(&dir) {
                    Ok(rd) => rd,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
                    Err(e) => return Err(e),
                };
                let mut out = Vec::new();
                for e in rd {
                    let e = e?;
                    if e.file_type()?.is_dir() {
                        if let Some(n) = e.file_name().to_str() {
                            out.push(n.to_string());
                        }
                    }
                }
                Ok(out)
            };
            list().map_err(|e| local_error(&shown, e))
        })
        .await
    }

    /// Creates the directory `path` and its parents on a local filesystem (on tokio's
    /// blocking pool); nothing on object stores, where a directory appears with its first
    /// object.
    pub async fn create_dir_all(&self, path: &Path) -> Result<()> {
        if self.kind != StoreKind::Local {
            return Ok(());
        }
        let dir = self.display(path);
        blocking(format!("creating {dir}"), move || {
            std::fs::create_dir_all(&dir).map_err(|e| local_error(&dir, e))
        })
        .await
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

/// Runs `f` on tokio's blocking pool (CPU-heavy decoding, local file system calls). A task that
/// panics or is cancelled is `ErrorDetail::TaskPanicked` naming `what`, never a shortened result.
pub(crate) async fn blocking<T: Send + 'static>(
    what: impl Into<String>,
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ErrorDetail::TaskPanicked {
            what: what.into(),
            message: e.to_string(),
        })?
}

fn local_error(path: &str, e: std::io::Error) -> Error {
    ErrorDetail::LocalIo {
        path: path.to_string(),
        source: e,
    }
    .into()
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

// The contract check, shared with the S3 integration test (`tests/object_store_s3.rs`).
#[cfg(test)]
#[path = "contract.rs"]
mod contract;

#[cfg(test)]
mod tests {
    use super::contract::contract;
    use super::*;

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
