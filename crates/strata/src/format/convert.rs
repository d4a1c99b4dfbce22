//! Aligning Arrow data to a table's Arrow schema.
//!
//! Input batches come from users (pyarrow, CSV, JSON, other engines) with their own column
//! order, widths, string/list flavours and nested field names; files come from other writers
//! with their own physical choices. Everything is brought to exactly the schema
//! [`super::arrow_types`] derives from the Paimon types before it is written or returned:
//!
//! * columns are matched by name, in any order; unknown input columns are an error naming them;
//!   missing nullable columns become NULL, missing NOT NULL columns are an error;
//! * leaf values are converted with Arrow's cast kernel in strict mode: a value that does not
//!   fit (INT overflow, unparsable date text, decimal overflow) fails instead of becoming NULL;
//! * LIST/MAP/STRUCT are rebuilt recursively with the target's field names and nullability
//!   (pyarrow's `item` vs Paimon's `element`, `entries` vs `key_value`, ...);
//! * NULLs in NOT NULL positions are rejected, naming the column path (`col.element.x`);
//! * for writes ([`cast_batch_with_defaults`]), a column's default value fills the column when
//!   it is missing and replaces its NULLs (Java's `DefaultValueRow`).
//!
//! Scalar conversion between Arrow values and [`Datum`]s lives in [`super::datum`].

use std::sync::Arc;

use arrow::buffer::NullBuffer;
use arrow_array::cast::AsArray;
use arrow_array::types::{
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use arrow_array::{
    new_null_array, Array, ArrayRef, Int64Array, ListArray, MapArray, RecordBatch,
    RecordBatchOptions, StructArray,
};
use arrow_cast::{can_cast_types, cast_with_options, CastOptions};
use arrow_schema::{
    ArrowError, DataType as ArrowType, Field, FieldRef, Fields, SchemaRef, TimeUnit,
};

pub(crate) use super::datum::{datum_at, datums_to_array};
use crate::error::ErrorDetail;
use crate::{Error, Result};
use strata_spec::types::default_value::parse_default_value;
use strata_spec::types::DataField;
use strata_spec::SpecError;

fn mismatch(column: &str, message: impl Into<String>) -> Error {
    ErrorDetail::SchemaMismatch {
        column: column.to_string(),
        message: message.into(),
    }
    .into()
}

/// Aligns `batch` to `target` (a table's or a projection's Arrow schema): columns matched by
/// name, missing nullable columns filled with NULLs, types cast strictly, NOT NULL enforced.
/// `ctx` says what is being done (e.g. `"writing table db.t"`) and prefixes error messages.
pub fn cast_batch_to_schema(
    batch: &RecordBatch,
    target: &SchemaRef,
    ctx: &str,
) -> Result<RecordBatch> {
    align(batch, target, None, ctx)
}

/// The default values of a table's top-level columns (`DataField.defaultValue`), as one-row
/// arrays of the columns' Arrow types, for [`cast_batch_with_defaults`].
#[derive(Clone, Debug, Default)]
pub struct ColumnDefaults {
    /// Per column of the target schema: its default, if it has one that is not NULL.
    values: Vec<Option<ArrayRef>>,
}

impl ColumnDefaults {
    /// The defaults of `fields` (a table's columns, in the order of `target`, its Arrow
    /// schema), read as Java's `DefaultValueUtils.convertDefaultValue` does
    /// ([`strata_spec::types::default_value`]). A default strata cannot convert is an error
    /// naming the column.
    pub fn of(fields: &[DataField], target: &SchemaRef, ctx: &str) -> Result<Self> {
        let mut values = Vec::with_capacity(fields.len());
        for (f, tf) in fields.iter().zip(target.fields()) {
            let value = match &f.default_value {
                None => None,
                Some(text) => parse_default_value(&f.name, &f.data_type, text)
                    .map_err(|e| match e {
                        SpecError::Unsupported(m) => {
                            ErrorDetail::Unsupported(format!("{ctx}: {m}")).into()
                        }
                        other => mismatch(&f.name, format!("{ctx}: {other}")),
                    })?
                    .map(|d| -> Result<ArrayRef> {
                        let array = datums_to_array(&[Some(d)], &f.data_type)?;
                        cast_to_type(&array, tf.data_type(), &f.name)
                    })
                    .transpose()?,
            };
            values.push(value);
        }
        Ok(ColumnDefaults { values })
    }

    /// No column has a default.
    pub fn is_empty(&self) -> bool {
        self.values.iter().all(Option::is_none)
    }
}

/// [`cast_batch_to_schema`] for a write: a column with a default value that is missing from
/// the input is filled with it, and its NULLs are replaced by it — Java's `DefaultValueRow` in
/// `TableWriteImpl`, applied after the NOT NULL check (a NULL in a NOT NULL column is an error
/// even when the column has a default).
pub fn cast_batch_with_defaults(
    batch: &RecordBatch,
    target: &SchemaRef,
    defaults: &ColumnDefaults,
    ctx: &str,
) -> Result<RecordBatch> {
    align(
        batch,
        target,
        (!defaults.is_empty()).then_some(defaults),
        ctx,
    )
}

/// `array` with its NULLs replaced by the one value of `default`.
fn fill_nulls(array: ArrayRef, default: &ArrayRef, path: &str) -> Result<ArrayRef> {
    if array.logical_null_count() == 0 {
        return Ok(array);
    }
    let present = arrow::compute::is_not_null(&array)
        .map_err(|e| Error::arrow(format!("applying the default of column {path}"), e))?;
    arrow_select::zip::zip(&present, &array, &arrow_array::Scalar::new(default.clone()))
        .map_err(|e| Error::arrow(format!("applying the default of column {path}"), e))
}

fn align(
    batch: &RecordBatch,
    target: &SchemaRef,
    defaults: Option<&ColumnDefaults>,
    ctx: &str,
) -> Result<RecordBatch> {
    let source = batch.schema();
    if source.fields() == target.fields() && defaults.is_none() {
        return Ok(batch.clone());
    }
    let default_of = |i: usize| {
        defaults
            .and_then(|d| d.values.get(i))
            .and_then(Option::as_ref)
    };
    let mut extras = Vec::new();
    for (i, f) in source.fields().iter().enumerate() {
        if target.field_with_name(f.name()).is_err() {
            extras.push(f.name().as_str());
        }
        if source.fields()[..i].iter().any(|g| g.name() == f.name()) {
            return Err(mismatch(
                f.name(),
                format!("{ctx}: the input has this column more than once"),
            ));
        }
    }
    if !extras.is_empty() {
        let expected: Vec<&str> = target.fields().iter().map(|f| f.name().as_str()).collect();
        return Err(mismatch(
            &extras.join(", "),
            format!(
                "{ctx}: not a column of the table (columns: {})",
                expected.join(", ")
            ),
        ));
    }
    let mut columns = Vec::with_capacity(target.fields().len());
    for (n, tf) in target.fields().iter().enumerate() {
        let column = match (source.index_of(tf.name()), default_of(n)) {
            (Ok(i), None) => {
                cast_array(batch.column(i), tf, tf.name()).map_err(|e| prefix_context(e, ctx))?
            }
            (Ok(i), Some(default)) => fill_nulls(
                cast_array(batch.column(i), tf, tf.name()).map_err(|e| prefix_context(e, ctx))?,
                default,
                tf.name(),
            )?,
            (Err(_), Some(default)) => fill_nulls(
                new_null_array(tf.data_type(), batch.num_rows()),
                default,
                tf.name(),
            )?,
            (Err(_), None) if tf.is_nullable() => new_null_array(tf.data_type(), batch.num_rows()),
            (Err(_), None) => {
                return Err(mismatch(
                    tf.name(),
                    format!("{ctx}: the column is NOT NULL but missing from the input"),
                ))
            }
        };
        columns.push(column);
    }
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    RecordBatch::try_new_with_options(target.clone(), columns, &options)
        .map_err(|e| Error::arrow(format!("{ctx}: building the aligned batch"), e))
}

fn prefix_context(e: Error, ctx: &str) -> Error {
    e.map_detail(|d| match d {
        ErrorDetail::SchemaMismatch { column, message } => ErrorDetail::SchemaMismatch {
            column,
            message: format!("{ctx}: {message}"),
        },
        other => other,
    })
}

/// Casts one array to `target`'s type and checks `target`'s nullability. `path` names the
/// column (and nested position) in errors.
pub fn cast_array(array: &ArrayRef, target: &Field, path: &str) -> Result<ArrayRef> {
    let out = cast_to_type(array, target.data_type(), path)?;
    check_top_level_not_null(out, target, path, "the column is NOT NULL but the data has")
}

/// Fails when `target` is NOT NULL and `out` holds NULLs; `what` starts the message, which
/// ends with the NULL count.
pub(crate) fn check_top_level_not_null(
    out: ArrayRef,
    target: &Field,
    path: &str,
    what: &str,
) -> Result<ArrayRef> {
    if !target.is_nullable() {
        let nulls = out.logical_null_count();
        if nulls > 0 {
            return Err(mismatch(path, format!("{what} {nulls} NULL value(s)")));
        }
    }
    Ok(out)
}

/// Casts one array to `target` (recursively for nested types), without a top-level
/// nullability check.
pub(crate) fn cast_to_type(array: &ArrayRef, target: &ArrowType, path: &str) -> Result<ArrayRef> {
    if array.data_type() == target {
        return Ok(array.clone());
    }
    match target {
        ArrowType::List(element) => cast_list(array, element, path),
        ArrowType::Map(entries, sorted) => cast_map(array, entries, *sorted, path),
        ArrowType::Struct(fields) => cast_struct(array, fields, path),
        _ => cast_leaf(array, target, path),
    }
}

fn cast_leaf(array: &ArrayRef, target: &ArrowType, path: &str) -> Result<ArrayRef> {
    let source = array.data_type();
    // String views are reached through plain strings, whose casts arrow covers fully (and
    // `Utf8` → `Utf8View` shares the value buffer).
    if matches!(target, ArrowType::Utf8View) && !matches!(source, ArrowType::Utf8) {
        let plain = cast_leaf(array, &ArrowType::Utf8, path)?;
        return cast_leaf(&plain, target, path);
    }
    if let (ArrowType::Timestamp(from, _), ArrowType::Timestamp(to, tz)) = (source, target) {
        return cast_timestamp(array, *from, *to, tz.clone(), path);
    }
    if !can_cast_types(source, target) {
        return Err(mismatch(
            path,
            format!("cannot convert {source} to {target}"),
        ));
    }
    let options = CastOptions {
        safe: false,
        ..Default::default()
    };
    cast_with_options(array, target, &options)
        .map_err(|e| mismatch(path, format!("cannot convert {source} to {target}: {e}")))
}

/// Timestamp → timestamp without time-zone arithmetic: values are kept as they are (an
/// instant stays the same instant, a wall-clock reading the same reading; naive input for a
/// TIMESTAMP_LTZ column is read as UTC), the unit is converted (down-conversion floors, as
/// Paimon's millis+nanos split does) and the target zone label is attached. Arrow's own cast
/// would parse zone names, which needs the `chrono-tz` feature for names like "UTC".
fn cast_timestamp(
    array: &ArrayRef,
    from: TimeUnit,
    to: TimeUnit,
    tz: Option<Arc<str>>,
    path: &str,
) -> Result<ArrayRef> {
    fn per_second(unit: TimeUnit) -> i64 {
        match unit {
            TimeUnit::Second => 1,
            TimeUnit::Millisecond => 1_000,
            TimeUnit::Microsecond => 1_000_000,
            TimeUnit::Nanosecond => 1_000_000_000,
        }
    }
    let values: Int64Array = match from {
        TimeUnit::Second => array
            .as_primitive::<TimestampSecondType>()
            .reinterpret_cast(),
        TimeUnit::Millisecond => array
            .as_primitive::<TimestampMillisecondType>()
            .reinterpret_cast(),
        TimeUnit::Microsecond => array
            .as_primitive::<TimestampMicrosecondType>()
            .reinterpret_cast(),
        TimeUnit::Nanosecond => array
            .as_primitive::<TimestampNanosecondType>()
            .reinterpret_cast(),
    };
    let (f, t) = (per_second(from), per_second(to));
    let converted: Int64Array = if f > t {
        let d = f / t;
        values.unary(|v| v.div_euclid(d))
    } else if f < t {
        let m = t / f;
        values
            .try_unary(|v| {
                v.checked_mul(m).ok_or_else(|| {
                    ArrowError::ComputeError(format!("timestamp {v} overflows {to:?}"))
                })
            })
            .map_err(|e| mismatch(path, format!("cannot convert timestamps: {e}")))?
    } else {
        values
    };
    Ok(match to {
        TimeUnit::Second => Arc::new(
            converted
                .reinterpret_cast::<TimestampSecondType>()
                .with_timezone_opt(tz),
        ),
        TimeUnit::Millisecond => Arc::new(
            converted
                .reinterpret_cast::<TimestampMillisecondType>()
                .with_timezone_opt(tz),
        ),
        TimeUnit::Microsecond => Arc::new(
            converted
                .reinterpret_cast::<TimestampMicrosecondType>()
                .with_timezone_opt(tz),
        ),
        TimeUnit::Nanosecond => Arc::new(
            converted
                .reinterpret_cast::<TimestampNanosecondType>()
                .with_timezone_opt(tz),
        ),
    })
}

fn cast_list(array: &ArrayRef, element: &FieldRef, path: &str) -> Result<ArrayRef> {
    let list: ArrayRef = match array.data_type() {
        ArrowType::List(_) => array.clone(),
        ArrowType::LargeList(f)
        | ArrowType::FixedSizeList(f, _)
        | ArrowType::ListView(f)
        | ArrowType::LargeListView(f) => {
            let as_list = ArrowType::List(f.clone());
            cast_leaf(array, &as_list, path)?
        }
        other => {
            return Err(mismatch(
                path,
                format!("expected a list for an ARRAY column, got {other}"),
            ))
        }
    };
    let list = list.as_list::<i32>();
    let element_path = format!("{path}.{}", element.name());
    let values = cast_array(list.values(), element, &element_path)?;
    let out = ListArray::try_new(
        element.clone(),
        list.offsets().clone(),
        values,
        list.nulls().cloned(),
    )
    .map_err(|e| mismatch(path, format!("rebuilding the list: {e}")))?;
    Ok(Arc::new(out))
}

fn cast_map(array: &ArrayRef, entries: &FieldRef, sorted: bool, path: &str) -> Result<ArrayRef> {
    let Some(map) = array.as_map_opt() else {
        return Err(mismatch(
            path,
            format!("expected a map for a MAP column, got {}", array.data_type()),
        ));
    };
    let ArrowType::Struct(kv) = entries.data_type() else {
        return Err(mismatch(path, "map entries type is not a struct"));
    };
    if kv.len() != 2 {
        return Err(mismatch(path, "map entries must have a key and a value"));
    }
    let keys = cast_array(map.keys(), &kv[0], &format!("{path}.{}", kv[0].name()))?;
    let values = cast_array(map.values(), &kv[1], &format!("{path}.{}", kv[1].name()))?;
    let entry_array = StructArray::try_new(kv.clone(), vec![keys, values], None)
        .map_err(|e| mismatch(path, format!("rebuilding map entries: {e}")))?;
    let out = MapArray::try_new(
        entries.clone(),
        map.offsets().clone(),
        entry_array,
        map.nulls().cloned(),
        sorted,
    )
    .map_err(|e| mismatch(path, format!("rebuilding the map: {e}")))?;
    Ok(Arc::new(out))
}

fn cast_struct(array: &ArrayRef, fields: &Fields, path: &str) -> Result<ArrayRef> {
    let Some(source) = array.as_struct_opt() else {
        return Err(mismatch(
            path,
            format!(
                "expected a struct for a ROW column, got {}",
                array.data_type()
            ),
        ));
    };
    let source_fields = source.fields();
    let extras: Vec<&str> = source_fields
        .iter()
        .filter(|f| !fields.iter().any(|t| t.name() == f.name()))
        .map(|f| f.name().as_str())
        .collect();
    let variant = fields.len() == 2
        && ["value", "metadata"]
            .iter()
            .all(|n| fields.find(n).is_some());
    if variant && extras.contains(&"typed_value") {
        // Java's variant shredding (`variant.shreddingSchema`, `variant.inferShreddingSchema`):
        // the values are rebuilt from `typed_value` and the residual `value`.
        let rebuilt = super::variant_shredding::unshred(source, path)?;
        return cast_struct(&rebuilt, fields, path);
    }
    if !extras.is_empty() {
        return Err(mismatch(
            path,
            format!("unknown nested field(s): {}", extras.join(", ")),
        ));
    }
    let parent_nulls = source.nulls();
    let mut children = Vec::with_capacity(fields.len());
    for tf in fields {
        let child_path = format!("{path}.{}", tf.name());
        let child = match source_fields.iter().position(|f| f.name() == tf.name()) {
            Some(i) => cast_to_type(source.column(i), tf.data_type(), &child_path)?,
            None if tf.is_nullable() => new_null_array(tf.data_type(), source.len()),
            None => {
                return Err(mismatch(
                    &child_path,
                    "the nested field is NOT NULL but missing from the input",
                ))
            }
        };
        if !tf.is_nullable() {
            check_not_null_under(&child, parent_nulls, &child_path)?;
        }
        children.push(child);
    }
    let out = StructArray::try_new_with_length(
        fields.clone(),
        children,
        parent_nulls.cloned(),
        source.len(),
    )
    .map_err(|e| mismatch(path, format!("rebuilding the struct: {e}")))?;
    Ok(Arc::new(out))
}

/// Errors if `child` has a NULL in a row where its parent struct is valid.
pub(crate) fn check_not_null_under(
    child: &ArrayRef,
    parent_nulls: Option<&NullBuffer>,
    path: &str,
) -> Result<()> {
    let Some(child_nulls) = child.logical_nulls() else {
        return Ok(());
    };
    let bad = match parent_nulls {
        None => child_nulls.null_count(),
        Some(parent) => {
            let invalid_child = !child_nulls.inner();
            (parent.inner() & &invalid_child).count_set_bits()
        }
    };
    if bad > 0 {
        return Err(mismatch(
            path,
            format!("the field is NOT NULL but the data has {bad} NULL value(s)"),
        ));
    }
    Ok(())
}
