//! DataFusion's provider side: the warehouse as a catalog ([`catalog`]), a table as a
//! `TableProvider` ([`table`]) with its scan plan ([`scan`]), filter pushdown ([`filter`]) and
//! statistics ([`statistics`]), the per-query table options ([`options`]: time travel, dynamic
//! options, incremental reads), incremental reads ([`incremental`]), system tables
//! ([`system_tables`], [`audit_log`]), the catalog's views as DataFusion views (`view`), and
//! the wire codecs that ship these plans between processes ([`codec`], [`codec_predicate`]).
//!
//! **Where it sits.** Above the writes ([`crate::dml`]) and below the SQL layer
//! ([`crate::sql`]). DataFusion's entry points for writes are `TableProvider` methods, so
//! [`table::StrataTable`]'s `insert_into`, `delete_from`, `update` and `merge_into` are thin
//! hooks that call down into `dml`, handing themselves over as its narrow `DmlTarget`; `dml`
//! never imports this folder. The codecs belong here because what they carry is only this
//! layer's: a [`table::StrataTable`] in a logical plan and a [`scan::StrataScanExec`] in a
//! physical plan (Ballista ships both; writes run where they are planned).
//!
//! Inside, imports run downward: `codec` → `catalog` → `options` / `system_tables` →
//! `table` / `audit_log` / `row_tracking` → `scan` → `statistics`; `filter`, `incremental`,
//! `view` and `codec_predicate` are leaves (of this folder: they use only `crate::error`,
//! `crate::leaf_exec` and strata).

pub(crate) mod audit_log;
pub mod catalog;
pub mod codec;
pub(crate) mod codec_predicate;
pub mod filter;
pub mod incremental;
pub mod options;
pub(crate) mod row_tracking;
pub mod scan;
pub(crate) mod statistics;
pub(crate) mod system_tables;
pub mod table;
pub(crate) mod view;
