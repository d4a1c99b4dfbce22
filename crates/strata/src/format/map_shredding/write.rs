//! Writing shredded MAP columns: logical `MapArray` → physical struct, per file.
//!
//! [`MapShredding`] lives as long as a rolling writer and owns each shredded column's K
//! history ([`ShreddingContext`]); for every new file it hands out a [`FileShredder`] whose
//! dictionary and allocator are fresh (ids and column sets are per file). The shredder turns
//! each logical batch into the physical one the Parquet writer encodes, and at close gives
//! the `paimon.map.*` metadata for the file's `ARROW:schema` footer entry and a
//! [`FileReport`] (widest shared row, dedicated keys), which the writer reports back only once
//! the file closed successfully.
//!
//! A file's K and its dedicated keys ([`strata_spec::shredding::plan`]) come from the first
//! [`MAX_SAMPLE_ROWS`] rows of the batch the file starts with.
//!
//! Conversion is one pass over the entries (dictionary id, duplicate check, allocation) that
//! fills the mapping ints and, per physical column, a gather index and a validity bit per row;
//! each `__col_i` is then one `take` of the map's values.

use std::sync::Arc;

use arrow::buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_array::builder::BooleanBufferBuilder;
use arrow_array::{
    new_null_array, Array, ArrayRef, Int32Array, ListArray, MapArray, RecordBatch, StringArray,
    StructArray, UInt32Array,
};
use arrow_schema::{DataType as ArrowType, Field, FieldRef, Schema, SchemaRef};
use std::collections::HashMap;

use strata_spec::shredding::{
    metadata::{column_name, FIELD_MAPPING, OVERFLOW},
    plan::MAX_SAMPLE_ROWS,
    AllocationStats, ColumnAllocator, DictCompression, FieldDict, FilePlan, FileReport, KeySample,
    MapShreddingFileMeta, PlacementPolicy, RowAllocation, ShreddedMapColumn, ShreddingContext,
};
use strata_spec::types::{DataField, DataType, TypeKind};

use super::super::arrow_types::to_arrow_field;
use super::super::evolve::evolve_array;
use crate::error::ErrorDetail;
use crate::{Error, Result};

/// The shredded MAP columns of one rolling writer and their K history.
/// Cloning gives a fresh writer the same columns; the K histories then evolve separately
/// (build one per writer configuration, clone it per rolling writer).
#[derive(Clone, Debug)]
pub(crate) struct MapShredding {
    columns: Vec<WriterColumn>,
    compression: DictCompression,
}

#[derive(Clone, Debug)]
struct WriterColumn {
    /// Position in the writer's (logical) Arrow schema.
    position: usize,
    field: DataField,
    policy: PlacementPolicy,
    context: ShreddingContext,
}

impl MapShredding {
    /// `fields` are the Paimon fields of the columns of `schema` that may be shredded, matched
    /// by name (for key-value files only the value columns are passed). Returns `None` when
    /// no column is shredded.
    pub(crate) fn new(
        schema: &Schema,
        fields: &[DataField],
        shredded: &[ShreddedMapColumn],
        compression: DictCompression,
    ) -> Result<Option<Self>> {
        let mut columns = Vec::new();
        for c in shredded {
            let field = fields.iter().find(|f| f.id == c.field_id).ok_or_else(|| {
                Error::from(ErrorDetail::SchemaMismatch {
                    column: c.name.clone(),
                    message: "the shredded MAP column is not among the written fields".into(),
                })
            })?;
            let position = schema
                .index_of(&field.name)
                .map_err(|e| Error::arrow(format!("locating shredded column {}", field.name), e))?;
            columns.push(WriterColumn {
                position,
                field: field.clone(),
                policy: c.policy,
                context: ShreddingContext::with_dedicated(c.max_columns, c.max_dedicated, c.policy),
            });
        }
        Ok((!columns.is_empty()).then_some(MapShredding {
            columns,
            compression,
        }))
    }

    /// The shredding of a writer of `fields` (table columns, in `schema`) under the table
    /// options: `None` when no MAP column is configured `shared-shredding`. Options are
    /// validated as at table creation.
    pub(crate) fn from_options(
        schema: &Schema,
        fields: &[DataField],
        table_fields: &[DataField],
        options: &strata_spec::options::CoreOptions,
    ) -> Result<Option<Self>> {
        let shredded = strata_spec::shredding::shredded_map_columns(table_fields, options)?;
        if shredded.is_empty() {
            return Ok(None);
        }
        let compression =
            strata_spec::shredding::dictionary_compression(options.file_compression())?;
        let shredded: Vec<_> = shredded
            .into_iter()
            .filter(|c| fields.iter().any(|f| f.id == c.field_id))
            .collect();
        Self::new(schema, fields, &shredded, compression)
    }

    /// A shredder for the next file of the writer whose logical schema is `logical`; `first`
    /// is the batch the file starts with, whose first rows size K and choose the dedicated
    /// keys ([`ShreddingContext::plan_file`]).
    pub(crate) fn start_file(
        &self,
        logical: &SchemaRef,
        first: Option<&RecordBatch>,
    ) -> Result<FileShredder> {
        let mut physical: Vec<FieldRef> = logical.fields().iter().cloned().collect();
        let mut columns = Vec::with_capacity(self.columns.len());
        for c in &self.columns {
            let sample = first
                .and_then(|b| b.column(c.position).as_any().downcast_ref::<MapArray>())
                .and_then(sample_keys);
            let plan = c.context.plan_file(sample.as_ref());
            let k = plan.num_columns;
            let physical_field = physical_field(&c.field, k)?;
            let arrow = Arc::new(to_arrow_field(&physical_field)?);
            let ArrowType::Struct(children) = arrow.data_type().clone() else {
                unreachable!("physical_field builds a ROW");
            };
            physical[c.position] = arrow;
            let TypeKind::Map { value, .. } = &c.field.data_type.kind else {
                unreachable!("shredded columns are validated to be MAPs");
            };
            columns.push(FileColumn {
                position: c.position,
                name: c.field.name.clone(),
                value_type: (**value).clone(),
                children,
                dict: FieldDict::new(),
                allocator: ColumnAllocator::with_dedicated(k, plan.dedicated.len(), c.policy),
                dedicated_columns: plan
                    .dedicated
                    .iter()
                    .enumerate()
                    .map(|(i, key)| (key.as_str().into(), i))
                    .collect(),
                plan,
                seen: Vec::new(),
                stamp: 0,
            });
        }
        Ok(FileShredder {
            physical: Arc::new(Schema::new_with_metadata(
                physical,
                logical.metadata().clone(),
            )),
            columns,
            compression: self.compression,
        })
    }

    /// Records a file that closed successfully (reports as returned by
    /// [`FileShredder::reports`], same order).
    pub(crate) fn file_completed(&mut self, reports: &[FileReport]) {
        for (c, r) in self.columns.iter_mut().zip(reports) {
            c.context.file_completed(r);
        }
    }
}

/// The keys of the first [`MAX_SAMPLE_ROWS`] non-NULL maps of `map` (`None`: none, or keys
/// that are not strings, which conversion then reports).
fn sample_keys(map: &MapArray) -> Option<KeySample> {
    let keys = map.keys().as_any().downcast_ref::<StringArray>()?;
    let offsets = map.value_offsets();
    let mut sample = KeySample::new();
    for row in (0..map.len()).filter(|&r| map.is_valid(r)) {
        if sample.rows() == MAX_SAMPLE_ROWS {
            break;
        }
        let (a, b) = (offsets[row] as usize, offsets[row + 1] as usize);
        sample.push_row((a..b).filter(|&j| keys.is_valid(j)).map(|j| keys.value(j)));
    }
    (sample.rows() > 0).then_some(sample)
}

/// The physical field of a shredded MAP column with `k` columns: Java's
/// `STRUCT<__field_mapping ARRAY<INT>, __col_0..__col_{k-1} T, __overflow MAP<INT NOT NULL, T>>`
/// with child ids 0..=k+1. The `__col_i` are nullable even for a NOT NULL value type (an empty
/// slot is NULL); the overflow keeps the value type.
pub(crate) fn physical_field(map: &DataField, k: usize) -> Result<DataField> {
    let TypeKind::Map { value, .. } = &map.data_type.kind else {
        return Err(ErrorDetail::SchemaMismatch {
            column: map.name.clone(),
            message: format!("shared-shredding needs a MAP column, got {}", map.data_type),
        }
        .into());
    };
    let mut children = Vec::with_capacity(k + 2);
    children.push(DataField::new(
        0,
        FIELD_MAPPING,
        DataType::nullable(TypeKind::Array(Box::new(DataType::nullable(TypeKind::Int)))),
    ));
    let mut col_type = (**value).clone();
    col_type.nullable = true;
    for i in 0..k {
        children.push(DataField::new(
            i as i32 + 1,
            column_name(i),
            col_type.clone(),
        ));
    }
    children.push(DataField::new(
        k as i32 + 1,
        OVERFLOW,
        DataType::nullable(TypeKind::Map {
            key: Box::new(DataType::not_null(TypeKind::Int)),
            value: value.clone(),
        }),
    ));
    let mut field = map.clone();
    field.data_type = DataType::new(TypeKind::Row(children), map.data_type.nullable);
    Ok(field)
}

/// Converts the batches of one file and accumulates its shredding metadata.
#[derive(Debug)]
pub(crate) struct FileShredder {
    physical: SchemaRef,
    columns: Vec<FileColumn>,
    compression: DictCompression,
}

#[derive(Debug)]
struct FileColumn {
    position: usize,
    name: String,
    value_type: DataType,
    children: arrow_schema::Fields,
    dict: FieldDict,
    allocator: ColumnAllocator,
    /// The file's plan (`plan.dedicated[i]` owns `__col_i`) and the dedicated columns by key.
    plan: FilePlan,
    dedicated_columns: HashMap<Box<str>, usize>,
    /// Per field id, the row stamp it was last seen in (duplicate-key check).
    seen: Vec<u64>,
    stamp: u64,
}

impl FileShredder {
    /// The Arrow schema the Parquet file is written with.
    pub(crate) fn physical_schema(&self) -> &SchemaRef {
        &self.physical
    }

    /// The physical batch of a logical batch.
    pub(crate) fn convert(&mut self, batch: &RecordBatch) -> Result<RecordBatch> {
        let mut columns = batch.columns().to_vec();
        for c in &mut self.columns {
            columns[c.position] = c.convert(batch.column(c.position))?;
        }
        RecordBatch::try_new(self.physical.clone(), columns)
            .map_err(|e| Error::arrow("assembling the shredded batch", e))
    }

    /// The physical schema with each shredded field's `paimon.map.*` metadata attached (what
    /// goes into the `ARROW:schema` footer entry).
    pub(crate) fn footer_schema(&self) -> Result<Schema> {
        let mut fields: Vec<FieldRef> = self.physical.fields().iter().cloned().collect();
        for c in &self.columns {
            let meta = c.file_meta().to_key_values(self.compression)?;
            let mut metadata = fields[c.position].metadata().clone();
            metadata.extend(meta);
            fields[c.position] =
                Arc::new(Field::clone(&fields[c.position]).with_metadata(metadata));
        }
        Ok(Schema::new_with_metadata(
            fields,
            self.physical.metadata().clone(),
        ))
    }

    /// What each shredded column of the file reports to its writer's history once the file
    /// closed successfully (in [`MapShredding`]'s order).
    pub(crate) fn reports(&self) -> Vec<FileReport> {
        self.columns
            .iter()
            .map(|c| FileReport {
                max_shared_width: c.allocator.stats().max_shared_width,
                plan: c.plan.clone(),
            })
            .collect()
    }
}

impl FileColumn {
    fn file_meta(&self) -> MapShreddingFileMeta {
        let AllocationStats {
            field_columns,
            overflow,
            max_row_width,
            ..
        } = self.allocator.stats();
        MapShreddingFileMeta {
            dictionary: self.dict.to_sorted(),
            field_columns: field_columns
                .iter()
                .enumerate()
                .filter(|(_, cols)| !cols.is_empty())
                .map(|(id, cols)| (id as i32, cols.clone()))
                .collect(),
            overflow: overflow.clone(),
            num_columns: self.allocator.num_columns(),
            max_row_width: *max_row_width,
        }
    }

    fn convert(&mut self, array: &ArrayRef) -> Result<ArrayRef> {
        let name = self.name.clone();
        let map = array.as_any().downcast_ref::<MapArray>().ok_or_else(|| {
            ErrorDetail::SchemaMismatch {
                column: name.clone(),
                message: format!("expected a MAP array, got {}", array.data_type()),
            }
        })?;
        let keys = map
            .keys()
            .as_any()
            .downcast_ref::<StringArray>()
            .ok_or_else(|| ErrorDetail::SchemaMismatch {
                column: name.clone(),
                message: format!("MAP keys must be strings, got {}", map.keys().data_type()),
            })?;
        let rows = map.len();
        let k = self.allocator.num_columns();
        let offsets = map.value_offsets();
        let mut mapping: Vec<i32> = Vec::with_capacity(rows * k);
        let mut mapping_offsets: Vec<i32> = Vec::with_capacity(rows + 1);
        mapping_offsets.push(0);
        // Per column: the entry gathered into each row (0 when empty) and whether there is one.
        let mut col_index: Vec<Vec<u32>> = (0..k).map(|_| vec![0u32; rows]).collect();
        let mut col_valid: Vec<BooleanBufferBuilder> = (0..k)
            .map(|_| {
                let mut b = BooleanBufferBuilder::new(rows);
                b.append_n(rows, false);
                b
            })
            .collect();
        let mut col_used = vec![false; k];
        let mut over_keys: Vec<i32> = Vec::new();
        let mut over_values: Vec<u32> = Vec::new();
        let mut over_offsets: Vec<i32> = Vec::with_capacity(rows + 1);
        over_offsets.push(0);
        let mut over_valid = BooleanBufferBuilder::new(rows);
        let mut ids: Vec<i32> = Vec::new();
        let mut alloc = RowAllocation::default();
        for row in 0..rows {
            if map.is_null(row) {
                mapping_offsets.push(mapping.len() as i32);
                over_offsets.push(over_keys.len() as i32);
                over_valid.append(false);
                continue;
            }
            let (start, end) = (offsets[row] as usize, offsets[row + 1] as usize);
            ids.clear();
            self.stamp += 1;
            for j in start..end {
                if keys.is_null(j) {
                    return Err(ErrorDetail::SchemaMismatch {
                        column: name,
                        message: "shared-shredding MAP keys cannot be NULL".into(),
                    }
                    .into());
                }
                let key = keys.value(j);
                let (id, new) = self.dict.lookup(key);
                let slot = id as usize;
                if new {
                    if let Some(&c) = self.dedicated_columns.get(key) {
                        self.allocator.dedicate(id, c);
                    }
                    self.seen.push(0);
                }
                if self.seen[slot] == self.stamp {
                    return Err(ErrorDetail::SchemaMismatch {
                        column: name,
                        message: format!(
                            "row {row} has the key {key:?} more than once; a MAP holds each key \
                             once"
                        ),
                    }
                    .into());
                }
                self.seen[slot] = self.stamp;
                ids.push(id);
            }
            self.allocator.allocate(&ids, &mut alloc);
            for (c, &pos) in alloc.columns.iter().enumerate() {
                if pos >= 0 {
                    mapping.push(ids[pos as usize]);
                    col_index[c][row] = (start + pos as usize) as u32;
                    col_valid[c].set_bit(row, true);
                    col_used[c] = true;
                } else {
                    mapping.push(-1);
                }
            }
            mapping_offsets.push(mapping.len() as i32);
            for &pos in &alloc.overflow {
                over_keys.push(ids[pos]);
                over_values.push((start + pos) as u32);
            }
            over_offsets.push(over_keys.len() as i32);
            over_valid.append(!alloc.overflow.is_empty());
        }

        let validity = map.nulls().cloned();
        let values = map.values();
        let mut children: Vec<ArrayRef> = Vec::with_capacity(k + 2);
        let ArrowType::List(element) = self.children[0].data_type() else {
            unreachable!("child 0 is the mapping list");
        };
        children.push(Arc::new(
            ListArray::try_new(
                element.clone(),
                OffsetBuffer::new(ScalarBuffer::from(mapping_offsets)),
                Arc::new(Int32Array::from(mapping)),
                validity.clone(),
            )
            .map_err(|e| Error::arrow(format!("building {name}.__field_mapping"), e))?,
        ));
        for (c, (index, mut valid)) in col_index.into_iter().zip(col_valid).enumerate() {
            let target = &self.children[c + 1];
            let column = if col_used[c] {
                let indices = UInt32Array::new(index.into(), Some(NullBuffer::new(valid.finish())));
                let taken = arrow_select::take::take(values, &indices, None)
                    .map_err(|e| Error::arrow(format!("gathering {name}.__col_{c}"), e))?;
                self.retype(taken, target)?
            } else {
                new_null_array(target.data_type(), rows)
            };
            children.push(column);
        }
        let overflow_field = &self.children[k + 1];
        let ArrowType::Map(entries, sorted) = overflow_field.data_type() else {
            unreachable!("the last child is the overflow map");
        };
        let ArrowType::Struct(entry_fields) = entries.data_type() else {
            unreachable!("map entries are a struct");
        };
        let over_vals = arrow_select::take::take(values, &UInt32Array::from(over_values), None)
            .map_err(|e| Error::arrow(format!("gathering {name}.__overflow"), e))?;
        let over_vals = self.retype(over_vals, &entry_fields[1])?;
        let entries_array = StructArray::try_new(
            entry_fields.clone(),
            vec![Arc::new(Int32Array::from(over_keys)), over_vals],
            None,
        )
        .map_err(|e| Error::arrow(format!("building {name}.__overflow entries"), e))?;
        children.push(Arc::new(
            MapArray::try_new(
                entries.clone(),
                OffsetBuffer::new(ScalarBuffer::from(over_offsets)),
                entries_array,
                Some(NullBuffer::new(over_valid.finish())),
                *sorted,
            )
            .map_err(|e| Error::arrow(format!("building {name}.__overflow"), e))?,
        ));
        Ok(Arc::new(
            StructArray::try_new(self.children.clone(), children, validity)
                .map_err(|e| Error::arrow(format!("building shredded column {name}"), e))?,
        ))
    }

    /// Gives `array` (the map's values, gathered) exactly the type of `target` (nested field
    /// ids differ between the map value and the physical columns).
    fn retype(&self, array: ArrayRef, target: &FieldRef) -> Result<ArrayRef> {
        if array.data_type() == target.data_type() {
            return Ok(array);
        }
        let mut as_read = self.value_type.clone();
        as_read.nullable = target.is_nullable();
        evolve_array(&array, &self.value_type, &as_read, target, target.name())
    }
}
