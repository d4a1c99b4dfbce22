//! [`TableSchema`] (one `schema/schema-N` file, read and written as Java's `SchemaSerializer`
//! does) and the create-table input [`Schema`]: the values, below `create` and `change`, which
//! build them.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::error::{Result, SpecError};
use crate::json::to_jackson_pretty;
use crate::options::{self, CoreOptions};
use crate::types::json::{field_to_json, json_kind, parse_field_with, FieldIds};
use crate::types::{DataField, DataType, RowType, TypeKind};

/// Schema format version written by current Java writers (and by strata).
pub const CURRENT_VERSION: i32 = 3;
/// Schema version of Paimon 0.7 (old `bucket` default 1).
pub const PAIMON_07_VERSION: i32 = 1;
/// Schema version of Paimon 0.8 (old `file.format` default `orc`).
pub const PAIMON_08_VERSION: i32 = 2;
/// Field ids from here on are system fields (`_KEY_*`, `_SEQUENCE_NUMBER`, …) and do not count
/// towards `highestFieldId` (`SpecialFields.SYSTEM_FIELD_ID_START`).
pub const SYSTEM_FIELD_ID_START: i32 = i32::MAX / 2;

/// One `schema/schema-N` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSchema {
    /// Format version ([`CURRENT_VERSION`] for new schemas).
    pub version: i32,
    /// Schema id = N of the file name.
    pub id: i64,
    /// Top-level columns in order.
    pub fields: Vec<DataField>,
    /// Highest field id ever used (including nested fields; −1 when there are none).
    pub highest_field_id: i32,
    pub partition_keys: Vec<String>,
    pub primary_keys: Vec<String>,
    /// All table options (values are always strings).
    pub options: BTreeMap<String, String>,
    pub comment: Option<String>,
    /// Creation time, epoch milliseconds.
    pub time_millis: i64,
}

/// The create-table input: columns (ids optional), keys, options, comment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schema {
    /// Columns; a field id of [`crate::types::json::UNASSIGNED_FIELD_ID`] (−1) means "not
    /// assigned yet": ids are then assigned at creation (all or none may be assigned).
    pub fields: Vec<DataField>,
    pub partition_keys: Vec<String>,
    pub primary_keys: Vec<String>,
    pub options: BTreeMap<String, String>,
    pub comment: Option<String>,
}

impl TableSchema {
    /// Parses a schema file, applying Java's compatibility rules (see the module docs).
    pub fn from_json(text: &str) -> Result<TableSchema> {
        let root: Value = serde_json::from_str(text).map_err(|source| SpecError::Json {
            context: "table schema".to_string(),
            source,
        })?;
        let obj = object(&root, "table schema")?;
        let version = match obj.get("version") {
            None | Some(Value::Null) => PAIMON_07_VERSION,
            Some(v) => int32_member(v, "version")?,
        };
        let id = int_member(required(obj, "id")?, "id")?;
        let fields = parse_fields_member(obj, FieldIds::sequential())?;
        let highest_field_id = match obj.get("highestFieldId") {
            None | Some(Value::Null) => highest_user_field_id(&fields),
            Some(v) => int32_member(v, "highestFieldId")?,
        };
        let partition_keys = string_list(obj, "partitionKeys")?;
        let primary_keys = string_list(obj, "primaryKeys")?;
        let mut options = string_map(obj, "options")?;
        if version <= PAIMON_07_VERSION && !options.contains_key(options::BUCKET) {
            options.insert(options::BUCKET.to_string(), "1".to_string());
        }
        if version <= PAIMON_08_VERSION && !options.contains_key(options::FILE_FORMAT) {
            options.insert(options::FILE_FORMAT.to_string(), "orc".to_string());
        }
        let comment = optional_string(obj, "comment")?;
        let time_millis = match obj.get("timeMillis") {
            None | Some(Value::Null) => 0,
            Some(v) => int_member(v, "timeMillis")?,
        };
        check_columns(&fields, &partition_keys, &primary_keys)?;
        Ok(TableSchema {
            version,
            id,
            fields,
            highest_field_id,
            partition_keys,
            primary_keys,
            options,
            comment,
            time_millis,
        })
    }

    /// The file content as Java writes it (Jackson pretty printer, no trailing newline).
    pub fn to_json(&self) -> Result<String> {
        let mut m = Map::new();
        m.insert("version".into(), Value::from(self.version));
        m.insert("id".into(), Value::from(self.id));
        m.insert(
            "fields".into(),
            Value::Array(self.fields.iter().map(field_to_json).collect()),
        );
        m.insert("highestFieldId".into(), Value::from(self.highest_field_id));
        m.insert("partitionKeys".into(), string_array(&self.partition_keys));
        m.insert("primaryKeys".into(), string_array(&self.primary_keys));
        m.insert(
            "options".into(),
            Value::Object(
                self.options
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                    .collect(),
            ),
        );
        if let Some(c) = &self.comment {
            m.insert("comment".into(), Value::String(c.clone()));
        }
        m.insert("timeMillis".into(), Value::from(self.time_millis));
        to_jackson_pretty(&Value::Object(m))
    }

    /// All columns as a row type.
    pub fn row_type(&self) -> RowType {
        RowType::new(self.fields.clone())
    }

    /// The partition columns, in partition-key order.
    pub fn partition_type(&self) -> RowType {
        self.project(&self.partition_keys)
    }

    /// The primary-key columns, in primary-key order.
    pub fn primary_key_type(&self) -> RowType {
        self.project(&self.primary_keys)
    }

    /// The trimmed primary-key columns (primary key minus partition keys).
    pub fn trimmed_primary_key_type(&self) -> RowType {
        self.project(&self.trimmed_primary_keys())
    }

    /// The bucket-key columns (see [`TableSchema::bucket_keys`]).
    pub fn bucket_key_type(&self) -> RowType {
        self.project(&self.bucket_keys())
    }

    /// Columns named by `names` that exist, in that order (Java's `projectedLogicalRowType`).
    fn project(&self, names: &[String]) -> RowType {
        RowType::new(
            names
                .iter()
                .filter_map(|n| self.field(n).cloned())
                .collect(),
        )
    }

    /// Primary keys without the partition keys (the physical key of a PK table).
    pub fn trimmed_primary_keys(&self) -> Vec<String> {
        self.primary_keys
            .iter()
            .filter(|k| !self.partition_keys.contains(k))
            .cloned()
            .collect()
    }

    /// `bucket-key` (split on `,`), else the trimmed primary keys, else empty (an append
    /// table without `bucket-key` hashes the whole row).
    pub fn bucket_keys(&self) -> Vec<String> {
        self.options()
            .bucket_key()
            .unwrap_or_else(|| self.trimmed_primary_keys())
    }

    pub fn is_primary_key_table(&self) -> bool {
        !self.primary_keys.is_empty()
    }

    /// True when the primary key does not contain all partition keys (an update may move a
    /// key across partitions).
    pub fn cross_partition_update(&self) -> bool {
        !self.primary_keys.is_empty()
            && !self.partition_keys.is_empty()
            && !self
                .partition_keys
                .iter()
                .all(|p| self.primary_keys.contains(p))
    }

    /// The top-level column called `name`.
    pub fn field(&self, name: &str) -> Option<&DataField> {
        self.fields.iter().find(|f| f.name == name)
    }

    pub fn field_names(&self) -> Vec<String> {
        self.fields.iter().map(|f| f.name.clone()).collect()
    }

    /// Typed view over the options.
    pub fn options(&self) -> CoreOptions {
        CoreOptions::new(self.options.clone())
    }
}

impl Schema {
    /// A schema with the given columns and nothing else.
    pub fn new(fields: Vec<DataField>) -> Schema {
        Schema {
            fields,
            ..Schema::default()
        }
    }

    /// Parses the create-table JSON: the shape of a schema file (`fields` with `name`, `type`
    /// and optional `id` / `description` / `defaultValue`; `partitionKeys`, `primaryKeys`,
    /// `options`, `comment`). Other members (`version`, `id`, `highestFieldId`, `timeMillis`)
    /// are ignored. Missing field ids stay unassigned until [`TableSchema::create`].
    pub fn from_json(text: &str) -> Result<Schema> {
        let root: Value = serde_json::from_str(text).map_err(|source| SpecError::Json {
            context: "schema".to_string(),
            source,
        })?;
        let obj = object(&root, "schema")?;
        Ok(Schema {
            fields: parse_fields_member(obj, FieldIds::unassigned())?,
            partition_keys: string_list(obj, "partitionKeys")?,
            primary_keys: string_list(obj, "primaryKeys")?,
            options: string_map(obj, "options")?,
            comment: optional_string(obj, "comment")?,
        })
    }
}

/// Highest field id among `fields` and their nested fields, ignoring system ids; −1 if none.
pub fn highest_user_field_id(fields: &[DataField]) -> i32 {
    fn walk(t: &DataType, max: &mut i32) {
        match &t.kind {
            TypeKind::Array(e) | TypeKind::Multiset(e) => walk(e, max),
            TypeKind::Map { key, value } => {
                walk(key, max);
                walk(value, max);
            }
            TypeKind::Row(fs) => visit(fs, max),
            _ => {}
        }
    }
    fn visit(fs: &[DataField], max: &mut i32) {
        for f in fs {
            if f.id < SYSTEM_FIELD_ID_START {
                *max = (*max).max(f.id);
            }
            walk(&f.data_type, max);
        }
    }
    let mut max = -1;
    visit(fields, &mut max);
    max
}

// ---- JSON member helpers -----------------------------------------------------------------

fn object<'a>(v: &'a Value, context: &str) -> Result<&'a Map<String, Value>> {
    v.as_object().ok_or_else(|| {
        SpecError::invalid(
            context,
            format!("expected a JSON object, found {}", json_kind(v)),
        )
    })
}

fn required<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<&'a Value> {
    obj.get(key)
        .filter(|v| !v.is_null())
        .ok_or_else(|| SpecError::invalid("table schema", format!("missing `{key}`")))
}

fn int_member(v: &Value, key: &str) -> Result<i64> {
    v.as_i64().ok_or_else(|| {
        SpecError::invalid(
            "table schema",
            format!("`{key}` must be an integer, found {v}"),
        )
    })
}

/// Top-level names are unique and every partition and primary key names a column: Java fails
/// on such a schema when it projects the key types; here the schema file itself is rejected,
/// rather than keys silently dropped from the partition or key type.
fn check_columns(
    fields: &[DataField],
    partition_keys: &[String],
    primary_keys: &[String],
) -> Result<()> {
    let mut seen = std::collections::HashSet::with_capacity(fields.len());
    for f in fields {
        if !seen.insert(f.name.as_str()) {
            return Err(SpecError::invalid(
                "table schema",
                format!("column `{}` appears twice", f.name),
            ));
        }
    }
    for (what, keys) in [
        ("partition key", partition_keys),
        ("primary key", primary_keys),
    ] {
        if let Some(k) = keys.iter().find(|k| !seen.contains(k.as_str())) {
            return Err(SpecError::invalid(
                "table schema",
                format!("{what} `{k}` is not a column"),
            ));
        }
    }
    Ok(())
}

/// An `int` member: out-of-range values are errors, not silently truncated.
fn int32_member(v: &Value, key: &str) -> Result<i32> {
    let n = int_member(v, key)?;
    i32::try_from(n).map_err(|_| {
        SpecError::invalid(
            "table schema",
            format!("`{key}` must be a 32-bit integer, found {n}"),
        )
    })
}

fn parse_fields_member(obj: &Map<String, Value>, mut ids: FieldIds) -> Result<Vec<DataField>> {
    match obj.get("fields") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|f| parse_field_with(f, &mut ids))
            .collect(),
        None | Some(Value::Null) => Err(SpecError::invalid("schema", "missing `fields`")),
        Some(other) => Err(SpecError::invalid(
            "schema",
            format!("`fields` must be an array, found {}", json_kind(other)),
        )),
    }
}

fn string_list(obj: &Map<String, Value>, key: &str) -> Result<Vec<String>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(SpecError::invalid(
                    "schema",
                    format!("`{key}` must hold strings, found {}", json_kind(other)),
                )),
            })
            .collect(),
        Some(other) => Err(SpecError::invalid(
            "schema",
            format!("`{key}` must be an array, found {}", json_kind(other)),
        )),
    }
}

fn string_map(obj: &Map<String, Value>, key: &str) -> Result<BTreeMap<String, String>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                let text = match v {
                    Value::String(s) => s.clone(),
                    // Java reads values with asText(); a CLI user may write numbers/booleans.
                    Value::Number(_) | Value::Bool(_) => v.to_string(),
                    other => {
                        return Err(SpecError::invalid(
                            format!("option `{k}`"),
                            format!("value must be a string, found {}", json_kind(other)),
                        ))
                    }
                };
                Ok((k.clone(), text))
            })
            .collect(),
        Some(other) => Err(SpecError::invalid(
            "schema",
            format!("`{key}` must be an object, found {}", json_kind(other)),
        )),
    }
}

fn optional_string(obj: &Map<String, Value>, key: &str) -> Result<Option<String>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(SpecError::invalid(
            "schema",
            format!("`{key}` must be a string, found {}", json_kind(other)),
        )),
    }
}

fn string_array(items: &[String]) -> Value {
    Value::Array(items.iter().map(|s| Value::String(s.clone())).collect())
}
