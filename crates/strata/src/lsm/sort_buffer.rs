//! [`SortBuffer`]: the write buffer of one bucket (Java `SortBufferWriteBuffer` with its
//! external sort buffer).
//!
//! Records arrive as key-value batches with their sequence numbers already assigned (in
//! arrival order). The buffer only keeps them; sorting happens when the buffer is turned
//! into runs: a stable sort of row positions by the `arrow-row` encoding of the key, so equal
//! keys stay in sequence order. When the owner decides memory is short it calls
//! [`SortBuffer::spill`]: the buffered records are sorted and written as one sorted run to a
//! local LZ4-compressed Arrow IPC file, and the memory is released. [`SortBuffer::take_runs`]
//! hands the spilled runs (streamed back batch by batch) and the in-memory run to the
//! [`super::merge_sort::MergeSorter`], so memory at flush is one batch per run.

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_ipc::reader::StreamReader;
use arrow_ipc::writer::{IpcWriteOptions, StreamWriter};
use arrow_ipc::CompressionType;
use futures::StreamExt;

use super::kv_layout::KvLayout;
use super::merge_sort::SortedRun;
use super::sort_key::{sort_positions_checked, KeyEncoder};
use crate::error::ErrorDetail;
use crate::{Error, Result};

/// A spilled sorted run on local disk (deleted when dropped).
struct SpillFile {
    path: tempfile::TempPath,
    bytes: u64,
}

/// The write buffer of one (partition, bucket).
pub(crate) struct SortBuffer {
    layout: Arc<KvLayout>,
    batches: Vec<RecordBatch>,
    rows: usize,
    memory: usize,
    spills: Vec<SpillFile>,
    spill_dir: PathBuf,
    batch_size: usize,
}

impl SortBuffer {
    pub(crate) fn new(layout: Arc<KvLayout>, spill_dir: PathBuf, batch_size: usize) -> Self {
        SortBuffer {
            layout,
            batches: Vec::new(),
            rows: 0,
            memory: 0,
            spills: Vec::new(),
            spill_dir,
            batch_size: batch_size.max(1),
        }
    }

    /// Adds records (key-value layout, sequence numbers assigned).
    pub(crate) fn push(&mut self, batch: RecordBatch) {
        if batch.num_rows() == 0 {
            return;
        }
        self.rows += batch.num_rows();
        self.memory += batch_memory(&self.layout, &batch);
        self.batches.push(batch);
    }

    /// Bytes held in memory.
    pub(crate) fn memory(&self) -> usize {
        self.memory
    }

    /// Whether nothing is buffered (in memory or spilled).
    pub(crate) fn is_empty(&self) -> bool {
        self.rows == 0 && self.spills.is_empty()
    }

    /// Bytes on local disk.
    pub(crate) fn spilled_bytes(&self) -> u64 {
        self.spills.iter().map(|s| s.bytes).sum()
    }

    /// Sorts the in-memory records and writes them to a local spill file, on tokio's blocking
    /// pool (sorting and local file writes would stall an async worker).
    pub(crate) async fn spill(&mut self) -> Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let batches = std::mem::take(&mut self.batches);
        self.rows = 0;
        self.memory = 0;
        let layout = self.layout.clone();
        let dir = self.spill_dir.clone();
        let batch_size = self.batch_size;
        let spill = crate::io::blocking("writing a spill file", move || {
            write_spill(&layout, &batches, &dir, batch_size)
        })
        .await?;
        self.spills.push(spill);
        Ok(())
    }

    /// When nothing was spilled and no key occurs twice, empties the buffer into one sorted
    /// run that needs no merging (the common case of a batch load: flush then skips the merge
    /// and its extra copy). Otherwise leaves the buffer as it is and returns `None`.
    pub(crate) fn take_unique_run(&mut self) -> Result<Option<SortedRun>> {
        if !self.spills.is_empty() || self.rows == 0 {
            return Ok(None);
        }
        let (order, dups) = sort_order_checked(&self.layout, &self.batches)?;
        if dups {
            return Ok(None);
        }
        let batches = std::mem::take(&mut self.batches);
        self.rows = 0;
        self.memory = 0;
        Ok(Some(chunked_run(batches, order, self.batch_size)))
    }

    /// Empties the buffer into sorted runs: every spilled run, then the in-memory records.
    pub(crate) fn take_runs(&mut self) -> Result<Vec<SortedRun>> {
        let mut runs: Vec<SortedRun> = Vec::new();
        for spill in self.spills.drain(..) {
            runs.push(read_spill(spill)?);
        }
        if self.rows > 0 {
            let batches = std::mem::take(&mut self.batches);
            self.rows = 0;
            self.memory = 0;
            let order = sort_order(&self.layout, &batches)?;
            runs.push(chunked_run(batches, order, self.batch_size));
        }
        Ok(runs)
    }
}

/// Sorts `batches` and writes them as one spill file in `dir` (blocking).
fn write_spill(
    layout: &KvLayout,
    batches: &[RecordBatch],
    dir: &Path,
    batch_size: usize,
) -> Result<SpillFile> {
    let order = sort_order(layout, batches)?;
    std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    let tmp = tempfile::Builder::new()
        .prefix("strata-spill-")
        .suffix(".arrows")
        .tempfile_in(dir)
        .map_err(|e| io_err(dir, e))?;
    let (file, path) = tmp.into_parts();
    let options = IpcWriteOptions::default()
        .try_with_compression(Some(CompressionType::LZ4_FRAME))
        .map_err(|e| Error::arrow("spill compression", e))?;
    let what = || format!("writing spill file {}", path.display());
    let mut writer =
        StreamWriter::try_new_with_options(BufWriter::new(file), &layout.schema, options)
            .map_err(|e| Error::arrow(what(), e))?;
    for chunk in order.chunks(batch_size) {
        let b = take_rows(batches, chunk)?;
        writer.write(&b).map_err(|e| Error::arrow(what(), e))?;
    }
    writer.finish().map_err(|e| Error::arrow(what(), e))?;
    drop(writer);
    let bytes = std::fs::metadata(&path)
        .map_err(|e| io_err(&path, e))?
        .len();
    Ok(SpillFile { path, bytes })
}

/// Memory of a key-value batch, not counting key columns twice (they share the value
/// columns' buffers).
fn batch_memory(layout: &KvLayout, batch: &RecordBatch) -> usize {
    batch.columns()[layout.seq_col()..]
        .iter()
        .map(|c| c.get_array_memory_size())
        .sum()
}

/// Row positions `(batch, row)` in key order, stable (equal keys keep arrival order).
fn sort_order(layout: &KvLayout, batches: &[RecordBatch]) -> Result<Vec<(usize, usize)>> {
    Ok(sort_order_checked(layout, batches)?.0)
}

/// [`sort_order`] plus whether any key occurs twice.
fn sort_order_checked(
    layout: &KvLayout,
    batches: &[RecordBatch],
) -> Result<(Vec<(usize, usize)>, bool)> {
    let types: Vec<_> = layout
        .schema
        .fields()
        .iter()
        .take(layout.num_keys())
        .map(|f| f.data_type().clone())
        .collect();
    let encoder = KeyEncoder::new(&types)?;
    let keys = batches
        .iter()
        .map(|b| encoder.encode(&b.columns()[..layout.num_keys()]))
        .collect::<Result<Vec<_>>>()?;
    Ok(sort_positions_checked(&keys))
}

/// The rows of `batches` in `order`, as a stream of `batch_size` batches built lazily.
fn chunked_run(
    batches: Vec<RecordBatch>,
    order: Vec<(usize, usize)>,
    batch_size: usize,
) -> SortedRun {
    let n = order.len();
    let step = batch_size.max(1);
    let starts: Vec<usize> = (0..n).step_by(step).collect();
    futures::stream::iter(starts.into_iter().map(move |s| {
        let end = (s + step).min(n);
        take_rows(&batches, &order[s..end])
    }))
    .boxed()
}

fn take_rows(batches: &[RecordBatch], positions: &[(usize, usize)]) -> Result<RecordBatch> {
    let refs: Vec<&RecordBatch> = batches.iter().collect();
    super::kv_layout::interleave_shared(&refs, positions)
}

/// Batches of a spill file read ahead while the merge consumes them.
const SPILL_READ_AHEAD: usize = 2;

/// A spilled run streamed back: the file is decoded on tokio's blocking pool and its batches
/// arrive through a channel. A decoder error or panic ends the stream with an error, never
/// early without one (a flush would otherwise drop the rest of the run).
fn read_spill(spill: SpillFile) -> Result<SortedRun> {
    let path: &Path = &spill.path;
    let display = path.display().to_string();
    let file = File::open(path).map_err(|e| io_err(path, e))?;
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Result<RecordBatch>>(SPILL_READ_AHEAD);
    // The TempPath moves into the reader so the file lives until the run is consumed.
    let keep = spill.path;
    tokio::task::spawn_blocking(move || {
        let what = format!("reading spill file {display}");
        let body = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let reader = match StreamReader::try_new(BufReader::new(file), None) {
                Ok(r) => r,
                Err(e) => {
                    let _ = tx.blocking_send(Err(Error::arrow(what.clone(), e)));
                    return;
                }
            };
            for b in reader {
                let failed = b.is_err();
                if tx
                    .blocking_send(b.map_err(|e| Error::arrow(what.clone(), e)))
                    .is_err()
                    || failed
                {
                    return;
                }
            }
        }));
        if body.is_err() {
            let _ = tx.blocking_send(Err(ErrorDetail::TaskPanicked {
                what,
                message: "the spill decoder panicked".into(),
            }
            .into()));
        }
        drop(keep);
    });
    Ok(futures::stream::poll_fn(move |cx| rx.poll_recv(cx)).boxed())
}

fn io_err(path: &Path, e: std::io::Error) -> Error {
    ErrorDetail::LocalIo {
        path: path.display().to_string(),
        source: e,
    }
    .into()
}
