//! The walker behind lazy decoding: a manifest-entry writer schema compiled once into a small
//! program ([`EntryProgram`]) that reads an entry's routing and identity fields and skips the
//! rest.
//!
//! Compiling matters: walking the apache-avro `Schema` directly resolves named references
//! (Java's schema refers to the `_KEY_STATS` record type again for `_VALUE_STATS`) by building
//! their full names and hashing them, for every entry. The program has references resolved,
//! unions flattened to their branches and minimum item sizes precomputed, so skipping is a
//! tight loop over varints and lengths.

use std::ops::Range;
use std::sync::Arc;

use apache_avro::schema::{RecordSchema, Schema};

use super::avro_value::{min_encoded_size, Cursor, DecodeError, NamedTypes};
use super::model::FileKind;
use super::version::{check_version, MANIFEST_ENTRY_VERSION};

/// Deepest nesting compiled (Paimon's manifest schemas nest 4 levels).
const MAX_DEPTH: usize = 32;

/// One compiled Avro type.
#[derive(Debug)]
enum Op {
    Null,
    Bool,
    /// int, long and the logical types over them, enum indexes.
    Varint,
    Fixed(usize),
    /// bytes and string: a length, then that many bytes.
    Bytes,
    Union(Vec<Op>),
    Array {
        item: Box<Op>,
        min_size: usize,
    },
    Map {
        value: Box<Op>,
        min_size: usize,
    },
    Record(Vec<Op>),
}

fn compile(schema: &Schema, named: &NamedTypes, depth: usize) -> Result<Op, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nesting deeper than {MAX_DEPTH} levels"));
    }
    let go = |s: &Schema| compile(s, named, depth + 1);
    Ok(match schema {
        Schema::Null => Op::Null,
        Schema::Boolean => Op::Bool,
        Schema::Int
        | Schema::Long
        | Schema::Date
        | Schema::TimeMillis
        | Schema::TimeMicros
        | Schema::TimestampMillis
        | Schema::TimestampMicros
        | Schema::TimestampNanos
        | Schema::LocalTimestampMillis
        | Schema::LocalTimestampMicros
        | Schema::LocalTimestampNanos
        | Schema::Enum(_) => Op::Varint,
        Schema::Float => Op::Fixed(4),
        Schema::Double => Op::Fixed(8),
        Schema::Duration => Op::Fixed(12),
        Schema::Fixed(f) => Op::Fixed(f.size),
        Schema::Bytes | Schema::BigDecimal | Schema::String | Schema::Uuid => Op::Bytes,
        Schema::Decimal(d) => go(&d.inner)?,
        Schema::Union(u) => Op::Union(u.variants().iter().map(go).collect::<Result<_, _>>()?),
        Schema::Array(a) => Op::Array {
            item: Box::new(go(&a.items)?),
            min_size: min_encoded_size(&a.items),
        },
        Schema::Map(m) => Op::Map {
            value: Box::new(go(&m.types)?),
            min_size: 1 + min_encoded_size(&m.types),
        },
        Schema::Record(r) => Op::Record(
            r.fields
                .iter()
                .map(|f| go(&f.schema))
                .collect::<Result<_, _>>()?,
        ),
        Schema::Ref { name } => {
            let target = named
                .resolve(name)
                .ok_or_else(|| format!("reference to unknown type {}", name.fullname(None)))?;
            go(target)?
        }
    })
}

fn branch<'o>(c: &mut Cursor<'_>, variants: &'o [Op]) -> Result<&'o Op, DecodeError> {
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

impl Op {
    #[inline]
    fn skip(&self, c: &mut Cursor<'_>) -> Result<(), DecodeError> {
        match self {
            Op::Null => {}
            Op::Bool | Op::Fixed(_) => {
                let n = if let Op::Fixed(n) = self { *n } else { 1 };
                c.read_slice(n)?;
            }
            Op::Varint => c.skip_varint()?,
            Op::Bytes => {
                let n = c.read_len()?;
                c.read_slice(n)?;
            }
            Op::Union(variants) => branch(c, variants)?.skip(c)?,
            Op::Array { item, min_size } => loop {
                let count = c.read_block_count(*min_size)?;
                if count == 0 {
                    break;
                }
                for _ in 0..count {
                    item.skip(c)?;
                }
            },
            Op::Map { value, min_size } => loop {
                let count = c.read_block_count(*min_size)?;
                if count == 0 {
                    break;
                }
                for _ in 0..count {
                    let n = c.read_len()?;
                    c.read_slice(n)?;
                    value.skip(c)?;
                }
            },
            Op::Record(fields) => {
                for f in fields {
                    f.skip(c)?;
                }
            }
        }
        Ok(())
    }

    /// An int/long (possibly nullable): `None` for null.
    fn read_long(&self, c: &mut Cursor<'_>) -> Result<Option<i64>, DecodeError> {
        match self {
            Op::Null => Ok(None),
            Op::Varint => Ok(Some(c.read_long()?)),
            Op::Union(variants) => branch(c, variants)?.read_long(c),
            _ => Err(DecodeError::new("expected an int or long")),
        }
    }

    /// A bytes/string (possibly nullable): the byte range of its payload, `None` for null.
    fn read_span(&self, c: &mut Cursor<'_>) -> Result<Option<Range<usize>>, DecodeError> {
        match self {
            Op::Null => Ok(None),
            Op::Bytes => {
                let n = c.read_len()?;
                let start = c.position();
                c.read_slice(n)?;
                Ok(Some(start..start + n))
            }
            Op::Union(variants) => branch(c, variants)?.read_span(c),
            _ => Err(DecodeError::new("expected bytes or a string")),
        }
    }

    /// An array of strings (possibly nullable): their byte ranges, `None` for null.
    fn read_span_list(&self, c: &mut Cursor<'_>) -> Result<Option<Vec<Range<usize>>>, DecodeError> {
        match self {
            Op::Null => Ok(None),
            Op::Union(variants) => branch(c, variants)?.read_span_list(c),
            Op::Array { item, min_size } => {
                let mut out = Vec::new();
                loop {
                    let count = c.read_block_count(*min_size)?;
                    if count == 0 {
                        break;
                    }
                    for _ in 0..count {
                        match item.read_span(c)? {
                            Some(r) => out.push(r),
                            None => return Err(DecodeError::new("null item in a string list")),
                        }
                    }
                }
                Ok(Some(out))
            }
            _ => Err(DecodeError::new("expected an array of strings")),
        }
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

#[derive(Debug)]
struct Field {
    role: Role,
    name: String,
    op: Op,
}

/// A compiled record, possibly wrapped in a `["null", record]` union.
#[derive(Debug)]
struct RecordProgram {
    union_branch: Option<usize>,
    fields: Vec<Field>,
}

impl RecordProgram {
    fn enter(&self, c: &mut Cursor<'_>) -> Result<(), DecodeError> {
        if let Some(expected) = self.union_branch {
            if c.read_long()? != expected as i64 {
                return Err(DecodeError::new("required record is null"));
            }
        }
        Ok(())
    }
}

/// The identity fields of Java's `FileEntry.Identifier` that are almost always empty.
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

/// Positions of one entry's head fields inside its buffer.
#[derive(Clone, Debug)]
pub(crate) struct HeadPos {
    pub kind: FileKind,
    pub partition: Range<usize>,
    pub bucket: i32,
    pub total_buckets: i32,
    pub level: i32,
    pub file_name: Range<usize>,
    pub extras: Option<Arc<IdentityExtras>>,
}

/// A manifest-entry writer schema compiled for walking.
#[derive(Debug)]
pub(crate) struct EntryProgram {
    top: RecordProgram,
    file: RecordProgram,
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

fn record_program(
    record: &RecordSchema,
    union_branch: Option<usize>,
    named: &NamedTypes,
    role_of: impl Fn(&str) -> Role,
    required: &[(Role, &str)],
) -> Result<RecordProgram, String> {
    let fields = record
        .fields
        .iter()
        .map(|f| {
            Ok(Field {
                role: role_of(&f.name),
                name: f.name.clone(),
                op: compile(&f.schema, named, 1)?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    for (role, name) in required {
        if !fields.iter().any(|f| f.role == *role) {
            return Err(format!("no {name} field"));
        }
    }
    Ok(RecordProgram {
        union_branch,
        fields,
    })
}

impl EntryProgram {
    /// Compiles a manifest-entry writer schema; an error says what the schema lacks.
    pub(crate) fn compile(schema: &Schema, named: &NamedTypes) -> Result<EntryProgram, String> {
        let (top_branch, top) =
            find_record(schema, named).ok_or("the writer schema is not a record")?;
        let file_schema = top
            .fields
            .iter()
            .find(|f| f.name == "_FILE")
            .ok_or("no _FILE field")?;
        let (file_branch, file) =
            find_record(&file_schema.schema, named).ok_or("_FILE is not a record")?;
        let top = record_program(
            top,
            top_branch,
            named,
            |name| match name {
                "_VERSION" => Role::Version,
                "_KIND" => Role::Kind,
                "_PARTITION" => Role::Partition,
                "_BUCKET" => Role::Bucket,
                "_TOTAL_BUCKETS" => Role::TotalBuckets,
                "_FILE" => Role::File,
                _ => Role::Skip,
            },
            &[
                (Role::Kind, "_KIND"),
                (Role::Partition, "_PARTITION"),
                (Role::Bucket, "_BUCKET"),
            ],
        )?;
        let file = record_program(
            file,
            file_branch,
            named,
            |name| match name {
                "_FILE_NAME" => Role::FileName,
                "_LEVEL" => Role::Level,
                "_EXTRA_FILES" => Role::ExtraFiles,
                "_EMBEDDED_FILE_INDEX" => Role::EmbeddedIndex,
                "_EXTERNAL_PATH" => Role::ExternalPath,
                _ => Role::Skip,
            },
            &[(Role::FileName, "_FILE_NAME"), (Role::Level, "_LEVEL")],
        )?;
        Ok(EntryProgram { top, file })
    }

    /// Reads one entry at the cursor: head fields read, everything else skipped.
    pub(crate) fn walk(&self, c: &mut Cursor<'_>) -> Result<HeadPos, DecodeError> {
        self.top.enter(c)?;
        let mut version = None;
        let mut kind = None;
        let mut partition = None;
        let mut bucket = None;
        let mut total_buckets = None;
        let mut file = None;
        for f in &self.top.fields {
            let at = |e: DecodeError| e.at(f.name.clone());
            match f.role {
                Role::Version => version = f.op.read_long(c).map_err(at)?,
                Role::Kind => kind = f.op.read_long(c).map_err(at)?,
                Role::Partition => partition = f.op.read_span(c).map_err(at)?,
                Role::Bucket => bucket = f.op.read_long(c).map_err(at)?,
                Role::TotalBuckets => total_buckets = f.op.read_long(c).map_err(at)?,
                Role::File => file = Some(self.walk_file(c).map_err(at)?),
                _ => f.op.skip(c).map_err(at)?,
            }
        }
        if let Some(v) = version {
            check_version(
                "manifest entry",
                to_i32(v, "_VERSION")?,
                MANIFEST_ENTRY_VERSION,
            )
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
    ) -> Result<(Range<usize>, i32, Option<Arc<IdentityExtras>>), DecodeError> {
        self.file.enter(c)?;
        let mut file_name = None;
        let mut level = None;
        let mut extras: Option<IdentityExtras> = None;
        let text = |c: &Cursor<'_>, r: Range<usize>, what: &str| {
            std::str::from_utf8(c.slice(r))
                .map(str::to_owned)
                .map_err(|e| DecodeError::new(format!("{what} is not UTF-8: {e}")))
        };
        for f in &self.file.fields {
            let at = |e: DecodeError| e.at(f.name.clone());
            match f.role {
                Role::FileName => file_name = f.op.read_span(c).map_err(at)?,
                Role::Level => level = f.op.read_long(c).map_err(at)?,
                Role::ExtraFiles => {
                    if let Some(list) = f.op.read_span_list(c).map_err(at)? {
                        for r in list {
                            let name = text(c, r, "an extra file name").map_err(at)?;
                            extras
                                .get_or_insert_with(Default::default)
                                .extra_files
                                .push(name);
                        }
                    }
                }
                Role::EmbeddedIndex => {
                    if let Some(r) = f.op.read_span(c).map_err(at)? {
                        extras.get_or_insert_with(Default::default).embedded_index =
                            Some(c.slice(r).to_vec());
                    }
                }
                Role::ExternalPath => {
                    if let Some(r) = f.op.read_span(c).map_err(at)? {
                        extras.get_or_insert_with(Default::default).external_path =
                            Some(text(c, r, "the external path").map_err(at)?);
                    }
                }
                _ => f.op.skip(c).map_err(at)?,
            }
        }
        let level = to_i32(level.ok_or_else(|| required("_LEVEL"))?, "_LEVEL")?;
        let extras = extras.filter(|e| !e.is_empty()).map(Arc::new);
        Ok((
            file_name.ok_or_else(|| required("_FILE_NAME"))?,
            level,
            extras,
        ))
    }
}

fn required(name: &str) -> DecodeError {
    DecodeError::new(format!("{name}: required field is missing or null"))
}

fn to_i32(v: i64, name: &str) -> Result<i32, DecodeError> {
    i32::try_from(v).map_err(|_| DecodeError::new(format!("{name}: {v} does not fit an int")))
}
