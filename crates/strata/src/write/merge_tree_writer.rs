//! [`MergeTreeWriter`]: the writer of one (partition, bucket) of a primary-key table
//! (Java `MergeTreeWriter`).
//!
//! Records get the bucket's next sequence numbers in arrival order (continuing from the
//! largest sequence number of the bucket's live files) and go into a [`SortBuffer`]. A flush
//! turns the buffer (in-memory records plus any spilled runs) into one level-0 sorted run:
//! the runs are merged by key, records of one key are reduced by the merge engine (deletes
//! are kept — they must shadow older levels), and the result is written by a
//! [`RollingKvWriter`], so one flush yields one or more key-disjoint level-0 files.
//!
//! Every flush hands its files to the bucket's [`CompactManager`] and triggers compaction
//! (Java `flushWriteBuffer`); prepare-commit collects the compaction result, waiting for it in
//! batch mode, and returns the new files together with the compaction increment.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, Int8Array};
use futures::StreamExt;
use object_store::path::Path;
use strata_spec::manifest::{DataFileMeta, FileSource};

use super::compact_manager::{CompactManager, CompactionMetrics};
use crate::io::FileIO;
use crate::lsm::kv_file_writer::{KvWriterConfig, RollingKvWriter};
use crate::lsm::merge::MergeFunction;
use crate::lsm::merge_sort::{DeletePolicy, MergeSorter};
use crate::lsm::sort_buffer::SortBuffer;
use crate::meta::FileNamer;
use crate::meta::TablePaths;
use crate::Result;

/// Rows per batch handed from the merge to the file writer.
const FLUSH_BATCH_ROWS: usize = 8192;

pub(super) struct MergeTreeWriter {
    io: FileIO,
    paths: TablePaths,
    partition_dir: String,
    bucket: i32,
    config: Arc<KvWriterConfig>,
    merge: Arc<dyn MergeFunction>,
    buffer: SortBuffer,
    namer: FileNamer,
    next_seq: i64,
    new_files: Vec<DataFileMeta>,
    created: Vec<Path>,
    compact: CompactManager,
    /// `commit.force-compact`: prepare-commit always waits for compaction.
    force_compact: bool,
}

/// What a bucket hands to the commit: new level-0 files and the compaction increment.
#[derive(Default)]
pub(super) struct BucketIncrement {
    pub new_files: Vec<DataFileMeta>,
    pub compact_before: Vec<DataFileMeta>,
    pub compact_after: Vec<DataFileMeta>,
    pub metrics: Vec<CompactionMetrics>,
}

impl MergeTreeWriter {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        io: FileIO,
        paths: TablePaths,
        partition_dir: String,
        bucket: i32,
        config: Arc<KvWriterConfig>,
        merge: Arc<dyn MergeFunction>,
        spill_dir: std::path::PathBuf,
        next_seq: i64,
        compact: CompactManager,
        force_compact: bool,
    ) -> Self {
        MergeTreeWriter {
            buffer: SortBuffer::new(config.layout.clone(), spill_dir, FLUSH_BATCH_ROWS),
            io,
            paths,
            partition_dir,
            bucket,
            config,
            merge,
            namer: FileNamer::new(),
            next_seq,
            new_files: Vec::new(),
            created: Vec::new(),
            compact,
            force_compact,
        }
    }

    /// Buffers records: `values` are the table's columns, `kinds` their row-kind bytes.
    pub(super) fn write(&mut self, values: Vec<ArrayRef>, kinds: Vec<i8>) -> Result<()> {
        let n = kinds.len() as i64;
        let seq: Int64Array = (self.next_seq..self.next_seq + n).collect();
        self.next_seq += n;
        let batch =
            self.config
                .layout
                .assemble(values, Arc::new(seq), Arc::new(Int8Array::from(kinds)))?;
        self.buffer.push(batch);
        Ok(())
    }

    pub(super) fn memory(&self) -> usize {
        self.buffer.memory()
    }

    /// Writes the in-memory records to a local spill file.
    pub(super) async fn spill(&mut self) -> Result<()> {
        self.buffer.spill().await
    }

    pub(super) fn spilled_bytes(&self) -> u64 {
        self.buffer.spilled_bytes()
    }

    /// Turns everything buffered into level-0 files, then collects a finished compaction
    /// (waiting for it with `wait_compaction` or under back-pressure) and triggers the next
    /// (`full`: a full compaction).
    pub(super) async fn flush(&mut self, wait_compaction: bool, full: bool) -> Result<()> {
        let mut wait = wait_compaction;
        if !self.buffer.is_empty() {
            if self.compact.should_wait_for_latest() {
                wait = true;
            }
            let files = self.write_level0().await?;
            for f in &files {
                self.compact.add_new_file(f.clone())?;
            }
            self.new_files.extend(files);
        }
        self.compact.sync(wait).await?;
        self.compact.trigger(full)
    }

    /// Flush without compaction (memory pressure).
    pub(super) async fn flush_for_memory(&mut self) -> Result<()> {
        self.flush(false, false).await
    }

    async fn write_level0(&mut self) -> Result<Vec<DataFileMeta>> {
        let mut merged = match self.buffer.take_unique_run()? {
            Some(run) => run,
            None => {
                let runs = self.buffer.take_runs()?;
                MergeSorter::new(
                    self.config.layout.clone(),
                    self.merge.clone(),
                    DeletePolicy::Keep,
                    FLUSH_BATCH_ROWS,
                )
                .merge(runs)?
            }
        };
        let paths = self.paths.clone();
        let dir = self.partition_dir.clone();
        let bucket = self.bucket;
        let mut writer = RollingKvWriter::new(
            self.io.clone(),
            self.config.clone(),
            Box::new(move |name| paths.data_file(&dir, bucket, name)),
            0,
            FileSource::Append,
        );
        let result = async {
            while let Some(batch) = merged.next().await {
                writer.write(&batch?, &self.namer).await?;
            }
            writer.close().await
        }
        .await;
        self.created.extend(writer.created_paths().iter().cloned());
        match result {
            Ok(files) => Ok(files),
            Err(e) => {
                writer.abort().await;
                Err(e)
            }
        }
    }

    /// Compacts the bucket on demand (`full`: everything into the max level); the result is
    /// collected by the next prepare-commit.
    pub(super) async fn compact(&mut self, full: bool) -> Result<()> {
        self.flush(true, full).await
    }

    /// Flushes, collects compaction (waiting when `wait_compaction`, `commit.force-compact`
    /// or too many sorted runs) and hands over what changed since the last call.
    pub(super) async fn prepare_commit(
        &mut self,
        wait_compaction: bool,
    ) -> Result<BucketIncrement> {
        self.flush(wait_compaction, false).await?;
        let wait = wait_compaction || self.force_compact || self.compact.should_wait_for_commit();
        self.compact.sync(wait).await?;
        let (compact_before, compact_after, metrics) = self.compact.drain();
        Ok(BucketIncrement {
            new_files: std::mem::take(&mut self.new_files),
            compact_before,
            compact_after,
            metrics,
        })
    }

    /// Deletes every file this writer created.
    pub(super) async fn abort(&mut self) {
        self.compact.abort().await;
        for p in self.created.drain(..) {
            let _ = self.io.delete(&p).await;
        }
        self.new_files.clear();
    }
}
