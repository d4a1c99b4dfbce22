//! [`StrataTable`]: a strata table as a DataFusion [`TableProvider`].
//!
//! * `scan` plans strata splits and returns a [`StrataScanExec`]; projection, filters and
//!   limit are pushed into strata's read.
//! * `supports_filters_pushdown`: `Exact` for filters that convert to strata predicates (the
//!   read returns exactly the rows they select), `Inexact` for filters that imply one (strata
//!   prunes and filters by it, DataFusion filters again), `Unsupported` otherwise
//!   ([`super::filter`]).
//! * `statistics`: the row count of the snapshot read — exact for append tables without
//!   deletion vectors, an upper bound otherwise (rows not yet merged away); the scan plan
//!   adds column bounds and null counts from the manifests (`super::statistics`).
//! * `insert_into` (INSERT INTO / INSERT OVERWRITE), `delete_from`, `update` and `merge_into`
//!   are thin hooks: after refusing what a provider of this table cannot write (a time-travel
//!   view; `scan.*` options for the row-level statements), they call down into
//!   `crate::dml`, passing the provider as the narrow `DmlTarget` handle (the table, its
//!   columns, the predicate of a condition, its own rows as a source). The write layer never
//!   imports this file.
//!
//! A provider reads the newest snapshot at the time each query is planned, unless it was made
//! for a time-travel target ([`StrataTable::at`]): then it reads that snapshot with the schema
//! the snapshot was committed with.

use std::sync::Arc;

use arrow_schema::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::stats::Precision;
use datafusion::common::{DFSchemaRef, Result, Statistics};
use datafusion::datasource::{provider_as_source, TableProvider, TableType};
use datafusion::logical_expr::dml::{InsertOp, MergeIntoClause};
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableSource};
use datafusion::physical_plan::ExecutionPlan;
use strata::expr::Predicate;
use strata::maintenance::time_travel::{table_at, TravelTarget};
use strata::spec::snapshot::Snapshot;
use strata::spec::types::RowType;
use strata::table::Table;

use super::filter::{to_bound_predicate, to_implied_predicate};
use super::scan::{ReadRequest, StrataScanExec};
use crate::dml::{self, target::DmlTarget};
use crate::error::{plan_error, to_df};

/// A strata table for DataFusion.
#[derive(Debug, Clone)]
pub struct StrataTable {
    table: Table,
    /// The snapshot a time-travel provider reads; `None` reads the newest at planning time.
    snapshot: Option<Snapshot>,
    /// What chose `snapshot` (a `scan.fallback-branch` table travels its other branch by it).
    travel: Option<TravelTarget>,
    schema: SchemaRef,
    row_type: RowType,
    /// Rows of the snapshot known when the provider was made, and whether that count is exact.
    rows: Option<(i64, bool)>,
    /// At most this many scan partitions (default: the session's target partitions).
    scan_partitions: Option<usize>,
}

impl StrataTable {
    /// A provider of `table` reading its newest snapshot.
    pub async fn new(table: Table) -> strata::Result<Self> {
        let latest = table.snapshot_manager().latest().await?;
        Self::with_snapshot(table, None, latest)
    }

    /// A provider of `table` as of `target` (Paimon's `scan.snapshot-id`, `scan.tag-name`,
    /// `scan.timestamp-millis`), with the schema that snapshot was committed with.
    pub async fn at(table: &Table, target: &TravelTarget) -> strata::Result<Self> {
        let snapshot = target.resolve(table).await?;
        let t = table_at(table, &snapshot).await?;
        let mut provider = Self::with_snapshot(t, Some(snapshot.clone()), Some(snapshot))?;
        provider.travel = Some(target.clone());
        Ok(provider)
    }

    fn with_snapshot(
        table: Table,
        pinned: Option<Snapshot>,
        known: Option<Snapshot>,
    ) -> strata::Result<Self> {
        let schema = table.new_read().with_string_views().output_schema()?;
        let row_type = RowType::new(table.schema().fields.clone());
        let exact = !table.is_primary_key_table() && !table.options().deletion_vectors_enabled()?;
        let rows = Some(known.map_or((0, true), |s| (s.total_record_count, exact)));
        Ok(StrataTable {
            table,
            snapshot: pinned,
            travel: None,
            schema,
            row_type,
            rows,
            scan_partitions: None,
        })
    }

    /// Caps the partitions of this table's scans at `n` (≥ 1). For Ballista 55 use 1: its
    /// scheduler splits a stage's partitions between tasks only for its own and DataFusion's
    /// file and memory sources, and every task would read all partitions of another leaf;
    /// the stages above the scan are still distributed.
    pub fn with_scan_partitions(mut self, n: usize) -> Self {
        self.scan_partitions = Some(n.max(1));
        self
    }

    /// The cap set by [`Self::with_scan_partitions`].
    pub fn scan_partitions(&self) -> Option<usize> {
        self.scan_partitions
    }

    /// The strata table.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The snapshot a time-travel provider reads.
    pub fn snapshot(&self) -> Option<&Snapshot> {
        self.snapshot.as_ref()
    }

    fn column_names(&self, projection: Option<&Vec<usize>>) -> Option<Vec<String>> {
        projection.map(|p| {
            p.iter()
                .map(|&i| self.schema.field(i).name().clone())
                .collect()
        })
    }

    /// The strata predicate of the filters DataFusion pushed (all convertible, see
    /// [`Self::supports_filters_pushdown`]).
    pub(crate) fn predicate(&self, filters: &[Expr]) -> Option<Predicate> {
        let parts: Vec<Predicate> = filters
            .iter()
            .filter_map(|f| {
                to_bound_predicate(f, &self.row_type)
                    .or_else(|| to_implied_predicate(f, &self.row_type))
            })
            .collect();
        (!parts.is_empty()).then(|| Predicate::and(parts))
    }

    pub(crate) async fn scan_plan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<StrataScanExec> {
        let predicate = self.predicate(filters);
        let mut scan = self.table.new_scan();
        if let Some(s) = &self.snapshot {
            scan = match &self.travel {
                Some(target) => scan.with_travel(target.clone(), s.clone()),
                None => scan.with_snapshot_meta(s.clone()),
            };
        }
        if let Some(p) = &predicate {
            scan = scan.with_filter(p.clone());
        }
        let plan = scan.plan().await.map_err(to_df)?;
        let schema = match projection {
            Some(p) => Arc::new(self.schema.project(p)?),
            None => self.schema.clone(),
        };
        StrataScanExec::new(
            self.table.clone(),
            plan.snapshot.as_ref().map(|s| s.id),
            ReadRequest {
                columns: self.column_names(projection),
                filter: predicate,
                limit,
                row_kinds: false,
            },
            plan.splits,
            self.scan_partitions
                .map_or(state.config().target_partitions(), |n| {
                    n.min(state.config().target_partitions())
                }),
            schema,
        )
        .pinned_to(self.snapshot.as_ref().map(|s| s.id))
        .with_statistics(
            state
                .config()
                .options()
                .optimizer
                .default_filter_selectivity,
        )
        .await
        .map_err(to_df)
    }
}

#[async_trait]
impl TableProvider for StrataTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(
            self.scan_plan(state, projection, filters, limit).await?,
        ))
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        Ok(filters
            .iter()
            .map(|f| {
                if to_bound_predicate(f, &self.row_type).is_some() {
                    TableProviderFilterPushDown::Exact
                } else if to_implied_predicate(f, &self.row_type).is_some() {
                    TableProviderFilterPushDown::Inexact
                } else {
                    TableProviderFilterPushDown::Unsupported
                }
            })
            .collect())
    }

    fn statistics(&self) -> Option<Statistics> {
        let (rows, exact) = self.rows?;
        let rows = usize::try_from(rows).ok()?;
        let mut s = Statistics::new_unknown(&self.schema);
        s.num_rows = if exact && self.snapshot.is_some() {
            Precision::Exact(rows)
        } else {
            Precision::Inexact(rows)
        };
        Some(s)
    }

    async fn insert_into(
        &self,
        _state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.refuse_time_travel("INSERT into")?;
        dml::insert(&self.table, input, insert_op)
    }

    async fn delete_from(
        &self,
        state: &dyn Session,
        filters: Vec<Expr>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.refuse_time_travel("DELETE from")?;
        self.refuse_stale_reads("DELETE from")?;
        dml::delete(self, state, filters).await
    }

    async fn update(
        &self,
        state: &dyn Session,
        assignments: Vec<(String, Expr)>,
        filters: Vec<Expr>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.refuse_time_travel("UPDATE of")?;
        self.refuse_stale_reads("UPDATE of")?;
        dml::update(self, state, assignments, filters).await
    }

    async fn merge_into(
        &self,
        state: &dyn Session,
        source: Arc<dyn ExecutionPlan>,
        merge_schema: DFSchemaRef,
        on: Expr,
        clauses: Vec<MergeIntoClause>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.refuse_time_travel("MERGE into")?;
        self.refuse_stale_reads("MERGE into")?;
        dml::merge_into(self, state, source, merge_schema, on, clauses).await
    }
}

impl StrataTable {
    /// A row-level statement reads the rows it rewrites: refused when the table's `scan.*`
    /// options (stored, or an `OPTIONS` hint) would have it read another snapshot, some files
    /// or one bucket instead of the latest rows.
    fn refuse_stale_reads(&self, what: &str) -> Result<()> {
        if self.table.reads_latest_snapshot().map_err(to_df)? {
            return Ok(());
        }
        let set: Vec<String> = self
            .table
            .options()
            .as_map()
            .iter()
            .filter(|(k, _)| {
                (k.starts_with("scan.") && !k.starts_with("scan.manifest"))
                    || k.starts_with("incremental-")
                    || k.starts_with("log.scan")
            })
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        Err(plan_error(format!(
            "{what} {}: the table's options make its reads start elsewhere than the latest \
             snapshot ({}), but the statement must read the rows as they are now; remove \
             those options first",
            self.table.identifier(),
            set.join(", ")
        )))
    }

    /// `what`: the statement and its preposition (`"DELETE from"`, `"UPDATE of"`, ...).
    fn refuse_time_travel(&self, what: &str) -> Result<()> {
        match &self.snapshot {
            Some(s) => Err(plan_error(format!(
                "{what} {} as of snapshot {}: a time-travel view is read-only",
                self.table.identifier(),
                s.id
            ))),
            None => Ok(()),
        }
    }
}

/// The provider as the handle the write layer works over: the table, the provider's columns,
/// the predicate [`TableProvider::scan`] would push, and the provider itself as the source of
/// the rows a statement changes (a row-level statement runs only on a provider of the newest
/// snapshot: [`StrataTable::refuse_time_travel`]).
impl DmlTarget for StrataTable {
    fn table(&self) -> &Table {
        &self.table
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn predicate(&self, filters: &[Expr]) -> Option<Predicate> {
        StrataTable::predicate(self, filters)
    }

    fn rows(&self) -> Arc<dyn TableSource> {
        provider_as_source(Arc::new(self.clone()))
    }
}
