use proptest::prelude::*;

use super::*;
use crate::types::MAX_LENGTH;
use crate::TypeKind;

fn hex(s: &str) -> Vec<u8> {
    let s: String = s
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '|')
        .collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("test hex"))
        .collect()
}

fn int() -> DataType {
    DataType::nullable(TypeKind::Int)
}

fn string() -> DataType {
    DataType::string()
}

fn s(v: &str) -> Option<Datum> {
    Some(Datum::String(v.to_string()))
}

// ---- format reference §6.4 worked examples -------------------------------------------------

#[test]
fn int_and_short_string() {
    let row = BinaryRow::from_datums(&[Some(Datum::Int(5)), s("abc")], &[int(), string()]).unwrap();
    assert_eq!(
        row.to_serialized(),
        hex("00000002 0000000000000000 0500000000000000 6162630000000083")
    );
    assert_eq!(row.arity(), 2);
    assert_eq!(row.size_in_bytes(), 24);
    let back = BinaryRow::from_serialized(&row.to_serialized()).unwrap();
    assert_eq!(back, row);
    assert_eq!(
        back.to_datums(&[int(), string()]).unwrap(),
        vec![Some(Datum::Int(5)), s("abc")]
    );
}

#[test]
fn null_and_short_string() {
    let row = BinaryRow::from_datums(&[None, s("abc")], &[int(), string()]).unwrap();
    assert_eq!(
        row.to_serialized(),
        hex("00000002 | 0001000000000000 | 0000000000000000 | 6162630000000083")
    );
    assert!(row.is_null_at(0));
    assert!(!row.is_null_at(1));
    assert!(row.is_null_at(2), "beyond the arity counts as null");
    assert_eq!(row.get(0, &int()).unwrap(), None);
}

#[test]
fn long_string_goes_to_var_part() {
    let row = BinaryRow::from_datums(
        &[Some(Datum::Int(5)), s("hello, paimon")],
        &[int(), string()],
    )
    .unwrap();
    assert_eq!(
        row.to_serialized(),
        hex(
            "00000002 | 0000000000000000 | 0500000000000000 | 0d00000018000000 |
             68656c6c6f2c207061696d6f6e000000"
        )
    );
    assert_eq!(row.get(1, &string()).unwrap(), s("hello, paimon"));
}

#[test]
fn empty_row() {
    let row = BinaryRow::empty();
    assert_eq!(row.to_serialized(), hex("00000000 0000000000000000"));
    assert_eq!(
        BinaryRow::from_serialized(&hex("00000000 0000000000000000")).unwrap(),
        row
    );
    assert_eq!(BinaryRow::from_datums(&[], &[]).unwrap(), row);
    assert_eq!(row.to_datums(&[]).unwrap(), vec![]);
    assert_eq!(row.row_kind().unwrap(), RowKind::Insert);
}

// ---- other layouts, derived from BinaryRowWriter / RowHelper -------------------------------

#[test]
fn fixed_width_slots() {
    let types = [
        DataType::nullable(TypeKind::Boolean),
        DataType::nullable(TypeKind::TinyInt),
        DataType::nullable(TypeKind::SmallInt),
        DataType::nullable(TypeKind::BigInt),
        DataType::nullable(TypeKind::Float),
        DataType::nullable(TypeKind::Double),
        DataType::nullable(TypeKind::Date),
        DataType::nullable(TypeKind::Time(0)),
    ];
    let values = vec![
        Some(Datum::Boolean(true)),
        Some(Datum::TinyInt(-1)),
        Some(Datum::SmallInt(-2)),
        Some(Datum::BigInt(1 << 40)),
        Some(Datum::Float(1.5)),
        Some(Datum::Double(-2.0)),
        Some(Datum::Date(19723)),
        Some(Datum::Time(3_600_000)),
    ];
    let row = BinaryRow::from_datums(&values, &types).unwrap();
    assert_eq!(
        row.as_bytes(),
        hex("0000000000000000
             0100000000000000
             ff00000000000000
             feff000000000000
             0000000000010000
             0000c03f00000000
             00000000000000c0
             0b4d000000000000
             80ee360000000000")
        .as_slice()
    );
    assert_eq!(row.to_datums(&types).unwrap(), values);
}

#[test]
fn seven_and_eight_byte_strings() {
    let row =
        BinaryRow::from_datums(&[s("1234567"), s("12345678")], &[string(), string()]).unwrap();
    assert_eq!(
        row.as_bytes(),
        hex("0000000000000000 3132333435363787 0800000018000000 3132333435363738").as_slice()
    );
}

#[test]
fn binary_inline_and_var() {
    let ty = DataType::bytes();
    let row = BinaryRow::from_datums(
        &[
            Some(Datum::Bytes(vec![])),
            Some(Datum::Bytes(vec![0xff; 9])),
        ],
        &[ty.clone(), ty.clone()],
    )
    .unwrap();
    assert_eq!(
        row.as_bytes(),
        hex("0000000000000000 0000000000000080 0900000018000000 ffffffffffffffff ff00000000000000")
            .as_slice()
    );
    assert_eq!(row.get(0, &ty).unwrap(), Some(Datum::Bytes(vec![])));
}

fn decimal(p: u32, s: u32) -> DataType {
    DataType::nullable(TypeKind::Decimal {
        precision: p,
        scale: s,
    })
}

fn dec(unscaled: i128, p: u32, s: u32) -> Option<Datum> {
    Some(Datum::Decimal {
        unscaled,
        precision: p,
        scale: s,
    })
}

#[test]
fn compact_decimal_is_a_long() {
    let row = BinaryRow::from_datums(&[dec(-100001, 10, 2)], &[decimal(10, 2)]).unwrap();
    assert_eq!(
        row.as_bytes(),
        hex("0000000000000000 5f79feffffffffff").as_slice()
    );
}

#[test]
fn compact_decimal_read_leniently() {
    // A writer that put 1000 into a DECIMAL(3, 0) slot: Java reads the long as is.
    let row = BinaryRow::from_row_bytes(1, hex("0000000000000000 e803000000000000")).unwrap();
    assert_eq!(row.get(0, &decimal(3, 0)).unwrap(), dec(1000, 3, 0));
    // Non-compact: 10^20 in a DECIMAL(20, 0) is corrupt.
    let row = BinaryRow::from_row_bytes(
        1,
        hex("0000000000000000 0900000010000000 056bc75e2d631000 0000000000000000"),
    )
    .unwrap();
    assert!(row.get(0, &decimal(20, 0)).is_err());
}

#[test]
fn non_compact_decimal_reserves_16_bytes() {
    let ty = decimal(20, 2);
    let row = BinaryRow::from_datums(&[dec(1234, 20, 2)], std::slice::from_ref(&ty)).unwrap();
    assert_eq!(
        row.as_bytes(),
        hex("0000000000000000 0200000010000000 04d2000000000000 0000000000000000").as_slice()
    );
    assert_eq!(row.get(0, &ty).unwrap(), dec(1234, 20, 2));

    // Minimal two's complement, as BigInteger.toByteArray.
    for (v, bytes) in [
        (0i128, "00"),
        (-1, "ff"),
        (127, "7f"),
        (128, "0080"),
        (-128, "80"),
        (-129, "ff7f"),
        (10i128.pow(38) - 1, "4b3b4ca85a86c47a098a223fffffffff"),
        (-(10i128.pow(38) - 1), "b4c4b357a5793b85f675ddc000000001"),
    ] {
        assert_eq!(encode::unscaled_to_be_bytes(v), hex(bytes), "{v}");
        assert_eq!(decode::be_bytes_to_unscaled(&hex(bytes)), Some(v));
    }
}

#[test]
fn null_non_compact_decimal_keeps_offset() {
    let ty = decimal(38, 10);
    let row = BinaryRow::from_datums(&[None], std::slice::from_ref(&ty)).unwrap();
    assert_eq!(
        row.as_bytes(),
        hex("0001000000000000 0000000010000000 0000000000000000 0000000000000000").as_slice()
    );
    assert_eq!(row.get(0, &ty).unwrap(), None);
}

#[test]
fn timestamps() {
    let compact = DataType::nullable(TypeKind::Timestamp(3));
    let precise = DataType::nullable(TypeKind::LocalZonedTimestamp(6));
    let row = BinaryRow::from_datums(
        &[
            Some(Datum::Timestamp {
                millis: -1,
                nanos: 0,
            }),
            Some(Datum::TimestampLtz {
                millis: 1,
                nanos: 500,
            }),
            None,
        ],
        &[compact.clone(), precise.clone(), precise.clone()],
    )
    .unwrap();
    // W = 8, slots 8..32, then 8 bytes for field 1 at 32 and 8 zero bytes for null field 2 at 40.
    assert_eq!(
        row.as_bytes(),
        hex(
            "0004000000000000 ffffffffffffffff f401000020000000 0000000028000000
             0100000000000000 0000000000000000"
        )
        .as_slice()
    );
    assert_eq!(
        row.to_datums(&[compact, precise.clone(), precise]).unwrap(),
        vec![
            Some(Datum::Timestamp {
                millis: -1,
                nanos: 0
            }),
            Some(Datum::TimestampLtz {
                millis: 1,
                nanos: 500
            }),
            None
        ]
    );
}

#[test]
fn wide_row_null_bits() {
    // 57 fields need a 16-byte header: 8 header bits + 57 null bits > 64.
    assert_eq!(null_bits_size_in_bytes(56), 8);
    assert_eq!(null_bits_size_in_bytes(57), 16);
    let types = vec![int(); 57];
    let mut values = vec![Some(Datum::Int(1)); 57];
    values[56] = None;
    let row = BinaryRow::from_datums(&values, &types).unwrap();
    assert_eq!(row.size_in_bytes(), 16 + 57 * 8);
    assert_eq!(row.as_bytes()[8], 0x01, "bit 64 = field 56");
    assert!(row.is_null_at(56));
    assert_eq!(row.to_datums(&types).unwrap(), values);
}

#[test]
fn row_kind_byte() {
    let mut row = BinaryRow::from_datums(&[Some(Datum::Int(1))], &[int()]).unwrap();
    row.set_row_kind(RowKind::Delete);
    assert_eq!(row.as_bytes()[0], 3);
    assert_eq!(row.row_kind().unwrap(), RowKind::Delete);
    assert_eq!(RowKind::UpdateBefore.short_string(), "-U");
}

#[test]
fn debug_is_hex() {
    let row = BinaryRow::from_datums(&[Some(Datum::Int(5))], &[int()]).unwrap();
    assert_eq!(
        format!("{row:?}"),
        "BinaryRow(arity=1, 0000000000000000 0500000000000000)"
    );
}

// ---- errors ---------------------------------------------------------------------------------

#[test]
fn mismatched_datum_is_an_error() {
    let err = BinaryRow::from_datums(&[Some(Datum::BigInt(1))], &[int()]).unwrap_err();
    assert!(err.to_string().contains("field 0 of type INT"), "{err}");
    assert!(BinaryRow::from_datums(&[dec(1, 10, 3)], &[decimal(10, 2)]).is_err());
    assert!(BinaryRow::from_datums(&[dec(1000, 3, 0)], &[decimal(3, 0)]).is_err());
    assert!(BinaryRow::from_datums(&[], &[int()]).is_err());
    let nested = DataType::nullable(TypeKind::Array(Box::new(int())));
    assert!(matches!(
        BinaryRow::from_datums(&[Some(Datum::Int(1))], &[nested]),
        Err(SpecError::Unsupported(_))
    ));
}

#[test]
fn get_checks_index_and_bounds() {
    let row = BinaryRow::from_datums(&[s("hello, paimon")], &[string()]).unwrap();
    let err = row.get(1, &string()).unwrap_err();
    assert!(err.to_string().contains("field 1"), "{err}");
    assert!(row.to_datums(&[string(), string()]).is_err());

    // Slot pointing past the end.
    let mut bytes = row.to_serialized();
    bytes[4 + 8 + 4] = 0x40;
    let bad = BinaryRow::from_serialized(&bytes).unwrap();
    let err = bad.get(0, &string()).unwrap_err();
    assert!(err.to_string().contains("field 0 of type STRING"), "{err}");
}

#[test]
fn from_serialized_rejects_bad_input() {
    assert!(BinaryRow::from_serialized(&[]).is_err());
    assert!(BinaryRow::from_serialized(&[0, 0, 0]).is_err());
    assert!(BinaryRow::from_serialized(&hex("00000000 00000000")).is_err());
    assert!(BinaryRow::from_serialized(&hex("ffffffff 0000000000000000")).is_err());
    assert!(BinaryRow::from_serialized(&hex("7fffffff 0000000000000000")).is_err());
    assert!(BinaryRow::from_serialized(&hex("00000001 0000000000000000")).is_err());
}

// ---- properties -----------------------------------------------------------------------------

/// An atomic type and a value of it (or NULL).
fn typed_value() -> impl Strategy<Value = (DataType, Option<Datum>)> {
    let value = prop_oneof![
        any::<bool>().prop_map(|v| (TypeKind::Boolean, Datum::Boolean(v))),
        any::<i8>().prop_map(|v| (TypeKind::TinyInt, Datum::TinyInt(v))),
        any::<i16>().prop_map(|v| (TypeKind::SmallInt, Datum::SmallInt(v))),
        any::<i32>().prop_map(|v| (TypeKind::Int, Datum::Int(v))),
        any::<i64>().prop_map(|v| (TypeKind::BigInt, Datum::BigInt(v))),
        any::<f32>()
            .prop_filter("NaN != NaN", |v| !v.is_nan())
            .prop_map(|v| (TypeKind::Float, Datum::Float(v))),
        any::<f64>()
            .prop_filter("NaN != NaN", |v| !v.is_nan())
            .prop_map(|v| (TypeKind::Double, Datum::Double(v))),
        (1u32..=38, any::<i128>(), any::<u32>()).prop_map(|(p, raw, s)| {
            let s = s % (p + 1);
            let unscaled = raw % 10i128.pow(p);
            (
                TypeKind::Decimal {
                    precision: p,
                    scale: s,
                },
                Datum::Decimal {
                    unscaled,
                    precision: p,
                    scale: s,
                },
            )
        }),
        (".{0,20}", 1u32..10).prop_map(|(v, n)| (TypeKind::Char(n), Datum::String(v))),
        ".{0,20}".prop_map(|v| (TypeKind::VarChar(MAX_LENGTH), Datum::String(v))),
        proptest::collection::vec(any::<u8>(), 0..20)
            .prop_map(|v| (TypeKind::VarBinary(MAX_LENGTH), Datum::Bytes(v))),
        proptest::collection::vec(any::<u8>(), 0..20)
            .prop_map(|v| (TypeKind::Binary(v.len().max(1) as u32), Datum::Bytes(v))),
        any::<i32>().prop_map(|v| (TypeKind::Date, Datum::Date(v))),
        (0i32..86_400_000).prop_map(|v| (TypeKind::Time(3), Datum::Time(v))),
        (0u32..=9, any::<i64>(), 0i32..1_000_000).prop_map(|(p, millis, nanos)| {
            let nanos = if p <= 3 { 0 } else { nanos };
            (TypeKind::Timestamp(p), Datum::Timestamp { millis, nanos })
        }),
        (0u32..=9, any::<i64>(), 0i32..1_000_000).prop_map(|(p, millis, nanos)| {
            let nanos = if p <= 3 { 0 } else { nanos };
            (
                TypeKind::LocalZonedTimestamp(p),
                Datum::TimestampLtz { millis, nanos },
            )
        }),
    ];
    (value, any::<bool>()).prop_map(|((kind, d), is_null)| {
        (
            DataType::nullable(kind),
            if is_null { None } else { Some(d) },
        )
    })
}

proptest! {
    #[test]
    fn round_trip(fields in proptest::collection::vec(typed_value(), 0..70)) {
        let (types, values): (Vec<_>, Vec<_>) = fields.into_iter().unzip();
        let row = BinaryRow::from_datums(&values, &types).unwrap();
        prop_assert_eq!(row.size_in_bytes() % 8, 0);
        let bytes = row.to_serialized();
        let back = BinaryRow::from_serialized(&bytes).unwrap();
        prop_assert_eq!(&back, &row);
        prop_assert_eq!(back.to_datums(&types).unwrap(), values);
    }

    #[test]
    fn truncated_bytes_never_panic(
        fields in proptest::collection::vec(typed_value(), 1..10),
        cut in any::<usize>(),
    ) {
        let (types, values): (Vec<_>, Vec<_>) = fields.into_iter().unzip();
        let bytes = BinaryRow::from_datums(&values, &types).unwrap().to_serialized();
        let cut = cut % bytes.len();
        let fixed = 4 + fixed_part_size_in_bytes(types.len());
        match BinaryRow::from_serialized(&bytes[..cut]) {
            Err(_) => prop_assert!(cut < fixed),
            Ok(row) => {
                prop_assert!(cut >= fixed);
                // Either an error or the values, never a panic.
                if let Ok(decoded) = row.to_datums(&types) {
                    prop_assert_eq!(decoded, values);
                }
            }
        }
    }

    #[test]
    fn garbage_never_panics(
        bytes in proptest::collection::vec(any::<u8>(), 0..80),
        fields in proptest::collection::vec(typed_value(), 0..6),
    ) {
        let types: Vec<_> = fields.into_iter().map(|(t, _)| t).collect();
        let mut framed = (types.len() as i32).to_be_bytes().to_vec();
        framed.extend_from_slice(&bytes);
        if let Ok(row) = BinaryRow::from_serialized(&framed) {
            let _ = row.to_datums(&types);
            let _ = row.row_kind();
        }
        let _ = BinaryRow::from_serialized(&bytes);
    }
}
