use super::*;
use crate::types::{DataField, DataType, TypeKind, MAX_LENGTH};

/// A schema file as Java's `SchemaManager` writes it.
const EXAMPLE: &str = r#"{
  "version" : 3,
  "id" : 0,
  "fields" : [ {
    "id" : 0,
    "name" : "k",
    "type" : "INT NOT NULL"
  }, {
    "id" : 1,
    "name" : "dt",
    "type" : "STRING"
  }, {
    "id" : 2,
    "name" : "tags",
    "type" : {
      "type" : "ARRAY",
      "element" : "STRING"
    }
  }, {
    "id" : 3,
    "name" : "attrs",
    "type" : {
      "type" : "MAP NOT NULL",
      "key" : "STRING NOT NULL",
      "value" : "DECIMAL(10, 2)"
    }
  }, {
    "id" : 6,
    "name" : "nested",
    "type" : {
      "type" : "ROW",
      "fields" : [ {
        "id" : 4,
        "name" : "a",
        "type" : "BIGINT"
      }, {
        "id" : 5,
        "name" : "b",
        "type" : "TIMESTAMP(3) WITH LOCAL TIME ZONE",
        "description" : "event time"
      } ]
    }
  } ],
  "highestFieldId" : 6,
  "partitionKeys" : [ "dt" ],
  "primaryKeys" : [ "k", "dt" ],
  "options" : {
    "bucket" : "4"
  },
  "timeMillis" : 1720496663041
}"#;

fn row_children(t: &DataType) -> &[DataField] {
    match &t.kind {
        TypeKind::Row(fs) => fs,
        other => panic!("not a row: {other:?}"),
    }
}

#[test]
fn example_round_trips_byte_exact() {
    let s = TableSchema::from_json(EXAMPLE).unwrap();
    assert_eq!(s.version, 3);
    assert_eq!(s.highest_field_id, 6);
    assert_eq!(s.fields.len(), 5);
    assert_eq!(s.fields[0].data_type, DataType::not_null(TypeKind::Int));
    assert_eq!(s.fields[1].data_type, DataType::string());
    let nested = row_children(&s.fields[4].data_type);
    assert_eq!(nested[1].description.as_deref(), Some("event time"));
    assert_eq!(s.options.get("bucket").map(String::as_str), Some("4"));
    assert_eq!(s.comment, None);
    assert_eq!(s.time_millis, 1720496663041);
    assert_eq!(s.to_json().unwrap(), EXAMPLE);
}

#[test]
fn helpers() {
    let s = TableSchema::from_json(EXAMPLE).unwrap();
    assert_eq!(s.trimmed_primary_keys(), ["k"]);
    assert_eq!(s.bucket_keys(), ["k"]);
    assert_eq!(s.partition_type().names(), ["dt"]);
    assert_eq!(s.primary_key_type().names(), ["k", "dt"]);
    assert_eq!(s.trimmed_primary_key_type().names(), ["k"]);
    assert_eq!(s.row_type().len(), 5);
    assert_eq!(s.field("tags").map(|f| f.id), Some(2));
    assert!(s.field("nope").is_none());
    assert_eq!(s.options().bucket().unwrap(), 4);
    assert!(s.is_primary_key_table());
    assert!(!s.cross_partition_update());

    let mut append = s.clone();
    append.primary_keys.clear();
    assert!(append.bucket_keys().is_empty());
    append.options.insert("bucket-key".into(), "k,tags".into());
    assert_eq!(append.bucket_keys(), ["k", "tags"]);
}

#[test]
fn comment_is_written_before_time_millis() {
    let mut s = TableSchema::from_json(EXAMPLE).unwrap();
    s.comment = Some("orders \"v2\"".into());
    let json = s.to_json().unwrap();
    assert!(json.ends_with(
        "  },\n  \"comment\" : \"orders \\\"v2\\\"\",\n  \"timeMillis\" : 1720496663041\n}"
    ));
    assert_eq!(TableSchema::from_json(&json).unwrap(), s);
}

#[test]
fn compatibility_rules_for_old_versions() {
    let v = |version: &str, options: &str| {
        format!(
            r#"{{{version} "id": 0, "fields": [], "highestFieldId": -1, "partitionKeys": [],
                "primaryKeys": [], "options": {options}}}"#
        )
    };
    let get = |s: &TableSchema, k: &str| s.options.get(k).cloned();

    let s = TableSchema::from_json(&v(r#""version": 1,"#, "{}")).unwrap();
    assert_eq!(get(&s, "bucket").as_deref(), Some("1"));
    assert_eq!(get(&s, "file.format").as_deref(), Some("orc"));
    assert_eq!(s.time_millis, 0);

    let s = TableSchema::from_json(&v("", r#"{"bucket": "3"}"#)).unwrap();
    assert_eq!(s.version, 1);
    assert_eq!(get(&s, "bucket").as_deref(), Some("3"));
    assert_eq!(get(&s, "file.format").as_deref(), Some("orc"));

    let s = TableSchema::from_json(&v(r#""version": 2,"#, "{}")).unwrap();
    assert_eq!(get(&s, "bucket"), None);
    assert_eq!(get(&s, "file.format").as_deref(), Some("orc"));

    let s = TableSchema::from_json(&v(r#""version": 3,"#, "{}")).unwrap();
    assert!(s.options.is_empty());
}

#[test]
fn missing_field_ids_are_numbered_and_system_ids_ignored() {
    let s = TableSchema::from_json(
        r#"{"version": 3, "id": 1, "fields": [{"name": "a", "type": "INT"},
            {"name": "r", "type": "ROW<x INT>"}], "partitionKeys": [], "primaryKeys": [],
            "options": {}}"#,
    )
    .unwrap();
    assert_eq!(s.fields[0].id, 0);
    assert_eq!(s.fields[1].id, 1);
    assert_eq!(row_children(&s.fields[1].data_type)[0].id, 2);
    assert_eq!(s.highest_field_id, 2);

    let fields = vec![
        DataField::new(3, "a", DataType::string()),
        DataField::new(SYSTEM_FIELD_ID_START + 5, "_KEY_a", DataType::string()),
    ];
    assert_eq!(highest_user_field_id(&fields), 3);
    assert_eq!(highest_user_field_id(&[]), -1);
}

#[test]
fn malformed_schema_files_name_the_member() {
    for (text, needle) in [
        ("[]", "expected a JSON object"),
        (r#"{"fields": []}"#, "missing `id`"),
        (r#"{"id": 0}"#, "missing `fields`"),
        (
            r#"{"id": 0, "fields": [], "partitionKeys": "dt"}"#,
            "`partitionKeys`",
        ),
        (r#"{"id": "x", "fields": []}"#, "`id`"),
        (
            r#"{"id": 0, "fields": [{"id": 0, "name": "a", "type": "NOPE"}]}"#,
            "NOPE",
        ),
    ] {
        let err = TableSchema::from_json(text).unwrap_err().to_string();
        assert!(err.contains(needle), "{text}: {err}");
    }
}

fn create(json: &str) -> Result<TableSchema> {
    TableSchema::create(0, &Schema::from_json(json)?, 42)
}

#[test]
fn create_assigns_ids_like_the_java_builder() {
    let t = create(
        r#"{"fields": [
            {"name": "id", "type": "BIGINT"},
            {"name": "r", "type": "ROW<x INT, y STRING, z ROW<p INT, q INT>>"},
            {"name": "dec", "type": "DECIMAL(10, 2)", "description": "money"}
        ], "primaryKeys": ["id"], "options": {"bucket": "2"}, "comment": "t"}"#,
    )
    .unwrap();
    assert_eq!((t.version, t.id, t.time_millis), (3, 0, 42));
    assert_eq!(t.fields[0].id, 0);
    assert_eq!(t.fields[1].id, 1);
    let r = row_children(&t.fields[1].data_type);
    assert_eq!((r[0].id, r[1].id, r[2].id), (2, 3, 6));
    let z = row_children(&r[2].data_type);
    assert_eq!((z[0].id, z[1].id), (4, 5));
    assert_eq!(t.fields[2].id, 7);
    assert_eq!(t.fields[2].description.as_deref(), Some("money"));
    assert_eq!(t.highest_field_id, 7);
    // The primary-key column is forced NOT NULL.
    assert_eq!(t.fields[0].data_type, DataType::not_null(TypeKind::BigInt));
    assert_eq!(t.comment.as_deref(), Some("t"));
    // And the result reads back identically.
    assert_eq!(TableSchema::from_json(&t.to_json().unwrap()).unwrap(), t);
}

#[test]
fn create_keeps_given_ids_and_key_options() {
    let t = create(
        r#"{"version": 3, "id": 9, "highestFieldId": 10, "timeMillis": 1,
            "fields": [{"id": 10, "name": "k", "type": "INT"},
                       {"id": 4, "name": "dt", "type": "STRING NOT NULL"}],
            "options": {"primary-key": "k, dt", "partition": "dt",
                        "primary-key.nullable": "true"}}"#,
    )
    .unwrap();
    assert_eq!(t.primary_keys, ["k", "dt"]);
    assert_eq!(t.partition_keys, ["dt"]);
    assert!(!t.options.contains_key("primary-key"));
    assert!(!t.options.contains_key("partition"));
    assert_eq!(
        (t.fields[0].id, t.fields[1].id, t.highest_field_id),
        (10, 4, 10)
    );
    // primary-key.nullable=true makes key columns nullable (Java's normalizeFields).
    assert!(t.fields[0].data_type.nullable && t.fields[1].data_type.nullable);
    assert_eq!(t.fields[1].data_type.kind, TypeKind::VarChar(MAX_LENGTH));
}

#[test]
fn create_rejects_invalid_schemas() {
    let cases = [
        (r#"{"fields": []}"#, "at least one column"),
        (
            r#"{"fields": [{"name": "a", "type": "INT"}, {"name": "a", "type": "INT"}]}"#,
            "more than one column named `a`",
        ),
        (
            r#"{"fields": [{"name": "r", "type": "ROW<x INT, x INT>"}]}"#,
            "ROW column `r`",
        ),
        (r#"{"fields": [{"name": " ", "type": "INT"}]}"#, "blank"),
        (
            r#"{"fields": [{"name": "_KEY_a", "type": "INT"}]}"#,
            "reserved",
        ),
        (
            r#"{"fields": [{"name": "a", "type": "INT"}], "primaryKeys": ["b"]}"#,
            "primary key `b` is not a column",
        ),
        (
            r#"{"fields": [{"name": "a", "type": "INT"}], "partitionKeys": ["a", "a"]}"#,
            "listed twice",
        ),
        (
            r#"{"fields": [{"name": "a", "type": "ARRAY<INT>"}], "primaryKeys": ["a"]}"#,
            "ARRAY<INT>",
        ),
        (
            r#"{"fields": [{"name": "a", "type": "INT"}], "primaryKeys": ["a"],
                "partitionKeys": ["a"]}"#,
            "same as the partition keys",
        ),
        (
            r#"{"fields": [{"id": 0, "name": "a", "type": "INT"}, {"name": "b", "type": "INT"}]}"#,
            "partial field ids",
        ),
        (
            r#"{"fields": [{"id": 0, "name": "a", "type": "INT"}, {"id": 0, "name": "b", "type": "INT"}]}"#,
            "field id 0 of column `b` is duplicated",
        ),
        (
            r#"{"fields": [{"name": "a", "type": "INT"}], "primaryKeys": ["a"],
                "options": {"primary-key": "a"}}"#,
            "`primary-key`",
        ),
        (
            r#"{"fields": [{"name": "a", "type": "INT"}], "options": {"bukket": "2"}}"#,
            "`bukket`",
        ),
        (
            r#"{"fields": [{"name": "a", "type": "INT"}], "options": {"bucket": "2"}}"#,
            "needs a `bucket-key`",
        ),
        (
            r#"{"fields": [{"name": "a", "type": "INT"}, {"name": "b", "type": "INT"}],
                "primaryKeys": ["a"], "options": {"bucket": "2", "bucket-key": "b"}}"#,
            "part of the primary key",
        ),
        (
            r#"{"fields": [{"name": "a", "type": "INT"}],
                "options": {"bucket": "2", "bucket-key": "c"}}"#,
            "bucket key `c` is not a column",
        ),
        (
            r#"{"fields": [{"name": "a", "type": "INT"}],
                "options": {"fields.b.stats-mode": "full"}}"#,
            "column `b` does not exist",
        ),
        (
            r#"{"fields": [{"name": "a", "type": "INT"}], "primaryKeys": ["a"],
                "options": {"sequence.field": "ts"}}"#,
            "sequence field `ts`",
        ),
    ];
    for (json, needle) in cases {
        let err = create(json).unwrap_err().to_string();
        assert!(err.contains(needle), "{json}\n=> {err}");
    }
}

#[test]
fn create_accepts_common_tables() {
    let t = create(
        r#"{"fields": [{"name": "a", "type": "INT"}, {"name": "dt", "type": "STRING"},
            {"name": "v", "type": "DOUBLE"}],
            "partitionKeys": ["dt"],
            "options": {"bucket": "4", "bucket-key": "a", "fields.v.stats-mode": "full",
                        "fields.a,v.sequence-group": "x", "file.format": "parquet"}}"#,
    );
    // fields.a,v.sequence-group names two existing columns, so only `x` is not checked.
    let t = t.unwrap();
    assert_eq!(t.bucket_keys(), ["a"]);
    assert!(!t.is_primary_key_table());
    assert_eq!(t.highest_field_id, 2);
    assert!(t.fields.iter().all(|f| f.data_type.nullable));
}

/// A primary key without every partition key (cross-partition update) is accepted with every
/// bucket mode, as Java 1.4 / 2.0 `SchemaValidation` accepts it (the "You should use dynamic
/// bucket (bucket = -1) mode" refusal of Java <= 1.3 is gone); only `sequence.field` is refused.
/// By the `primary-key` / `partition` options (CTAS) as by the key lists.
#[test]
fn cross_partition_update_takes_every_bucket_mode_but_no_sequence_field() {
    for bucket in ["1", "4", "-1", "-2"] {
        for keys in [
            r#""primaryKeys": ["id"], "partitionKeys": ["dt"], "options": {"#,
            r#""options": {"primary-key": "id", "partition": "dt", "#,
        ] {
            let json = format!(
                r#"{{"fields": [{{"name": "id", "type": "INT"}}, {{"name": "dt", "type": "STRING"}},
                    {{"name": "ts", "type": "BIGINT"}}], {keys} "bucket": "{bucket}"}}}}"#
            );
            let t = create(&json).unwrap_or_else(|e| panic!("{json}\n=> {e}"));
            assert!(t.cross_partition_update(), "{json}");
            assert_eq!(t.bucket_keys(), ["id"], "{json}");
            let with_sequence =
                json.replace(r#""bucket":"#, r#""sequence.field": "ts", "bucket":"#);
            let err = create(&with_sequence).unwrap_err().to_string();
            assert!(
                err.contains("sequence.field")
                    && err.contains("primary key does not include all partition keys"),
                "{with_sequence}\n=> {err}"
            );
        }
    }
    // A primary key with every partition key is no cross-partition update.
    let t = create(
        r#"{"fields": [{"name": "id", "type": "INT"}, {"name": "dt", "type": "STRING"}],
            "primaryKeys": ["id", "dt"], "partitionKeys": ["dt"], "options": {"bucket": "1"}}"#,
    )
    .unwrap();
    assert!(!t.cross_partition_update());
}

/// A schema file shaped like pypaimon 2.1.0 writes it (json.dumps layout, `nullable` members,
/// MAP `type` as text, TIMESTAMP_LTZ(6), explicit `"comment": null`).
#[test]
fn pypaimon_schema_file_is_read() {
    let text = r#"{
  "version": 3,
  "id": 0,
  "fields": [
    {"id": 0, "name": "id", "type": "INT"},
    {"id": 1, "name": "m", "type": {"type": "MAP<STRING NOT NULL, DOUBLE>",
      "key": "STRING NOT NULL", "value": "DOUBLE", "nullable": true}},
    {"id": 2, "name": "arr", "type": {"type": "ARRAY", "element": "INT", "nullable": true}},
    {"id": 3, "name": "r", "type": {"type": "ROW", "nullable": true, "fields": [
      {"id": 5, "name": "x", "type": "INT"},
      {"id": 6, "name": "z", "type": {"type": "ROW", "nullable": true, "fields": [
        {"id": 7, "name": "p", "type": "DOUBLE"}]}}]}},
    {"id": 4, "name": "ts", "type": "TIMESTAMP_LTZ(6)"}
  ],
  "highestFieldId": 7,
  "partitionKeys": [],
  "primaryKeys": [],
  "options": {"metadata.stats-mode": "full"},
  "comment": null,
  "timeMillis": 1730000000000
}"#;
    let s = TableSchema::from_json(text).unwrap();
    assert_eq!(s.comment, None);
    assert_eq!(s.highest_field_id, 7);
    assert_eq!(
        s.fields[1].data_type,
        DataType::nullable(TypeKind::Map {
            key: Box::new(DataType::string().with_nullable(false)),
            value: Box::new(DataType::nullable(TypeKind::Double)),
        })
    );
    assert_eq!(
        s.fields[4].data_type,
        DataType::nullable(TypeKind::LocalZonedTimestamp(6))
    );
    let r = row_children(&s.fields[3].data_type);
    assert_eq!(row_children(&r[1].data_type)[0].id, 7);
    // Written back the Java way.
    let json = s.to_json().unwrap();
    assert!(json.contains("\"type\" : \"TIMESTAMP(6) WITH LOCAL TIME ZONE\""));
    assert!(json.contains("\"type\" : \"MAP\",\n"));
    assert!(!json.contains("nullable"));
}
