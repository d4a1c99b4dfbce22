//! Snapshots (`snapshot/snapshot-N`) and the `LATEST` / `EARLIEST` hint files.
//!
//! A [`Snapshot`] is the entry point to one committed version of a table: it names the schema,
//! the manifest lists (base = all live files of the previous snapshot, delta = this commit's
//! changes, changelog), the index manifest and the commit's bookkeeping. The JSON is written
//! the way Java's `Snapshot` is serialized by Jackson: members in `@JsonCreator` order, optional
//! members omitted when null, pretty printed (see [`crate::json`]).
//!
//! Reading tolerates what older and other writers produce: unknown members (`logOffsets` of
//! ≤1.3 writers, `totalFileSize`, …), explicit `null`s, a missing `version` (≤0.2 writers),
//! missing record counts, and pypaimon's member order.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

use crate::error::{Result, SpecError};
use crate::json::to_jackson_pretty;

/// Snapshot format version written by current Java writers (and by strata).
pub const CURRENT_VERSION: i32 = 3;

/// Id of the first snapshot of a table.
pub const FIRST_SNAPSHOT_ID: i64 = 1;

/// `commitIdentifier` of batch (non-streaming) commits: `Long.MAX_VALUE`.
pub const BATCH_COMMIT_IDENTIFIER: i64 = i64::MAX;

/// Name of the hint file holding the latest snapshot id.
pub const LATEST_HINT: &str = "LATEST";

/// Name of the hint file holding the earliest snapshot id.
pub const EARLIEST_HINT: &str = "EARLIEST";

/// What a commit did (`Snapshot.CommitKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CommitKind {
    /// New files added, none deleted.
    Append,
    /// Files rewritten by compaction.
    Compact,
    /// Files added that replace (or just delete) existing files.
    Overwrite,
    /// Statistics collected.
    Analyze,
}

impl CommitKind {
    /// The JSON spelling: `APPEND`, `COMPACT`, `OVERWRITE`, `ANALYZE`.
    pub fn as_str(self) -> &'static str {
        match self {
            CommitKind::Append => "APPEND",
            CommitKind::Compact => "COMPACT",
            CommitKind::Overwrite => "OVERWRITE",
            CommitKind::Analyze => "ANALYZE",
        }
    }
}

/// The logical operation that produced a snapshot (Java 2.0 `Snapshot.Operation`), written as
/// [`Snapshot::operation`]. Java's core API leaves it null except for `truncateTable` /
/// `truncatePartitions` (TRUNCATE); SQL engines set it per statement (Spark's
/// `PaimonSparkWriter`: INSERT → WRITE, INSERT OVERWRITE → OVERWRITE, DELETE, UPDATE,
/// MERGE INTO → MERGE). Compaction and expiry leave it null.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SnapshotOperation {
    /// INSERT INTO.
    Write,
    /// INSERT OVERWRITE.
    Overwrite,
    /// DELETE FROM.
    Delete,
    /// TRUNCATE TABLE / partition truncation.
    Truncate,
    /// UPDATE.
    Update,
    /// MERGE INTO.
    Merge,
    /// CREATE TABLE AS SELECT.
    CreateTableAsSelect,
    /// REPLACE TABLE AS SELECT.
    ReplaceTableAsSelect,
    /// CREATE OR REPLACE TABLE AS SELECT.
    CreateOrReplaceTableAsSelect,
}

impl SnapshotOperation {
    /// Every operation, in Java's declaration order.
    pub const ALL: [SnapshotOperation; 9] = [
        SnapshotOperation::Write,
        SnapshotOperation::Overwrite,
        SnapshotOperation::Delete,
        SnapshotOperation::Truncate,
        SnapshotOperation::Update,
        SnapshotOperation::Merge,
        SnapshotOperation::CreateTableAsSelect,
        SnapshotOperation::ReplaceTableAsSelect,
        SnapshotOperation::CreateOrReplaceTableAsSelect,
    ];

    /// The JSON spelling (Java's enum name), e.g. `WRITE`, `CREATE_TABLE_AS_SELECT`.
    pub fn as_str(self) -> &'static str {
        match self {
            SnapshotOperation::Write => "WRITE",
            SnapshotOperation::Overwrite => "OVERWRITE",
            SnapshotOperation::Delete => "DELETE",
            SnapshotOperation::Truncate => "TRUNCATE",
            SnapshotOperation::Update => "UPDATE",
            SnapshotOperation::Merge => "MERGE",
            SnapshotOperation::CreateTableAsSelect => "CREATE_TABLE_AS_SELECT",
            SnapshotOperation::ReplaceTableAsSelect => "REPLACE_TABLE_AS_SELECT",
            SnapshotOperation::CreateOrReplaceTableAsSelect => "CREATE_OR_REPLACE_TABLE_AS_SELECT",
        }
    }

    /// Parses Java's spelling; `None` for a value this version does not know.
    pub fn parse(s: &str) -> Option<SnapshotOperation> {
        Self::ALL.into_iter().find(|o| o.as_str() == s)
    }
}

/// One `snapshot/snapshot-N` file. Field order is Java's write order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// Format version; [`CURRENT_VERSION`] for new snapshots, 1 when the member is missing.
    #[serde(
        default = "missing_version",
        deserialize_with = "null_as_missing_version"
    )]
    pub version: i32,
    /// Random UUID of this snapshot (Java ≥ 2.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Snapshot id = N of the file name.
    pub id: i64,
    /// Id of the schema the commit was made with.
    pub schema_id: i64,
    /// Manifest list holding all live files of the previous snapshot.
    pub base_manifest_list: String,
    /// Byte size of the base manifest list (null for ≤1.0 writers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_manifest_list_size: Option<i64>,
    /// Manifest list holding this commit's file changes.
    pub delta_manifest_list: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_manifest_list_size: Option<i64>,
    /// Manifest list of this commit's changelog files, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changelog_manifest_list: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changelog_manifest_list_size: Option<i64>,
    /// The index manifest holding all live index files, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_manifest: Option<String>,
    /// Writer identity (usually a UUID).
    pub commit_user: String,
    /// Paimon version string of the writer (Java master; pypaimon `python-…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writer_version: Option<String>,
    /// Transaction id; batch commits use [`BATCH_COMMIT_IDENTIFIER`].
    pub commit_identifier: i64,
    pub commit_kind: CommitKind,
    /// Commit wall-clock time, epoch milliseconds.
    pub time_millis: i64,
    /// Row count of all live data files (unmerged; includes retractions).
    #[serde(default, deserialize_with = "null_as_zero")]
    pub total_record_count: i64,
    /// ADD rows minus DELETE rows of this commit's delta.
    #[serde(default, deserialize_with = "null_as_zero")]
    pub delta_record_count: i64,
    /// Rows in this commit's changelog files; None without changelog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changelog_record_count: Option<i64>,
    /// Watermark of the input; old writers wrote `i64::MIN` for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watermark: Option<i64>,
    /// Statistics file name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statistics: Option<String>,
    /// Free-form properties; omitted when empty.
    #[serde(
        default,
        deserialize_with = "null_as_empty_map",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub properties: BTreeMap<String, String>,
    /// Next row id for row tracking (Java always writes it, 0 unless row tracking is on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_row_id: Option<i64>,
    /// Logical operation (Java ≥ 2.0): `WRITE`, `OVERWRITE`, `DELETE`, `TRUNCATE`, `UPDATE`,
    /// `MERGE`, `CREATE_TABLE_AS_SELECT`, `REPLACE_TABLE_AS_SELECT`,
    /// `CREATE_OR_REPLACE_TABLE_AS_SELECT`. Kept as text so future values still read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
}

fn missing_version() -> i32 {
    1
}

fn null_as_missing_version<'de, D: Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
    Ok(Option::<i32>::deserialize(d)?.unwrap_or_else(missing_version))
}

fn null_as_zero<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    Ok(Option::<i64>::deserialize(d)?.unwrap_or(0))
}

fn null_as_empty_map<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<String, String>, D::Error> {
    Ok(Option::<BTreeMap<String, String>>::deserialize(d)?.unwrap_or_default())
}

impl Snapshot {
    /// Parses a snapshot file.
    pub fn from_json(text: &str) -> Result<Snapshot> {
        serde_json::from_str(text).map_err(|source| SpecError::Json {
            context: "snapshot".to_string(),
            source,
        })
    }

    /// The file content as Java writes it (Jackson pretty printer, no trailing newline).
    pub fn to_json(&self) -> Result<String> {
        to_jackson_pretty(self)
    }
}

/// Parses a `LATEST` / `EARLIEST` hint the way Java does (`Long.parseLong`, no trimming):
/// `None` for anything that is not exactly a decimal long — a malformed hint is ignored.
pub fn parse_hint(text: &str) -> Option<i64> {
    text.parse::<i64>().ok()
}

/// The content of a hint file: the decimal id, no newline.
pub fn format_hint(id: i64) -> String {
    id.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const JAVA_FIRST_COMMIT: &str = r#"{
  "version" : 3,
  "uuid" : "0f5c6a0e-8c1e-4d8b-9d55-0f1c3c0a9b11",
  "id" : 1,
  "schemaId" : 0,
  "baseManifestList" : "manifest-list-6e3c-0",
  "baseManifestListSize" : 884,
  "deltaManifestList" : "manifest-list-6e3c-1",
  "deltaManifestListSize" : 1002,
  "commitUser" : "9a6d2f4e",
  "writerVersion" : "2.1-SNAPSHOT",
  "commitIdentifier" : 9223372036854775807,
  "commitKind" : "APPEND",
  "timeMillis" : 1724318000000,
  "totalRecordCount" : 3,
  "deltaRecordCount" : 3,
  "nextRowId" : 0
}"#;

    fn first_commit() -> Snapshot {
        Snapshot {
            version: 3,
            uuid: Some("0f5c6a0e-8c1e-4d8b-9d55-0f1c3c0a9b11".into()),
            id: 1,
            schema_id: 0,
            base_manifest_list: "manifest-list-6e3c-0".into(),
            base_manifest_list_size: Some(884),
            delta_manifest_list: "manifest-list-6e3c-1".into(),
            delta_manifest_list_size: Some(1002),
            changelog_manifest_list: None,
            changelog_manifest_list_size: None,
            index_manifest: None,
            commit_user: "9a6d2f4e".into(),
            writer_version: Some("2.1-SNAPSHOT".into()),
            commit_identifier: BATCH_COMMIT_IDENTIFIER,
            commit_kind: CommitKind::Append,
            time_millis: 1724318000000,
            total_record_count: 3,
            delta_record_count: 3,
            changelog_record_count: None,
            watermark: None,
            statistics: None,
            properties: BTreeMap::new(),
            next_row_id: Some(0),
            operation: None,
        }
    }

    #[test]
    fn java_snapshot_round_trips_byte_exact() {
        let s = Snapshot::from_json(JAVA_FIRST_COMMIT).unwrap();
        assert_eq!(s, first_commit());
        assert_eq!(s.to_json().unwrap(), JAVA_FIRST_COMMIT);
    }

    #[test]
    fn all_members_in_java_order() {
        let mut s = first_commit();
        s.changelog_manifest_list = Some("cl".into());
        s.changelog_manifest_list_size = Some(7);
        s.index_manifest = Some("index-manifest-x-0".into());
        s.changelog_record_count = Some(2);
        s.watermark = Some(i64::MIN);
        s.statistics = Some("stat-1".into());
        s.properties.insert("k".into(), "v".into());
        s.operation = Some("WRITE".into());
        s.commit_kind = CommitKind::Overwrite;
        let json = s.to_json().unwrap();
        let keys: Vec<&str> = json
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix('"'))
            .filter_map(|l| l.split('"').next())
            .filter(|k| *k != "k")
            .collect();
        assert_eq!(
            keys,
            [
                "version",
                "uuid",
                "id",
                "schemaId",
                "baseManifestList",
                "baseManifestListSize",
                "deltaManifestList",
                "deltaManifestListSize",
                "changelogManifestList",
                "changelogManifestListSize",
                "indexManifest",
                "commitUser",
                "writerVersion",
                "commitIdentifier",
                "commitKind",
                "timeMillis",
                "totalRecordCount",
                "deltaRecordCount",
                "changelogRecordCount",
                "watermark",
                "statistics",
                "properties",
                "nextRowId",
                "operation"
            ]
        );
        assert!(json.contains("\"commitKind\" : \"OVERWRITE\""));
        assert!(json.contains("\"watermark\" : -9223372036854775808"));
        assert!(json.contains("\"properties\" : {\n    \"k\" : \"v\"\n  },"));
        assert_eq!(Snapshot::from_json(&json).unwrap(), s);
    }

    #[test]
    fn operation_is_the_last_member_and_omitted_when_null() {
        // Java 2.0 `Snapshot`: `operation` is `@JsonInclude(NON_NULL)`, after `nextRowId`.
        let mut s = first_commit();
        assert!(!s.to_json().unwrap().contains("operation"));
        s.operation = Some(SnapshotOperation::Truncate.as_str().into());
        let json = s.to_json().unwrap();
        assert!(json.ends_with("\"nextRowId\" : 0,\n  \"operation\" : \"TRUNCATE\"\n}"));
        assert_eq!(Snapshot::from_json(&json).unwrap(), s);
        for op in SnapshotOperation::ALL {
            assert_eq!(SnapshotOperation::parse(op.as_str()), Some(op));
        }
        assert_eq!(
            SnapshotOperation::CreateOrReplaceTableAsSelect.as_str(),
            "CREATE_OR_REPLACE_TABLE_AS_SELECT"
        );
        assert_eq!(SnapshotOperation::parse("APPEND"), None);
    }

    #[test]
    fn old_and_foreign_snapshots_are_read() {
        // ≤0.9 style: explicit nulls, logOffsets, no sizes, no uuid.
        let old = r#"{
  "version" : 3, "id" : 2, "schemaId" : 0,
  "baseManifestList" : "b", "deltaManifestList" : "d",
  "changelogManifestList" : null, "indexManifest" : null,
  "commitUser" : "u", "commitIdentifier" : 5, "commitKind" : "COMPACT",
  "timeMillis" : 10, "logOffsets" : { }, "totalRecordCount" : 4,
  "deltaRecordCount" : 0, "changelogRecordCount" : null,
  "watermark" : -9223372036854775808, "properties" : null, "totalFileSize" : 99
}"#;
        let s = Snapshot::from_json(old).unwrap();
        assert_eq!(s.commit_kind, CommitKind::Compact);
        assert_eq!(s.changelog_manifest_list, None);
        assert_eq!(s.watermark, Some(i64::MIN));
        assert!(s.properties.is_empty());
        assert_eq!(s.next_row_id, None);
        assert!(!s.to_json().unwrap().contains("logOffsets"));

        // ≤0.2: no version, no record counts.
        let ancient = r#"{"id":1,"schemaId":0,"baseManifestList":"b","deltaManifestList":"d",
            "commitUser":"u","commitIdentifier":1,"commitKind":"APPEND","timeMillis":1}"#;
        let s = Snapshot::from_json(ancient).unwrap();
        assert_eq!((s.version, s.total_record_count), (1, 0));

        // pypaimon member order with sizes last.
        let py = r#"{"version": 3, "id": 1, "schemaId": 0, "baseManifestList": "b",
            "deltaManifestList": "d", "totalRecordCount": 3, "deltaRecordCount": 3,
            "commitUser": "u", "commitIdentifier": 9223372036854775807,
            "commitKind": "APPEND", "timeMillis": 1, "baseManifestListSize": 10,
            "deltaManifestListSize": 11, "uuid": "x", "writerVersion": "python-2.1.0-abc"}"#;
        let s = Snapshot::from_json(py).unwrap();
        assert_eq!(s.base_manifest_list_size, Some(10));
        assert_eq!(s.writer_version.as_deref(), Some("python-2.1.0-abc"));
    }

    #[test]
    fn bad_snapshots_name_the_problem() {
        let err = Snapshot::from_json(r#"{"id": 1}"#).unwrap_err().to_string();
        assert!(
            err.contains("snapshot") && err.contains("schemaId"),
            "{err}"
        );
        let bad_kind = JAVA_FIRST_COMMIT.replace("\"APPEND\"", "\"MERGE\"");
        let err = Snapshot::from_json(&bad_kind).unwrap_err().to_string();
        assert!(err.contains("MERGE"), "{err}");
    }

    #[test]
    fn hints_parse_like_long_parse_long() {
        assert_eq!(parse_hint("42"), Some(42));
        assert_eq!(parse_hint("-1"), Some(-1));
        assert_eq!(parse_hint("+7"), Some(7));
        assert_eq!(parse_hint("42\n"), None);
        assert_eq!(parse_hint(" 42"), None);
        assert_eq!(parse_hint(""), None);
        assert_eq!(parse_hint("9223372036854775808"), None);
        assert_eq!(format_hint(12), "12");
        assert_eq!(parse_hint(&format_hint(i64::MAX)), Some(i64::MAX));
    }
}
