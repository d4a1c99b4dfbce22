//! Deletion vectors: rows of a data file marked deleted without rewriting it (tables with
//! `deletion-vectors.enabled`).
//!
//! The live `DELETION_VECTORS` entries of a snapshot's index manifest list, per data file, a
//! byte range of an index file (`index/index-…`). At that offset Java writes a 4-byte
//! big-endian length, then either the 32-bit form — big-endian magic `1581511376` followed by
//! a RoaringBitmap in the portable serialization — or the 64-bit form (little-endian magic
//! `1681511377`, a little-endian count of 32-bit bitmaps and, for each, a little-endian high
//! key and a portable RoaringBitmap), then a CRC32 of the bytes. A set bit is the position of
//! a deleted row in the data file. Readers apply the vector while decoding the file.

use std::collections::HashMap;
use std::sync::Arc;

use roaring::{RoaringBitmap, RoaringTreemap};
use strata_spec::binary_row::BinaryRow;
use strata_spec::snapshot::Snapshot;

use crate::index::{IndexManifestStore, DELETION_VECTORS_INDEX};
use crate::table::Table;
use crate::{Error, Result};

const MAGIC_32: i32 = 1_581_511_376;
const MAGIC_64: i32 = 1_681_511_377;

/// Deleted row positions of one data file.
#[derive(Debug, Clone, PartialEq)]
pub enum DeletionVector {
    Bitmap32(RoaringBitmap),
    Bitmap64(RoaringTreemap),
}

impl DeletionVector {
    #[inline]
    pub fn is_deleted(&self, position: u64) -> bool {
        match self {
            DeletionVector::Bitmap32(b) => u32::try_from(position).is_ok_and(|p| b.contains(p)),
            DeletionVector::Bitmap64(b) => b.contains(position),
        }
    }

    pub fn cardinality(&self) -> u64 {
        match self {
            DeletionVector::Bitmap32(b) => b.len(),
            DeletionVector::Bitmap64(b) => b.len(),
        }
    }

    /// Decodes one vector: `bytes` starts at the entry's offset (the length prefix).
    pub fn decode(bytes: &[u8], context: &str) -> Result<Self> {
        let bad = |m: String| {
            Error::InvalidArgument(format!("corrupt deletion vector in {context}: {m}"))
        };
        if bytes.len() < 8 {
            return Err(bad(format!("{} bytes, need at least 8", bytes.len())));
        }
        let length = i32::from_be_bytes(bytes[0..4].try_into().expect("4 bytes"));
        let magic_be = i32::from_be_bytes(bytes[4..8].try_into().expect("4 bytes"));
        let magic_le = i32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes"));
        if length < 4 || 4 + length as usize > bytes.len() {
            return Err(bad(format!(
                "length {length} exceeds the {} bytes available",
                bytes.len()
            )));
        }
        let body = &bytes[8..4 + length as usize];
        if magic_be == MAGIC_32 {
            let bitmap = RoaringBitmap::deserialize_from(body)
                .map_err(|e| bad(format!("32-bit bitmap: {e}")))?;
            Ok(DeletionVector::Bitmap32(bitmap))
        } else if magic_le == MAGIC_64 {
            if body.len() < 8 {
                return Err(bad("64-bit bitmap shorter than its count".into()));
            }
            let count = u64::from_le_bytes(body[0..8].try_into().expect("8 bytes"));
            let mut rest = &body[8..];
            let mut map = RoaringTreemap::new();
            for _ in 0..count {
                if rest.len() < 4 {
                    return Err(bad("64-bit bitmap truncated".into()));
                }
                let high = u32::from_le_bytes(rest[0..4].try_into().expect("4 bytes")) as u64;
                rest = &rest[4..];
                let mut cursor = std::io::Cursor::new(rest);
                let low = RoaringBitmap::deserialize_from(&mut cursor)
                    .map_err(|e| bad(format!("64-bit bitmap: {e}")))?;
                rest = &rest[cursor.position() as usize..];
                for v in low {
                    map.insert((high << 32) | v as u64);
                }
            }
            Ok(DeletionVector::Bitmap64(map))
        } else {
            Err(bad(format!(
                "unknown magic number {magic_be} (expected {MAGIC_32} or little-endian {MAGIC_64})"
            )))
        }
    }

    /// The 32-bit form as Java writes it (length, magic, bitmap, CRC32) — for tests and tools.
    pub fn encode_32(bitmap: &RoaringBitmap) -> Vec<u8> {
        let mut data = MAGIC_32.to_be_bytes().to_vec();
        bitmap
            .serialize_into(&mut data)
            .expect("serializing into a Vec cannot fail");
        let mut out = (data.len() as i32).to_be_bytes().to_vec();
        out.extend_from_slice(&data);
        out.extend_from_slice(&(crc32(&data) as i32).to_be_bytes());
        out
    }
}

/// CRC-32 (IEEE) as `java.util.zip.CRC32`.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for b in data {
        crc ^= *b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Deletion vectors by data-file name for one (partition, bucket) of a snapshot.
pub async fn load_deletion_vectors(
    table: &Table,
    snapshot: &Snapshot,
    partition: &BinaryRow,
    bucket: i32,
) -> Result<HashMap<String, Arc<DeletionVector>>> {
    let mut out = HashMap::new();
    if snapshot.index_manifest.is_none() {
        return Ok(out);
    }
    let entries = IndexManifestStore::new(table)?
        .read_snapshot(snapshot)
        .await?;
    for e in entries {
        if e.index_file.index_type != DELETION_VECTORS_INDEX
            || &e.partition != partition
            || e.bucket != bucket
        {
            continue;
        }
        let path = table.paths().index_file(&e.index_file.file_name);
        let display = table.file_io().display(&path);
        for r in e.index_file.dv_ranges.iter().flatten() {
            let start = r.offset as u64;
            // 32-bit entries record the payload length (plus 4-byte length prefix and CRC),
            // 64-bit ones the whole length; read the larger, bounded by the file.
            let end = (start + 4 + r.length as u64 + 4).min(e.index_file.file_size.max(0) as u64);
            let bytes = table.file_io().get_range(&path, start..end).await?;
            let dv = DeletionVector::decode(&bytes, &display)?;
            out.insert(r.data_file_name.clone(), Arc::new(dv));
        }
    }
    Ok(out)
}

/// Deletion vectors of the (partition, bucket)s of one read, loaded once per bucket.
#[derive(Default)]
pub struct DvCache {
    loaded: tokio::sync::Mutex<HashMap<(BinaryRow, i32, i64), DvMap>>,
    /// Snapshots given as metadata (a tag's copy, which outlives the snapshot file), by id.
    known: HashMap<i64, Snapshot>,
}

/// Deletion vectors by data-file name.
pub type DvMap = Arc<HashMap<String, Arc<DeletionVector>>>;

impl DvCache {
    /// A cache that takes `snapshots` from their metadata instead of their snapshot files
    /// (tags of expired snapshots).
    pub fn with_snapshots(snapshots: impl IntoIterator<Item = Snapshot>) -> Self {
        DvCache {
            known: snapshots.into_iter().map(|s| (s.id, s)).collect(),
            ..DvCache::default()
        }
    }

    /// The vector of `file` in (partition, bucket) of snapshot `snapshot_id`, if any.
    pub async fn get(
        &self,
        table: &Table,
        snapshot_id: i64,
        partition: &BinaryRow,
        bucket: i32,
        file: &str,
    ) -> Result<Option<Arc<DeletionVector>>> {
        let key = (partition.clone(), bucket, snapshot_id);
        let mut loaded = self.loaded.lock().await;
        if !loaded.contains_key(&key) {
            let snapshot = match self.known.get(&snapshot_id) {
                Some(s) => s.clone(),
                None => table.snapshot_manager().snapshot(snapshot_id).await?,
            };
            let map = load_deletion_vectors(table, &snapshot, partition, bucket).await?;
            loaded.insert(key.clone(), Arc::new(map));
        }
        Ok(loaded[&key].get(file).cloned())
    }
}

/// Drops the rows of `batch` (rows `first_position..` of its file) that `dv` marks deleted.
pub fn apply(
    batch: arrow_array::RecordBatch,
    first_position: u64,
    dv: &DeletionVector,
) -> Result<arrow_array::RecordBatch> {
    let n = batch.num_rows();
    if (0..n as u64).all(|i| !dv.is_deleted(first_position + i)) {
        return Ok(batch);
    }
    let keep: arrow_array::BooleanArray = (0..n as u64)
        .map(|i| Some(!dv.is_deleted(first_position + i)))
        .collect();
    arrow_select::filter::filter_record_batch(&batch, &keep)
        .map_err(|e| Error::arrow("applying a deletion vector", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_the_32_bit_form() {
        let mut b = RoaringBitmap::new();
        b.insert(1);
        b.insert(3);
        b.insert(70_000);
        let bytes = DeletionVector::encode_32(&b);
        let dv = DeletionVector::decode(&bytes, "t").unwrap();
        assert!(dv.is_deleted(3) && dv.is_deleted(70_000) && !dv.is_deleted(2));
        assert_eq!(dv.cardinality(), 3);
    }

    #[test]
    fn java_crc32_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn corrupt_vectors_are_errors() {
        assert!(DeletionVector::decode(&[0, 0, 0], "f").is_err());
        let mut bytes = DeletionVector::encode_32(&RoaringBitmap::new());
        bytes[5] ^= 0xFF;
        let e = DeletionVector::decode(&bytes, "index-x").unwrap_err();
        assert!(e.to_string().contains("index-x"), "{e}");
    }
}
