//! Which writer takes each row of a primary-key table when a write is spread over several
//! writers (`strata.ray.write_strata`): the library's [`strata::write::WriterChannels`] (one
//! writer per bucket, Java's `ChannelComputer` and `BucketAssigner.computeAssigner`), over the
//! rows Python hands in.

use arrow_array::{Array, UInt32Array};
use pyo3::prelude::*;
use strata::write::WriterChannels;

use crate::errors::{invalid, IntoPy};
use crate::table_handle::Table;

/// The writer (``0 .. writers-1``) of every row of `data` for a write of `table` spread over
/// `writers` writers, as a ``pyarrow.UInt32Array``. `table` is the table the writers write
/// (with the dynamic options they use). Rows are cast to the table's types first, as the
/// writers cast them, so a cast the write would refuse fails here, naming the column.
#[pyfunction]
#[pyo3(name = "_write_routes")]
pub(crate) fn write_routes<'py>(
    py: Python<'py>,
    table: PyRef<'py, Table>,
    data: &Bound<'py, PyAny>,
    writers: u32,
) -> PyResult<Bound<'py, PyAny>> {
    if writers == 0 {
        return Err(invalid("writers must be at least 1"));
    }
    let t = table.inner.clone();
    let reader = crate::arrow_io::input_reader(data)?;
    let routes = py
        .detach(move || -> strata::Result<Vec<u32>> {
            let channels = WriterChannels::new(&t, writers)?;
            let mut out = Vec::new();
            for batch in reader {
                let batch = batch.map_err(|e| {
                    strata::Error::invalid_argument(format!(
                        "reading the input of the write to {}: {e}",
                        t.identifier()
                    ))
                })?;
                channels.route(&batch, &mut out)?;
            }
            Ok(out)
        })
        .py_err()?;
    let array = UInt32Array::from(routes);
    let array: std::sync::Arc<dyn Array> = std::sync::Arc::new(array);
    let array = pyo3_arrow::PyArray::from_array_ref(array).into_pyobject(py)?;
    crate::arrow_io::import_pyarrow(py, "routing rows")?
        .getattr("array")?
        .call1((array,))
}
