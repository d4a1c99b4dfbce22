//! Reading: `ReadBuilder` (filter, projection, limit, time travel) → `TableScan.plan()` →
//! `Split`s → `TableRead` → Arrow (pyarrow table or reader, any PyCapsule consumer, pandas,
//! Polars, DuckDB). Splits pickle (strata's versioned wire form), so a driver can plan once
//! and hand splits to Ray, Dask or its own worker processes.
//!
//! A table with `incremental-between` options (`table.copy({...})`) plans and reads the
//! changes of the range instead ([`crate::incremental`]): its splits are incremental splits,
//! and its rows come with a first `rowkind` column.

use std::sync::Mutex;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use futures::stream::BoxStream;
use futures::StreamExt;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use strata::maintenance::time_travel::{table_at, TravelTarget};
use strata::scan::{DataSplit, IncrementalSplit};

use crate::errors::{invalid, to_py, IntoPy};
use crate::incremental::{scan_from_options, Shape};
use crate::progress::Progress;
use crate::runtime::{block_on, runtime};

/// Where a read travels to.
#[derive(Clone, Debug)]
pub(crate) enum Travel {
    Snapshot(i64),
    Target(TravelTarget),
}

/// What a read builder has been given.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReadOptions {
    pub projection: Option<Vec<String>>,
    pub filter: Option<String>,
    pub limit: Option<usize>,
    pub travel: Option<Travel>,
}

impl ReadOptions {
    /// At most one of snapshot id, tag, timestamp (a `yyyy-MM-dd HH:mm:ss` local time text,
    /// epoch milliseconds, or a datetime).
    pub(crate) fn set_travel(
        &mut self,
        snapshot_id: Option<i64>,
        tag: Option<String>,
        timestamp: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let given = snapshot_id.is_some() as u8 + tag.is_some() as u8 + timestamp.is_some() as u8;
        if given > 1 {
            return Err(invalid(
                "give at most one of snapshot_id=, tag= and timestamp=",
            ));
        }
        if let Some(id) = snapshot_id {
            self.travel = Some(Travel::Snapshot(id));
        } else if let Some(name) = tag {
            self.travel = Some(Travel::Target(TravelTarget::Tag(name)));
        } else if let Some(ts) = timestamp {
            self.travel = Some(Travel::Target(travel_timestamp(ts)?));
        }
        Ok(())
    }
}

fn travel_timestamp(ts: &Bound<'_, PyAny>) -> PyResult<TravelTarget> {
    let py = ts.py();
    if let Ok(ms) = ts.extract::<i64>() {
        return Ok(TravelTarget::TimestampMillis(ms));
    }
    if let Ok(text) = ts.extract::<String>() {
        return TravelTarget::timestamp(&text)
            .map_err(|e| invalid(format!("timestamp {text:?}: {e}")));
    }
    if ts.is_instance(&py.import("datetime")?.getattr("datetime")?)? {
        let secs: f64 = ts.call_method0("timestamp")?.extract()?;
        return Ok(TravelTarget::TimestampMillis((secs * 1000.0).round() as i64));
    }
    Err(invalid(
        "timestamp= takes epoch milliseconds, a 'yyyy-MM-dd HH:mm:ss' local time or a datetime",
    ))
}

/// The SQL text of a filter given as text or as a `strata.Predicate`.
pub(crate) fn filter_text(filter: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = filter.extract::<String>() {
        return Ok(s);
    }
    if filter.hasattr("to_sql")? {
        return filter.call_method0("to_sql")?.extract();
    }
    Err(invalid(format!(
        "a filter is SQL text (\"id < 10\") or a strata.Predicate, not a {}",
        filter.get_type().name()?
    )))
}

/// The table a read sees (travelled, with that snapshot's schema) and the scan to plan.
struct Resolved {
    table: strata::table::Table,
    scan: strata::scan::TableScan,
}

async fn resolve(table: strata::table::Table, opts: &ReadOptions) -> strata::Result<Resolved> {
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
            let scan = t.new_scan().with_snapshot_meta(s);
            (t, scan)
        }
    };
    if let Some(text) = &opts.filter {
        scan = scan.with_filter(strata::expr::parse_sql_predicate(text)?);
    }
    Ok(Resolved { table, scan })
}

/// An incremental read (`incremental-between` options) names its snapshots itself.
fn check_no_travel(table: &strata::table::Table, opts: &ReadOptions) -> strata::Result<()> {
    if opts.travel.is_some() {
        return Err(strata::Error::invalid_argument(format!(
            "{} has incremental-between options, which name the snapshots read: time travel \
             (snapshot_id=, tag=, timestamp=, with_travel) cannot be combined with them",
            table.identifier()
        )));
    }
    Ok(())
}

type BatchStream = BoxStream<'static, strata::Result<RecordBatch>>;

/// The rows of incremental `splits` (with `rowkind` first), with the builder's projection,
/// filter and limit.
fn incremental_stream(
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
    fn rows(&self) -> i64 {
        match self {
            Splits::Data(s) => s.iter().map(DataSplit::row_count).sum(),
            Splits::Incremental(s) => s.iter().map(crate::incremental::row_count).sum(),
        }
    }
}

/// The schema and batches of `splits`, read as the builder says.
async fn open_stream(
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

fn table_read(
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
    table: strata::table::Table,
    opts: ReadOptions,
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

/// A builder of scans and reads of one table. Every `with_*` changes this builder and returns
/// it, as pypaimon's `ReadBuilder` does, so both `rb = rb.with_filter(p)` and a bare
/// `rb.with_filter(p)` take effect.
#[pyclass(module = "strata", frozen)]
pub struct ReadBuilder {
    table: strata::table::Table,
    opts: Mutex<ReadOptions>,
}

impl ReadBuilder {
    pub(crate) fn new(table: strata::table::Table) -> Self {
        ReadBuilder {
            table,
            opts: Mutex::new(ReadOptions::default()),
        }
    }

    /// The builder's table and options as they are now.
    fn spec(&self) -> ReadSpec {
        let opts = match self.opts.lock() {
            Ok(o) => o.clone(),
            Err(p) => p.into_inner().clone(),
        };
        ReadSpec::new(self.table.clone(), opts)
    }

    /// Applies `f` to this builder's options and returns the builder.
    fn update(slf: &Bound<'_, Self>, f: impl FnOnce(&mut ReadOptions)) -> Py<Self> {
        {
            let me = slf.get();
            let mut o = match me.opts.lock() {
                Ok(o) => o,
                Err(p) => p.into_inner(),
            };
            f(&mut o);
        }
        slf.clone().unbind()
    }
}

async fn collect(
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

#[pymethods]
impl ReadBuilder {
    /// Keeps the rows matching `predicate`: SQL text (``"dt = '2024-01-01' AND m['k'] > 3"``)
    /// or a :class:`strata.Predicate` (``None``: no filter). Files, row groups and pages that
    /// cannot match are skipped. Returns this builder.
    fn with_filter(
        slf: &Bound<'_, Self>,
        predicate: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<Self>> {
        let text = predicate.map(|p| filter_text(&p)).transpose()?;
        if let Some(t) = &text {
            strata::expr::parse_sql_predicate(t).map_err(to_py)?;
        }
        Ok(Self::update(slf, |o| o.filter = text))
    }

    /// Outputs only these columns, in this order; a MAP key is ``"m['k']"`` (``None``: every
    /// column). Returns this builder.
    fn with_projection(slf: &Bound<'_, Self>, columns: Option<Vec<String>>) -> Py<Self> {
        Self::update(slf, |o| o.projection = columns)
    }

    /// Outputs at most `limit` rows (``None``: no limit). Returns this builder.
    fn with_limit(slf: &Bound<'_, Self>, limit: Option<usize>) -> Py<Self> {
        Self::update(slf, |o| o.limit = limit)
    }

    /// Time travel: a snapshot id, a tag, or the latest snapshot committed at or before a
    /// timestamp (epoch ms, ``"yyyy-MM-dd HH:mm:ss"`` local time, or a datetime); none of
    /// them: the latest snapshot. Returns this builder.
    #[pyo3(signature = (snapshot_id = None, tag = None, timestamp = None))]
    fn with_travel(
        slf: &Bound<'_, Self>,
        snapshot_id: Option<i64>,
        tag: Option<String>,
        timestamp: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<Self>> {
        let mut travel = ReadOptions::default();
        travel.set_travel(snapshot_id, tag, timestamp.as_ref())?;
        Ok(Self::update(slf, |o| o.travel = travel.travel))
    }

    /// A builder of :class:`strata.Predicate` for :meth:`with_filter`.
    fn new_predicate_builder<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("strata")?.getattr("PredicateBuilder")?.call0()
    }

    /// The Arrow schema the read outputs.
    fn read_schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let ReadSpec { table: t, opts } = self.spec();
        let schema = block_on(py, async move {
            if scan_from_options(&t)?.is_some() {
                return Ok(incremental_stream(&t, &opts, vec![])?.0);
            }
            let r = resolve(t, &opts).await?;
            table_read(&r.table, &opts)?.output_schema()
        })?
        .py_err()?;
        crate::arrow_io::schema_object(py, schema)
    }

    /// A scan with the builder's current filter, projection, limit and travel.
    fn new_scan(&self) -> TableScan {
        TableScan {
            builder: self.spec(),
        }
    }

    /// A read with the builder's current filter, projection, limit and travel.
    fn new_read(&self) -> TableRead {
        TableRead {
            builder: self.spec(),
        }
    }

    fn __repr__(&self) -> String {
        let spec = self.spec();
        format!(
            "strata.ReadBuilder({:?}, {:?})",
            spec.table.identifier().to_string(),
            spec.opts
        )
    }
}

/// Plans a read: which files of which snapshot, as splits.
#[pyclass(module = "strata", frozen)]
pub struct TableScan {
    builder: ReadSpec,
}

#[pymethods]
impl TableScan {
    /// Reads the manifests (through the live-entry cache) and prunes files by partition,
    /// statistics and MAP keys.
    fn plan(&self, py: Python<'_>) -> PyResult<Plan> {
        let t = self.builder.table.clone();
        let opts = self.builder.opts.clone();
        let plan = block_on(py, async move {
            match scan_from_options(&t)? {
                Some(scan) => {
                    check_no_travel(&t, &opts)?;
                    Ok(Err(scan.plan().await?))
                }
                None => {
                    let r = resolve(t, &opts).await?;
                    Ok::<_, strata::Error>(Ok(r.scan.plan().await?))
                }
            }
        })?
        .py_err()?;
        let plan = match plan {
            Ok(plan) => plan,
            Err(inc) => {
                return Ok(Plan {
                    snapshot_id: inc.end_snapshot,
                    splits: inc
                        .splits
                        .into_iter()
                        .flat_map(crate::incremental::per_file)
                        .map(SplitKind::Incremental)
                        .collect(),
                    skipped_files: 0,
                })
            }
        };
        Ok(Plan {
            snapshot_id: plan.snapshot.as_ref().map(|s| s.id),
            // Files that need no merging are read one by one anyway: one split each lets Ray,
            // Dask or a thread pool spread them.
            splits: plan
                .splits
                .into_iter()
                .flat_map(DataSplit::per_file)
                .map(SplitKind::Data)
                .collect(),
            skipped_files: plan.metrics.skipped_files as u64,
        })
    }
}

/// The result of planning: splits of one snapshot.
#[pyclass(module = "strata", frozen)]
pub struct Plan {
    splits: Vec<SplitKind>,
    snapshot_id: Option<i64>,
    skipped_files: u64,
}

#[pymethods]
impl Plan {
    /// The splits to read: one per partition and bucket when the files must be merged
    /// (primary-key files with overlapping keys), else one per file.
    fn splits(&self) -> Vec<Split> {
        self.splits
            .iter()
            .cloned()
            .map(|inner| Split { inner })
            .collect()
    }

    /// The snapshot planned, ``None`` for a table without snapshots.
    #[getter]
    fn snapshot_id(&self) -> Option<i64> {
        self.snapshot_id
    }

    /// Files pruned by partition, statistics or MAP keys.
    #[getter]
    fn skipped_files(&self) -> u64 {
        self.skipped_files
    }
}

/// What a split reads: files of a snapshot, or changes of an incremental read.
#[derive(Clone)]
pub(crate) enum SplitKind {
    Data(DataSplit),
    Incremental(IncrementalSplit),
}

impl SplitKind {
    /// The data splits it reads, the one that names its bucket and snapshot first.
    fn parts(&self) -> Vec<&DataSplit> {
        match self {
            SplitKind::Data(s) | SplitKind::Incremental(IncrementalSplit::Records(s)) => vec![s],
            SplitKind::Incremental(IncrementalSplit::Diff { before, after, .. }) => {
                vec![after, before]
            }
        }
    }
}

/// Files of one partition and bucket (or a row range of one file) to read together; of an
/// incremental read, one delta or changelog file, or the two sides of a diff.
/// Picklable: plan on a driver, read in workers.
#[pyclass(module = "strata", frozen)]
#[derive(Clone)]
pub struct Split {
    pub(crate) inner: SplitKind,
}

#[pyfunction]
pub(crate) fn split_from_bytes(data: &[u8]) -> PyResult<Split> {
    let bad = |e: String| invalid(format!("not a serialized strata split: {e}"));
    let value: serde_json::Value = serde_json::from_slice(data).map_err(|e| bad(e.to_string()))?;
    if let Some(inc) = crate::incremental::from_json(value.clone()) {
        return Ok(Split {
            inner: SplitKind::Incremental(inc.map_err(bad)?),
        });
    }
    let inner: DataSplit = serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
    Ok(Split {
        inner: SplitKind::Data(inner),
    })
}

#[pymethods]
impl Split {
    /// Rows in the split's files before merging, deletion vectors and filters.
    #[getter]
    fn row_count(&self) -> i64 {
        self.inner.parts().iter().map(|s| s.row_count()).sum()
    }

    #[getter]
    fn bucket(&self) -> i32 {
        self.inner.parts()[0].bucket
    }

    /// The snapshot planned (of an incremental split: the end of its range, or the snapshot
    /// of its delta or changelog file).
    #[getter]
    fn snapshot_id(&self) -> i64 {
        self.inner.parts()[0].snapshot_id
    }

    /// Names of the data files.
    #[getter]
    fn file_names(&self) -> Vec<String> {
        self.inner
            .parts()
            .iter()
            .flat_map(|s| s.files.iter().map(|f| f.file_name.clone()))
            .collect()
    }

    /// Bytes of the data files.
    #[getter]
    fn file_size(&self) -> i64 {
        self.inner
            .parts()
            .iter()
            .flat_map(|s| s.files.iter().map(|f| f.file_size))
            .sum()
    }

    /// Whether the files can be read without merging (true for delta and changelog files of
    /// an incremental read, false for a diff).
    #[getter]
    fn raw_convertible(&self) -> bool {
        match &self.inner {
            SplitKind::Data(s) => s.raw_convertible,
            SplitKind::Incremental(IncrementalSplit::Records(_)) => true,
            SplitKind::Incremental(IncrementalSplit::Diff { .. }) => false,
        }
    }

    /// Whether the split belongs to an incremental read (rows come with their ``rowkind``).
    #[getter]
    fn is_incremental(&self) -> bool {
        matches!(self.inner, SplitKind::Incremental(_))
    }

    /// The split in strata's versioned wire form (JSON with Paimon manifest Avro inside).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let data = match &self.inner {
            SplitKind::Data(s) => serde_json::to_vec(s).map_err(|e| e.to_string()),
            SplitKind::Incremental(s) => crate::incremental::to_json(s),
        }
        .map_err(|e| invalid(format!("cannot serialize a split: {e}")))?;
        Ok(PyBytes::new(py, &data))
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let f = py.import("strata._native")?.getattr("split_from_bytes")?;
        let args = PyTuple::new(py, [self.to_bytes(py)?])?;
        PyTuple::new(py, [f, args.into_any()])
    }

    fn __repr__(&self) -> String {
        let kind = match &self.inner {
            SplitKind::Data(_) => "",
            SplitKind::Incremental(IncrementalSplit::Records(_)) => "incremental, ",
            SplitKind::Incremental(IncrementalSplit::Diff { .. }) => "incremental diff, ",
        };
        format!(
            "strata.Split({kind}bucket={}, files={}, rows={})",
            self.bucket(),
            self.file_names().len(),
            self.row_count()
        )
    }
}

/// Reads splits into Arrow.
#[pyclass(module = "strata", frozen)]
pub struct TableRead {
    builder: ReadSpec,
}

impl TableRead {
    /// The splits, all of one kind (none: the kind the builder's table reads).
    fn splits(&self, splits: Vec<PyRef<'_, Split>>) -> PyResult<Splits> {
        let incremental = match splits.first() {
            Some(s) => matches!(s.inner, SplitKind::Incremental(_)),
            None => scan_from_options(&self.builder.table).py_err()?.is_some(),
        };
        if incremental {
            let mut out = Vec::with_capacity(splits.len());
            for s in &splits {
                match &s.inner {
                    SplitKind::Incremental(i) => out.push(i.clone()),
                    SplitKind::Data(_) => return Err(mixed()),
                }
            }
            Ok(Splits::Incremental(out))
        } else {
            let mut out = Vec::with_capacity(splits.len());
            for s in &splits {
                match &s.inner {
                    SplitKind::Data(d) => out.push(d.clone()),
                    SplitKind::Incremental(_) => return Err(mixed()),
                }
            }
            Ok(Splits::Data(out))
        }
    }
}

fn mixed() -> PyErr {
    invalid(
        "splits of an incremental read (incremental-between) and of a snapshot read cannot be \
         read together",
    )
}

/// A blocking `RecordBatchReader` over strata's async read stream (for the C stream
/// interface, which pulls batches one by one).
struct BlockingReader {
    schema: SchemaRef,
    stream: Option<BoxStream<'static, strata::Result<RecordBatch>>>,
}

impl Iterator for BlockingReader {
    type Item = Result<RecordBatch, ArrowError>;
    fn next(&mut self) -> Option<Self::Item> {
        let stream = self.stream.as_mut()?;
        let rt = match runtime() {
            Ok(rt) => rt,
            Err(e) => {
                return Some(Err(ArrowError::ExternalError(Box::new(
                    std::io::Error::other(e.to_string()),
                ))))
            }
        };
        // This runs inside the Arrow C stream's get_next, where a panic would abort the
        // process: it becomes an error of the stream instead.
        let next =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rt.block_on(stream.next())));
        let next = match next {
            Ok(n) => n,
            Err(payload) => {
                self.stream = None;
                let text = format!(
                    "strata panicked (a bug; please report it): {}",
                    crate::runtime::panic_text(&payload)
                );
                return Some(Err(ArrowError::ExternalError(Box::new(
                    std::io::Error::other(text),
                ))));
            }
        };
        match next {
            Some(Ok(b)) => Some(Ok(b)),
            Some(Err(e)) => {
                self.stream = None;
                Some(Err(ArrowError::ExternalError(Box::new(e))))
            }
            None => {
                self.stream = None;
                None
            }
        }
    }
}

impl RecordBatchReader for BlockingReader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

impl TableRead {
    fn reader(
        &self,
        py: Python<'_>,
        splits: Splits,
    ) -> PyResult<Box<dyn RecordBatchReader + Send>> {
        let t = self.builder.table.clone();
        let opts = self.builder.opts.clone();
        let (schema, stream) =
            block_on(py, async move { open_stream(t, &opts, splits).await })?.py_err()?;
        Ok(Box::new(BlockingReader {
            schema,
            stream: Some(stream),
        }))
    }

    fn arrow<'py>(
        &self,
        py: Python<'py>,
        splits: Splits,
        progress: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let t = self.builder.table.clone();
        let opts = self.builder.opts.clone();
        let total = splits.rows();
        let (batches, schema) = block_on(py, async move {
            let (schema, stream) = open_stream(t, &opts, splits).await?;
            collect(schema, stream, total, progress).await
        })?
        .py_err()?;
        crate::arrow_io::to_pyarrow_table(py, batches, schema)
    }
}

#[pymethods]
impl TableRead {
    /// The rows of `splits` as a ``pyarrow.Table`` (read with the GIL released).
    #[pyo3(signature = (splits, progress = None))]
    fn to_arrow<'py>(
        &self,
        py: Python<'py>,
        splits: Vec<PyRef<'py, Split>>,
        progress: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.arrow(py, self.splits(splits)?, progress)
    }

    /// The rows of `splits` as a ``pyarrow.RecordBatchReader``, read as it is consumed.
    fn to_arrow_batch_reader<'py>(
        &self,
        py: Python<'py>,
        splits: Vec<PyRef<'py, Split>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let reader = self.reader(py, self.splits(splits)?)?;
        crate::arrow_io::to_pyarrow_reader(py, reader)
    }

    /// The rows of `splits` as a stream with ``__arrow_c_stream__`` (no pyarrow needed):
    /// ``polars.DataFrame(s)``, ``duckdb.from_arrow(s)``, ``pyarrow.table(s)`` all take it.
    fn to_arrow_stream<'py>(
        &self,
        py: Python<'py>,
        splits: Vec<PyRef<'py, Split>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let reader = self.reader(py, self.splits(splits)?)?;
        crate::arrow_io::to_stream_object(py, reader)
    }

    /// The rows of `splits` as a ``pandas.DataFrame``.
    #[pyo3(signature = (splits, progress = None))]
    fn to_pandas<'py>(
        &self,
        py: Python<'py>,
        splits: Vec<PyRef<'py, Split>>,
        progress: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.arrow(py, self.splits(splits)?, progress)?
            .call_method0("to_pandas")
    }

    /// The rows of `splits` as a ``polars.DataFrame``.
    #[pyo3(signature = (splits, progress = None))]
    fn to_polars<'py>(
        &self,
        py: Python<'py>,
        splits: Vec<PyRef<'py, Split>>,
        progress: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let pl = py.import("polars")?;
        let table = self.arrow(py, self.splits(splits)?, progress)?;
        pl.call_method1("from_arrow", (table,))
    }

    /// Registers the rows of `splits` as DuckDB view `table_name` (in `connection`, or a new
    /// in-memory connection) and returns the connection, as pypaimon's ``to_duckdb`` does.
    #[pyo3(signature = (splits, table_name, connection = None))]
    fn to_duckdb<'py>(
        &self,
        py: Python<'py>,
        splits: Vec<PyRef<'py, Split>>,
        table_name: &str,
        connection: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let con = match connection {
            Some(c) => c,
            None => py.import("duckdb")?.call_method0("connect")?,
        };
        let table = self.arrow(py, self.splits(splits)?, None)?;
        con.call_method1("register", (table_name, table))?;
        Ok(con)
    }
}
