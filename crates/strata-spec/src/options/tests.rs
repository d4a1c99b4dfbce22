use std::collections::BTreeMap;
use std::time::Duration;

use super::*;
use crate::error::Result;
use crate::stats::StatsMode;

fn opts(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn core(pairs: &[(&str, &str)]) -> CoreOptions {
    CoreOptions::new(opts(pairs))
}

fn err_text(r: Result<impl std::fmt::Debug>) -> String {
    r.expect_err("expected an error").to_string()
}

#[test]
fn defaults_match_java() {
    let o = core(&[]);
    assert_eq!(o.bucket().unwrap(), -1);
    assert_eq!(o.bucket_key(), None);
    assert_eq!(
        o.bucket_function_type().unwrap(),
        BucketFunctionType::Default
    );
    assert_eq!(o.file_format(), "parquet");
    assert_eq!(o.file_compression(), "zstd");
    assert_eq!(o.file_compression_zstd_level().unwrap(), 1);
    assert_eq!(o.manifest_compression(), "zstd");
    assert_eq!(o.manifest_target_file_size().unwrap(), 8 << 20);
    assert_eq!(o.manifest_merge_min_count().unwrap(), 30);
    assert_eq!(
        o.manifest_full_compaction_threshold_size().unwrap(),
        16 << 20
    );
    assert_eq!(o.target_file_size(true).unwrap(), 128 << 20);
    assert_eq!(o.target_file_size(false).unwrap(), 256 << 20);
    assert_eq!(o.target_file_row_num().unwrap(), i64::MAX);
    assert_eq!(o.write_buffer_size().unwrap(), 256 << 20);
    assert!(o.write_buffer_spillable().unwrap());
    assert_eq!(o.page_size().unwrap(), 64 << 10);
    assert_eq!(o.stats_mode().unwrap(), StatsMode::Truncate(16));
    assert_eq!(o.field_stats_mode("a").unwrap(), StatsMode::Truncate(16));
    assert!(o.metadata_stats_dense_store().unwrap());
    assert_eq!(o.metadata_stats_keep_first_n_columns().unwrap(), -1);
    assert_eq!(o.file_index_in_manifest_threshold().unwrap(), 500);
    assert_eq!(o.partition_default_name(), "__DEFAULT_PARTITION__");
    assert!(o.partition_legacy_name().unwrap());
    assert_eq!(o.data_file_prefix(), "data-");
    assert_eq!(o.changelog_file_prefix(), "changelog-");
    assert!(!o.data_file_thin_mode().unwrap());
    assert!(!o.file_suffix_include_compression().unwrap());
    assert!(o.dynamic_partition_overwrite().unwrap());
    assert_eq!(o.merge_engine().unwrap(), MergeEngine::Deduplicate);
    assert_eq!(o.changelog_producer().unwrap(), ChangelogProducer::None);
    assert!(o.sequence_field().is_empty());
    assert!(!o.ignore_delete().unwrap());
    assert!(!o.deletion_vectors_enabled().unwrap());
    assert_eq!(o.num_sorted_run_compaction_trigger().unwrap(), 5);
    assert_eq!(o.num_sorted_run_stop_trigger().unwrap(), 8);
    assert_eq!(o.num_levels().unwrap(), 6);
    assert_eq!(o.compaction_max_size_amplification_percent().unwrap(), 200);
    assert_eq!(o.compaction_size_ratio().unwrap(), 1);
    assert_eq!(o.compaction_min_file_num().unwrap(), 5);
    assert_eq!(o.commit_max_retries().unwrap(), 10);
    assert_eq!(o.commit_timeout().unwrap(), None);
    assert_eq!(
        o.commit_min_retry_wait().unwrap(),
        Duration::from_millis(10)
    );
    assert_eq!(o.commit_max_retry_wait().unwrap(), Duration::from_secs(10));
    assert_eq!(o.snapshot_num_retained_min().unwrap(), 10);
    assert_eq!(o.snapshot_num_retained_max().unwrap(), i32::MAX);
    assert_eq!(
        o.snapshot_time_retained().unwrap(),
        Duration::from_secs(3600)
    );
    assert_eq!(o.snapshot_expire_limit().unwrap(), 50);
    assert_eq!(o.changelog_num_retained_min().unwrap(), 10);
    assert_eq!(
        o.changelog_time_retained().unwrap(),
        Duration::from_secs(3600)
    );
    assert_eq!(o.dynamic_bucket_target_row_num().unwrap(), 2_000_000);
    assert!(!o.primary_key_nullable().unwrap());
    assert!(!o.snapshot_clean_empty_directories().unwrap());
}

#[test]
fn set_values_are_parsed() {
    let o = core(&[
        ("bucket", "4"),
        ("bucket-key", "a,b"),
        ("file.format", "ORC"),
        ("target-file-size", "64 mb"),
        ("write-buffer-size", "1gb"),
        ("metadata.stats-mode", "full"),
        ("fields.name.stats-mode", "truncate(8)"),
        ("merge-engine", "Partial-Update"),
        ("changelog-producer", "lookup"),
        ("sequence.field", "ts, seq"),
        ("num-sorted-run.compaction-trigger", "10"),
        ("num-sorted-run.stop-trigger", "3"),
        ("snapshot.time-retained", "30min"),
        ("changelog.num-retained.min", "20"),
        ("commit.timeout", "5 s"),
        ("partition.legacy-name", "FALSE"),
        ("deduplicate.ignore-delete", "true"),
        ("snapshot.expire.clean-empty-directories", "true"),
    ]);
    assert_eq!(o.bucket().unwrap(), 4);
    assert_eq!(o.bucket_key(), Some(vec!["a".to_string(), "b".to_string()]));
    assert_eq!(o.file_format(), "orc");
    assert_eq!(o.target_file_size(true).unwrap(), 64 << 20);
    assert_eq!(o.write_buffer_size().unwrap(), 1 << 30);
    assert_eq!(o.stats_mode().unwrap(), StatsMode::Full);
    assert_eq!(o.field_stats_mode("name").unwrap(), StatsMode::Truncate(8));
    assert_eq!(o.field_stats_mode("other").unwrap(), StatsMode::Full);
    assert_eq!(o.merge_engine().unwrap(), MergeEngine::PartialUpdate);
    assert_eq!(o.changelog_producer().unwrap(), ChangelogProducer::Lookup);
    assert_eq!(o.sequence_field(), ["ts", "seq"]);
    // The stop trigger never goes below the compaction trigger; levels follow the trigger.
    assert_eq!(o.num_sorted_run_stop_trigger().unwrap(), 10);
    assert_eq!(o.num_levels().unwrap(), 11);
    assert_eq!(
        o.snapshot_time_retained().unwrap(),
        Duration::from_secs(1800)
    );
    assert_eq!(o.changelog_num_retained_min().unwrap(), 20);
    assert_eq!(
        o.changelog_time_retained().unwrap(),
        Duration::from_secs(1800)
    );
    assert_eq!(o.commit_timeout().unwrap(), Some(Duration::from_secs(5)));
    assert!(!o.partition_legacy_name().unwrap());
    assert!(o.ignore_delete().unwrap());
    assert!(o.snapshot_clean_empty_directories().unwrap());
}

#[test]
fn bad_values_name_option_and_value() {
    let cases = [
        (
            err_text(core(&[("bucket", "four")]).bucket()),
            "`bucket`",
            "`four`",
        ),
        // Like Java's Integer.parseInt, no trimming.
        (
            err_text(core(&[("bucket", " 4")]).bucket()),
            "`bucket`",
            "` 4`",
        ),
        (
            err_text(core(&[("write-buffer-size", "lots")]).write_buffer_size()),
            "`write-buffer-size`",
            "`lots`",
        ),
        (
            err_text(core(&[("snapshot.time-retained", "1 fortnight")]).snapshot_time_retained()),
            "`snapshot.time-retained`",
            "fortnight",
        ),
        (
            err_text(core(&[("merge-engine", "dedupe")]).merge_engine()),
            "`merge-engine`",
            "deduplicate, partial-update",
        ),
        (
            err_text(core(&[("partition.legacy-name", "yes")]).partition_legacy_name()),
            "`partition.legacy-name`",
            "`yes`",
        ),
        (
            err_text(core(&[("metadata.stats-mode", "truncate(x)")]).stats_mode()),
            "`metadata.stats-mode`",
            "truncate(x)",
        ),
    ];
    for (err, key, value) in cases {
        assert!(err.contains(key) && err.contains(value), "{err}");
    }
}

#[test]
fn validate_accepts_real_options() {
    let ok = opts(&[
        ("bucket", "4"),
        ("bucket-key", "id"),
        ("file.format", "parquet"),
        ("fields.price.aggregate-function", "sum"),
        ("fields.name.stats-mode", "full"),
        ("parquet.block.size", "1048576"),
        ("orc.bloom.filter.columns", "id"),
        ("sink.parallelism", "4"),
        ("scan.mode", "latest"),
        ("snapshot.num-retained.min", "5"),
        ("metadata.iceberg.storage", "table-location"),
        ("commit.callback.com.x.Cb.param", "p"),
        ("owner", "me"),
        ("deduplicate.ignore-delete", "true"),
        ("merge-engine", "aggregation"),
        ("changelog-producer", "input"),
    ]);
    validate(&ok, true).unwrap();
    validate(&opts(&[("bucket", "-2")]), true).unwrap();
    validate(&opts(&[]), false).unwrap();
}

#[test]
fn validate_rejects_unknown_keys_by_name() {
    for (key, hint) in [
        ("buckets", Some("`bucket`")),
        ("Bucket", Some("`bucket`")),
        (
            "snapshot.num-retained.mn",
            Some("`snapshot.num-retained.min`"),
        ),
        ("totally-made-up", None),
        ("file.formatt", Some("`file.format`")),
    ] {
        let err = validate(&opts(&[(key, "1")]), false)
            .unwrap_err()
            .to_string();
        assert!(err.contains(&format!("`{key}`")), "{err}");
        assert!(err.contains("unknown option"), "{err}");
        if let Some(h) = hint {
            assert!(err.contains(h), "{key}: {err}");
        }
    }
}

#[test]
fn validate_rejects_bad_values() {
    for (pairs, pk, needle) in [
        (vec![("bucket", "0")], false, "`bucket`"),
        (vec![("bucket", "x")], false, "`x`"),
        (vec![("bucket", "-2")], false, "postpone"),
        (vec![("bucket-key", "a")], false, "bucket = -1"),
        (vec![("file.format", "xlsx")], false, "`xlsx`"),
        (vec![("metadata.stats-mode", "most")], false, "`most`"),
        (
            vec![("fields.a.stats-mode", "truncate(-1)")],
            false,
            "fields.a.stats-mode",
        ),
        (
            vec![("changelog-producer", "input")],
            false,
            "without primary keys",
        ),
        (
            vec![("primary-key.nullable", "true")],
            false,
            "primary keys",
        ),
        (
            vec![("snapshot.num-retained.min", "0")],
            false,
            "at least 1",
        ),
        (
            vec![
                ("snapshot.num-retained.min", "5"),
                ("snapshot.num-retained.max", "2"),
            ],
            false,
            "larger than",
        ),
        (vec![("target-file-size", "0 mb")], false, "positive"),
        (vec![("commit.timeout", "soon")], false, "`soon`"),
        (
            vec![
                ("merge-engine", "first-row"),
                ("changelog-producer", "input"),
            ],
            true,
            "first-row",
        ),
    ] {
        let err = validate(&opts(&pairs), pk).unwrap_err().to_string();
        assert!(err.contains(needle), "{pairs:?}: {err}");
    }
}

#[test]
fn known_keys_cover_the_documented_defaults() {
    for key in [
        BUCKET,
        BUCKET_KEY,
        FILE_FORMAT,
        FILE_COMPRESSION,
        FILE_COMPRESSION_ZSTD_LEVEL,
        MANIFEST_COMPRESSION,
        TARGET_FILE_SIZE,
        WRITE_BUFFER_SIZE,
        METADATA_STATS_MODE,
        PARTITION_DEFAULT_NAME,
        PARTITION_LEGACY_NAME,
        DATA_FILE_PREFIX,
        DYNAMIC_PARTITION_OVERWRITE,
        COMMIT_MAX_RETRIES,
        SNAPSHOT_NUM_RETAINED_MIN,
        MERGE_ENGINE,
        SEQUENCE_FIELD,
        CHANGELOG_PRODUCER,
        PRIMARY_KEY,
        PARTITION,
        PRIMARY_KEY_NULLABLE,
        NUM_LEVELS,
        COMPACTION_MIN_FILE_NUM,
    ] {
        assert!(known::KNOWN_KEYS.contains(&key), "{key}");
    }
}

#[test]
fn startup_modes_and_their_options_as_java_validates_them() {
    let check = |pairs: &[(&str, &str)]| {
        let map: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        validate(&map, false).map_err(|e| e.to_string())
    };
    let o = |pairs: &[(&str, &str)]| {
        CoreOptions::new(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    };
    assert_eq!(o(&[]).startup_mode().unwrap(), StartupMode::LatestFull);
    assert_eq!(
        o(&[("scan.mode", "full")]).startup_mode().unwrap(),
        StartupMode::LatestFull
    );
    assert_eq!(
        o(&[("log.scan", "latest")]).startup_mode().unwrap(),
        StartupMode::Latest
    );
    assert_eq!(
        o(&[("scan.snapshot-id", "3")]).startup_mode().unwrap(),
        StartupMode::FromSnapshot
    );
    assert_eq!(
        o(&[("scan.version", "t")]).startup_mode().unwrap(),
        StartupMode::FromSnapshot
    );
    assert_eq!(
        o(&[("log.scan.timestamp-millis", "3")])
            .startup_mode()
            .unwrap(),
        StartupMode::FromTimestamp
    );
    assert_eq!(
        o(&[("log.scan.timestamp-millis", "3")])
            .scan_timestamp_millis()
            .unwrap(),
        Some(3)
    );
    assert_eq!(
        o(&[("scan.file-creation-time-millis", "3")])
            .startup_mode()
            .unwrap(),
        StartupMode::FromFileCreationTime
    );
    assert_eq!(
        o(&[("incremental-between", "1,2")]).startup_mode().unwrap(),
        StartupMode::Incremental
    );
    assert!(check(&[("scan.snapshot-id", "3")]).is_ok());
    assert!(check(&[
        ("scan.mode", "from-snapshot-full"),
        ("scan.snapshot-id", "3")
    ])
    .is_ok());
    let e = check(&[("scan.mode", "latest"), ("scan.snapshot-id", "3")]).unwrap_err();
    assert!(
        e.contains("scan.snapshot-id must be null when you use latest"),
        "{e}"
    );
    let e = check(&[("scan.snapshot-id", "3"), ("scan.tag-name", "t")]).unwrap_err();
    assert!(e.contains("exactly one of"), "{e}");
    let e = check(&[("scan.mode", "from-timestamp")]).unwrap_err();
    assert!(e.contains("scan.timestamp-millis"), "{e}");
    let e = check(&[("scan.mode", "nonsense")]).unwrap_err();
    assert!(e.contains("from-snapshot"), "{e}");
    let e = check(&[("scan.snapshot-id", "x")]).unwrap_err();
    assert!(e.contains("scan.snapshot-id"), "{e}");
}

#[test]
fn level_zero_is_skipped_as_java_decides() {
    let skip = |pairs: &[(&str, &str)]| core(pairs).batch_scan_skip_level0().unwrap();
    assert!(!skip(&[]));
    assert!(skip(&[("deletion-vectors.enabled", "true")]));
    assert!(!skip(&[
        ("deletion-vectors.enabled", "true"),
        ("deletion-vectors.merge-on-read", "true")
    ]));
    assert!(skip(&[("merge-engine", "first-row")]));
    // Deletion vectors decide when enabled (Java `batchScanSkipLevel0`).
    assert!(!skip(&[
        ("merge-engine", "first-row"),
        ("deletion-vectors.enabled", "true"),
        ("deletion-vectors.merge-on-read", "true")
    ]));
    // merge-on-read alone changes nothing.
    assert!(!skip(&[("deletion-vectors.merge-on-read", "true")]));
}
