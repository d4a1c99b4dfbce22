//! `strata.Table`: a table's metadata, the read and write builders, the `read` / `write`
//! shortcuts, maintenance (compaction, expiry, tags, branches, rollback, orphan files) and Paimon's
//! system tables as Arrow tables.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use strata::maintenance::orphans::OrphanFilesClean;
use strata::maintenance::{
    older_than, retained_until, ExpireConfig, ExpireOverrides, ExpireSnapshots, TableLifecycle,
};
use strata::table::branches::BranchStart;
use strata::write::{CompactRequest, RescaleRequest};

use crate::errors::{invalid, IntoPy};
use crate::progress::Progress;
use crate::read::ReadBuilder;
use crate::read_options::ReadOptions;
use crate::read_spec::ReadSpec;
use crate::runtime::block_on;
use crate::table_handle::Table;
use crate::write::BatchWriteBuilder;

impl Table {
    fn system<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        snapshot_id: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let t = self.inner.clone();
        let name = name.to_string();
        let batch = block_on(py, async move {
            strata::system::system_table_at(&t, &name, snapshot_id).await
        })?
        .py_err()?;
        let schema = batch.schema();
        crate::arrow_io::to_pyarrow_table(py, vec![batch], schema)
    }
}

/// `older_than`: a duration text (`"2h"`, `"1d"`), a `datetime.timedelta`, or a local
/// timestamp text / `datetime.datetime` (meaning "now − that").
fn retention(value: &Bound<'_, PyAny>, what: &str, now: i64) -> PyResult<Duration> {
    let py = value.py();
    let dt = py.import("datetime")?;
    if value.is_instance(&dt.getattr("timedelta")?)? {
        let secs: f64 = value.call_method0("total_seconds")?.extract()?;
        if secs < 0.0 {
            return Err(invalid(format!("{what}: a negative timedelta")));
        }
        return Ok(Duration::from_secs_f64(secs));
    }
    let at = if value.is_instance(&dt.getattr("datetime")?)? {
        // Aware datetimes are exact; naive ones are local time, as Paimon's timestamps.
        let ts: f64 = value.call_method0("timestamp")?.extract()?;
        (ts * 1000.0) as i64
    } else {
        let text: String = value.extract().map_err(|_| {
            invalid(format!(
                "{what}: expected a duration text, a timedelta or a datetime"
            ))
        })?;
        return older_than(what, &text, now).py_err();
    };
    retained_until(what, at, now).py_err()
}

fn dict<'py>(py: Python<'py>, items: Vec<(&str, Py<PyAny>)>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in items {
        d.set_item(k, v)?;
    }
    Ok(d)
}

fn obj<'py, T: IntoPyObject<'py>>(py: Python<'py>, v: T) -> PyResult<Py<PyAny>> {
    use pyo3::IntoPyObjectExt;
    v.into_py_any(py)
}

#[pymethods]
impl Table {
    /// ``"db.table"``.
    #[getter]
    fn full_name(&self) -> String {
        self.inner.identifier().to_string()
    }

    /// The table name without the database.
    #[getter]
    fn name(&self) -> String {
        self.inner.identifier().table.clone()
    }

    /// The database name.
    #[getter]
    fn database(&self) -> String {
        self.inner.identifier().database.clone()
    }

    /// The table directory.
    #[getter]
    fn location(&self) -> String {
        self.inner.location()
    }

    /// The table's Arrow schema (a ``pyarrow.Schema`` when pyarrow is installed).
    #[getter]
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let schema = strata::arrow::to_arrow_schema(&self.inner.schema().row_type()).py_err()?;
        crate::arrow_io::schema_object(py, schema)
    }

    /// The columns as ``(name, "PAIMON TYPE")`` pairs, as Paimon's schema file has them.
    #[getter]
    fn fields(&self) -> Vec<(String, String)> {
        self.inner
            .schema()
            .fields
            .iter()
            .map(|f| (f.name.clone(), f.data_type.to_string()))
            .collect()
    }

    #[getter]
    fn primary_keys(&self) -> Vec<String> {
        self.inner.schema().primary_keys.clone()
    }

    #[getter]
    fn partition_keys(&self) -> Vec<String> {
        self.inner.schema().partition_keys.clone()
    }

    /// The table options (schema options with any dynamic options over them).
    #[getter]
    fn options(&self) -> BTreeMap<String, String> {
        self.inner.schema().options.clone()
    }

    /// The id of the schema in use.
    #[getter]
    fn schema_id(&self) -> i64 {
        self.inner.schema().id
    }

    /// Whether the table has a primary key (an LSM tree per bucket).
    #[getter]
    fn is_primary_key_table(&self) -> bool {
        self.inner.is_primary_key_table()
    }

    /// The latest snapshot id, ``None`` for a table without snapshots.
    fn latest_snapshot_id(&self, py: Python<'_>) -> PyResult<Option<i64>> {
        let t = self.inner.clone();
        block_on(py, async move { t.snapshot_manager().latest_id().await })?.py_err()
    }

    /// This table with dynamic options over its schema options (Paimon's `table.copy(options)`),
    /// e.g. ``{"write-buffer-size": "64 mb"}``. Options strata does not implement are refused.
    ///
    /// ``{"incremental-between": "3,7"}`` (snapshot ids or tag names, START exclusive, END
    /// inclusive), ``{"incremental-between-timestamp": "T1,T2"}``, with
    /// ``incremental-between-scan-mode`` (``auto``, ``delta``, ``changelog``, ``diff``) make
    /// the table's reads incremental: the changes of the range, ``rowkind`` first.
    fn copy(&self, options: HashMap<String, String>) -> PyResult<Table> {
        let inner = self.inner.with_dynamic_options(options.clone()).py_err()?;
        // A bad incremental-between value fails here, not at the first read.
        crate::incremental::scan_from_options(&inner).py_err()?;
        let mut t = self.with_inner(inner);
        t.dynamic_options.extend(options);
        Ok(t)
    }

    /// A builder of scans and reads (filter, projection, limit, time travel).
    fn new_read_builder(&self) -> ReadBuilder {
        ReadBuilder::new(self.inner.clone())
    }

    /// A builder of a streaming read: the table's changes as they are committed.
    fn new_stream_read_builder(&self) -> crate::stream::StreamReadBuilder {
        crate::stream::StreamReadBuilder::new(self.inner.clone())
    }

    /// A builder of a batch write and its commit.
    fn new_batch_write_builder(slf: Bound<'_, Self>) -> BatchWriteBuilder {
        BatchWriteBuilder::new(slf.unbind())
    }

    /// Reads the table (or a snapshot / tag of it) into a ``pyarrow.Table``.
    ///
    /// `columns` may name MAP keys (``"m['k']"``); `where` is a SQL boolean expression
    /// (``"dt = '2024-01-01' AND m['k'] > 3"``) or a :class:`strata.Predicate`.
    #[pyo3(signature = (columns = None, r#where = None, limit = None, snapshot_id = None, tag = None, timestamp = None, progress = None))]
    #[allow(clippy::too_many_arguments)]
    fn read<'py>(
        slf: Bound<'py, Self>,
        columns: Option<Vec<String>>,
        r#where: Option<Bound<'py, PyAny>>,
        limit: Option<usize>,
        snapshot_id: Option<i64>,
        tag: Option<String>,
        timestamp: Option<Bound<'py, PyAny>>,
        progress: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let mut opts = ReadOptions {
            projection: columns,
            filter: r#where
                .map(|w| crate::read_options::filter_text(&w))
                .transpose()?,
            limit,
            travel: None,
        };
        opts.set_travel(snapshot_id, tag, timestamp.as_ref())?;
        ReadSpec::new(slf.get().inner.clone(), opts).read_all(py, progress)
    }

    /// Writes Arrow data (anything with ``__arrow_c_stream__``, a record batch, or a pandas
    /// DataFrame) as one commit; returns the new snapshot id. With `overwrite`, replaces the
    /// table (or, with `partition`, that partition; dynamic-partition-overwrite tables replace
    /// the partitions written).
    #[pyo3(signature = (data, overwrite = false, partition = None, progress = None))]
    fn write(
        slf: Bound<'_, Self>,
        data: &Bound<'_, PyAny>,
        overwrite: bool,
        partition: Option<HashMap<String, Bound<'_, PyAny>>>,
        progress: Option<bool>,
    ) -> PyResult<Option<i64>> {
        if partition.is_some() && !overwrite {
            return Err(invalid(
                "partition= selects what an overwrite replaces; pass overwrite=True",
            ));
        }
        let builder = BatchWriteBuilder::new(slf.unbind());
        builder.write_all(data, overwrite, partition, progress)
    }

    /// Compacts the table's buckets (all, one partition, one bucket): with ``full=True``
    /// every file goes to the top level, like Paimon's `compact` procedure; otherwise the
    /// table's compaction strategy decides (append tables: Java's append compaction picking). Returns a report dict; its
    /// ``snapshot_id`` is ``None`` when nothing needed compaction.
    #[pyo3(signature = (full = false, partition = None, bucket = None, progress = None))]
    fn compact<'py>(
        &self,
        py: Python<'py>,
        full: bool,
        partition: Option<HashMap<String, Bound<'py, PyAny>>>,
        bucket: Option<i32>,
        progress: Option<bool>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut spec = Vec::new();
        for (k, v) in partition.unwrap_or_default() {
            spec.push((k, v.str()?.to_string()));
        }
        let request = CompactRequest {
            partitions: if spec.is_empty() { vec![] } else { vec![spec] },
            bucket,
            full,
        };
        let t = self.inner.clone();
        let report = block_on(py, async move {
            let n = t.select_buckets(&request).await?.len();
            let bar =
                std::sync::Mutex::new(Progress::new(progress, n as u64, "compacting", "buckets"));
            t.compact(&request, &move |done, _| {
                if let Ok(mut b) = bar.lock() {
                    b.set_position(done as u64);
                }
            })
            .await
        })?
        .py_err()?;
        let tasks = pyo3::types::PyList::empty(py);
        for m in &report.metrics {
            let part = self.inner.partition_text(&m.partition).py_err()?;
            tasks.append(dict(
                py,
                vec![
                    ("partition", obj(py, part)?),
                    ("bucket", obj(py, m.bucket)?),
                    ("output_level", obj(py, m.task.output_level)?),
                    ("input_files", obj(py, m.task.input_files)?),
                    ("input_bytes", obj(py, m.task.input_bytes)?),
                    ("upgraded_files", obj(py, m.task.upgraded_files)?),
                    (
                        "rewritten_input_files",
                        obj(py, m.task.rewritten_input_files)?,
                    ),
                    ("output_files", obj(py, m.task.output_files)?),
                    ("output_bytes", obj(py, m.task.output_bytes)?),
                    ("input_rows", obj(py, m.task.input_rows)?),
                    ("output_rows", obj(py, m.task.output_rows)?),
                    ("seconds", obj(py, m.task.duration.as_secs_f64())?),
                ],
            )?)?;
        }
        dict(
            py,
            vec![
                ("snapshot_id", obj(py, report.snapshot)?),
                ("buckets", obj(py, report.buckets.len())?),
                ("tasks", tasks.into_any().unbind()),
            ],
        )
    }

    /// Rewrites the partitions matching ``partitions`` (a partition spec dict, possibly
    /// partial; ``None``: every partition) into ``bucket_num`` buckets (``None``: the table's
    /// ``bucket``) in one OVERWRITE commit, as ``strata rescale`` and Paimon's
    /// ``RescaleProcedure``. Returns ``{"snapshot_id", "rows", "bucket_num"}``.
    #[pyo3(signature = (bucket_num = None, partitions = None))]
    fn rescale<'py>(
        &self,
        py: Python<'py>,
        bucket_num: Option<i32>,
        partitions: Option<HashMap<String, Bound<'py, PyAny>>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut partition = Vec::new();
        for (k, v) in partitions.unwrap_or_default() {
            partition.push((k, v.str()?.to_string()));
        }
        let request = RescaleRequest {
            bucket_num,
            partition,
        };
        let t = self.inner.clone();
        let report = block_on(py, async move { t.rescale(&request).await })?.py_err()?;
        dict(
            py,
            vec![
                ("snapshot_id", obj(py, report.snapshot)?),
                ("rows", obj(py, report.rows)?),
                ("bucket_num", obj(py, report.bucket_num)?),
            ],
        )
    }

    /// Expires old snapshots and deletes the files only they use. Defaults are the table's
    /// `snapshot.*` options; `older_than` is a duration (``"2h"``, a timedelta) or a point in
    /// time (a timestamp text or datetime). Returns ``{"expired": [ids], "earliest": id,
    /// "deleted_files": n}``; with ``dry_run=True`` deletes nothing and lists the files.
    #[pyo3(signature = (retain_max = None, retain_min = None, older_than = None, max_deletes = None, dry_run = false))]
    fn expire_snapshots<'py>(
        &self,
        py: Python<'py>,
        retain_max: Option<i32>,
        retain_min: Option<i32>,
        older_than: Option<Bound<'py, PyAny>>,
        max_deletes: Option<i32>,
        dry_run: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let t = self.inner.clone();
        let now = t.clock().now_millis();
        let overrides = ExpireOverrides {
            retain_max,
            retain_min,
            time_retained: match &older_than {
                Some(v) => Some(retention(v, "older_than", now)?),
                None => None,
            },
            max_deletes,
        };
        let config = ExpireConfig::from_table_with(&t, &overrides).py_err()?;
        let (expired, earliest, deleted, files) = block_on(py, async move {
            let expire = ExpireSnapshots::new(&t)?
                .with_config(config)
                .with_now_millis(now);
            let plan = expire.plan().await?;
            if dry_run {
                let files: Vec<String> = plan
                    .deletions
                    .iter()
                    .map(|d| t.file_io().display(&d.path))
                    .collect();
                return Ok::<_, strata::Error>((plan.expired.clone(), None, 0, files));
            }
            let report = expire.execute(&plan).await?;
            Ok((
                report.expired,
                report.earliest,
                report.deleted.total(),
                Vec::new(),
            ))
        })?
        .py_err()?;
        let mut items = vec![
            ("expired", obj(py, expired)?),
            ("dry_run", obj(py, dry_run)?),
        ];
        if dry_run {
            items.push(("files", obj(py, files)?));
        } else {
            items.push(("earliest", obj(py, earliest)?));
            items.push(("deleted_files", obj(py, deleted)?));
        }
        dict(py, items)
    }

    /// Tags snapshot `snapshot_id` (default: the latest) as `name`; with `time_retained`
    /// (``"7d"``, a timedelta) the tag is deleted that long after its creation.
    #[pyo3(signature = (name, snapshot_id = None, time_retained = None))]
    fn create_tag(
        &self,
        py: Python<'_>,
        name: &str,
        snapshot_id: Option<i64>,
        time_retained: Option<Bound<'_, PyAny>>,
    ) -> PyResult<i64> {
        let retained = match &time_retained {
            Some(v) => Some(retention(v, "time_retained", i64::MAX)?),
            None => None,
        };
        let t = self.inner.clone();
        let name = name.to_string();
        let tag = block_on(py, async move {
            t.create_tag(&name, snapshot_id, retained).await
        })?
        .py_err()?;
        Ok(tag.snapshot.id)
    }

    /// Deletes tag `name` and the files only it still uses.
    fn delete_tag(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        let t = self.inner.clone();
        let name = name.to_string();
        block_on(py, async move { t.delete_tag(&name).await })?.py_err()?;
        Ok(())
    }

    /// The tags as an Arrow table (Paimon's `$tags` system table).
    fn tags<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.system(py, "tags", None)
    }

    /// Makes snapshot `snapshot_id` (or tag `tag`'s snapshot) the latest: newer snapshots and
    /// tags are deleted with the files only they used. Returns the snapshot id rolled back to.
    #[pyo3(signature = (snapshot_id = None, tag = None))]
    fn rollback_to(
        &self,
        py: Python<'_>,
        snapshot_id: Option<i64>,
        tag: Option<String>,
    ) -> PyResult<i64> {
        let t = self.inner.clone();
        let report = match (snapshot_id, tag) {
            (Some(id), None) => block_on(py, async move { t.rollback_to_snapshot(id).await })?,
            (None, Some(name)) => block_on(py, async move { t.rollback_to_tag(&name).await })?,
            _ => {
                return Err(invalid(
                    "rollback_to needs exactly one of snapshot_id= or tag=",
                ))
            }
        }
        .py_err()?;
        Ok(report.snapshot_id)
    }

    /// The branch this table object reads and writes (``"main"``; ``catalog.get_table(
    /// "db.t$branch_b")`` opens branch ``b``).
    #[getter]
    fn branch(&self) -> String {
        self.inner.branch().to_string()
    }

    /// The branch names of the table (``main`` not listed).
    fn branches(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let t = self.inner.clone();
        block_on(py, async move { t.branches().await })?.py_err()
    }

    /// Creates branch `name`: empty (the current schemas only), or from tag `tag`, or from
    /// snapshot `snapshot_id` (Java's ``createBranch``).
    #[pyo3(signature = (name, tag = None, snapshot_id = None))]
    fn create_branch(
        &self,
        py: Python<'_>,
        name: &str,
        tag: Option<String>,
        snapshot_id: Option<i64>,
    ) -> PyResult<()> {
        let start = match (tag, snapshot_id) {
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "create_branch takes tag= or snapshot_id=, not both",
                ))
            }
            (Some(t), None) => BranchStart::Tag(t),
            (None, Some(id)) => BranchStart::Snapshot(id),
            (None, None) => BranchStart::Empty,
        };
        let t = self.inner.clone();
        let name = name.to_string();
        block_on(py, async move { t.create_branch(&name, start).await })?.py_err()
    }

    /// Deletes branch `name` (Java's ``deleteBranch``).
    fn delete_branch(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        let t = self.inner.clone();
        let name = name.to_string();
        block_on(py, async move { t.delete_branch(&name).await })?.py_err()
    }

    /// This table's branch takes branch `name`'s snapshots, schemas and tags from `name`'s
    /// earliest snapshot on (Java's ``fastForward``). Open the table again afterwards.
    fn fast_forward(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        let t = self.inner.clone();
        let name = name.to_string();
        block_on(py, async move { t.fast_forward(&name).await })?.py_err()
    }

    /// Deletes files under the table directory that nothing references and that are older
    /// than `older_than` (default one day). Returns the paths (found, with ``dry_run=True``).
    #[pyo3(signature = (older_than = None, dry_run = false))]
    fn remove_orphan_files(
        &self,
        py: Python<'_>,
        older_than: Option<Bound<'_, PyAny>>,
        dry_run: bool,
    ) -> PyResult<Vec<String>> {
        let now = self.inner.clock().now_millis();
        let threshold = match &older_than {
            Some(v) => now - retention(v, "older_than", now)?.as_millis() as i64,
            None => OrphanFilesClean::default_older_than_millis(&self.inner),
        };
        let t = self.inner.clone();
        let report = block_on(py, async move {
            OrphanFilesClean::new(&t, threshold)
                .dry_run(dry_run)
                .clean()
                .await
        })?
        .py_err()?;
        Ok(report.files.into_iter().map(|f| f.path).collect())
    }

    /// Paimon's `$snapshots` system table.
    fn snapshots<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.system(py, "snapshots", None)
    }

    /// Paimon's `$files` system table (of the latest snapshot or `snapshot_id`).
    #[pyo3(signature = (snapshot_id = None))]
    fn files<'py>(&self, py: Python<'py>, snapshot_id: Option<i64>) -> PyResult<Bound<'py, PyAny>> {
        self.system(py, "files", snapshot_id)
    }

    /// The LSM picture as a table: one row per live file with its bucket and level.
    #[pyo3(signature = (snapshot_id = None))]
    fn levels<'py>(
        &self,
        py: Python<'py>,
        snapshot_id: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.system(py, "levels", snapshot_id)
    }

    /// Data-evolution tables: writes the columns of `data` (a pyarrow Table, RecordBatch or
    /// Arrow stream) other than `_ROW_ID` into the rows whose `_ROW_ID` it gives, one file of
    /// those columns per row-id range touched (as Java's partial-column writes); the other
    /// columns and rows keep their values. Returns the new snapshot id (`None`: nothing to do).
    fn update_columns(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Option<i64>> {
        let reader = crate::arrow_io::input_reader(data)?;
        let schema = reader.schema();
        let batches = reader
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| invalid(format!("update_columns: {e}")))?;
        let batch = arrow::compute::concat_batches(&schema, &batches)
            .map_err(|e| invalid(format!("update_columns: {e}")))?;
        let t = self.inner.clone();
        block_on(py, async move { t.update_columns(&batch).await })?.py_err()
    }

    /// The LSM tree of each selected bucket as an SVG picture (levels as rows, files as boxes
    /// by key range), as `strata levels --svg` draws it.
    #[pyo3(signature = (snapshot_id = None, partition = None, bucket = None))]
    fn levels_svg(
        &self,
        py: Python<'_>,
        snapshot_id: Option<i64>,
        partition: Option<HashMap<String, Bound<'_, PyAny>>>,
        bucket: Option<i32>,
    ) -> PyResult<String> {
        let mut spec = Vec::new();
        for (k, v) in partition.unwrap_or_default() {
            spec.push((k, v.str()?.to_string()));
        }
        let t = self.inner.clone();
        let doc = block_on(py, async move {
            strata::system::levels_doc(&t, snapshot_id, &spec, bucket).await
        })?
        .py_err()?;
        Ok(strata_levels_svg::render_svg(&doc))
    }

    /// Any of Paimon's system tables by name (``"snapshots"``, ``"schemas"``, ``"options"``,
    /// ``"tags"``, ``"files"``, ``"manifests"``, ``"partitions"``, ``"buckets"``, ...).
    #[pyo3(signature = (name, snapshot_id = None))]
    fn system_table<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        snapshot_id: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.system(py, name.trim_start_matches('$'), snapshot_id)
    }

    /// DataFusion's FFI: ``SessionContext().register_table_provider("t", table)``.
    #[pyo3(signature = (session = None))]
    fn __datafusion_table_provider__<'py>(
        &self,
        py: Python<'py>,
        session: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, pyo3::types::PyCapsule>> {
        crate::sql::table_provider_capsule(py, &self.inner, session)
    }

    fn __repr__(&self) -> String {
        format!("strata.Table({:?})", self.inner.identifier().to_string())
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let f = py.import("strata._native")?.getattr("open_table")?;
        let dynamic = self.dynamic_options.clone();
        let args = (
            None::<String>,
            self.catalog_options.clone(),
            self.inner.identifier().to_string(),
            dynamic,
        )
            .into_pyobject(py)?;
        PyTuple::new(py, [f, args.into_any()])
    }
}
