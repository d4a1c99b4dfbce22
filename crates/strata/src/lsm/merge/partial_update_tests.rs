//! Tests of the partial-update engine: non-null overwrite, NOT NULL, each retract mode,
//! sequence groups (with aggregators and group deletes), option validation, and property tests
//! against straightforward reference models.

use std::collections::BTreeMap;

use proptest::prelude::*;
use strata_spec::types::{DataField, DataType, TypeKind};
use strata_spec::Datum;

use super::*;

fn int(v: i32) -> Value {
    Value::Scalar(Datum::Int(v))
}
fn o(v: Option<i32>) -> Value {
    v.map_or(Value::Null, int)
}
fn nullable() -> DataType {
    DataType::nullable(TypeKind::Int)
}

fn schema(cols: &[&str], opts: &[(&str, &str)]) -> TableSchema {
    let mut fields = vec![DataField::new(0, "id", DataType::not_null(TypeKind::Int))];
    for (i, c) in cols.iter().enumerate() {
        fields.push(DataField::new(i as i32 + 1, *c, nullable()));
    }
    let mut options: BTreeMap<String, String> = opts
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    options.insert("merge-engine".into(), "partial-update".into());
    TableSchema {
        version: 3,
        id: 0,
        fields,
        highest_field_id: 10,
        partition_keys: vec![],
        primary_keys: vec!["id".into()],
        options,
        comment: None,
        time_millis: 0,
    }
}

fn metas(kinds: &[RowKind]) -> Vec<KvMeta> {
    kinds
        .iter()
        .enumerate()
        .map(|(i, k)| KvMeta {
            sequence: i as i64 + 1,
            kind: *k,
        })
        .collect()
}

fn run(sch: &TableSchema, kinds: &[RowKind], rows: &[Vec<Value>]) -> Result<MergeResult> {
    PartialUpdateMergeFunction::new(sch)?.merge(&metas(kinds), Some(rows))
}

fn row(kind: RowKind, values: Vec<Value>) -> MergeResult {
    MergeResult::Row { kind, values }
}

use RowKind::{Delete as D, Insert as I, UpdateBefore as UB};

#[test]
fn non_null_overwrite() {
    let sch = schema(&["a", "b"], &[]);
    let rows = vec![
        vec![int(1), int(1), Value::Null],
        vec![int(1), Value::Null, int(2)],
        vec![int(1), int(3), Value::Null],
    ];
    assert_eq!(
        run(&sch, &[I, I, I], &rows).unwrap(),
        row(I, vec![int(1), int(3), int(2)])
    );
    // NULL in the NOT NULL key column is an error.
    let rows = vec![
        vec![int(1), int(1), int(1)],
        vec![Value::Null, int(1), int(1)],
    ];
    let err = run(&sch, &[I, I], &rows).unwrap_err();
    assert!(err.to_string().contains("Field 0 can not be null"), "{err}");
}

#[test]
fn retract_modes() {
    let rows = vec![
        vec![int(1), int(1), int(1)],
        vec![int(1), int(9), Value::Null],
    ];
    let err = run(&schema(&["a", "b"], &[]), &[I, D], &rows).unwrap_err();
    assert!(
        err.to_string().contains("can not accept delete records"),
        "{err}"
    );

    let ignore = schema(&["a", "b"], &[("ignore-delete", "true")]);
    assert_eq!(
        run(&ignore, &[I, D], &rows).unwrap(),
        row(I, rows[0].clone())
    );
    // Only retracts: the row is initialised from the first one and the result is -D.
    assert_eq!(
        run(&ignore, &[D, UB], &rows).unwrap(),
        row(D, rows[0].clone())
    );

    let remove = schema(
        &["a", "b"],
        &[("partial-update.remove-record-on-delete", "true")],
    );
    assert_eq!(
        run(&remove, &[I, D], &rows).unwrap(),
        row(D, rows[1].clone())
    );
    assert_eq!(
        run(&remove, &[I, UB], &rows).unwrap(),
        row(I, rows[0].clone())
    );
    // A later add resurrects the row on top of the delete's values.
    let rows3 = vec![
        rows[0].clone(),
        rows[1].clone(),
        vec![int(1), Value::Null, int(5)],
    ];
    assert_eq!(
        run(&remove, &[I, D, I], &rows3).unwrap(),
        row(I, vec![int(1), int(9), int(5)])
    );
}

#[test]
fn sequence_groups() {
    // fields: id, g1, a, g2, b, c   groups: g1 -> a ; g2 -> b
    let sch = schema(
        &["g1", "a", "g2", "b", "c"],
        &[
            ("fields.g1.sequence-group", "a"),
            ("fields.g2.sequence-group", "b"),
        ],
    );
    let rows = vec![
        vec![int(1), int(2), int(20), int(1), int(10), int(100)],
        // older g1 (ignored), newer g2 with NULL b (taken), c overwritten
        vec![int(1), int(1), int(21), int(2), Value::Null, int(101)],
        // group g1 all-null: skipped; c null: kept
        vec![
            int(1),
            Value::Null,
            int(22),
            Value::Null,
            int(12),
            Value::Null,
        ],
    ];
    assert_eq!(
        run(&sch, &[I, I, I], &rows).unwrap(),
        row(
            I,
            vec![int(1), int(2), int(20), int(2), Value::Null, int(101)]
        )
    );
    // Retract in a newer group nulls its protected fields and sets the ordering field.
    let rows = vec![
        vec![int(1), int(1), int(10), int(1), int(20), int(30)],
        vec![
            int(1),
            int(2),
            int(99),
            Value::Null,
            Value::Null,
            Value::Null,
        ],
    ];
    assert_eq!(
        run(&sch, &[I, D], &rows).unwrap(),
        row(
            I,
            vec![int(1), int(2), Value::Null, int(1), int(20), int(30)]
        )
    );
    let del = schema(
        &["g1", "a", "g2", "b", "c"],
        &[
            ("fields.g1.sequence-group", "a"),
            ("fields.g2.sequence-group", "b"),
            ("partial-update.remove-record-on-sequence-group", "g1"),
        ],
    );
    assert_eq!(run(&del, &[I, D], &rows).unwrap(), row(D, rows[1].clone()));
    // An older retract does nothing.
    let rows = vec![
        vec![int(1), int(5), int(10), int(1), int(20), int(30)],
        vec![
            int(1),
            int(2),
            int(99),
            Value::Null,
            Value::Null,
            Value::Null,
        ],
    ];
    assert_eq!(run(&del, &[I, D], &rows).unwrap(), row(I, rows[0].clone()));
}

#[test]
fn sequence_group_aggregators() {
    let sch = schema(
        &["g", "total", "m"],
        &[
            ("fields.g.sequence-group", "total,m"),
            ("fields.total.aggregate-function", "sum"),
            ("fields.m.aggregate-function", "max"),
        ],
    );
    let rows = vec![
        vec![int(1), int(2), int(5), int(7)],
        vec![int(1), int(1), int(3), int(9)],
        vec![int(1), int(3), int(4), int(1)],
    ];
    assert_eq!(
        run(&sch, &[I, I, I], &rows).unwrap(),
        row(I, vec![int(1), int(3), int(12), int(9)])
    );
    let rows = [
        vec![int(1), int(1), int(5), int(7)],
        vec![int(1), int(2), int(2), Value::Null],
    ];
    assert_eq!(
        run(
            &schema(
                &["g", "total"],
                &[
                    ("fields.g.sequence-group", "total"),
                    ("fields.total.aggregate-function", "sum")
                ]
            ),
            &[I, D],
            &[rows[0][..3].to_vec(), rows[1][..3].to_vec()]
        )
        .unwrap(),
        row(I, vec![int(1), int(2), int(3)])
    );
}

#[test]
fn option_validation() {
    let bad = |opts: &[(&str, &str)], needle: &str| {
        let err = PartialUpdateMergeFunction::new(&schema(&["g", "a", "b"], opts)).unwrap_err();
        assert!(err.to_string().contains(needle), "{err} !~ {needle}");
    };
    bad(
        &[("fields.g.sequence-group", "id")],
        "contains primary key field 'id'",
    );
    bad(
        &[("fields.id.sequence-group", "a")],
        "contains primary key field 'id'",
    );
    bad(
        &[("fields.x.sequence-group", "a")],
        "Field x can not be found",
    );
    bad(
        &[
            ("fields.g.sequence-group", "a"),
            ("fields.b.sequence-group", "a"),
        ],
        "defined repeatedly",
    );
    bad(
        &[("fields.a.aggregate-function", "sum")],
        "Must use sequence group",
    );
    bad(
        &[("fields.default-aggregate-function", "sum")],
        "Must use sequence group",
    );
    bad(
        &[
            ("ignore-delete", "true"),
            ("partial-update.remove-record-on-delete", "true"),
        ],
        "conflicting behavior",
    );
    bad(
        &[
            ("fields.g.sequence-group", "a"),
            ("partial-update.remove-record-on-delete", "true"),
        ],
        "conflicting behavior",
    );
    bad(
        &[
            ("fields.g.sequence-group", "a"),
            ("partial-update.remove-record-on-sequence-group", "a"),
        ],
        "must be part of sequence groups",
    );
    bad(
        &[("fieldsx.sequence-group", "a")],
        "Invalid sequence-group option",
    );
    // last_non_null_value needs no group.
    assert!(PartialUpdateMergeFunction::new(&schema(
        &["a"],
        &[("fields.a.aggregate-function", "last_non_null_value")]
    ))
    .is_ok());
}

type Rec = (Option<i32>, Option<i32>, Option<i32>, Option<i32>);

fn kind() -> impl Strategy<Value = RowKind> {
    prop_oneof![3 => Just(I), 1 => Just(D), 1 => Just(UB)]
}
fn ov() -> impl Strategy<Value = Option<i32>> {
    prop_oneof![1 => Just(None), 2 => (0i32..5).prop_map(Some)]
}

proptest! {
    /// remove-record-on-delete against: start from the first record if it retracts, restart
    /// from the last -D, then overlay the non-null fields of later adds.
    #[test]
    fn remove_on_delete_matches_reference(
        recs in proptest::collection::vec((kind(), ov(), ov()), 2..8)
    ) {
        let sch = schema(&["a", "b"], &[("partial-update.remove-record-on-delete", "true")]);
        let kinds: Vec<RowKind> = recs.iter().map(|r| r.0).collect();
        let rows: Vec<Vec<Value>> = recs.iter().map(|r| vec![int(1), o(r.1), o(r.2)]).collect();
        let out = run(&sch, &kinds, &rows).unwrap();

        let last_delete = kinds.iter().rposition(|k| *k == D);
        let (mut acc, from) = match last_delete {
            Some(d) => (rows[d].clone(), d + 1),
            None if kinds[0].is_retract() => (rows[0].clone(), 0),
            None => (vec![Value::Null; 3], 0),
        };
        for (k, r) in kinds.iter().zip(&rows).skip(from) {
            if k.is_add() {
                for (slot, v) in acc.iter_mut().zip(r) {
                    if *v != Value::Null { *slot = v.clone(); }
                }
            }
        }
        let deleted = *kinds.last().unwrap() == D || !kinds.iter().any(|k| k.is_add());
        prop_assert_eq!(out, row(if deleted { D } else { I }, acc));
    }

    /// One sequence group (g -> a, b) and a free column c, adds only: the group takes every
    /// field of the record with the greatest non-null g (the latest on ties); c is the last
    /// non-null c.
    #[test]
    fn sequence_group_matches_reference(
        recs in proptest::collection::vec((ov(), ov(), ov(), ov()), 2..8)
    ) {
        let sch = schema(&["a", "g", "b", "c"], &[("fields.g.sequence-group", "a,b")]);
        let rows: Vec<Vec<Value>> = recs.iter().map(|r| vec![int(1), o(r.0), o(r.1), o(r.2), o(r.3)]).collect();
        let kinds = vec![I; rows.len()];
        let out = run(&sch, &kinds, &rows).unwrap();

        let mut winner: Option<&Rec> = None;
        for r in &recs {
            if let Some(g) = r.1 {
                if winner.is_none_or(|w| g >= w.1.unwrap_or(i32::MIN)) { winner = Some(r); }
            }
        }
        let c = recs.iter().rev().find_map(|r| r.3);
        let expected = match winner {
            Some(w) => vec![int(1), o(w.0), o(w.1), o(w.2), o(c)],
            None => vec![int(1), Value::Null, Value::Null, Value::Null, o(c)],
        };
        prop_assert_eq!(out, row(I, expected));
    }
}
