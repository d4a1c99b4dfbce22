//! Paimon values as JSON for the metadata commands (`files` partitions and keys):
//! integers and floats as numbers, booleans, strings; DECIMAL as a string (exact), DATE as
//! `YYYY-MM-DD`, TIMESTAMP as ISO text, bytes as `0x…` hex.

use arrow::array::*;
use arrow::datatypes::*;
use serde_json::{json, Value};
use strata_spec::binary_row::BinaryRow;
use strata_spec::{DataType, Datum};

use crate::error::Result;

pub fn datum_to_json(d: &Datum) -> Value {
    match d {
        Datum::Boolean(v) => json!(v),
        Datum::TinyInt(v) => json!(v),
        Datum::SmallInt(v) => json!(v),
        Datum::Int(v) => json!(v),
        Datum::BigInt(v) => json!(v),
        Datum::Float(v) => serde_json::Number::from_f64(*v as f64)
            .map(Value::Number)
            .unwrap_or_else(|| json!(v.to_string())),
        Datum::Double(v) => serde_json::Number::from_f64(*v)
            .map(Value::Number)
            .unwrap_or_else(|| json!(v.to_string())),
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

/// One Arrow cell as canonical JSON (the encoding of `strata read --format jsonl`):
/// DECIMAL as a string keeping its scale, TIMESTAMP as `YYYY-MM-DDTHH:MM:SS.ffffff` (9 digits
/// for nanosecond precision; LTZ in UTC with `Z`), DATE `YYYY-MM-DD`, TIME `HH:MM:SS.ffffff`,
/// binary as `0x…`, NaN/±Infinity as strings, MAP as a list of `[key, value]` pairs, ARRAY as
/// a list, ROW as an object. Lossless for every Paimon type.
pub fn cell_to_json(array: &dyn Array, row: usize) -> Result<Value> {
    use arrow::datatypes::{DataType as A, TimeUnit};
    if array.is_null(row) {
        return Ok(Value::Null);
    }
    macro_rules! prim {
        ($t:ty) => {
            json!(array
                .as_any()
                .downcast_ref::<$t>()
                .expect("type checked by match")
                .value(row))
        };
    }
    Ok(match array.data_type() {
        A::Null => Value::Null,
        A::Boolean => prim!(BooleanArray),
        A::Int8 => prim!(Int8Array),
        A::Int16 => prim!(Int16Array),
        A::Int32 => prim!(Int32Array),
        A::Int64 => prim!(Int64Array),
        A::UInt8 => prim!(UInt8Array),
        A::UInt16 => prim!(UInt16Array),
        A::UInt32 => prim!(UInt32Array),
        A::UInt64 => prim!(UInt64Array),
        A::Float32 => {
            let v = array.as_primitive::<Float32Type>().value(row);
            // Shortest text of the f32, read back as f64: 0.1f prints as 0.1.
            float_json(if v.is_finite() {
                v.to_string().parse().unwrap_or(v as f64)
            } else {
                v as f64
            })
        }
        A::Float64 => float_json(array.as_primitive::<Float64Type>().value(row)),
        A::Decimal128(_, s) => {
            let v = array.as_primitive::<Decimal128Type>().value(row);
            Value::String(strata_spec::datum::decimal_to_string(v, (*s).max(0) as u32))
        }
        A::Utf8 => json!(array.as_string::<i32>().value(row)),
        A::LargeUtf8 => json!(array.as_string::<i64>().value(row)),
        A::Utf8View => json!(array.as_string_view().value(row)),
        A::Binary => hex(array.as_binary::<i32>().value(row)),
        A::LargeBinary => hex(array.as_binary::<i64>().value(row)),
        A::BinaryView => hex(array.as_binary_view().value(row)),
        A::FixedSizeBinary(_) => hex(array.as_fixed_size_binary().value(row)),
        A::Date32 => {
            let d = array.as_primitive::<Date32Type>().value(row);
            Value::String(Datum::Date(d).to_string())
        }
        A::Time32(TimeUnit::Millisecond) => {
            let ms = array.as_primitive::<Time32MillisecondType>().value(row) as i64;
            Value::String(time_text(ms * 1_000_000))
        }
        A::Time32(TimeUnit::Second) => {
            let s = array.as_primitive::<Time32SecondType>().value(row) as i64;
            Value::String(time_text(s * 1_000_000_000))
        }
        A::Time64(TimeUnit::Microsecond) => {
            let us = array.as_primitive::<Time64MicrosecondType>().value(row);
            Value::String(time_text(us * 1000))
        }
        A::Time64(TimeUnit::Nanosecond) => Value::String(time_text(
            array.as_primitive::<Time64NanosecondType>().value(row),
        )),
        A::Timestamp(unit, tz) => {
            let (v, per_sec) = match unit {
                TimeUnit::Second => (array.as_primitive::<TimestampSecondType>().value(row), 1),
                TimeUnit::Millisecond => (
                    array.as_primitive::<TimestampMillisecondType>().value(row),
                    1_000,
                ),
                TimeUnit::Microsecond => (
                    array.as_primitive::<TimestampMicrosecondType>().value(row),
                    1_000_000,
                ),
                TimeUnit::Nanosecond => (
                    array.as_primitive::<TimestampNanosecondType>().value(row),
                    1_000_000_000,
                ),
            };
            let secs = v.div_euclid(per_sec);
            let nanos = (v.rem_euclid(per_sec) * (1_000_000_000 / per_sec)) as u32;
            let t = chrono::DateTime::from_timestamp(secs, nanos)
                .ok_or_else(|| crate::error::msg(format!("timestamp {v} is out of range")))?;
            let fmt = if *unit == TimeUnit::Nanosecond {
                "%Y-%m-%dT%H:%M:%S%.9f"
            } else {
                "%Y-%m-%dT%H:%M:%S%.6f"
            };
            let z = if tz.is_some() { "Z" } else { "" };
            Value::String(format!("{}{z}", t.naive_utc().format(fmt)))
        }
        A::List(_) => list_json(array.as_list::<i32>().value(row).as_ref())?,
        A::LargeList(_) => list_json(array.as_list::<i64>().value(row).as_ref())?,
        A::FixedSizeList(_, _) => list_json(array.as_fixed_size_list().value(row).as_ref())?,
        A::Struct(fields) => {
            let s = array.as_struct();
            let mut m = serde_json::Map::new();
            for (i, f) in fields.iter().enumerate() {
                m.insert(f.name().clone(), cell_to_json(s.column(i).as_ref(), row)?);
            }
            Value::Object(m)
        }
        A::Map(_, _) => {
            let entries = array.as_map().value(row);
            let (k, v) = (entries.column(0), entries.column(1));
            let mut out = Vec::with_capacity(entries.len());
            for i in 0..entries.len() {
                out.push(Value::Array(vec![
                    cell_to_json(k.as_ref(), i)?,
                    cell_to_json(v.as_ref(), i)?,
                ]));
            }
            Value::Array(out)
        }
        A::Dictionary(_, _) => {
            let values = arrow::compute::cast(&array.slice(row, 1), &A::Utf8)
                .map_err(|e| crate::error::msg(e.to_string()))?;
            cell_to_json(values.as_ref(), 0)?
        }
        other => {
            return Err(crate::error::msg(format!(
                "cannot render Arrow type {other} as JSON"
            )))
        }
    })
}

fn list_json(values: &dyn Array) -> Result<Value> {
    let mut out = Vec::with_capacity(values.len());
    for i in 0..values.len() {
        out.push(cell_to_json(values, i)?);
    }
    Ok(Value::Array(out))
}

fn float_json(v: f64) -> Value {
    if v.is_nan() {
        json!("NaN")
    } else if v.is_infinite() {
        json!(if v > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    }
}

fn hex(b: &[u8]) -> Value {
    let mut s = String::with_capacity(2 + b.len() * 2);
    s.push_str("0x");
    for x in b {
        s.push_str(&format!("{x:02x}"));
    }
    Value::String(s)
}

fn time_text(nanos_of_day: i64) -> String {
    let secs = nanos_of_day.div_euclid(1_000_000_000);
    let micros = nanos_of_day.rem_euclid(1_000_000_000) / 1000;
    format!(
        "{:02}:{:02}:{:02}.{:06}",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60,
        micros
    )
}

/// One row of a batch as a JSON object, keys in column order.
pub fn row_to_json(batch: &arrow::record_batch::RecordBatch, row: usize) -> Result<Value> {
    let mut m = serde_json::Map::with_capacity(batch.num_columns());
    for (f, c) in batch.schema().fields().iter().zip(batch.columns()) {
        m.insert(f.name().clone(), cell_to_json(c.as_ref(), row)?);
    }
    Ok(Value::Object(m))
}
