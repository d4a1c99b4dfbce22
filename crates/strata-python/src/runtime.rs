//! The one tokio runtime every call into strata runs on, and [`block_on`], which releases the
//! GIL while it waits so that other Python threads (and Ray's or Dask's) keep running.

use std::future::Future;
use std::sync::OnceLock;

use pyo3::prelude::*;
use tokio::runtime::Runtime;

use crate::errors::internal;

static RUNTIME: OnceLock<Runtime> = OnceLock::new();

/// The shared multi-threaded runtime (created on first use).
pub(crate) fn runtime() -> PyResult<&'static Runtime> {
    if let Some(rt) = RUNTIME.get() {
        return Ok(rt);
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("strata")
        .build()
        .map_err(|e| internal(format!("cannot start strata's I/O runtime: {e}")))?;
    Ok(RUNTIME.get_or_init(|| rt))
}

/// Runs `fut` to completion on the runtime with the GIL released.
pub(crate) fn block_on<F>(py: Python<'_>, fut: F) -> PyResult<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    let rt = runtime()?;
    Ok(py.detach(|| rt.block_on(fut)))
}
