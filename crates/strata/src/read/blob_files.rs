//! The BLOB column of a data-evolution row range, read from its `.blob` files as Java's
//! `DataEvolutionSplitRead` reads a `BlobFileBunch`: the `.blob` files of one BLOB field
//! (`writeCols` = that field) hold consecutive sub-ranges of the data files' row ids (Java rolls
//! them at `blob.target-file-size`); read in first-row-id order and concatenated, they give the
//! column for the whole range. Only Java's fast path (`sequentialReadOptimize`: every file of the
//! bunch from one write, the same `maxSequenceNumber`) is read; a bunch of several writes (BLOB
//! values updated in place, with placeholders, Java's `BlobFallbackRecordReader`) is refused by
//! name. Each file is decoded by [`crate::format::blob_reader`]; with `blob-as-descriptor =
//! true` each value is its serialized `BlobDescriptor` instead of its bytes, as Java's
//! `BlobFormatReader` returns a `BlobRef` (`crate::format::blob_descriptor`).

use arrow_array::{Array, ArrayRef};
use strata_spec::manifest::DataFileMeta;

use crate::error::ErrorDetail;
use arrow_array::builder::BinaryBuilder;
use arrow_array::BinaryArray;

use crate::format::blob_descriptor::BlobDescriptor;
use crate::format::blob_reader::{index_range, read_blob_file, slots_from_index, BlobSlot};
use crate::table::Table;
use crate::{Error, Result};

/// The values of one BLOB field for the `rows` rows from `first_row_id`, from its `.blob`
/// files (`bunch`, all under `partition_dir` / `bucket`), as one Arrow Binary column.
pub(crate) async fn read_bunch(
    table: &Table,
    partition_dir: &str,
    bucket: i32,
    bunch: &[&DataFileMeta],
    first_row_id: i64,
    rows: usize,
) -> Result<ArrayRef> {
    let mut files: Vec<&DataFileMeta> = bunch.to_vec();
    files.sort_by_key(|f| f.first_row_id);
    let names = || {
        files
            .iter()
            .map(|f| f.file_name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if files
        .iter()
        .any(|f| f.max_sequence_number != files[0].max_sequence_number)
    {
        return Err(unsupported(
            table,
            format!(
                "the BLOB files {} of row ids {first_row_id}.. come from several writes (BLOB \
                 values updated in place, read by Java's BlobFallbackRecordReader); strata reads \
                 BLOB files of one write only",
                names()
            ),
        ));
    }
    let mut next = first_row_id;
    for f in &files {
        if f.first_row_id != Some(next) {
            return Err(unsupported(
                table,
                format!(
                    "the BLOB files {} do not cover row ids {first_row_id}.. one after the \
                     other (file {} starts at {:?}, expected {next}; Java: \"Blob file bunch \
                     should always contain a contiguous row range\")",
                    names(),
                    f.file_name,
                    f.first_row_id
                ),
            ));
        }
        next += f.row_count;
    }
    if next - first_row_id != rows as i64 {
        return Err(unsupported(
            table,
            format!(
                "the BLOB files {} hold {} rows where their data files hold {rows}",
                names(),
                next - first_row_id
            ),
        ));
    }
    let as_descriptor = table
        .options()
        .get_bool("blob-as-descriptor")?
        .unwrap_or(false);
    let mut parts: Vec<ArrayRef> = Vec::with_capacity(files.len());
    for file in files.iter().copied() {
        let (io, path) = match &file.external_path {
            Some(uri) => table.file_io().resolve_external(uri)?,
            None => (
                table.file_io().clone(),
                table
                    .paths()
                    .data_file(partition_dir, bucket, &file.file_name),
            ),
        };
        let values = if as_descriptor {
            // Java's AbstractBlobElementReader.readBlob: the file's path as Java spells it
            // (the external path as stored, else the table's path), the payload's range. Only
            // the footer and the index are read, as Java's BlobFileMeta (the values may be
            // far larger than memory).
            let uri = match &file.external_path {
                Some(uri) => uri.clone(),
                None => io.display(&path),
            };
            let size = file.file_size.max(0) as u64;
            let tail = io.get_range(&path, size.saturating_sub(5)..size).await?;
            let index = index_range(path.as_ref(), size, &tail)?;
            let data_end = index.start;
            let index = io.get_range(&path, index).await?;
            let slots = slots_from_index(path.as_ref(), data_end, &index)?;
            descriptors(path.as_ref(), &uri, &slots)?
        } else {
            let bytes = io.get(&path).await?;
            read_blob_file(path.as_ref(), &bytes)?
        };
        if values.len() as i64 != file.row_count {
            return Err(ErrorDetail::DataFile {
                format: "blob",
                path: path.to_string(),
                message: format!(
                    "{} rows where its manifest entry says {}",
                    values.len(),
                    file.row_count
                ),
            }
            .into());
        }
        parts.push(std::sync::Arc::new(values));
    }
    let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
    match refs.len() {
        1 => Ok(parts.swap_remove(0)),
        _ => arrow::compute::concat(&refs).map_err(|e| Error::arrow("concatenating BLOB files", e)),
    }
}

/// `blob-as-descriptor = true`: each value as a serialized `BlobDescriptor` of its payload in
/// the `.blob` file at `uri` (NULL rows NULL); a placeholder row is refused as in
/// [`read_blob_file`].
fn descriptors(path: &str, uri: &str, slots: &[BlobSlot]) -> Result<BinaryArray> {
    let mut out = BinaryBuilder::new();
    for (row, slot) in slots.iter().enumerate() {
        match *slot {
            BlobSlot::Null => out.append_null(),
            BlobSlot::Placeholder => {
                return Err(ErrorDetail::Unsupported(format!(
                    "reading .blob file {path}: row {row} is a placeholder for a BLOB kept in an \
                     older file (Java's BlobFallbackRecordReader); strata does not read BLOB \
                     columns updated in place"
                ))
                .into())
            }
            BlobSlot::Value { offset, length } => out.append_value(
                BlobDescriptor {
                    uri: uri.to_string(),
                    offset: offset as i64,
                    length: length as i64,
                }
                .serialize(),
            ),
        }
    }
    Ok(out.finish())
}

fn unsupported(table: &Table, why: String) -> Error {
    ErrorDetail::Unsupported(format!(
        "reading BLOB column of table {}: {why}",
        table.identifier()
    ))
    .into()
}
