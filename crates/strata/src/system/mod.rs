//! Paimon's system tables (`t$snapshots`, `t$files`, …) as Arrow record batches, for the SQL
//! front end, the CLI and embedders.
//!
//! Each table is a function of a [`Table`] returning one [`RecordBatch`] with exactly the
//! columns of Java Paimon 2.0's `org.apache.paimon.table.system.*` table — names, order,
//! types (through strata's Paimon → Arrow mapping: `STRING` → `Utf8`, `BIGINT` → `Int64`,
//! `TIMESTAMP(3)` → `Timestamp(ms)`, `ARRAY<STRING>` → `List<Utf8>`) and nullability — and the
//! text columns printed as Java prints them (`java_text`). [`system_table`] dispatches by
//! name and [`system_table_schema`] gives a table's schema without reading anything.
//!
//! | name | rows | Java |
//! |---|---|---|
//! | `snapshots` | every snapshot, by id | `SnapshotsTable` |
//! | `schemas` | every schema version; fields, keys and options as flat JSON | `SchemasTable` |
//! | `options` | the latest schema's options | `OptionsTable` |
//! | `tags` | every tag, by name | `TagsTable` |
//! | `consumers` | `consumer/consumer-<id>` files | `ConsumersTable` |
//! | `files` | live data files with keys and statistics as text | `FilesTable` |
//! | `manifests` | the snapshot's base, delta and changelog manifests | `ManifestsTable` |
//! | `partitions` | files, rows, bytes and last update per partition | `PartitionsTable` |
//! | `buckets` | files, rows, bytes and last update per bucket | `BucketsTable` |
//! | `levels` | **strata's own**: live files with level and sorted run, run by run per bucket (the LSM tree) | — |
//!
//! `files`, `levels`, `manifests`, `partitions` and `buckets` also exist for a given snapshot
//! (`files_at(table, Some(id))`, [`system_table_at`]), like Java's `scan.snapshot-id` on them;
//! the others show the table's current metadata.
//!
//! Row order is Java's where Java sorts (schemas, snapshots, tags, partitions, buckets) and
//! the order of the `HashMap` Java iterates for options and consumers. `files` lists files by
//! partition, bucket, level, min key and name (Java's order follows its scan splits).
//!
//! The module also holds [`live_files`], the live-file listing (partition values and keys
//! decoded) that `strata files` and `strata levels` print, and [`levels_doc`], the data model
//! of the LSM-tree picture of `strata levels` built from that listing ([`LevelsDoc`]; the SVG
//! drawing of it is the `strata-levels-svg` crate).

mod aggregates;
mod batch;
mod branches;
mod files;
mod java_text;
mod levels_doc;
mod live;
mod metadata;
mod stats_text;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use strata_spec::DataField;

pub use aggregates::{buckets, buckets_at, manifests, manifests_at, partitions, partitions_at};
pub use branches::branches;
pub use files::{files, files_at, levels, levels_at};
pub use levels_doc::{key_text, levels_doc, BucketPanel, FileBox, Key, KeyCell, LevelsDoc, Source};
pub use live::{compare_keys, compare_values, live_files, KeyValues, LiveFile, LiveFiles};
pub use metadata::{consumers, options, schemas, snapshots, tags};

use crate::error::ErrorDetail;
use crate::table::Table;
use crate::{Error, Result};

/// The system tables, in the order they are documented.
const NAMES: &[&str] = &[
    "snapshots",
    "schemas",
    "options",
    "tags",
    "consumers",
    "branches",
    "files",
    "manifests",
    "partitions",
    "buckets",
    "levels",
];

/// Those that can be read as of a given snapshot.
const TIME_TRAVEL: &[&str] = &["files", "manifests", "partitions", "buckets", "levels"];

/// Names of the system tables (`snapshots`, `schemas`, …, `levels`).
pub fn system_table_names() -> &'static [&'static str] {
    NAMES
}

/// Whether system table `name` can be read as of a given snapshot ([`system_table_at`]).
pub fn supports_time_travel(name: &str) -> bool {
    TIME_TRAVEL.contains(&name.to_ascii_lowercase().as_str())
}

fn unknown(name: &str, of: Option<&Table>) -> Error {
    let of = of
        .map(|t| format!(" of {}", t.identifier()))
        .unwrap_or_default();
    ErrorDetail::InvalidArgument(format!(
        "unknown system table `{name}`{of}; the system tables are {}",
        NAMES.join(", ")
    ))
    .into()
}

/// The canonical (lower-case) name of system table `name`, matched case-insensitively like
/// Java's `SystemTableLoader`.
fn canonical(name: &str, of: Option<&Table>) -> Result<&'static str> {
    let lower = name.to_ascii_lowercase();
    NAMES
        .iter()
        .copied()
        .find(|n| *n == lower)
        .ok_or_else(|| unknown(name, of))
}

/// The columns of system table `name` as Paimon fields (ids 0.., Java's types and
/// nullability).
pub fn system_table_fields(name: &str) -> Result<Vec<DataField>> {
    Ok(match canonical(name, None)? {
        "snapshots" => metadata::snapshots_fields(),
        "schemas" => metadata::schemas_fields(),
        "options" => metadata::options_fields(),
        "tags" => metadata::tags_fields(),
        "consumers" => metadata::consumers_fields(),
        "branches" => branches::branches_fields(),
        "files" => files::files_fields(),
        "manifests" => aggregates::manifests_fields(),
        "partitions" => aggregates::partitions_fields(),
        "buckets" => aggregates::buckets_fields(),
        "levels" => files::levels_fields(),
        other => return Err(unknown(other, None)),
    })
}

/// The Arrow schema of system table `name` (what [`system_table`] returns).
pub fn system_table_schema(name: &str) -> Result<SchemaRef> {
    batch::arrow_schema(&system_table_fields(name)?)
}

/// System table `name` of `table` (latest snapshot). An unknown name is
/// `ErrorDetail::InvalidArgument` listing the known ones.
pub async fn system_table(table: &Table, name: &str) -> Result<RecordBatch> {
    system_table_at(table, name, None).await
}

/// System table `name` of `table` as of snapshot `snapshot_id` (`None`: the latest). Asking
/// a table without time travel ([`supports_time_travel`]) for a snapshot is
/// `ErrorDetail::InvalidArgument`.
pub async fn system_table_at(
    table: &Table,
    name: &str,
    snapshot_id: Option<i64>,
) -> Result<RecordBatch> {
    let name = canonical(name, Some(table))?;
    if snapshot_id.is_some() && !supports_time_travel(name) {
        return Err(ErrorDetail::InvalidArgument(format!(
            "system table {}${name} shows the current metadata and cannot be read as of a \
             snapshot (time travel applies to {})",
            table.identifier(),
            TIME_TRAVEL.join(", ")
        ))
        .into());
    }
    match name {
        "snapshots" => snapshots(table).await,
        "schemas" => schemas(table).await,
        "options" => options(table).await,
        "tags" => tags(table).await,
        "consumers" => consumers(table).await,
        "branches" => branches(table).await,
        "files" => files_at(table, snapshot_id).await,
        "manifests" => manifests_at(table, snapshot_id).await,
        "partitions" => partitions_at(table, snapshot_id).await,
        "buckets" => buckets_at(table, snapshot_id).await,
        "levels" => levels_at(table, snapshot_id).await,
        other => Err(unknown(other, Some(table))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_schemas_and_unknown_names() {
        for name in system_table_names() {
            let schema = system_table_schema(name).unwrap();
            let fields = system_table_fields(name).unwrap();
            assert_eq!(schema.fields().len(), fields.len(), "{name}");
            for (i, f) in fields.iter().enumerate() {
                assert_eq!(f.id, i as i32, "{name}.{}", f.name);
            }
        }
        assert_eq!(system_table_schema("FILES").unwrap().fields().len(), 20);
        let err = system_table_schema("nope").unwrap_err().to_string();
        assert!(
            err.contains("`nope`") && err.contains("snapshots, schemas"),
            "{err}"
        );
        assert!(supports_time_travel("files") && !supports_time_travel("snapshots"));
    }

    #[test]
    fn java_column_lists() {
        let names = |t: &str| -> Vec<String> {
            system_table_fields(t)
                .unwrap()
                .into_iter()
                .map(|f| f.name)
                .collect()
        };
        assert_eq!(
            names("snapshots").join(","),
            "snapshot_id,schema_id,commit_user,commit_identifier,commit_kind,commit_time,\
             base_manifest_list,delta_manifest_list,changelog_manifest_list,total_record_count,\
             delta_record_count,changelog_record_count,watermark,next_row_id,operation"
        );
        assert_eq!(
            names("files").join(","),
            "partition,bucket,file_path,file_format,schema_id,level,record_count,\
             file_size_in_bytes,min_key,max_key,null_value_counts,min_value_stats,\
             max_value_stats,min_sequence_number,max_sequence_number,creation_time,\
             deleteRowCount,file_source,first_row_id,write_cols"
        );
        assert_eq!(
            names("partitions").join(","),
            "partition,record_count,file_size_in_bytes,file_count,last_update_time,created_at,\
             created_by,updated_by,options,total_buckets,done,deleted_record_count"
        );
    }
}
