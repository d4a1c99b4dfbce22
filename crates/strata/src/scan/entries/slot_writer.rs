//! Writing a cache slot (format in [`super::slot`]) in one pass into its final buffer, from
//! manifest entries or from a base slot's entries, so that a scan selects its entries while the
//! slot is written.

use bytes::Bytes;
use foldhash::HashMap as FastMap;
use strata_spec::manifest::{EntrySchema, RawEntry};
use strata_spec::snapshot::Snapshot;

use super::slot::{encode_extras, fingerprint, put_bytes32, SlotValue, SLOT_MAGIC};

/// Where an encoded entry's file name lies in its datum: (offset, length).
fn name_in_datum(e: &RawEntry<'_>) -> Option<(u32, u32)> {
    let datum = e.datum.as_ptr() as usize;
    let name = e.head.file_name.as_ptr() as usize;
    let offset = name.checked_sub(datum)?;
    let end = offset.checked_add(e.head.file_name.len())?;
    (end <= e.datum.len()).then_some((offset as u32, e.head.file_name.len() as u32))
}

/// Writes one slot in a single pass into its final buffer: entries are appended one at a time,
/// from manifests ([`Self::push_raw`]) or copied from a base slot ([`Self::push`] with the
/// cached entry's parts), so a scan can select its entries while the slot is written.
pub(crate) struct SlotWriter<'s> {
    out: Vec<u8>,
    /// Offset of `table_files` in `out` (then `n_entries`, then the entries' length).
    header_at: usize,
    /// The slot's schema texts: the base slot's first, in order, then new ones.
    schemas: Vec<&'s str>,
    dictionary: FastMap<&'s [u8], u32>,
    partitions: Vec<&'s [u8]>,
    entries: u32,
}

impl<'s> SlotWriter<'s> {
    /// A writer of `snapshot`'s slot that keeps `base`'s schema indexes valid, with room for
    /// about `capacity` bytes.
    pub(crate) fn new(
        base: Option<&'s SlotValue<'_>>,
        snapshot: &Snapshot,
        capacity: usize,
    ) -> Self {
        let fp = fingerprint(snapshot);
        let mut out = Vec::with_capacity(capacity + fp.len() + 64);
        out.extend_from_slice(SLOT_MAGIC);
        out.extend_from_slice(&snapshot.id.to_le_bytes());
        put_bytes32(&mut out, fp.as_bytes());
        let header_at = out.len();
        // table_files, n_entries, entries' length: filled in by `finish`.
        out.extend_from_slice(&[0u8; 20]);
        SlotWriter {
            out,
            header_at,
            schemas: base
                .map(|v| v.schemas.iter().map(|s| s.text()).collect())
                .unwrap_or_default(),
            dictionary: FastMap::default(),
            partitions: Vec::new(),
            entries: 0,
        }
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

    /// The index of `schema` in the slot's schema list, added if new.
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
        // A slot with 65,536 writer schemas would need as many table versions in one bucket.
        idx as u16
    }

    /// Appends an entry given by its parts; `name` is where its file name lies in `datum`.
    pub(crate) fn push(
        &mut self,
        partition: u32,
        level: i32,
        schema: u16,
        name: (u32, u32),
        extras: &[u8],
        datum: &[u8],
    ) {
        let out = &mut self.out;
        out.extend_from_slice(&partition.to_le_bytes());
        out.extend_from_slice(&level.to_le_bytes());
        out.extend_from_slice(&schema.to_le_bytes());
        out.extend_from_slice(&name.0.to_le_bytes());
        out.extend_from_slice(&name.1.to_le_bytes());
        put_bytes32(out, extras);
        put_bytes32(out, datum);
        self.entries += 1;
    }

    /// Appends an entry read from a manifest; returns its partition index. `None` (nothing
    /// appended) if the entry's file name is not a range of its datum, which the manifest
    /// walker guarantees.
    pub(crate) fn push_raw(&mut self, e: &RawEntry<'s>) -> Option<u32> {
        let name = name_in_datum(e)?;
        let partition = self.partition(e.head.partition);
        let schema = self.schema(e.schema);
        let extras = encode_extras(e.head.extras.as_deref());
        self.push(partition, e.head.level, schema, name, &extras, e.datum);
        Some(partition)
    }

    /// The slot, with `table_files` as the snapshot's data file count.
    pub(crate) fn finish(self, table_files: u64) -> Bytes {
        let mut out = self.out;
        let rows_len = (out.len() - self.header_at - 20) as u64;
        out.reserve(
            8 + self.partitions.iter().map(|p| 4 + p.len()).sum::<usize>()
                + self.schemas.iter().map(|s| 4 + s.len()).sum::<usize>(),
        );
        out.extend_from_slice(&(self.partitions.len() as u32).to_le_bytes());
        for p in &self.partitions {
            put_bytes32(&mut out, p);
        }
        out.extend_from_slice(&(self.schemas.len() as u32).to_le_bytes());
        for s in &self.schemas {
            put_bytes32(&mut out, s.as_bytes());
        }
        let h = self.header_at;
        out[h..h + 8].copy_from_slice(&table_files.to_le_bytes());
        out[h + 8..h + 12].copy_from_slice(&self.entries.to_le_bytes());
        out[h + 12..h + 20].copy_from_slice(&rows_len.to_le_bytes());
        Bytes::from(out)
    }
}
