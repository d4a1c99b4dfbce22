//! A process-wide cache for metadata that is expensive to rebuild: the public [`Cache`] trait
//! and the built-in weight-bounded [`LruCache`].
//!
//! One cache instance is meant to be shared by every table, scan and thread of a process
//! (hand the same `Arc<dyn Cache>` to [`crate::catalog::FileSystemCatalog::with_cache`] or to each
//! [`crate::scan::TableScan::with_cache`]). Entries are namespaced by [`CacheKind`], so the
//! same instance can hold unrelated kinds of values side by side; today strata stores
//! [`CacheKind::SnapshotLiveManifest`] values (the snapshot live manifest entry cache of
//! [`crate::scan`]), and the other kinds are reserved for manifest bytes and Parquet footers.
//!
//! Values are immutable byte strings ([`bytes::Bytes`]): cheap to share between threads,
//! weighed by their length, and storable by any implementation — an in-process LRU, a
//! memory-mapped arena, or a shared cache service. A value's format is owned by the code
//! that writes it (for snapshot live entries, `scan::entries::slot` and `slot_index`); a
//! cache never interprets values, and readers treat an undecodable value as a miss.

mod lru;

pub use lru::{CacheStats, LruCache};

use bytes::Bytes;

/// What a cached value is. Part of the key, so kinds never collide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum CacheKind {
    /// Merged live manifest entries of one (table, branch, bucket): one value per snapshot
    /// (a slot) plus an index of the bucket's slots.
    SnapshotLiveManifest,
    /// Raw bytes of a manifest or manifest-list file (reserved).
    ManifestBytes,
    /// A Parquet file footer (reserved).
    ParquetFooter,
}

/// Key of a cached value: its kind plus a kind-specific string (for snapshot live entries:
/// table location, branch and bucket, plus snapshot id and manifest lists for a slot).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CacheKey {
    /// What the value is; the same `key` under two kinds names two entries.
    pub kind: CacheKind,
    /// The kind-specific part of the key (see [`CacheKey`]).
    pub key: String,
}

impl CacheKey {
    /// The key of a value of `kind` named `key`.
    pub fn new(kind: CacheKind, key: impl Into<String>) -> Self {
        CacheKey {
            kind,
            key: key.into(),
        }
    }

    /// Bytes this key takes in a cache, counted in entry weights.
    pub fn weight(&self) -> usize {
        self.key.len() + std::mem::size_of::<CacheKey>()
    }
}

/// A shared cache of immutable byte values. Implementations must be safe to call from many
/// threads at once; `get` after `put` may return `None` (the value may have been evicted),
/// never a value other than one that was put under the key.
pub trait Cache: Send + Sync + std::fmt::Debug {
    /// The value under `key`, if present.
    fn get(&self, key: &CacheKey) -> Option<Bytes>;
    /// Stores `value` under `key`, replacing any previous value. An implementation may
    /// refuse values larger than its capacity (a later `get` returns `None`).
    fn put(&self, key: CacheKey, value: Bytes);
    /// Removes `key`.
    fn invalidate(&self, key: &CacheKey);
}
