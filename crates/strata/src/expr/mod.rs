//! Predicates: what a scan filters on, from user text to pruning and exact row filtering.
//!
//! Paimon's vocabulary: a [`Predicate`] is a tree of `CompoundPredicate`s (`And`/`Or`) over
//! [`LeafPredicate`]s that test one column with a [`LeafOp`] (`Equal`, `LessThan`, `In`,
//! `StartsWith`...). The life of a predicate:
//!
//! 1. **Build** it with the builder functions ([`Predicate::equal`], [`Predicate::is_in`], ...,
//!    named after pypaimon's `PredicateBuilder`) or **parse** SQL text with
//!    [`parse_sql_predicate`] ([`sql`]). Columns are names, literals are [`Datum`]s.
//! 2. **Bind** it to a row type ([`Predicate::bind`] → [`BoundPredicate`], [`bound`]): names
//!    become field indexes, literals are converted to the column types (`literal.rs`), `NOT` is
//!    pushed into the leaves. Re-target with [`BoundPredicate::project`] /
//!    [`BoundPredicate::remap`]; derive a partition predicate with
//!    [`BoundPredicate::extract_for_columns`] / `project`. A leaf may test a MAP key access
//!    `m['k']` ([`map_key`]); [`Predicate::bind_with_map_keys`] binds those to virtual fields
//!    after the row type's fields, [`Predicate::bind_for_pruning`] drops them (scans).
//! 3. **Prune** with statistics ([`BoundPredicate::test_stats`], [`stats`], conservative) or
//!    exact values such as partition values ([`BoundPredicate::test_values`], SQL
//!    three-valued).
//! 4. **Filter** rows exactly with Arrow kernels ([`BoundPredicate::evaluate`],
//!    [`filter_batch`], [`eval`]).
//!
//! Semantics are SQL's: a comparison with NULL is unknown and the row is not selected.
//! Values are ordered by [`Datum::compare`]: strings and bytes by unsigned bytes, floats by
//! IEEE total order (NaN greatest, −0.0 < +0.0, as Java's `Double.compare`), which is also the
//! order of Arrow's comparison kernels.
//!
//! [`Datum`]: strata_spec::Datum
//! [`Datum::compare`]: strata_spec::Datum::compare

pub(crate) mod bound;
pub(crate) mod eval;
mod ident;
mod literal;
pub(crate) mod map_key;
pub(crate) mod predicate;
mod scalar;
#[cfg(feature = "sql")]
pub(crate) mod sql;
pub(crate) mod stats;

#[cfg(test)]
mod tests;

pub use bound::{BoundLeafPredicate, BoundPredicate};
pub use eval::filter_batch;
pub use map_key::{MapKeyColumn, MapKeyRef};
pub use predicate::{sql_literal, LeafOp, LeafPredicate, Predicate};
#[cfg(feature = "sql")]
pub use sql::parse_sql_predicate;
