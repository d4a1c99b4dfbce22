//! Shared fixtures: a test row type, Arrow arrays built from datums, and a straightforward
//! row-at-a-time reference evaluator of *unbound* predicates (written independently of the
//! binding code, `NOT` evaluated directly rather than pushed down).

use std::cmp::Ordering;
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Date32Builder, Decimal128Builder, Float64Builder, Int16Builder, Int32Builder,
    Int64Builder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use strata_spec::{DataField, DataType, Datum, RowType, TypeKind};

use crate::expr::{LeafOp, Predicate};

pub(super) type Row = Vec<Option<Datum>>;

/// i INT, b BIGINT, s STRING, d DOUBLE, dec DECIMAL(10, 2), dt DATE, ts TIMESTAMP(6),
/// flag BOOLEAN, "My Col" SMALLINT.
pub(super) fn row_type() -> RowType {
    let kinds = [
        ("i", TypeKind::Int),
        ("b", TypeKind::BigInt),
        ("s", TypeKind::VarChar(strata_spec::types::MAX_LENGTH)),
        ("d", TypeKind::Double),
        (
            "dec",
            TypeKind::Decimal {
                precision: 10,
                scale: 2,
            },
        ),
        ("dt", TypeKind::Date),
        ("ts", TypeKind::Timestamp(6)),
        ("flag", TypeKind::Boolean),
        ("My Col", TypeKind::SmallInt),
    ];
    RowType::new(
        kinds
            .into_iter()
            .enumerate()
            .map(|(i, (n, k))| DataField::new(i as i32, n, DataType::nullable(k)))
            .collect(),
    )
}

/// An Arrow array (of the type a Parquet reader would give) holding `values` of a column of
/// the test row type.
pub(super) fn array_of(ty: &DataType, values: &[Option<Datum>]) -> ArrayRef {
    macro_rules! build {
        ($builder:expr, $pat:path) => {{
            let mut b = $builder;
            for v in values {
                match v {
                    Some($pat(x)) => b.append_value(x.clone()),
                    None => b.append_null(),
                    Some(other) => panic!("test value {other:?} does not fit {ty}"),
                }
            }
            Arc::new(b.finish()) as ArrayRef
        }};
    }
    match &ty.kind {
        TypeKind::Int => build!(Int32Builder::new(), Datum::Int),
        TypeKind::BigInt => build!(Int64Builder::new(), Datum::BigInt),
        TypeKind::SmallInt => build!(Int16Builder::new(), Datum::SmallInt),
        TypeKind::VarChar(_) => build!(StringBuilder::new(), Datum::String),
        TypeKind::Double => build!(Float64Builder::new(), Datum::Double),
        TypeKind::Date => build!(Date32Builder::new(), Datum::Date),
        TypeKind::Boolean => build!(BooleanBuilder::new(), Datum::Boolean),
        TypeKind::Decimal { precision, scale } => {
            let mut b = Decimal128Builder::new();
            for v in values {
                match v {
                    Some(Datum::Decimal { unscaled, .. }) => b.append_value(*unscaled),
                    _ => b.append_null(),
                }
            }
            Arc::new(
                b.finish()
                    .with_precision_and_scale(*precision as u8, *scale as i8)
                    .expect("valid test decimal type"),
            )
        }
        TypeKind::Timestamp(_) => {
            let mut b = TimestampMicrosecondBuilder::new();
            for v in values {
                match v {
                    Some(Datum::Timestamp { millis, nanos }) => {
                        b.append_value(millis * 1000 + (*nanos / 1000) as i64)
                    }
                    _ => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        other => panic!("no test array for {other:?}"),
    }
}

/// A batch with one column per field of `row_type`, named like the fields.
pub(super) fn batch_of(row_type: &RowType, rows: &[Row]) -> RecordBatch {
    let columns: Vec<(String, ArrayRef)> = row_type
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let col: Vec<Option<Datum>> = rows.iter().map(|r| r[i].clone()).collect();
            (f.name.clone(), array_of(&f.data_type, &col))
        })
        .collect();
    RecordBatch::try_from_iter(columns).expect("test batch is consistent")
}

/// Reference SQL three-valued evaluation of an unbound predicate whose literals already have
/// the column kinds.
pub(super) fn reference(p: &Predicate, row_type: &RowType, row: &Row) -> Option<bool> {
    match p {
        Predicate::AlwaysTrue => Some(true),
        Predicate::AlwaysFalse => Some(false),
        Predicate::Not(inner) => reference(inner, row_type, row).map(|b| !b),
        Predicate::And(children) => {
            let results: Vec<_> = children
                .iter()
                .map(|c| reference(c, row_type, row))
                .collect();
            if results.contains(&Some(false)) {
                Some(false)
            } else if results.contains(&None) {
                None
            } else {
                Some(true)
            }
        }
        Predicate::Or(children) => {
            let results: Vec<_> = children
                .iter()
                .map(|c| reference(c, row_type, row))
                .collect();
            if results.contains(&Some(true)) {
                Some(true)
            } else if results.contains(&None) {
                None
            } else {
                Some(false)
            }
        }
        Predicate::Leaf(leaf) => {
            let idx = row_type.index_of(&leaf.column).expect("test column exists");
            let value = row[idx].as_ref();
            match (&leaf.op, value) {
                (LeafOp::IsNull, v) => Some(v.is_none()),
                (LeafOp::IsNotNull, v) => Some(v.is_some()),
                (_, None) => None,
                (op, Some(v)) => Some(leaf_on_value(op, v)),
            }
        }
    }
}

fn leaf_on_value(op: &LeafOp, v: &Datum) -> bool {
    let c = |lit: &Datum| v.compare(lit).expect("literal has the column kind");
    match op {
        LeafOp::Equal(l) => c(l) == Ordering::Equal,
        LeafOp::NotEqual(l) => c(l) != Ordering::Equal,
        LeafOp::LessThan(l) => c(l) == Ordering::Less,
        LeafOp::LessOrEqual(l) => c(l) != Ordering::Greater,
        LeafOp::GreaterThan(l) => c(l) == Ordering::Greater,
        LeafOp::GreaterOrEqual(l) => c(l) != Ordering::Less,
        LeafOp::In(list) => list.iter().any(|l| c(l) == Ordering::Equal),
        LeafOp::NotIn(list) => list.iter().all(|l| c(l) != Ordering::Equal),
        LeafOp::StartsWith(p) => matches!(v, Datum::String(s) if s.starts_with(p.as_str())),
        LeafOp::NotStartsWith(p) => matches!(v, Datum::String(s) if !s.starts_with(p.as_str())),
        LeafOp::IsNull | LeafOp::IsNotNull => unreachable!("handled by the caller"),
    }
}
