//! Domain structs of Paimon's manifest layer, independent of their Avro wire form:
//! [`ManifestEntry`] (one row of a manifest file) with its [`DataFileMeta`],
//! [`ManifestFileMeta`] (one row of a manifest list) and [`IndexManifestEntry`] (one row of an
//! index manifest). Field meanings follow Java's `org.apache.paimon.manifest` / `io` classes.

use crate::binary_row::BinaryRow;
use crate::error::{Result, SpecError};
use crate::stats::SimpleStats;

/// Whether a manifest entry adds or deletes a file (`_KIND`, Java `FileKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    Add = 0,
    Delete = 1,
}

impl FileKind {
    /// The byte Paimon stores in `_KIND`.
    pub fn to_byte(self) -> i8 {
        self as i8
    }

    /// Parses the stored `_KIND` value (0 = ADD, 1 = DELETE).
    pub fn from_byte(value: i32) -> Result<FileKind> {
        match value {
            0 => Ok(FileKind::Add),
            1 => Ok(FileKind::Delete),
            other => Err(SpecError::invalid(
                "_KIND",
                format!("unknown file kind {other} (expected 0 = ADD or 1 = DELETE)"),
            )),
        }
    }
}

/// How a data file came to be (`_FILE_SOURCE`, Java `FileSource`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileSource {
    /// Written by a new write (flush or append).
    Append = 0,
    /// Written by compaction.
    Compact = 1,
}

impl FileSource {
    /// The byte Paimon stores in `_FILE_SOURCE`.
    pub fn to_byte(self) -> i8 {
        self as i8
    }

    /// Parses the stored `_FILE_SOURCE` value (0 = APPEND, 1 = COMPACT).
    pub fn from_byte(value: i32) -> Result<FileSource> {
        match value {
            0 => Ok(FileSource::Append),
            1 => Ok(FileSource::Compact),
            other => Err(SpecError::invalid(
                "_FILE_SOURCE",
                format!("unknown file source {other} (expected 0 = APPEND or 1 = COMPACT)"),
            )),
        }
    }
}

/// Metadata of one data file (`_FILE` of a manifest entry; Java `DataFileMeta`).
#[derive(Clone, Debug, PartialEq)]
pub struct DataFileMeta {
    /// File name only, no directory.
    pub file_name: String,
    pub file_size: i64,
    /// Rows in the file, adds and retracts together.
    pub row_count: i64,
    /// First key of the file (primary-key tables, trimmed primary key); empty row for append.
    pub min_key: BinaryRow,
    pub max_key: BinaryRow,
    pub key_stats: SimpleStats,
    pub value_stats: SimpleStats,
    pub min_sequence_number: i64,
    pub max_sequence_number: i64,
    /// Schema id the file was written with.
    pub schema_id: i64,
    /// LSM level (0 for new writes and append files).
    pub level: i32,
    /// Sidecar files, e.g. `<file>.index`.
    pub extra_files: Vec<String>,
    /// `_CREATION_TIME` exactly as stored: epoch millis of the writer's *local* wall clock.
    pub creation_time: Option<i64>,
    /// Retract rows (-U/-D) in the file.
    pub delete_row_count: Option<i64>,
    /// File index bytes embedded in the manifest.
    pub embedded_index: Option<Vec<u8>>,
    pub file_source: Option<FileSource>,
    /// `None` = value stats cover all columns of `schema_id`; `Some(cols)` = exactly these.
    pub value_stats_cols: Option<Vec<String>>,
    /// Full path when the file lives outside the table directory.
    pub external_path: Option<String>,
    /// Row tracking: id of the first row.
    pub first_row_id: Option<i64>,
    /// Columns physically present (data-evolution partial writes); `None` = all.
    pub write_cols: Option<Vec<String>>,
}

impl DataFileMeta {
    /// Number of rows that are additions: `row_count - delete_row_count` (unknown deletes = 0).
    pub fn add_row_count(&self) -> i64 {
        self.row_count - self.delete_row_count.unwrap_or(0)
    }
}

/// One row of a manifest file: a file added to or deleted from a partition/bucket
/// (Java `ManifestEntry`).
#[derive(Clone, Debug, PartialEq)]
pub struct ManifestEntry {
    pub kind: FileKind,
    /// Partition values as a BinaryRow (empty row for unpartitioned tables).
    pub partition: BinaryRow,
    pub bucket: i32,
    /// Table `bucket` option at write time (N, `-1` dynamic/unaware, `-2` postpone).
    pub total_buckets: i32,
    pub file: DataFileMeta,
}

/// One row of a manifest list: a manifest file and its summary (Java `ManifestFileMeta`).
#[derive(Clone, Debug, PartialEq)]
pub struct ManifestFileMeta {
    /// Manifest file name, no directory.
    pub file_name: String,
    pub file_size: i64,
    pub num_added_files: i64,
    pub num_deleted_files: i64,
    /// Min/max/null counts over the partition rows of the entries (full stats).
    pub partition_stats: SimpleStats,
    /// Max schema id of the entries.
    pub schema_id: i64,
    pub min_bucket: Option<i32>,
    pub max_bucket: Option<i32>,
    pub min_level: Option<i32>,
    pub max_level: Option<i32>,
    /// Present only when every entry has a first row id.
    pub min_row_id: Option<i64>,
    /// `max(first_row_id + row_count - 1)`.
    pub max_row_id: Option<i64>,
}

/// One row of an index manifest (Java `IndexManifestEntry`).
#[derive(Clone, Debug, PartialEq)]
pub struct IndexManifestEntry {
    pub kind: FileKind,
    pub partition: BinaryRow,
    pub bucket: i32,
    pub index_file: IndexFileMeta,
}

/// An index file (Java `IndexFileMeta`).
#[derive(Clone, Debug, PartialEq)]
pub struct IndexFileMeta {
    /// `HASH`, `DELETION_VECTORS` or a global-index type.
    pub index_type: String,
    pub file_name: String,
    pub file_size: i64,
    /// HASH: number of hashes; DELETION_VECTORS: number of vectors in the file (Java's
    /// `DeletionFileWriter.result` records `dvMetas.size()`).
    pub row_count: i64,
    /// Deletion-vector ranges, in file order (`_DELETIONS_VECTORS_RANGES`).
    pub dv_ranges: Option<Vec<DeletionVectorMeta>>,
    pub external_path: Option<String>,
    pub global_index: Option<GlobalIndexMeta>,
}

/// Where one data file's deletion vector lives inside a deletion-vector index file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeletionVectorMeta {
    /// Data file the vector belongs to (`f0`).
    pub data_file_name: String,
    /// Byte offset in the index file of the vector's 4-byte length prefix (`f1`).
    pub offset: i32,
    /// Length Java's `DeletionVector.serializeTo` returns (`f2`): magic + bitmap for the
    /// 32-bit form (without length prefix and CRC), the whole serialized size for the 64-bit
    /// form.
    pub length: i32,
    /// Deleted rows (`_CARDINALITY`).
    pub cardinality: Option<i64>,
}

/// Row range and fields covered by a global index file (`_GLOBAL_INDEX`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalIndexMeta {
    /// Inclusive.
    pub row_range_start: i64,
    /// Inclusive.
    pub row_range_end: i64,
    pub index_field_id: i32,
    pub extra_field_ids: Option<Vec<i32>>,
    pub index_meta: Option<Vec<u8>>,
    pub source_meta: Option<Vec<u8>>,
}
