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
//! With `changelog-producer = input` a flush also writes every buffered record, unmerged, with
//! its row kind, sorted by key and sequence, into level-0 `changelog-*` files (Java
//! `MergeTreeWriter.flushWriteBuffer` with a changelog writer): the records of the sorted
//! runs are merged without reduction once, written to the changelog writer as they pass, and
//! the same stream is reduced by the merge engine into the data files, so spilled runs are
//! read once and memory stays bounded.
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
use crate::lsm::merge_sort::{DeletePolicy, MergeSorter, SortedRun};
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
    /// `changelog-producer = input`: the changelog files' settings.
    changelog: Option<Arc<KvWriterConfig>>,
    new_changelog: Vec<DataFileMeta>,
    created: Vec<Path>,
    compact: CompactManager,
    /// `commit.force-compact`: prepare-commit always waits for compaction.
    force_compact: bool,
}

/// What a bucket hands to the commit: new level-0 files and the compaction increment.
#[derive(Default)]
pub(super) struct BucketIncrement {
    pub new_files: Vec<DataFileMeta>,
    /// Changelog files of the new data (`changelog-producer = input`).
    pub new_changelog: Vec<DataFileMeta>,
    pub compact_before: Vec<DataFileMeta>,
    pub compact_after: Vec<DataFileMeta>,
    /// Changelog files compaction wrote (`changelog-producer = lookup`).
    pub compact_changelog: Vec<DataFileMeta>,
    pub metrics: Vec<CompactionMetrics>,
    /// Every deletion vector of the bucket, when compaction changed them (lookup compaction
    /// of a deletion-vector table): a new index file replaces the bucket's previous one.
    pub deletion_vectors:
        Option<std::collections::HashMap<String, crate::format::deletion_vector::DeletionVector>>,
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
            changelog: None,
            new_changelog: Vec::new(),
            created: Vec::new(),
            compact,
            force_compact,
        }
    }

    /// Writes `changelog-producer = input` changelog files with `config` on every flush.
    pub(super) fn with_input_changelog(mut self, config: Arc<KvWriterConfig>) -> Self {
        self.changelog = Some(config);
        self
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

    fn merger(&self) -> MergeSorter {
        MergeSorter::new(
            self.config.layout.clone(),
            self.merge.clone(),
            DeletePolicy::Keep,
            FLUSH_BATCH_ROWS,
        )
    }

    fn rolling_writer(&self, config: Arc<KvWriterConfig>) -> RollingKvWriter {
        let paths = self.paths.clone();
        let dir = self.partition_dir.clone();
        let bucket = self.bucket;
        RollingKvWriter::new(
            self.io.clone(),
            config,
            Box::new(move |name| paths.data_file(&dir, bucket, name)),
            0,
            FileSource::Append,
        )
    }

    async fn write_level0(&mut self) -> Result<Vec<DataFileMeta>> {
        let unique = self.buffer.take_unique_run()?;
        let mut changelog = None;
        let mut merged: SortedRun = match (unique, self.changelog.clone()) {
            (Some(run), None) => run,
            (None, None) => self.merger().merge(self.buffer.take_runs()?)?,
            // Every key once: the changelog holds the same records as the data file.
            (Some(run), Some(config)) => {
                let (tee, writer) = self.tee_changelog(run, config);
                changelog = Some(writer);
                tee
            }
            (None, Some(config)) => {
                let raw = self
                    .merger()
                    .keep_all_records()
                    .merge(self.buffer.take_runs()?)?;
                let (tee, writer) = self.tee_changelog(raw, config);
                changelog = Some(writer);
                self.merger().merge(vec![tee])?
            }
        };
        let mut writer = self.rolling_writer(self.config.clone());
        let result = async {
            while let Some(batch) = merged.next().await {
                writer.write(&batch?, &self.namer).await?;
            }
            writer.close().await
        }
        .await;
        drop(merged);
        self.created.extend(writer.created_paths().iter().cloned());
        let changelog_result = match &changelog {
            Some(w) => {
                let mut w = w.lock().await;
                let closed = match &result {
                    Ok(_) => w.close().await.map(Some),
                    Err(_) => Ok(None),
                };
                self.created.extend(w.created_paths().iter().cloned());
                if closed.is_err() || result.is_err() {
                    w.abort().await;
                }
                closed
            }
            None => Ok(None),
        };
        match (result, changelog_result) {
            (Ok(files), Ok(changelog_files)) => {
                self.new_changelog
                    .extend(changelog_files.into_iter().flatten());
                Ok(files)
            }
            (Err(e), _) | (Ok(_), Err(e)) => {
                writer.abort().await;
                Err(e)
            }
        }
    }

    /// `run` passed on unchanged, each batch written to a new changelog writer first.
    fn tee_changelog(
        &self,
        run: SortedRun,
        config: Arc<KvWriterConfig>,
    ) -> (SortedRun, Arc<tokio::sync::Mutex<RollingKvWriter>>) {
        let writer = Arc::new(tokio::sync::Mutex::new(self.rolling_writer(config)));
        let namer = Arc::new(FileNamer::new());
        let w = writer.clone();
        let tee = run
            .then(move |batch| {
                let (w, namer) = (w.clone(), namer.clone());
                async move {
                    let batch = batch?;
                    w.lock().await.write(&batch, &namer).await?;
                    Ok(batch)
                }
            })
            .boxed();
        (tee, writer)
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
        let inc = self.compact.drain();
        let deletion_vectors = self.compact.take_deletion_vectors();
        Ok(BucketIncrement {
            deletion_vectors,
            new_files: std::mem::take(&mut self.new_files),
            new_changelog: std::mem::take(&mut self.new_changelog),
            compact_before: inc.before,
            compact_after: inc.after,
            compact_changelog: inc.changelog,
            metrics: inc.metrics,
        })
    }

    /// Deletes every file this writer created.
    pub(super) async fn abort(&mut self) {
        self.compact.abort().await;
        for p in self.created.drain(..) {
            let _ = self.io.delete(&p).await;
        }
        self.new_files.clear();
        self.new_changelog.clear();
    }
}
