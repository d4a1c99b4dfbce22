//! A read as the builder gave it ([`ReadSpec`]): the table resolved (time travel, the
//! snapshot's schema), the splits of either kind ([`Splits`]) opened as one stream of batches
//! with the builder's projection, filter and limit, and collected with a progress bar.

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures::stream::BoxStream;
use futures::StreamExt;
use pyo3::prelude::*;
use strata::maintenance::time_travel::table_at;
use strata::scan::{DataSplit, IncrementalSplit};

use crate::errors::IntoPy;
use crate::incremental::{scan_from_options, Shape};
use crate::progress::Progress;
use crate::read_options::{ReadOptions, Travel};
use crate::runtime::block_on;

/// The table a read sees (travelled, with that snapshot's schema) and the scan to plan.
pub(crate) struct Resolved {
    pub(crate) table: strata::table::Table,
    pub(crate) scan: strata::scan::TableScan,
}

pub(crate) async fn resolve(
    table: strata::table::Table,
    opts: &ReadOptions,
) -> strata::Result<Resolved> {
    let (table, mut scan) = match &opts.travel {
        None => (table.clone(), table.new_scan()),
        Some(Travel::Snapshot(id)) => {
            let t = table.at_snapshot(*id).await?;
            let scan = t.new_scan().with_snapshot(*id);
            (t, scan)
        }
        Some(Travel::Target(target)) => {
            let s = target.resolve(&table).await?;
            let t = table_at(&table, &s).await?;
            let scan = t.new_scan().with_travel(target.clone(), s);
            (t, scan)
        }
    };
    if let Some(text) = &opts.filter {
        scan = scan.with_filter(strata::expr::parse_sql_predicate(text)?);
    }
    Ok(Resolved { table, scan })
}

/// An incremental read (`incremental-between` options) names its snapshots itself.
pub(crate) fn check_no_travel(
    table: &strata::table::Table,
    opts: &ReadOptions,
) -> strata::Result<()> {
    if opts.travel.is_some() {
        return Err(strata::Error::invalid_argument(format!(
            "{} has incremental-between options, which name the snapshots read: time travel \
             (snapshot_id=, tag=, timestamp=, with_travel) cannot be combined with them",
            table.identifier()
        )));
    }
    Ok(())
}

pub(crate) type BatchStream = BoxStream<'static, strata::Result<RecordBatch>>;

/// The rows of incremental `splits` (with `rowkind` first), with the builder's projection,
/// filter and limit.
pub(crate) fn incremental_stream(
    table: &strata::table::Table,
    opts: &ReadOptions,
    splits: Vec<IncrementalSplit>,
) -> strata::Result<(SchemaRef, BatchStream)> {
    check_no_travel(table, opts)?;
    let shape = Shape::new(
        table,
        opts.projection.clone(),
        opts.filter.as_deref(),
        true,
        opts.limit,
    )?;
    let mut read = table.new_incremental_read();
    if let Some(cols) = &shape.read_projection {
        read = read.with_projection(cols.clone());
    }
    let schema = shape.output_schema(&read.output_schema()?)?;
    let stream = shape.stream(read.to_stream(splits)?);
    Ok((schema, stream))
}

/// The splits handed to a read: all of one kind.
pub(crate) enum Splits {
    Data(Vec<DataSplit>),
    Incremental(Vec<IncrementalSplit>),
}

impl Splits {
    pub(crate) fn rows(&self) -> i64 {
        match self {
            Splits::Data(s) => s.iter().map(DataSplit::row_count).sum(),
            Splits::Incremental(s) => s.iter().map(crate::incremental::row_count).sum(),
        }
    }
}

/// The schema and batches of `splits`, read as the builder says.
pub(crate) async fn open_stream(
    table: strata::table::Table,
    opts: &ReadOptions,
    splits: Splits,
) -> strata::Result<(SchemaRef, BatchStream)> {
    match splits {
        Splits::Incremental(splits) => incremental_stream(&table, opts, splits),
        Splits::Data(splits) => {
            let r = resolve(table, opts).await?;
            let read = table_read(&r.table, opts)?;
            Ok((read.output_schema()?, read.to_stream(splits)?))
        }
    }
}

pub(crate) fn table_read(
    table: &strata::table::Table,
    opts: &ReadOptions,
) -> strata::Result<strata::read::TableRead> {
    let mut read = table.new_read();
    if let Some(cols) = &opts.projection {
        read = read.with_projection(cols.clone());
    }
    if let Some(text) = &opts.filter {
        read = read.with_filter(strata::expr::parse_sql_predicate(text)?);
    }
    if let Some(n) = opts.limit {
        read = read.with_limit(n);
    }
    Ok(read)
}

/// What a scan or read was given: the table and the builder's options when `new_scan()` /
/// `new_read()` was called (later `with_*` calls on the builder do not change it, as in
/// pypaimon, whose `TableScan` / `TableRead` take the builder's values when made).
#[derive(Clone)]
pub(crate) struct ReadSpec {
    pub(crate) table: strata::table::Table,
    pub(crate) opts: ReadOptions,
}

impl ReadSpec {
    pub(crate) fn new(table: strata::table::Table, opts: ReadOptions) -> Self {
        ReadSpec { table, opts }
    }

    /// Plans and reads everything into a pyarrow table.
    pub(crate) fn read_all<'py>(
        &self,
        py: Python<'py>,
        progress: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let t = self.table.clone();
        let opts = self.opts.clone();
        let (batches, schema) = block_on(py, async move {
            let splits = match scan_from_options(&t)? {
                Some(scan) => {
                    check_no_travel(&t, &opts)?;
                    Splits::Incremental(scan.plan().await?.splits)
                }
                None => {
                    let r = resolve(t.clone(), &opts).await?;
                    Splits::Data(r.scan.plan().await?.splits)
                }
            };
            let total = splits.rows();
            let (schema, stream) = open_stream(t, &opts, splits).await?;
            collect(schema, stream, total, progress).await
        })?
        .py_err()?;
        crate::arrow_io::to_pyarrow_table(py, batches, schema)
    }
}

pub(crate) async fn collect(
    schema: SchemaRef,
    mut stream: BatchStream,
    total: i64,
    progress: Option<bool>,
) -> strata::Result<(Vec<RecordBatch>, SchemaRef)> {
    let mut bar = Progress::new(progress, total.max(0) as u64, "reading", "rows");
    let mut out = Vec::new();
    while let Some(b) = stream.next().await {
        let b = b?;
        bar.inc(b.num_rows() as u64);
        out.push(b);
    }
    Ok((out, schema))
}
