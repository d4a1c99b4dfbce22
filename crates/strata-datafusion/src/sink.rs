//! Writes from SQL: INSERT INTO / INSERT OVERWRITE, and DELETE / UPDATE on primary-key tables.
//!
//! Every statement is one strata write and one commit, run by DataFusion's `DataSinkExec` over
//! a [`StrataSink`]: the input rows go through `TableWrite` (the table's bucketing, sorting,
//! merge engine and file sizes), and the commit happens after the last batch. A failure before
//! the commit deletes the files written, so a failed statement changes nothing. The statement
//! returns DataFusion's one-row `count`.
//!
//! DELETE and UPDATE on primary-key tables are written as row kinds, as Paimon's Spark
//! connector does (`DeleteFromPaimonTableCommand`, `UpdatePaimonTableCommand`): the rows the
//! condition selects are read (merged), and written back as `-D`, or with the assignments
//! applied as `+U`, in one commit. DELETE needs a merge engine that removes a row on `-D`
//! (Java's `PrimaryKeyTableUtils.validatePKUpsertDeletable`) and no `ignore-delete`; UPDATE
//! needs `deduplicate` or `partial-update` (Java's `RowLevelOp.Update`) and may not assign
//! primary-key or partition columns. Each record is then checked to take effect under the
//! table's merge engine before it is written ([`crate::row_effect`]): a statement that would
//! report success while its rows stay as they were fails before its commit. On append tables DELETE and UPDATE rewrite the touched files instead
//! ([`crate::cow`]); `MERGE INTO` ([`crate::merge`]) writes each row with its own kind
//! ([`SinkMode::KindColumn`]).

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use arrow::array::{Array, Int8Array, RecordBatch};
use arrow::row::{RowConverter, SortField};

use arrow_schema::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::Column;
use datafusion::common::Result;
use datafusion::datasource::provider_as_source;
use datafusion::datasource::sink::{DataSink, DataSinkExec};
use datafusion::datasource::TableProvider;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::expr_rewriter::unnormalize_col;
use datafusion::logical_expr::utils::conjunction;
use datafusion::logical_expr::{Expr, LogicalPlanBuilder};
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, SendableRecordBatchStream,
};
use futures::StreamExt;
use strata::commit::OverwriteScope;
use strata::spec::kv::RowKind;
use strata::table::Table;

use crate::error::{plan_error, to_df};
use crate::row_effect::{RowEffectCheck, OLD_PREFIX};
use crate::table::StrataTable;

/// How a [`StrataSink`] commits its rows.
#[derive(Debug, Clone)]
pub enum SinkMode {
    /// An APPEND commit (`INSERT INTO`).
    Append,
    /// An OVERWRITE commit of this scope (`INSERT OVERWRITE`).
    Overwrite(OverwriteScope),
    /// Every row written with this row kind, an APPEND commit (DELETE as `-D`, UPDATE as `+U`).
    RowKind(RowKind),
    /// Each row's kind in the input's last column, [`ROW_KIND_COLUMN`] (Paimon's row-kind
    /// byte, Int8), which is not written; an APPEND commit (`MERGE INTO`). No primary key may
    /// be updated or deleted twice (a target row matched by two source rows).
    KindColumn,
}

/// The name of the row-kind column of a [`SinkMode::KindColumn`] input.
pub const ROW_KIND_COLUMN: &str = "__strata_row_kind";

/// A DataFusion [`DataSink`] writing into a strata table, committing once at the end.
#[derive(Debug)]
pub struct StrataSink {
    table: Table,
    mode: SinkMode,
    schema: SchemaRef,
    /// Row-level statements on primary-key tables: each record must take effect
    /// ([`crate::row_effect`]); its stored row may follow the table's columns in the input.
    check: Option<Arc<RowEffectCheck>>,
}

impl StrataSink {
    pub fn new(table: Table, mode: SinkMode, schema: SchemaRef) -> Self {
        StrataSink {
            table,
            mode,
            schema,
            check: None,
        }
    }

    /// Checks every record with `check` before writing it; the input holds the table's
    /// columns, then (with `check.old_columns`) the stored row's, then the kind column.
    pub(crate) fn with_check(mut self, check: Option<RowEffectCheck>) -> Self {
        self.check = check.map(Arc::new);
        self
    }

    /// The batch's records (the table's columns) and their kinds, after the check.
    fn records(&self, batch: &RecordBatch) -> Result<(RecordBatch, Option<Vec<RowKind>>)> {
        let (batch, kinds) = match &self.mode {
            SinkMode::KindColumn => {
                let (data, kinds) = split_kinds(batch)?;
                (data, Some(kinds))
            }
            SinkMode::RowKind(kind) => (batch.clone(), Some(vec![*kind; batch.num_rows()])),
            _ => (batch.clone(), None),
        };
        let Some(check) = &self.check else {
            return Ok((batch, kinds));
        };
        let width = check.width();
        let data = batch.project(&(0..width).collect::<Vec<_>>())?;
        let old = if check.old_columns {
            Some(batch.project(&(width..2 * width).collect::<Vec<_>>())?)
        } else {
            None
        };
        if let Some(kinds) = &kinds {
            check.check(&data, old.as_ref(), kinds)?;
        }
        Ok((data, kinds))
    }
}

impl DisplayAs for StrataSink {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "StrataSink: table={}, mode={:?}",
            self.table.identifier(),
            self.mode
        )
    }
}

#[async_trait]
impl DataSink for StrataSink {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    async fn write_all(
        &self,
        mut data: SendableRecordBatchStream,
        _context: &Arc<TaskContext>,
    ) -> Result<u64> {
        let overwrite = matches!(self.mode, SinkMode::Overwrite(_));
        let mut write = self
            .table
            .new_write()
            .map_err(to_df)?
            .with_overwrite(overwrite);
        let mut matched = MatchedKeys::new(&self.table, &self.schema)?;
        let result: Result<u64> = async {
            while let Some(batch) = data.next().await {
                let (batch, kinds) = self.records(&batch?)?;
                match kinds {
                    Some(kinds) => {
                        if matches!(self.mode, SinkMode::KindColumn) {
                            matched.check(&self.table, &batch, &kinds)?;
                        }
                        write
                            .write_with_kinds(&batch, &kinds)
                            .await
                            .map_err(to_df)?
                    }
                    None => write.write(&batch).await.map_err(to_df)?,
                }
            }
            let rows = write.rows_written();
            let messages = write.prepare_commit().await.map_err(to_df)?;
            let commit = self.table.new_commit().map_err(to_df)?;
            match &self.mode {
                SinkMode::Overwrite(scope) => commit.overwrite(scope.clone(), messages).await,
                _ => commit.commit(messages).await,
            }
            .map_err(to_df)?;
            Ok(rows)
        }
        .await;
        if let Err(e) = &result {
            let may_have_committed = match e {
                datafusion::error::DataFusionError::External(inner) => inner
                    .downcast_ref::<strata::Error>()
                    .is_some_and(strata::Error::may_have_committed),
                _ => false,
            };
            if !may_have_committed {
                write.abort().await;
            }
        }
        result
    }
}

/// INSERT INTO (`Append`) and INSERT OVERWRITE (`Overwrite`: [`overwrite_scope`];
/// `Replace`: the whole table).
pub(crate) fn insert(
    table: &Table,
    input: Arc<dyn ExecutionPlan>,
    op: InsertOp,
) -> Result<Arc<dyn ExecutionPlan>> {
    let mode = match op {
        InsertOp::Append => SinkMode::Append,
        InsertOp::Overwrite => SinkMode::Overwrite(overwrite_scope(table)?),
        InsertOp::Replace => SinkMode::Overwrite(OverwriteScope::WholeTable),
    };
    insert_with(table, input, mode)
}

/// The scope of `INSERT OVERWRITE t …` without a `PARTITION` clause, by the table's
/// `dynamic-partition-overwrite` (its options, with the statement's `/*+ OPTIONS(…) */` hint
/// on top): `true` (the default) replaces the partitions the new rows fall in, `false` the
/// whole table — Java's `FileStoreCommitImpl.overwrite`, which Flink's INSERT OVERWRITE
/// follows. (`INSERT OVERWRITE t PARTITION (k = v)` replaces the partitions the spec
/// matches, as Spark's static overwrite: `crate::ddl::insert_static_partition`.)
pub(crate) fn overwrite_scope(table: &Table) -> Result<OverwriteScope> {
    let dynamic = table
        .options()
        .dynamic_partition_overwrite()
        .map_err(|e| to_df(e.into()))?;
    Ok(if dynamic {
        OverwriteScope::Dynamic
    } else {
        OverwriteScope::WholeTable
    })
}

/// A `DataSinkExec` writing `input` into `table` as `mode` says.
pub fn insert_with(
    table: &Table,
    input: Arc<dyn ExecutionPlan>,
    mode: SinkMode,
) -> Result<Arc<dyn ExecutionPlan>> {
    insert_checked(table, input, mode, None)
}

/// [`insert_with`], each record checked by `check` first (row-level statements).
pub(crate) fn insert_checked(
    table: &Table,
    input: Arc<dyn ExecutionPlan>,
    mode: SinkMode,
    check: Option<RowEffectCheck>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let sink = StrataSink::new(table.clone(), mode, input.schema()).with_check(check);
    // The schema the sink reports is the input's; the kind and old columns are dropped in
    // `write_all`.
    Ok(Arc::new(DataSinkExec::new(input, Arc::new(sink), None)))
}

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

/// Splits a [`SinkMode::KindColumn`] batch into its table columns and its row kinds.
fn split_kinds(batch: &RecordBatch) -> Result<(RecordBatch, Vec<RowKind>)> {
    let n = batch.num_columns();
    let kinds = batch
        .column(n.saturating_sub(1))
        .as_any()
        .downcast_ref::<Int8Array>()
        .ok_or_else(|| plan_error(format!("the last input column is not {ROW_KIND_COLUMN}")))?;
    let kinds = kinds
        .iter()
        .map(|k| {
            RowKind::from_byte(k.unwrap_or(-1))
                .map_err(|e| plan_error(format!("{ROW_KIND_COLUMN}: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((batch.project(&(0..n - 1).collect::<Vec<_>>())?, kinds))
}

/// The primary keys a MERGE updated or deleted so far, to refuse a second change of one
/// (Spark's `MERGE_CARDINALITY_VIOLATION`; which change wins would otherwise be arbitrary).
struct MatchedKeys {
    key_columns: Vec<usize>,
    converter: Option<RowConverter>,
    seen: HashSet<Box<[u8]>>,
}

impl MatchedKeys {
    fn new(table: &Table, schema: &SchemaRef) -> Result<Self> {
        let key_columns: Vec<usize> = table
            .schema()
            .primary_keys
            .iter()
            .filter_map(|k| schema.index_of(k).ok())
            .collect();
        let converter = if key_columns.is_empty() {
            None
        } else {
            let fields = key_columns
                .iter()
                .map(|&i| SortField::new(schema.field(i).data_type().clone()))
                .collect();
            Some(RowConverter::new(fields)?)
        };
        Ok(MatchedKeys {
            key_columns,
            converter,
            seen: HashSet::new(),
        })
    }

    fn check(&mut self, table: &Table, batch: &RecordBatch, kinds: &[RowKind]) -> Result<()> {
        let Some(converter) = &self.converter else {
            return Ok(());
        };
        let columns: Vec<_> = self
            .key_columns
            .iter()
            .map(|&i| batch.column(i).clone())
            .collect();
        let rows = converter.convert_columns(&columns)?;
        for (i, kind) in kinds.iter().enumerate() {
            if matches!(kind, RowKind::Insert) {
                continue;
            }
            if !self.seen.insert(rows.row(i).as_ref().into()) {
                let key = self
                    .key_columns
                    .iter()
                    .map(|&c| {
                        arrow::util::display::array_value_to_string(batch.column(c), i)
                            .unwrap_or_default()
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(plan_error(format!(
                    "MERGE INTO {}: the target row with primary key ({key}) is matched by more \
                     than one source row; make the ON condition match each target row at most \
                     once",
                    table.identifier()
                )));
            }
        }
        Ok(())
    }
}

fn column(name: &str) -> Expr {
    Expr::Column(Column::new_unqualified(name))
}

/// The rows of `provider` that `filters` select, as a physical plan of `columns`.
async fn selected_rows(
    provider: &StrataTable,
    state: &dyn Session,
    filters: Vec<Expr>,
    columns: Vec<Expr>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let source = provider_as_source(Arc::new(provider.clone()));
    let mut builder = LogicalPlanBuilder::scan("target", source, None)?;
    // The statement's qualifiers (`t.c`, `db.t.c`) are dropped: the scan has its own name.
    let filters = filters.into_iter().map(unnormalize_col).collect::<Vec<_>>();
    if let Some(condition) = conjunction(filters) {
        builder = builder.filter(condition)?;
    }
    let plan = builder.project(columns)?.build()?;
    state.create_physical_plan(&plan).await
}

/// DELETE FROM a primary-key table: the selected rows written as `-D`. Append tables are
/// rewritten copy-on-write ([`crate::cow`]).
pub(crate) async fn delete(
    provider: &StrataTable,
    state: &dyn Session,
    filters: Vec<Expr>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let table = provider.table();
    if !table.is_primary_key_table() {
        return crate::cow::delete(provider, state, filters).await;
    }
    check_deletable(table, "DELETE")?;
    let columns = provider
        .schema()
        .fields()
        .iter()
        .map(|f| column(f.name()))
        .collect();
    let input = selected_rows(provider, state, filters, columns).await?;
    let check = RowEffectCheck::new(table, "DELETE", false)?;
    insert_checked(table, input, SinkMode::RowKind(RowKind::Delete), check)
}

/// UPDATE of a primary-key table: the selected rows with the assignments applied, as `+U`.
/// Append tables are rewritten copy-on-write ([`crate::cow`]).
pub(crate) async fn update(
    provider: &StrataTable,
    state: &dyn Session,
    assignments: Vec<(String, Expr)>,
    filters: Vec<Expr>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let table = provider.table();
    let names: Vec<&str> = assignments.iter().map(|(n, _)| n.as_str()).collect();
    check_assignments(table, "UPDATE", &names)?;
    if !table.is_primary_key_table() {
        return crate::cow::update(provider, state, assignments, filters).await;
    }
    check_updatable(table, "UPDATE")?;
    let schema = provider.schema();
    let mut columns: Vec<Expr> = schema
        .fields()
        .iter()
        .map(|f| {
            let name = f.name();
            match assignments.iter().find(|(c, _)| c == name) {
                Some((_, e)) => unnormalize_col(e.clone()).alias(name),
                None => column(name),
            }
        })
        .collect();
    let check = RowEffectCheck::new(table, "UPDATE", true)?;
    if check.is_some() {
        // The stored row beside the updated one, for the check.
        columns.extend(
            schema
                .fields()
                .iter()
                .map(|f| column(f.name()).alias(format!("{OLD_PREFIX}{}", f.name()))),
        );
    }
    let input = selected_rows(provider, state, filters, columns).await?;
    insert_checked(table, input, SinkMode::RowKind(RowKind::UpdateAfter), check)
}
