use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::types::{DataField, DataType, TypeKind, MAX_LENGTH};

fn n(kind: TypeKind) -> DataType {
    DataType::nullable(kind)
}

fn nn(kind: TypeKind) -> DataType {
    DataType::not_null(kind)
}

fn text(s: &str) -> DataType {
    parse_type_text(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

#[test]
fn atomic_texts_as_java_writes_them() {
    let cases = [
        (TypeKind::Boolean, "BOOLEAN"),
        (TypeKind::TinyInt, "TINYINT"),
        (TypeKind::SmallInt, "SMALLINT"),
        (TypeKind::Int, "INT"),
        (TypeKind::BigInt, "BIGINT"),
        (TypeKind::Float, "FLOAT"),
        (TypeKind::Double, "DOUBLE"),
        (
            TypeKind::Decimal {
                precision: 10,
                scale: 2,
            },
            "DECIMAL(10, 2)",
        ),
        (TypeKind::Char(3), "CHAR(3)"),
        (TypeKind::VarChar(5), "VARCHAR(5)"),
        (TypeKind::VarChar(MAX_LENGTH), "STRING"),
        (TypeKind::Binary(4), "BINARY(4)"),
        (TypeKind::VarBinary(9), "VARBINARY(9)"),
        (TypeKind::VarBinary(MAX_LENGTH), "BYTES"),
        (TypeKind::Date, "DATE"),
        (TypeKind::Time(0), "TIME(0)"),
        (TypeKind::Timestamp(6), "TIMESTAMP(6)"),
        (
            TypeKind::LocalZonedTimestamp(3),
            "TIMESTAMP(3) WITH LOCAL TIME ZONE",
        ),
        (TypeKind::Variant, "VARIANT"),
        (TypeKind::Blob, "BLOB"),
    ];
    for (kind, expected) in cases {
        assert_eq!(atomic_type_text(&kind), expected);
        assert_eq!(type_to_json(&n(kind.clone())), json!(expected));
        assert_eq!(
            type_to_json(&nn(kind.clone())),
            json!(format!("{expected} NOT NULL"))
        );
        assert_eq!(text(expected), n(kind.clone()));
        assert_eq!(text(&format!("{expected} NOT NULL")), nn(kind));
    }
}

#[test]
fn display_uses_java_sql_text() {
    let t = nn(TypeKind::Map {
        key: Box::new(DataType::string()),
        value: Box::new(n(TypeKind::Array(Box::new(nn(TypeKind::Int))))),
    });
    assert_eq!(t.to_string(), "MAP<STRING, ARRAY<INT NOT NULL>> NOT NULL");
    assert_eq!(
        n(TypeKind::Decimal {
            precision: 5,
            scale: 0
        })
        .to_string(),
        "DECIMAL(5, 0)"
    );
}

#[test]
fn parser_aliases_and_defaults() {
    let dec = |precision, scale| n(TypeKind::Decimal { precision, scale });
    assert_eq!(text("INTEGER"), n(TypeKind::Int));
    assert_eq!(text("int"), n(TypeKind::Int));
    assert_eq!(text("  bigint  not null "), nn(TypeKind::BigInt));
    assert_eq!(text("INT NULL"), n(TypeKind::Int));
    assert_eq!(text("DECIMAL"), dec(10, 0));
    assert_eq!(text("NUMERIC(5)"), dec(5, 0));
    assert_eq!(text("DEC(38,38)"), dec(38, 38));
    assert_eq!(text("DOUBLE PRECISION"), n(TypeKind::Double));
    assert_eq!(text("CHAR"), n(TypeKind::Char(1)));
    assert_eq!(text("VARCHAR"), n(TypeKind::VarChar(1)));
    assert_eq!(text("VARCHAR(2147483647)"), DataType::string());
    assert_eq!(text("BINARY"), n(TypeKind::Binary(1)));
    assert_eq!(text("VARBINARY"), n(TypeKind::VarBinary(1)));
    assert_eq!(text("TIME"), n(TypeKind::Time(0)));
    assert_eq!(text("TIME(3) WITHOUT TIME ZONE"), n(TypeKind::Time(3)));
    assert_eq!(text("TIMESTAMP"), n(TypeKind::Timestamp(6)));
    assert_eq!(
        text("TIMESTAMP(9) WITHOUT TIME ZONE NOT NULL"),
        nn(TypeKind::Timestamp(9))
    );
    assert_eq!(
        text("TIMESTAMP WITH LOCAL TIME ZONE"),
        n(TypeKind::LocalZonedTimestamp(6))
    );
    assert_eq!(
        text("TIMESTAMP_LTZ(6)"),
        n(TypeKind::LocalZonedTimestamp(6))
    );
    assert_eq!(text("TIMESTAMP_LTZ"), n(TypeKind::LocalZonedTimestamp(6)));
    assert_eq!(
        text("TIMESTAMP_LTZ(3) NOT NULL"),
        nn(TypeKind::LocalZonedTimestamp(3))
    );
}

#[test]
fn suffix_and_nested_text_forms() {
    assert_eq!(
        text("INT ARRAY"),
        n(TypeKind::Array(Box::new(n(TypeKind::Int))))
    );
    assert_eq!(
        text("STRING NOT NULL MULTISET NOT NULL"),
        nn(TypeKind::Multiset(Box::new(
            DataType::string().with_nullable(false)
        )))
    );
    assert_eq!(
        text("ARRAY<INT NOT NULL> NOT NULL"),
        nn(TypeKind::Array(Box::new(nn(TypeKind::Int))))
    );
    assert_eq!(
        text("map<string, array<bigint>>"),
        n(TypeKind::Map {
            key: Box::new(DataType::string()),
            value: Box::new(n(TypeKind::Array(Box::new(n(TypeKind::BigInt))))),
        })
    );
    let mut b = DataField::new(1, "b", DataType::string());
    b.description = Some("it's b".into());
    assert_eq!(
        text("ROW<a INT NOT NULL, `b` STRING 'it''s b'>"),
        n(TypeKind::Row(vec![
            DataField::new(0, "a", nn(TypeKind::Int)),
            b.clone()
        ]))
    );
    assert_eq!(
        text("STRUCT<a: INT NOT NULL, b: STRING COMMENT 'it''s b'>"),
        n(TypeKind::Row(vec![
            DataField::new(0, "a", nn(TypeKind::Int)),
            b
        ]))
    );
    assert_eq!(text("ROW<>"), n(TypeKind::Row(vec![])));
    // Display output parses back (ROW names are backquoted).
    let t = text("ROW<`x y` DECIMAL(3, 1), z MAP<INT, ROW<q DATE>> NOT NULL>");
    assert_eq!(text(&t.to_string()), t);
}

#[test]
fn bad_type_text_is_named_in_the_error() {
    for (bad, needle) in [
        ("INTT", "unknown type `INTT`"),
        ("DECIMAL(39, 2)", "precision 39"),
        ("DECIMAL(5, 6)", "scale 6"),
        ("TIMESTAMP(10)", "precision 10"),
        ("VARCHAR(0)", "length"),
        ("VARCHAR(99999999999)", "out of range"),
        ("INT NOT", "unexpected `NOT`"),
        ("MAP<INT>", "expected `,`"),
        ("ARRAY<INT", "expected `>`"),
        ("TIMESTAMP WITH TIME ZONE", "LOCAL"),
        ("", "end of text"),
        ("ROW<a INT, 'x'>", "field name"),
    ] {
        let err = parse_type_text(bad).unwrap_err().to_string();
        assert!(
            err.contains(&format!("`{bad}`")),
            "{bad}: error does not name the text: {err}"
        );
        assert!(err.contains(needle), "{bad}: {err}");
    }
    let err = parse_type_text("GEOMETRY").unwrap_err();
    assert!(matches!(err, SpecError::Unsupported(_)), "{err}");
}

#[test]
fn complex_types_as_java_writes_them() {
    let t = nn(TypeKind::Map {
        key: Box::new(DataType::string().with_nullable(false)),
        value: Box::new(n(TypeKind::Decimal {
            precision: 10,
            scale: 2,
        })),
    });
    let j = type_to_json(&t);
    assert_eq!(
        serde_json::to_string(&j).unwrap(),
        r#"{"type":"MAP NOT NULL","key":"STRING NOT NULL","value":"DECIMAL(10, 2)"}"#
    );
    assert_eq!(parse_type(&j).unwrap(), t);

    let mut b = DataField::new(5, "b", n(TypeKind::LocalZonedTimestamp(3)));
    b.description = Some("event time".into());
    b.default_value = Some("0".into());
    let row = n(TypeKind::Row(vec![
        DataField::new(4, "a", n(TypeKind::BigInt)),
        b,
    ]));
    let j = type_to_json(&row);
    assert_eq!(
        serde_json::to_string(&j).unwrap(),
        concat!(
            r#"{"type":"ROW","fields":[{"id":4,"name":"a","type":"BIGINT"},"#,
            r#"{"id":5,"name":"b","type":"TIMESTAMP(3) WITH LOCAL TIME ZONE","#,
            r#""description":"event time","defaultValue":"0"}]}"#
        )
    );
    assert_eq!(parse_type(&j).unwrap(), row);

    let arr = nn(TypeKind::Multiset(Box::new(n(TypeKind::Int))));
    assert_eq!(
        type_to_json(&arr),
        json!({"type": "MULTISET NOT NULL", "element": "INT"})
    );
}

#[test]
fn pypaimon_variants_are_read() {
    // MAP `type` as text whose key says NOT NULL, plus a `nullable` member.
    let j = json!({"type": "MAP<STRING NOT NULL, DOUBLE>", "key": "STRING NOT NULL",
                   "value": "DOUBLE", "nullable": true});
    assert_eq!(
        parse_type(&j).unwrap(),
        n(TypeKind::Map {
            key: Box::new(DataType::string().with_nullable(false)),
            value: Box::new(n(TypeKind::Double)),
        })
    );
    // Without `nullable`, only a trailing NOT NULL counts.
    let j = json!({"type": "MAP<STRING NOT NULL, DOUBLE>", "key": "STRING", "value": "DOUBLE"});
    assert!(parse_type(&j).unwrap().nullable);
    let j = json!({"type": "ARRAY", "element": "INT", "nullable": false});
    assert!(!parse_type(&j).unwrap().nullable);
    let j = json!({"type": "ROW NOT NULL", "fields": [], "extra": 1});
    assert_eq!(parse_type(&j).unwrap(), nn(TypeKind::Row(vec![])));
    let j = json!({"type": "INT", "nullable": false});
    assert_eq!(parse_type(&j).unwrap(), nn(TypeKind::Int));
    assert_eq!(
        parse_type(&json!("TIMESTAMP_LTZ(6)")).unwrap(),
        n(TypeKind::LocalZonedTimestamp(6))
    );
}

#[test]
fn missing_ids_are_sequential_in_document_order() {
    let fields = parse_fields(&[
        json!({"name": "a", "type": "INT"}),
        json!({"name": "r", "type": {"type": "ROW", "fields": [
            {"name": "x", "type": "INT"},
            {"name": "y", "type": "ROW<p INT>"}
        ]}}),
        json!({"name": "c", "type": "STRING"}),
    ])
    .unwrap();
    assert_eq!(fields[0].id, 0);
    assert_eq!(fields[1].id, 1);
    let TypeKind::Row(children) = &fields[1].data_type.kind else {
        panic!("not a row")
    };
    assert_eq!(children[0].id, 2);
    assert_eq!(children[1].id, 3);
    let TypeKind::Row(grand) = &children[1].data_type.kind else {
        panic!("not a row")
    };
    assert_eq!(grand[0].id, 4);
    assert_eq!(fields[2].id, 5);

    let err = parse_fields(&[
        json!({"id": 0, "name": "a", "type": "INT"}),
        json!({"name": "b", "type": "INT"}),
    ])
    .unwrap_err()
    .to_string();
    assert!(err.contains("partial field ids"), "{err}");

    let mut ids = FieldIds::unassigned();
    let f = parse_field_with(&json!({"name": "a", "type": "ROW<b INT>"}), &mut ids).unwrap();
    assert_eq!(f.id, UNASSIGNED_FIELD_ID);
    let TypeKind::Row(children) = &f.data_type.kind else {
        panic!("not a row")
    };
    assert_eq!(children[0].id, UNASSIGNED_FIELD_ID);
}

#[test]
fn field_errors_name_the_field() {
    let err = parse_field(&json!({"id": 1, "name": "price", "type": "DECIMAL(99, 1)"}))
        .unwrap_err()
        .to_string();
    assert!(err.contains("field `price`"), "{err}");
    assert!(err.contains("DECIMAL(99, 1)"), "{err}");
    let err = parse_field(&json!({"id": 1, "name": "x"}))
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing `type`"), "{err}");
    let err = parse_type(&json!({"type": "ARRAY"}))
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing `element`"), "{err}");
    assert!(parse_type(&json!(5)).is_err());
}

fn arb_atomic() -> impl Strategy<Value = TypeKind> {
    prop_oneof![
        Just(TypeKind::Boolean),
        Just(TypeKind::TinyInt),
        Just(TypeKind::SmallInt),
        Just(TypeKind::Int),
        Just(TypeKind::BigInt),
        Just(TypeKind::Float),
        Just(TypeKind::Double),
        (1u32..=38)
            .prop_flat_map(|p| (Just(p), 0..=p))
            .prop_map(|(precision, scale)| TypeKind::Decimal { precision, scale }),
        (1u32..=MAX_LENGTH).prop_map(TypeKind::Char),
        prop_oneof![1u32..=100, Just(MAX_LENGTH)].prop_map(TypeKind::VarChar),
        (1u32..=MAX_LENGTH).prop_map(TypeKind::Binary),
        prop_oneof![1u32..=100, Just(MAX_LENGTH)].prop_map(TypeKind::VarBinary),
        Just(TypeKind::Date),
        (0u32..=9).prop_map(TypeKind::Time),
        (0u32..=9).prop_map(TypeKind::Timestamp),
        (0u32..=9).prop_map(TypeKind::LocalZonedTimestamp),
        Just(TypeKind::Variant),
        Just(TypeKind::Blob),
    ]
}

fn arb_type() -> impl Strategy<Value = DataType> {
    let leaf = (arb_atomic(), any::<bool>()).prop_map(|(k, nl)| DataType::new(k, nl));
    leaf.prop_recursive(4, 32, 4, |inner| {
        let field = (
            0i32..1000,
            "[a-zA-Z_][a-zA-Z0-9_ ]{0,8}",
            inner.clone(),
            proptest::option::of("[^\u{0}]{0,12}"),
            proptest::option::of("[0-9a-z']{0,6}"),
        )
            .prop_map(
                |(id, name, data_type, description, default_value)| DataField {
                    id,
                    name,
                    data_type,
                    description,
                    default_value,
                },
            );
        (
            prop_oneof![
                inner.clone().prop_map(|e| TypeKind::Array(Box::new(e))),
                inner.clone().prop_map(|e| TypeKind::Multiset(Box::new(e))),
                (inner.clone(), inner).prop_map(|(k, v)| TypeKind::Map {
                    key: Box::new(k),
                    value: Box::new(v),
                }),
                proptest::collection::vec(field, 0..4).prop_map(TypeKind::Row),
            ],
            any::<bool>(),
        )
            .prop_map(|(k, nl)| DataType::new(k, nl))
    })
}

/// Drops what the SQL text form does not carry (ids, default values) for comparisons.
fn strip_ids(t: &DataType) -> DataType {
    let kind = match &t.kind {
        TypeKind::Array(e) => TypeKind::Array(Box::new(strip_ids(e))),
        TypeKind::Multiset(e) => TypeKind::Multiset(Box::new(strip_ids(e))),
        TypeKind::Map { key, value } => TypeKind::Map {
            key: Box::new(strip_ids(key)),
            value: Box::new(strip_ids(value)),
        },
        TypeKind::Row(fs) => TypeKind::Row(
            fs.iter()
                .map(|f| DataField::new(0, f.name.clone(), strip_ids(&f.data_type)))
                .collect(),
        ),
        k => k.clone(),
    };
    DataType::new(kind, t.nullable)
}

proptest! {
    #[test]
    fn json_round_trip(t in arb_type()) {
        let j = type_to_json(&t);
        prop_assert_eq!(parse_type(&j)?, t.clone());
        // And through text: the JSON survives serialization.
        let s = serde_json::to_string(&j).unwrap();
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        prop_assert_eq!(parse_type(&back)?, t);
    }

    #[test]
    fn sql_text_round_trip(t in arb_type()) {
        let parsed = parse_type_text(&t.to_string())?;
        prop_assert_eq!(strip_ids(&parsed), strip_ids(&t));
    }
}
