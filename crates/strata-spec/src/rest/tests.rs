//! The REST bodies against the JSON Java's `RESTApi.toJson` writes and the OpenAPI examples.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::*;
use crate::schema::{ColumnMove, Schema, SchemaChange};
use crate::types::{DataField, DataType, TypeKind};

fn roundtrip<T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(
    value: &T,
    expected: Value,
) {
    let written = serde_json::to_value(value).unwrap();
    assert_eq!(written, expected);
    let back: T = serde_json::from_value(expected).unwrap();
    assert_eq!(&back, value);
}

#[test]
fn config_response_merges_defaults_client_overrides() {
    let text = r#"{"defaults":{"prefix":"p","a":"d","b":"d"},"overrides":{"b":"o"},"unknown":1}"#;
    let c: ConfigResponse = serde_json::from_str(text).unwrap();
    let client = BTreeMap::from([("a".to_string(), "c".to_string()), ("b".into(), "c".into())]);
    let merged = c.merge(&client);
    assert_eq!(merged["prefix"], "p");
    assert_eq!(merged["a"], "c");
    assert_eq!(merged["b"], "o");
    let nulls: ConfigResponse =
        serde_json::from_str(r#"{"defaults":null,"overrides":null}"#).unwrap();
    assert!(nulls.defaults.is_empty() && nulls.overrides.is_empty());
}

#[test]
fn error_response_reads_openapi_example() {
    let e: ErrorResponse = serde_json::from_value(json!({
        "message": "The given table does not exist",
        "resourceType": "TABLE",
        "resourceName": "table",
        "code": 404
    }))
    .unwrap();
    assert_eq!(e.code, Some(404));
    assert_eq!(e.resource_type.as_deref(), Some("TABLE"));
    roundtrip(
        &ErrorResponse {
            message: Some("Malformed request".into()),
            code: Some(400),
            ..Default::default()
        },
        json!({"message": "Malformed request", "code": 400}),
    );
}

#[test]
fn list_responses_page_tokens() {
    let r: ListDatabasesResponse =
        serde_json::from_str(r#"{"databases":["a","b"],"nextPageToken":null}"#).unwrap();
    assert_eq!(r.databases, ["a", "b"]);
    assert_eq!(r.next_page_token, None);
    roundtrip(
        &ListTablesResponse {
            tables: vec!["t".into()],
            next_page_token: Some("t".into()),
        },
        json!({"tables": ["t"], "nextPageToken": "t"}),
    );
    let g: ListTablesGloballyResponse =
        serde_json::from_str(r#"{"tables":[{"database":"d","object":"t$branch_b"}]}"#).unwrap();
    assert_eq!(g.tables[0], ObjectIdentifier::new("d", "t$branch_b"));
}

fn sample_schema() -> Schema {
    let mut f0 = DataField::new(0, "id", DataType::new(TypeKind::BigInt, false));
    f0.description = Some("key".into());
    Schema {
        fields: vec![
            f0,
            DataField::new(
                1,
                "v",
                DataType::new(TypeKind::VarChar(i32::MAX as u32), true),
            ),
        ],
        partition_keys: vec![],
        primary_keys: vec!["id".into()],
        options: BTreeMap::from([("bucket".to_string(), "1".to_string())]),
        comment: None,
    }
}

#[test]
fn create_table_request_is_javas_shape() {
    roundtrip(
        &CreateTableRequest {
            identifier: ObjectIdentifier::new("db", "t"),
            schema: sample_schema(),
        },
        json!({
            "identifier": {"database": "db", "object": "t"},
            "schema": {
                "fields": [
                    {"id": 0, "name": "id", "type": "BIGINT NOT NULL", "description": "key"},
                    {"id": 1, "name": "v", "type": "STRING"}
                ],
                "partitionKeys": [],
                "primaryKeys": ["id"],
                "options": {"bucket": "1"}
            }
        }),
    );
}

#[test]
fn get_table_response_reads_java_with_nulls_and_audit() {
    let r: GetTableResponse = serde_json::from_value(json!({
        "id": "3f1a", "database": "db", "name": "t", "path": "/wh/db.db/t",
        "isExternal": false, "schemaId": 2,
        "schema": {"fields": [{"id": 0, "name": "a", "type": "INT"}],
                   "partitionKeys": [], "primaryKeys": [], "options": {}, "comment": null},
        "owner": "o", "createdAt": 1, "createdBy": "c", "updatedAt": 2, "updatedBy": "u",
        "extra": true
    }))
    .unwrap();
    assert_eq!(r.id, "3f1a");
    assert_eq!(r.schema_id, 2);
    assert_eq!(r.schema.fields[0].name, "a");
    assert_eq!(r.schema.comment, None);
    assert_eq!(r.created_at, Some(1));
}

#[test]
fn schema_changes_are_javas_actions() {
    let changes = vec![
        SchemaChange::set_option("k", "v"),
        SchemaChange::remove_option("k"),
        SchemaChange::UpdateComment { comment: None },
        SchemaChange::AddColumn {
            field_names: vec!["c".into()],
            data_type: DataType::new(TypeKind::Int, true),
            comment: Some("x".into()),
            position: Some(ColumnMove::after("c", "a")),
        },
        SchemaChange::rename_column("a", "b"),
        SchemaChange::drop_column("b"),
        SchemaChange::UpdateColumnType {
            field_names: vec!["c".into()],
            new_data_type: DataType::new(TypeKind::BigInt, true),
            keep_nullability: true,
        },
        SchemaChange::UpdateColumnNullability {
            field_names: vec!["c".into()],
            new_nullability: false,
        },
        SchemaChange::UpdateColumnComment {
            field_names: vec!["c".into()],
            new_comment: Some("n".into()),
        },
        SchemaChange::UpdateColumnPosition {
            position: ColumnMove::first("c"),
        },
        SchemaChange::UpdateColumnDefaultValue {
            field_names: vec!["c".into()],
            new_default_value: Some("1".into()),
        },
    ];
    roundtrip(
        &AlterTableRequest { changes },
        json!({"changes": [
            {"action": "setOption", "key": "k", "value": "v"},
            {"action": "removeOption", "key": "k"},
            {"action": "updateComment", "comment": null},
            {"action": "addColumn", "fieldNames": ["c"], "dataType": "INT", "comment": "x",
             "move": {"fieldName": "c", "referenceFieldName": "a", "type": "AFTER"}},
            {"action": "renameColumn", "fieldNames": ["a"], "newName": "b"},
            {"action": "dropColumn", "fieldNames": ["b"]},
            {"action": "updateColumnType", "fieldNames": ["c"], "newDataType": "BIGINT",
             "keepNullability": true},
            {"action": "updateColumnNullability", "fieldNames": ["c"], "newNullability": false},
            {"action": "updateColumnComment", "fieldNames": ["c"], "newComment": "n"},
            {"action": "updateColumnPosition",
             "move": {"fieldName": "c", "referenceFieldName": null, "type": "FIRST"}},
            {"action": "updateColumnDefaultValue", "fieldNames": ["c"], "newDefaultValue": "1"}
        ]}),
    );
    let err = serde_json::from_value::<AlterTableRequest>(
        json!({"changes": [{"action": "dropPrimaryKey"}]}),
    )
    .unwrap_err();
    assert!(err.to_string().contains("dropPrimaryKey"), "{err}");
    let err = serde_json::from_value::<AlterTableRequest>(json!({"changes": [{"action": "nope"}]}))
        .unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
}

#[test]
fn rollback_instant_is_javas_type_discriminator() {
    roundtrip(
        &RollbackTableRequest {
            instant: Instant::Snapshot { snapshot_id: 3 },
            from_snapshot: Some(5),
        },
        json!({"instant": {"type": "snapshot", "snapshotId": 3}, "fromSnapshot": 5}),
    );
    roundtrip(
        &RollbackTableRequest {
            instant: Instant::Tag {
                tag_name: "t1".into(),
            },
            from_snapshot: None,
        },
        json!({"instant": {"type": "tag", "tagName": "t1"}}),
    );
}

#[test]
fn partition_requests_default_ignore_flags_to_true() {
    let c: CreatePartitionsRequest =
        serde_json::from_str(r#"{"partitionSpecs":[{"dt":"20260715"}]}"#).unwrap();
    assert!(c.ignore_if_exists);
    let d: DropPartitionsRequest =
        serde_json::from_str(r#"{"partitionSpecs":[{"dt":"20260715"}],"ignoreIfNotExists":null}"#)
            .unwrap();
    assert!(d.ignore_if_not_exists);
    let f = ListPartitionsByFilterRequest {
        filter: Some("filter-json".into()),
        ..Default::default()
    };
    roundtrip(&f, json!({"filter": "filter-json"}));
    roundtrip(
        &PartitionSpecsRequest {
            specs: vec![BTreeMap::from([("dt".to_string(), "1".to_string())])],
        },
        json!({"specs": [{"dt": "1"}]}),
    );
}

#[test]
fn token_tag_branch_shapes() {
    roundtrip(
        &GetTableTokenResponse {
            token: BTreeMap::from([("akId".to_string(), "x".to_string())]),
            expires_at_millis: 7,
        },
        json!({"token": {"akId": "x"}, "expiresAtMillis": 7}),
    );
    roundtrip(
        &CreateTagRequest {
            tag_name: "t".into(),
            snapshot_id: Some(1),
            time_retained: None,
        },
        json!({"tagName": "t", "snapshotId": 1}),
    );
    roundtrip(
        &CreateBranchRequest {
            branch: "b".into(),
            from_tag: None,
        },
        json!({"branch": "b"}),
    );
    roundtrip(&ForwardBranchRequest {}, json!({}));
    roundtrip(
        &RenameBranchRequest {
            to_branch: "b2".into(),
        },
        json!({"toBranch": "b2"}),
    );
    let p: ListPartitionsResponse = serde_json::from_value(json!({"partitions": [{
        "spec": {"dt": "1"}, "recordCount": 3, "fileSizeInBytes": 10, "fileCount": 1,
        "lastFileCreationTime": 5, "totalBuckets": 1, "done": false,
        "createdAt": null, "options": null
    }], "nextPageToken": null}))
    .unwrap();
    assert_eq!(p.partitions[0].record_count, 3);
    assert_eq!(p.partitions[0].created_at, None);
}

#[test]
fn commit_request_is_javas_shape() {
    let snapshot_json = json!({
        "version": 3, "id": 2, "schemaId": 0, "baseManifestList": "manifest-list-a-0",
        "baseManifestListSize": 884, "deltaManifestList": "manifest-list-a-1",
        "deltaManifestListSize": 986, "changelogManifestList": null, "commitUser": "u",
        "commitIdentifier": 9223372036854775807i64, "commitKind": "APPEND",
        "timeMillis": 1700000000000i64, "totalRecordCount": 3, "deltaRecordCount": 3,
        "changelogRecordCount": 0, "nextRowId": 0, "uuid": "s-2"
    });
    let body = json!({
        "tableId": "t-1",
        "baseSnapshotUuid": "s-1",
        "snapshot": snapshot_json,
        "statistics": [{"spec": {"dt": "1"}, "recordCount": 3, "fileSizeInBytes": 10,
                        "fileCount": 1, "lastFileCreationTime": 5, "totalBuckets": 1}]
    });
    let r: CommitTableRequest = serde_json::from_value(body).unwrap();
    assert_eq!(r.table_id.as_deref(), Some("t-1"));
    assert_eq!(r.base_snapshot_uuid.as_deref(), Some("s-1"));
    assert_eq!(r.snapshot.id, 2);
    assert_eq!(r.snapshot.uuid.as_deref(), Some("s-2"));
    assert_eq!(r.statistics[0].record_count, 3);
    let first: CommitTableRequest = serde_json::from_value(json!({
        "tableId": "t-1", "baseSnapshotUuid": null, "snapshot": r.snapshot, "statistics": null
    }))
    .unwrap();
    assert_eq!(first.base_snapshot_uuid, None);
    let written = serde_json::to_value(&first).unwrap();
    assert!(written.get("baseSnapshotUuid").is_none());
    assert_eq!(written["statistics"], json!([]));
    assert_eq!(written["tableId"], "t-1");
    let ok: CommitTableResponse = serde_json::from_str(r#"{"success":false}"#).unwrap();
    assert!(!ok.success);
}
