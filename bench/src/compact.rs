//! The compaction benchmarks of primary-key tables (`bench/run.sh --workload compact`).
//!
//! * [`compact`] (`compact-full`, `compact-upgrade`): one on-demand compaction of every bucket
//!   (`TableWrite::compact` + `prepare_commit` + commit) of a table written with
//!   `write-only = true`, timed from opening the table to the committed COMPACT snapshot, with
//!   the tasks' [`CompactionMetrics`] summed. Rewrite throughput = `rewritten_input_bytes` ÷
//!   seconds.
//! * [`raw_rewrite`] (`raw-rewrite`): the floor of a rewrite — the same input files (the table's
//!   live data files, listed by strata's scan planning, not timed) read with the arrow-rs
//!   Parquet reader and written back with `ArrowWriter` (zstd level 1, one file, arrow-rs
//!   defaults otherwise), no merge, at most `write_rows` rows written. With 2 threads one thread
//!   decodes while the other encodes (strata overlaps decoding and encoding too).
//! * [`upgrade_write`] (`upgrade-write`): the input of the upgrade-only test — `files` commits
//!   of key-disjoint generated rows, each one level-0 file of about 0.9 × `target-file-size`, so a
//!   full compaction only moves them up a level (metadata only).
//! * [`stream`] (`stream`): the write-amplification test — an initial load of `keys` keys, then
//!   `commits` upsert commits through one long-lived `TableWrite` (compaction on, as a
//!   streaming job), summing the bytes of new level-0 files (ingested) and the compaction
//!   metrics (rewritten = `output_bytes`, upgraded = `upgraded_bytes`).
//!
//! Sizes are bytes of Parquet files on disk; MB = 10^6 bytes.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow::array::{
    Array, ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch, StringBuilder,
};
use arrow::datatypes::{DataType, Field, Schema};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Map, Value};
use strata::table::Table;
use strata::unstable::lsm::compaction_file_size;
use strata::write::CompactionMetrics;
use strata_spec::manifest::DataFileMeta;

use crate::common::{cpu_time, secs, BoxError, Digest, Result, INPUT_BATCH_ROWS, READ_BATCH_ROWS};
use crate::pk_mem::Permutation;
use crate::raw::live_files;
use crate::strata_phases::{catalog, commit_batches, create_table, with_options, TableKind};

const MB: f64 = 1e6;

/// The tasks' metrics summed.
#[derive(Default, Debug)]
struct Totals {
    tasks: usize,
    max_output_level: i32,
    input_files: usize,
    input_bytes: i64,
    upgraded_files: usize,
    upgraded_bytes: i64,
    rewritten_input_files: usize,
    rewritten_input_bytes: i64,
    rewrites: usize,
    output_files: usize,
    output_bytes: i64,
    input_rows: i64,
    output_rows: i64,
    task_time: Duration,
}

impl Totals {
    fn add(&mut self, m: &CompactionMetrics) {
        let t = &m.task;
        self.tasks += 1;
        self.max_output_level = self.max_output_level.max(t.output_level);
        self.input_files += t.input_files;
        self.input_bytes += t.input_bytes;
        self.upgraded_files += t.upgraded_files;
        self.upgraded_bytes += t.upgraded_bytes;
        self.rewritten_input_files += t.rewritten_input_files;
        self.rewritten_input_bytes += t.rewritten_input_bytes;
        self.rewrites += t.rewrites;
        self.output_files += t.output_files;
        self.output_bytes += t.output_bytes;
        self.input_rows += t.input_rows;
        self.output_rows += t.output_rows;
        self.task_time += t.duration;
    }

    fn insert_into(&self, out: &mut Map<String, Value>) {
        for (k, v) in [
            ("tasks", json!(self.tasks)),
            ("max_output_level", json!(self.max_output_level)),
            ("input_files", json!(self.input_files)),
            ("input_bytes", json!(self.input_bytes)),
            ("upgraded_files", json!(self.upgraded_files)),
            ("upgraded_bytes", json!(self.upgraded_bytes)),
            ("rewritten_input_files", json!(self.rewritten_input_files)),
            ("rewritten_input_bytes", json!(self.rewritten_input_bytes)),
            ("rewrites", json!(self.rewrites)),
            ("output_files", json!(self.output_files)),
            ("output_bytes", json!(self.output_bytes)),
            ("input_rows", json!(self.input_rows)),
            ("output_rows", json!(self.output_rows)),
            ("task_s", json!(secs(self.task_time))),
        ] {
            out.insert(k.into(), v);
        }
    }
}

/// The live data files of the table's latest snapshot.
async fn live(table: &Table) -> Result<Vec<DataFileMeta>> {
    Ok(live_by_bucket(table)
        .await?
        .into_values()
        .flatten()
        .collect())
}

/// The live data files of the table's latest snapshot per (partition, bucket).
async fn live_by_bucket(table: &Table) -> Result<BTreeMap<(Vec<u8>, i32), Vec<DataFileMeta>>> {
    let plan = table.new_scan().plan().await?;
    let mut out: BTreeMap<(Vec<u8>, i32), Vec<DataFileMeta>> = BTreeMap::new();
    for s in plan.splits {
        out.entry((s.partition.as_bytes().to_vec(), s.bucket))
            .or_default()
            .extend(s.files);
    }
    Ok(out)
}

/// `{"<level>": {"files": n, "bytes": b}}` of some files.
fn levels_json(files: &[DataFileMeta]) -> Value {
    let mut by_level: BTreeMap<i32, (usize, i64)> = BTreeMap::new();
    for f in files {
        let e = by_level.entry(f.level).or_default();
        e.0 += 1;
        e.1 += f.file_size;
    }
    let mut out = Map::new();
    for (level, (n, bytes)) in by_level {
        out.insert(level.to_string(), json!({"files": n, "bytes": bytes}));
    }
    Value::Object(out)
}

/// Sorted runs of one bucket's files: every level-0 file, plus one per non-empty higher level.
fn sorted_runs(files: &[DataFileMeta]) -> usize {
    let level0 = files.iter().filter(|f| f.level == 0).count();
    let higher: std::collections::BTreeSet<i32> =
        files.iter().map(|f| f.level).filter(|l| *l > 0).collect();
    level0 + higher.len()
}

fn mb(bytes: i64) -> f64 {
    (bytes as f64 / MB * 1000.0).round() / 1000.0
}

/// The `compact-full` / `compact-upgrade` phase: a full compaction of every bucket of
/// `bench.<kind>` in `wh`, committed. Timed from opening the table to the committed snapshot.
pub async fn compact(wh: &Path, kind: TableKind, full: bool) -> Result<Map<String, Value>> {
    let cat = catalog(wh)?;
    let id = kind.identifier()?;
    let before = live(&cat.get_table(&id).await?).await?; // not timed

    let cpu0 = cpu_time();
    let t0 = Instant::now();
    let table = cat.get_table(&id).await?;
    let mut write = table.new_write()?;
    let result = async {
        let buckets = write.compact(&|_, _| true, full).await?;
        let t_compact = t0.elapsed();
        let messages = write.prepare_commit().await?;
        let t_prepare = t0.elapsed();
        let committed = table.new_commit()?.commit_messages(messages, None).await?;
        Ok::<_, BoxError>((buckets, t_compact, t_prepare, committed))
    }
    .await;
    let (buckets, t_compact, t_prepare, committed) = match result {
        Ok(r) => r,
        Err(e) => {
            write.abort().await;
            return Err(e);
        }
    };
    let elapsed = t0.elapsed();
    let cpu = cpu_time().saturating_sub(cpu0);
    if let Some(e) = committed.compact_error {
        return Err(format!("the COMPACT snapshot did not land: {e}").into());
    }
    let mut totals = Totals::default();
    for m in write.take_compaction_metrics() {
        totals.add(&m);
    }
    let after = live(&cat.get_table(&id).await?).await?; // not timed

    let mut out = Map::new();
    out.insert("seconds".into(), json!(secs(elapsed)));
    out.insert("compact_call_s".into(), json!(secs(t_compact)));
    out.insert(
        "prepare_commit_s".into(),
        json!(secs(t_prepare.saturating_sub(t_compact))),
    );
    out.insert(
        "commit_s".into(),
        json!(secs(elapsed.saturating_sub(t_prepare))),
    );
    out.insert("cpu_s".into(), json!(secs(cpu)));
    out.insert("full".into(), json!(full));
    out.insert("buckets".into(), json!(buckets));
    out.insert("snapshot".into(), json!(committed.compact));
    totals.insert_into(&mut out);
    out.insert(
        "rewritten_input_mb".into(),
        json!(mb(totals.rewritten_input_bytes)),
    );
    out.insert(
        "rewrite_mb_per_s".into(),
        json!(totals.rewritten_input_bytes as f64 / MB / elapsed.as_secs_f64()),
    );
    out.insert(
        "upgrade_only".into(),
        json!(totals.upgraded_files > 0 && totals.output_bytes == 0 && totals.rewrites == 0),
    );
    out.insert("rows".into(), json!(totals.output_rows));
    out.insert("levels_before".into(), levels_json(&before));
    out.insert("levels_after".into(), levels_json(&after));
    out.insert("table".into(), json!(kind.table_name()));
    Ok(out)
}

/// Writes batches to one Parquet file (created at the first batch), at most `limit` rows.
struct Sink {
    path: PathBuf,
    props: WriterProperties,
    writer: Option<ArrowWriter<File>>,
    limit: u64,
    rows_read: u64,
    rows_written: u64,
}

impl Sink {
    fn new(path: PathBuf, limit: u64) -> Result<Sink> {
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(1)?))
            .build();
        Ok(Sink {
            path,
            props,
            writer: None,
            limit,
            rows_read: 0,
            rows_written: 0,
        })
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.rows_read += batch.num_rows() as u64;
        let take = (self.limit - self.rows_written).min(batch.num_rows() as u64) as usize;
        if take == 0 {
            return Ok(());
        }
        if self.writer.is_none() {
            let file = File::create(&self.path)
                .map_err(|e| format!("creating {}: {e}", self.path.display()))?;
            self.writer = Some(ArrowWriter::try_new(
                file,
                batch.schema(),
                Some(self.props.clone()),
            )?);
        }
        let w = self.writer.as_mut().expect("created just above");
        w.write(&batch.slice(0, take))?;
        self.rows_written += take as u64;
        Ok(())
    }

    fn close(self) -> Result<(u64, u64)> {
        if let Some(w) = self.writer {
            w.close()?;
        }
        Ok((self.rows_read, self.rows_written))
    }
}

fn open_reader(path: &Path) -> Result<parquet::arrow::arrow_reader::ParquetRecordBatchReader> {
    let file = File::open(path).map_err(|e| format!("opening {}: {e}", path.display()))?;
    Ok(ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .with_batch_size(READ_BATCH_ROWS)
        .build()?)
}

/// The `raw-rewrite` phase: the floor of rewriting the live data files of `bench.<kind>` in
/// `wh` (see the module docs). `threads` 1: decode and encode alternate on one thread; 2: a
/// decoding thread feeds the encoding one.
pub fn raw_rewrite(
    wh: &Path,
    kind: TableKind,
    out_dir: &Path,
    write_rows: Option<u64>,
    threads: usize,
) -> Result<Map<String, Value>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let files = rt.block_on(live_files(wh, kind))?;
    drop(rt);
    let mut input_bytes = 0u64;
    for f in &files {
        input_bytes += std::fs::metadata(f)
            .map_err(|e| format!("{}: {e}", f.display()))?
            .len();
    }
    if out_dir.exists() {
        std::fs::remove_dir_all(out_dir)
            .map_err(|e| format!("clearing {}: {e}", out_dir.display()))?;
    }
    std::fs::create_dir_all(out_dir).map_err(|e| format!("creating {}: {e}", out_dir.display()))?;
    let out_path = out_dir.join("rewrite.parquet");
    let sink = Sink::new(out_path.clone(), write_rows.unwrap_or(u64::MAX))?;

    let cpu0 = cpu_time();
    let t0 = Instant::now();
    let (rows_read, rows_written) = if threads <= 1 {
        let mut sink = sink;
        for f in &files {
            for batch in open_reader(f)? {
                sink.write(&batch?)?;
            }
        }
        sink.close()?
    } else {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<RecordBatch>>(4);
        std::thread::scope(|s| -> Result<(u64, u64)> {
            let files = &files;
            s.spawn(move || {
                for f in files {
                    let reader = match open_reader(f) {
                        Ok(r) => r,
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    };
                    for batch in reader {
                        if tx.send(batch.map_err(BoxError::from)).is_err() {
                            return; // the writer failed
                        }
                    }
                }
            });
            let mut sink = sink;
            for batch in rx {
                sink.write(&batch?)?;
            }
            sink.close()
        })?
    };
    let elapsed = t0.elapsed();
    let cpu = cpu_time().saturating_sub(cpu0);
    let output_bytes = std::fs::metadata(&out_path).map(|m| m.len()).unwrap_or(0);

    let mut out = Map::new();
    out.insert("seconds".into(), json!(secs(elapsed)));
    out.insert("cpu_s".into(), json!(secs(cpu)));
    out.insert("threads".into(), json!(threads));
    out.insert("files".into(), json!(files.len()));
    out.insert("input_bytes".into(), json!(input_bytes));
    out.insert("input_mb".into(), json!(mb(input_bytes as i64)));
    out.insert(
        "rewrite_mb_per_s".into(),
        json!(input_bytes as f64 / MB / elapsed.as_secs_f64()),
    );
    out.insert("input_rows".into(), json!(rows_read));
    out.insert("rows".into(), json!(rows_written));
    out.insert("output_bytes".into(), json!(output_bytes));
    out.insert("table".into(), json!(kind.table_name()));
    Ok(out)
}

/// Generates the value columns of the workload schema for given ids (the same distributions
/// as the memory test: `v_long` uniform in [-2^62, 2^62), `v_double` in [0, 1e6), `v_str` 16
/// hex digits, `v_int` uniform i32).
struct Values {
    rng: SmallRng,
    schema: Arc<Schema>,
}

impl Values {
    fn new(seed: u64) -> Self {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("v_long", DataType::Int64, true),
            Field::new("v_double", DataType::Float64, true),
            Field::new("v_str", DataType::Utf8, true),
            Field::new("v_int", DataType::Int32, true),
        ]));
        Values {
            rng: SmallRng::seed_from_u64(seed),
            schema,
        }
    }

    fn batch(&mut self, ids: Vec<i64>) -> Result<RecordBatch> {
        let n = ids.len();
        let mut v_long = Vec::with_capacity(n);
        let mut v_double = Vec::with_capacity(n);
        let mut v_str = StringBuilder::with_capacity(n, n * 16);
        let mut v_int = Vec::with_capacity(n);
        let mut hex = String::with_capacity(16);
        for _ in 0..n {
            v_long.push(self.rng.random_range(-(1i64 << 62)..(1i64 << 62)));
            v_double.push(self.rng.random::<f64>() * 1e6);
            hex.clear();
            write!(hex, "{:016x}", self.rng.random_range(0..i64::MAX))?;
            v_str.append_value(&hex);
            v_int.push(self.rng.random::<i32>());
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(ids)),
            Arc::new(Int64Array::from(v_long)),
            Arc::new(Float64Array::from(v_double)),
            Arc::new(v_str.finish()),
            Arc::new(Int32Array::from(v_int)),
        ];
        Ok(RecordBatch::try_new(self.schema.clone(), columns)?)
    }
}

/// On-disk size of a key-value file of generated rows ≈ `FILE_BYTES + rows × BYTES_PER_ROW`
/// (measured with one-file commits of 200k .. 1.6M rows: 8.56 .. 56.6 MB), used to size the
/// upgrade test's files.
const BYTES_PER_ROW: f64 = 35.0;
const FILE_BYTES: f64 = 1.6e6;
/// The upgrade test aims its files at this fraction of `target-file-size`: above the
/// small-file threshold (0.7) so they are upgraded, below 1 so each commit is one file.
const FILL: f64 = 0.9;

/// The `upgrade-write` phase: `bench.pk_t` in `wh` with `write-only = true` and
/// `target-file-size = <file_mb>mb`, written as `files` commits of key-disjoint ids (commit k:
/// ids `[k·n, (k+1)·n)`, shuffled), each meant to be one level-0 file of about
/// `FILL × target-file-size` (above the small-file threshold, 0.7 × target). Input generation is excluded from `seconds`.
pub async fn upgrade_write(
    wh: &Path,
    files: u64,
    file_mb: u64,
    rows_per_file: Option<u64>,
) -> Result<Map<String, Value>> {
    let target = format!("{file_mb}mb");
    let options = vec![
        "write-only=true".to_string(),
        format!("target-file-size={target}"),
    ];
    let kind = TableKind::Pk;
    let cat = catalog(wh)?;
    let id = kind.identifier()?;
    create_table(&cat, &id, &with_options(kind.schema_json(), &options)?).await?;
    let rows_per_file = rows_per_file
        .unwrap_or(
            ((file_mb as f64 * 1024.0 * 1024.0 * FILL - FILE_BYTES) / BYTES_PER_ROW).max(1.0)
                as u64,
        )
        .max(1);

    let mut values = Values::new(7);
    let cpu0 = cpu_time();
    let t0 = Instant::now();
    let mut gen_time = Duration::ZERO;
    let table = cat.get_table(&id).await?;
    for k in 0..files {
        let perm = Permutation::new(rows_per_file, 42 + k);
        let offset = k * rows_per_file;
        let mut next = 0u64;
        let mut gen_error = None;
        let batches = std::iter::from_fn(|| {
            let n = (rows_per_file - next).min(INPUT_BATCH_ROWS as u64);
            if n == 0 {
                return None;
            }
            let g0 = Instant::now();
            let ids: Vec<i64> = (next..next + n)
                .map(|i| (offset + perm.apply(i)) as i64)
                .collect();
            next += n;
            let b = values.batch(ids);
            gen_time += g0.elapsed();
            match b {
                Ok(b) => Some(b),
                Err(e) => {
                    gen_error = Some(e);
                    None
                }
            }
        });
        let snapshot = commit_batches(&table, batches).await?;
        if let Some(e) = gen_error {
            return Err(e);
        }
        if snapshot.is_none() {
            return Err(format!("upgrade-write commit {k} produced no snapshot").into());
        }
    }
    let wall = t0.elapsed();
    let cpu = cpu_time().saturating_sub(cpu0);

    let written = live(&table).await?; // not timed
                                       // The size from which compaction upgrades a file instead of rewriting it.
    let threshold = compaction_file_size(table.options(), true)? as f64;
    let bytes: i64 = written.iter().map(|f| f.file_size).sum();
    let min_file = written.iter().map(|f| f.file_size).min().unwrap_or(0);
    let max_file = written.iter().map(|f| f.file_size).max().unwrap_or(0);
    let all_upgradable = written.len() as u64 == files
        && written
            .iter()
            .all(|f| f.level == 0 && f.file_size as f64 >= threshold);

    let mut out = Map::new();
    out.insert("seconds".into(), json!(secs(wall.saturating_sub(gen_time))));
    out.insert("gen_s".into(), json!(secs(gen_time)));
    out.insert("cpu_s".into(), json!(secs(cpu)));
    out.insert("rows".into(), json!(rows_per_file * files));
    out.insert("commits".into(), json!(files));
    out.insert("target_file_size".into(), json!(target));
    out.insert("files".into(), json!(written.len()));
    out.insert("bytes".into(), json!(bytes));
    out.insert("min_file_bytes".into(), json!(min_file));
    out.insert("max_file_bytes".into(), json!(max_file));
    out.insert("small_file_threshold_bytes".into(), json!(threshold as i64));
    out.insert("all_upgradable".into(), json!(all_upgradable));
    out.insert("levels".into(), levels_json(&written));
    Ok(out)
}

/// Where the hot keys of the write-amplification workload are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum KeyLayout {
    /// Zipf ranks mapped onto the preloaded ids by a fixed pseudo-random permutation (YCSB's
    /// "scrambled zipfian"): hot keys all over the key range.
    Scattered,
    /// Rank r is the r-th newest id: recently inserted keys are the hot ones (time-ordered
    /// ids, e.g. orders being updated shortly after they were created).
    Recent,
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

    fn sample(&self, rng: &mut SmallRng) -> u64 {
        let u: f64 = rng.random();
        (self.cdf.partition_point(|c| *c < u) as u64).min(self.cdf.len() as u64 - 1)
    }
}

/// The write-amplification workload.
#[derive(Clone, Debug)]
pub struct StreamConfig {
    pub commits: usize,
    pub rows_per_commit: usize,
    pub keys: u64,
    /// The updates' Zipf ranks run over this many keys (at most `keys`).
    pub hot_keys: u64,
    pub new_fraction: f64,
    pub zipf: f64,
    pub layout: KeyLayout,
    pub buckets: i32,
    pub target_file_size: String,
    pub options: Vec<String>,
}

/// One task on stderr (run.sh keeps stderr in its log).
fn log_task(when: &str, m: &CompactionMetrics) {
    let t = &m.task;
    eprintln!(
        "{when}: bucket {} -> L{}: {} files {} B in; upgraded {} files {} B; rewrote {} files {} B \
         in {} rewrites -> {} files {} B; {} ms",
        m.bucket,
        t.output_level,
        t.input_files,
        t.input_bytes,
        t.upgraded_files,
        t.upgraded_bytes,
        t.rewritten_input_files,
        t.rewritten_input_bytes,
        t.rewrites,
        t.output_files,
        t.output_bytes,
        t.duration.as_millis()
    );
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

/// The `stream` phase (see the module docs): creates `bench.pk_t` in `wh` with `bucket`,
/// `target-file-size` and `options`, loads ids `0 .. keys` in one commit, then runs the upsert
/// commits: each `rows_per_commit` rows, `new_fraction` of them new ids (the next unused ones),
/// the rest updates whose ids are Zipf(`zipf`) ranks over `keys` placed by `layout`. One
/// `TableWrite` serves every commit, like a streaming job. `seconds` covers the upsert commits
/// (write + prepare-commit with its compaction + commit), not the load or input generation.
/// The table is read back at the end (not timed) and must hold the last value of every id.
pub async fn stream(wh: &Path, cfg: &StreamConfig) -> Result<Map<String, Value>> {
    let kind = TableKind::Pk;
    let mut options = vec![
        format!("bucket={}", cfg.buckets),
        format!("target-file-size={}", cfg.target_file_size),
    ];
    options.extend(cfg.options.iter().cloned());
    let cat = catalog(wh)?;
    let id = kind.identifier()?;
    create_table(&cat, &id, &with_options(kind.schema_json(), &options)?).await?;
    let table = cat.get_table(&id).await?;

    let n_new =
        ((cfg.rows_per_commit as f64 * cfg.new_fraction).round() as usize).min(cfg.rows_per_commit);
    let max_ids = cfg.keys as usize + n_new * cfg.commits;
    // The last v_int written per id (what the read-back must find).
    let mut last: Vec<Option<i32>> = vec![None; max_ids];
    let mut values = Values::new(11);
    let mut rng = SmallRng::seed_from_u64(13);
    let hot_keys = cfg.hot_keys.clamp(1, cfg.keys.max(1));
    let zipf = Zipf::new(hot_keys, cfg.zipf);
    let scatter = Permutation::new(cfg.keys.max(1), 17);
    let mut next_id = cfg.keys;
    let mut gen_time = Duration::ZERO;

    let remember = |last: &mut Vec<Option<i32>>, b: &RecordBatch| {
        let ids = b.column(0).as_any().downcast_ref::<Int64Array>();
        let v = b.column(4).as_any().downcast_ref::<Int32Array>();
        if let (Some(ids), Some(v)) = (ids, v) {
            for i in 0..b.num_rows() {
                last[ids.value(i) as usize] = (!v.is_null(i)).then(|| v.value(i));
            }
        }
    };

    let mut write = table.new_write()?;
    let mut ingested_load = 0i64;
    let mut ingested = 0i64;
    let mut totals = Totals::default();
    let mut latencies = Vec::with_capacity(cfg.commits);
    let cpu0 = cpu_time();
    let result = async {
        // The initial load: ids 0 .. keys, shuffled, one commit.
        let t_load = Instant::now();
        let load_perm = Permutation::new(cfg.keys.max(1), 19);
        let mut start = 0u64;
        while start < cfg.keys {
            let n = (cfg.keys - start).min(INPUT_BATCH_ROWS as u64);
            let g0 = Instant::now();
            let ids: Vec<i64> = (start..start + n)
                .map(|i| load_perm.apply(i) as i64)
                .collect();
            let b = values.batch(ids)?;
            remember(&mut last, &b);
            gen_time += g0.elapsed();
            write.write(&b).await?;
            start += n;
        }
        let messages = write.prepare_commit().await?;
        ingested_load += messages
            .iter()
            .flat_map(|m| m.new_files.iter())
            .map(|f| f.file_size)
            .sum::<i64>();
        for m in write.take_compaction_metrics() {
            log_task("load", &m);
            totals.add(&m);
        }
        table.new_commit()?.commit(messages).await?;
        let load_time = t_load.elapsed();

        for c in 0..cfg.commits {
            let g0 = Instant::now();
            let mut ids = Vec::with_capacity(cfg.rows_per_commit);
            for _ in 0..cfg.rows_per_commit - n_new {
                let rank = zipf.sample(&mut rng);
                let id = match cfg.layout {
                    KeyLayout::Scattered => scatter.apply(rank),
                    KeyLayout::Recent => next_id - 1 - rank,
                };
                ids.push(id as i64);
            }
            for _ in 0..n_new {
                ids.push(next_id as i64);
                next_id += 1;
            }
            // New ids arrive interleaved with the updates.
            for i in (1..ids.len()).rev() {
                let j = rng.random_range(0..=i);
                ids.swap(i, j);
            }
            let b = values.batch(ids)?;
            remember(&mut last, &b);
            gen_time += g0.elapsed();

            let t0 = Instant::now();
            write.write(&b).await?;
            let messages = write.prepare_commit().await?;
            ingested += messages
                .iter()
                .flat_map(|m| m.new_files.iter())
                .map(|f| f.file_size)
                .sum::<i64>();
            for m in write.take_compaction_metrics() {
                log_task(&format!("commit {c}"), &m);
                totals.add(&m);
            }
            let committed = table.new_commit()?.commit_messages(messages, None).await?;
            if let Some(e) = committed.compact_error {
                return Err(format!("commit {c}: the COMPACT snapshot did not land: {e}").into());
            }
            latencies.push(t0.elapsed());
        }
        Ok::<_, BoxError>(load_time)
    }
    .await;
    let load_time = match result {
        Ok(t) => t,
        Err(e) => {
            write.abort().await;
            return Err(e);
        }
    };
    let cpu = cpu_time().saturating_sub(cpu0);
    drop(write);

    // Not timed: the final state and the read-back check.
    let by_bucket = live_by_bucket(&table).await?;
    let max_runs = by_bucket
        .values()
        .map(|f| sorted_runs(f))
        .max()
        .unwrap_or(0);
    let files: Vec<DataFileMeta> = by_bucket.into_values().flatten().collect();
    let t_read = Instant::now();
    let plan = table.new_scan().plan().await?;
    let batches = table.new_read().to_batches(plan.splits).await?;
    let read_time = t_read.elapsed();
    let digest = Digest::of(&batches)?;
    let expected_rows = last.iter().filter(|v| v.is_some()).count();
    let expected_sum: i64 = last.iter().flatten().map(|v| i64::from(*v)).sum();

    let total: Duration = latencies.iter().sum();
    let mut sorted = latencies.clone();
    sorted.sort();
    let all_ingested = ingested_load + ingested;
    let mut out = Map::new();
    out.insert("seconds".into(), json!(secs(total)));
    out.insert("load_s".into(), json!(secs(load_time)));
    out.insert("gen_s".into(), json!(secs(gen_time)));
    out.insert("cpu_s".into(), json!(secs(cpu)));
    out.insert("commit_p50_s".into(), json!(secs(percentile(&sorted, 0.5))));
    out.insert(
        "commit_p95_s".into(),
        json!(secs(percentile(&sorted, 0.95))),
    );
    out.insert(
        "commit_max_s".into(),
        json!(secs(sorted.last().copied().unwrap_or_default())),
    );
    out.insert("commits".into(), json!(cfg.commits));
    out.insert("rows_per_commit".into(), json!(cfg.rows_per_commit));
    out.insert("new_rows_per_commit".into(), json!(n_new));
    out.insert("keys".into(), json!(cfg.keys));
    out.insert("hot_keys".into(), json!(hot_keys));
    out.insert("zipf".into(), json!(cfg.zipf));
    out.insert(
        "layout".into(),
        json!(format!("{:?}", cfg.layout).to_lowercase()),
    );
    out.insert("options".into(), json!(options));
    out.insert("load_bytes".into(), json!(ingested_load));
    out.insert("stream_ingested_bytes".into(), json!(ingested));
    out.insert("ingested_bytes".into(), json!(all_ingested));
    out.insert("rewritten_bytes".into(), json!(totals.output_bytes));
    out.insert(
        "write_amplification".into(),
        json!((all_ingested + totals.output_bytes) as f64 / all_ingested.max(1) as f64),
    );
    totals.insert_into(&mut out);
    out.insert("live_files".into(), json!(files.len()));
    out.insert(
        "live_bytes".into(),
        json!(files.iter().map(|f| f.file_size).sum::<i64>()),
    );
    out.insert("max_sorted_runs_per_bucket".into(), json!(max_runs));
    out.insert("levels".into(), levels_json(&files));
    out.insert("read_s".into(), json!(secs(read_time)));
    digest.add_to(&mut out);
    out.insert("expected_rows".into(), json!(expected_rows));
    out.insert("expected_sum_v_int".into(), json!(expected_sum));
    out.insert(
        "check".into(),
        json!(
            digest.rows == expected_rows
                && digest.distinct_ids == expected_rows
                && digest.sum_v_int == expected_sum
        ),
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zipf_ranks_are_in_range_and_skewed() {
        let z = Zipf::new(1000, 0.99);
        let mut rng = SmallRng::seed_from_u64(1);
        let mut counts = vec![0usize; 1000];
        for _ in 0..100_000 {
            counts[z.sample(&mut rng) as usize] += 1;
        }
        // P(rank 0) = 1 / H(1000, 0.99) ≈ 0.13; the top 10 ranks hold ≈ 38%.
        assert!(counts[0] > 11_000 && counts[0] < 16_000, "{}", counts[0]);
        assert!(counts[0] > 5 * counts[9]);
        assert!(counts[999] < 100);
    }

    #[test]
    fn table_options_are_added() {
        let json = with_options(
            crate::strata_phases::TableKind::Pk.schema_json(),
            &["write-only=true".into(), "bucket = 4".into()],
        )
        .unwrap();
        let v: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["options"]["write-only"], "true");
        assert_eq!(v["options"]["bucket"], "4");
        assert_eq!(v["primaryKeys"][0], "id");
        assert!(with_options("{\"options\":{}}", &["nope".into()]).is_err());
    }
}
