//! Input alignment (`cast_batch_to_schema`) and Datum conversions.

use arrow_array::{Date32Array, Int64Array, LargeStringArray, TimestampSecondArray};
use proptest::prelude::*;

use super::*;
use crate::error::ErrorDetail;
use crate::Error;

fn table() -> RowType {
    RowType::new(vec![
        DataField::new(0, "id", not_null(TypeKind::Int)),
        DataField::new(1, "name", DataType::string()),
        DataField::new(2, "day", nullable(TypeKind::Date)),
        DataField::new(3, "at", nullable(TypeKind::Timestamp(3))),
    ])
}

fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    let schema = Schema::new(
        columns
            .iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
            .collect::<Vec<_>>(),
    );
    RecordBatch::try_new(
        Arc::new(schema),
        columns.into_iter().map(|(_, a)| a).collect(),
    )
    .unwrap()
}

fn column_of(err: &Error) -> &str {
    match err.detail() {
        ErrorDetail::SchemaMismatch { column, .. } => column,
        other => panic!("expected SchemaMismatch, got {other}"),
    }
}

#[test]
fn aligns_by_name_with_casts_and_fills_missing() {
    let target = to_arrow_schema(&table()).unwrap();
    let input = batch(vec![
        (
            "day",
            Arc::new(StringArray::from(vec![Some("2024-01-01"), None])),
        ),
        ("id", Arc::new(Int64Array::from(vec![1, 2]))),
        (
            "at",
            Arc::new(TimestampSecondArray::from(vec![Some(1), None]).with_timezone("UTC")),
        ),
    ]);
    let out = cast_batch_to_schema(&input, &target, "writing t").unwrap();
    assert_eq!(out.schema(), target);
    let day = out
        .column(2)
        .as_any()
        .downcast_ref::<Date32Array>()
        .unwrap();
    assert_eq!(day.value(0), 19723);
    assert!(day.is_null(1));
    assert_eq!(
        out.column(1).null_count(),
        2,
        "missing nullable column is NULL"
    );
    assert_eq!(
        datum_at(out.column(3).as_ref(), 0).unwrap(),
        Some(Datum::Timestamp {
            millis: 1000,
            nanos: 0
        })
    );
    let large = batch(vec![
        ("id", Arc::new(Int32Array::from(vec![5]))),
        ("name", Arc::new(LargeStringArray::from(vec!["n"]))),
    ]);
    let out = cast_batch_to_schema(&large, &target, "writing t").unwrap();
    assert_eq!(
        datum_at(out.column(1).as_ref(), 0).unwrap(),
        Some(Datum::String("n".into()))
    );
}

#[test]
fn rejects_bad_input_naming_the_column() {
    let target = to_arrow_schema(&table()).unwrap();
    let extra = batch(vec![
        ("id", Arc::new(Int32Array::from(vec![1]))),
        ("bogus", Arc::new(Int32Array::from(vec![1]))),
        ("other", Arc::new(Int32Array::from(vec![1]))),
    ]);
    let err = cast_batch_to_schema(&extra, &target, "writing t").unwrap_err();
    assert_eq!(column_of(&err), "bogus, other");

    let missing = batch(vec![("name", Arc::new(StringArray::from(vec!["x"])))]);
    let err = cast_batch_to_schema(&missing, &target, "writing t").unwrap_err();
    assert_eq!(column_of(&err), "id");

    let overflow = batch(vec![("id", Arc::new(Int64Array::from(vec![1, 1 << 40])))]);
    let err = cast_batch_to_schema(&overflow, &target, "writing t").unwrap_err();
    assert_eq!(column_of(&err), "id");
    assert!(err.to_string().contains("writing t"), "{err}");

    let nulls = batch(vec![(
        "id",
        Arc::new(Int32Array::from(vec![Some(1), None])),
    )]);
    let err = cast_batch_to_schema(&nulls, &target, "writing t").unwrap_err();
    assert_eq!(column_of(&err), "id");

    let bad_date = batch(vec![
        ("id", Arc::new(Int32Array::from(vec![1]))),
        ("day", Arc::new(StringArray::from(vec!["yesterday"]))),
    ]);
    let err = cast_batch_to_schema(&bad_date, &target, "writing t").unwrap_err();
    assert_eq!(column_of(&err), "day");

    let wrong_kind = batch(vec![
        ("id", Arc::new(Int32Array::from(vec![1]))),
        ("at", all_types_batch().column(21).slice(0, 1)),
    ]);
    let err = cast_batch_to_schema(&wrong_kind, &target, "writing t").unwrap_err();
    assert_eq!(column_of(&err), "at");
}

#[test]
fn nested_not_null_is_checked_with_a_path() {
    let row_type = RowType::new(vec![DataField::new(
        0,
        "r",
        nullable(TypeKind::Row(vec![DataField::new(
            1,
            "x",
            not_null(TypeKind::Int),
        )])),
    )]);
    let target = to_arrow_schema(&row_type).unwrap();
    let fields = Fields::from(vec![Field::new("x", ArrowType::Int32, true)]);
    let make = |validity: Vec<bool>| {
        let r = StructArray::try_new(
            fields.clone(),
            vec![Arc::new(Int32Array::from(vec![Some(1), None]))],
            Some(validity.into()),
        )
        .unwrap();
        batch(vec![("r", Arc::new(r))])
    };
    // NULL x under a NULL struct is fine.
    cast_batch_to_schema(&make(vec![true, false]), &target, "t").unwrap();
    let err = cast_batch_to_schema(&make(vec![true, true]), &target, "t").unwrap_err();
    assert_eq!(column_of(&err), "r.x");
}

#[test]
fn nested_names_follow_the_table() {
    let b = all_types_batch();
    let ArrowType::List(element) = b.schema().field(21).data_type().clone() else {
        panic!("list expected")
    };
    assert_eq!(element.name(), "element");
    let ArrowType::Map(entries, _) = b.schema().field(22).data_type().clone() else {
        panic!("map expected")
    };
    assert_eq!(entries.name(), "key_value");
    let ArrowType::Struct(kv) = entries.data_type() else {
        panic!("struct expected")
    };
    assert_eq!(
        (kv[0].name().as_str(), kv[1].name().as_str()),
        ("key", "value")
    );
}

#[test]
fn datum_round_trip_of_every_atomic_type() {
    let b = all_types_batch();
    let row_type = all_types();
    for (i, field) in row_type.fields.iter().enumerate() {
        if field.data_type.is_nested() {
            assert!(datum_at(b.column(i).as_ref(), 0).is_err());
            continue;
        }
        let values: Vec<Option<Datum>> = (0..b.num_rows())
            .map(|r| datum_at(b.column(i).as_ref(), r).unwrap())
            .collect();
        let rebuilt = datums_to_array(&values, &field.data_type).unwrap();
        assert_eq!(&rebuilt, b.column(i), "{}", field.name);
    }
}

#[test]
fn datums_of_the_wrong_kind_are_rejected() {
    let err = datums_to_array(&[Some(Datum::Int(1))], &nullable(TypeKind::BigInt)).unwrap_err();
    assert!(matches!(err.detail(), ErrorDetail::InvalidArgument(_)));
    let err = datums_to_array(
        &[Some(Datum::Decimal {
            unscaled: 1,
            precision: 10,
            scale: 3,
        })],
        &nullable(decimal(10, 2)),
    )
    .unwrap_err();
    assert!(matches!(err.detail(), ErrorDetail::InvalidArgument(_)));
    assert!(datum_at(&Int32Array::from(vec![1]), 1).is_err());
}

proptest! {
    #[test]
    fn timestamps_round_trip(millis in -9_000_000_000_000i64..9_000_000_000_000, sub in 0i32..1_000_000) {
        for (p, nanos) in [(3u32, 0), (6, sub / 1000 * 1000), (9, sub)] {
            let dt = nullable(TypeKind::Timestamp(p));
            let d = Some(Datum::Timestamp { millis, nanos });
            let array = datums_to_array(std::slice::from_ref(&d), &dt).unwrap();
            prop_assert_eq!(datum_at(array.as_ref(), 0).unwrap(), d);
            let ltz = Some(Datum::TimestampLtz { millis, nanos });
            let dt = nullable(TypeKind::LocalZonedTimestamp(p));
            let array = datums_to_array(std::slice::from_ref(&ltz), &dt).unwrap();
            prop_assert_eq!(datum_at(array.as_ref(), 0).unwrap(), ltz);
        }
    }

    #[test]
    fn decimals_and_strings_round_trip(
        unscaled in -(10i128.pow(18) - 1)..10i128.pow(18),
        text in "\\PC{0,20}",
        bytes in proptest::collection::vec(any::<u8>(), 0..20),
    ) {
        let d = Some(Datum::Decimal { unscaled, precision: 18, scale: 4 });
        let a = datums_to_array(std::slice::from_ref(&d), &nullable(decimal(18, 4))).unwrap();
        prop_assert_eq!(datum_at(a.as_ref(), 0).unwrap(), d);
        let s = Some(Datum::String(text));
        let a = datums_to_array(std::slice::from_ref(&s), &DataType::string()).unwrap();
        prop_assert_eq!(datum_at(a.as_ref(), 0).unwrap(), s);
        let b = Some(Datum::Bytes(bytes));
        let a = datums_to_array(std::slice::from_ref(&b), &DataType::bytes()).unwrap();
        prop_assert_eq!(datum_at(a.as_ref(), 0).unwrap(), b);
    }
}

#[test]
fn timestamps_keep_their_instant_across_zones_and_units() {
    use arrow_array::TimestampMicrosecondArray;
    let row_type = RowType::new(vec![
        DataField::new(0, "ltz", nullable(TypeKind::LocalZonedTimestamp(3))),
        DataField::new(1, "ts", nullable(TypeKind::Timestamp(3))),
    ]);
    let target = to_arrow_schema(&row_type).unwrap();
    let input = batch(vec![
        (
            "ltz",
            Arc::new(
                TimestampMicrosecondArray::from(vec![-1_500, 1_700_000_000_123_999])
                    .with_timezone("America/New_York"),
            ),
        ),
        (
            "ts",
            Arc::new(TimestampMicrosecondArray::from(vec![-1_500, 2_000])),
        ),
    ]);
    let out = cast_batch_to_schema(&input, &target, "t").unwrap();
    let got: Vec<Option<Datum>> = (0..2)
        .flat_map(|r| (0..2).map(move |c| (r, c)))
        .map(|(r, c)| datum_at(out.column(c).as_ref(), r).unwrap())
        .collect();
    assert_eq!(
        got,
        vec![
            Some(Datum::TimestampLtz {
                millis: -2,
                nanos: 0
            }),
            Some(Datum::Timestamp {
                millis: -2,
                nanos: 0
            }),
            Some(Datum::TimestampLtz {
                millis: 1_700_000_000_123,
                nanos: 0
            }),
            Some(Datum::Timestamp {
                millis: 2,
                nanos: 0
            }),
        ]
    );
    // LTZ columns display without the chrono-tz feature.
    let text = arrow::util::pretty::pretty_format_batches(&[out])
        .unwrap()
        .to_string();
    assert!(text.contains("2023-11-14T22:13:20.123Z"), "{text}");
}

/// A column's default fills the column when it is missing and replaces its NULLs; a default
/// strata does not convert (here TIMESTAMP WITH LOCAL TIME ZONE, read by Java in the writing
/// JVM's zone) refuses the write up front, naming the column.
#[test]
fn column_defaults_fill_missing_and_null_values() {
    use crate::format::convert::{cast_batch_with_defaults, ColumnDefaults};
    let mut fields = table().fields;
    fields[1].default_value = Some("'dflt'".into());
    fields[2].default_value = Some("1970-01-03".into());
    let target = to_arrow_schema(&RowType::new(fields.clone())).unwrap();
    let defaults = ColumnDefaults::of(&fields, &target, "writing t").unwrap();
    let input = batch(vec![
        ("id", Arc::new(Int64Array::from(vec![1, 2]))),
        ("name", Arc::new(StringArray::from(vec![Some("x"), None]))),
    ]);
    let out = cast_batch_with_defaults(&input, &target, &defaults, "writing t").unwrap();
    let names = out
        .column(1)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert_eq!((names.value(0), names.value(1)), ("x", "dflt"));
    let days = out
        .column(2)
        .as_any()
        .downcast_ref::<Date32Array>()
        .unwrap();
    assert_eq!(days.values(), &[2, 2]);
    assert_eq!(out.column(3).null_count(), 2);
    // No defaults: the plain alignment.
    let none = ColumnDefaults::of(&table().fields, &target, "writing t").unwrap();
    assert!(none.is_empty());
    let plain = cast_batch_with_defaults(&input, &target, &none, "writing t").unwrap();
    assert_eq!(plain.column(1).null_count(), 1);

    fields[3] = DataField::new(3, "at", nullable(TypeKind::LocalZonedTimestamp(3)));
    fields[3].default_value = Some("2024-01-01 00:00:00".into());
    let target = to_arrow_schema(&RowType::new(fields.clone())).unwrap();
    let err = ColumnDefaults::of(&fields, &target, "writing t")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("writing t") && err.contains("`at`") && err.contains("time zone"),
        "{err}"
    );
}
