//! Data file formats: Parquet with Paimon's column layout (read and written), ORC and Avro (read),
//! Arrow ⇄ Paimon types, statistics.
//!
//! | module | what |
//! |---|---|
//! | [`arrow_types`] | Paimon types ⇄ Arrow types/fields/schemas (with Parquet field ids) |
//! | [`convert`] | aligning input batches to a table schema: by-name matching, strict casts, NOT NULL |
//! | [`datum`] | single Arrow values ⇄ [`strata_spec::Datum`] |
//! | [`deletion_vector`] | deletion vectors ⇄ bytes (Java's 32- and 64-bit forms) and the DV index file layout |
//! | [`stats`] | [`StatsCollector`]: per-column min/max/null counts by stats mode |
//! | [`stats_options`] | which stats each column gets (`metadata.stats-mode`, per-field modes, dense store) |
//! | [`parquet_writer`] | [`ParquetWriter`]: one data file, Java's writer settings |
//! | [`parquet_write_options`] | [`ParquetWriteOptions`]: those settings, read from table options |
//! | [`parallel_encoder`] | Parquet column encoding on two threads (used by the writer) |
//! | `int96` | TIMESTAMP(7..9) as INT96 leaves, as Java writes them (read by Java 1.x) |
//! | [`dictionary_choice`] | which columns keep a dictionary: parquet-java's fallback rule |
//! | [`column_orders`] | footer column orders Java/Spark/pyarrow read statistics under |
//! | [`parquet_reader`] | [`read_parquet`]: any writer's file as batches of the read schema |
//! | `blob_descriptor` | Java's serialized `BlobDescriptor` (`blob-as-descriptor` values) |
//! | `blob_reader` | `.blob` files of BLOB columns (Java's `BlobFileFormat`), read whole |
//! | `blob_writer` | `.blob` files written as Java's `BlobFormatWriter` (streamed, rolled by the caller) |
//! | [`data_file_reader`] | [`read_data_file`]: a data file of any format, picked by its extension |
//! | `orc_reader` | ORC data files Java writes (`file.format` = orc), via orc-rust |
//! | `avro_reader` | Avro data files Java writes (`file.format` = avro), via arrow-avro |
//! | `avro_container` | Avro container headers: Java 1.0's top-level `["null", record]` read as its record |
//! | `nested_rewrite` | format-specific value layouts undone inside nested columns |
//! | [`evolve`] | schema evolution by field id while reading |
//! | [`map_shredding`] | PIP-43 shared-shredding MAP columns: conversion, footer metadata, reconstruction |
//! | [`rowgroup_stats`] | footer statistics as Paimon column stats (row-group pruning) |
//! | [`page_pruning`] | row groups and pages a filter rules out by footer statistics and the page index |
//! | [`read_hints`] | selected MAP keys, MAP-key predicates and read counters passed to the reader |

pub(crate) mod arrow_types;
mod avro_container;
mod avro_reader;
pub(crate) mod blob_descriptor;
pub(crate) mod blob_reader;
pub(crate) mod blob_writer;
mod column_orders;
pub(crate) mod convert;
pub(crate) mod data_file_reader;
pub(crate) mod datum;
mod decode_guard;
mod decoded_file;
pub(crate) mod deletion_vector;
mod dictionary_choice;
pub(crate) mod evolve;
pub(crate) mod file_index;
mod int96;
pub(crate) mod map_shredding;
mod nested_rewrite;
mod orc_reader;
pub(crate) mod page_pruning;
pub(crate) mod parallel_encoder;
pub(crate) mod parquet_reader;
pub(crate) mod parquet_write_options;
pub(crate) mod parquet_writer;
pub(crate) mod read_hints;
pub(crate) mod rowgroup_stats;
pub(crate) mod stats;
pub(crate) mod stats_options;
mod variant_encode;
pub(crate) mod variant_json;
pub(crate) mod variant_shred_adaptive;
mod variant_shred_infer;
mod variant_shred_schema;
mod variant_shred_write;
mod variant_shredding;

pub(crate) use datum::datum_at;
pub(crate) use read_hints::{MapKeyLeaf, MapKeyPredicate, ReadHints, ReadMetrics};

// Paths strata's unit tests use (the crate uses the defining modules).
#[cfg(test)]
#[allow(unused_imports)]
pub(crate) use {
    arrow_types::{
        from_arrow_schema, from_arrow_type, to_arrow_field, to_arrow_schema, to_arrow_schema_of,
        to_arrow_type,
    },
    convert::{cast_array, cast_batch_to_schema},
    data_file_reader::{read_data_file, DataFileFormat},
    datum::datums_to_array,
    parquet_reader::{
        read_parquet, read_parquet_metadata, read_parquet_with, ParquetReadOptions, RowGroupFilter,
    },
    parquet_write_options::{ParquetCompression, ParquetWriteOptions},
    parquet_writer::{ParquetFileInfo, ParquetWriter},
    read_hints::ReadMetricsSnapshot,
    rowgroup_stats::row_group_stats,
    stats::StatsCollector,
};

#[cfg(test)]
mod tests;
