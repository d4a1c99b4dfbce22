//! Streaming reads from Python: `table.new_stream_read_builder()` (pypaimon's name) configures
//! strata's [`strata::stream::StreamRead`] — starting position, consumer id, bound, poll
//! interval, projection, filter — and `changes()` returns a [`ChangeStream`], a blocking Python
//! iterator of [`ChangeBatch`]es (a snapshot id and an Arrow batch whose first column is
//! `rowkind`).
//!
//! Waiting for the next batch releases the GIL and runs in slices of [`SLICE`]: between slices
//! the iterator checks for signals, so Ctrl-C (KeyboardInterrupt) stops a stream that is
//! waiting for a commit, and breaking out of the loop simply drops the stream.

use std::sync::Mutex;
use std::time::Duration;

use arrow_array::{RecordBatch, RecordBatchIterator};
use arrow_schema::SchemaRef;
use futures::stream::BoxStream;
use futures::StreamExt;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use strata::stream::StartingPosition;

use crate::errors::{internal, invalid, to_py, IntoPy};
use crate::incremental::Shape;
use crate::read_options::filter_text;
use crate::runtime::{block_on, panic_text, runtime};

/// How long one wait for the next batch runs with the GIL released before signals are checked.
const SLICE: Duration = Duration::from_millis(100);

/// Where the stream stops.
#[derive(Clone, Copy, Debug)]
enum Until {
    Snapshot(i64),
    /// The snapshot that is the latest when the stream starts.
    Latest,
}

#[derive(Clone, Debug)]
struct Config {
    /// `None`: where the table's `scan.*` options say (Java's streaming start), else
    /// `latest-full`.
    start: Option<StartingPosition>,
    consumer_id: Option<String>,
    poll_interval: Duration,
    projection: Option<Vec<String>>,
    filter: Option<String>,
    row_kind: bool,
    until: Option<Until>,
}

/// Epoch milliseconds from an int, a `yyyy-MM-dd HH:mm:ss` local time text or a datetime.
fn timestamp_millis(ts: &Bound<'_, PyAny>) -> PyResult<i64> {
    let py = ts.py();
    if let Ok(ms) = ts.extract::<i64>() {
        return Ok(ms);
    }
    if let Ok(text) = ts.extract::<String>() {
        return strata::maintenance::time_travel::parse_local_timestamp(&text)
            .map_err(|e| invalid(format!("timestamp {text:?}: {e}")));
    }
    if ts.is_instance(&py.import("datetime")?.getattr("datetime")?)? {
        let secs: f64 = ts.call_method0("timestamp")?.extract()?;
        return Ok((secs * 1000.0).round() as i64);
    }
    Err(invalid(
        "timestamp= takes epoch milliseconds, a 'yyyy-MM-dd HH:mm:ss' local time or a datetime",
    ))
}

const POSITIONS: &str =
    "latest, latest-full, compacted-full, earliest, from-snapshot, from-snapshot-full or from-timestamp";

/// A [`StartingPosition`] from Java's `scan.mode` name and its argument.
fn starting_position(
    position: &str,
    snapshot_id: Option<i64>,
    timestamp: Option<&Bound<'_, PyAny>>,
) -> PyResult<StartingPosition> {
    let mode = position.trim().to_ascii_lowercase();
    let needs_id = matches!(mode.as_str(), "from-snapshot" | "from-snapshot-full");
    let needs_ts = mode == "from-timestamp";
    if snapshot_id.is_some() && !needs_id {
        return Err(invalid(format!(
            "starting position {position:?} takes no snapshot_id (from-snapshot and \
             from-snapshot-full do)"
        )));
    }
    if timestamp.is_some() && !needs_ts {
        return Err(invalid(format!(
            "starting position {position:?} takes no timestamp (from-timestamp does)"
        )));
    }
    let id = || {
        snapshot_id
            .ok_or_else(|| invalid(format!("starting position {position:?} needs snapshot_id=")))
    };
    Ok(match mode.as_str() {
        "latest" => StartingPosition::Latest,
        "latest-full" | "full" => StartingPosition::LatestFull,
        "compacted-full" => StartingPosition::CompactedFull,
        "earliest" => StartingPosition::Earliest,
        "from-snapshot" => StartingPosition::FromSnapshot(id()?),
        "from-snapshot-full" => StartingPosition::FromSnapshotFull(id()?),
        "from-timestamp" => match timestamp {
            Some(ts) => StartingPosition::FromTimestamp(timestamp_millis(ts)?),
            None => {
                return Err(invalid(
                    "starting position \"from-timestamp\" needs timestamp=",
                ))
            }
        },
        _ => {
            return Err(invalid(format!(
                "unknown starting position {position:?}: expected {POSITIONS}"
            )))
        }
    })
}

/// A builder of a streaming read (pypaimon's ``table.new_stream_read_builder()``). Every
/// ``with_*`` changes this builder and returns it, as pypaimon's do.
#[pyclass(module = "strata", frozen)]
pub struct StreamReadBuilder {
    table: strata::table::Table,
    config: Mutex<Config>,
}

impl StreamReadBuilder {
    pub(crate) fn new(table: strata::table::Table) -> Self {
        StreamReadBuilder {
            table,
            config: Mutex::new(Config {
                start: None,
                consumer_id: None,
                poll_interval: Duration::from_secs(1),
                projection: None,
                filter: None,
                row_kind: true,
                until: None,
            }),
        }
    }

    fn config(&self) -> Config {
        match self.config.lock() {
            Ok(c) => c.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    fn update(slf: &Bound<'_, Self>, f: impl FnOnce(&mut Config)) -> Py<Self> {
        {
            let me = slf.get();
            let mut c = match me.config.lock() {
                Ok(c) => c,
                Err(p) => p.into_inner(),
            };
            f(&mut c);
        }
        slf.clone().unbind()
    }

    /// The strata stream read and the shape of its output.
    fn read(&self, config: &Config) -> strata::Result<(strata::stream::StreamRead, Shape)> {
        let shape = Shape::new(
            &self.table,
            config.projection.clone(),
            config.filter.as_deref(),
            config.row_kind,
            None,
        )?;
        let mut read = self
            .table
            .new_stream_read()
            .with_poll_interval(config.poll_interval);
        if let Some(start) = config.start {
            read = read.with_start(start);
        }
        if let Some(id) = &config.consumer_id {
            read = read.with_consumer_id(id.clone());
        }
        if let Some(cols) = &shape.read_projection {
            read = read.with_projection(cols.clone());
        }
        if let Some(Until::Snapshot(id)) = config.until {
            read = read.until_snapshot(id);
        }
        Ok((read, shape))
    }

    /// Starts the stream.
    pub(crate) fn start(&self, py: Python<'_>) -> PyResult<ChangeStream> {
        let config = self.config();
        let (mut read, shape) = self.read(&config).py_err()?;
        let schema = shape
            .output_schema(&read.output_schema().py_err()?)
            .py_err()?;
        if let Some(Until::Latest) = config.until {
            let t = self.table.clone();
            let latest =
                block_on(py, async move { t.snapshot_manager().latest_id().await })?.py_err()?;
            // An empty table: nothing to read (snapshot 1 is after the bound).
            read = read.until_snapshot(latest.unwrap_or(0));
        }
        let filtered = config.filter.is_some();
        let stream = read
            .changes()
            .py_err()?
            .filter_map(move |r| {
                let out = match r {
                    Ok(c) => match shape.apply(c.batch) {
                        Ok(b) if filtered && b.num_rows() == 0 => None,
                        Ok(batch) => Some(Ok(strata::stream::ChangeBatch {
                            snapshot_id: c.snapshot_id,
                            batch,
                        })),
                        Err(e) => Some(Err(e)),
                    },
                    Err(e) => Some(Err(e)),
                };
                futures::future::ready(out)
            })
            .boxed();
        Ok(ChangeStream {
            schema,
            stream: Mutex::new(Some(stream)),
        })
    }
}

#[pymethods]
impl StreamReadBuilder {
    /// Where the stream starts (Java's ``scan.mode``): ``"latest"`` (changes committed from
    /// now on), ``"latest-full"`` (the latest snapshot whole, each row ``+I`` or ``+U`` as its
    /// record, then its changes; the default unless the table's ``scan.mode`` /
    /// ``scan.snapshot-id`` / ``scan.timestamp-millis`` options say otherwise, as in Java), ``"compacted-full"`` (the latest compacted snapshot whole, then later
    /// changes), ``"earliest"`` (the earliest snapshot whole, then every change),
    /// ``"from-snapshot"`` (the changes of ``snapshot_id`` and later), ``"from-snapshot-full"``
    /// (``snapshot_id`` whole, then later changes) or ``"from-timestamp"`` (changes of the
    /// snapshots committed after ``timestamp``: epoch ms, local time text or a datetime).
    #[pyo3(signature = (position, snapshot_id = None, timestamp = None))]
    fn with_starting_position(
        slf: &Bound<'_, Self>,
        position: &str,
        snapshot_id: Option<i64>,
        timestamp: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<Self>> {
        let start = starting_position(position, snapshot_id, timestamp.as_ref())?;
        Ok(Self::update(slf, |c| c.start = Some(start)))
    }

    /// Records progress in ``consumer/consumer-<id>``: snapshot expiry keeps what the stream
    /// still needs, and a stream started again with the same id resumes where this one
    /// stopped (whatever its starting position says).
    fn with_consumer_id(slf: &Bound<'_, Self>, consumer_id: String) -> PyResult<Py<Self>> {
        strata::maintenance::consumers::validate_consumer_id(&consumer_id).py_err()?;
        Ok(Self::update(slf, |c| c.consumer_id = Some(consumer_id)))
    }

    /// How often to look for a new snapshot once the stream has caught up (default 1000 ms).
    fn with_poll_interval_ms(slf: &Bound<'_, Self>, poll_interval_ms: i64) -> PyResult<Py<Self>> {
        if poll_interval_ms <= 0 {
            return Err(invalid(format!(
                "poll_interval_ms must be positive, got {poll_interval_ms}"
            )));
        }
        let d = Duration::from_millis(poll_interval_ms as u64);
        Ok(Self::update(slf, |c| c.poll_interval = d))
    }

    /// Ends the stream once snapshot ``snapshot_id`` has been read (``None``: never ends).
    #[pyo3(signature = (snapshot_id))]
    fn with_until_snapshot(slf: &Bound<'_, Self>, snapshot_id: Option<i64>) -> Py<Self> {
        Self::update(slf, |c| c.until = snapshot_id.map(Until::Snapshot))
    }

    /// A bounded stream: ends once the snapshot that is the latest when the stream starts
    /// has been read.
    #[pyo3(signature = (bounded = true))]
    fn with_bounded(slf: &Bound<'_, Self>, bounded: bool) -> Py<Self> {
        Self::update(slf, |c| c.until = bounded.then_some(Until::Latest))
    }

    /// Outputs only these columns (after ``rowkind``), in this order.
    fn with_projection(slf: &Bound<'_, Self>, columns: Option<Vec<String>>) -> Py<Self> {
        Self::update(slf, |c| c.projection = columns)
    }

    /// Keeps the rows matching ``predicate`` (SQL text or a :class:`strata.Predicate`).
    fn with_filter(
        slf: &Bound<'_, Self>,
        predicate: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<Self>> {
        let text = predicate.map(|p| filter_text(&p)).transpose()?;
        if let Some(t) = &text {
            strata::expr::parse_sql_predicate(t).map_err(to_py)?;
        }
        Ok(Self::update(slf, |c| c.filter = text))
    }

    /// Whether batches carry the ``rowkind`` column (``+I``, ``-U``, ``+U``, ``-D``) first
    /// (default: yes; pypaimon names it ``_row_kind`` and leaves it out by default).
    #[pyo3(signature = (include = true))]
    fn with_include_row_kind(slf: &Bound<'_, Self>, include: bool) -> Py<Self> {
        Self::update(slf, |c| c.row_kind = include)
    }

    /// A builder of :class:`strata.Predicate` for :meth:`with_filter`.
    fn new_predicate_builder<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("strata")?.getattr("PredicateBuilder")?.call0()
    }

    /// The Arrow schema of every batch.
    fn read_schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (read, shape) = self.read(&self.config()).py_err()?;
        let schema = shape
            .output_schema(&read.output_schema().py_err()?)
            .py_err()?;
        crate::arrow_io::schema_object(py, schema)
    }

    /// Starts the stream: an iterator of :class:`ChangeBatch`.
    fn changes(&self, py: Python<'_>) -> PyResult<ChangeStream> {
        self.start(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "strata.StreamReadBuilder({:?}, {:?})",
            self.table.identifier().to_string(),
            self.config()
        )
    }
}

/// A running streaming read: iterate it for :class:`ChangeBatch` objects. Without a bound it
/// never ends; ``break`` (or :meth:`close`) stops it, and Ctrl-C interrupts a wait.
#[pyclass(module = "strata", frozen)]
pub struct ChangeStream {
    schema: SchemaRef,
    stream: Mutex<Option<BoxStream<'static, strata::Result<strata::stream::ChangeBatch>>>>,
}

impl ChangeStream {
    fn next_batch(&self, py: Python<'_>, timeout: Option<Duration>) -> PyResult<Next> {
        let mut guard = self.stream.try_lock().map_err(|_| {
            invalid("this ChangeStream is being read by another thread; read it from one")
        })?;
        let Some(stream) = guard.as_mut() else {
            return Ok(Next::End);
        };
        let rt = runtime()?;
        let started = std::time::Instant::now();
        loop {
            let slice = match timeout {
                Some(t) => match t.checked_sub(started.elapsed()) {
                    Some(left) if !left.is_zero() => left.min(SLICE),
                    _ => return Ok(Next::Timeout),
                },
                None => SLICE,
            };
            let polled = py.detach(|| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    rt.block_on(async { tokio::time::timeout(slice, stream.next()).await })
                }))
            });
            match polled {
                Err(payload) => {
                    *guard = None;
                    return Err(internal(format!(
                        "strata panicked (a bug; please report it): {}",
                        panic_text(&payload)
                    )));
                }
                // Nothing yet: let Python handle Ctrl-C, then wait again.
                Ok(Err(_elapsed)) => py.check_signals()?,
                Ok(Ok(None)) => {
                    *guard = None;
                    return Ok(Next::End);
                }
                Ok(Ok(Some(Err(e)))) => {
                    *guard = None;
                    return Err(to_py(e));
                }
                Ok(Ok(Some(Ok(c)))) => {
                    return Ok(Next::Batch(ChangeBatch {
                        snapshot_id: c.snapshot_id,
                        batch: c.batch,
                    }))
                }
            }
        }
    }
}

enum Next {
    Batch(ChangeBatch),
    Timeout,
    End,
}

#[pymethods]
impl ChangeStream {
    fn __iter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<ChangeBatch>> {
        match self.next_batch(py, None)? {
            Next::Batch(b) => Ok(Some(b)),
            Next::Timeout | Next::End => Ok(None),
        }
    }

    /// The next batch, waiting at most ``timeout`` seconds: ``None`` when none came in time.
    /// Raises ``StopIteration`` once a bounded stream has ended.
    #[pyo3(signature = (timeout))]
    fn poll(&self, py: Python<'_>, timeout: f64) -> PyResult<Option<ChangeBatch>> {
        if !(timeout >= 0.0 && timeout.is_finite()) {
            return Err(invalid(format!(
                "timeout must be a non-negative number of seconds, got {timeout}"
            )));
        }
        match self.next_batch(py, Some(Duration::from_secs_f64(timeout)))? {
            Next::Batch(b) => Ok(Some(b)),
            Next::Timeout => Ok(None),
            Next::End => Err(pyo3::exceptions::PyStopIteration::new_err(())),
        }
    }

    /// The Arrow schema of every batch.
    #[getter]
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::arrow_io::schema_object(py, self.schema.clone())
    }

    /// Whether the stream has ended or been closed.
    #[getter]
    fn closed(&self) -> bool {
        matches!(self.stream.try_lock(), Ok(g) if g.is_none())
    }

    /// Stops the stream (what dropping it does too).
    fn close(&self) -> PyResult<()> {
        let mut guard = self
            .stream
            .try_lock()
            .map_err(|_| invalid("this ChangeStream is being read by another thread"))?;
        *guard = None;
        Ok(())
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (_t = None, _v = None, _tb = None))]
    fn __exit__(
        &self,
        _t: Option<Bound<'_, PyAny>>,
        _v: Option<Bound<'_, PyAny>>,
        _tb: Option<Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        self.close()?;
        Ok(false)
    }
}

/// Rows of one snapshot's changes (or of a whole snapshot read first: ``+I`` / ``+U``, no deletes).
#[pyclass(module = "strata", frozen)]
pub struct ChangeBatch {
    snapshot_id: i64,
    batch: RecordBatch,
}

impl ChangeBatch {
    fn arrow_object<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(Bound::new(py, pyo3_arrow::PyRecordBatch::new(self.batch.clone()))?.into_any())
    }
}

#[pymethods]
impl ChangeBatch {
    /// The snapshot the rows come from.
    #[getter]
    fn snapshot_id(&self) -> i64 {
        self.snapshot_id
    }

    #[getter]
    fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }

    /// The rows: a ``pyarrow.RecordBatch`` when pyarrow is installed, else an object with
    /// ``__arrow_c_array__`` (any Arrow PyCapsule consumer takes it).
    #[getter]
    fn batch<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if py.import("pyarrow").is_ok() {
            self.to_arrow(py)
        } else {
            self.arrow_object(py)
        }
    }

    /// The rows as a ``pyarrow.RecordBatch``.
    fn to_arrow<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::arrow_io::import_pyarrow(py, "ChangeBatch.to_arrow()")?;
        pyo3_arrow::PyRecordBatch::new(self.batch.clone()).into_pyarrow(py)
    }

    /// The rows as a ``pandas.DataFrame``.
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.to_arrow(py)?.call_method0("to_pandas")
    }

    /// The rows as a ``polars.DataFrame``.
    fn to_polars<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("polars")?
            .call_method1("DataFrame", (self.__arrow_c_stream__(py, None)?,))
            .or_else(|_| {
                py.import("polars")?
                    .call_method1("from_arrow", (self.to_arrow(py)?,))
            })
    }

    /// The rows as a list of dicts.
    fn to_pylist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.to_arrow(py)?.call_method0("to_pylist")
    }

    /// The Arrow PyCapsule interface: the rows as one struct array.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyCapsule>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.arrow_object(py)?
            .call_method1("__arrow_c_array__", (requested_schema,))
    }

    /// The Arrow PyCapsule interface: the rows as a stream of this one batch.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyCapsule>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let reader = RecordBatchIterator::new(vec![Ok(self.batch.clone())], self.batch.schema());
        crate::arrow_io::to_stream_object(py, Box::new(reader))?
            .call_method1("__arrow_c_stream__", (requested_schema,))
    }

    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }

    fn __repr__(&self) -> String {
        format!(
            "strata.ChangeBatch(snapshot_id={}, rows={})",
            self.snapshot_id,
            self.batch.num_rows()
        )
    }
}
