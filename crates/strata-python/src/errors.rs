//! strata's errors as Python exceptions.
//!
//! Every error is a `strata.StrataError`; its subclass says the class of the error
//! ([`strata::ErrorKind`]), and the builtin it also derives from lets ordinary Python code
//! catch it without knowing strata: a missing table is a `LookupError`, bad input a
//! `ValueError`, an unsupported option `NotImplementedError`, storage trouble an `OSError`.
//! The message is strata's own, naming the file, option or column concerned.

use pyo3::exceptions::{
    PyException, PyLookupError, PyNotImplementedError, PyOSError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use pyo3::PyTypeInfo;
use strata::ErrorKind;

pyo3::create_exception!(
    strata,
    StrataError,
    PyException,
    "Base class of every strata error."
);

/// The exception classes, created once when the module loads (they need multiple bases, which
/// `create_exception!` cannot express).
struct Classes {
    not_found: Py<PyAny>,
    already_exists: Py<PyAny>,
    conflict: Py<PyAny>,
    outcome_unknown: Py<PyAny>,
    corrupt: Py<PyAny>,
    unsupported: Py<PyAny>,
    invalid_input: Py<PyAny>,
    permission_denied: Py<PyAny>,
    io: Py<PyAny>,
    internal: Py<PyAny>,
}

static CLASSES: std::sync::OnceLock<Classes> = std::sync::OnceLock::new();

/// Defines `name(StrataError, builtin)` in module `strata` with `doc`.
fn subclass<'py>(
    py: Python<'py>,
    name: &str,
    builtin: Option<Bound<'py, pyo3::types::PyType>>,
    doc: &str,
) -> PyResult<Py<PyAny>> {
    let base = StrataError::type_object(py);
    let bases = match builtin {
        Some(b) => PyTuple::new(py, [base.into_any(), b.into_any()])?,
        None => PyTuple::new(py, [base.into_any()])?,
    };
    let ns = pyo3::types::PyDict::new(py);
    ns.set_item("__doc__", doc)?;
    ns.set_item("__module__", "strata")?;
    let builtins = py.import("builtins")?;
    Ok(builtins.getattr("type")?.call1((name, bases, ns))?.unbind())
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("StrataError", StrataError::type_object(py))?;
    let c = Classes {
        not_found: subclass(
            py,
            "NotFoundError",
            Some(PyLookupError::type_object(py)),
            "A database, table, column, snapshot or tag that does not exist.",
        )?,
        already_exists: subclass(
            py,
            "AlreadyExistsError",
            Some(PyValueError::type_object(py)),
            "A database or table that exists already.",
        )?,
        conflict: subclass(
            py,
            "ConflictError",
            None,
            "A commit that lost to a concurrent one (nothing was committed), or a database that is not empty.",
        )?,
        outcome_unknown: subclass(
            py,
            "CommitOutcomeUnknownError",
            None,
            "A commit that may or may not have landed: check the table before retrying.",
        )?,
        corrupt: subclass(
            py,
            "CorruptFileError",
            None,
            "A file on storage that does not decode or breaks the format's invariants.",
        )?,
        unsupported: subclass(
            py,
            "UnsupportedError",
            Some(PyNotImplementedError::type_object(py)),
            "A feature, option value or table strata does not implement (refused, never ignored).",
        )?,
        invalid_input: subclass(
            py,
            "InvalidInputError",
            Some(PyValueError::type_object(py)),
            "Bad input: an option value, an argument, data that does not fit the schema.",
        )?,
        permission_denied: subclass(
            py,
            "PermissionDeniedError",
            Some(pyo3::exceptions::PyPermissionError::type_object(py)),
            "A catalog refused the credentials, or the grant does not cover the operation.",
        )?,
        io: subclass(
            py,
            "StorageError",
            Some(PyOSError::type_object(py)),
            "Storage I/O failed (local disk or object store).",
        )?,
        internal: subclass(
            py,
            "InternalError",
            None,
            "A bug in strata or an Arrow computation error.",
        )?,
    };
    for (name, class) in [
        ("NotFoundError", &c.not_found),
        ("AlreadyExistsError", &c.already_exists),
        ("ConflictError", &c.conflict),
        ("CommitOutcomeUnknownError", &c.outcome_unknown),
        ("CorruptFileError", &c.corrupt),
        ("UnsupportedError", &c.unsupported),
        ("InvalidInputError", &c.invalid_input),
        ("PermissionDeniedError", &c.permission_denied),
        ("StorageError", &c.io),
        ("InternalError", &c.internal),
    ] {
        m.add(name, class.clone_ref(py))?;
    }
    let _ = CLASSES.set(c);
    Ok(())
}

fn raise(kind: ErrorKind, message: String) -> PyErr {
    raise_with(kind, message, false, Vec::new())
}

/// The exception of `kind` with `message`; every one carries `retryable` and `context`.
fn raise_with(
    kind: ErrorKind,
    message: String,
    retryable: bool,
    context: Vec<(&'static str, String)>,
) -> PyErr {
    let err = raise_plain(kind, message);
    Python::attach(|py| {
        let value = err.value(py);
        let dict = pyo3::types::PyDict::new(py);
        for (key, item) in context {
            let _ = dict.set_item(key, item);
        }
        // Setting an attribute on an exception instance fails only on a broken interpreter;
        // the exception is raised either way.
        let _ = value.setattr("retryable", retryable);
        let _ = value.setattr("context", dict);
    });
    err
}

fn raise_plain(kind: ErrorKind, message: String) -> PyErr {
    Python::attach(|py| {
        let Some(c) = CLASSES.get() else {
            return StrataError::new_err(message);
        };
        let class = match kind {
            ErrorKind::NotFound => &c.not_found,
            ErrorKind::AlreadyExists => &c.already_exists,
            ErrorKind::Conflict => &c.conflict,
            ErrorKind::OutcomeUnknown => &c.outcome_unknown,
            ErrorKind::Corrupt => &c.corrupt,
            ErrorKind::Unsupported => &c.unsupported,
            ErrorKind::InvalidInput => &c.invalid_input,
            ErrorKind::PermissionDenied => &c.permission_denied,
            ErrorKind::Io => &c.io,
            _ => &c.internal,
        };
        match class.bind(py).call1((message.clone(),)) {
            Ok(instance) => PyErr::from_value(instance),
            Err(e) => e,
        }
    })
}

/// A strata error as the matching Python exception, with `retryable` (whether the same call
/// may succeed again: transient storage I/O) and `context` (a dict of what the error concerns:
/// `table`, `partition`, `bucket`, `file`, `option`, `snapshot`, those known) set on it.
pub(crate) fn to_py(e: strata::Error) -> PyErr {
    raise_with(
        e.kind(),
        e.to_string(),
        e.is_retryable(),
        e.context().entries(),
    )
}

/// Bad input from the caller (`InvalidInputError`, a `ValueError`).
pub(crate) fn invalid(message: impl Into<String>) -> PyErr {
    raise(ErrorKind::InvalidInput, message.into())
}

/// Something that should not happen (`InternalError`).
pub(crate) fn internal(message: impl Into<String>) -> PyErr {
    raise(ErrorKind::Internal, message.into())
}

/// `Result<T, strata::Error>` → `PyResult<T>`.
pub(crate) trait IntoPy<T> {
    fn py_err(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for strata::Result<T> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
