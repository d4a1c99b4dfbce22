//! `strata.Split`: what one task reads (files of one partition and bucket, a row range of one
//! file, or a change of an incremental read), picklable in strata's versioned wire form so a
//! driver can plan once and hand splits to workers.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use strata::scan::{DataSplit, IncrementalSplit};

use crate::errors::invalid;

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
