//! [`RollingKvWriter`]: writes a key-sorted, key-unique stream of key-value records into
//! data files of one (partition, bucket) at one level (//! Java `KeyValueDataFileWriter` + `RollingFileWriterImpl`).
//!
//! Each file's [`DataFileMeta`] is what Java records: min/max key = the key of the first/last
//! record (the input is sorted), key statistics always in full mode, value statistics per
//! `metadata.stats-mode` (dense store: `_VALUE_STATS_COLS` lists the columns kept), sequence
//! number range, `_DELETE_ROW_COUNT` = records of kind `-U`/`-D`, the level and file source.
//!
//! Rolling follows Java's rule: the size check runs every 1000 records of the rolling writer
//! (the count runs across the files it rolls), comparing the Parquet writer's size estimate
//! with `target-file-size`, so files are cut at 1000-record multiples.

use std::sync::Arc;

use arrow_array::RecordBatch;
use object_store::path::Path;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{DataFileMeta, FileSource};
use strata_spec::schema::TableSchema;
use strata_spec::stats::{SimpleStats, StatsMode};
use strata_spec::{DataType, RowType};

use super::kv_layout::{is_retract_byte, kind_column, seq_column, KvLayout};
use crate::format::datum::datum_at;
use crate::format::file_index::writer::{DataFileIndexWriter, FileIndexOptions, FileIndexOutput};
use crate::format::map_shredding::MapShredding;
use crate::format::parquet_writer::{ParquetWriteOptions, ParquetWriter};
use crate::format::stats::StatsCollector;
use crate::format::stats_options::ValueStatsLayout;
use crate::format::variant_shred_adaptive::{new_session, SharedSession};
use crate::io::FileIO;
use crate::meta::FileNamer;
use crate::{Error, Result};

/// Records between two size checks (Java's `RollingFileWriter.CHECK_ROLLING_RECORD_CNT`).
pub(crate) const ROLLING_CHECK_RECORDS: u64 = 1000;

/// Settings shared by the key-value writers of one table.
#[derive(Debug)]
pub(crate) struct KvWriterConfig {
    pub layout: Arc<KvLayout>,
    pub schema_id: i64,
    pub target_file_size: u64,
    pub file_prefix: String,
    pub parquet: ParquetWriteOptions,
    value_modes: Vec<StatsMode>,
    /// Value columns kept in the stats (`None` = all) and their names.
    stats_cols: Option<(Vec<usize>, Vec<String>)>,
    stats_types: Vec<DataType>,
    key_types: Vec<DataType>,
    /// Key statistics: always full, except in postpone-bucket files (`none`, as Java's
    /// `PostponeBucketFileStoreWrite` sets `metadata.stats-mode = none` for them).
    key_stats_mode: StatsMode,
    /// The shredded MAP value columns (`None`: none); each rolling writer clones it and keeps
    /// its own K history.
    shredding: Option<MapShredding>,
    /// `file-index.*` over the value columns (none for changelog files: Java's
    /// "changelog is sequentially consumed, file index is unnecessary").
    file_index: FileIndexOptions,
}

impl KvWriterConfig {
    pub(crate) fn new(schema: &TableSchema) -> Result<Arc<Self>> {
        Ok(Arc::new(Self::build(schema)?))
    }

    fn build(schema: &TableSchema) -> Result<Self> {
        let opts = schema.options();
        let layout = KvLayout::for_table(schema)?;
        // Java's `KeyValueFileWriterFactory`: the value columns of data files are indexed.
        let file_index = FileIndexOptions::parse(
            &schema.options,
            &RowType::new(layout.value_fields.clone()),
            opts.file_index_in_manifest_threshold()?,
        )?;
        let stats = ValueStatsLayout::new(schema)?;
        let key_types = layout
            .key_fields
            .iter()
            .map(|f| f.data_type.clone())
            .collect();
        let shredding = MapShredding::from_options(
            &layout.schema,
            &layout.value_fields,
            &schema.fields,
            &opts,
        )?;
        Ok(KvWriterConfig {
            file_index,
            shredding,
            schema_id: schema.id,
            target_file_size: opts.target_file_size(true)?,
            file_prefix: opts.data_file_prefix().to_string(),
            parquet: ParquetWriteOptions::from_options(&schema.options)?,
            value_modes: stats.modes,
            stats_cols: stats.stats_cols,
            stats_types: stats.stats_types,
            key_types,
            key_stats_mode: StatsMode::Full,
            layout,
        })
    }

    /// The settings of postpone-bucket files (Java `PostponeBucketFileStoreWrite`): no key or
    /// value statistics (`metadata.stats-mode = none`), named `prefix`
    /// (`<data-file.prefix>-u-<commitUser>-s-<writeId>-w-`).
    pub(crate) fn for_postpone(schema: &TableSchema, prefix: String) -> Result<Arc<Self>> {
        let mut postpone = schema.clone();
        postpone.options.insert(
            strata_spec::options::keys::METADATA_STATS_MODE.to_string(),
            "none".to_string(),
        );
        let mut config = Self::build(&postpone)?;
        config.file_prefix = prefix;
        config.key_stats_mode = StatsMode::None;
        Ok(Arc::new(config))
    }

    /// The settings of the table's changelog files (Java `KeyValueFileWriterFactory`'s
    /// changelog writer): the same key-value layout, named `changelog-file.prefix` (default
    /// `changelog-`), compressed with `changelog-file.compression` and with value statistics
    /// per `changelog-file.stats-mode` where set (the data file options otherwise).
    pub(crate) fn for_changelog(schema: &TableSchema) -> Result<Arc<Self>> {
        use strata_spec::options::keys;
        let opts = schema.options();
        let mut changelog = schema.clone();
        for (from, to) in [
            ("changelog-file.compression", "file.compression"),
            ("changelog-file.stats-mode", keys::METADATA_STATS_MODE),
        ] {
            if let Some(v) = opts.get(from) {
                changelog.options.insert(to.to_string(), v.to_string());
            }
        }
        let prefix = opts.changelog_file_prefix().to_string();
        let mut config = Self::build(&changelog)?;
        config.file_prefix = prefix;
        config.file_index = FileIndexOptions::default();
        Ok(Arc::new(config))
    }

    pub(crate) fn key_types(&self) -> &[DataType] {
        &self.key_types
    }
}

struct OpenFile {
    writer: ParquetWriter,
    name: String,
    key_stats: StatsCollector,
    value_stats: StatsCollector,
    min_key: BinaryRow,
    last_batch: Option<RecordBatch>,
    min_seq: i64,
    max_seq: i64,
    deletes: i64,
    rows: i64,
    /// The file's indexes over its value columns (`None`: the table has none).
    index: Option<DataFileIndexWriter>,
}

/// Rolls key-value data files of one bucket at one level.
pub(crate) struct RollingKvWriter {
    io: FileIO,
    config: Arc<KvWriterConfig>,
    file_path: Box<dyn Fn(&str) -> Path + Send + Sync>,
    level: i32,
    source: FileSource,
    current: Option<OpenFile>,
    finished: Vec<DataFileMeta>,
    created: Vec<Path>,
    /// Records written by this rolling writer (across files).
    records: u64,
    /// Shredded MAP columns and their K history across this writer's files.
    shredding: Option<MapShredding>,
    /// `variant.shredding.inferenceMode = adaptive`: inference evidence across this rolling
    /// writer's files (Java's writer factory of one `KeyValueFileWriterFactory` rolling writer).
    variant_session: Option<SharedSession>,
}

impl RollingKvWriter {
    /// `file_path` maps a new file name to its path in the bucket directory.
    pub(crate) fn new(
        io: FileIO,
        config: Arc<KvWriterConfig>,
        file_path: Box<dyn Fn(&str) -> Path + Send + Sync>,
        level: i32,
        source: FileSource,
    ) -> Self {
        RollingKvWriter {
            variant_session: new_session(config.parquet.variant_infer.as_ref()),
            shredding: config.shredding.clone(),
            io,
            config,
            file_path,
            level,
            source,
            current: None,
            finished: Vec::new(),
            created: Vec::new(),
            records: 0,
        }
    }

    /// Writes sorted, key-unique records (continuing the order of earlier batches).
    pub(crate) async fn write(&mut self, batch: &RecordBatch, namer: &FileNamer) -> Result<()> {
        let n = batch.num_rows() as u64;
        // Shortcut: the encoded size grows by at most the batch's Arrow size, so when even that
        // stays below the target no 1000-record check inside this batch could roll; write it
        // whole instead of in 1000-record slices.
        let current = self
            .current
            .as_ref()
            .map(|f| f.writer.bytes_written())
            .unwrap_or(0);
        let growth = batch.get_array_memory_size() as u64;
        if current + growth < self.config.target_file_size {
            self.write_slice(batch, namer).await?;
            self.records += n;
            return Ok(());
        }
        let mut offset = 0u64;
        while offset < n {
            // Up to the next 1000-record boundary of this rolling writer.
            let to_boundary = ROLLING_CHECK_RECORDS - self.records % ROLLING_CHECK_RECORDS;
            let len = to_boundary.min(n - offset);
            let slice = batch.slice(offset as usize, len as usize);
            self.write_slice(&slice, namer).await?;
            offset += len;
            self.records += len;
            if self.records.is_multiple_of(ROLLING_CHECK_RECORDS) {
                let full = self
                    .current
                    .as_ref()
                    .map(|f| f.writer.bytes_written() >= self.config.target_file_size)
                    .unwrap_or(false);
                if full {
                    self.close_current().await?;
                }
            }
        }
        Ok(())
    }

    async fn write_slice(&mut self, batch: &RecordBatch, namer: &FileNamer) -> Result<()> {
        let layout = &self.config.layout;
        if self.current.is_none() {
            let name = namer.data_file(&self.config.file_prefix, "parquet");
            let path = (self.file_path)(&name);
            self.created.push(path.clone());
            let shredder = match &self.shredding {
                Some(s) => Some(s.start_file(&layout.schema, Some(batch))?),
                None => None,
            };
            let writer = ParquetWriter::create_with(
                &self.io,
                path,
                layout.schema.clone(),
                &self.config.parquet,
                shredder,
            )?
            .with_inference_session(self.variant_session.as_ref())?;
            let key_row_type = RowType::new(layout.key_fields.clone());
            self.current = Some(OpenFile {
                writer,
                name,
                key_stats: StatsCollector::with_mode(&key_row_type, self.config.key_stats_mode),
                value_stats: StatsCollector::new(
                    &RowType::new(layout.value_fields.clone()),
                    &self.config.value_modes,
                )?,
                min_key: key_at(batch, 0, &self.config.key_types)?,
                last_batch: None,
                min_seq: i64::MAX,
                max_seq: i64::MIN,
                deletes: 0,
                rows: 0,
                index: DataFileIndexWriter::create(
                    &self.config.file_index,
                    &RowType::new(layout.value_fields.clone()),
                )?,
            });
        }
        let file = self.current.as_mut().expect("opened just above");
        file.writer.write(batch).await?;
        let nk = layout.num_keys();
        let keys = RecordBatch::try_new(
            arrow_schema::Schema::new(layout.schema.fields()[..nk].to_vec()).into(),
            batch.columns()[..nk].to_vec(),
        )
        .map_err(|e| Error::arrow("key columns", e))?;
        file.key_stats.update(&keys)?;
        let values = RecordBatch::try_new(
            arrow_schema::Schema::new(layout.schema.fields()[layout.value_col(0)..].to_vec())
                .into(),
            layout.values_of(batch),
        )
        .map_err(|e| Error::arrow("value columns", e))?;
        file.value_stats.update(&values)?;
        if let Some(index) = &mut file.index {
            index.write(&values)?;
        }
        let seq = seq_column(layout, batch)?;
        if let Some(m) = arrow::compute::min(seq) {
            file.min_seq = file.min_seq.min(m);
        }
        if let Some(m) = arrow::compute::max(seq) {
            file.max_seq = file.max_seq.max(m);
        }
        let kinds = kind_column(layout, batch)?;
        file.deletes += kinds
            .values()
            .iter()
            .filter(|k| is_retract_byte(**k))
            .count() as i64;
        file.rows += batch.num_rows() as i64;
        file.last_batch = Some(batch.clone());
        Ok(())
    }

    async fn close_current(&mut self) -> Result<()> {
        let Some(file) = self.current.take() else {
            return Ok(());
        };
        let last = file
            .last_batch
            .as_ref()
            .expect("a file is opened only to write a non-empty batch");
        let max_key = key_at(last, last.num_rows() - 1, &self.config.key_types)?;
        let info = file.writer.close().await?;
        if let Some(s) = &mut self.shredding {
            s.file_completed(&info.shredded);
        }
        let key_cols = file.key_stats.finish();
        let key_stats = SimpleStats::from_columns(&key_cols, &self.config.key_types)?;
        let all = file.value_stats.finish();
        let cols = match &self.config.stats_cols {
            Some((idx, _)) => idx.iter().map(|i| all[*i].clone()).collect::<Vec<_>>(),
            None => all,
        };
        let value_stats = SimpleStats::from_columns(&cols, &self.config.stats_types)?;
        let (embedded_index, extra_files) = match file.index.map(|i| i.finish()) {
            None => (None, Vec::new()),
            Some(FileIndexOutput::Embedded(bytes)) => (Some(bytes), Vec::new()),
            Some(FileIndexOutput::Separate(bytes)) => {
                let name = format!(
                    "{}{}",
                    file.name,
                    crate::format::file_index::INDEX_PATH_SUFFIX
                );
                let path = (self.file_path)(&name);
                self.created.push(path.clone());
                self.io.put(&path, bytes).await?;
                (None, vec![name])
            }
        };
        self.finished.push(DataFileMeta {
            file_name: file.name,
            file_size: info.file_size as i64,
            row_count: file.rows,
            min_key: file.min_key,
            max_key,
            key_stats,
            value_stats,
            min_sequence_number: file.min_seq,
            max_sequence_number: file.max_seq,
            schema_id: self.config.schema_id,
            level: self.level,
            extra_files,
            creation_time: Some(local_now_millis()),
            delete_row_count: Some(file.deletes),
            embedded_index,
            file_source: Some(self.source),
            value_stats_cols: self.config.stats_cols.as_ref().map(|(_, n)| n.clone()),
            external_path: None,
            first_row_id: None,
            write_cols: None,
        });
        crate::fault::inject(match self.source {
            FileSource::Compact => "compact.after-rewrite-file",
            FileSource::Append => "write.after-data-file",
        })
    }

    /// Closes the open file and returns every file written.
    pub(crate) async fn close(&mut self) -> Result<Vec<DataFileMeta>> {
        self.close_current().await?;
        Ok(std::mem::take(&mut self.finished))
    }

    /// Every path this writer created (for cleanup after a failed commit).
    pub(crate) fn created_paths(&self) -> &[Path] {
        &self.created
    }

    /// Deletes every file this writer created.
    pub(crate) async fn abort(&mut self) {
        if let Some(f) = self.current.take() {
            let _ = f.writer.abort().await;
        }
        for p in self.created.drain(..) {
            let _ = self.io.delete(&p).await;
        }
        self.finished.clear();
    }
}

/// The key of record `row` as a BinaryRow.
fn key_at(batch: &RecordBatch, row: usize, key_types: &[DataType]) -> Result<BinaryRow> {
    let datums = (0..key_types.len())
        .map(|i| datum_at(batch.column(i).as_ref(), row))
        .collect::<Result<Vec<_>>>()?;
    Ok(BinaryRow::from_datums(&datums, key_types)?)
}

/// Java's `_CREATION_TIME`: local wall-clock time encoded as if it were UTC.
pub(crate) fn local_now_millis() -> i64 {
    chrono::Local::now()
        .naive_local()
        .and_utc()
        .timestamp_millis()
}
