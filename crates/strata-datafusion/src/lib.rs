//! # strata-datafusion — SQL on Paimon tables with Apache DataFusion
//!
//! strata's tables through DataFusion's standard extension points, so they plug into any
//! DataFusion-based engine, and a [`SqlSession`] that adds Paimon's DDL, procedures and time
//! travel on top:
//!
//! | module | what |
//! |---|---|
//! | [`catalog`] | [`StrataCatalog`] / [`StrataSchema`]: the warehouse as `CatalogProvider` / `SchemaProvider` |
//! | [`table`] | [`StrataTable`]: a table as `TableProvider` (pushdown, statistics, INSERT, UPDATE, DELETE, MERGE) |
//! | [`scan`] | [`StrataScanExec`]: the scan `ExecutionPlan`, strata splits (and slices of large files) dealt into partitions |
//! | `statistics` | row counts and column bounds from the manifests, for the planner |
//! | [`filter`] | DataFusion filters → strata predicates (what is pushed down exactly) |
//! | [`sink`] | writes: one strata write and one commit per statement |
//! | `merge` | `MERGE INTO` on primary-key tables, as row kinds |
//! | `cow` | `UPDATE` / `DELETE` on append tables, copy-on-write |
//! | `row_effect` | row-level statements on primary-key tables checked to take effect under the merge engine |
//! | [`session`] | [`SqlSession`]: DDL, `CALL sys.*`, `USE`, time travel, option hints |
//! | [`options`] | per-query options (time travel, dynamic options) |
//! | [`incremental`] | [`StrataIncrementalExec`]: `incremental-between` reads of a table (adds only) or of `t$audit_log` (every change) |
//! | [`codec`] | logical and physical extension codecs: strata plans shipped between processes (Ballista) |
//!
//! ```no_run
//! # #![recursion_limit = "256"]
//! # async fn demo() -> datafusion::common::Result<()> {
//! use strata::catalog::FileSystemCatalog;
//! let session = strata_datafusion::SqlSession::new(FileSystemCatalog::open("/tmp/wh").unwrap());
//! session.sql("CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)").await?;
//! session.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')").await?.collect().await?;
//! let rows = session.sql("SELECT * FROM t VERSION AS OF 1 WHERE id < 2").await?.collect().await?;
//! # Ok(()) }
//! ```

mod alter;
mod audit_log;
pub mod catalog;
pub mod codec;
mod codec_predicate;
mod cow;
mod ddl;
pub mod error;
pub mod filter;
pub mod incremental;
mod merge;
pub mod options;
mod procedures;
mod rewrite;
mod row_effect;
pub mod scan;
pub mod session;
pub mod sink;
mod statistics;
mod system_tables;
pub mod table;

pub use catalog::{StrataCatalog, StrataSchema};
pub use codec::{StrataLogicalCodec, StrataPhysicalCodec};
pub use incremental::StrataIncrementalExec;
pub use scan::StrataScanExec;
pub use session::{Script, SqlSession, StrataDialect};
pub use table::StrataTable;
