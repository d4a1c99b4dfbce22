//! strata's internals that its own benchmarks, fuzzers and integration tests reach, with **no
//! stability promise**: only with the `unstable` cargo feature, which `strata-bench`,
//! `strata-fuzz` and strata's own tests enable. Applications and the front ends (CLI, SQL,
//! Python) build on the modules at the crate root; a test (`strata-architecture`) refuses
//! `strata::unstable` anywhere else.
//!
//! This is a curated list, not the internal modules themselves: inside the crate the layers are
//! `crate::format`, `crate::lsm`, `crate::index`, `crate::meta` (all `pub(crate)`), and an item
//! appears here only when a benchmark, fuzzer or test needs it.

/// Data-file formats: the Parquet reader with Paimon's layout and its read options and hints.
pub mod format {
    pub use crate::format::arrow_types::from_arrow_schema;
    pub use crate::format::deletion_vector::encode_deletion_vectors_index;
    pub use crate::format::map_shredding::read::{file_shredding_meta, ShreddedRead};
    pub use crate::format::parquet_reader::{
        read_parquet_metadata, read_parquet_with, ParquetReadOptions, PushedRowFilter,
    };
    pub use crate::format::read_hints::ReadHints;
    pub use crate::format::rowgroup_stats::row_group_stats;
}

/// Index files: the dynamic-bucket HASH index and the index manifest.
pub mod index {
    pub use crate::index::assigner::DynamicBucketAssigner;
    pub use crate::index::hash_file::HashIndexFiles;
    pub use crate::index::key_hash::KeyHasher;
    pub use crate::index::manifest::{IndexManifestStore, DELETION_VECTORS_INDEX};
}

/// Table directory layout.
pub mod meta {
    pub use crate::meta::paths::FileNamer;
}

/// The LSM tree's compaction strategy.
pub mod lsm {
    pub use crate::lsm::compact::strategy::compaction_file_size;
}
