//! What a read decodes and derives: the projection (columns and MAP key accesses `m['k']`)
//! and the filter resolved against the table ([`Resolved`]), then placed on the fields a
//! reader decodes ([`ReadPlan`]), which turns decoded columns into output batches.
//!
//! Key columns are virtual fields after the decoded fields: with `n` decoded fields, key `j`
//! is field `n + j` of the filter and of the output indexes. A MAP column needed only through
//! key accesses is read with `selected_map_keys` (the format layer may then read only what
//! holds those keys) and dropped after the key columns are derived.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::compute::filter_record_batch;
use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
use strata_spec::{DataField, TypeKind};

use super::map_keys::{map_key_predicate, pushed_filter, KeyDeriver};
use crate::error::ErrorDetail;
use crate::expr::map_key::resolve_map_key;
use crate::expr::{BoundPredicate, MapKeyColumn, Predicate};
use crate::format::arrow_types::{string_view_field, to_arrow_field};
use crate::format::page_pruning::StatsPruning;
use crate::format::parquet_reader::PushedRowFilter;
use crate::format::MapKeyPredicate;
use crate::table::Table;
use crate::{Error, Result};

/// One output column: a table column, or key access `keys[j]`.
#[derive(Clone, Debug)]
pub(crate) enum OutputColumn {
    Field(DataField),
    Key(usize),
}

/// A read's projection and filter resolved against the table schema.
#[derive(Clone, Debug)]
pub(crate) struct Resolved {
    pub outputs: Vec<OutputColumn>,
    /// Distinct key accesses of the projection and the filter.
    pub keys: Vec<MapKeyColumn>,
    /// The filter over the table's fields followed by `keys`.
    pub filter: Option<BoundPredicate>,
    /// Table fields to decode: output columns, filter columns, MAP columns of key accesses.
    pub wanted: Vec<DataField>,
    /// Ids of MAP columns needed whole (projected, or tested by the filter as a column).
    whole_maps: Vec<i32>,
    /// Field ids of the table schema, in order (the filter's field `i < len` is `table_ids[i]`).
    table_ids: Vec<i32>,
    /// Top-level string columns are output as `Utf8View` ([`crate::read::TableRead::with_string_views`]).
    pub string_views: bool,
}

impl Resolved {
    /// `projection` items are column names (exact) or key accesses `col['key']`
    /// ([`crate::expr::MapKeyRef`]); `None` outputs every column.
    pub(super) fn new(
        table: &Table,
        projection: Option<&[String]>,
        filter: Option<&Predicate>,
    ) -> Result<Self> {
        let schema = table.schema();
        // A row-tracking table also has `_ROW_ID` and `_SEQUENCE_NUMBER` to project and
        // filter by name (not in the default projection; `super::row_tracking`).
        let mut fields = schema.fields.clone();
        if table.options().row_tracking_enabled()? {
            fields.extend(super::row_tracking::system_fields());
        }
        let row_type = strata_spec::RowType::new(fields.clone());
        let table_name = table.identifier().to_string();
        let mut keys: Vec<MapKeyColumn> = Vec::new();
        let outputs = match projection {
            None => schema
                .fields
                .iter()
                .cloned()
                .map(OutputColumn::Field)
                .collect(),
            Some(cols) => cols
                .iter()
                .map(|c| {
                    if let Some(f) = fields.iter().find(|f| &f.name == c) {
                        return Ok(OutputColumn::Field(f.clone()));
                    }
                    match resolve_map_key(&row_type, c, &table_name)? {
                        Some(k) => Ok(OutputColumn::Key(key_slot(&mut keys, k))),
                        None => Err(ErrorDetail::ColumnNotFound {
                            table: table_name.clone(),
                            column: c.clone(),
                            available: row_type.names().join(", "),
                        }
                        .into()),
                    }
                })
                .collect::<Result<Vec<_>>>()?,
        };
        let filter = match filter {
            Some(f) => Some(f.bind_with_map_keys(&row_type, &table_name, &mut keys)?),
            None => None,
        };
        let n_table = fields.len();
        let mut wanted: Vec<DataField> = Vec::new();
        let mut whole_maps = Vec::new();
        let mut want = |f: &DataField, whole: bool| {
            if whole && matches!(f.data_type.kind, TypeKind::Map { .. }) {
                whole_maps.push(f.id);
            }
            if !wanted.iter().any(|w| w.id == f.id) {
                wanted.push(f.clone());
            }
        };
        for o in &outputs {
            if let OutputColumn::Field(f) = o {
                want(f, true);
            }
        }
        if let Some(b) = &filter {
            for i in b.referenced_columns().into_iter().filter(|&i| i < n_table) {
                want(&fields[i], true);
            }
        }
        for k in &keys {
            want(&k.map_field, false);
        }
        Ok(Resolved {
            outputs,
            keys,
            filter,
            wanted,
            whole_maps,
            table_ids: fields.iter().map(|f| f.id).collect(),
            string_views: false,
        })
    }

    pub(super) fn output_fields(&self) -> Vec<DataField> {
        self.outputs
            .iter()
            .map(|o| match o {
                OutputColumn::Field(f) => f.clone(),
                OutputColumn::Key(j) => self.keys[*j].field.clone(),
            })
            .collect()
    }

    /// MAP field id → the keys to read, for maps needed only through key accesses.
    pub(super) fn selected_map_keys(&self) -> HashMap<i32, Arc<[String]>> {
        let mut out: HashMap<i32, Vec<String>> = HashMap::new();
        for k in &self.keys {
            if !self.whole_maps.contains(&k.map_field.id) {
                let keys = out.entry(k.map_field.id).or_default();
                if !keys.contains(&k.key) {
                    keys.push(k.key.clone());
                }
            }
        }
        out.into_iter().map(|(id, k)| (id, k.into())).collect()
    }

    /// The plan of a reader decoding `read_fields` (which must hold every field of `wanted`).
    pub(super) fn plan(&self, read_fields: Vec<DataField>) -> Result<ReadPlan> {
        let n = read_fields.len();
        let position = |f: &DataField| {
            read_fields
                .iter()
                .position(|r| r.id == f.id)
                .ok_or_else(|| {
                    ErrorDetail::InvalidArgument(format!(
                        "column {} is not among the columns read",
                        f.name
                    ))
                    .into()
                })
        };
        let output = self
            .outputs
            .iter()
            .map(|o| match o {
                OutputColumn::Field(f) => position(f),
                OutputColumn::Key(j) => Ok(n + j),
            })
            .collect::<Result<Vec<_>>>()?;
        let bound = match &self.filter {
            None => None,
            Some(b) => Some(b.remap(|i| match self.table_ids.get(i) {
                Some(id) => read_fields.iter().position(|r| r.id == *id),
                None => Some(n + i - self.table_ids.len()),
            })?),
        };
        let read_arrow: Vec<Field> = read_fields
            .iter()
            .map(|f| {
                let field = to_arrow_field(f)?;
                Ok(if self.string_views {
                    string_view_field(&field)
                } else {
                    field
                })
            })
            .collect::<Result<_>>()?;
        let mut out_fields = Vec::with_capacity(output.len());
        for &i in &output {
            out_fields.push(if i < n {
                read_arrow[i].clone()
            } else {
                let k = &self.keys[i - n];
                Field::new(
                    &k.field.name,
                    value_arrow_type(&read_arrow[position(&k.map_field)?])?,
                    true,
                )
            });
        }
        Ok(ReadPlan {
            views: read_arrow
                .iter()
                .map(|f| matches!(f.data_type(), ArrowType::Utf8View))
                .collect(),
            deriver: KeyDeriver::new(&read_fields, &self.keys)?,
            read_fields,
            keys: self.keys.clone(),
            bound,
            output,
            out_schema: Arc::new(Schema::new(out_fields)),
        })
    }
}

/// The Arrow type of the values of a MAP Arrow field.
fn value_arrow_type(map: &Field) -> Result<ArrowType> {
    if let ArrowType::Map(entries, _) = map.data_type() {
        if let ArrowType::Struct(kv) = entries.data_type() {
            if kv.len() == 2 {
                return Ok(kv[1].data_type().clone());
            }
        }
    }
    Err(ErrorDetail::InvalidArgument(format!(
        "column {} is not a MAP in Arrow ({})",
        map.name(),
        map.data_type()
    ))
    .into())
}

/// The slot of `k` in `keys`, adding it when new.
fn key_slot(keys: &mut Vec<MapKeyColumn>, k: MapKeyColumn) -> usize {
    match keys.iter().position(|x| x.is(k.map_field.id, &k.key)) {
        Some(j) => j,
        None => {
            keys.push(k);
            keys.len() - 1
        }
    }
}

/// A read's projection and filter placed on the fields a reader decodes.
#[derive(Clone, Debug)]
pub(crate) struct ReadPlan {
    pub read_fields: Vec<DataField>,
    pub keys: Vec<MapKeyColumn>,
    /// The filter over `read_fields` followed by the key columns.
    pub bound: Option<BoundPredicate>,
    /// Output columns as indexes into `read_fields` followed by the key columns.
    output: Vec<usize>,
    pub out_schema: SchemaRef,
    deriver: KeyDeriver,
    /// Read fields output as `Utf8View`: a decoder that produced plain strings (merge reads,
    /// which merge plain columns) has them cast in [`Self::finish`].
    views: Vec<bool>,
}

impl ReadPlan {
    /// The output batch of decoded `columns` (one per read field, `num_rows` each): key
    /// columns derived, filter applied exactly, projection applied.
    pub(super) fn finish(&self, columns: Vec<ArrayRef>, num_rows: usize) -> Result<RecordBatch> {
        let mut all = columns;
        for (column, view) in all.iter_mut().zip(&self.views) {
            if *view && !matches!(column.data_type(), ArrowType::Utf8View) {
                *column = arrow::compute::cast(column, &ArrowType::Utf8View)
                    .map_err(|e| Error::arrow("reading strings as views", e))?;
            }
        }
        if !self.deriver.is_empty() {
            let derived = self.deriver.derive(&all)?;
            all.extend(derived);
        }
        let options = RecordBatchOptions::new().with_row_count(Some(num_rows));
        let cols = self.output.iter().map(|&i| all[i].clone()).collect();
        let out = RecordBatch::try_new_with_options(self.out_schema.clone(), cols, &options)
            .map_err(|e| Error::arrow("projecting read batch", e))?;
        match &self.bound {
            None | Some(BoundPredicate::AlwaysTrue) => Ok(out),
            Some(b) => {
                let mask = b.evaluate_with(num_rows, &|i| all.get(i).cloned())?;
                filter_record_batch(&out, &mask)
                    .map_err(|e| Error::arrow("filtering read batch", e))
            }
        }
    }

    /// The filter pushed into Parquet decoding (late materialization: the filter's columns
    /// are decoded first, the others only for the rows it keeps; key columns are derived
    /// inside it), when that pays: when some column is not read by the filter, and either
    /// such a column is nested (ARRAY, MAP, ROW: costly to decode for rows that are then
    /// dropped) or the filter tests MAP keys (a key read decodes only the shredded columns
    /// holding it); a filter that needs every column would decode them twice. Otherwise
    /// every column is decoded and `finish` filters: measured on TPC-H, late materialization
    /// of flat columns cost more (pages are decompressed either way, and arrow-rs then skips
    /// row by row) than it saved. Pages and row groups that cannot match are skipped either
    /// way ([`Self::stats_pruning`]). `finish` applies the exact predicate in both cases.
    pub(super) fn pushed_filter(&self) -> Option<PushedRowFilter> {
        let pushed = pushed_filter(self.bound.as_ref()?, &self.read_fields, &self.keys)?;
        let uses_keys = self.bound.as_ref().is_some_and(|b| {
            b.referenced_columns()
                .iter()
                .any(|&i| i >= self.read_fields.len())
        });
        let unread = |f: &DataField| !pushed.fields.iter().any(|p| p.id == f.id);
        // A filter that needs every column decoded would decode them twice.
        let covered = !self.read_fields.iter().any(unread);
        let costly_rest = self
            .read_fields
            .iter()
            .any(|f| f.data_type.is_nested() && unread(f));
        (!covered && (uses_keys || costly_rest)).then_some(pushed)
    }

    /// The filter as row-group and page pruning over the decoded fields (leaves on key columns
    /// are unknown there).
    pub(super) fn stats_pruning(&self) -> Option<StatsPruning> {
        let predicate = self.bound.clone()?;
        if matches!(predicate, BoundPredicate::AlwaysTrue) {
            return None;
        }
        Some(StatsPruning {
            fields: self.read_fields.clone(),
            predicate,
        })
    }

    /// The MAP-key predicate hint of the filter.
    pub(super) fn map_key_predicate(&self) -> Option<MapKeyPredicate> {
        map_key_predicate(self.bound.as_ref()?, self.read_fields.len(), &self.keys)
    }
}
