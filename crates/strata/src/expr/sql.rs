//! [`parse_sql_predicate`]: SQL `WHERE`-clause text to a [`Predicate`], with the `sqlparser`
//! crate's generic dialect.
//!
//! Grammar accepted (everything else is an error quoting the offending text):
//! * `col <op> literal` and `literal <op> col` (flipped) for `= <> != < <= > >=`;
//! * `AND`, `OR`, `NOT`, parentheses; a bare column (`flag`) means `flag = TRUE`;
//! * `col [NOT] IN (lit, ...)`, `col [NOT] BETWEEN lit AND lit`, `col IS [NOT] NULL`,
//!   `col IS [NOT] TRUE|FALSE`, `col [NOT] LIKE 'prefix%'` (only a trailing `%`);
//! * literals: integers, decimals (`1.5`, `1e3`, exact), `'strings'`, `TRUE`/`FALSE`,
//!   `X'hex'`, `DATE '2024-01-01'`, `TIME '12:00:00'`, `TIMESTAMP '2024-01-01 12:00:00'`,
//!   `TIMESTAMP WITH TIME ZONE '...+02:00'`; `NULL` only in `IS [NOT] NULL`;
//! * identifiers bare or quoted (`"My Col"`, `` `x` ``);
//! * MAP key access `m['key']` / `"My Map"['key']` wherever a column is accepted: the leaf's
//!   column is the canonical text `m['key']` ([`MapKeyRef::name`], bound by
//!   [`Predicate::bind_with_map_keys`]).

use sqlparser::ast::{
    AccessExpr, BinaryOperator, DataType as SqlType, Expr, Subscript, TimezoneInfo, UnaryOperator,
    Value,
};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Token;
use strata_spec::Datum;

use super::literal::{
    negate_number, parse_date, parse_number, parse_time, parse_timestamp, parse_timestamp_ltz,
};
use super::map_key::MapKeyRef;
use super::predicate::{LeafOp, LeafPredicate, Predicate};
use crate::error::ErrorDetail;
use crate::error::{Error, Result};

/// Why a piece of SQL was rejected (the caller prefixes the whole predicate text).
type Reject = String;

/// Parses a SQL boolean expression (a `WHERE` clause without `WHERE`) into a [`Predicate`].
pub fn parse_sql_predicate(text: &str) -> Result<Predicate> {
    let fail = |reason: String| {
        Error::from(ErrorDetail::InvalidArgument(format!(
            "predicate `{}`: {reason}",
            text.trim()
        )))
    };
    let dialect = GenericDialect {};
    let mut parser = Parser::new(&dialect)
        .try_with_sql(text)
        .map_err(|e| fail(format!("cannot parse: {e}")))?;
    let expr = parser
        .parse_expr()
        .map_err(|e| fail(format!("cannot parse: {e}")))?;
    let next = parser.peek_token();
    if next.token != Token::EOF {
        return Err(fail(format!("unexpected `{}` after `{expr}`", next.token)));
    }
    convert(&expr).map_err(fail)
}

const SUPPORTED: &str = "supported: comparisons of a column with a literal, AND/OR/NOT, \
    [NOT] IN (...), [NOT] BETWEEN, IS [NOT] NULL, [NOT] LIKE 'prefix%'";

fn convert(e: &Expr) -> Result<Predicate, Reject> {
    match e {
        Expr::Nested(inner) => convert(inner),
        Expr::BinaryOp { op, .. } if matches!(op, BinaryOperator::And | BinaryOperator::Or) => {
            let and = matches!(op, BinaryOperator::And);
            let children = flatten(e, op)
                .into_iter()
                .map(convert)
                .collect::<Result<Vec<_>, _>>()?;
            Ok(if and {
                Predicate::and(children)
            } else {
                Predicate::or(children)
            })
        }
        Expr::BinaryOp { left, op, right } => comparison(e, left, op, right),
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } => Ok(convert(expr)?.negate()),
        Expr::IsNull(x) => Ok(leaf(column(x)?, LeafOp::IsNull)),
        Expr::IsNotNull(x) => Ok(leaf(column(x)?, LeafOp::IsNotNull)),
        // `x IS TRUE` is never NULL: x IS NOT NULL AND x = TRUE.
        Expr::IsTrue(x) | Expr::IsFalse(x) | Expr::IsNotTrue(x) | Expr::IsNotFalse(x) => {
            let c = column(x)?;
            let want = matches!(e, Expr::IsTrue(_) | Expr::IsNotTrue(_));
            let p = Predicate::And(vec![
                leaf(c.clone(), LeafOp::IsNotNull),
                leaf(c, LeafOp::Equal(Datum::Boolean(want))),
            ]);
            Ok(if matches!(e, Expr::IsNotTrue(_) | Expr::IsNotFalse(_)) {
                p.negate()
            } else {
                p
            })
        }
        Expr::InSubquery { .. } | Expr::InUnnest { .. } => {
            Err(format!("only literal lists are supported in IN, got `{e}`"))
        }
        Expr::InList {
            expr,
            list: items,
            negated,
        } => {
            let c = column(expr)?;
            let mut list = Vec::with_capacity(items.len());
            for item in items {
                match literal(item)? {
                    Some(d) => list.push(d),
                    None => {
                        return Err(format!(
                            "NULL in `{e}` never matches; test NULL with `{c} IS NULL`"
                        ))
                    }
                }
            }
            Ok(leaf(
                c,
                if *negated {
                    LeafOp::NotIn(list)
                } else {
                    LeafOp::In(list)
                },
            ))
        }
        Expr::Between {
            expr,
            negated,
            low,
            high,
        } => {
            let c = column(expr)?;
            let low = non_null(e, low)?;
            let high = non_null(e, high)?;
            Ok(if *negated {
                Predicate::not_between(c, low, high)
            } else {
                Predicate::between(c, low, high)
            })
        }
        Expr::Like {
            negated,
            any: false,
            expr,
            pattern,
            escape_char: None,
        } => {
            let c = column(expr)?;
            let Some(Datum::String(pattern)) = literal(pattern)? else {
                return Err(format!("LIKE needs a string pattern, got `{pattern}`"));
            };
            let prefix = pattern
                .strip_suffix('%')
                .filter(|p| !p.contains(['%', '_']))
                .ok_or_else(|| {
                    format!(
                        "LIKE supports only 'prefix%' (a literal prefix and one trailing %), \
                         got `{e}`"
                    )
                })?;
            let op = if *negated {
                LeafOp::NotStartsWith(prefix.to_string())
            } else {
                LeafOp::StartsWith(prefix.to_string())
            };
            Ok(leaf(c, op))
        }
        Expr::Like { .. } => Err(format!(
            "LIKE supports only 'prefix%' (no ANY, no ESCAPE), got `{e}`"
        )),
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::CompoundFieldAccess { .. } => {
            Ok(leaf(column(e)?, LeafOp::Equal(Datum::Boolean(true))))
        }
        Expr::Value(v) => match &v.value {
            Value::Boolean(true) => Ok(Predicate::AlwaysTrue),
            Value::Boolean(false) => Ok(Predicate::AlwaysFalse),
            _ => Err(format!("`{e}` is not a condition")),
        },
        _ => Err(format!("unsupported expression `{e}`; {SUPPORTED}")),
    }
}

/// The operands of a chain of the same AND/OR operator, left to right, without recursion (long
/// chains are left-deep trees).
fn flatten<'a>(e: &'a Expr, op: &BinaryOperator) -> Vec<&'a Expr> {
    let mut out = Vec::new();
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        match x {
            Expr::BinaryOp { left, op: o, right } if o == op => {
                stack.push(right);
                stack.push(left);
            }
            other => out.push(other),
        }
    }
    out
}

fn leaf(column: String, op: LeafOp) -> Predicate {
    Predicate::Leaf(LeafPredicate { column, op })
}

/// An operand: a column name, or a literal (`None` = NULL).
enum Operand {
    Column(String),
    Literal(Option<Datum>),
}

fn operand(e: &Expr) -> Result<Operand, Reject> {
    match e {
        Expr::Nested(inner) => operand(inner),
        Expr::Identifier(id) => Ok(Operand::Column(id.value.clone())),
        Expr::CompoundFieldAccess { root, access_chain } => {
            map_key_access(e, root, access_chain).map(Operand::Column)
        }
        Expr::CompoundIdentifier(parts) => Err(format!(
            "qualified name `{e}` is not supported (nested fields cannot be filtered; \
             quote a column name containing dots, like \"{}\")",
            parts
                .iter()
                .map(|p| p.value.as_str())
                .collect::<Vec<_>>()
                .join(".")
        )),
        _ => literal(e).map(Operand::Literal),
    }
}

/// `m['k']` (a subscript of a column with a string literal) as the key-access column text
/// [`MapKeyRef::name`].
fn map_key_access(whole: &Expr, root: &Expr, chain: &[AccessExpr]) -> Result<String, Reject> {
    let bad = || {
        format!(
            "`{whole}` is not supported; MAP key access is written column['key'] \
             (one string literal key)"
        )
    };
    let (Expr::Identifier(column), [AccessExpr::Subscript(Subscript::Index { index })]) =
        (root, chain)
    else {
        return Err(bad());
    };
    match literal(index) {
        Ok(Some(Datum::String(key))) => Ok(MapKeyRef::new(column.value.clone(), key).name()),
        _ => Err(bad()),
    }
}

fn column(e: &Expr) -> Result<String, Reject> {
    match operand(e)? {
        Operand::Column(c) => Ok(c),
        Operand::Literal(_) => Err(format!("expected a column name, got `{e}`")),
    }
}

/// A literal that must not be NULL (`whole` is quoted in the error).
fn non_null(whole: &Expr, e: &Expr) -> Result<Datum, Reject> {
    literal(e)?.ok_or_else(|| format!("NULL bound in `{whole}` never matches"))
}

fn literal(e: &Expr) -> Result<Option<Datum>, Reject> {
    let bad = || format!("`{e}` is not a supported literal");
    match e {
        Expr::Nested(inner) => literal(inner),
        Expr::UnaryOp {
            op: op @ (UnaryOperator::Minus | UnaryOperator::Plus),
            expr,
        } => {
            let v = literal(expr)?.ok_or_else(bad)?;
            if matches!(op, UnaryOperator::Plus) {
                return match v {
                    Datum::String(_) | Datum::Boolean(_) => Err(bad()),
                    v => Ok(Some(v)),
                };
            }
            negate_number(v).map(Some).ok_or_else(bad)
        }
        Expr::Value(v) => Ok(Some(match &v.value {
            Value::Null => return Ok(None),
            Value::Number(text, _) => parse_number(text).ok_or_else(bad)?,
            Value::Boolean(b) => Datum::Boolean(*b),
            Value::HexStringLiteral(h) => Datum::Bytes(hex(h).ok_or_else(bad)?),
            other => match other.clone().into_string() {
                Some(s) => Datum::String(s),
                None => return Err(bad()),
            },
        })),
        Expr::TypedString(t) => {
            let text = t.value.clone().into_string().ok_or_else(bad)?;
            let typed = |v: Option<Datum>, what: &str| {
                v.ok_or_else(|| format!("`{e}` is not a valid {what} literal"))
            };
            Ok(Some(match &t.data_type {
                SqlType::Date => typed(parse_date(&text).map(Datum::Date), "DATE")?,
                SqlType::Time(_, TimezoneInfo::None | TimezoneInfo::WithoutTimeZone) => {
                    typed(parse_time(&text).map(Datum::Time), "TIME")?
                }
                SqlType::Timestamp(_, TimezoneInfo::None | TimezoneInfo::WithoutTimeZone)
                | SqlType::Datetime(_) => typed(
                    parse_timestamp(&text)
                        .map(|(millis, nanos)| Datum::Timestamp { millis, nanos }),
                    "TIMESTAMP",
                )?,
                SqlType::Timestamp(_, TimezoneInfo::WithTimeZone | TimezoneInfo::Tz) => typed(
                    parse_timestamp_ltz(&text)
                        .map(|(millis, nanos)| Datum::TimestampLtz { millis, nanos }),
                    "TIMESTAMP WITH TIME ZONE",
                )?,
                _ => return Err(format!("unsupported typed literal `{e}`")),
            }))
        }
        _ => Err(format!("expected a literal, got `{e}`")),
    }
}

fn hex(text: &str) -> Option<Vec<u8>> {
    text.as_bytes()
        .chunks(2)
        .map(|pair| match pair {
            [hi, lo] => {
                Some(((*hi as char).to_digit(16)? * 16 + (*lo as char).to_digit(16)?) as u8)
            }
            _ => None,
        })
        .collect()
}

fn comparison(
    whole: &Expr,
    left: &Expr,
    op: &BinaryOperator,
    right: &Expr,
) -> Result<Predicate, Reject> {
    use BinaryOperator as B;
    if !matches!(op, B::Eq | B::NotEq | B::Lt | B::LtEq | B::Gt | B::GtEq) {
        return Err(format!("unsupported operator in `{whole}`; {SUPPORTED}"));
    }
    let (col, lit, flipped) = match (operand(left)?, operand(right)?) {
        (Operand::Column(c), Operand::Literal(l)) => (c, l, false),
        (Operand::Literal(l), Operand::Column(c)) => (c, l, true),
        (Operand::Column(_), Operand::Column(_)) => {
            return Err(format!("comparing two columns is not supported: `{whole}`"))
        }
        (Operand::Literal(_), Operand::Literal(_)) => {
            return Err(format!(
                "`{whole}` compares two literals; a column is needed"
            ))
        }
    };
    let Some(lit) = lit else {
        let hint = match op {
            B::Eq => format!("; use `{col} IS NULL`"),
            B::NotEq => format!("; use `{col} IS NOT NULL`"),
            _ => String::new(),
        };
        return Err(format!(
            "`{whole}` is never true (comparison with NULL){hint}"
        ));
    };
    // `5 < x` is `x > 5`.
    let op = match (op, flipped) {
        (B::Lt, true) => B::Gt,
        (B::LtEq, true) => B::GtEq,
        (B::Gt, true) => B::Lt,
        (B::GtEq, true) => B::LtEq,
        (op, _) => op.clone(),
    };
    let op = match op {
        B::Eq => LeafOp::Equal(lit),
        B::NotEq => LeafOp::NotEqual(lit),
        B::Lt => LeafOp::LessThan(lit),
        B::LtEq => LeafOp::LessOrEqual(lit),
        B::Gt => LeafOp::GreaterThan(lit),
        _ => LeafOp::GreaterOrEqual(lit),
    };
    Ok(leaf(col, op))
}
