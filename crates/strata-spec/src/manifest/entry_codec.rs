//! Manifest files: [`ManifestEntry`] ⇄ Avro, in Java's schema (§5 of the format reference).
//!
//! Writing always produces Java's layout: the six non-union top-level fields `_VERSION` (2),
//! `_KIND`, `_PARTITION`, `_BUCKET`, `_TOTAL_BUCKETS`, `_FILE`, and all 21 DataFileMeta fields
//! (`_WRITE_COLS_SEQUENCES` written as null). Reading resolves fields by name, so pypaimon's
//! and pypaimon-rust's variants and the ≤0.8 union-wrapped form decode too.

use apache_avro::types::Value;

use super::codec::{decode_records, encode_records, ENTRY_SCHEMA};
use super::compression::ManifestCompression;
use super::model::{DataFileMeta, FileKind, FileSource, ManifestEntry};
use super::ocf::{check_entry_schema, parse_ocf};
use super::version::{check_version, MANIFEST_ENTRY_VERSION};
use super::wire::{field, null, nullable, row_bytes, stats_value, string_list, Fields, Rec};
use crate::error::Result;

const WHAT: &str = "manifest entry";

/// Encodes a manifest file: Java's writer schema in the header, `compression` as block codec.
pub fn encode_manifest_entries(
    entries: &[ManifestEntry],
    compression: ManifestCompression,
) -> Result<Vec<u8>> {
    encode_records(&ENTRY_SCHEMA, entries, compression, entry_to_value)
}

/// Decodes a manifest file written by Java, pypaimon, pypaimon-rust or strata.
///
/// The writer schema must also suit the lazy decoder ([`super::RawManifest`]: the routing
/// fields present, bounded nesting), so that both decoders accept exactly the same files.
pub fn decode_manifest_entries(bytes: &[u8]) -> Result<Vec<ManifestEntry>> {
    check_entry_schema(&parse_ocf(bytes)?.schema)?;
    decode_records(bytes, WHAT, entry_from_value)
}

pub(crate) fn entry_to_value(e: &ManifestEntry) -> Value {
    Value::Record(vec![
        ("_VERSION".into(), Value::Int(MANIFEST_ENTRY_VERSION)),
        ("_KIND".into(), Value::Int(i32::from(e.kind.to_byte()))),
        ("_PARTITION".into(), row_bytes(&e.partition)),
        ("_BUCKET".into(), Value::Int(e.bucket)),
        ("_TOTAL_BUCKETS".into(), Value::Int(e.total_buckets)),
        ("_FILE".into(), file_to_value(&e.file)),
    ])
}

fn file_to_value(f: &DataFileMeta) -> Value {
    let mut v: Fields = Vec::with_capacity(21);
    field(&mut v, "_FILE_NAME", Value::String(f.file_name.clone()));
    field(&mut v, "_FILE_SIZE", Value::Long(f.file_size));
    field(&mut v, "_ROW_COUNT", Value::Long(f.row_count));
    field(&mut v, "_MIN_KEY", row_bytes(&f.min_key));
    field(&mut v, "_MAX_KEY", row_bytes(&f.max_key));
    field(&mut v, "_KEY_STATS", stats_value(&f.key_stats));
    field(&mut v, "_VALUE_STATS", stats_value(&f.value_stats));
    field(
        &mut v,
        "_MIN_SEQUENCE_NUMBER",
        Value::Long(f.min_sequence_number),
    );
    field(
        &mut v,
        "_MAX_SEQUENCE_NUMBER",
        Value::Long(f.max_sequence_number),
    );
    field(&mut v, "_SCHEMA_ID", Value::Long(f.schema_id));
    field(&mut v, "_LEVEL", Value::Int(f.level));
    field(&mut v, "_EXTRA_FILES", string_list(&f.extra_files));
    field(
        &mut v,
        "_CREATION_TIME",
        nullable(f.creation_time, Value::TimestampMillis),
    );
    field(
        &mut v,
        "_DELETE_ROW_COUNT",
        nullable(f.delete_row_count, Value::Long),
    );
    field(
        &mut v,
        "_EMBEDDED_FILE_INDEX",
        nullable(f.embedded_index.clone(), Value::Bytes),
    );
    field(
        &mut v,
        "_FILE_SOURCE",
        nullable(f.file_source, |s| Value::Int(i32::from(s.to_byte()))),
    );
    field(
        &mut v,
        "_VALUE_STATS_COLS",
        nullable(f.value_stats_cols.as_deref(), string_list),
    );
    field(
        &mut v,
        "_EXTERNAL_PATH",
        nullable(f.external_path.clone(), Value::String),
    );
    field(
        &mut v,
        "_FIRST_ROW_ID",
        nullable(f.first_row_id, Value::Long),
    );
    field(
        &mut v,
        "_WRITE_COLS",
        nullable(f.write_cols.as_deref(), string_list),
    );
    field(&mut v, "_WRITE_COLS_SEQUENCES", null());
    Value::Record(v)
}

pub(crate) fn entry_from_value(value: &Value) -> Result<ManifestEntry> {
    let rec = Rec::top(value)?;
    check_version(WHAT, rec.int("_VERSION")?, MANIFEST_ENTRY_VERSION)?;
    let kind_byte = rec.int("_KIND")?;
    let kind = FileKind::from_byte(kind_byte)
        .map_err(|_| rec.err("_KIND", format!("unknown file kind {kind_byte}")))?;
    let file = rec
        .record("_FILE")?
        .ok_or_else(|| rec.err("_FILE", "required field is missing or null"))?;
    Ok(ManifestEntry {
        kind,
        partition: rec.required_binary_row("_PARTITION")?,
        bucket: rec.int("_BUCKET")?,
        total_buckets: rec.int("_TOTAL_BUCKETS")?,
        file: file_from_rec(&file)?,
    })
}

fn file_from_rec(f: &Rec<'_>) -> Result<DataFileMeta> {
    let file_source = match f.opt_int("_FILE_SOURCE")? {
        None => None,
        Some(b) => Some(
            FileSource::from_byte(b)
                .map_err(|_| f.err("_FILE_SOURCE", format!("unknown file source {b}")))?,
        ),
    };
    Ok(DataFileMeta {
        file_name: f.string("_FILE_NAME")?,
        file_size: f.long("_FILE_SIZE")?,
        row_count: f.long("_ROW_COUNT")?,
        min_key: f.binary_row("_MIN_KEY")?,
        max_key: f.binary_row("_MAX_KEY")?,
        key_stats: f.stats("_KEY_STATS")?,
        value_stats: f.stats("_VALUE_STATS")?,
        min_sequence_number: f.long("_MIN_SEQUENCE_NUMBER")?,
        max_sequence_number: f.long("_MAX_SEQUENCE_NUMBER")?,
        schema_id: f.long("_SCHEMA_ID")?,
        level: f.int("_LEVEL")?,
        extra_files: f.opt_string_list("_EXTRA_FILES")?.unwrap_or_default(),
        creation_time: f.opt_millis("_CREATION_TIME")?,
        delete_row_count: f.opt_long("_DELETE_ROW_COUNT")?,
        embedded_index: f.opt_bytes("_EMBEDDED_FILE_INDEX")?,
        file_source,
        value_stats_cols: f.opt_string_list("_VALUE_STATS_COLS")?,
        external_path: f.opt_string("_EXTERNAL_PATH")?,
        first_row_id: f.opt_long("_FIRST_ROW_ID")?,
        write_cols: f.opt_string_list("_WRITE_COLS")?,
    })
}
