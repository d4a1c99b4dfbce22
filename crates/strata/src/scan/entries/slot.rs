//! The value formats of the snapshot live manifest entry cache
//! ([`crate::cache::CacheKind::SnapshotLiveManifest`]).
//!
//! Per (table location, branch, bucket) the cache holds up to
//! `scan.manifest-entry-cache.max-snapshots` **slots**, one per snapshot, each under its own key
//! (`location \0 branch \0 bucket \0 snapshot id \0 fingerprint`), plus one small **index**
//! value under `location \0 branch \0 bucket` listing the slots stored. A slot holds the merged
//! live entries (ADDs minus DELETEs, every partition) of that bucket in that snapshot, each
//! entry kept in its encoded form: its `_PARTITION` bytes (so partition filters run without
//! decoding), its file identity (Java's `FileEntry.Identifier` minus the bucket, which the slot
//! fixes: level, file name and the rarely set extra files, embedded index and external path),
//! and the Avro datum of its manifest's writer schema (decoded only when a scan keeps the
//! entry). Request filters are never applied before storing.
//!
//! ```text
//! index    = "SLI1" u32:n (i64:snapshot_id u32:len fingerprint)*
//! slot     = "SLS1" i64:snapshot_id u32:len fingerprint u64:table_files u32:n_entries
//!            u64:len entries  u32:n_partitions (u32:len partition)*
//!            u32:n_schemas (u32:len schema_text)*
//! entry    = u32:partition_index i32:level u16:schema u32:name_offset u32:name_len
//!            u32:len extras u32:len datum
//! extras   = ""  (none)  |  u32:n (u32:len extra_file)* u8:has_index [u32:len index]
//!            u8:has_external_path [u32:len path]
//! ```
//! Little-endian. The file name is not stored apart: it is a range of the datum
//! (`name_offset`, `name_len`, as the manifest walker found it). Partitions are stored once per
//! slot (a bucket has far fewer partitions than
//! entries), so a scan evaluates its partition filter once per distinct partition and then
//! selects entries by index, without hashing or comparing partition bytes per entry. The
//! partition dictionary and schema list follow the entries so that [`SlotWriter`](super::slot_writer::SlotWriter) writes a
//! slot in one pass into its final buffer (the fixed-size header fields are filled in last).
//! The fingerprint is the snapshot's manifest-list names (unique per commit), so a snapshot id
//! reused after a rollback never matches the old slot. `table_files` is the snapshot's total
//! data file count (from its manifest lists), kept so a cache hit still reports skipped files.
//!
//! Slots have keys of their own so that adding a snapshot's slot writes only that slot: a
//! single value holding every slot would be copied whole on each new snapshot (tens of MB for
//! a bucket of a busy table). The index is rewritten instead, and slots beyond the limit are
//! invalidated; concurrent scans may race on the index, which only loses a slot (a later miss),
//! never serves a wrong one, since each slot is checked against its own header.
//!
//! The identity is stored so that a newer snapshot's slot can be built from an older one by
//! applying the newer snapshots' delta entries (`incremental_slot`): a DELETE finds
//! the cached entry it removes by identity without decoding any datum. A cached entry is copied
//! into the new slot unchanged apart from its partition index (the new slot's schema list
//! starts with the base slot's, so schema indexes stay valid).
//!
//! A value that does not parse (truncated, other version — the single `SLE2` value of earlier
//! strata versions lacked the identity) is treated as a miss and replaced.

use strata_spec::manifest::{EntrySchema, IdentityExtras};
use strata_spec::snapshot::Snapshot;

pub(super) const SLOT_MAGIC: &[u8; 4] = b"SLS1";

/// Room reserved in a new slot beyond its entries, for the partition dictionary and schema
/// texts that follow them (a few KB), so that finishing the slot does not reallocate it.
pub(super) const SLOT_SLACK: usize = 32 << 10;

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

/// A live entry read back from a slot.
pub(crate) struct CachedEntry<'a> {
    /// Index into [`SlotEntries::partitions`].
    pub partition: usize,
    pub level: i32,
    pub file_name: &'a [u8],
    /// Where `file_name` lies in `datum`: (offset, length).
    pub name: (u32, u32),
    /// See [`encode_extras`].
    pub extras: &'a [u8],
    /// Index into [`SlotValue::schemas`].
    pub schema_index: u16,
    pub schema: &'a EntrySchema,
    pub datum: &'a [u8],
}

/// The entries of one slot: the partition dictionary and an iterator over the entries.
pub(crate) struct SlotEntries<'v, 'a> {
    pub partitions: &'v [&'a [u8]],
    schemas: &'v [EntrySchema],
    reader: Reader<'a>,
    remaining: u32,
}

impl<'v, 'a> SlotEntries<'v, 'a> {
    pub(crate) fn len(&self) -> usize {
        self.remaining as usize
    }

    /// The next entry; `Some(None)` when the entries are malformed.
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
            let name = (r.u32()?, r.u32()?);
            let extras = r.bytes32()?;
            let datum = r.bytes32()?;
            let start = name.0 as usize;
            let file_name = datum.get(start..start.checked_add(name.1 as usize)?)?;
            Some(CachedEntry {
                partition,
                level,
                file_name,
                name,
                extras,
                schema_index,
                schema,
                datum,
            })
        })();
        Some(entry)
    }

    /// Calls `f` for every entry in cached order; `None` if the entries are malformed.
    pub(crate) fn try_for_each<E>(
        mut self,
        mut f: impl FnMut(&[&'a [u8]], CachedEntry<'v>) -> Result<(), E>,
    ) -> Option<Result<(), E>>
    where
        'a: 'v,
    {
        while let Some(e) = self.next_entry() {
            if let Err(err) = f(self.partitions, e?) {
                return Some(Err(err));
            }
        }
        (self.reader.pos == self.reader.buf.len()).then_some(Ok(()))
    }
}

/// A parsed slot: header, partition dictionary and schemas; the entries stay unread.
pub(crate) struct SlotValue<'a> {
    pub snapshot_id: i64,
    pub fingerprint: &'a [u8],
    pub table_files: u64,
    pub entries: u32,
    rows: &'a [u8],
    pub partitions: Vec<&'a [u8]>,
    pub schemas: Vec<EntrySchema>,
}

pub(super) struct Reader<'a> {
    pub(super) buf: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let out = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(out)
    }
    pub(super) fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    pub(super) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    pub(super) fn i32(&mut self) -> Option<i32> {
        Some(i32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    pub(super) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    pub(super) fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    pub(super) fn bytes32(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

impl<'a> SlotValue<'a> {
    /// Parses a slot's header, dictionary and schemas; `None` when the bytes are not a slot.
    pub(crate) fn parse(bytes: &'a [u8]) -> Option<SlotValue<'a>> {
        let mut r = Reader { buf: bytes, pos: 0 };
        if r.take(4)? != SLOT_MAGIC {
            return None;
        }
        let snapshot_id = r.i64()?;
        let fingerprint = r.bytes32()?;
        let table_files = r.u64()?;
        let entries = r.u32()?;
        let rows_len = usize::try_from(r.u64()?).ok()?;
        let rows = r.take(rows_len)?;
        let n = r.u32()? as usize;
        let mut partitions = Vec::with_capacity(n.min(bytes.len()));
        for _ in 0..n {
            partitions.push(r.bytes32()?);
        }
        let n = r.u32()? as usize;
        let mut schemas = Vec::with_capacity(n.min(bytes.len()));
        for _ in 0..n {
            let text = std::str::from_utf8(r.bytes32()?).ok()?;
            schemas.push(EntrySchema::from_text(text).ok()?);
        }
        (r.pos == bytes.len()).then_some(SlotValue {
            snapshot_id,
            fingerprint,
            table_files,
            entries,
            rows,
            partitions,
            schemas,
        })
    }

    /// Bytes of the entries.
    pub(crate) fn rows_len(&self) -> usize {
        self.rows.len()
    }

    /// Whether this is the slot of `snapshot_id` with fingerprint `fp`.
    pub(crate) fn is(&self, snapshot_id: i64, fp: &str) -> bool {
        self.snapshot_id == snapshot_id && self.fingerprint == fp.as_bytes()
    }

    /// The entries, in their cached order (checked as they are read).
    pub(crate) fn entries<'v>(&'v self) -> SlotEntries<'v, 'a> {
        SlotEntries {
            partitions: &self.partitions,
            schemas: &self.schemas,
            reader: Reader {
                buf: self.rows,
                pos: 0,
            },
            remaining: self.entries,
        }
    }
}

pub(super) fn put_bytes32(out: &mut Vec<u8>, b: &[u8]) {
    // Partitions, datums, schema texts and fingerprints are far below 4 GiB (manifest files
    // are a few MB); a longer one would be a bug upstream.
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

/// Bytes of a slot entry besides its datum and extras.
pub(crate) const ENTRY_HEADER: usize = 26;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::entries::slot_index::{encode_index, parse_index};
    use crate::scan::entries::slot_writer::SlotWriter;
    use bytes::Bytes;
    use strata_spec::binary_row::BinaryRow;
    use strata_spec::manifest::{
        encode_manifest_entries, DataFileMeta, FileKind, ManifestCompression, ManifestEntry,
        RawEntry, RawManifest,
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

    /// A slot with `entries` (as a full rebuild writes it).
    fn slot(snapshot: &Snapshot, table_files: u64, entries: &[RawEntry<'_>]) -> Bytes {
        let mut w = SlotWriter::new(None, snapshot, 0);
        for e in entries {
            w.push_raw(e).unwrap();
        }
        w.finish(table_files)
    }

    /// (file name, partition index) of every entry, checked against the decoded datum.
    fn names(v: &SlotValue<'_>) -> Vec<(String, i32)> {
        let mut out = Vec::new();
        v.entries()
            .try_for_each(|partitions, e| {
                let d = e.schema.decode(e.datum, 0)?;
                let p = BinaryRow::from_serialized(partitions[e.partition])?;
                assert_eq!(p, d.partition);
                assert_eq!(e.file_name, d.file.file_name.as_bytes());
                assert_eq!(e.level, d.file.level);
                out.push((d.file.file_name, e.partition as i32));
                Ok::<(), strata_spec::SpecError>(())
            })
            .unwrap()
            .unwrap();
        out
    }

    #[test]
    fn slots_round_trip_and_are_fingerprinted() {
        let m1 = RawManifest::parse(&manifest(&[("a", 1), ("b", 2), ("c", 1)])).unwrap();
        let e1: Vec<_> = m1.entries().collect();
        let v1 = slot(&snapshot(1, "x"), 3, &e1);
        let p1 = SlotValue::parse(&v1).unwrap();
        // Partitions are deduplicated: a and c share index 0.
        assert_eq!(
            names(&p1),
            vec![("a".into(), 0), ("b".into(), 1), ("c".into(), 0)]
        );
        assert_eq!((p1.table_files, p1.entries), (3, 3));
        assert!(p1.is(1, &fingerprint(&snapshot(1, "x"))));
        // Same id, other manifest lists (a rollback reused the id): not this slot.
        assert!(!p1.is(1, &fingerprint(&snapshot(1, "other"))));
        assert!(!p1.is(2, &fingerprint(&snapshot(1, "x"))));
    }

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
        let v1 = slot(&snapshot(1, "x"), 3, &raw);
        let p1 = SlotValue::parse(&v1).unwrap();
        let m2 = RawManifest::parse(&manifest(&[("f", 1)])).unwrap();
        let mut w = SlotWriter::new(Some(&p1), &snapshot(2, "y"), v1.len());
        let mut remap: Vec<Option<u32>> = vec![None; p1.partitions.len()];
        let mut seen_extras = Vec::new();
        p1.entries()
            .try_for_each(|partitions, e| {
                seen_extras.push(e.extras.to_vec());
                if e.file_name == b"b" {
                    return Ok::<(), ()>(());
                }
                let p =
                    *remap[e.partition].get_or_insert_with(|| w.partition(partitions[e.partition]));
                w.push(p, e.level, e.schema_index, e.name, e.extras, e.datum);
                Ok(())
            })
            .unwrap()
            .unwrap();
        assert_eq!(
            seen_extras,
            vec![vec![], vec![], encode_extras(raw[2].head.extras.as_deref())]
        );
        for e in m2.entries() {
            w.push_raw(&e).unwrap();
        }
        let v2 = w.finish(7);
        let p2 = SlotValue::parse(&v2).unwrap();
        assert!(p2.is(2, &fingerprint(&snapshot(2, "y"))));
        assert_eq!(p2.table_files, 7);
        assert_eq!(
            names(&p2),
            vec![("a".into(), 0), ("e".into(), 1), ("f".into(), 0)]
        );
        let mut decoded = Vec::new();
        p2.entries()
            .try_for_each(|_, e| {
                decoded.push(e.schema.decode(e.datum, 0).unwrap());
                Ok::<(), ()>(())
            })
            .unwrap()
            .unwrap();
        assert_eq!(decoded[1].file, special.file);
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
        let v = slot(&snapshot(1, "x"), 2, &e);
        for cut in 0..v.len() {
            if let Some(p) = SlotValue::parse(&v[..cut]) {
                let _ = p.entries().try_for_each(|_, _| Ok::<(), ()>(()));
            }
        }
        let index = encode_index(&vec![(1, "x".into())]);
        for cut in 0..index.len() {
            assert!(parse_index(&index[..cut]).is_none());
        }
        // Slots and indexes are not each other; earlier versions are misses.
        assert!(parse_index(&v).is_none());
        assert!(SlotValue::parse(&index).is_none());
        let mut old = v.to_vec();
        old[..4].copy_from_slice(b"SLE2");
        assert!(SlotValue::parse(&old).is_none());
        assert!(SlotValue::parse(&v).is_some());
    }
}
