//! `t$row_tracking`: a row-tracking table's rows with `_ROW_ID` and `_SEQUENCE_NUMBER`, as
//! Paimon's `RowTrackingTable` (its row type is Java's `SpecialFields.rowTypeWithRowTracking`:
//! the table's columns, then `_ROW_ID BIGINT NOT NULL`, `_SEQUENCE_NUMBER BIGINT NOT NULL`).
//!
//! The scan is strata's own [`StrataScanExec`] reading the projected columns by name (strata's
//! reads resolve the two system columns of a row-tracking table); filters are applied by
//! DataFusion above it. A table without `row-tracking.enabled` has no such view (Java refuses
//! it too).

use std::sync::Arc;

use arrow_schema::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::Result;
use datafusion::datasource::{TableProvider, TableType};
use datafusion::error::DataFusionError;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
use strata::table::Table;

use super::scan::{ReadRequest, StrataScanExec};
use crate::error::to_df;

/// Java `SpecialFields.ROW_ID` / `SEQUENCE_NUMBER`: the columns `t$row_tracking` appends.
const SYSTEM_COLUMNS: [&str; 2] = ["_ROW_ID", "_SEQUENCE_NUMBER"];

/// The `t$row_tracking` provider of one table (its newest snapshot at planning time).
#[derive(Debug)]
pub(crate) struct RowTrackingTable {
    table: Table,
    /// The table's columns, then `_ROW_ID` and `_SEQUENCE_NUMBER`.
    columns: Vec<String>,
    schema: SchemaRef,
}

impl RowTrackingTable {
    pub(crate) fn new(table: Table) -> Result<Self> {
        if !table
            .options()
            .row_tracking_enabled()
            .map_err(|e| DataFusionError::Plan(e.to_string()))?
        {
            return Err(DataFusionError::Plan(format!(
                "table {} does not track rows: set 'row-tracking.enabled' = 'true' when \
                 creating it to read {}$row_tracking",
                table.identifier(),
                table.identifier().table
            )));
        }
        let mut columns: Vec<String> = table
            .schema()
            .fields
            .iter()
            .map(|f| f.name.clone())
            .collect();
        columns.extend(SYSTEM_COLUMNS.iter().map(|c| c.to_string()));
        let schema = table
            .new_read()
            .with_string_views()
            .with_projection(columns.clone())
            .output_schema()
            .map_err(to_df)?;
        Ok(RowTrackingTable {
            table,
            columns,
            schema,
        })
    }
}

#[async_trait]
impl TableProvider for RowTrackingTable {
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
        let wanted: Vec<usize> = match projection {
            Some(p) if !p.is_empty() => p.clone(),
            // No column wanted (COUNT(*)): read one so that rows have a count.
            Some(_) => vec![0],
            None => (0..self.columns.len()).collect(),
        };
        let names = wanted.iter().map(|&i| self.columns[i].clone()).collect();
        let read_schema = Arc::new(self.schema.project(&wanted)?);
        let scan: Arc<dyn ExecutionPlan> = Arc::new(StrataScanExec::new(
            self.table.clone(),
            plan.snapshot.as_ref().map(|s| s.id),
            ReadRequest {
                columns: Some(names),
                filter: None,
                limit,
                row_kinds: false,
            },
            plan.splits,
            state.config().target_partitions(),
            read_schema,
        ));
        match projection {
            Some(p) if p.is_empty() => Ok(Arc::new(
                datafusion::physical_plan::projection::ProjectionExec::try_new(
                    Vec::<(Arc<dyn datafusion::physical_expr::PhysicalExpr>, String)>::new(),
                    scan,
                )?,
            )),
            _ => Ok(scan),
        }
    }
}
