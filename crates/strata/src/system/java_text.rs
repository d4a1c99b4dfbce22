//! Java's text forms, so that the text columns of the system tables read exactly as Java
//! Paimon's do:
//!
//! * [`object_text`]: `toString()` of the internal object Java's `InternalRowUtils.get` returns
//!   (statistics maps, `min_key`/`max_key`): DATE as its day number, TIME as its millisecond of
//!   the day, TIMESTAMP as `LocalDateTime.toString()` (`2024-01-01T12:00`), DECIMAL as
//!   `BigDecimal.toPlainString()`, FLOAT/DOUBLE as `Float`/`Double.toString()`;
//! * [`cast_to_string`]: Paimon's `CAST(x AS STRING)` (`CastExecutors.resolveToString`, used for
//!   partitions): DATE as `2024-01-01`, TIMESTAMP as `2024-01-01 12:00:00.000` (fraction padded
//!   to the precision), LTZ in the system time zone, binary as UTF-8;
//!   [`row_text`] is `RowToStringCastRule` (`{a, null, c}`);
//! * [`double_text`] / [`float_text`]: `Double.toString` / `Float.toString` (the shortest
//!   digits that round-trip, as JDK 19+ prints them; plain between 10⁻³ and 10⁷, else `1.0E10`;
//!   JDK ≤ 18 prints a few values with extra digits, e.g. `1.0E23` as `9.999999999999999E22`);
//! * [`duration_text`]: `java.time.Duration.toString()` (`PT24H`, `PT1M30.5S`);
//! * [`hash_map_order`]: the iteration order of a `java.util.HashMap<String, _>` filled in a
//!   given order (Java's schema options and consumer lists are `HashMap`s);
//! * [`flat_json`]: `JsonSerdeUtil.toFlatJson` (Jackson without pretty printing);
//! * [`local_wall_clock_millis`]: an epoch instant as the local date-time of the system time
//!   zone (`LocalDateTime.ofInstant(.., ZoneId.systemDefault())`), as epoch millis of that
//!   local date-time — how Java fills its `TIMESTAMP(3)` columns from epoch millis.
//!
//! BINARY values are the one thing Java prints unusably (`[B@1b6d3586`, an identity hash): they
//! are shown as `0x` + hex here.

use std::cmp::Ordering;
use std::io;
use std::time::Duration;

use chrono::{DateTime, Datelike, NaiveDateTime, TimeZone, Timelike};
use serde_json::ser::{CharEscape, Formatter};
use strata_spec::datum::decimal_to_string;
use strata_spec::{DataType, Datum, TypeKind};

use crate::error::ErrorDetail;
use crate::Result;

/// `Double.toString(v)`.
pub(super) fn double_text(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    java_fp(&format!("{v:e}"))
}

/// `Float.toString(v)`.
pub(super) fn float_text(v: f32) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    java_fp(&format!("{v:e}"))
}

/// Java's layout of Rust's shortest round-trip digits (`{:e}`: `-1.2345e-5`).
fn java_fp(sci: &str) -> String {
    let (neg, body) = match sci.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, sci),
    };
    let (mantissa, exp) = body.split_once('e').unwrap_or((body, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let mut out = String::with_capacity(digits.len() + 8);
    if neg {
        out.push('-');
    }
    if (-3..7).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                out.push_str(digits);
                out.push_str(&"0".repeat(int_len - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        } else {
            out.push_str("0.");
            out.push_str(&"0".repeat((-exp - 1) as usize));
            out.push_str(digits);
        }
    } else {
        out.push_str(&digits[..1]);
        out.push('.');
        out.push_str(if digits.len() > 1 { &digits[1..] } else { "0" });
        out.push('E');
        out.push_str(&exp.to_string());
    }
    out
}

/// The local date-time of an epoch-millis (+ nanos within the milli) value read as UTC.
fn naive(millis: i64, nanos: i32) -> Option<NaiveDateTime> {
    let dt = DateTime::from_timestamp_millis(millis)?.naive_utc();
    dt.checked_add_signed(chrono::Duration::nanoseconds(nanos as i64))
}

/// `LocalDate.toString()`'s year: four digits, a sign beyond.
fn iso_year(year: i32) -> String {
    if year.unsigned_abs() < 1000 {
        if year < 0 {
            format!("-{:04}", -year)
        } else {
            format!("{year:04}")
        }
    } else if year > 9999 {
        format!("+{year}")
    } else {
        year.to_string()
    }
}

/// `LocalDateTime.toString()` of a TIMESTAMP value (epoch millis + nanos within the milli).
pub(super) fn local_date_time_text(millis: i64, nanos: i32) -> String {
    let Some(t) = naive(millis, nanos) else {
        return format!("{millis}ms+{nanos}ns");
    };
    let mut out = format!(
        "{}-{:02}-{:02}T{:02}:{:02}",
        iso_year(t.year()),
        t.month(),
        t.day(),
        t.hour(),
        t.minute()
    );
    let (sec, nano) = (t.second(), t.nanosecond());
    if sec > 0 || nano > 0 {
        out.push_str(&format!(":{sec:02}"));
        if nano > 0 {
            if nano % 1_000_000 == 0 {
                out.push_str(&format!(".{:03}", nano / 1_000_000));
            } else if nano % 1000 == 0 {
                out.push_str(&format!(".{:06}", nano / 1000));
            } else {
                out.push_str(&format!(".{nano:09}"));
            }
        }
    }
    out
}

/// `toString()` of the object Java's `InternalRowUtils.get` returns for `d`.
pub(super) fn object_text(d: &Datum) -> String {
    match d {
        Datum::Boolean(v) => v.to_string(),
        Datum::TinyInt(v) => v.to_string(),
        Datum::SmallInt(v) => v.to_string(),
        Datum::Int(v) | Datum::Date(v) | Datum::Time(v) => v.to_string(),
        Datum::BigInt(v) => v.to_string(),
        Datum::Float(v) => float_text(*v),
        Datum::Double(v) => double_text(*v),
        Datum::Decimal {
            unscaled, scale, ..
        } => decimal_to_string(*unscaled, *scale),
        Datum::String(s) => s.clone(),
        Datum::Bytes(b) => hex(b),
        Datum::Timestamp { millis, nanos } | Datum::TimestampLtz { millis, nanos } => {
            local_date_time_text(*millis, *nanos)
        }
    }
}

fn hex(b: &[u8]) -> String {
    let mut out = String::with_capacity(2 + 2 * b.len());
    out.push_str("0x");
    for x in b {
        out.push_str(&format!("{x:02x}"));
    }
    out
}

fn precision_of(ty: &DataType) -> u32 {
    match ty.kind {
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) | TypeKind::Time(p) => p,
        _ => 0,
    }
}

/// `DateTimeUtils.formatTimestamp(ts, precision)`: `yyyy-MM-dd HH:mm:ss` and the nanosecond
/// fraction with trailing zeros removed down to `precision` digits.
fn timestamp_text(t: &NaiveDateTime, precision: u32) -> String {
    let mut fraction = format!("{:09}", t.nanosecond());
    while fraction.len() > precision as usize && fraction.ends_with('0') {
        fraction.pop();
    }
    let mut out = format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    );
    if !fraction.is_empty() {
        out.push('.');
        out.push_str(&fraction);
    }
    out
}

/// `DateTimeUtils.formatTimestampMillis(time, precision)` (TIME to STRING).
fn time_text(time: i32, precision: u32) -> String {
    let mut time = time as i64;
    while time < 0 {
        time += 86_400_000;
    }
    let (h, m, s) = (
        time / 3_600_000,
        time % 3_600_000 / 60_000,
        time % 60_000 / 1000,
    );
    let mut ms = time % 1000;
    let mut out = format!("{h:02}:{m:02}:{s:02}");
    if precision > 0 {
        out.push('.');
        let mut p = precision;
        while p > 0 {
            out.push(char::from(b'0' + (ms / 100) as u8));
            ms = ms % 100 * 10;
            if ms == 0 {
                break;
            }
            p -= 1;
        }
    }
    out
}

/// Paimon's `CAST(d AS STRING)` for a value of type `ty`.
pub(super) fn cast_to_string(d: &Datum, ty: &DataType) -> String {
    match d {
        Datum::Date(days) => match chrono::NaiveDate::from_num_days_from_ce_opt(*days + 719_163) {
            Some(date) => format!("{:04}-{:02}-{:02}", date.year(), date.month(), date.day()),
            None => days.to_string(),
        },
        Datum::Time(ms) => time_text(*ms, precision_of(ty)),
        Datum::Timestamp { millis, nanos } => match naive(*millis, *nanos) {
            Some(t) => timestamp_text(&t, precision_of(ty)),
            None => object_text(d),
        },
        Datum::TimestampLtz { millis, nanos } => {
            let local = chrono::Local
                .timestamp_millis_opt(*millis)
                .single()
                .map(|t| t.naive_local())
                .and_then(|t| t.checked_add_signed(chrono::Duration::nanoseconds(*nanos as i64)));
            match local {
                Some(t) => timestamp_text(&t, precision_of(ty)),
                None => object_text(d),
            }
        }
        Datum::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        other => object_text(other),
    }
}

/// `RowToStringCastRule`: `{v1, v2}` with each value cast to STRING and NULL as `null`.
pub(super) fn row_text(values: &[Option<Datum>], types: &[DataType]) -> String {
    let parts: Vec<String> = values
        .iter()
        .zip(types)
        .map(|(v, t)| match v {
            Some(d) => cast_to_string(d, t),
            None => "null".to_string(),
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// `java.time.Duration.toString()` of a non-negative duration.
pub(super) fn duration_text(d: Duration) -> String {
    let (secs, nanos) = (d.as_secs(), d.subsec_nanos());
    if secs == 0 && nanos == 0 {
        return "PT0S".into();
    }
    let (hours, minutes, s) = (secs / 3600, secs % 3600 / 60, secs % 60);
    let mut out = String::from("PT");
    if hours != 0 {
        out.push_str(&format!("{hours}H"));
    }
    if minutes != 0 {
        out.push_str(&format!("{minutes}M"));
    }
    if s == 0 && nanos == 0 {
        return out;
    }
    out.push_str(&s.to_string());
    if nanos > 0 {
        let fraction = format!("{nanos:09}");
        out.push('.');
        out.push_str(fraction.trim_end_matches('0'));
    }
    out.push('S');
    out
}

/// `String.hashCode()`: over UTF-16 code units, wrapping.
pub(super) fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(c as i32))
}

/// `String.compareTo`: UTF-16 code unit order (differs from byte order only beyond the BMP).
pub(super) fn compare_java_strings(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// The iteration order of a `java.util.HashMap` (default capacity 16, load factor 0.75) into
/// which `entries` were put in the given order: by bucket (`(h ^ h >>> 16) & (capacity − 1)`
/// of the final capacity), insertion order within a bucket. (A bucket of 8+ colliding keys in
/// a table of 64+ buckets becomes a tree whose order this does not model.)
pub(super) fn hash_map_order<T>(entries: Vec<(String, T)>) -> Vec<(String, T)> {
    let mut capacity = 16usize;
    while entries.len() > capacity / 4 * 3 {
        capacity *= 2;
    }
    let mut keyed: Vec<(usize, (String, T))> = entries
        .into_iter()
        .map(|e| {
            let h = java_string_hash(&e.0);
            let spread = (h ^ ((h as u32) >> 16) as i32) as u32 as usize;
            (spread & (capacity - 1), e)
        })
        .collect();
    keyed.sort_by_key(|(bucket, _)| *bucket);
    keyed.into_iter().map(|(_, e)| e).collect()
}

/// Jackson's compact writer: no whitespace; control characters escaped as Jackson does
/// (`\n` etc., otherwise `\u00XX` with uppercase hex); non-ASCII and `/` verbatim.
struct JacksonCompact;

impl Formatter for JacksonCompact {
    fn write_char_escape<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        char_escape: CharEscape,
    ) -> io::Result<()> {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        let bytes: &[u8] = match char_escape {
            CharEscape::Quote => b"\\\"",
            CharEscape::ReverseSolidus => b"\\\\",
            CharEscape::Solidus => b"/",
            CharEscape::Backspace => b"\\b",
            CharEscape::FormFeed => b"\\f",
            CharEscape::LineFeed => b"\\n",
            CharEscape::CarriageReturn => b"\\r",
            CharEscape::Tab => b"\\t",
            CharEscape::AsciiControl(byte) => {
                let buf = [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[(byte >> 4) as usize],
                    HEX[(byte & 0xF) as usize],
                ];
                return writer.write_all(&buf);
            }
        };
        writer.write_all(bytes)
    }
}

/// `JsonSerdeUtil.toFlatJson(value)`; `what` names the value in errors.
pub(super) fn flat_json(value: &serde_json::Value, what: &str) -> Result<String> {
    let mut out = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, JacksonCompact);
    serde::Serialize::serialize(value, &mut ser)
        .map_err(|e| ErrorDetail::Invariant(format!("cannot write {what} as JSON: {e}")))?;
    String::from_utf8(out)
        .map_err(|e| ErrorDetail::Invariant(format!("{what} JSON is not UTF-8: {e}")).into())
}

/// Epoch millis `instant` as the system time zone's local date-time, returned as the epoch
/// millis of that local date-time read as UTC (the value of a Java `TIMESTAMP(3)` column made
/// with `LocalDateTime.ofInstant(Instant.ofEpochMilli(instant), ZoneId.systemDefault())`).
pub(super) fn local_wall_clock_millis(instant: i64) -> i64 {
    match chrono::Local.timestamp_millis_opt(instant).single() {
        Some(t) => t.naive_local().and_utc().timestamp_millis(),
        None => instant,
    }
}

/// A local date-time as epoch millis of that date-time read as UTC.
pub(super) fn naive_millis(t: &NaiveDateTime) -> i64 {
    t.and_utc().timestamp_millis()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_like_java() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1.0"),
            (-2.5, "-2.5"),
            (0.1, "0.1"),
            (100.0, "100.0"),
            (1234567.0, "1234567.0"),
            (1.0e7, "1.0E7"),
            (12345678.9, "1.23456789E7"),
            (0.001, "0.001"),
            (0.0001, "1.0E-4"),
            (1.5e-10, "1.5E-10"),
            (f64::MAX, "1.7976931348623157E308"),
            (f64::MIN_POSITIVE, "2.2250738585072014E-308"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for (v, want) in cases {
            assert_eq!(double_text(*v), *want, "{v}");
        }
        assert_eq!(float_text(1.1), "1.1");
        assert_eq!(float_text(3.4028235e38), "3.4028235E38");
        assert_eq!(float_text(1.0e-5), "1.0E-5");
        assert_eq!(float_text(0.5), "0.5");
    }

    #[test]
    fn date_times_like_java() {
        // 2024-01-02T03:04 exactly: seconds omitted.
        let base = 1_704_164_640_000;
        assert_eq!(local_date_time_text(base, 0), "2024-01-02T03:04");
        assert_eq!(local_date_time_text(base + 5_000, 0), "2024-01-02T03:04:05");
        assert_eq!(
            local_date_time_text(base + 5_120, 0),
            "2024-01-02T03:04:05.120"
        );
        assert_eq!(
            local_date_time_text(base + 5_120, 300_000),
            "2024-01-02T03:04:05.120300"
        );
        assert_eq!(
            local_date_time_text(base, 7),
            "2024-01-02T03:04:00.000000007"
        );
        let ts = DataType::nullable(TypeKind::Timestamp(3));
        let d = Datum::Timestamp {
            millis: base + 5_000,
            nanos: 0,
        };
        assert_eq!(cast_to_string(&d, &ts), "2024-01-02 03:04:05.000");
        let ts0 = DataType::nullable(TypeKind::Timestamp(0));
        assert_eq!(cast_to_string(&d, &ts0), "2024-01-02 03:04:05");
        let date = DataType::nullable(TypeKind::Date);
        assert_eq!(cast_to_string(&Datum::Date(19_724), &date), "2024-01-02");
        assert_eq!(object_text(&Datum::Date(19_724)), "19724");
        let time = DataType::nullable(TypeKind::Time(0));
        assert_eq!(cast_to_string(&Datum::Time(3_723_000), &time), "01:02:03");
        let time3 = DataType::nullable(TypeKind::Time(3));
        assert_eq!(
            cast_to_string(&Datum::Time(3_723_500), &time3),
            "01:02:03.5"
        );
    }

    #[test]
    fn rows_decimals_durations() {
        let types = [
            DataType::string(),
            DataType::nullable(TypeKind::Int),
            DataType::nullable(TypeKind::Decimal {
                precision: 10,
                scale: 2,
            }),
        ];
        let values = [
            Some(Datum::String("a".into())),
            None,
            Some(Datum::Decimal {
                unscaled: -5,
                precision: 10,
                scale: 2,
            }),
        ];
        assert_eq!(row_text(&values, &types), "{a, null, -0.05}");
        assert_eq!(row_text(&[], &[]), "{}");
        assert_eq!(duration_text(Duration::from_secs(86_400)), "PT24H");
        assert_eq!(duration_text(Duration::from_millis(90_500)), "PT1M30.5S");
        assert_eq!(duration_text(Duration::from_secs(3600 + 60)), "PT1H1M");
        assert_eq!(duration_text(Duration::ZERO), "PT0S");
    }

    #[test]
    fn hash_map_iteration_order() {
        // "a".hashCode() = 97 → bucket 1 of 16; "bucket".hashCode() = -1378203158.
        assert_eq!(java_string_hash("a"), 97);
        assert_eq!(java_string_hash("bucket"), -1_378_203_158);
        let keys = ["file.format", "bucket", "a", "b"];
        let order: Vec<String> = hash_map_order(keys.iter().map(|k| (k.to_string(), ())).collect())
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        // Bucket indexes: a = 1, b = 2, bucket = (h ^ h>>>16) & 15, file.format likewise.
        let bucket_of = |k: &str| {
            let h = java_string_hash(k);
            ((h ^ ((h as u32) >> 16) as i32) & 15) as usize
        };
        let mut want: Vec<&str> = keys.to_vec();
        want.sort_by_key(|k| bucket_of(k));
        assert_eq!(order, want);
    }

    /// Expected orders printed by `HashMap.keySet()` on OpenJDK 17.
    #[test]
    fn hash_map_order_matches_java() {
        let keys = [
            "bucket",
            "file.format",
            "target-file-size",
            "write-only",
            "rowkind.field",
            "partition.default-name",
            "a",
            "b",
            "c",
            "d",
            "e",
            "f",
            "g",
            "h",
            "merge-engine",
        ];
        let order: Vec<String> = hash_map_order(keys.iter().map(|k| (k.to_string(), ())).collect())
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(
            order.join(","),
            "a,b,c,d,e,f,g,write-only,h,rowkind.field,partition.default-name,bucket,\
             merge-engine,target-file-size,file.format"
        );
        assert_eq!(float_text(16_777_216.0), "1.6777216E7");
        assert_eq!(float_text(1.234_567), "1.234567");
        assert_eq!(double_text(123_456_789.0), "1.23456789E8");
        assert_eq!(double_text(0.002), "0.002");
        assert_eq!(duration_text(Duration::from_secs(3 * 86_400)), "PT72H");
        // -0044-03-15T00:00 and +12345-01-01T00:00.
        assert_eq!(
            local_date_time_text(-63_549_360_000_000, 0),
            "-0044-03-15T00:00"
        );
        assert_eq!(
            local_date_time_text(327_403_382_400_000, 0),
            "+12345-01-01T00:00"
        );
    }

    #[test]
    fn flat_json_like_jackson() {
        let v = serde_json::json!({"a": [1, {"b": "x\u{1}/é"}], "c": null});
        assert_eq!(
            flat_json(&v, "test").unwrap(),
            "{\"a\":[1,{\"b\":\"x\\u0001/é\"}],\"c\":null}"
        );
    }
}
