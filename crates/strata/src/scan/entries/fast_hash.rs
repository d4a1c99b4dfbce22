//! The one hasher of scan planning's hot maps: partition memos, slot dictionaries and the
//! merge indexes of a cache miss or an incremental build, all keyed by short byte strings
//! (serialized partitions, file identities) of the table's own metadata.

use std::collections::HashMap;

/// A fast hasher for short keys (serialized partitions, file identities) in the maps of one
/// scan or one cache slot: partition memos, slot dictionaries, the merge index of a cache
/// miss. The multiply-rotate word mix of rustc's FxHash, integers in one round. Not
/// DoS-resistant, which does not matter for maps over the table's own metadata.
#[derive(Default)]
pub(super) struct FxHasher(u64);

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl std::hash::Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(
                c.try_into().expect("chunks_exact(8) yields 8 bytes"),
            ));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // The tail as one word (zero-padded, tagged with its length).
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }

    // Integers (lengths, buckets, levels, discriminants) in one round each.
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_i32(&mut self, i: i32) {
        self.add(i as u32 as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

pub(super) type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FxHasher>>;
