//! Response bodies of Paimon's REST catalog (Java's `org.apache.paimon.rest.responses.*`).
//! List responses carry `nextPageToken` (absent or null on the last page; Java's
//! `PagedResponse`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::common::{de_default, ObjectIdentifier, Partition, TableSnapshot};
use crate::schema::Schema;
use crate::snapshot::Snapshot;

/// `GET /v1/config?warehouse=` (Java's `ConfigResponse`): the catalog's options are
/// `defaults` ⊕ the client's options ⊕ `overrides` (`ConfigResponse.merge`); `prefix` in
/// them is the path prefix of every other call.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigResponse {
    /// Options the client's own options override.
    #[serde(default, deserialize_with = "de_default")]
    pub defaults: BTreeMap<String, String>,
    /// Options that override the client's.
    #[serde(default, deserialize_with = "de_default")]
    pub overrides: BTreeMap<String, String>,
}

impl ConfigResponse {
    /// `defaults` ⊕ `client` ⊕ `overrides` (Java's `ConfigResponse.merge`).
    pub fn merge(&self, client: &BTreeMap<String, String>) -> BTreeMap<String, String> {
        let mut out = self.defaults.clone();
        out.extend(client.iter().map(|(k, v)| (k.clone(), v.clone())));
        out.extend(self.overrides.iter().map(|(k, v)| (k.clone(), v.clone())));
        out
    }
}

/// Every error answer (Java's `ErrorResponse`). `resourceType` is one of `DATABASE`, `TABLE`,
/// `COLUMN`, `SNAPSHOT`, `BRANCH`, `TAG`, `VIEW`, `DIALECT`, `FUNCTION`, `DEFINITION`,
/// `PARTITION`, `UNKNOWN`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorResponse {
    /// What went wrong, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The kind of resource concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_type: Option<String>,
    /// Its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// The HTTP status code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i32>,
}

/// `GET /v1/{prefix}/databases` (Java's `ListDatabasesResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListDatabasesResponse {
    /// Database names of this page.
    #[serde(default, deserialize_with = "de_default")]
    pub databases: Vec<String>,
    /// The next page's token; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// `GET /v1/{prefix}/databases/{db}` (Java's `GetDatabaseResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetDatabaseResponse {
    /// The database's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The database name.
    pub name: String,
    /// Where its tables live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Database options.
    #[serde(default, deserialize_with = "de_default")]
    pub options: BTreeMap<String, String>,
    /// Owner (Java's `AuditRESTResponse`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Creation time, epoch milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<i64>,
    /// Who created it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by: Option<String>,
    /// Last update, epoch milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<i64>,
    /// Who updated it last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_by: Option<String>,
}

/// `POST /v1/{prefix}/databases/{db}` (Java's `AlterDatabaseResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlterDatabaseResponse {
    /// Keys removed.
    #[serde(default, deserialize_with = "de_default")]
    pub removed: Vec<String>,
    /// Keys set.
    #[serde(default, deserialize_with = "de_default")]
    pub updated: Vec<String>,
    /// Keys to remove that did not exist.
    #[serde(default, deserialize_with = "de_default")]
    pub missing: Vec<String>,
}

/// `GET /v1/{prefix}/databases/{db}/tables` (Java's `ListTablesResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTablesResponse {
    /// Table names of this page.
    #[serde(default, deserialize_with = "de_default")]
    pub tables: Vec<String>,
    /// The next page's token; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// `GET /v1/{prefix}/databases/{db}/tables/{table}` (Java's `GetTableResponse`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTableResponse {
    /// The table's uuid: the `tableId` of its commits.
    pub id: String,
    /// The database name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
    /// The table name.
    pub name: String,
    /// Where the table's files are.
    pub path: String,
    /// Whether the files are the user's (dropping the table keeps them).
    #[serde(default)]
    pub is_external: bool,
    /// Id of the current schema.
    pub schema_id: i64,
    /// The current schema.
    #[serde(with = "super::json::schema")]
    pub schema: Schema,
    /// Owner (Java's `AuditRESTResponse`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Creation time, epoch milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<i64>,
    /// Who created it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by: Option<String>,
    /// Last update, epoch milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<i64>,
    /// Who updated it last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_by: Option<String>,
}

/// `GET /v1/{prefix}/databases/{db}/table-details` (Java's `ListTableDetailsResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTableDetailsResponse {
    /// Tables of this page.
    #[serde(default, deserialize_with = "de_default")]
    pub table_details: Vec<GetTableResponse>,
    /// The next page's token; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// `GET /v1/{prefix}/tables` (Java's `ListTablesGloballyResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTablesGloballyResponse {
    /// Tables of this page.
    #[serde(default, deserialize_with = "de_default")]
    pub tables: Vec<ObjectIdentifier>,
    /// The next page's token; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// `POST …/tables/{table}/commit` (Java's `CommitTableResponse`). `false`: the commit lost a
/// race (the base snapshot is no longer the latest); the client re-plans.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommitTableResponse {
    /// Whether the snapshot was published.
    pub success: bool,
}

/// `GET …/tables/{table}/token` (Java's `GetTableTokenResponse`): file-system credentials for
/// the table's files, as FileIO options.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTableTokenResponse {
    /// Option → value (`fs.oss.accessKeyId`, `s3.access-key`, …).
    #[serde(default, deserialize_with = "de_default")]
    pub token: BTreeMap<String, String>,
    /// When the credentials expire, epoch milliseconds.
    #[serde(default)]
    pub expires_at_millis: i64,
}

/// `POST …/tables/{table}/auth` (Java's `AuthTableQueryResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthTableQueryResponse {
    /// Row filters the reader must apply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<Vec<String>>,
    /// Column → masking expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column_masking: Option<BTreeMap<String, String>>,
}

/// `GET …/tables/{table}/snapshot` (Java's `GetTableSnapshotResponse`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTableSnapshotResponse {
    /// The latest snapshot with the table's totals.
    pub snapshot: TableSnapshot,
}

/// `GET …/tables/{table}/snapshots/{version}` (Java's `GetVersionSnapshotResponse`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetVersionSnapshotResponse {
    /// The snapshot.
    pub snapshot: Snapshot,
}

/// `GET …/tables/{table}/snapshots` (Java's `ListSnapshotsResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSnapshotsResponse {
    /// Snapshots of this page.
    #[serde(default, deserialize_with = "de_default")]
    pub snapshots: Vec<Snapshot>,
    /// The next page's token; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// `GET …/tables/{table}/partitions` and the `list-by-*` calls (Java's `ListPartitionsResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPartitionsResponse {
    /// Partitions of this page.
    #[serde(default, deserialize_with = "de_default")]
    pub partitions: Vec<Partition>,
    /// The next page's token; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// `POST …/tables/{table}/partitions` (Java's `CreatePartitionsResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatePartitionsResponse {
    /// Specs created.
    #[serde(default, deserialize_with = "de_default")]
    pub created: Vec<BTreeMap<String, String>>,
    /// Specs that existed.
    #[serde(default, deserialize_with = "de_default")]
    pub existed: Vec<BTreeMap<String, String>>,
}

/// `POST …/tables/{table}/partitions/drop` (Java's `DropPartitionsResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DropPartitionsResponse {
    /// Specs dropped.
    #[serde(default, deserialize_with = "de_default")]
    pub dropped: Vec<BTreeMap<String, String>>,
    /// Specs that did not exist.
    #[serde(default, deserialize_with = "de_default")]
    pub missing: Vec<BTreeMap<String, String>>,
}

/// `GET …/tables/{table}/branches` (Java's `ListBranchesResponse`; not paged).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListBranchesResponse {
    /// Branch names.
    #[serde(default, deserialize_with = "de_default")]
    pub branches: Vec<String>,
}

/// `GET …/tables/{table}/tags` (Java's `ListTagsResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTagsResponse {
    /// Tag names of this page.
    #[serde(default, deserialize_with = "de_default")]
    pub tags: Vec<String>,
    /// The next page's token; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// `GET …/tables/{table}/tags/{tag}` (Java's `GetTagResponse`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTagResponse {
    /// The tag name.
    pub tag_name: String,
    /// The snapshot it names.
    pub snapshot: Snapshot,
    /// Creation time, epoch milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag_create_time: Option<i64>,
    /// How long it is kept (duration text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag_time_retained: Option<String>,
}

/// One consumer of a table (Java's `ConsumerInfo`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerInfo {
    /// The consumer.
    pub consumer_id: String,
    /// The next snapshot it reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_snapshot: Option<i64>,
}

/// `GET …/tables/{table}/consumers` (Java's `ListConsumersResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListConsumersResponse {
    /// Consumers of this page.
    #[serde(default, deserialize_with = "de_default")]
    pub consumers: Vec<ConsumerInfo>,
    /// The next page's token; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}
