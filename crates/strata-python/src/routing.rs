//! Which writer takes each row of a primary-key table when a write is spread over several
//! writers (`strata.ray.write_strata`): the shuffle Java's sinks do before their writers, so
//! that every key — and every bucket — is written by exactly one writer, which gives its rows
//! increasing sequence numbers in input order.
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

use arrow_array::{Array, RecordBatch, UInt32Array};
use pyo3::prelude::*;
use strata::arrow::{cast_batch_to_schema, datum_at, to_arrow_schema};
use strata::unstable::index::{compute_assigner, DynamicBucketOptions, KeyHasher};
use strata_spec::binary_row::BinaryRow;
use strata_spec::bucket::bucket_of;
use strata_spec::{DataType, Datum};

use crate::errors::{invalid, IntoPy};
use crate::table::Table;

/// How rows are routed, from the table's bucket mode.
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

struct Router {
    partition_idx: Vec<usize>,
    partition_types: Vec<DataType>,
    mode: Mode,
    writers: u32,
}

fn column(t: &strata::table::Table, name: &str) -> strata::Result<usize> {
    t.schema().row_type().index_of(name).ok_or_else(|| {
        strata::Error::InvalidArgument(format!(
            "table {} names column {name} as a key but has no such column",
            t.identifier()
        ))
    })
}

impl Router {
    fn new(t: &strata::table::Table, writers: u32) -> strata::Result<Router> {
        let schema = t.schema();
        let partition_idx = schema
            .partition_keys
            .iter()
            .map(|k| column(t, k))
            .collect::<strata::Result<Vec<_>>>()?;
        let row_type = schema.row_type();
        let buckets = t.options().bucket()?;
        let mode = if buckets > 0 {
            let key_idx = schema
                .bucket_keys()
                .iter()
                .map(|k| column(t, k))
                .collect::<strata::Result<Vec<_>>>()?;
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
                hasher: KeyHasher::new(t)?,
                assigners: DynamicBucketOptions::from_table(t)?.num_assigners,
            }
        } else {
            Mode::One
        };
        Ok(Router {
            partition_idx,
            partition_types: schema.partition_type().types(),
            mode,
            writers,
        })
    }

    fn row_hash(
        &self,
        idx: &[usize],
        types: &[DataType],
        batch: &RecordBatch,
        row: usize,
    ) -> strata::Result<i32> {
        let values = idx
            .iter()
            .map(|i| datum_at(batch.column(*i).as_ref(), row))
            .collect::<strata::Result<Vec<Option<Datum>>>>()?;
        Ok(BinaryRow::from_datums(&values, types)?.hash_code())
    }

    /// The writer of every row of `batch` (already cast to the table's types).
    fn route(&self, batch: &RecordBatch, out: &mut Vec<u32>) -> strata::Result<()> {
        let w = self.writers as i64;
        let key_hashes = match &self.mode {
            Mode::Dynamic { hasher, .. } => Some(hasher.hash_batch(batch)?),
            _ => None,
        };
        for row in 0..batch.num_rows() {
            if let Mode::One = self.mode {
                out.push(0);
                continue;
            }
            let ph = self.row_hash(&self.partition_idx, &self.partition_types, batch, row)?;
            let writer = match &self.mode {
                Mode::Fixed {
                    buckets,
                    key_idx,
                    key_types,
                } => {
                    let b = bucket_of(self.row_hash(key_idx, key_types, batch, row)?, *buckets);
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

/// The writer (``0 .. writers-1``) of every row of `data` for a write of `table` spread over
/// `writers` writers, as a ``pyarrow.UInt32Array``. `table` is the table the writers write
/// (with the dynamic options they use). Rows are cast to the table's types first, as the
/// writers cast them, so a cast the write would refuse fails here, naming the column.
#[pyfunction]
#[pyo3(name = "_write_routes")]
pub(crate) fn write_routes<'py>(
    py: Python<'py>,
    table: PyRef<'py, Table>,
    data: &Bound<'py, PyAny>,
    writers: u32,
) -> PyResult<Bound<'py, PyAny>> {
    if writers == 0 {
        return Err(invalid("writers must be at least 1"));
    }
    let t = table.inner.clone();
    let reader = crate::arrow_io::input_reader(data)?;
    let routes = py
        .detach(move || -> strata::Result<Vec<u32>> {
            let router = Router::new(&t, writers)?;
            let target = to_arrow_schema(&t.schema().row_type())?;
            let name = t.identifier().to_string();
            let mut out = Vec::new();
            for batch in reader {
                let batch = batch.map_err(|e| {
                    strata::Error::InvalidArgument(format!(
                        "reading the input of the write to {name}: {e}"
                    ))
                })?;
                let batch = cast_batch_to_schema(&batch, &target, &name)?;
                router.route(&batch, &mut out)?;
            }
            Ok(out)
        })
        .py_err()?;
    let array = UInt32Array::from(routes);
    let array: std::sync::Arc<dyn Array> = std::sync::Arc::new(array);
    let array = pyo3_arrow::PyArray::from_array_ref(array).into_pyobject(py)?;
    crate::arrow_io::import_pyarrow(py, "routing rows")?
        .getattr("array")?
        .call1((array,))
}
