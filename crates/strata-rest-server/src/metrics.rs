//! Metrics and health (owned by helper D — this first version is the hook only): the guard
//! reports each call ([`Metrics::observe`]), the commit decision its outcome
//! ([`Metrics::commit`]); [`routes`] serves `/metrics` and `/healthz` outside authentication.

use axum::routing::get;
use axum::Router;

use crate::ops::Op;
use crate::state::AppState;

/// What a commit decision answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitOutcome {
    /// `{"success":true}`.
    Success,
    /// `{"success":false}`: a stale base or a taken id.
    Conflict,
    /// An error answer.
    Error,
}

/// The server's counters.
#[derive(Debug, Default)]
pub struct Metrics {}

impl Metrics {
    /// Empty counters.
    pub fn new() -> Self {
        Metrics {}
    }

    /// One call of `op` answered `status` after `seconds`.
    pub fn observe(&self, _op: Op, _status: u16, _seconds: f64) {}

    /// One commit decision.
    pub fn commit(&self, _outcome: CommitOutcome) {}
}

/// `/healthz` (and, once implemented, `/metrics`), served without authentication.
pub fn routes() -> Router<AppState> {
    Router::new().route("/healthz", get(|| async { "ok" }))
}
