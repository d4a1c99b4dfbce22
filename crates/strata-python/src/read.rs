//! Reading: `ReadBuilder` (filter, projection, limit, time travel) → `TableScan.plan()` →
//! `Split`s → `TableRead` → Arrow (pyarrow table or reader, any PyCapsule consumer, pandas,
//! Polars, DuckDB). Splits pickle (strata's versioned wire form), so a driver can plan once
//! and hand splits to Ray, Dask or its own worker processes.
//!
//! A table with `incremental-between` options (`table.copy({...})`) plans and reads the
//! changes of the range instead ([`crate::incremental`]): its splits are incremental splits,
//! and its rows come with a first `rowkind` column.
//!
//! This file holds the builder and the planning (`ReadBuilder`, `TableScan`, `Plan`); below it
//! are [`crate::table_read`] (`TableRead`), [`crate::split`] (`Split`), [`crate::read_spec`]
//! (the read as the builder gave it, opened as one stream) and [`crate::read_options`].

use std::sync::Mutex;

use pyo3::prelude::*;
use strata::scan::DataSplit;

use crate::errors::{to_py, IntoPy};
use crate::incremental::scan_from_options;
use crate::read_options::{filter_text, ReadOptions};
use crate::read_spec::{check_no_travel, incremental_stream, resolve, table_read, ReadSpec};
use crate::runtime::block_on;
use crate::split::{Split, SplitKind};
use crate::table_read::TableRead;

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
