//! System tables (`t$snapshots`, `t$files`, …) as DataFusion tables.

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::datasource::TableProvider;
use strata::table::Table;

use crate::error::plan_error;

/// The provider of system table `name` of `table`.
pub(crate) async fn provider(table: &Table, name: &str) -> Result<Arc<dyn TableProvider>> {
    Err(plan_error(format!(
        "system table {}${name} is not available yet",
        table.identifier()
    )))
}
