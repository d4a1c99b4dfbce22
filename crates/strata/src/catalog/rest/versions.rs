//! Snapshots, partitions, tags, branches, consumers and schema rollback of a REST catalog's
//! tables, as the server lists and manages them (Java's `RESTCatalog.listSnapshotsPaged`,
//! `listPartitions`, `createTag`, `createBranch`, `listConsumersPaged`, `rollbackSchema`, …;
//! Java's `supportsVersionManagement`).

use strata_spec::rest as dto;
use strata_spec::snapshot::Snapshot;

use super::http::CallError;
use super::{object_name, table_error, RestCatalog};
use crate::error::ErrorDetail;
use crate::table::Identifier;
use crate::{Error, Result};

impl RestCatalog {
    /// The table's snapshots as the server lists them (`GET …/snapshots`, every page).
    pub async fn list_snapshots(&self, id: &Identifier) -> Result<Vec<Snapshot>> {
        let object = object_name(&id.table, id.branch.as_deref());
        self.api()
            .list_snapshots(&id.database, &object)
            .await
            .map_err(|e| table_error(e, id, "GET snapshots"))
    }

    /// The table's latest snapshot with its totals (`GET …/snapshot`); `None` when it has
    /// none yet.
    pub async fn load_snapshot(&self, id: &Identifier) -> Result<Option<dto::TableSnapshot>> {
        let object = object_name(&id.table, id.branch.as_deref());
        match self.api().load_snapshot(&id.database, &object).await {
            Ok(s) => Ok(Some(s)),
            Err(e) if e.is_not_found(Some("SNAPSHOT")) => Ok(None),
            Err(e) => Err(table_error(e, id, "GET snapshot")),
        }
    }

    /// The table's partitions with the statistics the server summed from the commits
    /// (`GET …/partitions`, every page).
    pub async fn list_partitions(&self, id: &Identifier) -> Result<Vec<dto::Partition>> {
        let object = object_name(&id.table, id.branch.as_deref());
        self.api()
            .list_partitions(&id.database, &object)
            .await
            .map_err(|e| table_error(e, id, "GET partitions"))
    }

    /// The table's branches (`GET …/branches`).
    pub async fn list_branches(&self, id: &Identifier) -> Result<Vec<String>> {
        let object = object_name(&id.table, id.branch.as_deref());
        self.api()
            .list_branches(&id.database, &object)
            .await
            .map_err(|e| table_error(e, id, "GET branches"))
    }

    /// Creates branch `branch` of table `id`, from tag `from_tag` or empty (`POST …/branches`).
    /// Errors as Java's `CatalogBranchManager` words them: an existing branch or a missing tag
    /// is an invalid argument.
    pub async fn create_branch(
        &self,
        id: &Identifier,
        branch: &str,
        from_tag: Option<&str>,
    ) -> Result<()> {
        let object = object_name(&id.table, id.branch.as_deref());
        let body = dto::CreateBranchRequest {
            branch: branch.to_string(),
            from_tag: from_tag.map(str::to_string),
        };
        self.api()
            .create_branch(&id.database, &object, &body)
            .await
            .map_err(|e| branch_error(e, id, branch, from_tag, "POST branches"))
    }

    /// Drops branch `branch` of table `id` (`DELETE …/branches/{branch}`).
    pub async fn drop_branch(&self, id: &Identifier, branch: &str) -> Result<()> {
        let object = object_name(&id.table, id.branch.as_deref());
        self.api()
            .drop_branch(&id.database, &object, branch)
            .await
            .map_err(|e| branch_error(e, id, branch, None, "DELETE branches"))
    }

    /// Fast-forwards table `id` (its branch) to branch `branch` (`POST
    /// …/branches/{branch}/forward`).
    pub async fn fast_forward(&self, id: &Identifier, branch: &str) -> Result<()> {
        let object = object_name(&id.table, id.branch.as_deref());
        self.api()
            .forward_branch(&id.database, &object, branch)
            .await
            .map_err(|e| branch_error(e, id, branch, None, "POST branches/forward"))
    }

    /// Renames branch `from` of table `id` to `to` (`POST …/branches/{from}/rename`, an
    /// endpoint of the OpenAPI file that Java 2.0's client never calls). The server's answer is
    /// checked against its branch list afterwards: Java's `RESTCatalogServer` answers 200
    /// without renaming, and a rename that did not happen is refused by name, never reported
    /// done.
    pub async fn rename_branch(&self, id: &Identifier, from: &str, to: &str) -> Result<()> {
        let object = object_name(&id.table, id.branch.as_deref());
        self.api()
            .rename_branch(&id.database, &object, from, to)
            .await
            .map_err(|e| match e.status().map(|f| f.status) {
                Some(409) => Error::invalid_argument(format!("Branch name '{to}' already exists.")),
                _ => branch_error(e, id, from, None, "POST branches/rename"),
            })?;
        let branches = self.list_branches(id).await?;
        if branches.iter().any(|b| b == from) || !branches.iter().any(|b| b == to) {
            return Err(ErrorDetail::Unsupported(format!(
                "renameBranch: the REST catalog server answered the rename of branch '{from}' \
                 of {id} to '{to}' but did not rename it (Java's RESTCatalogServer does not \
                 implement renameBranch)"
            ))
            .into());
        }
        Ok(())
    }

    /// The table's consumers with the next snapshot each reads (`GET …/consumers`, every page;
    /// Java's `RESTCatalog.listConsumersPaged`).
    pub async fn list_consumers(&self, id: &Identifier) -> Result<Vec<(String, i64)>> {
        let object = object_name(&id.table, id.branch.as_deref());
        let consumers = self
            .api()
            .list_consumers(&id.database, &object)
            .await
            .map_err(|e| table_error(e, id, "GET consumers"))?;
        Ok(consumers
            .into_iter()
            .filter_map(|c| c.next_snapshot.map(|n| (c.consumer_id, n)))
            .collect())
    }

    /// Moves consumer `consumer` of table `id` to `next_snapshot`, or deletes it when `None`
    /// (`POST …/consumers/reset`, Java's `RESTCatalog.resetConsumer`).
    pub async fn reset_consumer(
        &self,
        id: &Identifier,
        consumer: &str,
        next_snapshot: Option<i64>,
    ) -> Result<()> {
        let object = object_name(&id.table, id.branch.as_deref());
        let body = dto::ResetConsumerRequest {
            consumer_id: consumer.to_string(),
            next_snapshot_id: next_snapshot,
        };
        match self
            .api()
            .reset_consumer(&id.database, &object, &body)
            .await
        {
            Err(e) if e.is_not_found(Some("SNAPSHOT")) => Err(ErrorDetail::SnapshotNotFound {
                table: id.to_string(),
                id: next_snapshot.unwrap_or_default(),
            }
            .into()),
            r => r.map_err(|e| table_error(e, id, "POST consumers/reset")),
        }
    }

    /// Deletes the schema versions of table `id` above `schema_id` on the server (`POST
    /// …/rollback-schema`, Java's `RESTCatalog.rollbackSchema`; the server refuses when a
    /// snapshot, tag or changelog still uses a newer one).
    pub async fn rollback_schema(&self, id: &Identifier, schema_id: i64) -> Result<()> {
        let object = object_name(&id.table, id.branch.as_deref());
        self.api()
            .rollback_schema(&id.database, &object, schema_id)
            .await
            .map_err(|e| table_error(e, id, "POST rollback-schema"))
    }

    /// The table's tag names (`GET …/tags`, every page).
    pub async fn list_tags(&self, id: &Identifier) -> Result<Vec<String>> {
        let object = object_name(&id.table, id.branch.as_deref());
        self.api()
            .list_tags(&id.database, &object)
            .await
            .map_err(|e| table_error(e, id, "GET tags"))
    }

    /// Tag `tag` of table `id` with its snapshot (`GET …/tags/{tag}`).
    pub async fn get_tag(&self, id: &Identifier, tag: &str) -> Result<dto::GetTagResponse> {
        let object = object_name(&id.table, id.branch.as_deref());
        match self.api().get_tag(&id.database, &object, tag).await {
            Err(e) if e.is_not_found(Some("TAG")) => Err(ErrorDetail::TagNotFound {
                table: id.to_string(),
                name: tag.to_string(),
            }
            .into()),
            r => r.map_err(|e| table_error(e, id, "GET tags")),
        }
    }

    /// Creates tag `tag` of table `id` on snapshot `snapshot_id` (the latest when `None`),
    /// kept `time_retained` (a duration text such as `1 d`) when given (`POST …/tags`).
    pub async fn create_tag(
        &self,
        id: &Identifier,
        tag: &str,
        snapshot_id: Option<i64>,
        time_retained: Option<&str>,
    ) -> Result<()> {
        let object = object_name(&id.table, id.branch.as_deref());
        let body = dto::CreateTagRequest {
            tag_name: tag.to_string(),
            snapshot_id,
            time_retained: time_retained.map(str::to_string),
        };
        match self.api().create_tag(&id.database, &object, &body).await {
            Err(e) if e.is_already_exists() => Err(ErrorDetail::TagAlreadyExists {
                table: id.to_string(),
                name: tag.to_string(),
            }
            .into()),
            r => r.map_err(|e| table_error(e, id, "POST tags")),
        }
    }

    /// Deletes tag `tag` of table `id` (`DELETE …/tags/{tag}`).
    pub async fn delete_tag(&self, id: &Identifier, tag: &str) -> Result<()> {
        let object = object_name(&id.table, id.branch.as_deref());
        match self.api().delete_tag(&id.database, &object, tag).await {
            Err(e) if e.is_not_found(Some("TAG")) => Err(ErrorDetail::TagNotFound {
                table: id.to_string(),
                name: tag.to_string(),
            }
            .into()),
            r => r.map_err(|e| table_error(e, id, "DELETE tags")),
        }
    }
}

/// A failed branch call, as Java's `CatalogBranchManager` reports it: a missing branch
/// (404 BRANCH), a missing tag (404 TAG) or an existing branch (409) is an invalid argument
/// with Java's wording; a missing table is its absence; the rest as any failed call.
fn branch_error(
    e: CallError,
    id: &Identifier,
    branch: &str,
    tag: Option<&str>,
    endpoint: &str,
) -> Error {
    if e.is_not_found(Some("BRANCH")) {
        return Error::invalid_argument(format!("Branch name '{branch}' doesn't exist."));
    }
    if e.is_not_found(Some("TAG")) {
        return Error::invalid_argument(format!("Tag '{}' doesn't exist.", tag.unwrap_or("")));
    }
    if e.is_already_exists() {
        return Error::invalid_argument(format!("Branch name '{branch}' already exists."));
    }
    table_error(e, id, endpoint)
}
