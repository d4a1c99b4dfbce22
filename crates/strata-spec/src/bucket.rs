//! Paimon's row hash and default bucket assignment for fixed-bucket tables.
//!
//! A writer builds the [`BinaryRow`] of the bucket-key values (RowKind `+I`), hashes its bytes
//! (without the arity prefix) with Murmur3 x86-32 over 4-byte little-endian words, seed 42
//! (`MurmurHashUtils.hashBytesByWords`, used by `BinaryRow.hashCode`), and takes
//! `Math.abs(hash % numBuckets)` (`DefaultBucketFunction`). Any other engine writing the same
//! table must land each key in the same bucket, so these must match Java bit for bit.

use crate::binary_row::BinaryRow;

/// Seed of Paimon's Murmur3 hashes (`MurmurHashUtils.DEFAULT_SEED`).
pub const DEFAULT_SEED: i32 = 42;

const C1: u32 = 0xcc9e_2d51;
const C2: u32 = 0x1b87_3593;

fn mix_k1(k1: u32) -> u32 {
    k1.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2)
}

fn mix_h1(h1: u32, k1: u32) -> u32 {
    (h1 ^ k1)
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xe654_6b64)
}

/// Murmur3 finalizer (`MurmurHashUtils.fmix(int)`).
pub fn fmix(h: i32) -> i32 {
    let mut h = h as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h as i32
}

/// `MurmurHashUtils.hashBytesByWords` with seed 42: Murmur3 over 4-byte little-endian words,
/// finalized with the byte length. Java requires the length to be a multiple of 4 (BinaryRow
/// sizes always are, being multiples of 8); for other lengths this hashes the trailing bytes
/// one by one, as `MurmurHashUtils.hashBytes` does, so the two agree on aligned input.
pub fn hash_bytes_by_words(bytes: &[u8]) -> i32 {
    let mut h1 = DEFAULT_SEED as u32;
    let mut words = bytes.chunks_exact(4);
    for w in &mut words {
        let k1 = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        h1 = mix_h1(h1, mix_k1(k1));
    }
    for &b in words.remainder() {
        // Java mixes the sign-extended byte.
        h1 = mix_h1(h1, mix_k1(b as i8 as i32 as u32));
    }
    fmix((h1 ^ bytes.len() as u32) as i32)
}

impl BinaryRow {
    /// Java `BinaryRow.hashCode()`: [`hash_bytes_by_words`] over the row bytes (no arity
    /// prefix).
    pub fn hash_code(&self) -> i32 {
        hash_bytes_by_words(self.as_bytes())
    }
}

/// Bucket of a hash for a table with `num_buckets > 0` buckets: Java `Math.abs(hash % n)`
/// with truncating remainder (`DefaultBucketFunction`). Returns 0 when `num_buckets <= 0`
/// (Java asserts it is positive).
pub fn bucket_of(hash: i32, num_buckets: i32) -> i32 {
    if num_buckets <= 0 {
        return 0;
    }
    // |hash % n| < n, so the abs cannot overflow (wrapping_rem guards i32::MIN % -1 only).
    hash.wrapping_rem(num_buckets).abs()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DataType, Datum, TypeKind};

    fn row(values: &[Option<Datum>], types: &[DataType]) -> BinaryRow {
        BinaryRow::from_datums(values, types).unwrap()
    }

    /// Format reference §6.7 (hash over row bytes without the arity prefix, 4 buckets).
    #[test]
    fn reference_table() {
        let int = DataType::nullable(TypeKind::Int);
        let string = DataType::string();
        let s = |v: &str| Some(Datum::String(v.to_string()));
        let cases = [
            (
                row(&[Some(Datum::Int(5))], std::slice::from_ref(&int)),
                260196596,
                0,
            ),
            (
                row(
                    &[Some(Datum::Int(5)), s("abc")],
                    &[int.clone(), string.clone()],
                ),
                761334957,
                1,
            ),
            (
                row(&[None, s("abc")], &[int.clone(), string.clone()]),
                1743395493,
                1,
            ),
            (
                row(&[Some(Datum::Int(5)), s("hello, paimon")], &[int, string]),
                2032675110,
                2,
            ),
            (BinaryRow::empty(), -1670924195, 3),
        ];
        for (r, hash, bucket) in cases {
            assert_eq!(r.hash_code(), hash, "{r:?}");
            assert_eq!(bucket_of(r.hash_code(), 4), bucket, "{r:?}");
        }
    }

    #[test]
    fn murmur_known_values() {
        // Seed 42, length 0: just the finalizer of the seed.
        assert_eq!(hash_bytes_by_words(&[]), fmix(42));
        // Cross-checked with a JVM running the same word loop (Integer arithmetic).
        assert_eq!(hash_bytes_by_words(&[1, 0, 0, 0]), hash_int_like_java(1));
        // Unaligned tails follow hashBytes (sign-extended bytes).
        assert_ne!(hash_bytes_by_words(&[0xff]), hash_bytes_by_words(&[0x7f]));
    }

    /// Reference: the same computation written the way Java spells it (signed ints).
    fn hash_int_like_java(k: i32) -> i32 {
        let mut k1 = k.wrapping_mul(C1 as i32);
        k1 = k1.rotate_left(15);
        k1 = k1.wrapping_mul(C2 as i32);
        let mut h1 = DEFAULT_SEED ^ k1;
        h1 = h1.rotate_left(13);
        h1 = h1.wrapping_mul(5).wrapping_add(0xe654_6b64_u32 as i32);
        fmix(h1 ^ 4)
    }

    #[test]
    fn bucket_uses_truncating_remainder() {
        assert_eq!(bucket_of(-7, 4), 3);
        assert_eq!(bucket_of(7, 4), 3);
        assert_eq!(bucket_of(i32::MIN, 4), 0);
        assert_eq!(bucket_of(i32::MIN, 3), 2);
        assert_eq!(bucket_of(i32::MIN, 1), 0);
        assert_eq!(bucket_of(123, 0), 0);
    }
}
