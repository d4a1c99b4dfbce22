//! The `range-bitmap` file index, Java Paimon's `RangeBitmapFileIndex` (`RangeBitmap`): the
//! column's distinct non-null values sorted (Java's comparator per type, `KeyFactory`) and
//! numbered 0.. (their *codes*, a `ChunkedDictionary`), and each row's code in a bit-sliced
//! index (`BitSliceIndexBitmap`), answering `=`, `<>`, `<`, `<=`, `>`, `>=`, `IN`, `NOT IN`,
//! `IS [NOT] NULL` with row bitmaps.
//!
//! ```text
//! range bitmap: headerLength i32 | version u8 (1) | rowCount i32 | cardinality i32
//!               [| min key | max key] | dictionaryLength i32 | dictionary | bsi
//! dictionary:   headerLength i32 (13) | version u8 | chunkCount i32 | offsetsLength i32
//!               | chunksLength i32 | chunk offsets (i32 each) | chunk heads | chunk keys
//! chunk head:   version u8 | first key | code i32 | keysOffset i32 | size i32
//!               | fixed keys: keysLength i32, fixedLength i32
//!               | string keys: offsetsLength i32, keysLength i32
//! bsi:          headerLength i32 | version u8 | sliceCount u8 | ebmLength i32
//!               | indexesLength i32 | (offset i32, length i32)* | ebm | slices
//! ```
//! Keys: numbers big-endian (floats by their raw bits), booleans one byte, strings as
//! `i32 length + UTF-8`; dates and times as int, decimals (precision ≤ 18) as unscaled long,
//! timestamps (precision ≤ 6) as millis up to precision 3 and micros above. A chunk holds its
//! first key in its head and up to `chunk-size` bytes of further keys (default 16 KiB, 0 for
//! booleans, tinyints and smallints). Bitmaps are RoaringBitmap's portable serialization.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::io::Cursor;

use roaring::RoaringBitmap;
use strata_spec::{Datum, SpecError, TypeKind};

use super::bloom_filter::timestamp_long;
use super::bsi;
use super::container::JavaReader;
use super::result::IndexResult;
use crate::expr::LeafOp;
use dictionary::{read_dictionary, DictionaryWriter};
pub(crate) use key::Key;
use key::{invalid, read_key, sub, usize_of, KeyKind, VERSION_1};

/// The index type name in the container and the options.
pub(crate) const IDENTIFIER: &str = "range-bitmap";
/// The family of its options (`.columns`, `.<column>.chunk-size`).
pub(crate) const OPTIONS: &str = "file-index.range-bitmap.";
/// `KeyFactory.defaultChunkSize` (16 KiB).
const DEFAULT_CHUNK_SIZE: usize = 16 * 1024;

/// Whether Java's `KeyFactory.create` accepts `kind` (decimals up to precision 18,
/// timestamps up to precision 6).
pub(crate) fn supports(kind: &TypeKind) -> bool {
    match kind {
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
        | TypeKind::Time(_) => true,
        TypeKind::Decimal { precision, .. } => *precision <= 18,
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => *p <= 6,
        _ => false,
    }
}

/// `KeyFactory.defaultChunkSize` of `kind`.
pub(crate) fn default_chunk_size(kind: &TypeKind) -> usize {
    match kind {
        TypeKind::Boolean | TypeKind::TinyInt | TypeKind::SmallInt => 0,
        _ => DEFAULT_CHUNK_SIZE,
    }
}

fn key_kind(kind: &TypeKind) -> Option<KeyKind> {
    if !supports(kind) {
        return None;
    }
    Some(match kind {
        TypeKind::Char(_) | TypeKind::VarChar(_) => KeyKind::Str,
        TypeKind::Boolean => KeyKind::Bool,
        TypeKind::TinyInt => KeyKind::Byte,
        TypeKind::SmallInt => KeyKind::Short,
        TypeKind::Int | TypeKind::Date | TypeKind::Time(_) => KeyKind::Int,
        TypeKind::Float => KeyKind::Float,
        TypeKind::Double => KeyKind::Double,
        _ => KeyKind::Long,
    })
}

/// The key of `value` in a column of `kind` (Java's `KeyFactory.createConverter`); `None`
/// when the value is not of that kind.
pub(crate) fn key_of(kind: &TypeKind, value: &Datum) -> Option<Key> {
    Some(match (kind, value) {
        (TypeKind::Char(_) | TypeKind::VarChar(_), Datum::String(s)) => {
            Key::Str(s.as_bytes().to_vec())
        }
        (TypeKind::Boolean, Datum::Boolean(b)) => Key::Bool(*b),
        (TypeKind::TinyInt, Datum::TinyInt(v)) => Key::Byte(*v),
        (TypeKind::SmallInt, Datum::SmallInt(v)) => Key::Short(*v),
        (TypeKind::Int, Datum::Int(v))
        | (TypeKind::Date, Datum::Date(v))
        | (TypeKind::Time(_), Datum::Time(v)) => Key::Int(*v),
        (TypeKind::BigInt, Datum::BigInt(v)) => Key::Long(*v),
        (TypeKind::Float, Datum::Float(v)) => Key::Float(*v),
        (TypeKind::Double, Datum::Double(v)) => Key::Double(*v),
        (TypeKind::Timestamp(p), Datum::Timestamp { millis, nanos })
        | (TypeKind::LocalZonedTimestamp(p), Datum::TimestampLtz { millis, nanos })
            if *p <= 6 =>
        {
            Key::Long(timestamp_long(*p, *millis, *nanos))
        }
        (TypeKind::Decimal { precision, .. }, Datum::Decimal { .. }) if *precision <= 18 => {
            Key::Long(bsi::long_of(kind, value)?)
        }
        _ => return None,
    })
}

/// Java's `RoaringBitmap32.serialize` (run-optimized portable format).
fn serialize_bitmap(b: &RoaringBitmap) -> Vec<u8> {
    let mut out = Vec::new();
    bsi::serialize(b, &mut out);
    out
}

fn read_bitmap(data: &[u8]) -> Result<RoaringBitmap, SpecError> {
    RoaringBitmap::deserialize_from(&mut Cursor::new(data))
        .map_err(|e| invalid(format!("bitmap: {e}")))
}

/// A parsed range bitmap: the sorted dictionary (index = code) and the bit-sliced codes.
pub(crate) struct RangeBitmapIndex {
    row_count: u32,
    keys: Vec<Key>,
    ebm: RoaringBitmap,
    slices: Vec<RoaringBitmap>,
}

impl RangeBitmapIndex {
    /// Parses a body Java's `RangeBitmap.Appender.serialize` wrote for a column of `kind`.
    pub(crate) fn parse(data: &[u8], kind: &TypeKind) -> Result<Self, SpecError> {
        let kk = key_kind(kind)
            .ok_or_else(|| invalid(format!("type {kind:?} has no range-bitmap keys")))?;
        let mut r = JavaReader::new(data);
        let header_length = usize_of(r.i32()?, "header length")?;
        let version = r.u8()?;
        if version > VERSION_1 {
            return Err(invalid(format!("version {version} (strata reads 1)")));
        }
        let row_count = r.i32()?.max(0) as u32;
        let cardinality = r.i32()?;
        if cardinality > 0 {
            read_key(&mut r, kk)?;
            read_key(&mut r, kk)?;
        }
        let dictionary_length = usize_of(r.i32()?, "dictionary length")?;
        let dictionary_at = 4 + header_length;
        let keys = if cardinality > 0 {
            read_dictionary(sub(data, dictionary_at, dictionary_length)?, kk)?
        } else {
            Vec::new()
        };
        if keys.len() != cardinality.max(0) as usize {
            return Err(invalid(format!(
                "dictionary holds {} keys, the head says {cardinality}",
                keys.len()
            )));
        }
        let bsi_at = dictionary_at + dictionary_length;
        let (ebm, slices) = read_bsi(&data[bsi_at.min(data.len())..])?;
        Ok(RangeBitmapIndex {
            row_count,
            keys,
            ebm,
            slices,
        })
    }

    /// `ChunkedDictionary.find`: the code of `key`, or `Err(insertion point)`.
    fn find(&self, key: &Key) -> Result<u32, u32> {
        self.keys
            .binary_search(key)
            .map(|c| c as u32)
            .map_err(|c| c as u32)
    }

    fn cmp_min_max(&self, key: &Key) -> (Ordering, Ordering) {
        (
            key.cmp(&self.keys[0]),
            key.cmp(self.keys.last().expect("non-empty")),
        )
    }

    fn not(&self, b: RoaringBitmap) -> RoaringBitmap {
        &self.ebm - b
    }

    /// `BitSliceIndexBitmap.eq`.
    fn bsi_eq(&self, code: u32) -> RoaringBitmap {
        let mut state = self.ebm.clone();
        for (i, slice) in self.slices.iter().enumerate() {
            if (code >> i) & 1 == 1 {
                state &= slice;
            } else {
                state -= slice;
            }
        }
        state
    }

    /// `BitSliceIndexBitmap.gt` (`code` -1: every non-null row).
    fn bsi_gt(&self, code: i64) -> RoaringBitmap {
        if code < 0 {
            return self.ebm.clone();
        }
        let start = (!code).trailing_zeros() as usize;
        let mut state: Option<RoaringBitmap> = None;
        for i in start..self.slices.len() {
            state = Some(match state {
                None => self.slices[i].clone(),
                Some(s) if (code >> i) & 1 == 1 => s & &self.slices[i],
                Some(s) => s | &self.slices[i],
            });
        }
        state.map_or_else(RoaringBitmap::new, |s| s & &self.ebm)
    }

    fn eq(&self, key: &Key) -> RoaringBitmap {
        if self.keys.is_empty() {
            return RoaringBitmap::new();
        }
        match self.cmp_min_max(key) {
            (Ordering::Equal, Ordering::Equal) => return self.ebm.clone(),
            (Ordering::Less, _) | (_, Ordering::Greater) => return RoaringBitmap::new(),
            _ => {}
        }
        match self.find(key) {
            Ok(code) => self.bsi_eq(code),
            Err(_) => RoaringBitmap::new(),
        }
    }

    fn gte(&self, key: &Key) -> RoaringBitmap {
        if self.keys.is_empty() {
            return RoaringBitmap::new();
        }
        let (min, max) = self.cmp_min_max(key);
        if min != Ordering::Greater {
            return self.ebm.clone();
        } else if max == Ordering::Greater {
            return RoaringBitmap::new();
        }
        let code = self.find(key).unwrap_or_else(|c| c);
        self.bsi_gt(code as i64 - 1)
    }

    fn gt(&self, key: &Key) -> RoaringBitmap {
        if self.keys.is_empty() {
            return RoaringBitmap::new();
        }
        let (min, max) = self.cmp_min_max(key);
        if min == Ordering::Less {
            return self.ebm.clone();
        } else if max != Ordering::Less {
            return RoaringBitmap::new();
        }
        match self.find(key) {
            Ok(code) => self.bsi_gt(code as i64),
            Err(insert) => self.bsi_gt(insert as i64 - 1),
        }
    }

    fn lte(&self, key: &Key) -> RoaringBitmap {
        if self.keys.is_empty() {
            return RoaringBitmap::new();
        }
        let (min, max) = self.cmp_min_max(key);
        if max != Ordering::Less {
            return self.ebm.clone();
        } else if min == Ordering::Less {
            return RoaringBitmap::new();
        }
        self.not(self.gt(key))
    }

    fn lt(&self, key: &Key) -> RoaringBitmap {
        if self.keys.is_empty() {
            return RoaringBitmap::new();
        }
        let (min, max) = self.cmp_min_max(key);
        if max == Ordering::Greater {
            return self.ebm.clone();
        } else if min != Ordering::Greater {
            return RoaringBitmap::new();
        }
        self.not(self.gte(key))
    }

    /// The reader's visits (Java's `RangeBitmapFileIndex.Reader`).
    pub(crate) fn evaluate(&self, kind: &TypeKind, op: &LeafOp) -> IndexResult {
        let key = |d: &Datum| key_of(kind, d);
        let keys = |ds: &[Datum]| ds.iter().map(key).collect::<Option<Vec<Key>>>();
        let bitmap = match op {
            LeafOp::IsNull => {
                let mut all = RoaringBitmap::new();
                all.insert_range(0..self.row_count);
                all - &self.ebm
            }
            LeafOp::IsNotNull => self.ebm.clone(),
            LeafOp::In(vs) | LeafOp::NotIn(vs) => {
                let Some(vs) = keys(vs) else {
                    return IndexResult::Remain;
                };
                let any = vs
                    .iter()
                    .fold(RoaringBitmap::new(), |acc, k| acc | self.eq(k));
                match op {
                    LeafOp::In(_) => any,
                    _ => self.not(any),
                }
            }
            LeafOp::Equal(v)
            | LeafOp::NotEqual(v)
            | LeafOp::LessThan(v)
            | LeafOp::LessOrEqual(v)
            | LeafOp::GreaterThan(v)
            | LeafOp::GreaterOrEqual(v) => {
                let Some(k) = key(v) else {
                    return IndexResult::Remain;
                };
                match op {
                    LeafOp::Equal(_) => self.eq(&k),
                    LeafOp::NotEqual(_) => self.not(self.eq(&k)),
                    LeafOp::LessThan(_) => self.lt(&k),
                    LeafOp::LessOrEqual(_) => self.lte(&k),
                    LeafOp::GreaterThan(_) => self.gt(&k),
                    _ => self.gte(&k),
                }
            }
            LeafOp::StartsWith(_) | LeafOp::NotStartsWith(_) => return IndexResult::Remain,
        };
        IndexResult::Bitmap(bitmap)
    }
}

/// A `BitSliceIndexBitmap`: the existence bitmap and the slices.
fn read_bsi(data: &[u8]) -> Result<(RoaringBitmap, Vec<RoaringBitmap>), SpecError> {
    let mut r = JavaReader::new(data);
    let header_length = usize_of(r.i32()?, "bsi header length")?;
    let version = r.u8()?;
    if version > VERSION_1 {
        return Err(invalid(format!("bsi version {version}")));
    }
    let n = r.u8()? as usize;
    let ebm_length = usize_of(r.i32()?, "ebm length")?;
    let indexes_length = usize_of(r.i32()?, "indexes length")?;
    if indexes_length < n * 8 {
        return Err(invalid("bsi slice table shorter than its slices"));
    }
    let body = 4 + header_length;
    let ebm = read_bitmap(sub(data, body, ebm_length)?)?;
    let mut slices = Vec::with_capacity(n);
    for _ in 0..n {
        let offset = usize_of(r.i32()?, "slice offset")?;
        let length = usize_of(r.i32()?, "slice length")?;
        slices.push(read_bitmap(sub(data, body + ebm_length + offset, length)?)?);
    }
    Ok((ebm, slices))
}

/// Builds a range bitmap (Java's `RangeBitmap.Appender`).
pub(crate) struct RangeBitmapWriter {
    kind: TypeKind,
    chunk_size: usize,
    rows: u32,
    bitmaps: BTreeMap<Key, RoaringBitmap>,
}

impl RangeBitmapWriter {
    /// A writer for a column of `kind`; `chunk_size` `None` takes the type's default.
    pub(crate) fn new(kind: TypeKind, chunk_size: Option<usize>) -> Result<Self, SpecError> {
        if !supports(&kind) {
            return Err(invalid(format!(
                "type {kind:?} is not supported (Java's KeyFactory: no decimals above \
                 precision 18, no timestamps above precision 6, no binary or nested types)"
            )));
        }
        Ok(RangeBitmapWriter {
            chunk_size: chunk_size.unwrap_or_else(|| default_chunk_size(&kind)),
            kind,
            rows: 0,
            bitmaps: BTreeMap::new(),
        })
    }

    pub(crate) fn write(&mut self, value: Option<&Datum>) {
        if let Some(k) = value.and_then(|v| key_of(&self.kind, v)) {
            self.bitmaps.entry(k).or_default().insert(self.rows);
        }
        self.rows += 1;
    }

    /// `RangeBitmap.Appender.serialize`.
    pub(crate) fn finish(&self) -> Vec<u8> {
        let n = self.bitmaps.len();
        // `BitSliceIndexBitmap.Appender(0, n - 1)`: 64 slices when there is no value (-1).
        let max = n as i64 - 1;
        let slice_count = (64 - max.leading_zeros() as usize).max(1);
        let mut ebm = RoaringBitmap::new();
        let mut slices = vec![RoaringBitmap::new(); slice_count];
        let mut dictionary = DictionaryWriter::new(self.chunk_size);
        for (code, (key, rows)) in self.bitmaps.iter().enumerate() {
            dictionary.append(key, code as i32);
            for row in rows {
                let mut bits = code as u64;
                while bits != 0 {
                    slices[bits.trailing_zeros() as usize].insert(row);
                    bits &= bits - 1;
                }
                ebm.insert(row);
            }
        }
        let dictionary = dictionary.finish();
        let bsi = write_bsi(&ebm, &slices);
        let mut header = vec![VERSION_1];
        header.extend_from_slice(&(self.rows as i32).to_be_bytes());
        header.extend_from_slice(&(n as i32).to_be_bytes());
        if let (Some((min, _)), Some((max, _))) = (
            self.bitmaps.first_key_value(),
            self.bitmaps.last_key_value(),
        ) {
            min.write(&mut header);
            max.write(&mut header);
        }
        header.extend_from_slice(&(dictionary.len() as i32).to_be_bytes());
        let mut out = (header.len() as i32).to_be_bytes().to_vec();
        out.extend_from_slice(&header);
        out.extend_from_slice(&dictionary);
        out.extend_from_slice(&bsi);
        out
    }
}

/// `BitSliceIndexBitmap.Appender.serialize`.
fn write_bsi(ebm: &RoaringBitmap, slices: &[RoaringBitmap]) -> Vec<u8> {
    let ebm = serialize_bitmap(ebm);
    let slices: Vec<Vec<u8>> = slices.iter().map(serialize_bitmap).collect();
    let indexes_length = 8 * slices.len();
    let mut out = ((10 + indexes_length) as i32).to_be_bytes().to_vec();
    out.push(VERSION_1);
    out.push(slices.len() as u8);
    out.extend_from_slice(&(ebm.len() as i32).to_be_bytes());
    out.extend_from_slice(&(indexes_length as i32).to_be_bytes());
    let mut offset = 0i32;
    for s in &slices {
        out.extend_from_slice(&offset.to_be_bytes());
        out.extend_from_slice(&(s.len() as i32).to_be_bytes());
        offset += s.len() as i32;
    }
    out.extend_from_slice(&ebm);
    for s in &slices {
        out.extend_from_slice(s);
    }
    out
}

mod dictionary;
mod key;
#[cfg(test)]
mod tests;
