//! Write → read round trips, the Parquet footer strata writes, writer lifecycle.

use parquet::basic::Compression;
use parquet::schema::printer::print_schema;

use super::*;
use crate::error::ErrorDetail;
use crate::format::stats::StatsCollector;
use strata_spec::stats::{ColumnStats, StatsMode};

fn path(name: &str) -> Path {
    Path::from(format!("t/bucket-0/{name}"))
}

#[tokio::test]
async fn every_type_round_trips() {
    let io = FileIO::memory();
    let row_type = all_types();
    let batch = all_types_batch();
    let p = path("all.parquet");
    let info = write_file(
        &io,
        &p,
        &row_type,
        std::slice::from_ref(&batch),
        &ParquetWriteOptions::default(),
    )
    .await;
    assert_eq!(info.row_count, 3);
    assert_eq!(info.file_size, io.head(&p).await.unwrap().size);

    let read = read_all(&io, &p, &row_type.fields, &row_type.fields)
        .await
        .unwrap();
    let read = concat(&read);
    assert_eq!(read, batch);

    // Spot-check values after the round trip (not only equality with the input).
    assert_eq!(
        datum_at(read.column(8).as_ref(), 1).unwrap(),
        Some(Datum::Decimal {
            unscaled: -99_999_999_999_999_999_999_999_999_999_999_999_999,
            precision: 38,
            scale: 10
        })
    );
    assert_eq!(
        datum_at(read.column(18).as_ref(), 1).unwrap(),
        Some(Datum::Timestamp {
            millis: -1,
            nanos: 999_999
        })
    );
    let arr = read
        .column(21)
        .as_any()
        .downcast_ref::<ListArray>()
        .unwrap();
    assert!(arr.is_null(1));
    let first = arr.value(0);
    let first = first.as_any().downcast_ref::<Int32Array>().unwrap();
    assert_eq!(
        first.iter().collect::<Vec<_>>(),
        vec![Some(1), None, Some(3)]
    );
}

#[tokio::test]
async fn footer_matches_java_layout() {
    let io = FileIO::memory();
    let row_type = all_types();
    let p = path("footer.parquet");
    write_file(
        &io,
        &p,
        &row_type,
        &[all_types_batch()],
        &ParquetWriteOptions::default(),
    )
    .await;
    let meta = read_parquet_metadata(&io, &p, None).await.unwrap();
    let file_meta = meta.file_metadata();
    assert_eq!(file_meta.version(), 1, "writer version 1.0 like Java");
    let has_arrow_schema = file_meta
        .key_value_metadata()
        .is_some_and(|kv| kv.iter().any(|e| e.key == "ARROW:schema"));
    assert!(!has_arrow_schema, "Java writes no ARROW:schema entry");
    for column in meta.row_group(0).columns() {
        assert!(
            matches!(column.compression(), Compression::ZSTD(_)),
            "zstd by default"
        );
    }

    let mut out = Vec::new();
    print_schema(&mut out, file_meta.schema());
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let expected = [
        "message paimon_schema {",
        "OPTIONAL BOOLEAN bool [0];",
        "OPTIONAL INT32 ti [1] (INTEGER(8,true));",
        "OPTIONAL INT32 si [2] (INTEGER(16,true));",
        "REQUIRED INT32 i [3];",
        "OPTIONAL INT64 bi [4];",
        "OPTIONAL FLOAT f [5];",
        "OPTIONAL DOUBLE d [6];",
        "OPTIONAL INT64 dec10 [7] (DECIMAL(10,2));",
        "OPTIONAL FIXED_LEN_BYTE_ARRAY (16) dec38 [8] (DECIMAL(38,10));",
        "OPTIONAL INT32 dec5 [9] (DECIMAL(5,1));",
        "OPTIONAL BYTE_ARRAY s [10] (STRING);",
        "OPTIONAL BYTE_ARRAY c [11] (STRING);",
        "OPTIONAL BYTE_ARRAY b [12];",
        "OPTIONAL BYTE_ARRAY bn [13];",
        "OPTIONAL INT32 dt [14] (DATE);",
        "OPTIONAL INT32 t [15] (TIME(MILLIS,true));",
        "OPTIONAL INT64 ts3 [16] (TIMESTAMP(MILLIS,false));",
        "OPTIONAL INT64 ts6 [17] (TIMESTAMP(MICROS,false));",
        // precision 7..9: plain INT96, as Java's ParquetSchemaConverter writes it
        "OPTIONAL INT96 ts9 [18];",
        "OPTIONAL INT64 ltz3 [19] (TIMESTAMP(MILLIS,true));",
        "OPTIONAL INT64 ltz6 [20] (TIMESTAMP(MICROS,true));",
        "OPTIONAL group arr [21] (LIST) {",
        "REPEATED group list {",
        "OPTIONAL INT32 element [536892416];",
        "}",
        "}",
        "OPTIONAL group m [22] (MAP) {",
        "REPEATED group key_value {",
        "REQUIRED BYTE_ARRAY key [536848382] (STRING);",
        "OPTIONAL INT64 value [536893440];",
        "}",
        "}",
        "OPTIONAL group ms [23] (MAP) {",
        "REPEATED group key_value {",
        "REQUIRED BYTE_ARRAY key [536847358] (STRING);",
        "REQUIRED INT32 value [536894464];",
        "}",
        "}",
        "OPTIONAL group r [24] {",
        "REQUIRED INT32 x [30];",
        "OPTIONAL BYTE_ARRAY y [31] (STRING);",
        "OPTIONAL group z [33] {",
        "OPTIONAL DOUBLE p [32];",
        "}",
        "}",
        "}",
    ];
    assert_eq!(lines, expected, "schema was:\n{text}");
    // The synthetic ids above are Java's: 536870911 ± 1024·id ± depth.
    assert_eq!(536870911 + 1024 * 21 + 1, 536892416);
    assert_eq!(536870911 - 1024 * 22 - 1, 536848382);
}

#[tokio::test]
async fn compression_and_row_groups_follow_options() {
    let io = FileIO::memory();
    let row_type = RowType::new(vec![DataField::new(0, "i", not_null(TypeKind::Int))]);
    let batch = RecordBatch::try_new(
        to_arrow_schema(&row_type).unwrap(),
        vec![Arc::new(Int32Array::from_iter_values(0..10))],
    )
    .unwrap();
    let options: std::collections::HashMap<String, String> = [
        ("file.compression", "snappy"),
        ("parquet.page.row.count.limit", "5"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let mut options = ParquetWriteOptions::from_table_options(&options).unwrap();
    assert_eq!(options.compression, ParquetCompression::Snappy);
    options.row_group_rows = Some(4);
    let p = path("groups.parquet");
    write_file(&io, &p, &row_type, &[batch], &options).await;
    let meta = read_parquet_metadata(&io, &p, None).await.unwrap();
    let sizes: Vec<i64> = meta.row_groups().iter().map(|g| g.num_rows()).collect();
    assert_eq!(sizes, vec![4, 4, 2]);
    assert_eq!(
        meta.row_group(0).column(0).compression(),
        Compression::SNAPPY
    );
}

#[test]
fn table_options_parse() {
    let opts = |pairs: &[(&str, &str)]| {
        let map: std::collections::BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        ParquetWriteOptions::from_options(&map)
    };
    let d = opts(&[]).unwrap();
    assert_eq!(d.compression, ParquetCompression::Zstd(1));
    assert_eq!(d.row_group_bytes, 128 << 20);
    let o = opts(&[
        ("file.compression", "ZSTD"),
        ("file.compression.zstd-level", "9"),
        ("file.block-size", "32 mb"),
    ])
    .unwrap();
    assert_eq!(o.compression, ParquetCompression::Zstd(9));
    assert_eq!(o.row_group_bytes, 32 << 20);
    assert_eq!(
        opts(&[("file.compression", "none")]).unwrap().compression,
        ParquetCompression::Uncompressed
    );
    assert!(matches!(
        opts(&[("file.compression", "lzo")]),
        Err(e) if matches!(e.detail(), ErrorDetail::InvalidOption { .. })
    ));
    assert!(matches!(
        opts(&[("file.block-size", "lots")]),
        Err(e) if matches!(e.detail(), ErrorDetail::InvalidOption { .. })
    ));
}

#[tokio::test]
async fn abort_leaves_nothing_and_sizes_grow() {
    let io = FileIO::memory();
    let row_type = RowType::new(vec![DataField::new(0, "s", DataType::string())]);
    let schema = to_arrow_schema(&row_type).unwrap();
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(StringArray::from_iter_values(
            (0..5000).map(|i| format!("value-{i}")),
        ))],
    )
    .unwrap();
    let options = ParquetWriteOptions {
        row_group_rows: Some(1000),
        ..Default::default()
    };
    let p = path("aborted.parquet");
    let mut writer = ParquetWriter::create(&io, p.clone(), schema.clone(), &options).unwrap();
    assert_eq!(writer.bytes_written(), 4, "just the PAR1 magic");
    writer.write(&batch).await.unwrap();
    assert!(writer.bytes_written() > 1000);
    assert_eq!(writer.rows_written(), 5000);
    writer.abort().await.unwrap();
    assert!(!io.exists(&p).await.unwrap());

    // A mismatching batch is refused with the column named.
    let mut writer = ParquetWriter::create(&io, p.clone(), schema, &options).unwrap();
    let wrong = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new("s", ArrowType::Int32, true)])),
        vec![Arc::new(Int32Array::from(vec![1]))],
    )
    .unwrap();
    let err = writer.write(&wrong).await.unwrap_err();
    assert!(
        matches!(err.detail(), ErrorDetail::SchemaMismatch { column, .. } if column == "s"),
        "{err}"
    );
    writer.abort().await.unwrap();
}

#[tokio::test]
async fn local_filesystem_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let (io, root) = FileIO::for_location(dir.path().to_str().unwrap()).unwrap();
    let p = root.clone().join("data-0.parquet");
    let row_type = all_types();
    let batch = all_types_batch();
    write_file(
        &io,
        &p,
        &row_type,
        std::slice::from_ref(&batch),
        &ParquetWriteOptions::default(),
    )
    .await;
    let read = read_all(&io, &p, &row_type.fields, &row_type.fields)
        .await
        .unwrap();
    assert_eq!(concat(&read), batch);
}

#[tokio::test]
async fn row_group_filter_skips_groups() {
    let io = FileIO::memory();
    let row_type = RowType::new(vec![
        DataField::new(0, "i", not_null(TypeKind::Int)),
        DataField::new(1, "s", DataType::string()),
    ]);
    let batch = RecordBatch::try_new(
        to_arrow_schema(&row_type).unwrap(),
        vec![
            Arc::new(Int32Array::from_iter_values(0..6)),
            Arc::new(StringArray::from(vec![
                Some("a"),
                None,
                Some("c"),
                Some("d"),
                Some("e"),
                Some("f"),
            ])),
        ],
    )
    .unwrap();
    let options = ParquetWriteOptions {
        row_group_rows: Some(2),
        ..Default::default()
    };
    let p = path("filtered.parquet");
    write_file(&io, &p, &row_type, &[batch], &options).await;

    let meta = read_parquet_metadata(&io, &p, None).await.unwrap();
    let stats = row_group_stats(meta.row_group(0), &row_type.fields);
    assert_eq!(
        stats,
        vec![
            ColumnStats {
                min: Some(Datum::Int(0)),
                max: Some(Datum::Int(1)),
                null_count: Some(0)
            },
            ColumnStats {
                min: Some(Datum::String("a".into())),
                max: Some(Datum::String("a".into())),
                null_count: Some(1)
            },
        ]
    );

    let fields = row_type.fields.clone();
    let filter: RowGroupFilter = Arc::new(move |rg| {
        let s = row_group_stats(rg, &fields);
        // keep groups that may hold i >= 3
        !matches!(&s[0].max, Some(Datum::Int(m)) if *m < 3)
    });
    let options = ParquetReadOptions {
        row_group_filter: Some(filter),
        metadata: Some(meta),
        ..Default::default()
    };
    let batches: Vec<RecordBatch> =
        read_parquet_with(&io, &p, &row_type.fields, &row_type.fields, options)
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
    let read = concat(&batches);
    let i = read
        .column(0)
        .as_any()
        .downcast_ref::<Int32Array>()
        .unwrap();
    assert_eq!(i.values().to_vec(), vec![2, 3, 4, 5]);
}

#[tokio::test]
async fn collector_agrees_with_footer_stats() {
    // The collector's full stats equal the footer's for atomic columns.
    let io = FileIO::memory();
    let row_type = all_types();
    let batch = all_types_batch();
    let p = path("stats.parquet");
    write_file(
        &io,
        &p,
        &row_type,
        std::slice::from_ref(&batch),
        &ParquetWriteOptions::default(),
    )
    .await;
    let mut collector = StatsCollector::with_mode(&row_type, StatsMode::Full);
    collector.update(&batch).unwrap();
    let collected = collector.finish();
    let meta = read_parquet_metadata(&io, &p, None).await.unwrap();
    let footer = row_group_stats(meta.row_group(0), &row_type.fields);
    for ((field, c), f) in row_type.fields.iter().zip(&collected).zip(&footer) {
        if field.data_type.is_nested() {
            assert_eq!(f, &ColumnStats::default(), "{}", field.name);
            continue;
        }
        if matches!(field.data_type.kind, TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) if p > 6)
        {
            // INT96 leaves carry no footer statistics (no defined order; Java prunes none).
            assert_eq!(f, &ColumnStats::default(), "{}", field.name);
            continue;
        }
        assert_eq!(c.null_count, f.null_count, "{}", field.name);
        if matches!(field.data_type.kind, TypeKind::Float | TypeKind::Double) {
            continue; // footer widens ±0.0
        }
        assert_eq!((&c.min, &c.max), (&f.min, &f.max), "{}", field.name);
    }
}

/// Files larger than the upload buffer go through a multipart upload; abort must leave no
/// staging files behind and close must publish the whole file.
#[tokio::test]
async fn large_local_file_close_and_abort() {
    let dir = tempfile::tempdir().unwrap();
    let (io, root) = FileIO::for_location(dir.path().to_str().unwrap()).unwrap();
    let row_type = RowType::new(vec![DataField::new(0, "b", DataType::bytes())]);
    let schema = to_arrow_schema(&row_type).unwrap();
    // ~16 MiB of incompressible bytes (xorshift), in 4 KiB values.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let values: Vec<Vec<u8>> = (0..4096)
        .map(|_| {
            (0..4096)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state as u8
                })
                .collect()
        })
        .collect();
    let array = arrow_array::BinaryArray::from_iter_values(values.iter());
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(array)]).unwrap();
    let options = ParquetWriteOptions {
        row_group_bytes: 2 << 20,
        ..Default::default()
    };

    let aborted = root.clone().join("aborted.parquet");
    let mut writer = ParquetWriter::create(&io, aborted.clone(), schema.clone(), &options).unwrap();
    writer.write(&batch).await.unwrap();
    assert!(writer.bytes_written() > 12 << 20);
    writer.abort().await.unwrap();
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");

    let kept = root.clone().join("kept.parquet");
    let info = write_file(
        &io,
        &kept,
        &row_type,
        std::slice::from_ref(&batch),
        &options,
    )
    .await;
    assert_eq!(info.file_size, io.head(&kept).await.unwrap().size);
    assert!(info.metadata.num_row_groups() > 4);
    let read = read_all(&io, &kept, &row_type.fields, &row_type.fields)
        .await
        .unwrap();
    assert_eq!(concat(&read), batch);
}

/// parquet-java's dictionary fallback and column orders, end to end through the writer: unique
/// columns are written plain, repetitive ones keep their dictionary, DOUBLE columns declare
/// `TYPE_ORDER` (so parquet-java and pyarrow use their min/max), and the rows read back.
#[tokio::test]
async fn dictionary_only_where_it_pays_and_double_stats_are_usable() {
    use arrow_array::{Float64Array, Int32Array, Int64Array, StringArray};
    use parquet::basic::ColumnOrder;
    let io = FileIO::memory();
    let row_type = RowType::new(vec![
        DataField::new(0, "k", not_null(TypeKind::Int)),
        DataField::new(1, "v", DataType::string()),
        DataField::new(2, "city", DataType::string()),
        DataField::new(3, "seq", nullable(TypeKind::BigInt)),
        DataField::new(4, "price", nullable(TypeKind::Double)),
    ]);
    let schema = to_arrow_schema(&row_type).unwrap();
    let n = 12_000;
    let batch = |start: i32| {
        RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int32Array::from_iter_values(start..start + n / 4)),
                Arc::new(StringArray::from_iter_values(
                    (start..start + n / 4).map(|i| format!("value-{i:08}")),
                )),
                Arc::new(StringArray::from_iter_values(
                    (start..start + n / 4).map(|i| ["Paris", "Lyon", "Nice"][i as usize % 3]),
                )),
                Arc::new(Int64Array::from_iter_values(
                    (start..start + n / 4).map(|i| i as i64 * 7),
                )),
                Arc::new(Float64Array::from_iter(
                    (start..start + n / 4).map(|i| (i % 10 != 0).then_some(i as f64 / 8.0)),
                )),
            ],
        )
        .unwrap()
    };
    let batches: Vec<RecordBatch> = (0..4).map(|q| batch(q * n / 4)).collect();
    let p = path("fallback.parquet");
    let mut writer =
        ParquetWriter::create(&io, p.clone(), schema.clone(), &Default::default()).unwrap();
    writer.write(&batches[0]).await.unwrap();
    // Held back before encoding: the size reported is the plain size (parquet-java's buffered
    // size before its first page): 4 + 8 + (4 + 14) + (4 + ~4.3) + 8 bytes per row, ~9 NULLs.
    let held = writer.bytes_written();
    assert!((3000 * 44..3000 * 47).contains(&held), "{held}");
    for b in &batches[1..] {
        writer.write(b).await.unwrap();
    }
    let info = writer.close().await.unwrap();
    assert_eq!(info.row_count, n as u64);
    let meta = read_parquet_metadata(&io, &p, None).await.unwrap();
    let has_dictionary: Vec<bool> = meta
        .row_group(0)
        .columns()
        .iter()
        .map(|c| c.dictionary_page_offset().is_some())
        .collect();
    assert_eq!(has_dictionary, [false, false, true, false, false]);
    let orders = meta.file_metadata().column_orders().unwrap();
    assert!(orders
        .iter()
        .all(|o| matches!(o, ColumnOrder::TYPE_DEFINED_ORDER(_))));
    let stats = meta.row_group(0).column(4).statistics().unwrap();
    assert_eq!(
        stats.min_bytes_opt(),
        Some(&(1.0f64 / 8.0).to_le_bytes()[..])
    );
    let read = concat(
        &read_all(&io, &p, &row_type.fields, &row_type.fields)
            .await
            .unwrap(),
    );
    assert_eq!(read, concat(&batches));
}
