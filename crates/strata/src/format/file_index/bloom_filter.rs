//! The `bloom-filter` file index, byte-identical to Java Paimon's `BloomFilterFileIndex`:
//! a `BloomFilter64` over Java's `FastHash` of each non-null value (XXH64 of the bytes for
//! strings and binaries, Thomas Wang's 64-bit integer hash for numbers, dates, times and
//! timestamps). Serialized as the number of hash functions (i32, big-endian) followed by the
//! bit set (bit `i` in byte `i / 8`, least significant bit first).
//!
//! Options (`file-index.bloom-filter.<column>.items` / `.fpp`): expected items (default
//! 1,000,000) and false-positive probability (default 0.1).

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Int32Type, Int64Type};
use arrow_array::Array;
use arrow_schema::DataType as ArrowType;
use strata_spec::{Datum, SpecError, TypeKind};

use super::result::IndexResult;
use crate::expr::LeafOp;

/// The index type name in the container and the options.
pub(crate) const IDENTIFIER: &str = "bloom-filter";
/// The family of its options (`.columns`, `.<column>.items`, `.<column>.fpp`).
pub(crate) const OPTIONS: &str = "file-index.bloom-filter.";
/// `BloomFilterFileIndex.DEFAULT_ITEMS`.
pub(crate) const DEFAULT_ITEMS: i64 = 1_000_000;
/// `BloomFilterFileIndex.DEFAULT_FPP`.
pub(crate) const DEFAULT_FPP: f64 = 0.1;

/// Whether Java's `FastHash` hashes values of `kind` (booleans, decimals and nested types
/// cannot carry a bloom filter).
pub(crate) fn supports(kind: &TypeKind) -> bool {
    matches!(
        kind,
        TypeKind::Char(_)
            | TypeKind::VarChar(_)
            | TypeKind::Binary(_)
            | TypeKind::VarBinary(_)
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

/// Java's `FastHash` of `value` as a column of `kind`; `None` when the kind has no hash or the
/// value is not of that kind.
pub(crate) fn fast_hash(kind: &TypeKind, value: &Datum) -> Option<i64> {
    Some(match (kind, value) {
        (TypeKind::Char(_) | TypeKind::VarChar(_), Datum::String(s)) => xx_hash64(s.as_bytes()),
        (TypeKind::Binary(_) | TypeKind::VarBinary(_), Datum::Bytes(b)) => xx_hash64(b),
        (TypeKind::TinyInt, Datum::TinyInt(v)) => long_hash(*v as i64),
        (TypeKind::SmallInt, Datum::SmallInt(v)) => long_hash(*v as i64),
        (TypeKind::Int, Datum::Int(v)) => long_hash(*v as i64),
        (TypeKind::BigInt, Datum::BigInt(v)) => long_hash(*v),
        (TypeKind::Float, Datum::Float(v)) => long_hash(java_float_bits(*v) as i64),
        (TypeKind::Double, Datum::Double(v)) => long_hash(java_double_bits(*v)),
        (TypeKind::Date, Datum::Date(v)) => long_hash(*v as i64),
        (TypeKind::Time(_), Datum::Time(v)) => long_hash(*v as i64),
        (TypeKind::Timestamp(p), Datum::Timestamp { millis, nanos })
        | (TypeKind::LocalZonedTimestamp(p), Datum::TimestampLtz { millis, nanos }) => {
            long_hash(timestamp_long(*p, *millis, *nanos))
        }
        _ => return None,
    })
}

/// A timestamp as the long Java's file indexes use: epoch millis up to precision 3, epoch
/// micros above (`Timestamp.toMicros`).
pub(crate) fn timestamp_long(precision: u32, millis: i64, nanos: i32) -> i64 {
    if precision <= 3 {
        millis
    } else {
        millis
            .wrapping_mul(1000)
            .wrapping_add((nanos / 1000) as i64)
    }
}

/// Java's `Float.floatToIntBits` (NaN canonical).
pub(crate) fn java_float_bits(v: f32) -> i32 {
    if v.is_nan() {
        0x7fc0_0000
    } else {
        v.to_bits() as i32
    }
}

/// Java's `Double.doubleToLongBits` (NaN canonical).
pub(crate) fn java_double_bits(v: f64) -> i64 {
    if v.is_nan() {
        0x7ff8_0000_0000_0000
    } else {
        v.to_bits() as i64
    }
}

/// `LongHashFunction.xx().hashBytes`: XXH64 with seed 0.
fn xx_hash64(data: &[u8]) -> i64 {
    twox_hash::XxHash64::oneshot(0, data) as i64
}

/// Thomas Wang's 64-bit integer hash (`FastHash.getLongHash`), Java's wrapping arithmetic and
/// arithmetic right shifts.
pub(crate) fn long_hash(key: i64) -> i64 {
    let mut key = (!key).wrapping_add(key << 21);
    key ^= key >> 24;
    key = key.wrapping_add(key << 3).wrapping_add(key << 8);
    key ^= key >> 14;
    key = key.wrapping_add(key << 2).wrapping_add(key << 4);
    key ^= key >> 28;
    key.wrapping_add(key << 31)
}

/// Java's `BloomFilter64`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BloomFilter64 {
    num_hash_functions: i32,
    bits: Vec<u8>,
}

impl BloomFilter64 {
    /// Sized for `items` at `fpp` exactly as Java's constructor sizes it.
    pub(crate) fn new(items: i64, fpp: f64) -> Result<Self, SpecError> {
        if items <= 0 || !(fpp > 0.0 && fpp < 1.0) {
            return Err(SpecError::invalid(
                "bloom-filter file index",
                format!("items must be positive and fpp in (0, 1): items {items}, fpp {fpp}"),
            ));
        }
        let ln2 = std::f64::consts::LN_2;
        let nb = (-(items as f64) * fpp.ln() / (ln2 * ln2)) as i32;
        let num_bits = nb.saturating_add(8 - nb % 8);
        if num_bits <= 0 || num_bits > (1 << 30) {
            return Err(SpecError::invalid(
                "bloom-filter file index",
                format!("items {items} at fpp {fpp} need {nb} bits"),
            ));
        }
        let k = ((num_bits as f64 / items as f64 * ln2) + 0.5).floor() as i64;
        Ok(BloomFilter64 {
            num_hash_functions: k.max(1) as i32,
            bits: vec![0; num_bits as usize / 8],
        })
    }

    fn num_bits(&self) -> i32 {
        (self.bits.len() * 8) as i32
    }

    fn positions(&self, hash64: i64) -> impl Iterator<Item = usize> + '_ {
        let hash1 = hash64 as i32;
        let hash2 = ((hash64 as u64) >> 32) as i32;
        let num_bits = self.num_bits();
        (1..=self.num_hash_functions).map(move |i| {
            let mut combined = hash1.wrapping_add(i.wrapping_mul(hash2));
            if combined < 0 {
                combined = !combined;
            }
            (combined % num_bits) as usize
        })
    }

    /// `BloomFilter64.addHash`.
    pub(crate) fn add_hash(&mut self, hash64: i64) {
        let positions: Vec<usize> = self.positions(hash64).collect();
        for p in positions {
            self.bits[p >> 3] |= 1 << (p & 7);
        }
    }

    /// `BloomFilter64.testHash`: false only when the hash was never added.
    pub(crate) fn test_hash(&self, hash64: i64) -> bool {
        self.positions(hash64)
            .all(|p| self.bits[p >> 3] & (1 << (p & 7)) != 0)
    }

    /// `BloomFilterFileIndex.Writer.serializedBytes`.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 + self.bits.len());
        out.extend_from_slice(&self.num_hash_functions.to_be_bytes());
        out.extend_from_slice(&self.bits);
        out
    }

    /// `BloomFilterFileIndex.Reader`'s parse (Java sums the four sign-extended bytes).
    pub(crate) fn from_bytes(bytes: &[u8]) -> Result<Self, SpecError> {
        if bytes.len() < 5 {
            return Err(SpecError::invalid(
                "bloom-filter file index",
                format!("{} bytes: too short", bytes.len()),
            ));
        }
        let b = |i: usize| bytes[i] as i8 as i32;
        let k = (b(0) << 24)
            .wrapping_add(b(1) << 16)
            .wrapping_add(b(2) << 8)
            .wrapping_add(b(3));
        if !(1..=1024).contains(&k) {
            return Err(SpecError::invalid(
                "bloom-filter file index",
                format!("{k} hash functions"),
            ));
        }
        Ok(BloomFilter64 {
            num_hash_functions: k,
            bits: bytes[4..].to_vec(),
        })
    }
}

/// Evaluates `op` against a bloom filter over a column of `kind` (Java's
/// `BloomFilterFileIndex.Reader`: `=` and `IN`; every other test keeps the file).
pub(crate) fn evaluate(filter: &BloomFilter64, kind: &TypeKind, op: &LeafOp) -> IndexResult {
    let test = |v: &Datum| match fast_hash(kind, v) {
        Some(h) => filter.test_hash(h),
        None => true,
    };
    match op {
        LeafOp::Equal(v) => IndexResult::remain_if(test(v)),
        LeafOp::In(values) => IndexResult::remain_if(values.iter().any(test)),
        _ => IndexResult::Remain,
    }
}

/// Builds a bloom filter from a column's values (Java's `BloomFilterFileIndex.Writer`; NULLs are
/// not added).
pub(crate) struct BloomFilterWriter {
    filter: BloomFilter64,
    kind: TypeKind,
}

impl BloomFilterWriter {
    pub(crate) fn new(kind: TypeKind, items: i64, fpp: f64) -> Result<Self, SpecError> {
        if !supports(&kind) {
            return Err(SpecError::invalid(
                "bloom-filter file index",
                format!("type {kind:?} is not supported (Java's FastHash)"),
            ));
        }
        Ok(BloomFilterWriter {
            filter: BloomFilter64::new(items, fpp)?,
            kind,
        })
    }

    pub(crate) fn write(&mut self, value: Option<&Datum>) {
        if let Some(h) = value.and_then(|v| fast_hash(&self.kind, v)) {
            self.filter.add_hash(h);
        }
    }

    /// Adds every value of `array` without building a datum per row, for the layouts that
    /// need no conversion (strings, and integers of integer-like columns); false (nothing
    /// added) for any other, which the caller feeds value by value.
    pub(crate) fn write_array(&mut self, array: &dyn Array) -> bool {
        let filter = &mut self.filter;
        match (&self.kind, array.data_type()) {
            (TypeKind::Char(_) | TypeKind::VarChar(_), ArrowType::Utf8) => {
                for s in array.as_string::<i32>().iter().flatten() {
                    filter.add_hash(xx_hash64(s.as_bytes()));
                }
            }
            (TypeKind::Char(_) | TypeKind::VarChar(_), ArrowType::LargeUtf8) => {
                for s in array.as_string::<i64>().iter().flatten() {
                    filter.add_hash(xx_hash64(s.as_bytes()));
                }
            }
            (TypeKind::Char(_) | TypeKind::VarChar(_), ArrowType::Utf8View) => {
                for s in array.as_string_view().iter().flatten() {
                    filter.add_hash(xx_hash64(s.as_bytes()));
                }
            }
            (TypeKind::Int, ArrowType::Int32) => {
                for v in array.as_primitive::<Int32Type>().iter().flatten() {
                    filter.add_hash(long_hash(v as i64));
                }
            }
            (TypeKind::Date, ArrowType::Date32) => {
                for v in array.as_primitive::<Date32Type>().iter().flatten() {
                    filter.add_hash(long_hash(v as i64));
                }
            }
            (TypeKind::BigInt, ArrowType::Int64) => {
                for v in array.as_primitive::<Int64Type>().iter().flatten() {
                    filter.add_hash(long_hash(v));
                }
            }
            _ => return false,
        }
        true
    }

    pub(crate) fn finish(&self) -> Vec<u8> {
        self.filter.to_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn java_sizing_and_hashes() {
        // Java: new BloomFilter64(1_000_000, 0.1) -> 4792536 bits, 3 hash functions.
        let f = BloomFilter64::new(1_000_000, 0.1).unwrap();
        assert_eq!(f.num_bits(), 4_792_536);
        assert_eq!(f.num_hash_functions, 3);
        // XXH64("") with seed 0.
        assert_eq!(xx_hash64(b"") as u64, 0xef46db3751d8e999);
    }

    #[test]
    fn array_fast_path_equals_value_by_value() {
        let strings = arrow_array::StringArray::from(vec![Some("a"), None, Some("bc")]);
        let ints = arrow_array::Int64Array::from(vec![Some(7), None, Some(-3)]);
        for (kind, array, datums) in [
            (
                TypeKind::VarChar(9),
                &strings as &dyn Array,
                vec![Datum::String("a".into()), Datum::String("bc".into())],
            ),
            (
                TypeKind::BigInt,
                &ints as &dyn Array,
                vec![Datum::BigInt(7), Datum::BigInt(-3)],
            ),
        ] {
            let mut fast = BloomFilterWriter::new(kind.clone(), 100, 0.1).unwrap();
            assert!(fast.write_array(array));
            let mut slow = BloomFilterWriter::new(kind, 100, 0.1).unwrap();
            for d in &datums {
                slow.write(Some(d));
            }
            assert_eq!(fast.finish(), slow.finish());
        }
    }

    proptest! {
        #[test]
        fn no_false_negatives(values in proptest::collection::vec(any::<i64>(), 1..200),
                              strings in proptest::collection::vec(".{0,12}", 0..50)) {
            let mut w = BloomFilterWriter::new(TypeKind::BigInt, 500, 0.05).unwrap();
            let mut s = BloomFilterWriter::new(TypeKind::VarChar(100), 500, 0.05).unwrap();
            for v in &values { w.write(Some(&Datum::BigInt(*v))); }
            for v in &strings { s.write(Some(&Datum::String(v.clone()))); }
            let f = BloomFilter64::from_bytes(&w.finish()).unwrap();
            let g = BloomFilter64::from_bytes(&s.finish()).unwrap();
            prop_assert_eq!(&f, &w.filter);
            for v in &values {
                prop_assert_eq!(evaluate(&f, &TypeKind::BigInt, &LeafOp::Equal(Datum::BigInt(*v))), IndexResult::Remain);
            }
            for v in &strings {
                prop_assert_eq!(evaluate(&g, &TypeKind::VarChar(100), &LeafOp::Equal(Datum::String(v.clone()))), IndexResult::Remain);
            }
        }
    }
}
