//! Unit and property tests of the VARIANT shredding writer: layouts as Java's
//! `VariantShreddingWriter.castShredded` fills them, and round trips through strata's rebuild
//! (`variant_shredding::unshred`, Java's `ShreddingUtils.rebuild`).

use super::*;
use crate::format::variant_json::{variant_from_json, variant_to_json};
use crate::format::variant_shredding::unshred;
use arrow_array::types::{Decimal128Type, Int64Type, Int8Type};
use arrow_array::BinaryArray;
use proptest::prelude::*;
use serde_json::{json, Value};

/// The logical column `Struct{value, metadata}` of JSON documents (`None` = NULL row).
fn column(docs: &[Option<Value>]) -> StructArray {
    let fields = Fields::from(vec![
        Field::new("value", ArrowType::Binary, false),
        Field::new("metadata", ArrowType::Binary, false),
    ]);
    column_of(fields, docs)
}

fn column_of(fields: Fields, docs: &[Option<Value>]) -> StructArray {
    let mut values = Vec::new();
    let mut metas = Vec::new();
    for d in docs {
        let (v, m) = d
            .as_ref()
            .map(variant_from_json)
            .unwrap_or((Vec::new(), Vec::new()));
        values.push(v);
        metas.push(m);
    }
    let nulls = NullBuffer::from(docs.iter().map(Option::is_some).collect::<Vec<_>>());
    StructArray::new(
        fields,
        vec![
            Arc::new(BinaryArray::from_iter_values(values)),
            Arc::new(BinaryArray::from_iter_values(metas)),
        ],
        Some(nulls),
    )
}

fn physical_field(shredding: &str) -> Field {
    let json = format!(r#"{{"type":"ROW","fields":[{{"name":"v","type":{shredding}}}]}}"#);
    let s = VariantShreddingSchema::parse(&json).unwrap();
    let t = physical_type(s.column("v").unwrap()).unwrap();
    to_arrow_field(&DataField::new(7, "v", t)).unwrap()
}

fn shred(shredding: &str, docs: &[Option<Value>]) -> StructArray {
    let field = physical_field(shredding);
    shred_column(&column(docs), &field)
        .unwrap()
        .as_struct()
        .clone()
}

/// Shreds and rebuilds `docs`; the rebuilt binaries must decode to the same JSON (the bytes
/// differ: the rebuild makes a new dictionary, as Java's does).
fn round_trip(shredding: &str, docs: &[Option<Value>]) {
    let shredded = shred(shredding, docs);
    let rebuilt = unshred(&shredded, "v").unwrap();
    let rebuilt = rebuilt.as_struct();
    assert_eq!(rebuilt.len(), docs.len());
    for (i, d) in docs.iter().enumerate() {
        match d {
            None => assert!(rebuilt.is_null(i)),
            Some(doc) => {
                let v = rebuilt.column(0).as_binary::<i32>().value(i);
                let m = rebuilt.column(1).as_binary::<i32>().value(i);
                // Numbers compare by value: an integer shredded into a DECIMAL comes back a
                // decimal (346 → 346.00), as in Java.
                assert_eq!(
                    numeric(variant_to_json(v, m).unwrap()),
                    numeric(doc.clone()),
                    "{shredding}"
                );
            }
        }
    }
}

/// `v` with every number as an f64.
fn numeric(v: Value) -> Value {
    match v {
        Value::Number(n) => json!(n.as_f64()),
        Value::Array(a) => Value::Array(a.into_iter().map(numeric).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, numeric(v))).collect()),
        other => other,
    }
}

const OBJECT: &str =
    r#"{"type":"ROW","fields":[{"name":"a","type":"BIGINT"},{"name":"b","type":"STRING"}]}"#;

#[test]
fn object_fields_go_to_typed_value_the_rest_to_a_residual_object() {
    let docs = [
        Some(json!({"a": 1, "b": "x", "c": true})),
        Some(json!({"a": "not a number"})),
        None,
        Some(json!([1, 2])),
        Some(json!({})),
    ];
    let s = shred(OBJECT, &docs);
    assert_eq!(
        s.fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect::<Vec<_>>(),
        ["metadata", "value", "typed_value"]
    );
    assert!(s.is_null(2));
    let value = s.column(1).as_binary::<i32>();
    let typed = s.column(2).as_struct();
    let a = typed.column(0).as_struct();
    let b = typed.column(1).as_struct();
    // Row 0: a and b shredded, c kept in the residual object {"c": true} (its metadata id 2).
    assert!(typed.is_valid(0));
    assert_eq!(a.column(1).as_primitive::<Int64Type>().value(0), 1);
    assert!(a.column(0).is_null(0));
    assert_eq!(b.column(1).as_string::<i32>().value(0), "x");
    assert_eq!(value.value(0), [0x02, 0x01, 0x02, 0x00, 0x01, 0x04]);
    // Row 1: "a" is a string, so it stays in a's `value`; b is missing (both null).
    assert!(a.column(1).is_null(1));
    let (sv, _) = variant_from_json(&json!("not a number"));
    assert_eq!(a.column(0).as_binary::<i32>().value(1), sv.as_slice());
    assert!(b.column(0).is_null(1) && b.column(1).is_null(1));
    assert!(value.is_null(1));
    // Row 3: an array where an object is expected: all of it in `value`.
    assert!(typed.is_null(3));
    assert!(value.is_valid(3));
    // Row 4: the empty object: typed_value present, every field missing, no residual.
    assert!(typed.is_valid(4) && value.is_null(4));
    assert!(a.column(0).is_null(4) && a.column(1).is_null(4));
    round_trip(OBJECT, &docs);
}

#[test]
fn scalars_fit_as_java_casts_them() {
    // Integers into TINYINT only when they fit.
    let s = shred(
        r#""TINYINT""#,
        &[Some(json!(5)), Some(json!(300)), Some(json!(1.5))],
    );
    let typed = s.column(2).as_primitive::<Int8Type>();
    assert_eq!(typed.value(0), 5);
    assert!(typed.is_null(1) && typed.is_null(2));
    assert!(s.column(1).is_null(0) && s.column(1).is_valid(1));
    // Integers into a decimal when the precision holds them at the scale.
    let s = shred(r#""DECIMAL(5, 2)""#, &[Some(json!(123)), Some(json!(1234))]);
    let typed = s.column(2).as_primitive::<Decimal128Type>();
    assert_eq!(typed.value(0), 12300);
    assert!(typed.is_null(1));
    // Booleans and strings only into their own types.
    let s = shred(r#""BOOLEAN""#, &[Some(json!(true)), Some(json!("true"))]);
    assert!(s.column(2).is_valid(0) && s.column(2).is_null(1));
    round_trip(
        r#""TINYINT""#,
        &[Some(json!(5)), Some(json!(300)), Some(json!(null))],
    );
    round_trip(r#""STRING""#, &[Some(json!("s")), Some(json!(1)), None]);
    round_trip(r#""DOUBLE""#, &[Some(json!(1.25)), Some(json!(2))]);
}

#[test]
fn decimals_rescale_without_loss() {
    // DECIMAL(4,2) 12.30 (unscaled 1230) as variant.
    let mut v = vec![8 << 2, 2];
    v.extend_from_slice(&1230i32.to_le_bytes());
    let p = Primitive::decode(&v).unwrap();
    assert_eq!(p.decimal(4, 2), Some(1230));
    assert_eq!(p.decimal(3, 1), Some(123));
    assert_eq!(p.decimal(2, 0), None); // 12.3 has a fraction
    assert_eq!(p.decimal(5, 3), Some(12300));
    assert_eq!(p.decimal(4, 3), None); // 12.300 needs 5 digits
    assert_eq!(p.integral(), None);
    let mut w = vec![8 << 2, 2];
    w.extend_from_slice(&1200i32.to_le_bytes());
    assert_eq!(Primitive::decode(&w).unwrap().integral(), Some(12));
}

#[test]
fn arrays_and_variant_branches() {
    let schema = r#"{"type":"ARRAY","element":{"type":"ROW","fields":[{"name":"x","type":"INT"},{"name":"y","type":"VARIANT"}]}}"#;
    let docs = [
        Some(json!([{"x": 1, "y": {"z": [1, 2]}}, {"x": "s"}, 3])),
        Some(json!({"not": "an array"})),
        Some(json!([])),
        None,
    ];
    let s = shred(schema, &docs);
    let list = s.column(2).as_list::<i32>();
    assert_eq!(list.value_length(0), 3);
    assert!(list.is_null(1) && list.value_length(2) == 0 && list.is_valid(2));
    round_trip(schema, &docs);
}

#[test]
fn shredder_replaces_only_configured_variant_columns() {
    let row_type = strata_spec::types::RowType::new(vec![
        DataField::new(
            0,
            "id",
            strata_spec::types::DataType::nullable(strata_spec::types::TypeKind::Int),
        ),
        DataField::new(
            1,
            "v",
            strata_spec::types::DataType::nullable(strata_spec::types::TypeKind::Variant),
        ),
        DataField::new(
            2,
            "w",
            strata_spec::types::DataType::nullable(strata_spec::types::TypeKind::Variant),
        ),
    ]);
    let schema = super::super::arrow_types::to_arrow_schema(&row_type).unwrap();
    let shredding = VariantShreddingSchema::parse(
        r#"{"type":"ROW","fields":[{"name":"v","type":"BIGINT"},{"name":"id","type":"INT"}]}"#,
    )
    .unwrap();
    let shredder = VariantShredder::new(&schema, &shredding).unwrap();
    let physical = shredder.physical_schema();
    assert_eq!(physical.field(0), schema.field(0));
    assert_eq!(physical.field(2), schema.field(2));
    assert_eq!(field_id_of(physical.field(1)), Some(1));
    let docs = [Some(json!(42)), None];
    let ArrowType::Struct(vf) = schema.field(1).data_type().clone() else {
        panic!()
    };
    let column = || Arc::new(column_of(vf.clone(), &docs));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(arrow_array::Int32Array::from(vec![1, 2])),
            column(),
            column(),
        ],
    )
    .unwrap();
    let out = shredder.convert(&batch).unwrap();
    assert_eq!(out.schema(), physical.clone());
    let v = out.column(1).as_struct();
    assert_eq!(v.column(2).as_primitive::<Int64Type>().value(0), 42);
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1000i32..1000).prop_map(Value::from),
        "[a-z]{0,70}".prop_map(Value::from),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
            prop::collection::btree_map("[a-d]", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

const SCHEMAS: &[&str] = &[
    r#""BIGINT""#,
    r#""INT""#,
    r#""STRING""#,
    r#""DECIMAL(10, 2)""#,
    r#""VARIANT""#,
    r#"{"type":"ROW","fields":[{"name":"a","type":"BIGINT"},{"name":"b","type":{"type":"ARRAY","element":"STRING"}},{"name":"c","type":{"type":"ROW","fields":[{"name":"a","type":"DOUBLE"},{"name":"d","type":"VARIANT"}]}}]}"#,
    r#"{"type":"ARRAY","element":{"type":"ROW","fields":[{"name":"b","type":"BOOLEAN"}]}}"#,
];

/// Infers the shredding type of `docs` (Java's per-file inference), shreds them by it and
/// rebuilds them.
fn inferred_round_trip(docs: &[Option<Value>], options: &InferOptions) {
    let source = column(docs);
    let t = infer(&[&source], options).unwrap();
    let field = to_arrow_field(&DataField::new(7, "v", physical_type(&t[0]).unwrap())).unwrap();
    let shredded = shred_column(&source, &field).unwrap();
    let rebuilt = unshred(shredded.as_struct(), "v").unwrap();
    let rebuilt = rebuilt.as_struct();
    for (i, d) in docs.iter().enumerate() {
        if let Some(doc) = d {
            let v = rebuilt.column(0).as_binary::<i32>().value(i);
            let m = rebuilt.column(1).as_binary::<i32>().value(i);
            assert_eq!(
                numeric(variant_to_json(v, m).unwrap()),
                numeric(doc.clone()),
                "{}",
                t[0]
            );
        } else {
            assert!(rebuilt.is_null(i));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Any documents shredded by the schema inferred from them rebuild to the same values.
    #[test]
    fn inferred_shredding_round_trips(
        docs in prop::collection::vec(prop::option::of(json_value()), 1..12),
        width in 2i64..40,
        depth in 1i64..5,
        ratio in 0.0f64..1.0,
    ) {
        let options = InferOptions { buffer_rows: 4096, max_width: width, max_depth: depth, min_ratio: ratio, adaptive: None };
        inferred_round_trip(&docs, &options);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Any document shredded by any schema rebuilds to the same variant bytes.
    #[test]
    fn shredding_round_trips(
        docs in prop::collection::vec(prop::option::of(json_value()), 1..8),
        schema in 0..SCHEMAS.len(),
    ) {
        round_trip(SCHEMAS[schema], &docs);
    }
}
