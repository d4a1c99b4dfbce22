//! What every phase shares: loading the generated commit files, the result digest that lets
//! `bench/report.py` check engines against each other, process measurements (peak RSS, CPU
//! time) and the one-line JSON report.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

use arrow::array::{Array, Int32Array, Int64Array};
use arrow::record_batch::RecordBatch;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{json, Map, Value};

/// Errors of the harness: anything goes, the message is what matters.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;
pub type Result<T> = std::result::Result<T, BoxError>;

/// Rows per input batch handed to a writer (what pypaimon-rust is given, too).
pub const INPUT_BATCH_ROWS: usize = 65_536;
/// Rows per output batch of every reader (strata's default read batch size).
pub const READ_BATCH_ROWS: usize = 8_192;

/// The commit files listed in `<data>/expected.json`, in commit order.
pub fn commit_files(data: &Path) -> Result<Vec<PathBuf>> {
    let path = data.join("expected.json");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "reading {}: {e} (run bench/gen_data.py first)",
            path.display()
        )
    })?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let files = v["files"]
        .as_array()
        .ok_or_else(|| format!("{}: no \"files\" array", path.display()))?;
    files
        .iter()
        .map(|f| {
            f.as_str()
                .map(|name| data.join(name))
                .ok_or_else(|| format!("{}: non-string entry in \"files\"", path.display()).into())
        })
        .collect()
}

/// Loads every commit file into memory as `INPUT_BATCH_ROWS`-row batches (one Vec per commit).
pub fn load_commits(data: &Path) -> Result<Vec<Vec<RecordBatch>>> {
    commit_files(data)?
        .iter()
        .map(|path| read_parquet_file(path, INPUT_BATCH_ROWS))
        .collect()
}

/// Reads one Parquet file fully with the arrow-rs reader.
pub fn read_parquet_file(path: &Path, batch_rows: usize) -> Result<Vec<RecordBatch>> {
    let file = File::open(path).map_err(|e| format!("opening {}: {e}", path.display()))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .with_batch_size(batch_rows)
        .build()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let batches = reader
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(batches)
}

/// Total rows of some batches.
pub fn row_count(batches: &[RecordBatch]) -> usize {
    batches.iter().map(|b| b.num_rows()).sum()
}

/// Row count, sum of `v_int` and number of distinct `id`s of a read result.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Digest {
    pub rows: usize,
    pub sum_v_int: i64,
    pub distinct_ids: usize,
}

impl Digest {
    pub fn of(batches: &[RecordBatch]) -> Result<Digest> {
        let mut ids: Vec<i64> = Vec::with_capacity(row_count(batches));
        let mut sum_v_int = 0i64;
        for b in batches {
            let id = column::<Int64Array>(b, "id")?;
            ids.extend(id.iter().flatten());
            let v_int = column::<Int32Array>(b, "v_int")?;
            sum_v_int += v_int.iter().flatten().map(i64::from).sum::<i64>();
        }
        ids.sort_unstable();
        ids.dedup();
        Ok(Digest {
            rows: row_count(batches),
            sum_v_int,
            distinct_ids: ids.len(),
        })
    }

    pub fn add_to(&self, out: &mut Map<String, Value>) {
        out.insert("rows".into(), json!(self.rows));
        out.insert("sum_v_int".into(), json!(self.sum_v_int));
        out.insert("distinct_ids".into(), json!(self.distinct_ids));
    }
}

fn column<'a, T: 'static>(batch: &'a RecordBatch, name: &str) -> Result<&'a T> {
    let col = batch
        .column_by_name(name)
        .ok_or_else(|| format!("result has no column {name:?}"))?;
    col.as_any()
        .downcast_ref::<T>()
        .ok_or_else(|| format!("column {name:?} has unexpected type {}", col.data_type()).into())
}

/// A `/proc/self/status` value in MiB (`VmHWM` = peak resident set size).
pub fn proc_status_mb(key: &str) -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((kb / 1024.0 * 10.0).round() / 10.0)
}

/// User + system CPU time of the whole process so far (all threads), from `/proc/self/stat`.
pub fn cpu_time() -> Duration {
    // USER_HZ is 100 on every Linux ABI that exposes /proc/<pid>/stat ticks to user space.
    const TICKS_PER_SECOND: u64 = 100;
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
        return Duration::ZERO;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // `rest` starts at field 3 (state), so field n is at index n - 3.
    Duration::from_millis((ticks(11) + ticks(12)) * 1000 / TICKS_PER_SECOND)
}

/// Seconds rounded to 0.1 ms for the report.
pub fn secs(d: Duration) -> f64 {
    (d.as_secs_f64() * 10_000.0).round() / 10_000.0
}

/// Prints the one JSON line of a phase: `engine`, `phase`, then `fields`, then `peak_rss_mb`.
pub fn emit(engine: &str, phase: &str, fields: Map<String, Value>) {
    let mut out = Map::new();
    out.insert("engine".into(), json!(engine));
    out.insert("phase".into(), json!(phase));
    out.extend(fields);
    out.insert("peak_rss_mb".into(), json!(proc_status_mb("VmHWM:")));
    println!("{}", Value::Object(out));
}
