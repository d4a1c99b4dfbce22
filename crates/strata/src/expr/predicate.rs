//! The unbound [`Predicate`] AST: column names and literal [`Datum`]s, as a user writes them
//! (through the builder functions, named after pypaimon's `PredicateBuilder`, or through
//! [`super::parse_sql_predicate`]).
//!
//! Literals are not yet checked against any schema; [`Predicate::bind`](super::bound) resolves
//! names and converts literals to the column types.

use std::fmt;

use strata_spec::datum::decimal_to_string;
use strata_spec::Datum;

use super::ident::write_ident;

/// A filter over the rows of a table, before binding to a schema.
///
/// Paimon's vocabulary: a [`LeafPredicate`] tests one column; `And`/`Or` are Paimon's
/// `CompoundPredicate`. `Not` is kept here for convenience and pushed down to the leaves on
/// binding (every [`LeafOp`] has a negation), so bound predicates contain no `Not`.
#[derive(Clone, Debug, PartialEq)]
pub enum Predicate {
    /// Matches every row.
    AlwaysTrue,
    /// Matches no row.
    AlwaysFalse,
    /// A test on one column (Paimon's `LeafPredicate`).
    Leaf(LeafPredicate),
    /// All children hold (an empty list holds).
    And(Vec<Predicate>),
    /// At least one child holds (an empty list does not hold).
    Or(Vec<Predicate>),
    /// The child does not hold; removed on binding by negating the leaves below it.
    Not(Box<Predicate>),
}

/// A test on one column.
#[derive(Clone, Debug, PartialEq)]
pub struct LeafPredicate {
    /// Column name (matched exactly first, then case-insensitively when unambiguous).
    pub column: String,
    /// The test applied to the column's values.
    pub op: LeafOp,
}

/// The test a leaf applies to its column, with its literal(s). Literals are never NULL
/// (SQL comparisons with NULL are never true; use [`LeafOp::IsNull`]).
///
/// SQL three-valued semantics: a comparison on a NULL column value is unknown (the row is not
/// selected), except `IsNull`/`IsNotNull` which are always true or false.
#[derive(Clone, Debug, PartialEq)]
pub enum LeafOp {
    /// `column = literal` (Paimon's `Equal`).
    Equal(Datum),
    /// `column <> literal` (Paimon's `NotEqual`).
    NotEqual(Datum),
    /// `column < literal` (Paimon's `LessThan`).
    LessThan(Datum),
    /// `column <= literal` (Paimon's `LessOrEqual`).
    LessOrEqual(Datum),
    /// `column > literal` (Paimon's `GreaterThan`).
    GreaterThan(Datum),
    /// `column >= literal` (Paimon's `GreaterOrEqual`).
    GreaterOrEqual(Datum),
    /// `column IS NULL` (Paimon's `IsNull`): true exactly for NULL values.
    IsNull,
    /// `column IS NOT NULL` (Paimon's `IsNotNull`): true exactly for non-NULL values.
    IsNotNull,
    /// Equal to one of the literals; an empty list matches nothing.
    In(Vec<Datum>),
    /// Equal to none of the literals; an empty list matches everything.
    NotIn(Vec<Datum>),
    /// String starts with the prefix (`LIKE 'prefix%'`).
    StartsWith(String),
    /// String does not start with the prefix (`NOT LIKE 'prefix%'`).
    NotStartsWith(String),
}

impl LeafOp {
    /// The test that is true exactly when this one is false (for a non-NULL value; NULL stays
    /// unknown for comparisons, and flips for `IsNull`/`IsNotNull`).
    pub fn negate(&self) -> LeafOp {
        match self {
            LeafOp::Equal(v) => LeafOp::NotEqual(v.clone()),
            LeafOp::NotEqual(v) => LeafOp::Equal(v.clone()),
            LeafOp::LessThan(v) => LeafOp::GreaterOrEqual(v.clone()),
            LeafOp::LessOrEqual(v) => LeafOp::GreaterThan(v.clone()),
            LeafOp::GreaterThan(v) => LeafOp::LessOrEqual(v.clone()),
            LeafOp::GreaterOrEqual(v) => LeafOp::LessThan(v.clone()),
            LeafOp::IsNull => LeafOp::IsNotNull,
            LeafOp::IsNotNull => LeafOp::IsNull,
            LeafOp::In(l) => LeafOp::NotIn(l.clone()),
            LeafOp::NotIn(l) => LeafOp::In(l.clone()),
            LeafOp::StartsWith(p) => LeafOp::NotStartsWith(p.clone()),
            LeafOp::NotStartsWith(p) => LeafOp::StartsWith(p.clone()),
        }
    }

    /// Paimon's name of the leaf function (`Equal`, `LessThan`, `In`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            LeafOp::Equal(_) => "Equal",
            LeafOp::NotEqual(_) => "NotEqual",
            LeafOp::LessThan(_) => "LessThan",
            LeafOp::LessOrEqual(_) => "LessOrEqual",
            LeafOp::GreaterThan(_) => "GreaterThan",
            LeafOp::GreaterOrEqual(_) => "GreaterOrEqual",
            LeafOp::IsNull => "IsNull",
            LeafOp::IsNotNull => "IsNotNull",
            LeafOp::In(_) => "In",
            LeafOp::NotIn(_) => "NotIn",
            LeafOp::StartsWith(_) => "StartsWith",
            LeafOp::NotStartsWith(_) => "NotStartsWith",
        }
    }
}

fn leaf(column: impl Into<String>, op: LeafOp) -> Predicate {
    Predicate::Leaf(LeafPredicate {
        column: column.into(),
        op,
    })
}

/// Builder functions (pypaimon's `PredicateBuilder` names).
impl Predicate {
    /// `column = literal`.
    pub fn equal(column: impl Into<String>, literal: Datum) -> Predicate {
        leaf(column, LeafOp::Equal(literal))
    }
    /// `column <> literal`.
    pub fn not_equal(column: impl Into<String>, literal: Datum) -> Predicate {
        leaf(column, LeafOp::NotEqual(literal))
    }
    /// `column < literal`.
    pub fn less_than(column: impl Into<String>, literal: Datum) -> Predicate {
        leaf(column, LeafOp::LessThan(literal))
    }
    /// `column <= literal`.
    pub fn less_or_equal(column: impl Into<String>, literal: Datum) -> Predicate {
        leaf(column, LeafOp::LessOrEqual(literal))
    }
    /// `column > literal`.
    pub fn greater_than(column: impl Into<String>, literal: Datum) -> Predicate {
        leaf(column, LeafOp::GreaterThan(literal))
    }
    /// `column >= literal`.
    pub fn greater_or_equal(column: impl Into<String>, literal: Datum) -> Predicate {
        leaf(column, LeafOp::GreaterOrEqual(literal))
    }
    /// `column IS NULL`.
    pub fn is_null(column: impl Into<String>) -> Predicate {
        leaf(column, LeafOp::IsNull)
    }
    /// `column IS NOT NULL`.
    pub fn is_not_null(column: impl Into<String>) -> Predicate {
        leaf(column, LeafOp::IsNotNull)
    }
    /// `column IN (literals…)`; an empty list matches nothing.
    pub fn is_in(column: impl Into<String>, literals: Vec<Datum>) -> Predicate {
        leaf(column, LeafOp::In(literals))
    }
    /// `column NOT IN (literals…)`; an empty list matches every row.
    pub fn is_not_in(column: impl Into<String>, literals: Vec<Datum>) -> Predicate {
        leaf(column, LeafOp::NotIn(literals))
    }
    /// `low <= column AND column <= high` (inclusive, as SQL `BETWEEN`).
    pub fn between(column: impl Into<String>, low: Datum, high: Datum) -> Predicate {
        let column = column.into();
        Predicate::And(vec![
            Predicate::greater_or_equal(column.clone(), low),
            Predicate::less_or_equal(column, high),
        ])
    }
    /// `column < low OR column > high` (SQL `NOT BETWEEN`).
    pub fn not_between(column: impl Into<String>, low: Datum, high: Datum) -> Predicate {
        let column = column.into();
        Predicate::Or(vec![
            Predicate::less_than(column.clone(), low),
            Predicate::greater_than(column, high),
        ])
    }
    /// `column LIKE 'prefix%'`: string values starting with `prefix` (pypaimon's `startswith`).
    pub fn starts_with(column: impl Into<String>, prefix: impl Into<String>) -> Predicate {
        leaf(column, LeafOp::StartsWith(prefix.into()))
    }
    /// Conjunction of the given predicates (flattens nested `And`s).
    pub fn and(predicates: impl IntoIterator<Item = Predicate>) -> Predicate {
        let mut out = Vec::new();
        for p in predicates {
            match p {
                Predicate::And(children) => out.extend(children),
                other => out.push(other),
            }
        }
        if out.len() == 1 {
            out.pop().expect("length checked to be 1")
        } else {
            Predicate::And(out)
        }
    }
    /// Disjunction of the given predicates (flattens nested `Or`s).
    pub fn or(predicates: impl IntoIterator<Item = Predicate>) -> Predicate {
        let mut out = Vec::new();
        for p in predicates {
            match p {
                Predicate::Or(children) => out.extend(children),
                other => out.push(other),
            }
        }
        if out.len() == 1 {
            out.pop().expect("length checked to be 1")
        } else {
            Predicate::Or(out)
        }
    }
    /// Logical negation (SQL `NOT`).
    pub fn negate(self) -> Predicate {
        match self {
            Predicate::Not(inner) => *inner,
            Predicate::AlwaysTrue => Predicate::AlwaysFalse,
            Predicate::AlwaysFalse => Predicate::AlwaysTrue,
            other => Predicate::Not(Box::new(other)),
        }
    }
}

impl std::ops::Not for Predicate {
    type Output = Predicate;
    fn not(self) -> Predicate {
        self.negate()
    }
}

/// SQL literal text of a datum, in the form [`super::parse_sql_predicate`] reads back.
pub fn sql_literal(d: &Datum) -> String {
    match d {
        Datum::Boolean(b) => if *b { "TRUE" } else { "FALSE" }.to_string(),
        Datum::TinyInt(v) => v.to_string(),
        Datum::SmallInt(v) => v.to_string(),
        Datum::Int(v) => v.to_string(),
        Datum::BigInt(v) => v.to_string(),
        Datum::Float(v) if v.is_finite() => format!("{v}"),
        Datum::Double(v) if v.is_finite() => format!("{v}"),
        Datum::Float(v) => quote(&v.to_string()),
        Datum::Double(v) => quote(&v.to_string()),
        Datum::Decimal {
            unscaled, scale, ..
        } => decimal_to_string(*unscaled, *scale),
        Datum::String(s) => quote(s),
        Datum::Bytes(b) => {
            let mut s = String::from("X'");
            for x in b {
                s.push_str(&format!("{x:02X}"));
            }
            s.push('\'');
            s
        }
        Datum::Date(_) => format!("DATE '{d}'"),
        Datum::Time(ms) => {
            let (h, m, s, f) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
            format!("TIME '{h:02}:{m:02}:{s:02}.{f:03}'")
        }
        Datum::Timestamp { millis, nanos } => {
            format!("TIMESTAMP '{}'", timestamp_text(*millis, *nanos))
        }
        Datum::TimestampLtz { millis, nanos } => format!(
            "TIMESTAMP WITH TIME ZONE '{}+00:00'",
            timestamp_text(*millis, *nanos)
        ),
    }
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// `YYYY-MM-DD HH:MM:SS.fffffffff` of an epoch-millis + nanos-of-milli pair (UTC wall clock).
fn timestamp_text(millis: i64, nanos: i32) -> String {
    let secs = millis.div_euclid(1000);
    let sub = (millis.rem_euclid(1000) as u32) * 1_000_000 + nanos.clamp(0, 999_999) as u32;
    match chrono::DateTime::from_timestamp(secs, sub) {
        Some(t) => t.naive_utc().format("%Y-%m-%d %H:%M:%S%.9f").to_string(),
        None => millis.to_string(),
    }
}

/// Writes `column <op> literal` for one leaf; shared by bound and unbound predicates.
pub(crate) fn write_leaf(f: &mut fmt::Formatter<'_>, column: &str, op: &LeafOp) -> fmt::Result {
    // A key access in canonical form is written as is (`m['k']`), any other name as an ident.
    match super::map_key::MapKeyRef::parse(column) {
        Some(r) if r.name() == column => f.write_str(column)?,
        _ => write_ident(f, column)?,
    }
    let list = |f: &mut fmt::Formatter<'_>, l: &[Datum]| -> fmt::Result {
        f.write_str("(")?;
        for (i, d) in l.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(&sql_literal(d))?;
        }
        f.write_str(")")
    };
    match op {
        LeafOp::Equal(v) => write!(f, " = {}", sql_literal(v)),
        LeafOp::NotEqual(v) => write!(f, " <> {}", sql_literal(v)),
        LeafOp::LessThan(v) => write!(f, " < {}", sql_literal(v)),
        LeafOp::LessOrEqual(v) => write!(f, " <= {}", sql_literal(v)),
        LeafOp::GreaterThan(v) => write!(f, " > {}", sql_literal(v)),
        LeafOp::GreaterOrEqual(v) => write!(f, " >= {}", sql_literal(v)),
        LeafOp::IsNull => f.write_str(" IS NULL"),
        LeafOp::IsNotNull => f.write_str(" IS NOT NULL"),
        LeafOp::In(l) => {
            f.write_str(" IN ")?;
            list(f, l)
        }
        LeafOp::NotIn(l) => {
            f.write_str(" NOT IN ")?;
            list(f, l)
        }
        LeafOp::StartsWith(p) => write!(f, " LIKE {}", quote(&format!("{p}%"))),
        LeafOp::NotStartsWith(p) => write!(f, " NOT LIKE {}", quote(&format!("{p}%"))),
    }
}

/// Writes `children` joined by `sep`, each parenthesized when it is itself compound.
pub(crate) fn write_joined<T: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    children: &[T],
    sep: &str,
    empty: &str,
    is_compound: impl Fn(&T) -> bool,
) -> fmt::Result {
    if children.is_empty() {
        return f.write_str(empty);
    }
    for (i, c) in children.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        if is_compound(c) {
            write!(f, "({c})")?;
        } else {
            write!(f, "{c}")?;
        }
    }
    Ok(())
}

impl fmt::Display for Predicate {
    /// SQL text that [`super::parse_sql_predicate`] reads back to an equivalent predicate.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let compound = |p: &Predicate| matches!(p, Predicate::And(_) | Predicate::Or(_));
        match self {
            Predicate::AlwaysTrue => f.write_str("TRUE"),
            Predicate::AlwaysFalse => f.write_str("FALSE"),
            Predicate::Leaf(l) => write_leaf(f, &l.column, &l.op),
            Predicate::And(c) => write_joined(f, c, " AND ", "TRUE", compound),
            Predicate::Or(c) => write_joined(f, c, " OR ", "FALSE", compound),
            Predicate::Not(inner) => {
                if matches!(**inner, Predicate::Leaf(_) | Predicate::Not(_)) {
                    write!(f, "NOT {inner}")
                } else {
                    write!(f, "NOT ({inner})")
                }
            }
        }
    }
}
