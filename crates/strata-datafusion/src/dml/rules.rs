//! The refusals of row-level statements that need no rows: what a table's merge engine and
//! options let `UPDATE`, `DELETE` and `MERGE INTO` do at all (Java's
//! `PrimaryKeyTableUtils.validatePKUpsertDeletable`, Spark's `RowLevelOp`), and the columns an
//! update may not assign. Checked when the statement is planned, before any row is read; the
//! checks that need each row are in [`super::row_effect`].

use datafusion::common::Result;
use strata::table::Table;

use crate::error::plan_error;

fn option_true(table: &Table, key: &str) -> bool {
    table
        .schema()
        .options
        .get(key)
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

fn merge_engine(table: &Table) -> String {
    table
        .schema()
        .options
        .get("merge-engine")
        .map_or_else(|| "deduplicate".to_string(), |v| v.to_ascii_lowercase())
}

/// Java's `PrimaryKeyTableUtils.validatePKUpsertDeletable`, and `ignore-delete` (its fallback
/// keys `deduplicate.` / `partial-update.` / `first-row.ignore-delete` included): the writer
/// drops every `-D` of such a table (Java's `RowKindFilter`), so a DELETE would delete nothing
/// (Spark's `DeleteFromPaimonTableCommand` reports success all the same).
pub(crate) fn check_deletable(table: &Table, what: &str) -> Result<()> {
    for key in IGNORE_DELETE_KEYS {
        if let Some(v) = table.schema().options.get(key) {
            if v.eq_ignore_ascii_case("true") {
                return Err(plan_error(format!(
                    "{what} on {}: the table has '{key}' = 'true', so its writers drop delete \
                     records and no row would be deleted",
                    table.identifier()
                )));
            }
            // The first key set decides (CoreOptions.IGNORE_DELETE and its fallback keys).
            break;
        }
    }
    let engine = merge_engine(table);
    let ok = match engine.as_str() {
        "deduplicate" => true,
        "partial-update" => {
            option_true(table, "partial-update.remove-record-on-delete")
                || table
                    .schema()
                    .options
                    .contains_key("partial-update.remove-record-on-sequence-group")
        }
        "aggregation" => option_true(table, "aggregation.remove-record-on-delete"),
        _ => false,
    };
    if ok {
        return Ok(());
    }
    Err(plan_error(format!(
        "{what} on {}: merge engine {engine} does not remove a row on a delete record; set \
         'partial-update.remove-record-on-delete' (partial-update) or \
         'aggregation.remove-record-on-delete' (aggregation) to 'true', as Paimon requires",
        table.identifier()
    )))
}

/// `ignore-delete` and its fallback keys, in Java's order (`CoreOptions.IGNORE_DELETE`).
const IGNORE_DELETE_KEYS: [&str; 4] = [
    "ignore-delete",
    "first-row.ignore-delete",
    "deduplicate.ignore-delete",
    "partial-update.ignore-delete",
];

/// Spark's `RowLevelOp.MergeInto`: MERGE INTO only on `deduplicate` and `partial-update`
/// tables (a `first-row` table would drop, an `aggregation` table aggregate, an inserted row
/// whose key it holds).
pub(crate) fn check_mergeable(table: &Table) -> Result<()> {
    let engine = merge_engine(table);
    if engine == "deduplicate" || engine == "partial-update" {
        return Ok(());
    }
    Err(plan_error(format!(
        "MERGE INTO {}: merge engine {engine} does not support MERGE INTO (Paimon's MERGE INTO \
         takes deduplicate and partial-update tables: an inserted row whose key the table holds \
         would be {}); use INSERT INTO for new rows",
        table.identifier(),
        if engine == "first-row" {
            "dropped"
        } else {
            "aggregated into the stored row"
        }
    )))
}

/// Java's `RowLevelOp.Update`: only `deduplicate` and `partial-update` apply an update.
pub(crate) fn check_updatable(table: &Table, what: &str) -> Result<()> {
    let engine = merge_engine(table);
    if engine == "deduplicate" || engine == "partial-update" {
        return Ok(());
    }
    Err(plan_error(format!(
        "{what} on {}: merge engine {engine} cannot apply updates; Paimon supports UPDATE for \
         deduplicate and partial-update tables",
        table.identifier()
    )))
}

/// An update may not assign a primary-key or partition column (the row would move).
pub(crate) fn check_assignments(table: &Table, what: &str, names: &[&str]) -> Result<()> {
    let schema = table.schema();
    for name in names {
        if schema.primary_keys.iter().any(|k| k == name) {
            return Err(plan_error(format!(
                "{what} on {}: cannot assign primary-key column {name}",
                table.identifier()
            )));
        }
        if schema.partition_keys.iter().any(|k| k == name) {
            return Err(plan_error(format!(
                "{what} on {}: cannot assign partition column {name}",
                table.identifier()
            )));
        }
    }
    Ok(())
}
