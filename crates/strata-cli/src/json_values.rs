//! Paimon values as JSON for the metadata commands (`files` partitions and keys):
//! integers and floats as numbers, booleans, strings; DECIMAL as a string (exact), DATE as
//! `YYYY-MM-DD`, TIMESTAMP as ISO text, bytes as `0x…` hex.

use serde_json::{json, Value};
use strata_spec::binary_row::BinaryRow;
use strata_spec::{DataType, Datum};

use crate::commands::Result;

pub fn datum_to_json(d: &Datum) -> Value {
    match d {
        Datum::Boolean(v) => json!(v),
        Datum::TinyInt(v) => json!(v),
        Datum::SmallInt(v) => json!(v),
        Datum::Int(v) => json!(v),
        Datum::BigInt(v) => json!(v),
        Datum::Float(v) => serde_json::Number::from_f64(*v as f64).map(Value::Number).unwrap_or_else(|| json!(v.to_string())),
        Datum::Double(v) => serde_json::Number::from_f64(*v).map(Value::Number).unwrap_or_else(|| json!(v.to_string())),
        other => Value::String(other.to_string()),
    }
}

/// A key BinaryRow as a JSON array of its values (empty for append-table files).
pub fn key_to_json(row: &BinaryRow, types: &[DataType]) -> Result<Value> {
    if row.arity() == 0 {
        return Ok(Value::Array(Vec::new()));
    }
    if row.arity() != types.len() {
        return Ok(Value::Null);
    }
    let values = row.to_datums(types).map_err(strata::Error::from)?;
    Ok(Value::Array(
        values
            .iter()
            .map(|v| v.as_ref().map(datum_to_json).unwrap_or(Value::Null))
            .collect(),
    ))
}
