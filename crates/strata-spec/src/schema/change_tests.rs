//! Tests of [`TableSchema::apply_changes`]: Java's output for the same changes (golden files
//! written by Java Paimon 2.0.0's `SchemaManager` through the interop oracle), every change
//! kind, every refusal, and properties of random change sequences.

use proptest::prelude::*;

use super::*;
use crate::types::json::parse_type_text;
use crate::types::{DataField, DataType, TypeKind};

const JAVA_0: &str = include_str!("golden/java-alter-schema-0.json");
const JAVA_1: &str = include_str!("golden/java-alter-schema-1.json");
const JAVA_2: &str = include_str!("golden/java-alter-schema-2.json");

fn ty(text: &str) -> DataType {
    parse_type_text(text).unwrap()
}

fn p(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// Java writes options in `HashMap` order, strata sorted: the same file but for the order of
/// the `options` members.
fn with_sorted_options(java: &str) -> String {
    let lines: Vec<&str> = java.lines().collect();
    let Some(start) = lines.iter().position(|l| *l == "  \"options\" : {") else {
        return java.to_string();
    };
    let end = start
        + lines[start..]
            .iter()
            .position(|l| l.starts_with("  }"))
            .unwrap();
    let mut options: Vec<String> = lines[start + 1..end]
        .iter()
        .map(|l| l.trim_end_matches(',').to_string())
        .collect();
    options.sort();
    let n = options.len();
    let mut out: Vec<String> = lines[..=start].iter().map(|s| s.to_string()).collect();
    for (i, o) in options.into_iter().enumerate() {
        out.push(if i + 1 < n { format!("{o},") } else { o });
    }
    out.extend(lines[end..].iter().map(|s| s.to_string()));
    out.join("\n")
}

/// The changes the oracle applied to `JAVA_0` to get `JAVA_1` (one `alterTable` call).
fn java_changes_1() -> Vec<SchemaChange> {
    vec![
        SchemaChange::add_nested_column(
            p(&["extra"]),
            ty("DOUBLE"),
            Some("added".into()),
            Some(ColumnMove::after("extra", "name")),
        ),
        SchemaChange::add_nested_column(
            p(&["first_col"]),
            ty("ROW<a INT, b ROW<c STRING>>"),
            None,
            Some(ColumnMove::first("first_col")),
        ),
        SchemaChange::add_nested_column(p(&["r", "z"]), ty("BIGINT"), None, None),
        SchemaChange::rename_column("name", "full_name"),
        SchemaChange::rename_column("id", "key_id"),
        SchemaChange::rename_column("price", "amount"),
        SchemaChange::rename_column("m", "attrs"),
        SchemaChange::rename_nested_column(p(&["r", "x"]), "x2"),
        SchemaChange::update_column_type("amount", ty("BIGINT")),
        SchemaChange::update_nested_column_type(p(&["attrs", "value"]), ty("BIGINT"), false),
        SchemaChange::update_nested_column_type(p(&["tags", "element"]), ty("BIGINT"), false),
        SchemaChange::drop_nested_column(p(&["r", "y"])),
        SchemaChange::set_option("snapshot.num-retained.min", "5"),
        SchemaChange::remove_option("manifest.target-file-size"),
    ]
}

fn java_changes_2() -> Vec<SchemaChange> {
    vec![
        SchemaChange::drop_column("extra"),
        SchemaChange::update_nested_column_type(p(&["full_name"]), ty("VARCHAR(100)"), true),
        SchemaChange::add_column("extra", ty("DECIMAL(10, 2)")),
        SchemaChange::drop_column("attrs"),
    ]
}

#[test]
fn java_alter_results_are_reproduced_byte_for_byte() {
    let s0 = TableSchema::from_json(JAVA_0).unwrap();
    assert_eq!(s0.to_json().unwrap(), with_sorted_options(JAVA_0));
    let j1 = TableSchema::from_json(JAVA_1).unwrap();
    let s1 = s0.apply_changes(&java_changes_1(), j1.time_millis).unwrap();
    assert_eq!(s1.to_json().unwrap(), with_sorted_options(JAVA_1));
    assert_eq!(s1, j1);
    let j2 = TableSchema::from_json(JAVA_2).unwrap();
    let s2 = s1.apply_changes(&java_changes_2(), j2.time_millis).unwrap();
    assert_eq!(s2.to_json().unwrap(), with_sorted_options(JAVA_2));
}

// ---- a small table to change ----------------------------------------------------------------

fn base() -> TableSchema {
    TableSchema::from_json(
        r#"{"version": 3, "id": 4, "timeMillis": 1, "highestFieldId": 9,
        "fields": [
          {"id": 0, "name": "id", "type": "BIGINT NOT NULL"},
          {"id": 1, "name": "dt", "type": "STRING NOT NULL"},
          {"id": 2, "name": "v", "type": "INT", "description": "value"},
          {"id": 3, "name": "s", "type": "VARCHAR(10)"},
          {"id": 6, "name": "r", "type": {"type": "ROW", "fields": [
              {"id": 4, "name": "x", "type": "INT"},
              {"id": 5, "name": "y", "type": "STRING"}]}},
          {"id": 7, "name": "arr", "type": {"type": "ARRAY", "element": {"type": "ROW",
              "fields": [{"id": 9, "name": "e", "type": "FLOAT"}]}}},
          {"id": 8, "name": "m", "type": {"type": "MAP", "key": "STRING NOT NULL",
              "value": "INT"}}
        ],
        "partitionKeys": ["dt"], "primaryKeys": ["id", "dt"],
        "options": {"bucket": "2", "sequence.field": "v", "fields.v.ignore-retract": "true",
                    "fields.m.map.storage-layout": "shared-shredding",
                    "fields.s,v.sequence-group": "r,arr"}}"#,
    )
    .unwrap()
}

fn append_base() -> TableSchema {
    TableSchema::from_json(
        r#"{"version": 3, "id": 0, "timeMillis": 1, "highestFieldId": 2,
        "fields": [{"id": 0, "name": "a", "type": "INT"},
                   {"id": 1, "name": "dt", "type": "STRING"},
                   {"id": 2, "name": "b", "type": "STRING"}],
        "partitionKeys": ["dt"], "primaryKeys": [],
        "options": {"bucket": "4", "bucket-key": "a"}}"#,
    )
    .unwrap()
}

fn apply(s: &TableSchema, changes: Vec<SchemaChange>) -> Result<TableSchema> {
    s.apply_changes(&changes, 77)
}

fn names(s: &TableSchema) -> Vec<String> {
    s.field_names()
}

fn field<'a>(s: &'a TableSchema, name: &str) -> &'a DataField {
    s.field(name).unwrap_or_else(|| panic!("no column {name}"))
}

fn row_fields(t: &DataType) -> &[DataField] {
    match &t.kind {
        TypeKind::Row(fs) => fs,
        TypeKind::Array(e) => row_fields(e),
        other => panic!("not a row: {other:?}"),
    }
}

fn err(s: &TableSchema, changes: Vec<SchemaChange>) -> String {
    match apply(s, changes) {
        Ok(t) => panic!("expected a refusal, got schema {}", t.to_json().unwrap()),
        Err(e) => e.to_string(),
    }
}

fn assert_err(s: &TableSchema, changes: Vec<SchemaChange>, needles: &[&str]) {
    let e = err(s, changes);
    for n in needles {
        assert!(e.contains(n), "error `{e}` does not mention `{n}`");
    }
}

// ---- every change kind ------------------------------------------------------------------------

#[test]
fn a_change_gives_the_next_schema_id_and_keeps_everything_else() {
    let s = base();
    let t = apply(&s, vec![SchemaChange::update_comment(Some("c".into()))]).unwrap();
    assert_eq!((t.id, t.version, t.time_millis), (5, CURRENT_VERSION, 77));
    assert_eq!(t.comment.as_deref(), Some("c"));
    assert_eq!(t.fields, s.fields);
    assert_eq!(t.options, s.options);
    let t = apply(&t, vec![SchemaChange::update_comment(None)]).unwrap();
    assert_eq!((t.id, t.comment.clone()), (6, None));
    // No changes at all still gives a new version, as Java's commitChanges does.
    assert_eq!(apply(&s, vec![]).unwrap().id, 5);
}

#[test]
fn set_and_remove_options() {
    let s = base();
    let t = apply(
        &s,
        vec![
            SchemaChange::set_option("snapshot.num-retained.min", "3"),
            SchemaChange::set_option("bucket", "4"),
            SchemaChange::remove_option("fields.v.ignore-retract"),
            SchemaChange::remove_option("no-such-key-is-fine-to-remove"),
        ],
    )
    .unwrap();
    assert_eq!(t.options["snapshot.num-retained.min"], "3");
    assert_eq!(t.options["bucket"], "4");
    assert!(!t.options.contains_key("fields.v.ignore-retract"));
    // Setting an option to its current value, or `primary-key` / `partition` to the current
    // keys, is no change (Java's isUnchangedNormalizedKey).
    let t = apply(
        &s,
        vec![
            SchemaChange::set_option("bucket", "2"),
            SchemaChange::set_option("primary-key", "id, dt"),
            SchemaChange::set_option("partition", "dt"),
            SchemaChange::set_option("type", "TABLE"),
        ],
    )
    .unwrap();
    assert_eq!(t.options, s.options);
}

#[test]
fn add_columns_take_new_ids_and_positions() {
    let s = base();
    let t = apply(
        &s,
        vec![
            SchemaChange::add_column("last", ty("STRING")),
            SchemaChange::add_nested_column(
                p(&["first"]),
                ty("ROW<a INT, b ROW<c INT>>"),
                Some("doc".into()),
                Some(ColumnMove::first("first")),
            ),
            SchemaChange::add_nested_column(
                p(&["after_v"]),
                ty("INT"),
                None,
                Some(ColumnMove::after("after_v", "v")),
            ),
            SchemaChange::add_nested_column(
                p(&["before_s"]),
                ty("INT"),
                None,
                Some(ColumnMove::before("before_s", "s")),
            ),
            SchemaChange::add_nested_column(
                p(&["explicit_last"]),
                ty("INT"),
                None,
                Some(ColumnMove::last("explicit_last")),
            ),
            SchemaChange::add_nested_column(p(&["r", "z"]), ty("DOUBLE"), None, None),
            SchemaChange::add_nested_column(p(&["arr", "element", "f"]), ty("INT"), None, None),
        ],
    )
    .unwrap();
    assert_eq!(
        names(&t),
        [
            "first",
            "id",
            "dt",
            "v",
            "after_v",
            "before_s",
            "s",
            "r",
            "arr",
            "m",
            "last",
            "explicit_last"
        ]
    );
    assert_eq!(field(&t, "last").id, 10);
    // The column first, then its nested fields in ReassignFieldId order (c before b).
    let first = field(&t, "first");
    assert_eq!(first.id, 11);
    assert_eq!(first.description.as_deref(), Some("doc"));
    let inner = row_fields(&first.data_type);
    assert_eq!((inner[0].id, inner[1].id), (12, 14));
    assert_eq!(row_fields(&inner[1].data_type)[0].id, 13);
    assert_eq!(field(&t, "after_v").id, 15);
    assert_eq!(field(&t, "before_s").id, 16);
    assert_eq!(field(&t, "explicit_last").id, 17);
    let r = row_fields(&field(&t, "r").data_type);
    assert_eq!((r[2].name.as_str(), r[2].id), ("z", 18));
    let e = row_fields(&field(&t, "arr").data_type);
    assert_eq!((e[1].name.as_str(), e[1].id), ("f", 19));
    assert_eq!(t.highest_field_id, 19);
    assert_eq!(TableSchema::from_json(&t.to_json().unwrap()).unwrap(), t);
}

#[test]
fn add_column_before_partition() {
    let mut s = append_base();
    s.options
        .insert("add-column-before-partition".into(), "true".into());
    let t = apply(&s, vec![SchemaChange::add_column("c", ty("INT"))]).unwrap();
    assert_eq!(names(&t), ["a", "c", "dt", "b"]);
    // A position given wins; nested columns are not affected.
    let t = apply(
        &s,
        vec![SchemaChange::add_nested_column(
            p(&["c"]),
            ty("INT"),
            None,
            Some(ColumnMove::last("c")),
        )],
    )
    .unwrap();
    assert_eq!(names(&t), ["a", "dt", "b", "c"]);
}

#[test]
fn renames_keep_ids_and_follow_into_keys_and_options() {
    let s = base();
    let t = apply(
        &s,
        vec![
            SchemaChange::rename_column("id", "key"),
            SchemaChange::rename_column("v", "value"),
            SchemaChange::rename_column("s", "str"),
            SchemaChange::rename_column("m", "attrs"),
            SchemaChange::rename_nested_column(p(&["r", "x"]), "x2"),
            SchemaChange::rename_nested_column(p(&["arr", "element", "e"]), "e2"),
        ],
    )
    .unwrap();
    assert_eq!(
        names(&t),
        ["key", "dt", "value", "str", "r", "arr", "attrs"]
    );
    assert_eq!(field(&t, "key").id, 0);
    assert_eq!(field(&t, "value").id, 2);
    assert_eq!(t.primary_keys, ["key", "dt"]);
    assert_eq!(t.options["sequence.field"], "value");
    assert_eq!(t.options["fields.value.ignore-retract"], "true");
    assert_eq!(
        t.options["fields.attrs.map.storage-layout"],
        "shared-shredding"
    );
    assert!(!t.options.contains_key("fields.m.map.storage-layout"));
    assert_eq!(t.options["fields.str,value.sequence-group"], "r,arr");
    assert_eq!(row_fields(&field(&t, "r").data_type)[0].name, "x2");
    assert_eq!(row_fields(&field(&t, "arr").data_type)[0].name, "e2");
    assert_eq!(t.highest_field_id, s.highest_field_id);
    // bucket-key follows a rename too.
    let a = apply(&append_base(), vec![SchemaChange::rename_column("a", "a2")]).unwrap();
    assert_eq!(a.options["bucket-key"], "a2");
}

#[test]
fn renames_apply_in_order_to_per_column_options() {
    // b → c, then a → b: the option of the old `a` must end up on the new `b`.
    let mut s = append_base();
    s.options.remove("bucket-key");
    s.options.insert("bucket".into(), "-1".into());
    s.options
        .insert("fields.a.list-agg-delimiter".into(), "A".into());
    s.options
        .insert("fields.b.list-agg-delimiter".into(), "B".into());
    let t = apply(
        &s,
        vec![
            SchemaChange::rename_column("b", "c"),
            SchemaChange::rename_column("a", "b"),
        ],
    )
    .unwrap();
    assert_eq!(names(&t), ["b", "dt", "c"]);
    assert_eq!(t.options["fields.b.list-agg-delimiter"], "A");
    assert_eq!(t.options["fields.c.list-agg-delimiter"], "B");
    assert!(!t.options.contains_key("fields.a.list-agg-delimiter"));
}

#[test]
fn drops_remove_columns_and_their_map_options() {
    let s = base();
    let t = apply(
        &s,
        vec![
            SchemaChange::drop_column("m"),
            SchemaChange::drop_nested_column(p(&["r", "y"])),
        ],
    )
    .unwrap();
    assert_eq!(names(&t), ["id", "dt", "v", "s", "r", "arr"]);
    assert!(!t.options.contains_key("fields.m.map.storage-layout"));
    assert_eq!(row_fields(&field(&t, "r").data_type).len(), 1);
    // highestFieldId never goes down: a re-added column gets a new id.
    assert_eq!(t.highest_field_id, 9);
    let t = apply(&t, vec![SchemaChange::add_column("m", ty("INT"))]).unwrap();
    assert_eq!(field(&t, "m").id, 10);
}

#[test]
fn type_changes_follow_java_cast_rules() {
    let s = base();
    let t = apply(
        &s,
        vec![
            SchemaChange::update_column_type("v", ty("BIGINT")),
            SchemaChange::update_column_type("s", ty("VARCHAR(20)")),
            SchemaChange::update_nested_column_type(p(&["r", "x"]), ty("DECIMAL(12, 2)"), false),
            SchemaChange::update_nested_column_type(
                p(&["arr", "element", "e"]),
                ty("DOUBLE"),
                false,
            ),
            SchemaChange::update_nested_column_type(p(&["m", "value"]), ty("BIGINT"), false),
        ],
    )
    .unwrap();
    assert_eq!(field(&t, "v").data_type, ty("BIGINT"));
    assert_eq!(field(&t, "v").id, 2);
    assert_eq!(field(&t, "v").description.as_deref(), Some("value"));
    assert_eq!(field(&t, "s").data_type, ty("VARCHAR(20)"));
    assert_eq!(
        row_fields(&field(&t, "r").data_type)[0].data_type,
        ty("DECIMAL(12, 2)")
    );
    assert_eq!(
        row_fields(&field(&t, "arr").data_type)[0].data_type,
        ty("DOUBLE")
    );
    assert_eq!(field(&t, "m").data_type, ty("MAP<STRING NOT NULL, BIGINT>"));
    // Explicit casts (narrowing, to and from strings) are allowed unless disabled.
    let t = apply(
        &s,
        vec![SchemaChange::update_column_type("v", ty("STRING"))],
    )
    .unwrap();
    assert_eq!(field(&t, "v").data_type, DataType::string());
    // keepNullability keeps a nullable column nullable.
    let t = apply(
        &s,
        vec![SchemaChange::update_nested_column_type(
            p(&["v"]),
            ty("BIGINT NOT NULL"),
            true,
        )],
    )
    .unwrap();
    assert_eq!(field(&t, "v").data_type, ty("BIGINT"));
}

#[test]
fn nullability_changes() {
    let mut s = base();
    let t = apply(
        &s,
        vec![SchemaChange::update_column_nullability(p(&["id"]), false)],
    )
    .unwrap();
    assert!(!field(&t, "id").data_type.nullable);
    // nullable → NOT NULL needs alter-column-null-to-not-null.disabled = false.
    s.options.insert(
        "alter-column-null-to-not-null.disabled".into(),
        "false".into(),
    );
    let t = apply(
        &s,
        vec![
            SchemaChange::update_column_nullability(p(&["v"]), false),
            SchemaChange::update_column_nullability(p(&["r", "x"]), false),
            SchemaChange::update_column_nullability(p(&["arr", "element"]), false),
        ],
    )
    .unwrap();
    assert!(!field(&t, "v").data_type.nullable);
    assert!(!row_fields(&field(&t, "r").data_type)[0].data_type.nullable);
    match &field(&t, "arr").data_type.kind {
        TypeKind::Array(e) => assert!(!e.nullable),
        other => panic!("{other:?}"),
    }
    let back = apply(
        &t,
        vec![SchemaChange::update_column_nullability(p(&["v"]), true)],
    )
    .unwrap();
    assert!(field(&back, "v").data_type.nullable);
}

#[test]
fn comments_and_positions() {
    let s = base();
    let t = apply(
        &s,
        vec![
            SchemaChange::update_column_comment(p(&["v"]), None),
            SchemaChange::update_column_comment(p(&["r", "y"]), Some("why".into())),
            SchemaChange::update_column_position(ColumnMove::first("m")),
            SchemaChange::update_column_position(ColumnMove::after("id", "s")),
            SchemaChange::update_column_position(ColumnMove::before("arr", "dt")),
        ],
    )
    .unwrap();
    assert_eq!(field(&t, "v").description, None);
    assert_eq!(
        row_fields(&field(&t, "r").data_type)[1]
            .description
            .as_deref(),
        Some("why")
    );
    assert_eq!(names(&t), ["m", "arr", "dt", "v", "s", "id", "r"]);
    let t = apply(
        &s,
        vec![SchemaChange::update_column_position(ColumnMove::last("id"))],
    )
    .unwrap();
    assert_eq!(names(&t), ["dt", "v", "s", "r", "arr", "m", "id"]);
    // Java's index arithmetic: BEFORE a later column, AFTER an earlier one.
    let t = apply(
        &s,
        vec![SchemaChange::update_column_position(ColumnMove::before(
            "id", "s",
        ))],
    )
    .unwrap();
    assert_eq!(names(&t), ["dt", "v", "id", "s", "r", "arr", "m"]);
    let t = apply(
        &s,
        vec![SchemaChange::update_column_position(ColumnMove::after(
            "m", "dt",
        ))],
    )
    .unwrap();
    assert_eq!(names(&t), ["id", "dt", "m", "v", "s", "r", "arr"]);
}

#[test]
fn changes_without_snapshots_skip_the_data_checks() {
    let s = append_base();
    let to_dynamic = [
        SchemaChange::set_option("bucket", "-1"),
        SchemaChange::remove_option("bucket-key"),
    ];
    assert!(s.apply_changes(&to_dynamic, 1).is_err());
    let t = s.apply_changes_with(&to_dynamic, 1, false).unwrap();
    assert_eq!(t.options["bucket"], "-1");
    assert!(!t.options.contains_key("bucket-key"));
}

// ---- every refusal ----------------------------------------------------------------------------

#[test]
fn refused_column_changes_name_the_column() {
    let s = base();
    use SchemaChange as C;
    let cases: Vec<(Vec<SchemaChange>, &[&str])> = vec![
        (
            vec![C::add_column("v", ty("INT"))],
            &["`v`", "already exists"],
        ),
        (
            vec![C::add_nested_column(p(&["r", "x"]), ty("INT"), None, None)],
            &["`r.x`", "already exists"],
        ),
        (
            vec![C::add_column("n", ty("INT NOT NULL"))],
            &["`n`", "NOT NULL"],
        ),
        (
            vec![C::add_nested_column(
                p(&["nope", "x"]),
                ty("INT"),
                None,
                None,
            )],
            &["`nope`", "does not exist"],
        ),
        (
            vec![C::add_nested_column(p(&["v", "x"]), ty("INT"), None, None)],
            &["`v.x`", "not a ROW"],
        ),
        (
            vec![C::add_nested_column(
                p(&["n"]),
                ty("INT"),
                None,
                Some(ColumnMove::after("n", "ghost")),
            )],
            &["`ghost`", "does not exist"],
        ),
        (
            vec![C::add_nested_column(
                p(&["b"]),
                ty("BYTES"),
                Some("__BLOB_FIELD".into()),
                None,
            )],
            &["`b`", "BLOB"],
        ),
        (
            vec![C::rename_column("dt", "day")],
            &["partition column", "[dt]"],
        ),
        (
            vec![C::rename_column("ghost", "g")],
            &["`ghost`", "does not exist"],
        ),
        (vec![C::rename_column("v", "s")], &["`s`", "already exists"]),
        (
            vec![C::rename_nested_column(p(&["r", "x"]), "y")],
            &["`r.y`", "already exists"],
        ),
        (
            vec![C::rename_column("v", "w"), C::rename_column("v", "u")],
            &["`v`"],
        ),
        (
            vec![C::rename_column("v", "_KEY_v")],
            &["`_KEY_v`", "reserved"],
        ),
        (vec![C::rename_column("v", "")], &["blank"]),
        (
            vec![C::drop_column("dt")],
            &["partition key or primary key", "[dt]"],
        ),
        (
            vec![C::drop_column("id")],
            &["partition key or primary key", "[id]"],
        ),
        (
            vec![C::drop_column("ghost")],
            &["`ghost`", "does not exist"],
        ),
        (
            vec![C::drop_nested_column(p(&["r", "ghost"]))],
            &["`r.ghost`", "does not exist"],
        ),
        (
            vec![C::drop_nested_column(p(&["arr", "element", "e"]))],
            &["Cannot drop all fields", "`arr.element.e`"],
        ),
        // A column named by an option cannot go (SchemaValidation): sequence.field = v.
        (vec![C::drop_column("v")], &["`v`", "does not exist"]),
        (
            vec![C::update_column_type("dt", ty("INT"))],
            &["partition column", "[dt]"],
        ),
        (
            vec![C::update_column_type("id", ty("INT"))],
            &["primary key", "`id`"],
        ),
        (
            vec![C::update_column_type("ghost", ty("INT"))],
            &["`ghost`", "does not exist"],
        ),
        (
            vec![C::update_column_type("v", ty("BOOLEAN NOT NULL"))],
            &["v", "nullable to non nullable"],
        ),
        (
            vec![C::update_column_type("v", ty("DATE"))],
            &["v[INT]", "DATE", "without losing information"],
        ),
        (
            vec![C::update_column_type("r", ty("ROW<x BIGINT, y STRING>"))],
            &["r[ROW", "cannot be converted"],
        ),
        (
            vec![C::update_column_type("arr", ty("ARRAY<ROW<e DOUBLE>>"))],
            &["arr[ARRAY", "cannot be converted"],
        ),
        (
            vec![C::update_column_nullability(p(&["id"]), true)],
            &["nullability of primary key", "`id`"],
        ),
        (
            vec![C::update_column_nullability(p(&["v"]), false)],
            &["v", "alter-column-null-to-not-null.disabled"],
        ),
        (
            vec![C::update_column_nullability(p(&["ghost"]), true)],
            &["`ghost`", "does not exist"],
        ),
        (
            vec![C::update_column_comment(
                p(&["v"]),
                Some("__VECTOR_FIELD;3".into()),
            )],
            &["column directives", "`v`"],
        ),
        (
            vec![C::update_column_comment(p(&["r", "ghost"]), None)],
            &["`r.ghost`", "does not exist"],
        ),
        (
            vec![C::update_column_position(ColumnMove::first("id"))],
            &["Cannot move itself", "id"],
        ),
        (
            vec![C::update_column_position(ColumnMove::last("m"))],
            &["Cannot move itself", "m"],
        ),
        (
            vec![C::update_column_position(ColumnMove::after("v", "v"))],
            &["Cannot move itself", "v"],
        ),
        (
            vec![C::update_column_position(ColumnMove::first("ghost"))],
            &["`ghost`", "does not exist"],
        ),
        (
            vec![C::update_column_position(ColumnMove::after("v", "ghost"))],
            &["`ghost`", "does not exist"],
        ),
        (
            vec![C::rename_nested_column(vec![], "x")],
            &["path is empty"],
        ),
    ];
    for (changes, needles) in cases {
        assert_err(&s, changes, needles);
    }
}

#[test]
fn dropping_every_column_is_refused() {
    let s = TableSchema::from_json(
        r#"{"id": 0, "fields": [{"id": 0, "name": "a", "type": "INT"},
            {"id": 1, "name": "b", "type": "INT"}], "options": {"bucket": "-1"}}"#,
    )
    .unwrap();
    assert_err(
        &s,
        vec![
            SchemaChange::drop_column("a"),
            SchemaChange::drop_column("b"),
        ],
        &["Cannot drop all fields", "`b`"],
    );
}

#[test]
fn disabled_explicit_casts_refuse_narrowing() {
    let mut s = base();
    s.options
        .insert("disable-explicit-type-casting".into(), "true".into());
    assert_err(
        &s,
        vec![SchemaChange::update_column_type("v", ty("SMALLINT"))],
        &["v[INT]", "SMALLINT", "disable-explicit-type-casting"],
    );
    assert!(apply(
        &s,
        vec![SchemaChange::update_column_type("v", ty("BIGINT"))]
    )
    .is_ok());
}

#[test]
fn primary_key_index_and_blob_columns_are_protected() {
    let mut s = base();
    s.options
        .insert("pk-btree.index.columns".into(), "v".into());
    for c in [
        SchemaChange::rename_column("v", "w"),
        SchemaChange::drop_column("v"),
        SchemaChange::update_column_type("v", ty("BIGINT")),
    ] {
        assert_err(
            &s,
            vec![c],
            &["primary-key index column", "[v]", "pk-btree.index.columns"],
        );
    }
    let b = TableSchema::from_json(
        r#"{"id": 0, "fields": [{"id": 0, "name": "a", "type": "INT"},
            {"id": 1, "name": "b", "type": "BLOB"}], "options": {"bucket": "-1"}}"#,
    )
    .unwrap();
    assert_err(
        &b,
        vec![SchemaChange::rename_column("b", "c")],
        &["BLOB", "[b]"],
    );
    assert_err(
        &b,
        vec![SchemaChange::update_column_type("b", DataType::bytes())],
        &["BLOB", "[b]"],
    );
    assert_err(
        &b,
        vec![SchemaChange::update_column_type("a", ty("BLOB"))],
        &["BLOB", "[a]"],
    );
}

#[test]
fn type_change_of_a_column_keeps_its_default_when_it_converts_to_the_new_type() {
    let mut s = append_base();
    s.fields[2].default_value = Some("x".into());
    let out = s
        .apply_changes(
            &[SchemaChange::update_column_type("b", ty("VARCHAR(3)"))],
            0,
        )
        .unwrap();
    assert_eq!(out.fields[2].default_value.as_deref(), Some("x"));
    assert_err(
        &s,
        vec![SchemaChange::update_column_type("b", ty("INT"))],
        &["`b`", "default value", "`x`"],
    );
}

/// Java's `UpdateColumnDefaultValue`: set (checked against the column's type), replaced, and
/// dropped; the schema JSON carries it as `defaultValue`.
#[test]
fn column_default_values_are_set_checked_and_dropped() {
    let s = append_base();
    let set = s
        .apply_changes(
            &[SchemaChange::update_column_default_value(
                p(&["b"]),
                Some("'x'".into()),
            )],
            0,
        )
        .unwrap();
    assert_eq!(set.fields[2].default_value.as_deref(), Some("'x'"));
    assert!(set.to_json().unwrap().contains(r#""defaultValue" : "'x'""#));
    let dropped = set
        .apply_changes(
            &[SchemaChange::update_column_default_value(p(&["b"]), None)],
            0,
        )
        .unwrap();
    assert_eq!(dropped.fields[2].default_value, None);
    assert_err(
        &s,
        vec![SchemaChange::update_column_default_value(
            p(&["a"]),
            Some("abc".into()),
        )],
        &["unsupported default value `abc`"],
    );
    assert_err(
        &s,
        vec![SchemaChange::update_column_default_value(
            p(&["nope"]),
            Some("1".into()),
        )],
        &["nope"],
    );
}

#[test]
fn refused_option_changes_name_the_option() {
    let s = base();
    use SchemaChange as C;
    let cases: Vec<(Vec<SchemaChange>, &[&str])> = vec![
        (vec![C::set_option("type", "format-table")], &["'type'"]),
        (vec![C::remove_option("type")], &["'type'"]),
        (vec![C::set_option("path", "/x")], &["path"]),
        (vec![C::remove_option("PATH")], &["path"]),
        (vec![C::set_option("primary-key", "id")], &["`primary-key`"]),
        (vec![C::set_option("partition", "v")], &["`partition`"]),
        (
            vec![C::set_option("merge-engine", "first-row")],
            &["'merge-engine'", "immutable"],
        ),
        (
            vec![C::remove_option("rowkind.field")],
            &["'rowkind.field'"],
        ),
        (vec![C::set_option("bucket-key", "id")], &["'bucket-key'"]),
        (
            vec![C::set_option("sequence.snapshot-ordering", "true")],
            &["'sequence.snapshot-ordering'"],
        ),
        (vec![C::set_option("bucket", "-1")], &["bucket to -1"]),
        (vec![C::set_option("bucket", "two")], &["`bucket`", "two"]),
        (vec![C::remove_option("bucket")], &["reset bucket"]),
        (
            vec![C::set_option("deletion-vectors.enabled", "true")],
            &["deletion vectors mode", "deletion-vectors.modifiable"],
        ),
        (
            vec![C::set_option("no.such.option", "1")],
            &["`no.such.option`", "unknown option"],
        ),
        (
            vec![C::set_option("snapshot.num-retained.min", "0")],
            &["snapshot.num-retained.min"],
        ),
        (
            vec![C::set_option("sequence.field", "ghost")],
            &["sequence field `ghost`"],
        ),
        (
            vec![C::set_option("fields.ghost.ignore-retract", "true")],
            &["column `ghost`"],
        ),
    ];
    for (changes, needles) in cases {
        assert_err(&s, changes, needles);
    }
    let mut dv = base();
    dv.options
        .insert("deletion-vectors.enabled".into(), "true".into());
    assert_err(
        &dv,
        vec![SchemaChange::remove_option("deletion-vectors.enabled")],
        &["deletion vectors mode from true to false"],
    );
    dv.options
        .insert("deletion-vectors.modifiable".into(), "true".into());
    assert!(apply(
        &dv,
        vec![SchemaChange::remove_option("deletion-vectors.enabled")]
    )
    .is_ok());
    let mut ig = base();
    ig.options.insert("ignore-delete".into(), "true".into());
    assert_err(
        &ig,
        vec![SchemaChange::set_option("ignore-delete", "false")],
        &["ignore-delete from true to false"],
    );
    let dynamic = TableSchema::from_json(
        r#"{"id": 0, "fields": [{"id": 0, "name": "a", "type": "INT"}],
            "options": {"bucket": "-1"}}"#,
    )
    .unwrap();
    assert_err(
        &dynamic,
        vec![SchemaChange::set_option("bucket", "3")],
        &["bucket when it is -1"],
    );
}

#[test]
fn columns_named_by_options_cannot_go_astray() {
    let mut s = base();
    s.options
        .insert("record-level.time-field".into(), "v".into());
    s.options
        .insert("record-level.expire-time".into(), "1 d".into());
    assert_err(
        &s,
        vec![SchemaChange::update_column_type("v", ty("STRING"))],
        &["record-level.time-field", "`v`", "STRING"],
    );
    let mut s = append_base();
    s.options.insert("rowkind.field".into(), "b".into());
    // rowkind.field is not renamed with its column (Java), so the rename is refused.
    assert_err(
        &s,
        vec![SchemaChange::rename_column("b", "c")],
        &["rowkind.field", "`b`"],
    );
}

#[test]
fn unknown_options_another_writer_stored_are_carried_over() {
    let mut s = append_base();
    s.options
        .insert("zz-writer.private-flag".into(), "true".into());
    let t = apply(&s, vec![SchemaChange::add_column("c", ty("INT"))]).unwrap();
    assert_eq!(t.options["zz-writer.private-flag"], "true");
    // ... but not set anew.
    assert_err(
        &s,
        vec![SchemaChange::set_option("zz-writer.private-flag", "false")],
        &["zz-writer.private-flag"],
    );
}

#[test]
fn primary_key_nullability_follows_the_option() {
    let s = base();
    // primary-key.nullable makes key columns nullable again after the change.
    let t = apply(
        &s,
        vec![SchemaChange::set_option("primary-key.nullable", "true")],
    )
    .unwrap();
    assert!(field(&t, "id").data_type.nullable && field(&t, "dt").data_type.nullable);
}

// ---- properties ---------------------------------------------------------------------------------

fn all_ids(fields: &[DataField], out: &mut Vec<i32>) {
    fn walk(t: &DataType, out: &mut Vec<i32>) {
        match &t.kind {
            TypeKind::Array(e) | TypeKind::Multiset(e) => walk(e, out),
            TypeKind::Map { key, value } => {
                walk(key, out);
                walk(value, out);
            }
            TypeKind::Row(fs) => all_ids(fs, out),
            _ => {}
        }
    }
    for f in fields {
        out.push(f.id);
        walk(&f.data_type, out);
    }
}

fn ids_by_name(s: &TableSchema) -> Vec<(String, i32)> {
    s.fields.iter().map(|f| (f.name.clone(), f.id)).collect()
}

/// A random change on `s` (valid or not).
fn change_strategy() -> impl Strategy<Value = (u8, u8, u8, u8)> {
    (0u8..8, 0u8..16, 0u8..16, 0u8..6)
}

fn make_change(s: &TableSchema, (kind, a, b, t): (u8, u8, u8, u8), n: usize) -> SchemaChange {
    let cols = s.field_names();
    let col = |i: u8| cols[i as usize % cols.len()].clone();
    let types = [
        "INT",
        "BIGINT",
        "STRING",
        "ROW<p INT, q ROW<w STRING>>",
        "DOUBLE",
        "DECIMAL(20, 2)",
    ];
    match kind {
        0 => SchemaChange::add_column(format!("c{n}"), ty(types[t as usize])),
        1 => SchemaChange::add_nested_column(
            vec![format!("c{n}")],
            ty(types[t as usize]),
            None,
            Some(ColumnMove::after(format!("c{n}"), col(a))),
        ),
        2 => SchemaChange::rename_column(col(a), format!("r{n}")),
        3 => SchemaChange::drop_column(col(a)),
        4 => SchemaChange::update_column_type(col(a), ty(types[t as usize])),
        5 => SchemaChange::update_column_position(ColumnMove::before(col(a), col(b))),
        6 => SchemaChange::set_option("snapshot.num-retained.min", (b % 5 + 1).to_string()),
        _ => SchemaChange::update_column_comment(vec![col(a)], Some(format!("n{n}"))),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any sequence of changes, each applied or refused: every schema reached round-trips
    /// through its JSON, ids stay unique and below `highestFieldId`, an id never changes name
    /// except by a rename and is never reused, and refusals leave the schema as it was.
    #[test]
    fn random_change_sequences_keep_the_invariants(
        steps in proptest::collection::vec(change_strategy(), 1..25)
    ) {
        let mut s = base();
        let mut seen_highest = s.highest_field_id;
        for (n, step) in steps.into_iter().enumerate() {
            let change = make_change(&s, step, n);
            let before = ids_by_name(&s);
            match s.apply_changes(std::slice::from_ref(&change), n as i64) {
                Ok(t) => {
                    prop_assert_eq!(t.id, s.id + 1);
                    prop_assert!(t.highest_field_id >= seen_highest);
                    let mut ids = Vec::new();
                    all_ids(&t.fields, &mut ids);
                    let unique: std::collections::HashSet<_> = ids.iter().copied().collect();
                    prop_assert_eq!(unique.len(), ids.len(), "duplicate ids after {:?}", change);
                    prop_assert!(ids.iter().all(|i| *i <= t.highest_field_id));
                    // New ids are above the old highest; surviving ids keep their name unless
                    // the change renamed them.
                    for (name, id) in ids_by_name(&t) {
                        match before.iter().find(|(_, i)| *i == id) {
                            Some((old_name, _)) => prop_assert!(
                                *old_name == name
                                    || matches!(&change, SchemaChange::RenameColumn { .. }),
                                "{} became {} after {:?}", old_name, name, change
                            ),
                            None => prop_assert!(id > seen_highest),
                        }
                    }
                    let text = t.to_json().unwrap();
                    prop_assert_eq!(&TableSchema::from_json(&text).unwrap(), &t);
                    seen_highest = t.highest_field_id;
                    s = t;
                }
                Err(e) => {
                    // Refusals say what they refuse; the input schema is untouched.
                    prop_assert!(!e.to_string().is_empty());
                    prop_assert_eq!(ids_by_name(&s), before);
                }
            }
        }
    }
}
