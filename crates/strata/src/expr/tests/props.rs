//! Property tests: random rows and random predicates over the test row type.
//!
//! * SQL text → parse → bind → Arrow evaluation and `test_values` agree with the reference
//!   evaluator on every row;
//! * `test_stats` never prunes a file holding a matching row (exact, truncated-string and
//!   NaN-free float statistics, and counts-only statistics);
//! * a predicate extracted for a column subset is true on every row where the full one is.

use std::cmp::Ordering;

use arrow_array::Array;
use proptest::prelude::*;
use strata_spec::stats::ColumnStats;
use strata_spec::Datum;

use super::support::{batch_of, reference, row_type, Row};
use crate::expr::{parse_sql_predicate, Predicate};

const STRINGS: &[&str] = &[
    "",
    "a",
    "ab",
    "abc",
    "abd",
    "b",
    "ba",
    "é",
    "ab'c",
    "abcdefghijklmnopqrst",
    "abcdefghijklmnopqrsz",
    "zz",
];
const DOUBLES: &[f64] = &[-1.5, 0.0, 1.0, 2.5, 1e-3, f64::NAN, f64::INFINITY];

/// A non-null value of field `i` of the test row type.
fn value(i: usize) -> BoxedStrategy<Datum> {
    match i {
        0 => (-3i32..4).prop_map(Datum::Int).boxed(),
        1 => (-3i64..4).prop_map(Datum::BigInt).boxed(),
        2 => prop::sample::select(STRINGS)
            .prop_map(|s| Datum::String(s.to_string()))
            .boxed(),
        3 => prop_oneof![prop::sample::select(DOUBLES), Just(-0.0)]
            .prop_map(Datum::Double)
            .boxed(),
        4 => (-300i128..300)
            .prop_map(|u| Datum::Decimal {
                unscaled: u * 50,
                precision: 10,
                scale: 2,
            })
            .boxed(),
        5 => (19_720i32..19_726).prop_map(Datum::Date).boxed(),
        6 => (-2i64..3, prop::sample::select(&[0i32, 500_000][..]))
            .prop_map(|(s, nanos)| Datum::Timestamp {
                millis: s * 1000 - 1,
                nanos,
            })
            .boxed(),
        7 => any::<bool>().prop_map(Datum::Boolean).boxed(),
        _ => (-3i16..4).prop_map(Datum::SmallInt).boxed(),
    }
}

/// A literal for field `i`: a value of its domain, never -0.0 (SQL text `-0` reads as 0).
fn literal(i: usize) -> BoxedStrategy<Datum> {
    if i == 3 {
        prop::sample::select(DOUBLES)
            .prop_map(Datum::Double)
            .boxed()
    } else {
        value(i)
    }
}

fn row() -> impl Strategy<Value = Row> {
    (0..9usize)
        .map(|i| prop::option::weighted(0.8, value(i)))
        .collect::<Vec<_>>()
}

fn leaf() -> BoxedStrategy<Predicate> {
    let names: Vec<String> = row_type().fields.iter().map(|f| f.name.clone()).collect();
    (0..9usize, 0..10u8)
        .prop_flat_map(move |(i, op)| {
            let c = names[i].clone();
            let lit = literal(i);
            match op {
                0 => lit
                    .prop_map(move |v| Predicate::equal(c.clone(), v))
                    .boxed(),
                1 => lit
                    .prop_map(move |v| Predicate::not_equal(c.clone(), v))
                    .boxed(),
                2 => lit
                    .prop_map(move |v| Predicate::less_than(c.clone(), v))
                    .boxed(),
                3 => lit
                    .prop_map(move |v| Predicate::less_or_equal(c.clone(), v))
                    .boxed(),
                4 => lit
                    .prop_map(move |v| Predicate::greater_than(c.clone(), v))
                    .boxed(),
                5 => lit
                    .prop_map(move |v| Predicate::greater_or_equal(c.clone(), v))
                    .boxed(),
                6 => prop_oneof![
                    Just(Predicate::is_null(c.clone())),
                    Just(Predicate::is_not_null(c.clone()))
                ]
                .boxed(),
                7 => (prop::collection::vec(lit, 1..4), any::<bool>())
                    .prop_map(move |(l, neg)| {
                        if neg {
                            Predicate::is_not_in(c.clone(), l)
                        } else {
                            Predicate::is_in(c.clone(), l)
                        }
                    })
                    .boxed(),
                8 => (lit.clone(), lit)
                    .prop_map(move |(a, b)| Predicate::between(c.clone(), a, b))
                    .boxed(),
                _ => prop::sample::select(&["", "a", "ab", "abc", "b", "é", "z"][..])
                    .prop_map(|p| Predicate::starts_with("s", p))
                    .boxed(),
            }
        })
        .boxed()
}

fn predicate() -> impl Strategy<Value = Predicate> {
    leaf().prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4).prop_map(Predicate::And),
            prop::collection::vec(inner.clone(), 2..4).prop_map(Predicate::Or),
            inner.prop_map(|p| Predicate::Not(Box::new(p))),
        ]
    })
}

/// Statistics of column `i` over `rows`, as a writer would collect them.
#[derive(Clone, Copy, Debug)]
enum StatsKind {
    Exact,
    /// Strings truncated to 2 characters (Paimon's `truncate(N)` rule), NaN left out of
    /// float min/max (Parquet's rule).
    Truncated,
    /// Only null counts (`counts` mode).
    Counts,
}

fn column_stats(rows: &[Row], i: usize, kind: StatsKind) -> ColumnStats {
    let mut values: Vec<&Datum> = rows.iter().filter_map(|r| r[i].as_ref()).collect();
    let null_count = Some((rows.len() - values.len()) as i64);
    if matches!(kind, StatsKind::Counts) {
        return ColumnStats {
            min: None,
            max: None,
            null_count,
        };
    }
    if matches!(kind, StatsKind::Truncated) {
        values.retain(|v| !matches!(v, Datum::Double(d) if d.is_nan()));
    }
    let by = |a: &&Datum, b: &&Datum| a.compare(b).unwrap_or(Ordering::Equal);
    let mut min = values.iter().copied().min_by(by).cloned();
    let mut max = values.iter().copied().max_by(by).cloned();
    if matches!(kind, StatsKind::Truncated) {
        if let Some(Datum::String(s)) = &min {
            min = Some(Datum::String(s.chars().take(2).collect()));
        }
        if let Some(Datum::String(s)) = &max {
            if s.chars().count() > 2 {
                let mut chars: Vec<char> = s.chars().take(2).collect();
                let last = chars.pop().expect("two characters kept");
                max = char::from_u32(last as u32 + 1).map(|c| {
                    chars.push(c);
                    Datum::String(chars.into_iter().collect())
                });
            }
        }
    }
    ColumnStats {
        min,
        max,
        null_count,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn sql_text_binds_and_evaluates_like_the_reference(
        rows in prop::collection::vec(row(), 0..12),
        pred in predicate(),
    ) {
        let rt = row_type();
        let text = pred.to_string();
        let parsed = parse_sql_predicate(&text)
            .unwrap_or_else(|e| panic!("cannot parse {text}: {e}"));
        let bound = parsed.bind(&rt, "t").unwrap_or_else(|e| panic!("cannot bind {text}: {e}"));
        let direct = pred.bind(&rt, "t").expect("direct binding");
        prop_assert_eq!(bound.to_string(), direct.to_string());

        let batch = batch_of(&rt, &rows);
        let mask = bound.evaluate(&batch).expect("evaluation");
        prop_assert_eq!(mask.null_count(), 0);
        let by_name = bound.evaluate_by_name(&batch).expect("evaluation by name");
        prop_assert_eq!(&mask, &by_name);
        for (r, row) in rows.iter().enumerate() {
            let expected = reference(&pred, &rt, row);
            prop_assert_eq!(bound.test_values(row), expected, "row {:?} of {}", row, text);
            prop_assert_eq!(mask.value(r), expected == Some(true), "row {:?} of {}", row, text);
        }
        let filtered = crate::expr::filter_batch(&batch, &bound).expect("filter");
        prop_assert_eq!(filtered.num_rows(), mask.true_count());
    }

    #[test]
    fn stats_never_prune_a_file_with_a_match(
        rows in prop::collection::vec(row(), 1..10),
        pred in predicate(),
    ) {
        check_stats(&rows, &pred)?;
    }

    /// Single leaves match more often, so edge cases (NaN, truncation) are reached more.
    #[test]
    fn stats_never_prune_a_file_with_a_match_single_leaf(
        rows in prop::collection::vec(row(), 1..6),
        pred in leaf(),
    ) {
        check_stats(&rows, &pred)?;
    }

    #[test]
    fn extracted_predicate_holds_wherever_the_full_one_does(
        rows in prop::collection::vec(row(), 1..10),
        pred in predicate(),
        subset in prop::sample::subsequence((0..9usize).collect::<Vec<_>>(), 0..5),
    ) {
        let rt = row_type();
        let bound = pred.bind(&rt, "t").expect("bind");
        let extracted = bound.extract_for_columns(&subset);
        let projected = bound.project(&subset);
        if let Some(e) = &extracted {
            prop_assert!(e.referenced_columns().iter().all(|c| subset.contains(c)));
        }
        for row in &rows {
            if bound.test_values(row) != Some(true) {
                continue;
            }
            if let Some(e) = &extracted {
                prop_assert_eq!(e.test_values(row), Some(true));
            }
            let partition: Row = subset.iter().map(|&i| row[i].clone()).collect();
            if let Some(p) = &projected {
                prop_assert_eq!(p.test_values(&partition), Some(true), "{} on {:?}", p, partition);
            }
        }
    }
}

fn check_stats(rows: &[Row], pred: &Predicate) -> Result<(), TestCaseError> {
    let rt = row_type();

    let bound = pred.bind(&rt, "t").expect("bind");
    let matches = rows.iter().any(|r| reference(pred, &rt, r) == Some(true));
    for kind in [StatsKind::Exact, StatsKind::Truncated, StatsKind::Counts] {
        let stats: Vec<_> = (0..rt.len()).map(|i| column_stats(rows, i, kind)).collect();
        let keep = bound.test_stats(rows.len() as i64, &stats);
        prop_assert!(
            !matches || keep,
            "{:?} stats {:?} pruned {} over {:?}",
            kind,
            stats,
            pred,
            rows
        );
        prop_assert!(!matches || bound.test_stats(-1, &stats));
    }
    prop_assert!(bound.test_stats(rows.len() as i64, &[]));
    Ok(())
}
