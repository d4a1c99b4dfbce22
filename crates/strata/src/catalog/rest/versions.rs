//! Snapshots, partitions, tags and branches of a REST catalog's tables, as the server lists
//! and manages them (Java's `RESTCatalog.listSnapshotsPaged`, `listPartitions`, `createTag`,
//! `createBranch`, …; Java's `supportsVersionManagement`).

use strata_spec::rest as dto;
use strata_spec::snapshot::Snapshot;

use super::{object_name, table_error, RestCatalog};
use crate::error::ErrorDetail;
use crate::table::Identifier;
use crate::Result;

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
        self.api()
            .list_branches(&id.database, &id.table)
            .await
            .map_err(|e| table_error(e, id, "GET branches"))
    }

    /// Creates branch `branch` of table `id`, from tag `from_tag` or empty (`POST …/branches`).
    pub async fn create_branch(
        &self,
        id: &Identifier,
        branch: &str,
        from_tag: Option<&str>,
    ) -> Result<()> {
        let body = dto::CreateBranchRequest {
            branch: branch.to_string(),
            from_tag: from_tag.map(str::to_string),
        };
        self.api()
            .create_branch(&id.database, &id.table, &body)
            .await
            .map_err(|e| table_error(e, id, "POST branches"))
    }

    /// Drops branch `branch` of table `id` (`DELETE …/branches/{branch}`).
    pub async fn drop_branch(&self, id: &Identifier, branch: &str) -> Result<()> {
        self.api()
            .drop_branch(&id.database, &id.table, branch)
            .await
            .map_err(|e| table_error(e, id, "DELETE branches"))
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
