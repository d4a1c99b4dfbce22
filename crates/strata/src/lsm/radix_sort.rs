//! Radix sort of packed keys tagged with their arrival index: the write buffer's sort for the
//! usual short fixed-width primary key (a BIGINT key packs into 9 bytes).
//!
//! Each value is one `u128`: the key's byte-comparable encoding left-aligned in the high
//! bytes ([`super::sort_key`]'s packing) and the record's arrival index in the low 32 bits,
//! so a key of up to 12 bytes fits with its index. An LSD radix sort over the key bytes is
//! stable, so records with equal keys keep arrival order — the order Paimon's merge functions
//! expect within one write buffer (Java's `SortBufferWriteBuffer` sorts by key, then
//! sequence number). Byte positions where every value has the same byte are skipped, so a
//! key whose values span a narrow range (ids below 2^24 need 3 of a BIGINT's 9 bytes) costs
//! only as many passes as it has varying bytes. It replaces a comparison sort of
//! `(u128, u32, u32)` tuples (32 bytes each after alignment), which took 12% of a one-bucket
//! primary-key write in the profile (BENCHMARKS.md, "Primary-key write").
//!
//! Written here rather than taken from a crate: the radix crates sort plain integers by their
//! whole width; this one needs the index bits excluded from the digits, the constant-byte
//! skip, and nothing else.

/// Bits of a value holding the arrival index.
pub(crate) const INDEX_BITS: u32 = 32;
/// Widest key (bytes) that fits beside the index.
pub(crate) const MAX_KEY_BYTES: usize = 16 - (INDEX_BITS as usize / 8);

/// Sorts `values` (packed key | index) by key, equal keys in ascending index order, provided
/// the input lists equal keys in ascending index order (as built: index = arrival).
pub(crate) fn sort_tagged(values: &mut Vec<u128>) {
    let n = values.len();
    if n < 2 {
        return;
    }
    if n < 256 {
        // Keys with their distinct indices: an unstable sort is exact and cheaper here.
        values.sort_unstable();
        return;
    }
    // One histogram per key byte (byte 0 = least significant key byte, above the index).
    const DIGITS: usize = MAX_KEY_BYTES;
    let mut counts = vec![[0usize; 256]; DIGITS];
    for &v in values.iter() {
        let key = v >> INDEX_BITS;
        for (d, count) in counts.iter_mut().enumerate() {
            count[((key >> (8 * d)) & 0xff) as usize] += 1;
        }
    }
    let mut buf: Vec<u128> = vec![0; n];
    let mut src_is_values = true;
    for (d, count) in counts.iter().enumerate() {
        // All values share this byte: the pass would not move anything.
        if count.contains(&n) {
            continue;
        }
        let mut offsets = [0usize; 256];
        let mut sum = 0;
        for (o, &c) in offsets.iter_mut().zip(count.iter()) {
            *o = sum;
            sum += c;
        }
        let shift = INDEX_BITS as usize + 8 * d;
        let (src, dst) = if src_is_values {
            (&values[..], &mut buf[..])
        } else {
            (&buf[..], &mut values[..])
        };
        for &v in src {
            let b = ((v >> shift) & 0xff) as usize;
            dst[offsets[b]] = v;
            offsets[b] += 1;
        }
        src_is_values = !src_is_values;
    }
    if !src_is_values {
        std::mem::swap(values, &mut buf);
    }
}

/// The key part of a tagged value.
#[inline]
pub(crate) fn key_of(v: u128) -> u128 {
    v >> INDEX_BITS
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tagged(keys: &[u128]) -> Vec<u128> {
        keys.iter()
            .enumerate()
            .map(|(i, k)| (k << INDEX_BITS) | i as u128)
            .collect()
    }

    /// The reference: a stable comparison sort by key.
    fn reference(keys: &[u128]) -> Vec<u128> {
        let mut v = tagged(keys);
        v.sort_by_key(|x| key_of(*x));
        v
    }

    proptest! {
        #[test]
        fn radix_equals_stable_sort(
            keys in prop::collection::vec(0u128..(1u128 << 72), 0..2000),
            narrow in any::<bool>(),
        ) {
            // Narrow keys (many duplicates, few varying bytes) and wide ones.
            let keys: Vec<u128> = if narrow {
                keys.iter().map(|k| (k % 300) << 40 | 0xAB).collect()
            } else {
                keys
            };
            let mut v = tagged(&keys);
            sort_tagged(&mut v);
            prop_assert_eq!(v, reference(&keys));
        }

        #[test]
        fn radix_handles_full_width_keys(keys in prop::collection::vec(any::<u128>(), 256..1200)) {
            let keys: Vec<u128> = keys.iter().map(|k| k >> INDEX_BITS).collect();
            let mut v = tagged(&keys);
            sort_tagged(&mut v);
            prop_assert_eq!(v, reference(&keys));
        }
    }

    #[test]
    fn equal_keys_keep_arrival_order() {
        let keys = vec![5u128; 1000];
        let mut v = tagged(&keys);
        sort_tagged(&mut v);
        assert!(v.windows(2).all(|w| w[0] < w[1]));
    }
}
