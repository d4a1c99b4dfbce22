//! The index of a bucket's cached slots and the cache keys of the snapshot live manifest entry
//! cache (formats in [`super::slot`]): per (table location, branch, bucket) one small index
//! value lists the slots stored, `(snapshot id, fingerprint)` ascending, each slot under a key
//! of its own.

use bytes::Bytes;

use super::slot::{put_bytes32, Reader};
use crate::cache::{CacheKey, CacheKind};
use crate::table::Table;

const INDEX_MAGIC: &[u8; 4] = b"SLI1";

/// The slots stored for one bucket: (snapshot id, fingerprint), ascending by id.
pub(crate) type SlotIndex = Vec<(i64, String)>;

/// Parses an index value; `None` when the bytes are not one.
pub(crate) fn parse_index(bytes: &[u8]) -> Option<SlotIndex> {
    let mut r = Reader { buf: bytes, pos: 0 };
    if r.take(4)? != INDEX_MAGIC {
        return None;
    }
    let n = r.u32()?;
    let mut out = Vec::with_capacity((n as usize).min(bytes.len()));
    for _ in 0..n {
        let id = r.i64()?;
        let fp = std::str::from_utf8(r.bytes32()?).ok()?.to_string();
        out.push((id, fp));
    }
    (r.pos == bytes.len()).then_some(out)
}

pub(crate) fn encode_index(index: &SlotIndex) -> Bytes {
    let mut out = Vec::with_capacity(8 + index.iter().map(|(_, f)| 12 + f.len()).sum::<usize>());
    out.extend_from_slice(INDEX_MAGIC);
    out.extend_from_slice(&(index.len() as u32).to_le_bytes());
    for (id, fp) in index {
        out.extend_from_slice(&id.to_le_bytes());
        put_bytes32(&mut out, fp.as_bytes());
    }
    Bytes::from(out)
}

/// The newest slot of `index` older than `snapshot_id` and at most `max_distance` snapshots
/// behind it: the base of an incremental build.
pub(crate) fn base_for(
    index: &SlotIndex,
    snapshot_id: i64,
    max_distance: i64,
) -> Option<&(i64, String)> {
    index
        .iter()
        .filter(|(id, _)| *id < snapshot_id && snapshot_id - *id <= max_distance)
        .max_by_key(|(id, _)| *id)
}

/// Key of a bucket's slot index (see the module docs).
pub(super) fn index_key(table: &Table, bucket: i32) -> CacheKey {
    CacheKey::new(
        CacheKind::SnapshotLiveManifest,
        format!(
            "{}\u{0}{}\u{0}{bucket}",
            table.location(),
            table.paths().branch()
        ),
    )
}

/// Key of the slot of snapshot `id` with fingerprint `fp`.
pub(super) fn slot_key(table: &Table, bucket: i32, id: i64, fp: &str) -> CacheKey {
    CacheKey::new(
        CacheKind::SnapshotLiveManifest,
        format!(
            "{}\u{0}{}\u{0}{bucket}\u{0}{id}\u{0}{fp}",
            table.location(),
            table.paths().branch()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_round_trips_and_picks_the_newest_base_in_reach() {
        let index: SlotIndex = vec![(2, "a|b".into()), (5, "c|d".into()), (9, "e|f".into())];
        assert_eq!(parse_index(&encode_index(&index)).unwrap(), index);
        assert_eq!(parse_index(&encode_index(&Vec::new())).unwrap(), vec![]);
        assert_eq!(base_for(&index, 10, 64).unwrap().0, 9);
        assert_eq!(base_for(&index, 9, 64).unwrap().0, 5);
        assert_eq!(base_for(&index, 8, 3).unwrap().0, 5);
        assert!(base_for(&index, 8, 2).is_none(), "too far behind");
        assert!(base_for(&index, 2, 64).is_none(), "nothing older");
    }
}
