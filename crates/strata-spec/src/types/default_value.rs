//! Column default values: the `defaultValue` text of a top-level [`DataField`] read as a value
//! of the column's type, exactly as Java's `DefaultValueUtils.convertDefaultValue` does (the
//! cast from STRING: `CastExecutors.resolve(STRING, type)`).
//!
//! Paimon ≥ 1.3 writes a column's default into every row whose value is NULL, whether the
//! column was missing from the input or given as NULL (`DefaultValueRow` in `TableWriteImpl`,
//! after the NOT NULL check); only top-level columns, as `DefaultValueRow.create(rowType)`.
//! `CatalogUtils.validateTable` / `SchemaManager` refuse a table whose default does not
//! convert ("Unsupported default value `x` for type T"); [`check_default_values`] is that
//! check.
//!
//! The text: one pair of enclosing single quotes is removed (`'abc'` is `abc`); then, per type
//! (`BinaryStringUtils`):
//! * BOOLEAN: `t`, `true`, `y`, `yes`, `1` / `f`, `false`, `n`, `no`, `0`, any case;
//! * TINYINT … BIGINT: an optional sign and digits, with an optional `.digits` that is dropped
//!   (Hive's `LazyLong`); no blanks; out of range is an error;
//! * FLOAT / DOUBLE: `Float/Double.parseFloat` (blanks trimmed, `NaN`, `Infinity`, an optional
//!   `f`/`d` suffix);
//! * DECIMAL(p, s): `new BigDecimal(text)` rounded HALF_UP to `s`; more than `p` digits makes
//!   Java's `Decimal.fromBigDecimal` return NULL, so such a default is NULL (no default);
//! * CHAR(n) / VARCHAR(n): cut to `n` characters, CHAR padded with blanks to `n`;
//!   BINARY(n) / VARBINARY(n): the UTF-8 bytes, cut to `n`, BINARY padded with zero bytes;
//! * DATE, TIME, TIMESTAMP: `BinaryStringUtils.toDate/toTime/toTimestamp` (a number, or the
//!   date-time text), the parsers of partition values.
//!
//! Refused, naming the column: TIMESTAMP WITH LOCAL TIME ZONE (Java reads the text in the
//! writing JVM's default time zone, which a table does not record), ARRAY / MAP / ROW (Java's
//! `StringToArray/Map/RowCastRule` text forms, not implemented here) and the types without a
//! cast from STRING (MULTISET, VARIANT, BLOB: Java refuses those too).

use crate::datum::Datum;
use crate::error::{Result, SpecError};
use crate::value_text::{parse_date, parse_decimal, parse_time, parse_timestamp};

use super::{DataField, DataType, TypeKind};

fn invalid(name: &str, text: &str, ty: &DataType, why: impl std::fmt::Display) -> SpecError {
    SpecError::invalid(
        format!("default value of column `{name}`"),
        format!("unsupported default value `{text}` for type {ty} (Java refuses it too): {why}"),
    )
}

/// The default of column `name` (type `ty`) written as `text`: `Some(value)`, or `None` when
/// Java's conversion yields NULL (a DECIMAL with more digits than its precision), so rows keep
/// their NULLs. A text Java cannot convert is an error naming the column; a type strata does
/// not convert defaults of is [`SpecError::Unsupported`], naming the column.
pub fn parse_default_value(name: &str, ty: &DataType, text: &str) -> Result<Option<Datum>> {
    let unquoted = if text.starts_with('\'') && text.ends_with('\'') {
        if text.len() < 2 {
            // Java: "'".substring(1, 0) throws.
            return Err(invalid(name, text, ty, "an unmatched quote"));
        }
        &text[1..text.len() - 1]
    } else {
        text
    };
    let bad = |why: &str| invalid(name, text, ty, why);
    let unsupported = |why: &str| {
        SpecError::Unsupported(format!(
            "the default value `{text}` of column `{name}` ({ty}): {why}"
        ))
    };
    let s = unquoted;
    Ok(Some(match &ty.kind {
        TypeKind::Boolean => match s.to_lowercase().as_str() {
            "t" | "true" | "y" | "yes" | "1" => Datum::Boolean(true),
            "f" | "false" | "n" | "no" | "0" => Datum::Boolean(false),
            _ => return Err(bad("not a BOOLEAN")),
        },
        TypeKind::TinyInt => {
            let v = hive_long(s, i32::MIN as i64, i32::MAX as i64).map_err(bad)?;
            Datum::TinyInt(i8::try_from(v).map_err(|_| bad("overflow"))?)
        }
        TypeKind::SmallInt => {
            let v = hive_long(s, i32::MIN as i64, i32::MAX as i64).map_err(bad)?;
            Datum::SmallInt(i16::try_from(v).map_err(|_| bad("overflow"))?)
        }
        TypeKind::Int => {
            Datum::Int(hive_long(s, i32::MIN as i64, i32::MAX as i64).map_err(bad)? as i32)
        }
        TypeKind::BigInt => Datum::BigInt(hive_long(s, i64::MIN, i64::MAX).map_err(bad)?),
        TypeKind::Float => Datum::Float(
            java_float_text(s)
                .and_then(|t| t.parse::<f32>().ok())
                .ok_or_else(|| bad("not a FLOAT"))?,
        ),
        TypeKind::Double => Datum::Double(
            java_float_text(s)
                .and_then(|t| t.parse::<f64>().ok())
                .ok_or_else(|| bad("not a DOUBLE"))?,
        ),
        TypeKind::Decimal { precision, scale } => {
            if !is_big_decimal(s) {
                return Err(bad("not a number"));
            }
            match parse_decimal(s, *precision, *scale) {
                Some(unscaled) => Datum::Decimal {
                    unscaled,
                    precision: *precision,
                    scale: *scale,
                },
                // More digits than the precision: Java's Decimal.fromBigDecimal gives NULL.
                None => return Ok(None),
            }
        }
        TypeKind::Char(n) | TypeKind::VarChar(n) => {
            let n = *n as usize;
            let mut v: String = s.chars().take(n).collect();
            if matches!(ty.kind, TypeKind::Char(_)) {
                let have = v.chars().count();
                v.extend(std::iter::repeat_n(' ', n - have));
            }
            Datum::String(v)
        }
        TypeKind::Binary(n) | TypeKind::VarBinary(n) => {
            let n = *n as usize;
            let mut v = s.as_bytes().to_vec();
            if v.len() > n || matches!(ty.kind, TypeKind::Binary(_)) {
                v.resize(n, 0);
            }
            Datum::Bytes(v)
        }
        TypeKind::Date => Datum::Date(parse_date(s).ok_or_else(|| bad("not a DATE"))?),
        TypeKind::Time(_) => Datum::Time(parse_time(s).ok_or_else(|| bad("not a TIME"))?),
        TypeKind::Timestamp(p) => {
            let (millis, nanos) = parse_timestamp(s, *p).ok_or_else(|| bad("not a TIMESTAMP"))?;
            Datum::Timestamp { millis, nanos }
        }
        TypeKind::LocalZonedTimestamp(_) => {
            return Err(unsupported(
                "Java reads a TIMESTAMP WITH LOCAL TIME ZONE default in the writing JVM's \
                 time zone, which the table does not record, so strata cannot write the same \
                 instant",
            ))
        }
        TypeKind::Array(_) | TypeKind::Map { .. } | TypeKind::Row(_) => {
            return Err(unsupported(
                "strata does not convert default values of ARRAY, MAP or ROW columns",
            ))
        }
        TypeKind::Multiset(_) | TypeKind::Variant | TypeKind::Blob => {
            return Err(bad("the type has no cast from STRING"))
        }
    }))
}

/// Every top-level column's default converts (Java's `validateDefaultValue` over the fields,
/// at table creation and after schema changes). With `refuse_unsupported` false, a default of
/// a type strata does not convert passes (Java takes it; strata's writes refuse the table).
pub fn check_default_values(fields: &[DataField], refuse_unsupported: bool) -> Result<()> {
    for f in fields {
        if let Some(text) = &f.default_value {
            match parse_default_value(&f.name, &f.data_type, text) {
                Err(SpecError::Unsupported(_)) if !refuse_unsupported => {}
                Err(e) => return Err(e),
                Ok(_) => {}
            }
        }
    }
    Ok(())
}

/// `BinaryStringUtils.toLong` / `toInt` (Hive's `LazyLong.parseLong`): an optional sign, digits,
/// then optionally `.` and digits (ignored); `min..=max` bounds the result.
fn hive_long(s: &str, min: i64, max: i64) -> std::result::Result<i64, &'static str> {
    let b = s.as_bytes();
    if b.is_empty() {
        return Err("empty");
    }
    let negative = b[0] == b'-';
    let mut i = usize::from(negative || b[0] == b'+');
    if i == 1 && b.len() == 1 {
        return Err("only a sign");
    }
    let mut v: i128 = 0;
    while i < b.len() {
        let c = b[i];
        i += 1;
        if c == b'.' {
            break;
        }
        if !c.is_ascii_digit() {
            return Err("an invalid character");
        }
        v = v * 10 + i128::from(c - b'0');
        if v > i128::from(max) + 1 {
            return Err("overflow");
        }
    }
    if !b[i..].iter().all(u8::is_ascii_digit) {
        return Err("an invalid character");
    }
    let v = if negative { -v } else { v };
    if v < i128::from(min) || v > i128::from(max) {
        return Err("overflow");
    }
    Ok(v as i64)
}

/// The text `Float/Double.parseFloat` reads, in the syntax Rust's parser takes: blanks trimmed
/// (Java's `trim`: code points ≤ U+0020), an `f`/`F`/`d`/`D` suffix dropped, `NaN` and
/// `Infinity` spelled as Java does; `None` for anything else (Rust's own `inf`/`nan` spellings
/// included). Hexadecimal floats are not taken.
fn java_float_text(s: &str) -> Option<String> {
    let t = s.trim_matches(|c: char| c <= ' ');
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let sign = &t[..t.len() - body.len()];
    if body == "NaN" {
        return Some("NaN".into());
    }
    if body == "Infinity" {
        return Some(format!("{sign}inf"));
    }
    let body = body
        .strip_suffix(['f', 'F', 'd', 'D'])
        .filter(|b| !b.is_empty())
        .unwrap_or(body);
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let digits = mantissa.replacen('.', "", 1);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    if let Some(e) = exp {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        if e.is_empty() || !e.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
    }
    Some(format!("{sign}{body}"))
}

/// The syntax `new BigDecimal(String)` takes: an optional sign, digits with at most one `.`
/// (at least one digit), an optional exponent `e`/`E` with an optional sign and digits.
fn is_big_decimal(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let digits = mantissa.replacen('.', "", 1);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return false;
    }
    exp.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && e.bytes().all(|c| c.is_ascii_digit())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(kind: TypeKind) -> DataType {
        DataType::nullable(kind)
    }

    fn parse(kind: TypeKind, text: &str) -> Result<Option<Datum>> {
        parse_default_value("c", &t(kind), text)
    }

    fn ok(kind: TypeKind, text: &str) -> Datum {
        parse(kind, text).unwrap().unwrap()
    }

    #[test]
    fn integers_follow_hive_parsing() {
        assert_eq!(ok(TypeKind::Int, "7"), Datum::Int(7));
        assert_eq!(ok(TypeKind::Int, "'7'"), Datum::Int(7));
        assert_eq!(ok(TypeKind::Int, "+7"), Datum::Int(7));
        assert_eq!(ok(TypeKind::Int, "-7.9"), Datum::Int(-7));
        assert_eq!(ok(TypeKind::Int, "-2147483648"), Datum::Int(i32::MIN));
        assert_eq!(
            ok(TypeKind::BigInt, "9223372036854775807"),
            Datum::BigInt(i64::MAX)
        );
        assert_eq!(
            ok(TypeKind::BigInt, "-9223372036854775808"),
            Datum::BigInt(i64::MIN)
        );
        assert_eq!(ok(TypeKind::TinyInt, "-128"), Datum::TinyInt(-128));
        assert_eq!(ok(TypeKind::SmallInt, "3.0"), Datum::SmallInt(3));
        for bad in [" 7", "7 ", "", "-", "1e3", "7.x", "2147483648", "abc", "'"] {
            let err = parse(TypeKind::Int, bad).unwrap_err().to_string();
            assert!(
                err.contains("column `c`") && err.contains("INT"),
                "{bad}: {err}"
            );
        }
        assert!(parse(TypeKind::TinyInt, "128").is_err());
        assert!(parse(TypeKind::BigInt, "9223372036854775808").is_err());
    }

    #[test]
    fn floats_booleans_and_decimals() {
        assert_eq!(ok(TypeKind::Double, " 1.5d "), Datum::Double(1.5));
        assert_eq!(
            ok(TypeKind::Double, "-Infinity"),
            Datum::Double(f64::NEG_INFINITY)
        );
        assert!(matches!(ok(TypeKind::Float, "NaN"), Datum::Float(v) if v.is_nan()));
        assert_eq!(ok(TypeKind::Float, "1e3"), Datum::Float(1000.0));
        for bad in ["inf", "nan", "1,5", "", "e3", "0x1p3"] {
            assert!(parse(TypeKind::Double, bad).is_err(), "{bad}");
        }
        assert_eq!(ok(TypeKind::Boolean, "YES"), Datum::Boolean(true));
        assert_eq!(ok(TypeKind::Boolean, "0"), Datum::Boolean(false));
        assert!(parse(TypeKind::Boolean, "maybe").is_err());
        let dec = TypeKind::Decimal {
            precision: 5,
            scale: 2,
        };
        assert_eq!(
            ok(dec.clone(), "12.345"),
            Datum::Decimal {
                unscaled: 1235,
                precision: 5,
                scale: 2
            }
        );
        assert_eq!(
            ok(dec.clone(), "-1e2"),
            Datum::Decimal {
                unscaled: -10000,
                precision: 5,
                scale: 2
            }
        );
        // More digits than the precision: NULL in Java, no default here.
        assert_eq!(parse(dec.clone(), "1234.5").unwrap(), None);
        assert!(parse(dec.clone(), "1.2.3").is_err());
        assert!(parse(dec, " 1").is_err());
    }

    #[test]
    fn strings_and_binaries_are_cut_and_padded_to_the_length() {
        assert_eq!(
            ok(TypeKind::VarChar(3), "abcdef"),
            Datum::String("abc".into())
        );
        assert_eq!(ok(TypeKind::Char(4), "'ab'"), Datum::String("ab  ".into()));
        assert_eq!(ok(TypeKind::VarChar(10), "é"), Datum::String("é".into()));
        assert_eq!(ok(TypeKind::Binary(3), "a"), Datum::Bytes(vec![b'a', 0, 0]));
        assert_eq!(
            ok(TypeKind::VarBinary(2), "abc"),
            Datum::Bytes(b"ab".to_vec())
        );
        assert_eq!(
            ok(TypeKind::VarBinary(9), "abc"),
            Datum::Bytes(b"abc".to_vec())
        );
    }

    #[test]
    fn dates_times_and_timestamps() {
        assert_eq!(ok(TypeKind::Date, "1970-01-02"), Datum::Date(1));
        assert_eq!(ok(TypeKind::Date, "3"), Datum::Date(3));
        assert_eq!(ok(TypeKind::Time(0), "01:00:00"), Datum::Time(3_600_000));
        assert_eq!(
            ok(TypeKind::Timestamp(3), "1970-01-01 00:00:01.5"),
            Datum::Timestamp {
                millis: 1500,
                nanos: 0
            }
        );
        assert!(parse(TypeKind::Date, "yesterday").is_err());
    }

    #[test]
    fn types_strata_does_not_convert_are_refused_naming_the_column() {
        for kind in [
            TypeKind::LocalZonedTimestamp(3),
            TypeKind::Array(Box::new(t(TypeKind::Int))),
        ] {
            let err = parse(kind, "x").unwrap_err();
            assert!(
                matches!(&err, SpecError::Unsupported(m) if m.contains("column `c`")),
                "{err}"
            );
        }
        assert!(parse(TypeKind::Variant, "x").is_err());
    }

    #[test]
    fn a_schema_check_names_the_first_bad_column() {
        let mut v = DataField::new(1, "v", t(TypeKind::Int));
        v.default_value = Some("seven".into());
        let mut w = DataField::new(2, "w", t(TypeKind::Int));
        w.default_value = Some("7".into());
        assert!(check_default_values(std::slice::from_ref(&w), true).is_ok());
        let err = check_default_values(&[w.clone(), v], false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("column `v`") && err.contains("seven"), "{err}");
        let mut ltz = DataField::new(3, "l", t(TypeKind::LocalZonedTimestamp(3)));
        ltz.default_value = Some("2024-01-01 00:00:00".into());
        let both = [w, ltz];
        assert!(check_default_values(&both, false).is_ok());
        assert!(check_default_values(&both, true).is_err());
    }
}
