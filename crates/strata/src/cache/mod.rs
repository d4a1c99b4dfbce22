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

mod contract;
mod lru;

pub use contract::{Cache, CacheKey, CacheKind};
pub use lru::{CacheStats, LruCache};
