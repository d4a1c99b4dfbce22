//! `strata.TableRead`: splits into Arrow — a pyarrow table, a reader, any Arrow PyCapsule
//! consumer (the C stream interface pulls batches through a blocking reader over the async
//! stream), pandas, Polars, DuckDB.

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use futures::stream::BoxStream;
use futures::StreamExt;
use pyo3::prelude::*;

use crate::errors::{invalid, IntoPy};
use crate::incremental::scan_from_options;
use crate::read_spec::{collect, open_stream, ReadSpec, Splits};
use crate::runtime::{block_on, runtime};
use crate::split::{Split, SplitKind};

/// Reads splits into Arrow.
#[pyclass(module = "strata", frozen)]
pub struct TableRead {
    pub(crate) builder: ReadSpec,
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
