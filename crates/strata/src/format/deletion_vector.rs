//! Deletion vectors as bytes: one vector ⇄ its serialized form, and the layout of a
//! deletion-vector index file. Pure (no I/O), so the LSM layer (lookup compaction), the index
//! layer (the file writer) and the read path share one codec.
//!
//! A deletion vector marks rows of one data file deleted by position (tables with
//! `deletion-vectors.enabled`). Java Paimon serializes a vector in one of two forms (Java
//! `DeletionVector.serializeTo` / `DeletionVector.read`):
//!
//! * 32-bit, `BitmapDeletionVector` (the default):
//!   `len: i32 BE | magic 1581511376: i32 BE | RoaringBitmap (portable format) | crc: i32 BE`,
//!   where `len` counts magic + bitmap and the CRC32 covers the same bytes. The length recorded
//!   in the index manifest (`DeletionVectorMeta.length`) is `len`.
//! * 64-bit, `Bitmap64DeletionVector` (`deletion-vectors.bitmap64 = true`, Iceberg-compatible):
//!   `len: i32 BE | magic 1681511377: i32 LE | count: i64 LE | count × (key: i32 LE,
//!   RoaringBitmap) | crc: i32 BE` (`OptimizedRoaringBitmap64.serialize`): one 32-bit bitmap
//!   per high key `0..count` — keys in a gap are written as empty bitmaps —, `len` counting
//!   magic + bitmaps and the CRC32 covering them. The length recorded in the manifest is the
//!   whole serialized size, `len + 8`.
//!
//! Both forms run-length-optimize the bitmaps before writing (`RoaringBitmap.runOptimize`),
//! and strata applies Java's rule container by container to the containers' current forms:
//! a vector built by `delete` calls (arrays and bitmaps) gets the bytes Java writes for the
//! same deletions, and a vector decoded from a Java file (runs kept as runs) re-encodes to
//! the same bytes.
//!
//! An index file (Java `DeletionVectorsIndexFile`, `DeletionFileWriter`) is the version byte
//! `1` followed by the serialized vectors back to back; the index manifest lists, per data
//! file, the offset of its vector's length prefix, the recorded length and the cardinality
//! ([`DeletionVectorMeta`]), in file order.

use std::io::Cursor;

use roaring::{RoaringBitmap, RoaringTreemap};
use strata_spec::manifest::DeletionVectorMeta;
use strata_spec::SpecError;

use crate::{Error, Result};

/// Magic number of the 32-bit form (Java `BitmapDeletionVector.MAGIC_NUMBER`), big-endian.
pub(crate) const BITMAP32_MAGIC: i32 = 1_581_511_376;
/// Magic number of the 64-bit form (Java `Bitmap64DeletionVector.MAGIC_NUMBER`), little-endian.
pub(crate) const BITMAP64_MAGIC: i32 = 1_681_511_377;
/// First byte of every deletion-vector index file (Java `DeletionVectorsIndexFile.VERSION_ID_V1`).
pub(crate) const DV_INDEX_VERSION: u8 = 1;

/// Largest position of the 32-bit form (Java `RoaringBitmap32.MAX_VALUE`).
const MAX_POSITION_32: u64 = i32::MAX as u64;
/// Largest high key of the 64-bit form (Java `OptimizedRoaringBitmap64`: `Integer.MAX_VALUE - 1`).
const MAX_KEY_64: u32 = i32::MAX as u32 - 1;

const WHAT: &str = "deletion vector";

/// Deleted row positions of one data file.
#[derive(Debug, Clone, PartialEq)]
pub enum DeletionVector {
    /// Java `BitmapDeletionVector`: positions below 2^31.
    Bitmap32(RoaringBitmap),
    /// Java `Bitmap64DeletionVector`.
    Bitmap64(RoaringTreemap),
}

impl DeletionVector {
    /// An empty vector of the form new vectors take (`deletion-vectors.bitmap64`), as Java's
    /// `BucketedDvMaintainer.createNewDeletionVector`.
    pub fn new_empty(bitmap64: bool) -> Self {
        if bitmap64 {
            DeletionVector::Bitmap64(RoaringTreemap::new())
        } else {
            DeletionVector::Bitmap32(RoaringBitmap::new())
        }
    }

    /// Whether the row at `position` (0-based within its data file) is deleted. A position the
    /// 32-bit form cannot hold is never deleted.
    #[inline]
    pub fn is_deleted(&self, position: u64) -> bool {
        match self {
            DeletionVector::Bitmap32(b) => u32::try_from(position).is_ok_and(|p| b.contains(p)),
            DeletionVector::Bitmap64(b) => b.contains(position),
        }
    }

    /// Marks `position` deleted; false if it already was. A position the form cannot hold
    /// (≥ 2^31 in the 32-bit form) is an error, as in Java.
    pub fn delete(&mut self, position: u64) -> std::result::Result<bool, SpecError> {
        match self {
            DeletionVector::Bitmap32(b) => {
                if position > MAX_POSITION_32 {
                    return Err(SpecError::invalid(
                        WHAT,
                        format!(
                            "position {position}: a 32-bit deletion vector holds positions up to \
                             {MAX_POSITION_32} (set deletion-vectors.bitmap64 for larger files)"
                        ),
                    ));
                }
                Ok(b.insert(position as u32))
            }
            DeletionVector::Bitmap64(b) => {
                if position >> 32 > MAX_KEY_64 as u64 {
                    return Err(SpecError::invalid(
                        WHAT,
                        format!("position {position} is beyond a 64-bit deletion vector's range"),
                    ));
                }
                Ok(b.insert(position))
            }
        }
    }

    /// How many rows are deleted.
    pub fn cardinality(&self) -> u64 {
        match self {
            DeletionVector::Bitmap32(b) => b.len(),
            DeletionVector::Bitmap64(b) => b.len(),
        }
    }

    /// Whether no row is deleted.
    pub fn is_empty(&self) -> bool {
        self.cardinality() == 0
    }

    /// The 64-bit form of this vector (Java `Bitmap64DeletionVector.fromBitmapDeletionVector`).
    pub fn to_bitmap64(&self) -> Self {
        match self {
            DeletionVector::Bitmap32(b) => {
                DeletionVector::Bitmap64(RoaringTreemap::from_bitmaps([(0, b.clone())]))
            }
            DeletionVector::Bitmap64(_) => self.clone(),
        }
    }

    /// Decodes one vector: `bytes` starts at the vector's offset (its length prefix) and holds
    /// at least the whole vector including its CRC. Errors name `context` (the file).
    pub fn decode(bytes: &[u8], context: &str) -> Result<Self> {
        decode_vector(bytes, None).map_err(|e| Error::corrupt(context, e))
    }

    /// The 32-bit form as Java writes it (length, magic, bitmap, CRC32).
    pub fn encode_32(bitmap: &RoaringBitmap) -> Vec<u8> {
        let mut out = Vec::new();
        write_bitmap32(&mut out, bitmap);
        out
    }

    /// Appends this vector as Java's `serializeTo` writes it and returns the length Java
    /// records for it in `DeletionVectorMeta` (magic + bitmap for the 32-bit form, the whole
    /// serialized size for the 64-bit form).
    pub fn serialize_to(&self, out: &mut Vec<u8>) -> std::result::Result<i32, SpecError> {
        match self {
            DeletionVector::Bitmap32(b) => {
                if b.max().is_some_and(|m| m as u64 > MAX_POSITION_32) {
                    return Err(SpecError::invalid(
                        WHAT,
                        format!(
                            "32-bit deletion vector holds position {} beyond {MAX_POSITION_32}",
                            b.max().unwrap_or_default()
                        ),
                    ));
                }
                let data_len = write_bitmap32(out, b);
                i32::try_from(data_len).map_err(|_| too_large(data_len))
            }
            DeletionVector::Bitmap64(t) => write_bitmap64(out, t),
        }
    }

    /// This vector's serialized bytes (Java `DeletionVector.serializeToBytes`).
    pub fn to_bytes(&self) -> std::result::Result<Vec<u8>, SpecError> {
        let mut out = Vec::new();
        self.serialize_to(&mut out)?;
        Ok(out)
    }
}

fn too_large(len: usize) -> SpecError {
    SpecError::invalid(
        WHAT,
        format!("{len} serialized bytes; Java cannot hold a vector over 2 GB"),
    )
}

/// Kinds of RoaringBitmap containers (the portable format tells arrays from bitmaps by
/// cardinality, runs by a flag).
#[derive(Clone, Copy, PartialEq)]
enum Container {
    Array,
    Bitmap,
    Run,
}

const ARRAY_MAX: usize = 4096;
const BITMAP_BYTES: usize = 8192;

/// Whether each container of `bitmap` is held as runs now (in key order), read from the
/// header of roaring's own serialization. Vectors decoded from a file keep the containers the
/// file had, so a vector Java wrote comes back with Java's forms.
fn run_flags(bitmap: &RoaringBitmap) -> Vec<bool> {
    let mut raw = Vec::new();
    bitmap
        .serialize_into(&mut raw)
        .expect("serializing into a Vec cannot fail");
    let cookie = u32::from_le_bytes(raw[0..4].try_into().expect("4 bytes"));
    if cookie & 0xFFFF == 12347 {
        let size = (cookie >> 16) as usize + 1;
        (0..size)
            .map(|i| raw[4 + i / 8] & (1 << (i % 8)) != 0)
            .collect()
    } else {
        let size = u32::from_le_bytes(raw[4..8].try_into().expect("4 bytes")) as usize;
        vec![false; size]
    }
}

/// Writes `bitmap` as Java's `RoaringBitmap32.serialize` does: `runOptimize()` first, then
/// the portable format. Java's rule per container (`ArrayContainer.runOptimize`,
/// `BitmapContainer.runOptimize`, `RunContainer.toEfficientContainer`): an array or a
/// bitmap becomes runs when runs are strictly smaller (2 + 4·runs bytes against 2·card,
/// resp. 8192); runs stay runs while not larger than both alternatives (2·card + 2, 8192),
/// else become an array (≤ 4096 values) or a bitmap. A container's current form counts, as in
/// Java: a vector read back from a file re-encodes to the same bytes.
fn write_roaring(out: &mut Vec<u8>, bitmap: &RoaringBitmap) {
    let was_run = run_flags(bitmap);
    // (key, values) per container, in key order — the same order as `was_run`.
    let mut containers: Vec<(u16, Vec<u16>)> = Vec::with_capacity(was_run.len());
    for v in bitmap.iter() {
        let (hi, lo) = ((v >> 16) as u16, v as u16);
        match containers.last_mut() {
            Some((k, vals)) if *k == hi => vals.push(lo),
            _ => containers.push((hi, vec![lo])),
        }
    }
    debug_assert_eq!(containers.len(), was_run.len());
    let kinds: Vec<(Container, usize)> = containers
        .iter()
        .zip(was_run.iter().chain(std::iter::repeat(&false)))
        .map(|((_, vals), &run)| {
            let card = vals.len();
            let runs = count_runs(vals);
            let run_size = 2 + 4 * runs;
            let kind = if run {
                if run_size <= BITMAP_BYTES.min(2 * card + 2) {
                    Container::Run
                } else if card <= ARRAY_MAX {
                    Container::Array
                } else {
                    Container::Bitmap
                }
            } else if card <= ARRAY_MAX {
                if 2 * card > run_size {
                    Container::Run
                } else {
                    Container::Array
                }
            } else if BITMAP_BYTES > run_size {
                Container::Run
            } else {
                Container::Bitmap
            };
            (kind, runs)
        })
        .collect();
    let size = containers.len();
    let has_run = kinds.iter().any(|(k, _)| *k == Container::Run);
    let header_start = out.len();
    if has_run {
        out.extend_from_slice(&(12347u32 | ((size as u32 - 1) << 16)).to_le_bytes());
        let mut flags = vec![0u8; size.div_ceil(8)];
        for (i, (k, _)) in kinds.iter().enumerate() {
            if *k == Container::Run {
                flags[i / 8] |= 1 << (i % 8);
            }
        }
        out.extend_from_slice(&flags);
    } else {
        out.extend_from_slice(&12346u32.to_le_bytes());
        out.extend_from_slice(&(size as u32).to_le_bytes());
    }
    for (key, vals) in &containers {
        out.extend_from_slice(&key.to_le_bytes());
        out.extend_from_slice(&((vals.len() - 1) as u16).to_le_bytes());
    }
    if !has_run || size >= 4 {
        // Offsets of the container bodies from the start of the bitmap.
        let mut offset = out.len() - header_start + 4 * size;
        for ((_, vals), (kind, runs)) in containers.iter().zip(&kinds) {
            out.extend_from_slice(&(offset as u32).to_le_bytes());
            offset += match kind {
                Container::Array => 2 * vals.len(),
                Container::Bitmap => BITMAP_BYTES,
                Container::Run => 2 + 4 * runs,
            };
        }
    }
    for ((_, vals), (kind, runs)) in containers.iter().zip(&kinds) {
        match kind {
            Container::Array => vals
                .iter()
                .for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
            Container::Bitmap => {
                let mut words = [0u64; BITMAP_BYTES / 8];
                for v in vals {
                    words[*v as usize / 64] |= 1 << (v % 64);
                }
                words
                    .iter()
                    .for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
            }
            Container::Run => {
                out.extend_from_slice(&(*runs as u16).to_le_bytes());
                let mut i = 0;
                while i < vals.len() {
                    let start = vals[i];
                    let mut end = i;
                    while end + 1 < vals.len() && vals[end + 1] as u32 == vals[end] as u32 + 1 {
                        end += 1;
                    }
                    out.extend_from_slice(&start.to_le_bytes());
                    out.extend_from_slice(&((end - i) as u16).to_le_bytes());
                    i = end + 1;
                }
            }
        }
    }
}

/// Number of runs of consecutive values in ascending `vals`.
fn count_runs(vals: &[u16]) -> usize {
    let mut runs = 0;
    let mut prev: Option<u16> = None;
    for &v in vals {
        if prev.is_none_or(|p| p as u32 + 1 != v as u32) {
            runs += 1;
        }
        prev = Some(v);
    }
    runs
}

/// Writes the 32-bit form; returns the recorded length (magic + bitmap).
fn write_bitmap32(out: &mut Vec<u8>, bitmap: &RoaringBitmap) -> usize {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&BITMAP32_MAGIC.to_be_bytes());
    write_roaring(out, bitmap);
    let data_len = out.len() - start - 4;
    out[start..start + 4].copy_from_slice(&(data_len as u32).to_be_bytes());
    let crc = crc32(&out[start + 4..]);
    out.extend_from_slice(&crc.to_be_bytes());
    data_len
}

/// Writes the 64-bit form; returns the recorded length (the whole serialized size).
fn write_bitmap64(
    out: &mut Vec<u8>,
    treemap: &RoaringTreemap,
) -> std::result::Result<i32, SpecError> {
    let bitmaps: Vec<(u32, &RoaringBitmap)> =
        treemap.bitmaps().filter(|(_, b)| !b.is_empty()).collect();
    // Java keeps one bitmap per high key from 0 to the largest (empty ones in the gaps).
    let count = bitmaps.last().map_or(0, |(k, _)| *k as u64 + 1);
    if let Some((key, _)) = bitmaps.last() {
        if *key > MAX_KEY_64 {
            return Err(SpecError::invalid(
                WHAT,
                format!("64-bit deletion vector with high key {key} beyond {MAX_KEY_64}"),
            ));
        }
    }
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&BITMAP64_MAGIC.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    let empty = RoaringBitmap::new();
    let mut next = bitmaps.iter().peekable();
    for key in 0..count as u32 {
        let bitmap = match next.peek() {
            Some((k, b)) if *k == key => {
                next.next();
                *b
            }
            _ => &empty,
        };
        out.extend_from_slice(&key.to_le_bytes());
        write_roaring(out, bitmap);
    }
    let data_len = out.len() - start - 4;
    let total = data_len + 8;
    if i32::try_from(total).is_err() {
        out.truncate(start);
        return Err(too_large(total));
    }
    out[start..start + 4].copy_from_slice(&(data_len as u32).to_be_bytes());
    let crc = crc32(&out[start + 4..]);
    out.extend_from_slice(&crc.to_be_bytes());
    Ok(total as i32)
}

/// Decodes one vector starting at its length prefix. `meta_length` is the length the index
/// manifest records, checked as Java's `DeletionVector.read` does when given.
pub(crate) fn decode_vector(
    bytes: &[u8],
    meta_length: Option<i64>,
) -> std::result::Result<DeletionVector, SpecError> {
    let bad = |m: String| SpecError::invalid(WHAT, m);
    if bytes.len() < 8 {
        return Err(bad(format!("{} bytes, need at least 8", bytes.len())));
    }
    let length = i32::from_be_bytes(bytes[0..4].try_into().expect("4 bytes"));
    let magic = &bytes[4..8];
    let is_32 = i32::from_be_bytes(magic.try_into().expect("4 bytes")) == BITMAP32_MAGIC;
    let is_64 = i32::from_le_bytes(magic.try_into().expect("4 bytes")) == BITMAP64_MAGIC;
    if !is_32 && !is_64 {
        return Err(bad(format!(
            "unknown magic number {} (expected {BITMAP32_MAGIC} big-endian or {BITMAP64_MAGIC} \
             little-endian)",
            i32::from_be_bytes(magic.try_into().expect("4 bytes"))
        )));
    }
    if length < 4 || (length as usize).saturating_add(8) > bytes.len() {
        return Err(bad(format!(
            "length {length} plus length prefix and CRC exceeds the {} bytes available",
            bytes.len()
        )));
    }
    let length = length as usize;
    if let Some(meta) = meta_length {
        let expected = if is_32 { meta } else { meta - 8 };
        if expected != length as i64 {
            return Err(bad(format!(
                "length {length} does not match the index manifest's {meta}"
            )));
        }
    }
    let data = &bytes[4..4 + length];
    let stored_crc = u32::from_be_bytes(bytes[4 + length..8 + length].try_into().expect("4"));
    let crc = crc32(data);
    if crc != stored_crc {
        return Err(bad(format!(
            "CRC32 {crc:#010x} of the {length} bytes does not match the stored {stored_crc:#010x}"
        )));
    }
    let body = &data[4..];
    if is_32 {
        let bitmap = RoaringBitmap::deserialize_from(body)
            .map_err(|e| bad(format!("32-bit bitmap: {e}")))?;
        Ok(DeletionVector::Bitmap32(bitmap))
    } else {
        decode_bitmap64(body).map(DeletionVector::Bitmap64)
    }
}

/// `OptimizedRoaringBitmap64.deserialize`: a count, then (key, bitmap) with ascending keys.
fn decode_bitmap64(body: &[u8]) -> std::result::Result<RoaringTreemap, SpecError> {
    let bad = |m: String| SpecError::invalid("64-bit deletion vector", m);
    if body.len() < 8 {
        return Err(bad("shorter than its bitmap count".into()));
    }
    let count = i64::from_le_bytes(body[0..8].try_into().expect("8 bytes"));
    if !(0..=i32::MAX as i64).contains(&count) {
        return Err(bad(format!("invalid bitmap count {count}")));
    }
    let mut cursor = Cursor::new(&body[8..]);
    let mut bitmaps = Vec::new();
    let mut last_key: i64 = -1;
    for _ in 0..count {
        let pos = cursor.position() as usize;
        let rest = &cursor.get_ref()[pos..];
        if rest.len() < 4 {
            return Err(bad("truncated before a bitmap key".into()));
        }
        let key = i32::from_le_bytes(rest[0..4].try_into().expect("4 bytes"));
        if key < 0 || key as u32 > MAX_KEY_64 || key as i64 <= last_key {
            return Err(bad(format!(
                "bitmap key {key} after {last_key} (keys ascend from 0 to {MAX_KEY_64})"
            )));
        }
        last_key = key as i64;
        cursor.set_position(pos as u64 + 4);
        let bitmap = RoaringBitmap::deserialize_from(&mut cursor)
            .map_err(|e| bad(format!("bitmap of key {key}: {e}")))?;
        // Gap keys hold empty bitmaps; the treemap keeps only the others (its equality
        // sees empty bitmaps).
        if !bitmap.is_empty() {
            bitmaps.push((key as u32, bitmap));
        }
    }
    Ok(RoaringTreemap::from_bitmaps(bitmaps))
}

/// Encodes a deletion-vector index file as Java's `DeletionFileWriter` writes it: version
/// byte, then each vector in the given order. Returns the bytes and, per vector, its range
/// (offset of the length prefix, recorded length, cardinality) for `_DELETIONS_VECTORS_RANGES`.
/// The `_ROW_COUNT` Java records for the file is the number of vectors. A data file listed
/// twice is an error (Java keys the vectors by data file).
pub fn encode_deletion_vectors_index(
    vectors: &[(String, DeletionVector)],
) -> std::result::Result<(Vec<u8>, Vec<DeletionVectorMeta>), SpecError> {
    let mut seen = std::collections::HashSet::with_capacity(vectors.len());
    let mut out = vec![DV_INDEX_VERSION];
    let mut ranges = Vec::with_capacity(vectors.len());
    for (file, dv) in vectors {
        if !seen.insert(file.as_str()) {
            return Err(SpecError::invalid(
                "deletion-vector index file",
                format!("two deletion vectors for data file {file}"),
            ));
        }
        let offset = i32::try_from(out.len()).map_err(|_| {
            SpecError::invalid(
                "deletion-vector index file",
                format!("offset {} of {file}'s vector exceeds 2 GB", out.len()),
            )
        })?;
        let length = dv.serialize_to(&mut out)?;
        ranges.push(DeletionVectorMeta {
            data_file_name: file.clone(),
            offset,
            length,
            cardinality: Some(dv.cardinality() as i64),
        });
    }
    Ok((out, ranges))
}

/// Decodes a whole deletion-vector index file given its ranges (Java
/// `DeletionVectorsIndexFile.readAllDeletionVectors`): the version byte, then each vector at
/// its offset, its length checked against the range's. Vectors come in the ranges' order.
pub(crate) fn decode_deletion_vectors_index(
    bytes: &[u8],
    ranges: &[DeletionVectorMeta],
) -> std::result::Result<Vec<(String, DeletionVector)>, SpecError> {
    match bytes.first() {
        Some(&DV_INDEX_VERSION) => {}
        other => {
            return Err(SpecError::invalid(
                "deletion-vector index file",
                format!("version {other:?}, expected {DV_INDEX_VERSION}"),
            ))
        }
    }
    ranges
        .iter()
        .map(|r| {
            let start = usize::try_from(r.offset)
                .ok()
                .filter(|s| *s < bytes.len())
                .ok_or_else(|| {
                    SpecError::invalid(
                        "deletion-vector index file",
                        format!(
                            "offset {} of {}'s vector outside the {} bytes",
                            r.offset,
                            r.data_file_name,
                            bytes.len()
                        ),
                    )
                })?;
            let dv = decode_vector(&bytes[start..], Some(r.length as i64)).map_err(|e| {
                SpecError::invalid(
                    "deletion-vector index file",
                    format!("vector of {}: {e}", r.data_file_name),
                )
            })?;
            Ok((r.data_file_name.clone(), dv))
        })
        .collect()
}

/// CRC-32 (IEEE) as `java.util.zip.CRC32`.
pub(crate) fn crc32(data: &[u8]) -> u32 {
    static TABLE: [u32; 256] = crc_table();
    let mut crc = 0xFFFF_FFFFu32;
    for b in data {
        crc = TABLE[((crc ^ *b as u32) & 0xFF) as usize] ^ (crc >> 8);
    }
    !crc
}

const fn crc_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
}

#[cfg(test)]
#[path = "deletion_vector_tests.rs"]
mod tests;
