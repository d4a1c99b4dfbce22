//! The system tables read from a table's JSON metadata files: `snapshots`, `schemas`,
//! `options`, `tags` and `consumers` (Java's `SnapshotsTable`, `SchemasTable`, `OptionsTable`,
//! `TagsTable`, `ConsumersTable`).
//!
//! Java shows epoch-millis times (`commit_time`, `update_time`) as the local date-time of the
//! system time zone; so do these tables. Options come out in the iteration order of the
//! `HashMap` Java reads them into, filled in the order of the schema file.

use arrow_array::RecordBatch;
use object_store::path::Path;
use strata_spec::schema::TableSchema;
use strata_spec::types::json::field_to_json;
use strata_spec::{DataField, TypeKind};

use super::batch::{col, string, Cell, Rows};
use super::java_text::{
    compare_java_strings, duration_text, flat_json, hash_map_order, local_wall_clock_millis,
    naive_millis,
};
use crate::maintenance::TagManager;
use crate::table::Table;
use crate::{Error, Result};

/// Columns of `snapshots` (Java 2.0 `SnapshotsTable.TABLE_TYPE`).
pub(super) fn snapshots_fields() -> Vec<DataField> {
    vec![
        col(0, "snapshot_id", TypeKind::BigInt, false),
        col(1, "schema_id", TypeKind::BigInt, false),
        col(2, "commit_user", string(), false),
        col(3, "commit_identifier", TypeKind::BigInt, false),
        col(4, "commit_kind", string(), false),
        col(5, "commit_time", TypeKind::Timestamp(3), false),
        col(6, "base_manifest_list", string(), false),
        col(7, "delta_manifest_list", string(), false),
        col(8, "changelog_manifest_list", string(), true),
        col(9, "total_record_count", TypeKind::BigInt, true),
        col(10, "delta_record_count", TypeKind::BigInt, true),
        col(11, "changelog_record_count", TypeKind::BigInt, true),
        col(12, "watermark", TypeKind::BigInt, true),
        col(13, "next_row_id", TypeKind::BigInt, true),
        col(14, "operation", string(), true),
    ]
}

/// Columns of `schemas`.
pub(super) fn schemas_fields() -> Vec<DataField> {
    vec![
        col(0, "schema_id", TypeKind::BigInt, false),
        col(1, "fields", string(), false),
        col(2, "partition_keys", string(), false),
        col(3, "primary_keys", string(), false),
        col(4, "options", string(), false),
        col(5, "comment", string(), true),
        col(6, "update_time", TypeKind::Timestamp(3), false),
    ]
}

/// Columns of `options`.
pub(super) fn options_fields() -> Vec<DataField> {
    vec![
        col(0, "key", string(), false),
        col(1, "value", string(), false),
    ]
}

/// Columns of `tags`.
pub(super) fn tags_fields() -> Vec<DataField> {
    vec![
        col(0, "tag_name", string(), false),
        col(1, "snapshot_id", TypeKind::BigInt, false),
        col(2, "schema_id", TypeKind::BigInt, false),
        col(3, "commit_time", TypeKind::Timestamp(3), false),
        col(4, "record_count", TypeKind::BigInt, true),
        col(5, "create_time", TypeKind::Timestamp(3), true),
        col(6, "time_retained", string(), true),
    ]
}

/// Columns of `consumers`.
pub(super) fn consumers_fields() -> Vec<DataField> {
    vec![
        col(0, "consumer_id", string(), false),
        col(1, "next_snapshot_id", TypeKind::BigInt, false),
    ]
}

fn name(table: &Table, system: &str) -> String {
    format!("{}${system}", table.identifier())
}

/// `snapshots`: every snapshot file present, by id. A snapshot expired while listing is
/// skipped.
pub async fn snapshots(table: &Table) -> Result<RecordBatch> {
    let sm = table.snapshot_manager();
    let mut rows = Rows::new(name(table, "snapshots"), snapshots_fields());
    for id in sm.list_ids().await? {
        let s = match sm.snapshot(id).await {
            Ok(s) => s,
            Err(e) if e.is_snapshot_not_found() => continue,
            Err(e) => return Err(e),
        };
        rows.push(vec![
            Cell::Long(s.id),
            Cell::Long(s.schema_id),
            Cell::Str(s.commit_user),
            Cell::Long(s.commit_identifier),
            s.commit_kind.as_str().into(),
            Cell::Millis(local_wall_clock_millis(s.time_millis)),
            Cell::Str(s.base_manifest_list),
            Cell::Str(s.delta_manifest_list),
            s.changelog_manifest_list.into(),
            Cell::Long(s.total_record_count),
            Cell::Long(s.delta_record_count),
            s.changelog_record_count.into(),
            s.watermark.into(),
            s.next_row_id.into(),
            s.operation.into(),
        ])?;
    }
    rows.finish()
}

/// A schema file parsed, with its options in Java's `HashMap` order.
struct SchemaFile {
    schema: TableSchema,
    options: Vec<(String, String)>,
}

async fn read_schema_file(table: &Table, id: i64) -> Result<SchemaFile> {
    let io = table.file_io();
    let path = table.paths().schema_file(id);
    let shown = io.display(&path);
    let bytes = io.get(&path).await?;
    let corrupt = |m: String| {
        Error::corrupt(
            shown.clone(),
            strata_spec::SpecError::invalid("schema file", m),
        )
    };
    let text = std::str::from_utf8(&bytes).map_err(|e| corrupt(format!("not UTF-8: {e}")))?;
    let schema = TableSchema::from_json(text).map_err(|e| Error::corrupt(shown.clone(), e))?;
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| corrupt(format!("not JSON: {e}")))?;
    // Java's `SchemaSerializer` puts the options into a `HashMap` in file order, then the
    // defaults it adds for old versions.
    let mut keys: Vec<String> = value
        .get("options")
        .and_then(|o| o.as_object())
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    for k in ["bucket", "file.format"] {
        if schema.options.contains_key(k) && !keys.iter().any(|x| x == k) {
            keys.push(k.to_string());
        }
    }
    let entries: Vec<(String, String)> = keys
        .into_iter()
        .filter_map(|k| schema.options.get(&k).map(|v| (k.clone(), v.clone())))
        .collect();
    Ok(SchemaFile {
        options: hash_map_order(entries),
        schema,
    })
}

fn string_list_json(items: &[String], what: &str) -> Result<String> {
    flat_json(
        &serde_json::Value::Array(
            items
                .iter()
                .map(|s| serde_json::Value::String(s.clone()))
                .collect(),
        ),
        what,
    )
}

/// `schemas`: every schema version, by id; `fields`, `partition_keys`, `primary_keys` and
/// `options` as Java's flat JSON.
pub async fn schemas(table: &Table) -> Result<RecordBatch> {
    let table_name = name(table, "schemas");
    let mut rows = Rows::new(table_name.clone(), schemas_fields());
    for id in table.schema_manager().list_ids().await? {
        let SchemaFile { schema, options } = read_schema_file(table, id).await?;
        let what = |part: &str| format!("{part} of schema {id} ({table_name})");
        let fields = serde_json::Value::Array(schema.fields.iter().map(field_to_json).collect());
        let options = serde_json::Value::Object(
            options
                .into_iter()
                .map(|(k, v)| (k, serde_json::Value::String(v)))
                .collect(),
        );
        rows.push(vec![
            Cell::Long(schema.id),
            Cell::Str(flat_json(&fields, &what("fields"))?),
            Cell::Str(string_list_json(
                &schema.partition_keys,
                &what("partition keys"),
            )?),
            Cell::Str(string_list_json(
                &schema.primary_keys,
                &what("primary keys"),
            )?),
            Cell::Str(flat_json(&options, &what("options"))?),
            schema.comment.into(),
            Cell::Millis(local_wall_clock_millis(schema.time_millis)),
        ])?;
    }
    rows.finish()
}

/// `options`: the options of the latest schema file (dynamic options of this handle are not
/// shown, as in Java).
pub async fn options(table: &Table) -> Result<RecordBatch> {
    let mut rows = Rows::new(name(table, "options"), options_fields());
    if let Some(id) = table.schema_manager().list_ids().await?.last() {
        for (k, v) in read_schema_file(table, *id).await?.options {
            rows.push(vec![Cell::Str(k), Cell::Str(v)])?;
        }
    }
    rows.finish()
}

/// `tags`: every tag, by name.
pub async fn tags(table: &Table) -> Result<RecordBatch> {
    let mut all = TagManager::new(table).all().await?;
    all.sort_by(|a, b| compare_java_strings(&a.name, &b.name));
    let mut rows = Rows::new(name(table, "tags"), tags_fields());
    for t in all {
        rows.push(vec![
            Cell::Str(t.name),
            Cell::Long(t.snapshot.id),
            Cell::Long(t.snapshot.schema_id),
            Cell::Millis(local_wall_clock_millis(t.snapshot.time_millis)),
            Cell::Long(t.snapshot.total_record_count),
            t.create_time
                .map_or(Cell::Null, |c| Cell::Millis(naive_millis(&c))),
            t.time_retained
                .map_or(Cell::Null, |d| Cell::Str(duration_text(d))),
        ])?;
    }
    rows.finish()
}

/// Prefix of consumer files in `consumer/` (`ConsumerManager.CONSUMER_PREFIX`).
const CONSUMER_PREFIX: &str = "consumer-";

/// `consumers`: the `consumer/consumer-<id>` files (`{"nextSnapshot": n}`) in Java's
/// `HashMap` order; empty when there are none.
pub async fn consumers(table: &Table) -> Result<RecordBatch> {
    let io = table.file_io();
    let dir: Path = table.paths().consumer_dir();
    let (_, files) = io.list_dir(&dir).await?;
    let mut ids: Vec<String> = files
        .iter()
        .filter_map(|m| m.location.filename())
        .filter_map(|n| n.strip_prefix(CONSUMER_PREFIX))
        .map(str::to_string)
        .collect();
    ids.sort();
    let mut entries = Vec::with_capacity(ids.len());
    for id in ids {
        let path = dir.clone().join(format!("{CONSUMER_PREFIX}{id}"));
        // A consumer removed while listing is skipped, as Java's `Consumer.fromPath` does.
        let Some(bytes) = io.get_opt(&path).await? else {
            continue;
        };
        let shown = io.display(&path);
        let bad = |m: String| {
            Error::corrupt(
                shown.clone(),
                strata_spec::SpecError::invalid("consumer file", m),
            )
        };
        let value: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|e| bad(format!("not JSON: {e}")))?;
        let next = value
            .get("nextSnapshot")
            .and_then(|v| v.as_i64())
            .ok_or_else(|| bad("no integer member nextSnapshot".into()))?;
        entries.push((id, next));
    }
    let mut rows = Rows::new(name(table, "consumers"), consumers_fields());
    for (id, next) in hash_map_order(entries) {
        rows.push(vec![Cell::Str(id), Cell::Long(next)])?;
    }
    rows.finish()
}
