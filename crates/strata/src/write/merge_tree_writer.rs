//! [`MergeTreeWriter`]: the writer of one (partition, bucket) of a primary-key table
//! (Java `MergeTreeWriter`, lsm-algorithms.md §1.3–1.5).
//!
//! Records get the bucket's next sequence numbers in arrival order (continuing from the
//! largest sequence number of the bucket's live files) and go into a [`SortBuffer`]. A flush
//! turns the buffer (in-memory records plus any spilled runs) into one level-0 sorted run:
//! the runs are merged by key, records of one key are reduced by the merge engine (deletes
//! are kept — they must shadow older levels), and the result is written by a
//! [`RollingKvWriter`], so one flush yields one or more key-disjoint level-0 files.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, Int8Array};
use futures::StreamExt;
use object_store::path::Path;
use strata_spec::manifest::{DataFileMeta, FileSource};

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
    pub(super) fn spill(&mut self) -> Result<()> {
        self.buffer.spill()
    }

    pub(super) fn spilled_bytes(&self) -> u64 {
        self.buffer.spilled_bytes()
    }

    /// Turns everything buffered into level-0 files.
    pub(super) async fn flush(&mut self) -> Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
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
            Ok(files) => {
                self.new_files.extend(files);
                Ok(())
            }
            Err(e) => {
                writer.abort().await;
                Err(e)
            }
        }
    }

    /// Flushes and hands over the files written since the last call.
    pub(super) async fn prepare_commit(&mut self) -> Result<Vec<DataFileMeta>> {
        self.flush().await?;
        Ok(std::mem::take(&mut self.new_files))
    }

    /// Deletes every file this writer created.
    pub(super) async fn abort(&mut self) {
        for p in self.created.drain(..) {
            let _ = self.io.delete(&p).await;
        }
        self.new_files.clear();
    }
}
