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

use apache_avro::schema::{RecordSchema, Schema};

use super::avro_value::{decode_value, skip_value, Cursor, DecodeError, NamedTypes};
use super::codec::check_version;
use super::entry_codec::{entry_from_value, MANIFEST_ENTRY_VERSION};
use super::merge::MergeItem;
use super::model::{FileKind, ManifestEntry};
use super::ocf::{check_block_consumed, compiled_schema, parse_ocf, record_err, CompiledSchema};
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

/// Identity fields of Java's `FileEntry.Identifier` that are almost always empty; kept out of
/// line so the common entry stays small.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct IdentityExtras {
    pub extra_files: Vec<String>,
    pub embedded_index: Option<Vec<u8>>,
    pub external_path: Option<String>,
}

impl IdentityExtras {
    fn is_empty(&self) -> bool {
        self.extra_files.is_empty() && self.embedded_index.is_none() && self.external_path.is_none()
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
    pub file_name: &'a str,
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
    file_name: &'a str,
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
        (self.head.file_name, self.head.bucket, self.head.level)
    }
}

/// Positions of one entry's fields inside [`RawManifest::data`].
#[derive(Clone, Debug)]
struct HeadPos {
    kind: FileKind,
    partition: Range<usize>,
    bucket: i32,
    total_buckets: i32,
    level: i32,
    file_name: Range<usize>,
    extras: Option<Arc<IdentityExtras>>,
}

impl HeadPos {
    fn shifted(mut self, by: usize) -> HeadPos {
        self.partition = self.partition.start + by..self.partition.end + by;
        self.file_name = self.file_name.start + by..self.file_name.end + by;
        self
    }

    fn resolve<'a>(&self, data: &'a [u8]) -> EntryHead<'a> {
        EntryHead {
            kind: self.kind,
            partition: &data[self.partition.clone()],
            bucket: self.bucket,
            total_buckets: self.total_buckets,
            level: self.level,
            // The walker checked the name is UTF-8 when it recorded the range.
            file_name: std::str::from_utf8(&data[self.file_name.clone()]).unwrap_or_default(),
            extras: self.extras.clone(),
        }
    }
}

/// A manifest file with its entries still encoded (see the module docs).
#[derive(Debug)]
pub struct RawManifest {
    schema: EntrySchema,
    /// Decompressed blocks, back to back; every datum lies inside one block.
    data: Vec<u8>,
    entries: Vec<(HeadPos, Range<usize>)>,
}

impl RawManifest {
    /// Decompresses `bytes` (a manifest file) and indexes its entries. Fails like
    /// [`super::decode_manifest_entries`] on corrupt containers and on entries whose routing
    /// or identity fields are malformed.
    pub fn parse(bytes: &[u8]) -> Result<RawManifest> {
        let ocf = parse_ocf(bytes)?;
        let plan = EntryPlan::of(&ocf.schema)?;
        let mut data = Vec::new();
        let mut entries = Vec::new();
        ocf.for_each_block(WHAT, |block_no, count, block| {
            let base = data.len();
            data.extend_from_slice(block);
            let mut c = Cursor::new(&data[base..]);
            for _ in 0..count {
                let ordinal = entries.len();
                let start = c.position();
                let head = plan
                    .walk(&mut c, &ocf.schema.named)
                    .map_err(|e| record_err(WHAT, ordinal, e))?;
                entries.push((head.shifted(base), base + start..base + c.position()));
            }
            check_block_consumed(WHAT, block_no, count, &c)
        })?;
        Ok(RawManifest {
            schema: EntrySchema(ocf.schema.clone()),
            data,
            entries,
        })
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
        let (head, datum) = &self.entries[i];
        RawEntry {
            head: head.resolve(&self.data),
            datum: &self.data[datum.clone()],
            schema: &self.schema,
            ordinal: i,
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

/// What the walker does with a field.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    Version,
    Kind,
    Partition,
    Bucket,
    TotalBuckets,
    File,
    FileName,
    Level,
    ExtraFiles,
    EmbeddedIndex,
    ExternalPath,
    Skip,
}

/// Field roles of the top-level record and of `_FILE`, resolved once per file.
struct EntryPlan<'s> {
    top: RecordPlan<'s>,
    file: RecordPlan<'s>,
}

struct RecordPlan<'s> {
    /// Union branch holding the record when the schema wraps it as `["null", record]`.
    union_branch: Option<usize>,
    fields: Vec<(Role, &'s str, &'s Schema)>,
}

/// Strips a `["null", T]` union (and named references) to find a record.
fn find_record<'s>(
    schema: &'s Schema,
    named: &'s NamedTypes,
) -> Option<(Option<usize>, &'s RecordSchema)> {
    match schema {
        Schema::Record(r) => Some((None, r)),
        Schema::Ref { name } => find_record(named.resolve(name)?, named),
        Schema::Union(u) => u.variants().iter().enumerate().find_map(|(i, v)| {
            find_record(v, named).and_then(|(inner, r)| inner.is_none().then_some((Some(i), r)))
        }),
        _ => None,
    }
}

fn invalid(message: impl Into<String>) -> SpecError {
    SpecError::invalid("manifest entry schema", message)
}

impl<'s> EntryPlan<'s> {
    fn of(compiled: &'s CompiledSchema) -> Result<EntryPlan<'s>> {
        let named = &compiled.named;
        let (union_branch, top) = find_record(&compiled.schema, named)
            .ok_or_else(|| invalid("the writer schema is not a record"))?;
        let mut file_schema = None;
        let top_fields = top
            .fields
            .iter()
            .map(|f| {
                let role = match f.name.as_str() {
                    "_VERSION" => Role::Version,
                    "_KIND" => Role::Kind,
                    "_PARTITION" => Role::Partition,
                    "_BUCKET" => Role::Bucket,
                    "_TOTAL_BUCKETS" => Role::TotalBuckets,
                    "_FILE" => {
                        file_schema = Some(&f.schema);
                        Role::File
                    }
                    _ => Role::Skip,
                };
                (role, f.name.as_str(), &f.schema)
            })
            .collect::<Vec<_>>();
        for (role, name) in [
            (Role::Kind, "_KIND"),
            (Role::Partition, "_PARTITION"),
            (Role::Bucket, "_BUCKET"),
            (Role::File, "_FILE"),
        ] {
            if !top_fields.iter().any(|(r, _, _)| *r == role) {
                return Err(invalid(format!("no {name} field")));
            }
        }
        let file_schema = file_schema.ok_or_else(|| invalid("no _FILE field"))?;
        let (file_branch, file) =
            find_record(file_schema, named).ok_or_else(|| invalid("_FILE is not a record"))?;
        let file_fields = file
            .fields
            .iter()
            .map(|f| {
                let role = match f.name.as_str() {
                    "_FILE_NAME" => Role::FileName,
                    "_LEVEL" => Role::Level,
                    "_EXTRA_FILES" => Role::ExtraFiles,
                    "_EMBEDDED_FILE_INDEX" => Role::EmbeddedIndex,
                    "_EXTERNAL_PATH" => Role::ExternalPath,
                    _ => Role::Skip,
                };
                (role, f.name.as_str(), &f.schema)
            })
            .collect::<Vec<_>>();
        for (role, name) in [(Role::FileName, "_FILE_NAME"), (Role::Level, "_LEVEL")] {
            if !file_fields.iter().any(|(r, _, _)| *r == role) {
                return Err(invalid(format!("no _FILE.{name} field")));
            }
        }
        Ok(EntryPlan {
            top: RecordPlan {
                union_branch,
                fields: top_fields,
            },
            file: RecordPlan {
                union_branch: file_branch,
                fields: file_fields,
            },
        })
    }

    /// Reads one entry at the cursor: head fields read, everything else skipped.
    fn walk(&self, c: &mut Cursor<'_>, named: &NamedTypes) -> Result<HeadPos, DecodeError> {
        enter_record(c, self.top.union_branch, "record")?;
        let mut version = None;
        let mut kind = None;
        let mut partition = None;
        let mut bucket = None;
        let mut total_buckets = None;
        let mut file = None;
        for &(role, name, schema) in &self.top.fields {
            let at = |e: DecodeError, name: &str| e.at(name.to_string());
            match role {
                Role::Version => {
                    version = read_long(c, schema, named).map_err(|e| at(e, "_VERSION"))?
                }
                Role::Kind => kind = read_long(c, schema, named).map_err(|e| at(e, "_KIND"))?,
                Role::Partition => {
                    partition = read_span(c, schema, named).map_err(|e| at(e, "_PARTITION"))?
                }
                Role::Bucket => {
                    bucket = read_long(c, schema, named).map_err(|e| at(e, "_BUCKET"))?
                }
                Role::TotalBuckets => {
                    total_buckets =
                        read_long(c, schema, named).map_err(|e| at(e, "_TOTAL_BUCKETS"))?
                }
                Role::File => {
                    file = Some(
                        self.walk_file(c, schema, named)
                            .map_err(|e| at(e, "_FILE"))?,
                    )
                }
                _ => skip_value(c, schema, named).map_err(|e| e.at(name))?,
            }
        }
        if let Some(v) = version {
            check_version(WHAT, to_i32(v, "_VERSION")?, MANIFEST_ENTRY_VERSION)
                .map_err(|e| DecodeError::new(e.to_string()))?;
        }
        let kind = kind.ok_or_else(|| required("_KIND"))?;
        let kind = FileKind::from_byte(to_i32(kind, "_KIND")?)
            .map_err(|_| DecodeError::new(format!("_KIND: unknown file kind {kind}")))?;
        let (file_name, level, extras) = file.ok_or_else(|| required("_FILE"))?;
        Ok(HeadPos {
            kind,
            partition: partition.ok_or_else(|| required("_PARTITION"))?,
            bucket: to_i32(bucket.ok_or_else(|| required("_BUCKET"))?, "_BUCKET")?,
            total_buckets: match total_buckets {
                Some(t) => to_i32(t, "_TOTAL_BUCKETS")?,
                None => -1,
            },
            level,
            file_name,
            extras,
        })
    }

    #[allow(clippy::type_complexity)]
    fn walk_file(
        &self,
        c: &mut Cursor<'_>,
        schema: &Schema,
        named: &NamedTypes,
    ) -> Result<(Range<usize>, i32, Option<Arc<IdentityExtras>>), DecodeError> {
        if let Schema::Union(_) = schema {
            let branch = c.read_long()?;
            if branch < 0 || Some(branch as usize) != self.file.union_branch {
                return Err(DecodeError::new("required field is null"));
            }
        }
        let mut file_name = None;
        let mut level = None;
        let mut extras = IdentityExtras::default();
        for &(role, name, fs) in &self.file.fields {
            let at = |e: DecodeError, name: &str| e.at(name.to_string());
            match role {
                Role::FileName => {
                    let span = read_span(c, fs, named).map_err(|e| at(e, "_FILE_NAME"))?;
                    if let Some(r) = &span {
                        std::str::from_utf8(c.slice(r.clone())).map_err(|e| {
                            DecodeError::new(format!("_FILE_NAME is not UTF-8: {e}"))
                        })?;
                    }
                    file_name = span;
                }
                Role::Level => level = read_long(c, fs, named).map_err(|e| at(e, "_LEVEL"))?,
                Role::ExtraFiles | Role::EmbeddedIndex | Role::ExternalPath => {
                    let start = c.position();
                    skip_value(c, fs, named).map_err(|e| e.at(name))?;
                    // Mostly a null or an empty list (one byte, nothing to record): decode
                    // only the rest. A one-byte plain string/bytes is "" and must be kept.
                    let len = c.position() - start;
                    if len > 1 || matches!(fs, Schema::String | Schema::Bytes) {
                        let mut sub = Cursor::new(c.slice(start..c.position()));
                        let v = decode_value(&mut sub, fs, named).map_err(|e| e.at(name))?;
                        set_extra(&mut extras, role, &v).map_err(|e| e.at(name))?;
                    }
                }
                _ => skip_value(c, fs, named).map_err(|e| e.at(name))?,
            }
        }
        let level = to_i32(level.ok_or_else(|| required("_LEVEL"))?, "_LEVEL")?;
        let extras = (!extras.is_empty()).then(|| Arc::new(extras));
        Ok((
            file_name.ok_or_else(|| required("_FILE_NAME"))?,
            level,
            extras,
        ))
    }
}

fn set_extra(
    extras: &mut IdentityExtras,
    role: Role,
    v: &apache_avro::types::Value,
) -> Result<(), DecodeError> {
    use apache_avro::types::Value;
    let v = super::wire::unwrap_union(v);
    match (role, v) {
        (_, Value::Null) => {}
        (Role::ExtraFiles, Value::Array(items)) => {
            for item in items {
                match super::wire::unwrap_union(item) {
                    Value::String(s) => extras.extra_files.push(s.clone()),
                    _ => return Err(DecodeError::new("_EXTRA_FILES item is not a string")),
                }
            }
        }
        (Role::EmbeddedIndex, Value::Bytes(b)) => extras.embedded_index = Some(b.clone()),
        (Role::ExternalPath, Value::String(s)) => extras.external_path = Some(s.clone()),
        _ => return Err(DecodeError::new("identity field has an unexpected type")),
    }
    Ok(())
}

fn required(name: &str) -> DecodeError {
    DecodeError::new(format!("{name}: required field is missing or null"))
}

fn to_i32(v: i64, name: &str) -> Result<i32, DecodeError> {
    i32::try_from(v).map_err(|_| DecodeError::new(format!("{name}: {v} does not fit an int")))
}

/// Enters a record that may be wrapped in a `["null", record]` union.
fn enter_record(c: &mut Cursor<'_>, branch: Option<usize>, what: &str) -> Result<(), DecodeError> {
    if let Some(expected) = branch {
        let b = c.read_long()?;
        if b != expected as i64 {
            return Err(DecodeError::new(format!("the {what} is null")));
        }
    }
    Ok(())
}

/// An int/long field (possibly nullable): `None` for null.
fn read_long(
    c: &mut Cursor<'_>,
    schema: &Schema,
    named: &NamedTypes,
) -> Result<Option<i64>, DecodeError> {
    match schema {
        Schema::Null => Ok(None),
        Schema::Int
        | Schema::Long
        | Schema::Date
        | Schema::TimeMillis
        | Schema::TimeMicros
        | Schema::TimestampMillis
        | Schema::TimestampMicros
        | Schema::LocalTimestampMillis
        | Schema::LocalTimestampMicros => Ok(Some(c.read_long()?)),
        Schema::Union(u) => {
            let variant = union_variant(c, u.variants())?;
            read_long(c, variant, named)
        }
        Schema::Ref { name } => match named.resolve(name) {
            Some(s) => read_long(c, s, named),
            None => Err(DecodeError::new("reference to an unknown type")),
        },
        _ => Err(DecodeError::new("expected an int or long")),
    }
}

/// A bytes/string field (possibly nullable): the byte range of its payload, `None` for null.
fn read_span(
    c: &mut Cursor<'_>,
    schema: &Schema,
    named: &NamedTypes,
) -> Result<Option<Range<usize>>, DecodeError> {
    match schema {
        Schema::Null => Ok(None),
        Schema::Bytes | Schema::String => {
            let n = c.read_len()?;
            let start = c.position();
            c.read_slice(n)?;
            Ok(Some(start..start + n))
        }
        Schema::Union(u) => {
            let variant = union_variant(c, u.variants())?;
            read_span(c, variant, named)
        }
        Schema::Ref { name } => match named.resolve(name) {
            Some(s) => read_span(c, s, named),
            None => Err(DecodeError::new("reference to an unknown type")),
        },
        _ => Err(DecodeError::new("expected bytes or a string")),
    }
}

fn union_variant<'s>(
    c: &mut Cursor<'_>,
    variants: &'s [Schema],
) -> Result<&'s Schema, DecodeError> {
    let idx = c.read_long()?;
    usize::try_from(idx)
        .ok()
        .and_then(|i| variants.get(i))
        .ok_or_else(|| {
            DecodeError::new(format!(
                "union branch {idx} outside the {} branches",
                variants.len()
            ))
        })
}
