//! Paimon's manifest layer: the domain structs of manifest files, manifest lists and index
//! manifests, their Avro codecs (pure bytes in, bytes out), entry merging and the manifest-list
//! summary of a manifest file.
//!
//! | module | what |
//! |---|---|
//! | [`model`] | `ManifestEntry`, `DataFileMeta`, `ManifestFileMeta`, `IndexManifestEntry`, … |
//! | [`compression`] | `ManifestCompression` from `manifest.compression` |
//! | `entry_codec`, `list_codec`, `index_codec` | encode/decode of the three file kinds |
//! | `codec` | Java's writer schemas (exact header text) and the shared encode/decode loop |
//! | `ocf` | the Avro object container (header, blocks, sync marker); writer schemas interned |
//! | `zstd_block` | zstandard blocks decompressed with a reused per-thread context |
//! | `avro_value` | bounded Avro datum decoding into apache-avro `Value`s |
//! | `wire` | by-name field access on decoded records, value builders for encoding |
//! | [`lazy`] | `RawManifest`: entries kept encoded, routing fields read, survivors decoded |
//! | `lazy_walk` | the walker behind `lazy`: a writer schema compiled into a skip/read program |
//! | [`merge`] | `merge_entries`: live files from ADD/DELETE entries |
//! | [`summary`] | `ManifestStatsCollector`: the `ManifestFileMeta` of a manifest file |
//!
//! Writing produces exactly Java's files (schema text, field order, `_VERSION`, unions
//! `["null", T]`); reading resolves fields by name from the writer schema and accepts the
//! variants written by Paimon ≤0.8, pypaimon and pypaimon-rust. Full decoding goes through
//! apache-avro `Value`s and is kept apart from the domain mapping; scans avoid it for the
//! entries they drop through lazy decoding (`lazy`), which accepts the same writer schemas.

mod avro_value;
mod codec;
pub mod compression;
mod entry_codec;
mod index_codec;
pub mod lazy;
mod lazy_walk;
mod list_codec;
pub mod merge;
pub mod model;
mod ocf;
pub mod summary;
mod version;
mod wire;
mod zstd_block;

#[cfg(test)]
mod testkit;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_compat;
#[cfg(test)]
mod tests_corrupt;
#[cfg(test)]
mod tests_lazy;

pub use codec::{
    index_manifest_schema_json, manifest_entry_schema_json, manifest_list_schema_json,
};
pub use compression::{ManifestCompression, DEFAULT_ZSTD_LEVEL};
pub use entry_codec::{decode_manifest_entries, encode_manifest_entries};
pub use index_codec::{decode_index_manifest, encode_index_manifest, INDEX_MANIFEST_VERSION};
pub use lazy::{
    EntryFilter, EntryHead, EntrySchema, IdentityExtras, KeepAll, RawEntry, RawManifest,
};
pub use list_codec::{decode_manifest_list, encode_manifest_list, MANIFEST_LIST_VERSION};
pub use merge::{
    merge_entries, EntryMerger, FileEntryIdentifier, GenericMerger, MergeItem, Merged,
    MergedEntries,
};
pub use model::{
    DataFileMeta, DeletionVectorMeta, FileKind, FileSource, GlobalIndexMeta, IndexFileMeta,
    IndexManifestEntry, ManifestEntry, ManifestFileMeta,
};
pub use summary::{manifest_file_meta, ManifestStatsCollector};
pub use version::MANIFEST_ENTRY_VERSION;
