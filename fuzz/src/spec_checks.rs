//! The checks behind the fuzz targets of `strata-spec`'s decoders, one function per target.
//!
//! Each takes arbitrary bytes and must never panic on its own account: a decoder may reject
//! the input (any `Err` is fine), but when it accepts it the value must survive the round
//! trip through its encoder, and decoders that read the same bytes two ways (the lazy
//! `RawManifest` and the full manifest decoder, the footer JSON fast paths and serde) must
//! agree. A panic here is a bug — in a decoder, or in this oracle.
//!
//! This file is compiled twice: into the `strata_fuzz` crate (cargo-fuzz, nightly) and, by
//! `#[path]`, into `crates/strata-spec/tests/fuzz_corpus.rs`, which replays every corpus and
//! regression file on the stable toolchain. It may use only `strata_spec`, `serde_json` and
//! `std`.

use std::collections::{BTreeMap, BTreeSet};

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{
    decode_index_manifest, decode_manifest_entries, decode_manifest_list, encode_index_manifest,
    encode_manifest_entries, encode_manifest_list, merge_entries, EntryFilter, EntryHead,
    ManifestCompression, ManifestEntry, RawManifest,
};
use strata_spec::schema::{Schema, TableSchema};
use strata_spec::shredding::metadata::{self as shred, DictCompression, MapShreddingFileMeta};
use strata_spec::snapshot::{format_hint, parse_hint, Snapshot};
use strata_spec::types::{DataType, TypeKind, MAX_LENGTH};
use strata_spec::Datum;

/// The targets checked here (the directory names under `fuzz/corpus/`).
pub const SPEC_TARGETS: &[&str] = &[
    "snapshot_json",
    "schema_json",
    "manifest_entries",
    "manifest_list",
    "index_manifest",
    "raw_manifest",
    "binary_row",
    "shredding_metadata",
];

/// Runs the check of `target` on `data`; `false` when `target` is not one of [`SPEC_TARGETS`].
pub fn check_spec(target: &str, data: &[u8]) -> bool {
    match target {
        "snapshot_json" => snapshot_json(data),
        "schema_json" => schema_json(data),
        "manifest_entries" => manifest_entries(data),
        "manifest_list" => manifest_list(data),
        "index_manifest" => index_manifest(data),
        "raw_manifest" => raw_manifest(data),
        "binary_row" => binary_row(data),
        "shredding_metadata" => shredding_metadata(data),
        _ => return false,
    }
    true
}

/// `snapshot/snapshot-N` JSON and the `LATEST`/`EARLIEST` hint text.
pub fn snapshot_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(id) = parse_hint(text) {
        assert_eq!(parse_hint(&format_hint(id)), Some(id), "hint {text:?}");
    }
    let Ok(snapshot) = Snapshot::from_json(text) else {
        return;
    };
    let json = snapshot
        .to_json()
        .unwrap_or_else(|e| panic!("a decoded snapshot does not encode: {e}\n{snapshot:?}"));
    let back = Snapshot::from_json(&json)
        .unwrap_or_else(|e| panic!("an encoded snapshot does not decode: {e}\n{json}"));
    assert_eq!(back, snapshot, "snapshot round trip");
    assert_eq!(back.to_json().ok().as_deref(), Some(json.as_str()));
}

/// `schema/schema-N` JSON (and the create-table `Schema` JSON of the CLI).
pub fn schema_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The create-table form shares the type parser; it only has to decode or fail.
    let _ = Schema::from_json(text);
    let Ok(schema) = TableSchema::from_json(text) else {
        return;
    };
    let json = schema
        .to_json()
        .unwrap_or_else(|e| panic!("a decoded schema does not encode: {e}\n{schema:?}"));
    let back = TableSchema::from_json(&json)
        .unwrap_or_else(|e| panic!("an encoded schema does not decode: {e}\n{json}"));
    assert_eq!(back, schema, "schema round trip");
    assert_eq!(back.to_json().ok().as_deref(), Some(json.as_str()));
    // Derived row types must not panic either.
    let _ = (
        schema.row_type(),
        schema.partition_type(),
        schema.primary_key_type(),
        schema.bucket_key_type(),
        schema.trimmed_primary_keys(),
    );
}

/// Re-encodes decoded values with every codec and checks they decode to the same values.
fn round_trip<T: PartialEq + std::fmt::Debug>(
    what: &str,
    values: &[T],
    encode: impl Fn(&[T], ManifestCompression) -> strata_spec::Result<Vec<u8>>,
    decode: impl Fn(&[u8]) -> strata_spec::Result<Vec<T>>,
) {
    for codec in [
        ManifestCompression::Null,
        ManifestCompression::Zstandard { level: 1 },
    ] {
        let bytes = encode(values, codec)
            .unwrap_or_else(|e| panic!("decoded {what} do not encode ({codec:?}): {e}"));
        let back = decode(&bytes)
            .unwrap_or_else(|e| panic!("encoded {what} do not decode ({codec:?}): {e}"));
        assert!(back == values, "{what} round trip ({codec:?})");
    }
}

/// A manifest file through the full (apache-avro `Value`) decoder.
pub fn manifest_entries(data: &[u8]) {
    if let Ok(entries) = decode_manifest_entries(data) {
        round_trip(
            "manifest entries",
            &entries,
            encode_manifest_entries,
            decode_manifest_entries,
        );
        for e in &entries {
            check_entry_rows(e);
        }
    }
}

/// The BinaryRows of an entry re-serialize to themselves.
fn check_entry_rows(e: &ManifestEntry) {
    for row in [&e.partition, &e.file.min_key, &e.file.max_key] {
        let bytes = row.to_serialized();
        assert!(BinaryRow::from_serialized(&bytes).ok().as_ref() == Some(row));
    }
}

/// A manifest list file.
pub fn manifest_list(data: &[u8]) {
    if let Ok(metas) = decode_manifest_list(data) {
        round_trip(
            "manifest list entries",
            &metas,
            encode_manifest_list,
            decode_manifest_list,
        );
    }
}

/// An index manifest file.
pub fn index_manifest(data: &[u8]) {
    if let Ok(entries) = decode_index_manifest(data) {
        round_trip(
            "index manifest entries",
            &entries,
            encode_index_manifest,
            decode_index_manifest,
        );
    }
}

/// Keeps the entries of even buckets (a filter that actually drops some).
struct EvenBuckets;

impl EntryFilter for EvenBuckets {
    fn keep(&mut self, head: &EntryHead<'_>) -> strata_spec::Result<bool> {
        Ok(head.bucket % 2 == 0)
    }
}

fn head_matches(head: &EntryHead<'_>, e: &ManifestEntry) -> bool {
    head.kind == e.kind
        && head.partition == e.partition.to_serialized().as_slice()
        && head.bucket == e.bucket
        && head.total_buckets == e.total_buckets
        && head.level == e.file.level
        && head.file_name == e.file.file_name.as_bytes()
}

/// The lazy decoder (`RawManifest`) against the full decoder on the same bytes: same
/// entries, same heads, same filtered subset, same merge result.
pub fn raw_manifest(data: &[u8]) {
    let full = decode_manifest_entries(data);
    let raw = RawManifest::parse(data);
    match (&full, &raw) {
        (Ok(entries), Ok(raw)) => {
            assert_eq!(raw.len(), entries.len(), "entry count");
            assert_eq!(raw.walked(), entries.len(), "walked count");
            for (r, e) in raw.entries().zip(entries) {
                assert!(head_matches(&r.head, e), "head {:?} vs {e:?}", r.head);
                let decoded = r.decode().unwrap_or_else(|err| {
                    panic!(
                        "the full decoder read entry {} but the lazy one fails: {err}",
                        r.ordinal
                    )
                });
                assert!(&decoded == e, "entry {} differs", r.ordinal);
            }
            let filtered = RawManifest::parse_filtered(data, &mut EvenBuckets)
                .unwrap_or_else(|err| panic!("parse works but parse_filtered fails: {err}"));
            assert_eq!(filtered.walked(), entries.len());
            let kept: Vec<&ManifestEntry> = entries.iter().filter(|e| e.bucket % 2 == 0).collect();
            assert_eq!(filtered.len(), kept.len(), "filtered entry count");
            for (r, e) in filtered.entries().zip(kept) {
                assert!(head_matches(&r.head, e), "filtered head");
            }
            let eager = merge_entries(entries.iter().cloned());
            let lazy = merge_entries(raw.entries());
            match (eager, lazy) {
                (Ok(eager), Ok(lazy)) => {
                    let decode = |v: Vec<strata_spec::manifest::RawEntry<'_>>| -> Vec<_> {
                        v.iter()
                            .map(|r| r.decode().expect("decoded above"))
                            .collect()
                    };
                    assert!(eager.adds == decode(lazy.adds), "merged adds differ");
                    assert!(
                        eager.orphan_deletes == decode(lazy.orphan_deletes),
                        "merged orphan deletes differ"
                    );
                }
                (Err(_), Err(_)) => {}
                (eager, lazy) => panic!(
                    "merging decoded entries gives {:?}, merging raw ones {:?}",
                    eager.err().map(|e| e.to_string()),
                    lazy.err().map(|e| e.to_string())
                ),
            }
        }
        (Ok(_), Err(err)) => panic!("the full decoder reads the file, the lazy one fails: {err}"),
        (Err(_), Ok(raw)) => {
            // The lazy walk skips what it does not route on; fully decoding then must fail.
            if let Ok(decoded) = raw.decode_all() {
                panic!(
                    "the lazy decoder reads {} entries the full decoder rejects ({})",
                    decoded.len(),
                    full.as_ref()
                        .err()
                        .map(|e| e.to_string())
                        .unwrap_or_default()
                );
            }
        }
        (Err(_), Err(_)) => {}
    }
}

/// Every type a BinaryRow field can have (nested types are rejected by the decoder).
fn row_types() -> Vec<DataType> {
    let kinds = [
        TypeKind::Boolean,
        TypeKind::TinyInt,
        TypeKind::SmallInt,
        TypeKind::Int,
        TypeKind::BigInt,
        TypeKind::Float,
        TypeKind::Double,
        TypeKind::Decimal {
            precision: 10,
            scale: 2,
        },
        TypeKind::Decimal {
            precision: 38,
            scale: 4,
        },
        TypeKind::Char(3),
        TypeKind::VarChar(MAX_LENGTH),
        TypeKind::Binary(4),
        TypeKind::VarBinary(MAX_LENGTH),
        TypeKind::Date,
        TypeKind::Time(3),
        TypeKind::Timestamp(3),
        TypeKind::Timestamp(9),
        TypeKind::LocalZonedTimestamp(6),
    ];
    kinds.into_iter().map(DataType::nullable).collect()
}

/// A serialized BinaryRow (the Avro `bytes` form of partitions, keys and statistics):
/// `from_serialized` is exact, every field decodes or fails under every type, and a fully
/// decoded row re-encodes to a row that decodes to the same values.
pub fn binary_row(data: &[u8]) {
    let Ok(row) = BinaryRow::from_serialized(data) else {
        return;
    };
    assert_eq!(row.to_serialized(), data, "serialized form is kept exactly");
    let _ = row.row_kind();
    let palette = row_types();
    // Which type field i gets: rotate the palette by a byte of the input, so every type meets
    // every slot layout.
    let shift = data.last().copied().unwrap_or(0) as usize;
    let types: Vec<DataType> = (0..row.arity())
        .map(|i| palette[(i + shift) % palette.len()].clone())
        .collect();
    for i in 0..row.arity() {
        for ty in &palette {
            let _ = row.get(i, ty);
        }
    }
    let Ok(values) = row.to_datums(&types) else {
        return;
    };
    // A compact decimal is read as stored even beyond its precision, which the encoder
    // refuses; anything else decoded must encode.
    let Ok(again) = BinaryRow::from_datums(&values, &types) else {
        return;
    };
    let values2 = again
        .to_datums(&types)
        .unwrap_or_else(|e| panic!("a re-encoded row does not decode: {e}"));
    let again2 = BinaryRow::from_datums(&values2, &types).expect("encoded once already");
    assert_eq!(again, again2, "BinaryRow re-encoding is stable");
    assert!(
        same_datums(&values, &values2),
        "BinaryRow values survive re-encoding"
    );
}

/// Equality with floats compared by bits (NaN payloads included).
fn same_datums(a: &[Option<Datum>], b: &[Option<Datum>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Some(Datum::Float(x)), Some(Datum::Float(y))) => x.to_bits() == y.to_bits(),
            (Some(Datum::Double(x)), Some(Datum::Double(y))) => x.to_bits() == y.to_bits(),
            _ => x == y,
        })
}

/// The footer keys of a shredded MAP column, in the order the fuzz input lists their values.
pub const SHREDDING_KEYS: [&str; 9] = [
    shred::STORAGE_LAYOUT_KEY,
    shred::VERSION_KEY,
    shred::FIELD_DICT_COMPRESSION_KEY,
    shred::FIELD_DICT_ORIGINAL_SIZE_KEY,
    shred::FIELD_DICT_KEY,
    shred::FIELD_COLUMNS_KEY,
    shred::OVERFLOW_SET_KEY,
    shred::NUM_COLUMNS_KEY,
    shred::MAX_ROW_WIDTH_KEY,
];

/// Length marking an absent key in a shredding-metadata fuzz input.
const ABSENT: u16 = u16::MAX;

/// The fuzz input form of shredding metadata: for each of [`SHREDDING_KEYS`] in order, a
/// little-endian `u16` length (`0xFFFF`: key absent) and the value's bytes; the field
/// dictionary's bytes are its ISO-8859-1 characters, every other value is UTF-8. Keys past the
/// end of the input are absent.
pub fn encode_shredding_input(get: impl Fn(&str) -> Option<String>) -> Vec<u8> {
    let mut out = Vec::new();
    for key in SHREDDING_KEYS {
        match get(key) {
            None => out.extend_from_slice(&ABSENT.to_le_bytes()),
            Some(v) => {
                let bytes: Vec<u8> = if key == shred::FIELD_DICT_KEY {
                    v.chars().map(|c| c as u32 as u8).collect()
                } else {
                    v.into_bytes()
                };
                let len = u16::try_from(bytes.len()).unwrap_or(ABSENT - 1);
                out.extend_from_slice(&len.to_le_bytes());
                out.extend_from_slice(&bytes[..len as usize]);
            }
        }
    }
    out
}

fn decode_shredding_input(mut data: &[u8]) -> BTreeMap<&'static str, String> {
    let mut out = BTreeMap::new();
    for key in SHREDDING_KEYS {
        let Some((len, rest)) = data.split_first_chunk::<2>() else {
            break;
        };
        let len = u16::from_le_bytes(*len);
        data = rest;
        if len == ABSENT {
            continue;
        }
        let (value, rest) = data.split_at(data.len().min(len as usize));
        data = rest;
        let text = if key == shred::FIELD_DICT_KEY {
            value.iter().map(|&b| b as char).collect()
        } else {
            String::from_utf8_lossy(value).into_owned()
        };
        out.insert(key, text);
    }
    out
}

/// The `paimon.map.*` footer metadata: parses or fails with a message; parsed metadata
/// round-trips through every dictionary compression; the JSON fast paths agree with serde.
pub fn shredding_metadata(data: &[u8]) {
    let pairs = decode_shredding_input(data);
    let get = |k: &str| pairs.get(k).map(String::as_str);
    let Ok(meta) = MapShreddingFileMeta::from_key_values(get) else {
        return;
    };
    for compression in [
        DictCompression::None,
        DictCompression::Lz4,
        DictCompression::Zstd,
    ] {
        let kv = meta
            .to_key_values(compression)
            .unwrap_or_else(|e| panic!("parsed metadata does not encode ({compression:?}): {e}"));
        let back = MapShreddingFileMeta::from_key_values(|k| {
            kv.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str())
        })
        .unwrap_or_else(|e| panic!("encoded metadata does not parse ({compression:?}): {e}"));
        assert_eq!(
            back, meta,
            "shredding metadata round trip ({compression:?})"
        );
    }
    // Differential: serde_json must read the same values the fast paths produced.
    let dict_compression = get(shred::FIELD_DICT_COMPRESSION_KEY).map(str::to_ascii_lowercase);
    if dict_compression.as_deref() == Some("none") {
        let json: Vec<u8> = get(shred::FIELD_DICT_KEY)
            .unwrap_or_default()
            .chars()
            .map(|c| c as u32 as u8)
            .collect();
        let serde: BTreeMap<String, i32> = serde_json::from_slice(&json).unwrap_or_else(|e| {
            panic!(
                "the dictionary parsed but serde_json rejects it ({e}): {:?}",
                String::from_utf8_lossy(&json)
            )
        });
        assert_eq!(
            serde, meta.dictionary,
            "dictionary: fast path vs serde_json"
        );
    }
    let columns = get(shred::FIELD_COLUMNS_KEY).unwrap_or_default();
    let serde: BTreeMap<String, Vec<i64>> = serde_json::from_str(columns).unwrap_or_else(|e| {
        panic!("field-columns parsed but serde_json rejects it ({e}): {columns:?}")
    });
    let ids: BTreeSet<i32> = serde.keys().filter_map(|k| k.parse().ok()).collect();
    if ids.len() == serde.len() {
        let serde: BTreeMap<i32, Vec<u32>> = serde
            .into_iter()
            .map(|(k, v)| {
                let cols = v.into_iter().map(|c| c as u32).collect();
                (k.parse().expect("checked above"), cols)
            })
            .collect();
        assert_eq!(
            serde, meta.field_columns,
            "field-columns: fast path vs serde_json"
        );
    }
    let overflow = get(shred::OVERFLOW_SET_KEY).unwrap_or_default();
    let serde: Vec<i32> = serde_json::from_str(overflow).unwrap_or_else(|e| {
        panic!("overflow-set parsed but serde_json rejects it ({e}): {overflow:?}")
    });
    let serde: BTreeSet<i32> = serde.into_iter().collect();
    assert_eq!(
        serde, meta.overflow,
        "overflow-set: fast path vs serde_json"
    );
}
