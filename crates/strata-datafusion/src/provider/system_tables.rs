//! Paimon's system tables (`t$snapshots`, `t$schemas`, `t$options`, `t$files`, `t$manifests`,
//! `t$partitions`, `t$buckets`, `t$tags`, `t$consumers`) and strata's `t$levels`, as DataFusion
//! tables. The rows are computed by `strata::system` (Java Paimon's columns and texts) when the
//! query is planned, and served from memory. `t$audit_log` (the rows with their row kinds) is
//! a scan of the table itself ([`super::audit_log`]), and so is `t$row_tracking` (the rows with
//! `_ROW_ID` and `_SEQUENCE_NUMBER`, [`super::row_tracking`]).

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::datasource::{MemTable, TableProvider};
use strata::table::Table;

use crate::error::to_df;

/// The provider of system table `name` of `table`.
pub(crate) async fn provider(table: &Table, name: &str) -> Result<Arc<dyn TableProvider>> {
    if name.eq_ignore_ascii_case("audit_log") {
        return Ok(Arc::new(super::audit_log::AuditLogTable::new(
            table.clone(),
        )?));
    }
    if name.eq_ignore_ascii_case("row_tracking") {
        return Ok(Arc::new(super::row_tracking::RowTrackingTable::new(
            table.clone(),
        )?));
    }
    let batch = strata::system::system_table(table, name)
        .await
        .map_err(to_df)?;
    Ok(Arc::new(MemTable::try_new(
        batch.schema(),
        vec![vec![batch]],
    )?))
}
