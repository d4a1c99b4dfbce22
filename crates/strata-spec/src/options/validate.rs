//! Validation of a table's option map at creation time.

use std::collections::BTreeMap;

use super::core_options::{bad_value, CoreOptions};
use super::keys::*;
use super::known::{KNOWN_KEYS, KNOWN_PREFIXES};
use crate::error::{Result, SpecError};

/// Checks that every key is an option Java Paimon knows and that the options strata
/// interprets have valid values, plus the option-only rules of Java's `SchemaValidation`
/// (rules that involve columns live in `schema`). Errors name the offending key: the
/// [`SpecError::Invalid`] context is ``table option `<key>` ``.
///
/// Meant for tables strata creates; tables read from disk keep whatever options their writer
/// stored (pypaimon, for one, stores options of its own such as `read.native.enabled`).
pub fn validate(options: &BTreeMap<String, String>, is_primary_key_table: bool) -> Result<()> {
    for key in options.keys() {
        check_key(key)?;
    }
    let o = CoreOptions::new(options.clone());

    let bucket = o.bucket()?;
    let postpone_ok = is_primary_key_table && bucket == POSTPONE_BUCKET;
    if bucket != DYNAMIC_BUCKET && bucket < 1 && !postpone_ok {
        let expected = if bucket == POSTPONE_BUCKET {
            "valid here: postpone bucket (-2) needs a primary-key table"
        } else {
            "a valid bucket number (> 0, or -1 for dynamic/unaware buckets)"
        };
        return Err(bad_value(BUCKET, &bucket.to_string(), expected));
    }
    if bucket == DYNAMIC_BUCKET && o.contains(BUCKET_KEY) {
        return Err(SpecError::invalid(
            format!("table option `{BUCKET_KEY}`"),
            "cannot be set with bucket = -1; remove it or set a bucket number",
        ));
    }
    o.bucket_function_type()?;
    o.scan_manifest_entry_cache_max_snapshots()?;
    o.scan_manifest_entry_lazy_decode()?;
    // Where reads start: values checked here, the snapshot resolved at read time.
    validate_startup_mode(&o)?;
    o.scan_snapshot_id()?;
    o.scan_watermark()?;
    o.scan_file_creation_time_millis()?;
    o.scan_creation_time_millis()?;
    o.scan_bucket()?;

    let format = o.file_format();
    if !FILE_FORMATS.contains(&format.as_str()) {
        return Err(bad_value(
            FILE_FORMAT,
            o.get(FILE_FORMAT).unwrap_or_default(),
            format!("a known file format ({})", FILE_FORMATS.join(", ")),
        ));
    }
    let zstd_level = o.file_compression_zstd_level()?;
    if !(-131072..=22).contains(&zstd_level) {
        return Err(bad_value(
            FILE_COMPRESSION_ZSTD_LEVEL,
            &zstd_level.to_string(),
            "a zstd level (at most 22)",
        ));
    }
    o.file_suffix_include_compression()?;
    o.data_file_thin_mode()?;

    o.stats_mode()?;
    for key in options.keys() {
        if let Some(column) = key
            .strip_prefix(FIELDS_PREFIX)
            .and_then(|rest| rest.strip_suffix(STATS_MODE_SUFFIX))
            .and_then(|c| c.strip_suffix('.'))
        {
            o.field_stats_mode(column)?;
        }
    }
    o.metadata_stats_dense_store()?;
    o.metadata_stats_keep_first_n_columns()?;

    for (key, size) in [
        (TARGET_FILE_SIZE, o.target_file_size(is_primary_key_table)?),
        (WRITE_BUFFER_SIZE, o.write_buffer_size()?),
        (PAGE_SIZE, o.page_size()?),
        (MANIFEST_TARGET_FILE_SIZE, o.manifest_target_file_size()?),
    ] {
        if size == 0 {
            return Err(bad_value(key, o.get(key).unwrap_or("0"), "a positive size"));
        }
    }
    o.manifest_full_compaction_threshold_size()?;
    o.file_index_in_manifest_threshold()?;
    positive(&o, TARGET_FILE_ROW_NUM, o.target_file_row_num()?)?;
    positive(
        &o,
        MANIFEST_MERGE_MIN_COUNT,
        o.manifest_merge_min_count()?.into(),
    )?;
    o.write_buffer_spillable()?;
    o.write_only()?;

    o.partition_legacy_name()?;
    o.dynamic_partition_overwrite()?;

    let primary_key_nullable = o.primary_key_nullable()?;
    if primary_key_nullable && !is_primary_key_table {
        return Err(SpecError::invalid(
            format!("table option `{PRIMARY_KEY_NULLABLE}`"),
            "can only be enabled for a table with primary keys",
        ));
    }
    let merge_engine = o.merge_engine()?;
    let changelog = o.changelog_producer()?;
    if !is_primary_key_table && changelog != ChangelogProducer::None {
        return Err(SpecError::invalid(
            format!("table option `{CHANGELOG_PRODUCER}`"),
            "cannot be set on a table without primary keys",
        ));
    }
    if merge_engine == MergeEngine::FirstRow
        && !matches!(
            changelog,
            ChangelogProducer::None | ChangelogProducer::Lookup
        )
    {
        return Err(SpecError::invalid(
            format!("table option `{CHANGELOG_PRODUCER}`"),
            "only `none` and `lookup` are supported with merge-engine = first-row",
        ));
    }
    // SchemaValidation: periodic full compactions and the lookup producer exclude each other.
    if changelog == ChangelogProducer::Lookup && o.get("full-compaction.delta-commits").is_some() {
        return Err(SpecError::invalid(
            "table option `full-compaction.delta-commits`",
            "is incompatible with `changelog-producer` = lookup; use `changelog-producer` = \
             full-compaction to get periodic full compaction with changelog generation, or \
             remove `full-compaction.delta-commits`",
        ));
    }
    if merge_engine == MergeEngine::FirstRow && !o.sequence_field().is_empty() {
        return Err(SpecError::invalid(
            format!("table option `{SEQUENCE_FIELD}`"),
            "sequence fields are not supported with merge-engine = first-row",
        ));
    }
    o.ignore_delete()?;
    o.deletion_vectors_enabled()?;
    // SchemaValidation.validateRowTracking.
    let row_tracking = o.row_tracking_enabled()?;
    if row_tracking && is_primary_key_table {
        return Err(SpecError::invalid(
            format!("table option `{ROW_TRACKING_ENABLED}`"),
            "cannot be set on a table with a primary key (Java: \"Cannot define primary-key \
             for row tracking table.\")",
        ));
    }
    if row_tracking && bucket != DYNAMIC_BUCKET {
        return Err(SpecError::invalid(
            format!("table option `{ROW_TRACKING_ENABLED}`"),
            "needs bucket = -1 (Java: \"Cannot define bucket for row tracking table, it only \
             support bucket = -1\")",
        ));
    }
    if o.data_evolution_enabled()? && !row_tracking {
        return Err(SpecError::invalid(
            format!("table option `{DATA_EVOLUTION_ENABLED}`"),
            "needs `row-tracking.enabled` = true (Java: \"Data evolution config must enabled \
             with row-tracking.enabled\")",
        ));
    }

    let trigger = o.num_sorted_run_compaction_trigger()?;
    positive(&o, NUM_SORTED_RUNS_COMPACTION_TRIGGER, trigger.into())?;
    o.num_sorted_run_stop_trigger()?;
    positive(&o, NUM_LEVELS, o.num_levels()?.into())?;
    o.compaction_max_size_amplification_percent()?;
    o.compaction_size_ratio()?;
    o.compaction_min_file_num()?;
    o.compaction_force_up_level_0()?;
    o.commit_force_compact()?;

    o.commit_max_retries()?;
    o.commit_timeout()?;
    o.commit_min_retry_wait()?;
    o.commit_max_retry_wait()?;

    let (min, max) = (
        o.snapshot_num_retained_min()?,
        o.snapshot_num_retained_max()?,
    );
    positive(&o, SNAPSHOT_NUM_RETAINED_MIN, min.into())?;
    if min > max {
        return Err(SpecError::invalid(
            format!("table option `{SNAPSHOT_NUM_RETAINED_MIN}`"),
            format!("{min} is larger than {SNAPSHOT_NUM_RETAINED_MAX} ({max})"),
        ));
    }
    let (min, max) = (
        o.changelog_num_retained_min()?,
        o.changelog_num_retained_max()?,
    );
    positive(&o, CHANGELOG_NUM_RETAINED_MIN, min.into())?;
    if min > max {
        return Err(SpecError::invalid(
            format!("table option `{CHANGELOG_NUM_RETAINED_MIN}`"),
            format!("{min} is larger than {CHANGELOG_NUM_RETAINED_MAX} ({max})"),
        ));
    }
    o.snapshot_time_retained()?;
    o.changelog_time_retained()?;
    o.snapshot_expire_limit()?;
    o.snapshot_clean_empty_directories()?;
    o.dynamic_bucket_target_row_num()?;
    Ok(())
}

fn positive(o: &CoreOptions, key: &str, value: i64) -> Result<()> {
    if value < 1 {
        return Err(bad_value(
            key,
            o.get(key).unwrap_or(&value.to_string()),
            "at least 1",
        ));
    }
    Ok(())
}

/// Whether [`validate`] accepts `key` as an option key: a key Java Paimon knows, a key of a
/// pass-through family (`parquet.…`) that does not look like a misspelt known key, or a
/// per-column key `fields.<column>.…`.
pub fn is_known_key(key: &str) -> bool {
    check_key(key).is_ok()
}

/// Accepts a known key or a key of a pass-through family; rejects anything else, and
/// family keys that look like a misspelt known key.
fn check_key(key: &str) -> Result<()> {
    if KNOWN_KEYS.contains(&key) {
        return Ok(());
    }
    let unknown = |hint: Option<&str>| {
        SpecError::invalid(
            format!("table option `{key}`"),
            match hint {
                Some(k) => format!("unknown option; did you mean `{k}`?"),
                None => "unknown option (not a Paimon table option)".to_string(),
            },
        )
    };
    // Column names after `fields.` are free-form: no misspelling check.
    if key.starts_with(FIELDS_PREFIX) && key.len() > FIELDS_PREFIX.len() {
        return Ok(());
    }
    let (best, distance) = nearest_known(key);
    if KNOWN_PREFIXES.iter().any(|p| key.starts_with(p)) {
        return if distance <= 2 {
            Err(unknown(Some(best)))
        } else {
            Ok(())
        };
    }
    Err(unknown((distance <= 3).then_some(best)))
}

fn nearest_known(key: &str) -> (&'static str, usize) {
    let mut best = ("", usize::MAX);
    for k in KNOWN_KEYS {
        let d = edit_distance(key, k);
        if d < best.1 {
            best = (k, d);
        }
    }
    best
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Java's `SchemaValidation.validateStartupMode`: the `scan.*` options a startup mode needs,
/// and those it conflicts with. `scan.version` counts as one of the snapshot options (Java
/// resolves it into a tag or snapshot id before validating).
fn validate_startup_mode(o: &CoreOptions) -> Result<()> {
    const TS_MILLIS: &str = "scan.timestamp-millis";
    const TS: &str = "scan.timestamp";
    const SNAPSHOT: &str = "scan.snapshot-id";
    const TAG: &str = "scan.tag-name";
    const WATERMARK: &str = "scan.watermark";
    const VERSION: &str = "scan.version";
    const FILE_TIME: &str = "scan.file-creation-time-millis";
    const INC: &str = "incremental-between";
    const INC_TS: &str = "incremental-between-timestamp";
    const INC_TAG: &str = "incremental-to-auto-tag";
    let mode = o.startup_mode()?;
    let name = StartupMode::VALUES
        .iter()
        .find(|(_, m)| *m == mode)
        .map_or("default", |(n, _)| *n);
    let has =
        |k: &str| o.contains(k) || (k == TS_MILLIS && o.contains("log.scan.timestamp-millis"));
    let invalid = |message: String| Err(SpecError::invalid("table option `scan.mode`", message));
    let exactly_one = |keys: &[&str]| {
        if keys.iter().filter(|k| has(k)).count() == 1 {
            Ok(())
        } else {
            invalid(format!(
                "exactly one of {} must be set when you use {name} for scan.mode",
                keys.join(", ")
            ))
        }
    };
    let needs = |key: &str| {
        if has(key) {
            Ok(())
        } else {
            invalid(format!(
                "{key} can not be null when you use {name} for scan.mode"
            ))
        }
    };
    let conflicts = |keys: &[&str], with: &[&str]| match keys.iter().find(|k| has(k)) {
        Some(k) if with.is_empty() => invalid(format!(
            "{k} must be null when you use {name} for scan.mode"
        )),
        Some(k) => invalid(format!(
            "{k} must be null when you use {name} for scan.mode (it conflicts with {})",
            with.join(", ")
        )),
        None => Ok(()),
    };
    match mode {
        StartupMode::FromTimestamp => {
            exactly_one(&[TS_MILLIS, TS])?;
            conflicts(
                &[SNAPSHOT, FILE_TIME, TAG, INC_TS, INC, INC_TAG],
                &[TS_MILLIS, TS],
            )
        }
        StartupMode::FromSnapshot => {
            exactly_one(&[SNAPSHOT, TAG, WATERMARK, VERSION])?;
            conflicts(
                &[TS_MILLIS, TS, FILE_TIME, INC_TS, INC, INC_TAG],
                &[SNAPSHOT, TAG],
            )
        }
        StartupMode::Incremental => {
            exactly_one(&[INC, INC_TS, INC_TAG])?;
            conflicts(
                &[SNAPSHOT, TS_MILLIS, FILE_TIME, TS, TAG],
                &[INC, INC_TS, INC_TAG],
            )
        }
        StartupMode::FromSnapshotFull => {
            needs(SNAPSHOT)?;
            conflicts(
                &[TS_MILLIS, TS, FILE_TIME, TAG, INC_TS, INC, INC_TAG],
                &[SNAPSHOT],
            )
        }
        StartupMode::FromFileCreationTime => {
            needs(FILE_TIME)?;
            conflicts(
                &[SNAPSHOT, TS_MILLIS, TAG, INC_TS, INC, INC_TAG],
                &[FILE_TIME],
            )
        }
        _ => conflicts(
            &[
                TS_MILLIS, FILE_TIME, TS, SNAPSHOT, TAG, INC_TS, INC, INC_TAG,
            ],
            &[],
        ),
    }
}
