//! Reading with a different (evolved) schema, and reading other writers' physical variants.

use arrow_array::builder::{Float64Builder, ListBuilder};
use arrow_array::{Decimal128Array, Int64Array, LargeStringArray, TimestampMicrosecondArray};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::{ArrowSchemaConverter, AsyncArrowWriter};
use parquet::basic::{LogicalType, Repetition, Type as PhysicalType};
use parquet::schema::types::{SchemaDescriptor, Type};

use super::*;
use crate::error::ErrorDetail;

fn v1_fields() -> Vec<DataField> {
    vec![
        DataField::new(0, "a", nullable(TypeKind::Int)),
        DataField::new(1, "b", DataType::string()),
        DataField::new(2, "c", nullable(TypeKind::Double)),
        DataField::new(
            3,
            "r",
            nullable(TypeKind::Row(vec![
                DataField::new(10, "x", nullable(TypeKind::Int)),
                DataField::new(11, "y", DataType::string()),
            ])),
        ),
    ]
}

async fn write_v1(io: &FileIO, p: &Path) {
    let row_type = RowType::new(v1_fields());
    let schema = to_arrow_schema(&row_type).unwrap();
    let r = schema.field(3).data_type().clone();
    let ArrowType::Struct(r_fields) = r else {
        panic!("struct expected")
    };
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int32Array::from(vec![Some(1), None, Some(i32::MAX)])),
            Arc::new(StringArray::from(vec![Some("one"), Some("two"), None])),
            Arc::new(Float64Array::from(vec![1.0, 2.0, 3.0])),
            Arc::new(
                StructArray::try_new(
                    r_fields,
                    vec![
                        Arc::new(Int32Array::from(vec![Some(10), Some(20), None])),
                        Arc::new(StringArray::from(vec![Some("p"), None, Some("r")])),
                    ],
                    Some(vec![true, true, false].into()),
                )
                .unwrap(),
            ),
        ],
    )
    .unwrap();
    write_file(io, p, &row_type, &[batch], &ParquetWriteOptions::default()).await;
}

#[tokio::test]
async fn rename_add_drop_and_promote() {
    let io = FileIO::memory();
    let p = Path::from("evolve/data.parquet");
    write_v1(&io, &p).await;

    // Current schema: b renamed, a widened to BIGINT, c dropped, d added, r.y renamed,
    // r.x dropped, r.w added; columns reordered.
    let read_fields = vec![
        DataField::new(1, "b_renamed", DataType::string()),
        DataField::new(0, "a", nullable(TypeKind::BigInt)),
        DataField::new(5, "d", nullable(TypeKind::Int)),
        DataField::new(
            3,
            "r",
            nullable(TypeKind::Row(vec![
                DataField::new(11, "y2", DataType::string()),
                DataField::new(12, "w", nullable(TypeKind::BigInt)),
            ])),
        ),
    ];
    let batches = read_all(&io, &p, &v1_fields(), &read_fields).await.unwrap();
    let batch = concat(&batches);
    assert_eq!(batch.schema(), to_arrow_schema_of(&read_fields).unwrap());
    let b = batch
        .column(0)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert_eq!(
        b.iter().collect::<Vec<_>>(),
        vec![Some("one"), Some("two"), None]
    );
    let a = batch
        .column(1)
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap();
    assert_eq!(
        a.iter().collect::<Vec<_>>(),
        vec![Some(1), None, Some(i32::MAX as i64)]
    );
    assert_eq!(batch.column(2).null_count(), 3);
    let r = batch
        .column(3)
        .as_any()
        .downcast_ref::<StructArray>()
        .unwrap();
    assert!(r.is_null(2));
    let y2 = r.column(0).as_any().downcast_ref::<StringArray>().unwrap();
    assert_eq!(y2.value(0), "p");
    assert!(y2.is_null(1));
    assert_eq!(r.column(1).null_count(), 3);
}

#[tokio::test]
async fn projection_and_case_insensitive_names() {
    let io = FileIO::memory();
    let p = Path::from("evolve/ci.parquet");
    write_v1(&io, &p).await;
    // The file's schema says "B" but the Parquet column is "b": found case-insensitively.
    let mut data_fields = v1_fields();
    data_fields[1].name = "B".into();
    let read_fields = vec![DataField::new(1, "B", DataType::string())];
    let batch = concat(&read_all(&io, &p, &data_fields, &read_fields).await.unwrap());
    assert_eq!(batch.num_columns(), 1);
    let b = batch
        .column(0)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert_eq!(b.value(1), "two");
}

#[tokio::test]
async fn only_absent_columns_still_count_rows() {
    let io = FileIO::memory();
    let p = Path::from("evolve/absent.parquet");
    write_v1(&io, &p).await;
    let read_fields = vec![DataField::new(9, "new", DataType::string())];
    let batch = concat(&read_all(&io, &p, &v1_fields(), &read_fields).await.unwrap());
    assert_eq!(batch.num_rows(), 3);
    assert_eq!(batch.column(0).null_count(), 3);

    let none = read_all(&io, &p, &v1_fields(), &[]).await.unwrap();
    assert_eq!(none.iter().map(|b| b.num_rows()).sum::<usize>(), 3);
}

#[tokio::test]
async fn not_null_violations_name_the_column() {
    let io = FileIO::memory();
    let p = Path::from("evolve/nn.parquet");
    write_v1(&io, &p).await;
    // Added NOT NULL column: no data for it in the file.
    let added = vec![DataField::new(9, "must", not_null(TypeKind::Int))];
    let err = read_all(&io, &p, &v1_fields(), &added).await.unwrap_err();
    assert!(
        matches!(err.detail(), ErrorDetail::SchemaMismatch { column, .. } if column == "must"),
        "{err}"
    );
    // Column made NOT NULL although the file holds NULLs.
    let tightened = vec![DataField::new(0, "a", not_null(TypeKind::Int))];
    let err = read_all(&io, &p, &v1_fields(), &tightened)
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("column a") && text.contains("evolve/nn.parquet"),
        "{text}"
    );
}

/// A file shaped like pyarrow's/pypaimon's output: no field ids, DECIMAL(10,2) as
/// FIXED_LEN_BYTE_ARRAY(5), LargeUtf8 strings, TIMESTAMP(3) stored as micros, LTZ with a
/// "+00:00" zone, lists with an "item" element and maps as entries/keys/values.
#[tokio::test]
async fn reads_foreign_physical_variants() {
    let io = FileIO::memory();
    let p = Path::from("foreign/data-0.parquet");
    let mut list = ListBuilder::new(Float64Builder::new());
    list.values().append_value(1.5);
    list.append(true);
    list.append(false);
    let list = list.finish();
    let mut map = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    map.keys().append_value("k");
    map.values().append_value(1);
    map.append(true).unwrap();
    map.append(true).unwrap();
    let map = map.finish();
    let columns: Vec<(&str, ArrayRef)> = vec![
        (
            "dec",
            Arc::new(
                Decimal128Array::from(vec![Some(-100001), None])
                    .with_precision_and_scale(10, 2)
                    .unwrap(),
            ),
        ),
        ("s", Arc::new(LargeStringArray::from(vec![Some("x"), None]))),
        (
            "ts3",
            Arc::new(TimestampMicrosecondArray::from(vec![Some(1_000_123), None])),
        ),
        (
            "ltz",
            Arc::new(TimestampMicrosecondArray::from(vec![Some(-1), None]).with_timezone("+00:00")),
        ),
        ("l", Arc::new(list)),
        ("m", Arc::new(map)),
    ];
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
            .collect::<Vec<_>>(),
    ));
    let batch = RecordBatch::try_new(
        schema.clone(),
        columns.into_iter().map(|(_, a)| a).collect(),
    )
    .unwrap();

    // Replace the decimal's INT64 with FIXED_LEN_BYTE_ARRAY(5), as pyarrow writes it.
    let converted = ArrowSchemaConverter::new().convert(&schema).unwrap();
    let root = converted.root_schema();
    let mut fields = root.get_fields().to_vec();
    fields[0] = Arc::new(
        Type::primitive_type_builder("dec", PhysicalType::FIXED_LEN_BYTE_ARRAY)
            .with_repetition(Repetition::OPTIONAL)
            .with_length(5)
            .with_logical_type(Some(LogicalType::decimal(2, 10)))
            .with_precision(10)
            .with_scale(2)
            .build()
            .unwrap(),
    );
    let root = Type::group_type_builder("schema")
        .with_fields(fields)
        .build()
        .unwrap();
    let options =
        ArrowWriterOptions::new().with_parquet_schema(SchemaDescriptor::new(Arc::new(root)));
    let sink = object_store::buffered::BufWriter::new(io.store(), p.clone());
    let mut writer = AsyncArrowWriter::try_new_with_options(sink, schema, options).unwrap();
    writer.write(&batch).await.unwrap();
    writer.close().await.unwrap();
    let meta = read_parquet_metadata(&io, &p, None).await.unwrap();
    assert_eq!(
        meta.file_metadata()
            .schema_descr()
            .column(0)
            .physical_type(),
        PhysicalType::FIXED_LEN_BYTE_ARRAY
    );

    let fields = vec![
        DataField::new(0, "dec", nullable(decimal(10, 2))),
        DataField::new(1, "s", DataType::string()),
        DataField::new(2, "ts3", nullable(TypeKind::Timestamp(3))),
        DataField::new(3, "ltz", nullable(TypeKind::LocalZonedTimestamp(6))),
        DataField::new(
            4,
            "l",
            nullable(TypeKind::Array(Box::new(nullable(TypeKind::Double)))),
        ),
        DataField::new(
            5,
            "m",
            nullable(TypeKind::Map {
                key: Box::new(not_null(TypeKind::VarChar(MAX_LENGTH))),
                value: Box::new(nullable(TypeKind::Int)),
            }),
        ),
    ];
    let read = concat(&read_all(&io, &p, &fields, &fields).await.unwrap());
    assert_eq!(read.schema(), to_arrow_schema_of(&fields).unwrap());
    let row0: Vec<Option<Datum>> = (0..4)
        .map(|c| datum_at(read.column(c).as_ref(), 0).unwrap())
        .collect();
    assert_eq!(
        row0,
        vec![
            Some(Datum::Decimal {
                unscaled: -100001,
                precision: 10,
                scale: 2
            }),
            Some(Datum::String("x".into())),
            Some(Datum::Timestamp {
                millis: 1000,
                nanos: 0
            }),
            Some(Datum::TimestampLtz {
                millis: -1,
                nanos: 999_000
            }),
        ]
    );
    assert!(read.column(4).is_null(1));
    assert_eq!(
        read.column(5)
            .as_any()
            .downcast_ref::<arrow_array::MapArray>()
            .unwrap()
            .value(0)
            .len(),
        1
    );
}

/// Java writes TIMESTAMP(p > 6) and TIMESTAMP_LTZ(p > 6) as INT96 (nanos of day + Julian day).
#[tokio::test]
async fn reads_java_int96_timestamps() {
    use parquet::data_type::{Int96, Int96Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    let schema = parse_message_type(
        "message paimon_schema { OPTIONAL INT96 ts9 = 1; OPTIONAL INT96 ltz7 = 2; }",
    )
    .unwrap();
    let mut buf = Vec::new();
    let mut writer = SerializedFileWriter::new(
        &mut buf,
        Arc::new(schema),
        Arc::new(WriterProperties::builder().build()),
    )
    .unwrap();
    // 2024-01-01T00:00:00.123456789: Julian day 2440588 + 19723, nanos of day 123456789.
    let nanos_of_day: u64 = 123_456_789;
    let mut v = Int96::new();
    v.set_data(
        nanos_of_day as u32,
        (nanos_of_day >> 32) as u32,
        2_440_588 + 19_723,
    );
    let mut rg = writer.next_row_group().unwrap();
    while let Some(mut col) = rg.next_column().unwrap() {
        col.typed::<Int96Type>()
            .write_batch(std::slice::from_ref(&v), Some(&[1, 0]), None)
            .unwrap();
        col.close().unwrap();
    }
    rg.close().unwrap();
    writer.close().unwrap();

    let io = FileIO::memory();
    let p = Path::from("java/int96.parquet");
    io.put(&p, bytes::Bytes::from(buf)).await.unwrap();
    let fields = vec![
        DataField::new(1, "ts9", nullable(TypeKind::Timestamp(9))),
        DataField::new(2, "ltz7", nullable(TypeKind::LocalZonedTimestamp(7))),
    ];
    let read = concat(&read_all(&io, &p, &fields, &fields).await.unwrap());
    assert_eq!(read.schema(), to_arrow_schema_of(&fields).unwrap());
    let millis = 19_723 * 86_400_000 + 123;
    assert_eq!(
        datum_at(read.column(0).as_ref(), 0).unwrap(),
        Some(Datum::Timestamp {
            millis,
            nanos: 456_789
        })
    );
    assert_eq!(
        datum_at(read.column(1).as_ref(), 0).unwrap(),
        Some(Datum::TimestampLtz {
            millis,
            nanos: 456_789
        })
    );
    assert!(read.column(0).is_null(1));
    // Footer stats of INT96 are not usable (as in Java).
    let meta = read_parquet_metadata(&io, &p, None).await.unwrap();
    let stats = row_group_stats(meta.row_group(0), &fields);
    assert_eq!((stats[0].min.clone(), stats[0].null_count), (None, Some(1)));
}
