//! Arrow in and out of Python through the Arrow PyCapsule interface.
//!
//! In: anything that exports `__arrow_c_stream__` (pyarrow tables and readers, Polars and
//! DuckDB results, pandas ≥ 2.2 frames) or `__arrow_c_array__` (a record batch), read without
//! copying; a pandas frame of an older pandas goes through `pyarrow.Table.from_pandas`.
//! Out: batches as a pyarrow table or reader when pyarrow is installed, and always as a stream
//! object that any PyCapsule consumer takes (`to_arrow_stream`). pyo3-arrow does the FFI.

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::SchemaRef;
use pyo3::prelude::*;
use pyo3_arrow::input::AnyRecordBatch;
use pyo3_arrow::PyRecordBatchReader;

use crate::errors::{internal, invalid};

/// A reader over Arrow data given by the caller.
pub(crate) fn input_reader(data: &Bound<'_, PyAny>) -> PyResult<Box<dyn RecordBatchReader + Send>> {
    let py = data.py();
    if data.hasattr("__arrow_c_stream__")? || data.hasattr("__arrow_c_array__")? {
        let any: AnyRecordBatch = data.extract().map_err(|e| {
            invalid(format!(
                "cannot read the Arrow data of a {}: {e}",
                type_name(data)
            ))
        })?;
        return any.into_reader();
    }
    let module = data
        .get_type()
        .getattr("__module__")
        .and_then(|m| m.extract::<String>())
        .unwrap_or_default();
    if module.starts_with("pandas") {
        let pa = import_pyarrow(py, "writing a pandas DataFrame")?;
        let table = pa.getattr("Table")?.call_method(
            "from_pandas",
            (data,),
            Some(&[("preserve_index", false)].into_py_dict(py)?),
        )?;
        let any: AnyRecordBatch = table.extract()?;
        return any.into_reader();
    }
    Err(invalid(format!(
        "expected Arrow data (a pyarrow Table, RecordBatch or RecordBatchReader, a Polars or \
         pandas DataFrame, or any object with __arrow_c_stream__), got {}",
        type_name(data)
    )))
}

use pyo3::types::IntoPyDict;

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_string())
}

/// `import pyarrow`, or an error saying what needs it and what works without it.
pub(crate) fn import_pyarrow<'py>(py: Python<'py>, what: &str) -> PyResult<Bound<'py, PyModule>> {
    py.import("pyarrow").map_err(|_| {
        pyo3::exceptions::PyImportError::new_err(format!(
            "{what} needs pyarrow (pip install pyarrow); without it use to_arrow_stream(), \
             whose result any Arrow PyCapsule consumer (Polars, DuckDB, nanoarrow) reads"
        ))
    })
}

/// Batches as a `pyarrow.Table`, handed over through the C stream interface
/// (`RecordBatchReader.from_stream(...).read_all()`: no copy, and unlike `pyarrow.table(...)`
/// it does not import pandas, which costs a quarter second in a fresh process).
pub(crate) fn to_pyarrow_table<'py>(
    py: Python<'py>,
    batches: Vec<RecordBatch>,
    schema: SchemaRef,
) -> PyResult<Bound<'py, PyAny>> {
    let pa = import_pyarrow(py, "to_arrow()")?;
    let reader = arrow_array::RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
    let stream = to_stream_object(py, Box::new(reader))?;
    pa.getattr("RecordBatchReader")?
        .call_method1("from_stream", (stream,))?
        .call_method0("read_all")
}

/// Batches as a stream object with `__arrow_c_stream__` (no pyarrow needed).
pub(crate) fn to_stream_object<'py>(
    py: Python<'py>,
    reader: Box<dyn RecordBatchReader + Send>,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(Bound::new(py, PyRecordBatchReader::new(reader))?.into_any())
}

/// A stream object as a `pyarrow.RecordBatchReader`.
pub(crate) fn to_pyarrow_reader<'py>(
    py: Python<'py>,
    reader: Box<dyn RecordBatchReader + Send>,
) -> PyResult<Bound<'py, PyAny>> {
    let pa = import_pyarrow(py, "to_arrow_batch_reader()")?;
    let stream = to_stream_object(py, reader)?;
    pa.getattr("RecordBatchReader")?
        .call_method1("from_stream", (stream,))
        .map_err(|e| internal(format!("pyarrow could not take strata's stream: {e}")))
}

/// An Arrow schema as a `pyarrow.Schema` when pyarrow is installed, else as an object with
/// `__arrow_c_schema__`.
pub(crate) fn schema_object<'py>(
    py: Python<'py>,
    schema: SchemaRef,
) -> PyResult<Bound<'py, PyAny>> {
    let s = pyo3_arrow::PySchema::new(schema);
    if py.import("pyarrow").is_ok() {
        s.into_pyarrow(py)
    } else {
        Ok(Bound::new(py, s)?.into_any())
    }
}
