//! # strata-python — the `strata` Python package
//!
//! The native half of the package (`strata._native`), built with pyo3 + maturin as one abi3
//! wheel for every CPython ≥ 3.10. The pure-Python half (`python/strata/`) re-exports these
//! classes and adds what is best written in Python: the predicate builder, the Ray datasource
//! and datasink.
//!
//! The API follows pypaimon's shape (`Catalog` → `Table` → `new_read_builder()` /
//! `new_batch_write_builder()`), so a pypaimon user finds the same names, with shortcuts
//! (`Table.read`, `Table.write`) and what pypaimon lacks (compaction, expiry, tags, rollback,
//! MAP-key projections and filters, SQL).
//!
//! | module | what |
//! |---|---|
//! | `runtime` | the shared tokio runtime; every blocking call releases the GIL |
//! | `errors` | strata errors as Python exceptions, one class per [`strata::ErrorKind`] |
//! | `arrow_io` | Arrow in and out through the Arrow PyCapsule interface (no pyarrow needed) |
//! | `catalog` | `Catalog`: databases and tables of a catalog (filesystem warehouse, local or `s3://`; REST; JDBC) opened through `strata::catalog::open`; `strata.sql`, and re-opening a pickled table |
//! | `catalog_options` | pypaimon's catalog option dict from the Python forms (a warehouse given twice must agree); the opener honours each key or refuses it by name |
//! | `catalog_views` | the catalog's views and functions (`list_views`, `get_view`, `create_view`, … of `strata.Catalog`) as dicts in Java's REST JSON shapes |
//! | `table` | `Table`'s methods: metadata, shortcuts, maintenance, system tables |
//! | `table_handle` | the `Table` handle itself (library table + what re-opens it), below catalog, writers and routing |
//! | `read` | `ReadBuilder`, `TableScan`, `Plan` (incremental reads too); `table_read` (`TableRead`), `split` (`Split`), `read_spec` (a read opened as one stream), `read_options` below it |
//! | `incremental` | `incremental-between` reads: filter/projection/limit on their output, split wire form |
//! | `stream` | `StreamReadBuilder`, `ChangeStream`, `ChangeBatch`: streaming reads |
//! | `write` | `BatchWriteBuilder`, `BatchTableWrite`, `BatchTableCommit`, `CommitMessage` |
//! | `routing` | the writer of each row of a primary-key write spread over several writers (`strata.ray`): one writer per bucket |
//! | `sql` | running SQL in a catalog's session, and `__datafusion_table_provider__` (DataFusion's FFI) |
//! | `progress` | the progress bar long reads and writes show in a terminal |
//!
//! Imports go one way: `catalog` (it makes `Table`s, runs `strata.sql`, re-opens pickled
//! tables) and `table` (`Table`'s methods) on top, neither importing the other; then `read`,
//! `write`, `stream`, `routing`, `sql`; `table_handle`, `errors`, `runtime`, `arrow_io` at the
//! bottom.

// strata-datafusion's statement futures nest deeper than rustc's default layout query depth.
#![recursion_limit = "256"]

use pyo3::prelude::*;

mod arrow_io;
mod catalog;
mod catalog_options;
mod catalog_views;
mod errors;
mod incremental;
mod progress;
mod read;
mod read_options;
mod read_spec;
mod routing;
mod runtime;
mod split;
mod sql;
mod stream;
mod table;
mod table_handle;
mod table_read;
mod write;

/// The native module `strata._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    m.add_class::<catalog::Catalog>()?;
    m.add_class::<table_handle::Table>()?;
    m.add_class::<read::ReadBuilder>()?;
    m.add_class::<read::TableScan>()?;
    m.add_class::<read::Plan>()?;
    m.add_class::<split::Split>()?;
    m.add_class::<table_read::TableRead>()?;
    m.add_class::<stream::StreamReadBuilder>()?;
    m.add_class::<stream::ChangeStream>()?;
    m.add_class::<stream::ChangeBatch>()?;
    m.add_class::<write::BatchWriteBuilder>()?;
    m.add_class::<write::BatchTableWrite>()?;
    m.add_class::<write::BatchTableCommit>()?;
    m.add_class::<write::CommitMessage>()?;
    m.add_function(wrap_pyfunction!(catalog::sql, m)?)?;
    m.add_function(wrap_pyfunction!(split::split_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(write::commit_message_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(catalog::open_table, m)?)?;
    m.add_function(wrap_pyfunction!(routing::write_routes, m)?)?;
    Ok(())
}
