//! The key hash of dynamic-bucket assignment.
//!
//! Java assigns `assigner.assign(partition, trimmedPrimaryKey.hashCode())`
//! (`HashBucketAssignerOperator`, Spark's `PaimonSparkWriter`), and the writer's index
//! maintainer stores `key.hashCode()` of the same key (`DynamicBucketIndexMaintainer`; a
//! KeyValue key *is* the trimmed primary key). So the hash is Paimon's `BinaryRow.hashCode()`
//! (Murmur3 over the row bytes, `strata_spec::bucket`) of the trimmed primary key — the primary
//! key columns minus the partition columns, in primary-key order, RowKind `+I`. pypaimon 2.1
//! computes the same (`DynamicBucketRowKeyExtractor`, on `bucket_keys` = trimmed primary key).
//! `bucket-key` cannot be set on a dynamic-bucket table (Java and pypaimon reject it).

use arrow_array::RecordBatch;
use strata_spec::binary_row::BinaryRow;
use strata_spec::{DataType, Datum};

use crate::error::ErrorDetail;
use crate::format::datum_at;
use crate::table::Table;
use crate::Result;

/// The dynamic-bucket hash of an already built trimmed-primary-key row.
#[cfg(test)]
pub(crate) fn key_hash(trimmed_primary_key: &BinaryRow) -> i32 {
    trimmed_primary_key.hash_code()
}

/// Computes [`key_hash`] for every row of Arrow batches of one table.
#[derive(Clone, Debug)]
pub struct KeyHasher {
    names: Vec<String>,
    types: Vec<DataType>,
}

impl KeyHasher {
    /// Hasher of `table`'s trimmed primary key. Errors for tables without a primary key, for
    /// a trimmed key that is empty (primary key ⊆ partition keys) and when `bucket-key` is set.
    pub fn new(table: &Table) -> Result<Self> {
        let schema = table.schema();
        if schema.primary_keys.is_empty() {
            return Err(ErrorDetail::InvalidArgument(format!(
                "table {} has no primary key; dynamic-bucket key hashes need one",
                table.identifier()
            ))
            .into());
        }
        if table.options().bucket_key().is_some() {
            return Err(ErrorDetail::InvalidOption {
                key: "bucket-key".into(),
                message: format!(
                    "table {} sets bucket-key, which a dynamic-bucket (bucket = -1) table cannot \
                     have",
                    table.identifier()
                ),
            }
            .into());
        }
        let names = schema.trimmed_primary_keys();
        if names.is_empty() {
            return Err(ErrorDetail::InvalidArgument(format!(
                "table {}: the primary key consists of partition columns only, so the trimmed \
                 primary key is empty",
                table.identifier()
            ))
            .into());
        }
        let row_type = schema.row_type();
        let types = names
            .iter()
            .map(|n| {
                row_type
                    .field(n)
                    .map(|f| f.data_type.clone())
                    .ok_or_else(|| {
                        ErrorDetail::ColumnNotFound {
                            column: n.clone(),
                            table: table.identifier().to_string(),
                            available: row_type.names().join(", "),
                        }
                        .into()
                    })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(KeyHasher { names, types })
    }

    /// Names of the hashed columns (the trimmed primary key, in order).
    #[cfg_attr(not(feature = "unstable"), allow(dead_code))] // strata::unstable only
    pub fn key_columns(&self) -> &[String] {
        &self.names
    }

    /// The trimmed primary key of `row` as a BinaryRow. Columns are found by name in
    /// `batch`'s schema and must already have the table's types (as after
    /// `cast_batch_to_schema`).
    #[cfg_attr(not(feature = "unstable"), allow(dead_code))] // strata::unstable only
    pub fn key_row(&self, batch: &RecordBatch, row: usize) -> Result<BinaryRow> {
        let cols = self.columns(batch)?;
        let values = cols
            .iter()
            .map(|c| datum_at(c.as_ref(), row))
            .collect::<Result<Vec<Option<Datum>>>>()?;
        Ok(BinaryRow::from_datums(&values, &self.types)?)
    }

    /// [`key_hash`] of every row of `batch`, in row order.
    pub fn hash_batch(&self, batch: &RecordBatch) -> Result<Vec<i32>> {
        let cols = self.columns(batch)?;
        let mut out = Vec::with_capacity(batch.num_rows());
        let mut values: Vec<Option<Datum>> = Vec::with_capacity(cols.len());
        for row in 0..batch.num_rows() {
            values.clear();
            for c in &cols {
                values.push(datum_at(c.as_ref(), row)?);
            }
            out.push(BinaryRow::from_datums(&values, &self.types)?.hash_code());
        }
        Ok(out)
    }

    fn columns(&self, batch: &RecordBatch) -> Result<Vec<arrow_array::ArrayRef>> {
        let schema = batch.schema();
        self.names
            .iter()
            .map(|n| {
                schema
                    .index_of(n)
                    .map(|i| batch.column(i).clone())
                    .map_err(|_| {
                        ErrorDetail::ColumnNotFound {
                            column: n.clone(),
                            table: "the input batch".into(),
                            available: schema
                                .fields()
                                .iter()
                                .map(|f| f.name().as_str())
                                .collect::<Vec<_>>()
                                .join(", "),
                        }
                        .into()
                    })
            })
            .collect()
    }
}
