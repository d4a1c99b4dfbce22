//! The types request and response bodies share ([`ObjectIdentifier`], [`Instant`],
//! [`Partition`], [`TableSnapshot`]) and the `null`-as-default reader: a leaf below
//! `requests` and `responses`, re-exported by `mod.rs`.

use serde::{Deserialize, Serialize};

/// An object name in a database (Java's `org.apache.paimon.catalog.Identifier` as JSON:
/// `{"database": …, "object": …}`). Branch tables are objects named `table$branch_NAME`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ObjectIdentifier {
    /// The database name.
    pub database: String,
    /// The table (view, function) name, with `$branch_NAME` for a branch.
    pub object: String,
}

impl ObjectIdentifier {
    /// `database`.`object`.
    pub fn new(database: impl Into<String>, object: impl Into<String>) -> ObjectIdentifier {
        ObjectIdentifier {
            database: database.into(),
            object: object.into(),
        }
    }
}

/// A point of a table's history to roll back to (Java's `org.apache.paimon.table.Instant`,
/// `@JsonTypeInfo(property = "type")`): `{"type":"snapshot","snapshotId":3}` or
/// `{"type":"tag","tagName":"t1"}`. (The OpenAPI file names the discriminator `action`; Java,
/// which is what clients send, uses `type`.)
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Instant {
    /// A snapshot id.
    #[serde(rename_all = "camelCase")]
    Snapshot {
        /// The snapshot id.
        snapshot_id: i64,
    },
    /// A tag name.
    #[serde(rename_all = "camelCase")]
    Tag {
        /// The tag name.
        tag_name: String,
    },
}

/// A partition's statistics and state as a REST catalog keeps them (Java's
/// `org.apache.paimon.partition.Partition`, which extends `PartitionStatistics`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Partition {
    /// Partition key → value text (`partition.default-name` for NULL).
    #[serde(default)]
    pub spec: std::collections::BTreeMap<String, String>,
    /// Rows (unmerged) in the partition.
    #[serde(default)]
    pub record_count: i64,
    /// Bytes of its data files.
    #[serde(default)]
    pub file_size_in_bytes: i64,
    /// Number of data files.
    #[serde(default)]
    pub file_count: i64,
    /// Creation time of the newest file, epoch milliseconds.
    #[serde(default)]
    pub last_file_creation_time: i64,
    /// Buckets of the partition.
    #[serde(default)]
    pub total_buckets: i32,
    /// Whether the partition was marked done.
    #[serde(default)]
    pub done: bool,
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
    /// Partition options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<std::collections::BTreeMap<String, String>>,
}

/// A table's latest snapshot with the table's totals (Java's `org.apache.paimon.table.TableSnapshot`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TableSnapshot {
    /// The snapshot (the `snapshot-N` file's JSON).
    pub snapshot: crate::snapshot::Snapshot,
    /// Rows (unmerged) of the table.
    #[serde(default)]
    pub record_count: i64,
    /// Bytes of its data files.
    #[serde(default)]
    pub file_size_in_bytes: i64,
    /// Number of data files.
    #[serde(default)]
    pub file_count: i64,
    /// Creation time of the newest file, epoch milliseconds.
    #[serde(default)]
    pub last_file_creation_time: i64,
}

/// Reads `null` as the type's default (Java writes absent lists and maps as `null`).
pub(crate) fn de_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}
