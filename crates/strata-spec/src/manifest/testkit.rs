//! Builders and proptest strategies shared by the manifest tests.

use proptest::prelude::*;

use super::model::*;
use crate::binary_row::BinaryRow;
use crate::stats::SimpleStats;

/// A BinaryRow of INT fields (None = null), built from Java's `BinaryRow` layout.
pub(crate) fn int_row(values: &[Option<i32>]) -> BinaryRow {
    let arity = values.len();
    let w = (arity + 63 + 8) / 64 * 8;
    let mut bytes = (arity as i32).to_be_bytes().to_vec();
    let mut row = vec![0u8; w + 8 * arity];
    for (i, v) in values.iter().enumerate() {
        match v {
            None => row[(i + 8) / 8] |= 1 << ((i + 8) % 8),
            Some(x) => row[w + 8 * i..w + 8 * i + 4].copy_from_slice(&x.to_le_bytes()),
        }
    }
    bytes.extend_from_slice(&row);
    BinaryRow::from_serialized(&bytes).expect("hand-built INT row is valid")
}

pub(crate) fn stats(
    min: &[Option<i32>],
    max: &[Option<i32>],
    nulls: &[Option<i64>],
) -> SimpleStats {
    SimpleStats {
        min_values: int_row(min),
        max_values: int_row(max),
        null_counts: nulls.to_vec(),
    }
}

pub(crate) fn file(name: &str) -> DataFileMeta {
    DataFileMeta {
        file_name: name.to_string(),
        file_size: 1024,
        row_count: 10,
        min_key: int_row(&[Some(1)]),
        max_key: int_row(&[Some(9)]),
        key_stats: stats(&[Some(1)], &[Some(9)], &[Some(0)]),
        value_stats: stats(&[Some(1), None], &[Some(9), None], &[Some(0), Some(10)]),
        min_sequence_number: 0,
        max_sequence_number: 9,
        schema_id: 0,
        level: 0,
        extra_files: vec![],
        creation_time: Some(1_700_000_000_123),
        delete_row_count: Some(0),
        embedded_index: None,
        file_source: Some(FileSource::Append),
        value_stats_cols: None,
        external_path: None,
        first_row_id: None,
        write_cols: None,
    }
}

pub(crate) fn entry(kind: FileKind, partition: i32, bucket: i32, name: &str) -> ManifestEntry {
    ManifestEntry {
        kind,
        partition: int_row(&[Some(partition)]),
        bucket,
        total_buckets: 4,
        file: file(name),
    }
}

fn arb_row() -> impl Strategy<Value = BinaryRow> {
    prop::collection::vec(prop::option::of(any::<i32>()), 0..4).prop_map(|v| int_row(&v))
}

fn arb_stats() -> impl Strategy<Value = SimpleStats> {
    (
        arb_row(),
        arb_row(),
        prop::collection::vec(prop::option::of(any::<i64>()), 0..4),
    )
        .prop_map(|(min_values, max_values, null_counts)| SimpleStats {
            min_values,
            max_values,
            null_counts,
        })
}

fn arb_strings() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec("[a-z0-9_.\\-]{0,12}|\\PC{0,6}", 0..3)
}

prop_compose! {
    pub(crate) fn arb_file()(
        (file_name, file_size, row_count, min_key, max_key, key_stats, value_stats) in (
            "[a-z0-9\\-]{1,40}\\.parquet|\\PC{0,20}",
            any::<i64>(),
            any::<i64>(),
            arb_row(),
            arb_row(),
            arb_stats(),
            arb_stats(),
        ),
        (min_sequence_number, max_sequence_number, schema_id, level, extra_files, creation_time) in (
            any::<i64>(),
            any::<i64>(),
            any::<i64>(),
            any::<i32>(),
            arb_strings(),
            prop::option::of(any::<i64>()),
        ),
        (delete_row_count, embedded_index, file_source, value_stats_cols, external_path, first_row_id, write_cols) in (
            prop::option::of(any::<i64>()),
            prop::option::of(prop::collection::vec(any::<u8>(), 0..40)),
            prop::option::of(prop_oneof![Just(FileSource::Append), Just(FileSource::Compact)]),
            prop::option::of(arb_strings()),
            prop::option::of("\\PC{0,30}"),
            prop::option::of(any::<i64>()),
            prop::option::of(arb_strings()),
        ),
    ) -> DataFileMeta {
        DataFileMeta {
            file_name, file_size, row_count, min_key, max_key, key_stats, value_stats,
            min_sequence_number, max_sequence_number, schema_id, level, extra_files,
            creation_time, delete_row_count, embedded_index, file_source, value_stats_cols,
            external_path, first_row_id, write_cols,
        }
    }
}

prop_compose! {
    pub(crate) fn arb_entry()(
        kind in prop_oneof![Just(FileKind::Add), Just(FileKind::Delete)],
        partition in arb_row(),
        bucket in any::<i32>(),
        total_buckets in any::<i32>(),
        file in arb_file(),
    ) -> ManifestEntry {
        ManifestEntry { kind, partition, bucket, total_buckets, file }
    }
}

prop_compose! {
    pub(crate) fn arb_manifest_file_meta()(
        (file_name, file_size, num_added_files, num_deleted_files, partition_stats, schema_id) in (
            "\\PC{1,40}", any::<i64>(), any::<i64>(), any::<i64>(), arb_stats(), any::<i64>(),
        ),
        (min_bucket, max_bucket, min_level, max_level, min_row_id, max_row_id) in (
            prop::option::of(any::<i32>()),
            prop::option::of(any::<i32>()),
            prop::option::of(any::<i32>()),
            prop::option::of(any::<i32>()),
            prop::option::of(any::<i64>()),
            prop::option::of(any::<i64>()),
        ),
    ) -> ManifestFileMeta {
        ManifestFileMeta {
            file_name, file_size, num_added_files, num_deleted_files, partition_stats, schema_id,
            min_bucket, max_bucket, min_level, max_level, min_row_id, max_row_id,
        }
    }
}

fn arb_dv() -> impl Strategy<Value = DeletionVectorMeta> {
    (
        "\\PC{1,20}",
        any::<i32>(),
        any::<i32>(),
        prop::option::of(any::<i64>()),
    )
        .prop_map(
            |(data_file_name, offset, length, cardinality)| DeletionVectorMeta {
                data_file_name,
                offset,
                length,
                cardinality,
            },
        )
}

fn arb_global() -> impl Strategy<Value = GlobalIndexMeta> {
    (
        any::<i64>(),
        any::<i64>(),
        any::<i32>(),
        prop::option::of(prop::collection::vec(any::<i32>(), 0..4)),
        prop::option::of(prop::collection::vec(any::<u8>(), 0..16)),
        prop::option::of(prop::collection::vec(any::<u8>(), 0..16)),
    )
        .prop_map(
            |(
                row_range_start,
                row_range_end,
                index_field_id,
                extra_field_ids,
                index_meta,
                source_meta,
            )| {
                GlobalIndexMeta {
                    row_range_start,
                    row_range_end,
                    index_field_id,
                    extra_field_ids,
                    index_meta,
                    source_meta,
                }
            },
        )
}

prop_compose! {
    pub(crate) fn arb_index_entry()(
        kind in prop_oneof![Just(FileKind::Add), Just(FileKind::Delete)],
        partition in arb_row(),
        bucket in any::<i32>(),
        (index_type, file_name, file_size, row_count) in (
            prop_oneof![Just("HASH".to_string()), Just("DELETION_VECTORS".to_string()), "\\PC{0,10}"],
            "\\PC{1,30}", any::<i64>(), any::<i64>(),
        ),
        dv_ranges in prop::option::of(prop::collection::vec(arb_dv(), 0..4)),
        external_path in prop::option::of("\\PC{0,30}"),
        global_index in prop::option::of(arb_global()),
    ) -> IndexManifestEntry {
        IndexManifestEntry {
            kind, partition, bucket,
            index_file: IndexFileMeta {
                index_type, file_name, file_size, row_count, dv_ranges, external_path, global_index,
            },
        }
    }
}
