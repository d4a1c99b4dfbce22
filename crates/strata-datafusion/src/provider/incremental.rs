//! Incremental reads in SQL: a table reference carrying Paimon's `incremental-between`,
//! `incremental-between-timestamp` (with `incremental-between-scan-mode`,
//! `incremental-between-tag-to-snapshot`) reads the changes of the range `(START, END]`
//! instead of a snapshot, as Spark's and Flink's batch SQL do.
//!
//! * `t /*+ OPTIONS('incremental-between' = '3,7') */` — the table's columns, retractions
//!   dropped: only the rows whose kind is `+I` or `+U` (Paimon's "in batch SQL, DELETE records
//!   are not allowed to be returned"). This is what Java's merge read of a range did with its
//!   `DropDeleteReader` (it keeps `isAdd()` records) and what Java's data-table diff read does
//!   today (`IncrementalDiffSplitRead.DiffMerger` without `keepDelete` returns END's added
//!   records only); Java's delta and changelog reads hand every record to the engine with its
//!   row kind, which Spark cannot show (a `-D` row would read as a present row), so strata
//!   applies the documented rule to every mode.
//! * `"t$audit_log" /*+ OPTIONS('incremental-between' = '3,7') */` — every change with its kind
//!   in a first `rowkind` column (Java's `AuditLogTable`, `forceKeepDelete`).
//!
//! The range is planned when DataFusion builds the physical plan ([`IncrementalScan`]); its
//! splits are dealt into partitions and read by strata's [`strata::read::IncrementalRead`].
//! Projection and `LIMIT` are pushed into the read; filters are not (a diff compares whole
//! rows, and a filter below the row-kind selection could hide a change): DataFusion applies
//! them above the scan.

use std::fmt;
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::{TableProvider, TableType};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::execution_plan::EmissionType;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, SendableRecordBatchStream,
};
use futures::StreamExt;
use strata::scan::{
    IncrementalMode, IncrementalScan, IncrementalSplit, INCREMENTAL_BETWEEN,
    INCREMENTAL_BETWEEN_SCAN_MODE, INCREMENTAL_BETWEEN_TAG_TO_SNAPSHOT,
    INCREMENTAL_BETWEEN_TIMESTAMP,
};
use strata::table::Table;

use crate::error::{plan_error, to_df};
use crate::leaf_exec::{self, leaf_plan_methods};

/// The options of an incremental read.
pub const INCREMENTAL_KEYS: [&str; 4] = [
    INCREMENTAL_BETWEEN,
    INCREMENTAL_BETWEEN_TIMESTAMP,
    INCREMENTAL_BETWEEN_SCAN_MODE,
    INCREMENTAL_BETWEEN_TAG_TO_SNAPSHOT,
];

/// The first incremental option among `keys`.
pub(crate) fn incremental_key<'a>(mut keys: impl Iterator<Item = &'a String>) -> Option<&'a str> {
    keys.find(|k| INCREMENTAL_KEYS.contains(&k.as_str()))
        .map(String::as_str)
}

/// The provider of an incremental read of `table` (its options name the range), `None` when
/// its options ask for none. `audit`: the `t$audit_log` view (every change with its kind).
pub(crate) fn provider(table: &Table, audit: bool) -> Result<Option<IncrementalTable>> {
    let Some(scan) = IncrementalScan::from_options(table).map_err(to_df)? else {
        // A mode or a tag rule without a range would be ignored: refuse it.
        let o = table.options();
        if let Some(key) = [
            INCREMENTAL_BETWEEN_SCAN_MODE,
            INCREMENTAL_BETWEEN_TAG_TO_SNAPSHOT,
        ]
        .into_iter()
        .find(|k| o.get(k).is_some())
        {
            return Err(plan_error(format!(
                "option '{key}' needs a range: set '{INCREMENTAL_BETWEEN}' (START,END: snapshot \
                 ids or tag names) or '{INCREMENTAL_BETWEEN_TIMESTAMP}' (T1,T2) on {}",
                table.identifier()
            )));
        }
        return Ok(None);
    };
    let with_kinds = table
        .new_incremental_read()
        .output_schema()
        .map_err(to_df)?;
    let columns = Arc::new(Schema::new_with_metadata(
        with_kinds
            .fields()
            .iter()
            .skip(1)
            .cloned()
            .collect::<Vec<_>>(),
        with_kinds.metadata().clone(),
    ));
    Ok(Some(IncrementalTable {
        table: table.clone(),
        scan,
        audit,
        schema: if audit { with_kinds } else { columns.clone() },
        columns,
    }))
}

/// An incremental read of a table as a DataFusion table (see the module documentation).
#[derive(Debug)]
pub struct IncrementalTable {
    table: Table,
    scan: IncrementalScan,
    /// `t$audit_log`: `rowkind` first, every change; else the table's columns, adds only.
    audit: bool,
    /// The table's columns.
    columns: SchemaRef,
    schema: SchemaRef,
}

impl IncrementalTable {
    fn read_only(&self, what: &str) -> DataFusionError {
        let o = self.table.options();
        let key = INCREMENTAL_KEYS
            .into_iter()
            .find(|k| o.get(k).is_some())
            .unwrap_or(INCREMENTAL_BETWEEN);
        plan_error(format!(
            "{what} {} with '{key}': an incremental read is read-only",
            self.table.identifier()
        ))
    }
}

#[async_trait]
impl TableProvider for IncrementalTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::View
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let plan = self.scan.plan().await.map_err(to_df)?;
        // Provider column i as a table column (None: rowkind).
        let table_column = |i: usize| {
            if self.audit {
                i.checked_sub(1)
            } else {
                Some(i)
            }
        };
        let all: Vec<usize> = (0..self.schema.fields().len()).collect();
        let projection = projection.unwrap_or(&all);
        // The table columns read, in the order first asked for; at least one, for row counts.
        let mut wanted: Vec<usize> = Vec::new();
        for c in projection.iter().filter_map(|&i| table_column(i)) {
            if !wanted.contains(&c) {
                wanted.push(c);
            }
        }
        if wanted.is_empty() && !self.columns.fields().is_empty() {
            wanted.push(0);
        }
        let output: Vec<usize> = projection
            .iter()
            .map(|&i| match table_column(i) {
                None => 0,
                Some(c) => 1 + wanted.iter().position(|&w| w == c).unwrap_or(0),
            })
            .collect();
        let columns = wanted
            .iter()
            .map(|&i| self.columns.field(i).name().clone())
            .collect();
        let schema = Arc::new(self.schema.project(projection)?);
        Ok(Arc::new(StrataIncrementalExec::new(
            self.table.clone(),
            plan.mode,
            (plan.start_snapshot, plan.end_snapshot),
            plan.splits,
            IncrementalRequest {
                columns,
                output,
                row_kinds: self.audit,
                limit,
            },
            state.config().target_partitions(),
            schema,
        )))
    }

    async fn insert_into(
        &self,
        _state: &dyn Session,
        _input: Arc<dyn ExecutionPlan>,
        _insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Err(self.read_only("INSERT into"))
    }

    async fn delete_from(
        &self,
        _state: &dyn Session,
        _filters: Vec<Expr>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Err(self.read_only("DELETE from"))
    }

    async fn update(
        &self,
        _state: &dyn Session,
        _assignments: Vec<(String, Expr)>,
        _filters: Vec<Expr>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Err(self.read_only("UPDATE of"))
    }
}

/// What each partition of an incremental scan reads and returns.
#[derive(Debug, Clone)]
struct IncrementalRequest {
    /// Table columns read (after `rowkind`).
    columns: Vec<String>,
    /// The output columns as indices into the read batch (0: `rowkind`).
    output: Vec<usize>,
    /// Keep every change (`t$audit_log`); else only `+I` and `+U` rows.
    row_kinds: bool,
    limit: Option<usize>,
}

/// Reads an incremental plan's splits, dealt into DataFusion partitions.
#[derive(Debug)]
pub struct StrataIncrementalExec {
    table: Table,
    mode: IncrementalMode,
    range: (Option<i64>, Option<i64>),
    groups: Vec<Vec<IncrementalSplit>>,
    request: IncrementalRequest,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
}

fn split_rows(s: &IncrementalSplit) -> i64 {
    match s {
        IncrementalSplit::Records(d) => d.row_count(),
        IncrementalSplit::Diff { before, after, .. } => before.row_count() + after.row_count(),
    }
}

impl StrataIncrementalExec {
    fn new(
        table: Table,
        mode: IncrementalMode,
        range: (Option<i64>, Option<i64>),
        splits: Vec<IncrementalSplit>,
        request: IncrementalRequest,
        target_partitions: usize,
        schema: SchemaRef,
    ) -> Self {
        let groups = leaf_exec::deal(splits, target_partitions, split_rows);
        let properties =
            leaf_exec::properties(schema.clone(), groups.len(), EmissionType::Incremental);
        StrataIncrementalExec {
            table,
            mode,
            range,
            groups,
            request,
            schema,
            properties,
        }
    }

    /// The splits each partition reads.
    pub fn split_groups(&self) -> &[Vec<IncrementalSplit>] {
        &self.groups
    }
}

impl DisplayAs for StrataIncrementalExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let splits: usize = self.groups.iter().map(Vec::len).sum();
        leaf_exec::display_head(f, "StrataIncrementalExec", &self.table)?;
        write!(f, ", mode={}", self.mode.as_str())?;
        match self.range {
            (Some(s), Some(e)) => write!(f, ", range=({s}, {e}]")?,
            _ => write!(f, ", range=empty")?,
        }
        write!(
            f,
            ", splits={splits}, projection=[{}]",
            self.request.columns.join(", ")
        )?;
        if let Some(l) = self.request.limit {
            write!(f, ", limit={l}")?;
        }
        if self.request.row_kinds {
            write!(f, ", row_kinds")?;
        } else {
            write!(f, ", adds_only")?;
        }
        Ok(())
    }
}

impl ExecutionPlan for StrataIncrementalExec {
    leaf_plan_methods!("StrataIncrementalExec");

    fn execute(
        &self,
        partition: usize,
        _context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let splits = self.groups.get(partition).cloned().unwrap_or_default();
        let mut read = self.table.new_incremental_read();
        if !self.request.columns.is_empty() {
            read = read.with_projection(self.request.columns.clone());
        }
        let stream = read.to_stream(splits).map_err(to_df)?;
        let schema = self.schema.clone();
        let out = schema.clone();
        let IncrementalRequest {
            output,
            row_kinds,
            limit,
            ..
        } = self.request.clone();
        let stream = stream.map(move |batch| {
            let batch = batch.map_err(to_df)?;
            let batch = if row_kinds {
                batch
            } else {
                strata::read::row_kinds::additions(&batch).map_err(to_df)?
            };
            let columns = output.iter().map(|&i| batch.column(i).clone()).collect();
            let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
            Ok(RecordBatch::try_new_with_options(
                out.clone(),
                columns,
                &options,
            )?)
        });
        let stream = match limit {
            None => stream.boxed(),
            Some(n) => stream
                .scan(n, |left, item: Result<RecordBatch>| {
                    if *left == 0 {
                        return futures::future::ready(None);
                    }
                    let item = item.map(|b| {
                        let take = b.num_rows().min(*left);
                        *left -= take;
                        b.slice(0, take)
                    });
                    futures::future::ready(Some(item))
                })
                .boxed(),
        };
        Ok(leaf_exec::record_stream(schema, stream))
    }
}
