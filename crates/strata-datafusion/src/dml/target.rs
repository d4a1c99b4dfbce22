//! [`DmlTarget`]: the narrow handle a row-level statement works over.
//!
//! DataFusion hands `UPDATE`, `DELETE` and `MERGE INTO` to the target's `TableProvider`
//! (`delete_from`, `update`, `merge_into`), and the provider passes itself down as this trait:
//! the strata table, the columns as DataFusion plans them, the part of a condition strata can
//! prune by, and its own current rows as a DataFusion source. The write layer declares what it
//! needs here and never names the provider ([`crate::provider::table::StrataTable`] implements
//! it), so writes sit below the provider and no import runs back up.

use std::sync::Arc;

use arrow_schema::SchemaRef;
use datafusion::logical_expr::{Expr, TableSource};
use strata::expr::Predicate;
use strata::table::Table;

/// The table a row-level statement changes, as the write layer sees it.
pub(crate) trait DmlTarget: Send + Sync {
    /// The strata table written.
    fn table(&self) -> &Table;

    /// The table's columns as DataFusion plans them (top-level strings as views): the schema
    /// the statement's conditions and assignments are planned against.
    fn schema(&self) -> SchemaRef;

    /// The strata predicate implied by `filters` (the statement's condition, split at `AND`),
    /// to prune the files read; `None` when no part converts.
    fn predicate(&self, filters: &[Expr]) -> Option<Predicate>;

    /// The table's rows as they are now (the newest snapshot, merged), as a DataFusion source
    /// for the plan that selects the rows a statement changes.
    fn rows(&self) -> Arc<dyn TableSource>;
}
