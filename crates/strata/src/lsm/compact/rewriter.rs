//! [`MergeTreeCompactRewriter`]: the rewrite half of a compaction task (Java
//! `MergeTreeCompactRewriter`).
//!
//! A rewrite reads its sections one after the other (they are key-disjoint and in key
//! order). A section of one sorted run is streamed as is; a section of several runs goes
//! through the [`MergeSorter`], which reduces the records of each key with the table's merge
//! engine. With `drop_delete` (output at the highest non-empty level) retract records are
//! dropped, otherwise kept so they still shadow older levels. Everything is written by one
//! [`RollingKvWriter`] at the output level with file source COMPACT, so outputs roll exactly
//! like flushes (every 1000 records, on the Parquet writer's size estimate). Record-level TTL
//! drops expired records while reading. A failed rewrite deletes the files it wrote.
//!
//! [`LookupRewriter`] is the same rewrite for lookup compaction ([`super::lookup`]): input
//! files are read without the rows their deletion vectors mark, the merge keeps retract
//! records until the lookup has seen them, and the merged stream passes through the lookup
//! before retracts are dropped and the output is written.

use std::sync::Arc;

use futures::stream::{self, StreamExt};
use object_store::path::Path;
use strata_spec::manifest::{DataFileMeta, FileSource};

use super::expire::RecordLevelExpire;
use super::lookup::{DeletedRows, FilePath, Lookup, LookupContext, LookupMode};
use super::task::{CompactRewriter, Sections};
use super::CompactResult;
use crate::io::FileIO;
use crate::lsm::interval_partition::split_runs_by_level;
use crate::lsm::kv_file_reader::KvFileReader;
use crate::lsm::kv_file_writer::{KvWriterConfig, RollingKvWriter};
use crate::lsm::kv_layout::drop_retracts;
use crate::lsm::merge::MergeFunction;
use crate::lsm::merge_sort::{DeletePolicy, MergeSorter, SortedRun};
use crate::meta::{FileNamer, SchemaManager};
use crate::Result;

/// Batches queued per input file while the merge consumes them.
const READ_AHEAD_BATCHES: usize = 2;
/// Files of one sorted run open at once: the one being merged and the next.
const RUN_FILES_OPEN: usize = 2;

/// Maps a new file name to its path in the bucket directory.
pub(crate) type NewFilePath = Arc<dyn Fn(&str) -> Path + Send + Sync>;

/// Rewrites sections of one bucket.
pub(crate) struct MergeTreeCompactRewriter {
    io: FileIO,
    schemas: SchemaManager,
    reader: KvFileReader,
    config: Arc<KvWriterConfig>,
    merge: Arc<dyn MergeFunction>,
    file_path: FilePath,
    new_file_path: NewFilePath,
    batch_size: usize,
    expire: Option<RecordLevelExpire>,
}

impl MergeTreeCompactRewriter {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        io: FileIO,
        schemas: SchemaManager,
        config: Arc<KvWriterConfig>,
        merge: Arc<dyn MergeFunction>,
        file_path: FilePath,
        new_file_path: NewFilePath,
        batch_size: usize,
        expire: Option<RecordLevelExpire>,
    ) -> Self {
        MergeTreeCompactRewriter {
            reader: KvFileReader::new(
                io.clone(),
                schemas.clone(),
                config.layout.clone(),
                batch_size,
            ),
            io,
            schemas,
            config,
            merge,
            file_path,
            new_file_path,
            batch_size,
            expire,
        }
    }
}

/// Opens the input files of a rewrite.
struct FileReads {
    reader: KvFileReader,
    file_path: FilePath,
    expire: Option<RecordLevelExpire>,
    /// Deletion vectors of the input files (lookup compaction).
    deleted: std::collections::HashMap<String, DeletedRows>,
}

impl FileReads {
    /// One file's records; decoding runs ahead on its own task.
    fn file_stream(&self, file: DataFileMeta) -> SortedRun {
        let reader = self.reader.clone();
        let path = (self.file_path)(&file);
        let expire = self.expire.clone();
        let deleted = self.deleted.get(&file.file_name).cloned();
        let (tx, mut rx) = tokio::sync::mpsc::channel(READ_AHEAD_BATCHES);
        // A producer that fails or panics ends the stream with an error: a compaction must
        // never take a cut-short input for the whole file (its rows would be dropped).
        let what = format!("reading compaction input {}", file.file_name);
        let feed = tx.clone();
        crate::io::producer::spawn_producer(what, feed.clone(), async move {
            let tx = feed;
            {
                let fields = reader.read_fields(&file).await?;
                let mut s = reader.read(&path, &file, &fields, None, None).await?;
                let layout = reader.layout().clone();
                let mut position = 0u64;
                while let Some(batch) = s.next().await {
                    let mut batch = batch?;
                    if let Some(deleted) = &deleted {
                        // Rows the file's deletion vector marks are not live.
                        let first = position;
                        position += batch.num_rows() as u64;
                        let keep: arrow_array::BooleanArray = (0..batch.num_rows() as u64)
                            .map(|i| Some(!deleted(first + i)))
                            .collect();
                        if keep.false_count() > 0 {
                            batch = arrow_select::filter::filter_record_batch(&batch, &keep)
                                .map_err(|e| {
                                    crate::Error::arrow("applying a deletion vector", e)
                                })?;
                        }
                    }
                    if let Some(exp) = &expire {
                        let time = batch.column(layout.value_col(exp.field_index())).clone();
                        batch = exp.filter(batch, &time)?;
                    }
                    if tx.send(Ok(batch)).await.is_err() {
                        break;
                    }
                }
                Ok::<_, crate::Error>(())
            }
        });
        stream::poll_fn(move |cx| rx.poll_recv(cx)).boxed()
    }
}

impl MergeTreeCompactRewriter {
    /// A sorted run: its files one after the other. A file's reader starts when the one
    /// before it is being consumed (one file of read-ahead), so a run of any length holds at
    /// most [`RUN_FILES_OPEN`] files' row groups and read-ahead batches in memory.
    fn run_stream(&self, files: Vec<DataFileMeta>, lookup: Option<&LookupContext>) -> SortedRun {
        let mut this = self.clone_for_reads();
        if let Some(ctx) = lookup {
            this.deleted = ctx.deleted.clone();
        }
        stream::iter(files)
            .map(move |f| futures::future::ready(this.file_stream(f)))
            .buffered(RUN_FILES_OPEN)
            .flatten()
            .boxed()
    }

    /// What [`Self::file_stream`] needs, owned, for streams that outlive `&self`.
    fn clone_for_reads(&self) -> FileReads {
        FileReads {
            reader: self.reader.clone(),
            file_path: self.file_path.clone(),
            expire: self.expire.clone(),
            deleted: Default::default(),
        }
    }

    async fn rewrite_sections(
        &self,
        writer: &mut RollingKvWriter,
        drop_delete: bool,
        sections: Sections,
    ) -> Result<()> {
        let namer = FileNamer::new();
        let layout = self.config.layout.clone();
        for section in sections {
            let single = section.len() == 1;
            let runs: Vec<SortedRun> = section
                .into_iter()
                .map(|run| self.run_stream(run.into_iter().map(|k| k.file).collect(), None))
                .collect();
            let mut merged: SortedRun = if single {
                runs.into_iter()
                    .next()
                    .expect("a section has at least one run")
            } else {
                let policy = if drop_delete {
                    DeletePolicy::Drop
                } else {
                    DeletePolicy::Keep
                };
                MergeSorter::new(layout.clone(), self.merge.clone(), policy, self.batch_size)
                    .merge(runs)?
            };
            while let Some(batch) = merged.next().await {
                let mut batch = batch?;
                if drop_delete && single {
                    batch = drop_retracts(&layout, batch)?;
                }
                if batch.num_rows() > 0 {
                    writer.write(&batch, &namer).await?;
                }
            }
        }
        Ok(())
    }

    /// [`Self::rewrite_sections`] of a lookup or changelog-producing compaction: every section
    /// (one run or several) goes through the annotated merge and the lookup; records go to the
    /// first writer, the changelog to the second.
    async fn rewrite_sections_lookup(
        &self,
        (writer, mut changelog): (&mut RollingKvWriter, Option<&mut RollingKvWriter>),
        output_level: i32,
        drop_delete: bool,
        sections: Sections,
        ctx: &LookupContext,
        lookup: &mut Lookup,
    ) -> Result<()> {
        let namer = FileNamer::new();
        let layout = self.config.layout.clone();
        let lookup_merge = !matches!(ctx.mode, LookupMode::FirstRow | LookupMode::FullCompaction);
        for section in sections {
            let (section, levels) = split_runs_by_level(section);
            let runs: Vec<SortedRun> = section
                .into_iter()
                .map(|run| self.run_stream(run.into_iter().map(|k| k.file).collect(), Some(ctx)))
                .collect();
            // The lookup must see retracts: they delete the older record it finds.
            let mut sorter = MergeSorter::new(
                layout.clone(),
                self.merge.clone(),
                DeletePolicy::Keep,
                self.batch_size,
            )
            .with_levels(levels, lookup_merge);
            if ctx.mode == LookupMode::FullCompaction {
                sorter = sorter.annotate_against(output_level);
            }
            let mut merged = sorter.merge_annotated(runs)?;
            while let Some(batch) = merged.next().await {
                let out = lookup.apply(batch?).await?;
                if let (Some(log), Some(w)) = (out.changelog, changelog.as_deref_mut()) {
                    w.write(&log, &namer).await?;
                }
                let mut batch = out.records;
                if drop_delete {
                    batch = drop_retracts(&layout, batch)?;
                }
                if batch.num_rows() > 0 {
                    writer.write(&batch, &namer).await?;
                }
            }
        }
        Ok(())
    }
}

impl MergeTreeCompactRewriter {
    fn writer(
        &self,
        config: Arc<KvWriterConfig>,
        level: i32,
        source: FileSource,
    ) -> RollingKvWriter {
        let new_path = self.new_file_path.clone();
        RollingKvWriter::new(
            self.io.clone(),
            config,
            Box::new(move |name| new_path(name)),
            level,
            source,
        )
    }

    async fn rewrite_impl(
        &self,
        output_level: i32,
        drop_delete: bool,
        sections: Sections,
        ctx: Option<(&LookupContext, &[strata_spec::DataType])>,
    ) -> Result<CompactResult> {
        let before: Vec<DataFileMeta> = sections
            .iter()
            .flatten()
            .flatten()
            .map(|k| k.file.clone())
            .collect();
        let mut writer = self.writer(self.config.clone(), output_level, FileSource::Compact);
        let Some((ctx, key_types)) = ctx else {
            let written = async {
                self.rewrite_sections(&mut writer, drop_delete, sections)
                    .await?;
                writer.close().await
            }
            .await;
            return match written {
                Ok(after) => Ok(CompactResult {
                    before,
                    after,
                    ..Default::default()
                }),
                Err(e) => {
                    writer.abort().await;
                    Err(e)
                }
            };
        };
        let mut lookup = Lookup::new(
            ctx,
            &self.reader,
            &self.file_path,
            self.merge.clone(),
            key_types,
            self.batch_size,
        )?;
        // Java writes a lookup compaction's changelog files at its output level.
        let mut changelog = ctx
            .changelog
            .as_ref()
            .map(|c| self.writer(c.config.clone(), output_level, FileSource::Append));
        let written = async {
            self.rewrite_sections_lookup(
                (&mut writer, changelog.as_mut()),
                output_level,
                drop_delete,
                sections,
                ctx,
                &mut lookup,
            )
            .await?;
            let after = writer.close().await?;
            let log = match changelog.as_mut() {
                Some(w) => w.close().await?,
                None => Vec::new(),
            };
            Ok::<_, crate::Error>((after, log))
        }
        .await;
        match written {
            Ok((after, changelog)) => Ok(CompactResult {
                before,
                after,
                deletions: lookup.deletions,
                changelog,
            }),
            Err(e) => {
                writer.abort().await;
                if let Some(w) = changelog.as_mut() {
                    w.abort().await;
                }
                Err(e)
            }
        }
    }
}

impl CompactRewriter for MergeTreeCompactRewriter {
    async fn rewrite(
        &self,
        output_level: i32,
        drop_delete: bool,
        sections: Sections,
    ) -> Result<CompactResult> {
        self.rewrite_impl(output_level, drop_delete, sections, None)
            .await
    }

    async fn has_expired_records(&self, file: &DataFileMeta) -> Result<bool> {
        match &self.expire {
            Some(exp) => exp.is_expire_file(file, &self.schemas).await,
            None => Ok(false),
        }
    }

    async fn discard(&self, files: &[DataFileMeta]) {
        for f in files {
            let _ = self.io.delete(&(self.file_path)(f)).await;
        }
    }
}

/// The rewriter of one lookup-compaction task: [`MergeTreeCompactRewriter`] with the task's
/// [`LookupContext`] (the levels above its output level, the bucket's deletion vectors).
pub(crate) struct LookupRewriter {
    pub inner: Arc<MergeTreeCompactRewriter>,
    pub context: Arc<LookupContext>,
    pub key_types: Arc<Vec<strata_spec::DataType>>,
}

impl CompactRewriter for LookupRewriter {
    async fn rewrite(
        &self,
        output_level: i32,
        drop_delete: bool,
        sections: Sections,
    ) -> Result<CompactResult> {
        self.inner
            .rewrite_impl(
                output_level,
                drop_delete,
                sections,
                Some((self.context.as_ref(), self.key_types.as_slice())),
            )
            .await
    }

    async fn has_expired_records(&self, file: &DataFileMeta) -> Result<bool> {
        self.inner.has_expired_records(file).await
    }

    async fn discard(&self, files: &[DataFileMeta]) {
        self.inner.discard(files).await
    }
}
