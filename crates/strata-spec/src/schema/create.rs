//! Creating the first schema of a table: Java's `Schema` normalisation, field-id assignment
//! (`Schema.Builder` + `ReassignFieldId`) and the checks of `SchemaValidation` that apply to
//! what strata writes.
//!
//! In order:
//! 1. the `primary-key` / `partition` options become the key lists (error if both given);
//! 2. column names must be non-blank and unique (also inside nested ROWs); system names
//!    (`_SEQUENCE_NUMBER`, `_VALUE_KIND`, `_LEVEL`, `rowkind`, `_ROW_ID`, `_KEY_*`) are
//!    reserved; partition and primary keys must be unique existing columns of a primitive
//!    type, and the primary key must not consist of partition keys only;
//! 3. primary-key columns are made NOT NULL (nullable with `primary-key.nullable=true`);
//! 4. field ids: kept when all are given (must be unique), assigned when none are;
//! 5. options are validated ([`crate::options::validate`]) together with the column-dependent
//!    rules: bucket keys, `fields.<col>.*` options, `sequence.field`, `rowkind.field`.

use std::collections::{BTreeSet, HashSet};

use super::table_schema::{highest_user_field_id, Schema, TableSchema, CURRENT_VERSION};
use crate::error::{Result, SpecError};
use crate::options::{self, CoreOptions, DYNAMIC_BUCKET, FIELDS_PREFIX, POSTPONE_BUCKET};
use crate::types::json::UNASSIGNED_FIELD_ID;
use crate::types::{DataField, DataType, TypeKind};

/// Column names Paimon reserves for its system columns.
const SYSTEM_FIELD_NAMES: &[&str] = &[
    "_SEQUENCE_NUMBER",
    "_VALUE_KIND",
    "_LEVEL",
    "rowkind",
    "_ROW_ID",
];
/// Prefix of the key columns of primary-key data files.
const KEY_FIELD_PREFIX: &str = "_KEY_";

fn schema_error(message: impl Into<String>) -> SpecError {
    SpecError::invalid("table schema", message)
}

pub(super) fn create(id: i64, schema: &Schema, time_millis: i64) -> Result<TableSchema> {
    let mut options = schema.options.clone();
    let partition_keys =
        keys_from_option(&schema.partition_keys, &mut options, options::PARTITION)?;
    let primary_keys = keys_from_option(&schema.primary_keys, &mut options, options::PRIMARY_KEY)?;

    if schema.fields.is_empty() {
        return Err(schema_error("a table needs at least one column"));
    }
    check_columns_and_keys(&schema.fields, &partition_keys, &primary_keys)?;

    let pk_nullable = CoreOptions::new(options.clone()).primary_key_nullable()?;
    let mut fields: Vec<DataField> = schema
        .fields
        .iter()
        .map(|f| {
            let mut f = f.clone();
            if primary_keys.contains(&f.name) {
                f.data_type = f.data_type.with_nullable(pk_nullable);
            }
            f
        })
        .collect();

    let (assigned, unassigned) = count_ids(&fields);
    if unassigned > 0 {
        if assigned > 0 {
            return Err(schema_error(
                "field ids must be given for all fields or for none (partial field ids)",
            ));
        }
        fields = assign_field_ids(&fields);
    } else {
        check_unique_ids(&fields)?;
    }

    let table = TableSchema {
        version: CURRENT_VERSION,
        id,
        highest_field_id: highest_user_field_id(&fields),
        fields,
        partition_keys,
        primary_keys,
        options,
        comment: schema.comment.clone(),
        time_millis,
    };
    options::validate(&table.options, table.is_primary_key_table())?;
    check_column_options(&table)?;
    // Java's CatalogUtils.validateTable; strata also refuses defaults it cannot write.
    crate::types::default_value::check_default_values(&table.fields, true)?;
    Ok(table)
}

/// Names (non-blank, unique, not reserved) and keys (existing, unique, primitive; the primary
/// key not only partition keys): Java's `Schema.normalizeFields`, `TableSchema` constructor and
/// the column checks of `SchemaValidation`.
fn check_columns_and_keys(
    fields: &[DataField],
    partition_keys: &[String],
    primary_keys: &[String],
) -> Result<()> {
    check_names(fields, "table")?;
    for f in fields {
        let name = f.name.as_str();
        if SYSTEM_FIELD_NAMES.contains(&name) || name.starts_with(KEY_FIELD_PREFIX) {
            return Err(schema_error(format!(
                "column name `{name}` is reserved for Paimon's system columns"
            )));
        }
    }
    check_key_columns(fields, partition_keys, "partition key")?;
    check_key_columns(fields, primary_keys, "primary key")?;
    if !primary_keys.is_empty() && primary_keys.iter().all(|k| partition_keys.contains(k)) {
        return Err(schema_error(format!(
            "primary key {primary_keys:?} must not be the same as the partition keys \
             {partition_keys:?}: that allows only one row per partition"
        )));
    }
    Ok(())
}

/// The checks [`create`] makes, on a complete schema (a schema produced by schema changes,
/// Java's `SchemaValidation.validateTableSchema` in `SchemaManager.generateTableSchema`).
/// Options for which `tolerated` returns true are left out of the option validation: keys
/// another writer stored that strata does not know, carried over unchanged.
pub(super) fn validate_table(table: &TableSchema, tolerated: &dyn Fn(&str) -> bool) -> Result<()> {
    if table.fields.is_empty() {
        return Err(schema_error("a table needs at least one column"));
    }
    check_columns_and_keys(&table.fields, &table.partition_keys, &table.primary_keys)?;
    check_unique_ids(&table.fields)?;
    let options: std::collections::BTreeMap<String, String> = table
        .options
        .iter()
        .filter(|(k, _)| !tolerated(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    options::validate(&options, table.is_primary_key_table())?;
    check_column_options(table)?;
    // Java's validateDefaultValue; a default strata cannot convert is refused at write.
    crate::types::default_value::check_default_values(&table.fields, false)
}

/// Java's `Schema.normalizePartitionKeys` / `normalizePrimaryKeys`: keys given as an option
/// (`partition` / `primary-key`, comma separated) move into the key list.
fn keys_from_option(
    declared: &[String],
    options: &mut std::collections::BTreeMap<String, String>,
    key: &str,
) -> Result<Vec<String>> {
    let Some(value) = options.remove(key) else {
        return Ok(declared.to_vec());
    };
    if !declared.is_empty() {
        return Err(SpecError::invalid(
            format!("table option `{key}`"),
            "cannot be combined with keys declared in the schema",
        ));
    }
    Ok(value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect())
}

/// Names must be non-blank and unique within each row (top level and nested ROWs).
fn check_names(fields: &[DataField], row: &str) -> Result<()> {
    let mut seen = HashSet::new();
    for f in fields {
        if f.name.trim().is_empty() {
            return Err(schema_error(format!(
                "{row} has a column with a blank name"
            )));
        }
        if !seen.insert(f.name.as_str()) {
            return Err(schema_error(format!(
                "{row} has more than one column named `{}`",
                f.name
            )));
        }
        check_nested_names(&f.data_type, &f.name)?;
    }
    Ok(())
}

fn check_nested_names(t: &DataType, path: &str) -> Result<()> {
    match &t.kind {
        TypeKind::Array(e) | TypeKind::Multiset(e) => check_nested_names(e, path),
        TypeKind::Map { key, value } => {
            check_nested_names(key, path)?;
            check_nested_names(value, path)
        }
        TypeKind::Row(fs) => check_names(fs, &format!("ROW column `{path}`")),
        _ => Ok(()),
    }
}

/// Partition / primary keys: unique, existing, primitive (`validateOnlyContainPrimitiveType`).
fn check_key_columns(fields: &[DataField], keys: &[String], what: &str) -> Result<()> {
    let mut seen = HashSet::new();
    for k in keys {
        if !seen.insert(k) {
            return Err(schema_error(format!("{what} `{k}` is listed twice")));
        }
        let Some(f) = fields.iter().find(|f| &f.name == k) else {
            return Err(schema_error(format!("{what} `{k}` is not a column")));
        };
        if !is_key_type(&f.data_type) {
            return Err(SpecError::Unsupported(format!(
                "{what} `{k}` has type {}, which cannot be a {what} column",
                f.data_type
            )));
        }
    }
    Ok(())
}

/// Types Java rejects as key / partition / bucket columns are the nested ones.
fn is_key_type(t: &DataType) -> bool {
    !t.is_nested()
}

fn count_ids(fields: &[DataField]) -> (usize, usize) {
    let mut counts = (0, 0);
    visit_fields(fields, &mut |f| {
        if f.id == UNASSIGNED_FIELD_ID {
            counts.1 += 1;
        } else {
            counts.0 += 1;
        }
    });
    counts
}

fn visit_fields(fields: &[DataField], visit: &mut impl FnMut(&DataField)) {
    fn walk(t: &DataType, visit: &mut impl FnMut(&DataField)) {
        match &t.kind {
            TypeKind::Array(e) | TypeKind::Multiset(e) => walk(e, visit),
            TypeKind::Map { key, value } => {
                walk(key, visit);
                walk(value, visit);
            }
            TypeKind::Row(fs) => visit_fields(fs, visit),
            _ => {}
        }
    }
    for f in fields {
        visit(f);
        walk(&f.data_type, visit);
    }
}

fn check_unique_ids(fields: &[DataField]) -> Result<()> {
    let mut seen = HashSet::new();
    let mut duplicate = None;
    visit_fields(fields, &mut |f| {
        if f.id < 0 {
            duplicate.get_or_insert((f.id, f.name.clone(), "negative"));
        } else if !seen.insert(f.id) {
            duplicate.get_or_insert((f.id, f.name.clone(), "duplicated"));
        }
    });
    match duplicate {
        Some((id, name, what)) => Err(schema_error(format!(
            "field id {id} of column `{name}` is {what}"
        ))),
        None => Ok(()),
    }
}

/// Numbers fields the way Java's `Schema.Builder` does: each top-level column takes the next
/// id, then its type's nested ROW fields are numbered with `ReassignFieldId`, where a nested
/// field's own type is numbered *before* the field itself. For
/// `a INT, r ROW<x INT, z ROW<p INT>>, c INT` that gives a=0, r=1, x=2, p=3, z=4, c=5.
pub fn assign_field_ids(fields: &[DataField]) -> Vec<DataField> {
    let mut last = -1;
    fields
        .iter()
        .map(|f| {
            last += 1;
            let id = last;
            let data_type = reassign_nested_ids(&f.data_type, &mut last);
            DataField {
                id,
                data_type,
                ..f.clone()
            }
        })
        .collect()
}

/// Java's `ReassignFieldId.reassign`: numbers the fields of the ROWs inside `t` from `*last + 1`
/// on (a nested field's own type before the field itself), leaving `*last` at the highest id
/// given.
pub(crate) fn reassign_nested_ids(t: &DataType, last: &mut i32) -> DataType {
    let kind = match &t.kind {
        TypeKind::Array(e) => TypeKind::Array(Box::new(reassign_nested_ids(e, last))),
        TypeKind::Multiset(e) => TypeKind::Multiset(Box::new(reassign_nested_ids(e, last))),
        TypeKind::Map { key, value } => {
            let key = Box::new(reassign_nested_ids(key, last));
            let value = Box::new(reassign_nested_ids(value, last));
            TypeKind::Map { key, value }
        }
        TypeKind::Row(fs) => TypeKind::Row(
            fs.iter()
                .map(|f| {
                    let data_type = reassign_nested_ids(&f.data_type, last);
                    *last += 1;
                    DataField {
                        id: *last,
                        data_type,
                        ..f.clone()
                    }
                })
                .collect(),
        ),
        k => k.clone(),
    };
    DataType::new(kind, t.nullable)
}

/// The option rules of `SchemaValidation` that involve columns.
fn check_column_options(table: &TableSchema) -> Result<()> {
    let o = table.options();
    let names: BTreeSet<&str> = table.fields.iter().map(|f| f.name.as_str()).collect();
    let option_error =
        |key: &str, message: String| SpecError::invalid(format!("table option `{key}`"), message);

    // Bucket keys (TableSchema.originalBucketKeys, SchemaValidation.validateBucket).
    let bucket = o.bucket()?;
    if let Some(bucket_keys) = o.bucket_key() {
        for k in &bucket_keys {
            let Some(f) = table.field(k) else {
                return Err(option_error(
                    options::BUCKET_KEY,
                    format!("bucket key `{k}` is not a column"),
                ));
            };
            if table.partition_keys.contains(k) {
                return Err(option_error(
                    options::BUCKET_KEY,
                    format!("bucket key `{k}` must not be a partition key"),
                ));
            }
            if table.is_primary_key_table() && !table.primary_keys.contains(k) {
                return Err(option_error(
                    options::BUCKET_KEY,
                    format!("bucket key `{k}` must be part of the primary key"),
                ));
            }
            if !is_key_type(&f.data_type) {
                return Err(option_error(
                    options::BUCKET_KEY,
                    format!("bucket key `{k}` has nested type {}", f.data_type),
                ));
            }
        }
    }
    let fixed_bucket = bucket != DYNAMIC_BUCKET && bucket != POSTPONE_BUCKET;
    if fixed_bucket && !table.is_primary_key_table() && table.bucket_keys().is_empty() {
        return Err(option_error(
            options::BUCKET_KEY,
            format!("an append table with bucket = {bucket} needs a `bucket-key`"),
        ));
    }

    // fields.<col>[,<col>…].<option> must name columns (validateFieldsPrefix).
    for key in table.options.keys() {
        if let Some(rest) = key.strip_prefix(FIELDS_PREFIX) {
            let columns = rest.split('.').next().unwrap_or_default();
            for c in columns.split(',') {
                if c != "default-aggregate-function" && !names.contains(c) {
                    return Err(option_error(key, format!("column `{c}` does not exist")));
                }
            }
        }
    }

    // fields.<col>.map.* (validateMapStorageLayout).
    crate::shredding::shredded_map_columns(&table.fields, &o)?;

    check_blob_columns(table)?;

    // sequence.field (validateSequenceField).
    let sequence = o.sequence_field();
    let mut seen = HashSet::new();
    for c in &sequence {
        if !names.contains(c.as_str()) {
            return Err(option_error(
                options::SEQUENCE_FIELD,
                format!("sequence field `{c}` is not a column"),
            ));
        }
        if !seen.insert(c) {
            return Err(option_error(
                options::SEQUENCE_FIELD,
                format!("sequence field `{c}` is listed twice"),
            ));
        }
    }
    // Cross-partition update (a primary key without every partition key). In Java 1.4 and 2.0
    // `SchemaValidation` refuses only a `sequence.field` here; every bucket mode is accepted:
    // `bucket = -1` is KEY_DYNAMIC (a global key index moves keys across partitions), and
    // fixed (`N > 0`) and postpone (`-2`) buckets keep a key unique within a partition only
    // (Paimon #6307, "Cross partition can work with fixed bucket and postpone bucket", removed
    // `validateBucket`'s "You should use dynamic bucket (bucket = -1) mode in cross partition
    // update case" of Java ≤ 1.3). So strata accepts all three as Java does; its writer routes
    // KEY_DYNAMIC rows by the global key index (strata `write::cross_partition`).
    if !sequence.is_empty() && table.cross_partition_update() {
        return Err(option_error(
            options::SEQUENCE_FIELD,
            "cannot be used when the primary key does not include all partition keys".into(),
        ));
    }

    // record-level.time-field (validateTableSchema): an INT, BIGINT or TIMESTAMP column.
    if let Some(c) = o.get("record-level.time-field") {
        let Some(f) = table.field(c) else {
            return Err(option_error(
                "record-level.time-field",
                format!("time field `{c}` is not a column"),
            ));
        };
        if !matches!(
            f.data_type.kind,
            TypeKind::Int
                | TypeKind::BigInt
                | TypeKind::Timestamp(_)
                | TypeKind::LocalZonedTimestamp(_)
        ) {
            return Err(option_error(
                "record-level.time-field",
                format!(
                    "time field `{c}` has type {}; it must be INT, BIGINT or TIMESTAMP",
                    f.data_type
                ),
            ));
        }
    }

    if let Some(c) = o.get("rowkind.field") {
        if !names.contains(c) {
            return Err(option_error(
                "rowkind.field",
                format!("column `{c}` does not exist"),
            ));
        }
    }
    Ok(())
}

/// Java `BlobType.isBlobFileField`: a column whose values go to `.blob` files.
fn is_blob_file_field(t: &DataType) -> bool {
    match &t.kind {
        TypeKind::Blob => true,
        TypeKind::Array(e) => matches!(e.kind, TypeKind::Blob),
        TypeKind::Map { value, .. } => matches!(value.kind, TypeKind::Blob),
        _ => false,
    }
}

/// Java 2.0's `SchemaValidation.validateBlobFields` and the BLOB rules of its data-evolution
/// checks: `blob-field` names BLOB, `ARRAY<BLOB>` or `MAP<X, BLOB>` columns; an append table
/// with such a column has `data-evolution.enabled`, other columns besides, and none of them as
/// a partition key.
fn check_blob_columns(table: &TableSchema) -> Result<()> {
    let o = table.options();
    let blobs: Vec<&str> = table
        .fields
        .iter()
        .filter(|f| is_blob_file_field(&f.data_type))
        .map(|f| f.name.as_str())
        .collect();
    if let Some(listed) = o.get("blob-field") {
        for name in listed.split(',').map(str::trim) {
            if !blobs.contains(&name) {
                return Err(SpecError::invalid(
                    "table option `blob-field`",
                    format!(
                        "Field '{name}' in 'blob-field' must be a BLOB, ARRAY<BLOB> or \
                         MAP<X, BLOB> field in table schema."
                    ),
                ));
            }
        }
    }
    if blobs.is_empty() {
        return Ok(());
    }
    let blob_error = |m: &str| schema_error(format!("{m} (columns {})", blobs.join(", ")));
    if !table.is_primary_key_table() && !o.data_evolution_enabled()? {
        return Err(blob_error(
            "Data evolution config must enabled for table with BLOB, ARRAY<BLOB> or \
             MAP<X, BLOB> type column.",
        ));
    }
    if table.fields.len() <= blobs.len() {
        return Err(blob_error(
            "Table with BLOB, ARRAY<BLOB> or MAP<X, BLOB> type column must have other normal \
             columns.",
        ));
    }
    if blobs
        .iter()
        .any(|b| table.partition_keys.iter().any(|p| p == b))
    {
        return Err(blob_error(
            "The BLOB, ARRAY<BLOB> or MAP<X, BLOB> type column can not be part of partition \
             keys.",
        ));
    }
    Ok(())
}
