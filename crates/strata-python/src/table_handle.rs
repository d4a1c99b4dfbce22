//! The handle behind `strata.Table`: a library table with what re-opens it (warehouse,
//! catalog options, dynamic options, kept to pickle it). Its Python methods are in
//! [`crate::table`]; the catalog, writers and routing take it from here, below them all.

use std::collections::HashMap;

use pyo3::prelude::*;

/// A Paimon table (append or primary-key) of a :class:`strata.Catalog`.
#[pyclass(module = "strata", frozen)]
pub struct Table {
    pub(crate) inner: strata::table::Table,
    pub(crate) warehouse: String,
    pub(crate) catalog_options: HashMap<String, String>,
    /// Dynamic options given with `copy` (kept to pickle the table).
    pub(crate) dynamic_options: HashMap<String, String>,
}

impl Table {
    pub(crate) fn with_inner(&self, inner: strata::table::Table) -> Table {
        Table {
            inner,
            warehouse: self.warehouse.clone(),
            catalog_options: self.catalog_options.clone(),
            dynamic_options: self.dynamic_options.clone(),
        }
    }
}
