//! Codec tests: exact header bytes, cross-reading with apache-avro's own reader, round trips,
//! the variants other writers produce, version checks.

use apache_avro::types::Value;
use apache_avro::Schema;
use proptest::prelude::*;

use super::ocf::{write_long, SYNC_INTERVAL};
use super::testkit::*;
use super::*;

const ALL_CODECS: [ManifestCompression; 4] = [
    ManifestCompression::Null,
    ManifestCompression::Deflate,
    ManifestCompression::Snappy,
    ManifestCompression::Zstandard { level: 1 },
];

/// The header strata must write: magic, {avro.schema, avro.codec} in Java's order, end of map.
fn expected_header_prefix(schema_json: &str, codec: &str) -> Vec<u8> {
    let mut out = b"Obj\x01".to_vec();
    write_long(&mut out, 2);
    for (k, v) in [("avro.schema", schema_json), ("avro.codec", codec)] {
        write_long(&mut out, k.len() as i64);
        out.extend_from_slice(k.as_bytes());
        write_long(&mut out, v.len() as i64);
        out.extend_from_slice(v.as_bytes());
    }
    write_long(&mut out, 0);
    out
}

#[test]
fn header_schema_text_is_the_reference_json() {
    let entry = include_str!("schema/avro-schema-entry.json");
    let list = include_str!("schema/avro-schema-list.json");
    let index = include_str!("schema/avro-schema-index.json");
    assert_eq!(manifest_entry_schema_json(), entry.trim_end());
    assert_eq!(manifest_list_schema_json(), list.trim_end());
    assert_eq!(index_manifest_schema_json(), index.trim_end());
    assert!(manifest_entry_schema_json().starts_with(
        r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"}"#
    ));

    for codec in ALL_CODECS {
        let bytes = encode_manifest_entries(&[entry_fixture()], codec).unwrap();
        let want = expected_header_prefix(entry.trim_end(), codec.avro_codec_name());
        assert_eq!(&bytes[..want.len()], &want[..], "{codec:?}");

        let bytes = encode_manifest_list(&[list_fixture()], codec).unwrap();
        let want = expected_header_prefix(list.trim_end(), codec.avro_codec_name());
        assert_eq!(&bytes[..want.len()], &want[..], "{codec:?}");

        let bytes = encode_index_manifest(&[index_fixture()], codec).unwrap();
        let want = expected_header_prefix(index.trim_end(), codec.avro_codec_name());
        assert_eq!(&bytes[..want.len()], &want[..], "{codec:?}");
    }
}

#[test]
fn top_level_entry_fields_are_java_six_non_union() {
    let schema = Schema::parse_str(manifest_entry_schema_json()).unwrap();
    let Schema::Record(r) = schema else {
        panic!("top level is not a record")
    };
    let got: Vec<(&str, &Schema)> = r
        .fields
        .iter()
        .map(|f| (f.name.as_str(), &f.schema))
        .collect();
    assert_eq!(got.len(), 6);
    assert_eq!(
        got.iter().map(|g| g.0).collect::<Vec<_>>(),
        [
            "_VERSION",
            "_KIND",
            "_PARTITION",
            "_BUCKET",
            "_TOTAL_BUCKETS",
            "_FILE"
        ]
    );
    assert!(matches!(got[0].1, Schema::Int));
    assert!(matches!(got[1].1, Schema::Int));
    assert!(matches!(got[2].1, Schema::Bytes));
    assert!(matches!(got[3].1, Schema::Int));
    assert!(matches!(got[4].1, Schema::Int));
    assert!(matches!(got[5].1, Schema::Record(_)));
}

pub(crate) fn entry_fixture() -> ManifestEntry {
    let mut e = entry(FileKind::Add, 7, 3, "data-1b2c-0.parquet");
    e.file.extra_files = vec!["data-1b2c-0.parquet.index".into()];
    e.file.value_stats_cols = Some(vec!["a".into(), "b".into()]);
    e.file.embedded_index = Some(vec![1, 2, 3]);
    e.file.external_path = Some("s3://bucket/x/data-1b2c-0.parquet".into());
    e.file.first_row_id = Some(100);
    e.file.write_cols = Some(vec!["a".into()]);
    e.file.file_source = Some(FileSource::Compact);
    e
}

fn list_fixture() -> ManifestFileMeta {
    ManifestFileMeta {
        file_name: "manifest-5e1d-0".into(),
        file_size: 2048,
        num_added_files: 3,
        num_deleted_files: 1,
        partition_stats: stats(&[Some(1)], &[Some(5)], &[Some(0)]),
        schema_id: 2,
        min_bucket: Some(0),
        max_bucket: Some(3),
        min_level: Some(0),
        max_level: Some(5),
        min_row_id: None,
        max_row_id: None,
    }
}

fn index_fixture() -> IndexManifestEntry {
    IndexManifestEntry {
        kind: FileKind::Add,
        partition: int_row(&[Some(1)]),
        bucket: 0,
        index_file: IndexFileMeta {
            index_type: "DELETION_VECTORS".into(),
            file_name: "index-7f-0".into(),
            file_size: 99,
            row_count: 4,
            dv_ranges: Some(vec![
                DeletionVectorMeta {
                    data_file_name: "data-b.parquet".into(),
                    offset: 1,
                    length: 30,
                    cardinality: Some(3),
                },
                DeletionVectorMeta {
                    data_file_name: "data-a.parquet".into(),
                    offset: 31,
                    length: 20,
                    cardinality: None,
                },
            ]),
            external_path: None,
            global_index: Some(GlobalIndexMeta {
                row_range_start: 0,
                row_range_end: 99,
                index_field_id: 3,
                extra_field_ids: Some(vec![4, 5]),
                index_meta: Some(vec![9]),
                source_meta: None,
            }),
        },
    }
}

fn field<'a>(v: &'a Value, name: &str) -> &'a Value {
    let Value::Record(fields) = v else {
        panic!("not a record: {v:?}")
    };
    &fields.iter().find(|(n, _)| n == name).unwrap().1
}

#[test]
fn apache_avro_reader_reads_what_we_write() {
    let e = entry_fixture();
    for codec in ALL_CODECS {
        let bytes = encode_manifest_entries(&[e.clone(), e.clone()], codec).unwrap();
        let reader = apache_avro::Reader::new(&bytes[..]).unwrap();
        let values: Vec<Value> = reader.map(|v| v.unwrap()).collect();
        assert_eq!(values.len(), 2);
        let v = &values[0];
        assert_eq!(field(v, "_VERSION"), &Value::Int(2));
        assert_eq!(field(v, "_KIND"), &Value::Int(0));
        assert_eq!(field(v, "_BUCKET"), &Value::Int(3));
        assert_eq!(field(v, "_TOTAL_BUCKETS"), &Value::Int(4));
        assert_eq!(
            field(v, "_PARTITION"),
            &Value::Bytes(e.partition.to_serialized())
        );
        let f = field(v, "_FILE");
        assert_eq!(
            field(f, "_FILE_NAME"),
            &Value::String("data-1b2c-0.parquet".into())
        );
        assert_eq!(
            field(f, "_CREATION_TIME"),
            &Value::Union(1, Box::new(Value::TimestampMillis(1_700_000_000_123)))
        );
        assert_eq!(
            field(f, "_FILE_SOURCE"),
            &Value::Union(1, Box::new(Value::Int(1)))
        );
        assert_eq!(
            field(f, "_WRITE_COLS_SEQUENCES"),
            &Value::Union(0, Box::new(Value::Null))
        );
        let ks = field(f, "_KEY_STATS");
        assert_eq!(
            field(ks, "_NULL_COUNTS"),
            &Value::Union(
                1,
                Box::new(Value::Array(vec![Value::Union(
                    1,
                    Box::new(Value::Long(0))
                )]))
            )
        );
    }

    let bytes = encode_manifest_list(&[list_fixture()], ManifestCompression::default()).unwrap();
    let values: Vec<Value> = apache_avro::Reader::new(&bytes[..])
        .unwrap()
        .map(|v| v.unwrap())
        .collect();
    assert_eq!(field(&values[0], "_VERSION"), &Value::Int(2));
    assert_eq!(
        field(&values[0], "_MAX_LEVEL"),
        &Value::Union(1, Box::new(Value::Int(5)))
    );

    let bytes = encode_index_manifest(&[index_fixture()], ManifestCompression::default()).unwrap();
    let values: Vec<Value> = apache_avro::Reader::new(&bytes[..])
        .unwrap()
        .map(|v| v.unwrap())
        .collect();
    assert_eq!(field(&values[0], "_VERSION"), &Value::Int(1));
    assert_eq!(
        field(&values[0], "_INDEX_TYPE"),
        &Value::String("DELETION_VECTORS".into())
    );
}

#[test]
fn fixtures_round_trip_with_every_codec() {
    for codec in ALL_CODECS {
        let entries = vec![entry_fixture(), entry(FileKind::Delete, 1, 0, "f")];
        let bytes = encode_manifest_entries(&entries, codec).unwrap();
        assert_eq!(decode_manifest_entries(&bytes).unwrap(), entries);

        let bytes = encode_manifest_list(&[list_fixture()], codec).unwrap();
        assert_eq!(decode_manifest_list(&bytes).unwrap(), vec![list_fixture()]);

        let bytes = encode_index_manifest(&[index_fixture()], codec).unwrap();
        assert_eq!(
            decode_index_manifest(&bytes).unwrap(),
            vec![index_fixture()]
        );
    }
}

#[test]
fn empty_files_have_header_only() {
    for codec in ALL_CODECS {
        let bytes = encode_manifest_list(&[], codec).unwrap();
        let header = expected_header_prefix(manifest_list_schema_json(), codec.avro_codec_name());
        assert_eq!(bytes.len(), header.len() + 16, "header + sync marker only");
        assert!(decode_manifest_list(&bytes).unwrap().is_empty());
        assert!(
            decode_manifest_entries(&encode_manifest_entries(&[], codec).unwrap())
                .unwrap()
                .is_empty()
        );
    }
}

#[test]
fn encoding_is_deterministic_and_blocks_are_cut_at_64000_bytes() {
    let entries: Vec<ManifestEntry> = (0..1500)
        .map(|i| {
            entry(
                FileKind::Add,
                i % 7,
                i % 4,
                &format!("data-{i:06}-0.parquet"),
            )
        })
        .collect();
    let a = encode_manifest_entries(&entries, ManifestCompression::Null).unwrap();
    let b = encode_manifest_entries(&entries, ManifestCompression::Null).unwrap();
    assert_eq!(a, b);

    // Count blocks by walking the container; each block but the last holds >= 64000 bytes and
    // would hold < 64000 without its last record.
    let header = expected_header_prefix(manifest_entry_schema_json(), "null");
    let marker = &a[header.len()..header.len() + 16];
    let mut pos = header.len() + 16;
    let mut blocks = 0;
    let mut records = 0;
    while pos < a.len() {
        let mut c = super::avro_value::Cursor::new(&a[pos..]);
        let count = c.read_long().unwrap() as usize;
        let size = c.read_long().unwrap() as usize;
        pos += c.position();
        assert_eq!(&a[pos + size..pos + size + 16], marker);
        if pos + size + 16 < a.len() {
            assert!(size >= SYNC_INTERVAL, "full block of {size} bytes");
            // Records are ~300 bytes: the block ends with the record that crossed 64000.
            assert!(size < SYNC_INTERVAL + 500, "block cut late: {size}");
        }
        pos += size + 16;
        blocks += 1;
        records += count;
    }
    assert!(blocks >= 2, "{blocks} blocks");
    assert_eq!(records, 1500);
    assert_eq!(decode_manifest_entries(&a).unwrap(), entries);
    let z = encode_manifest_entries(&entries, ManifestCompression::default()).unwrap();
    assert_eq!(decode_manifest_entries(&z).unwrap(), entries);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn manifest_entries_round_trip(entries in prop::collection::vec(arb_entry(), 0..6), c in 0usize..4) {
        let bytes = encode_manifest_entries(&entries, ALL_CODECS[c]).unwrap();
        prop_assert_eq!(decode_manifest_entries(&bytes).unwrap(), entries);
    }

    #[test]
    fn manifest_list_round_trip(metas in prop::collection::vec(arb_manifest_file_meta(), 0..6), c in 0usize..4) {
        let bytes = encode_manifest_list(&metas, ALL_CODECS[c]).unwrap();
        prop_assert_eq!(decode_manifest_list(&bytes).unwrap(), metas);
    }

    #[test]
    fn index_manifest_round_trip(entries in prop::collection::vec(arb_index_entry(), 0..6), c in 0usize..4) {
        let bytes = encode_index_manifest(&entries, ALL_CODECS[c]).unwrap();
        prop_assert_eq!(decode_index_manifest(&bytes).unwrap(), entries);
    }
}

#[test]
fn manifest_list_datum_bytes_follow_the_avro_spec() {
    let meta = ManifestFileMeta {
        file_name: "m".into(),
        file_size: 5,
        num_added_files: 1,
        num_deleted_files: 0,
        partition_stats: crate::stats::SimpleStats::empty(),
        schema_id: 0,
        min_bucket: Some(0),
        max_bucket: Some(1),
        min_level: None,
        max_level: None,
        min_row_id: None,
        max_row_id: None,
    };
    let bytes = encode_manifest_list(&[meta], ManifestCompression::Null).unwrap();
    let header = expected_header_prefix(manifest_list_schema_json(), "null");
    let marker = &bytes[header.len()..header.len() + 16];
    let empty_row = [0u8; 12]; // arity 0 (BE) + 8-byte header/null bits
    let mut datum = vec![0x04, 0x02, b'm', 0x0a, 0x02, 0x00];
    for _ in 0..2 {
        datum.push(0x18); // bytes of length 12
        datum.extend_from_slice(&empty_row);
    }
    datum.extend_from_slice(&[0x02, 0x00]); // _NULL_COUNTS: branch 1, empty array
    datum.push(0x00); // _SCHEMA_ID 0
    datum.extend_from_slice(&[0x02, 0x00, 0x02, 0x02]); // _MIN_BUCKET 0, _MAX_BUCKET 1
    datum.extend_from_slice(&[0x00; 4]); // levels and row ids: null branch
    let mut block = vec![0x02]; // one record
    write_long(&mut block, datum.len() as i64);
    block.extend_from_slice(&datum);
    block.extend_from_slice(marker);
    assert_eq!(&bytes[header.len() + 16..], &block[..]);
}
