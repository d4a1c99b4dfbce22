//! PIP-43 shared-shredding of MAP columns in Parquet files: the Arrow side.
//!
//! The pure parts (options, dictionary, allocators, K, footer values) are in
//! [`strata_spec::shredding`]; this module converts batches and reads files:
//!
//! | module | what |
//! |---|---|
//! | [`write`] | [`MapShredding`] per rolling writer (K history), [`FileShredder`] per file: logical `MapArray` → physical struct, footer metadata |
//! | [`prune`] | `m['k'] OP c` → file and row-group skipping from the dictionary and `__col_i` statistics |
//! | [`pages`] | the same test on each page of the key's columns (page index) → the rows to decode |
//! | [`read`] | footer metadata from `ARROW:schema`, [`ShreddedRead`]: which children to decode for the whole map or selected keys, reconstruction |
//! | `rebuild` | the rebuilt `MapArray`: entries collected while rows are walked, primitive values copied on the spot, keys from the names |
//!
//! Physical layout of a column `m MAP<STRING, T>` with K columns (Parquet field ids as Java
//! assigns them: the struct keeps `m`'s id, children 0..=K+1):
//!
//! ```text
//! m STRUCT<
//!   __field_mapping ARRAY<INT>        -- K ids per row, -1 = empty slot
//!   __col_0 .. __col_{K-1} T          -- shared typed columns (nullable)
//!   __overflow MAP<INT NOT NULL, T>   -- entries that found no column; NULL when none
//! >
//! ```

pub(crate) mod pages;
pub(crate) mod prune;
pub(crate) mod read;
mod rebuild;
pub(crate) mod write;

pub(crate) use pages::page_selection;
pub(crate) use prune::row_groups_may_match;
pub(crate) use read::{file_shredding_meta, FileShreddingMeta, ShreddedRead};
pub(crate) use write::{FileShredder, MapShredding};

// Paths strata's unit tests use (the crate uses the defining modules).
#[cfg(test)]
#[allow(unused_imports)]
pub(crate) use write::physical_field;
