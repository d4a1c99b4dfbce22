//! `ALTER TABLE`: schema changes written as new `schema-N` files.
//!
//! Refused until the core's schema-evolution API lands (an error, never a silent no-op).

use datafusion::common::Result;
use datafusion::dataframe::DataFrame;
use datafusion::sql::sqlparser::ast::AlterTable;

use crate::error::plan_error;
use crate::session::SqlSession;

pub(crate) async fn alter_table(_session: &SqlSession, alter: &AlterTable) -> Result<DataFrame> {
    Err(plan_error(format!(
        "ALTER TABLE {} is not supported yet",
        alter.name
    )))
}
