//! The MAP shared-shredding benchmark (issue 6, `bench/map_shredding.sh`): the generator of
//! `bench.map_t` (`map-gen`) and an in-process full-map read (`map-read`).
//!
//! Table: `id BIGINT NOT NULL, dt STRING, metrics MAP<STRING NOT NULL, DOUBLE>`, partitioned by
//! `dt` (`partitions` days from 2024-01-01, row `id` goes to day `id % partitions`), append table
//! with `bucket = -1`, plus the `--option key=value` table options of the layout under test
//! (`fields.metrics.map.storage-layout`, `...shared-shredding.column-placement-policy`, …).
//!
//! Rows (deterministic for a seed, so every layout gets byte-identical input): `rows` ids
//! `0 .. rows` in `commits` equal commits. Each row's map has 1..=`max_keys` entries (uniform).
//! With probability `usage_fraction` one of them is the key `usage`, at a random position; the
//! others are distinct keys drawn from `keys - 1` keys `k0000 …` with Zipf(`zipf`) popularity,
//! the ranks scrambled over the names (rank r ↦ `k{(r·2741) mod (keys-1)}`) so popularity is not
//! correlated with key-name order. Values: 1% NULL (present key, NULL value); `usage` is
//! exponential with mean 12 (so `usage > 30` holds for e^-2.5 ≈ 8% of the rows having it, ≈ 2.4%
//! of all rows); other keys uniform in [0, 1000). Every value is rounded to 0.01, so the digests
//! below are exact integer sums of hundredths ("cents").
//!
//! `map-gen` generates one commit's batches (not timed), then times `get_table` → write →
//! `prepare_commit` → commit of that commit, and prints one JSON line: the write time, the data
//! files written (count, bytes, from the commit messages) and the expected answers: `entries`,
//! `cents` (sum of all non-NULL values), `usage_rows`, `query_rows` / `query_cents` (rows with
//! `usage > 30` and the sum of those values). `map-read` reads `id, metrics` (plan + read into
//! memory, timed) and prints the same digests computed from what it read.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use arrow::array::{
    Array, ArrayRef, Float64Array, Float64Builder, Int64Array, MapArray, RecordBatch, StringArray,
    StringBuilder, StructArray,
};
use arrow::buffer::OffsetBuffer;
use arrow::datatypes::{DataType, SchemaRef};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Map, Value};
use strata::catalog::Identifier;

use crate::common::{cpu_time, secs, Result, INPUT_BATCH_ROWS};
use crate::scan_gen::partition_values;
use crate::strata_phases::{catalog, create_table, with_options, DATABASE};

pub const TABLE: &str = "map_t";
/// The real key the benchmark query selects.
pub const USAGE_KEY: &str = "usage";
/// The query threshold: `metrics['usage'] > 30`.
pub const THRESHOLD: f64 = 30.0;
/// Multiplier scrambling Zipf ranks over key names (any value coprime with `keys - 1`).
const SCRAMBLE: u64 = 2741;

const SCHEMA_JSON: &str = r#"{
  "fields": [
    {"name": "id", "type": "BIGINT NOT NULL"},
    {"name": "dt", "type": "STRING"},
    {"name": "metrics", "type": "MAP<STRING NOT NULL, DOUBLE>"}
  ],
  "partitionKeys": ["dt"],
  "primaryKeys": [],
  "options": {"bucket": "-1"}
}"#;

/// The shape of the generated data.
#[derive(Clone, Debug)]
pub struct MapGenConfig {
    pub rows: u64,
    pub commits: usize,
    pub partitions: usize,
    /// Distinct keys including `usage`.
    pub keys: u64,
    pub max_keys: usize,
    pub usage_fraction: f64,
    pub zipf: f64,
    pub seed: u64,
    pub options: Vec<String>,
}

/// A Zipf distribution over ranks `0 .. n` (P(r) ∝ 1 / (r+1)^s), sampled by inverse CDF.
struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    fn new(n: u64, s: f64) -> Self {
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = (1..=n.max(1))
            .map(|r| {
                acc += 1.0 / (r as f64).powf(s);
                acc
            })
            .collect();
        for c in &mut cdf {
            *c /= acc;
        }
        Zipf { cdf }
    }

    fn sample(&self, rng: &mut SmallRng) -> usize {
        let u: f64 = rng.random();
        self.cdf.partition_point(|c| *c < u).min(self.cdf.len() - 1)
    }
}

/// Exact digests of a set of rows (generated or read back).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MapDigest {
    pub rows: u64,
    pub null_maps: u64,
    pub entries: u64,
    pub null_values: u64,
    /// Sum of all non-NULL values × 100 (values are multiples of 0.01).
    pub cents: i64,
    pub usage_rows: u64,
    pub query_rows: u64,
    pub query_cents: i64,
}

impl MapDigest {
    fn add_value(&mut self, key: &str, value: Option<f64>) {
        self.entries += 1;
        match value {
            None => self.null_values += 1,
            Some(v) => self.cents += cents(v),
        }
        if key == USAGE_KEY {
            self.usage_rows += 1;
            if let Some(v) = value.filter(|v| *v > THRESHOLD) {
                self.query_rows += 1;
                self.query_cents += cents(v);
            }
        }
    }

    fn add_to(&self, out: &mut Map<String, Value>) {
        out.insert("rows".into(), json!(self.rows));
        out.insert("null_maps".into(), json!(self.null_maps));
        out.insert("entries".into(), json!(self.entries));
        out.insert("null_values".into(), json!(self.null_values));
        out.insert("cents".into(), json!(self.cents));
        out.insert("usage_rows".into(), json!(self.usage_rows));
        out.insert("query_rows".into(), json!(self.query_rows));
        out.insert("query_cents".into(), json!(self.query_cents));
    }

    /// Digest of the `metrics` column of read batches.
    fn of_batches(batches: &[RecordBatch]) -> Result<MapDigest> {
        let mut d = MapDigest::default();
        for b in batches {
            let col = b
                .column_by_name("metrics")
                .ok_or("read result has no column \"metrics\"")?;
            let map = col
                .as_any()
                .downcast_ref::<MapArray>()
                .ok_or_else(|| format!("metrics has type {}, not a MAP", col.data_type()))?;
            let keys = map
                .keys()
                .as_any()
                .downcast_ref::<StringArray>()
                .ok_or("metrics keys are not Utf8")?;
            let values = map
                .values()
                .as_any()
                .downcast_ref::<Float64Array>()
                .ok_or("metrics values are not Float64")?;
            let offsets = map.value_offsets();
            for row in 0..map.len() {
                d.rows += 1;
                if map.is_null(row) {
                    d.null_maps += 1;
                    continue;
                }
                for i in offsets[row] as usize..offsets[row + 1] as usize {
                    let v = (!values.is_null(i)).then(|| values.value(i));
                    d.add_value(keys.value(i), v);
                }
            }
        }
        Ok(d)
    }
}

fn cents(v: f64) -> i64 {
    (v * 100.0).round() as i64
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// The deterministic row generator (one per table write; the same seed gives the same rows).
struct RowGen {
    rng: SmallRng,
    zipf: Zipf,
    names: Vec<String>,
    cfg: MapGenConfig,
    days: Vec<String>,
    next_id: u64,
    digest: MapDigest,
}

impl RowGen {
    fn new(cfg: &MapGenConfig) -> Result<RowGen> {
        if cfg.keys < 2 || cfg.max_keys == 0 || cfg.max_keys as u64 > cfg.keys {
            return Err(format!(
                "need --keys >= 2 and 1 <= --max-keys <= --keys (got {} and {})",
                cfg.keys, cfg.max_keys
            )
            .into());
        }
        let others = cfg.keys - 1;
        if others.checked_rem(SCRAMBLE) == Some(0) {
            return Err(format!("--keys - 1 must not be a multiple of {SCRAMBLE}").into());
        }
        let width = others.saturating_sub(1).to_string().len().max(4);
        let names = (0..others)
            .map(|rank| format!("k{:0width$}", (rank * SCRAMBLE) % others))
            .collect();
        Ok(RowGen {
            rng: SmallRng::seed_from_u64(cfg.seed),
            zipf: Zipf::new(others, cfg.zipf),
            names,
            cfg: cfg.clone(),
            days: partition_values(cfg.partitions.max(1)),
            next_id: 0,
            digest: MapDigest::default(),
        })
    }

    /// The next `n` rows as one batch of `schema` (the table's write schema).
    fn batch(&mut self, n: usize, schema: &SchemaRef) -> Result<RecordBatch> {
        let map_field = schema.field_with_name("metrics")?;
        let DataType::Map(entries_field, sorted) = map_field.data_type() else {
            return Err(
                format!("metrics is written as {}, not a MAP", map_field.data_type()).into(),
            );
        };
        let DataType::Struct(kv_fields) = entries_field.data_type() else {
            return Err("MAP entries are not a struct".into());
        };
        let mut ids = Vec::with_capacity(n);
        let mut dts = Vec::with_capacity(n);
        let mut keys = StringBuilder::with_capacity(n * 11, n * 11 * 5);
        let mut values = Float64Builder::with_capacity(n * 11);
        let mut offsets: Vec<i32> = Vec::with_capacity(n + 1);
        offsets.push(0);
        let mut row_keys: Vec<usize> = Vec::with_capacity(self.cfg.max_keys);
        let mut total: i32 = 0;
        for _ in 0..n {
            let id = self.next_id;
            self.next_id += 1;
            ids.push(id as i64);
            dts.push(self.days[(id % self.days.len() as u64) as usize].as_str());
            let width = self.rng.random_range(1..=self.cfg.max_keys);
            let usage = self.rng.random::<f64>() < self.cfg.usage_fraction;
            let others = width - usize::from(usage);
            row_keys.clear();
            while row_keys.len() < others {
                let r = self.zipf.sample(&mut self.rng);
                if !row_keys.contains(&r) {
                    row_keys.push(r);
                }
            }
            let usage_pos = usage.then(|| self.rng.random_range(0..=others));
            self.digest.rows += 1;
            for pos in 0..width {
                let is_usage = usage_pos == Some(pos);
                let key = if is_usage {
                    USAGE_KEY
                } else {
                    let i = if usage_pos.is_some_and(|u| pos > u) {
                        pos - 1
                    } else {
                        pos
                    };
                    self.names[row_keys[i]].as_str()
                };
                let null = self.rng.random::<f64>() < 0.01;
                let u: f64 = self.rng.random();
                let v = if null {
                    None
                } else if is_usage {
                    Some(round2(-12.0 * (1.0 - u).ln()))
                } else {
                    Some(round2(u * 1000.0))
                };
                keys.append_value(key);
                values.append_option(v);
                self.digest.add_value(key, v);
            }
            total += width as i32;
            offsets.push(total);
        }
        let kv = StructArray::try_new(
            kv_fields.clone(),
            vec![
                Arc::new(keys.finish()) as ArrayRef,
                Arc::new(values.finish()) as ArrayRef,
            ],
            None,
        )?;
        let map = MapArray::try_new(
            entries_field.clone(),
            OffsetBuffer::new(offsets.into()),
            kv,
            None,
            *sorted,
        )?;
        let columns: Vec<ArrayRef> = schema
            .fields()
            .iter()
            .map(|f| -> Result<ArrayRef> {
                match f.name().as_str() {
                    "id" => Ok(Arc::new(Int64Array::from(ids.clone()))),
                    "dt" => Ok(Arc::new(StringArray::from(dts.clone()))),
                    "metrics" => Ok(Arc::new(map.clone())),
                    other => Err(format!("unexpected column {other:?}").into()),
                }
            })
            .collect::<Result<_>>()?;
        Ok(RecordBatch::try_new(schema.clone(), columns)?)
    }
}

/// The `map-gen` phase: creates `bench.<table>` in `wh` and writes the rows in `cfg.commits`
/// commits (only the writes and commits are timed).
pub async fn generate(
    wh: &Path,
    table_name: &str,
    cfg: &MapGenConfig,
) -> Result<Map<String, Value>> {
    if cfg.commits == 0 || cfg.rows < cfg.commits as u64 {
        return Err("need 1 <= --commits <= --rows".into());
    }
    let cat = catalog(wh)?;
    let id = Identifier::new(DATABASE, table_name)?;
    create_table(&cat, &id, &with_options(SCHEMA_JSON, &cfg.options)?).await?;
    let schema = cat
        .get_table(&id)
        .await?
        .new_write()?
        .arrow_schema()
        .clone();

    let mut gen = RowGen::new(cfg)?;
    let mut per_commit = Vec::new();
    let (mut files, mut file_bytes) = (0u64, 0u64);
    let mut last_snapshot = None;
    let cpu0 = cpu_time();
    let mut cpu_gen = std::time::Duration::ZERO;
    for c in 0..cfg.commits {
        // Rows of commit c: an even share, the remainder in the last commit.
        let share = cfg.rows / cfg.commits as u64;
        let n = if c + 1 == cfg.commits {
            cfg.rows - share * (cfg.commits as u64 - 1)
        } else {
            share
        } as usize;
        let g0 = cpu_time();
        let mut batches = Vec::new();
        let mut left = n;
        while left > 0 {
            let k = left.min(INPUT_BATCH_ROWS);
            batches.push(gen.batch(k, &schema)?);
            left -= k;
        }
        cpu_gen += cpu_time().saturating_sub(g0);

        let t0 = Instant::now();
        let table = cat.get_table(&id).await?;
        let mut write = table.new_write()?;
        let result = async {
            for b in &batches {
                write.write(b).await?;
            }
            let messages = write.prepare_commit().await?;
            for m in &messages {
                files += m.new_files.len() as u64;
                file_bytes += m.new_files.iter().map(|f| f.file_size as u64).sum::<u64>();
            }
            table.new_commit()?.commit(messages).await
        }
        .await;
        let snapshot = match result {
            Ok(s) => s,
            Err(e) => {
                write.abort().await;
                return Err(e.into());
            }
        };
        per_commit.push(t0.elapsed());
        if snapshot.is_none() {
            return Err(format!("commit {c} produced no snapshot").into());
        }
        last_snapshot = snapshot;
    }
    let cpu = cpu_time().saturating_sub(cpu0).saturating_sub(cpu_gen);

    let mut out = Map::new();
    out.insert("seconds".into(), json!(secs(per_commit.iter().sum())));
    out.insert(
        "per_commit_s".into(),
        json!(per_commit.iter().map(|d| secs(*d)).collect::<Vec<_>>()),
    );
    out.insert("cpu_s".into(), json!(secs(cpu)));
    out.insert("table".into(), json!(format!("{DATABASE}.{table_name}")));
    out.insert(
        "location".into(),
        json!(cat.get_table(&id).await?.location()),
    );
    out.insert("snapshot_id".into(), json!(last_snapshot));
    out.insert("commits".into(), json!(cfg.commits));
    out.insert("partitions".into(), json!(cfg.partitions));
    out.insert("keys".into(), json!(cfg.keys));
    out.insert("max_keys".into(), json!(cfg.max_keys));
    out.insert("usage_fraction".into(), json!(cfg.usage_fraction));
    out.insert("zipf".into(), json!(cfg.zipf));
    out.insert("seed".into(), json!(cfg.seed));
    out.insert("options".into(), json!(cfg.options));
    out.insert("files".into(), json!(files));
    out.insert("file_bytes".into(), json!(file_bytes));
    gen.digest.add_to(&mut out);
    Ok(out)
}

/// Digest of a read without a `metrics` column: the rows, and the sum of hundredths of the first
/// DOUBLE column (the `metrics['usage']` of the benchmark query) as `query_rows` / `query_cents`.
fn value_digest(batches: &[RecordBatch], out: &mut Map<String, Value>) {
    let mut rows = 0u64;
    let mut cents_sum = 0i64;
    for b in batches {
        rows += b.num_rows() as u64;
        if let Some(v) = b
            .columns()
            .iter()
            .find_map(|c| c.as_any().downcast_ref::<Float64Array>())
        {
            cents_sum += v.iter().flatten().map(cents).sum::<i64>();
        }
    }
    out.insert("rows".into(), json!(rows));
    out.insert("query_rows".into(), json!(rows));
    out.insert("query_cents".into(), json!(cents_sum));
}

/// The `map-read` phase: plan + read `columns` of `bench.<table>` into memory (timed), with
/// the SQL filter `filter` on the scan and the read if given, then the digests of what was read
/// (the [`MapDigest`] when `metrics` is read, else [`value_digest`]).
pub async fn read(
    wh: &Path,
    table_name: &str,
    columns: &[String],
    filter: Option<&str>,
) -> Result<Map<String, Value>> {
    let t_open = Instant::now();
    let cat = catalog(wh)?;
    let table = cat
        .get_table(&Identifier::new(DATABASE, table_name)?)
        .await?;
    let open = t_open.elapsed();
    let predicate = filter.map(strata::expr::parse_sql_predicate).transpose()?;

    let cpu0 = cpu_time();
    let t0 = Instant::now();
    let mut scan = table.new_scan();
    if let Some(p) = &predicate {
        scan = scan.with_filter(p.clone());
    }
    let plan = scan.plan().await?;
    let plan_time = t0.elapsed();
    let files: usize = plan.splits.iter().map(|s| s.files.len()).sum();
    let mut reader = table.new_read().with_projection(columns.to_vec());
    if let Some(p) = predicate {
        reader = reader.with_filter(p);
    }
    let batches = reader.to_batches(plan.splits).await?;
    let elapsed = t0.elapsed();
    let cpu = cpu_time().saturating_sub(cpu0);

    let mut out = Map::new();
    out.insert("seconds".into(), json!(secs(elapsed)));
    out.insert("plan_s".into(), json!(secs(plan_time)));
    out.insert("open_s".into(), json!(secs(open)));
    out.insert("cpu_s".into(), json!(secs(cpu)));
    out.insert("table".into(), json!(format!("{DATABASE}.{table_name}")));
    out.insert("columns".into(), json!(columns));
    out.insert("where".into(), json!(filter));
    out.insert("files".into(), json!(files));
    if columns.iter().any(|c| c == "metrics") {
        MapDigest::of_batches(&batches)?.add_to(&mut out);
    } else {
        value_digest(&batches, &mut out);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::{Field, Fields, Schema};

    fn cfg() -> MapGenConfig {
        MapGenConfig {
            rows: 2_000,
            commits: 1,
            partitions: 4,
            keys: 5_000,
            max_keys: 20,
            usage_fraction: 0.3,
            zipf: 1.1,
            seed: 7,
            options: vec![],
        }
    }

    fn schema() -> SchemaRef {
        let kv = Fields::from(vec![
            Field::new("key", DataType::Utf8, false),
            Field::new("value", DataType::Float64, true),
        ]);
        let entries = Arc::new(Field::new("key_value", DataType::Struct(kv), false));
        Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("dt", DataType::Utf8, true),
            Field::new("metrics", DataType::Map(entries, false), true),
        ]))
    }

    #[test]
    fn deterministic_and_digest_matches_batches() {
        let s = schema();
        let mut a = RowGen::new(&cfg()).unwrap();
        let mut b = RowGen::new(&cfg()).unwrap();
        let ba = vec![a.batch(1_000, &s).unwrap(), a.batch(1_000, &s).unwrap()];
        let bb = vec![b.batch(1_000, &s).unwrap(), b.batch(1_000, &s).unwrap()];
        assert_eq!(ba, bb);
        let d = MapDigest::of_batches(&ba).unwrap();
        assert_eq!(d, a.digest);
        assert_eq!(d.rows, 2_000);
        // ≈ 30% of rows have usage; a minority of those exceed 30.
        assert!((500..700).contains(&d.usage_rows), "{d:?}");
        assert!(d.query_rows > 0 && d.query_rows * 5 < d.usage_rows, "{d:?}");
        // 1..=20 keys per row, no duplicates within a row.
        let map = ba[0].column(2).as_any().downcast_ref::<MapArray>().unwrap();
        for row in 0..map.len() {
            let m = map.value(row);
            let keys = m.column(0).as_any().downcast_ref::<StringArray>().unwrap();
            let mut k: Vec<&str> = keys.iter().flatten().collect();
            assert!((1..=20).contains(&k.len()));
            k.sort_unstable();
            k.dedup();
            assert_eq!(k.len(), keys.len());
        }
    }

    #[test]
    fn zipf_is_skewed() {
        let z = Zipf::new(4_999, 1.1);
        let mut rng = SmallRng::seed_from_u64(1);
        let hits = (0..10_000).filter(|_| z.sample(&mut rng) == 0).count();
        assert!(hits > 800, "{hits}");
    }
}
