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

/// Runs `fut` to completion on the runtime with the GIL released. A panic (a bug in strata)
/// becomes an `InternalError` instead of taking the interpreter down.
pub(crate) fn block_on<F>(py: Python<'_>, fut: F) -> PyResult<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    let rt = runtime()?;
    py.detach(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rt.block_on(fut))))
        .map_err(|payload| {
            internal(format!(
                "strata panicked (a bug; please report it): {}",
                panic_text(&payload)
            ))
        })
}

/// The message of a panic payload.
pub(crate) fn panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    }
}
