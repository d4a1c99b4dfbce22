//! Writing: `BatchWriteBuilder` → `BatchTableWrite` (Arrow in, data files out) →
//! `prepare_commit()` → `CommitMessage`s → `BatchTableCommit.commit()` → one snapshot.
//! Commit messages pickle (strata's versioned wire form, file metadata as Paimon manifest
//! Avro), so workers can write and a driver commit once.

use std::collections::HashMap;
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use strata::commit::{OverwriteScope, SnapshotOperation};
use strata_spec::kv::RowKind;

use crate::errors::{internal, invalid, to_py, IntoPy};
use crate::progress::Progress;
use crate::runtime::block_on;
use crate::table_handle::Table;

/// What an overwrite replaces: `None` = plain append.
#[derive(Clone, Debug)]
enum Overwrite {
    /// The whole table (or, with `dynamic-partition-overwrite`, the partitions written).
    Table,
    /// One partition given as column → value text.
    Partition(Vec<(String, String)>),
}

fn overwrite_scope(table: &strata::table::Table, o: &Overwrite) -> strata::Result<OverwriteScope> {
    match o {
        Overwrite::Table => Ok(if table.options().dynamic_partition_overwrite()? {
            OverwriteScope::Dynamic
        } else {
            OverwriteScope::WholeTable
        }),
        Overwrite::Partition(spec) => {
            let ptype = table.schema().partition_type();
            let mut out = Vec::new();
            for (k, v) in spec {
                let idx = ptype.index_of(k).ok_or_else(|| {
                    strata::Error::invalid_argument(format!(
                        "{k} is not a partition column of {} (partition keys: {})",
                        table.identifier(),
                        ptype.names().join(", ")
                    ))
                })?;
                let value = table.partition_computer().parse_value(idx, v)?;
                out.push((k.clone(), value));
            }
            Ok(OverwriteScope::Static(out))
        }
    }
}

fn partition_spec(
    partition: Option<HashMap<String, Bound<'_, PyAny>>>,
) -> PyResult<Option<Overwrite>> {
    let Some(p) = partition else {
        return Ok(None);
    };
    let mut spec = Vec::new();
    for (k, v) in p {
        let text = if v.is_none() {
            return Err(invalid(format!(
                "partition {k}=None: name the default partition by its value text (partition.default-name)"
            )));
        } else {
            v.str()?.to_string()
        };
        spec.push((k, text));
    }
    spec.sort();
    Ok(Some(Overwrite::Partition(spec)))
}

/// Builds one batch write and its commit (pypaimon's `BatchWriteBuilder`).
#[pyclass(module = "strata")]
pub struct BatchWriteBuilder {
    table: Py<Table>,
    overwrite: Option<Overwrite>,
}

impl BatchWriteBuilder {
    pub(crate) fn new(table: Py<Table>) -> Self {
        BatchWriteBuilder {
            table,
            overwrite: None,
        }
    }

    /// Writes `data` and commits it: the `Table.write` shortcut.
    pub(crate) fn write_all(
        mut self,
        data: &Bound<'_, PyAny>,
        overwrite: bool,
        partition: Option<HashMap<String, Bound<'_, PyAny>>>,
        progress: Option<bool>,
    ) -> PyResult<Option<i64>> {
        let py = data.py();
        if overwrite {
            self.overwrite = Some(partition_spec(partition)?.unwrap_or(Overwrite::Table));
        }
        let write = BatchTableWrite::open(&self.table, self.overwrite.is_some())?;
        let result = (|| {
            write.write_any(data, progress)?;
            let messages = write.prepare(py)?;
            // The `Table.write` shortcut is Spark's `df.write`: its snapshot says WRITE or
            // OVERWRITE (Java 2.0 `Snapshot.operation`, `PaimonBatchWriteBase`); the
            // pypaimon-style builder commit leaves it null, as pypaimon and Java's core API do.
            let mut commit = self.commit_object();
            commit.operation = Some(if self.overwrite.is_some() {
                SnapshotOperation::Overwrite
            } else {
                SnapshotOperation::Write
            });
            commit.commit_inner(py, messages)
        })();
        if result.is_err() {
            write.abort(py);
        }
        result
    }

    fn commit_object(&self) -> BatchTableCommit {
        BatchTableCommit {
            table: Python::attach(|py| self.table.clone_ref(py)),
            overwrite: self.overwrite.clone(),
            state: Mutex::new(CommitState::NotYet),
            operation: None,
        }
    }
}

#[pymethods]
impl BatchWriteBuilder {
    /// Makes the commit an overwrite: of the table (no argument; with
    /// `dynamic-partition-overwrite` of the partitions written), or of one partition
    /// (``{"dt": "2024-01-01"}``). Returns the builder.
    #[pyo3(signature = (static_partition = None))]
    fn overwrite<'py>(
        mut slf: PyRefMut<'py, Self>,
        static_partition: Option<HashMap<String, Bound<'py, PyAny>>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let spec = partition_spec(static_partition)?;
        slf.overwrite = Some(match spec {
            Some(Overwrite::Partition(p)) if p.is_empty() => Overwrite::Table,
            Some(s) => s,
            None => Overwrite::Table,
        });
        Ok(slf)
    }

    fn new_write(&self) -> PyResult<BatchTableWrite> {
        BatchTableWrite::open(&self.table, self.overwrite.is_some())
    }

    fn new_commit(&self) -> BatchTableCommit {
        self.commit_object()
    }
}

/// Writes Arrow data into new data files (nothing is visible until the commit).
#[pyclass(module = "strata", frozen)]
pub struct BatchTableWrite {
    table: strata::table::Table,
    write: Mutex<Option<strata::write::TableWrite>>,
}

impl BatchTableWrite {
    fn open(table: &Py<Table>, overwrite: bool) -> PyResult<BatchTableWrite> {
        let t = table.get().inner.clone();
        let w = t.new_write().py_err()?.with_overwrite(overwrite);
        Ok(BatchTableWrite {
            table: t,
            write: Mutex::new(Some(w)),
        })
    }

    fn take(&self) -> PyResult<strata::write::TableWrite> {
        self.write
            .lock()
            .map_err(|_| internal("the writer's lock is poisoned"))?
            .take()
            .ok_or_else(|| {
                invalid("this writer was closed (prepare_commit() or close() was called)")
            })
    }

    fn put(&self, w: strata::write::TableWrite) -> PyResult<()> {
        *self
            .write
            .lock()
            .map_err(|_| internal("the writer's lock is poisoned"))? = Some(w);
        Ok(())
    }

    /// Writes every batch of `data` (GIL released while writing); a list or tuple is written
    /// item by item.
    fn write_any(&self, data: &Bound<'_, PyAny>, progress: Option<bool>) -> PyResult<()> {
        self.write_kinds(data, None, progress)
    }

    /// [`Self::write_any`] with one row kind per input row (primary-key tables).
    fn write_kinds(
        &self,
        data: &Bound<'_, PyAny>,
        kinds: Option<Vec<RowKind>>,
        progress: Option<bool>,
    ) -> PyResult<()> {
        let py = data.py();
        if data.is_instance_of::<pyo3::types::PyList>()
            || data.is_instance_of::<pyo3::types::PyTuple>()
        {
            if kinds.is_some() {
                return Err(invalid(
                    "row_kinds= goes with one table or batch, not a list of them",
                ));
            }
            for item in data.try_iter()? {
                self.write_any(&item?, progress)?;
            }
            return Ok(());
        }
        let reader = crate::arrow_io::input_reader(data)?;
        let mut w = self.take()?;
        let name = self.table.identifier().to_string();
        let (w, result) = block_on(py, async move {
            let mut bar = Progress::new(progress, 0, "writing", "rows");
            let mut result = Ok(());
            let mut offset = 0usize;
            for batch in reader {
                let batch = match batch {
                    Ok(b) => b,
                    Err(e) => {
                        result = Err(strata::Error::invalid_argument(format!(
                            "reading the input of the write to {name}: {e}"
                        )));
                        break;
                    }
                };
                let n = batch.num_rows();
                let written = match &kinds {
                    None => w.write(&batch).await,
                    Some(k) => match k.get(offset..offset + n) {
                        Some(slice) => w.write_with_kinds(&batch, slice).await,
                        None => Err(strata::Error::invalid_argument(format!(
                            "row_kinds has {} entries, the data more rows",
                            k.len()
                        ))),
                    },
                };
                if let Err(e) = written {
                    result = Err(e);
                    break;
                }
                offset += n;
                bar.inc(n as u64);
            }
            if let (Ok(()), Some(k)) = (&result, &kinds) {
                if k.len() != offset {
                    result = Err(strata::Error::invalid_argument(format!(
                        "row_kinds has {} entries for {offset} rows",
                        k.len()
                    )));
                }
            }
            (w, result)
        })?;
        self.put(w)?;
        result.map_err(to_py)
    }

    fn prepare(&self, py: Python<'_>) -> PyResult<Vec<strata::commit::CommitMessage>> {
        let mut w = self.take()?;
        let (w, result) = block_on(py, async move {
            let r = w.prepare_commit().await;
            (w, r)
        })?;
        if result.is_err() {
            self.put(w)?;
        }
        result.map_err(to_py)
    }

    fn abort(&self, py: Python<'_>) {
        if let Ok(mut w) = self.take() {
            let _ = block_on(py, async move { w.abort().await });
        }
    }
}

#[pymethods]
impl BatchTableWrite {
    /// Writes Arrow data: a pyarrow Table / RecordBatch / RecordBatchReader, a Polars
    /// DataFrame, or anything with ``__arrow_c_stream__``. Columns are matched by name and
    /// cast to the table's types.
    ///
    /// `row_kinds` (primary-key tables): one change per row, ``"+I"``, ``"-U"``, ``"+U"`` or
    /// ``"-D"`` (Paimon's RowKind); ``"-D"`` deletes the key.
    #[pyo3(signature = (data, progress = None, row_kinds = None))]
    fn write_arrow(
        &self,
        data: &Bound<'_, PyAny>,
        progress: Option<bool>,
        row_kinds: Option<Vec<String>>,
    ) -> PyResult<()> {
        let kinds = match row_kinds {
            None => None,
            Some(texts) => Some(
                texts
                    .iter()
                    .map(|t| {
                        RowKind::from_short_string(t)
                            .map_err(|e| invalid(format!("row_kinds: {e}")))
                    })
                    .collect::<PyResult<Vec<_>>>()?,
            ),
        };
        self.write_kinds(data, kinds, progress)
    }

    /// Writes one record batch.
    fn write_arrow_batch(&self, batch: &Bound<'_, PyAny>) -> PyResult<()> {
        self.write_any(batch, Some(false))
    }

    /// Writes a pandas DataFrame (through pyarrow; the index is not written).
    fn write_pandas(&self, df: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = df.py();
        let pa = crate::arrow_io::import_pyarrow(py, "write_pandas()")?;
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("preserve_index", false)?;
        let table = pa
            .getattr("Table")?
            .call_method("from_pandas", (df,), Some(&kwargs))?;
        self.write_any(&table, None)
    }

    /// Flushes everything written and returns the commit messages (the writer is then done).
    fn prepare_commit(&self, py: Python<'_>) -> PyResult<Vec<CommitMessage>> {
        Ok(self
            .prepare(py)?
            .into_iter()
            .map(|inner| CommitMessage { inner })
            .collect())
    }

    /// Deletes the files written so far unless they were handed to `prepare_commit`.
    fn close(&self, py: Python<'_>) {
        self.abort(py)
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __exit__(&self, py: Python<'_>, _t: Py<PyAny>, _v: Py<PyAny>, _tb: Py<PyAny>) -> bool {
        self.abort(py);
        false
    }
}

/// Commits commit messages as one snapshot.
#[pyclass(module = "strata", frozen)]
pub struct BatchTableCommit {
    table: Py<Table>,
    overwrite: Option<Overwrite>,
    state: Mutex<CommitState>,
    /// Java 2.0 `Snapshot.operation` of the snapshot (set by `Table.write` only).
    operation: Option<SnapshotOperation>,
}

/// What `commit` did, for `abort`: files of a commit that landed, or may have landed (an
/// unknown outcome, or rows committed but not yet visible), are never deleted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CommitState {
    NotYet,
    /// The commit certainly failed: its files are referenced by no snapshot.
    Failed,
    /// The commit landed, or may have.
    MayHaveCommitted,
}

impl BatchTableCommit {
    fn commit_inner(
        &self,
        py: Python<'_>,
        messages: Vec<strata::commit::CommitMessage>,
    ) -> PyResult<Option<i64>> {
        {
            let mut state = self
                .state
                .lock()
                .map_err(|_| internal("the commit's lock is poisoned"))?;
            if *state != CommitState::NotYet {
                return Err(invalid(
                    "this commit was used already: a BatchTableCommit commits once",
                ));
            }
            // Until the outcome is known, the files may be committed.
            *state = CommitState::MayHaveCommitted;
        }
        let t = self.table.get().inner.clone();
        let overwrite = self.overwrite.clone();
        let operation = self.operation;
        let result = block_on(py, async move {
            let scope = match &overwrite {
                Some(o) => Some(overwrite_scope(&t, o)?),
                None => None,
            };
            t.new_commit()?
                .with_operation(operation)
                .commit_messages(messages, scope)
                .await
        })?;
        if let Err(e) = &result {
            if !e.may_have_committed() {
                if let Ok(mut state) = self.state.lock() {
                    *state = CommitState::Failed;
                }
            }
        }
        let committed = result.py_err()?;
        if let Some(e) = committed
            .compact_error
            .as_ref()
            .or(committed.expire_error.as_ref())
        {
            let warnings = py.import("warnings")?;
            warnings.call_method1("warn", (format!("the commit landed, but: {e}"),))?;
        }
        Ok(committed.latest())
    }
}

#[pymethods]
impl BatchTableCommit {
    /// Commits `messages` as one snapshot (APPEND, or OVERWRITE for an overwrite builder) and
    /// returns its id (``None`` when there was nothing to commit). Concurrent commits are
    /// retried against the newest snapshot; a lost conflict raises ``ConflictError``.
    fn commit(
        &self,
        py: Python<'_>,
        messages: Vec<PyRef<'_, CommitMessage>>,
    ) -> PyResult<Option<i64>> {
        let messages = messages.iter().map(|m| m.inner.clone()).collect();
        self.commit_inner(py, messages)
    }

    /// Deletes the data files of `messages` that were never committed. Refused after this
    /// commit landed or may have landed (an outcome the error called unknown, or rows
    /// committed but not yet visible): those files may be in the table, and deleting them
    /// would lose its data.
    fn abort(&self, py: Python<'_>, messages: Vec<PyRef<'_, CommitMessage>>) -> PyResult<()> {
        let state = self
            .state
            .lock()
            .map(|s| *s)
            .map_err(|_| internal("the commit's lock is poisoned"))?;
        if state == CommitState::MayHaveCommitted {
            return Err(to_py(strata::Error::invalid_argument(
                "abort after a commit that landed or may have landed: its files may be \
                 referenced by a snapshot, so nothing is deleted (remove-orphan-files deletes \
                 what no snapshot references)",
            )));
        }
        let t = self.table.get().inner.clone();
        let messages: Vec<strata::commit::CommitMessage> =
            messages.iter().map(|m| m.inner.clone()).collect();
        block_on(py, async move {
            for m in &messages {
                let part = t.partition_path(&m.partition)?;
                for f in &m.new_files {
                    let path = t.paths().data_file(&part, m.bucket, &f.file_name);
                    t.file_io().delete(&path).await?;
                }
            }
            Ok::<_, strata::Error>(())
        })?
        .py_err()
    }

    fn close(&self) {}

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __exit__(&self, _t: Py<PyAny>, _v: Py<PyAny>, _tb: Py<PyAny>) -> bool {
        false
    }
}

/// New files of one partition and bucket, ready to commit. Picklable.
#[pyclass(module = "strata", frozen)]
#[derive(Clone)]
pub struct CommitMessage {
    pub(crate) inner: strata::commit::CommitMessage,
}

#[pyfunction]
pub(crate) fn commit_message_from_bytes(data: &[u8]) -> PyResult<CommitMessage> {
    let inner = serde_json::from_slice(data)
        .map_err(|e| invalid(format!("not a serialized strata commit message: {e}")))?;
    Ok(CommitMessage { inner })
}

#[pymethods]
impl CommitMessage {
    #[getter]
    fn bucket(&self) -> i32 {
        self.inner.bucket
    }

    /// Names of the new data files.
    #[getter]
    fn file_names(&self) -> Vec<String> {
        self.inner
            .new_files
            .iter()
            .map(|f| f.file_name.clone())
            .collect()
    }

    /// Rows in the new data files.
    #[getter]
    fn row_count(&self) -> i64 {
        self.inner.new_files.iter().map(|f| f.row_count).sum()
    }

    fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// The message in strata's versioned wire form.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let data = serde_json::to_vec(&self.inner)
            .map_err(|e| invalid(format!("cannot serialize a commit message: {e}")))?;
        Ok(PyBytes::new(py, &data))
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let f = py
            .import("strata._native")?
            .getattr("commit_message_from_bytes")?;
        let args = PyTuple::new(py, [self.to_bytes(py)?])?;
        PyTuple::new(py, [f, args.into_any()])
    }

    fn __repr__(&self) -> String {
        format!(
            "strata.CommitMessage(bucket={}, files={})",
            self.inner.bucket,
            self.inner.new_files.len()
        )
    }
}
