//! Writing one Parquet data file with Java Paimon's settings.
//!
//! [`ParquetWriter`] streams RecordBatches (already in the table's Arrow schema, see
//! [`super::convert::cast_batch_to_schema`]) into an object through `object_store`'s buffered
//! multipart upload: at most one row group is held in memory, the object only becomes visible
//! when [`ParquetWriter::close`] completes, and [`ParquetWriter::abort`] removes what was
//! uploaded.
//!
//! Settings follow `ParquetFileFormat`/`RowDataParquetBuilder`:
//! message name `paimon_schema`, Parquet field ids = Paimon field ids, no `ARROW:schema`
//! footer entry (Java writes one only for files with shredded MAP columns, and so does strata), compression from `file.compression` (default zstd level
//! `file.compression.zstd-level` = 1; `parquet.compression` overrides), dictionary encoding on,
//! writer version 1.0, 1 MiB pages of at most 20 000 rows, row groups of `file.block-size`
//! (else `parquet.block.size`, else 128 MiB) of encoded data.
//!
//! Two things make the bytes match what parquet-java writes rather than arrow-rs's defaults:
//! - **Dictionary fallback.** The writer holds back the first page's worth of rows (up to
//!   `parquet.page.row.count.limit` rows, at most [`HOLD_BACK_BYTES`] of plain data) before it
//!   starts encoding, and switches the dictionary off for the columns where parquet-java's
//!   `FallbackValuesWriter` would fall back to plain ([`super::dictionary_choice`]). While rows
//!   are held back, [`ParquetWriter::bytes_written`] reports their plain size, as parquet-java's
//!   buffered size does before its first page, so files roll at the same row counts as Java's.
//! - **Column orders.** FLOAT/DOUBLE columns are declared with `TYPE_ORDER` so that Java, Spark
//!   and pyarrow use their min/max statistics ([`super::column_orders`]).

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use object_store::buffered::BufWriter;
use object_store::path::Path;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::errors::ParquetError;
use tokio::io::AsyncWriteExt;

use super::parallel_encoder::{ParallelRowGroupEncoder, SharedBuffer};
use parquet::file::metadata::ParquetMetaData;

use super::column_orders::to_type_defined_orders;
use super::dictionary_choice::{plain_columns, plain_size, FirstPage};

use super::map_shredding::read::ARROW_SCHEMA_KEY;
use super::map_shredding::FileShredder;
#[cfg(doc)]
use super::map_shredding::MapShredding;
use super::variant_shred_adaptive::{lock, SharedSession};
use super::variant_shred_infer::InferOptions;
use super::variant_shred_write::VariantShredder;
use crate::error::ErrorDetail;
use crate::io::FileIO;
use parquet::arrow::{encode_arrow_schema, ArrowSchemaConverter};
use parquet::file::metadata::KeyValue;

use crate::{Error, Result};

pub(crate) use super::parquet_write_options::ParquetWriteOptions;

/// Root message name of the Parquet schema, as Java writes it.
pub(crate) const PARQUET_SCHEMA_ROOT: &str = "paimon_schema";
/// At most this much plain data is held back before encoding starts (the first page of a very
/// wide table is judged on fewer rows).
pub(crate) const HOLD_BACK_BYTES: usize = 16 * 1024 * 1024;

/// Size and row count of a completed data file, plus its footer.
#[derive(Debug, Clone)]
pub(crate) struct ParquetFileInfo {
    pub file_size: u64,
    #[cfg_attr(not(test), allow(dead_code))] // read by unit tests only
    pub row_count: u64,
    #[cfg_attr(not(test), allow(dead_code))] // read by unit tests only
    pub metadata: Arc<ParquetMetaData>,
    /// What each shredded MAP column reports to the writer's history (see
    /// [`MapShredding::file_completed`]).
    pub shredded: Vec<strata_spec::shredding::FileReport>,
}

/// Bytes the upload sink buffers before it starts a multipart upload (`object_store`'s
/// default for `BufWriter`).
const SINK_CAPACITY: usize = 10 * 1024 * 1024;

/// Writes one Parquet data file. Create with [`ParquetWriter::create`], feed batches with
/// [`ParquetWriter::write`], then [`ParquetWriter::close`] (or [`ParquetWriter::abort`]).
///
/// Columns are encoded on two threads ([`ParallelRowGroupEncoder`]); each finished row group
/// is uploaded through the buffered multipart sink while the next one is encoded.
pub(crate) struct ParquetWriter {
    io: FileIO,
    path: Path,
    display: String,
    schema: SchemaRef,
    /// Physical schema of the file (the shredded layout of shredded MAP columns).
    file_schema: SchemaRef,
    options: ParquetWriteOptions,
    /// Started once the first page's rows are known ([`Self::start_encoder`]).
    encoder: Option<ParallelRowGroupEncoder>,
    /// Rows held back until the encoder starts, with their plain size.
    pending: Vec<RecordBatch>,
    pending_rows: usize,
    pending_bytes: usize,
    buffer: SharedBuffer,
    sink: BufWriter,
    /// The sink's `shutdown` was called: it may not be aborted any more (object_store's
    /// `BufWriter::abort` panics then), only the object deleted.
    sink_shut: bool,
    /// Bytes handed to the sink so far.
    flushed: u64,
    row_group_bytes: usize,
    row_group_rows: Option<usize>,
    rows: u64,
    /// Converts shredded MAP columns to their physical layout (PIP-43).
    shredder: Option<FileShredder>,
    /// Converts shredded VARIANT columns to their physical layout (`variant.shreddingSchema`).
    variant: Option<VariantShredder>,
    /// `variant.inferShreddingSchema`: the first rows, buffered until the layout is inferred
    /// (Java's `InferShreddingWritePlanWriter`).
    infer: Option<InferBuffer>,
    /// `variant.shredding.inferenceMode = adaptive`: the rolling writer's inference session.
    session: Option<SharedSession>,
}

/// Rows a file buffers before its VARIANT shredding schema is inferred.
struct InferBuffer {
    options: InferOptions,
    /// Rows to buffer (`inferBufferRowCount`).
    sample: usize,
    batches: Vec<RecordBatch>,
    rows: usize,
}

impl std::fmt::Debug for ParquetWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetWriter")
            .field("path", &self.display)
            .field("rows", &self.rows)
            .finish()
    }
}

impl ParquetWriter {
    /// Starts a data file at `path` for batches of `schema` (the table's Arrow schema from
    /// [`super::arrow_types::to_arrow_schema`], carrying field ids). Nothing is visible at
    /// `path` until [`Self::close`].
    #[cfg(test)]
    pub(crate) fn create(
        io: &FileIO,
        path: Path,
        schema: SchemaRef,
        options: &ParquetWriteOptions,
    ) -> Result<Self> {
        Self::create_with(io, path, schema, options, None)
    }

    /// [`Self::create`] for a file whose MAP columns `shredder` stores in the shared-shredding
    /// layout: batches are given in the logical `schema` and converted before encoding; the
    /// footer gets an `ARROW:schema` entry carrying the `paimon.map.*` metadata, as Java
    /// writes it (and only for such files).
    pub(crate) fn create_with(
        io: &FileIO,
        path: Path,
        schema: SchemaRef,
        options: &ParquetWriteOptions,
        shredder: Option<FileShredder>,
    ) -> Result<Self> {
        let display = io.display(&path);
        // Java's `ShreddingWritePlanWriterFactories`: one active shredding write plan per file.
        let variant = match &options.variant_shredding {
            Some(_) if shredder.is_some() => {
                return Err(ErrorDetail::Unsupported(
                    "Composing multiple active shredding write plans is not supported \
                     (variant.shreddingSchema with shredded MAP columns)."
                        .into(),
                )
                .into())
            }
            Some(s) => Some(VariantShredder::new(&schema, s)?),
            None => None,
        };
        let infer = match &options.variant_infer {
            Some(o) if VariantShredder::has_variant_columns(&schema)? => {
                if shredder.is_some() {
                    return Err(ErrorDetail::Unsupported(
                        "Composing multiple active shredding write plans is not supported \
                         (variant.inferShreddingSchema with shredded MAP columns)."
                            .into(),
                    )
                    .into());
                }
                Some(InferBuffer {
                    options: o.clone(),
                    sample: o.buffer_rows,
                    batches: Vec::new(),
                    rows: 0,
                })
            }
            _ => None,
        };
        let file_schema = match (&shredder, &variant) {
            (Some(s), _) => s.physical_schema().clone(),
            (None, Some(v)) => v.physical_schema().clone(),
            (None, None) => schema.clone(),
        };
        // Validate the settings now rather than at the first row group.
        options.writer_properties_builder()?;
        let sink = BufWriter::with_capacity(io.store(), path.clone(), SINK_CAPACITY);
        Ok(ParquetWriter {
            io: io.clone(),
            path,
            display,
            schema,
            file_schema,
            options: options.clone(),
            encoder: None,
            pending: Vec::new(),
            pending_rows: 0,
            pending_bytes: 0,
            buffer: SharedBuffer::default(),
            sink,
            sink_shut: false,
            flushed: 0,
            row_group_bytes: options.row_group_bytes.max(1),
            row_group_rows: options.row_group_rows.filter(|r| *r > 0),
            rows: 0,
            shredder,
            variant,
            infer,
            session: None,
        })
    }

    /// Infers this file's VARIANT layout in the adaptive `session` of its rolling writer
    /// (Java's `VariantShreddingWritePlanFactory`): the file samples the session's
    /// `inferBufferRowCount` rows, and its evidence is committed when it closes.
    pub(crate) fn with_inference_session(
        mut self,
        session: Option<&SharedSession>,
    ) -> Result<Self> {
        if let (Some(buffer), Some(session)) = (self.infer.as_mut(), session) {
            buffer.sample = lock(session)?.buffer_rows();
            self.session = Some(session.clone());
        }
        Ok(self)
    }

    /// Appends a batch; it must have the writer's column types in order (names are not
    /// checked). Flushes a row group to storage when it reaches the row group size.
    pub(crate) async fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.check_schema(batch)?;
        if let Some(buffer) = self.infer.as_mut() {
            buffer.rows += batch.num_rows();
            buffer.batches.push(batch.clone());
            if buffer.rows >= buffer.sample {
                self.finish_inference().await?;
            }
            return Ok(());
        }
        self.write_logical(batch).await
    }

    /// Infers the VARIANT layout from the first `maxInferBufferRow` buffered rows (all of
    /// them when the file closes before) and writes the buffered rows with it.
    async fn finish_inference(&mut self) -> Result<()> {
        let Some(buffer) = self.infer.take() else {
            return Ok(());
        };
        let shredder = match &self.session {
            Some(session) => VariantShredder::inferred(
                &self.schema,
                &buffer.batches,
                buffer.sample,
                &buffer.options,
                Some(&mut *lock(session)?),
            )?,
            None => VariantShredder::inferred(
                &self.schema,
                &buffer.batches,
                buffer.sample,
                &buffer.options,
                None,
            )?,
        };
        self.file_schema = shredder.physical_schema().clone();
        self.variant = Some(shredder);
        for batch in &buffer.batches {
            self.write_logical(batch).await?;
        }
        Ok(())
    }

    /// [`Self::write`] of a batch past inference.
    async fn write_logical(&mut self, batch: &RecordBatch) -> Result<()> {
        let shredded;
        let batch = match (&mut self.shredder, &self.variant) {
            (Some(s), _) => {
                shredded = s.convert(batch)?;
                &shredded
            }
            (None, Some(v)) => {
                shredded = v.convert(batch)?;
                &shredded
            }
            (None, None) => batch,
        };
        let rows = batch.num_rows();
        if self.encoder.is_none() {
            self.hold_back(batch)?;
            self.rows += rows as u64;
            if self.pending_rows >= self.options.page_row_count_limit.max(1)
                || self.pending_bytes >= HOLD_BACK_BYTES
            {
                self.start_encoder().await?;
            }
            return Ok(());
        }
        self.encode(batch).await?;
        self.rows += rows as u64;
        Ok(())
    }

    /// Keeps `batch` until the encoder starts. A small slice of a large batch is copied, so
    /// that holding it does not keep the whole parent batch alive.
    fn hold_back(&mut self, batch: &RecordBatch) -> Result<()> {
        let plain = plain_size(batch);
        let batch = if batch.get_array_memory_size() > 2 * plain + (1 << 20) {
            let indices = arrow_array::UInt32Array::from_iter_values(0..batch.num_rows() as u32);
            arrow_select::take::take_record_batch(batch, &indices)
                .map_err(|e| Error::parquet(&self.display, ParquetError::from(e)))?
        } else {
            batch.clone()
        };
        self.pending_rows += batch.num_rows();
        self.pending_bytes += plain;
        self.pending.push(batch);
        Ok(())
    }

    /// Decides the dictionary columns from the rows held back, creates the encoder and
    /// encodes those rows.
    async fn start_encoder(&mut self) -> Result<()> {
        let mut props = self.options.writer_properties_builder()?;
        if self.options.dictionary {
            let descr = ArrowSchemaConverter::new()
                .with_coerce_types(false)
                .schema_root(PARQUET_SCHEMA_ROOT)
                .convert(&self.file_schema)
                .map_err(|e| Error::parquet(&self.display, e))?;
            let first_page = FirstPage {
                max_values: self.options.page_row_count_limit.max(1),
                max_bytes: self.options.page_size.max(1),
            };
            for column in plain_columns(
                &descr,
                &self.pending,
                first_page,
                self.options.writer_version_2,
            ) {
                props = props.set_column_dictionary_enabled(column, false);
            }
        }
        // Timestamps of precision 7..9 as INT96 leaves (Java's layout), without statistics:
        // INT96 has no defined sort order, and Java writes none either.
        let int96_schema = super::int96::parquet_schema(&self.file_schema, PARQUET_SCHEMA_ROOT)
            .map_err(|e| Error::parquet(&self.display, e))?;
        if let Some(descr) = &int96_schema {
            for column in descr.columns() {
                if column.physical_type() == parquet::basic::Type::INT96 {
                    props = props.set_column_statistics_enabled(
                        column.path().clone(),
                        parquet::file::properties::EnabledStatistics::None,
                    );
                }
            }
        }
        let mut writer_options = ArrowWriterOptions::new()
            .with_properties(props.build())
            .with_skip_arrow_metadata(true)
            .with_schema_root(PARQUET_SCHEMA_ROOT.to_string());
        if let Some(descr) = int96_schema {
            writer_options = writer_options.with_parquet_schema(descr);
        }
        let encoder = ParallelRowGroupEncoder::try_new(
            self.buffer.clone(),
            self.file_schema.clone(),
            writer_options,
        )
        .map_err(|e| Error::parquet(&self.display, e))?;
        self.encoder = Some(encoder);
        let pending = std::mem::take(&mut self.pending);
        self.pending_rows = 0;
        self.pending_bytes = 0;
        for batch in &pending {
            self.encode(batch).await?;
        }
        Ok(())
    }

    /// Feeds a batch to the encoder, flushing row groups as they fill up.
    async fn encode(&mut self, batch: &RecordBatch) -> Result<()> {
        // Row groups are cut between the slices given to the encoder, so a batch much
        // larger than a row group is fed in slices (zero-copy) to keep row groups — and the
        // memory they are buffered in — near the configured size.
        let rows = batch.num_rows();
        let memory = batch.get_array_memory_size().max(1);
        let slice_budget = (self.row_group_bytes / 4).max(1);
        let mut step = if memory <= slice_budget {
            rows.max(1)
        } else {
            ((rows as u128 * slice_budget as u128 / memory as u128) as usize).max(1)
        };
        if let Some(max_rows) = self.row_group_rows {
            step = step.min(max_rows);
        }
        let mut offset = 0;
        while offset < rows {
            let display = &self.display;
            let Some(encoder) = self.encoder.as_mut() else {
                return Err(Error::parquet(
                    display,
                    ParquetError::General("encoder not started".into()),
                ));
            };
            let mut len = step.min(rows - offset);
            if let Some(max_rows) = self.row_group_rows {
                len = len.min(max_rows - encoder.rows_in_group());
            }
            encoder
                .write(&batch.slice(offset, len))
                .map_err(|e| Error::parquet(display, e))?;
            offset += len;
            let full_rows = self
                .row_group_rows
                .is_some_and(|m| encoder.rows_in_group() >= m);
            if full_rows || encoder.in_progress_size() >= self.row_group_bytes {
                encoder
                    .flush_row_group()
                    .map_err(|e| Error::parquet(display, e))?;
                self.drain().await?;
            }
        }
        Ok(())
    }

    /// Uploads the encoded bytes waiting in the buffer.
    async fn drain(&mut self) -> Result<()> {
        let bytes = self.buffer.take();
        self.upload(bytes).await
    }

    async fn upload(&mut self, bytes: Vec<u8>) -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.flushed += bytes.len() as u64;
        self.sink
            .write_all(&bytes)
            .await
            .map_err(|e| Error::parquet(&self.display, ParquetError::External(Box::new(e))))
    }

    fn check_schema(&self, batch: &RecordBatch) -> Result<()> {
        let expected = self.schema.fields();
        let got = batch.schema();
        if got.fields().len() != expected.len() {
            return Err(ErrorDetail::SchemaMismatch {
                column: "*".into(),
                message: format!(
                    "writing {}: batch has {} columns, the file has {}",
                    self.display,
                    got.fields().len(),
                    expected.len()
                ),
            }
            .into());
        }
        for (e, g) in expected.iter().zip(got.fields()) {
            if !e.data_type().equals_datatype(g.data_type()) {
                return Err(ErrorDetail::SchemaMismatch {
                    column: e.name().clone(),
                    message: format!(
                        "writing {}: batch column has type {}, the file expects {}",
                        self.display,
                        g.data_type(),
                        e.data_type()
                    ),
                }
                .into());
            }
        }
        Ok(())
    }

    /// Estimated size of the file so far: bytes already encoded plus the encoded size of the
    /// row group in progress (what a rolling writer compares with `target-file-size`); while
    /// rows are held back before encoding, the `PAR1` magic plus their plain size.
    pub(crate) fn bytes_written(&self) -> u64 {
        if self.infer.is_some() {
            // Java's `InferShreddingWritePlanWriter.reachTargetSize` while it buffers.
            return 0;
        }
        match &self.encoder {
            Some(e) => (e.bytes_written() + e.in_progress_size()) as u64,
            None => (4 + self.pending_bytes) as u64,
        }
    }

    /// Memory this writer holds: rows held back before encoding, the open row group, encoded
    /// bytes not yet handed to the sink, and what the sink buffers before it uploads (at most
    /// its capacity; `object_store`'s `BufWriter` holds up to 10 MiB before switching to a
    /// multipart upload). What a memory pool over many open files adds up.
    pub(crate) fn memory_size(&self) -> usize {
        let encoder = self.encoder.as_ref().map(|e| e.memory_size()).unwrap_or(0);
        let sink = (self.flushed as usize).min(SINK_CAPACITY);
        let inferring: usize = self
            .infer
            .iter()
            .flat_map(|b| &b.batches)
            .map(RecordBatch::get_array_memory_size)
            .sum();
        self.pending_bytes + encoder + self.buffer.len() + sink + inferring
    }

    /// Rows written so far.
    #[cfg(test)]
    pub(crate) fn rows_written(&self) -> u64 {
        self.rows
    }

    /// Flushes the last row group, writes the footer and completes the upload. On failure the
    /// partial object is removed.
    pub(crate) async fn close(mut self) -> Result<ParquetFileInfo> {
        let result = async {
            self.finish_inference().await?;
            if self.encoder.is_none() {
                self.start_encoder().await?;
            }
            let footer = match &self.shredder {
                Some(shredder) => Some(shredder.footer_schema()?),
                None => None,
            };
            let encoder = self.encoder.as_mut().expect("started above");
            if let Some(footer) = footer {
                encoder.append_key_value_metadata(KeyValue::new(
                    ARROW_SCHEMA_KEY.to_string(),
                    encode_arrow_schema(&footer),
                ));
            }
            let metadata = encoder
                .finish()
                .map_err(|e| Error::parquet(&self.display, e))?;
            let size = encoder.bytes_written() as u64;
            // The footer is complete in the buffer (it was drained after every row group).
            let mut tail = self.buffer.take();
            let leaves = metadata.file_metadata().schema_descr().num_columns();
            if to_type_defined_orders(&mut tail, leaves).is_none() {
                return Err(Error::parquet(
                    &self.display,
                    ParquetError::General(
                        "unexpected footer layout: cannot declare TYPE_ORDER column orders".into(),
                    ),
                ));
            }
            self.upload(tail).await?;
            if self.flushed != size {
                return Err(Error::parquet(
                    &self.display,
                    ParquetError::General(format!(
                        "uploaded {} bytes but the file has {size}",
                        self.flushed
                    )),
                ));
            }
            self.sink_shut = true;
            self.sink
                .shutdown()
                .await
                .map_err(|e| Error::parquet(&self.display, ParquetError::External(Box::new(e))))?;
            Ok((metadata, size))
        }
        .await;
        match result {
            Ok((metadata, file_size)) => {
                // Java's `onFileCompleted`: the file is written, its inference counts.
                if let Some(session) = &self.session {
                    lock(session)?.commit_pending();
                }
                Ok(ParquetFileInfo {
                    file_size,
                    row_count: self.rows,
                    metadata: Arc::new(metadata),
                    shredded: self
                        .shredder
                        .as_ref()
                        .map(FileShredder::reports)
                        .unwrap_or_default(),
                })
            }
            Err(err) => {
                let _ = self.abort().await;
                Err(err)
            }
        }
    }

    /// Abandons the file: aborts the upload and deletes anything already at the path.
    pub(crate) async fn abort(mut self) -> Result<()> {
        // Aborting a buffered upload that never started is a no-op; errors here only mean
        // there was nothing to abort, the delete below is what guarantees cleanup.
        if !self.sink_shut {
            let _ = self.sink.abort().await;
        }
        self.io.delete(&self.path).await
    }
}
