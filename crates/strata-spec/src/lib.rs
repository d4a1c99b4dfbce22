//! # strata-spec — Apache Paimon's on-disk format, pure
//!
//! Everything strata must agree on byte-for-byte with Java Paimon, pypaimon and paimon-rust,
//! with no I/O and no async: callers hand in bytes and get values back (and vice versa).
//! The layers above (`strata`: io, format, table operations) own files and paths.
//!
//! | module | what |
//! |---|---|
//! | [`types`] | `DataType`, `DataField`, `RowType` and their schema-JSON text form |
//! | [`datum`] | `Datum`: one scalar value in Paimon's internal representation |
//! | [`schema`] | `TableSchema` (`schema/schema-N`), the create-table `Schema` |
//! | [`snapshot`] | `Snapshot` (`snapshot/snapshot-N`), `CommitKind` |
//! | [`binary_row`] | `BinaryRow`: Paimon's row encoding for partitions, keys and stats |
//! | [`bucket`] | Paimon's Murmur3 row hash and bucket assignment |
//! | [`partition`] | partition directory names (`dt=2024-01-01/`) |
//! | [`stats`] | `SimpleStats` (min/max/null counts as BinaryRows) |
//! | [`manifest`] | `DataFileMeta`, `ManifestEntry`, `ManifestFileMeta` and their Avro codecs |
//! | [`options`] | table options (`CoreOptions`): names, defaults, validation |
//! | [`kv`] | `RowKind` and the key-value data-file columns of primary-key tables |
//! | [`rest`] | Paimon's REST catalog protocol: request and response bodies |
//! | [`json`] | Jackson-compatible pretty printing used for schema and snapshot files |

pub mod binary_row;
pub mod bucket;
pub mod datum;
pub mod error;
pub mod json;
pub mod kv;
pub mod manifest;
pub mod options;
pub mod partition;
pub mod rest;
pub mod schema;
pub mod shredding;
pub mod snapshot;
pub mod stats;
pub mod types;
mod value_text;

pub use datum::Datum;
pub use error::{Result, SpecError};
pub use types::{DataField, DataType, RowType, TypeKind};
