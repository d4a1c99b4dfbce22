//! Lazy (selective) manifest decoding: read a manifest file's entries as *encoded* datums and
//! decode only the ones a scan keeps.
//!
//! A scan usually needs a few entries of one partition and bucket, while building a
//! [`ManifestEntry`] means decoding its `_FILE` record: file name, keys, key and value
//! statistics, sequence numbers, extra lists. [`RawManifest`] decompresses the blocks once and
//! walks every datum, reading only the routing fields (`_KIND`, `_PARTITION` as a borrowed
//! byte slice, `_BUCKET`, `_TOTAL_BUCKETS`) and the file identity (`_FILE_NAME`, `_LEVEL`,
//! `_EXTRA_FILES`, `_EMBEDDED_FILE_INDEX`, `_EXTERNAL_PATH`, the fields of Java's
//! `FileEntry.Identifier`), and skipping everything else by its encoded lengths. Callers
//! filter the [`RawEntry`] views, merge them with the same rules as decoded entries
//! ([`super::merge::MergeItem`]) and fully decode only the survivors ([`RawEntry::decode`]).
//!
//! Hand-written because no Avro library offers this: apache-avro's reader decodes whole
//! datums into `Value` trees, and the projection has to resolve fields by name in whatever
//! writer schema the file carries (Java, pypaimon, pypaimon-rust and ≤0.8 layouts differ).
//! The walker works from the file's writer schema, so it accepts exactly what the full
//! decoder accepts; a full decode of a survivor still validates the whole datum.

use std::ops::Range;
use std::sync::Arc;

use super::avro_value::{decode_value, Cursor};
use super::entry_codec::entry_from_value;
use super::lazy_walk::HeadPos;
pub use super::lazy_walk::IdentityExtras;
use super::merge::MergeItem;
use super::model::{FileKind, ManifestEntry};
use super::ocf::{
    check_block_consumed, compiled_schema, parse_ocf, program, record_err, CompiledSchema,
};
use super::wire::in_record;
use crate::error::{Result, SpecError};

const WHAT: &str = "manifest entry";

/// The writer schema of encoded manifest entries: parsed once per process per schema text, so
/// cached encoded entries can carry just the text.
#[derive(Clone, Debug)]
pub struct EntrySchema(Arc<CompiledSchema>);

impl EntrySchema {
    /// The schema for a writer-schema text (as found in a manifest file's header).
    pub fn from_text(text: &str) -> Result<EntrySchema> {
        Ok(EntrySchema(compiled_schema(text)?))
    }

    /// The writer-schema text.
    pub fn text(&self) -> &str {
        &self.0.text
    }

    /// Fully decodes one encoded entry (a datum of this schema); `ordinal` names it in errors.
    pub fn decode(&self, datum: &[u8], ordinal: usize) -> Result<ManifestEntry> {
        let mut c = Cursor::new(datum);
        let value = decode_value(&mut c, &self.0.schema, &self.0.named)
            .map_err(|e| record_err(WHAT, ordinal, e))?;
        if c.remaining() != 0 {
            return Err(SpecError::Avro {
                context: format!("{WHAT} #{ordinal}"),
                message: format!("{} bytes left after the entry", c.remaining()),
            });
        }
        entry_from_value(&value).map_err(|e| in_record(e, WHAT, ordinal))
    }
}

/// The routing and identity fields of one encoded entry, borrowed from its bytes.
#[derive(Clone, Debug)]
pub struct EntryHead<'a> {
    pub kind: FileKind,
    /// `_PARTITION` in its Avro form (4-byte big-endian arity, then the row bytes), the same
    /// bytes `BinaryRow::from_serialized` reads and `BinaryRow` equality compares.
    pub partition: &'a [u8],
    pub bucket: i32,
    pub total_buckets: i32,
    pub level: i32,
    /// `_FILE_NAME` bytes (UTF-8 is checked when the entry is decoded).
    pub file_name: &'a [u8],
    pub extras: Option<Arc<IdentityExtras>>,
}

/// An encoded entry: its head plus the whole datum and the schema to decode it with.
#[derive(Clone, Debug)]
pub struct RawEntry<'a> {
    pub head: EntryHead<'a>,
    pub datum: &'a [u8],
    pub schema: &'a EntrySchema,
    /// Position in its manifest file, for error messages.
    pub ordinal: usize,
    /// The manifest file it came from, as given to [`RawManifest::with_source`] (empty when
    /// none was), for error messages.
    pub source: &'a str,
}

impl RawEntry<'_> {
    /// Builds the [`ManifestEntry`] (statistics and all).
    pub fn decode(&self) -> Result<ManifestEntry> {
        self.schema.decode(self.datum, self.ordinal)
    }
}

/// Identity of an encoded entry; equal exactly when the decoded entries'
/// [`super::merge::FileEntryIdentifier`]s are.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RawIdentifier<'a> {
    partition: &'a [u8],
    bucket: i32,
    level: i32,
    file_name: &'a [u8],
    extras: Option<Arc<IdentityExtras>>,
}

impl<'a> MergeItem for RawEntry<'a> {
    type Id = RawIdentifier<'a>;
    fn merge_id(&self) -> RawIdentifier<'a> {
        RawIdentifier {
            partition: self.head.partition,
            bucket: self.head.bucket,
            level: self.head.level,
            file_name: self.head.file_name,
            extras: self.head.extras.clone(),
        }
    }
    fn file_kind(&self) -> FileKind {
        self.head.kind
    }
    fn describe(&self) -> (&str, i32, i32) {
        let name = std::str::from_utf8(self.head.file_name).unwrap_or("<non-UTF-8 file name>");
        (name, self.head.bucket, self.head.level)
    }
}

fn resolve<'a>(pos: &HeadPos, data: &'a [u8]) -> EntryHead<'a> {
    EntryHead {
        kind: pos.kind,
        partition: &data[pos.partition.clone()],
        bucket: pos.bucket,
        total_buckets: pos.total_buckets,
        level: pos.level,
        file_name: &data[pos.file_name.clone()],
        extras: pos.extras.clone(),
    }
}

fn shifted(mut pos: HeadPos, by: usize) -> HeadPos {
    pos.partition = pos.partition.start + by..pos.partition.end + by;
    pos.file_name = pos.file_name.start + by..pos.file_name.end + by;
    pos
}

/// Moves a head whose datum started at `from` (in the scratch buffer) to start at `to`.
fn shifted_back(mut pos: HeadPos, from: usize, to: usize) -> HeadPos {
    pos.partition = pos.partition.start - from + to..pos.partition.end - from + to;
    pos.file_name = pos.file_name.start - from + to..pos.file_name.end - from + to;
    pos
}

/// A manifest file with its entries still encoded (see the module docs).
/// Decides, from its head alone, whether an encoded entry is kept by
/// [`RawManifest::parse_filtered`].
pub trait EntryFilter {
    fn keep(&mut self, head: &EntryHead<'_>) -> Result<bool>;
}

/// Keeps every entry.
pub struct KeepAll;

impl EntryFilter for KeepAll {
    fn keep(&mut self, _: &EntryHead<'_>) -> Result<bool> {
        Ok(true)
    }
}

/// A manifest file with its entries still encoded (see the module docs).
#[derive(Debug)]
pub struct RawManifest {
    schema: EntrySchema,
    /// The kept entries' datums, back to back.
    data: Vec<u8>,
    /// Head positions and datum range in `data`, and the entry's ordinal in its file.
    entries: Vec<(HeadPos, Range<usize>, usize)>,
    /// Entries in the file, kept or not.
    walked: usize,
    /// Where the bytes came from (a path), for error messages.
    source: String,
}

impl RawManifest {
    /// Decompresses `bytes` (a manifest file) and indexes its entries. Fails like
    /// [`super::decode_manifest_entries`] on corrupt containers and on entries whose routing
    /// or identity fields are malformed.
    pub fn parse(bytes: &[u8]) -> Result<RawManifest> {
        Self::parse_filtered(bytes, &mut KeepAll)
    }

    /// Like [`Self::parse`], keeping only the entries `filter` accepts: the others are walked
    /// (to find the next entry) and dropped without being copied. The file is decompressed
    /// into a per-thread buffer reused across files, so a scan over many manifests holds
    /// only the kept entries.
    pub fn parse_filtered(bytes: &[u8], filter: &mut dyn EntryFilter) -> Result<RawManifest> {
        thread_local! {
            static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let ocf = parse_ocf(bytes)?;
        let plan = program(&ocf.schema)?;
        let schema = EntrySchema(ocf.schema.clone());
        // Taken out of the cell so a filter may itself parse manifests without a re-borrow.
        let mut scratch = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
        scratch.clear();
        let result = (|| {
            let blocks = ocf.decompress_all(WHAT, &mut scratch)?;
            let mut data = Vec::new();
            let mut entries = Vec::new();
            let mut walked = 0usize;
            for (block_no, count, range) in blocks {
                let base = range.start;
                let mut c = Cursor::new(&scratch[range]);
                for _ in 0..count {
                    let ordinal = walked;
                    walked += 1;
                    let start = c.position();
                    let head = plan
                        .walk(&mut c)
                        .map_err(|e| record_err(WHAT, ordinal, e))?;
                    let datum = base + start..base + c.position();
                    let head = shifted(head, base);
                    if !filter.keep(&resolve(&head, &scratch))? {
                        continue;
                    }
                    // Re-base the head's ranges from the scratch buffer onto `data`.
                    let at = data.len();
                    data.extend_from_slice(&scratch[datum.clone()]);
                    let moved = shifted_back(head, datum.start, at);
                    entries.push((moved, at..data.len(), ordinal));
                }
                check_block_consumed(WHAT, block_no, count, &c)?;
            }
            Ok(RawManifest {
                schema,
                data,
                entries,
                walked,
                source: String::new(),
            })
        })();
        SCRATCH.with(|s| *s.borrow_mut() = scratch);
        result
    }

    /// Names the file these bytes came from; every [`RawEntry`] carries it so that an entry
    /// that fails to decode later can be traced to its manifest.
    pub fn with_source(mut self, source: impl Into<String>) -> RawManifest {
        self.source = source.into();
        self
    }

    /// The name given by [`Self::with_source`], empty if none.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Entries walked in the file, including the ones a filter dropped.
    pub fn walked(&self) -> usize {
        self.walked
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn schema(&self) -> &EntrySchema {
        &self.schema
    }

    /// Entry `i` (file order).
    pub fn entry(&self, i: usize) -> RawEntry<'_> {
        let (head, datum, ordinal) = &self.entries[i];
        RawEntry {
            head: resolve(head, &self.data),
            datum: &self.data[datum.clone()],
            schema: &self.schema,
            ordinal: *ordinal,
            source: &self.source,
        }
    }

    /// All entries in file order.
    pub fn entries(&self) -> impl Iterator<Item = RawEntry<'_>> + '_ {
        (0..self.entries.len()).map(|i| self.entry(i))
    }

    /// Fully decodes every entry (the eager path).
    pub fn decode_all(&self) -> Result<Vec<ManifestEntry>> {
        self.entries().map(|e| e.decode()).collect()
    }
}
