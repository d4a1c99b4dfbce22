//! `t$audit_log`: a table's rows with their row kind, as Paimon's `AuditLogTable`.
//!
//! The first column is `rowkind` (`+I`, `-U`, `+U`, `-D`), then the table's columns. A
//! primary-key table shows each key's newest record with its kind, deletes included until a
//! compaction into the highest level drops them (`TableRead::with_row_kinds`, Java's
//! `forceKeepDelete`); an append table's rows are all `+I`. The scan is strata's own
//! [`StrataScanExec`] (split groups read in parallel, serializable for Ballista) with row kinds
//! on; filters are applied by DataFusion above it (a filter below the merge could hide a
//! delete).
//!
//! With `incremental-between*` options (`"t$audit_log" /*+ OPTIONS('incremental-between' =
//! '3,7') */`) the view reads the changes of that range instead ([`super::incremental`]).

use std::sync::Arc;

use arrow_schema::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::Result;
use datafusion::datasource::{TableProvider, TableType};
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::expressions::Column as PhysicalColumn;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::ExecutionPlan;
use strata::read::row_kinds::with_kind_column;
use strata::table::Table;

use super::scan::{ReadRequest, StrataScanExec};
use crate::error::to_df;

/// The `t$audit_log` provider of one table (its newest snapshot at planning time).
#[derive(Debug)]
pub(crate) struct AuditLogTable {
    table: Table,
    /// The table's columns.
    columns: SchemaRef,
    /// `rowkind`, then the table's columns.
    schema: SchemaRef,
}

impl AuditLogTable {
    pub(crate) fn new(table: Table) -> Result<Self> {
        let columns = table
            .new_read()
            .with_string_views()
            .output_schema()
            .map_err(to_df)?;
        let schema = with_kind_column(&columns);
        Ok(AuditLogTable {
            table,
            columns,
            schema,
        })
    }
}

#[async_trait]
impl TableProvider for AuditLogTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::View
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let plan = self.table.new_scan().plan().await.map_err(to_df)?;
        // The table columns wanted, in table order; at least one, so that rows have a count.
        let mut wanted: Vec<usize> = match projection {
            Some(p) => p.iter().filter(|&&i| i > 0).map(|&i| i - 1).collect(),
            None => (0..self.columns.fields().len()).collect(),
        };
        wanted.sort_unstable();
        wanted.dedup();
        if wanted.is_empty() && !self.columns.fields().is_empty() {
            wanted.push(0);
        }
        let read_schema = with_kind_column(&self.columns.project(&wanted)?);
        let names = wanted
            .iter()
            .map(|&i| self.columns.field(i).name().clone())
            .collect();
        let scan: Arc<dyn ExecutionPlan> = Arc::new(StrataScanExec::new(
            self.table.clone(),
            plan.snapshot.as_ref().map(|s| s.id),
            ReadRequest {
                columns: Some(names),
                filter: None,
                limit,
                row_kinds: true,
            },
            plan.splits,
            state.config().target_partitions(),
            read_schema.clone(),
        ));
        let Some(projection) = projection else {
            return Ok(scan);
        };
        // DataFusion's order and selection over (rowkind, wanted columns).
        let exprs: Vec<(Arc<dyn PhysicalExpr>, String)> = projection
            .iter()
            .map(|&i| {
                let at = if i == 0 {
                    0
                } else {
                    1 + wanted.iter().position(|&w| w == i - 1).unwrap_or(0)
                };
                let name = read_schema.field(at).name().clone();
                (
                    Arc::new(PhysicalColumn::new(&name, at)) as Arc<dyn PhysicalExpr>,
                    name,
                )
            })
            .collect();
        Ok(Arc::new(ProjectionExec::try_new(exprs, scan)?))
    }
}
