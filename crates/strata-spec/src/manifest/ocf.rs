//! The Avro object container file (OCF) around Paimon's metadata files, written and read here
//! rather than by `apache_avro::{Writer, Reader}`:
//!
//! * the `avro.schema` header entry must be Java's compact schema text byte for byte, while
//!   apache-avro re-renders schemas (namespace before name, namespaces repeated on nested
//!   records) and adds an `avro.codec.compression_level` entry Java does not write;
//! * reading must fail cleanly on corrupt input (see [`super::avro_value`]).
//!
//! Layout (Avro spec): `Obj\x01`, metadata map (`avro.schema`, `avro.codec`, in Java's order),
//! 16-byte sync marker, then blocks of `count`, `byte size`, compressed datums, sync marker.
//! Blocks are cut like Java's `DataFileWriter`: after the datum that brings the uncompressed
//! block to 64000 bytes or more. The sync marker is derived from the content (Java draws it at
//! random), so the same entries always encode to the same bytes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use apache_avro::schema::Schema;
use apache_avro::types::Value;

use super::avro_value::{
    decode_value, max_items, min_encoded_size, Cursor, DecodeError, NamedTypes,
};
use super::compression::ManifestCompression;
use super::lazy_walk::EntryProgram;
use super::zstd_block::zstd_decompress_into;
use crate::error::{Result, SpecError};

const MAGIC: &[u8; 4] = b"Obj\x01";

/// Java `DataFileConstants.DEFAULT_SYNC_INTERVAL`: uncompressed bytes per block.
pub(crate) const SYNC_INTERVAL: usize = 64_000;

/// Encoded datums waiting to be framed into blocks.
#[derive(Default)]
pub(crate) struct EncodedRecords {
    data: Vec<u8>,
    ends: Vec<usize>,
}

impl EncodedRecords {
    pub(crate) fn push(&mut self, datum: &[u8]) {
        self.data.extend_from_slice(datum);
        self.ends.push(self.data.len());
    }
}

pub(crate) fn write_long(out: &mut Vec<u8>, v: i64) {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    loop {
        let b = (z & 0x7f) as u8;
        z >>= 7;
        if z == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn write_bytes(out: &mut Vec<u8>, b: &[u8]) {
    write_long(out, b.len() as i64);
    out.extend_from_slice(b);
}

/// FNV-1a over the parts, seeded; stable across Rust versions.
fn fnv1a(seed: u64, parts: &[&[u8]]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    for part in parts {
        for &b in *part {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h ^= part.len() as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn sync_marker(schema_json: &str, records: &EncodedRecords) -> [u8; 16] {
    let count = (records.ends.len() as u64).to_le_bytes();
    let parts: [&[u8]; 3] = [schema_json.as_bytes(), &records.data, &count];
    let mut marker = [0u8; 16];
    marker[..8].copy_from_slice(&fnv1a(0x5041_494d_4f4e_0001, &parts).to_le_bytes());
    marker[8..].copy_from_slice(&fnv1a(0x5354_5241_5441_0002, &parts).to_le_bytes());
    marker
}

/// Frames `records` into an OCF with `schema_json` as the `avro.schema` header text.
pub(crate) fn write_ocf(
    schema_json: &str,
    compression: ManifestCompression,
    records: &EncodedRecords,
) -> Result<Vec<u8>> {
    let marker = sync_marker(schema_json, records);
    let mut out = Vec::with_capacity(records.data.len() / 2 + schema_json.len() + 64);
    out.extend_from_slice(MAGIC);
    write_long(&mut out, 2);
    write_bytes(&mut out, b"avro.schema");
    write_bytes(&mut out, schema_json.as_bytes());
    write_bytes(&mut out, b"avro.codec");
    write_bytes(&mut out, compression.avro_codec_name().as_bytes());
    write_long(&mut out, 0);
    out.extend_from_slice(&marker);

    let codec = compression.avro_codec();
    let mut block_start = 0usize;
    let mut block_count = 0i64;
    for &end in &records.ends {
        block_count += 1;
        if end - block_start >= SYNC_INTERVAL {
            write_block(
                &mut out,
                codec,
                &records.data[block_start..end],
                block_count,
                &marker,
            )?;
            block_start = end;
            block_count = 0;
        }
    }
    if block_count > 0 {
        write_block(
            &mut out,
            codec,
            &records.data[block_start..],
            block_count,
            &marker,
        )?;
    }
    Ok(out)
}

fn write_block(
    out: &mut Vec<u8>,
    codec: apache_avro::Codec,
    data: &[u8],
    count: i64,
    marker: &[u8; 16],
) -> Result<()> {
    let mut block = data.to_vec();
    codec.compress(&mut block).map_err(|e| SpecError::Avro {
        context: "Avro block compression".into(),
        message: e.to_string(),
    })?;
    write_long(out, count);
    write_long(out, block.len() as i64);
    out.extend_from_slice(&block);
    out.extend_from_slice(marker);
    Ok(())
}

/// A parsed container: writer schema, codec and the undecoded blocks.
pub(crate) struct OcfFile<'a> {
    pub schema: Arc<CompiledSchema>,
    codec: apache_avro::Codec,
    sync: [u8; 16],
    body: &'a [u8],
}

fn header_err(message: impl Into<String>) -> SpecError {
    SpecError::Avro {
        context: "Avro container header".into(),
        message: message.into(),
    }
}

/// Parses the header of an OCF; blocks are decoded by [`OcfFile::for_each_record`].
pub(crate) fn parse_ocf(bytes: &[u8]) -> Result<OcfFile<'_>> {
    if bytes.len() < 4 || &bytes[..4] != MAGIC {
        return Err(header_err("missing 'Obj\\x01' magic"));
    }
    let mut c = Cursor::new(&bytes[4..]);
    let mut schema_json: Option<&[u8]> = None;
    let mut codec_name: Option<&[u8]> = None;
    loop {
        let raw = c.read_long().map_err(|e| header_err(e.message))?;
        if raw == 0 {
            break;
        }
        let count = if raw < 0 {
            c.read_long().map_err(|e| header_err(e.message))?;
            raw.unsigned_abs()
        } else {
            raw as u64
        };
        if count > c.remaining() as u64 {
            return Err(header_err(format!("metadata map claims {count} entries")));
        }
        for _ in 0..count {
            let key = read_len_prefixed(&mut c)?;
            let value = read_len_prefixed(&mut c)?;
            match key {
                b"avro.schema" => schema_json = Some(value),
                b"avro.codec" => codec_name = Some(value),
                _ => {}
            }
        }
    }
    let sync: [u8; 16] = c
        .read_slice(16)
        .map_err(|e| header_err(format!("sync marker: {}", e.message)))?
        .try_into()
        .expect("read_slice(16) returns 16 bytes");
    let body = &bytes[4 + c.position()..];

    let schema_json = schema_json.ok_or_else(|| header_err("no avro.schema entry"))?;
    let schema_text = std::str::from_utf8(schema_json)
        .map_err(|e| header_err(format!("avro.schema is not UTF-8: {e}")))?;
    let schema = compiled_schema(schema_text)?;
    let codec_name = match codec_name {
        None => "null".to_string(),
        Some(b) => std::str::from_utf8(b)
            .map_err(|e| header_err(format!("avro.codec is not UTF-8: {e}")))?
            .to_string(),
    };
    let codec = match codec_name.as_str() {
        "null" => apache_avro::Codec::Null,
        "deflate" => apache_avro::Codec::Deflate(apache_avro::DeflateSettings::default()),
        "snappy" => apache_avro::Codec::Snappy,
        "zstandard" => apache_avro::Codec::Zstandard(apache_avro::ZstandardSettings::default()),
        other => {
            return Err(SpecError::Unsupported(format!(
                "Avro codec '{other}' (strata reads null, deflate, snappy and zstandard)"
            )))
        }
    };
    Ok(OcfFile {
        schema,
        codec,
        sync,
        body,
    })
}

/// A writer schema parsed once per process: the text, the schema, its named types and the
/// smallest encoded datum size.
#[derive(Debug)]
pub(crate) struct CompiledSchema {
    pub text: Arc<str>,
    pub schema: Schema,
    pub named: NamedTypes,
    pub min_size: usize,
    /// The lazy-decoding walker, compiled on first use (manifest-entry schemas only).
    pub entry_program: OnceLock<std::result::Result<EntryProgram, String>>,
}

/// Most distinct writer schemas kept parsed (a table sees a handful: one per writer version).
const MAX_INTERNED_SCHEMAS: usize = 256;

/// The compiled form of a writer schema text. Every manifest of a table repeats the same
/// schema text, and parsing it costs more than decoding a small manifest, so compiled schemas
/// are interned by text.
pub(crate) fn compiled_schema(text: &str) -> Result<Arc<CompiledSchema>> {
    static INTERNED: OnceLock<Mutex<HashMap<Arc<str>, Arc<CompiledSchema>>>> = OnceLock::new();
    let interned = INTERNED.get_or_init(|| Mutex::new(HashMap::new()));
    // A poisoned lock only means another thread panicked while inserting; the map is still
    // a valid cache.
    if let Some(c) = interned.lock().unwrap_or_else(|p| p.into_inner()).get(text) {
        return Ok(c.clone());
    }
    let schema = parse_writer_schema(text)?;
    let compiled = Arc::new(CompiledSchema {
        text: Arc::from(text),
        named: NamedTypes::of(&schema),
        min_size: min_encoded_size(&schema),
        entry_program: OnceLock::new(),
        schema,
    });
    let mut map = interned.lock().unwrap_or_else(|p| p.into_inner());
    if map.len() >= MAX_INTERNED_SCHEMAS {
        map.clear();
    }
    map.insert(compiled.text.clone(), compiled.clone());
    Ok(compiled)
}

/// Parses the writer schema of a file. apache-avro's parser panics (`unwrap`) on some invalid
/// names, so names are checked first and the parse runs under `catch_unwind` as a backstop
/// (it is a pure function of the text).
fn parse_writer_schema(text: &str) -> Result<Schema> {
    let json: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| header_err(format!("avro.schema is not JSON: {e}")))?;
    check_names(&json, 0).map_err(|m| header_err(format!("avro.schema: {m}")))?;
    let parsed = std::panic::catch_unwind(|| Schema::parse(&json))
        .map_err(|_| header_err("avro.schema is not a valid Avro schema (parser panicked)"))?;
    parsed.map_err(|e| header_err(format!("avro.schema does not parse: {e}")))
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_full_name(s: &str) -> bool {
    s.split('.').all(is_ident)
}

/// Validates record/enum/fixed names, namespaces and aliases (Avro's name grammar).
fn check_names(json: &serde_json::Value, depth: usize) -> std::result::Result<(), String> {
    use serde_json::Value as J;
    if depth > 128 {
        return Err("nested too deeply".into());
    }
    match json {
        J::Object(map) => {
            let named = matches!(
                map.get("type").and_then(J::as_str),
                Some("record" | "error" | "enum" | "fixed")
            );
            if named {
                match map.get("name") {
                    Some(J::String(n)) if is_full_name(n) => {}
                    other => return Err(format!("invalid type name {other:?}")),
                }
            }
            match map.get("namespace") {
                None | Some(J::Null) => {}
                Some(J::String(ns)) if ns.is_empty() || is_full_name(ns) => {}
                Some(other) => return Err(format!("invalid namespace {other}")),
            }
            match map.get("aliases") {
                None | Some(J::Null) => {}
                Some(J::Array(items))
                    if items.iter().all(|a| a.as_str().is_some_and(is_full_name)) => {}
                Some(other) => return Err(format!("invalid aliases {other}")),
            }
            map.values().try_for_each(|v| check_names(v, depth + 1))
        }
        J::Array(items) => items.iter().try_for_each(|v| check_names(v, depth + 1)),
        _ => Ok(()),
    }
}

fn read_len_prefixed<'a>(c: &mut Cursor<'a>) -> Result<&'a [u8]> {
    let n = c.read_long().map_err(|e| header_err(e.message))?;
    let n = usize::try_from(n).map_err(|_| header_err(format!("negative length {n}")))?;
    c.read_slice(n).map_err(|e| header_err(e.message))
}

/// Checks the uncompressed length a snappy block declares before apache-avro allocates it
/// (snappy expands at most ~21x; apache-avro also slices `len - 4` unchecked).
fn check_snappy_block(block: &[u8]) -> std::result::Result<(), String> {
    if block.len() < 5 {
        return Err(format!(
            "snappy block of {} bytes is too short",
            block.len()
        ));
    }
    let mut declared: u64 = 0;
    for (i, &b) in block.iter().take(5).enumerate() {
        declared |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            let limit = block.len() as u64 * 32 + 1024;
            if declared > limit {
                return Err(format!(
                    "snappy block declares {declared} uncompressed bytes from {} bytes",
                    block.len()
                ));
            }
            return Ok(());
        }
    }
    Err("snappy block has an invalid length prefix".into())
}

impl<'a> OcfFile<'a> {
    /// Hands each block's raw (still compressed) bytes to `f` with the block number and record
    /// count, in file order, after checking the framing. Errors name `what` and the block.
    fn for_each_raw_block(
        &self,
        what: &str,
        mut f: impl FnMut(usize, usize, &[u8]) -> Result<()>,
    ) -> Result<()> {
        let mut c = Cursor::new(self.body);
        let mut block_no = 0usize;
        while c.remaining() > 0 {
            let avro_err = |message: String| block_err(what, block_no, message);
            let count = c.read_long().map_err(|e| avro_err(e.message))?;
            let size = c.read_long().map_err(|e| avro_err(e.message))?;
            if count < 0 || size < 0 || size as u64 > c.remaining() as u64 {
                return Err(avro_err(format!(
                    "block header count {count}, size {size} does not fit the {} bytes left",
                    c.remaining()
                )));
            }
            let raw = c
                .read_slice(size as usize)
                .map_err(|e| avro_err(e.message))?;
            let marker = c.read_slice(16).map_err(|e| avro_err(e.message))?;
            if marker != self.sync {
                return Err(avro_err("sync marker does not match the header".into()));
            }
            f(block_no, count as usize, raw)?;
            block_no += 1;
        }
        Ok(())
    }

    /// Appends the decompressed bytes of block `block_no` (`count` records) to `out`.
    fn decompress(
        &self,
        what: &str,
        block_no: usize,
        count: usize,
        raw: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let avro_err = |message: String| block_err(what, block_no, message);
        let start = out.len();
        match self.codec {
            apache_avro::Codec::Null => out.extend_from_slice(raw),
            apache_avro::Codec::Zstandard(_) => zstd_decompress_into(raw, out)
                .map_err(|m| avro_err(format!("decompression failed: {m}")))?,
            codec => {
                if matches!(codec, apache_avro::Codec::Snappy) {
                    check_snappy_block(raw).map_err(avro_err)?;
                }
                let mut buf = raw.to_vec();
                codec
                    .decompress(&mut buf)
                    .map_err(|e| avro_err(format!("decompression failed: {e}")))?;
                out.extend_from_slice(&buf);
            }
        }
        let len = out.len() - start;
        if count as u64 > max_items(len, self.schema.min_size) as u64 {
            return Err(avro_err(format!(
                "{count} records cannot fit in {len} bytes"
            )));
        }
        Ok(())
    }

    /// Hands each block's decompressed datums to `f` with the block number and record count,
    /// in file order. Errors name `what` (e.g. "manifest entry") and the block.
    pub(crate) fn for_each_block(
        &self,
        what: &str,
        mut f: impl FnMut(usize, usize, &[u8]) -> Result<()>,
    ) -> Result<()> {
        let mut scratch = Vec::new();
        self.for_each_raw_block(what, |block_no, count, raw| {
            if matches!(self.codec, apache_avro::Codec::Null) {
                let limit = max_items(raw.len(), self.schema.min_size);
                if count as u64 > limit as u64 {
                    return Err(block_err(
                        what,
                        block_no,
                        format!("{count} records cannot fit in {} bytes", raw.len()),
                    ));
                }
                return f(block_no, count, raw);
            }
            scratch.clear();
            self.decompress(what, block_no, count, raw, &mut scratch)?;
            f(block_no, count, &scratch)
        })
    }

    /// Decompresses every block into `out`, back to back; returns each block's record count
    /// and byte range in `out`.
    pub(crate) fn decompress_all(
        &self,
        what: &str,
        out: &mut Vec<u8>,
    ) -> Result<Vec<(usize, usize, std::ops::Range<usize>)>> {
        let mut blocks = Vec::new();
        self.for_each_raw_block(what, |block_no, count, raw| {
            let start = out.len();
            self.decompress(what, block_no, count, raw, out)?;
            blocks.push((block_no, count, start..out.len()));
            Ok(())
        })?;
        Ok(blocks)
    }

    /// Decodes every record in file order and hands it to `f` with its ordinal. Errors name
    /// `what` (e.g. "manifest entry"), the ordinal and the field path.
    pub(crate) fn for_each_record(
        &self,
        what: &str,
        mut f: impl FnMut(usize, Value) -> Result<()>,
    ) -> Result<()> {
        let compiled = &self.schema;
        let mut ordinal = 0usize;
        self.for_each_block(what, |block_no, count, data| {
            let mut rc = Cursor::new(data);
            for _ in 0..count {
                let value = decode_value(&mut rc, &compiled.schema, &compiled.named)
                    .map_err(|e| record_err(what, ordinal, e))?;
                f(ordinal, value)?;
                ordinal += 1;
            }
            check_block_consumed(what, block_no, count, &rc)
        })
    }
}

fn block_err(what: &str, block_no: usize, message: String) -> SpecError {
    SpecError::Avro {
        context: format!("Avro block #{block_no} of {what} file"),
        message,
    }
}

/// A decoding failure inside record `ordinal`, with the field path.
pub(crate) fn record_err(what: &str, ordinal: usize, e: DecodeError) -> SpecError {
    let path = e.path();
    SpecError::Avro {
        context: if path.is_empty() {
            format!("{what} #{ordinal}")
        } else {
            format!("{what} #{ordinal} field {path}")
        },
        message: e.message,
    }
}

/// A block must end exactly after its records.
pub(crate) fn check_block_consumed(
    what: &str,
    block_no: usize,
    count: usize,
    rc: &Cursor<'_>,
) -> Result<()> {
    if rc.remaining() != 0 {
        return Err(SpecError::Avro {
            context: format!("Avro block #{block_no} of {what} file"),
            message: format!(
                "{} bytes left after the block's {count} records",
                rc.remaining()
            ),
        });
    }
    Ok(())
}

/// The compiled walker of a manifest-entry schema.
pub(crate) fn program(schema: &CompiledSchema) -> Result<&EntryProgram> {
    schema
        .entry_program
        .get_or_init(|| EntryProgram::compile(&schema.schema, &schema.named))
        .as_ref()
        .map_err(|m| SpecError::invalid("manifest entry schema", m.clone()))
}

/// Fails when the lazy walker cannot read files of this writer schema (the full decoder
/// applies the same rule, so both accept the same files).
pub(crate) fn check_entry_schema(schema: &CompiledSchema) -> Result<()> {
    program(schema).map(|_| ())
}
