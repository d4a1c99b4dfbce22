//! The write path: [`TableWrite`].
//!
//! Primary-key tables go through [`kv_write`] (sorted write buffers per bucket, level-0 sorted
//! runs, merge engines); the rest of this module is the append-table path.
//!
//! Arrow batches come in (columns matched to the table schema by name and cast), rows are
//! routed to (partition, bucket) — bucket `0` for unaware-bucket tables (`bucket = -1`), or
//! Paimon's Murmur hash of the bucket-key BinaryRow for fixed-bucket tables — and each
//! (partition, bucket) has a [`bucket_writer::BucketWriter`] rolling Parquet files at
//! `target-file-size`. [`TableWrite::prepare_commit`] closes every open file and returns one
//! [`CommitMessage`] per (partition, bucket); [`TableWrite::abort`] deletes everything written
//! so a failed write leaves no trace in the table.

mod append_compact;
mod blob_update;
mod blob_write;
mod bucket_writer;
mod compact_manager;
mod compact_table;
mod cross_partition;
mod data_evolution_dml;
mod deletion_vectors;
mod kv_write;
mod lookup_settings;
mod merge_tree_writer;
mod postpone;
mod postpone_compact;
mod record_merge;
mod rescale;
mod rewrite_file_index;
mod routing;
mod row_kinds;
mod update_columns;
mod writer_channels;

use std::collections::HashMap;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use strata_spec::binary_row::BinaryRow;
use strata_spec::kv::RowKind;

use crate::commit::CommitMessage;
use crate::error::{ErrorDetail, ResultExt};
use crate::format::arrow_types::to_arrow_schema;
use crate::format::convert::{cast_batch_with_defaults, ColumnDefaults};
use crate::table::Table;
use crate::Result;

pub use crate::lsm::compact::task::TaskMetrics;
use bucket_writer::{BucketWriter, WriterConfig};
pub use compact_manager::CompactionMetrics;
pub use compact_table::{CompactReport, CompactRequest};
pub use data_evolution_dml::RowIdChanges;
pub use record_merge::{MergeRow, RecordMerge};
pub use rescale::{RescaleReport, RescaleRequest};
pub use rewrite_file_index::RewriteFileIndexReport;
use routing::Router;
use row_kinds::AppendRowKinds;
pub use writer_channels::WriterChannels;

impl Table {
    /// A writer of new data files for this table (commit its messages with
    /// [`Table::new_commit`]).
    pub fn new_write(&self) -> Result<TableWrite> {
        blob_write::refuse_unwritable(self, "writing")?;
        TableWrite::new(self.clone())
    }

    /// Writes `batches` and commits them as one snapshot (APPEND, or OVERWRITE when
    /// `overwrite` is given). On any failure the written data files are deleted and the table
    /// is unchanged. Returns the new snapshot id (`None` when nothing was committed).
    pub async fn write_batches(
        &self,
        batches: impl IntoIterator<Item = RecordBatch>,
        overwrite: Option<crate::commit::OverwriteScope>,
    ) -> Result<Option<i64>> {
        let mut write = self.new_write()?.with_overwrite(overwrite.is_some());
        let result = async {
            for b in batches {
                write.write(&b).await?;
            }
            let messages = write.prepare_commit().await?;
            let commit = self.new_commit()?;
            match overwrite {
                Some(scope) => commit.overwrite(scope, messages).await,
                None => commit.commit(messages).await,
            }
        }
        .await;
        // Clean up after a failure, unless the commit may have landed and references the files.
        if result.as_ref().is_err_and(|e| !e.may_have_committed()) {
            write.abort().await;
        }
        result
    }
}

/// Writes Arrow batches into new data files of one table; commit them with
/// [`crate::commit::TableCommit`].
pub struct TableWrite {
    table: Table,
    arrow_schema: SchemaRef,
    /// The columns' default values, written where a row has NULL (Java's `DefaultValueRow`).
    defaults: ColumnDefaults,
    router: Router,
    config: std::sync::Arc<WriterConfig>,
    writers: HashMap<(BinaryRow, i32), BucketWriter>,
    /// Max sequence number per (partition, bucket) in the latest snapshot, loaded on first use.
    restored_seq: Option<HashMap<(BinaryRow, i32), i64>>,
    /// Rows received so far.
    /// The keys of `writers` in the order they were created (row tracking orders the commit's
    /// files as Java's writer map does).
    writer_order: Vec<(BinaryRow, i32)>,
    rows_written: u64,
    /// Primary-key tables: the key-value writer, created at the first write.
    kv: Option<kv_write::KvWrite>,
    /// Append tables: the row kinds they take (`+I`, `+U`; `ignore-delete` drops retractions).
    append_kinds: Option<AppendRowKinds>,
    /// The files will be committed as an OVERWRITE (dynamic-bucket tables then start from an
    /// empty key index, as Java's overwrite does).
    overwrite: bool,
    /// Compaction tasks finished since the last [`Self::take_compaction_metrics`].
    compaction_metrics: Vec<CompactionMetrics>,
}

impl TableWrite {
    pub(crate) fn new(table: Table) -> Result<Self> {
        // strata reads ORC and Avro data files but writes only Parquet: Parquet files written
        // (or compacted) into a table whose `file.format` says otherwise would silently go
        // against the table's option.
        let format = table.options().file_format();
        if format != "parquet" {
            return Err(ErrorDetail::UnsupportedOption {
                key: "file.format".into(),
                message: format!(
                "writing to {}: file.format = {format}, and strata writes only Parquet data                  files (it reads this table's {format} files); write or compact the table with                  Java Paimon, Spark or Flink, or set file.format = parquet (files already                  written keep their format and stay readable)",
                table.identifier()
            )}.into());
        }
        // Options strata does not implement would make its files or commits wrong for the
        // other engines (a table created by Java may carry any of them). changelog-producer
        // has its own refusal with advice (kv_write).
        let mut stored = table.schema().options.clone();
        stored.remove("changelog-producer");
        crate::table::refuse_unsupported_options(
            &stored,
            &format!("writing to {}", table.identifier()),
        )?;
        let mut append_kinds = None;
        if table.is_primary_key_table() {
            // Validate the merge engine options now rather than at the first write.
            crate::lsm::merge::create_merge_function(table.schema())?;
        } else {
            append_kinds = Some(AppendRowKinds::new(&table)?);
        }
        let schema = table.schema().clone();
        let arrow_schema = to_arrow_schema(&schema.row_type())?;
        let defaults = ColumnDefaults::of(
            &schema.fields,
            &arrow_schema,
            &format!("writing to {}", table.identifier()),
        )?;
        let router = Router::new(&table)?;
        let config = std::sync::Arc::new(WriterConfig::from_table(&table)?);
        Ok(TableWrite {
            table,
            arrow_schema,
            defaults,
            router,
            config,
            writers: HashMap::new(),
            restored_seq: None,
            rows_written: 0,
            kv: None,
            writer_order: Vec::new(),
            append_kinds,
            overwrite: false,
            compaction_metrics: Vec::new(),
        })
    }

    /// When every write to `table` fully compacts the buckets it touches, why: the option
    /// that needs a kind of Paimon's lookup compaction strata does not have (`force-lookup`),
    /// so it keeps those buckets at one level instead. Each write then rewrites the whole of
    /// every bucket it writes to. `None` for other tables (deletion-vector and first-row
    /// tables compact with lookups), and for `write-only` ones (never compacted on write).
    pub fn full_compaction_on_write(table: &Table) -> Result<Option<String>> {
        let opts = table.options();
        if !table.is_primary_key_table()
            || opts.write_only()?
            || lookup_settings::lookup_mode(opts)?.is_some()
        {
            return Ok(None);
        }
        lookup_settings::lookup_reason(opts)
    }

    /// Marks this write as the input of an OVERWRITE commit. Needed for dynamic-bucket
    /// primary-key tables, whose key index must not route keys to buckets being replaced.
    pub fn with_overwrite(mut self, overwrite: bool) -> Self {
        self.overwrite = overwrite;
        self
    }

    /// The Arrow schema input batches are converted to.
    pub fn arrow_schema(&self) -> &SchemaRef {
        &self.arrow_schema
    }

    /// Rows accepted so far.
    pub fn rows_written(&self) -> u64 {
        self.rows_written
    }

    /// Bytes of data files written so far (including files still open).
    pub fn bytes_written(&self) -> u64 {
        self.writers.values().map(|w| w.bytes_written()).sum()
    }

    /// Writes one batch. Columns are matched by name and cast to the table's types; a
    /// missing NOT NULL column, an extra column or an impossible cast is an error naming the
    /// column. A column's default value (`defaultValue` in the schema) is written where the
    /// column is missing or NULL, as Java's writers do (`DefaultValueRow`).
    ///
    /// Each row is an insert (`+I`) unless the table has a `rowkind.field` column; use
    /// [`Self::write_with_kinds`] to give row kinds directly. `ignore-delete` drops `-U` and
    /// `-D` rows, `ignore-update-before` `-U` rows; an append table refuses a `-U` or `-D` row
    /// left after that (it stores rows, not changes), as Java's `AppendOnlyFileStoreTable`.
    pub async fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.write_impl(batch, None)
            .await
            .with_table(self.table.identifier())
    }

    /// Writes one batch with an explicit row kind per row (`+I`, `-U`, `+U`, `-D`); the kinds
    /// override the `rowkind.field` column and go through the same filter and refusal as
    /// [`Self::write`]'s (an append table takes `+I` and `+U` rows only).
    pub async fn write_with_kinds(&mut self, batch: &RecordBatch, kinds: &[RowKind]) -> Result<()> {
        self.write_impl(batch, Some(kinds))
            .await
            .with_table(self.table.identifier())
    }

    async fn write_impl(&mut self, batch: &RecordBatch, kinds: Option<&[RowKind]>) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let batch = cast_batch_with_defaults(
            batch,
            &self.arrow_schema,
            &self.defaults,
            &self.table.identifier().to_string(),
        )?;
        if self.table.is_primary_key_table() {
            if self.kv.is_none() {
                self.kv = Some(kv_write::KvWrite::new(self.table.clone(), self.overwrite).await?);
            }
            let kv = self.kv.as_mut().expect("created just above");
            kv.write(&batch, kinds).await?;
            self.rows_written += batch.num_rows() as u64;
            return Ok(());
        }
        let batch = self
            .append_kinds
            .as_ref()
            .expect("append tables have their row kinds")
            .admit(batch, kinds)?;
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if self.restored_seq.is_none() {
            // Row-tracking tables (bucket = -1) count from 0 in every write, as Java's
            // unaware-bucket writers do (`AppendFileStoreWrite` ignores previous files): the
            // commit stamps a file starting at 0 with the snapshot id (`commit::row_tracking`).
            self.restored_seq = Some(if self.table.options().row_tracking_enabled()? {
                HashMap::new()
            } else {
                restore_sequence_numbers(&self.table).await?
            });
        }
        for (partition, bucket, part) in self.router.route(&batch)? {
            let key = (partition, bucket);
            if !self.writers.contains_key(&key) {
                let next_seq = self
                    .restored_seq
                    .as_ref()
                    .and_then(|m| m.get(&key))
                    .map(|s| s + 1)
                    .unwrap_or(0);
                let dir = self.table.partition_path(&key.0)?;
                let w = BucketWriter::new(
                    self.table.clone(),
                    self.config.clone(),
                    key.0.clone(),
                    dir,
                    bucket,
                    next_seq,
                );
                self.writers.insert(key.clone(), w);
                self.writer_order.push(key.clone());
            }
            let w = self
                .writers
                .get_mut(&key)
                .expect("writer was inserted just above");
            w.write(&part).await?;
        }
        self.rows_written += batch.num_rows() as u64;
        self.enforce_memory().await
    }

    /// Keeps the open append files within `write-buffer-size` together: while they hold more,
    /// the biggest is finished (see `bucket_writer`).
    async fn enforce_memory(&mut self) -> Result<()> {
        loop {
            let total: usize = self.writers.values().map(BucketWriter::memory).sum();
            if total <= self.config.memory_pool {
                return Ok(());
            }
            let Some(biggest) = self
                .writers
                .values_mut()
                .max_by_key(|w| w.memory())
                .filter(|w| w.memory() > 0)
            else {
                return Ok(());
            };
            biggest.flush_for_memory().await?;
        }
    }

    /// Closes all open files and returns the new files per (partition, bucket).
    pub async fn prepare_commit(&mut self) -> Result<Vec<CommitMessage>> {
        self.prepare_commit_impl()
            .await
            .with_table(self.table.identifier())
    }

    async fn prepare_commit_impl(&mut self) -> Result<Vec<CommitMessage>> {
        if let Some(kv) = &mut self.kv {
            return kv.prepare_commit(&mut self.compaction_metrics).await;
        }
        let mut out = Vec::new();
        let total_buckets = self.router.total_buckets();
        let mut keys: Vec<_> = self.writers.keys().cloned().collect();
        keys.sort_by(|a, b| (a.0.as_bytes(), a.1).cmp(&(b.0.as_bytes(), b.1)));
        if self.table.options().row_tracking_enabled()? {
            // Row ids follow the commit's file order: Java's, its writers' `HashMap` by
            // partition (one bucket per partition on these bucket = -1 tables).
            use crate::commit::row_tracking::{java_hash_map_order, Insert};
            keys = java_hash_map_order(&self.writer_order, |k| k.0.hash_code() as u32, Insert::Put);
        }
        for key in keys {
            let w = self
                .writers
                .get_mut(&key)
                .expect("key was taken from the map");
            let files = w
                .prepare_commit()
                .await
                .map_err(|e| self.table.error_in_bucket(e, &key.0, key.1))?;
            if !files.is_empty() {
                out.push(CommitMessage {
                    new_files: files,
                    ..CommitMessage::new(key.0.clone(), key.1, total_buckets)
                });
            }
        }
        Ok(out)
    }

    /// Compacts the buckets of a primary-key table for which `select(partition, bucket)`
    /// holds (`full`: everything into the max level, as Paimon's `compact` procedure; else the
    /// table's normal picking). The result is part of the next [`Self::prepare_commit`], whose
    /// commit then writes a COMPACT snapshot. Returns the number of buckets visited.
    pub async fn compact(
        &mut self,
        select: &(dyn Fn(&BinaryRow, i32) -> bool + Sync),
        full: bool,
    ) -> Result<usize> {
        self.compact_impl(select, full)
            .await
            .with_table(self.table.identifier())
    }

    async fn compact_impl(
        &mut self,
        select: &(dyn Fn(&BinaryRow, i32) -> bool + Sync),
        full: bool,
    ) -> Result<usize> {
        if !self.table.is_primary_key_table() {
            return Err(ErrorDetail::Unsupported(format!(
                "TableWrite::compact compacts primary-key tables; {} has no primary key: use Table::compact",
                self.table.identifier()
            ))
            .into());
        }
        if self.kv.is_none() {
            self.kv = Some(kv_write::KvWrite::new(self.table.clone(), self.overwrite).await?);
        }
        let kv = self.kv.as_mut().expect("created just above");
        kv.compact(select, full).await
    }

    /// The (partition, bucket)s this write has a writer for (primary-key tables).
    pub(crate) fn written_buckets(&self) -> std::collections::HashSet<(BinaryRow, i32)> {
        self.kv
            .as_ref()
            .map(|kv| kv.written_buckets())
            .unwrap_or_default()
    }

    /// Metrics of the compaction tasks collected by prepare-commit since the last call.
    pub fn take_compaction_metrics(&mut self) -> Vec<CompactionMetrics> {
        std::mem::take(&mut self.compaction_metrics)
    }

    /// Deletes every file this writer created (best effort) — for a failed write or commit.
    pub async fn abort(&mut self) {
        if let Some(kv) = &mut self.kv {
            kv.abort().await;
        }
        for w in self.writers.values_mut() {
            w.abort().await;
        }
        self.writers.clear();
        self.writer_order.clear();
    }
}

/// Max sequence number per (partition, bucket) among the live files of the latest snapshot
/// (a free function so the write future never holds `&TableWrite` across an await).
pub(super) async fn restore_sequence_numbers(
    table: &Table,
) -> Result<HashMap<(BinaryRow, i32), i64>> {
    let mut out: HashMap<(BinaryRow, i32), i64> = HashMap::new();
    let Some(snapshot) = table.snapshot_manager().latest().await? else {
        return Ok(out);
    };
    let metas = table.manifest_store().data_manifests(&snapshot).await?;
    for e in crate::scan::live_entries(table, &snapshot, &metas).await? {
        let v = out.entry((e.partition, e.bucket)).or_insert(-1);
        *v = (*v).max(e.file.max_sequence_number);
    }
    Ok(out)
}
