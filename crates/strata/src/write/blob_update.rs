//! A BLOB column updated by row id ([`crate::table::Table::update_columns`], SQL `UPDATE` /
//! `MERGE INTO` of data-evolution tables), written as Spark's `DataEvolutionTableDataWrite`
//! (Java Paimon 2.0, raw-data BLOB partial writes) writes it: for each row-id range touched,
//! `.blob` files of that one column over the whole range, the new value for each updated row
//! and a placeholder (Java's `BlobPlaceholder`, length `-2`) for every other row, rolled at
//! `blob.target-file-size`, `writeCols` = the column, the `firstRowId`s consecutive from the
//! range's (`assignFirstRowIds`). No older file is rewritten: readers resolve each row to its
//! newest non-placeholder value (`BlobFallbackRecordReader`, `crate::read` `blob_files`).
//! Sequence numbers count from 0 in every file and are stamped with the snapshot id at commit
//! (`RowTrackingCommitUtils`), so the update is the newest write of its rows.

use arrow_array::ArrayRef;
use object_store::path::Path;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{DataFileMeta, FileSource};
use strata_spec::stats::SimpleStats;

use crate::error::ErrorDetail;
use crate::format::blob_writer::BlobFileWriter;
use crate::lsm::kv_file_writer::local_now_millis;
use crate::meta::FileNamer;
use crate::table::Table;
use crate::Result;

use super::blob_write::{fetch_descriptor, BlobLayout, BlobValues};

/// One row-id range's update of one BLOB column.
pub(super) struct BlobUpdate<'a> {
    /// The column's name.
    pub(super) column: &'a str,
    /// The range's partition directory (bucket 0).
    pub(super) dir: &'a str,
    /// The range's first row id and row count.
    pub(super) first_row_id: i64,
    pub(super) rows: usize,
    /// (position in the range, row of `values`), sorted by position, each position once.
    pub(super) updates: &'a [(usize, usize)],
    /// The input column (Binary / LargeBinary; serialized descriptors with
    /// `blob-as-descriptor`).
    pub(super) values: &'a ArrayRef,
}

/// Writes the `.blob` files of `update`; every path created is pushed to `created` (the caller
/// deletes them if anything fails).
pub(super) async fn write_blob_update(
    table: &Table,
    update: &BlobUpdate<'_>,
    created: &mut Vec<Path>,
) -> Result<Vec<DataFileMeta>> {
    let layout = BlobLayout::of(table)?.ok_or_else(|| {
        ErrorDetail::InvalidArgument(format!(
            "this is a bug: {} has no BLOB column {}",
            table.identifier(),
            update.column
        ))
    })?;
    let values = BlobValues::of(update.values.as_ref(), update.column)?;
    let namer = FileNamer::new();
    let prefix = table.options().data_file_prefix();
    let mut files: Vec<DataFileMeta> = Vec::new();
    let mut open: Option<(BlobFileWriter, String)> = None;
    let mut next_update = update.updates.iter().peekable();
    let mut next_first = update.first_row_id;
    let result = async {
        for pos in 0..update.rows {
            if open.is_none() {
                let name = namer.data_file(prefix, "blob");
                let path = table.paths().data_file(update.dir, 0, &name);
                created.push(path.clone());
                open = Some((BlobFileWriter::create(table.file_io(), path), name));
            }
            let (writer, _) = open.as_mut().expect("opened just above");
            match next_update.next_if(|(p, _)| *p == pos) {
                Some(&(_, row)) => match values.get(row) {
                    Some(bytes) if layout.as_descriptor => {
                        let fetched =
                            fetch_descriptor(table, &layout, update.column, bytes).await?;
                        writer.write(fetched.as_deref()).await?
                    }
                    v => writer.write(v).await?,
                },
                None => writer.write_placeholder(),
            }
            if writer.position() >= layout.target_file_size || pos + 1 == update.rows {
                let (writer, name) = open.take().expect("open");
                let rows = writer.rows() as i64;
                let size = writer.close().await?;
                files.push(blob_file_meta(
                    table.schema().id,
                    update.column,
                    name,
                    size,
                    rows,
                    next_first,
                )?);
                next_first += rows;
            }
        }
        Ok::<(), crate::Error>(())
    }
    .await;
    if let Err(e) = result {
        if let Some((writer, _)) = open.take() {
            let _ = writer.abort().await;
        }
        return Err(e);
    }
    Ok(files)
}

/// A `.blob` file's manifest entry as Java's `MultipleBlobFileWriter` reports it, with the
/// `firstRowId` Spark's `DataEvolutionTableDataWrite.assignFirstRowIds` gives it.
fn blob_file_meta(
    schema_id: i64,
    column: &str,
    file_name: String,
    size: u64,
    rows: i64,
    first_row_id: i64,
) -> Result<DataFileMeta> {
    Ok(DataFileMeta {
        file_name,
        file_size: size as i64,
        row_count: rows,
        min_key: BinaryRow::empty(),
        max_key: BinaryRow::empty(),
        key_stats: SimpleStats::empty(),
        value_stats: SimpleStats::from_columns(&[], &[])?,
        min_sequence_number: 0,
        max_sequence_number: rows - 1,
        schema_id,
        level: 0,
        extra_files: Vec::new(),
        creation_time: Some(local_now_millis()),
        delete_row_count: Some(0),
        embedded_index: None,
        file_source: Some(FileSource::Append),
        value_stats_cols: Some(Vec::new()),
        external_path: None,
        first_row_id: Some(first_row_id),
        write_cols: Some(vec![column.to_string()]),
    })
}
