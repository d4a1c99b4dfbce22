//! Reads that keep row kinds: every record with its `rowkind` (`+I`, `-U`, `+U`, `-D`), as
//! Paimon's `AuditLogTable` (`t$audit_log`) shows a table.
//!
//! A primary-key table is read through the merge path for every split, with deletes kept
//! (Java's `forceKeepDelete`): each key's newest record with its kind, so a key deleted but not
//! yet compacted away shows as `-D`; files are read with their `_VALUE_KIND` column, so a row
//! written by an UPDATE shows as `+U`. Rows of append tables are all `+I`. The kind is the
//! first output column, `rowkind STRING NOT NULL`, as Java's.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int8Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use strata_spec::kv::RowKind;

use crate::error::ErrorDetail;
use crate::{Error, Result};

/// The name of the row-kind column (Java `AuditLogTable.ROW_KIND`).
pub const ROW_KIND_COLUMN: &str = "rowkind";

/// The rows of `batch` (whose first column is `rowkind`) that add a row, `+I` or `+U`: what
/// a read that drops retractions keeps (Java's `isAdd()`).
pub fn additions(batch: &RecordBatch) -> Result<RecordBatch> {
    let kinds = batch
        .column(0)
        .as_any()
        .downcast_ref::<StringArray>()
        .ok_or_else(|| {
            ErrorDetail::Invariant("the rowkind column is not a string column".into())
        })?;
    let keep: arrow_array::BooleanArray = kinds
        .iter()
        .map(|k| Some(matches!(k, Some("+I") | Some("+U"))))
        .collect();
    if keep.false_count() == 0 {
        return Ok(batch.clone());
    }
    arrow_select::filter::filter_record_batch(batch, &keep)
        .map_err(|e| Error::arrow("dropping retractions", e))
}

/// `schema` with the row-kind column in front.
pub fn with_kind_column(schema: &Schema) -> SchemaRef {
    let mut fields = vec![Arc::new(Field::new(ROW_KIND_COLUMN, DataType::Utf8, false))];
    fields.extend(schema.fields().iter().cloned());
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// The short strings (`+I`, ...) of Paimon's row-kind bytes.
pub(crate) fn kind_strings(kinds: &Int8Array) -> Result<ArrayRef> {
    let mut out = Vec::with_capacity(kinds.len());
    for k in kinds.iter() {
        let kind = RowKind::from_byte(k.unwrap_or(RowKind::Insert.to_byte()))
            .map_err(|e| ErrorDetail::InvalidArgument(format!("_VALUE_KIND: {e}")))?;
        out.push(kind.short_string());
    }
    Ok(Arc::new(StringArray::from(out)))
}

/// `batch` with `kinds` in front, as `schema` (from [`with_kind_column`]).
pub(crate) fn prepend(
    schema: &SchemaRef,
    kinds: ArrayRef,
    batch: &RecordBatch,
) -> Result<RecordBatch> {
    let mut columns = Vec::with_capacity(batch.num_columns() + 1);
    columns.push(kinds);
    columns.extend(batch.columns().iter().cloned());
    let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    RecordBatch::try_new_with_options(schema.clone(), columns, &options)
        .map_err(|e| Error::arrow("adding the row-kind column", e))
}

/// `+I` for each row of `batch` (an append table's rows).
pub(crate) fn inserts(schema: &SchemaRef, batch: &RecordBatch) -> Result<RecordBatch> {
    let kinds: ArrayRef = Arc::new(StringArray::from(vec![
        RowKind::Insert.short_string();
        batch.num_rows()
    ]));
    prepend(schema, kinds, batch)
}
