//! The audit log (owned by helper D — this first version is the hook only): one record per
//! call, written by the router's guard after the handler answered.

use crate::config::ServerConfig;
use crate::ops::Op;

/// One call, as the guard saw it.
#[derive(Debug)]
pub struct AuditEvent<'a> {
    /// The principal's name (`None` when authentication failed).
    pub principal: Option<&'a str>,
    /// The operation.
    pub op: Op,
    /// The database named in the URL, if any.
    pub db: Option<&'a str>,
    /// The table object named in the URL, if any.
    pub table: Option<&'a str>,
    /// The HTTP status answered.
    pub status: u16,
    /// How long the call took, in milliseconds.
    pub millis: u128,
}

/// Where audit records go.
#[derive(Debug)]
pub struct Audit {}

impl Audit {
    /// The audit log `config` asks for.
    pub fn from_config(_config: &ServerConfig) -> Result<Self, String> {
        Ok(Audit {})
    }

    /// Records one call.
    pub fn record(&self, event: &AuditEvent<'_>) {
        tracing::info!(
            principal = event.principal.unwrap_or("-"),
            op = event.op.operation_id(),
            db = event.db.unwrap_or("-"),
            table = event.table.unwrap_or("-"),
            status = event.status,
            ms = event.millis as u64,
            "call"
        );
    }
}
