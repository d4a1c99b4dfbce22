//! [`RecordMerge`]: a primary-key table's merge engine applied to two records of one key,
//! exactly as the table's readers and compactions apply it — for a front end that must know,
//! before it commits, what a written record will read as. `strata-datafusion` checks with it
//! that `UPDATE`, `DELETE` and `MERGE INTO` take effect (`partial-update` and NULL, aggregate
//! functions, sequence groups, `sequence.field`) instead of reporting success while the rows
//! stay as they were.
//!
//! The merge functions themselves (Java's `MergeFunction` implementations:
//! `DeduplicateMergeFunction`, `PartialUpdateMergeFunction`, `AggregateMergeFunction`,
//! `FirstRowMergeFunction`) and their value model stay internal (`crate::lsm::merge`); this
//! file is their one stable door: rows read from Arrow ([`MergeRow`]), compared and shown by
//! column, and merged two at a time.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use arrow_array::RecordBatch;
use strata_spec::kv::RowKind;
use strata_spec::schema::TableSchema;
use strata_spec::Datum;

use crate::lsm::merge::{
    create_merge_function, value_at, KvMeta, MergeFunction, MergeResult, Value,
};
use crate::Result;

/// One full row of a table (every column in schema order) as its merge engine sees it.
///
/// Column positions are the table schema's; a position past the row's end reads as NULL.
#[derive(Clone, PartialEq)]
pub struct MergeRow(Vec<Value>);

impl fmt::Debug for MergeRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries((0..self.0.len()).map(|c| self.display(c)))
            .finish()
    }
}

impl MergeRow {
    /// Row `row` of `batch`, whose columns are the table's columns in schema order, in the
    /// Arrow types of the table's schema (`strata::arrow::to_arrow_schema_of`; cast with
    /// `strata::arrow::cast_batch_to_schema` first). Fails when `row` is out of bounds or a
    /// column's layout is not one of a Paimon type.
    pub fn from_batch(batch: &RecordBatch, row: usize) -> Result<Self> {
        batch
            .columns()
            .iter()
            .map(|c| value_at(c.as_ref(), row))
            .collect::<Result<Vec<_>>>()
            .map(MergeRow)
    }

    /// The number of columns.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the row has no columns.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether column `c` is NULL.
    pub fn is_null(&self, c: usize) -> bool {
        matches!(self.0.get(c), None | Some(Value::Null))
    }

    /// Column `c` of this row against column `c` of `other` as Paimon orders a user-defined
    /// sequence field: NULL first, then the values' order; values without an order (nested
    /// types, different types) compare equal.
    pub fn compare(&self, other: &MergeRow, c: usize) -> Ordering {
        compare_values(self.value(c), other.value(c))
    }

    /// Whether column `c` holds the same value in both rows (floats by total order, so a NaN
    /// written reads back as the same NaN; nested values element by element).
    pub fn same(&self, other: &MergeRow, c: usize) -> bool {
        same(self.value(c), other.value(c))
    }

    /// Column `c` for a message: `NULL`, a string quoted (`'x'`), other scalars as Paimon
    /// prints them, nested values as their structure.
    pub fn display(&self, c: usize) -> String {
        match self.value(c) {
            Value::Null => "NULL".to_string(),
            Value::Scalar(Datum::String(s)) => format!("'{s}'"),
            Value::Scalar(d) => d.to_string(),
            other => format!("{other:?}"),
        }
    }

    fn value(&self, c: usize) -> &Value {
        self.0.get(c).unwrap_or(&Value::Null)
    }
}

/// A table's merge engine (its `merge-engine` and the options that shape it), applied to the
/// records of one key as the table's readers apply it.
#[derive(Debug, Clone)]
pub struct RecordMerge {
    merge: Arc<dyn MergeFunction>,
}

impl RecordMerge {
    /// The merge engine of a table of `schema`; fails with Paimon's error where the options
    /// are an invalid combination (as creating a reader of the table would).
    pub fn new(schema: &TableSchema) -> Result<Self> {
        Ok(RecordMerge {
            merge: create_merge_function(schema)?,
        })
    }

    /// What the table reads after `older` and then `newer` (the order Paimon sorts them in:
    /// `sequence.field` values, then the later write last), each with its row kind: the row
    /// that remains, or `None` when the key is gone (or its last record is a retraction).
    pub fn merge(
        &self,
        older: (&MergeRow, RowKind),
        newer: (&MergeRow, RowKind),
    ) -> Result<Option<MergeRow>> {
        let metas = [
            KvMeta {
                sequence: 0,
                kind: older.1,
            },
            KvMeta {
                sequence: 1,
                kind: newer.1,
            },
        ];
        let values = [older.0 .0.clone(), newer.0 .0.clone()];
        Ok(match self.merge.merge(&metas, Some(&values))? {
            MergeResult::Pick(i) => metas
                .get(i)
                .filter(|m| m.kind.is_add())
                .and_then(|_| values.get(i).cloned())
                .map(MergeRow),
            MergeResult::Row { kind, values } => kind.is_add().then_some(MergeRow(values)),
            MergeResult::Drop => None,
        })
    }
}

/// NULL first, then the values' order (Java's user-defined sequence comparator).
fn compare_values(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Less,
        (_, Value::Null) => Ordering::Greater,
        (Value::Scalar(x), Value::Scalar(y)) => x.compare(y).unwrap_or(Ordering::Equal),
        _ => Ordering::Equal,
    }
}

/// Value equality with floats by total order.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Scalar(x), Value::Scalar(y)) => x.compare(y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) | (Value::Row(x), Value::Row(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k1, v1), (k2, v2))| same(k1, k2) && same(v1, v2))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use arrow_array::{ArrayRef, Int64Array, StringArray};
    use strata_spec::types::{DataField, DataType, TypeKind, MAX_LENGTH};

    use super::*;

    fn schema(options: &[(&str, &str)]) -> TableSchema {
        TableSchema {
            version: 3,
            id: 0,
            fields: vec![
                DataField::new(0, "k", DataType::not_null(TypeKind::BigInt)),
                DataField::new(1, "v", DataType::nullable(TypeKind::VarChar(MAX_LENGTH))),
            ],
            highest_field_id: 1,
            partition_keys: vec![],
            primary_keys: vec!["k".into()],
            options: options
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>(),
            comment: None,
            time_millis: 0,
        }
    }

    fn row(k: i64, v: Option<&str>) -> MergeRow {
        let batch = RecordBatch::try_from_iter([
            ("k", Arc::new(Int64Array::from(vec![k])) as ArrayRef),
            ("v", Arc::new(StringArray::from(vec![v])) as ArrayRef),
        ])
        .unwrap();
        MergeRow::from_batch(&batch, 0).unwrap()
    }

    #[test]
    fn partial_update_keeps_a_value_a_null_would_overwrite() {
        let merge = RecordMerge::new(&schema(&[("merge-engine", "partial-update")])).unwrap();
        let stored = row(1, Some("a"));
        let written = row(1, None);
        let merged = merge
            .merge((&stored, RowKind::Insert), (&written, RowKind::UpdateAfter))
            .unwrap()
            .unwrap();
        assert!(!merged.same(&written, 1));
        assert_eq!(merged.display(1), "'a'");
        assert!(written.is_null(1) && !merged.is_null(1));
    }

    #[test]
    fn deduplicate_takes_the_newer_record_and_a_delete_removes_the_key() {
        let merge = RecordMerge::new(&schema(&[])).unwrap();
        let stored = row(1, Some("a"));
        let written = row(1, Some("b"));
        let merged = merge
            .merge((&stored, RowKind::Insert), (&written, RowKind::UpdateAfter))
            .unwrap()
            .unwrap();
        assert!(merged.same(&written, 1));
        assert_eq!(stored.compare(&written, 1), Ordering::Less);
        let gone = merge
            .merge((&stored, RowKind::Insert), (&stored, RowKind::Delete))
            .unwrap();
        assert!(gone.is_none());
    }
}
