//! The BLOB column of a data-evolution row range, read from its `.blob` files as Java's
//! `DataEvolutionSplitRead` reads a `BlobFileBunch`: the `.blob` files of one BLOB field
//! (`writeCols` = that field) hold sub-ranges of the data files' row ids (Java rolls them at
//! `blob.target-file-size`). Files of one write are concatenated in first-row-id order
//! (`sequentialReadOptimize`); files of several writes (a BLOB column updated by row id, with
//! placeholder rows) are resolved as Java's `BlobFallbackRecordReader`, newest write first.
//! Each file is decoded by [`crate::format::blob_reader`]; with `blob-as-descriptor = true`
//! each value is its serialized `BlobDescriptor` instead of its bytes, as Java's
//! `BlobFormatReader` returns a `BlobRef` (`crate::format::blob_descriptor`). The columns of
//! `blob-descriptor-field` live in the data files as serialized descriptors instead and are
//! resolved here too ([`resolve_inline_descriptors`], Java's `Blob.fromBytes`).

use arrow_array::{Array, ArrayRef};
use strata_spec::manifest::DataFileMeta;

use crate::error::ErrorDetail;
use arrow_array::builder::BinaryBuilder;
use arrow_array::BinaryArray;

use crate::format::blob_descriptor::BlobDescriptor;
use crate::format::blob_reader::{blob_slots, index_range, slots_from_index, BlobSlot};
use crate::table::Table;
use crate::{Error, Result};

/// The values of one BLOB field for the `rows` rows from `first_row_id`, from its `.blob`
/// files (`bunch`, all under `partition_dir` / `bucket`), as one Arrow Binary column.
///
/// As Java's `DataEvolutionSplitRead`: one write's files (one `maxSequenceNumber`) are read in
/// first-row-id order (`sequentialReadOptimize`); files of several writes (a BLOB column
/// updated by row id, pypaimon's `update_by_arrow_with_row_id`) are resolved as Java's
/// `BlobFallbackRecordReader`: files grouped by `maxSequenceNumber`, newest first, the rows a
/// group's files leave out read as placeholders (`AllPlaceholdersRecordReader`), and each row
/// is its first non-placeholder value, newest group first; a row every group leaves as a
/// placeholder is NULL.
pub(crate) async fn read_bunch(
    table: &Table,
    partition_dir: &str,
    bucket: i32,
    bunch: &[&DataFileMeta],
    first_row_id: i64,
    rows: usize,
) -> Result<ArrayRef> {
    let mut files: Vec<&DataFileMeta> = bunch.to_vec();
    // newest write first, then by first row id (Java: TreeMap(reverseOrder) of max_seq groups,
    // each sorted by first row id)
    files.sort_by_key(|f| (std::cmp::Reverse(f.max_sequence_number), f.first_row_id));
    let names = || {
        files
            .iter()
            .map(|f| f.file_name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let end = first_row_id + rows as i64;
    let mut ranges: Vec<(i64, i64)> = Vec::with_capacity(files.len());
    for (i, f) in files.iter().enumerate() {
        let Some(from) = f.first_row_id else {
            return Err(unsupported(
                table,
                format!("the BLOB file {} has no first row id", f.file_name),
            ));
        };
        let to = from + f.row_count;
        if from < first_row_id || to > end {
            return Err(unsupported(
                table,
                format!(
                    "the BLOB file {} holds row ids {from}..{to}, outside its data files' row \
                     ids {first_row_id}..{end}",
                    f.file_name
                ),
            ));
        }
        if let Some(prev) = i.checked_sub(1).map(|p| files[p]) {
            if prev.max_sequence_number == f.max_sequence_number && ranges[i - 1].1 > from {
                return Err(unsupported(
                    table,
                    format!(
                        "the BLOB files {} and {} of one write overlap in row ids (Java: \
                         \"Blob files within a same max_seq_num should not overlap\")",
                        prev.file_name, f.file_name
                    ),
                ));
            }
        }
        ranges.push((from, to));
    }
    // Java's BlobFileBunch.rowCount: the files' ranges merge into the data files' range.
    let mut covered = ranges.clone();
    covered.sort();
    let mut next = first_row_id;
    for (from, to) in covered {
        if from > next {
            break;
        }
        next = next.max(to);
    }
    if next != end {
        return Err(unsupported(
            table,
            format!(
                "the BLOB files {} do not cover row ids {first_row_id}..{end} (Java: \"Blob \
                 file bunch should always contain a contiguous row range\" aligned with the \
                 data files)",
                names()
            ),
        ));
    }
    let as_descriptor = table
        .options()
        .get_bool("blob-as-descriptor")?
        .unwrap_or(false);
    // Each file's slots, with its bytes (read whole when values are returned) or its URI.
    let mut loaded: Vec<(Vec<BlobSlot>, Source)> = Vec::with_capacity(files.len());
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
        let (slots, source) = if as_descriptor {
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
            (slots, Source::Uri(uri))
        } else {
            let bytes = io.get(&path).await?;
            let slots = blob_slots(path.as_ref(), &bytes)?;
            (slots, Source::Bytes(bytes))
        };
        if slots.len() as i64 != file.row_count {
            return Err(ErrorDetail::DataFile {
                format: "blob",
                path: path.to_string(),
                message: format!(
                    "{} rows where its manifest entry says {}",
                    slots.len(),
                    file.row_count
                ),
            }
            .into());
        }
        loaded.push((slots, source));
    }
    // Each row: the first non-placeholder slot, newest write first (None: placeholder so far).
    let mut resolved: Vec<Option<(usize, BlobSlot)>> = vec![None; rows];
    for (i, (slots, _)) in loaded.iter().enumerate() {
        let base = (ranges[i].0 - first_row_id) as usize;
        for (k, slot) in slots.iter().enumerate() {
            let r = &mut resolved[base + k];
            if r.is_none() && *slot != BlobSlot::Placeholder {
                *r = Some((i, *slot));
            }
        }
    }
    let total: u64 = resolved
        .iter()
        .map(|r| match r {
            Some((_, BlobSlot::Value { length, .. })) if !as_descriptor => *length,
            _ => 0,
        })
        .sum();
    if total > i32::MAX as u64 {
        return Err(unsupported(
            table,
            format!(
                "the BLOB files {} hold {total} bytes for row ids {first_row_id}..{end}, more \
                 than one Arrow Binary column takes (2 GiB); read them with blob-as-descriptor",
                names()
            ),
        ));
    }
    let mut out = BinaryBuilder::with_capacity(rows, total as usize);
    for r in resolved {
        match r {
            None | Some((_, BlobSlot::Null)) | Some((_, BlobSlot::Placeholder)) => {
                out.append_null()
            }
            Some((i, BlobSlot::Value { offset, length })) => match &loaded[i].1 {
                Source::Bytes(bytes) => {
                    out.append_value(&bytes[offset as usize..(offset + length) as usize])
                }
                Source::Uri(uri) => out.append_value(
                    BlobDescriptor {
                        uri: uri.clone(),
                        offset: offset as i64,
                        length: length as i64,
                    }
                    .serialize(),
                ),
            },
        }
    }
    let values: BinaryArray = out.finish();
    Ok(std::sync::Arc::new(values))
}

/// Where a `.blob` file's values come from: its bytes, or (`blob-as-descriptor`) its URI.
enum Source {
    Bytes(bytes::Bytes),
    Uri(String),
}

fn unsupported(table: &Table, why: String) -> Error {
    ErrorDetail::Unsupported(format!(
        "reading BLOB column of table {}: {why}",
        table.identifier()
    ))
    .into()
}

/// The BLOB columns stored inline as serialized `BlobDescriptor`s in the data files (Java's
/// `CoreOptions.blobDescriptorField`: `blob-descriptor-field`, fallback key
/// `blob.stored-descriptor-fields`, comma-separated).
pub(crate) fn descriptor_fields(table: &Table) -> Vec<String> {
    let opts = table.options();
    let listed = opts
        .get("blob-descriptor-field")
        .or_else(|| opts.get("blob.stored-descriptor-fields"));
    listed
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// A `blob-descriptor-field` column as read from a data file (each value a serialized
/// `BlobDescriptor`, Java's `Blob.serializeBlob`), as Java's `Blob.fromBytes` returns it: the
/// bytes the descriptor points at (`BlobRef.toData`: `length` bytes from `offset` of `uri`, to
/// the end when `length` is negative), or with `blob-as-descriptor = true` the descriptor
/// itself, serialized again (`BlobRef.toDescriptor().serialize()`). `column` names it.
pub(crate) async fn resolve_inline_descriptors(
    table: &Table,
    column: &str,
    values: &ArrayRef,
) -> Result<ArrayRef> {
    let as_descriptor = table
        .options()
        .get_bool("blob-as-descriptor")?
        .unwrap_or(false);
    let values = arrow::compute::cast(values, &arrow_schema::DataType::Binary)
        .map_err(|e| Error::arrow(format!("reading BLOB column {column}"), e))?;
    let values = values
        .as_any()
        .downcast_ref::<BinaryArray>()
        .ok_or_else(|| unsupported(table, format!("BLOB column {column} is not binary")))?;
    let mut out = BinaryBuilder::new();
    for i in 0..values.len() {
        if values.is_null(i) {
            out.append_null();
            continue;
        }
        let d = BlobDescriptor::deserialize(values.value(i)).map_err(|e| {
            unsupported(
                table,
                format!("BLOB column {column} (blob-descriptor-field), row {i}: {e}"),
            )
        })?;
        if as_descriptor {
            out.append_value(d.serialize());
            continue;
        }
        let (io, path) = table.file_io().resolve_external(&d.uri)?;
        let start = u64::try_from(d.offset).map_err(|_| {
            unsupported(
                table,
                format!(
                    "BLOB column {column}: descriptor of {} has offset {}",
                    d.uri, d.offset
                ),
            )
        })?;
        let end = if d.length < 0 {
            io.head(&path).await?.size
        } else {
            start.saturating_add(d.length as u64)
        };
        if end <= start {
            out.append_value(b"");
            continue;
        }
        let bytes = io.get_range(&path, start..end).await?;
        if bytes.len() as u64 != end - start {
            return Err(unsupported(
                table,
                format!(
                    "BLOB column {column}: {} holds {} bytes at {start}, the descriptor says {}",
                    d.uri,
                    bytes.len(),
                    end - start
                ),
            ));
        }
        out.append_value(&bytes);
    }
    Ok(std::sync::Arc::new(out.finish()))
}
