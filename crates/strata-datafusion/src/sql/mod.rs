//! The SQL layer: [`session::SqlSession`] and the statements DataFusion has no Paimon meaning
//! for, handled by strata itself — DDL ([`ddl`]), `ALTER TABLE` ([`alter`]), `CALL sys.*`
//! ([`procedures`]) — and the time travel and option hints found in a statement's text
//! ([`rewrite`]).
//!
//! The top of the crate: it uses the provider side ([`crate::provider`]: the catalog, table
//! options) and the writes ([`crate::dml`]: the sink of `INSERT … PARTITION`); nothing below
//! uses it. Inside, imports run one way: `session` dispatches each statement to `ddl`,
//! `alter` or `procedures`, which take the session's [`context::SqlContext`] (the DataFusion
//! context, the warehouse, name resolution and DataFusion planning) and the AST readers of
//! [`ast`]; `context` and `ast` import none of them, and nothing imports `session`.
//!
//! | file | what |
//! |---|---|
//! | [`session`] | [`session::SqlSession`], [`session::Script`], [`session::StrataDialect`]: parse, dispatch |
//! | [`context`] | [`context::SqlContext`]: the state a statement runs against |
//! | [`ddl`] | `CREATE TABLE [AS SELECT]`, `DROP TABLE`, `INSERT … PARTITION (k = v)` |
//! | [`ctas`] | the write of `CREATE TABLE … AS SELECT` (a `CREATE_TABLE_AS_SELECT` snapshot) |
//! | [`alter`] | `ALTER TABLE` as schema changes |
//! | [`procedures`] | `CALL sys.compact`, `expire_snapshots`, tags, `rollback`, `remove_orphan_files` |
//! | [`rewrite`] | time travel and `/*+ OPTIONS(…) */` hints: parsed from the tokens, resolved per table reference |
//! | [`ast`] | name parts, option text, Paimon type text of sqlparser's AST |
//! | [`views`] | `CREATE [OR REPLACE] VIEW`, `DROP VIEW`: the catalog's views |
//! | [`variant`] | `parse_json` (JSON text into VARIANT) and the refusal of other values into VARIANT columns |

pub(crate) mod alter;
pub(crate) mod ast;
pub(crate) mod context;
pub(crate) mod ctas;
pub(crate) mod ddl;
pub(crate) mod procedures;
pub(crate) mod rewrite;
pub(crate) mod row_id_merge;
pub mod session;
pub(crate) mod variant;
pub mod views;
#[cfg(test)]
mod views_tests;
