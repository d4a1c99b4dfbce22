//! [`KvLayout`]: where keys, system fields and values sit in the Arrow batches the LSM layer
//! passes around.
//!
//! Every batch of key-value records — in the write buffer, in spill files, flowing through
//! the merge sorter and into data files — has the key-value file layout:
//! `_KEY_<k>…, _SEQUENCE_NUMBER, _VALUE_KIND, <value columns>…`. On the write path the value
//! columns are all table columns; on the read path they are the columns the reader needs
//! (always including the primary keys, the `sequence.field` columns, and everything when the
//! merge engine needs whole rows). Key columns are cheap: they share buffers with the value
//! columns they come from.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array, Int8Array, RecordBatch};
use arrow_schema::SchemaRef;
use strata_spec::kv::{self, RowKind};
use strata_spec::schema::TableSchema;
use strata_spec::{DataField, DataType};

use crate::error::ErrorDetail;
use crate::format::arrow_types::to_arrow_schema_of;
use crate::{Error, Result};

/// Column positions of key-value batches for one table and one set of value fields.
#[derive(Debug, Clone)]
pub(crate) struct KvLayout {
    /// `_KEY_` fields (trimmed primary key), in key order.
    pub key_fields: Vec<DataField>,
    /// Value fields, in batch order.
    pub value_fields: Vec<DataField>,
    /// For each key field, the index of its source column among `value_fields`.
    pub key_value_index: Vec<usize>,
    /// `sequence.field` columns as indices into `value_fields`, in option order.
    pub sequence_fields: Vec<usize>,
    /// `sequence.field.sort-order = descending`.
    pub sequence_descending: bool,
    /// Arrow schema of the whole batch (field ids in metadata).
    pub schema: SchemaRef,
}

impl KvLayout {
    /// The layout of `schema`'s data files (all table columns as values).
    pub(crate) fn for_table(schema: &TableSchema) -> Result<Arc<Self>> {
        Self::with_values(schema, schema.fields.clone())
    }

    /// A layout holding `value_fields` (which must include every primary-key and
    /// `sequence.field` column of `schema`).
    pub(crate) fn with_values(
        schema: &TableSchema,
        value_fields: Vec<DataField>,
    ) -> Result<Arc<Self>> {
        let key_fields = kv::key_fields(schema)?;
        let by_id = |id: i32, what: &str, name: &str| {
            value_fields.iter().position(|f| f.id == id).ok_or_else(|| {
                ErrorDetail::InvalidArgument(format!(
                    "key-value layout: {what} {name} is missing from the value columns"
                ))
                .into()
            })
        };
        let key_value_index = key_fields
            .iter()
            .map(|k| {
                by_id(
                    k.id - kv::KEY_FIELD_ID_START,
                    "primary key",
                    &k.name[kv::KEY_FIELD_PREFIX.len()..],
                )
            })
            .collect::<Result<Vec<_>>>()?;
        let opts = schema.options();
        let mut sequence_fields = Vec::new();
        for name in opts.sequence_field() {
            let f = schema.row_type().field(&name).cloned().ok_or_else(|| {
                ErrorDetail::InvalidOption {
                    key: "sequence.field".into(),
                    message: format!(
                        "sequence field {name} is not a column of {}",
                        schema
                            .fields
                            .iter()
                            .map(|f| f.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                }
            })?;
            sequence_fields.push(by_id(f.id, "sequence field", &f.name)?);
        }
        let sequence_descending = match opts.get("sequence.field.sort-order") {
            None => false,
            Some(v) if v.eq_ignore_ascii_case("ascending") => false,
            Some(v) if v.eq_ignore_ascii_case("descending") => true,
            Some(v) => {
                return Err(ErrorDetail::InvalidOption {
                    key: "sequence.field.sort-order".into(),
                    message: format!("'{v}' is not ascending or descending"),
                }
                .into())
            }
        };
        let mut all = key_fields.clone();
        all.push(DataField::new(
            kv::SEQUENCE_NUMBER_ID,
            kv::SEQUENCE_NUMBER,
            DataType::not_null(strata_spec::TypeKind::BigInt),
        ));
        all.push(DataField::new(
            kv::VALUE_KIND_ID,
            kv::VALUE_KIND,
            DataType::not_null(strata_spec::TypeKind::TinyInt),
        ));
        all.extend(value_fields.iter().cloned());
        let schema = to_arrow_schema_of(&all)?;
        Ok(Arc::new(KvLayout {
            key_fields,
            value_fields,
            key_value_index,
            sequence_fields,
            sequence_descending,
            schema,
        }))
    }

    pub(crate) fn num_keys(&self) -> usize {
        self.key_fields.len()
    }
    /// Column index of `_SEQUENCE_NUMBER`.
    pub(crate) fn seq_col(&self) -> usize {
        self.key_fields.len()
    }
    /// Column index of `_VALUE_KIND`.
    pub(crate) fn kind_col(&self) -> usize {
        self.key_fields.len() + 1
    }
    /// Column index of value field `i`.
    pub(crate) fn value_col(&self, i: usize) -> usize {
        self.key_fields.len() + 2 + i
    }

    /// Builds a batch from value columns plus sequence numbers and kinds (key columns are
    /// the value columns they come from).
    pub(crate) fn assemble(
        &self,
        values: Vec<ArrayRef>,
        seq: ArrayRef,
        kind: ArrayRef,
    ) -> Result<RecordBatch> {
        let mut cols = Vec::with_capacity(self.schema.fields().len());
        for i in &self.key_value_index {
            cols.push(values[*i].clone());
        }
        cols.push(seq);
        cols.push(kind);
        cols.extend(values);
        RecordBatch::try_new(self.schema.clone(), cols)
            .map_err(|e| Error::arrow("assembling key-value batch", e))
    }

    /// The value columns of a key-value batch.
    pub(crate) fn values_of(&self, batch: &RecordBatch) -> Vec<ArrayRef> {
        batch.columns()[self.value_col(0)..].to_vec()
    }
}

/// `interleave_record_batch` that copies a column shared by every input batch only once:
/// key-value batches built by [`KvLayout::assemble`] hold each primary-key column twice
/// (`_KEY_id` and `id` are one array), and gathering rows in sorted order is the costliest
/// copy of a primary-key write.
pub(crate) fn interleave_shared(
    batches: &[&RecordBatch],
    positions: &[(usize, usize)],
) -> Result<RecordBatch> {
    let Some(first) = batches.first() else {
        return Err(ErrorDetail::InvalidArgument("interleaving rows of no batches".into()).into());
    };
    let width = first.num_columns();
    let mut out: Vec<ArrayRef> = Vec::with_capacity(width);
    for c in 0..width {
        // An earlier column that is the same array as this one in every batch.
        let same = (0..c).find(|&d| {
            batches
                .iter()
                .all(|b| Arc::ptr_eq(b.column(c), b.column(d)))
        });
        if let Some(d) = same {
            out.push(out[d].clone());
            continue;
        }
        let inputs: Vec<&dyn arrow_array::Array> =
            batches.iter().map(|b| b.column(c).as_ref()).collect();
        out.push(
            arrow_select::interleave::interleave(&inputs, positions)
                .map_err(|e| Error::arrow("gathering rows", e))?,
        );
    }
    let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(positions.len()));
    RecordBatch::try_new_with_options(first.schema(), out, &options)
        .map_err(|e| Error::arrow("gathering rows", e))
}

/// The `_SEQUENCE_NUMBER` column of a key-value batch.
pub(crate) fn seq_column<'a>(layout: &KvLayout, batch: &'a RecordBatch) -> Result<&'a Int64Array> {
    batch
        .column(layout.seq_col())
        .as_any()
        .downcast_ref::<Int64Array>()
        .ok_or_else(|| {
            ErrorDetail::InvalidArgument(format!("{} is not BIGINT", kv::SEQUENCE_NUMBER)).into()
        })
}

/// The `_VALUE_KIND` column of a key-value batch.
pub(crate) fn kind_column<'a>(layout: &KvLayout, batch: &'a RecordBatch) -> Result<&'a Int8Array> {
    batch
        .column(layout.kind_col())
        .as_any()
        .downcast_ref::<Int8Array>()
        .ok_or_else(|| {
            ErrorDetail::InvalidArgument(format!("{} is not TINYINT", kv::VALUE_KIND)).into()
        })
}

/// Whether the record's kind byte is a retraction (`-U`, `-D`).
#[inline]
pub(crate) fn is_retract_byte(b: i8) -> bool {
    b == RowKind::UpdateBefore.to_byte() || b == RowKind::Delete.to_byte()
}

/// Drops retract records (Java `DropDeleteReader`).
pub(crate) fn drop_retracts(layout: &KvLayout, batch: RecordBatch) -> Result<RecordBatch> {
    let kinds = kind_column(layout, &batch)?;
    if kinds.null_count() == 0 && !kinds.values().iter().any(|b| is_retract_byte(*b)) {
        return Ok(batch);
    }
    let keep: arrow_array::BooleanArray = kinds
        .iter()
        .map(|k| Some(!k.map(is_retract_byte).unwrap_or(false)))
        .collect();
    arrow_select::filter::filter_record_batch(&batch, &keep)
        .map_err(|e| Error::arrow("dropping deleted records", e))
}
