//! Loading a table of a REST catalog and its [`SnapshotCommit`]: the table's files are read
//! at the `path` the server gives, with the catalog's FileIO options plus its vended data
//! token; its commits are Java's `CatalogSnapshotCommit` with the table's uuid
//! (`GetTableResponse.id`) — every commit is `POST …/commit` and every rollback `POST
//! …/rollback`, decided by the server; the table's branches are the server's too (list,
//! create, drop, fast-forward, rename: Java's `CatalogBranchManager`).
//!
//! The table's store and its vended credentials come from `token_io`.

use std::sync::Arc;

use async_trait::async_trait;
use strata_spec::rest as dto;
use strata_spec::snapshot::Snapshot;

use super::http::CallError;
use super::{object_name, resource_name, table_error, table_schema_of, RestCatalog};
use crate::error::ErrorDetail;
use crate::meta::{SchemaManager, TablePaths};
use crate::table::{CommitContext, Identifier, RollbackInstant, SnapshotCommit, Table};
use crate::{Error, Result};

/// Commits of one table through its REST catalog.
#[derive(Clone, Debug)]
pub(crate) struct RestSnapshotCommit {
    catalog: RestCatalog,
    identifier: Identifier,
    /// The table's uuid on the server (`GetTableResponse.id`): known when the table was loaded,
    /// asked for at the first commit of a handle switched to a branch (servers differ: Java's
    /// gives a branch its table's uuid, strata's its own).
    table_uuid: Arc<tokio::sync::OnceCell<String>>,
}

impl RestSnapshotCommit {
    async fn table_uuid(&self) -> Result<String> {
        let id = &self.identifier;
        let uuid = self
            .table_uuid
            .get_or_try_init(|| async {
                let object = object_name(&id.table, id.branch.as_deref());
                self.catalog
                    .api()
                    .get_table(&id.database, &object)
                    .await
                    .map(|r| r.id)
                    .map_err(|e| table_error(e, id, "GET table"))
            })
            .await?;
        Ok(uuid.clone())
    }
}

#[async_trait]
impl SnapshotCommit for RestSnapshotCommit {
    async fn commit(&self, snapshot: &Snapshot, ctx: &CommitContext) -> Result<bool> {
        let uuid = self.table_uuid().await?;
        self.catalog
            .commit_with_uuid(&self.identifier, Some(uuid), snapshot, ctx)
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

    // Branches: Java's `CatalogBranchManager` (the REST catalog `supportsVersionManagement`).

    async fn list_branches(&self) -> Result<Option<Vec<String>>> {
        Ok(Some(self.catalog.list_branches(&self.identifier).await?))
    }

    async fn create_branch(
        &self,
        name: &str,
        from_tag: Option<&str>,
        from_snapshot: Option<i64>,
    ) -> Result<bool> {
        if let Some(id) = from_snapshot {
            return Err(ErrorDetail::Unsupported(format!(
                "creating branch '{name}' of {} from snapshot {id}: Paimon's REST catalog \
                 creates a branch empty or from a tag only (createBranch's fromTag); tag the \
                 snapshot and create the branch from the tag",
                self.identifier
            ))
            .into());
        }
        self.catalog
            .create_branch(&self.identifier, name, from_tag)
            .await?;
        Ok(true)
    }

    async fn drop_branch(&self, name: &str) -> Result<bool> {
        self.catalog.drop_branch(&self.identifier, name).await?;
        Ok(true)
    }

    async fn fast_forward(&self, name: &str) -> Result<bool> {
        self.catalog.fast_forward(&self.identifier, name).await?;
        Ok(true)
    }

    async fn rename_branch(&self, from: &str, to: &str) -> Result<bool> {
        self.catalog
            .rename_branch(&self.identifier, from, to)
            .await?;
        Ok(true)
    }

    fn on_branch(&self, branch: &str) -> Option<Arc<dyn SnapshotCommit>> {
        let identifier = self.identifier.main().with_branch(Some(branch)).ok()?;
        Some(Arc::new(RestSnapshotCommit {
            catalog: self.catalog.clone(),
            identifier,
            table_uuid: Arc::default(),
        }))
    }
}

impl RestCatalog {
    /// The table `id` the server answered with `r`, reading its files at `r.path`.
    pub(super) async fn load_table(
        &self,
        id: &Identifier,
        r: dto::GetTableResponse,
    ) -> Result<Table> {
        let object = object_name(&id.table, id.branch.as_deref());
        let (io, root) = self.table_file_io(&id.database, &object, &r.path).await?;
        let paths = TablePaths::new(root).with_branch(id.branch.as_deref());
        let sm = SchemaManager::new(io.clone(), paths.clone());
        let schema = match sm.latest().await? {
            Some(s) => s,
            // The server knows the table but its files hold no schema (yet): the server's.
            None => Arc::new(table_schema_of(&r)?),
        };
        let schema = crate::table::with_branch_option(&schema, paths.branch());
        let commit = RestSnapshotCommit {
            catalog: self.clone(),
            identifier: id.clone(),
            table_uuid: Arc::new(tokio::sync::OnceCell::new_with(Some(r.id.clone()))),
        };
        Ok(Table::new(id.clone(), io, paths, sm, schema)?.with_snapshot_commit(Arc::new(commit)))
    }

    /// `POST …/commit` for table `id` with uuid `table_id` (see the module docs).
    pub(crate) async fn commit_with_uuid(
        &self,
        id: &Identifier,
        table_id: Option<String>,
        snapshot: &Snapshot,
        ctx: &CommitContext,
    ) -> Result<bool> {
        let branch = Some(ctx.branch.as_str()).filter(|b| !b.is_empty());
        let object = object_name(&id.table, branch.or(id.branch.as_deref()));
        let body = dto::CommitTableRequest {
            table_id,
            base_snapshot_uuid: ctx.base_snapshot_uuid.clone(),
            snapshot: snapshot.clone(),
            statistics: ctx.statistics.clone(),
        };
        commit_outcome(self.api().commit(&id.database, &object, &body).await, id)
    }

    /// `POST …/rollback` for table `id`.
    pub(crate) async fn rollback(
        &self,
        id: &Identifier,
        instant: &RollbackInstant,
        from_snapshot: Option<i64>,
    ) -> Result<()> {
        let object = object_name(&id.table, id.branch.as_deref());
        let body = dto::RollbackTableRequest {
            instant: match instant {
                RollbackInstant::Snapshot(s) => dto::Instant::Snapshot { snapshot_id: *s },
                RollbackInstant::Tag(t) => dto::Instant::Tag {
                    tag_name: t.clone(),
                },
            },
            from_snapshot,
        };
        match self.api().rollback(&id.database, &object, &body).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_not_found(Some("SNAPSHOT")) => Err(Error::invalid_argument(format!(
                "Rollback snapshot '{}' doesn't exist.",
                resource_name(&e)
            ))),
            Err(e) if e.is_not_found(Some("TAG")) => Err(Error::invalid_argument(format!(
                "Rollback tag '{}' doesn't exist.",
                resource_name(&e)
            ))),
            Err(e) => Err(table_error(e, id, "POST rollback")),
        }
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
