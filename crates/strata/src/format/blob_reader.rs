//! `.blob` data files, as Java Paimon 2.0 writes them (`BlobFileFormat`, `BlobFormatWriter`,
//! read by `BlobFormatReader` through `BlobFileMeta`): the values of one BLOB column of a
//! data-evolution table, one record per row, beside the Parquet files of the other columns.
//!
//! Layout (every number little-endian):
//!
//! ```text
//! record*  index  index_length:i32  version:u8 (= 1)
//! record = magic:i32 (1481511375)  payload  record_length:i64  crc32:u32
//! ```
//!
//! `record_length` counts the whole record (`4 + payload + 12`); the CRC-32 covers the magic,
//! the payload and the length (`AbstractBlobElementWriter.startRecord` / `finishRecord`). The
//! index is the record length of every row in row order, delta- then ZigZag-varint-encoded
//! (`DeltaVarintCompressor`); a NULL row is length `-1` and a placeholder (a BLOB left to an
//! older file, written by Java's data-evolution updates) `-2`, neither with a record. A row's
//! payload starts 4 bytes after its record and is `length - 16` bytes long
//! (`BlobFormatReader`); with `blob-as-descriptor` Java returns a `BlobDescriptor` of that
//! range (the file's path as Java spells it, offset, length) instead of the bytes, which strata
//! refuses (the option audit).
//!
//! Bad bytes are an error naming the file ([`ErrorDetail::DataFile`]), never a panic.

#[cfg(test)]
use arrow_array::{builder::BinaryBuilder, BinaryArray};

use crate::error::ErrorDetail;
use crate::format::deletion_vector::crc32;
use crate::{Error, Result};

/// Java `BlobFormatWriter.MAGIC_NUMBER`.
pub(crate) const MAGIC: i32 = 1_481_511_375;
/// Java `BlobFormatWriter.VERSION`.
pub(crate) const VERSION: u8 = 1;
/// Java `BlobFormatWriter.NULL_LENGTH`.
const NULL_LENGTH: i64 = -1;
/// Java `BlobFormatWriter.PLACE_HOLDER_LENGTH`.
const PLACEHOLDER_LENGTH: i64 = -2;
/// Magic in front of the payload, length and CRC after it.
const RECORD_OVERHEAD: i64 = 16;

/// One row of a `.blob` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlobSlot {
    /// NULL (length `-1`).
    Null,
    /// A placeholder (length `-2`): the value lives in an older file of the same rows.
    Placeholder,
    /// The payload at `offset`, `length` bytes.
    Value { offset: u64, length: u64 },
}

/// The rows of a `.blob` file (Java `BlobFileMeta`): each row's slot, checked against the
/// file's bytes (every record inside the file, its magic, length and CRC as written).
pub(crate) fn blob_slots(path: &str, bytes: &[u8]) -> Result<Vec<BlobSlot>> {
    let bad = |message: String| -> Error {
        ErrorDetail::DataFile {
            format: "blob",
            path: path.to_string(),
            message,
        }
        .into()
    };
    let size = bytes.len();
    if size < 5 {
        return Err(bad(format!(
            "{size} bytes is shorter than the 5-byte footer of a .blob file"
        )));
    }
    let version = bytes[size - 1];
    if version != VERSION {
        return Err(bad(format!(
            "unsupported .blob version {version} (Java Paimon 2.0 writes {VERSION})"
        )));
    }
    let index_length = i32::from_le_bytes(le4(&bytes[size - 5..size - 1]));
    if index_length < 0 || index_length as usize > size - 5 {
        return Err(bad(format!(
            "index length {index_length} does not fit in the file ({size} bytes)"
        )));
    }
    let data_end = size - 5 - index_length as usize;
    let lengths = decode_lengths(&bytes[data_end..size - 5]).map_err(|m| bad(m.to_string()))?;
    let mut slots = Vec::with_capacity(lengths.len());
    let mut offset: u64 = 0;
    for (row, &length) in lengths.iter().enumerate() {
        let slot = match length {
            NULL_LENGTH => BlobSlot::Null,
            PLACEHOLDER_LENGTH => BlobSlot::Placeholder,
            l if l < RECORD_OVERHEAD => {
                return Err(bad(format!("row {row} has record length {l}")));
            }
            l => {
                let start = offset;
                let end = start
                    .checked_add(l as u64)
                    .filter(|&e| e <= data_end as u64)
                    .ok_or_else(|| {
                        bad(format!(
                            "row {row}: record at {start} of {l} bytes runs past the records' \
                             end at {data_end}"
                        ))
                    })?;
                let record = &bytes[start as usize..end as usize];
                let n = record.len();
                let magic = i32::from_le_bytes(le4(&record[..4]));
                if magic != MAGIC {
                    return Err(bad(format!(
                        "row {row}: record at {start} starts with {magic}, not the magic number \
                         {MAGIC}"
                    )));
                }
                let stored = i64::from_le_bytes(le8(&record[n - 12..n - 4]));
                if stored != l {
                    return Err(bad(format!(
                        "row {row}: record at {start} says length {stored}, the index {l}"
                    )));
                }
                let crc = u32::from_le_bytes(le4(&record[n - 4..]));
                if crc32(&record[..n - 4]) != crc {
                    return Err(bad(format!(
                        "row {row}: record at {start} fails its CRC-32"
                    )));
                }
                offset = end;
                BlobSlot::Value {
                    offset: start + 4,
                    length: (l - RECORD_OVERHEAD) as u64,
                }
            }
        };
        slots.push(slot);
    }
    if offset != data_end as u64 {
        return Err(bad(format!(
            "records end at {offset} but the index starts at {data_end}"
        )));
    }
    Ok(slots)
}

/// The footer's index length of a `.blob` file of `size` bytes from its last 5 bytes
/// (`tail`): checks the version and returns the index's byte range in the file.
pub(crate) fn index_range(path: &str, size: u64, tail: &[u8]) -> Result<std::ops::Range<u64>> {
    let bad = |message: String| -> Error {
        ErrorDetail::DataFile {
            format: "blob",
            path: path.to_string(),
            message,
        }
        .into()
    };
    if size < 5 || tail.len() != 5 {
        return Err(bad(format!(
            "{size} bytes is shorter than the 5-byte footer of a .blob file"
        )));
    }
    if tail[4] != VERSION {
        return Err(bad(format!(
            "unsupported .blob version {} (Java Paimon 2.0 writes {VERSION})",
            tail[4]
        )));
    }
    let index_length = i32::from_le_bytes(le4(&tail[..4]));
    if index_length < 0 || index_length as u64 > size - 5 {
        return Err(bad(format!(
            "index length {index_length} does not fit in the file ({size} bytes)"
        )));
    }
    Ok(size - 5 - index_length as u64..size - 5)
}

/// The rows of a `.blob` file from its index alone (Java's `BlobFileMeta`, which reads the
/// lengths and not the records): each row's payload range, the records assumed to be where the
/// lengths put them (they must end where the index starts, at `data_end`).
pub(crate) fn slots_from_index(path: &str, data_end: u64, index: &[u8]) -> Result<Vec<BlobSlot>> {
    let bad = |message: String| -> Error {
        ErrorDetail::DataFile {
            format: "blob",
            path: path.to_string(),
            message,
        }
        .into()
    };
    let lengths = decode_lengths(index).map_err(|m| bad(m.to_string()))?;
    let mut offset: u64 = 0;
    let mut slots = Vec::with_capacity(lengths.len());
    for (row, &length) in lengths.iter().enumerate() {
        slots.push(match length {
            NULL_LENGTH => BlobSlot::Null,
            PLACEHOLDER_LENGTH => BlobSlot::Placeholder,
            l if l < RECORD_OVERHEAD => {
                return Err(bad(format!("row {row} has record length {l}")));
            }
            l => {
                let start = offset;
                offset = start.saturating_add(l as u64);
                BlobSlot::Value {
                    offset: start + 4,
                    length: (l - RECORD_OVERHEAD) as u64,
                }
            }
        });
    }
    if offset != data_end {
        return Err(bad(format!(
            "records end at {offset} but the index starts at {data_end}"
        )));
    }
    Ok(slots)
}

/// The BLOB values of a whole `.blob` file (`bytes`) as an Arrow Binary column, NULL rows as
/// nulls (the tests' reader). A placeholder row (a value kept in an older file) is refused
/// here: the table read resolves those across files (`read::blob_files`, Java's
/// `BlobFallbackRecordReader`).
#[cfg(test)]
pub(crate) fn read_blob_file(path: &str, bytes: &[u8]) -> Result<BinaryArray> {
    let slots = blob_slots(path, bytes)?;
    let total: u64 = slots
        .iter()
        .map(|s| match s {
            BlobSlot::Value { length, .. } => *length,
            _ => 0,
        })
        .sum();
    if total > i32::MAX as u64 {
        return Err(ErrorDetail::Unsupported(format!(
            "reading .blob file {path}: its values hold {total} bytes, more than one Arrow \
             Binary column takes (2 GiB); read it with blob-as-descriptor in Java"
        ))
        .into());
    }
    let mut out = BinaryBuilder::with_capacity(slots.len(), total as usize);
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
            BlobSlot::Value { offset, length } => {
                out.append_value(&bytes[offset as usize..(offset + length) as usize])
            }
        }
    }
    Ok(out.finish())
}

/// Java `DeltaVarintCompressor.decompress`: ZigZag varints of the first value and the deltas.
fn decode_lengths(bytes: &[u8]) -> std::result::Result<Vec<i64>, &'static str> {
    let mut out: Vec<i64> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let mut raw: u64 = 0;
        let mut shift = 0u32;
        loop {
            let Some(&b) = bytes.get(i) else {
                return Err("the length index ends inside a varint");
            };
            i += 1;
            raw |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift > 63 {
                return Err("a varint of the length index is longer than 64 bits");
            }
        }
        let value = ((raw >> 1) as i64) ^ -((raw & 1) as i64);
        let value = match out.last() {
            Some(prev) => prev.wrapping_add(value),
            None => value,
        };
        out.push(value);
    }
    Ok(out)
}

fn le4(b: &[u8]) -> [u8; 4] {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[..4]);
    a
}

fn le8(b: &[u8]) -> [u8; 8] {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    a
}

#[cfg(test)]
#[path = "blob_reader_tests.rs"]
pub(crate) mod tests;
