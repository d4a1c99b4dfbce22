//! One (partition, bucket) of an append table: a rolling Parquet writer.
//!
//! The open files of all bucket writers of one `TableWrite` share one memory pool of
//! `write-buffer-size` bytes (Java's `MemoryPoolFactory`): when a write leaves them holding
//! more, the biggest one is finished early ([`BucketWriter::flush_for_memory`]), so a write
//! touching many partitions holds at most the pool, not a row group per partition.
//!
//! Files roll when the bytes written reach `target-file-size` (checked after every batch, so a
//! file overshoots by at most one batch). Each file's value statistics are collected while it
//! is written and stored in its [`DataFileMeta`] exactly as Java's `RowDataFileWriter` does
//! (dense stats: columns with stats mode `none` are dropped and `_VALUE_STATS_COLS` lists the
//! rest; null when every column has stats).

use std::sync::Arc;

use arrow_array::RecordBatch;
use object_store::path::Path;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{DataFileMeta, FileSource};
use strata_spec::stats::{SimpleStats, StatsMode};
use strata_spec::{DataType, RowType};

use crate::format::file_index::writer::{DataFileIndexWriter, FileIndexOptions, FileIndexOutput};
use crate::format::map_shredding::MapShredding;
use crate::format::parquet_writer::{ParquetWriteOptions, ParquetWriter};
use crate::format::stats::StatsCollector;
use crate::format::variant_shred_adaptive::{new_session, SharedSession};
use crate::lsm::kv_file_writer::local_now_millis;
use crate::meta::FileNamer;
use crate::table::Table;
use crate::Result;

use crate::format::stats_options::ValueStatsLayout;

use super::blob_write::{BlobColumnsWriter, BlobLayout};

/// Settings shared by all bucket writers of one [`super::TableWrite`].
#[derive(Debug)]
pub(super) struct WriterConfig {
    row_type: RowType,
    arrow_schema: arrow_schema::SchemaRef,
    schema_id: i64,
    target_file_size: u64,
    /// `write-buffer-size`: the memory all open files of one `TableWrite` may hold together.
    pub(super) memory_pool: usize,
    file_prefix: String,
    stats_modes: Vec<StatsMode>,
    /// Indices of columns present in value stats and their names (`None` = all columns).
    stats_cols: Option<(Vec<usize>, Vec<String>)>,
    stats_types: Vec<DataType>,
    parquet: ParquetWriteOptions,
    /// The shredded MAP columns (`None`: none); each bucket writer clones it and keeps its own
    /// K history.
    shredding: Option<MapShredding>,
    /// `file-index.*`: the indexes built for each file (Java's `DataFileIndexWriter`).
    file_index: FileIndexOptions,
    /// `data-evolution.enabled`: sequence numbers restart at 0 in every file.
    per_file_sequence: bool,
    /// The files' `writeCols` (`None`: the table's columns). A row-tracking compaction writes
    /// every column plus `_ROW_ID` and `_SEQUENCE_NUMBER` (Java's
    /// `SpecialFields.rowTypeWithRowTracking` write type).
    write_cols: Option<Vec<String>>,
    /// The table's BLOB columns, written to `.blob` files beside the Parquet file of the other
    /// columns (`super::blob_write`); `None`: the table has none.
    blobs: Option<BlobLayout>,
}

impl WriterConfig {
    pub(super) fn from_table(table: &Table) -> Result<Self> {
        let schema = table.schema();
        let opts = table.options();
        let blobs = BlobLayout::of(table)?;
        let (row_type, stats) = match &blobs {
            // The Parquet file holds the non-BLOB columns only, its statistics theirs.
            Some(b) => (
                RowType::new(b.normal.iter().map(|i| schema.fields[*i].clone()).collect()),
                b.normal_stats(&ValueStatsLayout::new(schema)?, table),
            ),
            None => (schema.row_type(), ValueStatsLayout::new(schema)?),
        };
        let arrow_schema = crate::format::arrow_types::to_arrow_schema(&row_type)?;
        let shredding =
            MapShredding::from_options(&arrow_schema, &row_type.fields, &row_type.fields, opts)?;
        let file_index = FileIndexOptions::parse(
            opts.as_map(),
            &row_type,
            opts.file_index_in_manifest_threshold()?,
        )?;
        let write_cols = blobs
            .as_ref()
            .map(|_| row_type.fields.iter().map(|f| f.name.clone()).collect());
        Ok(WriterConfig {
            file_index,
            per_file_sequence: opts.data_evolution_enabled()?,
            shredding,
            arrow_schema,
            row_type,
            schema_id: schema.id,
            target_file_size: opts.target_file_size(false)?,
            memory_pool: opts.write_buffer_size()? as usize,
            file_prefix: opts.data_file_prefix().to_string(),
            stats_modes: stats.modes,
            stats_cols: stats.stats_cols,
            stats_types: stats.stats_types,
            parquet: ParquetWriteOptions::from_options(&schema.options)?,
            write_cols,
            blobs,
        })
    }

    /// The settings of a row-tracking table's compaction: files store `_ROW_ID` and
    /// `_SEQUENCE_NUMBER` after the table's columns (input batches carry them), with value
    /// statistics over all of them and `writeCols` naming them, as Java's compaction with the
    /// write type `SpecialFields.rowTypeWithRowTracking` writes. Tables shredding MAP columns are refused.
    pub(super) fn with_row_tracking_columns(table: &Table) -> Result<Self> {
        let mut config = Self::from_table(table)?;
        if config.blobs.is_some() {
            return Err(crate::error::ErrorDetail::Unsupported(format!(
                "compaction of row-tracking table {}: it has BLOB columns (.blob files); \
                 strata does not compact such tables",
                table.identifier()
            ))
            .into());
        }
        if config.shredding.is_some() {
            return Err(crate::error::ErrorDetail::Unsupported(format!(
                "compaction of row-tracking table {}: its MAP columns are shredded \
                 (map.shredding options); strata does not compact such tables",
                table.identifier()
            ))
            .into());
        }
        let mut fields = config.row_type.fields.clone();
        fields.extend(strata_spec::kv::row_tracking_fields());
        let row_type = RowType::new(fields);
        config.arrow_schema = crate::format::arrow_types::to_arrow_schema(&row_type)?;
        for f in strata_spec::kv::row_tracking_fields() {
            config.stats_modes.push(StatsMode::Full);
            if config.stats_cols.is_none() {
                config.stats_types.push(f.data_type.clone());
            } else if let Some((idx, names)) = &mut config.stats_cols {
                idx.push(
                    row_type
                        .fields
                        .iter()
                        .position(|g| g.id == f.id)
                        .unwrap_or(0),
                );
                names.push(f.name.clone());
                config.stats_types.push(f.data_type.clone());
            }
        }
        config.write_cols = Some(row_type.fields.iter().map(|f| f.name.clone()).collect());
        config.file_index = FileIndexOptions::parse(
            table.options().as_map(),
            &row_type,
            table.options().file_index_in_manifest_threshold()?,
        )?;
        config.row_type = row_type;
        Ok(config)
    }
}

struct OpenFile {
    writer: ParquetWriter,
    stats: StatsCollector,
    name: String,
    min_seq: i64,
    rows: i64,
    /// Files storing `_SEQUENCE_NUMBER` (row-tracking compaction): the smallest and largest
    /// value written and whether one was null (Java's `RowDataFileSequenceNumberTracker`).
    stored_seq: Option<(i64, i64, bool)>,
    /// The file's indexes (`None`: the table has none).
    index: Option<DataFileIndexWriter>,
}

pub(super) struct BucketWriter {
    table: Table,
    config: Arc<WriterConfig>,
    partition_dir: String,
    bucket: i32,
    namer: FileNamer,
    next_seq: i64,
    current: Option<OpenFile>,
    finished: Vec<DataFileMeta>,
    /// Every file created (also after `prepare_commit`, so a failed commit can delete them).
    created: Vec<Path>,
    bytes_closed: u64,
    /// Shredded MAP columns and their K history across this writer's files.
    shredding: Option<MapShredding>,
    /// The `.blob` files of the table's BLOB columns (`None`: it has none).
    blobs: Option<BlobColumnsWriter>,
    /// `variant.shredding.inferenceMode = adaptive`: inference evidence across the files of
    /// this writer until `prepare_commit` (Java's rolling writer of an `AppendOnlyWriter`).
    variant_session: Option<SharedSession>,
}

impl BucketWriter {
    pub(super) fn new(
        table: Table,
        config: Arc<WriterConfig>,
        _partition: BinaryRow,
        partition_dir: String,
        bucket: i32,
        next_seq: i64,
    ) -> Self {
        BucketWriter {
            variant_session: new_session(config.parquet.variant_infer.as_ref()),
            shredding: config.shredding.clone(),
            blobs: config
                .blobs
                .clone()
                .map(|b| BlobColumnsWriter::new(b, config.schema_id)),
            table,
            partition_dir,
            bucket,
            namer: FileNamer::new(),
            next_seq,
            current: None,
            finished: Vec::new(),
            created: Vec::new(),
            bytes_closed: 0,
            config,
        }
    }

    pub(super) fn bytes_written(&self) -> u64 {
        self.bytes_closed
            + self
                .current
                .as_ref()
                .map(|f| f.writer.bytes_written())
                .unwrap_or(0)
    }

    /// Memory held by the open file (see `ParquetWriter::memory_size`).
    pub(super) fn memory(&self) -> usize {
        self.current
            .as_ref()
            .map(|f| f.writer.memory_size())
            .unwrap_or(0)
    }

    /// Gives memory back to the table's pool: the open file is finished now instead of at
    /// `target-file-size` (the next rows start a new file).
    pub(super) async fn flush_for_memory(&mut self) -> Result<()> {
        self.close_current().await
    }

    pub(super) async fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        // A table with BLOB columns: the Parquet file takes the other columns.
        let full = batch;
        let projected;
        let batch = match &self.config.blobs {
            Some(layout) => {
                projected = layout.normal_columns(full)?;
                &projected
            }
            None => full,
        };
        if self.current.is_none() {
            let name = self.namer.data_file(&self.config.file_prefix, "parquet");
            let path = self
                .table
                .paths()
                .data_file(&self.partition_dir, self.bucket, &name);
            self.created.push(path.clone());
            let shredder = match &self.shredding {
                Some(s) => Some(s.start_file(&self.config.arrow_schema, Some(batch))?),
                None => None,
            };
            let writer = ParquetWriter::create_with(
                self.table.file_io(),
                path.clone(),
                self.config.arrow_schema.clone(),
                &self.config.parquet,
                shredder,
            )?
            .with_inference_session(self.variant_session.as_ref())?;
            self.current = Some(OpenFile {
                writer,
                stats: StatsCollector::new(&self.config.row_type, &self.config.stats_modes)?,
                name,
                // Data evolution: every file counts from 0 (Java's AppendOnlyWriter gives
                // each file a new counter), which the commit stamps with the snapshot id.
                min_seq: if self.config.per_file_sequence {
                    0
                } else {
                    self.next_seq
                },
                rows: 0,
                stored_seq: self
                    .config
                    .row_type
                    .fields
                    .iter()
                    .any(|f| f.id == strata_spec::kv::SEQUENCE_NUMBER_ID)
                    .then_some((i64::MAX, i64::MIN, false)),
                index: DataFileIndexWriter::create(&self.config.file_index, &self.config.row_type)?,
            });
        }
        // The BLOB values next, as Java's DedicatedFormatRollingFileWriter (the Parquet file
        // was named first, then each .blob file as it opens).
        if let Some(blobs) = &mut self.blobs {
            blobs
                .write(
                    &self.table,
                    &self.namer,
                    &self.config.file_prefix,
                    (&self.partition_dir, self.bucket),
                    full,
                    &mut self.created,
                )
                .await?;
        }
        let file = self.current.as_mut().expect("opened just above");
        file.writer.write(batch).await?;
        file.stats.update(batch)?;
        if let Some(index) = &mut file.index {
            index.write(batch)?;
        }
        if let Some((min, max, null)) = &mut file.stored_seq {
            track_stored_seq(batch, min, max, null)?;
        }
        file.rows += batch.num_rows() as i64;
        self.next_seq += batch.num_rows() as i64;
        if file.writer.bytes_written() >= self.config.target_file_size {
            self.close_current().await?;
        }
        Ok(())
    }

    async fn close_current(&mut self) -> Result<()> {
        let Some(file) = self.current.take() else {
            return Ok(());
        };
        let info = file.writer.close().await?;
        if let Some(s) = &mut self.shredding {
            s.file_completed(&info.shredded);
        }
        self.bytes_closed += info.file_size;
        let all = file.stats.finish();
        let cols = match &self.config.stats_cols {
            Some((idx, _)) => idx.iter().map(|i| all[*i].clone()).collect::<Vec<_>>(),
            None => all,
        };
        let value_stats = SimpleStats::from_columns(&cols, &self.config.stats_types)?;
        // Java's `DataFileIndexWriter`: small indexes in the manifest, others in
        // `<data-file>.index` beside the data file.
        let (embedded_index, extra_files) = match file.index.map(|i| i.finish()) {
            None => (None, Vec::new()),
            Some(FileIndexOutput::Embedded(bytes)) => (Some(bytes), Vec::new()),
            Some(FileIndexOutput::Separate(bytes)) => {
                let name = format!(
                    "{}{}",
                    file.name,
                    crate::format::file_index::INDEX_PATH_SUFFIX
                );
                let path = self
                    .table
                    .paths()
                    .data_file(&self.partition_dir, self.bucket, &name);
                self.created.push(path.clone());
                self.table.file_io().put(&path, bytes).await?;
                (None, vec![name])
            }
        };
        self.finished.push(DataFileMeta {
            file_name: file.name,
            file_size: info.file_size as i64,
            row_count: file.rows,
            min_key: BinaryRow::empty(),
            max_key: BinaryRow::empty(),
            key_stats: SimpleStats::empty(),
            value_stats,
            min_sequence_number: match file.stored_seq {
                // Java: 0 when every value is null (the commit stamps the snapshot id).
                Some((i64::MAX, ..)) => 0,
                Some((min, ..)) => min,
                None => file.min_seq,
            },
            max_sequence_number: match file.stored_seq {
                Some((_, _, true)) => 0,
                Some((_, max, false)) => max,
                None => file.min_seq + file.rows - 1,
            },
            schema_id: self.config.schema_id,
            level: 0,
            extra_files,
            creation_time: Some(local_now_millis()),
            delete_row_count: Some(0),
            embedded_index,
            file_source: Some(FileSource::Append),
            value_stats_cols: self.config.stats_cols.as_ref().map(|(_, n)| n.clone()),
            external_path: None,
            first_row_id: None,
            write_cols: self.config.write_cols.clone(),
        });
        if let Some(blobs) = &mut self.blobs {
            let files = blobs.close(file.rows).await?;
            self.bytes_closed += files.iter().map(|f| f.file_size as u64).sum::<u64>();
            self.finished.extend(files);
        }
        crate::fault::inject("write.after-data-file")
    }

    /// Closes the open file and hands over every finished file.
    pub(super) async fn prepare_commit(&mut self) -> Result<Vec<DataFileMeta>> {
        self.close_current().await?;
        // Java's `DirectSinkWriter.flush` drops the rolling writer: the next files start a
        // new inference session.
        self.variant_session = new_session(self.config.parquet.variant_infer.as_ref());
        Ok(std::mem::take(&mut self.finished))
    }

    /// Deletes every file this writer created.
    pub(super) async fn abort(&mut self) {
        if let Some(f) = self.current.take() {
            let _ = f.writer.abort().await;
        }
        if let Some(blobs) = &mut self.blobs {
            blobs.abort().await;
        }
        for p in self.created.drain(..) {
            let _ = self.table.file_io().delete(&p).await;
        }
        self.finished.clear();
    }
}

/// Java's `RowDataFileSequenceNumberTracker.update` in row-tracking mode: the file's sequence
/// number range comes from the `_SEQUENCE_NUMBER` values written, a null one noted.
fn track_stored_seq(
    batch: &RecordBatch,
    min: &mut i64,
    max: &mut i64,
    null: &mut bool,
) -> Result<()> {
    use arrow_array::Array;
    let Some(col) = batch.column_by_name(strata_spec::kv::SEQUENCE_NUMBER) else {
        return Ok(());
    };
    let Some(values) = col.as_any().downcast_ref::<arrow_array::Int64Array>() else {
        return Err(crate::error::ErrorDetail::Unsupported(format!(
            "_SEQUENCE_NUMBER column of type {} (BIGINT expected)",
            col.data_type()
        ))
        .into());
    };
    *null |= values.null_count() > 0;
    for v in values.iter().flatten() {
        *min = (*min).min(v);
        *max = (*max).max(v);
    }
    Ok(())
}
