//! Rewriting values inside nested columns of a decoded file batch, by the column's Paimon type.
//!
//! ORC and Avro store a few things differently from the Arrow layout the column plan expects:
//! Avro keeps a MAP with non-string keys as an array of `{key, value}` records, ORC pads CHAR(n)
//! values to n characters. [`rewrite`] walks a column top-down along its Paimon type (ROW children
//! by name, ARRAY elements, MAP keys and values) and lets a format's hook replace any node; the
//! walk then continues inside the replacement.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, ListArray, MapArray, RecordBatch, StructArray};
use arrow_schema::{DataType as ArrowType, Field, Fields, Schema};
use strata_spec::types::{DataField, DataType, TypeKind};

use super::evolve::find_by_name;
use crate::{Error, Result};

/// Replaces a node (`array` of Paimon type `t` at `path`), or keeps it with `None`.
pub(super) type Hook<'a> = &'a dyn Fn(&ArrayRef, &DataType, &str) -> Result<Option<ArrayRef>>;

/// Whether `t` or a type nested in it satisfies `pred`.
pub(super) fn any_type(t: &DataType, pred: &dyn Fn(&DataType) -> bool) -> bool {
    pred(t)
        || match &t.kind {
            TypeKind::Array(e) | TypeKind::Multiset(e) => any_type(e, pred),
            TypeKind::Map { key, value } => any_type(key, pred) || any_type(value, pred),
            TypeKind::Row(fields) => fields.iter().any(|f| any_type(&f.data_type, pred)),
            _ => false,
        }
}

/// Rewrites the top-level columns of `batch` whose data field (same name in `data_fields`) has a
/// type for which `wanted` holds somewhere inside; other columns are kept as they are.
pub(super) fn rewrite_batch(
    batch: &RecordBatch,
    data_fields: &[DataField],
    wanted: &dyn Fn(&DataType) -> bool,
    hook: Hook<'_>,
) -> Result<RecordBatch> {
    let names = data_fields.iter().map(|f| f.name.as_str());
    let schema = batch.schema();
    let mut changed = false;
    let mut fields = Vec::with_capacity(batch.num_columns());
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        let column = match find_by_name(names.clone(), field.name()) {
            Some(i) if any_type(&data_fields[i].data_type, wanted) => {
                changed = true;
                rewrite(column, &data_fields[i].data_type, field.name(), hook)?
            }
            _ => column.clone(),
        };
        fields.push(Field::new(
            field.name(),
            column.data_type().clone(),
            field.is_nullable(),
        ));
        columns.push(column);
    }
    if !changed {
        return Ok(batch.clone());
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
        .map_err(|e| Error::arrow("rebuilding a decoded batch", e))
}

/// Rewrites `array` (Paimon type `t`) with `hook`, top-down: see the module docs.
pub(super) fn rewrite(
    array: &ArrayRef,
    t: &DataType,
    path: &str,
    hook: Hook<'_>,
) -> Result<ArrayRef> {
    let array = hook(array, t, path)?.unwrap_or_else(|| array.clone());
    let rebuilt = |what: &str, e| Error::arrow(format!("rebuilding {what} column {path}"), e);
    match (&t.kind, array.data_type()) {
        (TypeKind::Map { key, value }, ArrowType::Map(entries, sorted)) => {
            let map = array.as_map();
            let keys = rewrite(map.keys(), key, &format!("{path}.key"), hook)?;
            let values = rewrite(map.values(), value, &format!("{path}.value"), hook)?;
            let ArrowType::Struct(kv) = entries.data_type() else {
                return Ok(array);
            };
            let kv = Fields::from(vec![
                Field::new(kv[0].name(), keys.data_type().clone(), false),
                Field::new(kv[1].name(), values.data_type().clone(), true),
            ]);
            let entries_array = StructArray::try_new(kv.clone(), vec![keys, values], None)
                .map_err(|e| rebuilt("MAP", e))?;
            let entries = Arc::new(Field::new(entries.name(), ArrowType::Struct(kv), false));
            Ok(Arc::new(
                MapArray::try_new(
                    entries,
                    map.offsets().clone(),
                    entries_array,
                    map.nulls().cloned(),
                    *sorted,
                )
                .map_err(|e| rebuilt("MAP", e))?,
            ))
        }
        (TypeKind::Array(element), ArrowType::List(item)) => {
            let list = array.as_list::<i32>();
            let values = rewrite(list.values(), element, &format!("{path}[]"), hook)?;
            let item = Arc::new(Field::new(
                item.name(),
                values.data_type().clone(),
                item.is_nullable(),
            ));
            Ok(Arc::new(
                ListArray::try_new(item, list.offsets().clone(), values, list.nulls().cloned())
                    .map_err(|e| rebuilt("ARRAY", e))?,
            ))
        }
        (TypeKind::Row(children), ArrowType::Struct(fields)) => {
            let row = array.as_struct();
            let names = children.iter().map(|c| c.name.as_str());
            let mut out_fields = Vec::with_capacity(fields.len());
            let mut columns = Vec::with_capacity(fields.len());
            for (field, column) in fields.iter().zip(row.columns()) {
                let column = match find_by_name(names.clone(), field.name()) {
                    Some(i) => rewrite(
                        column,
                        &children[i].data_type,
                        &format!("{path}.{}", field.name()),
                        hook,
                    )?,
                    None => column.clone(),
                };
                out_fields.push(Field::new(
                    field.name(),
                    column.data_type().clone(),
                    field.is_nullable(),
                ));
                columns.push(column);
            }
            Ok(Arc::new(
                StructArray::try_new(Fields::from(out_fields), columns, row.nulls().cloned())
                    .map_err(|e| rebuilt("ROW", e))?,
            ))
        }
        _ => Ok(array),
    }
}
