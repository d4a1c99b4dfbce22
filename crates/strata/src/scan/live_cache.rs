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
//! value    = "SLE2" u32:n_schemas (u32:len schema_text)* u32:n_slots slot*
//! slot     = i64:snapshot_id u32:len fingerprint u64:table_files u32:n_entries u64:len body
//! body     = u32:n_partitions (u32:len partition)* entry*
//! entry    = u32:partition_index  i32:level  u16:schema  u32:len datum
//! ```
//! Partitions are stored once per slot (a bucket has far fewer partitions than entries), so
//! a scan evaluates its partition filter once per distinct partition and then selects
//! entries by index, without hashing or comparing partition bytes per entry.
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

const MAGIC: &[u8; 4] = b"SLE2";

/// Identity of a snapshot's content, beyond its id.
pub(crate) fn fingerprint(snapshot: &Snapshot) -> String {
    format!(
        "{}|{}",
        snapshot.base_manifest_list, snapshot.delta_manifest_list
    )
}

/// A live entry read back from a cached value.
pub(crate) struct CachedEntry<'a> {
    /// Index into [`SlotEntries::partitions`].
    pub partition: usize,
    pub schema: &'a EntrySchema,
    pub datum: &'a [u8],
}

/// The entries of one slot: the partition dictionary and an iterator over the entries.
pub(crate) struct SlotEntries<'v, 'a> {
    pub partitions: Vec<&'a [u8]>,
    schemas: &'v [EntrySchema],
    reader: Reader<'a>,
    remaining: u32,
}

impl<'v, 'a> SlotEntries<'v, 'a> {
    pub(crate) fn len(&self) -> usize {
        self.remaining as usize
    }

    /// The next entry; `Some(None)` when the body is malformed.
    fn next_entry(&mut self) -> Option<Option<CachedEntry<'v>>>
    where
        'a: 'v,
    {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let r = &mut self.reader;
        let entry = (|| {
            let partition = r.u32()? as usize;
            if partition >= self.partitions.len() {
                return None;
            }
            // The level (kept for level filters before decoding; not used yet).
            r.i32()?;
            let schema = self.schemas.get(r.u16()? as usize)?;
            let datum = r.bytes32()?;
            Some(CachedEntry {
                partition,
                schema,
                datum,
            })
        })();
        Some(entry)
    }

    /// Calls `f` for every entry in cached order; `None` if the body is malformed.
    pub(crate) fn try_for_each<E>(
        mut self,
        mut f: impl FnMut(&[&'a [u8]], CachedEntry<'v>) -> Result<(), E>,
    ) -> Option<Result<(), E>>
    where
        'a: 'v,
    {
        while let Some(e) = self.next_entry() {
            if let Err(err) = f(&self.partitions, e?) {
                return Some(Err(err));
            }
        }
        (self.reader.pos == self.reader.buf.len()).then_some(Ok(()))
    }
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

    /// The entries of `slot`, in their cached order; `None` if the partition dictionary is
    /// malformed (entries are checked as they are read).
    pub(crate) fn entries<'v>(&'v self, slot: &Slot<'a>) -> Option<SlotEntries<'v, 'a>> {
        let mut reader = Reader {
            buf: slot.body,
            pos: 0,
        };
        let n = reader.u32()?;
        let mut partitions = Vec::with_capacity((n as usize).min(slot.body.len()));
        for _ in 0..n {
            partitions.push(reader.bytes32()?);
        }
        Some(SlotEntries {
            partitions,
            schemas: &self.schemas,
            reader,
            remaining: slot.entries,
        })
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
    let mut dictionary: std::collections::HashMap<&[u8], u32> = std::collections::HashMap::new();
    let mut partitions: Vec<&[u8]> = Vec::new();
    let mut rows = Vec::new();
    for e in entries {
        let next = partitions.len() as u32;
        let idx = *dictionary.entry(e.head.partition).or_insert_with(|| {
            partitions.push(e.head.partition);
            next
        });
        rows.extend_from_slice(&idx.to_le_bytes());
        let text = e.schema.text();
        // Schema texts are interned: compare addresses before contents.
        let idx = match schemas
            .iter()
            .position(|s| std::ptr::eq(s.as_ptr(), text.as_ptr()) || *s == text)
        {
            Some(i) => i,
            None => {
                schemas.push(text);
                schemas.len() - 1
            }
        };
        rows.extend_from_slice(&e.head.level.to_le_bytes());
        // A value with 65,536 writer schemas would need as many table versions in one bucket.
        rows.extend_from_slice(&(idx as u16).to_le_bytes());
        put_bytes32(&mut rows, e.datum);
    }
    let mut body = Vec::with_capacity(rows.len() + partitions.len() * 32 + 4);
    body.extend_from_slice(&(partitions.len() as u32).to_le_bytes());
    for p in &partitions {
        put_bytes32(&mut body, p);
    }
    body.extend_from_slice(&rows);
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

#[cfg(test)]
mod tests {
    use super::*;
    use strata_spec::binary_row::BinaryRow;
    use strata_spec::manifest::{
        encode_manifest_entries, DataFileMeta, FileKind, ManifestCompression, ManifestEntry,
        RawManifest,
    };
    use strata_spec::stats::SimpleStats;
    use strata_spec::{DataType, Datum, TypeKind};

    fn snapshot(id: i64, list: &str) -> Snapshot {
        Snapshot::from_json(&format!(
            r#"{{"id":{id},"schemaId":0,"baseManifestList":"{list}-b","deltaManifestList":"{list}-d",
            "commitUser":"u","commitIdentifier":1,"commitKind":"APPEND","timeMillis":1}}"#
        ))
        .unwrap()
    }

    fn file(name: &str) -> DataFileMeta {
        DataFileMeta {
            file_name: name.into(),
            file_size: 10,
            row_count: 1,
            min_key: BinaryRow::empty(),
            max_key: BinaryRow::empty(),
            key_stats: SimpleStats::empty(),
            value_stats: SimpleStats::empty(),
            min_sequence_number: 0,
            max_sequence_number: 0,
            schema_id: 0,
            level: 0,
            extra_files: vec![],
            creation_time: None,
            delete_row_count: Some(0),
            embedded_index: None,
            file_source: None,
            value_stats_cols: None,
            external_path: None,
            first_row_id: None,
            write_cols: None,
        }
    }

    fn manifest(names: &[(&str, i32)]) -> Vec<u8> {
        let entries: Vec<ManifestEntry> = names
            .iter()
            .map(|(name, p)| {
                let partition = BinaryRow::from_datums(
                    &[Some(Datum::Int(*p))],
                    &[DataType::nullable(TypeKind::Int)],
                )
                .unwrap();
                ManifestEntry {
                    kind: FileKind::Add,
                    partition,
                    bucket: 0,
                    total_buckets: 1,
                    file: file(name),
                }
            })
            .collect();
        encode_manifest_entries(&entries, ManifestCompression::Null).unwrap()
    }

    fn names(v: &LiveValue<'_>, id: i64, list: &str) -> Option<Vec<(String, i32)>> {
        let slot = v.find(id, &fingerprint(&snapshot(id, list)))?;
        let mut out = Vec::new();
        v.entries(slot)?
            .try_for_each(|partitions, e| {
                let d = e.schema.decode(e.datum, 0)?;
                let p = BinaryRow::from_serialized(partitions[e.partition])?;
                assert_eq!(p, d.partition);
                out.push((d.file.file_name, e.partition as i32));
                Ok::<(), strata_spec::SpecError>(())
            })?
            .unwrap();
        Some(out)
    }

    #[test]
    fn slots_are_kept_per_snapshot_oldest_evicted_and_fingerprinted() {
        let m1 = RawManifest::parse(&manifest(&[("a", 1), ("b", 2), ("c", 1)])).unwrap();
        let m2 = RawManifest::parse(&manifest(&[("d", 3)])).unwrap();
        let e1: Vec<_> = m1.entries().collect();
        let e2: Vec<_> = m2.entries().collect();
        let v1 = encode(None, &snapshot(1, "x"), 3, &e1, 2);
        let p1 = LiveValue::parse(&v1).unwrap();
        // Partitions are deduplicated: a and c share index 0.
        assert_eq!(
            names(&p1, 1, "x").unwrap(),
            vec![("a".into(), 0), ("b".into(), 1), ("c".into(), 0)]
        );
        let v2 = encode(Some(&p1), &snapshot(2, "y"), 1, &e2, 2);
        let p2 = LiveValue::parse(&v2).unwrap();
        assert!(names(&p2, 1, "x").is_some() && names(&p2, 2, "y").is_some());
        // A third snapshot with max 2 evicts the oldest (1).
        let v3 = encode(Some(&p2), &snapshot(3, "z"), 1, &e2, 2);
        let p3 = LiveValue::parse(&v3).unwrap();
        assert!(names(&p3, 1, "x").is_none());
        assert_eq!(p3.slots.len(), 2);
        // Same id, other manifest lists (a rollback reused the id): no match.
        assert!(names(&p3, 3, "other").is_none());
        assert_eq!(
            p3.find(3, &fingerprint(&snapshot(3, "z")))
                .unwrap()
                .table_files,
            1
        );
    }

    #[test]
    fn truncated_or_foreign_values_are_rejected_without_panicking() {
        let m = RawManifest::parse(&manifest(&[("a", 1), ("b", 2)])).unwrap();
        let e: Vec<_> = m.entries().collect();
        let v = encode(None, &snapshot(1, "x"), 2, &e, 1);
        for cut in 0..v.len() {
            if let Some(p) = LiveValue::parse(&v[..cut]) {
                if let Some(slot) = p.slots.first() {
                    if let Some(entries) = p.entries(slot) {
                        let _ = entries.try_for_each(|_, _| Ok::<(), ()>(()));
                    }
                }
            }
        }
        assert!(LiveValue::parse(b"SLE1").is_none());
        assert!(LiveValue::parse(&v).is_some());
    }
}
