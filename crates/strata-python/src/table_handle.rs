//! The handle behind `strata.Table`: a library table with what re-opens it (its catalog's
//! options, dynamic options, kept to pickle it). Its Python methods are in
//! [`crate::table`]; the catalog, writers and routing take it from here, below them all.

use std::collections::{BTreeMap, HashMap};

use pyo3::prelude::*;

/// A Paimon table (append or primary-key) of a :class:`strata.Catalog`.
#[pyclass(module = "strata", frozen)]
pub struct Table {
    pub(crate) inner: strata::table::Table,
    /// The options of the catalog it came from, `warehouse` included.
    pub(crate) catalog_options: BTreeMap<String, String>,
    /// Dynamic options given with `copy` (kept to pickle the table).
    pub(crate) dynamic_options: HashMap<String, String>,
}

impl Table {
    pub(crate) fn with_inner(&self, inner: strata::table::Table) -> Table {
        Table {
            inner,
            catalog_options: self.catalog_options.clone(),
            dynamic_options: self.dynamic_options.clone(),
        }
    }
}
