//! [`AppState`]: what every handler shares — the warehouse's catalog, the server's
//! authorization, audit and metrics, and the per-table commit locks.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use strata::catalog::FileSystemCatalog;

use crate::audit::Audit;
use crate::authz::{Authz, Principal};
use crate::config::ServerConfig;
use crate::metrics::Metrics;
use crate::vending::Vending;

/// The caller of a request, put into its extensions by the router's guard.
#[derive(Clone, Debug)]
pub(crate) struct Caller(pub(crate) Principal);

/// Shared by every request.
#[derive(Clone, Debug)]
pub struct AppState {
    pub(crate) inner: Arc<Inner>,
}

#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) config: ServerConfig,
    pub(crate) catalog: FileSystemCatalog,
    /// The catalog name of `GET /v1/config?warehouse=` and the path prefix.
    pub(crate) name: String,
    /// The warehouse location as messages would show it (scrubbed from answers).
    pub(crate) location: String,
    pub(crate) authz: Authz,
    pub(crate) audit: Audit,
    pub(crate) metrics: Metrics,
    /// The data tokens: scoped STS keys, the warehouse's static keys, or none.
    pub(crate) vending: Vending,
    /// One async mutex per table (`db.table`, shared by all its branches): commits, rollbacks
    /// and tag/branch changes of a table and its branches are decided one at a time.
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl AppState {
    pub(crate) fn new(
        config: ServerConfig,
        catalog: FileSystemCatalog,
        authz: Authz,
        audit: Audit,
        metrics: Metrics,
        vending: Vending,
    ) -> Self {
        let name = config.warehouse_name();
        let location = catalog.location();
        AppState {
            inner: Arc::new(Inner {
                config,
                catalog,
                name,
                location,
                authz,
                audit,
                metrics,
                vending,
                locks: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// The lock of table `key` (`db.table`, or an object of it such as `db.t$branch_b`): one
    /// lock per table for all its branches, so a commit to a branch never runs beside that
    /// branch's rename, drop or fast-forward (which take the same lock).
    pub(crate) fn table_lock(&self, key: &str) -> Arc<tokio::sync::Mutex<()>> {
        let table = key.split('$').next().unwrap_or(key);
        let mut locks = self.inner.locks.lock().unwrap_or_else(|e| e.into_inner());
        locks.entry(table.to_string()).or_default().clone()
    }
}

impl AsRef<Metrics> for AppState {
    fn as_ref(&self) -> &Metrics {
        &self.inner.metrics
    }
}
