//! Schema-driven decoding of one Avro datum into an apache-avro [`Value`], bounded by the
//! input slice.
//!
//! Why not `apache_avro::Reader`: on corrupt input it reserves `count` array slots before
//! reading them (a flipped length aborts the process on allocation failure) and it turns a
//! truncated string or union into `Null` instead of failing. This decoder checks every length
//! and count against the bytes that remain, limits nesting depth, and reports the path of the
//! field it was decoding. Schemas still come from apache-avro's parser.

use std::collections::HashMap;

use apache_avro::schema::{Name, Schema};
use apache_avro::types::Value;

/// Deepest nesting of records/arrays/maps/unions accepted (Paimon's schemas use 5).
const MAX_DEPTH: usize = 64;

/// Slack for arrays/maps whose items may encode to zero bytes (e.g. `null` items).
const ZERO_SIZE_ITEM_SLACK: usize = 4096;

/// A decoding failure: `path` lists the enclosing fields, innermost first.
#[derive(Debug)]
pub(crate) struct DecodeError {
    path: Vec<String>,
    pub message: String,
}

impl DecodeError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        DecodeError {
            path: Vec::new(),
            message: message.into(),
        }
    }

    pub(crate) fn at(mut self, segment: impl Into<String>) -> Self {
        self.path.push(segment.into());
        self
    }

    /// Dotted field path, outermost first (`_FILE._KEY_STATS._MIN_VALUES`).
    pub(crate) fn path(&self) -> String {
        let mut out = String::new();
        for seg in self.path.iter().rev() {
            if !out.is_empty() && !seg.starts_with('[') {
                out.push('.');
            }
            out.push_str(seg);
        }
        out
    }
}

/// Named types of a schema, for resolving `Schema::Ref` (owned, so a compiled schema can keep
/// it next to the schema).
#[derive(Debug)]
pub(crate) struct NamedTypes {
    by_name: HashMap<String, Schema>,
}

impl NamedTypes {
    pub(crate) fn of(schema: &Schema) -> Self {
        let mut named = NamedTypes {
            by_name: HashMap::new(),
        };
        named.collect(schema, 0);
        named
    }

    fn insert(&mut self, name: &Name, schema: &Schema) {
        self.by_name.insert(name.fullname(None), schema.clone());
        self.by_name
            .entry(name.name.clone())
            .or_insert_with(|| schema.clone());
    }

    fn collect(&mut self, schema: &Schema, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match schema {
            Schema::Record(r) => {
                self.insert(&r.name, schema);
                for f in &r.fields {
                    self.collect(&f.schema, depth + 1);
                }
            }
            Schema::Enum(e) => self.insert(&e.name, schema),
            Schema::Fixed(f) => self.insert(&f.name, schema),
            Schema::Array(a) => self.collect(&a.items, depth + 1),
            Schema::Map(m) => self.collect(&m.types, depth + 1),
            Schema::Union(u) => {
                for v in u.variants() {
                    self.collect(v, depth + 1);
                }
            }
            _ => {}
        }
    }

    pub(crate) fn resolve(&self, name: &Name) -> Option<&Schema> {
        self.by_name
            .get(&name.fullname(None))
            .or_else(|| self.by_name.get(&name.name))
    }
}

/// Lowest number of bytes a datum of `schema` can take (refs count as 0).
pub(crate) fn min_encoded_size(schema: &Schema) -> usize {
    fn go(schema: &Schema, depth: usize) -> usize {
        if depth > MAX_DEPTH {
            return 0;
        }
        match schema {
            Schema::Null | Schema::Ref { .. } => 0,
            Schema::Float => 4,
            Schema::Double => 8,
            Schema::Duration => 12,
            Schema::Fixed(f) => f.size,
            Schema::Record(r) => r.fields.iter().map(|f| go(&f.schema, depth + 1)).sum(),
            Schema::Decimal(d) => go(&d.inner, depth + 1),
            _ => 1,
        }
    }
    go(schema, 0)
}

/// Most items of at least `item_min_size` bytes that fit in `remaining` bytes (with some slack
/// for items that may encode to nothing).
pub(crate) fn max_items(remaining: usize, item_min_size: usize) -> usize {
    remaining
        .checked_div(item_min_size)
        .unwrap_or(remaining.saturating_add(ZERO_SIZE_ITEM_SLACK))
}

/// A read position over one decompressed Avro block.
pub(crate) struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Cursor { buf, pos: 0 }
    }

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    /// Bytes `range` of the underlying buffer (positions as returned by [`Self::position`]).
    pub(crate) fn slice(&self, range: std::ops::Range<usize>) -> &'a [u8] {
        &self.buf[range]
    }

    pub(crate) fn read_slice(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(DecodeError::new(format!(
                "needs {n} bytes at offset {}, only {} left",
                self.pos,
                self.remaining()
            )));
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Zig-zag varint `long`.
    #[inline]
    pub(crate) fn read_long(&mut self) -> Result<i64, DecodeError> {
        // Most varints in manifests (kinds, buckets, levels, counts, lengths) are one byte.
        if let Some(&b) = self.buf.get(self.pos) {
            if b & 0x80 == 0 {
                self.pos += 1;
                return Ok(i64::from(b >> 1) ^ -i64::from(b & 1));
            }
        }
        self.read_long_slow()
    }

    /// Moves past one varint without computing its value.
    #[inline]
    pub(crate) fn skip_varint(&mut self) -> Result<(), DecodeError> {
        let rest = &self.buf[self.pos..];
        if let Some(i) = rest.iter().take(10).position(|&b| b & 0x80 == 0) {
            self.pos += i + 1;
            return Ok(());
        }
        self.read_long_slow().map(|_| ())
    }

    fn read_long_slow(&mut self) -> Result<i64, DecodeError> {
        let mut value: u64 = 0;
        for i in 0..10 {
            let Some(&byte) = self.buf.get(self.pos) else {
                return Err(DecodeError::new(format!(
                    "truncated varint at offset {}",
                    self.pos
                )));
            };
            self.pos += 1;
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                return Ok(((value >> 1) as i64) ^ -((value & 1) as i64));
            }
        }
        Err(DecodeError::new(format!(
            "varint longer than 10 bytes before offset {}",
            self.pos
        )))
    }

    pub(crate) fn read_int(&mut self) -> Result<i32, DecodeError> {
        let v = self.read_long()?;
        i32::try_from(v).map_err(|_| DecodeError::new(format!("int value {v} out of range")))
    }

    /// A non-negative length that fits in the remaining bytes.
    pub(crate) fn read_len(&mut self) -> Result<usize, DecodeError> {
        let len = self.read_long()?;
        if len < 0 || len as u64 > self.remaining() as u64 {
            return Err(DecodeError::new(format!(
                "length {len} at offset {} exceeds the {} remaining bytes",
                self.pos,
                self.remaining()
            )));
        }
        Ok(len as usize)
    }

    /// Block item count of an array/map: handles the negative form (count + byte size) and
    /// bounds the count by the bytes left.
    pub(crate) fn read_block_count(&mut self, item_min_size: usize) -> Result<usize, DecodeError> {
        let raw = self.read_long()?;
        let count = if raw < 0 {
            let _byte_size = self.read_long()?;
            raw.unsigned_abs()
        } else {
            raw as u64
        };
        let limit = max_items(self.remaining(), item_min_size);
        if count > limit as u64 {
            return Err(DecodeError::new(format!(
                "item count {count} cannot fit in the {} remaining bytes",
                self.remaining()
            )));
        }
        Ok(count as usize)
    }
}

/// Decodes one datum of `schema` at the cursor.
pub(crate) fn decode_value(
    cursor: &mut Cursor<'_>,
    schema: &Schema,
    named: &NamedTypes,
) -> Result<Value, DecodeError> {
    decode(cursor, schema, named, 0)
}

fn decode(
    c: &mut Cursor<'_>,
    schema: &Schema,
    named: &NamedTypes,
    depth: usize,
) -> Result<Value, DecodeError> {
    if depth > MAX_DEPTH {
        return Err(DecodeError::new(format!(
            "nesting deeper than {MAX_DEPTH} levels"
        )));
    }
    Ok(match schema {
        Schema::Null => Value::Null,
        Schema::Boolean => match c.read_slice(1)?[0] {
            0 => Value::Boolean(false),
            1 => Value::Boolean(true),
            b => return Err(DecodeError::new(format!("invalid boolean byte {b}"))),
        },
        Schema::Int => Value::Int(c.read_int()?),
        Schema::Date => Value::Date(c.read_int()?),
        Schema::TimeMillis => Value::TimeMillis(c.read_int()?),
        Schema::Long => Value::Long(c.read_long()?),
        Schema::TimeMicros => Value::TimeMicros(c.read_long()?),
        Schema::TimestampMillis => Value::TimestampMillis(c.read_long()?),
        Schema::TimestampMicros => Value::TimestampMicros(c.read_long()?),
        Schema::TimestampNanos => Value::TimestampNanos(c.read_long()?),
        Schema::LocalTimestampMillis => Value::LocalTimestampMillis(c.read_long()?),
        Schema::LocalTimestampMicros => Value::LocalTimestampMicros(c.read_long()?),
        Schema::LocalTimestampNanos => Value::LocalTimestampNanos(c.read_long()?),
        Schema::Float => {
            let b = c.read_slice(4)?;
            Value::Float(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        }
        Schema::Double => {
            let b = c.read_slice(8)?;
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            Value::Double(f64::from_le_bytes(a))
        }
        Schema::Bytes | Schema::BigDecimal => {
            let n = c.read_len()?;
            Value::Bytes(c.read_slice(n)?.to_vec())
        }
        Schema::String | Schema::Uuid => {
            let n = c.read_len()?;
            let bytes = c.read_slice(n)?;
            let s = std::str::from_utf8(bytes)
                .map_err(|e| DecodeError::new(format!("string is not UTF-8: {e}")))?;
            Value::String(s.to_owned())
        }
        Schema::Fixed(f) => Value::Fixed(f.size, c.read_slice(f.size)?.to_vec()),
        Schema::Duration => Value::Fixed(12, c.read_slice(12)?.to_vec()),
        Schema::Decimal(d) => decode(c, &d.inner, named, depth + 1)?,
        Schema::Enum(e) => {
            let idx = c.read_int()?;
            let symbol = usize::try_from(idx)
                .ok()
                .and_then(|i| e.symbols.get(i))
                .ok_or_else(|| {
                    DecodeError::new(format!(
                        "enum index {idx} outside the {} symbols",
                        e.symbols.len()
                    ))
                })?;
            Value::Enum(idx as u32, symbol.clone())
        }
        Schema::Union(u) => {
            let idx = c.read_long()?;
            let variants = u.variants();
            let variant = usize::try_from(idx)
                .ok()
                .and_then(|i| variants.get(i))
                .ok_or_else(|| {
                    DecodeError::new(format!(
                        "union branch {idx} outside the {} branches",
                        variants.len()
                    ))
                })?;
            Value::Union(idx as u32, Box::new(decode(c, variant, named, depth + 1)?))
        }
        Schema::Array(a) => {
            let min = min_encoded_size(&a.items);
            let mut items = Vec::new();
            loop {
                let count = c.read_block_count(min)?;
                if count == 0 {
                    break;
                }
                items.reserve(count);
                for _ in 0..count {
                    let i = items.len();
                    let v = decode(c, &a.items, named, depth + 1)
                        .map_err(|e| e.at(format!("[{i}]")))?;
                    items.push(v);
                }
            }
            Value::Array(items)
        }
        Schema::Map(m) => {
            let min = 1 + min_encoded_size(&m.types);
            let mut items = HashMap::new();
            loop {
                let count = c.read_block_count(min)?;
                if count == 0 {
                    break;
                }
                for _ in 0..count {
                    let n = c.read_len()?;
                    let key = std::str::from_utf8(c.read_slice(n)?)
                        .map_err(|e| DecodeError::new(format!("map key is not UTF-8: {e}")))?
                        .to_owned();
                    let v = decode(c, &m.types, named, depth + 1)
                        .map_err(|e| e.at(format!("[{key}]")))?;
                    items.insert(key, v);
                }
            }
            Value::Map(items)
        }
        Schema::Record(r) => {
            let mut fields = Vec::with_capacity(r.fields.len());
            for f in &r.fields {
                let v = decode(c, &f.schema, named, depth + 1).map_err(|e| e.at(&f.name))?;
                fields.push((f.name.clone(), v));
            }
            Value::Record(fields)
        }
        Schema::Ref { name } => {
            let target = named.resolve(name).ok_or_else(|| {
                DecodeError::new(format!("reference to unknown type {}", name.fullname(None)))
            })?;
            decode(c, target, named, depth + 1)?
        }
    })
}
