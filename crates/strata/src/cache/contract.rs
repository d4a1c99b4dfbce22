//! What every cache implements and is keyed by: the [`Cache`] trait, [`CacheKey`] and
//! [`CacheKind`]. A leaf under the built-in [`super::LruCache`] and any other implementation.

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
