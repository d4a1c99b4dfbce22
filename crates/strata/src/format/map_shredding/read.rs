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

use arrow::buffer::{OffsetBuffer, ScalarBuffer};
use arrow_array::{
    new_empty_array, Array, ArrayRef, Int32Array, ListArray, MapArray, StringArray, StructArray,
};
use arrow_schema::{DataType as ArrowType, FieldRef};
use base64::Engine;
use parquet::file::metadata::ParquetMetaData;
use strata_spec::shredding::metadata::{column_index, column_name, FIELD_MAPPING, OVERFLOW};
use strata_spec::shredding::MapShreddingFileMeta;
use strata_spec::types::{DataType, TypeKind};

use super::super::evolve::evolve_array;
use super::super::parquet_writer::ARROW_SCHEMA_KEY;
use crate::{Error, Result};

/// Shredding metadata of a file's top-level columns, by column name.
pub type FileShreddingMeta = HashMap<String, Arc<MapShreddingFileMeta>>;

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
    let corrupt = |what: String| Error::SchemaMismatch {
        column: "*".into(),
        message: format!("{display}: the ARROW:schema footer entry {what}"),
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
                Error::SchemaMismatch {
                    column: name.to_string(),
                    message: format!("{display}: {e}"),
                }
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
    pub meta: Arc<MapShreddingFileMeta>,
    /// Field id → wanted, indexed by id (`None`: every key).
    wanted: Option<Vec<bool>>,
    /// Physical children to decode, by name.
    pub children: Vec<String>,
    /// Name of the column, for errors.
    column: String,
    /// The value type the file was written with.
    file_value_type: DataType,
}

impl ShreddedRead {
    /// Plans reading column `column` (written with map type `file_type`) for `selected` keys
    /// (`None`: the whole map).
    pub fn plan(
        column: &str,
        meta: Arc<MapShreddingFileMeta>,
        file_type: &DataType,
        selected: Option<&[String]>,
    ) -> Result<Self> {
        let TypeKind::Map { value, .. } = &file_type.kind else {
            return Err(Error::SchemaMismatch {
                column: column.into(),
                message: format!(
                    "the file stores this column shredded, but its schema type is {file_type}"
                ),
            });
        };
        let mut columns = vec![false; meta.num_columns];
        let mut overflow = false;
        let wanted = match selected {
            None => {
                for cols in meta.field_columns.values() {
                    for &c in cols {
                        columns[c as usize] = true;
                    }
                }
                overflow = !meta.overflow.is_empty();
                None
            }
            Some(keys) => {
                let mut wanted = vec![false; id_slots(&meta)];
                for key in keys {
                    let Some(&id) = meta.dictionary.get(key) else {
                        continue;
                    };
                    if id >= 0 && (id as usize) < wanted.len() {
                        wanted[id as usize] = true;
                    }
                    for &c in meta.field_columns.get(&id).into_iter().flatten() {
                        columns[c as usize] = true;
                    }
                    overflow |= meta.overflow.contains(&id);
                }
                Some(wanted)
            }
        };
        let mut children = vec![FIELD_MAPPING.to_string()];
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
            wanted,
            children,
            column: column.to_string(),
            file_value_type: (**value).clone(),
        })
    }

    fn bad(&self, message: impl Into<String>) -> Error {
        Error::SchemaMismatch {
            column: self.column.clone(),
            message: message.into(),
        }
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

        let mapping = s
            .column_by_name(FIELD_MAPPING)
            .and_then(|a| a.as_any().downcast_ref::<ListArray>())
            .ok_or_else(|| self.bad("the file has no __field_mapping list"))?;
        let mapping_values = mapping
            .values()
            .as_any()
            .downcast_ref::<Int32Array>()
            .ok_or_else(|| self.bad("__field_mapping is not a list of INT"))?;
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

        let names: Vec<Option<&str>> = {
            let mut v = vec![None; id_slots(&self.meta)];
            for (name, &id) in &self.meta.dictionary {
                if id >= 0 && (id as usize) < v.len() {
                    v[id as usize] = Some(name.as_str());
                }
            }
            v
        };
        let wanted = |id: i32| -> bool {
            id >= 0
                && (id as usize) < names.len()
                && names[id as usize].is_some()
                && self.wanted.as_ref().is_none_or(|w| w[id as usize])
        };

        let rows = s.len();
        let mut offsets: Vec<i32> = Vec::with_capacity(rows + 1);
        offsets.push(0);
        let mut keys: Vec<&str> = Vec::new();
        let mut picks: Vec<(usize, usize)> = Vec::new();
        let moff = mapping.value_offsets();
        for row in 0..rows {
            if s.is_null(row) {
                offsets.push(keys.len() as i32);
                continue;
            }
            if mapping.is_null(row) {
                return Err(self.bad(format!("row {row} has no __field_mapping")));
            }
            let (a, b) = (moff[row] as usize, moff[row + 1] as usize);
            if b - a != k {
                return Err(self.bad(format!(
                    "Shared-shredding field mapping size {} does not match metadata num columns {k}",
                    b - a
                )));
            }
            for (c, &src) in source_of_column.iter().enumerate() {
                if mapping_values.is_null(a + c) {
                    return Err(self.bad(format!("row {row} has a NULL __field_mapping slot")));
                }
                let id = mapping_values.value(a + c);
                if !wanted(id) {
                    continue;
                }
                if src < 0 {
                    return Err(self.bad(format!(
                        "row {row} stores field {id} in __col_{c}, which the footer's \
                         field-columns does not list"
                    )));
                }
                keys.push(names[id as usize].expect("wanted ids have names"));
                picks.push((src as usize, row));
            }
            if let Some((map, okeys, src)) = overflow {
                if !map.is_null(row) {
                    let o = map.value_offsets();
                    for e in o[row] as usize..o[row + 1] as usize {
                        let id = okeys.value(e);
                        if wanted(id) {
                            keys.push(names[id as usize].expect("wanted ids have names"));
                            picks.push((src, e));
                        }
                    }
                }
            }
            offsets.push(keys.len() as i32);
        }
        let values = if sources.is_empty() || picks.is_empty() {
            new_empty_array(value_target.data_type())
        } else {
            let refs: Vec<&dyn Array> = sources.iter().map(|a| a.as_ref()).collect();
            arrow_select::interleave::interleave(&refs, &picks)
                .map_err(|e| Error::arrow(format!("rebuilding MAP column {}", self.column), e))?
        };
        let entries = StructArray::try_new(
            entry_fields.clone(),
            vec![Arc::new(StringArray::from(keys)), values],
            None,
        )
        .map_err(|e| Error::arrow(format!("rebuilding MAP column {}", self.column), e))?;
        let map = MapArray::try_new(
            entries_field.clone(),
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            entries,
            s.nulls().cloned(),
            false,
        )
        .map_err(|e| Error::arrow(format!("rebuilding MAP column {}", self.column), e))?;
        Ok(Arc::new(map))
    }
}
