//! Option names, well-known values and the enum-valued options of `CoreOptions`.

// ---- keys --------------------------------------------------------------------------------

pub const BUCKET: &str = "bucket";
pub const BUCKET_KEY: &str = "bucket-key";
pub const BUCKET_FUNCTION_TYPE: &str = "bucket-function.type";
pub const PRIMARY_KEY: &str = "primary-key";
pub const PARTITION: &str = "partition";
pub const PRIMARY_KEY_NULLABLE: &str = "primary-key.nullable";
pub const FILE_FORMAT: &str = "file.format";
pub const FILE_COMPRESSION: &str = "file.compression";
pub const FILE_COMPRESSION_ZSTD_LEVEL: &str = "file.compression.zstd-level";
pub const FILE_SUFFIX_INCLUDE_COMPRESSION: &str = "file.suffix.include.compression";
pub const MANIFEST_COMPRESSION: &str = "manifest.compression";
pub const MANIFEST_TARGET_FILE_SIZE: &str = "manifest.target-file-size";
pub const MANIFEST_MERGE_MIN_COUNT: &str = "manifest.merge-min-count";
pub const MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE: &str = "manifest.full-compaction-threshold-size";
pub const TARGET_FILE_SIZE: &str = "target-file-size";
pub const TARGET_FILE_ROW_NUM: &str = "target-file-row-num";
pub const WRITE_BUFFER_SIZE: &str = "write-buffer-size";
pub const WRITE_BUFFER_SPILLABLE: &str = "write-buffer-spillable";
pub const PAGE_SIZE: &str = "page-size";
pub const WRITE_ONLY: &str = "write-only";
pub const NUM_SORTED_RUNS_COMPACTION_TRIGGER: &str = "num-sorted-run.compaction-trigger";
pub const NUM_SORTED_RUNS_STOP_TRIGGER: &str = "num-sorted-run.stop-trigger";
pub const NUM_LEVELS: &str = "num-levels";
pub const COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT: &str =
    "compaction.max-size-amplification-percent";
pub const COMPACTION_SIZE_RATIO: &str = "compaction.size-ratio";
pub const COMPACTION_MIN_FILE_NUM: &str = "compaction.min.file-num";
pub const COMPACTION_FORCE_UP_LEVEL_0: &str = "compaction.force-up-level-0";
pub const COMMIT_FORCE_COMPACT: &str = "commit.force-compact";
pub const MERGE_ENGINE: &str = "merge-engine";
pub const SEQUENCE_FIELD: &str = "sequence.field";
pub const CHANGELOG_PRODUCER: &str = "changelog-producer";
pub const IGNORE_DELETE: &str = "ignore-delete";
pub const DELETION_VECTORS_ENABLED: &str = "deletion-vectors.enabled";
pub const SNAPSHOT_NUM_RETAINED_MIN: &str = "snapshot.num-retained.min";
pub const SNAPSHOT_NUM_RETAINED_MAX: &str = "snapshot.num-retained.max";
pub const SNAPSHOT_TIME_RETAINED: &str = "snapshot.time-retained";
pub const SNAPSHOT_EXPIRE_LIMIT: &str = "snapshot.expire.limit";
pub const SNAPSHOT_CLEAN_EMPTY_DIRECTORIES: &str = "snapshot.clean-empty-directories";
pub const CHANGELOG_NUM_RETAINED_MIN: &str = "changelog.num-retained.min";
pub const CHANGELOG_NUM_RETAINED_MAX: &str = "changelog.num-retained.max";
pub const CHANGELOG_TIME_RETAINED: &str = "changelog.time-retained";
pub const PARTITION_DEFAULT_NAME: &str = "partition.default-name";
pub const PARTITION_LEGACY_NAME: &str = "partition.legacy-name";
pub const DATA_FILE_PREFIX: &str = "data-file.prefix";
pub const CHANGELOG_FILE_PREFIX: &str = "changelog-file.prefix";
pub const DATA_FILE_THIN_MODE: &str = "data-file.thin-mode";
pub const METADATA_STATS_MODE: &str = "metadata.stats-mode";
pub const METADATA_STATS_DENSE_STORE: &str = "metadata.stats-dense-store";
pub const METADATA_STATS_KEEP_FIRST_N_COLUMNS: &str = "metadata.stats-keep-first-n-columns";
pub const FILE_INDEX_IN_MANIFEST_THRESHOLD: &str = "file-index.in-manifest-threshold";
pub const DYNAMIC_PARTITION_OVERWRITE: &str = "dynamic-partition-overwrite";
pub const COMMIT_MAX_RETRIES: &str = "commit.max-retries";
pub const COMMIT_TIMEOUT: &str = "commit.timeout";
pub const COMMIT_MIN_RETRY_WAIT: &str = "commit.min-retry-wait";
pub const COMMIT_MAX_RETRY_WAIT: &str = "commit.max-retry-wait";
pub const DYNAMIC_BUCKET_TARGET_ROW_NUM: &str = "dynamic-bucket.target-row-num";
pub const ROW_TRACKING_ENABLED: &str = "row-tracking.enabled";
pub const DATA_EVOLUTION_ENABLED: &str = "data-evolution.enabled";
/// Prefix of per-column options: `fields.<column>.<option>`.
pub const FIELDS_PREFIX: &str = "fields.";
/// Suffix of the per-column statistics mode: `fields.<column>.stats-mode`.
pub const STATS_MODE_SUFFIX: &str = "stats-mode";

// ---- well-known values -------------------------------------------------------------------

/// `bucket = -1`: dynamic buckets (PK tables) or bucket-unaware (append tables).
pub const DYNAMIC_BUCKET: i32 = -1;
/// `bucket = -2`: postpone bucket (PK tables only).
pub const POSTPONE_BUCKET: i32 = -2;
/// `target-file-size` default of primary-key tables.
pub const DEFAULT_TARGET_FILE_SIZE_PK: u64 = 128 << 20;
/// `target-file-size` default of append tables.
pub const DEFAULT_TARGET_FILE_SIZE_APPEND: u64 = 256 << 20;
/// File formats Java Paimon has a factory for (`file.format`, lowercase).
pub const FILE_FORMATS: &[&str] = &[
    "parquet", "orc", "avro", "csv", "json", "text", "lance", "blob", "mosaic", "vortex", "row",
];

/// An option whose values are a fixed set of names (matched case-insensitively, like Java).
pub trait OptionEnum: Copy + Sized + 'static {
    /// (value text, variant) pairs, in Java's declaration order.
    const VALUES: &'static [(&'static str, Self)];

    /// Parses `text` case-insensitively.
    fn parse(text: &str) -> Option<Self> {
        Self::VALUES
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(text))
            .map(|(_, v)| *v)
    }
}

/// `merge-engine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MergeEngine {
    Deduplicate,
    PartialUpdate,
    Aggregation,
    FirstRow,
}

impl OptionEnum for MergeEngine {
    const VALUES: &'static [(&'static str, Self)] = &[
        ("deduplicate", MergeEngine::Deduplicate),
        ("partial-update", MergeEngine::PartialUpdate),
        ("aggregation", MergeEngine::Aggregation),
        ("first-row", MergeEngine::FirstRow),
    ];
}

/// `changelog-producer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChangelogProducer {
    None,
    Input,
    FullCompaction,
    Lookup,
}

impl OptionEnum for ChangelogProducer {
    const VALUES: &'static [(&'static str, Self)] = &[
        ("none", ChangelogProducer::None),
        ("input", ChangelogProducer::Input),
        ("full-compaction", ChangelogProducer::FullCompaction),
        ("lookup", ChangelogProducer::Lookup),
    ];
}

/// `bucket-function.type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BucketFunctionType {
    /// `abs(hash(bucket key BinaryRow) % n)`.
    Default,
    /// `floorMod(key value, n)` for a single INT/BIGINT key.
    Mod,
    /// Hive-compatible hashing.
    Hive,
}

impl OptionEnum for BucketFunctionType {
    const VALUES: &'static [(&'static str, Self)] = &[
        ("default", BucketFunctionType::Default),
        ("mod", BucketFunctionType::Mod),
        ("hive", BucketFunctionType::Hive),
    ];
}

/// `scan.mode` (fallback key `log.scan`): where a read starts (Java `CoreOptions.StartupMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StartupMode {
    /// Derived from the other `scan.*` options ([`crate::options::CoreOptions::startup_mode`]).
    Default,
    LatestFull,
    /// Deprecated alias of `latest-full`.
    Full,
    Latest,
    CompactedFull,
    FromTimestamp,
    FromCreationTimestamp,
    FromFileCreationTime,
    FromSnapshot,
    FromSnapshotFull,
    Incremental,
}

impl OptionEnum for StartupMode {
    const VALUES: &'static [(&'static str, Self)] = &[
        ("default", StartupMode::Default),
        ("latest-full", StartupMode::LatestFull),
        ("full", StartupMode::Full),
        ("latest", StartupMode::Latest),
        ("compacted-full", StartupMode::CompactedFull),
        ("from-timestamp", StartupMode::FromTimestamp),
        (
            "from-creation-timestamp",
            StartupMode::FromCreationTimestamp,
        ),
        ("from-file-creation-time", StartupMode::FromFileCreationTime),
        ("from-snapshot", StartupMode::FromSnapshot),
        ("from-snapshot-full", StartupMode::FromSnapshotFull),
        ("incremental", StartupMode::Incremental),
    ];
}

/// paimon-cpp: snapshots kept per (table, branch, bucket) in the live manifest entry cache.
pub const SCAN_MANIFEST_ENTRY_CACHE_MAX_SNAPSHOTS: &str = "scan.manifest-entry-cache.max-snapshots";
/// paimon-cpp: evaluate partition/bucket filters on encoded manifest entries.
pub const SCAN_MANIFEST_ENTRY_LAZY_DECODE_ENABLED: &str = "scan.manifest-entry.lazy-decode.enabled";
