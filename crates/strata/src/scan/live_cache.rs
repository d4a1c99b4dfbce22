//! The value format of the snapshot live manifest entry cache
//! ([`crate::cache::CacheKind::SnapshotLiveManifest`]).
//!
//! One value per (table location, branch, bucket) holds the merged live entries (ADDs minus
//! DELETEs, every partition) of up to `scan.manifest-entry-cache.max-snapshots` snapshots of
//! that bucket, each entry kept in its encoded form: its `_PARTITION` bytes (so partition
//! filters run without decoding) and the Avro datum of its manifest's writer schema (decoded
//! only when a scan keeps the entry). Request filters are never applied before storing.
//!
//! ```text
//! value    = "SLE1" u32:n_schemas (u32:len schema_text)* u32:n_slots slot*
//! slot     = i64:snapshot_id u32:len fingerprint u64:table_files u32:n_entries u64:len body
//! body     = (u32:len partition  i32:level  u16:schema  u32:len datum)*
//! ```
//! Little-endian. A scan selects its slot by snapshot id and skips the others by their body
//! length without touching their entries. The fingerprint is the snapshot's manifest-list
//! names (unique per commit), so a snapshot id reused after a rollback never matches the
//! old slot. `table_files` is the snapshot's total data file count (from its manifest list),
//! kept so a cache hit still reports skipped files.
//!
//! A value that does not parse (truncated, other version) is treated as a miss and replaced.

use bytes::Bytes;
use strata_spec::manifest::{EntrySchema, RawEntry};
use strata_spec::snapshot::Snapshot;

const MAGIC: &[u8; 4] = b"SLE1";

/// Identity of a snapshot's content, beyond its id.
pub(crate) fn fingerprint(snapshot: &Snapshot) -> String {
    format!(
        "{}|{}",
        snapshot.base_manifest_list, snapshot.delta_manifest_list
    )
}

/// A live entry read back from a cached value.
pub(crate) struct CachedEntry<'a> {
    pub partition: &'a [u8],
    pub schema: &'a EntrySchema,
    pub datum: &'a [u8],
}

/// One snapshot's entries inside a value.
pub(crate) struct Slot<'a> {
    pub snapshot_id: i64,
    pub fingerprint: &'a [u8],
    pub table_files: u64,
    pub entries: u32,
    pub body: &'a [u8],
}

/// A parsed value: schemas and slot headers; entry bodies stay unread.
pub(crate) struct LiveValue<'a> {
    pub schemas: Vec<EntrySchema>,
    pub slots: Vec<Slot<'a>>,
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let out = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(out)
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn i32(&mut self) -> Option<i32> {
        Some(i32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn bytes32(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

impl<'a> LiveValue<'a> {
    /// Parses the header and slot index; `None` when the bytes are not a valid value.
    pub(crate) fn parse(bytes: &'a [u8]) -> Option<LiveValue<'a>> {
        let mut r = Reader { buf: bytes, pos: 0 };
        if r.take(4)? != MAGIC {
            return None;
        }
        let n_schemas = r.u32()?;
        let mut schemas = Vec::new();
        for _ in 0..n_schemas {
            let text = std::str::from_utf8(r.bytes32()?).ok()?;
            schemas.push(EntrySchema::from_text(text).ok()?);
        }
        let n_slots = r.u32()?;
        let mut slots = Vec::new();
        for _ in 0..n_slots {
            let snapshot_id = r.i64()?;
            let fingerprint = r.bytes32()?;
            let table_files = r.u64()?;
            let entries = r.u32()?;
            let len = usize::try_from(r.u64()?).ok()?;
            let body = r.take(len)?;
            slots.push(Slot {
                snapshot_id,
                fingerprint,
                table_files,
                entries,
                body,
            });
        }
        (r.pos == bytes.len()).then_some(LiveValue { schemas, slots })
    }

    /// The slot of `snapshot_id` whose fingerprint is `fp`.
    pub(crate) fn find(&self, snapshot_id: i64, fp: &str) -> Option<&Slot<'a>> {
        self.slots
            .iter()
            .find(|s| s.snapshot_id == snapshot_id && s.fingerprint == fp.as_bytes())
    }

    /// The entries of `slot`, in their cached order; `None` if the body is malformed.
    pub(crate) fn entries(&self, slot: &Slot<'a>) -> Option<Vec<CachedEntry<'_>>> {
        let mut r = Reader {
            buf: slot.body,
            pos: 0,
        };
        let mut out = Vec::with_capacity(slot.entries as usize);
        for _ in 0..slot.entries {
            let partition = r.bytes32()?;
            // The level (kept for level filters before decoding; not used yet).
            r.i32()?;
            let schema = self.schemas.get(r.u16()? as usize)?;
            let datum = r.bytes32()?;
            out.push(CachedEntry {
                partition,
                schema,
                datum,
            });
        }
        (r.pos == slot.body.len()).then_some(out)
    }
}

fn put_bytes32(out: &mut Vec<u8>, b: &[u8]) {
    // Partitions, datums, schema texts and fingerprints are far below 4 GiB (manifest files
    // are a few MB); a longer one would be a bug upstream.
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

/// A new value: the slots of `old` (if any) except `snapshot_id`'s, the oldest dropped so
/// that at most `max_snapshots` remain, plus a new slot with `entries`.
pub(crate) fn encode(
    old: Option<&LiveValue<'_>>,
    snapshot: &Snapshot,
    table_files: u64,
    entries: &[RawEntry<'_>],
    max_snapshots: usize,
) -> Bytes {
    let mut schemas: Vec<&str> = old
        .map(|v| v.schemas.iter().map(|s| s.text()).collect())
        .unwrap_or_default();
    let mut body = Vec::new();
    for e in entries {
        let text = e.schema.text();
        let idx = match schemas.iter().position(|s| *s == text) {
            Some(i) => i,
            None => {
                schemas.push(text);
                schemas.len() - 1
            }
        };
        put_bytes32(&mut body, e.head.partition);
        body.extend_from_slice(&e.head.level.to_le_bytes());
        // A value with 65,536 writer schemas would need as many table versions in one bucket.
        body.extend_from_slice(&(idx as u16).to_le_bytes());
        put_bytes32(&mut body, e.datum);
    }
    let mut kept: Vec<&Slot<'_>> = old
        .map(|v| {
            v.slots
                .iter()
                .filter(|s| s.snapshot_id != snapshot.id)
                .collect()
        })
        .unwrap_or_default();
    kept.sort_by_key(|s| s.snapshot_id);
    let keep = max_snapshots.saturating_sub(1);
    if kept.len() > keep {
        kept.drain(..kept.len() - keep);
    }
    let fp = fingerprint(snapshot);
    let mut out =
        Vec::with_capacity(64 + body.len() + kept.iter().map(|s| s.body.len() + 64).sum::<usize>());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(schemas.len() as u32).to_le_bytes());
    for s in &schemas {
        put_bytes32(&mut out, s.as_bytes());
    }
    out.extend_from_slice(&((kept.len() + 1) as u32).to_le_bytes());
    for s in kept {
        out.extend_from_slice(&s.snapshot_id.to_le_bytes());
        put_bytes32(&mut out, s.fingerprint);
        out.extend_from_slice(&s.table_files.to_le_bytes());
        out.extend_from_slice(&s.entries.to_le_bytes());
        out.extend_from_slice(&(s.body.len() as u64).to_le_bytes());
        out.extend_from_slice(s.body);
    }
    out.extend_from_slice(&snapshot.id.to_le_bytes());
    put_bytes32(&mut out, fp.as_bytes());
    out.extend_from_slice(&table_files.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&body);
    Bytes::from(out)
}
