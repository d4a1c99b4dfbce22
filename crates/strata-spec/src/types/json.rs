//! The JSON form of Paimon data types and fields, as written in `schema/schema-N`
//! (Java `DataType.serializeJson`, `DataField.serializeJson`, `DataTypeJsonParser`).
//!
//! * An atomic type is a JSON string holding its SQL text, `" NOT NULL"` appended when not
//!   nullable: `"INT NOT NULL"`, `"DECIMAL(10, 2)"`, `"STRING"`,
//!   `"TIMESTAMP(3) WITH LOCAL TIME ZONE"`. The text grammar lives in [`sql`].
//! * ARRAY / MULTISET / MAP / ROW are objects whose `type` member is the keyword (plus
//!   `" NOT NULL"`), with `element`, `key`/`value` or `fields` members.
//! * A field is `{"id", "name", "type", "description"?, "defaultValue"?}`.
//!
//! Reading is lenient the way Java and pypaimon need it: pypaimon adds a `"nullable"` member to
//! complex types and writes MAP's `type` as `MAP<K, V>` text, so nullability is taken from
//! `"nullable"` when present, else from a trailing `NOT NULL`; unknown members are ignored.
//! Writing is exactly Java's form.
//!
//! Field ids: in a schema file every field carries its `id`. When *all* ids are missing, Java's
//! parser numbers fields 0, 1, 2, … in document order (a field before its nested children);
//! mixing present and missing ids is an error.

mod field_ids;
pub mod sql;
#[cfg(test)]
mod tests;

pub use field_ids::{FieldIds, UNASSIGNED_FIELD_ID};
pub use sql::parse_type_text;

pub use super::type_text::atomic_type_text;

use serde_json::{Map, Value};

use super::{DataField, DataType, TypeKind};
use crate::error::{Result, SpecError};

/// The schema-file JSON of a type, exactly as Java writes it.
pub fn type_to_json(t: &DataType) -> Value {
    let keyword = |k: &str| {
        Value::String(if t.nullable {
            k.to_string()
        } else {
            format!("{k} NOT NULL")
        })
    };
    match &t.kind {
        TypeKind::Array(e) | TypeKind::Multiset(e) => {
            let k = if matches!(t.kind, TypeKind::Array(_)) {
                "ARRAY"
            } else {
                "MULTISET"
            };
            let mut m = Map::new();
            m.insert("type".into(), keyword(k));
            m.insert("element".into(), type_to_json(e));
            Value::Object(m)
        }
        TypeKind::Map { key, value } => {
            let mut m = Map::new();
            m.insert("type".into(), keyword("MAP"));
            m.insert("key".into(), type_to_json(key));
            m.insert("value".into(), type_to_json(value));
            Value::Object(m)
        }
        TypeKind::Row(fields) => {
            let mut m = Map::new();
            m.insert("type".into(), keyword("ROW"));
            m.insert(
                "fields".into(),
                Value::Array(fields.iter().map(field_to_json).collect()),
            );
            Value::Object(m)
        }
        kind => keyword(&atomic_type_text(kind)),
    }
}

/// The schema-file JSON of a field: `id`, `name`, `type`, then `description` and
/// `defaultValue` only when set.
pub fn field_to_json(f: &DataField) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), Value::from(f.id));
    m.insert("name".into(), Value::String(f.name.clone()));
    m.insert("type".into(), type_to_json(&f.data_type));
    if let Some(d) = &f.description {
        m.insert("description".into(), Value::String(d.clone()));
    }
    if let Some(d) = &f.default_value {
        m.insert("defaultValue".into(), Value::String(d.clone()));
    }
    Value::Object(m)
}

/// Parses a type from its schema-file JSON (string or object). Nested ROW fields without ids
/// are numbered from 0 in document order, like Java's `DataTypeJsonParser.parseDataType`.
pub fn parse_type(value: &Value) -> Result<DataType> {
    parse_type_with(value, &mut FieldIds::sequential())
}

/// Parses one field object. A missing `id` becomes 0 (with nested fields numbered after it).
pub fn parse_field(value: &Value) -> Result<DataField> {
    parse_field_with(value, &mut FieldIds::sequential())
}

/// Parses a list of fields sharing one id sequence: ids must be all present or all missing,
/// and missing ids are numbered 0, 1, 2, … in document order.
pub fn parse_fields(values: &[Value]) -> Result<Vec<DataField>> {
    let mut ids = FieldIds::sequential();
    values
        .iter()
        .map(|v| parse_field_with(v, &mut ids))
        .collect()
}

/// [`parse_type`] with an explicit id policy.
pub fn parse_type_with(value: &Value, ids: &mut FieldIds) -> Result<DataType> {
    match value {
        Value::String(text) => sql::parse_type_text_with(text, ids),
        Value::Object(obj) => parse_type_object(obj, ids),
        other => Err(SpecError::invalid(
            "data type",
            format!(
                "expected a type string or object, found {}",
                json_kind(other)
            ),
        )),
    }
}

/// [`parse_field`] with an explicit id policy.
pub fn parse_field_with(value: &Value, ids: &mut FieldIds) -> Result<DataField> {
    let obj = value.as_object().ok_or_else(|| {
        SpecError::invalid(
            "data field",
            format!("expected an object, found {}", json_kind(value)),
        )
    })?;
    let name = match obj.get("name") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(SpecError::invalid(
                "data field",
                format!("`name` must be a string, found {}", json_kind(other)),
            ))
        }
        None => return Err(SpecError::invalid("data field", "missing `name`")),
    };
    let context = || format!("field `{name}`");
    let explicit = match obj.get("id") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_i64()
                .and_then(|i| i32::try_from(i).ok())
                .ok_or_else(|| {
                    SpecError::invalid(context(), format!("`id` must be an int, found {v}"))
                })?,
        ),
    };
    // The field takes its id before its nested children (Java parser order).
    let id = ids.take(explicit, &name)?;
    let type_json = obj
        .get("type")
        .ok_or_else(|| SpecError::invalid(context(), "missing `type`"))?;
    let data_type = parse_type_with(type_json, ids).map_err(|e| in_field(e, &name))?;
    let description = optional_text(obj, "description", &name)?;
    let default_value = optional_text(obj, "defaultValue", &name)?;
    Ok(DataField {
        id,
        name,
        data_type,
        description,
        default_value,
    })
}

fn parse_type_object(obj: &Map<String, Value>, ids: &mut FieldIds) -> Result<DataType> {
    let type_text = match obj.get("type") {
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err(SpecError::invalid(
                "data type",
                format!(
                    "the `type` member of a type object must be a string, found {}",
                    json_kind(other)
                ),
            ))
        }
        None => {
            return Err(SpecError::invalid(
                "data type",
                "type object without a `type` member",
            ))
        }
    };
    let context = || format!("data type `{type_text}`");
    let head = type_text.trim_start().to_ascii_uppercase();
    // pypaimon writes `"nullable"`; Java only a ` NOT NULL` suffix on `type`. pypaimon's MAP
    // `type` is `MAP<K, V>` text whose key may say NOT NULL, so only a *trailing* one counts.
    let nullable = match obj.get("nullable") {
        Some(Value::Bool(b)) => *b,
        Some(Value::Null) | None => !head.trim_end().ends_with("NOT NULL"),
        Some(other) => {
            return Err(SpecError::invalid(
                context(),
                format!("`nullable` must be a boolean, found {other}"),
            ))
        }
    };
    let member = |name: &str| {
        obj.get(name)
            .ok_or_else(|| SpecError::invalid(context(), format!("missing `{name}`")))
    };
    let kind = if head.starts_with("ARRAY") {
        TypeKind::Array(Box::new(parse_type_with(member("element")?, ids)?))
    } else if head.starts_with("MULTISET") {
        TypeKind::Multiset(Box::new(parse_type_with(member("element")?, ids)?))
    } else if head.starts_with("MAP") {
        let key = parse_type_with(member("key")?, ids)?;
        let value = parse_type_with(member("value")?, ids)?;
        TypeKind::Map {
            key: Box::new(key),
            value: Box::new(value),
        }
    } else if head.starts_with("ROW") {
        let fields = match member("fields")? {
            Value::Array(items) => items
                .iter()
                .map(|f| parse_field_with(f, ids))
                .collect::<Result<Vec<_>>>()?,
            other => {
                return Err(SpecError::invalid(
                    context(),
                    format!("`fields` must be an array, found {}", json_kind(other)),
                ))
            }
        };
        TypeKind::Row(fields)
    } else if head.starts_with("VECTOR") {
        return Err(SpecError::Unsupported(format!(
            "data type `{type_text}` (VECTOR columns are not supported)"
        )));
    } else {
        // pypaimon falls back to atomic text inside an object; accept it too.
        let t = sql::parse_type_text_with(type_text, ids)?;
        return Ok(match obj.get("nullable") {
            Some(Value::Bool(b)) => t.with_nullable(*b),
            _ => t,
        });
    };
    Ok(DataType::new(kind, nullable))
}

fn optional_text(obj: &Map<String, Value>, key: &str, field: &str) -> Result<Option<String>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v @ (Value::Number(_) | Value::Bool(_))) => Ok(Some(v.to_string())),
        Some(other) => Err(SpecError::invalid(
            format!("field `{field}`"),
            format!("`{key}` must be a string, found {}", json_kind(other)),
        )),
    }
}

/// Prefixes an error's context with the field it occurred in.
fn in_field(e: SpecError, field: &str) -> SpecError {
    match e {
        SpecError::Invalid { context, message } => SpecError::Invalid {
            context: format!("field `{field}`: {context}"),
            message,
        },
        SpecError::Unsupported(m) => SpecError::Unsupported(format!("field `{field}`: {m}")),
        other => other,
    }
}

pub(crate) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
