//! The per-file, per-column footer metadata of a shredded MAP column (`paimon.map.*`).
//!
//! Java's `MapSharedShreddingUtils.serializeMetadata` / `deserializeMetadata`. The values are
//! strings attached to the physical struct field inside the file's `ARROW:schema` footer entry
//! (the format layer embeds them); this module only maps them to and from
//! [`MapShreddingFileMeta`]:
//!
//! | key | value |
//! |---|---|
//! | `paimon.map.storage-layout` | `shared-shredding` (the marker) |
//! | `paimon.map.shared-shredding.version` | `1` |
//! | `…field-dict-compression` | `none` / `lz4` / `zstd` (absent: `zstd`) |
//! | `…field-dict-original-size` | byte length of the uncompressed dictionary JSON |
//! | `…field-dict` | the compressed JSON `{"name":id,…}` (names sorted), one char per byte (ISO-8859-1) |
//! | `…field-columns` | `{"id":[columns…],…}`: every column a field id occupied, ids ascending |
//! | `…overflow-set` | `[ids…]` that ever went to `__overflow`, ascending |
//! | `…num-columns` | K of this file |
//! | `…max-row-width` | most entries in one row of this file |
//!
//! zstd is a plain frame at level 1; lz4 is Paimon's block format (little-endian compressed
//! and original lengths, then a raw LZ4 block).

use std::collections::{BTreeMap, BTreeSet};

use crate::error::{Result, SpecError};

pub const STORAGE_LAYOUT_KEY: &str = "paimon.map.storage-layout";
pub const SHARED_SHREDDING: &str = "shared-shredding";
pub const VERSION_KEY: &str = "paimon.map.shared-shredding.version";
pub const FIELD_DICT_KEY: &str = "paimon.map.shared-shredding.field-dict";
pub const FIELD_DICT_COMPRESSION_KEY: &str = "paimon.map.shared-shredding.field-dict-compression";
pub const FIELD_DICT_ORIGINAL_SIZE_KEY: &str =
    "paimon.map.shared-shredding.field-dict-original-size";
pub const FIELD_COLUMNS_KEY: &str = "paimon.map.shared-shredding.field-columns";
pub const OVERFLOW_SET_KEY: &str = "paimon.map.shared-shredding.overflow-set";
pub const NUM_COLUMNS_KEY: &str = "paimon.map.shared-shredding.num-columns";
pub const MAX_ROW_WIDTH_KEY: &str = "paimon.map.shared-shredding.max-row-width";
/// The only metadata version.
pub const VERSION: i32 = 1;

/// Physical child names.
pub const FIELD_MAPPING: &str = "__field_mapping";
pub const OVERFLOW: &str = "__overflow";
/// `__col_<i>`.
pub fn column_name(i: usize) -> String {
    format!("__col_{i}")
}
/// The `i` of a `__col_<i>` name.
pub fn column_index(name: &str) -> Option<usize> {
    name.strip_prefix("__col_")?.parse().ok()
}

/// Decoded-size bounds that keep a corrupt footer from allocating without limit.
const MAX_DICT_BYTES: usize = 64 * 1024 * 1024;
const MAX_NUM_COLUMNS: usize = 16 * 1024;
const MAX_FIELD_ID: usize = 16 * 1024 * 1024;

/// How the field dictionary is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DictCompression {
    None,
    Lz4,
    Zstd,
}

impl DictCompression {
    pub fn name(self) -> &'static str {
        match self {
            DictCompression::None => "none",
            DictCompression::Lz4 => "lz4",
            DictCompression::Zstd => "zstd",
        }
    }
}

/// The shredding metadata of one MAP column in one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapShreddingFileMeta {
    /// Key name → field id (ids are dense from 0 in first-seen order).
    pub dictionary: BTreeMap<String, i32>,
    /// Field id → the columns it occupied (sorted).
    pub field_columns: BTreeMap<i32, Vec<u32>>,
    pub overflow: BTreeSet<i32>,
    pub num_columns: usize,
    pub max_row_width: usize,
}

fn bad(message: impl Into<String>) -> SpecError {
    SpecError::invalid("MAP shared-shredding metadata", message)
}

/// Whether these field metadata mark a shared-shredding column.
pub fn is_shredded<'a>(mut get: impl FnMut(&str) -> Option<&'a str>) -> bool {
    get(STORAGE_LAYOUT_KEY) == Some(SHARED_SHREDDING)
}

impl MapShreddingFileMeta {
    /// The key/value pairs, in Java's order.
    pub fn to_key_values(&self, compression: DictCompression) -> Result<Vec<(String, String)>> {
        let json = serde_json::to_vec(&self.dictionary)
            .map_err(|e| bad(format!("encoding the field dictionary: {e}")))?;
        let compressed = compress(&json, compression)?;
        let field_columns = serde_json::to_string(&self.field_columns)
            .map_err(|e| bad(format!("encoding field-columns: {e}")))?;
        let overflow = serde_json::to_string(&self.overflow)
            .map_err(|e| bad(format!("encoding overflow-set: {e}")))?;
        Ok(vec![
            (STORAGE_LAYOUT_KEY.into(), SHARED_SHREDDING.into()),
            (VERSION_KEY.into(), VERSION.to_string()),
            (FIELD_DICT_COMPRESSION_KEY.into(), compression.name().into()),
            (FIELD_DICT_ORIGINAL_SIZE_KEY.into(), json.len().to_string()),
            (FIELD_DICT_KEY.into(), latin1_string(&compressed)),
            (FIELD_COLUMNS_KEY.into(), field_columns),
            (OVERFLOW_SET_KEY.into(), overflow),
            (NUM_COLUMNS_KEY.into(), self.num_columns.to_string()),
            (MAX_ROW_WIDTH_KEY.into(), self.max_row_width.to_string()),
        ])
    }

    /// Parses the metadata of one field; every error names the key and what is wrong.
    pub fn from_key_values<'a>(get: impl Fn(&str) -> Option<&'a str>) -> Result<Self> {
        let required = |key: &str| {
            get(key).ok_or_else(|| bad(format!("missing shredding metadata key: {key}")))
        };
        let int = |key: &str| -> Result<i64> {
            let v = required(key)?;
            v.trim()
                .parse::<i64>()
                .map_err(|_| bad(format!("{key} is not an integer: {v:?}")))
        };
        if get(STORAGE_LAYOUT_KEY) != Some(SHARED_SHREDDING) {
            return Err(bad(format!(
                "{STORAGE_LAYOUT_KEY} is not {SHARED_SHREDDING}"
            )));
        }
        let version = int(VERSION_KEY)?;
        if version != VERSION as i64 {
            return Err(bad(format!(
                "unsupported shared-shredding metadata version: {version}, expected: {VERSION}"
            )));
        }
        let compression = match get(FIELD_DICT_COMPRESSION_KEY)
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("zstd") => DictCompression::Zstd,
            Some("lz4") => DictCompression::Lz4,
            Some("none") => DictCompression::None,
            Some(other) => {
                return Err(bad(format!(
                    "{FIELD_DICT_COMPRESSION_KEY} must be none, lz4 or zstd, got {other:?}"
                )))
            }
        };
        let original = int(FIELD_DICT_ORIGINAL_SIZE_KEY)?;
        if original < 0 || original as usize > MAX_DICT_BYTES {
            return Err(bad(format!(
                "{FIELD_DICT_ORIGINAL_SIZE_KEY} {original} is out of range (0..={MAX_DICT_BYTES})"
            )));
        }
        let original = original as usize;
        let num_columns = int(NUM_COLUMNS_KEY)?;
        if !(0..=MAX_NUM_COLUMNS as i64).contains(&num_columns) {
            return Err(bad(format!(
                "{NUM_COLUMNS_KEY} {num_columns} is out of range (0..={MAX_NUM_COLUMNS})"
            )));
        }
        let max_row_width = int(MAX_ROW_WIDTH_KEY)?;
        if max_row_width < 0 {
            return Err(bad(format!(
                "{MAX_ROW_WIDTH_KEY} {max_row_width} is negative"
            )));
        }
        let packed = latin1_bytes(required(FIELD_DICT_KEY)?)?;
        let json = decompress(&packed, original, compression)?;
        if json.len() != original {
            return Err(bad(format!(
                "the field dictionary decompresses to {} bytes, {FIELD_DICT_ORIGINAL_SIZE_KEY} \
                 says {original}",
                json.len()
            )));
        }
        // Parsed into a list and bulk-built: inserting thousands of keys one by one into the
        // map costs more than the rest of the footer.
        let fast = super::json_fast::string_to_int(&json).and_then(|m| {
            m.into_iter()
                .map(|(k, id)| Some((k, i32::try_from(id).ok()?)))
                .collect::<Option<Vec<_>>>()
        });
        let entries = match fast {
            Some(e) => e,
            None => {
                serde_json::from_slice::<Entries<String, i32>>(&json)
                    .map_err(|e| bad(format!("{FIELD_DICT_KEY} is not a JSON object of ids: {e}")))?
                    .0
            }
        };
        let dictionary: BTreeMap<String, i32> = entries.into_iter().collect();
        // Ids index per-file tables; writers assign them densely from 0.
        if let Some((name, id)) = dictionary
            .iter()
            .find(|(_, &id)| id < 0 || id as usize > MAX_FIELD_ID)
        {
            return Err(bad(format!(
                "{FIELD_DICT_KEY} gives key {name:?} the id {id}, outside 0..={MAX_FIELD_ID}"
            )));
        }
        let columns_text = required(FIELD_COLUMNS_KEY)?;
        let raw_columns = match super::json_fast::string_to_int_list(columns_text) {
            Some(c) => c,
            None => {
                serde_json::from_str::<Entries<String, Vec<i64>>>(columns_text)
                    .map_err(|e| bad(format!("{FIELD_COLUMNS_KEY} is malformed: {e}")))?
                    .0
            }
        };
        let mut field_columns = Vec::with_capacity(raw_columns.len());
        for (id, cols) in raw_columns {
            let id: i32 = id
                .parse()
                .map_err(|_| bad(format!("{FIELD_COLUMNS_KEY} has a bad field id {id:?}")))?;
            let mut out = Vec::with_capacity(cols.len());
            for c in cols {
                if c < 0 || c >= num_columns {
                    return Err(bad(format!(
                        "{FIELD_COLUMNS_KEY} puts field {id} in column {c}, but the file has \
                         {num_columns} columns"
                    )));
                }
                out.push(c as u32);
            }
            field_columns.push((id, out));
        }
        let field_columns: BTreeMap<i32, Vec<u32>> = field_columns.into_iter().collect();
        let overflow_text = required(OVERFLOW_SET_KEY)?;
        let fast = super::json_fast::int_list(overflow_text).and_then(|l| {
            l.into_iter()
                .map(|id| i32::try_from(id).ok())
                .collect::<Option<Vec<_>>>()
        });
        let overflow = match fast {
            Some(o) => o,
            None => serde_json::from_str::<Vec<i32>>(overflow_text)
                .map_err(|e| bad(format!("{OVERFLOW_SET_KEY} is malformed: {e}")))?,
        };
        let overflow: BTreeSet<i32> = overflow.into_iter().collect();
        Ok(MapShreddingFileMeta {
            dictionary,
            field_columns,
            overflow,
            num_columns: num_columns as usize,
            max_row_width: max_row_width as usize,
        })
    }
}

/// A JSON object's members in document order (a later duplicate wins once collected into a
/// map, as with serde's own map parsing).
struct Entries<K, V>(Vec<(K, V)>);

impl<'de, K: serde::Deserialize<'de>, V: serde::Deserialize<'de>> serde::Deserialize<'de>
    for Entries<K, V>
{
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visit<K, V>(std::marker::PhantomData<(K, V)>);
        impl<'de, K: serde::Deserialize<'de>, V: serde::Deserialize<'de>> serde::de::Visitor<'de>
            for Visit<K, V>
        {
            type Value = Entries<K, V>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(entry) = map.next_entry()? {
                    out.push(entry);
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(Visit(std::marker::PhantomData))
    }
}

/// Bytes as a string of the chars U+0000..U+00FF (Java's ISO-8859-1 `new String`).
fn latin1_string(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| b as char).collect()
}

fn latin1_bytes(s: &str) -> Result<Vec<u8>> {
    // Straight from the UTF-8 bytes: U+0000..U+007F are one byte, U+0080..U+00FF are
    // 0xC2/0xC3 and one continuation byte; anything else is not ISO-8859-1.
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            x @ 0..=0x7F => {
                out.push(x);
                i += 1;
            }
            lead @ (0xC2 | 0xC3) => {
                // A valid &str has the continuation byte.
                out.push(((lead & 0x03) << 6) | (b[i + 1] & 0x3F));
                i += 2;
            }
            _ => {
                let c = s[i..].chars().next().map_or(0, |c| c as u32);
                return Err(bad(format!(
                    "{FIELD_DICT_KEY} holds U+{c:04X}, which is not an ISO-8859-1 byte"
                )));
            }
        }
    }
    Ok(out)
}

fn compress(data: &[u8], compression: DictCompression) -> Result<Vec<u8>> {
    match compression {
        DictCompression::None => Ok(data.to_vec()),
        DictCompression::Zstd => zstd::bulk::compress(data, 1)
            .map_err(|e| bad(format!("zstd-compressing the field dictionary: {e}"))),
        DictCompression::Lz4 => {
            let block = lz4_flex::block::compress(data);
            let mut out = Vec::with_capacity(8 + block.len());
            out.extend_from_slice(&(block.len() as i32).to_le_bytes());
            out.extend_from_slice(&(data.len() as i32).to_le_bytes());
            out.extend_from_slice(&block);
            Ok(out)
        }
    }
}

fn decompress(data: &[u8], original: usize, compression: DictCompression) -> Result<Vec<u8>> {
    match compression {
        DictCompression::None => Ok(data.to_vec()),
        DictCompression::Zstd => zstd::bulk::decompress(data, original).map_err(|e| {
            bad(format!(
                "the zstd field dictionary does not decompress: {e}"
            ))
        }),
        DictCompression::Lz4 => {
            let header = |at: usize| -> Result<usize> {
                let b: [u8; 4] = data
                    .get(at..at + 4)
                    .and_then(|s| s.try_into().ok())
                    .ok_or_else(|| bad("the lz4 field dictionary is shorter than its header"))?;
                usize::try_from(i32::from_le_bytes(b))
                    .map_err(|_| bad("the lz4 field dictionary header has a negative length"))
            };
            let (compressed, declared) = (header(0)?, header(4)?);
            if declared != original || data.len() - 8 < compressed {
                return Err(bad(format!(
                    "the lz4 field dictionary header ({compressed} compressed, {declared} \
                     original bytes) does not match {} stored and {original} declared bytes",
                    data.len() - 8
                )));
            }
            lz4_flex::block::decompress(&data[8..8 + compressed], original)
                .map_err(|e| bad(format!("the lz4 field dictionary does not decompress: {e}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    fn sample() -> MapShreddingFileMeta {
        MapShreddingFileMeta {
            dictionary: BTreeMap::from([("a".into(), 1), ("b".into(), 2), ("c".into(), 0)]),
            field_columns: BTreeMap::from([(0, vec![0]), (1, vec![1, 2]), (2, vec![2])]),
            overflow: BTreeSet::from([2]),
            num_columns: 3,
            max_row_width: 4,
        }
    }

    fn decode(kv: &[(String, String)]) -> Result<MapShreddingFileMeta> {
        let m: HashMap<&str, &str> = kv.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        MapShreddingFileMeta::from_key_values(|k| m.get(k).copied())
    }

    #[test]
    fn latin1_round_trips_every_byte() {
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(latin1_bytes(&latin1_string(&all)).unwrap(), all);
        let err = latin1_bytes("ab\u{0100}").unwrap_err().to_string();
        assert!(err.contains("U+0100"), "{err}");
    }

    #[test]
    fn exact_values_as_java_writes_them() {
        let kv = sample().to_key_values(DictCompression::None).unwrap();
        let m: HashMap<_, _> = kv.iter().cloned().collect();
        assert_eq!(m[FIELD_DICT_KEY], r#"{"a":1,"b":2,"c":0}"#);
        assert_eq!(m[FIELD_DICT_ORIGINAL_SIZE_KEY], "19");
        assert_eq!(m[FIELD_COLUMNS_KEY], r#"{"0":[0],"1":[1,2],"2":[2]}"#);
        assert_eq!(m[OVERFLOW_SET_KEY], "[2]");
        assert_eq!(m[NUM_COLUMNS_KEY], "3");
        assert_eq!(m[MAX_ROW_WIDTH_KEY], "4");
        assert_eq!(kv[0].0, STORAGE_LAYOUT_KEY);
    }

    #[test]
    fn reads_pypaimon_rust_zstd_dictionary() {
        // The field-dict value of a file pypaimon-rust 0.4.0 wrote (dictionary of keys a..f).
        let json = br#"{"a":1,"b":2,"c":0,"d":3,"e":4,"f":5}"#;
        let frame = zstd::bulk::compress(json, 1).unwrap();
        let mut kv = sample().to_key_values(DictCompression::Zstd).unwrap();
        kv.retain(|(k, _)| k != FIELD_DICT_COMPRESSION_KEY); // legacy: absent means zstd
        for (k, v) in kv.iter_mut() {
            if k == FIELD_DICT_KEY {
                *v = latin1_string(&frame);
            }
            if k == FIELD_DICT_ORIGINAL_SIZE_KEY {
                *v = json.len().to_string();
            }
        }
        let meta = decode(&kv).unwrap();
        assert_eq!(meta.dictionary["f"], 5);
    }

    #[test]
    fn errors_name_the_problem() {
        let kv = sample().to_key_values(DictCompression::Zstd).unwrap();
        let with = |key: &str, value: Option<&str>| {
            let mut kv = kv.clone();
            kv.retain(|(k, _)| k != key);
            if let Some(v) = value {
                kv.push((key.into(), v.into()));
            }
            decode(&kv).unwrap_err().to_string()
        };
        assert!(with(VERSION_KEY, Some("2")).contains("unsupported"));
        assert!(with(NUM_COLUMNS_KEY, None).contains("missing shredding metadata key"));
        assert!(with(NUM_COLUMNS_KEY, Some("x")).contains("not an integer"));
        assert!(with(FIELD_DICT_ORIGINAL_SIZE_KEY, Some("5")).contains("decompress"));
        assert!(with(FIELD_DICT_KEY, Some("\u{0100}")).contains("ISO-8859-1"));
        assert!(with(FIELD_COLUMNS_KEY, Some(r#"{"0":[7]}"#)).contains("column 7"));
        assert!(with(OVERFLOW_SET_KEY, Some("[")).contains("malformed"));
        let bad_id = r#"{"a":-1}"#;
        let kv_bad: Vec<(String, String)> = kv
            .iter()
            .map(|(k, v)| match k.as_str() {
                FIELD_DICT_COMPRESSION_KEY => (k.clone(), "none".into()),
                FIELD_DICT_KEY => (k.clone(), bad_id.into()),
                FIELD_DICT_ORIGINAL_SIZE_KEY => (k.clone(), bad_id.len().to_string()),
                _ => (k.clone(), v.clone()),
            })
            .collect();
        assert!(decode(&kv_bad).unwrap_err().to_string().contains("outside"));
        assert!(with(FIELD_DICT_COMPRESSION_KEY, Some("snappy")).contains("none, lz4 or zstd"));
    }

    proptest! {
        #[test]
        fn round_trip(
            keys in proptest::collection::btree_set("\\PC{0,12}", 0..40),
            k in 1usize..300,
            width in 0usize..1000,
            codec in 0usize..3,
        ) {
            let dictionary: BTreeMap<String, i32> =
                keys.iter().enumerate().map(|(i, s)| (s.clone(), i as i32)).collect();
            let field_columns = dictionary
                .values()
                .map(|&id| (id, vec![(id as u32) % k as u32]))
                .collect();
            let overflow = dictionary.values().copied().filter(|id| id % 3 == 0).collect();
            let meta = MapShreddingFileMeta {
                dictionary, field_columns, overflow, num_columns: k, max_row_width: width,
            };
            let codec = [DictCompression::None, DictCompression::Lz4, DictCompression::Zstd][codec];
            let kv = meta.to_key_values(codec).unwrap();
            prop_assert_eq!(decode(&kv).unwrap(), meta);
        }

        #[test]
        fn corrupt_dictionary_bytes_never_panic(
            bytes in proptest::collection::vec(any::<u8>(), 0..64),
            codec in 0usize..3,
        ) {
            let mut kv = sample()
                .to_key_values([DictCompression::None, DictCompression::Lz4, DictCompression::Zstd][codec])
                .unwrap();
            for (k, v) in kv.iter_mut() {
                if k == FIELD_DICT_KEY {
                    *v = latin1_string(&bytes);
                }
            }
            let _ = decode(&kv);
        }
    }
}
