//! ORC and Avro data files through [`read_data_file`]: the format by extension, column plans
//! (projection, evolution, pushed filters), CHAR trimming for ORC, MAP-as-records for Avro, and
//! errors naming the file. Files are written with orc-rust's and arrow-avro's own writers here;
//! the files Java Paimon writes are covered by `tests/interop/test_java_formats.py`.

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::BooleanArray;
use bytes::Bytes;
use futures::TryStreamExt;

use super::*;
use crate::error::ErrorDetail;
use crate::format::data_file_reader::{read_data_file, DataFileFormat};
use crate::format::parquet_reader::{ParquetReadOptions, PushedRowFilter};

async fn read_file(
    io: &FileIO,
    p: &Path,
    data: &[DataField],
    read: &[DataField],
    options: ParquetReadOptions,
) -> crate::Result<RecordBatch> {
    let batches: Vec<RecordBatch> = read_data_file(io, p, data, read, options)
        .await?
        .try_collect()
        .await?;
    Ok(concat(&batches))
}

#[test]
fn the_format_comes_from_the_file_name() {
    let of = |name: &str| DataFileFormat::of(&Path::from(format!("t/bucket-0/{name}")), name);
    assert_eq!(of("data-1-0.parquet").unwrap(), DataFileFormat::Parquet);
    assert_eq!(of("data-1-0.orc").unwrap(), DataFileFormat::Orc);
    assert_eq!(of("data-1-0.AVRO").unwrap(), DataFileFormat::Avro);
    let err = of("data-1-0.csv").unwrap_err().to_string();
    assert!(
        err.contains("data-1-0.csv") && err.contains(".orc"),
        "{err}"
    );
}

/// An ORC file of `id INT, c CHAR(5), s STRING` as Java pads CHAR values, written with
/// orc-rust's writer (arrow arrays).
fn orc_file() -> Bytes {
    use arrow::array::{ArrayRef, Int32Array as I59, StringArray as S59};
    use arrow::datatypes::{DataType as T59, Field as F59, Schema as Schema59};
    let schema = Arc::new(Schema59::new(vec![
        F59::new("id", T59::Int32, true),
        F59::new("c", T59::Utf8, true),
        F59::new("s", T59::Utf8, true),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(I59::from(vec![1, 2, 3, 4])),
        Arc::new(S59::from(vec![
            Some("ab   "),
            Some("     "),
            None,
            Some("a b  "),
        ])),
        Arc::new(S59::from(vec![Some("x"), Some("y  "), Some("z"), None])),
    ];
    let batch = arrow::record_batch::RecordBatch::try_new(schema.clone(), columns).unwrap();
    let mut buf = Vec::new();
    let mut writer = orc_rust::ArrowWriterBuilder::new(&mut buf, schema)
        .try_build()
        .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    Bytes::from(buf)
}

fn orc_fields() -> Vec<DataField> {
    vec![
        DataField::new(0, "id", nullable(TypeKind::Int)),
        DataField::new(1, "c", nullable(TypeKind::Char(5))),
        DataField::new(2, "s", nullable(TypeKind::VarChar(MAX_LENGTH))),
    ]
}

#[tokio::test]
async fn orc_files_read_with_evolution_projection_and_filters() {
    let io = FileIO::memory();
    let p = Path::from("t/bucket-0/data-1-0.orc");
    io.put(&p, orc_file()).await.unwrap();
    let data = orc_fields();
    // `id` widened to BIGINT and renamed, `s` dropped, a new column added.
    let wanted = vec![
        DataField::new(1, "c", nullable(TypeKind::Char(5))),
        DataField::new(0, "key", nullable(TypeKind::BigInt)),
        DataField::new(7, "added", nullable(TypeKind::Int)),
    ];
    let b = read_file(&io, &p, &data, &wanted, ParquetReadOptions::default())
        .await
        .unwrap();
    assert_eq!(b.num_rows(), 4);
    // CHAR values come back as Java's ORC reader returns them: trailing blanks stripped.
    let c = b.column(0).as_string::<i32>();
    assert_eq!(
        c.iter().collect::<Vec<_>>(),
        vec![Some("ab"), Some(""), None, Some("a b")]
    );
    assert_eq!(
        b.column(1).as_primitive::<Int64Type>().values(),
        &[1, 2, 3, 4]
    );
    assert_eq!(b.column(2).null_count(), 4);

    // A pushed filter keeps exactly the matching rows.
    let filter = PushedRowFilter {
        fields: vec![data[0].clone()],
        predicate: Arc::new(|batch: &RecordBatch| {
            let id = batch.column(0).as_primitive::<Int32Type>();
            Ok(id
                .iter()
                .map(|v| v.map(|v| v % 2 == 0))
                .collect::<BooleanArray>())
        }),
    };
    let options = ParquetReadOptions {
        row_filter: Some(filter),
        batch_size: 1,
        ..Default::default()
    };
    let b = read_file(&io, &p, &data, &wanted[..2], options)
        .await
        .unwrap();
    assert_eq!(b.column(1).as_primitive::<Int64Type>().values(), &[2, 4]);
    assert_eq!(b.column(0).as_string::<i32>().value(1), "a b");
}

#[tokio::test]
async fn a_corrupt_orc_file_is_an_error_naming_it() {
    let io = FileIO::memory();
    let p = Path::from("t/bucket-0/data-bad-0.orc");
    let mut bytes = orc_file().to_vec();
    let n = bytes.len();
    bytes.truncate(n / 2);
    io.put(&p, Bytes::from(bytes)).await.unwrap();
    let data = orc_fields();
    let err = read_file(&io, &p, &data, &data, ParquetReadOptions::default())
        .await
        .unwrap_err();
    match err.detail() {
        ErrorDetail::DataFile { format, path, .. } => {
            assert_eq!(*format, "ORC");
            assert!(path.contains("data-bad-0.orc"), "{err}");
        }
        other => panic!("expected an ORC error naming the file, got {other}"),
    }
}

/// An Avro file with `k` (TINYINT, stored as Avro `int`) and `m` (MAP<INT, STRING>, stored
/// as an array of `{key, value}` records, as Paimon's `AvroSchemaConverter` writes it).
fn avro_file() -> Bytes {
    let kv = Fields::from(vec![
        Field::new("key", ArrowType::Int32, false),
        Field::new("value", ArrowType::Utf8, true),
    ]);
    let records = StructArray::new(
        kv.clone(),
        vec![
            Arc::new(Int32Array::from(vec![1, 2, 3])) as ArrayRef,
            Arc::new(StringArray::from(vec![Some("a"), None, Some("c")])),
        ],
        None,
    );
    let item = Arc::new(Field::new("item", ArrowType::Struct(kv), false));
    let m = ListArray::new(
        item.clone(),
        arrow::buffer::OffsetBuffer::new(vec![0, 2, 2, 3].into()),
        Arc::new(records),
        Some(vec![true, false, true].into()),
    );
    let schema = Schema::new(vec![
        Field::new("k", ArrowType::Int32, false),
        Field::new("m", ArrowType::List(item), true),
    ]);
    let batch = RecordBatch::try_new(
        Arc::new(schema.clone()),
        vec![Arc::new(Int32Array::from(vec![7, -8, 9])), Arc::new(m)],
    )
    .unwrap();
    let mut writer = arrow_avro::writer::AvroWriter::new(Vec::new(), schema).unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
    Bytes::from(writer.into_inner())
}

#[tokio::test]
async fn avro_files_read_maps_stored_as_records_and_narrow_ints() {
    let io = FileIO::memory();
    let p = Path::from("t/bucket-0/data-1-0.avro");
    io.put(&p, avro_file()).await.unwrap();
    let map = nullable(TypeKind::Map {
        key: Box::new(not_null(TypeKind::Int)),
        value: Box::new(nullable(TypeKind::VarChar(MAX_LENGTH))),
    });
    let data = vec![
        DataField::new(0, "k", not_null(TypeKind::TinyInt)),
        DataField::new(1, "m", map),
    ];
    let b = read_file(&io, &p, &data, &data, ParquetReadOptions::default())
        .await
        .unwrap();
    assert_eq!(
        b.column(0)
            .as_primitive::<arrow_array::types::Int8Type>()
            .values(),
        &[7, -8, 9]
    );
    let m = b.column(1).as_map();
    assert!(m.is_null(1));
    assert_eq!(m.value_offsets(), &[0, 2, 2, 3]);
    assert_eq!(m.keys().as_primitive::<Int32Type>().values(), &[1, 2, 3]);
    assert_eq!(
        m.values().as_string::<i32>().iter().collect::<Vec<_>>(),
        vec![Some("a"), None, Some("c")]
    );
    // Projection of the map alone.
    let b = read_file(&io, &p, &data, &data[1..], ParquetReadOptions::default())
        .await
        .unwrap();
    assert_eq!(b.num_columns(), 1);
    assert_eq!(b.column(0).as_map().len(), 3);
}

#[tokio::test]
async fn a_corrupt_avro_file_is_an_error_naming_it() {
    let io = FileIO::memory();
    let p = Path::from("t/bucket-0/data-bad-0.avro");
    io.put(&p, Bytes::from_static(b"Obj\x01 not really avro"))
        .await
        .unwrap();
    let data = vec![DataField::new(0, "k", not_null(TypeKind::Int))];
    let err = read_file(&io, &p, &data, &data, ParquetReadOptions::default())
        .await
        .unwrap_err();
    match err.detail() {
        ErrorDetail::DataFile { format, path, .. } => {
            assert_eq!(*format, "Avro");
            assert!(path.contains("data-bad-0.avro"), "{err}");
        }
        other => panic!("expected an Avro error naming the file, got {other}"),
    }
}
