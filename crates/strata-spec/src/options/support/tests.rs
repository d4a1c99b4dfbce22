use super::super::known::{KNOWN_KEYS, KNOWN_PREFIXES};
use super::entry::UNSUPPORTED_VALUES;
use super::*;

fn opts(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn reported(pairs: &[(&str, &str)]) -> Vec<String> {
    unsupported_options(&opts(pairs))
        .into_iter()
        .map(|(k, _)| k)
        .collect()
}

fn keys_of(table: &[Entry]) -> Vec<&'static str> {
    table.iter().map(|e| e.key).collect()
}

#[test]
fn tables_are_sorted_without_duplicates() {
    for (name, table) in [
        ("KEYS", KEYS),
        ("PREFIXES", PREFIXES),
        ("FAMILY_KEYS", FAMILY_KEYS),
        ("FIELD_SUFFIXES", FIELD_SUFFIXES),
    ] {
        for pair in table.windows(2) {
            assert!(
                pair[0].key < pair[1].key,
                "{name}: `{}` must come before `{}` (sorted, once)",
                pair[1].key,
                pair[0].key
            );
        }
    }
}

#[test]
fn every_known_key_is_classified() {
    for key in KNOWN_KEYS {
        assert!(
            find(KEYS, key).is_some(),
            "`{key}` is in KNOWN_KEYS but has no classification in options::support"
        );
    }
    for key in keys_of(KEYS) {
        assert!(
            KNOWN_KEYS.contains(&key),
            "options::support classifies `{key}`, which is not in KNOWN_KEYS"
        );
    }
}

#[test]
fn every_known_prefix_is_classified() {
    for prefix in KNOWN_PREFIXES {
        assert!(
            find(PREFIXES, prefix).is_some(),
            "`{prefix}` is in KNOWN_PREFIXES but has no classification in options::support"
        );
        assert!(option_support(prefix).is_some());
    }
    for prefix in keys_of(PREFIXES) {
        assert!(
            KNOWN_PREFIXES.contains(&prefix),
            "options::support classifies family `{prefix}`, which is not in KNOWN_PREFIXES"
        );
    }
}

#[test]
fn family_keys_belong_to_a_family_and_are_not_exact_keys() {
    for key in keys_of(FAMILY_KEYS) {
        assert!(!KNOWN_KEYS.contains(&key), "`{key}` belongs in KEYS");
        assert!(
            KNOWN_PREFIXES.iter().any(|p| key.starts_with(p)),
            "`{key}` is in no KNOWN_PREFIXES family"
        );
    }
}

#[test]
fn only_unsupported_entries_have_harmless_values() {
    let all = KEYS
        .iter()
        .chain(PREFIXES)
        .chain(FAMILY_KEYS)
        .chain(FIELD_SUFFIXES);
    for e in all {
        if !matches!(e.support, OptionSupport::Unsupported(_)) {
            assert!(e.harmless.is_empty(), "`{}` is not unsupported", e.key);
        }
        if let Some(reason) = e.support.reason() {
            assert!(!reason.is_empty() && !reason.contains('\n'), "`{}`", e.key);
        }
    }
    for (key, _, _) in UNSUPPORTED_VALUES {
        assert_eq!(
            option_support(key),
            Some(OptionSupport::Implemented),
            "{key}"
        );
    }
}

#[test]
fn every_changelog_producer_is_implemented_but_not_every_changelog_format() {
    for producer in ["none", "NONE", "input", "lookup", "full-compaction"] {
        assert!(
            reported(&[("changelog-producer", producer)]).is_empty(),
            "{producer}"
        );
    }
    assert_eq!(
        reported(&[("changelog-file.format", "orc")]),
        ["changelog-file.format"]
    );
}

#[test]
fn harmless_values_and_unset_options_are_not_reported() {
    assert!(unsupported_options(&BTreeMap::new()).is_empty());
    let fine = [
        ("bucket", "4"),
        ("bucket", "-1"),
        ("bucket-function.type", "Default"),
        ("type", "table"),
        ("scan.mode", "compacted-full"),
        ("scan.snapshot-id", "3"),
        ("tag.time-expire-enabled", "true"),
        ("data-file.thin-mode", "false"),
        ("merge-engine", "aggregation"),
        ("sink.parallelism", "8"),
        ("lookup.cache-rows", "100"),
        ("metadata.iceberg.storage", "disabled"),
        ("metadata.iceberg.format-version", "2"),
        ("fields.price.aggregate-function", "sum"),
        ("fields.a.b.sequence-group", "c"),
        ("fields.default-aggregate-function", "last_value"),
        ("fields.m.map.storage-layout", "shared-shredding"),
        ("not-an-option", "x"),
    ];
    for (k, v) in fine {
        assert!(reported(&[(k, v)]).is_empty(), "{k} = {v}");
    }
}

#[test]
fn unsupported_values_are_reported() {
    let bad = [
        ("bucket-function.type", "mod"),
        ("tag.time-expire-enabled", "false"),
        ("write.compaction-skip", "true"),
        ("write.sequence-number-init-mode", "snapshot"),
        ("file-index.no-such-type.columns", "a"),
        ("metadata.iceberg.storage", "hadoop-catalog"),
        ("log.system", "kafka"),
        ("fields.a.no-such-suffix", "x"),
    ];
    for (k, v) in bad {
        assert_eq!(reported(&[(k, v)]), [k], "{k} = {v}");
    }
}

#[test]
fn lookups() {
    assert_eq!(option_support("bucket"), Some(OptionSupport::Implemented));
    assert_eq!(option_support("no-such-option"), None);
    assert_eq!(option_support("fields.a.no-such-suffix"), None);
    assert!(matches!(
        option_support("sink.parallelism"),
        Some(OptionSupport::NoEffectOnData(_))
    ));
    assert!(matches!(
        option_support("chain-table.enabled"),
        Some(OptionSupport::Unsupported(_))
    ));
    // Family keys: the longest family wins, exact keys win over families.
    assert_eq!(
        option_support("changelog-producer.compaction-interval"),
        option_support("changelog-producer.")
    );
    assert_eq!(
        option_support("scan.snapshot-id"),
        find(KEYS, "scan.snapshot-id").map(|e| e.support)
    );
    // Per-column options: the longest suffix wins; the column may contain dots.
    assert_eq!(
        option_support("fields.x.pk-vector.index.options"),
        find(FIELD_SUFFIXES, "pk-vector.index.options").map(|e| e.support)
    );
    assert_eq!(
        option_support("fields.a.b.stats-mode"),
        Some(OptionSupport::Implemented)
    );
    assert_eq!(option_support("fields.stats-mode"), None);
    assert_eq!(option_support("fields."), Some(OptionSupport::Implemented));
    assert_eq!(field_option_suffixes().count(), FIELD_SUFFIXES.len());
}

fn read_refused(pairs: &[(&str, &str)], streaming: bool) -> Vec<String> {
    refused_read_options(&opts(pairs), streaming)
        .into_iter()
        .map(|(k, _)| k)
        .collect()
}

#[test]
fn every_entry_has_a_read_reason_unless_honoured() {
    let all = KEYS
        .iter()
        .chain(PREFIXES)
        .chain(FAMILY_KEYS)
        .chain(FIELD_SUFFIXES)
        .chain(std::iter::once(&DEFAULT_AGGREGATE_FUNCTION));
    for e in all {
        match e.read {
            ReadSupport::Honoured | ReadSupport::NoEffect(_) => {
                assert!(e.read_harmless.is_empty(), "`{}`", e.key)
            }
            ReadSupport::Refused { .. } => {}
        }
        if let Some(reason) = e.read.reason() {
            assert!(!reason.is_empty() && !reason.contains('\n'), "`{}`", e.key);
        }
        // A key reads honour matters to data: it is implemented, or (like
        // `bucket-function.type`, which scans honour by not pruning buckets) refused for
        // writes only.
        if e.read == ReadSupport::Honoured {
            assert!(
                !matches!(e.support, OptionSupport::NoEffectOnData(_)),
                "`{}`",
                e.key
            );
        }
    }
}

#[test]
fn reads_refuse_what_they_cannot_honour_and_nothing_else() {
    let refused = [
        ("sequence.snapshot-ordering", "true"),
        ("type", "format-table"),
        ("blob-view-field", "pic"),
        ("chain-table.enabled", "true"),
        ("postpone.merge-on-read", "true"),
        ("data-file.thin-mode", "true"),
        ("pk-clustering-override", "true"),
        ("query-auth.enabled", "true"),
        ("incremental-to-auto-tag", "t"),
        ("scan.partitions", "dt=1"),
        ("stream-scan-mode", "file-monitor"),
    ];
    for (k, v) in refused {
        assert_eq!(read_refused(&[(k, v)], false), [k], "{k} = {v}");
    }
    let fine = [
        ("data-evolution.enabled", "false"),
        ("data-evolution.enabled", "true"),
        ("blob-field", "pic"),
        ("row-tracking.enabled", "true"),
        ("file-index.bloom-filter.columns", "a"),
        ("target-file-row-num", "10"),
        ("metadata.iceberg.storage", "table-location"),
        ("log.system", "kafka"),
        ("tag.automatic-creation", "process-time"),
        ("partition.expiration-time", "7 d"),
        ("commit.callbacks", "x.Y"),
        ("clustering.columns", "a"),
        ("data-file.external-paths.strategy", "round-robin"),
        ("file.format.per.level", "0:avro"),
        ("scan.snapshot-id", "3"),
        ("scan.mode", "from-snapshot"),
        ("bucket", "-2"),
        ("write-only", "true"),
        ("streaming-read-overwrite", "true"),
        ("not-an-option", "x"),
    ];
    for (k, v) in fine {
        assert!(read_refused(&[(k, v)], false).is_empty(), "{k} = {v}");
    }
    // Streaming-only refusals.
    assert_eq!(
        read_refused(&[("streaming-read-overwrite", "true")], true),
        ["streaming-read-overwrite"]
    );
    assert!(read_refused(&[("streaming-read-overwrite", "false")], true).is_empty());
    // Data evolution: batch reads stitch row-id ranges, streams refuse.
    assert_eq!(
        read_refused(&[("data-evolution.enabled", "true")], true),
        ["data-evolution.enabled"]
    );
    assert_eq!(
        read_refused(&[("scan.bounded.watermark", "5")], true),
        ["scan.bounded.watermark"]
    );
    assert_eq!(read_support("merge-engine"), Some(ReadSupport::Honoured));
    assert_eq!(
        read_support("fields.a.aggregate-function"),
        Some(ReadSupport::Honoured)
    );
    assert!(matches!(
        read_support("target-file-size"),
        Some(ReadSupport::NoEffect(_))
    ));
    assert_eq!(read_harmless_values("data-evolution.enabled"), ["false"]);
    // Java 1.0-1.2's read-time column default: refused by name for reads and writes.
    assert_eq!(
        read_refused(&[("fields.v.default-value", "7")], false),
        ["fields.v.default-value"]
    );
    assert_eq!(
        reported(&[("fields.v.default-value", "7")]),
        ["fields.v.default-value"]
    );
    assert!(
        unsupported_options(&opts(&[("fields.v.default-value", "7")]))[0]
            .1
            .contains("1.0-1.2")
    );
}
