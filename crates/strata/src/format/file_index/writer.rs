//! Building a data file's indexes while it is written (Java's `FileIndexOptions` and
//! `DataFileIndexWriter`): the table's `file-index.<type>.columns` (with per-column tuning
//! `file-index.<type>.<column>.<option>`) parsed as Java parses them, every row of the file fed
//! to one writer per (column, index type), and the container serialized in Java's order. The
//! caller embeds it in the manifest entry when it is at most `file-index.in-manifest-threshold`
//! bytes, else writes it as `<data-file>.index` beside the data file.
//!
//! strata writes `bloom-filter`, `bitmap`, `bsi` and `range-bitmap` indexes, of top-level
//! columns and of MAP keys (`m[k]` in `.columns`: the values of key `k` of the
//! `MAP<STRING, T>` column `m`, indexed as a column named `m[k]`, Java's
//! `MapFileIndexMaintainer`).

use std::collections::BTreeMap;

use arrow_array::{Array, MapArray, RecordBatch};
use strata_spec::{RowType, SpecError, TypeKind};

use super::bitmap::{self, BitmapWriter};
use super::bloom_filter::{self, BloomFilterWriter};
use super::bsi::{self, BsiWriter};
use super::container::write_container;
use super::range_bitmap::{self, RangeBitmapWriter};
use crate::format::datum_at;
use crate::Result;

const PREFIX: &str = "file-index.";
const COLUMNS_SUFFIX: &str = ".columns";

fn invalid(key: &str, message: impl Into<String>) -> crate::Error {
    crate::Error::invalid_option(key, message)
}

/// One (column, index type) of the table's file-index options with its tuning.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct IndexSpec {
    /// The top-level column (for a MAP-key index `m[k]`, the MAP column `m`).
    pub(crate) column: String,
    /// `k` of a MAP-key index `m[k]` (`FileIndexOptions.Column.nestedColumnName`).
    pub(crate) map_key: Option<String>,
    pub(crate) index_type: String,
    pub(crate) options: BTreeMap<String, String>,
}

/// The table's file-index options (Java's `FileIndexOptions`): empty when it has none.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct FileIndexOptions {
    pub(crate) specs: Vec<IndexSpec>,
    pub(crate) in_manifest_threshold: u64,
}

impl FileIndexOptions {
    /// Parses `options` (the table's), checking every indexed column against `row_type` and
    /// refusing what strata does not write.
    pub(crate) fn parse(
        options: &BTreeMap<String, String>,
        row_type: &RowType,
        in_manifest_threshold: u64,
    ) -> Result<Self> {
        let mut specs: Vec<IndexSpec> = Vec::new();
        for (key, value) in options {
            let Some(index_type) = key
                .strip_prefix(PREFIX)
                .and_then(|k| k.strip_suffix(COLUMNS_SUFFIX))
            else {
                continue;
            };
            for name in value.split(',') {
                let name = name.trim();
                if name.is_empty() {
                    return Err(invalid(key, "should not have an empty column"));
                }
                let (column, map_key) = split_nested(name);
                if !specs.iter().any(|s| {
                    s.column == column && s.map_key == map_key && s.index_type == index_type
                }) {
                    specs.push(IndexSpec {
                        column,
                        map_key,
                        index_type: index_type.to_string(),
                        options: BTreeMap::new(),
                    });
                }
            }
        }
        for (key, value) in options {
            let Some(rest) = key.strip_prefix(PREFIX) else {
                continue;
            };
            if key.ends_with(COLUMNS_SUFFIX) {
                continue;
            }
            let parts: Vec<&str> = rest.split('.').collect();
            if parts.len() != 3 {
                continue; // in-manifest-threshold, read.enabled
            }
            let (index_type, column, option) = (parts[0], parts[1], parts[2]);
            let (top, map_key) = split_nested(column);
            let exact = specs
                .iter_mut()
                .find(|s| s.column == top && s.map_key == map_key && s.index_type == index_type);
            if let Some(s) = exact {
                s.options.insert(option.to_string(), value.clone());
                continue;
            }
            // `m[k]` options for that key; `m` options (a MAP column indexed by key only) for
            // every key of `m`, the key's own options winning (Java's
            // `getMapTopLevelOptions` merged under the nested ones).
            let top_level = map_key.is_none()
                && specs
                    .iter()
                    .any(|s| s.column == top && s.map_key.is_some() && s.index_type == index_type);
            if top_level {
                for s in specs.iter_mut().filter(|s| {
                    s.column == top && s.map_key.is_some() && s.index_type == index_type
                }) {
                    if !top_level_options_overridden(options, s, option) {
                        s.options.insert(option.to_string(), value.clone());
                    }
                }
            } else {
                return Err(invalid(
                    key,
                    format!(
                        "column '{column}' is not declared in '{PREFIX}{index_type}{COLUMNS_SUFFIX}'"
                    ),
                ));
            }
        }
        for s in &specs {
            let key = format!("{PREFIX}{}{COLUMNS_SUFFIX}", s.index_type);
            let field = row_type
                .fields
                .iter()
                .find(|f| f.name == s.column)
                .ok_or_else(|| {
                    invalid(
                        &key,
                        format!("{} does not exist in column fields", s.column),
                    )
                })?;
            let value_type = match (&s.map_key, &field.data_type.kind) {
                (None, _) => &field.data_type,
                (Some(_), TypeKind::Map { key: kt, value }) => {
                    if !matches!(kt.kind, TypeKind::Char(_) | TypeKind::VarChar(_)) {
                        return Err(invalid(
                            &key,
                            "Only support map data type with key field of CHAR、VARCHAR、STRING.",
                        ));
                    }
                    value.as_ref()
                }
                (Some(_), _) => {
                    return Err(invalid(
                        &key,
                        format!(
                            "Column {} is nested column, but is not map type. Only should map \
                             type yet.",
                            s.column
                        ),
                    ))
                }
            };
            let field = strata_spec::DataField {
                data_type: value_type.clone(),
                ..field.clone()
            };
            let field = &field;
            match s.index_type.as_str() {
                bloom_filter::IDENTIFIER => {
                    if !bloom_filter::supports(&field.data_type.kind) {
                        return Err(invalid(
                            &key,
                            format!(
                                "column {} of type {}: Java's bloom filter does not hash it",
                                s.column, field.data_type
                            ),
                        ));
                    }
                }
                bitmap::IDENTIFIER => {
                    if !bitmap::supports(&field.data_type.kind) {
                        return Err(invalid(
                            &key,
                            format!(
                                "column {} of type {}: Java's bitmap index does not key it",
                                s.column, field.data_type
                            ),
                        ));
                    }
                }
                range_bitmap::IDENTIFIER => {
                    if !range_bitmap::supports(&field.data_type.kind) {
                        return Err(invalid(
                            &key,
                            format!(
                                "column {} of type {}: Java's range-bitmap index does not key it",
                                s.column, field.data_type
                            ),
                        ));
                    }
                }
                bsi::IDENTIFIER => {
                    if !bsi::supports(&field.data_type.kind) {
                        return Err(invalid(
                            &key,
                            format!(
                                "column {} of type {}: Java's bsi index does not map it to longs",
                                s.column, field.data_type
                            ),
                        ));
                    }
                }
                other => {
                    return Err(crate::error::ErrorDetail::Unsupported(format!(
                    "{key}: strata writes bloom-filter, bitmap, bsi and range-bitmap file indexes, not {other}"
                ))
                    .into())
                }
            }
            // Checks the tuning now, not when the first file closes.
            ColumnWriter::writer(s, &field.data_type.kind)
                .map_err(|e| invalid(&key, e.to_string()))?;
        }
        Ok(FileIndexOptions {
            specs,
            in_manifest_threshold,
        })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }
}

enum Writer {
    Bloom(BloomFilterWriter),
    Bitmap(BitmapWriter),
    Bsi(BsiWriter),
    RangeBitmap(RangeBitmapWriter),
}

impl Writer {
    fn write(&mut self, v: Option<&strata_spec::Datum>) {
        match self {
            Writer::Bloom(b) => b.write(v),
            Writer::Bitmap(b) => b.write(v),
            Writer::Bsi(b) => b.write(v),
            Writer::RangeBitmap(b) => b.write(v),
        }
    }

    fn finish(&self) -> Vec<u8> {
        match self {
            Writer::Bloom(b) => b.finish(),
            Writer::Bitmap(b) => b.finish(),
            Writer::Bsi(b) => b.finish(),
            Writer::RangeBitmap(b) => b.finish(),
        }
    }
}

/// The value of `key` in row `row` of the MAP column `array` (`MapFileIndexMaintainer.write`):
/// `None` when the map is NULL, lacks the key, or maps it to NULL.
fn map_value(array: &dyn Array, row: usize, key: &str) -> Result<Option<strata_spec::Datum>> {
    let Some(map) = array.as_any().downcast_ref::<MapArray>() else {
        return Err(crate::Error::invalid_argument(format!(
            "a MAP-key file index over a column of Arrow type {}",
            array.data_type()
        )));
    };
    if map.is_null(row) {
        return Ok(None);
    }
    let offsets = map.value_offsets();
    let (start, end) = (offsets[row] as usize, offsets[row + 1] as usize);
    let keys = map.keys();
    for i in start..end {
        if let Some(strata_spec::Datum::String(k)) = datum_at(keys.as_ref(), i)? {
            if k == key {
                return datum_at(map.values().as_ref(), i);
            }
        }
    }
    Ok(None)
}

struct ColumnWriter {
    /// The column's name in the container (its name in the data file's schema; `m[k]` for a
    /// MAP-key index, `FileIndexCommon.toMapKey`).
    column: String,
    /// The top-level column's name in the file (the MAP column of a MAP-key index).
    top: String,
    /// The key of a MAP-key index.
    map_key: Option<String>,
    index_type: String,
    position: usize,
    writer: Writer,
}

impl ColumnWriter {
    fn writer(spec: &IndexSpec, kind: &TypeKind) -> std::result::Result<Writer, SpecError> {
        let parse = |name: &str| spec.options.get(name);
        let family = match spec.index_type.as_str() {
            bloom_filter::IDENTIFIER => bloom_filter::OPTIONS,
            bsi::IDENTIFIER => bsi::OPTIONS,
            range_bitmap::IDENTIFIER => range_bitmap::OPTIONS,
            _ => bitmap::OPTIONS,
        };
        let bad = |name: &str, v: &str| {
            SpecError::invalid(
                format!("{family}{}.{name}", spec.column),
                format!("bad value {v:?}"),
            )
        };
        Ok(match spec.index_type.as_str() {
            bloom_filter::IDENTIFIER => {
                let items = match parse("items") {
                    Some(v) => v.trim().parse::<i64>().map_err(|_| bad("items", v))?,
                    None => bloom_filter::DEFAULT_ITEMS,
                };
                let fpp = match parse("fpp") {
                    Some(v) => v.trim().parse::<f64>().map_err(|_| bad("fpp", v))?,
                    None => bloom_filter::DEFAULT_FPP,
                };
                Writer::Bloom(BloomFilterWriter::new(kind.clone(), items, fpp)?)
            }
            bsi::IDENTIFIER => Writer::Bsi(BsiWriter::new(kind.clone())?),
            range_bitmap::IDENTIFIER => {
                let chunk = match parse("chunk-size") {
                    Some(v) => Some(
                        strata_spec::options::units::parse_memory_size(v)
                            .ok()
                            .and_then(|b| i32::try_from(b).ok())
                            .ok_or_else(|| bad("chunk-size", v))? as usize,
                    ),
                    None => None,
                };
                Writer::RangeBitmap(RangeBitmapWriter::new(kind.clone(), chunk)?)
            }
            _ => {
                let version = match parse("version") {
                    Some(v) => v.trim().parse::<u8>().map_err(|_| bad("version", v))?,
                    None => 2,
                };
                let block = match parse("index-block-size") {
                    Some(v) => strata_spec::options::units::parse_memory_size(v)
                        .map_err(|_| bad("index-block-size", v))?
                        as usize,
                    None => bitmap::DEFAULT_BLOCK_SIZE,
                };
                Writer::Bitmap(BitmapWriter::new(kind.clone(), version, block)?)
            }
        })
    }
}

/// The indexes of one data file being written (Java's `DataFileIndexWriter`).
pub(crate) struct DataFileIndexWriter {
    writers: Vec<ColumnWriter>,
    threshold: u64,
}

/// A finished file's index container and where it goes.
#[derive(Debug, PartialEq)]
pub(crate) enum FileIndexOutput {
    /// At most the threshold: `_EMBEDDED_FILE_INDEX` of the manifest entry.
    Embedded(Vec<u8>),
    /// Above it: the `<data-file>.index` file, listed in `extraFiles`.
    Separate(Vec<u8>),
}

impl DataFileIndexWriter {
    /// A writer for a file of `row_type` rows (`None` when the table has no file index).
    pub(crate) fn create(options: &FileIndexOptions, row_type: &RowType) -> Result<Option<Self>> {
        Self::create_renamed(options, row_type, &|f| Some(f.name.clone()))
    }

    /// [`Self::create`] for rows of `row_type` (the table's current schema) indexing a file
    /// written under an older one (Java's `FileIndexProcessor` column mapping): `file_name`
    /// gives a column's name in the file, `None` for a column the file does not hold (not
    /// indexed).
    pub(crate) fn create_renamed(
        options: &FileIndexOptions,
        row_type: &RowType,
        file_name: &dyn Fn(&strata_spec::DataField) -> Option<String>,
    ) -> Result<Option<Self>> {
        if options.is_empty() {
            return Ok(None);
        }
        let mut writers = Vec::with_capacity(options.specs.len());
        for s in &options.specs {
            let position = row_type
                .fields
                .iter()
                .position(|f| f.name == s.column)
                .ok_or_else(|| {
                    invalid(
                        &format!("{PREFIX}{}{COLUMNS_SUFFIX}", s.index_type),
                        format!("{} does not exist in column fields", s.column),
                    )
                })?;
            let mut kind = &row_type.fields[position].data_type.kind;
            let Some(top) = file_name(&row_type.fields[position]) else {
                continue;
            };
            let column = match (&s.map_key, kind) {
                (None, _) => top.clone(),
                (Some(k), TypeKind::Map { value, .. }) => {
                    kind = &value.kind;
                    format!("{top}[{k}]")
                }
                (Some(_), _) => {
                    return Err(invalid(
                        &format!("{PREFIX}{}{COLUMNS_SUFFIX}", s.index_type),
                        format!("Column {} is nested column, but is not map type", s.column),
                    ))
                }
            };
            writers.push(ColumnWriter {
                column,
                top,
                map_key: s.map_key.clone(),
                index_type: s.index_type.clone(),
                position,
                writer: ColumnWriter::writer(s, kind).map_err(crate::Error::from)?,
            });
        }
        if writers.is_empty() {
            return Ok(None);
        }
        Ok(Some(DataFileIndexWriter {
            writers,
            threshold: options.in_manifest_threshold,
        }))
    }

    /// Feeds the rows of `batch` (the file's row type, in order).
    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        for w in &mut self.writers {
            let array = batch.column(w.position);
            if let Some(key) = &w.map_key {
                for row in 0..batch.num_rows() {
                    let v = map_value(array.as_ref(), row, key)?;
                    w.writer.write(v.as_ref());
                }
                continue;
            }
            if let Writer::Bloom(b) = &mut w.writer {
                if b.write_array(array.as_ref()) {
                    continue;
                }
            }
            for row in 0..batch.num_rows() {
                let v = datum_at(array.as_ref(), row)?;
                w.writer.write(v.as_ref());
            }
        }
        Ok(())
    }

    /// The container, with columns and index types in the order of Java's `HashMap`s, and
    /// where it goes.
    pub(crate) fn finish(&self) -> FileIndexOutput {
        // Java: indexMaintainers (type -> column -> maintainer), both HashMaps; the result
        // map column -> type -> bytes filled in that order, both HashMaps.
        let types = java_hash_map_order(
            dedup(self.writers.iter().map(|w| w.index_type.clone())).collect(),
            true,
        );
        // A MAP column's keys share one maintainer (`MapFileIndexMaintainer`), whose
        // `serializedBytes` map (`m[k]` -> bytes) is filled in its writers' (`k`) order.
        let mut inserted: Vec<String> = Vec::new();
        for t in &types {
            let of_type = || self.writers.iter().filter(move |w| &w.index_type == t);
            let tops =
                java_hash_map_order(dedup(of_type().map(|w| w.top.clone())).collect(), false);
            for top in tops {
                let keys: Vec<String> = of_type()
                    .filter(|w| w.top == top && w.map_key.is_some())
                    .filter_map(|w| w.map_key.clone())
                    .collect();
                let cols = if keys.is_empty() {
                    vec![top.clone()]
                } else {
                    java_hash_map_order(
                        java_hash_map_order(keys, false)
                            .into_iter()
                            .map(|k| format!("{top}[{k}]"))
                            .collect(),
                        false,
                    )
                };
                for c in cols {
                    if !inserted.contains(&c) {
                        inserted.push(c);
                    }
                }
            }
        }
        let columns = java_hash_map_order(inserted, true);
        let mut indexes = Vec::new();
        for c in columns {
            let col_types: Vec<String> = types
                .iter()
                .filter(|t| {
                    self.writers
                        .iter()
                        .any(|w| w.column == c && &w.index_type == *t)
                })
                .cloned()
                .collect();
            let mut entries = Vec::new();
            for t in java_hash_map_order(col_types, false) {
                if let Some(w) = self
                    .writers
                    .iter()
                    .find(|w| w.column == c && w.index_type == t)
                {
                    entries.push((t, Some(w.writer.finish())));
                }
            }
            indexes.push((c, entries));
        }
        let blob = write_container(&indexes);
        if blob.len() as u64 > self.threshold {
            FileIndexOutput::Separate(blob)
        } else {
            FileIndexOutput::Embedded(blob)
        }
    }
}

/// `FileIndexOptions.topLevelIndexOfNested`: `m[k]` is (`m`, `k`), any other name itself.
fn split_nested(name: &str) -> (String, Option<String>) {
    match name.find('[') {
        Some(start) if name.ends_with(']') => (
            name[..start].to_string(),
            Some(name[start + 1..name.len() - 1].to_string()),
        ),
        _ => (name.to_string(), None),
    }
}

/// Whether the MAP-key index `s` has its own `option` (which wins over the MAP column's).
fn top_level_options_overridden(
    options: &BTreeMap<String, String>,
    s: &IndexSpec,
    option: &str,
) -> bool {
    let Some(k) = &s.map_key else { return false };
    options.contains_key(&format!(
        "{PREFIX}{}.{}[{k}].{option}",
        s.index_type, s.column
    ))
}

fn dedup(items: impl Iterator<Item = String>) -> impl Iterator<Item = String> {
    let mut seen = Vec::new();
    items.filter(move |i| {
        if seen.contains(i) {
            false
        } else {
            seen.push(i.clone());
            true
        }
    })
}

/// Java's `String.hashCode`.
fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(c as i32))
}

/// The iteration order of a `java.util.HashMap<String, _>` filled with `keys` in this order:
/// by bucket (`spread(hash) & (capacity - 1)`, the capacity doubling from 16 while the size
/// exceeds 3/4 of it); within a bucket in insertion order for `put`, newest first for
/// `computeIfAbsent` (`head`: it links a new node at the head of its bin). Resizes keep the
/// order within a bin.
fn java_hash_map_order(keys: Vec<String>, head: bool) -> Vec<String> {
    let mut capacity = 16usize;
    while keys.len() > capacity * 3 / 4 {
        capacity *= 2;
    }
    let mut keyed: Vec<(usize, i64, String)> = keys
        .into_iter()
        .enumerate()
        .map(|(i, k)| {
            let h = java_string_hash(&k);
            let spread = h ^ ((h as u32) >> 16) as i32;
            let rank = if head { -(i as i64) } else { i as i64 };
            ((spread as u32 as usize) & (capacity - 1), rank, k)
        })
        .collect();
    keyed.sort();
    keyed.into_iter().map(|(_, _, k)| k).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_hash_map_order_of_small_maps() {
        // "name".hashCode() = 3373707, "v".hashCode() = 118: buckets 3373707 ^ 51 & 15 = 8
        // and 6.
        assert_eq!(java_string_hash("name"), 3373707);
        assert_eq!(
            java_hash_map_order(vec!["name".into(), "v".into()], true),
            vec!["v".to_string(), "name".to_string()]
        );
    }
}
