//! Tests of the format module: Parquet round trips and footer layout, schema evolution,
//! reading other writers' variants, corrupt files, input conversion.

mod convert_tests;
mod corrupt;
mod evolution;
mod foreign_formats;
mod roundtrip;

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, Int64Builder, MapBuilder, StringBuilder};
use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, Float64Array, Int32Array, ListArray, RecordBatch, StringArray, StructArray,
};
use arrow_schema::{DataType as ArrowType, Field, Fields, Schema};
use futures::TryStreamExt;
use object_store::path::Path;
use strata_spec::types::{DataField, DataType, RowType, TypeKind, MAX_LENGTH};
use strata_spec::Datum;

use super::*;
use crate::io::FileIO;

pub(super) fn nullable(kind: TypeKind) -> DataType {
    DataType::nullable(kind)
}

pub(super) fn not_null(kind: TypeKind) -> DataType {
    DataType::not_null(kind)
}

pub(super) fn decimal(precision: u32, scale: u32) -> TypeKind {
    TypeKind::Decimal { precision, scale }
}

/// A row type with every type strata writes to Parquet.
pub(super) fn all_types() -> RowType {
    let row_r = TypeKind::Row(vec![
        DataField::new(30, "x", not_null(TypeKind::Int)),
        DataField::new(31, "y", DataType::string()),
        DataField::new(
            33,
            "z",
            nullable(TypeKind::Row(vec![DataField::new(
                32,
                "p",
                nullable(TypeKind::Double),
            )])),
        ),
    ]);
    RowType::new(vec![
        DataField::new(0, "bool", nullable(TypeKind::Boolean)),
        DataField::new(1, "ti", nullable(TypeKind::TinyInt)),
        DataField::new(2, "si", nullable(TypeKind::SmallInt)),
        DataField::new(3, "i", not_null(TypeKind::Int)),
        DataField::new(4, "bi", nullable(TypeKind::BigInt)),
        DataField::new(5, "f", nullable(TypeKind::Float)),
        DataField::new(6, "d", nullable(TypeKind::Double)),
        DataField::new(7, "dec10", nullable(decimal(10, 2))),
        DataField::new(8, "dec38", nullable(decimal(38, 10))),
        DataField::new(9, "dec5", nullable(decimal(5, 1))),
        DataField::new(10, "s", DataType::string()),
        DataField::new(11, "c", nullable(TypeKind::Char(3))),
        DataField::new(12, "b", DataType::bytes()),
        DataField::new(13, "bn", nullable(TypeKind::Binary(4))),
        DataField::new(14, "dt", nullable(TypeKind::Date)),
        DataField::new(15, "t", nullable(TypeKind::Time(0))),
        DataField::new(16, "ts3", nullable(TypeKind::Timestamp(3))),
        DataField::new(17, "ts6", nullable(TypeKind::Timestamp(6))),
        DataField::new(18, "ts9", nullable(TypeKind::Timestamp(9))),
        DataField::new(19, "ltz3", nullable(TypeKind::LocalZonedTimestamp(3))),
        DataField::new(20, "ltz6", nullable(TypeKind::LocalZonedTimestamp(6))),
        DataField::new(
            21,
            "arr",
            nullable(TypeKind::Array(Box::new(nullable(TypeKind::Int)))),
        ),
        DataField::new(
            22,
            "m",
            nullable(TypeKind::Map {
                key: Box::new(not_null(TypeKind::VarChar(MAX_LENGTH))),
                value: Box::new(nullable(TypeKind::BigInt)),
            }),
        ),
        DataField::new(
            23,
            "ms",
            nullable(TypeKind::Multiset(Box::new(DataType::string()))),
        ),
        DataField::new(24, "r", nullable(row_r)),
    ])
}

fn ts(millis: i64, nanos: i32) -> Option<Datum> {
    Some(Datum::Timestamp { millis, nanos })
}

fn ltz(millis: i64, nanos: i32) -> Option<Datum> {
    Some(Datum::TimestampLtz { millis, nanos })
}

fn dec(unscaled: i128, precision: u32, scale: u32) -> Option<Datum> {
    Some(Datum::Decimal {
        unscaled,
        precision,
        scale,
    })
}

/// Three rows of [`all_types`]: typical values, extremes, and NULLs, built the way a user
/// would (pyarrow-style nested names), then aligned with `cast_batch_to_schema`.
pub(super) fn all_types_batch() -> RecordBatch {
    let row_type = all_types();
    let s = |v: &str| Some(Datum::String(v.to_string()));
    let bytes = |v: &[u8]| Some(Datum::Bytes(v.to_vec()));
    let atomic: Vec<Vec<Option<Datum>>> = vec![
        vec![
            Some(Datum::Boolean(true)),
            Some(Datum::Boolean(false)),
            None,
        ],
        vec![Some(Datum::TinyInt(-128)), Some(Datum::TinyInt(127)), None],
        vec![
            Some(Datum::SmallInt(-3)),
            Some(Datum::SmallInt(i16::MAX)),
            None,
        ],
        vec![
            Some(Datum::Int(1)),
            Some(Datum::Int(i32::MIN)),
            Some(Datum::Int(3)),
        ],
        vec![Some(Datum::BigInt(i64::MAX)), Some(Datum::BigInt(-1)), None],
        vec![Some(Datum::Float(1.5)), Some(Datum::Float(-0.0)), None],
        vec![Some(Datum::Double(2.25)), Some(Datum::Double(1e300)), None],
        vec![dec(-100001, 10, 2), dec(9_999_999_999, 10, 2), None],
        vec![
            dec(12_345_678_901_234_567_890_123_456_789, 38, 10),
            dec(-99_999_999_999_999_999_999_999_999_999_999_999_999, 38, 10),
            None,
        ],
        vec![dec(-9999, 5, 1), dec(5, 5, 1), None],
        vec![s("hello"), s("héllo wörld ✓"), None],
        vec![s("abc"), s("xy "), None],
        vec![bytes(&[0, 1, 2, 255]), bytes(&[]), None],
        vec![bytes(&[1, 2, 3, 4]), bytes(&[0xff; 4]), None],
        vec![Some(Datum::Date(19723)), Some(Datum::Date(-719162)), None],
        vec![Some(Datum::Time(0)), Some(Datum::Time(86_399_999)), None],
        vec![ts(1_700_000_000_123, 0), ts(-1, 0), None],
        vec![
            ts(1_700_000_000_123, 456_000),
            ts(-62_135_596_800_000, 0),
            None,
        ],
        vec![ts(1_700_000_000_123, 456_789), ts(-1, 999_999), None],
        vec![ltz(1_700_000_000_123, 0), ltz(0, 0), None],
        vec![ltz(1_700_000_000_123, 456_000), ltz(-5, 1000), None],
    ];
    let mut columns: Vec<(String, ArrayRef)> = Vec::new();
    for (field, values) in row_type.fields.iter().zip(atomic) {
        let array = datums_to_array(&values, &field.data_type).unwrap();
        columns.push((field.name.clone(), array));
    }

    // ARRAY<INT> with pyarrow's "item" element name.
    let arr = ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
        Some(vec![Some(1), None, Some(3)]),
        None,
        Some(vec![]),
    ]);
    columns.push(("arr".into(), Arc::new(arr)));

    // MAP<STRING, BIGINT> with arrow-rs' default "entries"/"keys"/"values" names.
    let mut m = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new());
    m.keys().append_value("a");
    m.values().append_value(1);
    m.keys().append_value("b");
    m.values().append_null();
    m.append(true).unwrap();
    m.append(false).unwrap();
    m.append(true).unwrap();
    columns.push(("m".into(), Arc::new(m.finish())));

    // MULTISET<STRING>: map of element → count.
    let mut ms = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    ms.keys().append_value("x");
    ms.values().append_value(2);
    ms.append(true).unwrap();
    ms.append(true).unwrap();
    ms.append(false).unwrap();
    columns.push(("ms".into(), Arc::new(ms.finish())));

    // ROW<x INT NOT NULL, y STRING, z ROW<p DOUBLE>>, second row NULL.
    let z = StructArray::from(vec![(
        Arc::new(Field::new("p", ArrowType::Float64, true)),
        Arc::new(Float64Array::from(vec![Some(0.5), None, None])) as ArrayRef,
    )]);
    let r_fields = Fields::from(vec![
        Field::new("x", ArrowType::Int32, true),
        Field::new("y", ArrowType::Utf8, true),
        Field::new("z", z.data_type().clone(), true),
    ]);
    let r = StructArray::try_new(
        r_fields,
        vec![
            Arc::new(Int32Array::from(vec![Some(7), None, Some(9)])),
            Arc::new(StringArray::from(vec![Some("q"), None, None])),
            Arc::new(z),
        ],
        Some(vec![true, false, true].into()),
    )
    .unwrap();
    columns.push(("r".into(), Arc::new(r)));

    // Reverse the column order: matching is by name.
    columns.reverse();
    let fields: Vec<Field> = columns
        .iter()
        .map(|(n, a)| Field::new(n, a.data_type().clone(), true))
        .collect();
    let raw = RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        columns.into_iter().map(|(_, a)| a).collect(),
    )
    .unwrap();
    let target = to_arrow_schema(&row_type).unwrap();
    cast_batch_to_schema(&raw, &target, "test").unwrap()
}

pub(super) async fn write_file(
    io: &FileIO,
    path: &Path,
    row_type: &RowType,
    batches: &[RecordBatch],
    options: &ParquetWriteOptions,
) -> ParquetFileInfo {
    let schema = to_arrow_schema(row_type).unwrap();
    let mut writer = ParquetWriter::create(io, path.clone(), schema, options).unwrap();
    for b in batches {
        writer.write(b).await.unwrap();
    }
    writer.close().await.unwrap()
}

pub(super) async fn read_all(
    io: &FileIO,
    path: &Path,
    data_fields: &[DataField],
    read_fields: &[DataField],
) -> crate::Result<Vec<RecordBatch>> {
    read_parquet(io, path, None, data_fields, read_fields, 1024)
        .await?
        .try_collect()
        .await
}

pub(super) fn concat(batches: &[RecordBatch]) -> RecordBatch {
    let schema = batches[0].schema();
    arrow_select::concat::concat_batches(&schema, batches).unwrap()
}
