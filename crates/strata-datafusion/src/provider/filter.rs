//! DataFusion filter expressions as strata [`Predicate`]s, for filter pushdown.
//!
//! A filter is pushed down `Exact` when it converts completely: strata's read then returns only
//! the rows it selects (primary-key predicates are applied to every sorted run before the
//! merge, value predicates after it, see `strata::read`), so DataFusion drops its own filter.
//! A filter that does not convert but implies a predicate strata evaluates (`LIKE 'ab%c'`
//! implies `starts_with('ab')`; the convertible parts of an `AND`) is `Inexact`: strata prunes
//! and filters by the implied predicate and DataFusion applies the filter itself on top.
//! Anything else (functions, casts of columns, column-to-column comparisons) is `Unsupported`
//! and stays in DataFusion. Conversion also checks the predicate binds to the
//! table's columns with its literals coerced exactly (`Predicate::bind`), so a pushed filter
//! never fails at scan time.
//!
//! A MAP key access `m['k']` (DataFusion plans it as `get_field(m, 'k')`) becomes strata's
//! key leaf `m['k']`, which prunes row groups and pages of shredded MAP columns (PIP-43).

use datafusion::common::ScalarValue;
use datafusion::logical_expr::expr::{InList, Like, ScalarFunction};
use datafusion::logical_expr::{Between, BinaryExpr, Expr, Operator};
use strata::expr::{LeafOp, LeafPredicate, MapKeyRef, Predicate};
use strata::spec::types::RowType;
use strata::spec::Datum;

/// Converts a DataFusion filter to a strata predicate; `None` when any part does not convert.
pub fn to_predicate(expr: &Expr) -> Option<Predicate> {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => match op {
            Operator::And => Some(Predicate::and([to_predicate(left)?, to_predicate(right)?])),
            Operator::Or => Some(Predicate::or([to_predicate(left)?, to_predicate(right)?])),
            _ => comparison(left, *op, right),
        },
        Expr::Not(inner) => Some(to_predicate(inner)?.negate()),
        Expr::IsNull(e) => Some(leaf(column_name(e)?, LeafOp::IsNull)),
        Expr::IsNotNull(e) => Some(leaf(column_name(e)?, LeafOp::IsNotNull)),
        Expr::IsTrue(e) => Some(leaf(column_name(e)?, LeafOp::Equal(Datum::Boolean(true)))),
        Expr::IsFalse(e) => Some(leaf(column_name(e)?, LeafOp::Equal(Datum::Boolean(false)))),
        Expr::Column(_) => Some(leaf(
            column_name(expr)?,
            LeafOp::Equal(Datum::Boolean(true)),
        )),
        Expr::InList(InList {
            expr,
            list,
            negated,
        }) => {
            let c = column_name(expr)?;
            let values = list.iter().map(literal).collect::<Option<Vec<_>>>()?;
            Some(leaf(
                c,
                if *negated {
                    LeafOp::NotIn(values)
                } else {
                    LeafOp::In(values)
                },
            ))
        }
        Expr::Between(Between {
            expr,
            negated,
            low,
            high,
        }) => {
            let c = column_name(expr)?;
            let (low, high) = (literal(low)?, literal(high)?);
            Some(if *negated {
                Predicate::not_between(c, low, high)
            } else {
                Predicate::between(c, low, high)
            })
        }
        Expr::Like(like) => {
            let (c, p, negated) = plain_like(like)?;
            let prefix = p.strip_suffix('%')?;
            if prefix.contains(['%', '_', '\\']) {
                return None;
            }
            Some(leaf(
                c,
                if negated {
                    LeafOp::NotStartsWith(prefix.to_string())
                } else {
                    LeafOp::StartsWith(prefix.to_string())
                },
            ))
        }
        _ => None,
    }
}

/// Converts `filter` and checks that it binds to `row_type` (columns exist, literals coerce).
pub fn to_bound_predicate(filter: &Expr, row_type: &RowType) -> Option<Predicate> {
    let p = to_predicate(filter)?;
    p.bind(row_type, "pushdown").ok()?;
    Some(p)
}

/// A predicate `filter` implies (it keeps every row `filter` keeps), for a filter that does not
/// convert exactly: strata prunes and filters with it, and DataFusion applies `filter` itself
/// on top (pushdown `Inexact`). `LIKE 'abc%x'` implies `starts_with('abc')`; `a AND b` implies
/// the parts that convert; `a OR b` implies `a' OR b'` when both sides imply something. A
/// negation implies nothing it does not state exactly. Checked to bind like
/// [`to_bound_predicate`].
pub fn to_implied_predicate(filter: &Expr, row_type: &RowType) -> Option<Predicate> {
    let p = implied(filter)?;
    p.bind(row_type, "pushdown").ok()?;
    Some(p)
}

fn implied(expr: &Expr) -> Option<Predicate> {
    if let Some(exact) = to_predicate(expr) {
        return Some(exact);
    }
    match expr {
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::And,
            right,
        }) => {
            let parts: Vec<Predicate> = [implied(left), implied(right)]
                .into_iter()
                .flatten()
                .collect();
            (!parts.is_empty()).then(|| Predicate::and(parts))
        }
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::Or,
            right,
        }) => Some(Predicate::or([implied(left)?, implied(right)?])),
        Expr::Like(like) => {
            let (c, p, false) = plain_like(like)? else {
                return None;
            };
            // The literal characters before the first wildcard (or escape) start every match.
            let prefix: String = p
                .chars()
                .take_while(|c| !matches!(c, '%' | '_' | '\\'))
                .collect();
            (!prefix.is_empty()).then(|| leaf(c, LeafOp::StartsWith(prefix)))
        }
        _ => None,
    }
}

/// A case-sensitive `column [NOT] LIKE 'literal'` without an escape character: the column as
/// strata names it, the pattern, and whether it is negated.
fn plain_like(like: &Like) -> Option<(String, String, bool)> {
    if like.escape_char.is_some() || like.case_insensitive {
        return None;
    }
    let Some(Datum::String(p)) = literal(&like.pattern) else {
        return None;
    };
    Some((column_name(&like.expr)?, p, like.negated))
}

fn leaf(column: String, op: LeafOp) -> Predicate {
    Predicate::Leaf(LeafPredicate { column, op })
}

fn comparison(left: &Expr, op: Operator, right: &Expr) -> Option<Predicate> {
    let (column, op, value) = match (column_name(left), column_name(right)) {
        (Some(c), None) => (c, op, literal(right)?),
        (None, Some(c)) => (c, flip(op)?, literal(left)?),
        _ => return None,
    };
    let op = match op {
        Operator::Eq => LeafOp::Equal(value),
        Operator::NotEq => LeafOp::NotEqual(value),
        Operator::Lt => LeafOp::LessThan(value),
        Operator::LtEq => LeafOp::LessOrEqual(value),
        Operator::Gt => LeafOp::GreaterThan(value),
        Operator::GtEq => LeafOp::GreaterOrEqual(value),
        _ => return None,
    };
    Some(leaf(column, op))
}

/// `5 < c` is `c > 5`.
fn flip(op: Operator) -> Option<Operator> {
    Some(match op {
        Operator::Eq | Operator::NotEq => op,
        Operator::Lt => Operator::Gt,
        Operator::LtEq => Operator::GtEq,
        Operator::Gt => Operator::Lt,
        Operator::GtEq => Operator::LtEq,
        _ => return None,
    })
}

/// A column reference (`c`, `t.c`) or a MAP key access (`m['k']`) as strata names it.
fn column_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Column(c) => Some(c.name.clone()),
        Expr::ScalarFunction(ScalarFunction { func, args })
            if func.name() == "get_field" && args.len() == 2 =>
        {
            let Expr::Column(c) = &args[0] else {
                return None;
            };
            let Some(Datum::String(key)) = literal(&args[1]) else {
                return None;
            };
            Some(MapKeyRef::new(c.name.clone(), key).name())
        }
        _ => None,
    }
}

/// A non-NULL literal as a strata datum (coerced to the column type when binding).
fn literal(e: &Expr) -> Option<Datum> {
    let Expr::Literal(v, _) = e else {
        return None;
    };
    scalar_to_datum(v)
}

/// A DataFusion scalar as a strata datum; `None` for NULL and types strata does not compare.
pub fn scalar_to_datum(v: &ScalarValue) -> Option<Datum> {
    use ScalarValue as S;
    Some(match v {
        S::Boolean(Some(b)) => Datum::Boolean(*b),
        S::Int8(Some(x)) => Datum::TinyInt(*x),
        S::Int16(Some(x)) => Datum::SmallInt(*x),
        S::Int32(Some(x)) => Datum::Int(*x),
        S::Int64(Some(x)) => Datum::BigInt(*x),
        S::UInt8(Some(x)) => Datum::SmallInt(i16::from(*x)),
        S::UInt16(Some(x)) => Datum::Int(i32::from(*x)),
        S::UInt32(Some(x)) => Datum::BigInt(i64::from(*x)),
        S::UInt64(Some(x)) => Datum::BigInt(i64::try_from(*x).ok()?),
        S::Float32(Some(x)) => Datum::Float(*x),
        S::Float64(Some(x)) => Datum::Double(*x),
        S::Decimal128(Some(unscaled), precision, scale) => Datum::Decimal {
            unscaled: *unscaled,
            precision: u32::from(*precision),
            scale: u32::try_from(*scale).ok()?,
        },
        S::Utf8(Some(s)) | S::LargeUtf8(Some(s)) | S::Utf8View(Some(s)) => Datum::String(s.clone()),
        S::Binary(Some(b)) | S::LargeBinary(Some(b)) | S::BinaryView(Some(b)) => {
            Datum::Bytes(b.clone())
        }
        S::FixedSizeBinary(_, Some(b)) => Datum::Bytes(b.clone()),
        S::Date32(Some(d)) => Datum::Date(*d),
        S::Time32Millisecond(Some(ms)) => Datum::Time(*ms),
        S::Time32Second(Some(s)) => Datum::Time(s.checked_mul(1000)?),
        S::TimestampSecond(Some(s), tz) => timestamp(s.checked_mul(1000)?, 0, tz.is_some()),
        S::TimestampMillisecond(Some(ms), tz) => timestamp(*ms, 0, tz.is_some()),
        S::TimestampMicrosecond(Some(us), tz) => timestamp(
            us.div_euclid(1000),
            (us.rem_euclid(1000) * 1000) as i32,
            tz.is_some(),
        ),
        S::TimestampNanosecond(Some(ns), tz) => timestamp(
            ns.div_euclid(1_000_000),
            ns.rem_euclid(1_000_000) as i32,
            tz.is_some(),
        ),
        _ => return None,
    })
}

fn timestamp(millis: i64, nanos: i32, with_zone: bool) -> Datum {
    if with_zone {
        Datum::TimestampLtz { millis, nanos }
    } else {
        Datum::Timestamp { millis, nanos }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::prelude::{col, lit};

    #[test]
    fn comparisons_and_compounds_convert() {
        let e = col("id").lt(lit(1000i64)).and(lit("a").eq(col("s")));
        assert_eq!(
            to_predicate(&e),
            Some(Predicate::and([
                Predicate::less_than("id", Datum::BigInt(1000)),
                Predicate::equal("s", Datum::String("a".into())),
            ]))
        );
        let e = lit(5i32).lt(col("x"));
        assert_eq!(
            to_predicate(&e),
            Some(Predicate::greater_than("x", Datum::Int(5)))
        );
        assert_eq!(
            to_predicate(&col("s").like(lit("ab%"))),
            Some(Predicate::starts_with("s", "ab"))
        );
        assert_eq!(
            to_predicate(&col("x").in_list(vec![lit(1i32), lit(2i32)], true)),
            Some(Predicate::is_not_in(
                "x",
                vec![Datum::Int(1), Datum::Int(2)]
            ))
        );
    }

    #[test]
    fn what_strata_cannot_evaluate_is_not_converted() {
        assert_eq!(to_predicate(&col("a").eq(col("b"))), None);
        assert_eq!(to_predicate(&col("s").like(lit("a%b%"))), None);
        assert_eq!(to_predicate(&col("s").like(lit("a_c"))), None);
        assert_eq!(to_predicate(&(col("a") + lit(1i32)).eq(lit(3i32))), None);
        assert_eq!(
            to_predicate(&col("a").eq(lit(ScalarValue::Int32(None)))),
            None
        );
        // One part that does not convert keeps the whole conjunction in DataFusion.
        assert_eq!(
            to_predicate(&col("a").eq(lit(1i32)).or(col("a").eq(col("b")))),
            None
        );
    }

    #[test]
    fn inexact_filters_imply_what_strata_can_prune_by() {
        assert_eq!(
            implied(&col("s").like(lit("ab%c%"))),
            Some(Predicate::starts_with("s", "ab"))
        );
        assert_eq!(
            implied(&col("s").like(lit("ab_d"))),
            Some(Predicate::starts_with("s", "ab"))
        );
        // No literal prefix, or a negation: nothing implied.
        assert_eq!(implied(&col("s").like(lit("%ab"))), None);
        assert_eq!(implied(&col("s").not_like(lit("ab%c"))), None);
        // AND keeps the parts that convert; OR needs both sides.
        let x = col("x").gt(lit(3i32));
        assert_eq!(
            implied(&x.clone().and(col("a").eq(col("b")))),
            Some(Predicate::and([Predicate::greater_than(
                "x",
                Datum::Int(3)
            )]))
        );
        assert_eq!(implied(&x.clone().or(col("a").eq(col("b")))), None);
        assert_eq!(
            implied(&x.or(col("s").like(lit("q%r")))),
            Some(Predicate::or([
                Predicate::greater_than("x", Datum::Int(3)),
                Predicate::starts_with("s", "q"),
            ]))
        );
    }

    #[test]
    fn timestamps_keep_sub_millisecond_digits() {
        assert_eq!(
            scalar_to_datum(&ScalarValue::TimestampMicrosecond(Some(-1), None)),
            Some(Datum::Timestamp {
                millis: -1,
                nanos: 999_000
            })
        );
        assert_eq!(
            scalar_to_datum(&ScalarValue::TimestampNanosecond(
                Some(1_500_000_001),
                Some("+00:00".into())
            )),
            Some(Datum::TimestampLtz {
                millis: 1500,
                nanos: 1
            })
        );
    }
}
