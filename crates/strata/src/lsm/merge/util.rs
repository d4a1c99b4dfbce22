//! Helpers shared by the merge engines: reading per-column options (`fields.<col>.<opt>`),
//! comparing and equating [`Value`]s the way Paimon's generated comparators and equalisers do,
//! and the NOT NULL check of initialised rows.

use crate::error::ErrorDetail;
use std::cmp::Ordering;

use strata_spec::options::CoreOptions;
use strata_spec::types::DataField;

use super::function::Value;
use crate::{Error, Result};

/// `fields.<column>.<suffix>`.
pub(crate) fn field_key(column: &str, suffix: &str) -> String {
    format!("fields.{column}.{suffix}")
}

/// A boolean option, `default` when unset; a bad value is an `ErrorDetail::InvalidOption`.
pub(crate) fn opt_bool(options: &CoreOptions, key: &str, default: bool) -> Result<bool> {
    options
        .get_bool(key)
        .map(|v| v.unwrap_or(default))
        .map_err(|e| {
            ErrorDetail::InvalidOption {
                key: key.to_string(),
                message: e.to_string(),
            }
            .into()
        })
}

/// `fields.<column>.aggregate-function`, else `fields.default-aggregate-function`.
pub(crate) fn configured_agg_func<'a>(options: &'a CoreOptions, column: &str) -> Option<&'a str> {
    options
        .get(&field_key(column, "aggregate-function"))
        .or_else(|| options.get("fields.default-aggregate-function"))
}

/// Total order of two values of one type with NULL first (ascending), as Paimon's generated
/// record comparators order sequence fields. Scalars use [`strata_spec::Datum::compare`];
/// arrays, maps and rows compare element-wise, then by length.
pub(crate) fn compare_values(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Less,
        (_, Value::Null) => Ordering::Greater,
        (Value::Scalar(x), Value::Scalar(y)) => x.compare(y).unwrap_or(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) | (Value::Row(x), Value::Row(y)) => x
            .iter()
            .zip(y)
            .map(|(p, q)| compare_values(p, q))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| x.len().cmp(&y.len())),
        (Value::Map(x), Value::Map(y)) => x
            .iter()
            .zip(y)
            .map(|((k1, v1), (k2, v2))| compare_values(k1, k2).then_with(|| compare_values(v1, v2)))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| x.len().cmp(&y.len())),
        // Different shapes never meet for values of one type.
        _ => Ordering::Equal,
    }
}

/// Lexicographic comparison of the `fields` of two rows, NULL first.
pub(crate) fn compare_fields(fields: &[usize], a: &[Value], b: &[Value]) -> Ordering {
    fields
        .iter()
        .map(|&i| compare_values(&a[i], &b[i]))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// Value equality as Java's equals/equalisers see it: floats compare by bits (NaN equals NaN,
/// -0.0 differs from 0.0), everything else structurally.
pub(crate) fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Scalar(x), Value::Scalar(y)) => x.compare(y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) | (Value::Row(x), Value::Row(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| values_equal(p, q))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k1, v1), (k2, v2))| values_equal(k1, k2) && values_equal(v1, v2))
        }
        (Value::Null, Value::Null) => true,
        _ => false,
    }
}

/// A copy of `input` as a new accumulated row; NULL in a NOT NULL column is an error
/// (Java `initRow`: "Field i can not be null").
pub(crate) fn init_row(fields: &[DataField], input: &[Value]) -> Result<Vec<Value>> {
    for (i, (f, v)) in fields.iter().zip(input).enumerate() {
        if !f.data_type.nullable && *v == Value::Null {
            return Err(null_in_not_null(i, f));
        }
    }
    Ok(input.to_vec())
}

pub(crate) fn null_in_not_null(index: usize, field: &DataField) -> Error {
    ErrorDetail::SchemaMismatch {
        column: field.name.clone(),
        message: format!("Field {index} can not be null"),
    }
    .into()
}

/// The rows of a group, checked to be present and to have one value per column.
pub(crate) fn group_values(
    values: Option<&[Vec<Value>]>,
    metas: usize,
    columns: usize,
) -> Result<&[Vec<Value>]> {
    let values = values.ok_or_else(|| {
        Error::from(ErrorDetail::InvalidArgument(
            "this merge engine needs the value columns of a group".into(),
        ))
    })?;
    if values.len() != metas || values.iter().any(|r| r.len() != columns) {
        return Err(ErrorDetail::InvalidArgument(format!(
            "a group of {metas} records needs {metas} rows of {columns} values"
        ))
        .into());
    }
    Ok(values)
}
