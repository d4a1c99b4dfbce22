//! Row-level statements on primary-key tables must do what they say, or fail before their
//! commit.
//!
//! `UPDATE`, `DELETE` and `MERGE INTO` on a primary-key table are written as row kinds (`+U`
//! with the whole updated row, `-D` with the stored row), as Paimon's Spark connector does
//! (`UpdatePaimonTableCommand`, `DeleteFromPaimonTableCommand`, `MergeIntoPaimonTable`). What
//! a reader sees afterwards is the table's merge engine applied to the stored row and the new
//! record, and on several tables that is not what the statement says:
//!
//! * `partial-update` never overwrites a value with NULL (`UPDATE … SET c = NULL` keeps `c`);
//! * an aggregate function on a `partial-update` column (`fields.c.aggregate-function`, which
//!   Paimon allows inside a sequence group) combines the written value with the stored one
//!   (`SET v = 5` adds 5 under `sum`, and the whole row an UPDATE writes adds every such column
//!   to itself);
//! * a sequence group whose ordering fields are NULL in the written row is skipped, and one
//!   whose ordering value is lower than the stored row's keeps the stored values;
//! * with `sequence.field` the record with the lower sequence value loses, so an `UPDATE` that
//!   lowers it changes nothing;
//! * a `-D` on `partial-update` with `partial-update.remove-record-on-sequence-group` removes the
//!   row only when that group's ordering value is set, otherwise it only retracts columns.
//!
//! Spark and Flink report success on all of these. strata checks each written record instead:
//! the table's merge function ([`RecordMerge`], the one its readers and compactions
//! use) merges the stored row (as read by the statement, `+I`) with the new record as the
//! writer writes it (column defaults in place of NULLs, Java's `DefaultValueRow`), ordered as
//! Paimon orders them (`sequence.field` values, then the newer record last), and the result
//! must be the row written (`+U`) or no row (`-D`). Otherwise the statement fails before
//! its commit with an error naming the row's key, the column, the option and why. Merge
//! engines whose row-level statements can never lose (`deduplicate` without `sequence.field`)
//! skip the check. The refusals that need no rows — `ignore-delete`, merge engines that take no
//! UPDATE, DELETE or MERGE at all — are in [`super::rules`] and [`super::merge`].

use std::cmp::Ordering;
use std::sync::Arc;

use arrow::util::display::array_value_to_string;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use datafusion::common::Result;
use strata::arrow::{
    cast_batch_to_schema, cast_batch_with_defaults, to_arrow_schema_of, ColumnDefaults,
};
use strata::spec::kv::RowKind;
use strata::spec::options::{CoreOptions, MergeEngine};
use strata::spec::types::DataField;
use strata::table::Table;
use strata::write::{MergeRow, RecordMerge};

use crate::error::{plan_error, to_df};

/// The prefix of the columns carrying a changed row's stored values (`__strata_old_<column>`),
/// after the table's columns in a checked sink's input.
pub(crate) const OLD_PREFIX: &str = "__strata_old_";

/// The check of one statement's records (see the module doc).
#[derive(Debug)]
pub(crate) struct RowEffectCheck {
    table: Table,
    /// The statement, for messages (`UPDATE`, `DELETE`, `MERGE INTO`).
    what: &'static str,
    merge: RecordMerge,
    engine: MergeEngine,
    fields: Vec<DataField>,
    /// The table's Arrow schema as its writer casts input to it.
    arrow: SchemaRef,
    /// The same, every column nullable: the stored rows of a MERGE's inserts are NULL.
    arrow_nullable: SchemaRef,
    /// Column default values, which the writer puts in place of a NULL (Java's
    /// `DefaultValueRow`): the record merged is the one written.
    defaults: ColumnDefaults,
    key_columns: Vec<usize>,
    sequence_fields: Vec<usize>,
    sequence_descending: bool,
    /// The stored rows come as [`OLD_PREFIX`] columns after the table's; `false`: the written
    /// row is the stored row (DELETE writes the row it read).
    pub(crate) old_columns: bool,
}

fn option_error(e: impl Into<strata::Error>) -> datafusion::error::DataFusionError {
    to_df(e.into())
}

impl RowEffectCheck {
    /// The check of `what` on `table`, or `None` when its records always take effect
    /// (`deduplicate` without `sequence.field`, or no primary key).
    pub(crate) fn new(
        table: &Table,
        what: &'static str,
        old_columns: bool,
    ) -> Result<Option<Self>> {
        if !table.is_primary_key_table() {
            return Ok(None);
        }
        let schema = table.schema();
        let options = table.options();
        let engine = options.merge_engine().map_err(option_error)?;
        let sequence_names = options.sequence_field();
        if engine == MergeEngine::Deduplicate && sequence_names.is_empty() {
            return Ok(None);
        }
        let index = |name: &str| schema.fields.iter().position(|f| f.name == name);
        let sequence_fields = sequence_names
            .iter()
            .map(|n| {
                index(n).ok_or_else(|| {
                    plan_error(format!(
                        "{what} on {}: sequence.field {n} is not a column",
                        table.identifier()
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let key_columns = schema
            .primary_keys
            .iter()
            .filter_map(|k| index(k))
            .collect();
        let sequence_descending = options
            .get("sequence.field.sort-order")
            .is_some_and(|v| v.eq_ignore_ascii_case("descending"));
        let arrow = to_arrow_schema_of(&schema.fields).map_err(to_df)?;
        let arrow_nullable = Arc::new(arrow_schema::Schema::new(
            arrow
                .fields()
                .iter()
                .map(|f| f.as_ref().clone().with_nullable(true))
                .collect::<Vec<_>>(),
        ));
        let defaults = ColumnDefaults::of(
            &schema.fields,
            &arrow,
            &format!("{what} on {}", table.identifier()),
        )
        .map_err(to_df)?;
        Ok(Some(RowEffectCheck {
            table: table.clone(),
            what,
            merge: RecordMerge::new(schema).map_err(to_df)?,
            engine,
            fields: schema.fields.clone(),
            arrow,
            arrow_nullable,
            defaults,
            key_columns,
            sequence_fields,
            sequence_descending,
            old_columns,
        }))
    }

    /// The number of table columns (the old columns follow them).
    pub(crate) fn width(&self) -> usize {
        self.fields.len()
    }

    /// Checks every record of `data` (the table's columns) against its stored row in `old`
    /// (the same columns; `None`: `data` itself). A record without a stored row (a MERGE
    /// insert: NULL key columns in `old`) is not checked.
    pub(crate) fn check(
        &self,
        data: &RecordBatch,
        old: Option<&RecordBatch>,
        kinds: &[RowKind],
    ) -> Result<()> {
        let context = format!("{} on {}", self.what, self.table.identifier());
        let old = match old {
            Some(o) => self.cast(o, &self.arrow_nullable, None, &context)?,
            None => self.cast(data, &self.arrow, None, &context)?,
        };
        let data = self.cast(data, &self.arrow, Some(&self.defaults), &context)?;
        for (row, kind) in kinds.iter().enumerate() {
            if *kind == RowKind::Insert || *kind == RowKind::UpdateBefore {
                continue;
            }
            let stored = MergeRow::from_batch(&old, row).map_err(to_df)?;
            if self.key_columns.iter().any(|&k| stored.is_null(k)) {
                continue;
            }
            let written = MergeRow::from_batch(&data, row).map_err(to_df)?;
            self.check_row(&data, row, &stored, &written, *kind)?;
        }
        Ok(())
    }

    /// `batch` (the table's columns in order, under any names) cast to `target`, with the
    /// column defaults when it is written (as the writer does).
    fn cast(
        &self,
        batch: &RecordBatch,
        target: &SchemaRef,
        defaults: Option<&ColumnDefaults>,
        context: &str,
    ) -> Result<RecordBatch> {
        let named = RecordBatch::try_new(
            Arc::new(arrow_schema::Schema::new(
                batch
                    .schema()
                    .fields()
                    .iter()
                    .zip(target.fields())
                    .map(|(f, t)| f.as_ref().clone().with_name(t.name()))
                    .collect::<Vec<_>>(),
            )),
            batch.columns().to_vec(),
        )?;
        match defaults {
            Some(d) => cast_batch_with_defaults(&named, target, d, context),
            None => cast_batch_to_schema(&named, target, context),
        }
        .map_err(to_df)
    }

    /// Merges `stored` (`+I`) with `written` (`kind`) as the table's readers would, and
    /// compares the outcome with what the statement says.
    fn check_row(
        &self,
        data: &RecordBatch,
        row: usize,
        stored: &MergeRow,
        written: &MergeRow,
        kind: RowKind,
    ) -> Result<()> {
        let written_first = self.sequence_order(stored, written) == Ordering::Greater;
        let old = (stored, RowKind::Insert);
        let new = (written, kind);
        let (older, newer) = if written_first {
            (new, old)
        } else {
            (old, new)
        };
        let outcome = self.merge.merge(older, newer).map_err(to_df)?;
        let key = self.key_text(data, row);
        match (kind.is_add(), outcome) {
            (true, Some(merged)) => {
                let Some(c) = (0..written.len()).find(|&c| !merged.same(written, c)) else {
                    return Ok(());
                };
                let reason = if written_first {
                    self.sequence_reason(stored, written)
                } else {
                    self.column_reason(c, stored, written)
                };
                Err(plan_error(format!(
                    "{} on {}: the row with primary key ({key}) would read {} = {} after the \
                     commit, not {} as the statement says: {reason}; nothing was written",
                    self.what,
                    self.table.identifier(),
                    self.fields[c].name,
                    merged.display(c),
                    written.display(c),
                )))
            }
            (true, None) => Err(plan_error(format!(
                "{} on {}: the row with primary key ({key}) would be gone after the commit \
                 instead of updated (merge engine {}); nothing was written",
                self.what,
                self.table.identifier(),
                self.engine_name()
            ))),
            (false, None) => Ok(()),
            (false, Some(merged)) => Err(plan_error(format!(
                "{} on {}: the row with primary key ({key}) would not be deleted: {}; nothing \
                 was written",
                self.what,
                self.table.identifier(),
                self.delete_reason(stored, &merged)
            ))),
        }
    }

    /// How Paimon orders the stored row before the written one: by `sequence.field` (NULL
    /// first, reversed when descending); `Greater` when the written record sorts first.
    fn sequence_order(&self, stored: &MergeRow, written: &MergeRow) -> Ordering {
        for &f in &self.sequence_fields {
            let o = stored.compare(written, f);
            let o = if self.sequence_descending {
                o.reverse()
            } else {
                o
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }

    fn sequence_reason(&self, stored: &MergeRow, written: &MergeRow) -> String {
        let names: Vec<&str> = self
            .sequence_fields
            .iter()
            .map(|&f| self.fields[f].name.as_str())
            .collect();
        let show_all = |row: &MergeRow| {
            self.sequence_fields
                .iter()
                .map(|&f| row.display(f))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "'sequence.field' = '{}' orders the records of a key ({}), and the written row's \
             ({}) sorts before the stored row's ({}), so the stored row stays the newest",
            names.join(","),
            if self.sequence_descending {
                "'sequence.field.sort-order' = 'descending': the smallest value wins"
            } else {
                "the largest value wins"
            },
            show_all(written),
            show_all(stored)
        )
    }

    fn engine_name(&self) -> &'static str {
        match self.engine {
            MergeEngine::Deduplicate => "deduplicate",
            MergeEngine::PartialUpdate => "partial-update",
            MergeEngine::Aggregation => "aggregation",
            MergeEngine::FirstRow => "first-row",
        }
    }

    /// Why column `c` of a `+U` does not take the written value.
    fn column_reason(&self, c: usize, stored: &MergeRow, written: &MergeRow) -> String {
        let options = self.table.options();
        let name = &self.fields[c].name;
        if self.engine == MergeEngine::PartialUpdate {
            if let Some((key, ordering)) = sequence_group_of(options, name, &self.fields) {
                let order_names: Vec<&str> = ordering
                    .iter()
                    .map(|&o| self.fields[o].name.as_str())
                    .collect();
                if ordering.iter().all(|&o| written.is_null(o)) {
                    return format!(
                        "column {name} is in the sequence group '{key}', whose ordering \
                         column{} {} NULL in the written row, and partial-update skips such a \
                         group",
                        if order_names.len() > 1 { "s" } else { "" },
                        if order_names.len() > 1 { "are" } else { "is" }
                    );
                }
                let o = ordering
                    .iter()
                    .map(|&o| written.compare(stored, o))
                    .find(|o| *o != Ordering::Equal)
                    .unwrap_or(Ordering::Equal);
                if o == Ordering::Less {
                    return format!(
                        "column {name} is in the sequence group '{key}', and the written row's \
                         {} is lower than the stored row's, so partial-update keeps the stored \
                         values of the group",
                        order_names.join(", ")
                    );
                }
            }
            if let Some((key, func)) = aggregate_function(options, name) {
                return format!(
                    "'{key}' = '{func}' combines the written value with the stored one (an \
                     UPDATE writes the whole row, so every such column is combined)"
                );
            }
            if written.is_null(c) {
                return "merge engine partial-update never overwrites a value with NULL (a \
                        NULL in a written row means \"unchanged\")"
                    .to_string();
            }
        }
        format!(
            "merge engine {} combines the written row with the stored one",
            self.engine_name()
        )
    }

    fn delete_reason(&self, stored: &MergeRow, merged: &MergeRow) -> String {
        let options = self.table.options();
        if self.engine == MergeEngine::PartialUpdate {
            if let Some(list) = options.get("partial-update.remove-record-on-sequence-group") {
                let nulls: Vec<&str> = list
                    .split(',')
                    .map(str::trim)
                    .filter(|n| {
                        self.fields
                            .iter()
                            .position(|f| f.name == *n)
                            .is_some_and(|i| stored.is_null(i))
                    })
                    .collect();
                let why = if nulls.is_empty() {
                    String::new()
                } else {
                    format!(" ({} is NULL in this row)", nulls.join(", "))
                };
                return format!(
                    "with sequence groups, partial-update removes a row on a delete record \
                     only through the group of 'partial-update.remove-record-on-sequence-group' \
                     = '{list}'{why}; otherwise the delete only retracts the columns of its \
                     sequence groups"
                );
            }
        }
        let changed: Vec<&str> = (0..merged.len())
            .filter(|&c| !merged.same(stored, c))
            .map(|c| self.fields[c].name.as_str())
            .collect();
        format!(
            "merge engine {} keeps the row after a delete record{}",
            self.engine_name(),
            if changed.is_empty() {
                String::new()
            } else {
                format!(" (with {} changed)", changed.join(", "))
            }
        )
    }

    fn key_text(&self, data: &RecordBatch, row: usize) -> String {
        self.key_columns
            .iter()
            .map(|&c| array_value_to_string(data.column(c), row).unwrap_or_default())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The `fields.<ordering>.sequence-group` option listing `name` (as a protected or an ordering
/// column), with the ordering columns' indices.
fn sequence_group_of(
    options: &CoreOptions,
    name: &str,
    fields: &[DataField],
) -> Option<(String, Vec<usize>)> {
    for (key, value) in options.as_map() {
        let Some(inner) = key
            .strip_prefix("fields.")
            .and_then(|k| k.strip_suffix(".sequence-group"))
        else {
            continue;
        };
        let ordering: Vec<&str> = inner.split(',').map(str::trim).collect();
        let member = ordering.contains(&name) || value.split(',').any(|v| v.trim() == name);
        if member {
            let idx = ordering
                .iter()
                .filter_map(|o| fields.iter().position(|f| f.name == *o))
                .collect();
            return Some((key.clone(), idx));
        }
    }
    None
}

/// The aggregate function configured for a partial-update column, with its option key.
fn aggregate_function(options: &CoreOptions, name: &str) -> Option<(String, String)> {
    let key = format!("fields.{name}.aggregate-function");
    if let Some(f) = options.get(&key) {
        return Some((key, f.to_string()));
    }
    options.get("fields.default-aggregate-function").map(|f| {
        (
            "fields.default-aggregate-function".to_string(),
            f.to_string(),
        )
    })
}
