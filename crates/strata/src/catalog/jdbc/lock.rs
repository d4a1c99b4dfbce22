//! The JDBC catalog's distributed lock, exactly as Java's `JdbcCatalogLock` over `JdbcUtils` and
//! the dialects' SQL: lock id `"{catalog-key}.{database}.{table}"`; acquiring first deletes the
//! id's row when it is older than its `expire_time_seconds` (`tryReleaseTimedOutLock`), then
//! inserts `(lock_id, lock-acquire-timeout in seconds)` — the primary key refuses a second
//! holder; retries back off 100 ms, 200 ms, … up to `lock-check-max-sleep` until
//! `lock-acquire-timeout`; releasing deletes the row. Java and strata writing through the same
//! database therefore exclude each other.
//!
//! [`JdbcSnapshotCommit`] publishes a table's snapshots under that lock, as Java's
//! `RenamingSnapshotCommit` does with `Lock.fromCatalog(JdbcCatalogLock)`: lock, create
//! `snapshot-N` if absent, unlock — on the main branch and on every branch a handle switches
//! to (lock id `"{catalog-key}.{database}.{table}$branch_{branch}"`, as Java's).

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use strata_spec::snapshot::Snapshot;

use super::sql;
use super::store::{Protocol, SqlArg, SqlFailure, SqlStore};
use crate::error::ErrorDetail;
use crate::io::FileIO;
use crate::meta::{SnapshotManager, TablePaths};
use crate::table::{CommitContext, SnapshotCommit};
use crate::Result;

/// Java's `JdbcCatalogLock`: one lock row per table.
#[derive(Clone, Debug)]
pub(crate) struct JdbcCatalogLock {
    store: SqlStore,
    catalog_key: String,
    /// `lock-check-max-sleep` (default 8 s).
    check_max_sleep: Duration,
    /// `lock-acquire-timeout` (default 8 min); also the lock's expiry, in whole seconds.
    acquire_timeout: Duration,
    /// `lock-key-max-length` (default 255): the width of `lock_id`.
    max_key_length: usize,
}

impl JdbcCatalogLock {
    pub(crate) fn new(
        store: SqlStore,
        catalog_key: String,
        check_max_sleep: Duration,
        acquire_timeout: Duration,
        max_key_length: usize,
    ) -> Self {
        JdbcCatalogLock {
            store,
            catalog_key,
            check_max_sleep,
            acquire_timeout,
            max_key_length,
        }
    }

    /// `String.format("%s.%s.%s", catalogKey, database, table)`.
    pub(crate) fn lock_id(&self, database: &str, object: &str) -> String {
        format!("{}.{database}.{object}", self.catalog_key)
    }

    /// `JdbcUtils.acquire`: clears the id's timed-out row, then tries to insert it. A key
    /// violation (another holder) or a busy database is "not acquired", as Java's
    /// `lockAcquire` returns false on any `SQLException`.
    async fn try_acquire(&self, id: &str) -> Result<bool> {
        let release_timed_out = match self.store.protocol() {
            Protocol::Sqlite => sql::SQLITE_RELEASE_TIMED_OUT_LOCK_SQL,
            Protocol::Postgres => sql::POSTGRES_RELEASE_TIMED_OUT_LOCK_SQL,
        };
        match self.store.execute(release_timed_out, vec![id.into()]).await {
            Ok(_) => {}
            Err(SqlFailure::Busy(_)) => return Ok(false),
            Err(e) => return Err(self.store.error(&format!("expiring lock {id}"), &e)),
        }
        let expire_seconds = (self.acquire_timeout.as_millis() / 1000) as i64;
        match self
            .store
            .execute(
                sql::LOCK_ACQUIRE_SQL,
                vec![id.into(), SqlArg::Long(expire_seconds)],
            )
            .await
        {
            Ok(n) => Ok(n > 0),
            Err(SqlFailure::UniqueViolation(_)) | Err(SqlFailure::Busy(_)) => Ok(false),
            Err(e) => Err(self.store.error(&format!("acquiring lock {id}"), &e)),
        }
    }

    /// `JdbcCatalogLock.lock`: Java's back-off loop.
    async fn lock(&self, id: &str) -> Result<()> {
        if self.store.protocol() == Protocol::Postgres && id.len() > self.max_key_length {
            return Err(crate::Error::invalid_option(
                "lock-key-max-length",
                format!(
                    "lock id {id:?} is {} bytes, longer than lock-key-max-length = {} (the \
                     width of paimon_distributed_locks.lock_id)",
                    id.len(),
                    self.max_key_length
                ),
            ));
        }
        let start = Instant::now();
        let mut locked = self.try_acquire(id).await?;
        let mut next_sleep = Duration::from_millis(50);
        while !locked {
            next_sleep = (next_sleep * 2).min(self.check_max_sleep);
            tokio::time::sleep(next_sleep).await;
            locked = self.try_acquire(id).await?;
            if start.elapsed() > self.acquire_timeout {
                break;
            }
        }
        if !locked {
            return Err(ErrorDetail::CatalogServer {
                endpoint: self.store.uri().to_string(),
                message: format!(
                    "Acquire lock failed with time: {:?} (lock {id}, lock-acquire-timeout {:?})",
                    start.elapsed(),
                    self.acquire_timeout
                ),
                retryable: true,
            }
            .into());
        }
        Ok(())
    }

    /// `JdbcUtils.release`.
    async fn release(&self, id: &str) -> Result<()> {
        self.store
            .execute(sql::RELEASE_LOCK_SQL, vec![id.into()])
            .await
            .map(|_| ())
            .map_err(|e| self.store.error(&format!("releasing lock {id}"), &e))
    }

    /// `runWithLock(database, table, callable)`. The locked section runs in a task of its
    /// own, so a caller that stops waiting does not leave the row behind. A failed release
    /// after a successful `work` is not an error of the work (the row expires after
    /// `lock-acquire-timeout`).
    pub(crate) async fn run_with_lock<T, F>(
        &self,
        database: &str,
        object: &str,
        work: F,
    ) -> Result<T>
    where
        T: Send + 'static,
        F: Future<Output = Result<T>> + Send + 'static,
    {
        let lock = self.clone();
        let id = self.lock_id(database, object);
        tokio::spawn(async move {
            lock.lock(&id).await?;
            let out = work.await;
            let _ = lock.release(&id).await;
            out
        })
        .await
        .map_err(|e| {
            crate::Error::from(ErrorDetail::TaskPanicked {
                what: "the JDBC catalog's locked section".into(),
                message: e.to_string(),
            })
        })?
    }
}

/// A table's snapshot publication under the JDBC lock (Java's `RenamingSnapshotCommit` with
/// `Lock.fromCatalog(JdbcCatalogLock, identifier)`), used when the catalog's lock is enabled.
/// A handle switched to a branch keeps it ([`SnapshotCommit::on_branch`]): Java's
/// `switchToBranch` copies the catalog environment with the branch's identifier, so the lock
/// id's object is `t$branch_b` (`Identifier.getObjectName`) and the snapshots the branch's.
#[derive(Debug)]
pub(crate) struct JdbcSnapshotCommit {
    lock: JdbcCatalogLock,
    database: String,
    /// The table's name (without branch).
    table: String,
    io: FileIO,
    /// The paths of the branch this commit publishes to.
    paths: TablePaths,
    snapshots: SnapshotManager,
}

impl JdbcSnapshotCommit {
    /// The commit of table `database.table` on the branch of `paths`.
    pub(crate) fn new(
        lock: JdbcCatalogLock,
        database: String,
        table: String,
        io: FileIO,
        paths: TablePaths,
    ) -> Self {
        let snapshots = SnapshotManager::new(io.clone(), paths.clone());
        JdbcSnapshotCommit {
            lock,
            database,
            table,
            io,
            paths,
            snapshots,
        }
    }

    /// `Identifier.getObjectName()` of the table on this branch: the lock id's last part.
    pub(crate) fn object(&self) -> String {
        // TablePaths names the main branch "main" (Java: DEFAULT_MAIN_BRANCH)
        match self.paths.branch() {
            "main" => self.table.clone(),
            b => format!("{}$branch_{b}", self.table),
        }
    }
}

#[async_trait]
impl SnapshotCommit for JdbcSnapshotCommit {
    async fn commit(&self, snapshot: &Snapshot, _ctx: &CommitContext) -> Result<bool> {
        let snapshots = self.snapshots.clone();
        let snapshot = snapshot.clone();
        self.lock
            .run_with_lock(&self.database, &self.object(), async move {
                snapshots.try_publish(&snapshot).await
            })
            .await
    }

    fn on_branch(&self, branch: &str) -> Option<Arc<dyn SnapshotCommit>> {
        Some(Arc::new(JdbcSnapshotCommit::new(
            self.lock.clone(),
            self.database.clone(),
            self.table.clone(),
            self.io.clone(),
            self.paths.clone().with_branch(Some(branch)),
        )))
    }
}
