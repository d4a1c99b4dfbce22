//! The per-file field dictionary of a shredded MAP column (Java's
//! `MapSharedShreddingFieldDict`): each new key gets the next id from 0, in first-seen order
//! within the file.
//!
//! Every MAP entry written looks its key up here, so the lookup is the writer's hottest
//! path. [`KeyInterner`] packs keys of up to 15 bytes into a `u128` (the bytes and the
//! length), so a lookup hashes and compares one integer instead of a string; longer keys use
//! a string map.

use std::collections::{BTreeMap, HashMap};

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Strings → dense ids in first-seen order.
#[derive(Clone, Debug, Default)]
pub struct KeyInterner {
    short: FastMap<u128, u32>,
    long: FastMap<Box<str>, u32>,
    names: Vec<Box<str>>,
}

/// `key` packed with its length when it is at most 15 bytes: byte `i` of the key is byte `i`
/// of the value, bytes past the key are zero, the top byte is the length. Read with a few
/// (overlapping) word loads instead of a variable-length copy.
#[inline]
fn pack(key: &str) -> Option<u128> {
    let b = key.as_bytes();
    let n = b.len();
    let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    let u32_at = |i: usize| u64::from(u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes")));
    let (lo, hi) = match n {
        0 => (0, 0),
        1..=3 => {
            let lo = u64::from(b[0])
                | u64::from(b[n / 2]) << (n / 2 * 8)
                | u64::from(b[n - 1]) << ((n - 1) * 8);
            (lo, 0)
        }
        4..=7 => (u32_at(0) | u32_at(n - 4) << ((n - 4) * 8), 0),
        8 => (u64_at(0), 0),
        9..=15 => (u64_at(0), u64_at(n - 8) >> ((16 - n) * 8)),
        _ => return None,
    };
    Some(u128::from(lo) | u128::from(hi) << 64 | (n as u128) << 120)
}

impl KeyInterner {
    /// The id of `key` and whether it was assigned just now.
    #[inline(always)]
    pub fn intern(&mut self, key: &str) -> (u32, bool) {
        // The hit on a short key is the common case: inlined; the rest is not.
        if let Some(p) = pack(key) {
            if let Some(&id) = self.short.get(&p) {
                return (id, false);
            }
        }
        self.intern_slow(key)
    }

    #[inline(never)]
    fn intern_slow(&mut self, key: &str) -> (u32, bool) {
        let next = self.names.len() as u32;
        let (id, new) = match pack(key) {
            Some(p) => (*self.short.entry(p).or_insert(next), true),
            None => match self.long.get(key) {
                Some(&id) => (id, false),
                None => {
                    self.long.insert(key.into(), next);
                    (next, true)
                }
            },
        };
        if new {
            self.names.push(key.into());
        }
        (id, new)
    }

    /// Names by id.
    pub fn names(&self) -> &[Box<str>] {
        &self.names
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Key name → field id for one column of one file.
#[derive(Clone, Debug, Default)]
pub struct FieldDict {
    keys: KeyInterner,
}

impl FieldDict {
    pub fn new() -> Self {
        FieldDict::default()
    }

    /// The id of `key`, assigning the next one if it is new.
    pub fn get_or_assign(&mut self, key: &str) -> i32 {
        self.lookup(key).0
    }

    /// The id of `key` and whether it was assigned just now.
    #[inline(always)]
    pub fn lookup(&mut self, key: &str) -> (i32, bool) {
        let (id, new) = self.keys.intern(key);
        (id as i32, new)
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The dictionary ordered by key, as stored in the footer.
    pub fn to_sorted(&self) -> BTreeMap<String, i32> {
        self.keys
            .names()
            .iter()
            .enumerate()
            .map(|(id, k)| (k.to_string(), id as i32))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_in_first_seen_order() {
        let mut d = FieldDict::new();
        assert_eq!(d.get_or_assign("c"), 0);
        assert_eq!(d.get_or_assign("a"), 1);
        assert_eq!(d.get_or_assign("c"), 0);
        assert_eq!(d.get_or_assign("b"), 2);
        let sorted: Vec<_> = d.to_sorted().into_iter().collect();
        assert_eq!(
            sorted,
            vec![("a".into(), 1), ("b".into(), 2), ("c".into(), 0)]
        );
    }

    #[test]
    fn packing_is_the_bytes_and_the_length() {
        for n in 0..=15usize {
            let key: String = (0..n).map(|i| (b'a' + i as u8) as char).collect();
            let mut want = [0u8; 16];
            want[..n].copy_from_slice(key.as_bytes());
            want[15] = n as u8;
            assert_eq!(pack(&key), Some(u128::from_le_bytes(want)), "{key:?}");
        }
        assert_eq!(pack("sixteen-bytes-xx"), None);
    }

    #[test]
    fn short_and_long_keys_never_collide() {
        // Packed keys carry their length: "a" and "a\0" differ; keys of 15 and 16 bytes take
        // the two maps.
        let keys = [
            "",
            "a",
            "a\0",
            "\0",
            "exactly-15-byte",
            "exactly-16-bytes",
            "ü",
            "a-much-longer-key-than-fifteen",
        ];
        let mut i = KeyInterner::default();
        for (n, k) in keys.iter().enumerate() {
            assert_eq!(i.intern(k), (n as u32, true), "{k:?}");
        }
        for (n, k) in keys.iter().enumerate() {
            assert_eq!(i.intern(k), (n as u32, false), "{k:?}");
        }
        assert_eq!(i.names().len(), keys.len());
        assert_eq!(&*i.names()[5], "exactly-16-bytes");
    }
}
