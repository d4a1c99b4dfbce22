//! strata's Paimon REST catalog server: Paimon's REST catalog API (Java's `RESTApi`,
//! `rest-catalog-open-api.yaml` of Paimon 2.0) served over a warehouse strata manages — a local
//! directory or `s3://…`, tables in `WAREHOUSE/<db>.db/<table>` exactly as the filesystem
//! catalog lays them out — so Java's `RESTCatalog`, pypaimon and strata's own REST client
//! create, alter, commit to and read tables through it. `strata serve` runs it; [`Server`] is
//! embeddable.
//!
//! | file | what |
//! |---|---|
//! | `config` | [`ServerConfig`]: warehouse, limits, TLS, token file |
//! | `server` | [`Server`]: listener, TLS, timeouts, graceful shutdown |
//! | `router` | every path with its [`Op`]; the guard (validation, authz, audit, metrics) |
//! | `ops` | [`Op`]: the API's operations |
//! | `handlers/` | one file per resource: databases, tables, commit, snapshots, partitions, tags, branches |
//! | `validate` | names checked before any I/O |
//! | `error` | `ErrorResponse` answers without paths or internals |
//! | `state` | what handlers share; per-table commit locks |
//! | `authz`, `audit`, `metrics` | tokens and grants, the audit log, `/metrics` and `/healthz` |
//!
//! Everything is built on strata's stable API (`strata::catalog::FileSystemCatalog`,
//! `strata::table`, `strata::maintenance`); commits are decided here, the way Java's
//! `RESTCatalogServer.commitSnapshot` does (see `handlers/commit.rs`).

#![warn(missing_docs)]

mod audit;
mod authz;
mod config;
mod db_objects;
mod error;
mod handlers;
mod metrics;
mod ops;
mod router;
mod server;
mod state;
mod validate;
mod vending;

pub use authz::TOKEN_FILE_GRAMMAR;
pub use config::{
    ServerConfig, DEFAULT_BODY_LIMIT, DEFAULT_COMMIT_BODY_LIMIT, DEFAULT_HEADER_READ_TIMEOUT,
    DEFAULT_MAX_RESULTS, DEFAULT_REQUEST_TIMEOUT,
};
pub use ops::Op;
pub use server::{Server, ServerError};
