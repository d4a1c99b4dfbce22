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
use crate::{DataType, Datum, TypeKind};

const MILLIS_PER_DAY: i64 = 86_400_000;

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

/// Proleptic Gregorian (year, month, day) of a day number since 1970-01-01.
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Day number since 1970-01-01 of a proleptic Gregorian date.
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = y - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 } as i64;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
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

/// `new BigDecimal(text).setScale(scale, HALF_UP)` as an unscaled value, `None` when it is not
/// a number or needs more than `precision` digits.
pub(crate) fn parse_decimal(text: &str, precision: u32, scale: u32) -> Option<i128> {
    let (neg, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i64>().ok()?),
        None => (body, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    if !int_part
        .bytes()
        .chain(frac_part.bytes())
        .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    // value = digits × 10^(exp − frac_len); wanted: digits × 10^(exp − frac_len + scale).
    let digits: String = format!("{int_part}{frac_part}");
    let digits = digits.trim_start_matches('0');
    let shift = exp - frac_part.len() as i64 + scale as i64;
    let (kept, round_up) = if shift >= 0 {
        if digits.len() as i64 + shift > 39 {
            return None;
        }
        (format!("{digits}{}", "0".repeat(shift as usize)), false)
    } else {
        let cut = (-shift) as usize;
        if cut >= digits.len() {
            // Everything is dropped; HALF_UP rounds up when the first dropped digit is ≥ 5.
            let first = if cut == digits.len() {
                digits.bytes().next()
            } else {
                None
            };
            (String::new(), first.is_some_and(|b| b >= b'5'))
        } else {
            let (k, dropped) = digits.split_at(digits.len() - cut);
            (k.to_string(), dropped.as_bytes()[0] >= b'5')
        }
    };
    let mut v: i128 = if kept.is_empty() {
        0
    } else {
        kept.parse().ok()?
    };
    if round_up {
        v = v.checked_add(1)?;
    }
    if neg {
        v = -v;
    }
    crate::binary_row::fits_precision(v, precision).then_some(v)
}

/// `BinaryStringUtils.toDate`: a day number, or `yyyy[-MM[-dd]]` (anything after a space is
/// ignored, as Java accepts timestamp text).
pub(crate) fn parse_date(text: &str) -> Option<i32> {
    if is_numeric(text) {
        return text.parse().ok();
    }
    let s = text.split(' ').next().unwrap_or(text);
    let mut parts = s.splitn(3, '-');
    let y: i64 = parse_java_int(parts.next()?.trim())?;
    let m: u32 = match parts.next() {
        Some(p) => parse_java_int(p.trim())? as u32,
        None => 1,
    };
    let d: u32 = match parts.next() {
        Some(p) => parse_java_int(p.trim())? as u32,
        None => 1,
    };
    if !is_legal_date(y, m, d) {
        return None;
    }
    i32::try_from(days_from_civil(y, m, d)).ok()
}

/// `DateTimeUtils.isIllegalDate` (which, despite its name, says whether the date is legal).
fn is_legal_date(y: i64, m: u32, d: u32) -> bool {
    if !(0..=9999).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return false;
    }
    let leap = y % 400 == 0 || (y % 4 == 0 && y % 100 != 0);
    if m == 2 && d > 28 && !(leap && d == 29) {
        return false;
    }
    d != 31 || [1, 3, 5, 7, 8, 10, 12].contains(&m)
}

/// Digits only (Java `isInteger`), as a non-negative number.
fn parse_java_int(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `StringUtils.isNumeric`: an optional `-` then only digits.
fn is_numeric(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `BinaryStringUtils.toTime`: milliseconds of the day, or `HH[:mm[:ss[.fff]]]`.
pub(crate) fn parse_time(text: &str) -> Option<i32> {
    if is_numeric(text) {
        return text.parse().ok();
    }
    let (hms, frac) = match text.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (text, None),
    };
    let mut parts = hms.split(':');
    let h = parse_java_int(parts.next()?.trim())?;
    let m = parts
        .next()
        .map(|p| parse_java_int(p.trim()))
        .unwrap_or(Some(0))?;
    let s = parts
        .next()
        .map(|p| parse_java_int(p.trim()))
        .unwrap_or(Some(0))?;
    if parts.next().is_some() || (frac.is_some() && hms.matches(':').count() != 2) {
        return None;
    }
    let ms = frac.map(parse_fraction_millis).unwrap_or(0);
    i32::try_from(h * 3_600_000 + m * 60_000 + s * 1000 + ms).ok()
}

/// `DateTimeUtils.parseFraction`: milliseconds of a fraction's digits, rounding on the 4th.
fn parse_fraction_millis(frac: &str) -> i64 {
    let b = frac.trim().as_bytes();
    let mut r = 0i64;
    let mut mult = 100i64;
    for (i, c) in b.iter().enumerate() {
        let x = if c.is_ascii_digit() {
            (c - b'0') as i64
        } else {
            0
        };
        r += mult * x;
        if mult < 10 {
            if b.get(i + 1).is_some_and(|n| *n >= b'5') {
                r += 1;
            }
            break;
        }
        mult /= 10;
    }
    r
}

/// `BinaryStringUtils.toTimestamp`: an epoch number in the unit of the precision (0 seconds,
/// 3 millis, 6 micros, 9 nanos), or `yyyy-M-d[( |T)H:m[:s[.fffffffff]]]`; the fraction is
/// floored to `precision` digits.
pub(crate) fn parse_timestamp(text: &str, precision: u32) -> Option<(i64, i32)> {
    if is_numeric(text) {
        let v: i64 = text.parse().ok()?;
        let (div, nanos_per_unit) = match precision {
            0 => return Some((v.checked_mul(1000)?, 0)),
            3 => return Some((v, 0)),
            6 => (1000, 1000),
            9 => (1_000_000, 1),
            _ => return None,
        };
        let millis = v.div_euclid(div);
        let nanos = (v.rem_euclid(div) * nanos_per_unit) as i32;
        return Some((millis, nanos));
    }
    let (date, time) = match text.find([' ', 'T']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    let mut dp = date.split('-');
    let y = parse_java_int(dp.next()?)?;
    let m = parse_java_int(dp.next()?)? as u32;
    let d = parse_java_int(dp.next()?)? as u32;
    if dp.next().is_some() || !is_legal_date(y, m, d) {
        return None;
    }
    let (mut h, mut mi, mut s, mut nano) = (0i64, 0i64, 0i64, 0i64);
    if let Some(time) = time {
        let (hms, frac) = match time.split_once('.') {
            Some((a, b)) => (a, Some(b)),
            None => (time, None),
        };
        let mut tp = hms.split(':');
        h = parse_java_int(tp.next()?)?;
        mi = parse_java_int(tp.next()?)?;
        if let Some(sec) = tp.next() {
            s = parse_java_int(sec)?;
        } else if frac.is_some() {
            return None;
        }
        if tp.next().is_some() || h > 23 || mi > 59 || s > 59 {
            return None;
        }
        if let Some(f) = frac {
            if f.len() > 9 || !f.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            nano = format!("{f:0<9}").parse().ok()?;
        }
    }
    let unit = 10i64.pow(9 - precision.min(9));
    nano -= nano % unit;
    let millis = days_from_civil(y, m, d) * MILLIS_PER_DAY
        + ((h * 60 + mi) * 60 + s) * 1000
        + nano / 1_000_000;
    Some((millis, (nano % 1_000_000) as i32))
}
