//! Schema evolution of columns read from a data file.
//!
//! A data file holds its columns as they were when it was written (`data` type, from the
//! file's schema id); a reader asks for the current schema's columns (`read` type). Columns are
//! tied by field id, recursively: ROW children are matched by id and read by the name they had
//! in the file, so renamed nested fields are found, dropped ones ignored and added ones filled
//! with NULL. Leaves are cast to the read type (e.g. INT → BIGINT) and every nested field takes
//! the target Arrow name and nullability, whatever physical variant the writer used
//! (`item`/`element`, `entries`/`key_value`, decimals as FLBA, timestamps in any unit...).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{new_null_array, Array, ArrayRef, ListArray, MapArray, StructArray};
use arrow_schema::{DataType as ArrowType, Field, FieldRef};
use strata_spec::types::{DataField, DataType, TypeKind};

use super::convert::{cast_to_type, check_not_null_under};
use crate::{Error, Result};

fn mismatch(column: &str, message: impl Into<String>) -> Error {
    Error::SchemaMismatch {
        column: column.to_string(),
        message: message.into(),
    }
}

/// Finds a struct child / file column by name: exact first, then case-insensitive (as Java's
/// Parquet reader does).
pub(crate) fn find_by_name<'a, I>(names: I, wanted: &str) -> Option<usize>
where
    I: IntoIterator<Item = &'a str> + Clone,
{
    names
        .clone()
        .into_iter()
        .position(|n| n == wanted)
        .or_else(|| {
            names
                .into_iter()
                .position(|n| n.eq_ignore_ascii_case(wanted))
        })
}

/// Converts `array` (a column of Paimon type `data` as stored in a file) to the `target` Arrow
/// field of Paimon type `read`, matching ROW children by field id. Checks `target`'s
/// nullability.
pub fn evolve_array(
    array: &ArrayRef,
    data: &DataType,
    read: &DataType,
    target: &Field,
    path: &str,
) -> Result<ArrayRef> {
    let out = evolve_to_type(array, data, read, target.data_type(), path)?;
    super::convert::check_top_level_not_null(
        out,
        target,
        path,
        "the column is NOT NULL in the read schema but has",
    )
}

fn evolve_to_type(
    array: &ArrayRef,
    data: &DataType,
    read: &DataType,
    target: &ArrowType,
    path: &str,
) -> Result<ArrayRef> {
    match (&data.kind, &read.kind, target) {
        (TypeKind::Row(data_fields), TypeKind::Row(read_fields), ArrowType::Struct(targets)) => {
            evolve_struct(array, data_fields, read_fields, targets, path)
        }
        (TypeKind::Array(de), TypeKind::Array(re), ArrowType::List(element)) => {
            evolve_list(array, de, re, element, path)
        }
        (TypeKind::Map { key: dk, value: dv }, TypeKind::Map { key: rk, value: rv }, _) => {
            evolve_map(array, (dk, dv), (rk, rv), target, path)
        }
        (TypeKind::Multiset(de), TypeKind::Multiset(re), _) => {
            let count = DataType::not_null(TypeKind::Int);
            evolve_map(array, (de, &count), (re, &count), target, path)
        }
        _ => cast_to_type(array, target, path),
    }
}

fn evolve_struct(
    array: &ArrayRef,
    data_fields: &[DataField],
    read_fields: &[DataField],
    targets: &arrow_schema::Fields,
    path: &str,
) -> Result<ArrayRef> {
    let Some(source) = array.as_struct_opt() else {
        return Err(mismatch(
            path,
            format!(
                "expected a struct for a ROW column, got {}",
                array.data_type()
            ),
        ));
    };
    if targets.len() != read_fields.len() {
        return Err(mismatch(path, "read type and Arrow type disagree"));
    }
    let source_names = source.fields().iter().map(|f| f.name().as_str());
    let mut children = Vec::with_capacity(read_fields.len());
    for (rf, tf) in read_fields.iter().zip(targets.iter()) {
        let child_path = format!("{path}.{}", rf.name);
        let found = data_fields.iter().find(|df| df.id == rf.id).and_then(|df| {
            find_by_name(source_names.clone(), &df.name).map(|i| (df, source.column(i)))
        });
        let child = match found {
            Some((df, column)) => evolve_to_type(
                column,
                &df.data_type,
                &rf.data_type,
                tf.data_type(),
                &child_path,
            )?,
            None => new_null_array(tf.data_type(), source.len()),
        };
        if !tf.is_nullable() {
            check_not_null_under(&child, source.nulls(), &child_path)?;
        }
        children.push(child);
    }
    let out = StructArray::try_new_with_length(
        targets.clone(),
        children,
        source.nulls().cloned(),
        source.len(),
    )
    .map_err(|e| mismatch(path, format!("rebuilding the struct: {e}")))?;
    Ok(Arc::new(out))
}

fn as_list(array: &ArrayRef, path: &str) -> Result<ArrayRef> {
    match array.data_type() {
        ArrowType::List(_) => Ok(array.clone()),
        ArrowType::LargeList(f) | ArrowType::FixedSizeList(f, _) => {
            cast_to_type(array, &ArrowType::List(f.clone()), path)
        }
        other => Err(mismatch(
            path,
            format!("expected a list for an ARRAY column, got {other}"),
        )),
    }
}

fn evolve_list(
    array: &ArrayRef,
    data_element: &DataType,
    read_element: &DataType,
    element: &FieldRef,
    path: &str,
) -> Result<ArrayRef> {
    let list = as_list(array, path)?;
    let list = list.as_list::<i32>();
    let element_path = format!("{path}.{}", element.name());
    let values = evolve_array(
        list.values(),
        data_element,
        read_element,
        element,
        &element_path,
    )?;
    let out = ListArray::try_new(
        element.clone(),
        list.offsets().clone(),
        values,
        list.nulls().cloned(),
    )
    .map_err(|e| mismatch(path, format!("rebuilding the list: {e}")))?;
    Ok(Arc::new(out))
}

fn evolve_map(
    array: &ArrayRef,
    data: (&DataType, &DataType),
    read: (&DataType, &DataType),
    target: &ArrowType,
    path: &str,
) -> Result<ArrayRef> {
    let ArrowType::Map(entries, sorted) = target else {
        return Err(mismatch(path, format!("MAP read as {target}")));
    };
    let ArrowType::Struct(kv) = entries.data_type() else {
        return Err(mismatch(path, "map entries type is not a struct"));
    };
    let Some(map) = array.as_map_opt() else {
        return Err(mismatch(
            path,
            format!("expected a map for a MAP column, got {}", array.data_type()),
        ));
    };
    if kv.len() != 2 {
        return Err(mismatch(path, "map entries must have a key and a value"));
    }
    let key_path = format!("{path}.{}", kv[0].name());
    let value_path = format!("{path}.{}", kv[1].name());
    let keys = evolve_array(map.keys(), data.0, read.0, &kv[0], &key_path)?;
    let values = evolve_array(map.values(), data.1, read.1, &kv[1], &value_path)?;
    let entry_array = StructArray::try_new(kv.clone(), vec![keys, values], None)
        .map_err(|e| mismatch(path, format!("rebuilding map entries: {e}")))?;
    let out = MapArray::try_new(
        entries.clone(),
        map.offsets().clone(),
        entry_array,
        map.nulls().cloned(),
        *sorted,
    )
    .map_err(|e| mismatch(path, format!("rebuilding the map: {e}")))?;
    Ok(Arc::new(out))
}
