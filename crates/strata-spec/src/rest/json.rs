//! JSON of the create-table [`Schema`] and of [`SchemaChange`] as the REST protocol carries
//! them, with serde adapters (`#[serde(with = "…")]`) for the request / response types.
//!
//! Hand-written because both types are plain values in this crate (their schema-file JSON is
//! written by `crate::types::json`, Jackson's exact shapes): `Schema` is Java's
//! `org.apache.paimon.schema.Schema` (`fields`, `partitionKeys`, `primaryKeys`, `options`,
//! `comment` only when set); `SchemaChange` is Java's `SchemaChange` with
//! `@JsonTypeInfo(property = "action")` and the sub-type names of `SchemaChange.Actions`
//! (`setOption`, `addColumn`, …; `move` is `{fieldName, referenceFieldName, type}` with
//! `FIRST|AFTER|BEFORE|LAST`). `dropPrimaryKey`, which strata does not implement, is refused
//! by name.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::schema::{ColumnMove, MoveType, Schema, SchemaChange};
use crate::types::json::{field_to_json, parse_type, type_to_json};

/// The REST JSON of a create-table schema (Java's `Schema`).
pub fn schema_to_json(schema: &Schema) -> Value {
    let mut m = Map::new();
    m.insert(
        "fields".into(),
        Value::Array(schema.fields.iter().map(field_to_json).collect()),
    );
    m.insert("partitionKeys".into(), strings(&schema.partition_keys));
    m.insert("primaryKeys".into(), strings(&schema.primary_keys));
    m.insert(
        "options".into(),
        Value::Object(
            schema
                .options
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect(),
        ),
    );
    if let Some(c) = &schema.comment {
        m.insert("comment".into(), Value::String(c.clone()));
    }
    Value::Object(m)
}

/// Parses the REST JSON of a schema (see [`Schema::from_json`]).
pub fn schema_from_json(value: &Value) -> crate::Result<Schema> {
    Schema::from_json(&value.to_string())
}

fn strings(values: &[String]) -> Value {
    Value::Array(values.iter().map(|s| Value::String(s.clone())).collect())
}

fn move_to_json(m: &ColumnMove) -> Value {
    let mut o = Map::new();
    o.insert("fieldName".into(), Value::String(m.field_name.clone()));
    o.insert(
        "referenceFieldName".into(),
        m.reference_field_name
            .clone()
            .map_or(Value::Null, Value::String),
    );
    let t = match m.move_type {
        MoveType::First => "FIRST",
        MoveType::After => "AFTER",
        MoveType::Before => "BEFORE",
        MoveType::Last => "LAST",
    };
    o.insert("type".into(), Value::String(t.into()));
    Value::Object(o)
}

/// The REST JSON of one schema change (Java's `SchemaChange` with its `action`).
pub fn schema_change_to_json(change: &SchemaChange) -> Value {
    let mut o = Map::new();
    let mut put = |k: &str, v: Value| {
        o.insert(k.to_string(), v);
    };
    let action = match change {
        SchemaChange::SetOption { key, value } => {
            put("key", Value::String(key.clone()));
            put("value", Value::String(value.clone()));
            "setOption"
        }
        SchemaChange::RemoveOption { key } => {
            put("key", Value::String(key.clone()));
            "removeOption"
        }
        SchemaChange::UpdateComment { comment } => {
            put(
                "comment",
                comment.clone().map_or(Value::Null, Value::String),
            );
            "updateComment"
        }
        SchemaChange::AddColumn {
            field_names,
            data_type,
            comment,
            position,
        } => {
            put("fieldNames", strings(field_names));
            put("dataType", type_to_json(data_type));
            if let Some(c) = comment {
                put("comment", Value::String(c.clone()));
            }
            if let Some(p) = position {
                put("move", move_to_json(p));
            }
            "addColumn"
        }
        SchemaChange::RenameColumn {
            field_names,
            new_name,
        } => {
            put("fieldNames", strings(field_names));
            put("newName", Value::String(new_name.clone()));
            "renameColumn"
        }
        SchemaChange::DropColumn { field_names } => {
            put("fieldNames", strings(field_names));
            "dropColumn"
        }
        SchemaChange::UpdateColumnType {
            field_names,
            new_data_type,
            keep_nullability,
        } => {
            put("fieldNames", strings(field_names));
            put("newDataType", type_to_json(new_data_type));
            put("keepNullability", Value::Bool(*keep_nullability));
            "updateColumnType"
        }
        SchemaChange::UpdateColumnNullability {
            field_names,
            new_nullability,
        } => {
            put("fieldNames", strings(field_names));
            put("newNullability", Value::Bool(*new_nullability));
            "updateColumnNullability"
        }
        SchemaChange::UpdateColumnComment {
            field_names,
            new_comment,
        } => {
            put("fieldNames", strings(field_names));
            put(
                "newComment",
                new_comment.clone().map_or(Value::Null, Value::String),
            );
            "updateColumnComment"
        }
        SchemaChange::UpdateColumnPosition { position } => {
            put("move", move_to_json(position));
            "updateColumnPosition"
        }
        SchemaChange::UpdateColumnDefaultValue {
            field_names,
            new_default_value,
        } => {
            put("fieldNames", strings(field_names));
            put(
                "newDefaultValue",
                new_default_value.clone().map_or(Value::Null, Value::String),
            );
            "updateColumnDefaultValue"
        }
    };
    let mut out = Map::new();
    out.insert("action".into(), Value::String(action.into()));
    out.extend(o);
    Value::Object(out)
}

fn bad(message: impl Into<String>) -> crate::SpecError {
    crate::SpecError::invalid("schema change", message)
}

fn member<'a>(o: &'a Map<String, Value>, key: &str) -> crate::Result<&'a Value> {
    match o.get(key) {
        None | Some(Value::Null) => Err(bad(format!("missing member `{key}`"))),
        Some(v) => Ok(v),
    }
}

fn string(o: &Map<String, Value>, key: &str) -> crate::Result<String> {
    member(o, key)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| bad(format!("`{key}` must be a string")))
}

fn opt_string(o: &Map<String, Value>, key: &str) -> crate::Result<Option<String>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(bad(format!("`{key}` must be a string"))),
    }
}

fn boolean(o: &Map<String, Value>, key: &str) -> crate::Result<bool> {
    member(o, key)?
        .as_bool()
        .ok_or_else(|| bad(format!("`{key}` must be a boolean")))
}

fn names(o: &Map<String, Value>) -> crate::Result<Vec<String>> {
    let arr = member(o, "fieldNames")?
        .as_array()
        .ok_or_else(|| bad("`fieldNames` must be an array of strings"))?;
    let names = arr
        .iter()
        .map(|v| {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| bad("`fieldNames` must be an array of strings"))
        })
        .collect::<crate::Result<Vec<_>>>()?;
    if names.is_empty() {
        return Err(bad("`fieldNames` must not be empty"));
    }
    Ok(names)
}

fn move_from_json(v: &Value) -> crate::Result<ColumnMove> {
    let o = v
        .as_object()
        .ok_or_else(|| bad("`move` must be an object"))?;
    let move_type = match string(o, "type")?.as_str() {
        "FIRST" => MoveType::First,
        "AFTER" => MoveType::After,
        "BEFORE" => MoveType::Before,
        "LAST" => MoveType::Last,
        other => return Err(bad(format!("unknown move type `{other}`"))),
    };
    Ok(ColumnMove {
        field_name: string(o, "fieldName")?,
        reference_field_name: opt_string(o, "referenceFieldName")?,
        move_type,
    })
}

/// Parses one schema change from its REST JSON.
pub fn schema_change_from_json(value: &Value) -> crate::Result<SchemaChange> {
    let o = value
        .as_object()
        .ok_or_else(|| bad("a schema change must be an object"))?;
    let action = string(o, "action")?;
    Ok(match action.as_str() {
        "setOption" => SchemaChange::SetOption {
            key: string(o, "key")?,
            value: string(o, "value")?,
        },
        "removeOption" => SchemaChange::RemoveOption {
            key: string(o, "key")?,
        },
        "updateComment" => SchemaChange::UpdateComment {
            comment: opt_string(o, "comment")?,
        },
        "addColumn" => SchemaChange::AddColumn {
            field_names: names(o)?,
            data_type: parse_type(member(o, "dataType")?)?,
            comment: opt_string(o, "comment")?,
            position: match o.get("move") {
                None | Some(Value::Null) => None,
                Some(m) => Some(move_from_json(m)?),
            },
        },
        "renameColumn" => SchemaChange::RenameColumn {
            field_names: names(o)?,
            new_name: string(o, "newName")?,
        },
        "dropColumn" => SchemaChange::DropColumn {
            field_names: names(o)?,
        },
        "updateColumnType" => SchemaChange::UpdateColumnType {
            field_names: names(o)?,
            new_data_type: parse_type(member(o, "newDataType")?)?,
            keep_nullability: match o.get("keepNullability") {
                None | Some(Value::Null) => false,
                Some(_) => boolean(o, "keepNullability")?,
            },
        },
        "updateColumnNullability" => SchemaChange::UpdateColumnNullability {
            field_names: names(o)?,
            new_nullability: boolean(o, "newNullability")?,
        },
        "updateColumnComment" => SchemaChange::UpdateColumnComment {
            field_names: names(o)?,
            new_comment: opt_string(o, "newComment")?,
        },
        "updateColumnDefaultValue" => SchemaChange::UpdateColumnDefaultValue {
            field_names: names(o)?,
            new_default_value: opt_string(o, "newDefaultValue")?,
        },
        "updateColumnPosition" => SchemaChange::UpdateColumnPosition {
            position: move_from_json(member(o, "move")?)?,
        },
        "dropPrimaryKey" => {
            return Err(crate::SpecError::Unsupported(
                "schema change `dropPrimaryKey` is not supported by strata".to_string(),
            ))
        }
        other => return Err(bad(format!("unknown schema change action `{other}`"))),
    })
}

/// `#[serde(with = "strata_spec::rest::json::schema")]` for a [`Schema`] member.
pub mod schema {
    use super::*;

    /// Writes [`schema_to_json`].
    pub fn serialize<S: Serializer>(schema: &Schema, s: S) -> Result<S::Ok, S::Error> {
        schema_to_json(schema).serialize(s)
    }

    /// Reads [`schema_from_json`].
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Schema, D::Error> {
        let v = Value::deserialize(d)?;
        schema_from_json(&v).map_err(D::Error::custom)
    }
}

/// `#[serde(with = "strata_spec::rest::json::schema_changes")]` for a `Vec<SchemaChange>`.
pub mod schema_changes {
    use super::*;

    /// Writes each [`schema_change_to_json`].
    pub fn serialize<S: Serializer>(changes: &[SchemaChange], s: S) -> Result<S::Ok, S::Error> {
        Value::Array(changes.iter().map(schema_change_to_json).collect()).serialize(s)
    }

    /// Reads each [`schema_change_from_json`].
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SchemaChange>, D::Error> {
        let v = Vec::<Value>::deserialize(d)?;
        v.iter()
            .map(schema_change_from_json)
            .collect::<crate::Result<Vec<_>>>()
            .map_err(D::Error::custom)
    }
}
