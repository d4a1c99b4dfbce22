//! The floor: the same in-memory batches written and read with plain arrow-rs Parquet, no
//! table format around them. One file per commit, zstd level 1 (Paimon's default data-file
//! compression), arrow-rs defaults otherwise. The read floor decodes its files on a given
//! number of threads (strata decodes files concurrently, so the fair floor does too) and reads
//! with strata's batch size.
//!
//! [`scan_table`] is the floor of the primary-key workload: the live data files of a table
//! (listed by strata's scan planning, not timed) read the same way — all files, all physical
//! columns (`_KEY_*`, `_SEQUENCE_NUMBER`, `_VALUE_KIND` included), no merge, so it returns every
//! physical row (2M for the PK workload) where a merge-on-read returns the 1.5M live ones.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use arrow::record_batch::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use serde_json::{json, Map, Value};

use crate::common::{
    cpu_time, load_commits, read_parquet_file, row_count, secs, Digest, Result, READ_BATCH_ROWS,
};
use crate::strata_phases::{self, TableKind};

/// The batches of one file, tagged with the file's index (to restore file order).
type FileBatches = (usize, Vec<RecordBatch>);

/// Writes each commit's batches to `<out>/commit-<k>.parquet`; times the writes only.
pub fn write(data: &Path, out_dir: &Path) -> Result<Map<String, Value>> {
    let commits = load_commits(data)?; // not timed
    let rows: usize = commits.iter().map(|c| row_count(c)).sum();
    if out_dir.exists() {
        std::fs::remove_dir_all(out_dir)
            .map_err(|e| format!("clearing {}: {e}", out_dir.display()))?;
    }
    std::fs::create_dir_all(out_dir).map_err(|e| format!("creating {}: {e}", out_dir.display()))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1)?))
        .build();

    let cpu0 = cpu_time();
    let mut per_commit = Vec::new();
    let mut bytes = 0u64;
    for (k, batches) in commits.into_iter().enumerate() {
        let t0 = Instant::now();
        let path = out_dir.join(format!("commit-{k}.parquet"));
        let file = File::create(&path).map_err(|e| format!("creating {}: {e}", path.display()))?;
        let schema = batches
            .first()
            .ok_or_else(|| format!("commit {k} has no rows"))?
            .schema();
        let mut writer = ArrowWriter::try_new(file, schema, Some(props.clone()))?;
        for b in &batches {
            writer.write(b)?;
        }
        writer.close()?;
        per_commit.push(t0.elapsed());
        bytes += std::fs::metadata(&path)?.len();
    }
    let cpu = cpu_time().saturating_sub(cpu0);
    let mut out = Map::new();
    out.insert("seconds".into(), json!(secs(per_commit.iter().sum())));
    out.insert("rows".into(), json!(rows));
    out.insert(
        "per_commit_s".into(),
        json!(per_commit.iter().map(|d| secs(*d)).collect::<Vec<_>>()),
    );
    out.insert("cpu_s".into(), json!(secs(cpu)));
    out.insert("bytes".into(), json!(bytes));
    Ok(out)
}

/// Reads every `*.parquet` in `dir` fully into memory on `threads` threads.
pub fn read(dir: &Path, threads: usize) -> Result<Map<String, Value>> {
    let files = parquet_files(dir)?;
    read_files(&files, threads)
}

/// The `*.parquet` files of `dir`, sorted by name.
fn parquet_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("listing {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!(
            "no .parquet files in {} (run raw-write first)",
            dir.display()
        )
        .into());
    }
    Ok(files)
}

/// The live data files of `bench.<kind>` in the warehouse `wh` as local paths, from strata's
/// scan planning of the latest snapshot, in plan order.
pub async fn live_files(wh: &Path, kind: TableKind) -> Result<Vec<PathBuf>> {
    let cat = strata_phases::catalog(wh)?;
    let table = cat.get_table(&kind.identifier()?).await?;
    let plan = table.new_scan().plan().await?;
    let mut files = Vec::new();
    for split in &plan.splits {
        let dir = table.partition_path(&split.partition)?;
        for f in &split.files {
            let path = match &f.external_path {
                Some(p) => PathBuf::from(p.strip_prefix("file:").unwrap_or(p)),
                None => PathBuf::from(table.file_io().display(&table.paths().data_file(
                    &dir,
                    split.bucket,
                    &f.file_name,
                ))),
            };
            files.push(path);
        }
    }
    if files.is_empty() {
        return Err(format!("{} has no live data files", table.identifier()).into());
    }
    Ok(files)
}

/// The PK floor: the live data files of `bench.<kind>` in `wh` read fully on `threads`
/// threads with the arrow-rs reader (see the module docs). Listing the files is not timed.
pub fn scan_table(wh: &Path, kind: TableKind, threads: usize) -> Result<Map<String, Value>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let files = rt.block_on(live_files(wh, kind))?;
    drop(rt);
    let mut out = read_files(&files, threads)?;
    out.insert("table".into(), json!(kind.table_name()));
    Ok(out)
}

/// Reads `files` fully into memory on `threads` threads (each thread takes the next file).
fn read_files(files: &[PathBuf], threads: usize) -> Result<Map<String, Value>> {
    let cpu0 = cpu_time();
    let t0 = Instant::now();
    let next = AtomicUsize::new(0);
    let per_thread: Vec<Result<Vec<FileBatches>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|_| {
                s.spawn(|| -> Result<Vec<FileBatches>> {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(path) = files.get(i) else {
                            return Ok(mine);
                        };
                        mine.push((i, read_parquet_file(path, READ_BATCH_ROWS)?));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("reader thread panicked".into()))
            })
            .collect()
    });
    let mut by_file = Vec::new();
    for r in per_thread {
        by_file.extend(r?);
    }
    by_file.sort_by_key(|(i, _)| *i);
    let batches: Vec<RecordBatch> = by_file.into_iter().flat_map(|(_, b)| b).collect();
    let elapsed = t0.elapsed();
    let cpu = cpu_time().saturating_sub(cpu0);

    let mut out = Map::new();
    out.insert("seconds".into(), json!(secs(elapsed)));
    out.insert("cpu_s".into(), json!(secs(cpu)));
    out.insert("threads".into(), json!(threads));
    out.insert("files".into(), json!(files.len()));
    Digest::of(&batches)?.add_to(&mut out);
    Ok(out)
}
