//! Paimon's per-data-file indexes (Java's `FileIndexer` family): the container
//! ([`container`], Java `FileIndexFormat`), the `bloom-filter` ([`bloom_filter`],
//! `BloomFilterFileIndex`) and `bitmap` ([`bitmap`], `BitmapFileIndex`) codecs, and the
//! evaluation of a read's filter against a file's indexes ([`evaluate`], Java's
//! `FileIndexPredicate`): a file whose indexes prove no row can match is skipped.
//!
//! `bsi` ([`bsi`], `BitSliceIndexBitmapFileIndex`) and `range-bitmap` ([`range_bitmap`],
//! `RangeBitmapFileIndex`) are read and written too.

pub(crate) mod bitmap;
pub(crate) mod bloom_filter;
pub(crate) mod bsi;
pub(crate) mod container;
mod predicate;
pub(crate) mod range_bitmap;
mod result;
pub(crate) mod writer;

pub(crate) use predicate::{evaluate, IndexedColumn};

/// `DataFilePathFactory.INDEX_PATH_SUFFIX`: a data file's separate index is
/// `<data-file>.index` in its directory.
pub(crate) const INDEX_PATH_SUFFIX: &str = ".index";
