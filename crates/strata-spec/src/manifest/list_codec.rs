//! Manifest lists: [`ManifestFileMeta`] ⇄ Avro, in Java's schema (§4 of the format reference).
//!
//! pypaimon's extra `_TOTAL_BUCKETS` / `_EXTRA_FILES` fields and its record names are ignored
//! on read; missing bucket/level/row-id fields (files before Paimon 1.1/1.4) read as `None`.

use apache_avro::types::Value;

use super::codec::{decode_records, encode_records, LIST_SCHEMA};
use super::compression::ManifestCompression;
use super::model::ManifestFileMeta;
use super::version::check_version;
use super::wire::{nullable, stats_value, Rec};
use crate::error::Result;

/// `_VERSION` of manifest-list entries.
pub const MANIFEST_LIST_VERSION: i32 = 2;

const WHAT: &str = "manifest list entry";

/// Encodes a manifest list: Java's writer schema in the header, `compression` as block codec.
pub fn encode_manifest_list(
    metas: &[ManifestFileMeta],
    compression: ManifestCompression,
) -> Result<Vec<u8>> {
    encode_records(&LIST_SCHEMA, metas, compression, meta_to_value)
}

/// Decodes a manifest list written by Java, pypaimon, pypaimon-rust or strata.
pub fn decode_manifest_list(bytes: &[u8]) -> Result<Vec<ManifestFileMeta>> {
    decode_records(bytes, WHAT, meta_from_value)
}

fn meta_to_value(m: &ManifestFileMeta) -> Value {
    Value::Record(vec![
        ("_VERSION".into(), Value::Int(MANIFEST_LIST_VERSION)),
        ("_FILE_NAME".into(), Value::String(m.file_name.clone())),
        ("_FILE_SIZE".into(), Value::Long(m.file_size)),
        ("_NUM_ADDED_FILES".into(), Value::Long(m.num_added_files)),
        (
            "_NUM_DELETED_FILES".into(),
            Value::Long(m.num_deleted_files),
        ),
        ("_PARTITION_STATS".into(), stats_value(&m.partition_stats)),
        ("_SCHEMA_ID".into(), Value::Long(m.schema_id)),
        ("_MIN_BUCKET".into(), nullable(m.min_bucket, Value::Int)),
        ("_MAX_BUCKET".into(), nullable(m.max_bucket, Value::Int)),
        ("_MIN_LEVEL".into(), nullable(m.min_level, Value::Int)),
        ("_MAX_LEVEL".into(), nullable(m.max_level, Value::Int)),
        ("_MIN_ROW_ID".into(), nullable(m.min_row_id, Value::Long)),
        ("_MAX_ROW_ID".into(), nullable(m.max_row_id, Value::Long)),
    ])
}

fn meta_from_value(value: &Value) -> Result<ManifestFileMeta> {
    let rec = Rec::top(value)?;
    check_version(WHAT, rec.int("_VERSION")?, MANIFEST_LIST_VERSION)?;
    Ok(ManifestFileMeta {
        file_name: rec.string("_FILE_NAME")?,
        file_size: rec.long("_FILE_SIZE")?,
        num_added_files: rec.long("_NUM_ADDED_FILES")?,
        num_deleted_files: rec.long("_NUM_DELETED_FILES")?,
        partition_stats: rec.stats("_PARTITION_STATS")?,
        schema_id: rec.long("_SCHEMA_ID")?,
        min_bucket: rec.opt_int("_MIN_BUCKET")?,
        max_bucket: rec.opt_int("_MAX_BUCKET")?,
        min_level: rec.opt_int("_MIN_LEVEL")?,
        max_level: rec.opt_int("_MAX_LEVEL")?,
        min_row_id: rec.opt_long("_MIN_ROW_ID")?,
        max_row_id: rec.opt_long("_MAX_ROW_ID")?,
    })
}
