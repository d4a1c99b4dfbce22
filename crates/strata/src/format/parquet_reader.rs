//! Reading Parquet data files written by Java Paimon, pypaimon, pypaimon-rust or strata.
//!
//! [`read_parquet`] returns a stream of batches in exactly the Arrow schema of the requested
//! read fields ([`super::arrow_types::to_arrow_schema_of`]), whatever the file holds:
//!
//! * each read field is tied to a file column through the field id: the data field (the
//!   file's own schema) with the same id gives the name the column has in the file; the
//!   Parquet column is then found by that name, exactly or else case-insensitively (Java reads
//!   by name; pypaimon writes no field ids);
//! * only the needed top-level columns are decoded (a [`ProjectionMask`]);
//! * columns are renamed, cast (INT → BIGINT...), and normalised ([`super::evolve`]);
//! * read fields without a column in the file (added later) are all-NULL; if such a field is
//!   NOT NULL the read fails with `ErrorDetail::SchemaMismatch`, since an Arrow batch cannot carry
//!   NULLs in a non-nullable column (Java silently produces NULLs there);
//! * a row-group filter ([`RowGroupFilter`]) lets the scan skip row groups by their footer
//!   statistics ([`super::rowgroup_stats::row_group_stats`]), and a [`StatsPruning`] filter
//!   skips row groups and pages by footer statistics and the page index
//!   ([`super::page_pruning`]);
//! * a row range ([`ParquetReadOptions::row_range`]) reads only those rows (their row groups,
//!   and their pages through the offset index), so several readers share one large file;
//! * with [`ParquetReadOptions::string_views`] top-level strings decode straight into
//!   `Utf8View`.
//!
//! Corrupt or truncated files fail with `ErrorDetail::Parquet` naming the file.

use std::ops::Range;
use std::sync::Arc;

use arrow_array::{new_null_array, BooleanArray, RecordBatch, RecordBatchOptions};
use arrow_schema::{ArrowError, FieldRef, SchemaRef};
use bytes::Bytes;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::{FutureExt, StreamExt, TryFutureExt};
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ArrowReaderMetadata, ArrowReaderOptions, RowFilter, RowSelection, RowSelector,
};
use parquet::arrow::async_reader::{AsyncFileReader, ParquetRecordBatchStreamBuilder};
use parquet::arrow::ProjectionMask;
use parquet::errors::ParquetError;
use parquet::file::metadata::{
    PageIndexPolicy, ParquetMetaData, ParquetMetaDataReader, RowGroupMetaData,
};
use strata_spec::types::{DataField, DataType, TypeKind};

use super::arrow_types::{to_arrow_schema_of, with_string_views};
use super::decode_guard::{guard, GuardedStream};
use super::evolve::{evolve_array, find_by_name};
use super::map_shredding::{
    file_shredding_meta, page_selection, row_groups_may_match, FileShreddingMeta, ShreddedRead,
};
use super::page_pruning::{
    page_selection as stats_pages, row_groups_may_match as stats_row_groups, StatsPruning,
};
use super::read_hints::{ReadHints, ReadMetrics};
use crate::error::ErrorDetail;
use crate::io::FileIO;
use crate::{Error, Result};
use parquet::schema::types::SchemaDescriptor;
use std::collections::HashMap;

/// Decides from a row group's footer metadata whether it may hold matching rows
/// (`false` skips it).
pub(crate) type RowGroupFilter = Arc<dyn Fn(&RowGroupMetaData) -> bool + Send + Sync>;

/// Evaluates a row filter on a batch of its fields (`true` keeps the row).
pub(crate) type RowPredicate = Arc<dyn Fn(&RecordBatch) -> Result<BooleanArray> + Send + Sync>;

/// A row predicate pushed into decoding (late materialization): the reader decodes
/// `fields` first (as columns of a batch in that order, converted like any read field),
/// evaluates `predicate` on them, and decodes the other columns only for the selected rows —
/// skipping whole pages through the page index when the file has one. The predicate must be
/// exact or conservative (never reject a row the caller wants).
#[derive(Clone)]
pub struct PushedRowFilter {
    /// The fields the predicate needs, decoded first; the batch it sees has them in this order.
    pub fields: Vec<DataField>,
    /// The filter on those fields: `true` keeps a row.
    pub predicate: RowPredicate,
}

/// Default rows per batch (`read.batch-size` in Java).
pub(crate) const DEFAULT_READ_BATCH_SIZE: usize = 1024;

/// Optional knobs of [`read_parquet_with`].
#[derive(Clone)]
pub struct ParquetReadOptions {
    /// File size if known (from `DataFileMeta`); saves a HEAD request.
    pub file_size: Option<u64>,
    /// Rows per output batch.
    pub batch_size: usize,
    /// Row groups for which this returns `false` are skipped.
    pub row_group_filter: Option<RowGroupFilter>,
    /// The file's footer if already read (e.g. by [`read_parquet_metadata`]).
    pub metadata: Option<Arc<ParquetMetaData>>,
    /// Rows for which this returns false are not decoded beyond the filter columns.
    pub row_filter: Option<PushedRowFilter>,
    /// Selected MAP keys, MAP-key pruning and read counters.
    pub hints: ReadHints,
    /// Decode top-level string columns as `Utf8View` ([`super::arrow_types::with_string_views`]):
    /// the batches (and the row filter's batches) then have views where the read schema has
    /// `Utf8`.
    pub string_views: bool,
    /// Row groups and pages this filter rules out by their statistics are skipped
    /// ([`super::page_pruning`]); rows are not filtered (pair it with an exact filter).
    pub stats_pruning: Option<Arc<StatsPruning>>,
    /// Read only rows `[start, end)` of the file (positions in the whole file, before any
    /// pruning): the row groups overlapping the range, and within them the pages holding it
    /// (through the offset index, when the file has one). Lets several readers share one large
    /// file.
    pub row_range: Option<Range<u64>>,
}

impl Default for ParquetReadOptions {
    fn default() -> Self {
        ParquetReadOptions {
            file_size: None,
            batch_size: DEFAULT_READ_BATCH_SIZE,
            row_group_filter: None,
            metadata: None,
            row_filter: None,
            hints: ReadHints::default(),
            string_views: false,
            stats_pruning: None,
            row_range: None,
        }
    }
}

impl std::fmt::Debug for ParquetReadOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetReadOptions")
            .field("file_size", &self.file_size)
            .field("batch_size", &self.batch_size)
            .field("row_group_filter", &self.row_group_filter.is_some())
            .field("metadata", &self.metadata.is_some())
            .field("row_filter", &self.row_filter.is_some())
            .field("hints", &self.hints)
            .field("string_views", &self.string_views)
            .field("stats_pruning", &self.stats_pruning.is_some())
            .field("row_range", &self.row_range)
            .finish()
    }
}

/// [`AsyncFileReader`] over an object store path, optionally with a footer already in hand.
#[derive(Clone)]
struct DataFileReader {
    store: Arc<dyn ObjectStore>,
    path: Path,
    file_size: u64,
    metadata: Option<Arc<ParquetMetaData>>,
    /// Counts the bytes fetched (`bytesRead`).
    metrics: Option<Arc<ReadMetrics>>,
}

impl DataFileReader {
    fn count(&self, n: u64) {
        if let Some(m) = &self.metrics {
            ReadMetrics::add(&m.bytes_read, n);
        }
    }
}

fn external(e: object_store::Error) -> ParquetError {
    ParquetError::External(Box::new(e))
}

impl AsyncFileReader for DataFileReader {
    fn get_bytes(&mut self, range: Range<u64>) -> BoxFuture<'_, parquet::errors::Result<Bytes>> {
        self.count(range.end.saturating_sub(range.start));
        self.store
            .get_range(&self.path, range)
            .map_err(external)
            .boxed()
    }

    fn get_byte_ranges(
        &mut self,
        ranges: Vec<Range<u64>>,
    ) -> BoxFuture<'_, parquet::errors::Result<Vec<Bytes>>> {
        self.count(ranges.iter().map(|r| r.end.saturating_sub(r.start)).sum());
        async move {
            self.store
                .get_ranges(&self.path, &ranges)
                .await
                .map_err(external)
        }
        .boxed()
    }

    fn get_metadata<'a>(
        &'a mut self,
        options: Option<&'a ArrowReaderOptions>,
    ) -> BoxFuture<'a, parquet::errors::Result<Arc<ParquetMetaData>>> {
        async move {
            if let Some(m) = &self.metadata {
                return Ok(m.clone());
            }
            let file_size = self.file_size;
            // The reader options carry the page index policy: without it no column or offset
            // index is loaded and row filters cannot skip pages.
            let metadata = ParquetMetaDataReader::new()
                .with_arrow_reader_options(options)
                .load_and_finish(self, file_size)
                .await?;
            check_footer(&metadata, file_size)?;
            Ok(Arc::new(metadata))
        }
        .boxed()
    }
}

/// Rejects a footer whose row groups cannot be read from a file of `file_size` bytes: negative
/// or out-of-file column chunk ranges (the Parquet reader asserts on negative ones, i.e.
/// panics) and negative row counts. A corrupt footer then fails as a Parquet error naming the
/// file instead of deep inside decoding.
fn check_footer(metadata: &ParquetMetaData, file_size: u64) -> parquet::errors::Result<()> {
    let bad = |m: String| Err(ParquetError::General(format!("corrupt footer: {m}")));
    for (g, rg) in metadata.row_groups().iter().enumerate() {
        if rg.num_rows() < 0 {
            return bad(format!("row group {g} has {} rows", rg.num_rows()));
        }
        for (c, col) in rg.columns().iter().enumerate() {
            let start = col
                .dictionary_page_offset()
                .unwrap_or_else(|| col.data_page_offset());
            let len = col.compressed_size();
            let in_file = start >= 0
                && len >= 0
                && (start as u64)
                    .checked_add(len as u64)
                    .is_some_and(|end| end <= file_size);
            if !in_file {
                return bad(format!(
                    "column chunk {c} of row group {g} spans {len} bytes at offset {start}, \
                     outside the file's {file_size} bytes"
                ));
            }
        }
    }
    Ok(())
}

async fn open(
    io: &FileIO,
    path: &Path,
    file_size: Option<u64>,
    metadata: Option<Arc<ParquetMetaData>>,
    metrics: Option<Arc<ReadMetrics>>,
) -> Result<DataFileReader> {
    // The size is only needed to locate the footer; with the footer in hand, skip the HEAD.
    let file_size = match (file_size, &metadata) {
        (Some(s), _) => s,
        (None, Some(_)) => 0,
        (None, None) => io.head(path).await?.size,
    };
    Ok(DataFileReader {
        store: io.store(),
        path: path.clone(),
        file_size,
        metadata,
        metrics,
    })
}

/// Reads a data file's footer (schema, row groups, column statistics).
#[cfg_attr(not(feature = "unstable"), allow(dead_code))] // strata::unstable only
pub async fn read_parquet_metadata(
    io: &FileIO,
    path: &Path,
    file_size: Option<u64>,
) -> Result<Arc<ParquetMetaData>> {
    let mut reader = open(io, path, file_size, None, None).await?;
    let display = io.display(path);
    guard(&display, async {
        reader
            .get_metadata(None)
            .await
            .map_err(|e| Error::parquet(io.display(path), e))
    })
    .await
}

/// Reads a data file as batches of `read_fields` (the current schema, projected), where
/// `data_fields` is the schema the file was written with. See the module docs for how columns
/// are matched and converted.
#[cfg(test)]
pub(crate) async fn read_parquet(
    io: &FileIO,
    path: &Path,
    file_size: Option<u64>,
    data_fields: &[DataField],
    read_fields: &[DataField],
    batch_size: usize,
) -> Result<BoxStream<'static, Result<RecordBatch>>> {
    let options = ParquetReadOptions {
        file_size,
        batch_size,
        ..Default::default()
    };
    read_parquet_with(io, path, data_fields, read_fields, options).await
}

/// How one output column is produced.
pub(super) struct ColumnPlan {
    target: FieldRef,
    read_type: DataType,
    /// Column name in the projected file batch and the data type it was written with.
    source: Option<(String, DataType)>,
    /// The column is a MAP stored shredded in this file: rebuild it from the struct.
    shredded: Option<Arc<ShreddedRead>>,
}

/// What to decode: top-level columns, and for shredded MAP columns only some children.
#[derive(Default)]
pub(super) struct Decode {
    pub(super) roots: Vec<usize>,
    /// Root index → the children of its struct to decode (shredded MAP columns).
    children: HashMap<usize, Vec<String>>,
}

impl Decode {
    fn add(&mut self, root: usize, children: Option<&[String]>) {
        let first = !self.roots.contains(&root);
        if first {
            self.roots.push(root);
        }
        match children {
            // A plain use of the column decodes all of it.
            None => {
                self.children.remove(&root);
            }
            Some(c) => {
                if first {
                    self.children.insert(root, c.to_vec());
                } else if let Some(have) = self.children.get_mut(&root) {
                    for name in c {
                        if !have.contains(name) {
                            have.push(name.clone());
                        }
                    }
                }
            }
        }
    }

    fn mask(&self, schema: &SchemaDescriptor) -> ProjectionMask {
        if self.children.is_empty() {
            return ProjectionMask::roots(schema, self.roots.iter().copied());
        }
        let leaves = (0..schema.num_columns()).filter(|&leaf| {
            let root = schema.get_column_root_idx(leaf);
            if !self.roots.contains(&root) {
                return false;
            }
            match self.children.get(&root) {
                None => true,
                Some(children) => {
                    let column = schema.column(leaf);
                    let parts = column.path().parts();
                    parts.len() > 1 && children.iter().any(|c| c == &parts[1])
                }
            }
        });
        ProjectionMask::leaves(schema, leaves)
    }
}

/// [`read_parquet`] with a row-group filter, a known footer, and other options.
///
/// A panic of the Parquet decoder on a corrupt file is returned as `ErrorDetail::Parquet` naming
/// the file (`decode_guard`), both while the footer is read and while batches are decoded.
pub async fn read_parquet_with(
    io: &FileIO,
    path: &Path,
    data_fields: &[DataField],
    read_fields: &[DataField],
    options: ParquetReadOptions,
) -> Result<BoxStream<'static, Result<RecordBatch>>> {
    let display = io.display(path);
    let stream = guard(
        &display,
        open_stream(io, path, data_fields, read_fields, options),
    )
    .await?;
    Ok(GuardedStream::boxed(stream, display))
}

async fn open_stream(
    io: &FileIO,
    path: &Path,
    data_fields: &[DataField],
    read_fields: &[DataField],
    options: ParquetReadOptions,
) -> Result<BoxStream<'static, Result<RecordBatch>>> {
    let display = io.display(path);
    let target_schema = read_schema(read_fields, options.string_views)?;
    let metrics = options.hints.metrics.clone();
    let reader = open(
        io,
        path,
        options.file_size,
        options.metadata.clone(),
        metrics.clone(),
    )
    .await?;
    let parquet_err = |e| Error::parquet(display.clone(), e);

    let mut reader_for_meta = reader.clone();
    let page_stats = options.row_filter.is_some()
        || options.hints.map_key_predicate.is_some()
        || options.stats_pruning.is_some();
    let arrow_options = ArrowReaderOptions::new()
        .with_skip_arrow_metadata(true)
        .with_column_index_policy(if page_stats {
            PageIndexPolicy::Optional
        } else {
            PageIndexPolicy::Skip
        })
        // Page locations let a row selection (pages of other rows, a row range) skip pages.
        .with_offset_index_policy(if page_stats || options.row_range.is_some() {
            PageIndexPolicy::Optional
        } else {
            PageIndexPolicy::Skip
        });
    let mut metadata = ArrowReaderMetadata::load_async(&mut reader_for_meta, arrow_options.clone())
        .await
        .map_err(parquet_err)?;
    if options.string_views {
        let hint = with_string_views(metadata.schema());
        if hint.as_ref() != metadata.schema().as_ref() {
            metadata = ArrowReaderMetadata::try_new(
                metadata.metadata().clone(),
                arrow_options.with_schema(hint),
            )
            .map_err(parquet_err)?;
        }
    }
    let file_schema = metadata.schema().clone();

    // Plan each output column and the file columns to decode.
    let shredding = file_shredding_meta(metadata.metadata(), &display)?;
    let mut decode = Decode::default();
    let plans = plan_columns(
        &file_schema,
        data_fields,
        read_fields,
        &target_schema,
        &mut decode,
        &display,
        &shredding,
        &options.hints,
    )?;

    let parquet_meta = metadata.metadata().clone();
    let starts = row_group_starts(&parquet_meta);
    let in_range = |i: usize| match &options.row_range {
        Some(r) => starts[i] < r.end && starts[i + 1] > r.start,
        None => true,
    };
    let row_groups: Vec<usize> = (0..parquet_meta.num_row_groups())
        .filter(|&i| in_range(i))
        .filter(|&i| {
            options
                .row_group_filter
                .as_ref()
                .is_none_or(|f| f(parquet_meta.row_group(i)))
        })
        .collect();
    let names: Vec<&str> = file_schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    let row_groups: Vec<usize> = match &options.stats_pruning {
        Some(pruning) => {
            let may = stats_row_groups(pruning, &parquet_meta, data_fields, &names);
            row_groups.into_iter().filter(|&i| may[i]).collect()
        }
        None => row_groups,
    };
    let row_groups: Vec<usize> = match &options.hints.map_key_predicate {
        Some(predicate) if !shredding.is_empty() => {
            let may =
                row_groups_may_match(predicate, &parquet_meta, data_fields, &names, &shredding);
            row_groups.into_iter().filter(|&i| may[i]).collect()
        }
        _ => row_groups,
    };
    // Within them, the pages of the key's columns that cannot match.
    let selection = match &options.hints.map_key_predicate {
        Some(predicate) if !shredding.is_empty() && !row_groups.is_empty() => page_selection(
            predicate,
            &parquet_meta,
            &row_groups,
            data_fields,
            &names,
            &shredding,
        ),
        _ => None,
    };
    // And the pages the filter's statistics admit.
    let selection = match &options.stats_pruning {
        Some(pruning) if !row_groups.is_empty() => {
            match stats_pages(pruning, &parquet_meta, &row_groups, data_fields, &names) {
                Some(pages) => Some(match selection {
                    Some(keys) => keys.intersection(&pages),
                    None => pages,
                }),
                None => selection,
            }
        }
        _ => selection,
    };
    // And the rows of the range.
    let selection = match &options.row_range {
        Some(range) => {
            let rows = range_selection(range, &starts, &row_groups);
            Some(match selection {
                Some(keys) => keys.intersection(&rows),
                None => rows,
            })
        }
        None => selection,
    };
    if let Some(m) = &metrics {
        let total = parquet_meta.num_row_groups() as u64;
        let read = row_groups.len() as u64;
        ReadMetrics::add(&m.row_groups_read, read);
        ReadMetrics::add(&m.row_groups_skipped, total - read);
        ReadMetrics::add(
            if read == 0 {
                &m.files_skipped
            } else {
                &m.files_read
            },
            1,
        );
    }
    if let (Some(m), Some(sel)) = (&metrics, &selection) {
        // Rows outside the range are not the read's, not skipped ones.
        let total: u64 = row_groups
            .iter()
            .map(|&i| match &options.row_range {
                Some(r) => starts[i + 1].min(r.end) - starts[i].max(r.start),
                None => parquet_meta.row_group(i).num_rows() as u64,
            })
            .sum();
        ReadMetrics::add(
            &m.page_rows_skipped,
            total.saturating_sub(sel.row_count() as u64),
        );
    }
    if row_groups.is_empty() || selection.as_ref().is_some_and(|s| s.row_count() == 0) {
        return Ok(futures::stream::empty().boxed());
    }
    let mask = decode.mask(metadata.parquet_schema());
    let mut builder = ParquetRecordBatchStreamBuilder::new_with_metadata(reader, metadata.clone())
        .with_projection(mask)
        .with_row_groups(row_groups)
        .with_batch_size(options.batch_size.max(1));
    if let Some(selection) = selection {
        builder = builder.with_row_selection(selection);
    }
    if let Some(filter) = &options.row_filter {
        let filter_schema = read_schema(&filter.fields, options.string_views)?;
        let mut filter_decode = Decode::default();
        let filter_plans = plan_columns(
            &file_schema,
            data_fields,
            &filter.fields,
            &filter_schema,
            &mut filter_decode,
            &display,
            &shredding,
            &options.hints,
        )?;
        if !filter_decode.roots.is_empty() {
            let predicate = filter.predicate.clone();
            let filter_mask = filter_decode.mask(metadata.parquet_schema());
            let arrow_predicate = ArrowPredicateFn::new(filter_mask, move |batch: RecordBatch| {
                let b = evolve_batch(&batch, &filter_plans, &filter_schema)
                    .map_err(|e| ArrowError::ExternalError(Box::new(e)))?;
                predicate(&b).map_err(|e| ArrowError::ExternalError(Box::new(e)))
            });
            builder = builder.with_row_filter(RowFilter::new(vec![Box::new(arrow_predicate)]));
        }
    }
    let stream = builder.build().map_err(parquet_err)?;

    let plans = Arc::new(plans);
    let out = stream.map(move |batch| {
        let batch = batch.map_err(|e| Error::parquet(display.clone(), e))?;
        evolve_batch(&batch, &plans, &target_schema).map_err(|e| in_file(e, &display))
    });
    Ok(out.boxed())
}

/// The Arrow schema batches of `fields` are read as.
pub(super) fn read_schema(fields: &[DataField], string_views: bool) -> Result<SchemaRef> {
    let schema = to_arrow_schema_of(fields)?;
    Ok(if string_views {
        with_string_views(&schema)
    } else {
        schema
    })
}

/// The first row of each row group in the file, and the file's row count last.
fn row_group_starts(metadata: &ParquetMetaData) -> Vec<u64> {
    let mut starts = Vec::with_capacity(metadata.num_row_groups() + 1);
    let mut at = 0u64;
    starts.push(at);
    for rg in metadata.row_groups() {
        at += rg.num_rows().max(0) as u64;
        starts.push(at);
    }
    starts
}

/// The rows of `range` as a selection over the rows of `row_groups` (ascending; `starts` from
/// [`row_group_starts`]).
fn range_selection(range: &Range<u64>, starts: &[u64], row_groups: &[usize]) -> RowSelection {
    let mut selectors = Vec::new();
    for &i in row_groups {
        let (first, end) = (starts[i], starts[i + 1]);
        let from = range.start.clamp(first, end);
        let to = range.end.clamp(from, end);
        for (rows, keep) in [(from - first, false), (to - from, true), (end - to, false)] {
            if rows > 0 {
                selectors.push(if keep {
                    RowSelector::select(rows as usize)
                } else {
                    RowSelector::skip(rows as usize)
                });
            }
        }
    }
    RowSelection::from(selectors)
}

/// Ties each read field to a file column (by field id, then name) and records the file
/// columns to decode in `decode` (for shredded MAP columns, only the children needed).
#[allow(clippy::too_many_arguments)]
pub(super) fn plan_columns(
    file_schema: &SchemaRef,
    data_fields: &[DataField],
    read_fields: &[DataField],
    target_schema: &SchemaRef,
    decode: &mut Decode,
    display: &str,
    shredding: &FileShreddingMeta,
    hints: &ReadHints,
) -> Result<Vec<ColumnPlan>> {
    let file_names = file_schema.fields().iter().map(|f| f.name().as_str());
    let mut plans = Vec::with_capacity(read_fields.len());
    for (rf, target) in read_fields.iter().zip(target_schema.fields()) {
        let source = data_fields.iter().find(|df| df.id == rf.id).and_then(|df| {
            find_by_name(file_names.clone(), &df.name).map(|i| (i, df.data_type.clone()))
        });
        let mut shredded = None;
        let source = match source {
            Some((i, dt)) => {
                let name = file_schema.field(i).name().clone();
                match shredding.get(&name) {
                    Some(meta) if matches!(rf.data_type.kind, TypeKind::Map { .. }) => {
                        let selected = hints.selected_map_keys.get(&rf.id).map(|k| &k[..]);
                        let plan = ShreddedRead::plan(&name, meta.clone(), &dt, selected)
                            .map_err(|e| in_file(e, display))?;
                        // No selected key in this file: nothing of the column is decoded.
                        if !plan.children.is_empty() {
                            decode.add(i, Some(&plan.children));
                        }
                        shredded = Some(Arc::new(plan));
                    }
                    _ => decode.add(i, None),
                }
                Some((name, dt))
            }
            None => None,
        };
        if source.is_none() && !rf.data_type.nullable {
            return Err(ErrorDetail::SchemaMismatch {
                column: rf.name.clone(),
                message: format!(
                    "reading {display}: the column is NOT NULL but the file has no column for \
                     it (field id {})",
                    rf.id
                ),
            }
            .into());
        }
        plans.push(ColumnPlan {
            target: target.clone(),
            read_type: rf.data_type.clone(),
            source,
            shredded,
        });
    }
    Ok(plans)
}

fn in_file(e: Error, display: &str) -> Error {
    e.map_detail(|d| match d {
        ErrorDetail::SchemaMismatch { column, message } => ErrorDetail::SchemaMismatch {
            column,
            message: format!("reading {display}: {message}"),
        },
        other => other,
    })
}

pub(super) fn evolve_batch(
    batch: &RecordBatch,
    plans: &[ColumnPlan],
    target_schema: &SchemaRef,
) -> Result<RecordBatch> {
    let rows = batch.num_rows();
    let schema = batch.schema();
    let mut columns = Vec::with_capacity(plans.len());
    for plan in plans {
        let column = match &plan.source {
            Some(_)
                if plan
                    .shredded
                    .as_ref()
                    .is_some_and(|s| s.children.is_empty()) =>
            {
                let shredded = plan.shredded.as_ref().expect("checked in the guard");
                shredded.empty_maps(rows, &plan.target)?
            }
            Some((name, data_type)) => {
                let i = schema.index_of(name).map_err(|e| {
                    Error::arrow(format!("projected column {name} missing from batch"), e)
                })?;
                if let Some(shredded) = &plan.shredded {
                    columns.push(shredded.reconstruct(
                        batch.column(i),
                        &plan.read_type,
                        &plan.target,
                    )?);
                    continue;
                }
                evolve_array(
                    batch.column(i),
                    data_type,
                    &plan.read_type,
                    &plan.target,
                    plan.target.name(),
                )?
            }
            None => new_null_array(plan.target.data_type(), rows),
        };
        columns.push(column);
    }
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(target_schema.clone(), columns, &options)
        .map_err(|e| Error::arrow("assembling the read batch", e))
}
