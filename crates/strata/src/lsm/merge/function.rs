//! What every merge engine shares (Java `MergeFunction`): the [`Value`] model of a row's fields,
//! a record's [`KvMeta`], the [`MergeResult`] of one key's group and the [`MergeFunction`] trait.
//! A leaf: the engines (`deduplicate`, `partial_update`, `aggregation`, `first_row`) and the
//! factory in `merge/mod.rs` build on it.

use strata_spec::kv::RowKind;
use strata_spec::Datum;

use crate::Result;

/// One value of any Paimon type, as merge functions see it (NULL included).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    /// SQL NULL, of any type.
    Null,
    /// A non-NULL value of an atomic type, as Paimon's internal [`Datum`].
    Scalar(Datum),
    /// An ARRAY's elements, in order.
    Array(Vec<Value>),
    /// Entries in order.
    Map(Vec<(Value, Value)>),
    /// A ROW's fields in declaration order (a VARIANT is the row of its `value` and `metadata`
    /// bytes).
    Row(Vec<Value>),
}

/// System fields of one record of a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KvMeta {
    /// The record's `_SEQUENCE_NUMBER`.
    pub sequence: i64,
    /// The record's `_VALUE_KIND` (`+I`, `-U`, `+U`, `-D`).
    pub kind: RowKind,
}

/// What a group of records of one key merges into.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum MergeResult {
    /// Record `i` of the group, as stored (its kind, sequence number and values).
    Pick(usize),
    /// A new record; its sequence number is the group's last.
    Row {
        /// The new record's row kind.
        kind: RowKind,
        /// The new record's full table row, in schema order.
        values: Vec<Value>,
    },
    /// Nothing: the key disappears from the output.
    Drop,
}

/// A merge engine. Implementations are stateless between groups and shareable across threads.
pub(crate) trait MergeFunction: Send + Sync + std::fmt::Debug {
    /// `false` when [`MergeFunction::merge`] only needs the system fields (deduplicate,
    /// first-row): the caller then passes `values = None` and never decodes value columns.
    fn needs_values(&self) -> bool;

    /// Merges the records of one key, oldest first (`metas.len() >= 2`). `values[i]` is record
    /// `i`'s full table row in schema order when [`MergeFunction::needs_values`].
    fn merge(&self, metas: &[KvMeta], values: Option<&[Vec<Value>]>) -> Result<MergeResult>;
}
