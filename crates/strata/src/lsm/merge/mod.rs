//! Merge engines (`merge-engine`, lsm-algorithms.md §4.5): how the records of one primary key
//! become one record.
//!
//! The merge reader and the write buffer group records by key and order each group as Paimon
//! does (user `sequence.field` values, then `_SEQUENCE_NUMBER`, then retract before add), so
//! the **last record is the newest**. A group of one record never reaches a
//! [`MergeFunction`] (Java `ReducerMergeFunctionWrapper`): it passes through untouched.

use std::sync::Arc;

use strata_spec::kv::RowKind;
use strata_spec::options::CoreOptions;
use strata_spec::schema::TableSchema;
use strata_spec::Datum;

use crate::Result;

/// One value of any Paimon type, as merge functions see it (NULL included).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Scalar(Datum),
    Array(Vec<Value>),
    /// Entries in order.
    Map(Vec<(Value, Value)>),
    Row(Vec<Value>),
}

/// System fields of one record of a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KvMeta {
    pub sequence: i64,
    pub kind: RowKind,
}

/// What a group of records of one key merges into.
#[derive(Clone, Debug, PartialEq)]
pub enum MergeResult {
    /// Record `i` of the group, as stored (its kind, sequence number and values).
    Pick(usize),
    /// A new record: full table row in schema order; its sequence number is the group's last.
    Row { kind: RowKind, values: Vec<Value> },
    /// Nothing: the key disappears from the output.
    Drop,
}

/// A merge engine. Implementations are stateless between groups and shareable across threads.
pub trait MergeFunction: Send + Sync + std::fmt::Debug {
    /// `false` when [`MergeFunction::merge`] only needs the system fields (deduplicate,
    /// first-row): the caller then passes `values = None` and never decodes value columns.
    fn needs_values(&self) -> bool;

    /// Merges the records of one key, oldest first (`metas.len() >= 2`). `values[i]` is record
    /// `i`'s full table row in schema order when [`MergeFunction::needs_values`].
    fn merge(&self, metas: &[KvMeta], values: Option<&[Vec<Value>]>) -> Result<MergeResult>;
}

/// The merge function of a table per its `merge-engine` and related options. Unsupported
/// combinations fail with Paimon's error.
pub fn create_merge_function(schema: &TableSchema) -> Result<Arc<dyn MergeFunction>> {
    let _ = CoreOptions::new(schema.options.clone());
    Err(crate::Error::Unsupported(
        "merge engines are being implemented".into(),
    ))
}
