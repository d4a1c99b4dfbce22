//! Routing rows to (partition, bucket).
//!
//! Rows are grouped by the bytes of their partition columns in Arrow's row format (one hash
//! map pass, no per-row allocations); partition values are converted to a Paimon
//! [`BinaryRow`] once per group. Fixed-bucket tables additionally hash each row's bucket-key
//! BinaryRow with Paimon's Murmur3 (`strata_spec::bucket`), so the same key lands in the same
//! bucket as in Java, pypaimon and paimon-rust.

use std::collections::HashMap;

use arrow::row::{RowConverter, SortField};
use arrow_array::{RecordBatch, UInt32Array};
use arrow_select::take::take_record_batch;
use strata_spec::binary_row::BinaryRow;
use strata_spec::bucket::bucket_of;
use strata_spec::{DataType, Datum};

use crate::format::convert::datum_at;
use crate::table::Table;
use crate::{Error, Result};

/// Bucket mode of an append table.
#[derive(Clone, Debug)]
enum BucketMode {
    /// `bucket = -1`: everything in bucket 0.
    Unaware,
    /// `bucket = N`: Murmur hash of the bucket key.
    Fixed {
        num_buckets: i32,
        key_idx: Vec<usize>,
        key_types: Vec<DataType>,
    },
}

pub(super) struct Router {
    partition_idx: Vec<usize>,
    partition_types: Vec<DataType>,
    mode: BucketMode,
    total_buckets: i32,
}

impl Router {
    pub(super) fn new(table: &Table) -> Result<Self> {
        let schema = table.schema();
        let row_type = schema.row_type();
        let index = |name: &String| {
            row_type.index_of(name).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "table {} names column {name} as a key but has no such column",
                    table.identifier()
                ))
            })
        };
        let partition_idx = schema
            .partition_keys
            .iter()
            .map(index)
            .collect::<Result<Vec<_>>>()?;
        let partition_types = schema.partition_type().types();
        let buckets = table.options().bucket()?;
        let mode = match buckets {
            -1 => BucketMode::Unaware,
            n if n > 0 => {
                let mut keys = schema.bucket_keys();
                if keys.is_empty() {
                    // Append tables without bucket-key hash the whole row.
                    keys = row_type.names();
                }
                let key_idx = keys.iter().map(index).collect::<Result<Vec<_>>>()?;
                let key_types = key_idx
                    .iter()
                    .map(|i| row_type.fields[*i].data_type.clone())
                    .collect();
                BucketMode::Fixed {
                    num_buckets: n,
                    key_idx,
                    key_types,
                }
            }
            other => {
                return Err(Error::Unsupported(format!(
                    "bucket = {other} is not supported for append table {}",
                    table.identifier()
                )))
            }
        };
        Ok(Router {
            partition_idx,
            partition_types,
            mode,
            total_buckets: buckets,
        })
    }

    /// `_TOTAL_BUCKETS` of new entries.
    pub(super) fn total_buckets(&self) -> i32 {
        self.total_buckets
    }

    /// Splits `batch` into (partition, bucket, rows) groups.
    pub(super) fn route(&self, batch: &RecordBatch) -> Result<Vec<(BinaryRow, i32, RecordBatch)>> {
        let n = batch.num_rows();
        if self.partition_idx.is_empty() && matches!(self.mode, BucketMode::Unaware) {
            return Ok(vec![(BinaryRow::empty(), 0, batch.clone())]);
        }
        // Group key per row: partition bytes (Arrow row format) + bucket.
        let partition_rows = if self.partition_idx.is_empty() {
            None
        } else {
            let cols: Vec<_> = self
                .partition_idx
                .iter()
                .map(|i| batch.column(*i).clone())
                .collect();
            let fields = cols
                .iter()
                .map(|c| SortField::new(c.data_type().clone()))
                .collect();
            let conv =
                RowConverter::new(fields).map_err(|e| Error::arrow("partition key encoding", e))?;
            Some(
                conv.convert_columns(&cols)
                    .map_err(|e| Error::arrow("partition key encoding", e))?,
            )
        };
        let buckets: Vec<i32> = match &self.mode {
            BucketMode::Unaware => vec![0; n],
            BucketMode::Fixed { num_buckets: 1, .. } => vec![0; n],
            BucketMode::Fixed {
                num_buckets,
                key_idx,
                key_types,
            } => {
                let mut out = Vec::with_capacity(n);
                let mut values: Vec<Option<Datum>> = Vec::with_capacity(key_idx.len());
                for row in 0..n {
                    values.clear();
                    for i in key_idx {
                        values.push(datum_at(batch.column(*i).as_ref(), row)?);
                    }
                    let key = BinaryRow::from_datums(&values, key_types)?;
                    out.push(bucket_of(key.hash_code(), *num_buckets));
                }
                out
            }
        };
        let mut groups: HashMap<(&[u8], i32), Vec<u32>> = HashMap::new();
        let empty: &[u8] = &[];
        for (row, bucket) in buckets.iter().enumerate() {
            let pkey = partition_rows
                .as_ref()
                .map(|r| r.row(row).data())
                .unwrap_or(empty);
            groups.entry((pkey, *bucket)).or_default().push(row as u32);
        }
        let mut out = Vec::with_capacity(groups.len());
        for ((_, bucket), rows) in groups {
            let first = rows[0] as usize;
            let mut values = Vec::with_capacity(self.partition_idx.len());
            for i in &self.partition_idx {
                values.push(datum_at(batch.column(*i).as_ref(), first)?);
            }
            let partition = BinaryRow::from_datums(&values, &self.partition_types)?;
            let part = if rows.len() == n {
                batch.clone()
            } else {
                take_record_batch(batch, &UInt32Array::from(rows))
                    .map_err(|e| Error::arrow("splitting batch by partition", e))?
            };
            out.push((partition, bucket, part));
        }
        Ok(out)
    }
}
