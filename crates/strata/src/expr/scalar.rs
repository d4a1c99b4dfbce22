//! A literal [`Datum`] as a one-element Arrow array of a column's exact Arrow type, for the
//! Arrow comparison kernels (which require both sides to have the same type).
//!
//! The column's Arrow type decides the representation (e.g. TIMESTAMP as seconds, millis,
//! micros or nanos; DECIMAL at the array's scale). When the literal cannot be represented
//! exactly in that type, the result says where it falls ([`ScalarLit::Floor`], `AboveAll`,
//! `BelowAll`) so comparisons stay exact; see `eval`.

use std::sync::Arc;

use arrow_array::types::{
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use arrow_array::{
    ArrayRef, BinaryArray, BinaryViewArray, BooleanArray, Date32Array, Date64Array,
    Decimal128Array, Float32Array, Float64Array, Int16Array, Int32Array, Int64Array, Int8Array,
    LargeBinaryArray, LargeStringArray, PrimitiveArray, StringArray, StringViewArray,
    Time32MillisecondArray, Time32SecondArray, Time64MicrosecondArray, Time64NanosecondArray,
    UInt16Array, UInt32Array, UInt64Array, UInt8Array,
};
use arrow_schema::{DataType as ArrowType, TimeUnit};
use strata_spec::Datum;

/// Where a literal lands among the values of an Arrow type.
#[derive(Debug)]
pub(crate) enum ScalarLit {
    /// Exactly representable: this one-element array.
    Exact(ArrayRef),
    /// Strictly between this value (one-element array) and the next representable one.
    Floor(ArrayRef),
    /// Greater than every value of the type.
    AboveAll,
    /// Less than every value of the type.
    BelowAll,
}

/// Places `v` in the range `[lo, hi]` of an integer type and builds the array with `make`.
fn ranged(v: i128, lo: i128, hi: i128, make: impl FnOnce(i128) -> ArrayRef) -> ScalarLit {
    if v > hi {
        ScalarLit::AboveAll
    } else if v < lo {
        ScalarLit::BelowAll
    } else {
        ScalarLit::Exact(make(v))
    }
}

/// `v / divisor` rounded down, tagged exact or floor, then range-checked into i64.
fn scaled_down(v: i128, divisor: i128, make: impl FnOnce(i64) -> ArrayRef) -> ScalarLit {
    let q = v.div_euclid(divisor);
    let exact = v.rem_euclid(divisor) == 0;
    match i64::try_from(q) {
        Ok(q) if exact => ScalarLit::Exact(make(q)),
        Ok(q) => ScalarLit::Floor(make(q)),
        Err(_) if q > 0 => ScalarLit::AboveAll,
        Err(_) => ScalarLit::BelowAll,
    }
}

fn integral(d: &Datum) -> Option<i128> {
    Some(match d {
        Datum::TinyInt(v) => *v as i128,
        Datum::SmallInt(v) => *v as i128,
        Datum::Int(v) => *v as i128,
        Datum::BigInt(v) => *v as i128,
        _ => return None,
    })
}

/// Converts `lit` for comparison with an array of type `target`; the error is the reason.
pub(crate) fn to_scalar(lit: &Datum, target: &ArrowType) -> Result<ScalarLit, String> {
    use ArrowType as A;
    let mismatch = || {
        format!(
            "literal {} cannot be compared with Arrow type {target}",
            super::predicate::sql_literal(lit)
        )
    };
    macro_rules! int {
        ($arr:ty, $t:ty) => {{
            let v = integral(lit).ok_or_else(mismatch)?;
            ranged(v, <$t>::MIN as i128, <$t>::MAX as i128, |v| {
                Arc::new(<$arr>::from(vec![v as $t]))
            })
        }};
    }
    Ok(match target {
        A::Boolean => match lit {
            Datum::Boolean(b) => ScalarLit::Exact(Arc::new(BooleanArray::from(vec![*b]))),
            _ => return Err(mismatch()),
        },
        A::Int8 => int!(Int8Array, i8),
        A::Int16 => int!(Int16Array, i16),
        A::Int32 => int!(Int32Array, i32),
        A::Int64 => int!(Int64Array, i64),
        A::UInt8 => int!(UInt8Array, u8),
        A::UInt16 => int!(UInt16Array, u16),
        A::UInt32 => int!(UInt32Array, u32),
        A::UInt64 => int!(UInt64Array, u64),
        A::Float32 | A::Float64 => {
            let v = match lit {
                Datum::Float(f) => *f as f64,
                Datum::Double(d) => *d,
                _ => integral(lit).ok_or_else(mismatch)? as f64,
            };
            ScalarLit::Exact(if matches!(target, A::Float32) {
                Arc::new(Float32Array::from(vec![v as f32]))
            } else {
                Arc::new(Float64Array::from(vec![v]))
            })
        }
        A::Decimal128(p, s) => {
            let (u, ls) = match lit {
                Datum::Decimal {
                    unscaled, scale, ..
                } => (*unscaled, *scale as i64),
                _ => (integral(lit).ok_or_else(mismatch)?, 0),
            };
            decimal_scalar(u, ls, *p, *s)?
        }
        A::Utf8 | A::LargeUtf8 | A::Utf8View => match lit {
            Datum::String(s) => ScalarLit::Exact(string_scalar(s, target)),
            _ => return Err(mismatch()),
        },
        A::Binary | A::LargeBinary | A::BinaryView => match lit {
            Datum::Bytes(b) => ScalarLit::Exact(match target {
                A::Binary => Arc::new(BinaryArray::from_vec(vec![b.as_slice()])),
                A::LargeBinary => Arc::new(LargeBinaryArray::from_vec(vec![b.as_slice()])),
                _ => Arc::new(BinaryViewArray::from_iter_values([b.as_slice()])),
            }),
            _ => return Err(mismatch()),
        },
        A::Date32 => match lit {
            Datum::Date(d) => ScalarLit::Exact(Arc::new(Date32Array::from(vec![*d]))),
            _ => return Err(mismatch()),
        },
        A::Date64 => match lit {
            Datum::Date(d) => {
                ScalarLit::Exact(Arc::new(Date64Array::from(vec![*d as i64 * 86_400_000])))
            }
            _ => return Err(mismatch()),
        },
        A::Time32(unit) | A::Time64(unit) => {
            let Datum::Time(ms) = lit else {
                return Err(mismatch());
            };
            let ms = *ms as i64;
            match (target, unit) {
                (A::Time32(_), TimeUnit::Second) => scaled_down(ms as i128, 1000, |v| {
                    Arc::new(Time32SecondArray::from(vec![v as i32]))
                }),
                (A::Time32(_), _) => {
                    ScalarLit::Exact(Arc::new(Time32MillisecondArray::from(vec![ms as i32])))
                }
                (_, TimeUnit::Microsecond) => {
                    ScalarLit::Exact(Arc::new(Time64MicrosecondArray::from(vec![ms * 1000])))
                }
                _ => ScalarLit::Exact(Arc::new(Time64NanosecondArray::from(vec![ms * 1_000_000]))),
            }
        }
        A::Timestamp(unit, tz) => {
            let (Datum::Timestamp { millis, nanos } | Datum::TimestampLtz { millis, nanos }) = lit
            else {
                return Err(mismatch());
            };
            let total = *millis as i128 * 1_000_000 + *nanos as i128;
            let tz = tz.clone();
            match unit {
                TimeUnit::Second => scaled_down(total, 1_000_000_000, |v| {
                    ts_array::<TimestampSecondType>(v, tz)
                }),
                TimeUnit::Millisecond => scaled_down(total, 1_000_000, |v| {
                    ts_array::<TimestampMillisecondType>(v, tz)
                }),
                TimeUnit::Microsecond => {
                    scaled_down(total, 1000, |v| ts_array::<TimestampMicrosecondType>(v, tz))
                }
                TimeUnit::Nanosecond => {
                    scaled_down(total, 1, |v| ts_array::<TimestampNanosecondType>(v, tz))
                }
            }
        }
        _ => return Err(mismatch()),
    })
}

fn ts_array<T>(v: i64, tz: Option<Arc<str>>) -> ArrayRef
where
    T: arrow_array::types::ArrowTimestampType,
{
    Arc::new(PrimitiveArray::<T>::from_iter_values([v]).with_timezone_opt(tz))
}

pub(crate) fn string_scalar(s: &str, target: &ArrowType) -> ArrayRef {
    match target {
        ArrowType::LargeUtf8 => Arc::new(LargeStringArray::from(vec![s])),
        ArrowType::Utf8View => Arc::new(StringViewArray::from(vec![s])),
        _ => Arc::new(StringArray::from(vec![s])),
    }
}

/// Unscaled `u` at scale `ls`, placed among DECIMAL(p, s) values.
fn decimal_scalar(u: i128, ls: i64, p: u8, s: i8) -> Result<ScalarLit, String> {
    let s = s as i64;
    let make = |v: i128| -> Result<ArrayRef, String> {
        Decimal128Array::from(vec![v])
            .with_precision_and_scale(p, s as i8)
            .map(|a| Arc::new(a) as ArrayRef)
            .map_err(|e| e.to_string())
    };
    let limit = 10i128.checked_pow(p as u32).unwrap_or(i128::MAX);
    let (v, exact) = if ls <= s {
        let factor = u32::try_from(s - ls)
            .ok()
            .and_then(|d| 10i128.checked_pow(d));
        match factor.and_then(|f| u.checked_mul(f)) {
            Some(v) => (v, true),
            None if u > 0 => return Ok(ScalarLit::AboveAll),
            None if u < 0 => return Ok(ScalarLit::BelowAll),
            None => (0, true),
        }
    } else {
        match u32::try_from(ls - s)
            .ok()
            .and_then(|d| 10i128.checked_pow(d))
        {
            Some(d) => (u.div_euclid(d), u.rem_euclid(d) == 0),
            // The divisor exceeds every i128: the value is in (-1, 1) units of the column scale.
            None => (if u < 0 { -1 } else { 0 }, u == 0),
        }
    };
    Ok(if v >= limit {
        ScalarLit::AboveAll
    } else if v <= -limit {
        // Every column value is ≥ -limit + 1 > the literal (v is its floor).
        ScalarLit::BelowAll
    } else if exact {
        ScalarLit::Exact(make(v)?)
    } else {
        ScalarLit::Floor(make(v)?)
    })
}
