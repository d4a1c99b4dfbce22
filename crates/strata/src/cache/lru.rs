//! [`LruCache`]: the built-in [`Cache`], bounded by the total weight (bytes) of its entries
//! and evicting the least recently used entry first.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use bytes::Bytes;

use super::contract::{Cache, CacheKey};

/// Counters of an [`LruCache`] since it was created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups that found their key.
    pub hits: u64,
    /// Lookups that found nothing (never cached, evicted or invalidated).
    pub misses: u64,
    /// Values stored (a replaced key counts again; rejected values do not count).
    pub puts: u64,
    /// Entries dropped, least recently used first, to make room for a new value.
    pub evictions: u64,
    /// Values refused because they alone exceed the capacity.
    pub rejected: u64,
    /// Entries held now.
    pub entries: usize,
    /// Current total weight (value bytes plus key overhead).
    pub weight: usize,
    /// The bound on [`CacheStats::weight`] the cache was created with, in bytes.
    pub capacity: usize,
}

#[derive(Debug)]
struct Slot {
    value: Bytes,
    weight: usize,
    tick: u64,
}

#[derive(Debug, Default)]
struct Inner {
    map: HashMap<CacheKey, Slot>,
    /// Recency order: tick → key; the smallest tick is the least recently used.
    order: BTreeMap<u64, CacheKey>,
    next_tick: u64,
    stats: CacheStats,
}

impl Inner {
    fn touch(&mut self, key: &CacheKey) -> Option<Bytes> {
        let tick = self.next_tick;
        let slot = self.map.get_mut(key)?;
        self.next_tick += 1;
        self.order.remove(&slot.tick);
        slot.tick = tick;
        self.order.insert(tick, key.clone());
        Some(slot.value.clone())
    }

    fn remove(&mut self, key: &CacheKey) {
        if let Some(slot) = self.map.remove(key) {
            self.order.remove(&slot.tick);
            self.stats.weight -= slot.weight;
        }
    }
}

/// A thread-safe LRU cache bounded by total weight, where an entry weighs its value's
/// length plus its key ([`CacheKey::weight`]).
#[derive(Debug)]
pub struct LruCache {
    capacity: usize,
    inner: Mutex<Inner>,
}

impl LruCache {
    /// A cache holding at most `capacity_bytes` of keys and values.
    pub fn new(capacity_bytes: usize) -> Self {
        LruCache {
            capacity: capacity_bytes,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The most bytes of keys and values the cache holds (its `capacity_bytes`).
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The counters so far, with the current entry count, weight and capacity.
    pub fn stats(&self) -> CacheStats {
        let inner = self.lock();
        CacheStats {
            entries: inner.map.len(),
            capacity: self.capacity,
            ..inner.stats
        }
    }

    /// Removes every entry.
    pub fn clear(&self) {
        let mut inner = self.lock();
        inner.map.clear();
        inner.order.clear();
        inner.stats.weight = 0;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // The map is consistent after every statement that can panic (none do while the lock
        // is held), so a poisoned lock is still a valid cache.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Cache for LruCache {
    fn get(&self, key: &CacheKey) -> Option<Bytes> {
        let mut inner = self.lock();
        let found = inner.touch(key);
        if found.is_some() {
            inner.stats.hits += 1;
        } else {
            inner.stats.misses += 1;
        }
        found
    }

    fn put(&self, key: CacheKey, value: Bytes) {
        let weight = value.len() + key.weight();
        let mut inner = self.lock();
        inner.remove(&key);
        if weight > self.capacity {
            inner.stats.rejected += 1;
            return;
        }
        while inner.stats.weight + weight > self.capacity {
            let Some((_, oldest)) = inner.order.pop_first() else {
                break;
            };
            if let Some(slot) = inner.map.remove(&oldest) {
                inner.stats.weight -= slot.weight;
                inner.stats.evictions += 1;
            }
        }
        let tick = inner.next_tick;
        inner.next_tick += 1;
        inner.order.insert(tick, key.clone());
        inner.map.insert(
            key,
            Slot {
                value,
                weight,
                tick,
            },
        );
        inner.stats.weight += weight;
        inner.stats.puts += 1;
    }

    fn invalidate(&self, key: &CacheKey) {
        self.lock().remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::super::CacheKind;
    use super::*;
    use proptest::prelude::*;

    fn key(k: &str) -> CacheKey {
        CacheKey::new(CacheKind::SnapshotLiveManifest, k)
    }

    fn value(n: usize) -> Bytes {
        Bytes::from(vec![7u8; n])
    }

    #[test]
    fn evicts_least_recently_used_first() {
        let w = key("a").weight();
        let cache = LruCache::new(3 * (100 + w));
        cache.put(key("a"), value(100));
        cache.put(key("b"), value(100));
        cache.put(key("c"), value(100));
        // Touch a: b becomes the oldest.
        assert!(cache.get(&key("a")).is_some());
        cache.put(key("d"), value(100));
        assert!(cache.get(&key("b")).is_none());
        for k in ["a", "c", "d"] {
            assert!(cache.get(&key(k)).is_some(), "{k}");
        }
        let s = cache.stats();
        assert_eq!((s.entries, s.evictions, s.weight), (3, 1, 3 * (100 + w)));
    }

    #[test]
    fn replacing_a_key_updates_its_weight_and_oversized_values_are_refused() {
        let cache = LruCache::new(1000);
        cache.put(key("a"), value(100));
        cache.put(key("a"), value(300));
        assert_eq!(cache.get(&key("a")).unwrap().len(), 300);
        assert_eq!(cache.stats().weight, 300 + key("a").weight());
        cache.put(key("big"), value(2000));
        assert!(cache.get(&key("big")).is_none());
        assert_eq!(cache.stats().rejected, 1);
        cache.invalidate(&key("a"));
        assert_eq!(cache.stats().weight, 0);
    }

    #[test]
    fn kinds_do_not_collide() {
        let cache = LruCache::new(10_000);
        cache.put(key("k"), value(1));
        let other = CacheKey::new(CacheKind::ManifestBytes, "k");
        assert!(cache.get(&other).is_none());
    }

    #[test]
    fn shared_between_threads() {
        let cache = std::sync::Arc::new(LruCache::new(50_000));
        std::thread::scope(|s| {
            for t in 0..4 {
                let cache = cache.clone();
                s.spawn(move || {
                    for i in 0..500 {
                        let k = key(&format!("{t}-{}", i % 50));
                        if cache.get(&k).is_none() {
                            cache.put(k, value(100 + t));
                        }
                    }
                });
            }
        });
        let s = cache.stats();
        assert!(s.weight <= s.capacity);
        assert_eq!(s.hits + s.misses, 2000);
    }

    proptest! {
        /// Against a model: the weight never exceeds the capacity, a present value is the
        /// last one put, and the evicted key is always the least recently used.
        #[test]
        fn behaves_like_a_model(ops in prop::collection::vec((0u8..3, 0u8..8, 1usize..200), 1..200)) {
            let cap = 600;
            let cache = LruCache::new(cap);
            let mut model: Vec<(String, usize)> = Vec::new(); // most recent last
            for (op, k, n) in ops {
                let name = format!("k{k}");
                match op {
                    0 => {
                        cache.put(key(&name), value(n));
                        model.retain(|(m, _)| *m != name);
                        let w = n + key(&name).weight();
                        if w <= cap {
                            let mut total: usize = model.iter().map(|(m, v)| v + key(m).weight()).sum();
                            while total + w > cap {
                                let (m, v) = model.remove(0);
                                total -= v + key(&m).weight();
                            }
                            model.push((name, n));
                        }
                    }
                    1 => {
                        let got = cache.get(&key(&name)).map(|b| b.len());
                        let pos = model.iter().position(|(m, _)| *m == name);
                        prop_assert_eq!(got, pos.map(|p| model[p].1));
                        if let Some(p) = pos {
                            let e = model.remove(p);
                            model.push(e);
                        }
                    }
                    _ => {
                        cache.invalidate(&key(&name));
                        model.retain(|(m, _)| *m != name);
                    }
                }
                prop_assert!(cache.stats().weight <= cap);
                prop_assert_eq!(cache.stats().entries, model.len());
            }
        }
    }
}
