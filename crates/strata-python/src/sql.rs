//! SQL from Python, and strata tables inside DataFusion's Python package.
//!
//! * `strata.sql(query, catalog)` / `Catalog.sql(query)` (in [`crate::catalog`]) run
//!   statements through strata-datafusion's `SqlSession` (DDL, DML, `CALL sys.*`, time
//!   travel, system tables) with [`run`], which returns the last statement's result as a
//!   pyarrow table. A catalog keeps one session, so `USE db` carries over between calls.
//! * `Table.__datafusion_table_provider__(session)` hands the table to DataFusion's Python
//!   package through its FFI (`datafusion-ffi`): `SessionContext().register_table_provider("t",
//!   table)`, as delta-rs and lance do. The FFI is versioned by DataFusion's major version, so
//!   strata works with the `datafusion` Python package of the same major version as the
//!   DataFusion it is built on (55).

use std::ffi::CStr;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use arrow_schema::SchemaRef;
use datafusion::catalog::Session;
use datafusion::common::{Result as DfResult, Statistics};
use datafusion::datasource::TableType;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use tokio::runtime::Handle;

use datafusion::catalog::TableProvider;
use datafusion::prelude::SessionContext;
use datafusion_ffi::proto::logical_extension_codec::FFI_LogicalExtensionCodec;
use datafusion_ffi::table_provider::FFI_TableProvider;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods};
use strata_datafusion::{SqlSession, StrataTable};

use crate::errors::{invalid, to_py, IntoPy};
use crate::runtime::{block_on, runtime};

const PROVIDER_CAPSULE: &CStr = c"datafusion_table_provider";
const CODEC_CAPSULE: &CStr = c"datafusion_logical_extension_codec";

/// Runs the statements of `query` in `session` and returns the last one's rows as a
/// ``pyarrow.Table`` (`strata.sql`, `Catalog.sql`).
pub(crate) fn run<'py>(
    py: Python<'py>,
    session: Arc<SqlSession>,
    query: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let query = query.to_string();
    let (batches, schema) = block_on(py, async move {
        let script = session.parse_script(&query)?;
        if script.is_empty() {
            return Err(datafusion::error::DataFusionError::Plan(
                "no SQL statement given".into(),
            ));
        }
        let mut last = None;
        for i in 0..script.len() {
            let df = session.run(&script, i).await?;
            let schema: arrow_schema::SchemaRef = Arc::new(df.schema().as_arrow().clone());
            let batches = df.collect().await?;
            last = Some((batches, schema));
        }
        Ok(last.expect("a non-empty script ran a statement"))
    })?
    .map_err(|e| to_py(strata_datafusion::error::from_df(e)))?;
    crate::arrow_io::to_pyarrow_table(py, batches, schema)
}

/// A session for callers that pass none (DataFusion's FFI holds it weakly, so it must live on).
fn default_session() -> &'static Arc<SessionContext> {
    static CTX: OnceLock<Arc<SessionContext>> = OnceLock::new();
    CTX.get_or_init(|| Arc::new(SessionContext::new()))
}

fn logical_codec(session: Option<Bound<'_, PyAny>>) -> PyResult<FFI_LogicalExtensionCodec> {
    let Some(session) = session else {
        let ctx: Arc<dyn datafusion::execution::TaskContextProvider> = default_session().clone();
        return Ok(FFI_LogicalExtensionCodec::new_default(&ctx));
    };
    let attr = "__datafusion_logical_extension_codec__";
    let capsule = if session.hasattr(attr)? {
        session.getattr(attr)?.call0()?
    } else {
        session
    };
    let capsule = capsule.cast::<PyCapsule>().map_err(|_| {
        invalid(
            "__datafusion_table_provider__ expects a DataFusion SessionContext (datafusion >= 52)",
        )
    })?;
    let ptr = capsule.pointer_checked(Some(CODEC_CAPSULE))?;
    // SAFETY: the capsule's name says it holds an FFI_LogicalExtensionCodec (DataFusion's FFI
    // contract); cloning goes through the codec's own clone function.
    let codec = unsafe { ptr.cast::<FFI_LogicalExtensionCodec>().as_ref() };
    Ok(codec.clone())
}

pub(crate) fn table_provider_capsule<'py>(
    py: Python<'py>,
    table: &strata::table::Table,
    session: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyCapsule>> {
    let t = table.clone();
    let provider = block_on(py, async move { StrataTable::new(t).await })?.py_err()?;
    let handle = runtime()?.handle().clone();
    let provider: Arc<dyn TableProvider> = Arc::new(OnRuntime {
        inner: Arc::new(provider),
        handle: handle.clone(),
    });
    let codec = logical_codec(session)?;
    let ffi = FFI_TableProvider::new_with_ffi_codec(provider, true, Some(handle), codec);
    PyCapsule::new_with_value(py, ffi, PROVIDER_CAPSULE)
}

/// Polls a future inside strata's runtime: DataFusion's FFI polls a provider's `scan` future
/// on the caller's threads, where strata's file I/O (tokio) would find no runtime.
struct Entered<'a, T> {
    handle: Handle,
    fut: Pin<Box<dyn Future<Output = T> + Send + 'a>>,
}

impl<T> Future for Entered<'_, T> {
    type Output = T;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let _guard = self.handle.enter();
        self.fut.as_mut().poll(cx)
    }
}

/// A table provider whose async entry points run inside strata's runtime (record batch streams
/// already do: the FFI enters the runtime it is given while polling them).
#[derive(Debug)]
struct OnRuntime {
    inner: Arc<dyn TableProvider>,
    handle: Handle,
}

#[async_trait::async_trait]
impl TableProvider for OnRuntime {
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
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        Entered {
            handle: self.handle.clone(),
            fut: self.inner.scan(state, projection, filters, limit),
        }
        .await
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> DfResult<Vec<TableProviderFilterPushDown>> {
        self.inner.supports_filters_pushdown(filters)
    }

    fn statistics(&self) -> Option<Statistics> {
        let _guard = self.handle.enter();
        self.inner.statistics()
    }

    async fn insert_into(
        &self,
        state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        Entered {
            handle: self.handle.clone(),
            fut: self.inner.insert_into(state, input, insert_op),
        }
        .await
    }
}
