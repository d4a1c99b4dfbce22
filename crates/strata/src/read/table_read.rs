//! [`TableRead`]: reads splits of one table into Arrow batches (the module doc of `read` says
//! how); files are decoded ahead on tasks, primary-key splits go through `kv_read`.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures::stream::{self, BoxStream};
use futures::StreamExt;
use strata_spec::manifest::DataFileMeta;
use strata_spec::DataField;

use crate::error::{ErrorDetail, ResultExt};
use crate::expr::Predicate;
use crate::format::page_pruning::StatsPruning;
use crate::format::parquet_reader::{ParquetReadOptions, PushedRowFilter};
use crate::format::ReadHints;
use crate::scan::DataSplit;
use crate::table::Table;
use crate::Result;

use super::batching::{receiver_stream, CHANNEL_BATCHES, DEFAULT_BATCH_SIZE};
use super::limit::limit_rows;
use super::{deletion_vectors, kv_read, plan, row_kinds, row_tracking, ReadMetrics};

/// Files decoded ahead of the consumer.
const READ_AHEAD_FILES: usize = 2;

impl Table {
    /// A reader of this table's splits into Arrow record batches.
    pub fn new_read(&self) -> TableRead {
        TableRead::new(self.clone())
    }
}

/// Reads splits of one table with a projection, a filter and a limit.
#[derive(Clone, Debug)]
pub struct TableRead {
    table: Table,
    projection: Option<Vec<String>>,
    filter: Option<Predicate>,
    limit: Option<usize>,
    batch_size: usize,
    metrics: Option<Arc<ReadMetrics>>,
    /// Output each row's kind first ([`row_kinds`]).
    row_kinds: bool,
    /// Top-level string columns as `Utf8View`.
    string_views: bool,
    /// Apply the table's deletion vectors (off for incremental delta and changelog reads,
    /// which return every record of their files).
    deletion_vectors: bool,
    /// Snapshots whose deletion vectors are read from this metadata rather than their
    /// snapshot files (tags of expired snapshots).
    snapshots: Vec<strata_spec::snapshot::Snapshot>,
}

impl TableRead {
    pub(crate) fn new(table: Table) -> Self {
        TableRead {
            table,
            projection: None,
            filter: None,
            limit: None,
            batch_size: DEFAULT_BATCH_SIZE,
            metrics: None,
            row_kinds: false,
            string_views: false,
            deletion_vectors: true,
            snapshots: Vec::new(),
        }
    }

    /// Output only these columns, in this order. An item is a column name (exact), or a MAP
    /// key access `col['key']` / `"col"['key']` on a `MAP<STRING, T>` column (see
    /// [`crate::expr::MapKeyRef`]; build the text with `MapKeyRef::new(col, key).name()`),
    /// output as a nullable `T` column named `col['key']` (canonical form,
    /// `MapKeyRef::name`). A column whose name is exactly the text wins over a key access.
    pub fn with_projection(mut self, columns: Vec<String>) -> Self {
        self.projection = Some(columns);
        self
    }
    /// Keep only rows satisfying `filter` (exact). Leaves may test key accesses `m['k']`.
    pub fn with_filter(mut self, filter: Predicate) -> Self {
        self.filter = Some(filter);
        self
    }
    /// Stop after `n` rows.
    pub fn with_limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }
    /// Rows per output batch at most (default [`DEFAULT_BATCH_SIZE`]; 0 counts as 1).
    pub fn with_batch_size(mut self, n: usize) -> Self {
        self.batch_size = n.max(1);
        self
    }
    /// Count files, row groups and bytes read by this read's streams into `metrics`
    /// (append files, raw-convertible splits and merge reads alike).
    pub fn with_metrics(mut self, metrics: Arc<ReadMetrics>) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// Output every record with its row kind, in a first column `rowkind` (`+I`, `-U`, `+U`,
    /// `-D`), keeping the deletes a merge would drop: Paimon's `t$audit_log`
    /// ([`row_kinds`]). Such a read takes no filter (filter the rows it returns).
    pub fn with_row_kinds(mut self) -> Self {
        self.row_kinds = true;
        self
    }

    /// Output top-level string columns (`CHAR`, `VARCHAR`, `STRING`) as Arrow `Utf8View`
    /// instead of `Utf8`: Parquet pages are decoded into views, which saves copying
    /// dictionary-encoded values, and it is the string type DataFusion reads Parquet as.
    /// Nested strings (in ARRAY, MAP, ROW) and MAP key columns `m['k']` stay `Utf8`.
    pub fn with_string_views(mut self) -> Self {
        self.string_views = true;
        self
    }

    /// Read files without applying deletion vectors.
    pub(crate) fn without_deletion_vectors(mut self) -> Self {
        self.deletion_vectors = false;
        self
    }

    /// Splits of `snapshots` take their deletion vectors from this metadata (a tag's copy of
    /// a snapshot that expired) instead of the snapshot files.
    pub(crate) fn with_snapshot_metas(
        mut self,
        snapshots: Vec<strata_spec::snapshot::Snapshot>,
    ) -> Self {
        self.snapshots = snapshots;
        self
    }

    /// Deletion vectors of this read, if the table has them and the read applies them.
    fn dv_cache(&self) -> Result<Option<Arc<deletion_vectors::DvCache>>> {
        Ok(
            (self.deletion_vectors && self.table.options().deletion_vectors_enabled()?).then(
                || {
                    Arc::new(deletion_vectors::DvCache::with_snapshots(
                        self.snapshots.clone(),
                    ))
                },
            ),
        )
    }

    fn resolve(&self) -> Result<plan::Resolved> {
        let mut resolved = plan::Resolved::new(
            &self.table,
            self.projection.as_deref(),
            self.filter.as_ref(),
        )?;
        resolved.string_views = self.string_views;
        Ok(resolved)
    }

    /// Fields output, in order. Key columns have the id
    /// [`crate::expr::map_key::MAP_KEY_FIELD_ID`] (they are not table columns).
    pub fn output_fields(&self) -> Result<Vec<DataField>> {
        Ok(self.resolve()?.output_fields())
    }

    /// Arrow schema of the output batches.
    pub fn output_schema(&self) -> Result<SchemaRef> {
        let resolved = self.resolve()?;
        let schema = resolved.plan(resolved.wanted.clone())?.out_schema;
        Ok(if self.row_kinds {
            row_kinds::with_kind_column(&schema)
        } else {
            schema
        })
    }

    /// Streams the rows of `splits` as Arrow batches. Every error, opening or reading, names
    /// the table in its context.
    pub fn to_stream(
        &self,
        splits: Vec<DataSplit>,
    ) -> Result<BoxStream<'static, Result<RecordBatch>>> {
        if super::fallback::has_other_branch(&self.table, &splits) {
            // Splits of another branch (`scan.fallback-branch`): read with its table.
            let base = self.on_table(self.table.clone());
            let open: super::fallback::OpenRead =
                Arc::new(move |table, splits| base.on_table(table).to_stream(splits));
            return super::fallback::to_stream(
                self.table.clone(),
                splits,
                self.output_schema()?,
                self.limit,
                open,
            );
        }
        let table = self.table.identifier().to_string();
        let batches = self.open_stream(splits).with_table(&table)?;
        Ok(batches.map(move |b| b.with_table(&table)).boxed())
    }

    fn open_stream(
        &self,
        splits: Vec<DataSplit>,
    ) -> Result<BoxStream<'static, Result<RecordBatch>>> {
        if self.row_kinds && self.filter.is_some() {
            return Err(ErrorDetail::Unsupported(format!(
                "reading {} with row kinds and a filter: filter the rows the read returns",
                self.table.identifier()
            ))
            .into());
        }
        let resolved = self.resolve()?;
        let plan = resolved.plan(resolved.wanted.clone())?;
        let kinds_schema = self
            .row_kinds
            .then(|| row_kinds::with_kind_column(&plan.out_schema));
        let hints = ReadHints {
            selected_map_keys: resolved.selected_map_keys(),
            map_key_predicate: plan.map_key_predicate().map(Arc::new),
            metrics: self.metrics.clone(),
        };
        let ctx = Arc::new(FileReadContext {
            table: self.table.clone(),
            pushed: plan.pushed_filter(),
            stats_pruning: plan.stats_pruning().map(Arc::new),
            plan,
            hints,
            string_views: self.string_views,
            batch_size: self.batch_size,
            dv: self.dv_cache()?,
            file_index: super::file_index::read_enabled(&self.table)?,
        });
        // A data-evolution range's deletion vector is its anchor file's (`read_group`).
        let data_evolution = self.table.options().data_evolution_enabled()?;
        let mut jobs = Vec::new();
        let mut kv_ctx: Option<Arc<kv_read::KvReadContext>> = None;
        for split in splits {
            let merge = !split.raw_convertible || self.row_kinds;
            if split.row_range.is_some() && (split.files.len() != 1 || merge) {
                return Err(ErrorDetail::InvalidArgument(format!(
                    "a split of {} with a row range must hold one file read without merging \
                     (it holds {} files{})",
                    self.table.identifier(),
                    split.files.len(),
                    if merge { " to merge" } else { "" }
                ))
                .into());
            }
            if merge && self.table.is_primary_key_table() {
                if kv_ctx.is_none() {
                    kv_ctx = Some(Arc::new(self.kv_context(&resolved)?));
                }
                jobs.push(ReadJob::Merge(split));
                continue;
            }
            let dir = self.table.partition_path(&split.partition)?;
            if data_evolution {
                // Files holding columns of the same rows are read together.
                for files in super::data_evolution::group_by_row_ranges(&self.table, split.files)? {
                    jobs.push(ReadJob::Group(Box::new(GroupJob {
                        dir: dir.clone(),
                        bucket: split.bucket,
                        files,
                        snapshot_id: split.snapshot_id,
                        partition: split.partition.clone(),
                    })));
                }
                continue;
            }
            for f in split.files {
                jobs.push(ReadJob::File(Box::new(FileJob {
                    dir: dir.clone(),
                    bucket: split.bucket,
                    file: f,
                    snapshot_id: split.snapshot_id,
                    partition: split.partition.clone(),
                    row_range: split.row_range.clone(),
                })));
            }
        }
        // The file task is spawned when `buffered` pulls the job, not when its future is
        // first polled: `flatten` polls `buffered` only between streams, so a lazily spawned
        // task would start only after the file before it was drained (files decoded one at a
        // time).
        let stream = stream::iter(jobs)
            .map(move |job| {
                let stream = match job {
                    ReadJob::File(job) => {
                        let ctx = ctx.clone();
                        let (tx, rx) = tokio::sync::mpsc::channel(CHANNEL_BATCHES);
                        let what = format!("reading data file {}", job.file.file_name);
                        let feed = tx.clone();
                        crate::io::producer::spawn_producer(what, tx, async move {
                            ctx.read_file(&job, &feed).await
                        });
                        match &kinds_schema {
                            // Rows of append files (the merge path adds kinds itself).
                            Some(schema) => {
                                let schema = schema.clone();
                                receiver_stream(rx)
                                    .map(move |b| b.and_then(|b| row_kinds::inserts(&schema, &b)))
                                    .boxed()
                            }
                            None => receiver_stream(rx),
                        }
                    }
                    ReadJob::Group(job) => {
                        let ctx = ctx.clone();
                        let (tx, rx) = tokio::sync::mpsc::channel(CHANNEL_BATCHES);
                        let what = format!("reading the row ids of {}", job.files[0].file_name);
                        let feed = tx.clone();
                        crate::io::producer::spawn_producer(what, tx, async move {
                            ctx.read_group(&job, &feed).await
                        });
                        match &kinds_schema {
                            Some(schema) => {
                                let schema = schema.clone();
                                receiver_stream(rx)
                                    .map(move |b| b.and_then(|b| row_kinds::inserts(&schema, &b)))
                                    .boxed()
                            }
                            None => receiver_stream(rx),
                        }
                    }
                    ReadJob::Merge(split) => {
                        let kv = kv_ctx.clone().expect("created for every merge job");
                        match kv.split_stream(split) {
                            Ok(s) => s,
                            Err(e) => stream::once(async move { Err(e) }).boxed(),
                        }
                    }
                };
                futures::future::ready(stream)
            })
            .buffered(READ_AHEAD_FILES)
            .flatten();
        let stream: BoxStream<'static, Result<RecordBatch>> = match self.limit {
            Some(limit) => limit_rows(stream.boxed(), limit),
            None => stream.boxed(),
        };
        Ok(stream)
    }

    /// The merge-read context of a primary-key table for this read's projection and filter.
    fn kv_context(&self, resolved: &plan::Resolved) -> Result<kv_read::KvReadContext> {
        let schema = self.table.schema();
        let merge = crate::lsm::merge::create_merge_function(schema)?;
        let value_fields = kv_read::KvReadContext::value_fields(
            &self.table,
            &resolved.wanted,
            merge.needs_values(),
        );
        let layout = crate::lsm::kv_layout::KvLayout::with_values(schema, value_fields.clone())?;
        // Whole maps (no selected keys): merge engines need whole values.
        let plan = resolved.plan(value_fields.clone())?;
        let key_bound = plan.bound.as_ref().and_then(|b| {
            let pk: Vec<usize> = schema
                .trimmed_primary_keys()
                .iter()
                .filter_map(|k| value_fields.iter().position(|f| &f.name == k))
                .collect();
            b.extract_for_columns(&pk)
        });
        Ok(kv_read::KvReadContext {
            files: crate::lsm::kv_file_reader::KvFileReader::new(
                self.table.file_io().clone(),
                self.table.schema_manager().clone(),
                layout.clone(),
                self.batch_size,
            )
            .with_metrics(self.metrics.clone()),
            table: self.table.clone(),
            layout,
            merge,
            key_bound,
            kinds_schema: self
                .row_kinds
                .then(|| row_kinds::with_kind_column(&plan.out_schema)),
            plan: Arc::new(plan),
            batch_size: self.batch_size,
            dv: self.dv_cache()?,
            lookup_merge: crate::lsm::merge::lookup_merge_applies(self.table.options())?,
        })
    }

    /// This read (projection, filter, settings) on `table`, another branch of the same
    /// table, without a limit (`super::fallback`).
    fn on_table(&self, table: Table) -> TableRead {
        TableRead {
            table,
            limit: None,
            ..self.clone()
        }
    }

    /// Reads `splits` into memory.
    pub async fn to_batches(&self, splits: Vec<DataSplit>) -> Result<Vec<RecordBatch>> {
        let mut s = self.to_stream(splits)?;
        let mut out = Vec::new();
        while let Some(b) = s.next().await {
            out.push(b?);
        }
        Ok(out)
    }
}

/// One unit of reading: a file read as is, a primary-key split merged on read, or the files
/// of one row-id range of a data-evolution table stitched.
enum ReadJob {
    File(Box<FileJob>),
    Merge(DataSplit),
    Group(Box<GroupJob>),
}

/// The files of one row-id range of a data-evolution table, newest first.
struct GroupJob {
    dir: String,
    bucket: i32,
    files: Vec<DataFileMeta>,
    snapshot_id: i64,
    partition: strata_spec::binary_row::BinaryRow,
}

struct FileJob {
    dir: String,
    bucket: i32,
    file: DataFileMeta,
    snapshot_id: i64,
    partition: strata_spec::binary_row::BinaryRow,
    /// Only these rows of the file ([`DataSplit::row_range`]).
    row_range: Option<std::ops::Range<u64>>,
}

struct FileReadContext {
    table: Table,
    /// Fields decoded, key columns, filter, projection.
    plan: plan::ReadPlan,
    /// `plan`'s filter pushed into decoding.
    pushed: Option<PushedRowFilter>,
    /// `plan`'s filter as row-group and page pruning.
    stats_pruning: Option<Arc<StatsPruning>>,
    /// Selected MAP keys, MAP-key predicate, metrics.
    hints: ReadHints,
    string_views: bool,
    batch_size: usize,
    /// Deletion vectors (tables with `deletion-vectors.enabled`).
    dv: Option<Arc<deletion_vectors::DvCache>>,
    /// Whether files are skipped by their file indexes (`file-index.read.enabled`).
    file_index: bool,
}

impl FileReadContext {
    /// Reads one row-id range of a data-evolution table (`super::data_evolution`).
    async fn read_group(
        &self,
        job: &GroupJob,
        tx: &tokio::sync::mpsc::Sender<Result<RecordBatch>>,
    ) -> Result<()> {
        let (columns, rows) = super::data_evolution::read_group(
            &self.table,
            &job.dir,
            job.bucket,
            &job.files,
            &self.plan.read_fields,
            self.batch_size,
        )
        .await?;
        // Java `DataEvolutionSplitRead.readDeletionVector`: the anchor file's vector, its
        // positions counted from the range's first row id.
        let (columns, rows) = match &self.dv {
            Some(cache) => match super::data_evolution::anchor_file(&job.files) {
                Some(anchor) => {
                    let dv = cache
                        .get(
                            &self.table,
                            job.snapshot_id,
                            &job.partition,
                            job.bucket,
                            &anchor.file_name,
                        )
                        .await?;
                    match dv {
                        Some(dv) => super::data_evolution::drop_deleted(columns, rows, &dv)?,
                        None => (columns, rows),
                    }
                }
                None => (columns, rows),
            },
            None => (columns, rows),
        };
        let mut at = 0;
        while at < rows {
            let n = self.batch_size.min(rows - at);
            let slice = columns.iter().map(|c| c.slice(at, n)).collect();
            at += n;
            let batch = self.plan.finish(slice, n)?;
            if batch.num_rows() == 0 {
                continue;
            }
            if tx.send(Ok(batch)).await.is_err() {
                return Ok(());
            }
        }
        Ok(())
    }

    async fn read_file(
        &self,
        job: &FileJob,
        tx: &tokio::sync::mpsc::Sender<Result<RecordBatch>>,
    ) -> Result<()> {
        let (partition_dir, bucket, file) = (&job.dir, job.bucket, &job.file);
        let dv = match &self.dv {
            Some(cache) => {
                cache
                    .get(
                        &self.table,
                        job.snapshot_id,
                        &job.partition,
                        bucket,
                        &file.file_name,
                    )
                    .await?
            }
            None => None,
        };
        let (io, path) = match &file.external_path {
            Some(uri) => self.table.file_io().resolve_external(uri)?,
            None => (
                self.table.file_io().clone(),
                self.table
                    .paths()
                    .data_file(partition_dir, bucket, &file.file_name),
            ),
        };
        let data_schema = self.table.schema_manager().schema(file.schema_id).await?;
        if self.file_index
            && !super::file_index::may_match(
                &self.plan,
                file,
                &io,
                &path,
                &data_schema,
                self.hints.metrics.as_deref(),
            )
            .await?
        {
            if let Some(m) = &self.hints.metrics {
                ReadMetrics::add(&m.files_skipped_by_index, 1);
            }
            return Ok(());
        }
        // A file storing `_ROW_ID` and `_SEQUENCE_NUMBER` (planning let only those through)
        // must hold every other column of its schema.
        if let Some(cols) = &file.write_cols {
            let names: Vec<&str> = data_schema.fields.iter().map(|f| f.name.as_str()).collect();
            if cols.len() != names.len() + 2 || cols.iter().zip(&names).any(|(c, n)| c != n) {
                return Err(ErrorDetail::Unsupported(format!(
                    "data file {} holds only the columns {} of its rows (writeCols); strata \
                     does not stitch files by row id",
                    file.file_name,
                    cols.join(", ")
                ))
                .into());
            }
        }
        // `_ROW_ID` / `_SEQUENCE_NUMBER` read: stored in the file or derived from its position.
        let tracking = row_tracking::Slots::of(&self.plan.read_fields);
        let mut data_fields = data_schema.fields.clone();
        let read_fields = match &tracking {
            Some(slots) => {
                data_fields.extend(row_tracking::system_fields());
                slots.decodable(&self.plan.read_fields)
            }
            None => self.plan.read_fields.clone(),
        };
        // Row positions must stay contiguous for a deletion vector and for row ids.
        let contiguous = dv.is_some() || tracking.is_some();
        let mut hints = self.hints.clone();
        if contiguous {
            // Row positions must stay contiguous for a deletion vector: no pruning by MAP
            // keys or statistics (the filter is applied after decoding either way).
            hints.map_key_predicate = None;
        }
        let options = ParquetReadOptions {
            file_size: Some(file.file_size as u64),
            batch_size: self.batch_size,
            // Row positions must stay intact for a deletion vector.
            row_filter: match contiguous {
                true => None,
                false => self.pushed.clone(),
            },
            hints,
            string_views: self.string_views,
            stats_pruning: match contiguous {
                true => None,
                false => self.stats_pruning.clone(),
            },
            row_range: job.row_range.clone(),
            ..Default::default()
        };
        let mut stream = crate::format::data_file_reader::read_data_file(
            &io,
            &path,
            &data_fields,
            &read_fields,
            options,
        )
        .await?;
        // The first row read is the range's first.
        let mut position = job.row_range.as_ref().map_or(0, |r| r.start);
        while let Some(batch) = stream.next().await {
            let mut batch = batch?;
            let rows = batch.num_rows() as u64;
            if let Some(slots) = &tracking {
                batch = slots.fill(batch, file, position)?;
            }
            if let Some(dv) = &dv {
                batch = deletion_vectors::apply(batch, position, dv)?;
            }
            position += rows;
            let n = batch.num_rows();
            let batch = self.plan.finish(batch.columns().to_vec(), n)?;
            if batch.num_rows() == 0 {
                continue;
            }
            if tx.send(Ok(batch)).await.is_err() {
                // Consumer went away (limit reached or dropped): stop reading.
                return Ok(());
            }
        }
        Ok(())
    }
}
