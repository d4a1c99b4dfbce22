//! The write of `CREATE TABLE … AS SELECT`: the query's rows inserted into the table just
//! created, committed with the snapshot operation `CREATE_TABLE_AS_SELECT`, as Spark's
//! `PaimonCreateTableAsSelectStrategy` sets it (Java 2.0 `Snapshot.Operation`). The insert is
//! DataFusion's own (`LogicalPlanBuilder::insert_into`, as `DataFrame::write_table` builds it,
//! with its column checks and casts) into [`CtasTarget`], which delegates everything to the
//! table's provider except the sink's operation.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::{Result, TableReference};
use datafusion::datasource::{DefaultTableSource, TableType};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, LogicalPlanBuilder};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::DataFrame;
use strata::commit::SnapshotOperation;

use crate::dml::sink::{insert_operation, SinkMode};
use crate::error::plan_error;
use crate::provider::table::StrataTable;

/// The table of a CREATE TABLE … AS SELECT, for its one insert.
struct CtasTarget {
    inner: Arc<dyn TableProvider>,
}

impl fmt::Debug for CtasTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CtasTarget")
    }
}

#[async_trait]
impl TableProvider for CtasTarget {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    fn table_type(&self) -> TableType {
        self.inner.table_type()
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.inner.scan(state, projection, filters, limit).await
    }

    async fn insert_into(
        &self,
        _state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        _insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let table = self
            .inner
            .as_ref()
            .downcast_ref::<StrataTable>()
            .ok_or_else(|| plan_error("CREATE TABLE … AS SELECT into a table strata does not own"))?
            .table();
        insert_operation(
            table,
            input,
            SinkMode::Append,
            SnapshotOperation::CreateTableAsSelect,
        )
    }
}

/// Inserts the rows of `df` into `target` (the table just created) in one
/// `CREATE_TABLE_AS_SELECT` snapshot.
pub(crate) async fn write(df: DataFrame, target: &str) -> Result<Vec<RecordBatch>> {
    let (state, plan) = df.into_parts();
    let table_ref = TableReference::from(target);
    let provider = state
        .schema_for_ref(table_ref.clone())?
        .table(table_ref.table())
        .await?
        .ok_or_else(|| plan_error(format!("no table named {target}")))?;
    let source = Arc::new(DefaultTableSource::new(Arc::new(CtasTarget {
        inner: provider,
    })));
    let plan =
        LogicalPlanBuilder::insert_into(plan, table_ref, source, InsertOp::Append)?.build()?;
    DataFrame::new(state, plan).collect().await
}
