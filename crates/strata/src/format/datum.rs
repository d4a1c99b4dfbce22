//! Arrow values ⇄ [`Datum`]s for atomic types.
//!
//! Used where single values cross between columnar data and Paimon's row-oriented metadata:
//! partition values and primary keys taken from written batches, min/max statistics, and
//! constant columns (partition columns) materialised on read. Temporal values follow Paimon's
//! internal representation: DATE = days, TIME = millis of day, TIMESTAMP = epoch millis plus
//! nanos within the milli.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float32Array,
    Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, StringArray,
    Time32MillisecondArray, TimestampMicrosecondArray, TimestampMillisecondArray,
    TimestampNanosecondArray,
};
use arrow_schema::{DataType as ArrowType, TimeUnit};
use strata_spec::types::{DataType, TypeKind};
use strata_spec::Datum;

use super::arrow_types::{to_arrow_type, LTZ_TIME_ZONE};
use crate::error::ErrorDetail;
use crate::{Error, Result};

const MILLIS_PER_DAY: i64 = 86_400_000;

/// Splits a timestamp in `unit` into Paimon's (epoch millis, nanos within the milli).
pub(crate) fn split_timestamp(value: i64, unit: TimeUnit) -> Option<(i64, i32)> {
    Some(match unit {
        TimeUnit::Second => (value.checked_mul(1000)?, 0),
        TimeUnit::Millisecond => (value, 0),
        TimeUnit::Microsecond => (
            value.div_euclid(1000),
            (value.rem_euclid(1000) * 1000) as i32,
        ),
        TimeUnit::Nanosecond => (
            value.div_euclid(1_000_000),
            value.rem_euclid(1_000_000) as i32,
        ),
    })
}

/// Joins Paimon's (millis, nanos) into a timestamp in `unit` (sub-unit digits are dropped).
pub(crate) fn join_timestamp(millis: i64, nanos: i32, unit: TimeUnit) -> Option<i64> {
    match unit {
        TimeUnit::Second => Some(millis.div_euclid(1000)),
        TimeUnit::Millisecond => Some(millis),
        TimeUnit::Microsecond => millis
            .checked_mul(1000)?
            .checked_add(i64::from(nanos) / 1000),
        TimeUnit::Nanosecond => millis.checked_mul(1_000_000)?.checked_add(i64::from(nanos)),
    }
}

/// Datum of a timestamp value of an Arrow timestamp column (`tz` set ⇒ TIMESTAMP_LTZ).
pub(crate) fn timestamp_datum(value: i64, unit: TimeUnit, has_tz: bool) -> Option<Datum> {
    let (millis, nanos) = split_timestamp(value, unit)?;
    Some(if has_tz {
        Datum::TimestampLtz { millis, nanos }
    } else {
        Datum::Timestamp { millis, nanos }
    })
}

/// The value at `row` of an atomic-typed array as a [`Datum`] (`None` for NULL).
/// Nested arrays (list, map, struct) are not representable as a Datum and are an error.
pub fn datum_at(array: &dyn Array, row: usize) -> Result<Option<Datum>> {
    if row >= array.len() {
        return Err(ErrorDetail::InvalidArgument(format!(
            "row {row} is out of bounds for an array of {} rows",
            array.len()
        ))
        .into());
    }
    if let Some(dict) = array.as_any_dictionary_opt() {
        if dict.is_null(row) {
            return Ok(None);
        }
        let key = dict.normalized_keys()[row];
        return datum_at(dict.values().as_ref(), key);
    }
    if array.is_null(row) {
        return Ok(None);
    }
    let bad_value = || {
        Error::from(ErrorDetail::InvalidArgument(format!(
            "value at row {row} of type {} is out of Paimon's range",
            array.data_type()
        )))
    };
    let datum = match array.data_type() {
        ArrowType::Boolean => Datum::Boolean(array.as_boolean().value(row)),
        ArrowType::Int8 => Datum::TinyInt(array.as_primitive::<Int8Type>().value(row)),
        ArrowType::Int16 => Datum::SmallInt(array.as_primitive::<Int16Type>().value(row)),
        ArrowType::Int32 => Datum::Int(array.as_primitive::<Int32Type>().value(row)),
        ArrowType::Int64 => Datum::BigInt(array.as_primitive::<Int64Type>().value(row)),
        ArrowType::UInt8 => {
            Datum::SmallInt(i16::from(array.as_primitive::<UInt8Type>().value(row)))
        }
        ArrowType::UInt16 => Datum::Int(i32::from(array.as_primitive::<UInt16Type>().value(row))),
        ArrowType::UInt32 => {
            Datum::BigInt(i64::from(array.as_primitive::<UInt32Type>().value(row)))
        }
        ArrowType::Float32 => Datum::Float(array.as_primitive::<Float32Type>().value(row)),
        ArrowType::Float64 => Datum::Double(array.as_primitive::<Float64Type>().value(row)),
        ArrowType::Decimal32(p, s) => decimal(
            i128::from(array.as_primitive::<Decimal32Type>().value(row)),
            *p,
            *s,
        )
        .ok_or_else(bad_value)?,
        ArrowType::Decimal64(p, s) => decimal(
            i128::from(array.as_primitive::<Decimal64Type>().value(row)),
            *p,
            *s,
        )
        .ok_or_else(bad_value)?,
        ArrowType::Decimal128(p, s) => {
            decimal(array.as_primitive::<Decimal128Type>().value(row), *p, *s)
                .ok_or_else(bad_value)?
        }
        ArrowType::Decimal256(p, s) => {
            let v = array.as_primitive::<Decimal256Type>().value(row);
            decimal(v.to_i128().ok_or_else(bad_value)?, *p, *s).ok_or_else(bad_value)?
        }
        ArrowType::Utf8 => Datum::String(array.as_string::<i32>().value(row).to_string()),
        ArrowType::LargeUtf8 => Datum::String(array.as_string::<i64>().value(row).to_string()),
        ArrowType::Utf8View => Datum::String(array.as_string_view().value(row).to_string()),
        ArrowType::Binary => Datum::Bytes(array.as_binary::<i32>().value(row).to_vec()),
        ArrowType::LargeBinary => Datum::Bytes(array.as_binary::<i64>().value(row).to_vec()),
        ArrowType::BinaryView => Datum::Bytes(array.as_binary_view().value(row).to_vec()),
        ArrowType::FixedSizeBinary(_) => {
            Datum::Bytes(array.as_fixed_size_binary().value(row).to_vec())
        }
        ArrowType::Date32 => Datum::Date(array.as_primitive::<Date32Type>().value(row)),
        ArrowType::Date64 => {
            let ms = array.as_primitive::<Date64Type>().value(row);
            Datum::Date(i32::try_from(ms.div_euclid(MILLIS_PER_DAY)).map_err(|_| bad_value())?)
        }
        ArrowType::Time32(TimeUnit::Second) => {
            let s = array.as_primitive::<Time32SecondType>().value(row);
            Datum::Time(s.checked_mul(1000).ok_or_else(bad_value)?)
        }
        ArrowType::Time32(_) => {
            Datum::Time(array.as_primitive::<Time32MillisecondType>().value(row))
        }
        ArrowType::Time64(TimeUnit::Microsecond) => {
            let us = array.as_primitive::<Time64MicrosecondType>().value(row);
            Datum::Time(i32::try_from(us.div_euclid(1000)).map_err(|_| bad_value())?)
        }
        ArrowType::Time64(_) => {
            let ns = array.as_primitive::<Time64NanosecondType>().value(row);
            Datum::Time(i32::try_from(ns.div_euclid(1_000_000)).map_err(|_| bad_value())?)
        }
        ArrowType::Timestamp(unit, tz) => {
            let v = match unit {
                TimeUnit::Second => array.as_primitive::<TimestampSecondType>().value(row),
                TimeUnit::Millisecond => {
                    array.as_primitive::<TimestampMillisecondType>().value(row)
                }
                TimeUnit::Microsecond => {
                    array.as_primitive::<TimestampMicrosecondType>().value(row)
                }
                TimeUnit::Nanosecond => array.as_primitive::<TimestampNanosecondType>().value(row),
            };
            timestamp_datum(v, *unit, tz.is_some()).ok_or_else(bad_value)?
        }
        other => {
            return Err(ErrorDetail::Unsupported(format!(
                "a value of Arrow type {other} cannot be used as a single Paimon value"
            ))
            .into())
        }
    };
    Ok(Some(datum))
}

fn decimal(unscaled: i128, precision: u8, scale: i8) -> Option<Datum> {
    Some(Datum::Decimal {
        unscaled,
        precision: u32::from(precision),
        scale: u32::try_from(scale).ok()?,
    })
}

/// Builds an Arrow array of `data_type` (its [`to_arrow_type`] form) from datums.
/// Each datum must be of the type's kind (DECIMAL scales must match; TIMESTAMP and
/// TIMESTAMP_LTZ datums are accepted for either timestamp kind).
pub fn datums_to_array(values: &[Option<Datum>], data_type: &DataType) -> Result<ArrayRef> {
    let wrong = |d: &Datum| {
        Error::from(ErrorDetail::InvalidArgument(format!(
            "value {d:?} does not match type {data_type}"
        )))
    };
    macro_rules! build {
        ($array:ty, $pat:pat => $out:expr) => {{
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    None => None,
                    Some($pat) => Some($out),
                    Some(other) => return Err(wrong(other)),
                });
            }
            Arc::new(<$array>::from(out)) as ArrayRef
        }};
    }
    let array: ArrayRef = match &data_type.kind {
        TypeKind::Boolean => build!(BooleanArray, Datum::Boolean(v) => *v),
        TypeKind::TinyInt => build!(Int8Array, Datum::TinyInt(v) => *v),
        TypeKind::SmallInt => build!(Int16Array, Datum::SmallInt(v) => *v),
        TypeKind::Int => build!(Int32Array, Datum::Int(v) => *v),
        TypeKind::BigInt => build!(Int64Array, Datum::BigInt(v) => *v),
        TypeKind::Float => build!(Float32Array, Datum::Float(v) => *v),
        TypeKind::Double => build!(Float64Array, Datum::Double(v) => *v),
        TypeKind::Char(_) | TypeKind::VarChar(_) => {
            let mut out: Vec<Option<&str>> = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    None => None,
                    Some(Datum::String(s)) => Some(s.as_str()),
                    Some(other) => return Err(wrong(other)),
                });
            }
            Arc::new(StringArray::from(out))
        }
        TypeKind::Binary(_) | TypeKind::VarBinary(_) | TypeKind::Blob => {
            let mut out: Vec<Option<&[u8]>> = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    None => None,
                    Some(Datum::Bytes(b)) => Some(b.as_slice()),
                    Some(other) => return Err(wrong(other)),
                });
            }
            Arc::new(BinaryArray::from(out))
        }
        TypeKind::Date => build!(Date32Array, Datum::Date(v) => *v),
        TypeKind::Time(_) => build!(Time32MillisecondArray, Datum::Time(v) => *v),
        TypeKind::Decimal { precision, scale } => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    None => None,
                    Some(Datum::Decimal {
                        unscaled, scale: s, ..
                    }) if s == scale => Some(*unscaled),
                    Some(other) => return Err(wrong(other)),
                });
            }
            let array = Decimal128Array::from(out)
                .with_precision_and_scale(*precision as u8, *scale as i8)
                .map_err(|e| Error::arrow(format!("building {data_type} values"), e))?;
            Arc::new(array)
        }
        TypeKind::Timestamp(_) | TypeKind::LocalZonedTimestamp(_) => {
            let ArrowType::Timestamp(unit, _) = to_arrow_type(data_type)? else {
                unreachable!("timestamp types map to Arrow timestamps")
            };
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    None => None,
                    Some(
                        d @ (Datum::Timestamp { millis, nanos }
                        | Datum::TimestampLtz { millis, nanos }),
                    ) => Some(join_timestamp(*millis, *nanos, unit).ok_or_else(|| {
                        Error::from(ErrorDetail::InvalidArgument(format!(
                            "timestamp {d} is out of range for {data_type}"
                        )))
                    })?),
                    Some(other) => return Err(wrong(other)),
                });
            }
            let tz = matches!(data_type.kind, TypeKind::LocalZonedTimestamp(_));
            timestamp_array(out, unit, tz)
        }
        _ => {
            return Err(ErrorDetail::Unsupported(format!(
                "building a column of {data_type} from single values"
            ))
            .into())
        }
    };
    Ok(array)
}

fn timestamp_array(values: Vec<Option<i64>>, unit: TimeUnit, ltz: bool) -> ArrayRef {
    let tz: Option<Arc<str>> = ltz.then(|| LTZ_TIME_ZONE.into());
    match unit {
        TimeUnit::Millisecond => {
            Arc::new(TimestampMillisecondArray::from(values).with_timezone_opt(tz))
        }
        TimeUnit::Microsecond => {
            Arc::new(TimestampMicrosecondArray::from(values).with_timezone_opt(tz))
        }
        _ => Arc::new(TimestampNanosecondArray::from(values).with_timezone_opt(tz)),
    }
}
