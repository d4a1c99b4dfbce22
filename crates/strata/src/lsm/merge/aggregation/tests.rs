//! Tests of the aggregation engine and of each field aggregator: null, retract and ordering
//! rules, type checks, and a property test against a per-column fold written from the docs.

use std::collections::BTreeMap;

use proptest::prelude::*;
use strata_spec::types::{DataField, DataType, TypeKind, MAX_LENGTH};
use strata_spec::Datum;

use super::*;
use crate::error::ErrorDetail;

fn int(v: i32) -> Value {
    Value::Scalar(Datum::Int(v))
}
fn s(v: &str) -> Value {
    Value::Scalar(Datum::String(v.into()))
}
fn ty(kind: TypeKind) -> DataType {
    DataType::nullable(kind)
}

pub(crate) fn schema(
    fields: Vec<(&str, DataType)>,
    pk: &[&str],
    opts: &[(&str, &str)],
) -> TableSchema {
    TableSchema {
        version: 3,
        id: 0,
        fields: fields
            .into_iter()
            .enumerate()
            .map(|(i, (n, t))| DataField::new(i as i32, n, t))
            .collect(),
        highest_field_id: 10,
        partition_keys: vec![],
        primary_keys: pk.iter().map(|s| s.to_string()).collect(),
        options: opts
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        comment: None,
        time_millis: 0,
    }
}

fn metas(kinds: &[RowKind]) -> Vec<KvMeta> {
    kinds
        .iter()
        .enumerate()
        .map(|(i, k)| KvMeta {
            sequence: i as i64,
            kind: *k,
        })
        .collect()
}

fn agg(t: DataType, func: &str, opts: &[(&str, &str)]) -> Result<FieldAggregator> {
    let mut o: BTreeMap<String, String> = opts
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    o.insert("fields.f.aggregate-function".into(), func.into());
    FieldAggregator::create(&t, "f", func, &CoreOptions::new(o))
}

/// Folds adds (`true`) and retracts through one aggregator from a NULL accumulator.
fn fold(a: &FieldAggregator, inputs: &[(bool, Value)]) -> Result<Value> {
    let mut init = false;
    let mut acc = Value::Null;
    for (add, v) in inputs {
        acc = if *add {
            a.agg(&mut init, acc, v)?
        } else {
            a.retract(acc, v)?
        };
    }
    Ok(acc)
}

#[test]
fn sum_nulls_retract_and_overflow() {
    let a = agg(ty(TypeKind::Int), "sum", &[]).unwrap();
    let r = fold(
        &a,
        &[
            (true, Value::Null),
            (true, int(2)),
            (true, Value::Null),
            (true, int(3)),
        ],
    );
    assert_eq!(r.unwrap(), int(5));
    assert_eq!(
        fold(&a, &[(false, int(2)), (true, int(5))]).unwrap(),
        int(3)
    );
    let err = fold(&a, &[(true, int(i32::MAX)), (true, int(1))]).unwrap_err();
    assert!(err.to_string().contains("int overflow"), "{err}");
    let err = agg(DataType::string(), "sum", &[]).unwrap_err();
    assert!(err.to_string().contains("must be 'NumericType'"), "{err}");
}

#[test]
fn product_min_max_bool() {
    let p = agg(ty(TypeKind::BigInt), "product", &[]).unwrap();
    let big = |v| Value::Scalar(Datum::BigInt(v));
    assert_eq!(
        fold(&p, &[(true, big(3)), (true, Value::Null), (true, big(4))]).unwrap(),
        big(12)
    );
    assert_eq!(
        fold(&p, &[(true, big(12)), (false, big(4))]).unwrap(),
        big(3)
    );
    let mn = agg(DataType::string(), "min", &[]).unwrap();
    assert_eq!(
        fold(&mn, &[(true, s("b")), (true, Value::Null), (true, s("a"))]).unwrap(),
        s("a")
    );
    let mx = agg(ty(TypeKind::Int), "max", &[]).unwrap();
    assert_eq!(
        fold(&mx, &[(true, int(1)), (true, int(7)), (true, int(3))]).unwrap(),
        int(7)
    );
    let err = fold(&mx, &[(true, int(1)), (false, int(1))]).unwrap_err();
    assert!(
        err.to_string().contains("does not support retraction"),
        "{err}"
    );
    assert!(err.to_string().contains("fields.f.ignore-retract"), "{err}");
    let ign = agg(
        ty(TypeKind::Int),
        "max",
        &[("fields.f.ignore-retract", "true")],
    )
    .unwrap();
    assert_eq!(
        fold(&ign, &[(true, int(1)), (false, int(1))]).unwrap(),
        int(1)
    );
    let arr = ty(TypeKind::Array(Box::new(ty(TypeKind::Int))));
    assert!(agg(arr, "max", &[])
        .unwrap_err()
        .to_string()
        .contains("comparable"));
    let b = |v| Value::Scalar(Datum::Boolean(v));
    let and = agg(ty(TypeKind::Boolean), "bool_and", &[]).unwrap();
    let or = agg(ty(TypeKind::Boolean), "bool_or", &[]).unwrap();
    let inputs = [(true, b(true)), (true, Value::Null), (true, b(false))];
    assert_eq!(fold(&and, &inputs).unwrap(), b(false));
    assert_eq!(fold(&or, &inputs).unwrap(), b(true));
    assert!(agg(ty(TypeKind::Int), "bool_or", &[]).is_err());
}

#[test]
fn first_and_last_values() {
    let inputs = [
        (true, Value::Null),
        (true, int(1)),
        (true, int(2)),
        (true, Value::Null),
    ];
    let run = |f: &str| fold(&agg(ty(TypeKind::Int), f, &[]).unwrap(), &inputs).unwrap();
    assert_eq!(run("first_value"), Value::Null);
    assert_eq!(run("first_non_null_value"), int(1));
    assert_eq!(run("first_not_null_value"), int(1));
    assert_eq!(run("last_value"), Value::Null);
    assert_eq!(run("last_non_null_value"), int(2));
    let lv = agg(ty(TypeKind::Int), "last_value", &[]).unwrap();
    assert_eq!(
        fold(&lv, &[(true, int(1)), (false, int(9))]).unwrap(),
        Value::Null
    );
    let lnn = agg(ty(TypeKind::Int), "last_non_null_value", &[]).unwrap();
    assert_eq!(
        fold(&lnn, &[(true, int(1)), (false, Value::Null)]).unwrap(),
        int(1)
    );
    assert_eq!(
        fold(&lnn, &[(true, int(1)), (false, int(5))]).unwrap(),
        Value::Null
    );
    let fv = agg(ty(TypeKind::Int), "first_value", &[]).unwrap();
    assert!(fold(&fv, &[(false, int(1))]).is_err());
}

#[test]
fn listagg_delimiter_and_distinct() {
    let a = agg(DataType::string(), "listagg", &[]).unwrap();
    let inputs = [
        (true, s("a")),
        (true, s(" ")),
        (true, Value::Null),
        (true, s("b")),
    ];
    assert_eq!(fold(&a, &inputs).unwrap(), s("a,b"));
    let d = agg(
        DataType::string(),
        "listagg",
        &[
            ("fields.f.list-agg-delimiter", ";"),
            ("fields.f.distinct", "true"),
        ],
    )
    .unwrap();
    let inputs = [(true, s("a;b")), (true, s("b;c;;a")), (true, s("d"))];
    assert_eq!(fold(&d, &inputs).unwrap(), s("a;b;c;d"));
    let err = agg(ty(TypeKind::VarChar(10)), "listagg", &[]).unwrap_err();
    assert!(err.to_string().contains("VARCHAR(10)"), "{err}");
    assert!(agg(ty(TypeKind::VarChar(MAX_LENGTH)), "listagg", &[]).is_ok());
    assert!(fold(&a, &[(false, s("a"))]).is_err());
}

#[test]
fn collect_and_retract() {
    let arr = ty(TypeKind::Array(Box::new(ty(TypeKind::Int))));
    let c = agg(arr.clone(), "collect", &[]).unwrap();
    let a = |v: &[i32]| Value::Array(v.iter().map(|x| int(*x)).collect());
    assert_eq!(
        fold(&c, &[(true, a(&[1, 2])), (true, a(&[2, 3]))]).unwrap(),
        a(&[1, 2, 2, 3])
    );
    assert_eq!(
        fold(&c, &[(true, a(&[1, 2, 2])), (false, a(&[2, 5]))]).unwrap(),
        a(&[1, 2])
    );
    let d = agg(arr, "collect", &[("fields.f.distinct", "true")]).unwrap();
    assert_eq!(
        fold(&d, &[(true, a(&[1, 1, 2])), (true, a(&[2, 3, 3]))]).unwrap(),
        a(&[1, 2, 3])
    );
    assert!(agg(ty(TypeKind::Int), "collect", &[]).is_err());
}

#[test]
fn merge_map_and_keytime() {
    let map_t = ty(TypeKind::Map {
        key: Box::new(DataType::string()),
        value: Box::new(ty(TypeKind::Int)),
    });
    let m = agg(map_t, "merge_map", &[]).unwrap();
    let mv = |e: &[(&str, i32)]| Value::Map(e.iter().map(|(k, v)| (s(k), int(*v))).collect());
    assert_eq!(
        fold(
            &m,
            &[
                (true, mv(&[("a", 1), ("b", 2)])),
                (true, mv(&[("b", 3), ("c", 4)]))
            ]
        )
        .unwrap(),
        mv(&[("a", 1), ("b", 3), ("c", 4)])
    );
    assert_eq!(
        fold(
            &m,
            &[(true, mv(&[("a", 1), ("b", 2)])), (false, mv(&[("a", 0)]))]
        )
        .unwrap(),
        mv(&[("b", 2)])
    );
    let row_t = ty(TypeKind::Row(vec![
        DataField::new(20, "v", ty(TypeKind::Int)),
        DataField::new(21, "ts", DataType::string()),
    ]));
    let kt_t = ty(TypeKind::Map {
        key: Box::new(DataType::string()),
        value: Box::new(row_t),
    });
    let k = agg(kt_t, "merge_map_with_keytime", &[]).unwrap();
    let r = |v: i32, ts: &str| Value::Row(vec![int(v), s(ts)]);
    let acc = Value::Map(vec![(s("a"), r(1, "2024-02")), (s("b"), r(2, "2024-01"))]);
    let input = Value::Map(vec![
        (s("a"), r(9, "2024-01")),
        (s("b"), r(8, "2024-03")),
        (s("c"), Value::Row(vec![int(7), Value::Null])),
    ]);
    assert_eq!(
        fold(&k, &[(true, acc.clone()), (true, input)]).unwrap(),
        Value::Map(vec![(s("a"), r(1, "2024-02")), (s("b"), r(8, "2024-03"))])
    );
    let removal = Value::Map(vec![(s("a"), Value::Null)]);
    assert_eq!(
        fold(&k, &[(true, acc), (true, removal)]).unwrap(),
        Value::Map(vec![(s("b"), r(2, "2024-01"))])
    );
    assert!(agg(ty(TypeKind::Int), "merge_map_with_keytime", &[]).is_err());
}

#[test]
fn nested_update_and_partial_update() {
    let row_t = ty(TypeKind::Row(vec![
        DataField::new(20, "k", ty(TypeKind::Int)),
        DataField::new(21, "v", DataType::string()),
    ]));
    let arr = ty(TypeKind::Array(Box::new(row_t)));
    let r = |k: i32, v: Option<&str>| Value::Row(vec![int(k), v.map_or(Value::Null, s)]);
    let rows = |v: Vec<Value>| Value::Array(v);
    let plain = agg(arr.clone(), "nested_update", &[]).unwrap();
    assert_eq!(
        fold(
            &plain,
            &[
                (true, rows(vec![r(1, Some("a"))])),
                (true, rows(vec![r(1, Some("a"))]))
            ]
        )
        .unwrap(),
        rows(vec![r(1, Some("a")), r(1, Some("a"))])
    );
    assert_eq!(
        fold(
            &plain,
            &[
                (true, rows(vec![r(1, Some("a")), r(2, None)])),
                (false, rows(vec![r(1, Some("a"))]))
            ]
        )
        .unwrap(),
        rows(vec![r(2, None)])
    );
    let keyed = agg(
        arr.clone(),
        "nested_update",
        &[("fields.f.nested-key", "k")],
    )
    .unwrap();
    assert_eq!(
        fold(
            &keyed,
            &[
                (true, rows(vec![r(1, Some("a")), r(2, Some("b"))])),
                (true, rows(vec![r(1, None)]))
            ]
        )
        .unwrap(),
        rows(vec![r(1, None), r(2, Some("b"))])
    );
    let limited = agg(
        arr.clone(),
        "nested_update",
        &[("fields.f.nested-key", "k"), ("fields.f.count-limit", "2")],
    )
    .unwrap();
    assert_eq!(
        fold(
            &limited,
            &[
                (true, rows(vec![r(1, Some("a")), r(2, Some("b"))])),
                (true, rows(vec![r(3, Some("c"))]))
            ]
        )
        .unwrap(),
        rows(vec![r(1, Some("a")), r(2, Some("b"))])
    );
    let partial = agg(
        arr.clone(),
        "nested_partial_update",
        &[("fields.f.nested-key", "k")],
    )
    .unwrap();
    let r3 = |k: i32, v: Option<&str>| Value::Row(vec![int(k), v.map_or(Value::Null, s)]);
    assert_eq!(
        fold(
            &partial,
            &[
                (true, rows(vec![r3(1, Some("a"))])),
                (true, rows(vec![r3(1, None), r3(2, None)]))
            ]
        )
        .unwrap(),
        rows(vec![r3(1, Some("a")), r3(2, None)])
    );
    assert!(agg(arr.clone(), "nested_partial_update", &[]).is_err());
    let err = agg(
        arr,
        "nested_update",
        &[("fields.f.nested-sequence-field", "v")],
    )
    .unwrap_err();
    assert!(err.to_string().contains("requires"), "{err}");
    assert!(agg(ty(TypeKind::Int), "nested_update", &[]).is_err());
}

#[test]
fn unknown_sketch_and_conflicting_options() {
    let err = agg(ty(TypeKind::Int), "count", &[]).unwrap_err();
    assert!(
        err.to_string()
            .contains("Use unsupported aggregation: count"),
        "{err}"
    );
    let err = agg(DataType::bytes(), "rbm32", &[]).unwrap_err();
    assert!(matches!(err.detail(), ErrorDetail::Unsupported(_)), "{err}");
    assert!(err.to_string().contains("rbm32"));
    let err = agg(ty(TypeKind::Int), "hll_sketch", &[]).unwrap_err();
    assert!(err.to_string().contains("VarBinaryType"), "{err}");
    let err = agg(
        ty(TypeKind::Int),
        "sum",
        &[
            ("aggregation.remove-record-on-delete", "true"),
            ("fields.f.ignore-retract", "true"),
        ],
    )
    .unwrap_err();
    assert!(err.to_string().contains("conflicting behavior"), "{err}");
}

#[test]
fn engine_picks_aggregators_in_java_order() {
    let sch = schema(
        vec![
            ("id", DataType::not_null(TypeKind::Int)),
            ("seq", ty(TypeKind::Int)),
            ("total", ty(TypeKind::Int)),
            ("other", ty(TypeKind::Int)),
        ],
        &["id"],
        &[
            ("merge-engine", "aggregation"),
            ("sequence.field", "seq"),
            ("fields.total.aggregate-function", "sum"),
            ("fields.default-aggregate-function", "max"),
            ("fields.id.aggregate-function", "sum"),
        ],
    );
    let f = AggregateMergeFunction::new(&sch).unwrap();
    let names: Vec<&str> = f.aggregators.iter().map(|a| a.function.as_str()).collect();
    assert_eq!(names, ["primary-key", "last_value", "sum", "max"]);
    let values = vec![
        vec![int(1), int(5), int(10), int(3)],
        vec![int(1), Value::Null, int(20), int(2)],
    ];
    let out = f
        .merge(&metas(&[RowKind::Insert, RowKind::Insert]), Some(&values))
        .unwrap();
    assert_eq!(
        out,
        MergeResult::Row {
            kind: RowKind::Insert,
            values: vec![int(1), Value::Null, int(30), int(3)]
        }
    );
}

#[test]
fn remove_record_on_delete() {
    let sch = schema(
        vec![
            ("id", DataType::not_null(TypeKind::Int)),
            ("v", ty(TypeKind::Int)),
        ],
        &["id"],
        &[
            ("merge-engine", "aggregation"),
            ("fields.v.aggregate-function", "sum"),
            ("aggregation.remove-record-on-delete", "true"),
        ],
    );
    let f = AggregateMergeFunction::new(&sch).unwrap();
    let values = vec![
        vec![int(1), int(2)],
        vec![int(1), int(2)],
        vec![int(1), int(5)],
    ];
    let m = metas(&[RowKind::Insert, RowKind::Delete, RowKind::Insert]);
    assert_eq!(
        f.merge(&m, Some(&values)).unwrap(),
        MergeResult::Row {
            kind: RowKind::Insert,
            values: vec![int(1), int(7)]
        }
    );
    let m = metas(&[RowKind::Insert, RowKind::Insert, RowKind::Delete]);
    assert_eq!(
        f.merge(&m, Some(&values)).unwrap(),
        MergeResult::Row {
            kind: RowKind::Delete,
            values: vec![int(1), int(5)]
        }
    );
    // Without the option a -D is a retract: sum subtracts.
    let plain = schema(
        vec![
            ("id", DataType::not_null(TypeKind::Int)),
            ("v", ty(TypeKind::Int)),
        ],
        &["id"],
        &[
            ("merge-engine", "aggregation"),
            ("fields.v.aggregate-function", "sum"),
        ],
    );
    let f = AggregateMergeFunction::new(&plain).unwrap();
    let m = metas(&[RowKind::Insert, RowKind::Insert, RowKind::Delete]);
    assert_eq!(
        f.merge(&m, Some(&values)).unwrap(),
        MergeResult::Row {
            kind: RowKind::Insert,
            values: vec![int(1), int(-1)]
        }
    );
}

fn opt_int() -> impl Strategy<Value = Option<i32>> {
    prop_oneof![1 => Just(None), 3 => (-50i32..50).prop_map(Some)]
}

proptest! {
    /// The engine against an independent per-column fold of the documented rules.
    #[test]
    fn engine_matches_reference(
        records in proptest::collection::vec(
            (any::<bool>(), opt_int(), opt_int(), opt_int(), opt_int(),
             proptest::option::of(proptest::collection::vec(0i32..4, 0..3))),
            2..8)
    ) {
        let arr = ty(TypeKind::Array(Box::new(ty(TypeKind::Int))));
        let sch = schema(
            vec![
                ("id", DataType::not_null(TypeKind::Int)),
                ("s", ty(TypeKind::Int)),
                ("mx", ty(TypeKind::Int)),
                ("lv", ty(TypeKind::Int)),
                ("lnn", ty(TypeKind::Int)),
                ("c", arr),
            ],
            &["id"],
            &[
                ("merge-engine", "aggregation"),
                ("fields.s.aggregate-function", "sum"),
                ("fields.mx.aggregate-function", "max"),
                ("fields.mx.ignore-retract", "true"),
                ("fields.lv.aggregate-function", "last_value"),
                ("fields.c.aggregate-function", "collect"),
            ],
        );
        let f = create_merge_function_for_test(&sch);
        let o = |v: Option<i32>| v.map_or(Value::Null, int);
        let kinds: Vec<RowKind> = records.iter().map(|r| if r.0 { RowKind::Insert } else { RowKind::UpdateBefore }).collect();
        let values: Vec<Vec<Value>> = records.iter().map(|r| vec![
            int(1), o(r.1), o(r.2), o(r.3), o(r.4),
            r.5.as_ref().map_or(Value::Null, |v| Value::Array(v.iter().map(|x| int(*x)).collect())),
        ]).collect();
        let out = f.merge(&metas(&kinds), Some(&values)).unwrap();

        // Reference folds.
        let mut sum: Option<i32> = None;
        let mut mx: Option<i32> = None;
        let mut lv: Option<i32> = None;
        let mut lnn: Option<i32> = None;
        let mut col: Option<Vec<i32>> = None;
        for r in &records {
            let add = r.0;
            if let Some(x) = r.1 { sum = Some(sum.unwrap_or(0) + if add { x } else { -x }); }
            if add { if let Some(x) = r.2 { mx = Some(mx.map_or(x, |m| m.max(x))); } }
            lv = if add { r.3 } else { None };
            if let Some(x) = r.4 { lnn = if add { Some(x) } else { None }; }
            match (&mut col, &r.5, add) {
                (None, Some(v), true) => col = Some(v.clone()),
                (Some(c), Some(v), true) => c.extend(v),
                (Some(c), Some(v), false) => for x in v {
                    if let Some(p) = c.iter().position(|y| y == x) { c.remove(p); }
                },
                _ => {}
            }
        }
        let expected = vec![
            int(1), o(sum), o(mx), o(lv), o(lnn),
            col.map_or(Value::Null, |v| Value::Array(v.into_iter().map(int).collect())),
        ];
        prop_assert_eq!(out, MergeResult::Row { kind: RowKind::Insert, values: expected });
    }
}

fn create_merge_function_for_test(sch: &TableSchema) -> std::sync::Arc<dyn MergeFunction> {
    crate::lsm::merge::create_merge_function(sch).unwrap()
}
