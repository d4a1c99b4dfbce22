//! The retry loop around [`super::attempt`] and the commit identity that makes retries safe
//! (Java `FileStoreCommitImpl.tryCommit`, `filterCommitted`).
//!
//! * A lost race (the snapshot id was taken) is retried from the new latest snapshot with
//!   exponential back-off and jitter, up to `commit.max-retries` retries and within
//!   `commit.timeout`.
//! * An uncertain publish (an error that may hide a stored snapshot) is retried too, but each
//!   retry first looks for this commit — same `commitUser`, `commitIdentifier` and
//!   `commitKind` — among the snapshots created since the commit started; if it is there, the
//!   commit is done and is not applied a second time.
//! * Across processes, a committer that restarts with the same `commitUser` asks
//!   [`TableCommit::filter_committed`] which identifiers already landed (the latest snapshot
//!   of that user carries the highest committed identifier) and skips them.

use crate::error::ErrorDetail;
use std::time::{Duration, Instant};

use strata_spec::snapshot::{CommitKind, Snapshot};

use super::attempt::{Attempt, CommitRequest};
use super::table_commit::TableCommit;
use crate::{Error, Result};

impl TableCommit {
    pub(super) async fn commit_with_retry(&self, req: CommitRequest<'_>) -> Result<Option<i64>> {
        let started = Instant::now();
        // An attempt whose outcome is unknown can only have landed after this id.
        let first_seen = self.table.snapshot_manager().latest_id().await?;
        let mut attempt = 0u32;
        let mut uncertain = false;
        loop {
            if uncertain {
                if let Some(id) = self.find_or_unknown(first_seen, &req).await? {
                    return Ok(Some(id));
                }
            }
            let once = self.try_commit_once(&req, attempt).await;
            let once = match once {
                Ok(a) => a,
                // After an uncertain attempt any failure leaves the outcome open.
                Err(e) if uncertain => return Err(self.unknown(format!("{e}"))),
                Err(e) => return Err(e),
            };
            let why = match once {
                Attempt::Committed(id) => return Ok(Some(id)),
                Attempt::NothingToDo => return Ok(None),
                Attempt::LostRace(id) => format!("snapshot {id} was taken by a concurrent commit"),
                Attempt::Uncertain(id, e) => {
                    uncertain = true;
                    format!("publishing snapshot {id} failed: {e}")
                }
            };
            attempt += 1;
            let timed_out = self.timeout.is_some_and(|t| started.elapsed() >= t);
            if attempt > self.max_retries || timed_out {
                if uncertain {
                    if let Some(id) = self.find_or_unknown(first_seen, &req).await? {
                        return Ok(Some(id));
                    }
                }
                let limit = if timed_out {
                    format!(
                        "commit.timeout ({:?}) passed after {attempt} attempts",
                        self.timeout.unwrap_or_default()
                    )
                } else {
                    format!(
                        "{} retries (commit.max-retries) are used up",
                        self.max_retries
                    )
                };
                if uncertain {
                    // Not among the snapshots now, but a delayed request might still land it.
                    return Err(self.unknown(format!(
                        "{why} and {limit}; it is not among the snapshots committed since"
                    )));
                }
                return Err(ErrorDetail::CommitConflict {
                    table: self.table.identifier().to_string(),
                    message: format!("{why} and {limit}; nothing was committed"),
                }
                .into());
            }
            tokio::time::sleep(self.backoff(attempt)).await;
        }
    }

    /// [`Self::find_commit_since`], a failure of which leaves the outcome unknown.
    async fn find_or_unknown(
        &self,
        first_seen: Option<i64>,
        req: &CommitRequest<'_>,
    ) -> Result<Option<i64>> {
        self.find_commit_since(first_seen, req.kind, req.identifier)
            .await
            .map_err(|e| {
                self.unknown(format!(
                    "an earlier attempt may have landed and the snapshots cannot be read: {e}"
                ))
            })
    }

    fn unknown(&self, message: String) -> Error {
        ErrorDetail::CommitOutcomeUnknown {
            table: self.table.identifier().to_string(),
            message: format!(
                "{message}; nothing this commit wrote was deleted (a committer restarted with \
                 the same commit user skips it if it landed)"
            ),
        }
        .into()
    }

    /// The id of a snapshot after `after` made by this committer for (`kind`, `identifier`).
    async fn find_commit_since(
        &self,
        after: Option<i64>,
        kind: CommitKind,
        identifier: i64,
    ) -> Result<Option<i64>> {
        let sm = self.table.snapshot_manager();
        let Some(latest) = sm.latest_id().await? else {
            return Ok(None);
        };
        for id in after.map(|a| a + 1).unwrap_or(1)..=latest {
            let s = match sm.snapshot(id).await {
                Ok(s) => s,
                // Expired meanwhile: it cannot be ours (ours is newer than the expiry floor
                // only if it was published, and then it is retained as one of the newest).
                Err(e) if e.is_snapshot_not_found() => continue,
                Err(e) => return Err(e),
            };
            if s.commit_user == self.commit_user
                && s.commit_identifier == identifier
                && s.commit_kind == kind
            {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    /// The newest snapshot committed by this commit user, if any is still retained (Java
    /// `SnapshotManager.latestSnapshotOfUser`: scans back from the latest snapshot).
    pub async fn latest_snapshot_of_user(&self) -> Result<Option<Snapshot>> {
        let sm = self.table.snapshot_manager();
        let Some(latest) = sm.latest_id().await? else {
            return Ok(None);
        };
        let earliest = sm.earliest_id().await?.unwrap_or(1);
        for id in (earliest..=latest).rev() {
            match sm.snapshot(id).await {
                Ok(s) if s.commit_user == self.commit_user => return Ok(Some(s)),
                Ok(_) => {}
                Err(e) if e.is_snapshot_not_found() => {}
                Err(e) => return Err(e),
            }
        }
        Ok(None)
    }

    /// The identifiers of `identifiers` not committed yet by this commit user (Java
    /// `filterCommitted`): every identifier up to the one in the user's latest snapshot has
    /// landed, since one committer commits its identifiers in increasing order.
    pub async fn filter_committed(&self, identifiers: &[i64]) -> Result<Vec<i64>> {
        let done = self
            .latest_snapshot_of_user()
            .await?
            .map(|s| s.commit_identifier);
        Ok(identifiers
            .iter()
            .copied()
            .filter(|i| done.is_none_or(|d| *i > d))
            .collect())
    }

    pub(super) fn backoff(&self, attempt: u32) -> Duration {
        let base = self
            .min_retry_wait
            .saturating_mul(1u32 << attempt.min(16))
            .min(self.max_retry_wait);
        // Up to 20% jitter so retrying writers spread out.
        let jitter = base.mul_f64(rand_fraction() * 0.2);
        base + jitter
    }
}

fn rand_fraction() -> f64 {
    // Sub-second clock noise is plenty for retry jitter; no RNG dependency needed.
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    (n % 1000) as f64 / 1000.0
}
