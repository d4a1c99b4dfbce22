//! Schema evolution: [`SchemaChange`] (Java's `org.apache.paimon.schema.SchemaChange`) and
//! [`TableSchema::apply_changes`], which turns schema N and a list of changes into schema N+1
//! exactly as Java's `SchemaManager.generateTableSchema` does. Pure: the caller reads the
//! latest schema, applies, and writes `schema-(N+1)` if absent (`SchemaManager.commitChanges`).
//!
//! What Java does, and so does this module:
//!
//! * changes apply in order to one working copy of the columns, options and comment;
//! * a column is addressed by a path (`["r", "x"]` is field `x` of ROW column `r`); through an
//!   ARRAY or MAP column the path names the element / value with one segment whose name is
//!   not checked (`["tags", "element"]`, `["m", "value", "x"]`), as Flink's catalog sends it;
//! * an added column (and every field of a ROW it holds) takes a new field id from
//!   `highestFieldId + 1` on, in `ReassignFieldId` order (a nested field's own type first);
//!   the column must be nullable; `move` places it FIRST, AFTER / BEFORE a column, or LAST
//!   (the default, or before the first partition column with `add-column-before-partition`);
//! * renames keep the field id; a rename of a top-level column renames it in the primary key
//!   and in the options that name columns (`bucket-key`, `sequence.field`,
//!   `fields.<col>.aggregate-function` and the other per-column options Java moves,
//!   `fields.<cols>.sequence-group` / `nested-key` keys and values);
//! * refusals: renaming, dropping or retyping a partition column; dropping or retyping a
//!   primary-key column, or making it nullable; any of these on a primary-key index column
//!   (`pk-*.index.columns`); renaming or retyping BLOB columns; dropping the last column (of
//!   the table or of a ROW); adding a column that exists or a NOT NULL one; renaming onto an
//!   existing name; a type change Java's cast rules do not allow ([`crate::types::casts`]:
//!   implicit casts, plus explicit ones unless `disable-explicit-type-casting`; nullable →
//!   NOT NULL only with `alter-column-null-to-not-null.disabled = false`); changing `type`;
//!   and, once the table has snapshots, `SchemaManager.checkAlterTableOption` /
//!   `checkResetTableOption`: the immutable options (`bucket-key`, `merge-engine`,
//!   `rowkind.field`, `sequence.snapshot-ordering`, … — `CoreOptions.IMMUTABLE_OPTIONS`),
//!   `bucket` from or to -1 (and resetting it), `deletion-vectors.enabled` without
//!   `deletion-vectors.modifiable`, `ignore-delete` / `ignore-update-before` from true to false;
//! * the result is normalised like Java's `Schema` constructor (primary-key columns take the
//!   nullability `primary-key.nullable` gives them) and validated like a new table (names,
//!   keys, options, column options such as `fields.<col>.*` naming existing columns).
//!
//! Where strata is stricter than Java (Java would write a schema that breaks the table or
//! silently does nothing): setting `partition` / `primary-key` to other keys (Java would
//! re-key a table that holds data) and changing `path` (refused as Flink's catalog does) are
//! refused; a nested column added under a column that is not a ROW (Java drops it silently)
//! is an error; options are renamed only for renamed top-level columns (Java also rewrites
//! `bucket-key` and per-column keys by the first segment of a *nested* rename); BLOB / VECTOR
//! column directives in comments (`__BLOB_FIELD`, `__VECTOR_FIELD`) are refused; a type
//! change of a column whose default value does not convert to the new type is refused (Java
//! keeps the default unchecked, and its writers then fail on `DefaultValueRow.create`). strata's own
//! per-column option `fields.<col>.map.shared-shredding.max-dedicated-columns` is renamed and
//! dropped with its column like the map options Java knows.

use std::collections::{BTreeMap, HashMap};

use super::create::{reassign_nested_ids, validate_table};
use super::table_schema::{TableSchema, CURRENT_VERSION};
use crate::error::{Result, SpecError};
use crate::options::{self, BUCKET_KEY, SEQUENCE_FIELD};
use crate::types::casts::{has_cast_rule, supports_cast};
use crate::types::{DataField, DataType, TypeKind};

/// One change of a table's schema (Java's `SchemaChange`, without `DropPrimaryKey`). Column paths (`field_names`) have one segment for a top-level
/// column, more for nested fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaChange {
    /// `ALTER TABLE … SET ('key' = 'value')`.
    SetOption {
        key: String,
        value: String,
    },
    /// `ALTER TABLE … RESET ('key')`.
    RemoveOption {
        key: String,
    },
    /// The table comment (`None` removes it).
    UpdateComment {
        comment: Option<String>,
    },
    /// A new column: nullable, with a fresh field id (and fresh ids for its nested fields).
    AddColumn {
        field_names: Vec<String>,
        data_type: DataType,
        comment: Option<String>,
        /// Where it goes among its siblings; `None` is last (or before the first partition
        /// column with `add-column-before-partition = true`).
        position: Option<ColumnMove>,
    },
    /// Renames the column at `field_names` (its last segment) to `new_name`.
    RenameColumn {
        field_names: Vec<String>,
        new_name: String,
    },
    DropColumn {
        field_names: Vec<String>,
    },
    /// A new type for the column; with `keep_nullability` the column keeps its nullability
    /// whatever `new_data_type` says (Java's `keepNullability`).
    UpdateColumnType {
        field_names: Vec<String>,
        new_data_type: DataType,
        keep_nullability: bool,
    },
    UpdateColumnNullability {
        field_names: Vec<String>,
        new_nullability: bool,
    },
    /// The column comment (`None` removes it).
    UpdateColumnComment {
        field_names: Vec<String>,
        new_comment: Option<String>,
    },
    /// Moves a top-level column.
    UpdateColumnPosition {
        position: ColumnMove,
    },
    /// The column's `defaultValue` (Java's `UpdateColumnDefaultValue`, `ALTER COLUMN … SET
    /// DEFAULT` / `DROP DEFAULT`; `None` removes it): checked to convert to the column's type
    /// (Java's `DefaultValueUtils.validateDefaultValue`).
    UpdateColumnDefaultValue {
        field_names: Vec<String>,
        new_default_value: Option<String>,
    },
}

/// Where a column goes (Java's `SchemaChange.Move`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnMove {
    /// The column moved (for an added column, Java ignores it: the column is the one added).
    pub field_name: String,
    /// The column it goes after / before (`AFTER` / `BEFORE` only).
    pub reference_field_name: Option<String>,
    pub move_type: MoveType,
}

/// Java's `SchemaChange.Move.MoveType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveType {
    First,
    After,
    Before,
    Last,
}

impl ColumnMove {
    pub fn first(field_name: impl Into<String>) -> ColumnMove {
        ColumnMove {
            field_name: field_name.into(),
            reference_field_name: None,
            move_type: MoveType::First,
        }
    }
    pub fn after(field_name: impl Into<String>, reference: impl Into<String>) -> ColumnMove {
        ColumnMove {
            field_name: field_name.into(),
            reference_field_name: Some(reference.into()),
            move_type: MoveType::After,
        }
    }
    pub fn before(field_name: impl Into<String>, reference: impl Into<String>) -> ColumnMove {
        ColumnMove {
            field_name: field_name.into(),
            reference_field_name: Some(reference.into()),
            move_type: MoveType::Before,
        }
    }
    pub fn last(field_name: impl Into<String>) -> ColumnMove {
        ColumnMove {
            field_name: field_name.into(),
            reference_field_name: None,
            move_type: MoveType::Last,
        }
    }
}

fn path(name: impl Into<String>) -> Vec<String> {
    vec![name.into()]
}

/// Constructors named like Java's static factories.
impl SchemaChange {
    pub fn set_option(key: impl Into<String>, value: impl Into<String>) -> SchemaChange {
        SchemaChange::SetOption {
            key: key.into(),
            value: value.into(),
        }
    }
    pub fn remove_option(key: impl Into<String>) -> SchemaChange {
        SchemaChange::RemoveOption { key: key.into() }
    }
    pub fn update_comment(comment: Option<String>) -> SchemaChange {
        SchemaChange::UpdateComment { comment }
    }
    /// A nullable top-level column, last.
    pub fn add_column(name: impl Into<String>, data_type: DataType) -> SchemaChange {
        SchemaChange::AddColumn {
            field_names: path(name),
            data_type,
            comment: None,
            position: None,
        }
    }
    /// A column at `field_names` with a comment and a position.
    pub fn add_nested_column(
        field_names: Vec<String>,
        data_type: DataType,
        comment: Option<String>,
        position: Option<ColumnMove>,
    ) -> SchemaChange {
        SchemaChange::AddColumn {
            field_names,
            data_type,
            comment,
            position,
        }
    }
    pub fn rename_column(name: impl Into<String>, new_name: impl Into<String>) -> SchemaChange {
        SchemaChange::RenameColumn {
            field_names: path(name),
            new_name: new_name.into(),
        }
    }
    pub fn rename_nested_column(
        field_names: Vec<String>,
        new_name: impl Into<String>,
    ) -> SchemaChange {
        SchemaChange::RenameColumn {
            field_names,
            new_name: new_name.into(),
        }
    }
    pub fn drop_column(name: impl Into<String>) -> SchemaChange {
        SchemaChange::DropColumn {
            field_names: path(name),
        }
    }
    pub fn drop_nested_column(field_names: Vec<String>) -> SchemaChange {
        SchemaChange::DropColumn { field_names }
    }
    /// A new type, nullability as `new_data_type` says (`keepNullability = false`).
    pub fn update_column_type(name: impl Into<String>, new_data_type: DataType) -> SchemaChange {
        SchemaChange::UpdateColumnType {
            field_names: path(name),
            new_data_type,
            keep_nullability: false,
        }
    }
    pub fn update_nested_column_type(
        field_names: Vec<String>,
        new_data_type: DataType,
        keep_nullability: bool,
    ) -> SchemaChange {
        SchemaChange::UpdateColumnType {
            field_names,
            new_data_type,
            keep_nullability,
        }
    }
    pub fn update_column_nullability(
        field_names: Vec<String>,
        new_nullability: bool,
    ) -> SchemaChange {
        SchemaChange::UpdateColumnNullability {
            field_names,
            new_nullability,
        }
    }
    pub fn update_column_comment(
        field_names: Vec<String>,
        new_comment: Option<String>,
    ) -> SchemaChange {
        SchemaChange::UpdateColumnComment {
            field_names,
            new_comment,
        }
    }
    pub fn update_column_position(position: ColumnMove) -> SchemaChange {
        SchemaChange::UpdateColumnPosition { position }
    }
    pub fn update_column_default_value(
        field_names: Vec<String>,
        new_default_value: Option<String>,
    ) -> SchemaChange {
        SchemaChange::UpdateColumnDefaultValue {
            field_names,
            new_default_value,
        }
    }
}

// ---- option names (Java's CoreOptions) -----------------------------------------------------

const TYPE: &str = "type";
const TYPE_DEFAULT: &str = "table";
const PATH: &str = "path";
const BUCKET: &str = options::BUCKET;
const DELETION_VECTORS_ENABLED: &str = "deletion-vectors.enabled";
const DELETION_VECTORS_MODIFIABLE: &str = "deletion-vectors.modifiable";
const IGNORE_DELETE: &str = "ignore-delete";
const IGNORE_UPDATE_BEFORE: &str = "ignore-update-before";
const CLUSTERING_COLUMNS: &str = "clustering.columns";
const PK_CLUSTERING_OVERRIDE: &str = "pk-clustering-override";
const DISABLE_NULL_TO_NOT_NULL: &str = "alter-column-null-to-not-null.disabled";
const DISABLE_EXPLICIT_TYPE_CASTING: &str = "disable-explicit-type-casting";
const ADD_COLUMN_BEFORE_PARTITION: &str = "add-column-before-partition";

/// `CoreOptions.IMMUTABLE_OPTIONS`: the options annotated `@Immutable`.
pub const IMMUTABLE_OPTIONS: &[&str] = &[
    "type",
    "bucket-key",
    "bucket-function.type",
    "data-file.path-directory",
    "merge-engine",
    "sequence.snapshot-ordering",
    "aggregation.remove-record-on-delete",
    "partial-update.remove-record-on-delete",
    "partial-update.remove-record-on-sequence-group",
    "rowkind.field",
];

/// The primary-key index column lists (`CoreOptions.primaryKey*IndexColumns`).
const PK_INDEX_COLUMN_OPTIONS: &[&str] = &[
    "pk-vector.index.columns",
    "pk-btree.index.columns",
    "pk-bitmap.index.columns",
    "pk-multivalue.index.columns",
    "pk-full-text.index.columns",
];

/// Per-column options `fields.<col>.<suffix>` that `SchemaManager.applyRenameColumnsToOptions`
/// moves with a renamed column, plus strata's `max-dedicated-columns`.
const RENAMED_FIELD_OPTION_SUFFIXES: &[&str] = &[
    "aggregate-function",
    "ignore-retract",
    "distinct",
    "list-agg-delimiter",
    MAP_STORAGE_LAYOUT,
    MAP_MAX_COLUMNS,
    MAP_PLACEMENT_POLICY,
    MAP_MAX_DEDICATED_COLUMNS,
];
const MAP_STORAGE_LAYOUT: &str = "map.storage-layout";
const MAP_MAX_COLUMNS: &str = "map.shared-shredding.max-columns";
const MAP_PLACEMENT_POLICY: &str = "map.shared-shredding.column-placement-policy";
const MAP_MAX_DEDICATED_COLUMNS: &str = "map.shared-shredding.max-dedicated-columns";
/// Per-column keys whose key *and* value hold column lists.
const SEQUENCE_GROUP: &str = "sequence-group";
const NESTED_KEY: &str = "nested-key";
/// The options listing BLOB columns, and their fallback keys (`ColumnDirectiveUtils`).
const BLOB_FIELD_OPTIONS: &[&str] = &[
    "blob-field",
    "blob-descriptor-field",
    "blob.stored-descriptor-fields",
    "blob-view-field",
];

// ---- errors -------------------------------------------------------------------------------

fn unsupported(message: impl Into<String>) -> SpecError {
    SpecError::Unsupported(message.into())
}

fn invalid(message: impl Into<String>) -> SpecError {
    SpecError::invalid("schema change", message)
}

fn option_error(key: &str, message: impl Into<String>) -> SpecError {
    SpecError::invalid(format!("table option `{key}`"), message)
}

fn not_found(column: impl Into<String>) -> SpecError {
    SpecError::ColumnNotFound {
        column: column.into(),
    }
}

fn already_exists(column: impl Into<String>) -> SpecError {
    SpecError::ColumnAlreadyExists {
        column: column.into(),
    }
}

/// `a.b.c`, for messages.
fn dotted(names: &[String]) -> String {
    names.join(".")
}

/// Java's `Boolean.parseBoolean`: true only for `true` in any case.
fn java_bool(value: Option<&String>, default: bool) -> bool {
    match value {
        Some(v) => v.eq_ignore_ascii_case("true"),
        None => default,
    }
}

fn java_int(key: &str, value: &str) -> Result<i32> {
    value.trim().parse::<i32>().map_err(|_| {
        option_error(
            key,
            format!("`{value}` is not an integer (Java's Integer.parseInt)"),
        )
    })
}

// ---- applying changes ---------------------------------------------------------------------

impl TableSchema {
    /// Schema `self.id + 1`: `changes` applied to this schema, as Java's
    /// `SchemaManager.generateTableSchema` does for a table that has snapshots (the option
    /// checks that only apply to tables holding data are made). `now_millis` becomes the new
    /// schema's `timeMillis`. See the [`change`](crate::schema::change) module docs for the
    /// rules and refusals.
    pub fn apply_changes(&self, changes: &[SchemaChange], now_millis: i64) -> Result<TableSchema> {
        self.apply_changes_with(changes, now_millis, true)
    }

    /// [`TableSchema::apply_changes`], saying whether the table has snapshots: without any,
    /// Java skips `checkAlterTableOption` / `checkResetTableOption` (immutable options,
    /// `bucket`, …), since no data depends on them yet.
    pub fn apply_changes_with(
        &self,
        changes: &[SchemaChange],
        now_millis: i64,
        has_snapshots: bool,
    ) -> Result<TableSchema> {
        Apply::new(self, has_snapshots).run(changes, now_millis)
    }
}

struct Apply<'a> {
    old: &'a TableSchema,
    has_snapshots: bool,
    options: BTreeMap<String, String>,
    fields: Vec<DataField>,
    highest_field_id: i32,
    comment: Option<String>,
    disable_null_to_not_null: bool,
    disable_explicit_type_casting: bool,
    add_column_before_partition: bool,
}

impl<'a> Apply<'a> {
    fn new(old: &'a TableSchema, has_snapshots: bool) -> Self {
        let o = &old.options;
        Apply {
            old,
            has_snapshots,
            options: old.options.clone(),
            fields: old.fields.clone(),
            highest_field_id: old.highest_field_id,
            comment: old.comment.clone(),
            disable_null_to_not_null: java_bool(o.get(DISABLE_NULL_TO_NOT_NULL), true),
            disable_explicit_type_casting: java_bool(o.get(DISABLE_EXPLICIT_TYPE_CASTING), false),
            add_column_before_partition: java_bool(o.get(ADD_COLUMN_BEFORE_PARTITION), false),
        }
    }

    fn run(mut self, changes: &[SchemaChange], now_millis: i64) -> Result<TableSchema> {
        for change in changes {
            self.apply(change)?;
        }
        let renames = top_level_renames(changes)?;
        let primary_keys = rename_columns(&self.old.primary_keys, &renames);
        let options = rename_in_options(&self.options, &renames);
        for key in [options::PARTITION, options::PRIMARY_KEY] {
            if options.contains_key(key) {
                return Err(unsupported(format!(
                    "the `{key}` option cannot be set on an existing table: its keys are \
                     part of the schema"
                )));
            }
        }
        let fields = normalize_primary_key_nullability(self.fields, &primary_keys, &options)?;
        let table = TableSchema {
            version: CURRENT_VERSION,
            id: self.old.id + 1,
            fields,
            highest_field_id: self.highest_field_id,
            partition_keys: self.old.partition_keys.clone(),
            primary_keys,
            options,
            comment: self.comment,
            time_millis: now_millis,
        };
        // Keys the old schema already held that strata does not know (another writer's own
        // options, carried over as they were) are not validated again.
        let old = &self.old.options;
        let tolerated =
            |key: &str| !options::is_known_key(key) && old.get(key) == table.options.get(key);
        validate_table(&table, &tolerated)?;
        Ok(table)
    }

    fn apply(&mut self, change: &SchemaChange) -> Result<()> {
        match change {
            SchemaChange::SetOption { key, value } => self.set_option(key, value),
            SchemaChange::RemoveOption { key } => self.remove_option(key),
            SchemaChange::UpdateComment { comment } => {
                self.comment = comment.clone();
                Ok(())
            }
            SchemaChange::AddColumn {
                field_names,
                data_type,
                comment,
                position,
            } => self.add_column(field_names, data_type, comment, position.as_ref()),
            SchemaChange::RenameColumn {
                field_names,
                new_name,
            } => self.rename_column(field_names, new_name),
            SchemaChange::DropColumn { field_names } => self.drop_column(field_names),
            SchemaChange::UpdateColumnType {
                field_names,
                new_data_type,
                keep_nullability,
            } => self.update_column_type(field_names, new_data_type, *keep_nullability),
            SchemaChange::UpdateColumnNullability {
                field_names,
                new_nullability,
            } => self.update_column_nullability(field_names, *new_nullability),
            SchemaChange::UpdateColumnComment {
                field_names,
                new_comment,
            } => self.update_column_comment(field_names, new_comment),
            SchemaChange::UpdateColumnPosition { position } => {
                apply_move(&mut self.fields, position)
            }
            SchemaChange::UpdateColumnDefaultValue {
                field_names,
                new_default_value,
            } => self.update_column_default_value(field_names, new_default_value),
        }
    }

    fn set_option(&mut self, key: &str, value: &str) -> Result<()> {
        let old_value = self.old.options.get(key).map(String::as_str);
        let unchanged = old_value == Some(value) || self.is_unchanged_normalized_key(key, value);
        if unchanged {
            return Ok(());
        }
        if key == TYPE {
            return Err(unsupported("Change 'type' is not supported yet."));
        }
        if key.eq_ignore_ascii_case(PATH) {
            return Err(unsupported("Change path is not supported yet."));
        }
        if key == options::PARTITION || key == options::PRIMARY_KEY {
            return Err(unsupported(format!(
                "setting `{key}` = `{value}` would re-key a table whose keys are {:?}; \
                 strata does not change the partition or primary keys of an existing table",
                if key == options::PARTITION {
                    &self.old.partition_keys
                } else {
                    &self.old.primary_keys
                }
            )));
        }
        if self.has_snapshots {
            check_alter_table_option(&self.old.options, key, old_value, value)?;
        }
        self.options.insert(key.to_string(), value.to_string());
        Ok(())
    }

    /// Java's `SchemaManager.isUnchangedNormalizedKey`.
    fn is_unchanged_normalized_key(&self, key: &str, value: &str) -> bool {
        let old_value = self.old.options.get(key);
        if key == TYPE {
            let old = old_value.map(String::as_str).unwrap_or(TYPE_DEFAULT);
            return value.eq_ignore_ascii_case(old);
        }
        if old_value.is_some() {
            return false;
        }
        let keys: Vec<String> = value
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        match key {
            options::PRIMARY_KEY => keys == self.old.primary_keys,
            options::PARTITION => keys == self.old.partition_keys,
            _ => false,
        }
    }

    fn remove_option(&mut self, key: &str) -> Result<()> {
        if key == TYPE {
            return Err(unsupported("Change 'type' is not supported yet."));
        }
        if key.eq_ignore_ascii_case(PATH) {
            return Err(unsupported("Change path is not supported yet."));
        }
        if self.has_snapshots {
            check_reset_table_option(&self.old.options, key)?;
        }
        self.options.remove(key);
        Ok(())
    }

    fn add_column(
        &mut self,
        names: &[String],
        data_type: &DataType,
        comment: &Option<String>,
        position: Option<&ColumnMove>,
    ) -> Result<()> {
        check_path(names)?;
        if !data_type.nullable {
            return Err(invalid(format!(
                "column `{}` cannot be added as NOT NULL ({data_type}): rows written before it \
                 have no value for it",
                dotted(names)
            )));
        }
        if let Some(c) = comment {
            if is_column_directive(c) {
                return Err(unsupported(format!(
                    "column `{}`: the comment `{c}` is a BLOB / VECTOR column directive, and \
                     strata does not support BLOB or VECTOR columns",
                    dotted(names)
                )));
            }
        }
        self.highest_field_id += 1;
        let id = self.highest_field_id;
        let data_type = reassign_nested_ids(data_type, &mut self.highest_field_id);
        let before_partition = self.add_column_before_partition
            && !self.old.partition_keys.is_empty()
            && names.len() == 1;
        let partition_keys = &self.old.partition_keys;
        let mut insert = |fields: &mut Vec<DataField>, _depth: usize, name: &str| -> Result<()> {
            if fields.iter().any(|f| f.name == name) {
                return Err(already_exists(dotted(names)));
            }
            let field = DataField {
                id,
                name: name.to_string(),
                data_type: data_type.clone(),
                description: comment.clone(),
                default_value: None,
            };
            let index_of = |reference: &Option<String>| -> Result<usize> {
                let r = reference.as_deref().unwrap_or_default();
                fields
                    .iter()
                    .position(|f| f.name == r)
                    .ok_or_else(|| not_found(r))
            };
            let at = match position {
                Some(m) => match m.move_type {
                    MoveType::First => 0,
                    MoveType::After => index_of(&m.reference_field_name)? + 1,
                    MoveType::Before => index_of(&m.reference_field_name)?,
                    MoveType::Last => fields.len(),
                },
                None if before_partition => fields
                    .iter()
                    .position(|f| partition_keys.contains(&f.name))
                    .unwrap_or(fields.len()),
                None => fields.len(),
            };
            fields.insert(at, field);
            Ok(())
        };
        modify_nested(&mut self.fields, names, 0, true, &mut insert)
    }

    fn rename_column(&mut self, names: &[String], new_name: &str) -> Result<()> {
        check_path(names)?;
        self.refuse_partition_column(names, "rename")?;
        self.refuse_primary_key_index_column(names, "rename")?;
        if names.len() == 1 {
            if let Some(f) = self.fields.iter().find(|f| f.name == names[0]) {
                if is_blob_file_field(&f.data_type) {
                    return Err(unsupported(format!(
                        "Cannot rename BLOB column: [{}]",
                        names[0]
                    )));
                }
            }
        }
        let prefix = &names[..names.len() - 1];
        let mut rename = |fields: &mut Vec<DataField>, _depth: usize, name: &str| -> Result<()> {
            let Some(i) = fields.iter().position(|f| f.name == name) else {
                return Err(not_found(dotted(names)));
            };
            if fields.iter().any(|f| f.name == new_name) {
                let mut p = prefix.to_vec();
                p.push(new_name.to_string());
                return Err(already_exists(dotted(&p)));
            }
            fields[i].name = new_name.to_string();
            Ok(())
        };
        modify_nested(&mut self.fields, names, 0, false, &mut rename)
    }

    fn drop_column(&mut self, names: &[String]) -> Result<()> {
        check_path(names)?;
        if names.len() == 1 {
            let name = &names[0];
            if self.old.partition_keys.contains(name) || self.old.primary_keys.contains(name) {
                return Err(unsupported(format!(
                    "Cannot drop partition key or primary key: [{name}]"
                )));
            }
        }
        self.refuse_primary_key_index_column(names, "drop")?;
        if names.len() == 1 {
            if let Some(f) = self.fields.iter().find(|f| f.name == names[0]) {
                remove_dropped_column_options(&names[0], &f.data_type, &mut self.options);
            }
        }
        let mut drop = |fields: &mut Vec<DataField>, _depth: usize, name: &str| -> Result<()> {
            if !fields.iter().any(|f| f.name == name) {
                return Err(not_found(dotted(names)));
            }
            fields.retain(|f| f.name != name);
            if fields.is_empty() {
                return Err(invalid(format!(
                    "Cannot drop all fields in table (dropping `{}` would leave no column)",
                    dotted(names)
                )));
            }
            Ok(())
        };
        modify_nested(&mut self.fields, names, 0, false, &mut drop)
    }

    fn update_column_type(
        &mut self,
        names: &[String],
        new_type: &DataType,
        keep_nullability: bool,
    ) -> Result<()> {
        check_path(names)?;
        self.refuse_partition_column(names, "update")?;
        if names.len() == 1 && self.old.primary_keys.contains(&names[0]) {
            return Err(unsupported(format!(
                "Cannot update primary key (column `{}`)",
                names[0]
            )));
        }
        self.refuse_primary_key_index_column(names, "update type of")?;
        if names.len() == 1 {
            if let Some(f) = self.fields.iter().find(|f| f.name == names[0]) {
                if is_blob_file_field(&f.data_type) || is_blob_file_field(new_type) {
                    return Err(unsupported(format!(
                        "Cannot change column type involving BLOB: [{}] {} -> {new_type}",
                        names[0], f.data_type
                    )));
                }
            }
        }
        let (disable_null, allow_explicit) = (
            self.disable_null_to_not_null,
            !self.disable_explicit_type_casting,
        );
        let update = |field: &DataField, depth: usize| -> Result<DataField> {
            let source = root_type(&field.data_type, depth, names.len());
            let target = if keep_nullability {
                new_type.with_nullable(source.nullable)
            } else {
                check_nullability_change(source.nullable, new_type.nullable, names, disable_null)?;
                new_type.clone()
            };
            if !(supports_cast(source, &target, allow_explicit) && has_cast_rule(source, &target)) {
                return Err(invalid(format!(
                    "Column type {}[{source}] cannot be converted to {target} without losing \
                     information{}",
                    dotted(names),
                    if allow_explicit {
                        ""
                    } else {
                        " (explicit casts are disabled by `disable-explicit-type-casting`)"
                    }
                )));
            }
            let data_type = with_type_at(&field.data_type, &target, depth, names.len());
            Ok(DataField {
                data_type,
                ..field.clone()
            })
        };
        update_nested(&mut self.fields, names, update)
    }

    fn update_column_nullability(&mut self, names: &[String], nullable: bool) -> Result<()> {
        check_path(names)?;
        if nullable && names.len() == 1 && self.old.primary_keys.contains(&names[0]) {
            return Err(unsupported(format!(
                "Cannot change nullability of primary key (column `{}`)",
                names[0]
            )));
        }
        let disable_null = self.disable_null_to_not_null;
        let update = |field: &DataField, depth: usize| -> Result<DataField> {
            let source = root_type(&field.data_type, depth, names.len());
            check_nullability_change(source.nullable, nullable, names, disable_null)?;
            let target = source.with_nullable(nullable);
            Ok(DataField {
                data_type: with_type_at(&field.data_type, &target, depth, names.len()),
                ..field.clone()
            })
        };
        update_nested(&mut self.fields, names, update)
    }

    fn update_column_comment(&mut self, names: &[String], comment: &Option<String>) -> Result<()> {
        check_path(names)?;
        if let Some(c) = comment {
            if is_column_directive(c) {
                return Err(invalid(format!(
                    "Should not alter existing field's type through column directives: {c} \
                     (column `{}`)",
                    dotted(names)
                )));
            }
        }
        let update = |field: &DataField, _depth: usize| -> Result<DataField> {
            Ok(DataField {
                description: comment.clone(),
                ..field.clone()
            })
        };
        update_nested(&mut self.fields, names, update)
    }

    /// Java's `UpdateColumnDefaultValue` branch: the default must convert to the column's type
    /// (`validateDefaultValue`; strata's [`crate::types::default_value`] rules, which also
    /// refuse the types whose text form Java reads in the JVM's time zone).
    fn update_column_default_value(
        &mut self,
        names: &[String],
        value: &Option<String>,
    ) -> Result<()> {
        check_path(names)?;
        let update = |field: &DataField, _depth: usize| -> Result<DataField> {
            if let Some(text) = value {
                crate::types::default_value::parse_default_value(
                    &dotted(names),
                    &field.data_type,
                    text,
                )?;
            }
            Ok(DataField {
                default_value: value.clone(),
                ..field.clone()
            })
        };
        update_nested(&mut self.fields, names, update)
    }

    /// Java's `assertNotUpdatingPartitionKeys`.
    fn refuse_partition_column(&self, names: &[String], operation: &str) -> Result<()> {
        if names.len() == 1 && self.old.partition_keys.contains(&names[0]) {
            return Err(unsupported(format!(
                "Cannot {operation} partition column: [{}]",
                names[0]
            )));
        }
        Ok(())
    }

    /// Java's `assertNotUpdatingPrimaryKeyIndexColumn`.
    fn refuse_primary_key_index_column(&self, names: &[String], operation: &str) -> Result<()> {
        if names.len() != 1 {
            return Ok(());
        }
        for key in PK_INDEX_COLUMN_OPTIONS {
            if let Some(columns) = self.old.options.get(*key) {
                if columns.split(',').map(str::trim).any(|c| c == names[0]) {
                    return Err(unsupported(format!(
                        "Cannot {operation} primary-key index column: [{}] (listed in `{key}`)",
                        names[0]
                    )));
                }
            }
        }
        Ok(())
    }
}

fn check_path(names: &[String]) -> Result<()> {
    if names.is_empty() {
        return Err(invalid(
            "a column change needs a column name (the path is empty)",
        ));
    }
    Ok(())
}

/// Java's `ColumnDirectiveUtils.parseAddColumnComment` recognises these prefixes.
fn is_column_directive(comment: &str) -> bool {
    let c = comment.trim();
    c.starts_with("__BLOB") || c.starts_with("__VECTOR")
}

/// Java's `BlobType.isBlobFileField`.
fn is_blob_file_field(t: &DataType) -> bool {
    match &t.kind {
        TypeKind::Blob => true,
        TypeKind::Array(e) => e.kind == TypeKind::Blob,
        TypeKind::Map { value, .. } => value.kind == TypeKind::Blob,
        _ => false,
    }
}

/// Java's `assertNullabilityChange`.
fn check_nullability_change(
    old_nullable: bool,
    new_nullable: bool,
    names: &[String],
    disable_null_to_not_null: bool,
) -> Result<()> {
    if disable_null_to_not_null && old_nullable && !new_nullable {
        return Err(unsupported(format!(
            "Cannot update column type from nullable to non nullable for {}. You can set table \
             configuration option '{DISABLE_NULL_TO_NOT_NULL}' = 'false' to allow converting \
             null columns to not null",
            dotted(names)
        )));
    }
    Ok(())
}

/// The ROW fields reached through `t` (directly, or through ARRAY elements and MAP values)
/// and how many path segments that takes (Java's `extractRowDataFields`).
fn row_fields_under(t: &DataType) -> (Option<&Vec<DataField>>, usize) {
    match &t.kind {
        TypeKind::Row(fields) => (Some(fields), 1),
        TypeKind::Array(e) => {
            let (f, n) = row_fields_under(e);
            (f, n + 1)
        }
        TypeKind::Map { value, .. } => {
            let (f, n) = row_fields_under(value);
            (f, n + 1)
        }
        _ => (None, 1),
    }
}

/// `t` with the ROW reached by [`row_fields_under`] holding `fields` (Java's `wrapNewRowType`).
fn with_row_fields(t: &DataType, fields: Vec<DataField>) -> DataType {
    let kind = match &t.kind {
        TypeKind::Row(_) => TypeKind::Row(fields),
        TypeKind::Array(e) => TypeKind::Array(Box::new(with_row_fields(e, fields))),
        TypeKind::Map { key, value } => TypeKind::Map {
            key: key.clone(),
            value: Box::new(with_row_fields(value, fields)),
        },
        other => other.clone(),
    };
    DataType::new(kind, t.nullable)
}

/// What a change does to the list of fields holding its last path segment: `(fields, depth,
/// name)` (Java's `NestedColumnModifier.updateLastColumn`).
type LastColumn<'a> = dyn FnMut(&mut Vec<DataField>, usize, &str) -> Result<()> + 'a;

/// Java's `NestedColumnModifier.updateIntermediateColumn`: walks `names` from `depth` and
/// calls `last(fields, depth, name)` on the list that holds the last segment. A path whose
/// segments run out inside ARRAY / MAP types (`["tags", "element"]`) ends at the top column:
/// `last` gets its list and its depth, and changes the type inside it (see [`root_type`]).
fn modify_nested(
    fields: &mut Vec<DataField>,
    names: &[String],
    depth: usize,
    adding: bool,
    last: &mut LastColumn<'_>,
) -> Result<()> {
    if depth + 1 == names.len() {
        return last(fields, depth, &names[depth]);
    }
    let Some(i) = fields.iter().position(|f| f.name == names[depth]) else {
        return Err(not_found(dotted(&names[..=depth])));
    };
    let (nested, levels) = row_fields_under(&fields[i].data_type);
    let next = depth + levels;
    if next >= names.len() {
        return last(fields, depth, &names[depth]);
    }
    let Some(nested) = nested else {
        if adding {
            // Java adds the field to a detached empty list and loses it.
            return Err(invalid(format!(
                "cannot add `{}`: `{}` is {}, not a ROW (or an ARRAY / MAP of ROWs)",
                dotted(names),
                dotted(&names[..=depth]),
                fields[i].data_type
            )));
        }
        return Err(not_found(dotted(names)));
    };
    let mut nested = nested.clone();
    modify_nested(&mut nested, names, next, adding, last)?;
    fields[i].data_type = with_row_fields(&fields[i].data_type, nested);
    Ok(())
}

/// Java's `updateNestedColumn`: replaces the field the path ends at with `update(field,
/// depth)`.
fn update_nested(
    fields: &mut Vec<DataField>,
    names: &[String],
    mut update: impl FnMut(&DataField, usize) -> Result<DataField>,
) -> Result<()> {
    let mut last = |fields: &mut Vec<DataField>, depth: usize, name: &str| -> Result<()> {
        let Some(i) = fields.iter().position(|f| f.name == name) else {
            return Err(not_found(dotted(names)));
        };
        fields[i] = update(&fields[i], depth)?;
        Ok(())
    };
    modify_nested(fields, names, 0, false, &mut last)
}

/// The type at path depth `max_depth - 1`, starting from `t` at `depth` and going through
/// ARRAY elements and MAP values (Java's `getRootType`).
fn root_type(t: &DataType, depth: usize, max_depth: usize) -> &DataType {
    if depth + 1 >= max_depth {
        return t;
    }
    match &t.kind {
        TypeKind::Array(e) => root_type(e, depth + 1, max_depth),
        TypeKind::Map { value, .. } => root_type(value, depth + 1, max_depth),
        _ => t,
    }
}

/// `source` with the type [`root_type`] finds replaced by `target` (Java's
/// `getArrayMapTypeWithTargetTypeRoot`).
fn with_type_at(source: &DataType, target: &DataType, depth: usize, max_depth: usize) -> DataType {
    if depth + 1 >= max_depth {
        return target.clone();
    }
    match &source.kind {
        TypeKind::Array(e) => DataType::new(
            TypeKind::Array(Box::new(with_type_at(e, target, depth + 1, max_depth))),
            source.nullable,
        ),
        TypeKind::Map { key, value } => DataType::new(
            TypeKind::Map {
                key: key.clone(),
                value: Box::new(with_type_at(value, target, depth + 1, max_depth)),
            },
            source.nullable,
        ),
        _ => target.clone(),
    }
}

/// Java's `SchemaManager.applyMove` (top-level columns).
fn apply_move(fields: &mut Vec<DataField>, m: &ColumnMove) -> Result<()> {
    let index = |name: &str| fields.iter().position(|f| f.name == name);
    let Some(from) = index(&m.field_name) else {
        return Err(not_found(m.field_name.clone()));
    };
    let cannot_move_itself = || {
        invalid(format!(
            "Cannot move itself for column {} (it is already there)",
            m.field_name
        ))
    };
    let to = match m.move_type {
        MoveType::First => {
            if from == 0 {
                return Err(cannot_move_itself());
            }
            0
        }
        MoveType::Last => {
            if from + 1 == fields.len() {
                return Err(cannot_move_itself());
            }
            fields.len() - 1
        }
        MoveType::After | MoveType::Before => {
            let reference = m.reference_field_name.as_deref().unwrap_or_default();
            let Some(r) = index(reference) else {
                return Err(not_found(reference));
            };
            if r == from {
                return Err(cannot_move_itself());
            }
            let mut target = r;
            if m.move_type == MoveType::After && from > r {
                target += 1;
            }
            if m.move_type == MoveType::Before && from < r {
                target -= 1;
            }
            target.min(fields.len() - 1)
        }
    };
    let field = fields.remove(from);
    fields.insert(to, field);
    Ok(())
}

/// Renames of top-level columns (old name, new name) in change order. Java collects them
/// into a map with `Collectors.toMap`, which fails on a name renamed twice.
fn top_level_renames(changes: &[SchemaChange]) -> Result<Renames> {
    let mut renames = Renames::default();
    for change in changes {
        if let SchemaChange::RenameColumn {
            field_names,
            new_name,
        } = change
        {
            if field_names.len() != 1 {
                continue;
            }
            if renames
                .map
                .insert(field_names[0].clone(), new_name.clone())
                .is_some()
            {
                return Err(invalid(format!(
                    "column `{}` is renamed twice in one change list",
                    field_names[0]
                )));
            }
            renames
                .ordered
                .push((field_names[0].clone(), new_name.clone()));
        }
    }
    Ok(renames)
}

#[derive(Default)]
struct Renames {
    map: HashMap<String, String>,
    ordered: Vec<(String, String)>,
}

/// Java's `applyNotNestedColumnRename`: each name replaced by its new name, order kept.
fn rename_columns(columns: &[String], renames: &Renames) -> Vec<String> {
    columns
        .iter()
        .map(|c| renames.map.get(c).cloned().unwrap_or_else(|| c.clone()))
        .collect()
}

fn rename_list(list: &str, renames: &Renames) -> String {
    let columns: Vec<String> = list.split(',').map(str::to_string).collect();
    rename_columns(&columns, renames).join(",")
}

/// Java's `applyRenameColumnsToOptions`, for renames of top-level columns.
fn rename_in_options(
    options: &BTreeMap<String, String>,
    renames: &Renames,
) -> BTreeMap<String, String> {
    if renames.ordered.is_empty() {
        return options.clone();
    }
    let mut out = options.clone();
    // Options whose value lists columns.
    for key in [BUCKET_KEY, SEQUENCE_FIELD] {
        if let Some(v) = options.get(key).filter(|v| !v.trim().is_empty()) {
            out.insert(key.to_string(), rename_list(v, renames));
        }
    }
    // Per-column options named after the column, moved rename by rename in change order.
    for (old, new) in &renames.ordered {
        for suffix in RENAMED_FIELD_OPTION_SUFFIXES {
            if let Some(v) = out.remove(&format!("fields.{old}.{suffix}")) {
                out.insert(format!("fields.{new}.{suffix}"), v);
            }
        }
    }
    // `fields.<cols>.sequence-group = <cols>` and `fields.<cols>.nested-key = <cols>`.
    for (key, value) in options {
        let Some(rest) = key.strip_prefix("fields.") else {
            continue;
        };
        for suffix in [SEQUENCE_GROUP, NESTED_KEY] {
            let Some(columns) = rest.strip_suffix(suffix).and_then(|r| r.strip_suffix('.')) else {
                continue;
            };
            out.remove(key);
            out.insert(
                format!("fields.{}.{suffix}", rename_list(columns, renames)),
                rename_list(value, renames),
            );
            break;
        }
    }
    out
}

/// Java's `ColumnDirectiveUtils.removeDroppedDirectiveOptions`: a dropped MAP column takes
/// its `fields.<col>.map.*` options along, a dropped BLOB column leaves the BLOB column lists.
fn remove_dropped_column_options(
    name: &str,
    data_type: &DataType,
    options: &mut BTreeMap<String, String>,
) {
    if is_blob_file_field(data_type) {
        for key in BLOB_FIELD_OPTIONS {
            if let Some(v) = options.get(*key) {
                let kept: Vec<&str> = v
                    .split(',')
                    .map(str::trim)
                    .filter(|c| !c.is_empty() && *c != name)
                    .collect();
                let kept = kept.join(",");
                options.insert(key.to_string(), kept);
            }
        }
    } else if matches!(data_type.kind, TypeKind::Map { .. }) {
        for suffix in [
            MAP_STORAGE_LAYOUT,
            MAP_MAX_COLUMNS,
            MAP_PLACEMENT_POLICY,
            MAP_MAX_DEDICATED_COLUMNS,
        ] {
            options.remove(&format!("fields.{name}.{suffix}"));
        }
    }
}

/// Java's `Schema.normalizeFields`: top-level names unique, keys existing, primary-key columns
/// with the nullability `primary-key.nullable` gives them.
fn normalize_primary_key_nullability(
    fields: Vec<DataField>,
    primary_keys: &[String],
    options: &BTreeMap<String, String>,
) -> Result<Vec<DataField>> {
    if primary_keys.is_empty() {
        return Ok(fields);
    }
    let nullable = crate::options::CoreOptions::new(options.clone()).primary_key_nullable()?;
    Ok(fields
        .into_iter()
        .map(|mut f| {
            if primary_keys.contains(&f.name) && f.data_type.nullable != nullable {
                f.data_type = f.data_type.with_nullable(nullable);
            }
            f
        })
        .collect())
}

/// Java's `SchemaManager.checkAlterTableOption`, for a table that has snapshots.
fn check_alter_table_option(
    options: &BTreeMap<String, String>,
    key: &str,
    old_value: Option<&str>,
    new_value: &str,
) -> Result<()> {
    if IMMUTABLE_OPTIONS.contains(&key) {
        return Err(unsupported(format!(
            "Change '{key}' is not supported yet: `{key}` is immutable once the table has \
             snapshots"
        )));
    }
    if key == BUCKET {
        let old_bucket = match old_value {
            Some(v) => java_int(key, v)?,
            None => options::DYNAMIC_BUCKET,
        };
        let new_bucket = java_int(key, new_value)?;
        if old_bucket == -1 {
            return Err(unsupported(
                "Cannot change bucket when it is -1 (the table has snapshots).",
            ));
        }
        if new_bucket == -1 {
            return Err(unsupported(
                "Cannot change bucket to -1 (the table has snapshots).",
            ));
        }
    }
    if key == DELETION_VECTORS_ENABLED
        && !java_bool(options.get(DELETION_VECTORS_MODIFIABLE), false)
    {
        let old_dv = old_value.is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let new_dv = new_value.eq_ignore_ascii_case("true");
        if old_dv != new_dv {
            return Err(unsupported(format!(
                "Cannot change deletion vectors mode from {old_dv} to {new_dv}. If modifying \
                 table deletion-vectors mode without full-compaction, this may result in data \
                 duplication. If you are confident, you can set table option \
                 '{DELETION_VECTORS_MODIFIABLE}' = 'true' to allow deletion vectors \
                 modification."
            )));
        }
    }
    for flag in [IGNORE_DELETE, IGNORE_UPDATE_BEFORE] {
        if key == flag
            && old_value.is_some_and(|v| v.eq_ignore_ascii_case("true"))
            && !new_value.eq_ignore_ascii_case("true")
        {
            return Err(unsupported(format!(
                "Cannot change {flag} from true to false."
            )));
        }
    }
    if key == CLUSTERING_COLUMNS && options.contains_key(PK_CLUSTERING_OVERRIDE) {
        return Err(unsupported(format!(
            "Cannot change {CLUSTERING_COLUMNS} when {PK_CLUSTERING_OVERRIDE} enabled."
        )));
    }
    Ok(())
}

/// Java's `SchemaManager.checkResetTableOption`, for a table that has snapshots.
fn check_reset_table_option(options: &BTreeMap<String, String>, key: &str) -> Result<()> {
    if IMMUTABLE_OPTIONS.contains(&key) {
        return Err(unsupported(format!(
            "Change '{key}' is not supported yet: `{key}` is immutable once the table has \
             snapshots"
        )));
    }
    if key == BUCKET {
        return Err(unsupported(
            "Cannot reset bucket (the table has snapshots).",
        ));
    }
    if key == DELETION_VECTORS_ENABLED {
        check_alter_table_option(options, key, options.get(key).map(String::as_str), "false")?;
    }
    if key == CLUSTERING_COLUMNS && options.contains_key(PK_CLUSTERING_OVERRIDE) {
        return Err(unsupported(format!(
            "Cannot reset {key} when {PK_CLUSTERING_OVERRIDE} enabled."
        )));
    }
    Ok(())
}
