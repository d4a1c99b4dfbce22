//! The serialized form of a pushed strata [`Predicate`] inside a shipped scan: a mirror of
//! the predicate tree with every literal tagged by its kind, so that it decodes to exactly the
//! predicate that was planned (the SQL text would lose literal kinds: `0.0` reads back as an
//! integer).

use serde::{Deserialize, Serialize};
use strata::expr::{LeafOp, LeafPredicate, Predicate};
use strata::spec::Datum;

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub(crate) enum PredicateWire {
    AlwaysTrue,
    AlwaysFalse,
    Leaf { column: String, op: OpWire },
    And { children: Vec<PredicateWire> },
    Or { children: Vec<PredicateWire> },
    Not { child: Box<PredicateWire> },
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "op", content = "values")]
pub(crate) enum OpWire {
    Equal(DatumWire),
    NotEqual(DatumWire),
    LessThan(DatumWire),
    LessOrEqual(DatumWire),
    GreaterThan(DatumWire),
    GreaterOrEqual(DatumWire),
    IsNull,
    IsNotNull,
    In(Vec<DatumWire>),
    NotIn(Vec<DatumWire>),
    StartsWith(String),
    NotStartsWith(String),
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "type", content = "value")]
pub(crate) enum DatumWire {
    Boolean(bool),
    TinyInt(i8),
    SmallInt(i16),
    Int(i32),
    BigInt(i64),
    /// IEEE bits, so NaN and -0.0 travel exactly.
    Float(u32),
    Double(u64),
    /// Unscaled value as decimal text (beyond JSON's integers), precision, scale.
    Decimal(String, u32, u32),
    String(String),
    Bytes(Vec<u8>),
    Date(i32),
    Time(i32),
    Timestamp(i64, i32),
    TimestampLtz(i64, i32),
}

impl From<&Datum> for DatumWire {
    fn from(d: &Datum) -> Self {
        match d {
            Datum::Boolean(v) => DatumWire::Boolean(*v),
            Datum::TinyInt(v) => DatumWire::TinyInt(*v),
            Datum::SmallInt(v) => DatumWire::SmallInt(*v),
            Datum::Int(v) => DatumWire::Int(*v),
            Datum::BigInt(v) => DatumWire::BigInt(*v),
            Datum::Float(v) => DatumWire::Float(v.to_bits()),
            Datum::Double(v) => DatumWire::Double(v.to_bits()),
            Datum::Decimal {
                unscaled,
                precision,
                scale,
            } => DatumWire::Decimal(unscaled.to_string(), *precision, *scale),
            Datum::String(v) => DatumWire::String(v.clone()),
            Datum::Bytes(v) => DatumWire::Bytes(v.clone()),
            Datum::Date(v) => DatumWire::Date(*v),
            Datum::Time(v) => DatumWire::Time(*v),
            Datum::Timestamp { millis, nanos } => DatumWire::Timestamp(*millis, *nanos),
            Datum::TimestampLtz { millis, nanos } => DatumWire::TimestampLtz(*millis, *nanos),
        }
    }
}

impl DatumWire {
    fn to_datum(&self) -> Result<Datum, String> {
        Ok(match self {
            DatumWire::Boolean(v) => Datum::Boolean(*v),
            DatumWire::TinyInt(v) => Datum::TinyInt(*v),
            DatumWire::SmallInt(v) => Datum::SmallInt(*v),
            DatumWire::Int(v) => Datum::Int(*v),
            DatumWire::BigInt(v) => Datum::BigInt(*v),
            DatumWire::Float(b) => Datum::Float(f32::from_bits(*b)),
            DatumWire::Double(b) => Datum::Double(f64::from_bits(*b)),
            DatumWire::Decimal(u, precision, scale) => Datum::Decimal {
                unscaled: u
                    .parse()
                    .map_err(|_| format!("decimal literal {u:?} is not an integer"))?,
                precision: *precision,
                scale: *scale,
            },
            DatumWire::String(v) => Datum::String(v.clone()),
            DatumWire::Bytes(v) => Datum::Bytes(v.clone()),
            DatumWire::Date(v) => Datum::Date(*v),
            DatumWire::Time(v) => Datum::Time(*v),
            DatumWire::Timestamp(millis, nanos) => Datum::Timestamp {
                millis: *millis,
                nanos: *nanos,
            },
            DatumWire::TimestampLtz(millis, nanos) => Datum::TimestampLtz {
                millis: *millis,
                nanos: *nanos,
            },
        })
    }
}

fn datums(list: &[DatumWire]) -> Result<Vec<Datum>, String> {
    list.iter().map(DatumWire::to_datum).collect()
}

impl From<&Predicate> for PredicateWire {
    fn from(p: &Predicate) -> Self {
        match p {
            Predicate::AlwaysTrue => PredicateWire::AlwaysTrue,
            Predicate::AlwaysFalse => PredicateWire::AlwaysFalse,
            Predicate::Leaf(l) => PredicateWire::Leaf {
                column: l.column.clone(),
                op: match &l.op {
                    LeafOp::Equal(d) => OpWire::Equal(d.into()),
                    LeafOp::NotEqual(d) => OpWire::NotEqual(d.into()),
                    LeafOp::LessThan(d) => OpWire::LessThan(d.into()),
                    LeafOp::LessOrEqual(d) => OpWire::LessOrEqual(d.into()),
                    LeafOp::GreaterThan(d) => OpWire::GreaterThan(d.into()),
                    LeafOp::GreaterOrEqual(d) => OpWire::GreaterOrEqual(d.into()),
                    LeafOp::IsNull => OpWire::IsNull,
                    LeafOp::IsNotNull => OpWire::IsNotNull,
                    LeafOp::In(v) => OpWire::In(v.iter().map(Into::into).collect()),
                    LeafOp::NotIn(v) => OpWire::NotIn(v.iter().map(Into::into).collect()),
                    LeafOp::StartsWith(s) => OpWire::StartsWith(s.clone()),
                    LeafOp::NotStartsWith(s) => OpWire::NotStartsWith(s.clone()),
                },
            },
            Predicate::And(c) => PredicateWire::And {
                children: c.iter().map(Into::into).collect(),
            },
            Predicate::Or(c) => PredicateWire::Or {
                children: c.iter().map(Into::into).collect(),
            },
            Predicate::Not(c) => PredicateWire::Not {
                child: Box::new(c.as_ref().into()),
            },
        }
    }
}

impl PredicateWire {
    pub(crate) fn to_predicate(&self) -> Result<Predicate, String> {
        Ok(match self {
            PredicateWire::AlwaysTrue => Predicate::AlwaysTrue,
            PredicateWire::AlwaysFalse => Predicate::AlwaysFalse,
            PredicateWire::Leaf { column, op } => Predicate::Leaf(LeafPredicate {
                column: column.clone(),
                op: match op {
                    OpWire::Equal(d) => LeafOp::Equal(d.to_datum()?),
                    OpWire::NotEqual(d) => LeafOp::NotEqual(d.to_datum()?),
                    OpWire::LessThan(d) => LeafOp::LessThan(d.to_datum()?),
                    OpWire::LessOrEqual(d) => LeafOp::LessOrEqual(d.to_datum()?),
                    OpWire::GreaterThan(d) => LeafOp::GreaterThan(d.to_datum()?),
                    OpWire::GreaterOrEqual(d) => LeafOp::GreaterOrEqual(d.to_datum()?),
                    OpWire::IsNull => LeafOp::IsNull,
                    OpWire::IsNotNull => LeafOp::IsNotNull,
                    OpWire::In(v) => LeafOp::In(datums(v)?),
                    OpWire::NotIn(v) => LeafOp::NotIn(datums(v)?),
                    OpWire::StartsWith(s) => LeafOp::StartsWith(s.clone()),
                    OpWire::NotStartsWith(s) => LeafOp::NotStartsWith(s.clone()),
                },
            }),
            PredicateWire::And { children } => Predicate::And(
                children
                    .iter()
                    .map(PredicateWire::to_predicate)
                    .collect::<Result<_, _>>()?,
            ),
            PredicateWire::Or { children } => Predicate::Or(
                children
                    .iter()
                    .map(PredicateWire::to_predicate)
                    .collect::<Result<_, _>>()?,
            ),
            PredicateWire::Not { child } => Predicate::Not(Box::new(child.to_predicate()?)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicates_round_trip_exactly() {
        let p = Predicate::and([
            Predicate::less_than("v", Datum::Double(0.0)),
            Predicate::or([
                Predicate::is_in("id", vec![Datum::BigInt(1), Datum::Float(f32::NAN)]),
                Predicate::equal(
                    "d",
                    Datum::Decimal {
                        unscaled: i128::MAX,
                        precision: 38,
                        scale: 2,
                    },
                ),
                Predicate::starts_with("s", "a'b"),
            ]),
            Predicate::Not(Box::new(Predicate::is_null("m['k']"))),
        ]);
        let json = serde_json::to_string(&PredicateWire::from(&p)).unwrap();
        let back: PredicateWire = serde_json::from_str(&json).unwrap();
        let back = back.to_predicate().unwrap();
        // NaN != NaN, so compare the serialized forms.
        assert_eq!(
            serde_json::to_string(&PredicateWire::from(&back)).unwrap(),
            json
        );
    }
}
