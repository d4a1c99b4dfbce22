//! [`StrataScanExec`]: the physical scan of a strata table.
//!
//! The scan is planned once, when DataFusion builds the physical plan (`TableScan::plan`:
//! snapshot, manifests, live files, statistics pruning). Its `DataSplit`s — one per
//! (partition, bucket) — become units of parallel reading (`parallel_units`): a split read
//! without merging is one unit per file, and a Parquet file holding more than one partition's
//! share of the rows is cut into row ranges (`DataSplit::slices`), as DataFusion's own Parquet
//! source splits large files; splits that merge stay whole. The units are dealt into
//! DataFusion partitions of about equal row counts, so DataFusion reads them in parallel.
//! Each partition reads its units through strata's own read path (`TableRead`: merge-on-read
//! for primary-key tables, deletion vectors, schema evolution by field id, pushed filters,
//! shredded MAP keys), with the projection and limit DataFusion pushed into the scan, and
//! top-level strings as `Utf8View` (DataFusion's string type for Parquet).

use std::fmt;
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::SchemaRef;
use datafusion::common::stats::Precision;
use datafusion::common::{Result, Statistics};
use datafusion::execution::TaskContext;
use datafusion::physical_plan::execution_plan::EmissionType;
use datafusion::physical_plan::statistics::StatisticsArgs;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, SendableRecordBatchStream,
};
use futures::StreamExt;
use strata::expr::Predicate;
use strata::scan::DataSplit;
use strata::table::Table;

use super::statistics::{scan_statistics, RowEstimate, ScanStatistics};
use crate::error::to_df;
use crate::leaf_exec::{self, leaf_plan_methods};

/// What each partition reads of its splits.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReadRequest {
    /// Table columns (`None`: all; empty: none, only row counts).
    pub columns: Option<Vec<String>>,
    /// Pushed predicate (exact).
    pub filter: Option<Predicate>,
    pub limit: Option<usize>,
    /// Each row's kind first, deletes kept (`t$audit_log`; `TableRead::with_row_kinds`).
    pub row_kinds: bool,
}

/// Reads groups of strata [`DataSplit`]s, one group per DataFusion partition.
#[derive(Debug)]
pub struct StrataScanExec {
    table: Table,
    snapshot_id: Option<i64>,
    /// Set when the table is a time-travel view of this snapshot (its schema is that
    /// snapshot's).
    pinned: Option<i64>,
    /// Table columns to read (`None`: all); empty for `count(*)`-like scans.
    columns: Option<Vec<String>>,
    filter: Option<Predicate>,
    limit: Option<usize>,
    row_kinds: bool,
    groups: Vec<Vec<DataSplit>>,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
    /// Row counts and column bounds for the planner ([`Self::with_statistics`]); `None`: row
    /// counts of the splits only.
    statistics: Option<ScanStatistics>,
}

impl StrataScanExec {
    pub(crate) fn new(
        table: Table,
        snapshot_id: Option<i64>,
        read: ReadRequest,
        splits: Vec<DataSplit>,
        target_partitions: usize,
        schema: SchemaRef,
    ) -> Self {
        let n = target_partitions.max(1);
        // A read with row kinds merges every split (deletes kept), so splits stay whole.
        let units = if read.row_kinds {
            splits
        } else {
            parallel_units(splits, n)
        };
        let groups = leaf_exec::deal(units, n, DataSplit::row_count);
        Self::from_groups(table, snapshot_id, read, groups, target_partitions, schema)
    }

    /// A scan of splits already dealt into partitions (a decoded plan).
    pub(crate) fn from_groups(
        table: Table,
        snapshot_id: Option<i64>,
        read: ReadRequest,
        groups: Vec<Vec<DataSplit>>,
        _target_partitions: usize,
        schema: SchemaRef,
    ) -> Self {
        let ReadRequest {
            columns,
            filter,
            limit,
            row_kinds,
        } = read;
        let properties =
            leaf_exec::properties(schema.clone(), groups.len(), EmissionType::Incremental);
        StrataScanExec {
            table,
            snapshot_id,
            pinned: None,
            columns,
            filter,
            limit,
            row_kinds,
            groups,
            schema,
            properties,
            statistics: None,
        }
    }

    /// Gathers the scan's statistics from the files' manifest statistics
    /// ([`super::statistics`]).
    /// `filter_selectivity`: the percentage of rows a pushed filter is assumed to keep.
    pub(crate) async fn with_statistics(mut self, filter_selectivity: u8) -> strata::Result<Self> {
        // Data evolution: several files hold the columns of the same rows, so neither their
        // row counts nor their value statistics describe the rows read.
        if self.table.options().data_evolution_enabled()? {
            return Ok(self);
        }
        let estimate = if self.filter.is_some() {
            RowEstimate::Filtered(filter_selectivity)
        } else if self.table.is_primary_key_table()
            || self.table.options().deletion_vectors_enabled()?
            || self.limit.is_some()
            || self.row_kinds
        {
            RowEstimate::AtMost
        } else {
            RowEstimate::Exact
        };
        self.statistics =
            Some(scan_statistics(&self.table, &self.groups, &self.schema, estimate).await?);
        Ok(self)
    }

    /// The splits each partition reads.
    pub fn split_groups(&self) -> &[Vec<DataSplit>] {
        &self.groups
    }

    /// The table read.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// Marks the scan as reading a time-travel view of `snapshot`.
    pub(crate) fn pinned_to(mut self, snapshot: Option<i64>) -> Self {
        self.pinned = snapshot;
        self
    }

    /// The snapshot of a time-travel view, `None` for a scan of the newest snapshot.
    pub fn pinned_snapshot(&self) -> Option<i64> {
        self.pinned
    }

    /// The snapshot the splits were planned from.
    pub fn snapshot_id(&self) -> Option<i64> {
        self.snapshot_id
    }

    /// The table columns read (`None`: all).
    pub fn columns(&self) -> Option<&[String]> {
        self.columns.as_deref()
    }

    /// The row limit pushed into the read.
    pub fn limit(&self) -> Option<usize> {
        self.limit
    }

    /// The predicate pushed into strata's read (exact).
    pub fn filter(&self) -> Option<&Predicate> {
        self.filter.as_ref()
    }

    /// Whether rows come with their row kind first (`t$audit_log`).
    pub fn row_kinds(&self) -> bool {
        self.row_kinds
    }
}

/// A file is cut into row ranges of at least this many rows.
const MIN_SLICE_ROWS: u64 = 128 * 1024;

/// `splits` as units of parallel reading for `n` partitions: splits read without merging one
/// per file, and a Parquet file with more rows than a partition's share (at least
/// [`MIN_SLICE_ROWS`]) cut into row ranges of about a share each. Splits that merge stay whole.
pub(crate) fn parallel_units(splits: Vec<DataSplit>, n: usize) -> Vec<DataSplit> {
    let units: Vec<DataSplit> = splits.into_iter().flat_map(DataSplit::per_file).collect();
    if n <= 1 {
        return units;
    }
    let total: u64 = units.iter().map(|u| u.row_count().max(0) as u64).sum();
    let share = total.div_ceil(n as u64).max(MIN_SLICE_ROWS);
    units
        .into_iter()
        .flat_map(|u| {
            let pieces = (u.row_count().max(0) as u64).div_ceil(share);
            u.slices(usize::try_from(pieces).unwrap_or(n).min(n))
        })
        .collect()
}

impl DisplayAs for StrataScanExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let splits: usize = self.groups.iter().map(Vec::len).sum();
        let files: usize = self.groups.iter().flatten().map(|s| s.files.len()).sum();
        leaf_exec::display_head(f, "StrataScanExec", &self.table)?;
        if let Some(id) = self.snapshot_id {
            write!(f, ", snapshot={id}")?;
        }
        write!(f, ", splits={splits}, files={files}")?;
        if let Some(c) = &self.columns {
            write!(f, ", projection=[{}]", c.join(", "))?;
        }
        if let Some(p) = &self.filter {
            write!(f, ", filter={p}")?;
        }
        if let Some(l) = self.limit {
            write!(f, ", limit={l}")?;
        }
        if self.row_kinds {
            write!(f, ", row_kinds")?;
        }
        Ok(())
    }
}

impl ExecutionPlan for StrataScanExec {
    leaf_plan_methods!("StrataScanExec");

    fn execute(
        &self,
        partition: usize,
        _context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let splits = self.groups.get(partition).cloned().unwrap_or_default();
        let mut read = self.table.new_read().with_string_views();
        // A scan that needs no column (count(*)) still reads one, for the row counts.
        let zero_columns = self.columns.as_ref().is_some_and(Vec::is_empty);
        match &self.columns {
            Some(c) if !c.is_empty() => read = read.with_projection(c.clone()),
            Some(_) => {
                let first = self.table.schema().fields.first().map(|f| f.name.clone());
                read = read.with_projection(first.into_iter().collect());
            }
            None => {}
        }
        if let Some(p) = &self.filter {
            read = read.with_filter(p.clone());
        }
        if let Some(l) = self.limit {
            read = read.with_limit(l);
        }
        if self.row_kinds {
            read = read.with_row_kinds();
        }
        let schema = self.schema.clone();
        let stream = read.to_stream(splits).map_err(to_df)?;
        let out = schema.clone();
        let stream = stream.map(move |batch| {
            let batch = batch.map_err(to_df)?;
            let columns = if zero_columns {
                vec![]
            } else {
                batch.columns().to_vec()
            };
            let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
            Ok(RecordBatch::try_new_with_options(
                out.clone(),
                columns,
                &options,
            )?)
        });
        Ok(leaf_exec::record_stream(schema, stream))
    }

    fn statistics_from_inputs(
        &self,
        _input_stats: &[Arc<Statistics>],
        args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        let partition = args.partition();
        if let Some(stats) = &self.statistics {
            return Ok(Arc::new(match partition {
                Some(p) => stats
                    .partitions
                    .get(p)
                    .cloned()
                    .unwrap_or_else(|| Statistics::new_unknown(&self.schema)),
                None => stats.total.clone(),
            }));
        }
        let rows: i64 = match partition {
            Some(p) => self
                .groups
                .get(p)
                .map_or(0, |g| g.iter().map(DataSplit::row_count).sum()),
            None => self.groups.iter().flatten().map(DataSplit::row_count).sum(),
        };
        let mut stats = Statistics::new_unknown(&self.schema);
        // Files' row counts before merging, deletion vectors and filters: an upper bound.
        stats.num_rows = Precision::Inexact(usize::try_from(rows).unwrap_or(0));
        Ok(Arc::new(stats))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use datafusion::common::stats::Precision;
    use datafusion::common::ScalarValue;
    use datafusion::common::Statistics;
    use datafusion::physical_plan::statistics::{StatisticsArgs, StatisticsContext};
    use datafusion::physical_plan::{collect, ExecutionPlan};
    use datafusion::prelude::SessionConfig;
    use strata::catalog::FileSystemCatalog;

    use super::StrataScanExec;
    use crate::SqlSession;

    fn session(dir: &std::path::Path) -> SqlSession {
        let catalog = FileSystemCatalog::open(dir.to_str().unwrap()).unwrap();
        SqlSession::with_config(
            std::sync::Arc::new(catalog),
            SessionConfig::new().with_target_partitions(2),
        )
    }

    fn stats_of(scan: &StrataScanExec, partition: Option<usize>) -> Arc<Statistics> {
        StatisticsContext::new()
            .compute(scan, &StatisticsArgs::new().with_partition(partition))
            .unwrap()
    }

    /// The scan nodes of a physical plan.
    fn scans(plan: &Arc<dyn ExecutionPlan>) -> Vec<&StrataScanExec> {
        let mut out = Vec::new();
        if let Some(s) = plan.downcast_ref::<StrataScanExec>() {
            out.push(s);
        }
        for c in plan.children() {
            out.extend(scans(c));
        }
        out
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_large_file_is_read_as_row_ranges_by_every_partition() {
        let dir = tempfile::tempdir().unwrap();
        let s = session(dir.path());
        let run = |sql: &str| {
            let s = &s;
            let sql = sql.to_string();
            async move { s.sql(&sql).await.unwrap().collect().await.unwrap() }
        };
        run("CREATE TABLE t (id BIGINT NOT NULL, name STRING) WITH ('bucket' = '-1')").await;
        run(
            "INSERT INTO t SELECT value, concat('n', CAST(value % 10 AS STRING)) \
             FROM generate_series(0, 299999)",
        )
        .await;
        let df = s
            .sql("SELECT id, name FROM t WHERE id >= 10 AND name <> 'n3'")
            .await
            .unwrap();
        let plan = df.create_physical_plan().await.unwrap();
        let found = scans(&plan);
        assert_eq!(found.len(), 1);
        let scan = found[0];
        // One file of 300,000 rows, cut in two row ranges, one per partition.
        assert_eq!(scan.split_groups().len(), 2);
        for g in scan.split_groups() {
            assert_eq!(g.len(), 1);
            assert_eq!(
                g[0].row_range.as_ref().map(|r| r.end - r.start),
                Some(150_000)
            );
        }
        // Strings are views, as DataFusion reads Parquet.
        assert_eq!(
            scan.schema().field(1).data_type(),
            &arrow_schema::DataType::Utf8View
        );
        let ctx = s.context().task_ctx();
        let rows: usize = collect(plan, ctx)
            .await
            .unwrap()
            .iter()
            .map(|b| b.num_rows())
            .sum();
        assert_eq!(rows, 300_000 - 10 - 29_999);

        // Statistics for the planner: exact rows without a filter, bounds from the manifest.
        let plan = s
            .sql("SELECT id FROM t")
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        let scan = scans(&plan)[0];
        let stats = stats_of(scan, None);
        assert_eq!(stats.num_rows, Precision::Exact(300_000));
        let id = &stats.column_statistics[0];
        assert_eq!(
            id.min_value,
            Precision::Inexact(ScalarValue::Int64(Some(0)))
        );
        assert_eq!(
            id.max_value,
            Precision::Inexact(ScalarValue::Int64(Some(299_999)))
        );
        assert_eq!(id.null_count, Precision::Inexact(0));
        let first = stats_of(scan, Some(0));
        assert_eq!(first.num_rows, Precision::Exact(150_000));
        // A pushed filter is estimated with DataFusion's default selectivity (20%).
        let plan = s
            .sql("SELECT id FROM t WHERE name = 'n1'")
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        let filtered = stats_of(scans(&plan)[0], None);
        assert_eq!(filtered.num_rows, Precision::Inexact(60_000));
        // count(*) answered from the exact row count gives the right number.
        let n = run("SELECT count(*) FROM t").await;
        let n = n[0]
            .column(0)
            .as_any()
            .downcast_ref::<arrow_array::Int64Array>()
            .unwrap()
            .value(0);
        assert_eq!(n, 300_000);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn merged_splits_are_not_cut_and_their_rows_are_upper_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let s = session(dir.path());
        for sql in [
            "CREATE TABLE k (id BIGINT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) \
             WITH ('bucket' = '1', 'write-only' = 'true')",
            "INSERT INTO k SELECT value, 'a' FROM generate_series(0, 199999)",
            "INSERT INTO k SELECT value, 'b' FROM generate_series(0, 199999)",
        ] {
            s.sql(sql).await.unwrap().collect().await.unwrap();
        }
        let plan = s
            .sql("SELECT * FROM k")
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        let scan = scans(&plan)[0];
        let splits: Vec<_> = scan.split_groups().iter().flatten().collect();
        assert_eq!(splits.len(), 1, "one bucket to merge, whole");
        assert!(splits[0].row_range.is_none() && !splits[0].raw_convertible);
        let stats = stats_of(scan, None);
        assert_eq!(stats.num_rows, Precision::Inexact(400_000));
        let rows: usize = collect(plan, s.context().task_ctx())
            .await
            .unwrap()
            .iter()
            .map(|b| b.num_rows())
            .sum();
        assert_eq!(rows, 200_000);
    }
}
