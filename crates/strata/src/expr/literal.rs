//! Literal text parsing (numbers, dates, times, timestamps) and the conversion of a literal
//! [`Datum`] to the internal value of a column type ("coercion"), used when binding.
//!
//! Coercion is exact where the target is exact: an integer must fit the integer column, a
//! decimal must fit DECIMAL(p, s) without dropping digits; FLOAT/DOUBLE targets take the nearest
//! value. Strings are parsed when the column is a date/time/number type. TIMESTAMP WITH LOCAL
//! TIME ZONE text without an offset is read as UTC (strata has no session time zone).

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use strata_spec::{DataType, Datum, TypeKind};

const MAX_DECIMAL_PRECISION: u32 = 38;

/// 10^n as i128 (`None` past 10^38).
fn pow10(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

/// Number of decimal digits of |v| (1 for 0).
fn digits(v: i128) -> u32 {
    let mut n = 1;
    let mut x = v.unsigned_abs();
    while x >= 10 {
        x /= 10;
        n += 1;
    }
    n
}

/// Parses unsigned decimal text `ddd[.ddd][e[+-]dd]` exactly into (unscaled, scale ≥ 0).
/// `None` when not a number or when it does not fit 38 digits.
pub(crate) fn parse_decimal_text(text: &str) -> Option<(i128, u32)> {
    let t = text.trim();
    let (t, neg) = match t.strip_prefix('-') {
        Some(rest) => (rest, true),
        None => (t.strip_prefix('+').unwrap_or(t), false),
    };
    let (mantissa, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i32>().ok()?),
        None => (t, 0),
    };
    let (int_part, frac_part) = match mantissa.split_once('.') {
        Some((i, f)) => (i, f),
        None => (mantissa, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let mut unscaled: i128 = 0;
    for c in int_part.chars().chain(frac_part.chars()) {
        let d = c.to_digit(10)?;
        unscaled = unscaled.checked_mul(10)?.checked_add(d as i128)?;
    }
    let mut scale = frac_part.len() as i64 - exp as i64;
    if scale < 0 {
        unscaled = unscaled.checked_mul(pow10(u32::try_from(-scale).ok()?)?)?;
        scale = 0;
    }
    let scale = u32::try_from(scale).ok()?;
    if scale > MAX_DECIMAL_PRECISION || digits(unscaled) > MAX_DECIMAL_PRECISION {
        return None;
    }
    Some((if neg { -unscaled } else { unscaled }, scale))
}

/// A decimal datum with the smallest precision that holds the value.
pub(crate) fn decimal_datum(unscaled: i128, scale: u32) -> Datum {
    Datum::Decimal {
        unscaled,
        precision: digits(unscaled).max(scale).max(1),
        scale,
    }
}

/// Parses an unsigned SQL numeric literal: BIGINT when it is an integer that fits, else an exact
/// DECIMAL (≤ 38 digits), else DOUBLE.
#[cfg(feature = "sql")]
pub(crate) fn parse_number(text: &str) -> Option<Datum> {
    if text.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(v) = text.parse::<i64>() {
            return Some(Datum::BigInt(v));
        }
    }
    if let Some((u, s)) = parse_decimal_text(text) {
        return Some(decimal_datum(u, s));
    }
    text.parse::<f64>().ok().map(Datum::Double)
}

/// Unary minus on a numeric literal.
#[cfg(feature = "sql")]
pub(crate) fn negate_number(d: Datum) -> Option<Datum> {
    Some(match d {
        Datum::TinyInt(v) => Datum::TinyInt(v.checked_neg()?),
        Datum::SmallInt(v) => Datum::SmallInt(v.checked_neg()?),
        Datum::Int(v) => Datum::Int(v.checked_neg()?),
        Datum::BigInt(v) => Datum::BigInt(v.checked_neg()?),
        Datum::Float(v) => Datum::Float(-v),
        Datum::Double(v) => Datum::Double(-v),
        Datum::Decimal {
            unscaled,
            precision,
            scale,
        } => Datum::Decimal {
            unscaled: -unscaled,
            precision,
            scale,
        },
        _ => return None,
    })
}

fn epoch() -> NaiveDate {
    NaiveDate::from_ymd_opt(1970, 1, 1).expect("1970-01-01 is a valid date")
}

/// `YYYY-MM-DD` → days since 1970-01-01.
pub(crate) fn parse_date(text: &str) -> Option<i32> {
    let d = NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").ok()?;
    i32::try_from((d - epoch()).num_days()).ok()
}

/// `HH:MM[:SS[.fff]]` → millis of day; sub-millisecond digits must be zero (Paimon TIME holds
/// milliseconds).
pub(crate) fn parse_time(text: &str) -> Option<i32> {
    let t = text.trim();
    let time = NaiveTime::parse_from_str(t, "%H:%M:%S%.f")
        .or_else(|_| NaiveTime::parse_from_str(t, "%H:%M"))
        .ok()?;
    if time.nanosecond() % 1_000_000 != 0 {
        return None;
    }
    Some((time.num_seconds_from_midnight() * 1000 + time.nanosecond() / 1_000_000) as i32)
}

fn naive_to_parts(t: NaiveDateTime) -> (i64, i32) {
    let utc = t.and_utc();
    (
        utc.timestamp_millis(),
        (utc.timestamp_subsec_nanos() % 1_000_000) as i32,
    )
}

fn parse_naive(text: &str) -> Option<NaiveDateTime> {
    const FORMATS: &[&str] = &[
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ];
    for f in FORMATS {
        if let Ok(t) = NaiveDateTime::parse_from_str(text, f) {
            return Some(t);
        }
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .map(|d| d.and_time(NaiveTime::MIN))
}

/// `YYYY-MM-DD[( |T)HH:MM[:SS[.f]]]` (no offset) → (epoch millis, nanos of milli) of the local
/// date-time.
pub(crate) fn parse_timestamp(text: &str) -> Option<(i64, i32)> {
    parse_naive(text.trim()).map(naive_to_parts)
}

/// Like [`parse_timestamp`], with an optional trailing offset (`Z`, `+02:00`, ` +0200`); no offset
/// means UTC. Returns the UTC instant.
pub(crate) fn parse_timestamp_ltz(text: &str) -> Option<(i64, i32)> {
    let t = text.trim();
    if let Some(v) = parse_timestamp(t) {
        return Some(v);
    }
    const FORMATS: &[&str] = &[
        "%Y-%m-%d %H:%M:%S%.f%#z",
        "%Y-%m-%dT%H:%M:%S%.f%#z",
        "%Y-%m-%d %H:%M:%S%.f %#z",
        "%Y-%m-%d %H:%M%#z",
    ];
    let t = match t.strip_suffix('Z').or_else(|| t.strip_suffix('z')) {
        Some(rest) => return parse_timestamp(rest),
        None => t,
    };
    for f in FORMATS {
        if let Ok(dt) = DateTime::parse_from_str(t, f) {
            return Some(naive_to_parts(dt.naive_utc()));
        }
    }
    None
}

/// Converts a literal to the internal value of a column of type `ty`. The error is the reason,
/// without the column (the caller adds it).
pub(crate) fn coerce(lit: &Datum, ty: &DataType) -> Result<Datum, String> {
    use TypeKind as K;
    match &ty.kind {
        K::TinyInt | K::SmallInt | K::Int | K::BigInt => to_integer(lit, &ty.kind),
        K::Decimal { precision, scale } => to_decimal(lit, *precision, *scale),
        K::Float | K::Double => to_float(lit, matches!(ty.kind, K::Float)),
        K::Boolean => match lit {
            Datum::Boolean(b) => Ok(Datum::Boolean(*b)),
            Datum::String(s) if s.eq_ignore_ascii_case("true") => Ok(Datum::Boolean(true)),
            Datum::String(s) if s.eq_ignore_ascii_case("false") => Ok(Datum::Boolean(false)),
            _ => Err(mismatch()),
        },
        K::Char(_) | K::VarChar(_) => match lit {
            Datum::String(s) => Ok(Datum::String(s.clone())),
            _ => Err(mismatch()),
        },
        K::Binary(_) | K::VarBinary(_) => match lit {
            Datum::Bytes(b) => Ok(Datum::Bytes(b.clone())),
            Datum::String(s) => Ok(Datum::Bytes(s.as_bytes().to_vec())),
            _ => Err(mismatch()),
        },
        K::Date => match lit {
            Datum::Date(d) => Ok(Datum::Date(*d)),
            Datum::String(s) => parse_date(s)
                .map(Datum::Date)
                .ok_or_else(|| "not a date (expected YYYY-MM-DD)".to_string()),
            Datum::Timestamp { millis, nanos } | Datum::TimestampLtz { millis, nanos } => {
                if *nanos == 0 && millis.rem_euclid(86_400_000) == 0 {
                    i32::try_from(millis.div_euclid(86_400_000))
                        .map(Datum::Date)
                        .map_err(|_| "date out of range".to_string())
                } else {
                    Err("a timestamp with a time of day cannot be compared with a DATE".into())
                }
            }
            _ => Err(mismatch()),
        },
        K::Time(_) => match lit {
            Datum::Time(ms) => Ok(Datum::Time(*ms)),
            Datum::String(s) => parse_time(s).map(Datum::Time).ok_or_else(|| {
                "not a time (expected HH:MM:SS[.fff], at most millisecond precision)".to_string()
            }),
            _ => Err(mismatch()),
        },
        K::Timestamp(_) | K::LocalZonedTimestamp(_) => {
            let ltz = matches!(ty.kind, K::LocalZonedTimestamp(_));
            let (millis, nanos) = match lit {
                Datum::Timestamp { millis, nanos } | Datum::TimestampLtz { millis, nanos } => {
                    (*millis, *nanos)
                }
                Datum::Date(d) => (*d as i64 * 86_400_000, 0),
                Datum::String(s) => {
                    let parsed = if ltz {
                        parse_timestamp_ltz(s)
                    } else {
                        parse_timestamp(s)
                    };
                    parsed.ok_or_else(|| {
                        "not a timestamp (expected YYYY-MM-DD HH:MM:SS[.fffffffff])".to_string()
                    })?
                }
                _ => return Err(mismatch()),
            };
            Ok(if ltz {
                Datum::TimestampLtz { millis, nanos }
            } else {
                Datum::Timestamp { millis, nanos }
            })
        }
        K::Array(_) | K::Multiset(_) | K::Map { .. } | K::Row(_) | K::Variant | K::Blob => {
            Err("comparisons on this type are not supported".into())
        }
    }
}

fn mismatch() -> String {
    "types do not match".into()
}

/// Integral value of a numeric literal, or why not.
fn integral_value(lit: &Datum) -> Result<i128, String> {
    match lit {
        Datum::TinyInt(v) => Ok(*v as i128),
        Datum::SmallInt(v) => Ok(*v as i128),
        Datum::Int(v) => Ok(*v as i128),
        Datum::BigInt(v) => Ok(*v as i128),
        Datum::Decimal {
            unscaled, scale, ..
        } => {
            let p = pow10(*scale).ok_or("scale too large")?;
            if unscaled % p != 0 {
                return Err("not an integer".into());
            }
            Ok(unscaled / p)
        }
        Datum::Float(_) | Datum::Double(_) => {
            let v = match lit {
                Datum::Float(f) => *f as f64,
                Datum::Double(d) => *d,
                _ => unreachable!("matched Float or Double above"),
            };
            if !v.is_finite() || v.fract() != 0.0 || v.abs() > 1e38 {
                return Err("not an integer".into());
            }
            Ok(v as i128)
        }
        Datum::String(s) => {
            let (u, sc) = parse_decimal_text(s).ok_or("not a number")?;
            integral_value(&decimal_datum(u, sc))
        }
        _ => Err(mismatch()),
    }
}

fn to_integer(lit: &Datum, kind: &TypeKind) -> Result<Datum, String> {
    let v = integral_value(lit)?;
    let out = match kind {
        TypeKind::TinyInt => i8::try_from(v).ok().map(Datum::TinyInt),
        TypeKind::SmallInt => i16::try_from(v).ok().map(Datum::SmallInt),
        TypeKind::Int => i32::try_from(v).ok().map(Datum::Int),
        _ => i64::try_from(v).ok().map(Datum::BigInt),
    };
    out.ok_or_else(|| "out of range".to_string())
}

fn to_decimal(lit: &Datum, precision: u32, scale: u32) -> Result<Datum, String> {
    let (u, s) = match lit {
        Datum::TinyInt(_) | Datum::SmallInt(_) | Datum::Int(_) | Datum::BigInt(_) => {
            (integral_value(lit)?, 0)
        }
        Datum::Decimal {
            unscaled, scale, ..
        } => (*unscaled, *scale),
        Datum::Float(f) if f.is_finite() => {
            parse_decimal_text(&f.to_string()).ok_or("not representable as a decimal")?
        }
        Datum::Double(d) if d.is_finite() => {
            parse_decimal_text(&d.to_string()).ok_or("not representable as a decimal")?
        }
        Datum::String(t) => parse_decimal_text(t).ok_or("not a number")?,
        _ => return Err(mismatch()),
    };
    let unscaled = if s <= scale {
        pow10(scale - s)
            .and_then(|p| u.checked_mul(p))
            .ok_or("out of range")?
    } else {
        let p = pow10(s - scale).ok_or("out of range")?;
        if u % p != 0 {
            return Err(format!("has more than {scale} fractional digits"));
        }
        u / p
    };
    if digits(unscaled) > precision {
        return Err("out of range".into());
    }
    Ok(Datum::Decimal {
        unscaled,
        precision,
        scale,
    })
}

fn to_float(lit: &Datum, single: bool) -> Result<Datum, String> {
    let v: f64 = match lit {
        Datum::Float(f) if single => return Ok(Datum::Float(*f)),
        Datum::Float(f) => *f as f64,
        Datum::Double(d) => *d,
        Datum::TinyInt(_) | Datum::SmallInt(_) | Datum::Int(_) | Datum::BigInt(_) => {
            let i = integral_value(lit)?;
            return Ok(if single {
                Datum::Float(i as f32)
            } else {
                Datum::Double(i as f64)
            });
        }
        Datum::Decimal {
            unscaled, scale, ..
        } => {
            // Parse the exact text so each target gets its own correctly rounded value.
            let text = strata_spec::datum::decimal_to_string(*unscaled, *scale);
            return float_text(&text, single);
        }
        Datum::String(s) => return float_text(s.trim(), single),
        _ => return Err(mismatch()),
    };
    Ok(if single {
        Datum::Float(v as f32)
    } else {
        Datum::Double(v)
    })
}

fn float_text(text: &str, single: bool) -> Result<Datum, String> {
    if single {
        text.parse::<f32>().map(Datum::Float)
    } else {
        text.parse::<f64>().map(Datum::Double)
    }
    .map_err(|_| "not a number".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_text_is_exact() {
        assert_eq!(parse_decimal_text("1.50"), Some((150, 2)));
        assert_eq!(parse_decimal_text("1.5e3"), Some((1500, 0)));
        assert_eq!(parse_decimal_text("25e-3"), Some((25, 3)));
        assert_eq!(parse_decimal_text("-0.001"), Some((-1, 3)));
        assert_eq!(parse_decimal_text("1e40"), None);
        assert_eq!(parse_decimal_text("."), None);
        assert_eq!(parse_number("42"), Some(Datum::BigInt(42)));
        assert_eq!(
            parse_number("99999999999999999999"),
            Some(decimal_datum(99_999_999_999_999_999_999, 0))
        );
        assert_eq!(parse_number("1e300"), Some(Datum::Double(1e300)));
    }

    #[test]
    fn temporal_text() {
        assert_eq!(parse_date("2024-01-01"), Some(19723));
        assert_eq!(parse_date("1969-12-31"), Some(-1));
        assert_eq!(parse_date("2024-13-01"), None);
        assert_eq!(parse_time("01:02:03.004"), Some(3_723_004));
        assert_eq!(parse_time("01:02:03.0041"), None);
        assert_eq!(
            parse_timestamp("1969-12-31 23:59:59.999000001"),
            Some((-1, 1))
        );
        assert_eq!(parse_timestamp("2024-01-01"), Some((19723 * 86_400_000, 0)));
        assert_eq!(
            parse_timestamp_ltz("2024-01-01T02:00:00+02:00"),
            Some((19723 * 86_400_000, 0))
        );
        assert_eq!(
            parse_timestamp_ltz("2024-01-01 00:00:00Z"),
            Some((19723 * 86_400_000, 0))
        );
    }

    #[test]
    fn coercion_checks_ranges_and_scales() {
        let dec = DataType::nullable(TypeKind::Decimal {
            precision: 5,
            scale: 2,
        });
        assert_eq!(
            coerce(&Datum::BigInt(12), &dec),
            Ok(Datum::Decimal {
                unscaled: 1200,
                precision: 5,
                scale: 2
            })
        );
        assert_eq!(
            coerce(&decimal_datum(1230, 3), &dec),
            Ok(Datum::Decimal {
                unscaled: 123,
                precision: 5,
                scale: 2
            })
        );
        assert!(coerce(&decimal_datum(1234, 3), &dec)
            .unwrap_err()
            .contains("fractional"));
        assert!(coerce(&Datum::BigInt(1000), &dec)
            .unwrap_err()
            .contains("out of range"));
        let tiny = DataType::nullable(TypeKind::TinyInt);
        assert_eq!(
            coerce(&Datum::BigInt(-128), &tiny),
            Ok(Datum::TinyInt(-128))
        );
        assert!(coerce(&Datum::BigInt(128), &tiny).is_err());
        assert!(coerce(&decimal_datum(15, 1), &tiny).is_err());
        let f = DataType::nullable(TypeKind::Float);
        assert_eq!(coerce(&decimal_datum(1, 1), &f), Ok(Datum::Float(0.1)));
        let ts = DataType::nullable(TypeKind::Timestamp(6));
        assert_eq!(
            coerce(&Datum::Date(1), &ts),
            Ok(Datum::Timestamp {
                millis: 86_400_000,
                nanos: 0
            })
        );
    }
}
