//! [`CoreOptions`], the typed view over a table's option map: one getter per option, Java's
//! default when unset, Java's parsing (see the `options` module doc). Below `validate`, which
//! checks a whole map through these getters.

use std::collections::BTreeMap;
use std::str::FromStr;
use std::time::Duration;

use super::keys::*;
use super::units;

use crate::error::{Result, SpecError};
use crate::stats::StatsMode;

/// A typed view over a table's option map.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CoreOptions {
    map: BTreeMap<String, String>,
}

impl From<BTreeMap<String, String>> for CoreOptions {
    fn from(map: BTreeMap<String, String>) -> Self {
        CoreOptions { map }
    }
}

pub(super) fn bad_value(key: &str, value: &str, expected: impl AsRef<str>) -> SpecError {
    SpecError::invalid(
        format!("table option `{key}`"),
        format!("`{value}` is not {}", expected.as_ref()),
    )
}

impl CoreOptions {
    pub fn new(map: BTreeMap<String, String>) -> Self {
        CoreOptions { map }
    }

    pub fn as_map(&self) -> &BTreeMap<String, String> {
        &self.map
    }

    pub fn into_map(self) -> BTreeMap<String, String> {
        self.map
    }

    /// The raw value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.map.get(key).map(String::as_str)
    }

    pub fn contains(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.map.insert(key.into(), value.into());
    }

    // ---- generic typed access ------------------------------------------------------------

    fn parse_number<T: FromStr>(&self, key: &str, what: &str) -> Result<Option<T>> {
        self.get(key)
            .map(|v| v.parse::<T>().map_err(|_| bad_value(key, v, what)))
            .transpose()
    }

    /// An int option (`Integer.parseInt`: no whitespace, optional sign).
    pub fn get_i32(&self, key: &str) -> Result<Option<i32>> {
        self.parse_number(key, "an int")
    }

    /// A long option (`Long.parseLong`).
    pub fn get_i64(&self, key: &str) -> Result<Option<i64>> {
        self.parse_number(key, "a long")
    }

    /// A boolean option: `true` / `false`, case-insensitive.
    pub fn get_bool(&self, key: &str) -> Result<Option<bool>> {
        self.get(key)
            .map(|v| {
                if v.eq_ignore_ascii_case("true") {
                    Ok(true)
                } else if v.eq_ignore_ascii_case("false") {
                    Ok(false)
                } else {
                    Err(bad_value(key, v, "a boolean (true or false)"))
                }
            })
            .transpose()
    }

    /// A memory-size option in bytes (`"128 mb"`).
    pub fn get_memory_size(&self, key: &str) -> Result<Option<u64>> {
        self.get(key)
            .map(|v| {
                units::parse_memory_size(v)
                    .map_err(|e| bad_value(key, v, format!("a memory size ({e})")))
            })
            .transpose()
    }

    /// A duration option (`"1 h"`, `"100 ms"`; no unit means milliseconds).
    pub fn get_duration(&self, key: &str) -> Result<Option<Duration>> {
        self.get(key)
            .map(|v| {
                units::parse_duration(v).map_err(|e| bad_value(key, v, format!("a duration ({e})")))
            })
            .transpose()
    }

    /// An enum option, matched case-insensitively.
    pub fn get_enum<E: OptionEnum>(&self, key: &str) -> Result<Option<E>> {
        self.get(key)
            .map(|v| {
                E::parse(v).ok_or_else(|| {
                    let names: Vec<&str> = E::VALUES.iter().map(|(n, _)| *n).collect();
                    bad_value(key, v, format!("one of {}", names.join(", ")))
                })
            })
            .transpose()
    }

    /// A string option, or `default`.
    pub fn get_str<'a>(&'a self, key: &str, default: &'a str) -> &'a str {
        self.get(key).unwrap_or(default)
    }

    // ---- where reads start ---------------------------------------------------------------

    /// The first of `keys` that is set, with its value (Java's fallback keys).
    fn get_with_fallback<'a>(&'a self, keys: &[&'static str]) -> Option<(&'static str, &'a str)> {
        keys.iter().find_map(|k| self.get(k).map(|v| (*k, v)))
    }

    /// `scan.mode` as set (fallback key `log.scan`), `Default` when unset.
    pub fn scan_mode(&self) -> Result<StartupMode> {
        match self.get_with_fallback(&["scan.mode", "log.scan"]) {
            None => Ok(StartupMode::Default),
            Some((key, value)) => StartupMode::parse(value).ok_or_else(|| {
                let names: Vec<&str> = StartupMode::VALUES.iter().map(|(n, _)| *n).collect();
                bad_value(key, value, format!("one of {}", names.join(", ")))
            }),
        }
    }

    /// Where a read starts (Java `CoreOptions.startupMode`): `scan.mode`, or with `default`
    /// the mode the other `scan.*` options imply — a timestamp, then a snapshot id, tag,
    /// watermark or version, then a file creation time, then a creation time, then
    /// `incremental-between`, else `latest-full`. `full` is `latest-full`.
    pub fn startup_mode(&self) -> Result<StartupMode> {
        Ok(match self.scan_mode()? {
            StartupMode::Default => {
                if self.scan_timestamp_millis()?.is_some() || self.contains("scan.timestamp") {
                    StartupMode::FromTimestamp
                } else if [
                    "scan.snapshot-id",
                    "scan.tag-name",
                    "scan.watermark",
                    "scan.version",
                ]
                .iter()
                .any(|k| self.contains(k))
                {
                    StartupMode::FromSnapshot
                } else if self.contains("scan.file-creation-time-millis") {
                    StartupMode::FromFileCreationTime
                } else if self.contains("scan.creation-time-millis") {
                    StartupMode::FromCreationTimestamp
                } else if self.contains("incremental-between")
                    || self.contains("incremental-between-timestamp")
                {
                    StartupMode::Incremental
                } else {
                    StartupMode::LatestFull
                }
            }
            StartupMode::Full => StartupMode::LatestFull,
            other => other,
        })
    }

    /// `scan.timestamp-millis` (fallback key `log.scan.timestamp-millis`).
    pub fn scan_timestamp_millis(&self) -> Result<Option<i64>> {
        match self.get_with_fallback(&["scan.timestamp-millis", "log.scan.timestamp-millis"]) {
            None => Ok(None),
            Some((key, value)) => value
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| bad_value(key, value, "a number of epoch milliseconds")),
        }
    }

    /// `scan.snapshot-id`.
    pub fn scan_snapshot_id(&self) -> Result<Option<i64>> {
        self.get_i64("scan.snapshot-id")
    }

    /// `scan.watermark`.
    pub fn scan_watermark(&self) -> Result<Option<i64>> {
        self.get_i64("scan.watermark")
    }

    /// `scan.file-creation-time-millis`.
    pub fn scan_file_creation_time_millis(&self) -> Result<Option<i64>> {
        self.get_i64("scan.file-creation-time-millis")
    }

    /// `scan.creation-time-millis`.
    pub fn scan_creation_time_millis(&self) -> Result<Option<i64>> {
        self.get_i64("scan.creation-time-millis")
    }

    /// Whether batch reads of a primary-key table skip level 0 (Java
    /// `CoreOptions.batchScanSkipLevel0`): with deletion vectors unless
    /// `deletion-vectors.merge-on-read`, else with `merge-engine = first-row`. Level-0 rows
    /// become visible to such readers when a compaction moves them up.
    pub fn batch_scan_skip_level0(&self) -> Result<bool> {
        if self.deletion_vectors_enabled()? {
            return Ok(!self
                .get_bool("deletion-vectors.merge-on-read")?
                .unwrap_or(false));
        }
        Ok(self.merge_engine()? == MergeEngine::FirstRow)
    }

    /// `scan.bucket`: a read of this bucket only.
    pub fn scan_bucket(&self) -> Result<Option<i32>> {
        self.get_i32("scan.bucket")
    }

    // ---- buckets, keys -------------------------------------------------------------------

    /// `bucket` (default −1): N > 0 fixed, −1 dynamic/unaware, −2 postpone.
    pub fn bucket(&self) -> Result<i32> {
        Ok(self.get_i32(BUCKET)?.unwrap_or(DYNAMIC_BUCKET))
    }

    /// `bucket-key` split on `,` as Java does (no trimming); None when unset or blank.
    pub fn bucket_key(&self) -> Option<Vec<String>> {
        self.get(BUCKET_KEY)
            .filter(|v| !v.trim().is_empty())
            .map(|v| v.split(',').map(str::to_string).collect())
    }

    /// `bucket-function.type` (default `default`).
    pub fn bucket_function_type(&self) -> Result<BucketFunctionType> {
        Ok(self
            .get_enum(BUCKET_FUNCTION_TYPE)?
            .unwrap_or(BucketFunctionType::Default))
    }

    /// `dynamic-bucket.target-row-num` (default 2,000,000).
    pub fn dynamic_bucket_target_row_num(&self) -> Result<i64> {
        Ok(self
            .get_i64(DYNAMIC_BUCKET_TARGET_ROW_NUM)?
            .unwrap_or(2_000_000))
    }

    /// `primary-key.nullable` (default false).
    pub fn primary_key_nullable(&self) -> Result<bool> {
        Ok(self.get_bool(PRIMARY_KEY_NULLABLE)?.unwrap_or(false))
    }

    // ---- files ---------------------------------------------------------------------------

    /// `file.format`, lowercased (default `parquet`).
    pub fn file_format(&self) -> String {
        self.get_str(FILE_FORMAT, "parquet").to_lowercase()
    }

    /// `file.compression` (default `zstd`).
    pub fn file_compression(&self) -> &str {
        self.get_str(FILE_COMPRESSION, "zstd")
    }

    /// `file.compression.zstd-level` (default 1; also used for Avro manifests).
    pub fn file_compression_zstd_level(&self) -> Result<i32> {
        Ok(self.get_i32(FILE_COMPRESSION_ZSTD_LEVEL)?.unwrap_or(1))
    }

    /// `file.suffix.include.compression` (default false).
    pub fn file_suffix_include_compression(&self) -> Result<bool> {
        Ok(self
            .get_bool(FILE_SUFFIX_INCLUDE_COMPRESSION)?
            .unwrap_or(false))
    }

    /// `data-file.prefix` (default `data-`).
    pub fn data_file_prefix(&self) -> &str {
        self.get_str(DATA_FILE_PREFIX, "data-")
    }

    /// `changelog-file.prefix` (default `changelog-`).
    pub fn changelog_file_prefix(&self) -> &str {
        self.get_str(CHANGELOG_FILE_PREFIX, "changelog-")
    }

    /// `data-file.thin-mode` (default false).
    pub fn data_file_thin_mode(&self) -> Result<bool> {
        Ok(self.get_bool(DATA_FILE_THIN_MODE)?.unwrap_or(false))
    }

    /// `target-file-size`: unset ⇒ 128 MiB for primary-key tables, 256 MiB for append tables.
    pub fn target_file_size(&self, has_primary_key: bool) -> Result<u64> {
        Ok(self
            .get_memory_size(TARGET_FILE_SIZE)?
            .unwrap_or(if has_primary_key {
                DEFAULT_TARGET_FILE_SIZE_PK
            } else {
                DEFAULT_TARGET_FILE_SIZE_APPEND
            }))
    }

    /// `target-file-row-num` (default `Long.MAX_VALUE`).
    pub fn target_file_row_num(&self) -> Result<i64> {
        Ok(self.get_i64(TARGET_FILE_ROW_NUM)?.unwrap_or(i64::MAX))
    }

    /// `write-buffer-size` (default 256 MiB).
    pub fn write_buffer_size(&self) -> Result<u64> {
        Ok(self
            .get_memory_size(WRITE_BUFFER_SIZE)?
            .unwrap_or(256 << 20))
    }

    /// `write-buffer-spillable` (default true).
    pub fn write_buffer_spillable(&self) -> Result<bool> {
        Ok(self.get_bool(WRITE_BUFFER_SPILLABLE)?.unwrap_or(true))
    }

    /// `page-size` (default 64 KiB).
    pub fn page_size(&self) -> Result<u64> {
        Ok(self.get_memory_size(PAGE_SIZE)?.unwrap_or(64 << 10))
    }

    /// `write-only` (default false): skip compaction and expiration in writers.
    pub fn write_only(&self) -> Result<bool> {
        Ok(self.get_bool(WRITE_ONLY)?.unwrap_or(false))
    }

    // ---- scan planning -------------------------------------------------------------------

    /// `scan.manifest-entry-cache.max-snapshots` (default 0 = cache off): how many snapshots
    /// of one bucket the live manifest entry cache keeps. Negative values are an error.
    pub fn scan_manifest_entry_cache_max_snapshots(&self) -> Result<usize> {
        let key = SCAN_MANIFEST_ENTRY_CACHE_MAX_SNAPSHOTS;
        match self.get_i32(key)? {
            None => Ok(0),
            Some(n) if n >= 0 => Ok(n as usize),
            Some(n) => Err(SpecError::invalid(
                format!("table option `{key}`"),
                format!("must be 0 (off) or a positive number of snapshots, got {n}"),
            )),
        }
    }

    /// `scan.manifest-entry.lazy-decode.enabled` (default true): evaluate partition and bucket
    /// filters on encoded manifest entries and decode only the entries kept.
    pub fn scan_manifest_entry_lazy_decode(&self) -> Result<bool> {
        Ok(self
            .get_bool(SCAN_MANIFEST_ENTRY_LAZY_DECODE_ENABLED)?
            .unwrap_or(true))
    }

    // ---- manifests, stats ----------------------------------------------------------------

    /// `manifest.compression` (default `zstd`).
    pub fn manifest_compression(&self) -> &str {
        self.get_str(MANIFEST_COMPRESSION, "zstd")
    }

    /// `manifest.target-file-size` (default 8 MiB).
    pub fn manifest_target_file_size(&self) -> Result<u64> {
        Ok(self
            .get_memory_size(MANIFEST_TARGET_FILE_SIZE)?
            .unwrap_or(8 << 20))
    }

    /// `manifest.merge-min-count` (default 30).
    pub fn manifest_merge_min_count(&self) -> Result<i32> {
        Ok(self.get_i32(MANIFEST_MERGE_MIN_COUNT)?.unwrap_or(30))
    }

    /// `manifest.full-compaction-threshold-size` (default 16 MiB).
    pub fn manifest_full_compaction_threshold_size(&self) -> Result<u64> {
        Ok(self
            .get_memory_size(MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE)?
            .unwrap_or(16 << 20))
    }

    /// `metadata.stats-mode` (default `truncate(16)`).
    pub fn stats_mode(&self) -> Result<StatsMode> {
        parse_stats_mode(METADATA_STATS_MODE, self.get(METADATA_STATS_MODE))
            .map(|m| m.unwrap_or(StatsMode::Truncate(16)))
    }

    /// Stats mode of one column: `fields.<column>.stats-mode`, else `metadata.stats-mode`.
    pub fn field_stats_mode(&self, column: &str) -> Result<StatsMode> {
        let key = format!("{FIELDS_PREFIX}{column}.{STATS_MODE_SUFFIX}");
        match parse_stats_mode(&key, self.get(&key))? {
            Some(mode) => Ok(mode),
            None => self.stats_mode(),
        }
    }

    /// `metadata.stats-dense-store` (default true).
    pub fn metadata_stats_dense_store(&self) -> Result<bool> {
        Ok(self.get_bool(METADATA_STATS_DENSE_STORE)?.unwrap_or(true))
    }

    /// `metadata.stats-keep-first-n-columns` (default −1 = keep all): columns from this index
    /// on get no value stats unless they set `fields.<col>.stats-mode`.
    pub fn metadata_stats_keep_first_n_columns(&self) -> Result<i32> {
        Ok(self
            .get_i32(METADATA_STATS_KEEP_FIRST_N_COLUMNS)?
            .unwrap_or(-1))
    }

    /// `file-index.in-manifest-threshold` (default 500 bytes).
    pub fn file_index_in_manifest_threshold(&self) -> Result<u64> {
        Ok(self
            .get_memory_size(FILE_INDEX_IN_MANIFEST_THRESHOLD)?
            .unwrap_or(500))
    }

    // ---- partitions ----------------------------------------------------------------------

    /// `partition.default-name` (default `__DEFAULT_PARTITION__`).
    pub fn partition_default_name(&self) -> &str {
        self.get_str(PARTITION_DEFAULT_NAME, "__DEFAULT_PARTITION__")
    }

    /// `partition.legacy-name` (default true).
    pub fn partition_legacy_name(&self) -> Result<bool> {
        Ok(self.get_bool(PARTITION_LEGACY_NAME)?.unwrap_or(true))
    }

    /// `dynamic-partition-overwrite` (default true).
    pub fn dynamic_partition_overwrite(&self) -> Result<bool> {
        Ok(self.get_bool(DYNAMIC_PARTITION_OVERWRITE)?.unwrap_or(true))
    }

    // ---- merge, changelog ----------------------------------------------------------------

    /// `merge-engine` (default `deduplicate`).
    pub fn merge_engine(&self) -> Result<MergeEngine> {
        Ok(self
            .get_enum(MERGE_ENGINE)?
            .unwrap_or(MergeEngine::Deduplicate))
    }

    /// `sequence.field` split on `,` and trimmed; empty when unset.
    pub fn sequence_field(&self) -> Vec<String> {
        self.get(SEQUENCE_FIELD)
            .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
            .unwrap_or_default()
    }

    /// `changelog-producer` (default `none`).
    pub fn changelog_producer(&self) -> Result<ChangelogProducer> {
        Ok(self
            .get_enum(CHANGELOG_PRODUCER)?
            .unwrap_or(ChangelogProducer::None))
    }

    /// `ignore-delete` (or its fallback keys `first-row.` / `deduplicate.` /
    /// `partial-update.ignore-delete`), default false.
    pub fn ignore_delete(&self) -> Result<bool> {
        for key in [
            IGNORE_DELETE,
            "first-row.ignore-delete",
            "deduplicate.ignore-delete",
            "partial-update.ignore-delete",
        ] {
            if let Some(v) = self.get_bool(key)? {
                return Ok(v);
            }
        }
        Ok(false)
    }

    /// `deletion-vectors.enabled` (default false).
    pub fn deletion_vectors_enabled(&self) -> Result<bool> {
        Ok(self.get_bool(DELETION_VECTORS_ENABLED)?.unwrap_or(false))
    }

    /// `row-tracking.enabled` (default false).
    pub fn row_tracking_enabled(&self) -> Result<bool> {
        Ok(self.get_bool(ROW_TRACKING_ENABLED)?.unwrap_or(false))
    }

    /// `row-tracking.partition-group-on-commit` (default true).
    pub fn row_tracking_partition_group_on_commit(&self) -> Result<bool> {
        Ok(self
            .get_bool("row-tracking.partition-group-on-commit")?
            .unwrap_or(true))
    }

    /// `data-evolution.enabled` (default false).
    pub fn data_evolution_enabled(&self) -> Result<bool> {
        Ok(self.get_bool(DATA_EVOLUTION_ENABLED)?.unwrap_or(false))
    }

    // ---- compaction ----------------------------------------------------------------------

    /// `num-sorted-run.compaction-trigger` (default 5).
    pub fn num_sorted_run_compaction_trigger(&self) -> Result<i32> {
        Ok(self
            .get_i32(NUM_SORTED_RUNS_COMPACTION_TRIGGER)?
            .unwrap_or(5))
    }

    /// `num-sorted-run.stop-trigger`: unset ⇒ trigger + 3; never below the trigger.
    pub fn num_sorted_run_stop_trigger(&self) -> Result<i32> {
        let trigger = self.num_sorted_run_compaction_trigger()?;
        let stop = self
            .get_i32(NUM_SORTED_RUNS_STOP_TRIGGER)?
            .unwrap_or_else(|| trigger.saturating_add(3));
        Ok(stop.max(trigger))
    }

    /// `num-levels`: unset ⇒ trigger + 1.
    pub fn num_levels(&self) -> Result<i32> {
        match self.get_i32(NUM_LEVELS)? {
            Some(n) => Ok(n),
            None => Ok(self.num_sorted_run_compaction_trigger()?.saturating_add(1)),
        }
    }

    /// `compaction.max-size-amplification-percent` (default 200).
    pub fn compaction_max_size_amplification_percent(&self) -> Result<i32> {
        Ok(self
            .get_i32(COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT)?
            .unwrap_or(200))
    }

    /// `compaction.size-ratio` (default 1).
    pub fn compaction_size_ratio(&self) -> Result<i32> {
        Ok(self.get_i32(COMPACTION_SIZE_RATIO)?.unwrap_or(1))
    }

    /// `compaction.min.file-num` (default 5; append tables).
    pub fn compaction_min_file_num(&self) -> Result<i32> {
        Ok(self.get_i32(COMPACTION_MIN_FILE_NUM)?.unwrap_or(5))
    }

    /// `compaction.force-up-level-0` (default false).
    pub fn compaction_force_up_level_0(&self) -> Result<bool> {
        Ok(self.get_bool(COMPACTION_FORCE_UP_LEVEL_0)?.unwrap_or(false))
    }

    /// `commit.force-compact` (default false).
    pub fn commit_force_compact(&self) -> Result<bool> {
        Ok(self.get_bool(COMMIT_FORCE_COMPACT)?.unwrap_or(false))
    }

    // ---- commit --------------------------------------------------------------------------

    /// `commit.max-retries` (default 10).
    pub fn commit_max_retries(&self) -> Result<i32> {
        Ok(self.get_i32(COMMIT_MAX_RETRIES)?.unwrap_or(10))
    }

    /// `commit.timeout`: None = unlimited.
    pub fn commit_timeout(&self) -> Result<Option<Duration>> {
        self.get_duration(COMMIT_TIMEOUT)
    }

    /// `commit.min-retry-wait` (default 10 ms).
    pub fn commit_min_retry_wait(&self) -> Result<Duration> {
        Ok(self
            .get_duration(COMMIT_MIN_RETRY_WAIT)?
            .unwrap_or(Duration::from_millis(10)))
    }

    /// `commit.max-retry-wait` (default 10 s).
    pub fn commit_max_retry_wait(&self) -> Result<Duration> {
        Ok(self
            .get_duration(COMMIT_MAX_RETRY_WAIT)?
            .unwrap_or(Duration::from_secs(10)))
    }

    // ---- snapshot / changelog retention --------------------------------------------------

    /// `snapshot.num-retained.min` (default 10).
    pub fn snapshot_num_retained_min(&self) -> Result<i32> {
        Ok(self.get_i32(SNAPSHOT_NUM_RETAINED_MIN)?.unwrap_or(10))
    }

    /// `snapshot.num-retained.max` (default `Integer.MAX_VALUE`).
    pub fn snapshot_num_retained_max(&self) -> Result<i32> {
        Ok(self.get_i32(SNAPSHOT_NUM_RETAINED_MAX)?.unwrap_or(i32::MAX))
    }

    /// `snapshot.time-retained` (default 1 h).
    pub fn snapshot_time_retained(&self) -> Result<Duration> {
        Ok(self
            .get_duration(SNAPSHOT_TIME_RETAINED)?
            .unwrap_or(Duration::from_secs(3600)))
    }

    /// `snapshot.expire.limit` (default 50): most snapshots expired per run.
    pub fn snapshot_expire_limit(&self) -> Result<i32> {
        Ok(self.get_i32(SNAPSHOT_EXPIRE_LIMIT)?.unwrap_or(50))
    }

    /// `snapshot.clean-empty-directories` (fallback `snapshot.expire.clean-empty-directories`),
    /// default false.
    pub fn snapshot_clean_empty_directories(&self) -> Result<bool> {
        Ok(match self.get_bool(SNAPSHOT_CLEAN_EMPTY_DIRECTORIES)? {
            Some(v) => v,
            None => self
                .get_bool("snapshot.expire.clean-empty-directories")?
                .unwrap_or(false),
        })
    }

    /// `changelog.num-retained.min`, else the snapshot value.
    pub fn changelog_num_retained_min(&self) -> Result<i32> {
        match self.get_i32(CHANGELOG_NUM_RETAINED_MIN)? {
            Some(v) => Ok(v),
            None => self.snapshot_num_retained_min(),
        }
    }

    /// `changelog.num-retained.max`, else the snapshot value.
    pub fn changelog_num_retained_max(&self) -> Result<i32> {
        match self.get_i32(CHANGELOG_NUM_RETAINED_MAX)? {
            Some(v) => Ok(v),
            None => self.snapshot_num_retained_max(),
        }
    }

    /// `changelog.time-retained`, else the snapshot value.
    pub fn changelog_time_retained(&self) -> Result<Duration> {
        match self.get_duration(CHANGELOG_TIME_RETAINED)? {
            Some(v) => Ok(v),
            None => self.snapshot_time_retained(),
        }
    }
}

fn parse_stats_mode(key: &str, value: Option<&str>) -> Result<Option<StatsMode>> {
    value
        .map(|v| {
            StatsMode::parse(v)
                .ok_or_else(|| bad_value(key, v, "a stats mode (none, counts, full, truncate(N))"))
        })
        .transpose()
}
