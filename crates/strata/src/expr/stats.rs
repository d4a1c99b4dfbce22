//! Pruning on column statistics: [`BoundPredicate::test_stats`].
//!
//! The test is conservative: it returns `false` only when no row of the file (or partition
//! range) can satisfy the predicate; unknown statistics mean "may match". Min/max are only
//! used as bounds (`min ≤ every non-null value ≤ max`), never as exact values, which keeps the
//! logic right for Paimon's `truncate(N)` string statistics: the stored min is a prefix of the
//! real min (a lower bound) and the stored max is a prefix with its last character incremented
//! (an upper bound).
//!
//! FLOAT/DOUBLE: writers (Parquet among them) leave NaN out of min/max, while NaN compares
//! greater than every number here (as in Java's `Double.compare`). So upper bounds of float
//! columns are not trusted for tests that NaN satisfies (`>`, `>=`, `<>`, `NOT IN`, `= NaN`).

use std::cmp::Ordering;

use strata_spec::stats::ColumnStats;
use strata_spec::Datum;

use super::bound::{BoundLeafPredicate, BoundPredicate};
use super::predicate::LeafOp;

impl BoundPredicate {
    /// Whether a file with `row_count` rows and these per-field statistics may hold a matching
    /// row. `stats[i]` describes field `i` of the bound row type; a missing entry means unknown.
    /// `row_count` < 0 means unknown (e.g. partition stats of a manifest).
    pub fn test_stats(&self, row_count: i64, stats: &[ColumnStats]) -> bool {
        self.test_stats_nan_free(row_count, stats, false)
    }

    /// [`Self::test_stats`] for statistics known to cover columns without NaN (e.g. a Parquet
    /// chunk whose `nan_count` is 0): the float maximum can then be trusted.
    pub fn test_stats_nan_free(
        &self,
        row_count: i64,
        stats: &[ColumnStats],
        nan_free: bool,
    ) -> bool {
        match self {
            BoundPredicate::AlwaysTrue => true,
            BoundPredicate::AlwaysFalse => false,
            BoundPredicate::Leaf(l) => test_leaf_stats(l, row_count, stats.get(l.index), nan_free),
            BoundPredicate::And(c) => c
                .iter()
                .all(|c| c.test_stats_nan_free(row_count, stats, nan_free)),
            BoundPredicate::Or(c) => c
                .iter()
                .any(|c| c.test_stats_nan_free(row_count, stats, nan_free)),
        }
    }
}

/// `Some(ordering)` only when both sides are known and comparable.
fn cmp(a: Option<&Datum>, b: &Datum) -> Option<Ordering> {
    a?.compare(b)
}

fn is_nan(d: &Datum) -> bool {
    match d {
        Datum::Float(f) => f.is_nan(),
        Datum::Double(f) => f.is_nan(),
        _ => false,
    }
}

fn test_leaf_stats(
    leaf: &BoundLeafPredicate,
    row_count: i64,
    stats: Option<&ColumnStats>,
    nan_free: bool,
) -> bool {
    use Ordering::*;
    let Some(stats) = stats else {
        return true;
    };
    let null_count = stats.null_count;
    let all_null = row_count >= 0 && null_count == Some(row_count);
    match &leaf.op {
        LeafOp::IsNull => return null_count != Some(0) && row_count != 0,
        LeafOp::IsNotNull => return !all_null,
        _ => {}
    }
    // Every other test is unknown (not true) on NULL, so an all-null file cannot match.
    if all_null {
        return false;
    }
    let (min, max) = (stats.min.as_ref(), stats.max.as_ref());
    let float = !nan_free
        && matches!(
            leaf.data_type.kind,
            strata_spec::TypeKind::Float | strata_spec::TypeKind::Double
        );
    // A value v can be in [min, max]; the upper bound is not trusted for NaN on floats.
    let may_equal = |v: &Datum| {
        let above_min = cmp(min, v) != Some(Greater);
        let below_max = (float && is_nan(v)) || cmp(max, v) != Some(Less);
        above_min && below_max
    };
    // Every non-null value equals v (min == max == v), so `<> v` cannot hold.
    let all_equal = |v: &Datum| !float && cmp(min, v) == Some(Equal) && cmp(max, v) == Some(Equal);
    match &leaf.op {
        LeafOp::IsNull | LeafOp::IsNotNull => unreachable!("handled above"),
        LeafOp::Equal(v) => may_equal(v),
        LeafOp::NotEqual(v) => !all_equal(v),
        LeafOp::LessThan(v) => cmp(min, v) != Some(Equal) && cmp(min, v) != Some(Greater),
        LeafOp::LessOrEqual(v) => cmp(min, v) != Some(Greater),
        LeafOp::GreaterThan(v) => {
            float || (cmp(max, v) != Some(Equal) && cmp(max, v) != Some(Less))
        }
        LeafOp::GreaterOrEqual(v) => float || cmp(max, v) != Some(Less),
        LeafOp::In(list) => list.iter().any(may_equal),
        LeafOp::NotIn(list) => !list.iter().any(all_equal),
        LeafOp::StartsWith(prefix) => may_start_with(min, max, prefix),
        LeafOp::NotStartsWith(prefix) => {
            // Strings starting with `prefix` form an interval; if both bounds are in it, so is
            // every value.
            let starts = |d: Option<&Datum>| matches!(d, Some(Datum::String(s)) if s.starts_with(prefix.as_str()));
            !(starts(min) && starts(max))
        }
    }
}

/// Whether some string in [min, max] can start with `prefix`. Strings with the prefix form the
/// interval [prefix, next) where `next` is the first string after all of them.
fn may_start_with(min: Option<&Datum>, max: Option<&Datum>, prefix: &str) -> bool {
    if let Some(Datum::String(max)) = max {
        // Every value ≤ max < prefix.
        if max.as_bytes() < prefix.as_bytes() {
            return false;
        }
    }
    if let Some(Datum::String(min)) = min {
        // min is past the interval: greater than prefix and not starting with it.
        if min.as_bytes() > prefix.as_bytes() && !min.starts_with(prefix) {
            return false;
        }
    }
    true
}
