//! The value format of the snapshot live manifest entry cache
//! ([`crate::cache::CacheKind::SnapshotLiveManifest`]).
//!
//! One value per (table location, branch, bucket) holds the merged live entries (ADDs minus
//! DELETEs, every partition) of up to `scan.manifest-entry-cache.max-snapshots` snapshots of
//! that bucket, each entry kept in its encoded form: its `_PARTITION` bytes (so partition
//! filters run without decoding), its file identity (Java's `FileEntry.Identifier` minus the
//! bucket, which the value fixes: level, file name and the rarely set extra files, embedded
//! index and external path), and the Avro datum of its manifest's writer schema (decoded only
//! when a scan keeps the entry). Request filters are never applied before storing.
//!
//! ```text
//! value    = "SLE3" u32:n_schemas (u32:len schema_text)* u32:n_slots slot*
//! slot     = i64:snapshot_id u32:len fingerprint u64:table_files u32:n_entries u64:len body
//! body     = u32:n_partitions (u32:len partition)* entry*
//! entry    = u32:partition_index i32:level u16:schema u32:len file_name u32:len extras
//!            u32:len datum
//! extras   = ""  (none)  |  u32:n (u32:len extra_file)* u8:has_index [u32:len index]
//!            u8:has_external_path [u32:len path]
//! ```
//! Partitions are stored once per slot (a bucket has far fewer partitions than entries), so
//! a scan evaluates its partition filter once per distinct partition and then selects
//! entries by index, without hashing or comparing partition bytes per entry.
//! Little-endian. A scan selects its slot by snapshot id and skips the others by their body
//! length without touching their entries. The fingerprint is the snapshot's manifest-list
//! names (unique per commit), so a snapshot id reused after a rollback never matches the
//! old slot. `table_files` is the snapshot's total data file count (from its manifest lists),
//! kept so a cache hit still reports skipped files.
//!
//! The identity is stored so that a newer snapshot's slot can be built from an older one by
//! applying the newer snapshots' delta entries (`entries`, incremental builds): a DELETE finds
//! the cached entry it removes by identity without decoding any datum. Slots are written by
//! [`SlotWriter`], which copies a cached entry's bytes unchanged apart from its partition
//! index (the value's schema list only grows, so schema indexes stay valid).
//!
//! A value that does not parse (truncated, other version — `SLE2` values of earlier strata
//! versions lacked the identity) is treated as a miss and replaced.

use bytes::Bytes;
use strata_spec::manifest::{EntrySchema, IdentityExtras, RawEntry};
use strata_spec::snapshot::Snapshot;

use super::entries::FastMap;

const MAGIC: &[u8; 4] = b"SLE3";

/// Identity of a snapshot's content, beyond its id.
pub(crate) fn fingerprint(snapshot: &Snapshot) -> String {
    format!(
        "{}|{}",
        snapshot.base_manifest_list, snapshot.delta_manifest_list
    )
}

/// The cached form of an entry's identity extras: empty when there are none (the usual
/// case), so that two entries' extras are equal exactly when their encodings are.
pub(crate) fn encode_extras(extras: Option<&IdentityExtras>) -> Vec<u8> {
    let Some(e) = extras else {
        return Vec::new();
    };
    if e.extra_files.is_empty() && e.embedded_index.is_none() && e.external_path.is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    out.extend_from_slice(&(e.extra_files.len() as u32).to_le_bytes());
    for f in &e.extra_files {
        put_bytes32(&mut out, f.as_bytes());
    }
    for field in [
        e.embedded_index.as_deref(),
        e.external_path.as_deref().map(str::as_bytes),
    ] {
        match field {
            Some(b) => {
                out.push(1);
                put_bytes32(&mut out, b);
            }
            None => out.push(0),
        }
    }
    out
}

/// A live entry read back from a cached value.
pub(crate) struct CachedEntry<'a> {
    /// Index into [`SlotEntries::partitions`].
    pub partition: usize,
    pub level: i32,
    pub file_name: &'a [u8],
    /// See [`encode_extras`].
    pub extras: &'a [u8],
    /// Index into [`LiveValue::schemas`].
    pub schema_index: u16,
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
            let level = r.i32()?;
            let schema_index = r.u16()?;
            let schema = self.schemas.get(schema_index as usize)?;
            let file_name = r.bytes32()?;
            let extras = r.bytes32()?;
            let datum = r.bytes32()?;
            Some(CachedEntry {
                partition,
                level,
                file_name,
                extras,
                schema_index,
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

    /// The newest slot older than `snapshot_id` and at most `max_distance` snapshots behind
    /// it: the base of an incremental build.
    pub(crate) fn base_for(&self, snapshot_id: i64, max_distance: i64) -> Option<&Slot<'a>> {
        self.slots
            .iter()
            .filter(|s| s.snapshot_id < snapshot_id && snapshot_id - s.snapshot_id <= max_distance)
            .max_by_key(|s| s.snapshot_id)
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

/// Writes one new slot (and then the value around it): entries are appended one at a time,
/// from manifests ([`Self::push_raw`]) or copied from a cached slot ([`Self::push`] with the
/// cached entry's parts), so a scan can select its entries while the slot is written.
pub(crate) struct SlotWriter<'s> {
    /// The value's schema texts: the old value's first, in order, then new ones.
    schemas: Vec<&'s str>,
    dictionary: FastMap<&'s [u8], u32>,
    partitions: Vec<&'s [u8]>,
    rows: Vec<u8>,
    entries: u32,
}

impl<'s> SlotWriter<'s> {
    /// A writer of a slot for a value that keeps `old`'s schemas (so `old`'s schema indexes
    /// stay valid in it).
    pub(crate) fn new(old: Option<&'s LiveValue<'_>>) -> Self {
        SlotWriter {
            schemas: old
                .map(|v| v.schemas.iter().map(|s| s.text()).collect())
                .unwrap_or_default(),
            dictionary: FastMap::default(),
            partitions: Vec::new(),
            rows: Vec::new(),
            entries: 0,
        }
    }

    /// Reserves room for about `bytes` of entries.
    pub(crate) fn reserve(&mut self, bytes: usize) {
        self.rows.reserve(bytes);
    }

    /// The index of `partition` in this slot's dictionary, added if new.
    pub(crate) fn partition(&mut self, partition: &'s [u8]) -> u32 {
        let next = self.partitions.len() as u32;
        *self.dictionary.entry(partition).or_insert_with(|| {
            self.partitions.push(partition);
            next
        })
    }

    /// The partitions of the slot so far, by index.
    pub(crate) fn partitions(&self) -> &[&'s [u8]] {
        &self.partitions
    }

    /// The index of `schema` in the value's schema list, added if new.
    pub(crate) fn schema(&mut self, schema: &'s EntrySchema) -> u16 {
        let text = schema.text();
        // Schema texts are interned: compare addresses before contents.
        let idx = match self
            .schemas
            .iter()
            .position(|s| std::ptr::eq(s.as_ptr(), text.as_ptr()) || *s == text)
        {
            Some(i) => i,
            None => {
                self.schemas.push(text);
                self.schemas.len() - 1
            }
        };
        // A value with 65,536 writer schemas would need as many table versions in one bucket.
        idx as u16
    }

    /// Appends an entry given by its parts.
    pub(crate) fn push(
        &mut self,
        partition: u32,
        level: i32,
        schema: u16,
        file_name: &[u8],
        extras: &[u8],
        datum: &[u8],
    ) {
        let rows = &mut self.rows;
        rows.extend_from_slice(&partition.to_le_bytes());
        rows.extend_from_slice(&level.to_le_bytes());
        rows.extend_from_slice(&schema.to_le_bytes());
        put_bytes32(rows, file_name);
        put_bytes32(rows, extras);
        put_bytes32(rows, datum);
        self.entries += 1;
    }

    /// Appends an entry read from a manifest; returns its partition index.
    pub(crate) fn push_raw(&mut self, e: &RawEntry<'s>) -> u32 {
        let partition = self.partition(e.head.partition);
        let schema = self.schema(e.schema);
        let extras = encode_extras(e.head.extras.as_deref());
        self.push(
            partition,
            e.head.level,
            schema,
            e.head.file_name,
            &extras,
            e.datum,
        );
        partition
    }

    /// The new value: the slots of `old` (if any) except `snapshot`'s, the oldest dropped so
    /// that at most `max_snapshots` remain, plus this slot for `snapshot`. `old` must be the
    /// value given to [`Self::new`].
    pub(crate) fn finish(
        self,
        old: Option<&LiveValue<'_>>,
        snapshot: &Snapshot,
        table_files: u64,
        max_snapshots: usize,
    ) -> Bytes {
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
        let dictionary_len: usize = 4 + self.partitions.iter().map(|p| 4 + p.len()).sum::<usize>();
        let body_len = dictionary_len + self.rows.len();
        let size = 8
            + self.schemas.iter().map(|s| 4 + s.len()).sum::<usize>()
            + 4
            + kept
                .iter()
                .map(|s| 32 + s.fingerprint.len() + s.body.len())
                .sum::<usize>()
            + 32
            + fp.len()
            + body_len;
        let mut out = Vec::with_capacity(size);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.schemas.len() as u32).to_le_bytes());
        for s in &self.schemas {
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
        out.extend_from_slice(&self.entries.to_le_bytes());
        out.extend_from_slice(&(body_len as u64).to_le_bytes());
        out.extend_from_slice(&(self.partitions.len() as u32).to_le_bytes());
        for p in &self.partitions {
            put_bytes32(&mut out, p);
        }
        out.extend_from_slice(&self.rows);
        debug_assert_eq!(out.len(), size);
        Bytes::from(out)
    }
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

    fn entry(name: &str, p: i32) -> ManifestEntry {
        let partition =
            BinaryRow::from_datums(&[Some(Datum::Int(p))], &[DataType::nullable(TypeKind::Int)])
                .unwrap();
        ManifestEntry {
            kind: FileKind::Add,
            partition,
            bucket: 0,
            total_buckets: 1,
            file: file(name),
        }
    }

    fn manifest(names: &[(&str, i32)]) -> Vec<u8> {
        let entries: Vec<ManifestEntry> = names.iter().map(|(n, p)| entry(n, *p)).collect();
        encode_manifest_entries(&entries, ManifestCompression::Null).unwrap()
    }

    /// A new value: `old`'s slots plus one with `entries` (as a full rebuild writes it).
    fn encode(
        old: Option<&LiveValue<'_>>,
        snapshot: &Snapshot,
        table_files: u64,
        entries: &[RawEntry<'_>],
        max: usize,
    ) -> Bytes {
        let mut w = SlotWriter::new(old);
        for e in entries {
            w.push_raw(e);
        }
        w.finish(old, snapshot, table_files, max)
    }

    fn names(v: &LiveValue<'_>, id: i64, list: &str) -> Option<Vec<(String, i32)>> {
        let slot = v.find(id, &fingerprint(&snapshot(id, list)))?;
        let mut out = Vec::new();
        v.entries(slot)?
            .try_for_each(|partitions, e| {
                let d = e.schema.decode(e.datum, 0)?;
                let p = BinaryRow::from_serialized(partitions[e.partition])?;
                assert_eq!(p, d.partition);
                assert_eq!(e.file_name, d.file.file_name.as_bytes());
                assert_eq!(e.level, d.file.level);
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
        assert_eq!(p2.base_for(3, 5).unwrap().snapshot_id, 2);
        assert_eq!(p2.base_for(2, 5).unwrap().snapshot_id, 1);
        assert!(p2.base_for(9, 5).is_none(), "too far behind");
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

    /// A slot copied entry by entry from a cached one (as an incremental build does), minus
    /// one entry and plus a new one, reads back with the same identities and datums.
    #[test]
    fn cached_entries_copy_into_a_new_slot_with_their_identity() {
        let mut special = entry("e", 2);
        special.file.extra_files = vec!["e.index".into()];
        special.file.external_path = Some("s3://b/e".into());
        special.file.level = 3;
        let bytes = encode_manifest_entries(
            &[entry("a", 1), entry("b", 2), special.clone()],
            ManifestCompression::Null,
        )
        .unwrap();
        let m = RawManifest::parse(&bytes).unwrap();
        let raw: Vec<_> = m.entries().collect();
        assert!(raw[2].head.extras.is_some());
        let v1 = encode(None, &snapshot(1, "x"), 3, &raw, 3);
        let p1 = LiveValue::parse(&v1).unwrap();
        let slot = p1.find(1, &fingerprint(&snapshot(1, "x"))).unwrap();
        let m2 = RawManifest::parse(&manifest(&[("f", 1)])).unwrap();
        let mut w = SlotWriter::new(Some(&p1));
        let mut remap: Vec<Option<u32>> = Vec::new();
        let mut seen_extras = Vec::new();
        p1.entries(slot)
            .unwrap()
            .try_for_each(|partitions, e| {
                seen_extras.push(e.extras.to_vec());
                if e.file_name == b"b" {
                    return Ok::<(), ()>(());
                }
                remap.resize(partitions.len(), None);
                let p =
                    *remap[e.partition].get_or_insert_with(|| w.partition(partitions[e.partition]));
                w.push(p, e.level, e.schema_index, e.file_name, e.extras, e.datum);
                Ok(())
            })
            .unwrap()
            .unwrap();
        assert_eq!(
            seen_extras,
            vec![vec![], vec![], encode_extras(raw[2].head.extras.as_deref())]
        );
        for e in m2.entries() {
            w.push_raw(&e);
        }
        let v2 = w.finish(Some(&p1), &snapshot(2, "y"), 3, 3);
        let p2 = LiveValue::parse(&v2).unwrap();
        assert_eq!(
            names(&p2, 2, "y").unwrap(),
            vec![("a".into(), 0), ("e".into(), 1), ("f".into(), 0)]
        );
        let slot = p2.find(2, &fingerprint(&snapshot(2, "y"))).unwrap();
        let mut decoded = Vec::new();
        p2.entries(slot)
            .unwrap()
            .try_for_each(|_, e| {
                decoded.push(e.schema.decode(e.datum, 0).unwrap());
                Ok::<(), ()>(())
            })
            .unwrap()
            .unwrap();
        assert_eq!(decoded[1].file, special.file);
        assert_eq!(p2.slots.len(), 2, "the base slot is kept");
    }

    #[test]
    fn extras_encode_to_nothing_only_when_empty() {
        assert!(encode_extras(None).is_empty());
        assert!(encode_extras(Some(&IdentityExtras::default())).is_empty());
        let a = IdentityExtras {
            extra_files: vec![],
            embedded_index: Some(vec![]),
            external_path: None,
        };
        let b = IdentityExtras {
            extra_files: vec![],
            embedded_index: None,
            external_path: Some(String::new()),
        };
        let (ea, eb) = (encode_extras(Some(&a)), encode_extras(Some(&b)));
        assert!(!ea.is_empty() && !eb.is_empty());
        assert_ne!(ea, eb);
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
        assert!(LiveValue::parse(b"SLE2").is_none());
        let mut old = v.to_vec();
        old[..4].copy_from_slice(b"SLE2");
        assert!(
            LiveValue::parse(&old).is_none(),
            "earlier versions are misses"
        );
        assert!(LiveValue::parse(&v).is_some());
    }
}
