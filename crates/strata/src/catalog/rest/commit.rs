//! The [`SnapshotCommit`] of a table loaded from a REST catalog: Java's
//! `CatalogSnapshotCommit` with the table's uuid (`GetTableResponse.id`) — every commit is
//! `POST …/commit` and every rollback `POST …/rollback`, decided by the server.

use async_trait::async_trait;
use strata_spec::snapshot::Snapshot;

use super::http::CallError;
use super::RestCatalog;
use crate::error::ErrorDetail;
use crate::table::{CommitContext, Identifier, RollbackInstant, SnapshotCommit};
use crate::Result;

/// Commits of one table through its REST catalog.
#[derive(Clone, Debug)]
pub(crate) struct RestSnapshotCommit {
    catalog: RestCatalog,
    identifier: Identifier,
    table_uuid: String,
}

impl RestSnapshotCommit {
    pub(crate) fn new(catalog: RestCatalog, identifier: Identifier, table_uuid: String) -> Self {
        RestSnapshotCommit {
            catalog,
            identifier,
            table_uuid,
        }
    }
}

#[async_trait]
impl SnapshotCommit for RestSnapshotCommit {
    async fn commit(&self, snapshot: &Snapshot, ctx: &CommitContext) -> Result<bool> {
        self.catalog
            .commit_with_uuid(
                &self.identifier,
                Some(self.table_uuid.clone()),
                snapshot,
                ctx,
            )
            .await
    }

    async fn rollback_to(
        &self,
        instant: &RollbackInstant,
        from_snapshot: Option<i64>,
    ) -> Result<bool> {
        self.catalog
            .rollback(&self.identifier, instant, from_snapshot)
            .await?;
        Ok(true)
    }
}

/// The meaning of a commit call's outcome: the server's `success`, or an error. An answer
/// that never came (5xx, timeout, reset) leaves open whether the snapshot landed.
pub(crate) fn commit_outcome(
    outcome: std::result::Result<bool, CallError>,
    id: &Identifier,
) -> Result<bool> {
    match outcome {
        Ok(success) => Ok(success),
        Err(CallError::Transport {
            message,
            sent: true,
        }) => Err(ErrorDetail::CommitOutcomeUnknown {
            table: id.to_string(),
            message: format!("the REST catalog did not answer the commit: {message}"),
        }
        .into()),
        Err(CallError::Status(f)) if f.status >= 500 && f.status != 501 => {
            Err(ErrorDetail::CommitOutcomeUnknown {
                table: id.to_string(),
                message: format!(
                    "the REST catalog failed the commit with HTTP {}: {}",
                    f.status,
                    f.error.message.clone().unwrap_or_default()
                ),
            }
            .into())
        }
        Err(e) if e.is_not_found(None) => Err(ErrorDetail::TableNotFound(id.to_string()).into()),
        Err(e) => Err(e.into_error("POST commit").with_table(id)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::http::RestFailure;
    use super::*;
    use strata_spec::rest::ErrorResponse;

    fn status(code: u16) -> CallError {
        CallError::Status(RestFailure {
            status: code,
            error: ErrorResponse {
                message: Some("m".into()),
                code: Some(code as i32),
                ..Default::default()
            },
        })
    }

    #[test]
    fn commit_outcomes_map_to_kinds() {
        let id = Identifier::new("db", "t").unwrap();
        assert!(commit_outcome(Ok(true), &id).unwrap());
        assert!(!commit_outcome(Ok(false), &id).unwrap());
        for e in [
            status(500),
            status(503),
            CallError::Transport {
                message: "reset".into(),
                sent: true,
            },
        ] {
            let err = commit_outcome(Err(e), &id).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::OutcomeUnknown);
            assert!(err.may_have_committed());
        }
        let err = commit_outcome(
            Err(CallError::Transport {
                message: "refused".into(),
                sent: false,
            }),
            &id,
        )
        .unwrap_err();
        assert!(!err.may_have_committed());
        assert_eq!(err.kind(), crate::ErrorKind::Io);
        assert!(err.is_retryable());
        let kind = |c| commit_outcome(Err(status(c)), &id).unwrap_err().kind();
        assert_eq!(kind(404), crate::ErrorKind::NotFound);
        assert_eq!(kind(403), crate::ErrorKind::PermissionDenied);
        assert_eq!(kind(401), crate::ErrorKind::PermissionDenied);
        assert_eq!(kind(400), crate::ErrorKind::InvalidInput);
        assert_eq!(kind(501), crate::ErrorKind::Unsupported);
    }
}
