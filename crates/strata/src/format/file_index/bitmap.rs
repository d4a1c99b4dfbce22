//! The `bitmap` file index, Java Paimon's `BitmapFileIndex`: per distinct value the rows that
//! hold it as a 32-bit RoaringBitmap (RoaringBitmap's portable serialization, which the
//! `roaring` crate reads and writes), a value in one row only stored inline as `-1 - row`.
//!
//! Version 1 (`BitmapFileIndexMeta`): `version u8 | rowCount i32 | bitmapCount i32 |
//! hasNull bool [| nullOffset i32] | (value, offset i32)* | bitmaps…`.
//! Version 2 (`BitmapFileIndexMetaV2`, Java's default): the same head with the null bitmap's
//! length after its offset, then index blocks (values sorted by Java's comparator, blocks
//! bounded by `index-block-size`, default 16 KiB): `blockCount i32 | (firstValue, blockOffset
//! i32)* | blocksLength i32 | per block: entryCount i32 | (value, offset i32, length i32)* |
//! bitmaps…`. Values: strings as `i32 length + UTF-8`, numbers big-endian, booleans one byte,
//! dates and times as int, timestamps as long (millis up to precision 3, micros above).

use std::cmp::Ordering;
use std::collections::HashMap;

use roaring::RoaringBitmap;
use strata_spec::{Datum, SpecError, TypeKind};

use super::bloom_filter::{java_double_bits, java_float_bits, timestamp_long};
use super::container::JavaReader;
use super::result::IndexResult;
use crate::expr::LeafOp;

/// The index type name in the container and the options.
pub(crate) const IDENTIFIER: &str = "bitmap";
/// The family of its options (`.columns`, `.<column>.version`, `.<column>.index-block-size`).
pub(crate) const OPTIONS: &str = "file-index.bitmap.";
const VERSION_1: u8 = 1;
const VERSION_2: u8 = 2;
/// `index-block-size` default (16 KiB).
pub(crate) const DEFAULT_BLOCK_SIZE: usize = 16 * 1024;

fn invalid(message: impl Into<String>) -> SpecError {
    SpecError::invalid("bitmap file index", message)
}

/// A value as Java's bitmap index keys it (`BitmapTypeVisitor`); floats by their Java bits.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum BitmapKey {
    Bool(bool),
    Byte(i8),
    Short(i16),
    Int(i32),
    Long(i64),
    Float(i32),
    Double(i64),
    Str(Vec<u8>),
}

/// Whether Java's bitmap index keys values of `kind`.
pub(crate) fn supports(kind: &TypeKind) -> bool {
    matches!(
        kind,
        TypeKind::Char(_)
            | TypeKind::VarChar(_)
            | TypeKind::Boolean
            | TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Float
            | TypeKind::Double
            | TypeKind::Date
            | TypeKind::Time(_)
            | TypeKind::Timestamp(_)
            | TypeKind::LocalZonedTimestamp(_)
    )
}

/// The key of `value` in a column of `kind`; `None` when the kind is not indexable or the
/// value is not of that kind.
pub(crate) fn key_of(kind: &TypeKind, value: &Datum) -> Option<BitmapKey> {
    Some(match (kind, value) {
        (TypeKind::Char(_) | TypeKind::VarChar(_), Datum::String(s)) => {
            BitmapKey::Str(s.as_bytes().to_vec())
        }
        (TypeKind::Boolean, Datum::Boolean(b)) => BitmapKey::Bool(*b),
        (TypeKind::TinyInt, Datum::TinyInt(v)) => BitmapKey::Byte(*v),
        (TypeKind::SmallInt, Datum::SmallInt(v)) => BitmapKey::Short(*v),
        (TypeKind::Int, Datum::Int(v))
        | (TypeKind::Date, Datum::Date(v))
        | (TypeKind::Time(_), Datum::Time(v)) => BitmapKey::Int(*v),
        (TypeKind::BigInt, Datum::BigInt(v)) => BitmapKey::Long(*v),
        (TypeKind::Float, Datum::Float(v)) => BitmapKey::Float(java_float_bits(*v)),
        (TypeKind::Double, Datum::Double(v)) => BitmapKey::Double(java_double_bits(*v)),
        (TypeKind::Timestamp(p), Datum::Timestamp { millis, nanos })
        | (TypeKind::LocalZonedTimestamp(p), Datum::TimestampLtz { millis, nanos }) => {
            BitmapKey::Long(timestamp_long(*p, *millis, *nanos))
        }
        _ => return None,
    })
}

/// The key's kind as Java's visitor maps the column type.
#[derive(Clone, Copy, Debug, PartialEq)]
enum KeyKind {
    Bool,
    Byte,
    Short,
    Int,
    Long,
    Float,
    Double,
    Str,
}

fn key_kind(kind: &TypeKind) -> Option<KeyKind> {
    Some(match kind {
        TypeKind::Char(_) | TypeKind::VarChar(_) => KeyKind::Str,
        TypeKind::Boolean => KeyKind::Bool,
        TypeKind::TinyInt => KeyKind::Byte,
        TypeKind::SmallInt => KeyKind::Short,
        TypeKind::Int | TypeKind::Date | TypeKind::Time(_) => KeyKind::Int,
        TypeKind::BigInt | TypeKind::Timestamp(_) | TypeKind::LocalZonedTimestamp(_) => {
            KeyKind::Long
        }
        TypeKind::Float => KeyKind::Float,
        TypeKind::Double => KeyKind::Double,
        _ => return None,
    })
}

fn read_key(r: &mut JavaReader<'_>, kind: KeyKind) -> Result<BitmapKey, SpecError> {
    Ok(match kind {
        KeyKind::Bool => BitmapKey::Bool(r.u8()? != 0),
        KeyKind::Byte => BitmapKey::Byte(r.u8()? as i8),
        KeyKind::Short => BitmapKey::Short(r.i16()?),
        KeyKind::Int => BitmapKey::Int(r.i32()?),
        KeyKind::Long => BitmapKey::Long(r.i64()?),
        // `readFloat` then `Float` equality: the canonical bits.
        KeyKind::Float => BitmapKey::Float(java_float_bits(f32::from_bits(r.i32()? as u32))),
        KeyKind::Double => BitmapKey::Double(java_double_bits(f64::from_bits(r.i64()? as u64))),
        KeyKind::Str => BitmapKey::Str(r.sized_bytes()?.to_vec()),
    })
}

fn write_key(out: &mut Vec<u8>, key: &BitmapKey) {
    match key {
        BitmapKey::Bool(b) => out.push(*b as u8),
        BitmapKey::Byte(v) => out.push(*v as u8),
        BitmapKey::Short(v) => out.extend_from_slice(&v.to_be_bytes()),
        BitmapKey::Int(v) | BitmapKey::Float(v) => out.extend_from_slice(&v.to_be_bytes()),
        BitmapKey::Long(v) | BitmapKey::Double(v) => out.extend_from_slice(&v.to_be_bytes()),
        BitmapKey::Str(b) => {
            out.extend_from_slice(&(b.len() as i32).to_be_bytes());
            out.extend_from_slice(b);
        }
    }
}

fn key_size(key: &BitmapKey) -> usize {
    match key {
        BitmapKey::Bool(_) | BitmapKey::Byte(_) => 1,
        BitmapKey::Short(_) => 2,
        BitmapKey::Int(_) | BitmapKey::Float(_) => 4,
        BitmapKey::Long(_) | BitmapKey::Double(_) => 8,
        BitmapKey::Str(b) => 4 + b.len(),
    }
}

/// Java's `BitmapFileIndexMetaV2.getComparator`: `BinaryString` byte order, `Float.compare`,
/// `Double.compare`, numbers and booleans naturally.
fn java_compare(a: &BitmapKey, b: &BitmapKey) -> Ordering {
    use BitmapKey::*;
    match (a, b) {
        (Bool(x), Bool(y)) => x.cmp(y),
        (Byte(x), Byte(y)) => x.cmp(y),
        (Short(x), Short(y)) => x.cmp(y),
        (Int(x), Int(y)) => x.cmp(y),
        (Long(x), Long(y)) => x.cmp(y),
        (Float(x), Float(y)) => java_float_order(*x).cmp(&java_float_order(*y)),
        (Double(x), Double(y)) => java_double_order(*x).cmp(&java_double_order(*y)),
        (Str(x), Str(y)) => x.cmp(y),
        _ => Ordering::Equal,
    }
}

/// `Float.compare` as an integer order on the canonical bits.
fn java_float_order(bits: i32) -> i32 {
    if bits < 0 {
        bits ^ i32::MAX
    } else {
        bits
    }
}

fn java_double_order(bits: i64) -> i64 {
    if bits < 0 {
        bits ^ i64::MAX
    } else {
        bits
    }
}

/// Java's `hashCode` of a key's boxed value (`BinaryString`: Murmur3 over its bytes).
fn java_hash_code(key: &BitmapKey) -> i32 {
    match key {
        BitmapKey::Bool(b) => {
            if *b {
                1231
            } else {
                1237
            }
        }
        BitmapKey::Byte(v) => *v as i32,
        BitmapKey::Short(v) => *v as i32,
        BitmapKey::Int(v) | BitmapKey::Float(v) => *v,
        BitmapKey::Long(v) | BitmapKey::Double(v) => (*v ^ ((*v as u64) >> 32) as i64) as i32,
        BitmapKey::Str(b) => strata_spec::bucket::hash_bytes_by_words(b),
    }
}

/// The iteration order of the `java.util.HashMap` `BitmapFileIndex.Writer` fills with
/// `computeIfAbsent` in the order of `keys`: by bucket (`(h ^ h >>> 16) & (capacity - 1)`, the
/// capacity doubling from 16 while the size exceeds 3/4 of it), and within a bucket newest
/// first (`computeIfAbsent` links a new node at the head of its bin; resizes keep the order).
/// Bins Java turns into trees (8 colliding values in a map of 64+ buckets) may iterate
/// differently; readers find the bitmaps by offset either way.
fn java_hash_map_order(keys: &[BitmapKey]) -> Vec<&BitmapKey> {
    let mut capacity = 16usize;
    while keys.len() > capacity * 3 / 4 {
        capacity *= 2;
    }
    let mut keyed: Vec<(usize, usize, &BitmapKey)> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let h = java_hash_code(k);
            let spread = (h ^ ((h as u32) >> 16) as i32) as u32 as usize;
            (spread & (capacity - 1), i, k)
        })
        .collect();
    keyed.sort_by_key(|(bucket, i, _)| (*bucket, std::cmp::Reverse(*i)));
    keyed.into_iter().map(|(_, _, k)| k).collect()
}

/// Where a value's rows are: one row inline, or a serialized bitmap at an offset of the body.
#[derive(Clone, Copy, Debug)]
enum Location {
    Row(u32),
    Body(usize),
}

fn location(offset: i32) -> Location {
    if offset < 0 {
        Location::Row((-1 - offset as i64) as u32)
    } else {
        Location::Body(offset as usize)
    }
}

/// A parsed bitmap index (either version).
pub(crate) struct BitmapIndex<'a> {
    data: &'a [u8],
    row_count: u32,
    null: Option<Location>,
    entries: HashMap<BitmapKey, Location>,
    body_start: usize,
}

impl<'a> BitmapIndex<'a> {
    /// Parses a bitmap index of a column of `kind`.
    pub(crate) fn parse(data: &'a [u8], kind: &TypeKind) -> Result<Self, SpecError> {
        let kk = key_kind(kind)
            .ok_or_else(|| invalid(format!("type {kind:?} cannot carry a bitmap index")))?;
        let mut r = JavaReader::new(data);
        let version = r.u8()?;
        if version != VERSION_1 && version != VERSION_2 {
            return Err(invalid(format!("version {version} (strata reads 1 and 2)")));
        }
        let row_count = r.i32()?;
        let n = r.i32()?;
        if row_count < 0 || n < 0 {
            return Err(invalid("negative row or bitmap count"));
        }
        let has_null = r.u8()? != 0;
        let null = if has_null {
            let offset = r.i32()?;
            if version == VERSION_2 {
                r.i32()?; // the null bitmap's length
            }
            Some(location(offset))
        } else {
            None
        };
        let mut entries = HashMap::with_capacity(n as usize);
        let body_start;
        if version == VERSION_1 {
            for _ in 0..n {
                let key = read_key(&mut r, kk)?;
                entries.insert(key, location(r.i32()?));
            }
            body_start = r.pos();
        } else {
            let blocks = r.i32()?;
            let mut offsets = Vec::new();
            for _ in 0..blocks.max(0) {
                read_key(&mut r, kk)?;
                offsets.push(r.i32()?);
            }
            let blocks_length = r.i32()?;
            let block_start = r.pos();
            body_start = block_start
                .checked_add(usize::try_from(blocks_length).map_err(|_| invalid("blocks"))?)
                .ok_or_else(|| invalid("blocks length"))?;
            for offset in offsets {
                let at = block_start + usize::try_from(offset).map_err(|_| invalid("block"))?;
                let mut b = JavaReader::at(data, at)?;
                let count = b.i32()?;
                for _ in 0..count.max(0) {
                    let key = read_key(&mut b, kk)?;
                    let offset = b.i32()?;
                    b.i32()?; // length
                    entries.insert(key, location(offset));
                }
            }
        }
        Ok(BitmapIndex {
            data,
            row_count: row_count as u32,
            null,
            entries,
            body_start,
        })
    }

    fn bitmap_at(&self, loc: Location) -> Result<RoaringBitmap, SpecError> {
        match loc {
            Location::Row(row) => Ok(RoaringBitmap::from_iter([row])),
            Location::Body(offset) => {
                let start = self
                    .body_start
                    .checked_add(offset)
                    .filter(|s| *s <= self.data.len())
                    .ok_or_else(|| invalid(format!("bitmap offset {offset} out of range")))?;
                RoaringBitmap::deserialize_from(&self.data[start..])
                    .map_err(|e| invalid(format!("bitmap at {offset}: {e}")))
            }
        }
    }

    /// The rows holding `key` (`None`: the NULL rows).
    pub(crate) fn rows(&self, key: Option<&BitmapKey>) -> Result<RoaringBitmap, SpecError> {
        let loc = match key {
            None => self.null,
            Some(k) => self.entries.get(k).copied(),
        };
        match loc {
            None => Ok(RoaringBitmap::new()),
            Some(loc) => self.bitmap_at(loc),
        }
    }

    fn in_list(&self, keys: &[Option<BitmapKey>]) -> Result<RoaringBitmap, SpecError> {
        let mut out = RoaringBitmap::new();
        for k in keys {
            out |= self.rows(k.as_ref())?;
        }
        Ok(out)
    }

    fn not_in_list(&self, keys: &[Option<BitmapKey>]) -> Result<RoaringBitmap, SpecError> {
        let mut all = RoaringBitmap::new();
        all.insert_range(0..self.row_count);
        Ok(all - self.in_list(keys)?)
    }

    /// Java's `BitmapFileIndex.Reader` visits: `=`, `<>`, `IN`, `NOT IN`, `IS [NOT] NULL` as
    /// row bitmaps; other tests keep the file. A literal that is not of the column's kind
    /// keeps the file.
    pub(crate) fn evaluate(&self, kind: &TypeKind, op: &LeafOp) -> Result<IndexResult, SpecError> {
        let keys = |values: &[Datum]| -> Option<Vec<Option<BitmapKey>>> {
            values.iter().map(|v| key_of(kind, v).map(Some)).collect()
        };
        let bitmap = match op {
            LeafOp::Equal(v) => match keys(std::slice::from_ref(v)) {
                Some(k) => self.in_list(&k)?,
                None => return Ok(IndexResult::Remain),
            },
            LeafOp::In(vs) => match keys(vs) {
                Some(k) => self.in_list(&k)?,
                None => return Ok(IndexResult::Remain),
            },
            LeafOp::NotEqual(v) => match keys(std::slice::from_ref(v)) {
                Some(k) => self.not_in_list(&k)?,
                None => return Ok(IndexResult::Remain),
            },
            LeafOp::NotIn(vs) => match keys(vs) {
                Some(k) => self.not_in_list(&k)?,
                None => return Ok(IndexResult::Remain),
            },
            LeafOp::IsNull => self.in_list(&[None])?,
            LeafOp::IsNotNull => self.not_in_list(&[None])?,
            _ => return Ok(IndexResult::Remain),
        };
        Ok(IndexResult::Bitmap(bitmap))
    }
}

/// Builds a bitmap index from a column's values (Java's `BitmapFileIndex.Writer`).
pub(crate) struct BitmapWriter {
    kind: TypeKind,
    version: u8,
    block_size: usize,
    bitmaps: HashMap<BitmapKey, RoaringBitmap>,
    /// Distinct values in the order of their first row (the insertion order of Java's map).
    order: Vec<BitmapKey>,
    nulls: RoaringBitmap,
    rows: u32,
}

impl BitmapWriter {
    /// `version` 1 or 2 (Java's `version` option, default 2); `block_size` is V2's
    /// `index-block-size`.
    pub(crate) fn new(kind: TypeKind, version: u8, block_size: usize) -> Result<Self, SpecError> {
        if !supports(&kind) {
            return Err(invalid(format!(
                "type {kind:?} is not supported (Java's BitmapTypeVisitor)"
            )));
        }
        if version != VERSION_1 && version != VERSION_2 {
            return Err(invalid(format!("version {version}: 1 or 2")));
        }
        Ok(BitmapWriter {
            kind,
            version,
            block_size,
            bitmaps: HashMap::new(),
            order: Vec::new(),
            nulls: RoaringBitmap::new(),
            rows: 0,
        })
    }

    pub(crate) fn write(&mut self, value: Option<&Datum>) {
        match value.and_then(|v| key_of(&self.kind, v)) {
            Some(k) => match self.bitmaps.get_mut(&k) {
                Some(b) => {
                    b.insert(self.rows);
                }
                None => {
                    self.order.push(k.clone());
                    self.bitmaps
                        .insert(k, RoaringBitmap::from_iter([self.rows]));
                }
            },
            None => {
                self.nulls.insert(self.rows);
            }
        }
        self.rows += 1;
    }

    /// The serialized index, byte-identical to Java's: bitmaps laid out (and version 1's
    /// entries listed) in the iteration order of Java's `HashMap` of the values, version 2's
    /// entries sorted by value.
    pub(crate) fn finish(&self) -> Vec<u8> {
        let serialize = |b: &RoaringBitmap| {
            let mut b = b.clone();
            b.optimize(); // Java's `RoaringBitmap32.serialize` runs `runOptimize` first
            let mut out = Vec::with_capacity(b.serialized_size());
            b.serialize_into(&mut out).expect("writing to a Vec");
            out
        };
        let null_bytes = serialize(&self.nulls);
        let null_card = self.nulls.len();
        let keys = java_hash_map_order(&self.order);
        let mut body = Vec::new();
        if null_card > 1 {
            body.extend_from_slice(&null_bytes);
        }
        // (key, offset, length), in Java's map order
        let mut entries = Vec::with_capacity(keys.len());
        for k in keys {
            let b = &self.bitmaps[k];
            if b.len() == 1 {
                let row = b.min().unwrap_or(0) as i64;
                entries.push((k, (-1 - row) as i32, -1));
            } else {
                let bytes = serialize(b);
                entries.push((k, body.len() as i32, bytes.len() as i32));
                body.extend_from_slice(&bytes);
            }
        }
        let null_offset = if null_card == 1 {
            (-1 - self.nulls.min().unwrap_or(0) as i64) as i32
        } else {
            0
        };
        let mut out = vec![self.version];
        out.extend_from_slice(&(self.rows as i32).to_be_bytes());
        out.extend_from_slice(&(entries.len() as i32).to_be_bytes());
        out.push((null_card > 0) as u8);
        if null_card > 0 {
            out.extend_from_slice(&null_offset.to_be_bytes());
            if self.version == VERSION_2 {
                out.extend_from_slice(&(null_bytes.len() as i32).to_be_bytes());
            }
        }
        if self.version == VERSION_1 {
            for (k, offset, _) in &entries {
                write_key(&mut out, k);
                out.extend_from_slice(&offset.to_be_bytes());
            }
        } else {
            // Entries sorted by value, in blocks as `BitmapIndexBlock.tryAdd` fills them.
            entries.sort_by(|a, b| java_compare(a.0, b.0));
            let mut blocks: Vec<(usize, usize, usize)> = Vec::new(); // (first entry, end, bytes)
            for (i, (k, _, _)) in entries.iter().enumerate() {
                let entry_bytes = 8 + key_size(k);
                match blocks.last_mut() {
                    Some(b) if b.2 + entry_bytes <= self.block_size => {
                        b.1 = i + 1;
                        b.2 += entry_bytes;
                    }
                    _ => blocks.push((i, i + 1, 4 + entry_bytes)),
                }
            }
            out.extend_from_slice(&(blocks.len() as i32).to_be_bytes());
            let mut offset = 0usize;
            for (first, _, bytes) in &blocks {
                write_key(&mut out, entries[*first].0);
                out.extend_from_slice(&(offset as i32).to_be_bytes());
                offset += bytes;
            }
            out.extend_from_slice(&(offset as i32).to_be_bytes());
            for (first, end, _) in &blocks {
                out.extend_from_slice(&((end - first) as i32).to_be_bytes());
                for (k, offset, length) in &entries[*first..*end] {
                    write_key(&mut out, k);
                    out.extend_from_slice(&offset.to_be_bytes());
                    out.extend_from_slice(&length.to_be_bytes());
                }
            }
        }
        out.extend_from_slice(&body);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn roundtrip(values: &[Option<i32>], version: u8, block: usize) {
        let mut w = BitmapWriter::new(TypeKind::Int, version, block).unwrap();
        for v in values {
            w.write(v.map(Datum::Int).as_ref());
        }
        let bytes = w.finish();
        let idx = BitmapIndex::parse(&bytes, &TypeKind::Int).unwrap();
        let mut expected: HashMap<Option<i32>, RoaringBitmap> = HashMap::new();
        for (row, v) in values.iter().enumerate() {
            expected.entry(*v).or_default().insert(row as u32);
        }
        for (v, rows) in &expected {
            let key = v.map(BitmapKey::Int);
            assert_eq!(&idx.rows(key.as_ref()).unwrap(), rows);
        }
        assert!(
            idx.rows(Some(&BitmapKey::Int(i32::MIN)))
                .unwrap()
                .is_empty()
                || expected.contains_key(&Some(i32::MIN))
        );
    }

    #[test]
    fn java_bytes_of_a_small_int_index() {
        // Java 2.0.0: `new BitmapFileIndex(INT, {version: 1}).createWriter()` fed 0..9, 50, 51.
        let java = "010000000c0000000c0000000000ffffffff00000001fffffffe00000032fffffff50000\
                    0002fffffffd00000033fffffff400000003fffffffc00000004fffffffb00000005ffff\
                    fffa00000006fffffff900000007fffffff800000008fffffff700000009fffffff6";
        let mut w = BitmapWriter::new(TypeKind::Int, 1, DEFAULT_BLOCK_SIZE).unwrap();
        for v in (0..10).chain([50, 51]) {
            w.write(Some(&Datum::Int(v)));
        }
        let hex: String = w.finish().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, java.replace(' ', ""));
    }

    #[test]
    fn versions_and_small_blocks() {
        let values: Vec<Option<i32>> = (0..500)
            .map(|i| if i % 7 == 0 { None } else { Some(i % 13) })
            .collect();
        for version in [1, 2] {
            roundtrip(&values, version, 16 * 1024);
            roundtrip(&values, version, 20);
        }
        roundtrip(&[None], 2, 16 * 1024);
        roundtrip(&[Some(5)], 1, 16 * 1024);
    }

    proptest! {
        #[test]
        fn bitmap_roundtrip(values in proptest::collection::vec(proptest::option::of(0i32..40), 1..300),
                            version in 1u8..=2, block in 16usize..200) {
            roundtrip(&values, version, block);
        }

        #[test]
        fn strings_never_lose_rows(values in proptest::collection::vec("[a-c]{0,3}", 1..100)) {
            let kind = TypeKind::VarChar(10);
            let mut w = BitmapWriter::new(kind.clone(), 2, 64).unwrap();
            for v in &values { w.write(Some(&Datum::String(v.clone()))); }
            let bytes = w.finish();
            let idx = BitmapIndex::parse(&bytes, &kind).unwrap();
            for v in &values {
                let r = idx.evaluate(&kind, &LeafOp::Equal(Datum::String(v.clone()))).unwrap();
                prop_assert!(r.remains());
            }
            let r = idx.evaluate(&kind, &LeafOp::Equal(Datum::String("zz".into()))).unwrap();
            prop_assert!(!r.remains());
        }
    }
}
