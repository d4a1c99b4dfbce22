//! [`ServerConfig`]: the warehouse a server serves and its limits, and the catalog `warehouse`
//! name clients give in `GET /v1/config?warehouse=NAME` (the warehouse folder's base name).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

/// Default request body limit: 1 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 1 << 20;
/// Default body limit of `POST …/commit` (a snapshot plus per-partition statistics): 16 MiB.
pub const DEFAULT_COMMIT_BODY_LIMIT: usize = 16 << 20;
/// Default time a request may take, headers to answer: 30 s.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Default time a client has to send a request's headers (slow clients are cut): 10 s.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Default page size of list calls when a client gives no or a non-positive `maxResults`, and
/// the most a page holds (Java's `RESTCatalogServer` pages by the same rule).
pub const DEFAULT_MAX_RESULTS: usize = 100;

/// What a [`crate::Server`] serves and how.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ServerConfig {
    /// The warehouse: a local directory or `s3://bucket/path`.
    pub warehouse: String,
    /// Options of the warehouse's store (`s3.endpoint`, `s3.access-key`, … as
    /// `strata::catalog::FileSystemCatalog::open_with_options` takes them).
    pub warehouse_options: HashMap<String, String>,
    /// The token file (principals and grants); `None`: no authentication.
    pub token_file: Option<PathBuf>,
    /// Where the audit log goes (`None`: the server's `tracing` log).
    pub audit_log: Option<PathBuf>,
    /// TLS certificate chain (PEM); TLS is on when both it and [`Self::tls_key`] are given.
    pub tls_cert: Option<PathBuf>,
    /// TLS private key (PEM).
    pub tls_key: Option<PathBuf>,
    /// Request body limit in bytes (larger bodies: 413).
    pub body_limit: usize,
    /// Body limit of the commit endpoint.
    pub commit_body_limit: usize,
    /// The longest a request may take (answered 408 after).
    pub request_timeout: Duration,
    /// The longest a client may take to send a request's headers.
    pub header_read_timeout: Duration,
    /// Page size of list calls (default and maximum).
    pub max_results: usize,
}

impl ServerConfig {
    /// A configuration serving `warehouse` with the defaults: no token file, no TLS, 1 MiB
    /// bodies (16 MiB for commits), 30 s per request.
    pub fn new(warehouse: impl Into<String>) -> Self {
        ServerConfig {
            warehouse: warehouse.into(),
            warehouse_options: HashMap::new(),
            token_file: None,
            audit_log: None,
            tls_cert: None,
            tls_key: None,
            body_limit: DEFAULT_BODY_LIMIT,
            commit_body_limit: DEFAULT_COMMIT_BODY_LIMIT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            max_results: DEFAULT_MAX_RESULTS,
        }
    }

    /// The catalog name clients ask for (`GET /v1/config?warehouse=NAME`): the warehouse
    /// folder's base name (`/data/lake` → `lake`, `s3://bucket/a/wh` → `wh`, `s3://bucket` →
    /// `bucket`).
    pub fn warehouse_name(&self) -> String {
        let w = self.warehouse.trim_end_matches('/');
        let w = w.split_once("://").map_or(w, |(_, rest)| rest);
        w.rsplit('/').next().unwrap_or(w).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warehouse_names() {
        assert_eq!(ServerConfig::new("/data/lake").warehouse_name(), "lake");
        assert_eq!(ServerConfig::new("/data/lake/").warehouse_name(), "lake");
        assert_eq!(ServerConfig::new("s3://bucket/a/wh").warehouse_name(), "wh");
        assert_eq!(ServerConfig::new("s3://bucket").warehouse_name(), "bucket");
        assert_eq!(ServerConfig::new("rel").warehouse_name(), "rel");
    }
}
