//! PIP-43 shared-shredding of `MAP<STRING, T>` columns: the pure parts.
//!
//! A shredded MAP column is stored as a struct of K shared typed columns
//! (`STRUCT<__field_mapping ARRAY<INT>, __col_0 T, …, __col_{K-1} T, __overflow MAP<INT, T>>`):
//! each row's entries are placed into the columns by a placement policy, `__field_mapping`
//! records per row which field id each column holds (`-1`: empty), and entries that find no
//! column go to `__overflow`, keyed by field id. Field ids come from a per-file dictionary
//! stored, with per-field column sets and K, in the file's footer.
//!
//! | module | what |
//! |---|---|
//! | [`options`] | `fields.<col>.map.*` options and Paimon's validation rules |
//! | [`dict`] | the per-file field dictionary (first-seen ids) |
//! | [`allocator`] | plain / sequential / lru column placement and the file statistics |
//! | [`context`] | K across a writer's files (P90 of recent widths with a closeness rule) |
//! | [`plan`] | a file's K and the frequent keys given dedicated columns (strata extension) |
//! | [`metadata`] | the `paimon.map.*` footer values, with the dictionary compressed |
//! | `json_fast` | fast paths for the footer's JSON values (serde_json behind them) |
//!
//! The Arrow conversion and the Parquet footer embedding live in `strata::format`.

pub mod allocator;
pub mod context;
pub mod dict;
mod json_fast;
pub mod metadata;
pub mod options;
pub mod plan;

pub use allocator::{AllocationStats, ColumnAllocator, RowAllocation};
pub use context::{FileReport, ShreddingContext};
pub use dict::FieldDict;
pub use metadata::{DictCompression, MapShreddingFileMeta};
pub use options::{
    dictionary_compression, is_string_key_map, shredded_map_columns, MapStorageLayout,
    PlacementPolicy, ShreddedMapColumn,
};
pub use plan::{FilePlan, KeySample};
