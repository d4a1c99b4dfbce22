//! Reading shredded MAP columns: footer metadata, what to decode, and reconstruction.
//!
//! Whether a column is shredded is decided per file from its footer, never from the table
//! options, so files of both layouts and of different K read side by side. The metadata
//! comes from the `ARROW:schema` footer entry (base64 of an Arrow IPC schema message, with
//! or without the continuation prefix); only top-level field names and their custom metadata
//! are read, straight from the verified flatbuffer.
//!
//! A read of the whole map decodes `__field_mapping`, the columns some key occupied (columns
//! no key ever used are all NULL and skipped) and `__overflow` if anything overflowed. A read
//! of selected keys decodes only the columns those keys occupied and `__overflow` only if one
//! of them overflowed. Rows are rebuilt from `__field_mapping`: entries in column order, then
//! the row's overflow entries in stored order — the order Java and pypaimon-rust return.
//! A key whose value is NULL stays present (slot holds its id, the column is NULL); an absent
//! key has no slot.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_array::{
    new_empty_array, Array, ArrayRef, BooleanArray, Int32Array, ListArray, MapArray, StringArray,
    StructArray,
};
use arrow_schema::{DataType as ArrowType, FieldRef};
use base64::Engine;
use parquet::file::metadata::ParquetMetaData;
use strata_spec::shredding::metadata::{column_index, column_name, FIELD_MAPPING, OVERFLOW};
use strata_spec::shredding::MapShreddingFileMeta;
use strata_spec::types::{DataType, TypeKind};

use super::super::evolve::evolve_array;
use super::rebuild::{
    finish_maps, EntryBuilder, KeyNames, Picks, Primitive, ValueSink, NOT_WANTED,
};
use crate::error::ErrorDetail;
use crate::{Error, Result};

/// Footer key of the embedded Arrow schema (the carrier of `paimon.map.*` field metadata);
/// the Parquet writer writes it, readers of shredded maps find their layout in it.
pub(crate) const ARROW_SCHEMA_KEY: &str = "ARROW:schema";

/// Shredding metadata of a file's top-level columns, by column name.
pub(crate) type FileShreddingMeta = HashMap<String, Arc<MapShreddingFileMeta>>;

/// The shredded columns of a Parquet file (empty for a file without `ARROW:schema` or with
/// no shredded column). `display` names the file in errors.
pub fn file_shredding_meta(meta: &ParquetMetaData, display: &str) -> Result<FileShreddingMeta> {
    let Some(kv) = meta.file_metadata().key_value_metadata() else {
        return Ok(HashMap::new());
    };
    let Some(encoded) = kv
        .iter()
        .find(|e| e.key == ARROW_SCHEMA_KEY)
        .and_then(|e| e.value.as_deref())
    else {
        return Ok(HashMap::new());
    };
    let corrupt = |what: String| {
        Error::from(ErrorDetail::SchemaMismatch {
            column: "*".into(),
            message: format!("{display}: the ARROW:schema footer entry {what}"),
        })
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap_or_else(|_| encoded.as_bytes().to_vec());
    // Skip the IPC continuation marker and length (or the legacy bare length).
    let body = if bytes.len() >= 8 && bytes[..4] == [0xff; 4] {
        &bytes[8..]
    } else if bytes.len() >= 4 {
        &bytes[4..]
    } else {
        &bytes[..]
    };
    let message = arrow_ipc::root_as_message(body)
        .map_err(|e| corrupt(format!("is not an Arrow IPC message ({e})")))?;
    let Some(schema) = message.header_as_schema() else {
        return Err(corrupt("holds no schema".into()));
    };
    let mut out = HashMap::new();
    for field in schema.fields().iter().flat_map(|f| f.iter()) {
        let (Some(name), Some(custom)) = (field.name(), field.custom_metadata()) else {
            continue;
        };
        let pairs: HashMap<&str, &str> = custom
            .iter()
            .filter_map(|kv| Some((kv.key()?, kv.value()?)))
            .collect();
        if !strata_spec::shredding::metadata::is_shredded(|k| pairs.get(k).copied()) {
            continue;
        }
        let parsed =
            MapShreddingFileMeta::from_key_values(|k| pairs.get(k).copied()).map_err(|e| {
                Error::from(ErrorDetail::SchemaMismatch {
                    column: name.to_string(),
                    message: format!("{display}: {e}"),
                })
            })?;
        out.insert(name.to_string(), Arc::new(parsed));
    }
    Ok(out)
}

/// Size of a table indexed by field id (ids are validated non-negative and bounded when the
/// footer is parsed; writers assign them densely, but a sparse dictionary must not lose keys).
fn id_slots(meta: &MapShreddingFileMeta) -> usize {
    meta.dictionary
        .values()
        .max()
        .map_or(0, |&m| m as usize + 1)
}

/// How one shredded column of one file is read.
#[derive(Debug)]
pub struct ShreddedRead {
    /// The column's `paimon.map.*` metadata from the file's `ARROW:schema` footer entry: its
    /// key dictionary and which `__col_i` (or `__overflow`) each key was written to.
    pub meta: Arc<MapShreddingFileMeta>,
    /// Physical children to decode, by name. Empty when none of the selected keys is in the
    /// file: nothing is decoded and every row reads as an empty map.
    pub children: Vec<String>,
    /// The names of the wanted field ids (`name_index` points into it).
    names: KeyNames,
    /// Field id → its name's index in `names`, or [`NOT_WANTED`].
    name_index: Vec<u32>,
    /// Selected keys read from their exclusive columns alone (no `__field_mapping`): the
    /// columns, ascending, each with the field id it holds.
    values_only: Option<Vec<(usize, i32)>>,
    /// Name of the column, for errors.
    column: String,
    /// The value type the file was written with.
    file_value_type: DataType,
}

impl ShreddedRead {
    /// Plans reading column `column` (written with map type `file_type`) for `selected` keys
    /// (`None`: the whole map).
    ///
    /// Selected keys whose every column holds no other key and that never overflowed (a
    /// dedicated column, or any file where placement happened to keep the key apart) are read
    /// from those columns alone, without `__field_mapping`: a non-NULL value there is that
    /// key's. Such a read cannot tell a key present with a NULL value from an absent one, so
    /// the returned maps omit both; that is the contract of selected keys, which are read only
    /// through key access (`m['k']` is NULL either way).
    pub fn plan(
        column: &str,
        meta: Arc<MapShreddingFileMeta>,
        file_type: &DataType,
        selected: Option<&[String]>,
    ) -> Result<Self> {
        let TypeKind::Map { value, .. } = &file_type.kind else {
            return Err(ErrorDetail::SchemaMismatch {
                column: column.into(),
                message: format!(
                    "the file stores this column shredded, but its schema type is {file_type}"
                ),
            }
            .into());
        };
        let slots = id_slots(&meta);
        let mut columns = vec![false; meta.num_columns];
        let mut overflow = false;
        let mut wanted = vec![selected.is_none(); slots];
        let mut values_only = None;
        match selected {
            None => {
                for cols in meta.field_columns.values() {
                    for &c in cols {
                        columns[c as usize] = true;
                    }
                }
                overflow = !meta.overflow.is_empty();
            }
            Some(keys) => {
                // Distinct keys per column, to find the columns only one key used.
                let mut owners = vec![0u32; meta.num_columns];
                for cols in meta.field_columns.values() {
                    for &c in cols {
                        owners[c as usize] += 1;
                    }
                }
                let mut exclusive = Vec::new();
                let mut all_exclusive = true;
                for key in keys {
                    let Some(&id) = meta.dictionary.get(key) else {
                        continue;
                    };
                    if id >= 0 && (id as usize) < slots {
                        wanted[id as usize] = true;
                    }
                    let cols = meta.field_columns.get(&id).map_or(&[][..], |c| &c[..]);
                    for &c in cols {
                        columns[c as usize] = true;
                        exclusive.push((c as usize, id));
                    }
                    let over = meta.overflow.contains(&id);
                    overflow |= over;
                    all_exclusive &= !over && cols.iter().all(|&c| owners[c as usize] == 1);
                }
                if all_exclusive {
                    exclusive.sort_unstable();
                    exclusive.dedup();
                    values_only = Some(exclusive);
                }
            }
        }
        let mut names = Vec::new();
        let mut name_index = vec![NOT_WANTED; slots];
        for (name, &id) in &meta.dictionary {
            if id >= 0 && (id as usize) < slots && wanted[id as usize] {
                name_index[id as usize] = names.len() as u32;
                names.push(name.as_str());
            }
        }
        let names = KeyNames::new(StringArray::from(names));
        let mut children = Vec::new();
        if values_only.is_none() {
            children.push(FIELD_MAPPING.to_string());
        }
        children.extend(
            columns
                .iter()
                .enumerate()
                .filter(|(_, on)| **on)
                .map(|(c, _)| column_name(c)),
        );
        if overflow {
            children.push(OVERFLOW.to_string());
        }
        Ok(ShreddedRead {
            meta,
            children,
            names,
            name_index,
            values_only,
            column: column.to_string(),
            file_value_type: (**value).clone(),
        })
    }

    /// Whether the selected keys are read from their exclusive columns alone.
    #[cfg_attr(not(feature = "unstable"), allow(dead_code))] // strata::unstable only
    pub fn is_values_only(&self) -> bool {
        self.values_only.is_some()
    }

    fn bad(&self, message: impl Into<String>) -> Error {
        ErrorDetail::SchemaMismatch {
            column: self.column.clone(),
            message: message.into(),
        }
        .into()
    }

    /// `rows` empty maps: the read of a file holding none of the selected keys.
    pub fn empty_maps(&self, rows: usize, target: &FieldRef) -> Result<ArrayRef> {
        let ArrowType::Map(entries_field, _) = target.data_type() else {
            return Err(self.bad(format!("read type {} is not a MAP", target.data_type())));
        };
        let ArrowType::Struct(entry_fields) = entries_field.data_type() else {
            return Err(self.bad("MAP entries are not a struct"));
        };
        let entries = StructArray::try_new(
            entry_fields.clone(),
            entry_fields
                .iter()
                .map(|f| new_empty_array(f.data_type()))
                .collect(),
            None,
        )
        .map_err(|e| Error::arrow(format!("empty MAP column {}", self.column), e))?;
        let map = MapArray::try_new(
            entries_field.clone(),
            OffsetBuffer::new_zeroed(rows),
            entries,
            None,
            false,
        )
        .map_err(|e| Error::arrow(format!("empty MAP column {}", self.column), e))?;
        Ok(Arc::new(map))
    }

    /// Rebuilds the logical MAP (typed as `target`, read as `read_type`) from the decoded
    /// physical struct.
    pub fn reconstruct(
        &self,
        physical: &ArrayRef,
        read_type: &DataType,
        target: &FieldRef,
    ) -> Result<ArrayRef> {
        let s = physical
            .as_any()
            .downcast_ref::<StructArray>()
            .ok_or_else(|| {
                self.bad(format!(
                    "expected the shredded struct, got {}",
                    physical.data_type()
                ))
            })?;
        let ArrowType::Map(entries_field, _) = target.data_type() else {
            return Err(self.bad(format!("read type {} is not a MAP", target.data_type())));
        };
        let ArrowType::Struct(entry_fields) = entries_field.data_type() else {
            return Err(self.bad("MAP entries are not a struct"));
        };
        let TypeKind::Map {
            value: read_value, ..
        } = &read_type.kind
        else {
            return Err(self.bad(format!("read type {read_type} is not a MAP")));
        };
        let value_target = &entry_fields[1];
        let mut read_value = (**read_value).clone();
        read_value.nullable = true;
        let k = self.meta.num_columns;

        // Value sources: the decoded __col_i (indexed by column) and the overflow values.
        let mut sources: Vec<ArrayRef> = Vec::new();
        let mut source_of_column: Vec<i32> = vec![-1; k];
        let mut overflow: Option<(&MapArray, &Int32Array, usize)> = None;
        for (field, array) in s.fields().iter().zip(s.columns()) {
            if let Some(c) = column_index(field.name()) {
                if c >= k {
                    return Err(
                        self.bad(format!("{} is beyond the file's {k} columns", field.name()))
                    );
                }
                source_of_column[c] = sources.len() as i32;
                sources.push(evolve_array(
                    array,
                    &self.file_value_type,
                    &read_value,
                    value_target,
                    &self.column,
                )?);
            } else if field.name() == OVERFLOW {
                let map = array
                    .as_any()
                    .downcast_ref::<MapArray>()
                    .ok_or_else(|| self.bad("__overflow is not a MAP"))?;
                let keys = map
                    .keys()
                    .as_any()
                    .downcast_ref::<Int32Array>()
                    .ok_or_else(|| self.bad("__overflow keys are not INT"))?;
                overflow = Some((map, keys, sources.len()));
                sources.push(evolve_array(
                    map.values(),
                    &self.file_value_type,
                    &read_value,
                    value_target,
                    &self.column,
                )?);
            }
        }

        if let Some([(c, id)]) = self.values_only.as_deref() {
            let src = source_of_column[*c];
            if src < 0 {
                return Err(self.bad(format!("{} was not decoded", column_name(*c))));
            }
            return self.single_key(s, &sources[src as usize], *id, entries_field, entry_fields);
        }
        let value_type = value_target.data_type();
        let finish = |names: Vec<u32>, offsets: Vec<i32>, values: ArrayRef| {
            finish_maps(
                &self.names,
                names,
                offsets,
                values,
                entries_field,
                entry_fields,
                s.nulls().cloned(),
                &self.column,
            )
        };
        // Primitive values of one type are gathered as the rows are walked; others are
        // picked afterwards.
        if !sources.is_empty() && sources.iter().all(|a| a.data_type() == value_type) {
            macro_rules! typed {
                ($t:ty) => {{
                    let out = self.walk(
                        s,
                        &source_of_column,
                        overflow,
                        Primitive::<$t>::new(&sources),
                    )?;
                    let (names, offsets, sink) = out.into_parts();
                    return finish(names, offsets, sink.finish());
                }};
            }
            arrow_array::downcast_primitive! {
                value_type => (typed),
                _ => {}
            }
        }
        let out = self.walk(s, &source_of_column, overflow, Picks::default())?;
        let (names, offsets, sink) = out.into_parts();
        let values = sink
            .finish(&sources, value_type)
            .map_err(|e| Error::arrow(format!("rebuilding MAP column {}", self.column), e))?;
        finish(names, offsets, values)
    }

    /// Walks the rows of the physical struct `s`: every entry of every row (in column
    /// order, then the row's overflow entries) goes into the returned builder.
    fn walk<V: ValueSink>(
        &self,
        s: &StructArray,
        source_of_column: &[i32],
        overflow: Option<(&MapArray, &Int32Array, usize)>,
        sink: V,
    ) -> Result<EntryBuilder<V>> {
        let rows = s.len();
        let k = self.meta.num_columns;
        let mut out = EntryBuilder::new(rows, sink);
        if let Some(columns) = &self.values_only {
            // Exclusive columns: a non-NULL value is its key's.
            let mut cols = Vec::with_capacity(columns.len());
            for &(c, id) in columns {
                let src = source_of_column[c];
                if src < 0 {
                    return Err(self.bad(format!("{} was not decoded", column_name(c))));
                }
                let array = s
                    .column_by_name(&column_name(c))
                    .ok_or_else(|| self.bad(format!("{} was not decoded", column_name(c))))?;
                cols.push((array.logical_nulls(), src as usize, id));
                out.reserve(array.len() - array.null_count());
            }
            let struct_nulls = s.logical_nulls();
            for row in 0..rows {
                if struct_nulls.as_ref().is_none_or(|n| n.is_valid(row)) {
                    for (nulls, src, id) in &cols {
                        if nulls.as_ref().is_none_or(|n| n.is_valid(row)) {
                            out.push(self.name_index[*id as usize], *src, row);
                        }
                    }
                }
                out.end_row();
            }
        } else {
            let mapping = s
                .column_by_name(FIELD_MAPPING)
                .and_then(|a| a.as_any().downcast_ref::<ListArray>())
                .ok_or_else(|| self.bad("the file has no __field_mapping list"))?;
            let mapping_values = mapping
                .values()
                .as_any()
                .downcast_ref::<Int32Array>()
                .ok_or_else(|| self.bad("__field_mapping is not a list of INT"))?;
            let ids = mapping_values.values();
            let check_nulls = mapping_values.null_count() > 0;
            let slots =
                &ids[mapping.value_offsets()[0] as usize..mapping.value_offsets()[rows] as usize];
            out.reserve(
                slots.iter().filter(|&&id| id >= 0).count()
                    + overflow.map_or(0, |(m, _, _)| m.values().len()),
            );
            let moff = mapping.value_offsets();
            let name_of = |id: i32| -> u32 {
                usize::try_from(id)
                    .ok()
                    .and_then(|i| self.name_index.get(i))
                    .copied()
                    .unwrap_or(NOT_WANTED)
            };
            let (struct_nulls, mapping_nulls) = (s.logical_nulls(), mapping.logical_nulls());
            let over_offsets = overflow.map(|(m, _, _)| m.value_offsets());
            let over_nulls = overflow.and_then(|(m, _, _)| m.logical_nulls());
            for row in 0..rows {
                if struct_nulls.as_ref().is_some_and(|n| n.is_null(row)) {
                    out.end_row();
                    continue;
                }
                if mapping_nulls.as_ref().is_some_and(|n| n.is_null(row)) {
                    return Err(self.bad(format!("row {row} has no __field_mapping")));
                }
                let (a, b) = (moff[row] as usize, moff[row + 1] as usize);
                if b - a != k {
                    return Err(self.bad(format!(
                        "Shared-shredding field mapping size {} does not match metadata num \
                         columns {k}",
                        b - a
                    )));
                }
                if check_nulls && mapping_values.slice(a, k).null_count() > 0 {
                    return Err(self.bad(format!("row {row} has a NULL __field_mapping slot")));
                }
                for (c, &id) in ids[a..b].iter().enumerate() {
                    if id < 0 {
                        continue;
                    }
                    let name = name_of(id);
                    if name == NOT_WANTED {
                        continue;
                    }
                    let src = source_of_column[c];
                    if src < 0 {
                        return Err(self.bad(format!(
                            "row {row} stores field {id} in __col_{c}, which the footer's \
                             field-columns does not list"
                        )));
                    }
                    out.push(name, src as usize, row);
                }
                if let (Some((_, okeys, src)), Some(o)) = (overflow, over_offsets) {
                    if over_nulls.as_ref().is_none_or(|n| n.is_valid(row)) {
                        let (a, b) = (o[row] as usize, o[row + 1] as usize);
                        // The row's overflow entries are contiguous: taken as a run unless
                        // some are not wanted.
                        if !out.push_run(&okeys.values()[a..b], &self.name_index, src, a) {
                            for (e, &id) in okeys.values()[a..b].iter().enumerate() {
                                let name = name_of(id);
                                if name != NOT_WANTED {
                                    out.push(name, src, a + e);
                                }
                            }
                        }
                    }
                }
                out.end_row();
            }
        }
        Ok(out)
    }
}

impl ShreddedRead {
    /// The maps of one selected key stored in one exclusive column: an entry wherever the
    /// struct and the column are non-NULL (vectorised: a validity AND, a filter, and the key
    /// name repeated).
    fn single_key(
        &self,
        s: &StructArray,
        column: &ArrayRef,
        id: i32,
        entries_field: &FieldRef,
        entry_fields: &arrow_schema::Fields,
    ) -> Result<ArrayRef> {
        let err = |e| Error::arrow(format!("rebuilding MAP column {}", self.column), e);
        let rows = s.len();
        let present =
            NullBuffer::union(s.logical_nulls().as_ref(), column.logical_nulls().as_ref())
                .unwrap_or_else(|| NullBuffer::new_valid(rows));
        let mut offsets = Vec::with_capacity(rows + 1);
        let mut n = 0i32;
        offsets.push(0);
        for bit in present.inner().iter() {
            n += i32::from(bit);
            offsets.push(n);
        }
        let values = arrow_select::filter::filter(
            column.as_ref(),
            &BooleanArray::new(present.inner().clone(), None),
        )
        .map_err(err)?;
        let name = match self.name_index[id as usize] {
            NOT_WANTED => &[][..],
            i => self.names.get(i as usize).as_bytes(),
        };
        let count = n as usize;
        let key_offsets: Vec<i32> = (0..=count).map(|i| (i * name.len()) as i32).collect();
        // The name is a dictionary `String`'s bytes, so the repeats are valid UTF-8.
        let keys = StringArray::try_new(
            OffsetBuffer::new(ScalarBuffer::from(key_offsets)),
            name.repeat(count).into(),
            None,
        )
        .map_err(err)?;
        let entries =
            StructArray::try_new(entry_fields.clone(), vec![Arc::new(keys), values], None)
                .map_err(err)?;
        let map = MapArray::try_new(
            entries_field.clone(),
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            entries,
            s.nulls().cloned(),
            false,
        )
        .map_err(err)?;
        Ok(Arc::new(map))
    }
}
