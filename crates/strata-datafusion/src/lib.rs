//! # strata-datafusion — SQL on Paimon tables with Apache DataFusion
//!
//! strata's tables through DataFusion's standard extension points, so they plug into any
//! DataFusion-based engine, and a [`SqlSession`] that adds Paimon's DDL, procedures and time
//! travel on top:
//!
//! The crate is three layers, each a folder, imports only running down:
//!
//! | layer | what | may use |
//! |---|---|---|
//! | `sql/` | [`SqlSession`]: statements, DDL, `ALTER TABLE`, `CALL sys.*`, time travel and option hints | `provider`, `dml`, leaves |
//! | `provider/` | [`StrataCatalog`], [`StrataTable`] (scan, pushdown, statistics; thin DML hooks), [`StrataScanExec`], [`StrataIncrementalExec`], system tables, per-query options, the Ballista codecs | `dml`, leaves |
//! | `dml/` | writes: the INSERT sink, UPDATE/DELETE as row kinds or copy-on-write, MERGE, the row-effect check — over a narrow table handle, never the provider | leaves |
//! | leaves | [`error`] (errors across the DataFusion boundary), `leaf_exec` (what the leaf `ExecutionPlan`s share) | strata, DataFusion |
//!
//! The folders are private; their public modules are re-exported here under the names of the
//! former flat layout ([`catalog`], [`table`], [`scan`], [`filter`], [`options`],
//! [`incremental`], [`codec`], [`sink`], [`session`]).
//!
//! ```no_run
//! # #![recursion_limit = "256"]
//! # async fn demo() -> datafusion::common::Result<()> {
//! use strata::catalog::FileSystemCatalog;
//! let session = strata_datafusion::SqlSession::new(std::sync::Arc::new(FileSystemCatalog::open("/tmp/wh").unwrap()));
//! session.sql("CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)").await?;
//! session.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')").await?.collect().await?;
//! let rows = session.sql("SELECT * FROM t VERSION AS OF 1 WHERE id < 2").await?.collect().await?;
//! # Ok(()) }
//! ```

mod dml;
pub mod error;
mod leaf_exec;
mod provider;
mod sql;

pub use dml::sink;
pub use provider::{catalog, codec, filter, incremental, options, scan, table};
pub use sql::session;
pub use sql::views::plan_view;

pub use catalog::{StrataCatalog, StrataSchema};
pub use codec::{StrataLogicalCodec, StrataPhysicalCodec};
pub use incremental::StrataIncrementalExec;
pub use scan::StrataScanExec;
pub use session::{Script, SqlSession, StrataDialect};
pub use table::StrataTable;
