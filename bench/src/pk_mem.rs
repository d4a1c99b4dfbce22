//! The memory test of the primary-key write path: `rows` (20M by default) shuffled distinct
//! keys written into the one bucket of `bench.pk_mem_t` with `write-buffer-size = 64mb`, in one
//! commit, the input generated in-process batch by batch so the only large memory in the process
//! is the writer's.
//!
//! Rows: `id` is a pseudo-random permutation of `0 .. rows` (a Feistel network with
//! cycle-walking, so no id list is ever materialised); the values are drawn per row from
//! `SmallRng::seed_from_u64(42)`: `v_long` uniform in [-2^62, 2^62), `v_double` in [0, 1e6),
//! `v_str` 16 lowercase hex digits of a uniform non-negative i64, `v_int` uniform i32.
//!
//! `mem-write` reports the generator's digest (rows, sum of `v_int`, distinct ids = rows);
//! `mem-read` reads the table back as a stream (merge-on-read, nothing kept but a bitmap of the
//! ids seen) and reports the digest of what it read, which bench/report.py compares.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow::array::{
    Array, ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch, StringBuilder,
};
use arrow::datatypes::{DataType, Field, Schema};
use futures::StreamExt;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Map, Value};
use strata::catalog::Identifier;

use crate::common::{cpu_time, secs, Result, INPUT_BATCH_ROWS};
use crate::strata_phases::{catalog, commit_batches, create_table, DATABASE};

const TABLE: &str = "pk_mem_t";
/// The write buffer of the memory test.
pub const WRITE_BUFFER_SIZE: &str = "64mb";

fn schema_json(write_buffer_size: &str) -> String {
    format!(
        r#"{{
  "fields": [
    {{"name": "id", "type": "BIGINT NOT NULL"}},
    {{"name": "v_long", "type": "BIGINT"}},
    {{"name": "v_double", "type": "DOUBLE"}},
    {{"name": "v_str", "type": "STRING"}},
    {{"name": "v_int", "type": "INT"}}
  ],
  "partitionKeys": [],
  "primaryKeys": ["id"],
  "options": {{"bucket": "1", "write-buffer-size": "{write_buffer_size}"}}
}}"#
    )
}

fn identifier() -> Result<Identifier> {
    Ok(Identifier::new(DATABASE, TABLE)?)
}

/// A bijection of `0 .. n` onto itself that looks random: a 4-round Feistel network over the
/// smallest even number of bits covering `n`, cycle-walking values `>= n` (at most 4× the
/// domain, so a few steps on average).
pub(crate) struct Permutation {
    n: u64,
    half_bits: u32,
    mask: u64,
    keys: [u64; 4],
}

impl Permutation {
    pub(crate) fn new(n: u64, seed: u64) -> Self {
        let bits = (64 - n.max(4).saturating_sub(1).leading_zeros()).max(2);
        let half_bits = bits.div_ceil(2);
        let mut keys = [0u64; 4];
        let mut s = seed;
        for k in &mut keys {
            s = splitmix64(s);
            *k = s;
        }
        Permutation {
            n,
            half_bits,
            mask: (1u64 << half_bits) - 1,
            keys,
        }
    }

    fn round(&self, x: u64) -> u64 {
        let (mut l, mut r) = (x >> self.half_bits, x & self.mask);
        for k in self.keys {
            let f = splitmix64(r ^ k) & self.mask;
            (l, r) = (r, l ^ f);
        }
        (l << self.half_bits) | r
    }

    pub(crate) fn apply(&self, i: u64) -> u64 {
        debug_assert!(i < self.n);
        let mut x = self.round(i);
        while x >= self.n {
            x = self.round(x);
        }
        x
    }
}

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Generates the rows of the memory test batch by batch.
struct Generator {
    perm: Permutation,
    rng: SmallRng,
    next: u64,
    schema: Arc<Schema>,
    sum_v_int: i64,
}

impl Generator {
    fn new(rows: u64) -> Self {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("v_long", DataType::Int64, true),
            Field::new("v_double", DataType::Float64, true),
            Field::new("v_str", DataType::Utf8, true),
            Field::new("v_int", DataType::Int32, true),
        ]));
        Generator {
            perm: Permutation::new(rows, 42),
            rng: SmallRng::seed_from_u64(42),
            next: 0,
            schema,
            sum_v_int: 0,
        }
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        let n = (self.perm.n - self.next).min(INPUT_BATCH_ROWS as u64) as usize;
        if n == 0 {
            return Ok(None);
        }
        let mut id = Vec::with_capacity(n);
        let mut v_long = Vec::with_capacity(n);
        let mut v_double = Vec::with_capacity(n);
        let mut v_str = StringBuilder::with_capacity(n, n * 16);
        let mut v_int = Vec::with_capacity(n);
        let mut hex = String::with_capacity(16);
        for i in self.next..self.next + n as u64 {
            id.push(self.perm.apply(i) as i64);
            v_long.push(self.rng.random_range(-(1i64 << 62)..(1i64 << 62)));
            v_double.push(self.rng.random::<f64>() * 1e6);
            hex.clear();
            write!(hex, "{:016x}", self.rng.random_range(0..i64::MAX))?;
            v_str.append_value(&hex);
            let v: i32 = self.rng.random();
            self.sum_v_int += i64::from(v);
            v_int.push(v);
        }
        self.next += n as u64;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(id)),
            Arc::new(Int64Array::from(v_long)),
            Arc::new(Float64Array::from(v_double)),
            Arc::new(v_str.finish()),
            Arc::new(Int32Array::from(v_int)),
        ];
        Ok(Some(RecordBatch::try_new(self.schema.clone(), columns)?))
    }
}

/// The `mem-write` phase: creates `bench.pk_mem_t` in `wh` and writes `rows` generated rows in
/// one commit. `seconds` excludes the generator's own time (`gen_s`); `wall_s` includes it.
pub async fn write(wh: &Path, rows: u64, write_buffer_size: &str) -> Result<Map<String, Value>> {
    let cat = catalog(wh)?;
    let id = identifier()?;
    create_table(&cat, &id, &schema_json(write_buffer_size)).await?;

    let mut generator = Generator::new(rows);
    let cpu0 = cpu_time();
    let t0 = Instant::now();
    let table = cat.get_table(&id).await?;
    let mut gen_time = Duration::ZERO;
    // A lazy iterator: each batch is generated when the writer asks for it and dropped after
    // it was written, so at most one input batch is alive.
    let mut gen_error = None;
    let batches = std::iter::from_fn(|| {
        let g0 = Instant::now();
        let b = generator.next_batch();
        gen_time += g0.elapsed();
        match b {
            Ok(b) => b,
            Err(e) => {
                gen_error = Some(e);
                None
            }
        }
    });
    let snapshot = commit_batches(&table, batches).await?;
    let wall = t0.elapsed();
    let cpu = cpu_time().saturating_sub(cpu0);
    if let Some(e) = gen_error {
        return Err(e);
    }
    if snapshot.is_none() {
        return Err("the memory test's commit produced no snapshot".into());
    }
    // Not timed: what was written.
    let plan = table.new_scan().plan().await?;
    let files: Vec<_> = plan.splits.iter().flat_map(|s| s.files.iter()).collect();
    let bytes: i64 = files.iter().map(|f| f.file_size).sum();
    let max_level = files.iter().map(|f| f.level).max();

    let mut out = Map::new();
    out.insert("seconds".into(), json!(secs(wall.saturating_sub(gen_time))));
    out.insert("gen_s".into(), json!(secs(gen_time)));
    out.insert("wall_s".into(), json!(secs(wall)));
    out.insert("cpu_s".into(), json!(secs(cpu)));
    out.insert("write_buffer_size".into(), json!(write_buffer_size));
    out.insert("files".into(), json!(files.len()));
    out.insert("bytes".into(), json!(bytes));
    out.insert("max_level".into(), json!(max_level));
    out.insert("rows".into(), json!(rows));
    out.insert("sum_v_int".into(), json!(generator.sum_v_int));
    out.insert("distinct_ids".into(), json!(rows));
    Ok(out)
}

/// The `mem-read` phase: streams `bench.pk_mem_t` back (plan + merge-on-read) and digests it
/// without keeping the rows: row count, sum of `v_int`, distinct ids via a bitmap of `0 .. rows`.
pub async fn read(wh: &Path, rows: u64) -> Result<Map<String, Value>> {
    let cat = catalog(wh)?;
    let table = cat.get_table(&identifier()?).await?;
    let cpu0 = cpu_time();
    let t0 = Instant::now();
    let plan = table.new_scan().plan().await?;
    let files: usize = plan.splits.iter().map(|s| s.files.len()).sum();
    let mut stream = table.new_read().to_stream(plan.splits)?;
    let mut seen = vec![0u64; rows.div_ceil(64) as usize];
    let (mut n, mut sum_v_int, mut distinct, mut out_of_range) = (0usize, 0i64, 0usize, 0usize);
    while let Some(batch) = stream.next().await {
        let batch = batch?;
        n += batch.num_rows();
        let ids = column::<Int64Array>(&batch, "id")?;
        for id in ids.iter().flatten() {
            match u64::try_from(id) {
                Ok(i) if i < rows => {
                    let (w, bit) = ((i / 64) as usize, 1u64 << (i % 64));
                    if seen[w] & bit == 0 {
                        seen[w] |= bit;
                        distinct += 1;
                    }
                }
                _ => out_of_range += 1,
            }
        }
        let v_int = column::<Int32Array>(&batch, "v_int")?;
        sum_v_int += v_int.iter().flatten().map(i64::from).sum::<i64>();
    }
    let elapsed = t0.elapsed();
    let cpu = cpu_time().saturating_sub(cpu0);

    let mut out = Map::new();
    out.insert("seconds".into(), json!(secs(elapsed)));
    out.insert("cpu_s".into(), json!(secs(cpu)));
    out.insert("files".into(), json!(files));
    out.insert("rows".into(), json!(n));
    out.insert("sum_v_int".into(), json!(sum_v_int));
    out.insert("distinct_ids".into(), json!(distinct));
    out.insert("ids_out_of_range".into(), json!(out_of_range));
    Ok(out)
}

fn column<'a, T: 'static>(batch: &'a RecordBatch, name: &str) -> Result<&'a T> {
    let col = batch
        .column_by_name(name)
        .ok_or_else(|| format!("result has no column {name:?}"))?;
    col.as_any()
        .downcast_ref::<T>()
        .ok_or_else(|| format!("column {name:?} has unexpected type {}", col.data_type()).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutation_is_a_bijection() {
        for n in [1u64, 2, 3, 5, 64, 1000, 65_537] {
            let p = Permutation::new(n, 42);
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let x = p.apply(i) as usize;
                assert!(!seen[x], "n={n}: {x} twice");
                seen[x] = true;
            }
        }
    }

    #[test]
    fn generator_is_deterministic_and_complete() {
        let digest = |rows| {
            let mut g = Generator::new(rows);
            let mut ids: Vec<i64> = Vec::new();
            while let Some(b) = g.next_batch().unwrap() {
                ids.extend(column::<Int64Array>(&b, "id").unwrap().values().iter());
            }
            (ids, g.sum_v_int)
        };
        let (a, sa) = digest(100_000);
        let (b, sb) = digest(100_000);
        assert_eq!((&a, sa), (&b, sb));
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100_000).collect::<Vec<i64>>());
        assert_ne!(a[..10], sorted[..10], "ids are shuffled");
    }
}
