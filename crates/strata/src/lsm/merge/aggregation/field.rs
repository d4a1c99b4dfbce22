//! One column's aggregator (Java `FieldAggregator` and its `FieldAggregatorFactory` list):
//! choosing it by name with the factory's type checks, and `agg`, `aggReversed` and `retract`
//! for every function. The collection functions live in [`super::nested`], the arithmetic in
//! [`super::numeric`].
//!
//! Java aggregators keep per-key state only in `first_value` / `first_non_null_value` (an
//! "initialized" flag reset per key); here that flag is passed in by the merge function, so an
//! aggregator is immutable and shared.

use crate::error::ErrorDetail;
use strata_spec::options::CoreOptions;
use strata_spec::types::{DataType, TypeKind, MAX_LENGTH};
use strata_spec::Datum;

use super::nested::{self, NestedSpec};
use super::numeric::{self, Op};
use crate::lsm::merge::function::Value;
use crate::lsm::merge::util::{compare_values, field_key, opt_bool};
use crate::{Error, Result};

/// Every function name Paimon registers (`META-INF/services`), for error messages.
pub(crate) const FUNCTION_NAMES: &[&str] = &[
    "bool_and",
    "bool_or",
    "collect",
    "first_non_null_value",
    "first_not_null_value",
    "first_value",
    "hll_sketch",
    "last_non_null_value",
    "last_value",
    "listagg",
    "max",
    "merge_map",
    "merge_map_with_keytime",
    "min",
    "nested_update",
    "nested_partial_update",
    "primary-key",
    "product",
    "rbm32",
    "rbm64",
    "sum",
    "theta_sketch",
];

#[derive(Debug, Clone)]
pub(crate) enum AggKind {
    PrimaryKey,
    Sum,
    Product,
    Min,
    Max,
    LastValue,
    LastNonNullValue,
    FirstValue,
    FirstNonNullValue,
    BoolAnd,
    BoolOr,
    ListAgg { delimiter: String, distinct: bool },
    Collect { distinct: bool, equaliser: bool },
    MergeMap,
    MergeMapWithKeyTime { ts_index: usize },
    NestedUpdate(NestedSpec),
    NestedPartialUpdate(NestedSpec),
}

/// The aggregator of one column.
#[derive(Debug, Clone)]
pub(crate) struct FieldAggregator {
    /// Function identifier as configured (error messages name it).
    pub(crate) function: String,
    pub(crate) column: String,
    pub(crate) kind: AggKind,
    /// `fields.<col>.ignore-retract` (Java `FieldIgnoreRetractAgg`).
    pub(crate) ignore_retract: bool,
}

fn is_numeric(t: &DataType) -> bool {
    matches!(
        t.kind,
        TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Float
            | TypeKind::Double
            | TypeKind::Decimal { .. }
    )
}

fn is_comparable(t: &DataType) -> bool {
    !matches!(
        t.kind,
        TypeKind::Map { .. }
            | TypeKind::Multiset(_)
            | TypeKind::Row(_)
            | TypeKind::Array(_)
            | TypeKind::Variant
            | TypeKind::Blob
    )
}

impl FieldAggregator {
    /// Java `FieldAggregatorFactory.create`: the aggregator `function` for `column` of
    /// `data_type`, with the factory's type checks and the ignore-retract wrapper.
    pub(crate) fn create(
        data_type: &DataType,
        column: &str,
        function: &str,
        options: &CoreOptions,
    ) -> Result<Self> {
        let agg_key = field_key(column, "aggregate-function");
        let bad = |message: String| {
            Error::from(ErrorDetail::InvalidOption {
                key: agg_key.clone(),
                message,
            })
        };
        if !FUNCTION_NAMES.contains(&function) {
            return Err(bad(format!(
                "Use unsupported aggregation: {function} or spell aggregate function incorrectly! \
                 (available: {})",
                FUNCTION_NAMES.join(", ")
            )));
        }
        let remove_on_delete = opt_bool(options, "aggregation.remove-record-on-delete", false)?;
        let ignore_key = field_key(column, "ignore-retract");
        let ignore_retract = opt_bool(options, &ignore_key, false)?;
        if remove_on_delete && ignore_retract {
            return Err(ErrorDetail::InvalidOption {
                key: ignore_key.clone(),
                message: format!(
                    "aggregation.remove-record-on-delete and {ignore_key} have conflicting \
                     behavior so should not be enabled at the same time."
                ),
            }
            .into());
        }
        let check = |ok: bool, message: String| if ok { Ok(()) } else { Err(bad(message)) };
        let kind = match function {
            "primary-key" => AggKind::PrimaryKey,
            "sum" | "product" => {
                check(
                    is_numeric(data_type),
                    format!(
                        "Data type for {function} column must be 'NumericType' but was '{data_type}'."
                    ),
                )?;
                if function == "sum" {
                    AggKind::Sum
                } else {
                    AggKind::Product
                }
            }
            "min" | "max" => {
                check(
                    is_comparable(data_type),
                    format!(
                        "Data type for {function} column '{column}' must be comparable but was '{data_type}'."
                    ),
                )?;
                if function == "min" {
                    AggKind::Min
                } else {
                    AggKind::Max
                }
            }
            "last_value" => AggKind::LastValue,
            "last_non_null_value" => AggKind::LastNonNullValue,
            "first_value" => AggKind::FirstValue,
            "first_non_null_value" | "first_not_null_value" => AggKind::FirstNonNullValue,
            "bool_and" | "bool_or" => {
                let word = if function == "bool_and" { "and" } else { "or" };
                check(
                    matches!(data_type.kind, TypeKind::Boolean),
                    format!(
                        "Data type for bool {word} column must be 'BooleanType' but was '{data_type}'."
                    ),
                )?;
                if function == "bool_and" {
                    AggKind::BoolAnd
                } else {
                    AggKind::BoolOr
                }
            }
            "listagg" => {
                let TypeKind::VarChar(len) = data_type.kind else {
                    return Err(bad(format!(
                        "Data type for list agg column must be 'VarCharType' but was '{data_type}'."
                    )));
                };
                check(
                    len == MAX_LENGTH,
                    format!(
                        "Data type for list agg column must be STRING (unbounded VARCHAR), but was VARCHAR({len})."
                    ),
                )?;
                AggKind::ListAgg {
                    delimiter: options
                        .get(&field_key(column, "list-agg-delimiter"))
                        .unwrap_or(",")
                        .to_string(),
                    distinct: opt_bool(options, &field_key(column, "distinct"), false)?,
                }
            }
            "collect" => {
                let TypeKind::Array(element) = &data_type.kind else {
                    return Err(bad(format!(
                        "Data type for collect column must be 'Array' but was '{data_type}'."
                    )));
                };
                AggKind::Collect {
                    distinct: opt_bool(options, &field_key(column, "distinct"), false)?,
                    equaliser: nested::needs_equaliser(element),
                }
            }
            "merge_map" => {
                check(
                    matches!(data_type.kind, TypeKind::Map { .. }),
                    format!("Data type for merge map column must be 'MAP' but was '{data_type}'"),
                )?;
                AggKind::MergeMap
            }
            "merge_map_with_keytime" => AggKind::MergeMapWithKeyTime {
                ts_index: nested::keytime_ts_index(data_type, column, options).map_err(bad)?,
            },
            "nested_update" => AggKind::NestedUpdate(
                NestedSpec::new(data_type, column, options, false).map_err(bad)?,
            ),
            "nested_partial_update" => AggKind::NestedPartialUpdate(
                NestedSpec::new(data_type, column, options, true).map_err(bad)?,
            ),
            "hll_sketch" | "theta_sketch" | "rbm32" | "rbm64" => {
                let what = match function {
                    "hll_sketch" => "hll sketch",
                    "theta_sketch" => "theta sketch",
                    _ => "roaring bitmap",
                };
                check(
                    matches!(data_type.kind, TypeKind::VarBinary(_)),
                    format!(
                        "Data type for {what} column must be 'VarBinaryType' but was '{data_type}'."
                    ),
                )?;
                return Err(ErrorDetail::Unsupported(format!(
                    "aggregate function '{function}' (column {column}): its serialized sketch/bitmap \
                     format is not implemented"
                )).into());
            }
            other => return Err(bad(format!("Use unsupported aggregation: {other}"))),
        };
        Ok(FieldAggregator {
            function: function.to_string(),
            column: column.to_string(),
            kind,
            ignore_retract,
        })
    }

    fn arith_error(&self, message: String) -> Error {
        ErrorDetail::InvalidArgument(format!(
            "aggregate function '{}' on column {}: {message}",
            self.function, self.column
        ))
        .into()
    }

    /// `acc ⊕ input` for an add record. `initialized` is the per-key flag of the first_*
    /// functions.
    pub(crate) fn agg(&self, initialized: &mut bool, acc: Value, input: &Value) -> Result<Value> {
        use AggKind::*;
        Ok(match &self.kind {
            PrimaryKey | LastValue => input.clone(),
            LastNonNullValue => {
                if *input == Value::Null {
                    acc
                } else {
                    input.clone()
                }
            }
            FirstValue => {
                if *initialized {
                    acc
                } else {
                    *initialized = true;
                    input.clone()
                }
            }
            FirstNonNullValue => {
                if !*initialized && *input != Value::Null {
                    *initialized = true;
                    input.clone()
                } else {
                    acc
                }
            }
            Sum | Product | Min | Max | BoolAnd | BoolOr => {
                let (Value::Scalar(a), Value::Scalar(b)) = (&acc, input) else {
                    return Ok(if acc == Value::Null {
                        input.clone()
                    } else {
                        acc
                    });
                };
                match &self.kind {
                    Sum => numeric::apply(Op::Add, a, b).map_err(|m| self.arith_error(m))?,
                    Product => numeric::apply(Op::Mul, a, b).map_err(|m| self.arith_error(m))?,
                    Min => {
                        if compare_values(&acc, input).is_lt() {
                            acc
                        } else {
                            input.clone()
                        }
                    }
                    Max => {
                        if compare_values(&acc, input).is_lt() {
                            input.clone()
                        } else {
                            acc
                        }
                    }
                    _ => match (a, b) {
                        (Datum::Boolean(x), Datum::Boolean(y)) => {
                            let r = if matches!(self.kind, BoolAnd) {
                                *x && *y
                            } else {
                                *x || *y
                            };
                            Value::Scalar(Datum::Boolean(r))
                        }
                        _ => return Err(self.arith_error(format!("{a:?}, {b:?} are not booleans"))),
                    },
                }
            }
            ListAgg {
                delimiter,
                distinct,
            } => listagg(acc, input, delimiter, *distinct),
            Collect {
                distinct,
                equaliser,
            } => nested::collect(acc, input, *distinct, *equaliser),
            MergeMap => nested::merge_map(acc, input),
            MergeMapWithKeyTime { ts_index } => {
                nested::merge_map_with_keytime(acc, input, *ts_index)
            }
            NestedUpdate(spec) => spec.update(acc, input).map_err(|m| self.arith_error(m))?,
            NestedPartialUpdate(spec) => spec
                .partial_update(acc, input)
                .map_err(|m| self.arith_error(m))?,
        })
    }

    /// Java `aggReversed`: the input is older than the accumulator (partial-update sequence
    /// groups), so the roles swap; `collect` keeps its order.
    pub(crate) fn agg_reversed(
        &self,
        initialized: &mut bool,
        acc: Value,
        input: &Value,
    ) -> Result<Value> {
        if matches!(self.kind, AggKind::Collect { .. }) {
            return self.agg(initialized, acc, input);
        }
        self.agg(initialized, input.clone(), &acc)
    }

    /// Removes `input` from `acc` for a retract record.
    pub(crate) fn retract(&self, acc: Value, input: &Value) -> Result<Value> {
        use AggKind::*;
        if self.ignore_retract {
            return Ok(acc);
        }
        Ok(match &self.kind {
            PrimaryKey => input.clone(),
            LastValue => Value::Null,
            LastNonNullValue => {
                if *input == Value::Null {
                    acc
                } else {
                    Value::Null
                }
            }
            Sum => match (&acc, input) {
                (Value::Scalar(a), Value::Scalar(b)) => {
                    numeric::apply(Op::Sub, a, b).map_err(|m| self.arith_error(m))?
                }
                (Value::Null, Value::Scalar(b)) => {
                    numeric::negate(b).map_err(|m| self.arith_error(m))?
                }
                _ => acc,
            },
            Product => match (&acc, input) {
                (Value::Scalar(a), Value::Scalar(b)) => {
                    numeric::apply(Op::Div, a, b).map_err(|m| self.arith_error(m))?
                }
                _ => acc,
            },
            Collect { equaliser: _, .. } => nested::collect_retract(acc, input),
            MergeMap => nested::merge_map_retract(acc, input),
            NestedUpdate(spec) => spec.retract(acc, input).map_err(|m| self.arith_error(m))?,
            _ => {
                return Err(ErrorDetail::Unsupported(format!(
                    "Aggregate function '{}' does not support retraction, If you allow this \
                     function to ignore retraction messages, you can configure \
                     'fields.{}.ignore-retract'='true'.",
                    self.function, self.column
                ))
                .into())
            }
        })
    }
}

/// Java `StringUtils.isBlank`: empty or only whitespace.
fn is_blank(s: &str) -> bool {
    s.chars().all(char::is_whitespace)
}

fn as_str(v: &Value) -> Option<&str> {
    match v {
        Value::Scalar(Datum::String(s)) => Some(s),
        _ => None,
    }
}

/// Commons-lang `splitByWholeSeparatorPreserveAllTokens`: empty tokens kept; an empty
/// separator splits on whitespace.
fn split_preserve(s: &str, sep: &str) -> Vec<String> {
    if sep.is_empty() {
        s.split(char::is_whitespace).map(str::to_string).collect()
    } else {
        s.split(sep).map(str::to_string).collect()
    }
}

fn listagg(acc: Value, input: &Value, delimiter: &str, distinct: bool) -> Value {
    let Some(inp) = as_str(input).filter(|s| !is_blank(s)) else {
        return acc;
    };
    let Some(a) = as_str(&acc).filter(|s| !is_blank(s)) else {
        return input.clone();
    };
    if !distinct {
        return Value::Scalar(Datum::String(format!("{a}{delimiter}{inp}")));
    }
    let mut seen: Vec<String> = split_preserve(a, delimiter);
    let mut out = a.to_string();
    for token in split_preserve(inp, delimiter) {
        if is_blank(&token) || seen.contains(&token) {
            continue;
        }
        out.push_str(delimiter);
        out.push_str(&token);
        seen.push(token);
    }
    Value::Scalar(Datum::String(out))
}
