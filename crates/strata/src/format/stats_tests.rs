//! Tests of [`StatsCollector`].

use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BinaryArray, Float64Array, Int32Array, ListArray, RecordBatch, StringArray,
};
use strata_spec::types::{DataField, DataType, RowType, TypeKind};

use super::*;
use crate::format::arrow_types::to_arrow_schema;

fn row_type() -> RowType {
    RowType::new(vec![
        DataField::new(0, "i", DataType::nullable(TypeKind::Int)),
        DataField::new(1, "s", DataType::string()),
        DataField::new(2, "d", DataType::nullable(TypeKind::Double)),
        DataField::new(3, "b", DataType::bytes()),
        DataField::new(
            4,
            "arr",
            DataType::nullable(TypeKind::Array(Box::new(DataType::nullable(TypeKind::Int)))),
        ),
    ])
}

fn batch(i: Vec<Option<i32>>, s: Vec<Option<&str>>, d: Vec<Option<f64>>) -> RecordBatch {
    let n = i.len();
    let b: Vec<Option<&[u8]>> = s.iter().map(|v| v.map(str::as_bytes)).collect();
    let arr = ListArray::from_iter_primitive::<Int32Type, _, _>((0..n).map(|k| {
        if k % 2 == 0 {
            None
        } else {
            Some(vec![Some(k as i32)])
        }
    }));
    let raw = RecordBatch::try_new(
        Arc::new(arrow_schema::Schema::new(vec![
            arrow_schema::Field::new("i", arrow_schema::DataType::Int32, true),
            arrow_schema::Field::new("s", arrow_schema::DataType::Utf8, true),
            arrow_schema::Field::new("d", arrow_schema::DataType::Float64, true),
            arrow_schema::Field::new("b", arrow_schema::DataType::Binary, true),
            arrow_schema::Field::new("arr", arr.data_type().clone(), true),
        ])),
        vec![
            Arc::new(Int32Array::from(i)) as ArrayRef,
            Arc::new(StringArray::from(s)),
            Arc::new(Float64Array::from(d)),
            Arc::new(BinaryArray::from(b)),
            Arc::new(arr),
        ],
    )
    .unwrap();
    let target = to_arrow_schema(&row_type()).unwrap();
    crate::format::convert::cast_batch_to_schema(&raw, &target, "test").unwrap()
}

fn string(s: &str) -> Option<Datum> {
    Some(Datum::String(s.to_string()))
}

fn two_batches() -> Vec<RecordBatch> {
    vec![
        batch(
            vec![Some(5), None, Some(-3)],
            vec![Some("banana"), Some("apple"), None],
            vec![Some(1.5), Some(-0.0), None],
        ),
        batch(
            vec![Some(100), Some(7)],
            vec![None, Some("cherry")],
            vec![Some(0.0), Some(-7.25)],
        ),
    ]
}

fn collect(mode: StatsMode) -> Vec<ColumnStats> {
    let mut c = StatsCollector::with_mode(&row_type(), mode);
    for b in two_batches() {
        c.update(&b).unwrap();
    }
    c.finish()
}

#[test]
fn none_mode_knows_nothing() {
    assert!(collect(StatsMode::None)
        .iter()
        .all(|s| *s == ColumnStats::default()));
}

#[test]
fn counts_mode_has_only_null_counts() {
    let stats = collect(StatsMode::Counts);
    let counts: Vec<Option<i64>> = stats.iter().map(|s| s.null_count).collect();
    assert_eq!(counts, vec![Some(1), Some(2), Some(1), Some(2), Some(3)]);
    assert!(stats.iter().all(|s| s.min.is_none() && s.max.is_none()));
}

#[test]
fn full_mode_merges_batches() {
    let stats = collect(StatsMode::Full);
    assert_eq!(
        stats[0],
        ColumnStats {
            min: Some(Datum::Int(-3)),
            max: Some(Datum::Int(100)),
            null_count: Some(1)
        }
    );
    assert_eq!(
        (stats[1].min.clone(), stats[1].max.clone()),
        (string("apple"), string("cherry"))
    );
    assert_eq!(
        (stats[2].min.clone(), stats[2].max.clone()),
        (Some(Datum::Double(-7.25)), Some(Datum::Double(1.5)))
    );
    assert_eq!(
        (stats[3].min.clone(), stats[3].max.clone()),
        (
            Some(Datum::Bytes(b"apple".to_vec())),
            Some(Datum::Bytes(b"cherry".to_vec()))
        )
    );
    // Nested: no min/max, but top-level NULLs are counted (rows 0, 2 of batch 1, row 0 of 2).
    assert_eq!(
        stats[4],
        ColumnStats {
            min: None,
            max: None,
            null_count: Some(3)
        }
    );
}

#[test]
fn truncate_16_on_strings_and_bytes() {
    let long = "abcdefghijklmnopqrstuvwxyz";
    let mut c = StatsCollector::new(
        &row_type(),
        &[
            StatsMode::Truncate(16),
            StatsMode::Truncate(16),
            StatsMode::Full,
            StatsMode::Truncate(16),
            StatsMode::Counts,
        ],
    )
    .unwrap();
    c.update(&batch(
        vec![Some(1), Some(2)],
        vec![Some(long), Some("short")],
        vec![Some(1.0), Some(2.0)],
    ))
    .unwrap();
    let stats = c.finish();
    // Ints are not truncated.
    assert_eq!(stats[0].max, Some(Datum::Int(2)));
    // min = first 16 chars; max ("short") is under 16 chars and stays exact.
    assert_eq!(stats[1].min, string("abcdefghijklmnop"));
    assert_eq!(stats[1].max, string("short"));
    assert_eq!(
        stats[3].min,
        Some(Datum::Bytes(b"abcdefghijklmnop".to_vec()))
    );

    // A long max gets its 16th character incremented.
    let mut c = StatsCollector::with_mode(&row_type(), StatsMode::Truncate(16));
    c.update(&batch(vec![None], vec![Some(long)], vec![None]))
        .unwrap();
    let stats = c.finish();
    assert_eq!(stats[1].min, string("abcdefghijklmnop"));
    assert_eq!(stats[1].max, string("abcdefghijklmnoq"));
    assert_eq!(
        stats[3].max,
        Some(Datum::Bytes(b"abcdefghijklmnoq".to_vec()))
    );
    // All-null column: no min/max, null count 1.
    assert_eq!(
        stats[0],
        ColumnStats {
            min: None,
            max: None,
            null_count: Some(1)
        }
    );

    // No upper bound exists for a long run of U+10FFFF: min and max both unknown.
    let top = "\u{10FFFF}".repeat(20);
    let mut c = StatsCollector::with_mode(&row_type(), StatsMode::Truncate(16));
    c.update(&batch(vec![None], vec![Some(&top)], vec![None]))
        .unwrap();
    let stats = c.finish();
    assert_eq!(
        stats[1],
        ColumnStats {
            min: None,
            max: None,
            null_count: Some(0)
        }
    );
}

#[test]
fn nan_makes_float_range_unknown() {
    let mut c = StatsCollector::with_mode(&row_type(), StatsMode::Full);
    c.update(&batch(vec![Some(1)], vec![None], vec![Some(1.0)]))
        .unwrap();
    c.update(&batch(vec![Some(2)], vec![None], vec![Some(f64::NAN)]))
        .unwrap();
    c.update(&batch(vec![Some(3)], vec![None], vec![Some(5.0)]))
        .unwrap();
    let stats = c.finish();
    assert_eq!(
        stats[2],
        ColumnStats {
            min: None,
            max: None,
            null_count: Some(0)
        }
    );
    assert_eq!(stats[0].max, Some(Datum::Int(3)));
}

#[test]
fn mismatched_input_is_an_error() {
    assert!(StatsCollector::new(&row_type(), &[StatsMode::Full]).is_err());
    let mut c = StatsCollector::with_mode(&row_type(), StatsMode::Full);
    let one = RecordBatch::try_new(
        Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
            "i",
            arrow_schema::DataType::Int32,
            true,
        )])),
        vec![Arc::new(Int32Array::from(vec![1]))],
    )
    .unwrap();
    assert!(c.update(&one).is_err());
}
