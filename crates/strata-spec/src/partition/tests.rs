use super::text::*;
use super::*;
use crate::types::MAX_LENGTH;
use crate::value_text::days_from_civil;
use crate::{DataField, DataType, TypeKind};

fn computer(fields: &[(&str, TypeKind)], legacy: bool) -> PartitionComputer {
    let fields = fields
        .iter()
        .enumerate()
        .map(|(i, (n, k))| DataField::new(i as i32, *n, DataType::nullable(k.clone())))
        .collect();
    PartitionComputer::new(RowType::new(fields), DEFAULT_PARTITION_NAME, legacy)
}

fn s(v: &str) -> Option<Datum> {
    Some(Datum::String(v.to_string()))
}

// ---- escaping -------------------------------------------------------------------------------

#[test]
fn escape_special_characters() {
    assert_eq!(escape_path_name("2024-01-01"), "2024-01-01");
    assert_eq!(escape_path_name("12:30"), "12%3A30");
    assert_eq!(escape_path_name("a/b=c"), "a%2Fb%3Dc");
    assert_eq!(
        escape_path_name("\"#%'*/:=?\\{}[]^"),
        "%22%23%25%27%2A%2F%3A%3D%3F%5C%7B%7D%5B%5D%5E"
    );
    assert_eq!(
        escape_path_name("\u{0}\u{1}\n\u{1F}\u{7F}"),
        "%00%01%0A%1F%7F"
    );
    assert_eq!(escape_path_name("a b-c_d.e~f"), "a b-c_d.e~f");
    assert_eq!(escape_path_name("日本 é 😀"), "日本 é 😀");
    assert_eq!(escape_path_name(""), "");
}

#[test]
fn unescape_like_java() {
    assert_eq!(unescape_path_name("12%3A30"), "12:30");
    assert_eq!(unescape_path_name("a%2Fb%3Dc"), "a/b=c");
    assert_eq!(unescape_path_name("%"), "%");
    assert_eq!(unescape_path_name("%4"), "%4");
    assert_eq!(unescape_path_name("%zz"), "%zz");
    assert_eq!(unescape_path_name("100%"), "100%");
    // Java's parseInt accepts a sign: "+F" is 15, "-1" is negative and kept.
    assert_eq!(unescape_path_name("%+F"), "\u{F}");
    assert_eq!(unescape_path_name("%-1"), "%-1");
    // Each escape is one char U+00XX, not a UTF-8 byte.
    assert_eq!(unescape_path_name("%C3%A9"), "\u{C3}\u{A9}");
    assert_eq!(unescape_path_name("%3a"), ":");
    for v in ["a:b/c", "%%", "x=y?z", "\u{0}\u{7F}", "日本"] {
        assert_eq!(unescape_path_name(&escape_path_name(v)), v);
    }
}

// ---- paths ----------------------------------------------------------------------------------

#[test]
fn path_with_legacy_names() {
    let c = computer(&[("dt", TypeKind::Date), ("hr", TypeKind::Int)], true);
    let values = [Some(Datum::Date(19723)), Some(Datum::Int(3))];
    assert_eq!(c.partition_path(&values), "dt=19723/hr=3/");
    assert_eq!(
        c.to_map(&values),
        vec![("dt".into(), "19723".into()), ("hr".into(), "3".into())]
    );
    assert_eq!(
        c.partition_path(&[None, None]),
        "dt=__DEFAULT_PARTITION__/hr=__DEFAULT_PARTITION__/"
    );
    let row = BinaryRow::from_datums(&values, &c.partition_type().types()).unwrap();
    assert_eq!(c.partition_path_of_row(&row).unwrap(), "dt=19723/hr=3/");
}

#[test]
fn path_with_cast_names() {
    let c = computer(
        &[("dt", TypeKind::Date), ("ts", TypeKind::Timestamp(0))],
        false,
    );
    let values = [
        Some(Datum::Date(19723)),
        Some(Datum::Timestamp {
            millis: 1_704_112_200_000,
            nanos: 0,
        }),
    ];
    assert_eq!(
        c.partition_path(&values),
        "dt=2024-01-01/ts=2024-01-01 12%3A30%3A00/"
    );
}

#[test]
fn unpartitioned_path_is_empty() {
    let c = PartitionComputer::new(RowType::default(), DEFAULT_PARTITION_NAME, true);
    assert_eq!(c.partition_path(&[]), "");
    assert_eq!(c.partition_path_of_row(&BinaryRow::empty()).unwrap(), "");
}

#[test]
fn blank_and_escaped_strings() {
    let c = computer(&[("k", TypeKind::VarChar(MAX_LENGTH))], true);
    assert_eq!(c.value_text(0, &s("")), DEFAULT_PARTITION_NAME);
    assert_eq!(c.value_text(0, &s(" \t\n")), DEFAULT_PARTITION_NAME);
    // NBSP is not whitespace to Java.
    assert_eq!(c.value_text(0, &s("\u{A0}")), "\u{A0}");
    assert_eq!(c.partition_path(&[s("a/b")]), "k=a%2Fb/");
    let custom = PartitionComputer::new(c.partition_type().clone(), "null", true);
    assert_eq!(custom.partition_path(&[None]), "k=null/");
    assert_eq!(custom.parse_value(0, "null").unwrap(), None);
}

// ---- value text per type --------------------------------------------------------------------

#[test]
fn legacy_text_per_type() {
    assert_eq!(legacy_text(&Datum::Boolean(true)), "true");
    assert_eq!(legacy_text(&Datum::TinyInt(-5)), "-5");
    assert_eq!(
        legacy_text(&Datum::BigInt(i64::MIN)),
        "-9223372036854775808"
    );
    assert_eq!(legacy_text(&Datum::Date(1)), "1");
    assert_eq!(legacy_text(&Datum::Date(19723)), "19723");
    assert_eq!(legacy_text(&Datum::Time(45_000_000)), "45000000");
    assert_eq!(
        legacy_text(&Datum::Decimal {
            unscaled: -100001,
            precision: 10,
            scale: 2
        }),
        "-1000.01"
    );
    assert_eq!(
        legacy_text(&Datum::Decimal {
            unscaled: 5,
            precision: 10,
            scale: 3
        }),
        "0.005"
    );
    assert_eq!(legacy_text(&Datum::String("x y".into())), "x y");
}

/// `LocalDateTime.toString()` values printed by a JDK 17.
#[test]
fn legacy_timestamp_text() {
    let day_2026 = 20454i64 * 86_400_000;
    let at = |ms: i64, nanos: i32| local_date_time_to_string(day_2026 + ms, nanos);
    assert_eq!(at(12 * 3_600_000, 0), "2026-01-01T12:00");
    assert_eq!(at(12 * 3_600_000 + 5000, 0), "2026-01-01T12:00:05");
    assert_eq!(at(12 * 3_600_000 + 123, 0), "2026-01-01T12:00:00.123");
    assert_eq!(
        at(12 * 3_600_000 + 123, 400_000),
        "2026-01-01T12:00:00.123400"
    );
    assert_eq!(at(12 * 3_600_000, 1), "2026-01-01T12:00:00.000000001");
    assert_eq!(local_date_time_to_string(-1, 0), "1969-12-31T23:59:59.999");
    let year = |y: i64| days_from_civil(y, 1, 1) * 86_400_000;
    assert_eq!(local_date_time_to_string(year(-5), 0), "-0005-01-01T00:00");
    assert_eq!(
        local_date_time_to_string(year(12345), 0),
        "+12345-01-01T00:00"
    );
    assert_eq!(local_date_time_to_string(year(999), 0), "0999-01-01T00:00");
    let ltz = Datum::TimestampLtz {
        millis: day_2026 + 12 * 3_600_000,
        nanos: 0,
    };
    assert_eq!(legacy_text(&ltz), "2026-01-01T12:00");
}

/// `Double.toString` / `Float.toString` values printed by a JDK 17.
#[test]
fn java_float_text() {
    for (v, t) in [
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (1.0, "1.0"),
        (100.5, "100.5"),
        (1e7, "1.0E7"),
        (9999999.0, "9999999.0"),
        (1e-3, "0.001"),
        (9.99e-4, "9.99E-4"),
        (1.234e-5, "1.234E-5"),
        (1e10, "1.0E10"),
        (123456789.125, "1.23456789125E8"),
        (0.1, "0.1"),
        (1.0 / 3.0, "0.3333333333333333"),
        (f64::MAX, "1.7976931348623157E308"),
        (f64::MIN_POSITIVE * f64::EPSILON, "4.9E-324"),
        (-2.5e-7, "-2.5E-7"),
        (1e21, "1.0E21"),
        (12345.678, "12345.678"),
        (f64::NAN, "NaN"),
        (f64::NEG_INFINITY, "-Infinity"),
    ] {
        assert_eq!(java_double_to_string(v), t, "{v:e}");
    }
    for (v, t) in [
        (0.1f32, "0.1"),
        (1.0f32 / 3.0, "0.33333334"),
        (1e7f32, "1.0E7"),
        (1.5e-4f32, "1.5E-4"),
        (f32::MAX, "3.4028235E38"),
        (123.456f32, "123.456"),
        (1e-45f32, "1.4E-45"),
    ] {
        assert_eq!(java_float_to_string(v), t, "{v:e}");
    }
}

#[test]
fn cast_text_per_type() {
    let ts = |p: u32| DataType::nullable(TypeKind::Timestamp(p));
    let noon = Datum::Timestamp {
        millis: 1_704_110_400_000,
        nanos: 0,
    };
    assert_eq!(cast_text(&Datum::Date(19723), None), "2024-01-01");
    assert_eq!(cast_text(&Datum::Date(-1), None), "1969-12-31");
    assert_eq!(cast_text(&noon, Some(&ts(0))), "2024-01-01 12:00:00");
    assert_eq!(cast_text(&noon, Some(&ts(3))), "2024-01-01 12:00:00.000");
    let precise = Datum::Timestamp {
        millis: 1_704_110_400_123,
        nanos: 456_000,
    };
    assert_eq!(
        cast_text(&precise, Some(&ts(9))),
        "2024-01-01 12:00:00.123456000"
    );
    assert_eq!(
        cast_text(&precise, Some(&ts(3))),
        "2024-01-01 12:00:00.123456"
    );
    let time = |p: u32| DataType::nullable(TypeKind::Time(p));
    assert_eq!(
        cast_text(&Datum::Time(45_000_500), Some(&time(0))),
        "12:30:00"
    );
    assert_eq!(
        cast_text(&Datum::Time(45_000_500), Some(&time(3))),
        "12:30:00.5"
    );
    assert_eq!(
        cast_text(&Datum::Time(45_000_000), Some(&time(3))),
        "12:30:00.0"
    );
    assert_eq!(
        cast_text(&Datum::Time(45_000_123), Some(&time(2))),
        "12:30:00.12"
    );
    assert_eq!(cast_text(&Datum::Int(7), None), "7");
    assert_eq!(cast_text(&Datum::Bytes(b"ab".to_vec()), None), "ab");
}

// ---- parsing --------------------------------------------------------------------------------

#[test]
fn parse_dates_both_forms() {
    let c = computer(&[("dt", TypeKind::Date)], true);
    assert_eq!(c.parse_value(0, "19723").unwrap(), Some(Datum::Date(19723)));
    assert_eq!(
        c.parse_value(0, "2024-01-01").unwrap(),
        Some(Datum::Date(19723))
    );
    assert_eq!(
        c.parse_value(0, "2024-1-1").unwrap(),
        Some(Datum::Date(19723))
    );
    assert_eq!(
        c.parse_value(0, "2024-01-01 10:00:00").unwrap(),
        Some(Datum::Date(19723))
    );
    assert_eq!(c.parse_value(0, "-1").unwrap(), Some(Datum::Date(-1)));
    assert_eq!(
        c.parse_value(0, "1970-01-02").unwrap(),
        Some(Datum::Date(1))
    );
    assert_eq!(c.parse_value(0, DEFAULT_PARTITION_NAME).unwrap(), None);
    for bad in [
        "2023-02-29",
        "2024-04-31",
        "2024-13-01",
        "x",
        "",
        "2024-01-01x",
    ] {
        let err = c.parse_value(0, bad).unwrap_err();
        assert!(
            err.to_string().contains("partition column dt of type DATE"),
            "{err}"
        );
    }
    assert_eq!(
        c.parse_value(0, "2024-02-29").unwrap(),
        Some(Datum::Date(19782))
    );
}

#[test]
fn parse_timestamps_both_forms() {
    let c = computer(
        &[
            ("ts", TypeKind::Timestamp(3)),
            ("tp", TypeKind::Timestamp(6)),
        ],
        true,
    );
    let noon = 1_704_110_400_000;
    for text in [
        "2024-01-01T12:00",
        "2024-01-01 12:00:00",
        "2024-01-01T12:00:00.000",
    ] {
        assert_eq!(
            c.parse_value(0, text).unwrap(),
            Some(Datum::Timestamp {
                millis: noon,
                nanos: 0
            }),
            "{text}"
        );
    }
    assert_eq!(
        c.parse_value(0, "2024-01-01 12:00:00.123456").unwrap(),
        Some(Datum::Timestamp {
            millis: noon + 123,
            nanos: 0
        })
    );
    assert_eq!(
        c.parse_value(1, "2024-01-01T12:00:00.123456789").unwrap(),
        Some(Datum::Timestamp {
            millis: noon + 123,
            nanos: 456_000
        })
    );
    assert_eq!(
        c.parse_value(0, "1704110400000").unwrap(),
        Some(Datum::Timestamp {
            millis: noon,
            nanos: 0
        })
    );
    assert_eq!(
        c.parse_value(1, "-1").unwrap(),
        Some(Datum::Timestamp {
            millis: -1,
            nanos: 999_000
        })
    );
    assert!(c.parse_value(0, "2024-01-01T25:00").is_err());
    assert!(c.parse_value(0, "2024-01-01T12").is_err());
}

#[test]
fn parse_other_types() {
    let c = computer(
        &[
            ("b", TypeKind::Boolean),
            ("i", TypeKind::TinyInt),
            (
                "d",
                TypeKind::Decimal {
                    precision: 5,
                    scale: 2,
                },
            ),
            ("f", TypeKind::Double),
            ("t", TypeKind::Time(0)),
            ("s", TypeKind::VarChar(3)),
            ("x", TypeKind::VarBinary(MAX_LENGTH)),
        ],
        true,
    );
    assert_eq!(c.parse_value(0, "Yes").unwrap(), Some(Datum::Boolean(true)));
    assert_eq!(c.parse_value(0, "0").unwrap(), Some(Datum::Boolean(false)));
    assert!(c.parse_value(0, "maybe").is_err());
    assert_eq!(
        c.parse_value(1, "-128").unwrap(),
        Some(Datum::TinyInt(-128))
    );
    assert!(c.parse_value(1, "128").is_err());
    let dec = |u: i128| {
        Some(Datum::Decimal {
            unscaled: u,
            precision: 5,
            scale: 2,
        })
    };
    assert_eq!(c.parse_value(2, "123.45").unwrap(), dec(12345));
    assert_eq!(c.parse_value(2, "-1.005").unwrap(), dec(-101));
    assert_eq!(c.parse_value(2, "-1.004").unwrap(), dec(-100));
    assert_eq!(c.parse_value(2, "1.5E1").unwrap(), dec(1500));
    assert_eq!(c.parse_value(2, ".5").unwrap(), dec(50));
    assert_eq!(c.parse_value(2, "0.004").unwrap(), dec(0));
    assert_eq!(c.parse_value(2, "0.005").unwrap(), dec(1));
    assert!(c.parse_value(2, "1000").is_err(), "needs 6 digits");
    assert!(c.parse_value(2, "1.2.3").is_err());
    assert_eq!(
        c.parse_value(3, "1.0E10").unwrap(),
        Some(Datum::Double(1e10))
    );
    assert_eq!(
        c.parse_value(3, "-Infinity").unwrap(),
        Some(Datum::Double(f64::NEG_INFINITY))
    );
    assert!(c.parse_value(3, "inf").is_err());
    assert_eq!(
        c.parse_value(4, "12:30").unwrap(),
        Some(Datum::Time(45_000_000))
    );
    assert_eq!(
        c.parse_value(4, "12:30:00.5").unwrap(),
        Some(Datum::Time(45_000_500))
    );
    assert_eq!(
        c.parse_value(4, "45000000").unwrap(),
        Some(Datum::Time(45_000_000))
    );
    assert_eq!(c.parse_value(5, "abc").unwrap(), s("abc"));
    assert!(c.parse_value(5, "abcd").is_err());
    assert_eq!(
        c.parse_value(6, "hi").unwrap(),
        Some(Datum::Bytes(b"hi".to_vec()))
    );
    assert!(c.parse_value(7, "x").is_err(), "index out of range");
}

#[test]
fn text_round_trips_through_parse() {
    let kinds = [
        (TypeKind::Date, Datum::Date(-719_162)),
        (TypeKind::Date, Datum::Date(19723)),
        (TypeKind::Time(3), Datum::Time(45_000_123)),
        (
            TypeKind::Timestamp(9),
            Datum::Timestamp {
                millis: -1,
                nanos: 999_999,
            },
        ),
        (
            TypeKind::Timestamp(6),
            Datum::Timestamp {
                millis: 1_704_110_400_123,
                nanos: 456_000,
            },
        ),
        (
            TypeKind::Timestamp(0),
            Datum::Timestamp {
                millis: 1_704_110_400_000,
                nanos: 0,
            },
        ),
        (
            TypeKind::Decimal {
                precision: 38,
                scale: 10,
            },
            Datum::Decimal {
                unscaled: -(10i128.pow(38) - 1),
                precision: 38,
                scale: 10,
            },
        ),
        (TypeKind::Double, Datum::Double(1.0 / 3.0)),
        (TypeKind::Float, Datum::Float(0.1)),
        (TypeKind::BigInt, Datum::BigInt(i64::MAX)),
    ];
    for legacy in [true, false] {
        for (kind, datum) in &kinds {
            let c = computer(&[("k", kind.clone())], legacy);
            let text = c.value_text(0, &Some(datum.clone()));
            assert_eq!(
                c.parse_value(0, &text).unwrap(),
                Some(datum.clone()),
                "legacy={legacy} {text}"
            );
        }
    }
}

#[test]
fn specs() {
    let c = computer(&[("dt", TypeKind::Date), ("hr", TypeKind::Int)], true);
    let spec = |kv: &[(&str, &str)]| -> Vec<(String, String)> {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    assert_eq!(
        c.parse_spec(&spec(&[("hr", "3"), ("dt", "2024-01-01")]))
            .unwrap(),
        vec![Some(Datum::Date(19723)), Some(Datum::Int(3))]
    );
    assert_eq!(
        c.parse_partial_spec(&spec(&[("hr", DEFAULT_PARTITION_NAME)]))
            .unwrap(),
        vec![(1, None)]
    );
    let err = c.parse_spec(&spec(&[("hr", "3")])).unwrap_err();
    assert!(
        err.to_string().contains("missing partition columns: dt"),
        "{err}"
    );
    assert!(c.parse_partial_spec(&spec(&[("x", "1")])).is_err());
    assert!(c
        .parse_partial_spec(&spec(&[("hr", "1"), ("hr", "2")]))
        .is_err());
    assert_eq!(
        partition_path_of_spec(&spec(&[("a:b", "c/d")])),
        "a%3Ab=c%2Fd/"
    );
}
