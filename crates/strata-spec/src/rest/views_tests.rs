//! Round trips of the view and function bodies through the JSON Java's Jackson writes for
//! them (`ViewSchema`, `ViewChange`, `FunctionDefinition`, `FunctionChange`, …).

use serde_json::{json, Value};

use super::*;

fn round_trip<T>(java: Value) -> T
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let parsed: T = serde_json::from_value(java.clone()).expect("parse");
    assert_eq!(serde_json::to_value(&parsed).expect("write"), java);
    parsed
}

#[test]
fn create_view_request_as_java_writes_it() {
    let req: CreateViewRequest = round_trip(json!({
        "identifier": {"database": "db", "object": "v"},
        "schema": {
            "fields": [{"id": 0, "name": "a", "type": "INT"},
                       {"id": 1, "name": "b", "type": "STRING NOT NULL"}],
            "query": "SELECT a, b FROM t",
            "dialects": {"spark": "SELECT a, b FROM db.t"},
            "comment": "c",
            "options": {"k": "v"}
        }
    }));
    assert_eq!(req.schema.fields.len(), 2);
    assert_eq!(req.schema.query_for("spark"), "SELECT a, b FROM db.t");
    assert_eq!(req.schema.query_for("flink"), "SELECT a, b FROM t");
}

#[test]
fn view_schema_reads_nulls_as_empty_and_omits_a_missing_comment() {
    let s: ViewSchema = serde_json::from_value(json!({
        "fields": null, "query": "SELECT 1", "dialects": null, "comment": null, "options": null
    }))
    .unwrap();
    assert!(s.fields.is_empty() && s.dialects.is_empty() && s.options.is_empty());
    let out = serde_json::to_value(&s).unwrap();
    assert!(out.get("comment").is_none());
}

#[test]
fn view_changes_by_action() {
    let req: AlterViewRequest = round_trip(json!({"changes": [
        {"action": "setOption", "key": "k", "value": "v"},
        {"action": "removeOption", "key": "k"},
        {"action": "updateComment", "comment": null},
        {"action": "addDialect", "dialect": "flink", "query": "SELECT 1"},
        {"action": "updateDialect", "dialect": "flink", "query": "SELECT 2"},
        {"action": "dropDialect", "dialect": "flink"}
    ]}));
    assert_eq!(req.changes[2], ViewChange::UpdateComment { comment: None });
    assert!(serde_json::from_value::<ViewChange>(json!({"action": "renameView"})).is_err());
}

#[test]
fn view_lists() {
    let g: ListViewsGloballyResponse = round_trip(json!({
        "views": [{"database": "db", "object": "v"}], "nextPageToken": "db.v"
    }));
    assert_eq!(g.views[0], ObjectIdentifier::new("db", "v"));
    let d: ListViewDetailsResponse = round_trip(json!({"viewDetails": [{
        "id": "1", "name": "v",
        "schema": {"fields": [], "query": "SELECT 1", "dialects": {}, "options": {}},
        "owner": "o", "createdAt": 1, "createdBy": "o", "updatedAt": 2, "updatedBy": "o"
    }]}));
    assert_eq!(d.view_details[0].updated_at, Some(2));
    let l: ListViewsResponse =
        serde_json::from_value(json!({"views": null, "nextPageToken": null})).unwrap();
    assert!(l.views.is_empty() && l.next_page_token.is_none());
}

#[test]
fn function_definitions_by_type() {
    let req: CreateFunctionRequest = round_trip(json!({
        "name": "f",
        "inputParams": [{"id": 0, "name": "x", "type": "INT"}],
        "returnParams": null,
        "deterministic": true,
        "definitions": {
            "flink": {"type": "file", "fileResources": [{"resourceType": "JAR", "uri": "/a.jar"}],
                      "language": "JAVA", "className": "C", "functionName": "eval"},
            "spark": {"type": "lambda", "definition": "(x) -> x + 1", "language": "JAVA"},
            "trino": {"type": "sql", "definition": "x + 1"}
        },
        "options": {}
    }));
    assert!(req.return_params.is_none() && req.comment.is_none());
    assert_eq!(
        req.definitions["trino"],
        FunctionDefinition::Sql {
            definition: "x + 1".into()
        }
    );
    assert!(serde_json::from_value::<FunctionDefinition>(json!({"type": "python"})).is_err());
}

#[test]
fn function_changes_and_lists() {
    let _: AlterFunctionRequest = round_trip(json!({"changes": [
        {"action": "setOption", "key": "k", "value": "v"},
        {"action": "removeOption", "key": "k"},
        {"action": "updateComment", "comment": "c"},
        {"action": "addDefinition", "name": "d", "definition": {"type": "sql", "definition": "1"}},
        {"action": "updateDefinition", "name": "d", "definition": {"type": "sql", "definition": "2"}},
        {"action": "dropDefinition", "name": "d"}
    ]}));
    let d: ListFunctionDetailsResponse = round_trip(json!({"functionDetails": [{
        "uuid": "u", "name": "f", "inputParams": null, "returnParams": null,
        "deterministic": false, "definitions": {}, "options": {},
        "owner": "o", "createdAt": 1, "createdBy": "o", "updatedAt": 1, "updatedBy": "o"
    }], "nextPageToken": "f"}));
    assert_eq!(d.function_details[0].name, "f");
    // Java writes an unset comment as null
    let f: GetFunctionResponse =
        serde_json::from_value(json!({"name": "f", "comment": null})).unwrap();
    assert!(f.comment.is_none());
    let _: ListFunctionsGloballyResponse =
        round_trip(json!({"functions": [{"database": "db", "object": "f"}]}));
    let _: ListFunctionsResponse = round_trip(json!({"functions": ["f"]}));
}

#[test]
fn function_names_as_java_validates_them() {
    for ok in ["a", "a1_", "a-b_c", "a-b_c.1"] {
        assert!(is_valid_function_name(ok), "{ok}");
    }
    for bad in ["a\\/b", "a$?b", "a@b", "a*b", "123", "_-", "", "é"] {
        assert!(!is_valid_function_name(bad), "{bad}");
    }
}
