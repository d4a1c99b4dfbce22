//! Index manifests: [`IndexManifestEntry`] ⇄ Avro, in Java's schema (§5.5 of the format
//! reference). `_VERSION` is 1 here. Deletion-vector ranges keep their file order (Java keeps
//! them in a `LinkedHashMap` keyed by data file name).

use apache_avro::types::Value;

use super::codec::{decode_records, encode_records, INDEX_SCHEMA};
use super::compression::ManifestCompression;
use super::model::{
    DeletionVectorMeta, FileKind, GlobalIndexMeta, IndexFileMeta, IndexManifestEntry,
};
use super::version::check_version;
use super::wire::{nullable, row_bytes, some, Rec};
use crate::error::Result;

/// `_VERSION` of index-manifest entries.
pub const INDEX_MANIFEST_VERSION: i32 = 1;

const WHAT: &str = "index manifest entry";

/// Encodes an index manifest: Java's writer schema in the header, `compression` as codec.
pub fn encode_index_manifest(
    entries: &[IndexManifestEntry],
    compression: ManifestCompression,
) -> Result<Vec<u8>> {
    encode_records(&INDEX_SCHEMA, entries, compression, index_entry_to_value)
}

/// Decodes an index manifest written by Java, pypaimon, pypaimon-rust or strata.
pub fn decode_index_manifest(bytes: &[u8]) -> Result<Vec<IndexManifestEntry>> {
    decode_records(bytes, WHAT, index_entry_from_value)
}

fn dv_to_value(dv: &DeletionVectorMeta) -> Value {
    some(Value::Record(vec![
        ("f0".into(), Value::String(dv.data_file_name.clone())),
        ("f1".into(), Value::Int(dv.offset)),
        ("f2".into(), Value::Int(dv.length)),
        ("_CARDINALITY".into(), nullable(dv.cardinality, Value::Long)),
    ]))
}

fn global_to_value(g: &GlobalIndexMeta) -> Value {
    Value::Record(vec![
        ("_ROW_RANGE_START".into(), Value::Long(g.row_range_start)),
        ("_ROW_RANGE_END".into(), Value::Long(g.row_range_end)),
        ("_INDEX_FIELD_ID".into(), Value::Int(g.index_field_id)),
        (
            "_EXTRA_FIELD_IDS".into(),
            nullable(g.extra_field_ids.as_ref(), |ids| {
                Value::Array(ids.iter().map(|i| Value::Int(*i)).collect())
            }),
        ),
        (
            "_INDEX_META".into(),
            nullable(g.index_meta.clone(), Value::Bytes),
        ),
        (
            "_SOURCE_META".into(),
            nullable(g.source_meta.clone(), Value::Bytes),
        ),
    ])
}

fn index_entry_to_value(e: &IndexManifestEntry) -> Value {
    let f = &e.index_file;
    Value::Record(vec![
        ("_VERSION".into(), Value::Int(INDEX_MANIFEST_VERSION)),
        ("_KIND".into(), Value::Int(i32::from(e.kind.to_byte()))),
        ("_PARTITION".into(), row_bytes(&e.partition)),
        ("_BUCKET".into(), Value::Int(e.bucket)),
        ("_INDEX_TYPE".into(), Value::String(f.index_type.clone())),
        ("_FILE_NAME".into(), Value::String(f.file_name.clone())),
        ("_FILE_SIZE".into(), Value::Long(f.file_size)),
        ("_ROW_COUNT".into(), Value::Long(f.row_count)),
        (
            "_DELETIONS_VECTORS_RANGES".into(),
            nullable(f.dv_ranges.as_ref(), |r| {
                Value::Array(r.iter().map(dv_to_value).collect())
            }),
        ),
        (
            "_EXTERNAL_PATH".into(),
            nullable(f.external_path.clone(), Value::String),
        ),
        (
            "_GLOBAL_INDEX".into(),
            nullable(f.global_index.as_ref(), global_to_value),
        ),
    ])
}

fn index_entry_from_value(value: &Value) -> Result<IndexManifestEntry> {
    let rec = Rec::top(value)?;
    check_version(WHAT, rec.int("_VERSION")?, INDEX_MANIFEST_VERSION)?;
    let kind_byte = rec.int("_KIND")?;
    let kind = FileKind::from_byte(kind_byte)
        .map_err(|_| rec.err("_KIND", format!("unknown file kind {kind_byte}")))?;
    let dv_ranges = match rec.opt_record_list("_DELETIONS_VECTORS_RANGES")? {
        None => None,
        Some(items) => Some(
            items
                .iter()
                .map(|dv| {
                    Ok(DeletionVectorMeta {
                        data_file_name: dv.string("f0")?,
                        offset: dv.int("f1")?,
                        length: dv.int("f2")?,
                        cardinality: dv.opt_long("_CARDINALITY")?,
                    })
                })
                .collect::<Result<Vec<_>>>()?,
        ),
    };
    let global_index = match rec.record("_GLOBAL_INDEX")? {
        None => None,
        Some(g) => Some(GlobalIndexMeta {
            row_range_start: g.long("_ROW_RANGE_START")?,
            row_range_end: g.long("_ROW_RANGE_END")?,
            index_field_id: g.int("_INDEX_FIELD_ID")?,
            extra_field_ids: g.opt_int_list("_EXTRA_FIELD_IDS")?,
            index_meta: g.opt_bytes("_INDEX_META")?,
            source_meta: g.opt_bytes("_SOURCE_META")?,
        }),
    };
    Ok(IndexManifestEntry {
        kind,
        partition: rec.required_binary_row("_PARTITION")?,
        bucket: rec.int("_BUCKET")?,
        index_file: IndexFileMeta {
            index_type: rec.string("_INDEX_TYPE")?,
            file_name: rec.string("_FILE_NAME")?,
            file_size: rec.long("_FILE_SIZE")?,
            row_count: rec.long("_ROW_COUNT")?,
            dv_ranges,
            external_path: rec.opt_string("_EXTERNAL_PATH")?,
            global_index,
        },
    })
}
