//! BLOB columns of data-evolution append tables, written as Java Paimon 2.0's
//! `DedicatedFormatRollingFileWriter` (with `MultipleBlobFileWriter`) writes them: a row is
//! split into its normal columns, which go to the bucket's Parquet file (`writeCols` = those
//! columns, value statistics over them only), and each top-level BLOB column, whose values go to
//! `.blob` files of their own ([`crate::format::blob_writer`], `writeCols` = that column, no
//! statistics, `valueStatsCols` empty).
//!
//! Each BLOB column rolls its `.blob` files at `blob.target-file-size` (default
//! `target-file-size`), checked after every row as Java's `BlobFormatWriter.reachTargetSize`;
//! when the Parquet file closes, every open `.blob` file closes with it, so one Parquet file is
//! followed by the `.blob` files of the same rows. The commit's files are in Java's order (the
//! Parquet file, then each BLOB column's files in schema order, each column's in row order),
//! which is how the commit gives the `.blob` files the `firstRowId`s of their rows
//! (`RowTrackingCommitUtils.assignRowTrackingMeta`, `crate::commit::row_tracking`). Sequence
//! numbers count from 0 in every file (data evolution: Java's `AppendOnlyWriter` gives each file
//! a new counter), stamped with the snapshot id at commit.
//!
//! With `blob-as-descriptor = true` the input values are serialized `BlobDescriptor`s
//! (`crate::format::blob_descriptor`): the bytes each points at are read and copied into the
//! `.blob` file, as Java's writers copy a `BlobRef`'s stream.
//!
//! What Java 2.0 allows beyond this — `blob-descriptor-field`, `blob-view-field`, BLOBs inside ARRAY / MAP, primary-key tables with BLOB columns
//! (`PrimaryKeyBlobExternalizer`) — is refused by name before anything is written
//! ([`refuse_unwritable`]).

use arrow_array::{Array, BinaryArray, LargeBinaryArray, RecordBatch};
use object_store::path::Path;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{DataFileMeta, FileSource};
use strata_spec::stats::{SimpleStats, StatsMode};
use strata_spec::{DataType, TypeKind};

use crate::error::ErrorDetail;
use crate::format::blob_descriptor::BlobDescriptor;
use crate::format::blob_writer::BlobFileWriter;
use crate::format::stats_options::ValueStatsLayout;
use crate::lsm::kv_file_writer::local_now_millis;
use crate::meta::FileNamer;
use crate::table::Table;
use crate::{Error, Result};

/// Where a table's BLOB columns go (`None` from [`BlobLayout::of`]: the table has none).
#[derive(Debug, Clone)]
pub(super) struct BlobLayout {
    /// Position in the table's columns and name of each top-level BLOB column.
    pub(super) fields: Vec<(usize, String)>,
    /// Positions of the other columns: the Parquet file's columns.
    pub(super) normal: Vec<usize>,
    /// `blob.target-file-size`.
    pub(super) target_file_size: u64,
    /// `blob-as-descriptor`: the input values are serialized `BlobDescriptor`s whose bytes
    /// are copied into the `.blob` files.
    pub(super) as_descriptor: bool,
    /// `blob-write-null-on-missing-file`: a descriptor naming a file that does not exist
    /// writes NULL instead of failing the write.
    pub(super) null_on_missing_file: bool,
    /// `blob-write-null-on-fetch-failure`: a descriptor whose bytes cannot be fetched for
    /// another reason (a location strata cannot resolve, an I/O error, fewer bytes than it
    /// says) writes NULL instead of failing the write.
    pub(super) null_on_fetch_failure: bool,
}

fn contains_blob(t: &DataType) -> bool {
    match &t.kind {
        TypeKind::Blob => true,
        TypeKind::Array(e) | TypeKind::Multiset(e) => contains_blob(e),
        TypeKind::Map { key, value } => contains_blob(key) || contains_blob(value),
        TypeKind::Row(fields) => fields.iter().any(|f| contains_blob(&f.data_type)),
        _ => false,
    }
}

/// Refuses, by name, a write to a table whose BLOB columns strata cannot write as Java does:
/// BLOBs nested in ARRAY / MAP / MULTISET / ROW (Java's `ArrayBlobElementSerializer`,
/// `MapBlobElementSerializer`), BLOB columns of primary-key tables (Java's
/// `PrimaryKeyBlobExternalizer`), tables without `data-evolution.enabled`, and the options that
/// store BLOBs other than as bytes in `.blob` files (`blob-descriptor-field` / `blob.stored-descriptor-fields`, `blob-view-field`).
pub(crate) fn refuse_unwritable(table: &Table, doing: &str) -> Result<()> {
    let schema = table.schema();
    // Java's SchemaValidation.validateBlobFields: `blob-field` names BLOB columns only (a
    // table with another column named there is not one Java would have created).
    if let Some(listed) = table.options().get("blob-field") {
        for name in listed.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let is_blob = schema
                .fields
                .iter()
                .any(|f| f.name == name && contains_blob(&f.data_type));
            if !is_blob {
                return Err(ErrorDetail::UnsupportedOption {
                    key: "blob-field".into(),
                    message: format!(
                        "{doing} table {}: field '{name}' in 'blob-field' must be a BLOB, \
                         ARRAY<BLOB> or MAP<X, BLOB> field in table schema",
                        table.identifier()
                    ),
                }
                .into());
            }
        }
    }
    let blobs: Vec<&strata_spec::DataField> = schema
        .fields
        .iter()
        .filter(|f| contains_blob(&f.data_type))
        .collect();
    if blobs.is_empty() {
        return Ok(());
    }
    let names = blobs
        .iter()
        .map(|f| f.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let refuse = |why: String| -> Result<()> {
        Err(ErrorDetail::Unsupported(format!(
            "{doing} table {}: BLOB column(s) {names}: {why}",
            table.identifier()
        ))
        .into())
    };
    if let Some(f) = blobs
        .iter()
        .find(|f| !matches!(f.data_type.kind, TypeKind::Blob))
    {
        return refuse(format!(
            "column {} holds BLOBs inside {}; Java 2.0 stores those with its ARRAY/MAP BLOB \
             element serializers, which strata does not write (top-level BLOB columns only)",
            f.name, f.data_type
        ));
    }
    if table.is_primary_key_table() {
        return refuse(
            "BLOB columns of primary-key tables (Java's PrimaryKeyBlobExternalizer) are not \
             written by strata; it writes BLOB columns of data-evolution append tables"
                .into(),
        );
    }
    let opts = table.options();
    if !opts.data_evolution_enabled()? {
        return refuse(
            "a table with BLOB columns needs data-evolution.enabled = true (Java's \
             SchemaValidation: \"Data evolution config must enabled for table with BLOB ...\")"
                .into(),
        );
    }
    for key in [
        "blob-descriptor-field",
        "blob.stored-descriptor-fields",
        "blob-view-field",
    ] {
        let set = opts.get(key).is_some_and(|v| !v.trim().is_empty());
        if set {
            return Err(ErrorDetail::UnsupportedOption {
                key: key.into(),
                message: format!(
                    "{doing} table {}: {key} = {} stores BLOB columns ({names}) as serialized \
                     descriptors or views, which strata does not write; it writes BLOB bytes \
                     into .blob files (remove the option, or write with Java Paimon)",
                    table.identifier(),
                    opts.get(key).unwrap_or_default()
                ),
            }
            .into());
        }
    }
    Ok(())
}

impl BlobLayout {
    /// The layout of `table`'s top-level BLOB columns (`None`: it has none). Call
    /// [`refuse_unwritable`] first.
    pub(super) fn of(table: &Table) -> Result<Option<Self>> {
        let schema = table.schema();
        let fields: Vec<(usize, String)> = schema
            .fields
            .iter()
            .enumerate()
            .filter(|(_, f)| matches!(f.data_type.kind, TypeKind::Blob))
            .map(|(i, f)| (i, f.name.clone()))
            .collect();
        if fields.is_empty() {
            return Ok(None);
        }
        let normal = (0..schema.fields.len())
            .filter(|i| !fields.iter().any(|(b, _)| b == i))
            .collect();
        let opts = table.options();
        let target_file_size = match opts.get_memory_size("blob.target-file-size")? {
            Some(size) => size,
            None => opts.target_file_size(false)?,
        };
        Ok(Some(BlobLayout {
            fields,
            normal,
            target_file_size,
            as_descriptor: opts.get_bool("blob-as-descriptor")?.unwrap_or(false),
            null_on_missing_file: opts
                .get_bool("blob-write-null-on-missing-file")?
                .unwrap_or(false),
            null_on_fetch_failure: opts
                .get_bool("blob-write-null-on-fetch-failure")?
                .unwrap_or(false),
        }))
    }

    /// The table's value-statistics layout restricted to the normal columns, as Java's
    /// `SimpleStatsConverter` over the Parquet file's row type (dense store: columns with mode
    /// `none` dropped and listed in `valueStatsCols`, or all kept and the list null).
    pub(super) fn normal_stats(&self, full: &ValueStatsLayout, table: &Table) -> ValueStatsLayout {
        let fields = &table.schema().fields;
        let modes: Vec<StatsMode> = self.normal.iter().map(|i| full.modes[*i]).collect();
        let dense = full.stats_cols.is_some();
        let stats_cols = (dense && modes.contains(&StatsMode::None)).then(|| {
            let idx: Vec<usize> = (0..modes.len())
                .filter(|i| modes[*i] != StatsMode::None)
                .collect();
            let names = idx
                .iter()
                .map(|i| fields[self.normal[*i]].name.clone())
                .collect();
            (idx, names)
        });
        let stats_types = match &stats_cols {
            Some((idx, _)) => idx
                .iter()
                .map(|i| fields[self.normal[*i]].data_type.clone())
                .collect(),
            None => self
                .normal
                .iter()
                .map(|i| fields[*i].data_type.clone())
                .collect(),
        };
        ValueStatsLayout {
            modes,
            stats_cols,
            stats_types,
        }
    }

    /// The Parquet file's columns of `batch` (the table's columns).
    pub(super) fn normal_columns(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        batch
            .project(&self.normal)
            .map_err(|e| Error::arrow("projecting the non-BLOB columns", e))
    }
}

/// The open `.blob` file of one BLOB column.
struct OpenBlobFile {
    writer: BlobFileWriter,
    name: String,
}

/// The `.blob` files of every BLOB column of one (partition, bucket) writer.
pub(super) struct BlobColumnsWriter {
    layout: BlobLayout,
    schema_id: i64,
    /// Per BLOB column: its open file and its files closed since the Parquet file opened.
    open: Vec<Option<OpenBlobFile>>,
    closed: Vec<Vec<DataFileMeta>>,
}

impl BlobColumnsWriter {
    pub(super) fn new(layout: BlobLayout, schema_id: i64) -> Self {
        let n = layout.fields.len();
        BlobColumnsWriter {
            layout,
            schema_id,
            open: (0..n).map(|_| None).collect(),
            closed: (0..n).map(|_| Vec::new()).collect(),
        }
    }

    /// Writes the BLOB columns of `batch` (the table's columns); new files are named by
    /// `namer` under `dir` and recorded in `created`.
    pub(super) async fn write(
        &mut self,
        table: &Table,
        namer: &FileNamer,
        file_prefix: &str,
        dir: (&str, i32),
        batch: &RecordBatch,
        created: &mut Vec<Path>,
    ) -> Result<()> {
        for slot in 0..self.layout.fields.len() {
            let (col, name) = self.layout.fields[slot].clone();
            let column = batch.column(col);
            let values = BlobValues::of(column.as_ref(), &name)?;
            for row in 0..batch.num_rows() {
                if self.open[slot].is_none() {
                    let file = namer.data_file(file_prefix, "blob");
                    let path = table.paths().data_file(dir.0, dir.1, &file);
                    created.push(path.clone());
                    self.open[slot] = Some(OpenBlobFile {
                        writer: BlobFileWriter::create(table.file_io(), path),
                        name: file,
                    });
                }
                let fetched;
                let value = match values.get(row) {
                    Some(bytes) if self.layout.as_descriptor => {
                        fetched = fetch_descriptor(table, &self.layout, &name, bytes).await?;
                        fetched.as_deref()
                    }
                    v => v,
                };
                let open = self.open[slot].as_mut().expect("opened just above");
                open.writer.write(value).await?;
                if open.writer.position() >= self.layout.target_file_size {
                    self.close_slot(slot).await?;
                }
            }
        }
        Ok(())
    }

    async fn close_slot(&mut self, slot: usize) -> Result<()> {
        let Some(open) = self.open[slot].take() else {
            return Ok(());
        };
        let rows = open.writer.rows() as i64;
        let size = open.writer.close().await?;
        self.closed[slot].push(DataFileMeta {
            file_name: open.name,
            file_size: size as i64,
            row_count: rows,
            min_key: BinaryRow::empty(),
            max_key: BinaryRow::empty(),
            key_stats: SimpleStats::empty(),
            value_stats: SimpleStats::from_columns(&[], &[])?,
            min_sequence_number: 0,
            max_sequence_number: rows - 1,
            schema_id: self.schema_id,
            level: 0,
            extra_files: Vec::new(),
            creation_time: Some(local_now_millis()),
            delete_row_count: Some(0),
            embedded_index: None,
            file_source: Some(FileSource::Append),
            value_stats_cols: Some(Vec::new()),
            external_path: None,
            first_row_id: None,
            write_cols: Some(vec![self.layout.fields[slot].1.clone()]),
        });
        Ok(())
    }

    /// Closes every open `.blob` file (its Parquet file is closing) and hands over the files
    /// since the last call, column by column in schema order. `rows` is the Parquet file's
    /// row count, which each column's files must add up to.
    pub(super) async fn close(&mut self, rows: i64) -> Result<Vec<DataFileMeta>> {
        for slot in 0..self.open.len() {
            self.close_slot(slot).await?;
        }
        let mut out = Vec::new();
        for (slot, files) in self.closed.iter_mut().enumerate() {
            let n: i64 = files.iter().map(|f| f.row_count).sum();
            if n != rows {
                return Err(ErrorDetail::InvalidArgument(format!(
                    "this is a bug: BLOB column {} has {n} rows in its .blob files where the data file has \
                     {rows}",
                    self.layout.fields[slot].1
                ))
                .into());
            }
            out.append(files);
        }
        Ok(out)
    }

    /// Abandons the open `.blob` files (the caller deletes every created path).
    pub(super) async fn abort(&mut self) {
        for slot in self.open.iter_mut() {
            if let Some(open) = slot.take() {
                let _ = open.writer.abort().await;
            }
        }
        for files in self.closed.iter_mut() {
            files.clear();
        }
    }
}

/// `blob-as-descriptor`: the bytes a serialized `BlobDescriptor` points at, or `None` (NULL)
/// when they cannot be fetched and `blob-write-null-on-missing-file` /
/// `blob-write-null-on-fetch-failure` say to write NULL then (Java's descriptor writes in
/// Flink). A descriptor that does not decode is always an error: it is bad input, not a
/// failed fetch.
pub(super) async fn fetch_descriptor(
    table: &Table,
    layout: &BlobLayout,
    column: &str,
    bytes: &[u8],
) -> Result<Option<bytes::Bytes>> {
    let d = BlobDescriptor::deserialize(bytes).map_err(|e| {
        Error::from(ErrorDetail::InvalidArgument(format!(
            "BLOB column {column} (blob-as-descriptor = true): {e}"
        )))
    })?;
    let fetch_failed = |e: Error| {
        if layout.null_on_fetch_failure {
            Ok(None)
        } else {
            Err(e)
        }
    };
    let (io, path) = match table.file_io().resolve_external(&d.uri) {
        Ok(found) => found,
        Err(e) => return fetch_failed(e),
    };
    match io.exists(&path).await {
        Ok(true) => {}
        Ok(false) if layout.null_on_missing_file => return Ok(None),
        Ok(false) => {
            return Err(ErrorDetail::NotFound(format!(
                "BLOB column {column}: the descriptor's file {} does not exist \
                 (blob-write-null-on-missing-file = true writes NULL instead)",
                d.uri
            ))
            .into())
        }
        Err(e) => return fetch_failed(e),
    }
    match read_descriptor_bytes(&io, &path, &d, column).await {
        Ok(got) => Ok(Some(got)),
        Err(e) => fetch_failed(e),
    }
}

/// Java's `BlobRef`: `length` bytes from `offset` of the file at `uri`, to its end when
/// `length` is negative, read through the table's storage (local paths, `file:`, `s3://`,
/// `memory://`).
async fn read_descriptor_bytes(
    io: &crate::io::FileIO,
    path: &object_store::path::Path,
    d: &BlobDescriptor,
    column: &str,
) -> Result<bytes::Bytes> {
    if d.offset < 0 {
        return Err(ErrorDetail::InvalidArgument(format!(
            "BLOB column {column}: descriptor of {} has offset {}",
            d.uri, d.offset
        ))
        .into());
    }
    let start = d.offset as u64;
    let end = if d.length < 0 {
        io.head(path).await?.size
    } else {
        start.checked_add(d.length as u64).ok_or_else(|| {
            Error::from(ErrorDetail::InvalidArgument(format!(
                "BLOB column {column}: descriptor of {} overflows",
                d.uri
            )))
        })?
    };
    if end == start {
        return Ok(bytes::Bytes::new());
    }
    let got = io.get_range(path, start..end).await?;
    if (got.len() as u64) != end - start {
        return Err(ErrorDetail::InvalidArgument(format!(
            "BLOB column {column}: {} holds {} bytes at {start}, the descriptor says {}",
            d.uri,
            got.len(),
            end - start
        ))
        .into());
    }
    Ok(got)
}

/// A BLOB column's values: the table's Arrow type for BLOB is Binary; LargeBinary is taken
/// too.
pub(super) enum BlobValues<'a> {
    Binary(&'a BinaryArray),
    Large(&'a LargeBinaryArray),
}

impl<'a> BlobValues<'a> {
    pub(super) fn of(column: &'a dyn Array, name: &str) -> Result<Self> {
        let any = column.as_any();
        if let Some(a) = any.downcast_ref::<BinaryArray>() {
            return Ok(BlobValues::Binary(a));
        }
        if let Some(a) = any.downcast_ref::<LargeBinaryArray>() {
            return Ok(BlobValues::Large(a));
        }
        Err(ErrorDetail::InvalidArgument(format!(
            "BLOB column {name}: expected Binary values, got {}",
            column.data_type()
        ))
        .into())
    }

    pub(super) fn get(&self, row: usize) -> Option<&'a [u8]> {
        match self {
            BlobValues::Binary(a) => (!a.is_null(row)).then(|| a.value(row)),
            BlobValues::Large(a) => (!a.is_null(row)).then(|| a.value(row)),
        }
    }
}
