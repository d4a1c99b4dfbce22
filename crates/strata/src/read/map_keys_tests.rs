//! Unit tests of MAP key derivation, the pushed filter with key columns, and the MAP-key
//! predicate translation.

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, MapBuilder, StringBuilder};
use arrow_array::{Array, ArrayRef, Int32Array, RecordBatch};
use strata_spec::{DataField, DataType, Datum, RowType, TypeKind};

use super::*;
use crate::expr::{parse_sql_predicate, MapKeyColumn};

/// The `(key, value)` entries of one map.
type Entries<'a> = &'a [(&'a str, Option<i32>)];
/// Rows of entries; `None` is a NULL map.
type Rows<'a> = &'a [Option<Entries<'a>>];

fn map(rows: Rows) -> ArrayRef {
    let mut b = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    for r in rows {
        match r {
            None => b.append(false).unwrap(),
            Some(entries) => {
                for (k, v) in *entries {
                    b.keys().append_value(k);
                    b.values().append_option(*v);
                }
                b.append(true).unwrap();
            }
        }
    }
    Arc::new(b.finish())
}

fn ints(a: &ArrayRef) -> Vec<Option<i32>> {
    let a = a.as_any().downcast_ref::<Int32Array>().unwrap();
    (0..a.len())
        .map(|i| a.is_valid(i).then(|| a.value(i)))
        .collect()
}

#[test]
fn derives_null_absent_null_value_empty_and_several_keys() {
    let m = map(&[
        Some(&[("a", Some(1)), ("b", Some(2))]),
        None,
        Some(&[("b", None)]),
        Some(&[]),
        Some(&[("c", Some(7)), ("a", Some(3))]),
    ]);
    let out = derive_map_keys(m.as_ref(), &["a", "b", "zz"]).unwrap();
    assert_eq!(ints(&out[0]), [Some(1), None, None, None, Some(3)]);
    // Present with a NULL value reads NULL, like an absent key.
    assert_eq!(ints(&out[1]), [Some(2), None, None, None, None]);
    assert_eq!(ints(&out[2]), [None; 5]);
    // A duplicate key: the last entry wins.
    let m = map(&[Some(&[("a", Some(1)), ("a", Some(2))])]);
    assert_eq!(
        ints(&derive_map_keys(m.as_ref(), &["a"]).unwrap()[0]),
        [Some(2)]
    );
}

#[test]
fn derives_from_sliced_maps_and_many_keys() {
    let rows: Vec<Vec<(String, Option<i32>)>> = (0..20)
        .map(|i| {
            (0..i % 12)
                .map(|k| (format!("k{k}"), Some(i * 100 + k)))
                .collect()
        })
        .collect();
    let borrowed: Vec<Vec<(&str, Option<i32>)>> = rows
        .iter()
        .map(|r| r.iter().map(|(k, v)| (k.as_str(), *v)).collect())
        .collect();
    let opt: Vec<Option<Entries>> = borrowed.iter().map(|r| Some(r.as_slice())).collect();
    let m = map(&opt).slice(5, 10);
    // 12 keys: the hashed lookup path.
    let keys: Vec<String> = (0..12).map(|k| format!("k{k}")).collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let out = derive_map_keys(m.as_ref(), &keys).unwrap();
    for (k, col) in out.iter().enumerate() {
        let want: Vec<Option<i32>> = (5..15)
            .map(|i| ((k as i32) < i % 12).then_some(i * 100 + k as i32))
            .collect();
        assert_eq!(ints(col), want, "k{k}");
    }
    assert!(derive_map_keys(&Int32Array::from(vec![1]), &["a"]).is_err());
}

fn map_field(id: i32, name: &str) -> DataField {
    DataField::new(
        id,
        name,
        DataType::nullable(TypeKind::Map {
            key: Box::new(DataType::string().with_nullable(false)),
            value: Box::new(DataType::nullable(TypeKind::Int)),
        }),
    )
}

fn fields() -> Vec<DataField> {
    vec![
        DataField::new(0, "id", DataType::not_null(TypeKind::Int)),
        map_field(5, "m"),
        map_field(6, "n"),
    ]
}

fn bind(sql: &str) -> (BoundPredicate, Vec<MapKeyColumn>) {
    let mut keys = Vec::new();
    let b = parse_sql_predicate(sql)
        .unwrap()
        .bind_with_map_keys(&RowType::new(fields()), "t", &mut keys)
        .unwrap();
    (b, keys)
}

fn leaf(field_id: i32, key: &str, op: LeafOp) -> MapKeyPredicate {
    MapKeyPredicate::Leaf(MapKeyLeaf {
        field_id,
        key: key.into(),
        literals: literals(&op),
        op,
        value_type: DataType::nullable(TypeKind::Int),
    })
}

#[test]
fn translates_key_leaves_and_keeps_and_or() {
    let t = |sql: &str| {
        let (b, keys) = bind(sql);
        map_key_predicate(&b, 3, &keys)
    };
    // Literals are converted to the value type (INT).
    assert_eq!(
        t("m['a'] > 30 AND id < 5"),
        Some(leaf(5, "a", LeafOp::GreaterThan(Datum::Int(30))))
    );
    assert_eq!(
        t("NOT (m['a'] > 30 OR n['b'] IS NULL)"),
        Some(MapKeyPredicate::And(vec![
            leaf(5, "a", LeafOp::LessOrEqual(Datum::Int(30))),
            leaf(6, "b", LeafOp::IsNotNull),
        ]))
    );
    assert_eq!(
        t("m['a'] IN (1, 2) OR (n['b'] BETWEEN 1 AND 3 AND id = 1)"),
        Some(MapKeyPredicate::Or(vec![
            leaf(5, "a", LeafOp::In(vec![Datum::Int(1), Datum::Int(2)])),
            MapKeyPredicate::And(vec![
                leaf(6, "b", LeafOp::GreaterOrEqual(Datum::Int(1))),
                leaf(6, "b", LeafOp::LessOrEqual(Datum::Int(3))),
            ]),
        ]))
    );
    // An OR with a non-key branch says nothing; no key leaf at all: no hint.
    assert_eq!(t("m['a'] = 1 OR id = 2"), None);
    assert_eq!(t("id = 2 AND m IS NULL"), None);
    assert_eq!(
        literals(&LeafOp::NotIn(vec![Datum::Int(1)])),
        vec![Datum::Int(1)]
    );
}

#[test]
fn pushed_filter_decodes_the_maps_and_derives_keys() {
    let (b, keys) = bind("m['a'] > 1 AND id < 10");
    let f = pushed_filter(&b, &fields(), &keys).unwrap();
    let names: Vec<&str> = f.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["id", "m"]);
    let schema = crate::format::arrow_types::to_arrow_schema_of(&f.fields).unwrap();
    let m = map(&[
        Some(&[("a", Some(5))]),
        Some(&[("a", Some(0))]),
        None,
        Some(&[("a", Some(9))]),
    ]);
    let m = crate::format::cast_array(&m, schema.field(1), "m").unwrap();
    let batch = RecordBatch::try_new(
        schema,
        vec![Arc::new(Int32Array::from(vec![1, 2, 3, 20])), m],
    )
    .unwrap();
    let mask = (f.predicate)(&batch).unwrap();
    let got: Vec<bool> = (0..4).map(|i| mask.value(i)).collect();
    assert_eq!(got, [true, false, false, false]);
    // No columns referenced: nothing pushed.
    let (b, keys) = bind("TRUE");
    assert!(pushed_filter(&b, &fields(), &keys).is_none());
}
