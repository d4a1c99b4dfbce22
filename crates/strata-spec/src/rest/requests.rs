//! Request bodies of Paimon's REST catalog (Java's `org.apache.paimon.rest.requests.*`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::common::{de_default, Instant, ObjectIdentifier};
use crate::schema::{Schema, SchemaChange};

fn yes() -> bool {
    true
}

fn null_as_true<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(Option::<bool>::deserialize(d)?.unwrap_or(true))
}

/// `POST /v1/{prefix}/databases` (Java's `CreateDatabaseRequest`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateDatabaseRequest {
    /// The database name.
    pub name: String,
    /// Database options.
    #[serde(default, deserialize_with = "de_default")]
    pub options: BTreeMap<String, String>,
}

/// `POST /v1/{prefix}/databases/{db}` (Java's `AlterDatabaseRequest`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlterDatabaseRequest {
    /// Option keys to remove.
    #[serde(default, deserialize_with = "de_default")]
    pub removals: Vec<String>,
    /// Options to set.
    #[serde(default, deserialize_with = "de_default")]
    pub updates: BTreeMap<String, String>,
}

/// `POST /v1/{prefix}/databases/{db}/tables` (Java's `CreateTableRequest`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTableRequest {
    /// The new table.
    pub identifier: ObjectIdentifier,
    /// Its schema (Java's `Schema`).
    #[serde(with = "super::json::schema")]
    pub schema: Schema,
}

/// `POST /v1/{prefix}/databases/{db}/tables/{table}` (Java's `AlterTableRequest`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlterTableRequest {
    /// The changes, applied in order.
    #[serde(with = "super::json::schema_changes")]
    pub changes: Vec<SchemaChange>,
}

/// `POST /v1/{prefix}/tables/rename` (Java's `RenameTableRequest`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenameTableRequest {
    /// The table renamed.
    pub source: ObjectIdentifier,
    /// Its new name.
    pub destination: ObjectIdentifier,
}

/// `POST /v1/{prefix}/databases/{db}/register` (Java's `RegisterTableRequest`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RegisterTableRequest {
    /// The name the table gets.
    pub identifier: ObjectIdentifier,
    /// Where the table's files are.
    pub path: String,
}

/// `POST …/tables/{table}/rollback` (Java's `RollbackTableRequest`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RollbackTableRequest {
    /// Where to roll back to.
    pub instant: Instant,
    /// The latest snapshot the caller saw; the server refuses when it is no longer the latest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_snapshot: Option<i64>,
}

/// `POST …/tables/{table}/rollback-schema` (Java's `RollbackSchemaRequest`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RollbackSchemaRequest {
    /// The schema id to roll back to.
    pub schema_id: i64,
}

/// `POST …/tables/{table}/auth` (Java's `AuthTableQueryRequest`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthTableQueryRequest {
    /// Columns read.
    #[serde(default, deserialize_with = "de_default")]
    pub select: Vec<String>,
}

/// `POST …/tables/{table}/partitions` (Java's `CreatePartitionsRequest`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatePartitionsRequest {
    /// Partition specs (key → value text).
    #[serde(default, deserialize_with = "de_default")]
    pub partition_specs: Vec<BTreeMap<String, String>>,
    /// Whether existing partitions are fine (absent or null: true, as Java reads it).
    #[serde(default = "yes", deserialize_with = "null_as_true")]
    pub ignore_if_exists: bool,
}

/// `POST …/tables/{table}/partitions/drop` (Java's `DropPartitionsRequest`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DropPartitionsRequest {
    /// Partition specs (key → value text).
    #[serde(default, deserialize_with = "de_default")]
    pub partition_specs: Vec<BTreeMap<String, String>>,
    /// Whether missing partitions are fine (absent or null: true, as Java reads it).
    #[serde(default = "yes", deserialize_with = "null_as_true")]
    pub ignore_if_not_exists: bool,
}

/// `POST …/partitions/mark` (Java's `MarkDonePartitionsRequest`) and `POST
/// …/partitions/list-by-names` (`ListPartitionsByNamesRequest`): a list of partition specs
/// (Java's `BasePartitionsRequest`, member `specs`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PartitionSpecsRequest {
    /// Partition specs (key → value text).
    #[serde(default, deserialize_with = "de_default")]
    pub specs: Vec<BTreeMap<String, String>>,
}

/// `POST …/partitions/list-by-filter` (Java's `ListPartitionsByFilterRequest`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPartitionsByFilterRequest {
    /// A predicate (Java's JSON predicate) on the partition columns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// SQL LIKE-style pattern (`%`) on partition names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_name_pattern: Option<String>,
    /// Page size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_results: Option<i32>,
    /// Where the page starts (`nextPageToken` of the previous one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_token: Option<String>,
}

/// `POST …/tables/{table}/branches` (Java's `CreateBranchRequest`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateBranchRequest {
    /// The new branch.
    pub branch: String,
    /// The tag it starts from; `None`: an empty branch at the current schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_tag: Option<String>,
}

/// `POST …/branches/{branch}/forward` (Java's `ForwardBranchRequest`: an empty object).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForwardBranchRequest {}

/// `POST …/branches/{branch}/rename` (the OpenAPI file's `RenameBranchRequest`; Java 2.0's
/// `RESTApi` has no client call for it, its `RESTCatalog.renameBranch` refuses).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenameBranchRequest {
    /// The branch's new name.
    pub to_branch: String,
}

/// `POST …/tables/{table}/tags` (Java's `CreateTagRequest`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTagRequest {
    /// The new tag.
    pub tag_name: String,
    /// The snapshot it names; `None`: the latest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_id: Option<i64>,
    /// How long it is kept (a duration text such as `1 d`, Java's `TimeUtils`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_retained: Option<String>,
}

/// `POST …/tables/{table}/consumers/reset` (Java's `ResetConsumerRequest`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResetConsumerRequest {
    /// The consumer.
    pub consumer_id: String,
    /// Its next snapshot; `None` deletes the consumer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_snapshot_id: Option<i64>,
}

/// `POST …/tables/{table}/commit` (Java's `CommitTableRequest`): the catalog publishes
/// `snapshot` if its latest snapshot is still `baseSnapshotUuid` (compare-and-set), and sums
/// `statistics` into its partition listing. Answered by a `CommitTableResponse`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommitTableRequest {
    /// The table's uuid (`GetTableResponse.id`); a table dropped and re-created has another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_id: Option<String>,
    /// The uuid of the latest snapshot the commit planned on; `None` for the first commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_snapshot_uuid: Option<String>,
    /// The new snapshot (the `snapshot-N` file's JSON).
    pub snapshot: crate::snapshot::Snapshot,
    /// Per partition, what the commit changes (deltas).
    #[serde(default, deserialize_with = "de_default")]
    pub statistics: Vec<crate::partition::PartitionStatistics>,
}
