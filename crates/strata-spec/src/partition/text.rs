//! Java's text forms of partition values, both ways.
//!
//! * [`legacy_text`]: `Object.toString()` of Paimon's internal value
//!   (`partition.legacy-name = true`, the default): DATE and TIME are plain integers,
//!   TIMESTAMP is `LocalDateTime.toString()`, floats follow `Float/Double.toString`.
//! * [`cast_text`]: `CAST(value AS STRING)` (`partition.legacy-name = false`): DATE
//!   `yyyy-MM-dd`, TIME `HH:mm:ss[.f]`, TIMESTAMP `yyyy-MM-dd HH:mm:ss[.f]`
//!   (`DateTimeUtils.formatDate/formatTimestampMillis/formatTimestamp`).
//! * [`parse_text`]: `TypeUtils.castFromString`, which accepts both forms.
//!
//! Deliberate divergences, all on values no real table partitions by: TIMESTAMP_LTZ text uses
//! UTC where Java uses the JVM's default zone; BINARY legacy text is the UTF-8 decoding (Java
//! prints an identity hash like `[B@1b6d3586`); floats print the shortest round-trip digits
//! (Java ≥ 19; older JDKs occasionally print one more digit).

use crate::datum::decimal_to_string;
use crate::error::{Result, SpecError};
use crate::value_text::{
    civil_from_days, parse_date, parse_decimal, parse_time, parse_timestamp, MILLIS_PER_DAY,
};
use crate::{DataType, Datum, TypeKind};

// ---- value → text --------------------------------------------------------------------------

/// Java `toString()` of the internal value.
pub(crate) fn legacy_text(d: &Datum) -> String {
    match d {
        Datum::Boolean(v) => v.to_string(),
        Datum::TinyInt(v) => v.to_string(),
        Datum::SmallInt(v) => v.to_string(),
        Datum::Int(v) | Datum::Date(v) | Datum::Time(v) => v.to_string(),
        Datum::BigInt(v) => v.to_string(),
        Datum::Float(v) => java_float_to_string(*v),
        Datum::Double(v) => java_double_to_string(*v),
        Datum::Decimal {
            unscaled, scale, ..
        } => decimal_to_string(*unscaled, *scale),
        Datum::String(s) => s.clone(),
        Datum::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Datum::Timestamp { millis, nanos } | Datum::TimestampLtz { millis, nanos } => {
            local_date_time_to_string(*millis, *nanos)
        }
    }
}

/// `CAST(value AS STRING)`; `ty` supplies the TIME/TIMESTAMP precision (0 / 6 when absent).
pub(crate) fn cast_text(d: &Datum, ty: Option<&DataType>) -> String {
    let precision = |default: u32| match ty.map(|t| &t.kind) {
        Some(TypeKind::Time(p) | TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p)) => *p,
        _ => default,
    };
    match d {
        Datum::Date(days) => {
            let (y, m, dd) = civil_from_days(*days as i64);
            format!("{}-{:02}-{:02}", int4(y), m, dd)
        }
        Datum::Time(ms) => format_time_millis(*ms, precision(0)),
        Datum::Timestamp { millis, nanos } | Datum::TimestampLtz { millis, nanos } => {
            format_timestamp(*millis, *nanos, precision(6))
        }
        other => legacy_text(other),
    }
}

/// Java `Float.toString`.
pub(crate) fn java_float_to_string(v: f32) -> String {
    if v.is_finite() && v != 0.0 {
        let sci = shortest_sci(
            format!("{v:e}"),
            |t| t.parse::<f32>().ok() == Some(v),
            || format!("{v:.1e}"),
        );
        java_decimal_text(&sci, (v.abs() as f64) >= 1e-3 && (v.abs() as f64) < 1e7)
    } else {
        special_float_text(v as f64)
    }
}

/// Java `Double.toString`.
pub(crate) fn java_double_to_string(v: f64) -> String {
    if v.is_finite() && v != 0.0 {
        let sci = shortest_sci(
            format!("{v:e}"),
            |t| t.parse::<f64>().ok() == Some(v),
            || format!("{v:.1e}"),
        );
        java_decimal_text(&sci, v.abs() >= 1e-3 && v.abs() < 1e7)
    } else {
        special_float_text(v)
    }
}

fn special_float_text(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if v.is_sign_negative() {
        "-0.0".into()
    } else {
        "0.0".into()
    }
}

/// Java prints at least two significant digits when one would be inexact (`4.9E-324`, not
/// `5.0E-324`): prefer the two-digit rounding when it still reads back as the same value.
fn shortest_sci(
    sci: String,
    round_trips: impl Fn(&str) -> bool,
    two_digits: impl Fn() -> String,
) -> String {
    let mantissa = sci.split('e').next().unwrap_or("");
    if mantissa.trim_start_matches('-').len() == 1 {
        let two = two_digits();
        if round_trips(&two) {
            return two;
        }
    }
    sci
}

/// Renders Rust's `d.ddde±x` as Java does: plain `ddd.ddd` within [1e-3, 1e7), else
/// `d.dddE±x`, always with at least one fractional digit.
fn java_decimal_text(sci: &str, plain: bool) -> String {
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let mut digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    let sign = if neg { "-" } else { "" };
    if plain {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                let zeros = "0".repeat(int_len - digits.len());
                format!("{sign}{digits}{zeros}.0")
            } else {
                format!("{sign}{}.{}", &digits[..int_len], &digits[int_len..])
            }
        } else {
            let zeros = "0".repeat((-exp - 1) as usize);
            format!("{sign}0.{zeros}{digits}")
        }
    } else {
        let frac = if digits.len() > 1 { &digits[1..] } else { "0" };
        format!("{sign}{}.{frac}E{exp}", &digits[..1])
    }
}

/// `java.time.LocalDateTime.toString()` of epoch millis + nanos of the millisecond:
/// `yyyy-MM-ddTHH:mm`, then `:ss` when seconds or nanos are non-zero, then `.SSS`,
/// `.SSSSSS` or `.SSSSSSSSS`, whichever is the shortest exact form.
pub(crate) fn local_date_time_to_string(millis: i64, nanos: i32) -> String {
    let days = millis.div_euclid(MILLIS_PER_DAY);
    let ms_of_day = millis.rem_euclid(MILLIS_PER_DAY);
    let (y, m, d) = civil_from_days(days);
    let secs = ms_of_day / 1000;
    let nano = (ms_of_day % 1000) * 1_000_000 + nanos as i64;
    let mut out = format!(
        "{}-{m:02}-{d:02}T{:02}:{:02}",
        java_year(y),
        secs / 3600,
        secs / 60 % 60
    );
    if secs % 60 != 0 || nano != 0 {
        out.push_str(&format!(":{:02}", secs % 60));
    }
    if nano != 0 {
        if nano % 1_000_000 == 0 {
            out.push_str(&format!(".{:03}", nano / 1_000_000));
        } else if nano % 1000 == 0 {
            out.push_str(&format!(".{:06}", nano / 1000));
        } else {
            out.push_str(&format!(".{nano:09}"));
        }
    }
    out
}

/// `LocalDate.toString` year: 4 digits zero-padded, sign for negative, `+` beyond 9999.
fn java_year(y: i64) -> String {
    if y.abs() < 1000 {
        if y < 0 {
            format!("-{:04}", -y)
        } else {
            format!("{y:04}")
        }
    } else if y > 9999 {
        format!("+{y}")
    } else {
        y.to_string()
    }
}

/// `DateTimeUtils.int4`: the last four decimal digits, Java integer arithmetic.
fn int4(y: i64) -> String {
    [1000, 100, 10, 1]
        .iter()
        .map(|p| char::from_u32((48 + (y / p) % 10) as u32).unwrap_or('?'))
        .collect()
}

/// `DateTimeUtils.formatTimestampMillis(time, precision)` (CAST of TIME).
fn format_time_millis(time: i32, precision: u32) -> String {
    let mut t = time as i64;
    while t < 0 {
        t += MILLIS_PER_DAY;
    }
    let (h, rest) = (t / 3_600_000, t % 3_600_000);
    let (m, rest) = (rest / 60_000, rest % 60_000);
    let (s, mut ms) = (rest / 1000, rest % 1000);
    let two = |v: i64| format!("{}{}", (v / 10) % 10, v % 10);
    let mut out = format!("{}:{}:{}", two(h), two(m), two(s));
    if precision > 0 {
        out.push('.');
        let mut left = precision;
        while left > 0 {
            out.push(char::from(b'0' + (ms / 100) as u8));
            ms = ms % 100 * 10;
            if ms == 0 {
                break;
            }
            left -= 1;
        }
    }
    out
}

/// `DateTimeUtils.formatTimestamp(ts, precision)` (CAST of TIMESTAMP): trailing zeros of the
/// nanosecond fraction are dropped down to `precision` digits.
fn format_timestamp(millis: i64, nanos: i32, precision: u32) -> String {
    let days = millis.div_euclid(MILLIS_PER_DAY);
    let ms_of_day = millis.rem_euclid(MILLIS_PER_DAY);
    let (y, m, d) = civil_from_days(days);
    let secs = ms_of_day / 1000;
    let nano = (ms_of_day % 1000) * 1_000_000 + nanos as i64;
    let mut fraction = format!("{nano:09}");
    while fraction.len() > precision as usize && fraction.ends_with('0') {
        fraction.pop();
    }
    let mut out = format!(
        "{}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        int4(y),
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    if !fraction.is_empty() {
        out.push('.');
        out.push_str(&fraction);
    }
    out
}

// ---- text → value --------------------------------------------------------------------------

fn bad(text: &str, ty: &DataType, why: &str) -> SpecError {
    SpecError::invalid(
        format!("{ty} value"),
        format!("cannot parse '{text}': {why}"),
    )
}

/// `TypeUtils.castFromString`: the value of type `ty` written as `text`.
pub(crate) fn parse_text(text: &str, ty: &DataType) -> Result<Datum> {
    let num = |why: &str| bad(text, ty, why);
    Ok(match &ty.kind {
        TypeKind::Char(n) | TypeKind::VarChar(n) => {
            if text.chars().count() > *n as usize {
                return Err(num("longer than the type length"));
            }
            Datum::String(text.to_string())
        }
        TypeKind::Binary(n) | TypeKind::VarBinary(n) => {
            if text.len() > *n as usize {
                return Err(num("longer than the type length"));
            }
            Datum::Bytes(text.as_bytes().to_vec())
        }
        TypeKind::Boolean => match text.to_lowercase().as_str() {
            "t" | "true" | "y" | "yes" | "1" => Datum::Boolean(true),
            "f" | "false" | "n" | "no" | "0" => Datum::Boolean(false),
            _ => return Err(num("not a boolean")),
        },
        TypeKind::TinyInt => Datum::TinyInt(text.parse().map_err(|_| num("not a TINYINT"))?),
        TypeKind::SmallInt => Datum::SmallInt(text.parse().map_err(|_| num("not a SMALLINT"))?),
        TypeKind::Int => Datum::Int(text.parse().map_err(|_| num("not an INT"))?),
        TypeKind::BigInt => Datum::BigInt(text.parse().map_err(|_| num("not a BIGINT"))?),
        TypeKind::Float => {
            Datum::Float(parse_java_float(text).ok_or_else(|| num("not a FLOAT"))? as f32)
        }
        TypeKind::Double => {
            Datum::Double(parse_java_float(text).ok_or_else(|| num("not a DOUBLE"))?)
        }
        TypeKind::Decimal { precision, scale } => Datum::Decimal {
            unscaled: parse_decimal(text, *precision, *scale)
                .ok_or_else(|| num("not a decimal within the precision"))?,
            precision: *precision,
            scale: *scale,
        },
        TypeKind::Date => Datum::Date(parse_date(text).ok_or_else(|| num("not a date"))?),
        TypeKind::Time(_) => Datum::Time(parse_time(text).ok_or_else(|| num("not a time"))?),
        TypeKind::Timestamp(p) => {
            let (millis, nanos) =
                parse_timestamp(text, *p).ok_or_else(|| num("not a timestamp"))?;
            Datum::Timestamp { millis, nanos }
        }
        TypeKind::LocalZonedTimestamp(p) => {
            let (millis, nanos) =
                parse_timestamp(text, *p).ok_or_else(|| num("not a timestamp"))?;
            Datum::TimestampLtz { millis, nanos }
        }
        _ => {
            return Err(SpecError::Unsupported(format!(
                "partition values of type {ty}"
            )))
        }
    })
}

/// Java `Double.parseDouble`-like: Rust syntax plus Java's `Infinity` spelling and an optional
/// trailing `d`/`f` suffix.
fn parse_java_float(text: &str) -> Option<f64> {
    let t = text.trim();
    let t = t
        .strip_suffix(['d', 'D', 'f', 'F'])
        .filter(|s| !s.is_empty())
        .unwrap_or(t);
    match t {
        "Infinity" | "+Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        "NaN" => Some(f64::NAN),
        _ if t.chars().all(|c| c.is_ascii_digit() || "+-.eE".contains(c)) => t.parse().ok(),
        _ => None,
    }
}
