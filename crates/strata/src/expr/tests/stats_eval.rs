//! Example-based tests of statistics pruning and Arrow evaluation.

use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, BooleanArray, DictionaryArray, Int32Array, LargeStringArray, RecordBatch,
    StringViewArray, TimestampMillisecondArray,
};
use strata_spec::stats::ColumnStats;
use strata_spec::{DataField, DataType, Datum, RowType, TypeKind};

use super::support::{batch_of, row_type};
use crate::expr::{filter_batch, parse_sql_predicate, BoundPredicate};

fn bind(text: &str) -> BoundPredicate {
    parse_sql_predicate(text)
        .and_then(|p| p.bind(&row_type(), "t"))
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Stats with only column `i` known.
fn stats_for(
    i: usize,
    min: Option<Datum>,
    max: Option<Datum>,
    nulls: Option<i64>,
) -> Vec<ColumnStats> {
    let mut v = vec![ColumnStats::default(); 9];
    v[i] = ColumnStats {
        min,
        max,
        null_count: nulls,
    };
    v
}

fn s(x: &str) -> Option<Datum> {
    Some(Datum::String(x.into()))
}

#[test]
fn range_and_null_count_pruning() {
    let st = stats_for(0, Some(Datum::Int(10)), Some(Datum::Int(20)), Some(0));
    let keeps = |text: &str| bind(text).test_stats(100, &st);
    assert!(keeps("i = 10") && keeps("i = 20") && keeps("i = 15"));
    assert!(!keeps("i = 9") && !keeps("i = 21"));
    assert!(!keeps("i < 10") && keeps("i < 11") && keeps("i <= 10") && !keeps("i <= 9"));
    assert!(!keeps("i > 20") && keeps("i > 19") && keeps("i >= 20") && !keeps("i >= 21"));
    assert!(keeps("i <> 10"));
    assert!(!keeps("i IN (1, 2, 30)") && keeps("i IN (1, 12)"));
    assert!(!keeps("i IS NULL") && keeps("i IS NOT NULL"));
    assert!(!keeps("i > 20 OR i < 10") && keeps("i > 20 OR i < 11"));
    assert!(!keeps("i = 15 AND i = 30"));
    // Unknown stats keep everything.
    assert!(bind("i = 99").test_stats(100, &[]));
    assert!(bind("b = 99").test_stats(100, &st));

    let single = stats_for(0, Some(Datum::Int(7)), Some(Datum::Int(7)), Some(0));
    assert!(!bind("i <> 7").test_stats(5, &single));
    assert!(!bind("i NOT IN (6, 7)").test_stats(5, &single));
    assert!(bind("i <> 8").test_stats(5, &single));

    let all_null = stats_for(0, None, None, Some(5));
    assert!(!bind("i = 1").test_stats(5, &all_null));
    assert!(!bind("i IS NOT NULL").test_stats(5, &all_null));
    assert!(!bind("i <> 1").test_stats(5, &all_null));
    assert!(bind("i IS NULL").test_stats(5, &all_null));
    // Unknown row count: no all-null conclusion.
    assert!(bind("i = 1").test_stats(-1, &all_null));
    let counts_only = stats_for(0, None, None, Some(2));
    assert!(bind("i = 1").test_stats(5, &counts_only));
}

#[test]
fn truncated_string_stats_stay_bounds() {
    // Real values "abcdefghij...x" .. "abcdefghij...z", truncate(3): min "abc", max "abd".
    let st = stats_for(2, s("abc"), s("abd"), Some(0));
    let keeps = |text: &str| bind(text).test_stats(10, &st);
    assert!(keeps("s = 'abcdefghijz'"));
    assert!(keeps("s LIKE 'abc%'") && keeps("s LIKE 'ab%'") && keeps("s LIKE 'abcdef%'"));
    assert!(keeps("s LIKE 'abd%'") && !keeps("s LIKE 'abe%'") && !keeps("s LIKE 'abb%'"));
    assert!(keeps("s > 'abcz'") && !keeps("s > 'abd'") && !keeps("s < 'abc'"));
    assert!(!keeps("s NOT LIKE 'ab%'") && keeps("s NOT LIKE 'abc%'"));
    assert!(keeps("s <> 'abc'"));
    // StartsWith on an untruncated range.
    let st = stats_for(2, s("apple"), s("banana"), Some(0));
    let keeps = |text: &str| bind(text).test_stats(10, &st);
    assert!(keeps("s LIKE 'b%'") && keeps("s LIKE 'a%'") && keeps("s LIKE '%'"));
    assert!(!keeps("s LIKE 'c%'") && keeps("s LIKE 'ap%'"));
    assert!(!keeps("s LIKE 'aa%'") && !keeps("s LIKE 'bz%'"));
}

#[test]
fn float_upper_bounds_are_not_trusted_for_nan() {
    // NaN rows are left out of min/max by Parquet writers.
    let st = stats_for(
        3,
        Some(Datum::Double(1.0)),
        Some(Datum::Double(2.0)),
        Some(0),
    );
    let keeps = |text: &str| bind(text).test_stats(10, &st);
    assert!(keeps("d > 5") && keeps("d >= 5") && keeps("d <> 1"));
    assert!(keeps("d = 'NaN'"));
    assert!(!keeps("d = 5") && !keeps("d < 1") && !keeps("d IN (0, 3)"));
}

#[test]
fn evaluation_follows_sql_null_semantics() {
    let rt = row_type();
    let row = |i: Option<i32>, s: Option<&str>| {
        let mut r: Vec<Option<Datum>> = vec![None; 9];
        r[0] = i.map(Datum::Int);
        r[2] = s.map(|s| Datum::String(s.into()));
        r
    };
    let rows = vec![
        row(Some(1), Some("apple")),
        row(None, Some("banana")),
        row(Some(3), None),
        row(Some(4), Some("avocado")),
    ];
    let batch = batch_of(&rt, &rows);
    let mask = |text: &str| -> Vec<bool> {
        let m = bind(text).evaluate(&batch).unwrap();
        assert_eq!(m.null_count(), 0);
        (0..m.len()).map(|i| m.value(i)).collect()
    };
    assert_eq!(mask("i <> 3"), [true, false, false, true]);
    assert_eq!(mask("NOT (i = 3)"), [true, false, false, true]);
    assert_eq!(mask("i <> 3 OR s LIKE 'b%'"), [true, true, false, true]);
    assert_eq!(mask("s NOT LIKE 'a%'"), [false, true, false, false]);
    assert_eq!(mask("i IS NULL OR s IS NULL"), [false, true, true, false]);
    assert_eq!(mask("i NOT IN (1, 4)"), [false, false, true, false]);
    assert_eq!(mask("TRUE"), [true; 4]);
    let filtered = filter_batch(&batch, &bind("s LIKE 'a%'")).unwrap();
    assert_eq!(filtered.num_rows(), 2);
}

#[test]
fn literals_adapt_to_the_arrow_type_of_the_column() {
    // A TIMESTAMP(3) column read as milliseconds, compared with a microsecond literal.
    let rt = RowType::new(vec![DataField::new(
        0,
        "ts",
        DataType::nullable(TypeKind::Timestamp(3)),
    )]);
    let arr: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![
        Some(0),
        Some(1),
        None,
        Some(2),
    ]));
    let batch = RecordBatch::try_from_iter([("ts", arr)]).unwrap();
    let mask = |text: &str| -> Vec<bool> {
        let p = parse_sql_predicate(text).unwrap().bind(&rt, "t").unwrap();
        let m = p.evaluate(&batch).unwrap();
        (0..m.len()).map(|i| m.value(i)).collect()
    };
    let lit = "TIMESTAMP '1970-01-01 00:00:00.001500'";
    assert_eq!(mask(&format!("ts = {lit}")), [false, false, false, false]);
    assert_eq!(mask(&format!("ts <> {lit}")), [true, true, false, true]);
    assert_eq!(mask(&format!("ts < {lit}")), [true, true, false, false]);
    assert_eq!(mask(&format!("ts >= {lit}")), [false, false, false, true]);
    assert_eq!(mask("ts > TIMESTAMP '9999-12-31 00:00:00'"), [false; 4]);

    // An INT field stored as Int32 compared with a literal beyond the Int32 range (a table
    // whose column was widened to BIGINT): evaluated exactly without overflow.
    let wide = RowType::new(vec![DataField::new(
        0,
        "x",
        DataType::nullable(TypeKind::BigInt),
    )]);
    let arr: ArrayRef = Arc::new(Int32Array::from(vec![Some(-1), None, Some(5)]));
    let batch = RecordBatch::try_from_iter([("x", arr)]).unwrap();
    let eval = |text: &str| {
        let p = parse_sql_predicate(text).unwrap().bind(&wide, "t").unwrap();
        p.evaluate(&batch).unwrap()
    };
    assert_eq!(
        eval("x < 3000000000"),
        BooleanArray::from(vec![true, false, true])
    );
    assert_eq!(
        eval("x IN (3000000000, 5)"),
        BooleanArray::from(vec![false, false, true])
    );
    assert_eq!(
        eval("x > -3000000000"),
        BooleanArray::from(vec![true, false, true])
    );
}

#[test]
fn string_layouts_and_column_mapping() {
    let rt = RowType::new(vec![
        DataField::new(0, "k", DataType::nullable(TypeKind::Int)),
        DataField::new(1, "s", DataType::string()),
    ]);
    let p = parse_sql_predicate("s LIKE 'ab%' OR s = 'zz'")
        .unwrap()
        .bind(&rt, "t")
        .unwrap();
    let expected = BooleanArray::from(vec![true, false, false, true]);
    let values = [Some("abc"), Some("b"), None, Some("zz")];
    let dict: DictionaryArray<Int32Type> = values.iter().copied().collect();
    let layouts: Vec<ArrayRef> = vec![
        Arc::new(LargeStringArray::from(values.to_vec())),
        Arc::new(StringViewArray::from(values.to_vec())),
        Arc::new(dict),
    ];
    for arr in layouts {
        // The batch holds only the referenced column: evaluate by name, or with a mapping.
        let batch = RecordBatch::try_from_iter([("s", arr.clone())]).unwrap();
        assert_eq!(
            p.evaluate_by_name(&batch).unwrap(),
            expected,
            "{}",
            arr.data_type()
        );
        let m = p
            .evaluate_with(4, &|i| (i == 1).then(|| arr.clone()))
            .unwrap();
        assert_eq!(m, expected);
        // Projected to the batch layout, positional evaluation works too.
        let projected = p.project(&[1]).unwrap();
        assert_eq!(projected.evaluate(&batch).unwrap(), expected);
    }
    let e = p.evaluate_with(4, &|_| None).unwrap_err().to_string();
    assert!(e.contains("predicate column s"), "{e}");
}
