//! Which of several parallel writers takes each row of a write ([`WriterChannels`]): the
//! shuffle Java's sinks do before their writers, so that every key — and every bucket — is
//! written by exactly one writer, which gives its rows increasing sequence numbers in input
//! order. A front end that spreads one write over processes (`strata.ray.write_strata`) routes
//! its rows with it.
//!
//! * Fixed buckets (`bucket = N`): the row's bucket (Paimon's Murmur hash of the bucket key,
//!   as the writer computes it), and the writer `(|partitionHash % W| + bucket) % W`: Java's
//!   `ChannelComputer.select(partition, bucket, numChannels)`.
//! * Dynamic buckets (`bucket = -1`): the key's assigner
//!   `(|partitionHash % N| + |keyHash % N|) % N` (Java's `BucketAssigner.computeAssigner`,
//!   `N` = the table's `dynamic-bucket.initial-buckets` as its writers see it), and the writer
//!   `assigner % W`. Assigner `k` opens only buckets `b` with `b % N == k`, so no two writers
//!   add keys to one bucket (one writer per bucket's HASH index file, as Java assumes).
//! * Anything else the writers refuse or handle alone (cross-partition upsert, postponed
//!   buckets): every row goes to writer 0.

use crate::error::ErrorDetail;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use strata_spec::binary_row::BinaryRow;
use strata_spec::bucket::bucket_of;
use strata_spec::{DataType, Datum};

use crate::format::arrow_types::to_arrow_schema;
use crate::format::convert::cast_batch_to_schema;
use crate::format::datum_at;
use crate::index::assigner::{compute_assigner, DynamicBucketOptions};
use crate::index::key_hash::KeyHasher;
use crate::table::Table;
use crate::Result;

/// How rows are routed, from the table's bucket mode.
#[derive(Clone, Debug)]
enum Mode {
    Fixed {
        buckets: i32,
        key_idx: Vec<usize>,
        key_types: Vec<DataType>,
    },
    Dynamic {
        hasher: KeyHasher,
        assigners: i32,
    },
    One,
}

/// Routes the rows of a write of one table over `writers` parallel writers (see the module
/// docs for the rules). Each writer writes the table with the same (dynamic) options as the
/// table given here.
#[derive(Clone, Debug)]
pub struct WriterChannels {
    table_name: String,
    target: SchemaRef,
    partition_idx: Vec<usize>,
    partition_types: Vec<DataType>,
    mode: Mode,
    writers: u32,
}

fn column(t: &Table, name: &str) -> Result<usize> {
    t.schema().row_type().index_of(name).ok_or_else(|| {
        ErrorDetail::InvalidArgument(format!(
            "table {} names column {name} as a key but has no such column",
            t.identifier()
        ))
        .into()
    })
}

impl WriterChannels {
    /// The routing of a write of `table` spread over `writers` writers (at least 1).
    pub fn new(table: &Table, writers: u32) -> Result<WriterChannels> {
        if writers == 0 {
            return Err(
                ErrorDetail::InvalidArgument("writers must be at least 1".to_string()).into(),
            );
        }
        let schema = table.schema();
        let partition_idx = schema
            .partition_keys
            .iter()
            .map(|k| column(table, k))
            .collect::<Result<Vec<_>>>()?;
        let row_type = schema.row_type();
        let buckets = table.options().bucket()?;
        let mode = if buckets > 0 {
            let key_idx = schema
                .bucket_keys()
                .iter()
                .map(|k| column(table, k))
                .collect::<Result<Vec<_>>>()?;
            let key_types = key_idx
                .iter()
                .map(|i| row_type.fields[*i].data_type.clone())
                .collect();
            Mode::Fixed {
                buckets,
                key_idx,
                key_types,
            }
        } else if buckets == -1 && !schema.cross_partition_update() {
            Mode::Dynamic {
                hasher: KeyHasher::new(table)?,
                assigners: DynamicBucketOptions::from_table(table)?.num_assigners,
            }
        } else {
            Mode::One
        };
        Ok(WriterChannels {
            table_name: table.identifier().to_string(),
            target: to_arrow_schema(&row_type)?,
            partition_idx,
            partition_types: schema.partition_type().types(),
            mode,
            writers,
        })
    }

    /// The writer (`0 .. writers`) of every row of `batch`, appended to `out`. The rows are
    /// cast to the table's types first, as the writers cast them, so a cast the write would
    /// refuse fails here, naming the column.
    pub fn route(&self, batch: &RecordBatch, out: &mut Vec<u32>) -> Result<()> {
        let batch = cast_batch_to_schema(batch, &self.target, &self.table_name)?;
        let w = self.writers as i64;
        let key_hashes = match &self.mode {
            Mode::Dynamic { hasher, .. } => Some(hasher.hash_batch(&batch)?),
            _ => None,
        };
        out.reserve(batch.num_rows());
        for row in 0..batch.num_rows() {
            if let Mode::One = self.mode {
                out.push(0);
                continue;
            }
            let ph = row_hash(&self.partition_idx, &self.partition_types, &batch, row)?;
            let writer = match &self.mode {
                Mode::Fixed {
                    buckets,
                    key_idx,
                    key_types,
                } => {
                    let b = bucket_of(row_hash(key_idx, key_types, &batch, row)?, *buckets);
                    ((ph as i64 % w).abs() + b as i64) % w
                }
                Mode::Dynamic { assigners, .. } => {
                    let kh = key_hashes.as_ref().map_or(0, |h| h[row]);
                    compute_assigner(ph, kh, *assigners) as i64 % w
                }
                Mode::One => 0,
            };
            out.push(writer as u32);
        }
        Ok(())
    }
}

/// Paimon's hash of the BinaryRow of the columns `idx` of `row`.
fn row_hash(idx: &[usize], types: &[DataType], batch: &RecordBatch, row: usize) -> Result<i32> {
    let values = idx
        .iter()
        .map(|i| datum_at(batch.column(*i).as_ref(), row))
        .collect::<Result<Vec<Option<Datum>>>>()?;
    Ok(BinaryRow::from_datums(&values, types)?.hash_code())
}
