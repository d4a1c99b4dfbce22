//! Paimon types ⇄ Arrow types, chosen so that arrow-rs writes the Parquet physical and logical
//! types Java Paimon writes (`ParquetSchemaConverter`).
//!
//! | Paimon | Arrow | Parquet (as written by arrow-rs) |
//! |---|---|---|
//! | BOOLEAN | Boolean | BOOLEAN |
//! | TINYINT / SMALLINT | Int8 / Int16 | INT32 (INT(8/16, signed)) |
//! | INT / BIGINT | Int32 / Int64 | INT32 / INT64 |
//! | FLOAT / DOUBLE | Float32 / Float64 | FLOAT / DOUBLE |
//! | DECIMAL(p, s) | Decimal128(p, s) | INT32 p≤9, INT64 p≤18, else FIXED_LEN_BYTE_ARRAY |
//! | CHAR / VARCHAR | Utf8 | BINARY (STRING) |
//! | BINARY / VARBINARY / BLOB | Binary | BINARY |
//! | DATE | Date32 | INT32 (DATE) |
//! | TIME(p) | Time32(ms) | INT32 (TIME(MILLIS, adjustedToUTC=true)) |
//! | TIMESTAMP(p) | Timestamp(ms/us/ns) | INT64 TIMESTAMP(unit, adjustedToUTC=false) |
//! | TIMESTAMP_LTZ(p) | Timestamp(ms/us/ns, "+00:00") | INT64 TIMESTAMP(unit, adjustedToUTC=true) |
//! | ARRAY | List(`element`) | 3-level LIST |
//! | MAP / MULTISET | Map(`key_value` {key NOT NULL, value}) | MAP (`key_value`) |
//! | ROW | Struct | group |
//! | VARIANT | Struct{value, metadata} (binaries NOT NULL, ids 0 and 1) | group |
//!
//! Timestamp precision picks the unit: p≤3 millis, p≤6 micros, else nanos. (Java writes
//! precision > 6 as INT96, which arrow-rs cannot write; INT64 NANOS is what Java's reader also
//! accepts.)
//!
//! Every Arrow field carries `PARQUET:field_id` metadata: the Paimon field id for columns and
//! ROW children; for ARRAY elements and MAP keys/values the ids Java derives from the enclosing
//! column id and nesting depth (`SpecialFields`): element/value = 536870911 + 1024·id + depth,
//! key = 536870911 − 1024·id − depth.

use std::sync::Arc;

use arrow_schema::{DataType as ArrowType, Field, FieldRef, Fields, Schema, SchemaRef, TimeUnit};
use parquet::arrow::PARQUET_FIELD_ID_META_KEY;
use strata_spec::types::{DataField, DataType, RowType, TypeKind, MAX_LENGTH};

use crate::error::ErrorDetail;
use crate::{Error, Result};

/// Name of the element field of a LIST (Parquet's standard 3-level layout).
pub(crate) const LIST_ELEMENT_NAME: &str = "element";
/// Name of the repeated entries group of a MAP.
pub(crate) const MAP_ENTRIES_NAME: &str = "key_value";
pub(crate) const MAP_KEY_NAME: &str = "key";
pub(crate) const MAP_VALUE_NAME: &str = "value";
/// Time zone of TIMESTAMP WITH LOCAL TIME ZONE columns (values are UTC instants). An offset
/// rather than `"UTC"`: without arrow's `chrono-tz` feature only offsets parse, and Arrow's
/// cast and display kernels parse the zone; it is also what arrow-rs reports for Parquet
/// timestamps with `isAdjustedToUTC = true`.
pub(crate) const LTZ_TIME_ZONE: &str = "+00:00";
/// Arrow field metadata key telling arrow-rs to write TIME with `isAdjustedToUTC = true`.
const TIME_ADJUSTED_TO_UTC_KEY: &str = "adjusted_to_utc";

/// Base of the synthetic field ids of ARRAY elements and MAP keys/values
/// (`SpecialFields.STRUCTURED_TYPE_FIELD_ID_BASE` = `Integer.MAX_VALUE / 4`).
pub(crate) const STRUCTURED_TYPE_FIELD_ID_BASE: i32 = i32::MAX / 4;
/// `SpecialFields.STRUCTURED_TYPE_FIELD_DEPTH_LIMIT`.
pub(crate) const STRUCTURED_TYPE_FIELD_DEPTH_LIMIT: i32 = 1 << 10;

/// Field id of the element of an ARRAY column `parent_id` at nesting `depth` (1 = direct child).
pub(crate) fn array_element_field_id(parent_id: i32, depth: i32) -> i32 {
    STRUCTURED_TYPE_FIELD_ID_BASE
        .wrapping_add(parent_id.wrapping_mul(STRUCTURED_TYPE_FIELD_DEPTH_LIMIT))
        .wrapping_add(depth)
}

/// Field id of the key of a MAP/MULTISET column `parent_id` at nesting `depth`.
pub(crate) fn map_key_field_id(parent_id: i32, depth: i32) -> i32 {
    STRUCTURED_TYPE_FIELD_ID_BASE
        .wrapping_sub(parent_id.wrapping_mul(STRUCTURED_TYPE_FIELD_DEPTH_LIMIT))
        .wrapping_sub(depth)
}

/// Field id of the value of a MAP/MULTISET column `parent_id` at nesting `depth`.
pub(crate) fn map_value_field_id(parent_id: i32, depth: i32) -> i32 {
    array_element_field_id(parent_id, depth)
}

/// The Arrow type of a Paimon type. ROW children carry their field ids; ARRAY elements and MAP
/// keys/values carry none (their ids depend on the enclosing column, see [`to_arrow_field`]).
pub fn to_arrow_type(data_type: &DataType) -> Result<ArrowType> {
    arrow_type(data_type, None)
}

/// The Arrow field of a Paimon column, with `PARQUET:field_id` metadata on it and on every
/// nested field.
pub fn to_arrow_field(field: &DataField) -> Result<Field> {
    let ids = Some(NestedIds {
        parent_id: field.id,
        depth: 0,
    });
    let arrow = arrow_type(&field.data_type, ids).map_err(|e| {
        e.map_detail(|d| match d {
            ErrorDetail::Unsupported(m) => {
                ErrorDetail::Unsupported(format!("column {}: {m}", field.name))
            }
            other => other,
        })
    })?;
    Ok(with_field_meta(
        Field::new(&field.name, arrow, field.data_type.nullable),
        Some(field.id),
        &field.data_type,
    ))
}

/// The Arrow schema of a row type (a table's columns, or a projection of them).
pub fn to_arrow_schema(row_type: &RowType) -> Result<SchemaRef> {
    to_arrow_schema_of(&row_type.fields)
}

/// The Arrow schema of a list of fields.
pub fn to_arrow_schema_of(fields: &[DataField]) -> Result<SchemaRef> {
    let fields = fields
        .iter()
        .map(to_arrow_field)
        .collect::<Result<Vec<_>>>()?;
    Ok(Arc::new(Schema::new(fields)))
}

/// `field` with a top-level `Utf8` type read as `Utf8View` (Arrow's string views: no copy of
/// dictionary-encoded values while decoding, and the string type DataFusion plans with);
/// other fields, nested strings included, unchanged. Metadata (the field id) is kept.
pub(crate) fn string_view_field(field: &Field) -> Field {
    match field.data_type() {
        ArrowType::Utf8 | ArrowType::LargeUtf8 => field.clone().with_data_type(ArrowType::Utf8View),
        _ => field.clone(),
    }
}

/// `schema` with every top-level string field read as `Utf8View` ([`string_view_field`]).
pub(crate) fn with_string_views(schema: &Schema) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| string_view_field(f))
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// Where the synthetic ids of ARRAY/MAP children come from: the enclosing column's id and the
/// nesting depth below it (ROW children restart from their own id at depth 0, like Java).
#[derive(Clone, Copy)]
struct NestedIds {
    parent_id: i32,
    depth: i32,
}

fn timestamp_unit(precision: u32) -> TimeUnit {
    if precision <= 3 {
        TimeUnit::Millisecond
    } else if precision <= 6 {
        TimeUnit::Microsecond
    } else {
        TimeUnit::Nanosecond
    }
}

fn arrow_type(data_type: &DataType, ids: Option<NestedIds>) -> Result<ArrowType> {
    let child_ids = ids.map(|i| NestedIds {
        parent_id: i.parent_id,
        depth: i.depth + 1,
    });
    Ok(match &data_type.kind {
        TypeKind::Boolean => ArrowType::Boolean,
        TypeKind::TinyInt => ArrowType::Int8,
        TypeKind::SmallInt => ArrowType::Int16,
        TypeKind::Int => ArrowType::Int32,
        TypeKind::BigInt => ArrowType::Int64,
        TypeKind::Float => ArrowType::Float32,
        TypeKind::Double => ArrowType::Float64,
        TypeKind::Decimal { precision, scale } => {
            if *precision == 0 || *precision > 38 || scale > precision {
                return Err(ErrorDetail::Unsupported(format!(
                    "DECIMAL({precision}, {scale}): precision must be 1..=38 and scale <= precision"
                ))
                .into());
            }
            ArrowType::Decimal128(*precision as u8, *scale as i8)
        }
        TypeKind::Char(_) | TypeKind::VarChar(_) => ArrowType::Utf8,
        TypeKind::Binary(_) | TypeKind::VarBinary(_) | TypeKind::Blob => ArrowType::Binary,
        TypeKind::Date => ArrowType::Date32,
        TypeKind::Time(_) => ArrowType::Time32(TimeUnit::Millisecond),
        TypeKind::Timestamp(p) => ArrowType::Timestamp(timestamp_unit(*p), None),
        TypeKind::LocalZonedTimestamp(p) => {
            ArrowType::Timestamp(timestamp_unit(*p), Some(LTZ_TIME_ZONE.into()))
        }
        TypeKind::Array(element) => {
            let id = child_ids.map(|i| array_element_field_id(i.parent_id, i.depth));
            let f = Field::new(
                LIST_ELEMENT_NAME,
                arrow_type(element, child_ids)?,
                element.nullable,
            );
            ArrowType::List(Arc::new(with_field_meta(f, id, element)))
        }
        TypeKind::Map { key, value } => map_type(key, value, child_ids)?,
        TypeKind::Multiset(element) => {
            let count = DataType::not_null(TypeKind::Int);
            map_type(element, &count, child_ids)?
        }
        TypeKind::Row(fields) => {
            if fields.is_empty() {
                return Err(ErrorDetail::Unsupported(
                    "ROW without fields cannot be stored in Parquet".into(),
                )
                .into());
            }
            let children = fields
                .iter()
                .map(|f| to_arrow_field(f).map(Arc::new))
                .collect::<Result<Vec<FieldRef>>>()?;
            ArrowType::Struct(Fields::from(children))
        }
        TypeKind::Variant => {
            let value = with_id(Field::new("value", ArrowType::Binary, false), Some(0));
            let metadata = with_id(Field::new("metadata", ArrowType::Binary, false), Some(1));
            ArrowType::Struct(Fields::from(vec![value, metadata]))
        }
    })
}

/// MAP/MULTISET: `key_value` entries with a NOT NULL key (Parquet map keys are required; Java
/// forces them NOT NULL) and the value's own nullability.
fn map_type(key: &DataType, value: &DataType, ids: Option<NestedIds>) -> Result<ArrowType> {
    let key = key.with_nullable(false);
    let key_id = ids.map(|i| map_key_field_id(i.parent_id, i.depth));
    let value_id = ids.map(|i| map_value_field_id(i.parent_id, i.depth));
    let key_field = with_field_meta(
        Field::new(MAP_KEY_NAME, arrow_type(&key, ids)?, false),
        key_id,
        &key,
    );
    let value_field = with_field_meta(
        Field::new(MAP_VALUE_NAME, arrow_type(value, ids)?, value.nullable),
        value_id,
        value,
    );
    let entries = Field::new(
        MAP_ENTRIES_NAME,
        ArrowType::Struct(Fields::from(vec![key_field, value_field])),
        false,
    );
    Ok(ArrowType::Map(Arc::new(entries), false))
}

fn with_id(field: Field, id: Option<i32>) -> Field {
    match id {
        Some(id) => {
            let mut meta = field.metadata().clone();
            meta.insert(PARQUET_FIELD_ID_META_KEY.to_string(), id.to_string());
            field.with_metadata(meta)
        }
        None => field,
    }
}

/// Field id plus the TIME marker that makes arrow-rs write `isAdjustedToUTC = true` like Java.
fn with_field_meta(field: Field, id: Option<i32>, data_type: &DataType) -> Field {
    let field = with_id(field, id);
    if matches!(data_type.kind, TypeKind::Time(_)) {
        let mut meta = field.metadata().clone();
        meta.insert(TIME_ADJUSTED_TO_UTC_KEY.to_string(), "true".to_string());
        field.with_metadata(meta)
    } else {
        field
    }
}

/// The Paimon field id stored in an Arrow field's metadata, if any.
pub(crate) fn field_id_of(field: &Field) -> Option<i32> {
    field
        .metadata()
        .get(PARQUET_FIELD_ID_META_KEY)
        .and_then(|v| v.parse().ok())
}

/// Infers the Paimon type of an Arrow type (for creating tables from Arrow data and validating
/// input). The result is nullable; nested element/field nullability comes from the Arrow
/// fields. ROW children take their id from `PARQUET:field_id` metadata or their position.
pub fn from_arrow_type(arrow: &ArrowType) -> Result<DataType> {
    let unsupported = || {
        Error::from(ErrorDetail::Unsupported(format!(
            "Arrow type {arrow} has no Paimon equivalent"
        )))
    };
    let kind = match arrow {
        ArrowType::Boolean => TypeKind::Boolean,
        ArrowType::Int8 => TypeKind::TinyInt,
        ArrowType::Int16 | ArrowType::UInt8 => TypeKind::SmallInt,
        ArrowType::Int32 | ArrowType::UInt16 => TypeKind::Int,
        ArrowType::Int64 | ArrowType::UInt32 => TypeKind::BigInt,
        ArrowType::Float16 | ArrowType::Float32 => TypeKind::Float,
        ArrowType::Float64 => TypeKind::Double,
        ArrowType::Decimal32(p, s)
        | ArrowType::Decimal64(p, s)
        | ArrowType::Decimal128(p, s)
        | ArrowType::Decimal256(p, s) => {
            if *p == 0 || *p > 38 || *s < 0 || (*s as u8) > *p {
                return Err(ErrorDetail::Unsupported(format!(
                    "Arrow {arrow}: Paimon DECIMAL needs precision 1..=38 and 0 <= scale <= precision"
                )).into());
            }
            TypeKind::Decimal {
                precision: *p as u32,
                scale: *s as u32,
            }
        }
        ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View => {
            TypeKind::VarChar(MAX_LENGTH)
        }
        ArrowType::Binary | ArrowType::LargeBinary | ArrowType::BinaryView => {
            TypeKind::VarBinary(MAX_LENGTH)
        }
        ArrowType::FixedSizeBinary(n) if *n > 0 => TypeKind::Binary(*n as u32),
        ArrowType::Date32 | ArrowType::Date64 => TypeKind::Date,
        ArrowType::Time32(TimeUnit::Second) => TypeKind::Time(0),
        ArrowType::Time32(_) => TypeKind::Time(3),
        ArrowType::Time64(TimeUnit::Microsecond) => TypeKind::Time(6),
        ArrowType::Time64(_) => TypeKind::Time(9),
        ArrowType::Timestamp(unit, tz) => {
            let p = match unit {
                TimeUnit::Second => 0,
                TimeUnit::Millisecond => 3,
                TimeUnit::Microsecond => 6,
                TimeUnit::Nanosecond => 9,
            };
            if tz.is_some() {
                TypeKind::LocalZonedTimestamp(p)
            } else {
                TypeKind::Timestamp(p)
            }
        }
        ArrowType::List(f)
        | ArrowType::LargeList(f)
        | ArrowType::ListView(f)
        | ArrowType::LargeListView(f)
        | ArrowType::FixedSizeList(f, _) => TypeKind::Array(Box::new(nested_type(f)?)),
        ArrowType::Map(entries, _) => match entries.data_type() {
            ArrowType::Struct(kv) if kv.len() == 2 => TypeKind::Map {
                key: Box::new(nested_type(&kv[0])?),
                value: Box::new(nested_type(&kv[1])?),
            },
            _ => return Err(unsupported()),
        },
        ArrowType::Struct(fields) => {
            if fields.is_empty() {
                return Err(unsupported());
            }
            let children = fields
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let id = field_id_of(f).unwrap_or(i as i32);
                    Ok(DataField::new(id, f.name().clone(), nested_type(f)?))
                })
                .collect::<Result<Vec<_>>>()?;
            TypeKind::Row(children)
        }
        ArrowType::Dictionary(_, value) => return from_arrow_type(value),
        ArrowType::RunEndEncoded(_, value) => return from_arrow_type(value.data_type()),
        _ => return Err(unsupported()),
    };
    Ok(DataType::nullable(kind))
}

fn nested_type(field: &Field) -> Result<DataType> {
    Ok(from_arrow_type(field.data_type())?.with_nullable(field.is_nullable()))
}

/// Infers a Paimon row type from an Arrow schema. Field ids come from `PARQUET:field_id`
/// metadata when every field has one, else they are assigned 0, 1, 2... in order.
pub fn from_arrow_schema(schema: &Schema) -> Result<RowType> {
    let all_have_ids = schema.fields().iter().all(|f| field_id_of(f).is_some());
    let fields = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let id = if all_have_ids {
                field_id_of(f).unwrap_or(i as i32)
            } else {
                i as i32
            };
            let data_type = nested_type(f).map_err(|e| {
                e.map_detail(|d| match d {
                    ErrorDetail::Unsupported(m) => {
                        ErrorDetail::Unsupported(format!("column {}: {m}", f.name()))
                    }
                    other => other,
                })
            })?;
            Ok(DataField::new(id, f.name().clone(), data_type))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(RowType::new(fields))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta_id(f: &Field) -> Option<i32> {
        field_id_of(f)
    }

    #[test]
    fn java_structured_ids() {
        // Example from SpecialFields' javadoc: ARRAY(MAP(INT, ARRAY(INT))) with id 10.
        let inner =
            DataType::nullable(TypeKind::Array(Box::new(DataType::nullable(TypeKind::Int))));
        let map = DataType::nullable(TypeKind::Map {
            key: Box::new(DataType::nullable(TypeKind::Int)),
            value: Box::new(inner),
        });
        let outer = DataField::new(10, "a", DataType::nullable(TypeKind::Array(Box::new(map))));
        let f = to_arrow_field(&outer).unwrap();
        assert_eq!(meta_id(&f), Some(10));
        let ArrowType::List(m) = f.data_type() else {
            panic!("list expected")
        };
        assert_eq!(m.name(), "element");
        assert_eq!(meta_id(m), Some(536870911 + 1024 * 10 + 1));
        let ArrowType::Map(entries, false) = m.data_type() else {
            panic!("map expected")
        };
        assert_eq!(entries.name(), "key_value");
        let ArrowType::Struct(kv) = entries.data_type() else {
            panic!("struct expected")
        };
        assert_eq!(kv[0].name(), "key");
        assert!(!kv[0].is_nullable(), "map keys are forced NOT NULL");
        assert_eq!(meta_id(&kv[0]), Some(536870911 - 1024 * 10 - 2));
        assert_eq!(meta_id(&kv[1]), Some(536870911 + 1024 * 10 + 2));
        let ArrowType::List(e) = kv[1].data_type() else {
            panic!("list expected")
        };
        assert_eq!(meta_id(e), Some(536870911 + 1024 * 10 + 3));
    }

    #[test]
    fn atomic_mapping() {
        let cases = [
            (TypeKind::TinyInt, ArrowType::Int8),
            (
                TypeKind::Decimal {
                    precision: 38,
                    scale: 10,
                },
                ArrowType::Decimal128(38, 10),
            ),
            (
                TypeKind::Timestamp(3),
                ArrowType::Timestamp(TimeUnit::Millisecond, None),
            ),
            (
                TypeKind::Timestamp(6),
                ArrowType::Timestamp(TimeUnit::Microsecond, None),
            ),
            (
                TypeKind::Timestamp(9),
                ArrowType::Timestamp(TimeUnit::Nanosecond, None),
            ),
            (
                TypeKind::LocalZonedTimestamp(6),
                ArrowType::Timestamp(TimeUnit::Microsecond, Some("+00:00".into())),
            ),
            (TypeKind::Time(0), ArrowType::Time32(TimeUnit::Millisecond)),
            (TypeKind::Binary(4), ArrowType::Binary),
            (TypeKind::Char(3), ArrowType::Utf8),
        ];
        for (kind, arrow) in cases {
            assert_eq!(to_arrow_type(&DataType::nullable(kind)).unwrap(), arrow);
        }
    }

    #[test]
    fn round_trip_through_arrow() {
        let row = RowType::new(vec![
            DataField::new(0, "a", DataType::not_null(TypeKind::Int)),
            DataField::new(1, "s", DataType::string()),
            DataField::new(
                2,
                "r",
                DataType::nullable(TypeKind::Row(vec![
                    DataField::new(5, "x", DataType::nullable(TypeKind::BigInt)),
                    DataField::new(6, "y", DataType::nullable(TypeKind::LocalZonedTimestamp(6))),
                ])),
            ),
            DataField::new(
                3,
                "m",
                DataType::nullable(TypeKind::Map {
                    key: Box::new(DataType::not_null(TypeKind::VarChar(MAX_LENGTH))),
                    value: Box::new(DataType::nullable(TypeKind::Decimal {
                        precision: 10,
                        scale: 2,
                    })),
                }),
            ),
        ]);
        let schema = to_arrow_schema(&row).unwrap();
        let back = from_arrow_schema(&schema).unwrap();
        assert_eq!(back, row);
    }

    #[test]
    fn unsupported_types_are_errors() {
        assert!(from_arrow_type(&ArrowType::UInt64).is_err());
        assert!(to_arrow_type(&DataType::nullable(TypeKind::Row(vec![]))).is_err());
    }
}
