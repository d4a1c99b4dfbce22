//! What strata does with each table option Java Paimon knows: the audit behind strata's rule
//! that an option it does not implement is refused, never accepted and silently ignored.
//!
//! [`known`](super::known) lists every key of Java's `CoreOptions` (plus the table-level
//! keys of the Flink and Spark connectors) so that misspelt keys are rejected. That list says
//! nothing about what strata does with a key. This module classifies every one of them:
//!
//! * [`OptionSupport::Implemented`]: strata reads the option and acts on it (the integration
//!   test `crates/strata/tests/option_support.rs` fails when nothing outside this options
//!   module reads a key classified so);
//! * [`OptionSupport::NoEffectOnData`]: strata may store and ignore it and no reader or
//!   writer is wrong — settings of Flink/Spark jobs, sources, sinks, lookup joins, caches,
//!   memory, streaming reads, or sub-options of a feature that is itself refused;
//! * [`OptionSupport::Unsupported`]: it changes what is written, how rows merge, which rows a
//!   read returns or what a commit must contain, and strata does not implement it. Each such
//!   key lists the values that are harmless (Java's default, or values equivalent to it);
//!   [`unsupported_options`] reports a set key whose value is not one of them.
//!
//! The tables are per exact key (`KNOWN_KEYS`), per family (`KNOWN_PREFIXES`: the class of
//! family keys without an entry of their own), family keys whose class differs from their
//! family's (`log.system`, `metadata.iceberg.storage`), and per-column options by suffix
//! (`fields.<column>.<suffix>`). A few implemented keys have values strata does not implement
//! (`bucket = -2`); [`unsupported_options`] reports those too.
//!
//! Keeping it current: every key added to `KNOWN_KEYS` or `KNOWN_PREFIXES` needs an entry
//! here (the unit tests fail until it has one, and when an entry names a key `known.rs` no
//! longer has). When strata starts implementing an option, move it to `implemented(..)` —
//! the integration test then checks that strata's sources read it — and drop its harmless
//! values; when it implements only some values, list the others in `UNSUPPORTED_VALUES`.
//! Meanings follow Java Paimon's `CoreOptions`, `FlinkConnectorOptions`,
//! `SparkConnectorOptions` and `IcebergOptions` (apache/paimon master 5dacde516b).

use std::collections::BTreeMap;

use super::keys::{BUCKET, FIELDS_PREFIX};

/// What strata does with one table option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionSupport {
    /// strata reads the option and acts on it.
    Implemented,
    /// strata can store the option and ignore it without any reader or writer being wrong;
    /// the text says why.
    NoEffectOnData(&'static str),
    /// The option changes data, merging, file layout, commits or what readers must see, and
    /// strata does not implement it; the text says what Java does. Only values other than the
    /// key's harmless values ([`harmless_values`]) matter.
    Unsupported(&'static str),
}

/// What strata's reads do with one table option: the read side of the audit. A read of a
/// table (batch, incremental or streaming; CLI, SQL, Python) checks the table's options with
/// [`refused_read_options`] before it returns a row, so an option that changes which rows a
/// reader must return is either honoured or refused by name — never ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadSupport {
    /// A read path of strata honours the option (the integration test
    /// `crates/strata/tests/it/option_support.rs` fails when no read path reads a key
    /// classified so).
    Honoured,
    /// The option cannot change which rows a read returns or their values; the text says why.
    NoEffect(&'static str),
    /// The option changes what a read must return and strata does not honour it: a read of a
    /// table that sets it to anything but its harmless values ([`read_harmless_values`]) is
    /// refused. `streaming_only`: it matters only to streaming reads (batch reads ignore it
    /// rightly), so only streaming reads are refused.
    Refused {
        why: &'static str,
        streaming_only: bool,
    },
}

impl ReadSupport {
    /// The one-line reason (`None` for [`ReadSupport::Honoured`]).
    pub fn reason(&self) -> Option<&'static str> {
        match self {
            ReadSupport::Honoured => None,
            ReadSupport::NoEffect(r) => Some(r),
            ReadSupport::Refused { why, .. } => Some(why),
        }
    }
}

impl OptionSupport {
    /// The one-line reason (`None` for [`OptionSupport::Implemented`]).
    pub fn reason(&self) -> Option<&'static str> {
        match self {
            OptionSupport::Implemented => None,
            OptionSupport::NoEffectOnData(r) | OptionSupport::Unsupported(r) => Some(r),
        }
    }
}

/// The class of `key`: an exact option key, a family name of `KNOWN_PREFIXES` itself
/// (`"parquet."`), a key of such a family, or a per-column option `fields.<column>.<suffix>`.
/// `None` for keys Java does not know, including per-column options with an unknown suffix.
pub fn option_support(key: &str) -> Option<OptionSupport> {
    entry(key).map(|e| e.support)
}

/// The values of an [`OptionSupport::Unsupported`] key that are harmless (compared
/// case-insensitively, as Java parses booleans and enums); empty when every set value is
/// unsupported or the key is not unsupported.
pub fn harmless_values(key: &str) -> &'static [&'static str] {
    entry(key).map_or(&[], |e| e.harmless)
}

/// The set options strata does not implement, with the reason: keys classified
/// [`OptionSupport::Unsupported`] whose value is not harmless, values of implemented keys that
/// strata does not implement (`UNSUPPORTED_VALUES`), and per-column options `fields.<c>.<s>`
/// with a suffix Java does not know. Other keys Java does not know are not reported here
/// (`options::validate` rejects them).
pub fn unsupported_options(options: &BTreeMap<String, String>) -> Vec<(String, &'static str)> {
    options
        .iter()
        .filter_map(|(key, value)| {
            let reason = match entry(key) {
                Some(e) => e.refusal(value)?,
                None if field_suffix(key).is_some() => UNKNOWN_FIELD_OPTION,
                None => return None,
            };
            Some((key.clone(), reason))
        })
        .collect()
}

/// The read class of `key` (see [`option_support`] for which keys are known). `None` for keys
/// Java does not know.
pub fn read_support(key: &str) -> Option<ReadSupport> {
    entry(key).map(|e| e.read)
}

/// The values of a read-[`ReadSupport::Refused`] key that reads may ignore (compared
/// case-insensitively).
pub fn read_harmless_values(key: &str) -> &'static [&'static str] {
    entry(key).map_or(&[], |e| e.read_harmless)
}

/// The set options a read refuses, with the reason: keys classified [`ReadSupport::Refused`]
/// whose value is not harmless (streaming-only ones only when `streaming`). Keys Java does not
/// know are not reported (Java ignores them on read too).
pub fn refused_read_options(
    options: &BTreeMap<String, String>,
    streaming: bool,
) -> Vec<(String, &'static str)> {
    options
        .iter()
        .filter_map(|(key, value)| {
            let e = entry(key)?;
            let ReadSupport::Refused {
                why,
                streaming_only,
            } = e.read
            else {
                return None;
            };
            if streaming_only && !streaming {
                return None;
            }
            let harmless = e
                .read_harmless
                .iter()
                .any(|h| h.eq_ignore_ascii_case(value));
            (!harmless).then(|| (key.clone(), why))
        })
        .collect()
}

/// The per-column option suffixes (`fields.<column>.<suffix>`) and their classes.
pub fn field_option_suffixes() -> impl Iterator<Item = (&'static str, OptionSupport)> {
    FIELD_SUFFIXES.iter().map(|e| (e.key, e.support))
}

const UNKNOWN_FIELD_OPTION: &str = "a per-column option Java Paimon does not know";

/// Values of implemented keys that strata does not implement: (key, values, reason).
const UNSUPPORTED_VALUES: &[(&str, &[&str], &str)] = &[(
    BUCKET,
    &["-2"],
    "postpone bucket mode: Java writes rows to `bucket-postpone` and only a postpone \
     compaction moves them into real buckets; strata's writers and compactions do not \
     (its reads see the real buckets only, as Java's batch reads do)",
)];

/// One classified key, family or per-column suffix.
#[derive(Debug)]
struct Entry {
    key: &'static str,
    support: OptionSupport,
    /// Harmless values of an unsupported key (empty for the other classes).
    harmless: &'static [&'static str],
    /// What reads do with it.
    read: ReadSupport,
    /// Harmless values of a read-refused key.
    read_harmless: &'static [&'static str],
}

impl Entry {
    /// Why `value` is refused, if it is.
    fn refusal(&self, value: &str) -> Option<&'static str> {
        match self.support {
            OptionSupport::Unsupported(reason) => {
                let harmless = self.harmless.iter().any(|h| h.eq_ignore_ascii_case(value));
                (!harmless).then_some(reason)
            }
            OptionSupport::Implemented => UNSUPPORTED_VALUES
                .iter()
                .find(|(key, values, _)| *key == self.key && values.contains(&value))
                .map(|(_, _, reason)| *reason),
            OptionSupport::NoEffectOnData(_) => None,
        }
    }
}

/// An implemented key. Reads: no effect (a setting of writes, compaction, commits or
/// expiry) unless marked [`Entry::read_honoured`] or [`Entry::read_refused`].
const fn implemented(key: &'static str) -> Entry {
    Entry {
        key,
        support: OptionSupport::Implemented,
        harmless: &[],
        read: ReadSupport::NoEffect(WRITE_SIDE),
        read_harmless: &[],
    }
}

/// A key without effect on data. Reads: no effect for the same reason unless marked.
const fn no_effect(key: &'static str, why: &'static str) -> Entry {
    Entry {
        key,
        support: OptionSupport::NoEffectOnData(why),
        harmless: &[],
        read: ReadSupport::NoEffect(why),
        read_harmless: &[],
    }
}

/// An unsupported key. Reads: refused with the same reason and harmless values unless marked
/// [`Entry::read_no_effect`] — the conservative default, so a key nobody reviewed for reads
/// is refused rather than ignored.
const fn unsupported(
    key: &'static str,
    why: &'static str,
    harmless: &'static [&'static str],
) -> Entry {
    Entry {
        key,
        support: OptionSupport::Unsupported(why),
        harmless,
        read: ReadSupport::Refused {
            why,
            streaming_only: false,
        },
        read_harmless: harmless,
    }
}

impl Entry {
    /// Reads honour it.
    const fn read_honoured(self) -> Entry {
        Entry {
            read: ReadSupport::Honoured,
            read_harmless: &[],
            ..self
        }
    }

    /// It does not change what a read returns.
    const fn read_no_effect(self, why: &'static str) -> Entry {
        Entry {
            read: ReadSupport::NoEffect(why),
            read_harmless: &[],
            ..self
        }
    }

    /// Reads refuse values other than `harmless`.
    const fn read_refused(self, why: &'static str, harmless: &'static [&'static str]) -> Entry {
        Entry {
            read: ReadSupport::Refused {
                why,
                streaming_only: false,
            },
            read_harmless: harmless,
            ..self
        }
    }

    /// Streaming reads refuse values other than `harmless`; batch reads are right without it.
    const fn stream_refused(self, why: &'static str, harmless: &'static [&'static str]) -> Entry {
        Entry {
            read: ReadSupport::Refused {
                why,
                streaming_only: true,
            },
            read_harmless: harmless,
            ..self
        }
    }
}

fn find(table: &'static [Entry], key: &str) -> Option<&'static Entry> {
    table
        .binary_search_by(|e| e.key.cmp(key))
        .ok()
        .map(|i| &table[i])
}

/// `fields.<rest>` with a non-empty rest: the part after `fields.`.
fn field_suffix(key: &str) -> Option<&str> {
    key.strip_prefix(FIELDS_PREFIX)
        .filter(|rest| !rest.is_empty())
}

fn entry(key: &str) -> Option<&'static Entry> {
    if let Some(e) = find(KEYS, key)
        .or_else(|| find(FAMILY_KEYS, key))
        .or_else(|| find(PREFIXES, key))
    {
        return Some(e);
    }
    if let Some(rest) = field_suffix(key) {
        return field_entry(rest);
    }
    PREFIXES
        .iter()
        .filter(|p| key.starts_with(p.key))
        .max_by_key(|p| p.key.len())
}

/// The per-column option of `fields.<rest>`: `fields.default-aggregate-function`, or
/// `<column>.<suffix>` with the longest known suffix.
fn field_entry(rest: &str) -> Option<&'static Entry> {
    if rest == DEFAULT_AGGREGATE_FUNCTION.key {
        return Some(&DEFAULT_AGGREGATE_FUNCTION);
    }
    FIELD_SUFFIXES
        .iter()
        .filter(|e| {
            rest.strip_suffix(e.key)
                .and_then(|column| column.strip_suffix('.'))
                .is_some_and(|column| !column.is_empty())
        })
        .max_by_key(|e| e.key.len())
}

/// `fields.default-aggregate-function` (Java `CoreOptions.FIELDS_DEFAULT_AGG_FUNC`): the
/// aggregate function of columns without their own.
const DEFAULT_AGGREGATE_FUNCTION: Entry = implemented("default-aggregate-function").read_honoured();

// ---- the tables ----------------------------------------------------------------------------
//
// Harmless values are Java's textual defaults (`""` for an empty list or map). Shared
// reasons are the constants below.

/// The read class of implemented keys by default.
const WRITE_SIDE: &str =
    "a setting of how files are written, compacted, committed or expired; reads return the same rows whatever its value";
const READS_ANY_FILE: &str =
    "reads take each file's format, compression, statistics and location from the file and its manifest entry";
const ALTER: &str = "rule of Java's ALTER TABLE; strata does not alter schemas";
const APPEND_COMPACT: &str =
    "append-table compaction tuning; strata does not compact append tables";
const BLOB: &str = "only for BLOB columns (blob-field, refused)";
const CHAIN: &str = "only for chain tables (chain-table.enabled, refused)";
const CLUSTER: &str = "only with clustering (clustering.columns / clustering.incremental, refused)";
const DATA_EVO: &str = "only for data-evolution tables (data-evolution.enabled, refused)";
const FLINK: &str =
    "Flink/Spark job setting (parallelism, operators, resources); no effect on files or reads";
const FORMAT_TABLE: &str = "only for format tables (type = format-table, refused)";
const GINDEX: &str = "global-index build or query setting; strata builds no global index and reads correctly without one";
const LOOKUP: &str =
    "lookup-join / lookup-compaction cache tuning of Java; strata's lookup compaction reads the higher levels' files directly and keeps no lookup cache";
const MARK_DONE: &str = "Flink partition mark-done action; no effect on the table's files";
const MEM: &str =
    "memory, spill or I/O tuning of Java's writers and readers; no effect on what is stored";
const METASTORE: &str = "Hive metastore registration; no effect on the table's files";
const MVIEW: &str = "Flink materialized-table metadata; no effect on files or reads";
const LOOKUP_CHANGELOG: &str = "tunes Java's lookup / full-compaction changelog producers (waits, caches); no effect on the changelog strata's compactions write";
const PART_EXPIRE: &str = "only with partition expiration (partition.expiration-time, refused)";
const PKI: &str =
    "configures a primary-key index that exists only with pk-*.index.columns (refused)";
const POSTPONE: &str = "only for postpone-bucket tables (bucket = -2, refused)";
const STREAM: &str = "Flink/Spark streaming source option; strata's streaming reads (Table::new_stream_read, strata tail) take their settings as arguments";
const TAG_AUTO: &str = "only for automatically created tags (tag.automatic-creation, refused)";
const VARIANT_INFER: &str = "tunes Variant shredding inference, which runs only with variant.inferShreddingSchema = true (refused)";
const VECTOR: &str = "only for VECTOR columns (vector-field, refused)";
const PK_INDEX_READ: &str =
    "a primary-key index Java keeps beside the data files; reads are right without it";
const TAGS_READ: &str =
    "which tags Java creates or keeps; a read of a tag reads what the tag holds";

/// Every key of `KNOWN_KEYS`, sorted.
const KEYS: &[Entry] = &[
    no_effect("add-column-before-partition", ALTER),
    implemented("aggregation.remove-record-on-delete").read_honoured(),
    no_effect("alter-column-null-to-not-null.disabled", ALTER),
    no_effect("async-file-write", MEM),
    no_effect("auto-create", "lets Java create missing storage when opening a table; no effect on stored data"),
    unsupported("batch-scan-mode", "internal Java scan mode (BatchScanMode): `compact` changes which files a batch scan returns", &["none"]),
    unsupported("blob-as-descriptor", "BLOB values written as descriptors instead of bytes; strata writes no BLOB files", &["false"]),
    no_effect("blob-compaction.enabled", DATA_EVO),
    unsupported("blob-descriptor-field", "BLOB columns stored as serialized BlobDescriptor; strata does not implement BLOB storage", &[""]),
    unsupported("blob-field", "BLOB columns stored in separate .blob files; strata does not implement BLOB storage", &[""]),
    unsupported("blob-view-field", "BLOB view columns resolved from upstream tables at read time; not implemented", &[""]),
    no_effect("blob-view.resolve.enabled", BLOB),
    no_effect("blob-write-null-on-fetch-failure", BLOB),
    no_effect("blob-write-null-on-missing-file", BLOB),
    no_effect("blob.copy-buffer-size", BLOB),
    no_effect("blob.split-by-file-size", BLOB),
    unsupported("blob.stored-descriptor-fields", "fallback key of blob-descriptor-field; BLOB storage is not implemented", &[""]),
    no_effect("blob.target-file-size", BLOB),
    unsupported("branch", "selects the branch a table object reads and writes; strata works on the main branch only", &["main"]),
    implemented("bucket").read_honoured(),
    no_effect("bucket-append-ordered", "false only relaxes sequence ordering of append buckets; strata's ordered append writes satisfy both"),
    unsupported("bucket-function.type", "rows go to buckets by this function (mod, hive); strata's writers always use the default hash (scans only skip bucket pruning)", &["default"]).read_honoured(),
    implemented("bucket-key").read_honoured(),
    no_effect("cache-page-size", MEM),
    no_effect("chain-table.chain-partition-keys", CHAIN),
    unsupported("chain-table.enabled", "chain tables merge snapshot and delta branches on read; not implemented", &["false"]),
    no_effect("chain-table.split.key-range-enabled", CHAIN),
    no_effect("chain-table.streaming.merge-snapshot", CHAIN),
    implemented("changelog-file.compression").read_no_effect(READS_ANY_FILE),
    unsupported("changelog-file.format", "changelog files in another format than Parquet; strata writes Parquet changelog files", &["parquet"]).read_no_effect(READS_ANY_FILE),
    implemented("changelog-file.prefix").read_no_effect(READS_ANY_FILE),
    implemented("changelog-file.stats-mode").read_no_effect(READS_ANY_FILE),
    implemented("changelog-producer").read_honoured(),
    no_effect("changelog-producer.lookup-wait", "fallback key of lookup-wait: Flink's commit waits for lookup compaction"),
    implemented("changelog-producer.row-deduplicate"),
    implemented("changelog-producer.row-deduplicate-ignore-fields"),
    implemented("changelog.num-retained.max"),
    implemented("changelog.num-retained.min"),
    implemented("changelog.time-retained"),
    unsupported("clustering.columns", "Java writers and compactions range-sort append data by these columns; strata does not cluster", &[""]).read_no_effect("the order of rows inside append files; reads promise no order"),
    no_effect("clustering.history-partition.idle-to-full-sort", CLUSTER),
    no_effect("clustering.history-partition.limit", CLUSTER),
    unsupported("clustering.incremental", "incremental clustering keeps append files in clustered levels; not implemented", &["false"]).read_no_effect("append files kept at clustered levels are live files like any other; reads return them all"),
    no_effect("clustering.incremental.mode", CLUSTER),
    no_effect("clustering.incremental.optimize-write", CLUSTER),
    no_effect("clustering.strategy", CLUSTER),
    unsupported("commit.callbacks", "Java runs these callback classes after every commit (metastore sync, ...); strata's commits do not", &[""]).read_no_effect("runs after Java's commits; what they committed reads the same"),
    unsupported("commit.discard-duplicate-files", "Java's commit drops files already committed; strata's commit does not check", &["false"]).read_no_effect("a check of Java's commits; what they committed reads the same"),
    implemented("commit.force-compact"),
    no_effect("commit.force-create-snapshot", "Flink streaming: an empty snapshot when a checkpoint has no data; carries no rows"),
    implemented("commit.max-retries"),
    implemented("commit.max-retry-wait"),
    implemented("commit.min-retry-wait"),
    unsupported("commit.strict-mode.last-safe-snapshot", "Java's commit aborts on conflicting snapshots after this one; strata does not check", &[]).read_no_effect("a check of Java's commits; what they committed reads the same"),
    implemented("commit.timeout"),
    no_effect("commit.user-prefix", "prefix of the commit user Java jobs choose; strata picks its own commit user"),
    no_effect("compaction.delete-ratio-threshold", APPEND_COMPACT),
    no_effect("compaction.file-num-limit", APPEND_COMPACT),
    implemented("compaction.force-rewrite-all-files"),
    implemented("compaction.force-up-level-0"),
    implemented("compaction.incremental-size-threshold"),
    implemented("compaction.max-size-amplification-percent"),
    no_effect("compaction.min.file-num", APPEND_COMPACT),
    implemented("compaction.offpeak-ratio"),
    implemented("compaction.offpeak.end.hour"),
    implemented("compaction.offpeak.start.hour"),
    implemented("compaction.optimization-interval"),
    implemented("compaction.size-ratio"),
    no_effect("compaction.skip-expired-partitions", PART_EXPIRE),
    implemented("compaction.small-file-ratio"),
    implemented("compaction.total-size-threshold"),
    implemented("consumer-id").read_honoured(),
    no_effect("consumer.changelog-only", "lets Java expire snapshots consumers still hold; strata's expiry only keeps more"),
    no_effect("consumer.expiration-time", "expiry of streaming consumer files; strata's expiry only keeps more snapshots"),
    implemented("consumer.ignore-progress").read_honoured(),
    no_effect("consumer.mode", STREAM),
    no_effect("continuous.discovery-interval", STREAM),
    no_effect("cross-partition-upsert.bootstrap-parallelism", FLINK),
    no_effect("cross-partition-upsert.index-ttl", "TTL of Flink's local cross-partition key index; strata writes no cross-partition-upsert (bucket = -1, KEY_DYNAMIC) table"),
    no_effect("data-evolution.compaction.rewrite-row-ids", DATA_EVO),
    unsupported("data-evolution.enabled", "row-id based partial column updates across files; not implemented", &["false"]).read_refused("the files of a data-evolution table hold some columns of a row range each, stitched by row id when Java reads them (DataEvolutionSplitRead); read file by file they would be extra rows", &["false"]),
    no_effect("data-evolution.merge-into.file-pruning", DATA_EVO),
    no_effect("data-evolution.merge-into.source-persist", DATA_EVO),
    no_effect("data-evolution.reassign.skip-contiguous-row-count", DATA_EVO),
    no_effect("data-evolution.row-id-conflict-rewrite.max-size", DATA_EVO),
    no_effect("data-evolution.row-sidecar.enabled", DATA_EVO),
    no_effect("data-evolution.row-sidecar.max-selected-rows", DATA_EVO),
    no_effect("data-evolution.row-sidecar.max-selection-ratio", DATA_EVO),
    no_effect("data-file.external-paths", "read only with data-file.external-paths.strategy other than none (refused)"),
    no_effect("data-file.external-paths.specific-fs", "read only with data-file.external-paths.strategy other than none (refused)"),
    unsupported("data-file.external-paths.strategy", "Java writes new data files to external paths; strata writes them under the table", &["none"]).read_no_effect("where Java writes new files; reads follow each file's own externalPath (resolved, or refused, file by file)"),
    no_effect("data-file.external-paths.weights", "read only with data-file.external-paths.strategy other than none (refused)"),
    unsupported("data-file.path-directory", "Java writes data files under this directory of the table (before the partition directories); strata's reads find them there, its writers and orphan cleanup do not write or walk it", &[]).read_honoured(),
    implemented("data-file.prefix").read_no_effect(READS_ANY_FILE),
    unsupported("data-file.thin-mode", "primary-key data files without the duplicated key columns; strata writes the full layout", &["false"]).read_refused("primary-key data files without the _KEY_ columns; strata's merge reads need them", &["false"]),
    implemented("deduplicate.ignore-delete").read_honoured(),
    no_effect("delete-file.thread-num", MEM),
    no_effect("delete.force-produce-changelog", "changelog of Flink/Spark DELETE statements; strata writes no changelog"),
    no_effect("deletion-vector.index-file.target-size", "rolling size of deletion-vector index files of bucket-unaware tables; a primary-key bucket keeps its vectors in one file, in Java and strata"),
    implemented("deletion-vectors.bitmap64").read_honoured(),
    implemented("deletion-vectors.enabled").read_honoured(),
    implemented("deletion-vectors.merge-on-read").read_honoured(),
    no_effect("deletion-vectors.modifiable", "only permits ALTER TABLE to toggle deletion vectors in Java"),
    no_effect("disable-explicit-type-casting", ALTER),
    no_effect("dynamic-bucket.assigner-parallelism", FLINK),
    implemented("dynamic-bucket.initial-buckets"),
    implemented("dynamic-bucket.max-buckets"),
    implemented("dynamic-bucket.target-row-num"),
    no_effect("dynamic-partition-overwrite", "default scope of an engine's INSERT OVERWRITE; strata's API takes the OverwriteScope from the caller (the CLI maps this option)"),
    no_effect("end-input.check-partition-expire", PART_EXPIRE),
    no_effect("end-input.watermark", "watermark a bounded Flink job puts on its last commit; no effect on rows"),
    no_effect("file-index.in-manifest-threshold", "where file indexes are stored; strata writes no file index (file-index.* refused)"),
    no_effect("file-index.read.enabled", "read-side use of file indexes for skipping; reads are correct without them"),
    no_effect("file-operation.thread-num", MEM),
    no_effect("file-reader-async-threshold", MEM),
    implemented("file.block-size").read_no_effect(READS_ANY_FILE),
    implemented("file.compression").read_no_effect(READS_ANY_FILE),
    unsupported("file.compression.per.level", "per-level compression of data files; strata uses file.compression for every level", &[""]).read_no_effect(READS_ANY_FILE),
    implemented("file.compression.zstd-level").read_no_effect(READS_ANY_FILE),
    implemented("file.format").read_no_effect(READS_ANY_FILE),
    unsupported("file.format.per.level", "per-level file format; strata writes every level in file.format", &[""]).read_no_effect(READS_ANY_FILE),
    unsupported("file.suffix.include.compression", "the compression goes into data file names; strata's names never include it", &["false"]).read_no_effect(READS_ANY_FILE),
    no_effect("filesystem.job-level-settings.enabled", FLINK),
    implemented("first-row.ignore-delete").read_honoured(),
    implemented("force-lookup"),
    no_effect("format-table.commit-hive-sync-url", FORMAT_TABLE),
    no_effect("format-table.file.compression", FORMAT_TABLE),
    no_effect("format-table.implementation", FORMAT_TABLE),
    no_effect("format-table.partition-path-only-value", FORMAT_TABLE),
    no_effect("format-table.scan.list-parallelism", FORMAT_TABLE),
    implemented("full-compaction.delta-commits").read_honoured(),
    no_effect("full-text-index.search-mode", GINDEX),
    no_effect("global-index.build.max-parallelism", GINDEX),
    no_effect("global-index.build.max-shard", GINDEX),
    no_effect("global-index.column-update-action", DATA_EVO),
    no_effect("global-index.enabled", GINDEX),
    no_effect("global-index.external-path", GINDEX),
    no_effect("global-index.row-count-per-shard", GINDEX),
    no_effect("global-index.search-mode", GINDEX),
    no_effect("global-index.thread-num", GINDEX),
    implemented("ignore-delete").read_honoured(),
    implemented("ignore-update-before"),
    implemented("incremental-between").read_honoured(),
    implemented("incremental-between-scan-mode").read_honoured(),
    implemented("incremental-between-tag-to-snapshot").read_honoured(),
    implemented("incremental-between-timestamp").read_honoured(),
    unsupported("incremental-to-auto-tag", "a batch read returns the changes up to an auto tag; strata reads whole snapshots", &[]),
    implemented("index-file-in-data-file-dir").read_honoured(),
    no_effect("key-value.sequence_number.enabled", "internal option of Java's audit_log / binlog system tables"),
    no_effect("legacy-timestamp-mapping.enabled", "Spark's type mapping of TIMESTAMP columns"),
    no_effect("local-kv-db.block-size", LOOKUP),
    no_effect("local-merge-buffer-size", "Flink pre-merges records before the shuffle; the same rows reach the table"),
    no_effect("local-sort.max-num-file-handles", MEM),
    implemented("log.scan").read_honoured(),
    implemented("log.scan.timestamp-millis").read_honoured(),
    implemented("lookup-compact"),
    implemented("lookup-compact.max-interval"),
    no_effect("lookup-wait", "Flink's commit waits for lookup compaction; strata compacts such buckets before its commit"),
    no_effect("lookup.blob-as-descriptor", LOOKUP),
    no_effect("lookup.cache-file-retention", LOOKUP),
    no_effect("lookup.cache-max-disk-size", LOOKUP),
    no_effect("lookup.cache-max-memory-size", LOOKUP),
    no_effect("lookup.cache-rows", LOOKUP),
    no_effect("lookup.cache-spill-compression", LOOKUP),
    no_effect("lookup.cache.bloom.filter.enabled", LOOKUP),
    no_effect("lookup.cache.bloom.filter.fpp", LOOKUP),
    no_effect("lookup.cache.high-priority-pool-ratio", LOOKUP),
    no_effect("lookup.continuous.discovery-interval", LOOKUP),
    no_effect("lookup.hash-load-factor", LOOKUP),
    no_effect("lookup.merge-buffer-size", LOOKUP),
    no_effect("lookup.merge-records-threshold", LOOKUP),
    no_effect("lookup.remote-file.enabled", "optional remote lookup files next to data files; Java builds its lookup cache without them"),
    no_effect("lookup.remote-file.level-threshold", LOOKUP),
    unsupported("manifest-sort.enabled", "Java's commit sort-rewrites manifests by partition; strata merges manifests its own way", &["false"]).read_no_effect("how Java lays out manifests; the live files are the same"),
    no_effect("manifest-sort.max-rewrite-size", "only with manifest-sort.enabled (refused)"),
    no_effect("manifest-sort.partition-field", "only with manifest-sort.enabled (refused)"),
    implemented("manifest.compression"),
    unsupported("manifest.delete-file-drop-stats", "DELETE manifest entries without stats; strata writes them with stats", &["false"]).read_no_effect(READS_ANY_FILE),
    implemented("manifest.full-compaction-threshold-size"),
    implemented("manifest.merge-min-count"),
    no_effect("manifest.merge-optimize.enabled", "chooses between two Java manifest-merge implementations; strata merges its own way"),
    implemented("manifest.target-file-size"),
    no_effect("materialized-table.definition-query", MVIEW),
    no_effect("materialized-table.interval-freshness", MVIEW),
    no_effect("materialized-table.interval-freshness.time-unit", MVIEW),
    no_effect("materialized-table.logical-refresh-mode", MVIEW),
    no_effect("materialized-table.refresh-handler-bytes", MVIEW),
    no_effect("materialized-table.refresh-handler-description", MVIEW),
    no_effect("materialized-table.refresh-mode", MVIEW),
    no_effect("materialized-table.refresh-status", MVIEW),
    implemented("merge-engine").read_honoured(),
    implemented("metadata.stats-dense-store").read_no_effect(READS_ANY_FILE),
    implemented("metadata.stats-keep-first-n-columns").read_no_effect(READS_ANY_FILE),
    implemented("metadata.stats-mode").read_no_effect(READS_ANY_FILE),
    unsupported("metadata.stats-mode.per.level", "per-level stats mode of data files; strata uses metadata.stats-mode for every level", &[""]).read_no_effect(READS_ANY_FILE),
    no_effect("metastore.partitioned-table", METASTORE),
    no_effect("metastore.tag-to-partition", METASTORE),
    no_effect("metastore.tag-to-partition.preview", METASTORE),
    implemented("num-levels"),
    implemented("num-sorted-run.compaction-trigger"),
    implemented("num-sorted-run.stop-trigger"),
    no_effect("orc.write.batch-size", "fallback key of write.batch-size (memory, spill or I/O tuning of Java's writers and readers; no effect on what is stored)"),
    no_effect("overwrite-upgrade", "level Java gives the files of an overwrite; files of any level read the same"),
    no_effect("owner", "catalog metadata (table owner)"),
    no_effect("page-size", MEM),
    implemented("parquet.enable.dictionary").read_no_effect(READS_ANY_FILE),
    unsupported("parquet.variant.shreddingSchema", "fallback key of variant.shreddingSchema; strata writes Variant columns unshredded", &[]),
    implemented("partial-update.ignore-delete").read_honoured(),
    implemented("partial-update.remove-record-on-delete").read_honoured(),
    implemented("partial-update.remove-record-on-sequence-group").read_honoured(),
    implemented("partition"),
    implemented("partition.default-name").read_honoured(),
    no_effect("partition.end-input-to-done", MARK_DONE),
    no_effect("partition.expiration-batch-size", PART_EXPIRE),
    no_effect("partition.expiration-check-interval", PART_EXPIRE),
    no_effect("partition.expiration-max-num", PART_EXPIRE),
    no_effect("partition.expiration-strategy", PART_EXPIRE),
    unsupported("partition.expiration-time", "Java's commits drop expired partitions; strata's do not", &[]).read_no_effect("Java's commits drop expired partitions; a snapshot reads the partitions it holds"),
    no_effect("partition.idle-time-to-report-statistic", METASTORE),
    implemented("partition.legacy-name").read_honoured(),
    no_effect("partition.mark-done-action", MARK_DONE),
    no_effect("partition.mark-done-action.custom.class", MARK_DONE),
    no_effect("partition.mark-done-action.http.params", MARK_DONE),
    no_effect("partition.mark-done-action.http.url", MARK_DONE),
    no_effect("partition.sink-strategy", FLINK),
    unsupported("partition.timestamp-format.strict", "Java's writers reject partition values that do not match the timestamp pattern; strata does not check", &["false"]).read_no_effect("a check of Java's writers; no effect on what was written"),
    no_effect("partition.timestamp-formatter", "read by partition expiration, mark-done and the strict check, none of which strata runs"),
    no_effect("partition.timestamp-pattern", "read by partition expiration, mark-done and the strict check, none of which strata runs"),
    no_effect("path", "set by Java's catalog to the table location when it loads the table; strata takes the location from its catalog"),
    unsupported("pk-bitmap.index.columns", "Java's writers maintain primary-key bitmap indexes; strata does not", &[""]).read_no_effect(PK_INDEX_READ),
    unsupported("pk-btree.index.columns", "Java's writers maintain primary-key btree indexes; strata does not", &[""]).read_no_effect(PK_INDEX_READ),
    unsupported("pk-clustering-override", "primary-key data files sorted by clustering.columns instead of the key; strata sorts by key", &["false"]),
    unsupported("pk-full-text.index.columns", "Java's writers maintain primary-key full-text indexes; strata does not", &[""]).read_no_effect(PK_INDEX_READ),
    unsupported("pk-multivalue.index.columns", "Java's writers maintain primary-key multivalue indexes; strata does not", &[""]).read_no_effect(PK_INDEX_READ),
    unsupported("pk-vector.index.columns", "Java's writers maintain primary-key vector indexes; strata does not", &[""]).read_no_effect(PK_INDEX_READ),
    no_effect("postpone.batch-write-fixed-bucket", POSTPONE),
    no_effect("postpone.batch-write-fixed-bucket.max-parallelism", POSTPONE),
    no_effect("postpone.batch-write-fixed-bucket.rescale-load-factor", POSTPONE),
    no_effect("postpone.default-bucket-num", POSTPONE),
    no_effect("postpone.merge-on-read", POSTPONE).read_refused("Java merges the postpone bucket's rows into batch reads (the engine routes them to their buckets); strata reads the real buckets only", &["false"]),
    no_effect("postpone.target-row-num-per-bucket", POSTPONE),
    no_effect("postpone.target-size-per-bucket", POSTPONE),
    no_effect("precommit-compact", "Flink compacts its new small files in extra operators before committing; same rows"),
    implemented("primary-key"),
    implemented("primary-key.nullable"),
    unsupported("query-auth.enabled", "the catalog checks column and row permissions of every query; strata reads bypass them", &["false"]),
    no_effect("read.batch-size", MEM),
    implemented("record-level.expire-time"),
    implemented("record-level.time-field"),
    no_effect("requiredSparkConfsCheck.enabled", FLINK),
    unsupported("row-tracking.enabled", "row ids and sequence numbers assigned to every row at commit; not implemented", &["false"]).read_no_effect("row ids are assigned in the manifests; the table's own columns read the same (strata offers no _ROW_ID system column)"),
    no_effect("row-tracking.partition-group-on-commit", "only with row-tracking.enabled (refused)"),
    implemented("rowkind.field"),
    no_effect("scalar-index.search-mode", GINDEX),
    no_effect("scan.bounded.watermark", STREAM).stream_refused("a streaming read ends at the first snapshot with a larger watermark; strata's streams end only at StreamRead::with_until", &[]),
    implemented("scan.bucket").read_honoured(),
    implemented("scan.creation-time-millis").read_honoured(),
    unsupported("scan.fallback-branch", "a read takes missing partitions from another branch; strata reads one branch", &[]),
    no_effect("scan.fallback-branch.read-fail-fast", "only with scan.fallback-branch (refused)"),
    no_effect("scan.fallback-delta-branch", CHAIN),
    no_effect("scan.fallback-snapshot-branch", CHAIN),
    implemented("scan.file-creation-time-millis").read_honoured(),
    no_effect("scan.ignore-corrupt-files", "Java skips corrupt files; strata fails the read instead and never returns wrong rows"),
    no_effect("scan.ignore-lost-files", "Java skips missing files; strata fails the read instead and never returns wrong rows"),
    implemented("scan.manifest-entry-cache.max-snapshots").read_honoured(),
    implemented("scan.manifest-entry.lazy-decode.enabled").read_honoured(),
    no_effect("scan.manifest.parallelism", MEM),
    no_effect("scan.max-splits-per-task", FLINK),
    implemented("scan.mode").read_honoured(),
    no_effect("scan.plan-auto-tag-for-read.time-retained", "Java tags the snapshot a batch read plans against; no effect on the rows read"),
    no_effect("scan.plan-sort-partition", STREAM),
    unsupported("scan.primary-branch", "a read takes existing partitions from another branch; strata reads one branch", &[]),
    implemented("scan.snapshot-id").read_honoured(),
    implemented("scan.tag-name").read_honoured(),
    implemented("scan.timestamp").read_honoured(),
    implemented("scan.timestamp-millis").read_honoured(),
    implemented("scan.version").read_honoured(),
    implemented("scan.watermark").read_honoured(),
    implemented("sequence.field").read_honoured(),
    implemented("sequence.field.sort-order").read_honoured(),
    unsupported("sequence.snapshot-ordering", "merging orders records by commit snapshot instead of sequence number; not implemented", &["false"]),
    unsupported("sink.clustering.by-columns", "fallback key of clustering.columns; strata does not cluster", &[""]).read_no_effect("the order of rows inside append files; reads promise no order"),
    no_effect("sink.clustering.strategy", CLUSTER),
    no_effect("sink.process-time-zone", "time zone of Flink's process-time tag creation and mark-done"),
    no_effect("sink.watermark-time-zone", "time zone of Flink's watermark-based tag creation and mark-done"),
    implemented("snapshot.clean-empty-directories"),
    implemented("snapshot.expire.clean-empty-directories"),
    no_effect("snapshot.expire.execution-mode", "sync or async expiry in Java; strata expires after its commit"),
    implemented("snapshot.expire.limit"),
    no_effect("snapshot.ignore-empty-commit", "strata never commits an empty snapshot; an empty snapshot carries no rows"),
    implemented("snapshot.num-retained.max"),
    implemented("snapshot.num-retained.min"),
    implemented("snapshot.time-retained"),
    no_effect("snapshot.watermark-idle-timeout", TAG_AUTO),
    no_effect("sort-compaction.local-sample.magnification", FLINK),
    no_effect("sort-compaction.range-strategy", FLINK),
    no_effect("sort-engine", "sort algorithm of Java's merge reader; the merged rows are the same"),
    no_effect("sort-spill-buffer-size", MEM),
    no_effect("sort-spill-threshold", MEM),
    no_effect("source.split.open-file-cost", FLINK),
    no_effect("source.split.target-size", FLINK),
    no_effect("spill-compression", MEM),
    no_effect("spill-compression.zstd-level", MEM),
    no_effect("stream-scan-mode", STREAM).read_refused("internal scan mode of Java's compaction and monitoring jobs: other starting and follow-up scanners", &["none"]),
    no_effect("streaming-read-append-overwrite", STREAM).stream_refused("a streaming read of an append table also returns the rows of OVERWRITE snapshots; strata's streams skip them", &["false"]),
    no_effect("streaming-read-overwrite", STREAM).stream_refused("a streaming read also returns the changes of OVERWRITE snapshots; strata's streams skip them, as Java's do by default", &["false"]),
    no_effect("streaming.read.snapshot.delay", STREAM),
    no_effect("table-read.sequence-number.enabled", "adds _SEQUENCE_NUMBER to Java's audit_log / binlog system tables"),
    no_effect("tag.automatic-completion", TAG_AUTO),
    unsupported("tag.automatic-creation", "Java's commits create tags by time or watermark; strata's do not", &["none"]).read_no_effect(TAGS_READ),
    no_effect("tag.batch.customized-name", TAG_AUTO),
    unsupported("tag.callbacks", "Java runs these callback classes after creating a tag; strata does not", &[""]).read_no_effect(TAGS_READ),
    unsupported("tag.create-success-file", "Java writes a success file for every new tag; strata's tags have none", &["false"]).read_no_effect(TAGS_READ),
    no_effect("tag.creation-delay", TAG_AUTO),
    no_effect("tag.creation-period", TAG_AUTO),
    no_effect("tag.creation-period-duration", TAG_AUTO),
    implemented("tag.default-time-retained"),
    no_effect("tag.num-retained-max", TAG_AUTO),
    no_effect("tag.period-formatter", TAG_AUTO),
    unsupported("tag.time-expire-enabled", "false keeps tags past their retention; strata's expiry after commit always deletes them", &["true"]).read_no_effect(TAGS_READ),
    unsupported("target-file-row-num", "Java rolls data files at this row count; strata rolls by target-file-size only", &["9223372036854775807"]).read_no_effect("how Java rolls data files; the rows are the same"),
    implemented("target-file-size"),
    unsupported("type", "format, materialized, object and other table types; strata reads and writes plain Paimon tables", &["table"]),
    unsupported("variant.inferShreddingSchema", "Java infers and writes shredded Variant columns; strata writes them unshredded", &["false"]),
    no_effect("variant.shredding.adaptive.maxInferBufferRow", VARIANT_INFER),
    no_effect("variant.shredding.adaptive.retentionRatio", VARIANT_INFER),
    no_effect("variant.shredding.inferenceMode", VARIANT_INFER),
    no_effect("variant.shredding.maxInferBufferRow", VARIANT_INFER),
    no_effect("variant.shredding.maxSchemaDepth", VARIANT_INFER),
    no_effect("variant.shredding.maxSchemaWidth", VARIANT_INFER),
    no_effect("variant.shredding.minFieldCardinalityRatio", VARIANT_INFER),
    unsupported("variant.shreddingSchema", "Java writes Variant columns shredded by this schema; strata writes them unshredded", &[]),
    unsupported("vector-field", "VECTOR columns stored in vector files; strata refuses VECTOR types", &[""]),
    no_effect("vector-index.search-mode", GINDEX),
    no_effect("vector-search.distribute.enabled", GINDEX),
    no_effect("vector-search.lateral-join.batch-size", GINDEX),
    no_effect("vector-search.lateral-join.parallelism", GINDEX),
    no_effect("vector.file.format", VECTOR),
    no_effect("vector.target-file-size", VECTOR),
    no_effect("visibility-callback.check-interval", "only with visibility-callback.enabled: a Java commit waits for compaction; no effect on files"),
    no_effect("visibility-callback.enabled", "a Java commit waits for compaction or index builds to finish; no effect on files"),
    no_effect("visibility-callback.timeout", "only with visibility-callback.enabled: a Java commit waits for compaction; no effect on files"),
    no_effect("write-buffer-for-append", MEM),
    implemented("write-buffer-size"),
    implemented("write-buffer-spill.max-disk-size"),
    implemented("write-buffer-spillable"),
    no_effect("write-max-writers-to-spill", MEM),
    implemented("write-only"),
    no_effect("write.batch-memory", MEM),
    no_effect("write.batch-size", MEM),
    unsupported("write.compaction-skip", "fallback key of write-only, which CoreOptions::write_only does not read: strata would still compact and expire", &["false"]).read_no_effect(WRITE_SIDE),
    unsupported("write.sequence-number-init-mode", "`snapshot`: Java's writers take the next sequence number from snapshot properties, which strata's commits do not record", &["scan"]).read_no_effect(WRITE_SIDE),
    no_effect("zorder.var-length-contribution", FLINK),
];

/// Every family of `KNOWN_PREFIXES`, sorted: the class of its keys without an entry of their
/// own.
const PREFIXES: &[Entry] = &[
    no_effect("avro.", "Avro data-file writer options; strata writes Parquet only (other file.format values are refused on write)"),
    no_effect("blob-descriptor.", BLOB),
    no_effect("blob.", BLOB),
    no_effect("chain-table.", CHAIN),
    no_effect("changelog-producer.", LOOKUP_CHANGELOG),
    no_effect("changelog.", "Flink changelog pre-commit compaction settings; no effect on the files strata writes"),
    no_effect("clustering.", CLUSTER),
    no_effect("commit.", "commit callback parameters and Flink commit listeners; commit.callbacks itself is refused"),
    no_effect("compaction.", "Flink compaction job settings (bucket distribution, ...)"),
    no_effect("consumer.", STREAM),
    no_effect("cross-partition-upsert.", FLINK),
    no_effect("csv.", "CSV writer options; strata writes Parquet only (other file.format values are refused on write)"),
    no_effect("data-evolution.", DATA_EVO),
    no_effect("deletion-vectors.", "deletion-vector settings outside CoreOptions; strata writes no deletion vectors"),
    no_effect("dynamic-bucket.", FLINK),
    implemented("fields.").read_honoured(),
    unsupported("file-index.", "file-index.<type>.columns and its tuning: Java writers build per-file indexes; strata writes none", &[]).read_no_effect("per-file indexes Java builds for skipping files; reads are right without them"),
    no_effect("format-table.", FORMAT_TABLE),
    no_effect("global-index.", GINDEX),
    no_effect("hive.", METASTORE),
    no_effect("iceberg.", "options of Iceberg catalogs and migrations; no effect on the Paimon table's files"),
    no_effect("json.", "JSON writer options; strata writes Parquet only (other file.format values are refused on write)"),
    no_effect("lance.", "Lance writer options; strata writes Parquet only (other file.format values are refused on write)"),
    no_effect("log.", "options of the log system (Kafka) of older Paimon versions; only log.system itself matters"),
    no_effect("lookup.", LOOKUP),
    no_effect("materialized-table.", MVIEW),
    no_effect("metadata.", "Iceberg compatibility settings (metadata.iceberg.*), read only when metadata.iceberg.storage is set (refused)"),
    no_effect("metastore.", METASTORE),
    no_effect("orc.", "ORC writer options; strata writes Parquet only (other file.format values are refused on write)"),
    no_effect("parquet.", "Parquet writer tuning: strata honours the keys its writer knows (compression, block, page and dictionary sizes, writer version); the others change only the encoding"),
    no_effect("partition.", MARK_DONE),
    no_effect("postpone.", POSTPONE),
    no_effect("read.", "engine read settings (Spark streaming triggers, shuffles); no effect on the files strata reads"),
    no_effect("record-level.", "record-level expiry settings outside CoreOptions"),
    no_effect("scan.", FLINK),
    no_effect("sink.", FLINK),
    no_effect("snapshot.", "snapshot maintenance settings outside CoreOptions; strata's expiry only keeps more"),
    no_effect("source.", FLINK),
    no_effect("streaming.", STREAM),
    no_effect("tag.", "tag callback parameters (tag.callback.<n>.param); tag.callbacks itself is refused"),
    no_effect("text.", "text writer options; strata writes Parquet only (other file.format values are refused on write)"),
    no_effect("unaware-bucket.", APPEND_COMPACT),
    no_effect("variant.", VARIANT_INFER),
    no_effect("visibility-callback.", "Java commit waiting settings; no effect on files"),
    no_effect("vortex.", "Vortex writer options; strata writes Parquet only (other file.format values are refused on write)"),
    no_effect("write.", "engine write settings (Spark schema merging, v2 write); no effect on what strata stores"),
];

/// Keys of a `KNOWN_PREFIXES` family, not in `KNOWN_KEYS`, whose class differs from their
/// family's (Flink `log.system` of Paimon 1.x, `IcebergOptions.METADATA_ICEBERG_STORAGE`), sorted.
const FAMILY_KEYS: &[Entry] = &[
    unsupported("log.system", "Flink also wrote every commit to this log system (Kafka) for streaming readers; strata does not", &["none"]).read_no_effect("Flink also wrote every commit to a log system; the table's files hold every row"),
    unsupported("metadata.iceberg.storage", "Java's commits also write Iceberg metadata for Iceberg readers; strata's do not", &["disabled"]).read_no_effect("Iceberg metadata Java writes beside the table; the Paimon files are the same"),
    no_effect("scan.partitions", "Flink connector option of the partitions a Flink read scans").read_refused("a Flink read of the table returns only these partitions (max_pt() and max_two_pt() included); strata reads every partition a filter selects", &[]),
];

/// Per-column options `fields.<column>.<suffix>` Java knows (`CoreOptions` field options,
/// `PartialUpdateMergeFunction.SEQUENCE_GROUP`, the primary-key index options), by suffix,
/// sorted.
const FIELD_SUFFIXES: &[Entry] = &[
    implemented("aggregate-function").read_honoured(),
    implemented("count-limit").read_honoured(),
    // Not in Java 2.0's CoreOptions: Paimon 1.0-1.2's read-time default of a column, dropped
    // in 1.3 (the schema's `defaultValue` replaced it); tables of those versions still carry it.
    unsupported("default-value", "Java Paimon 1.0-1.2's per-column default, applied by their readers; 1.3+ keep a column's default in the schema (defaultValue), which strata writes", &[]).read_refused("Java Paimon 1.0-1.2 fill this column's NULLs with the default when reading, 1.3 and later do not: the engines disagree on the rows, so strata refuses rather than pick one", &[]),
    implemented("distinct").read_honoured(),
    implemented("ignore-retract").read_honoured(),
    implemented("list-agg-delimiter").read_honoured(),
    implemented("map.shared-shredding.column-placement-policy").read_no_effect(READS_ANY_FILE),
    implemented("map.shared-shredding.max-columns").read_no_effect(READS_ANY_FILE),
    implemented("map.shared-shredding.max-dedicated-columns").read_no_effect(READS_ANY_FILE),
    implemented("map.storage-layout").read_no_effect(READS_ANY_FILE),
    implemented("nested-key").read_honoured(),
    implemented("nested-key-null-strategy").read_honoured(),
    implemented("nested-sequence-field").read_honoured(),
    no_effect("pk-bitmap.index.options", PKI),
    no_effect("pk-btree.index.options", PKI),
    no_effect("pk-full-text.index.options", PKI),
    no_effect("pk-multivalue.index.options", PKI),
    no_effect("pk-vector.distance.metric", PKI),
    no_effect("pk-vector.index.options", PKI),
    no_effect("pk-vector.index.type", PKI),
    implemented("sequence-group").read_honoured(),
    implemented("stats-mode").read_no_effect(READS_ANY_FILE),
    implemented("ts-field"),
];

#[cfg(test)]
mod tests {
    use super::super::known::{KNOWN_KEYS, KNOWN_PREFIXES};
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
            ("bucket", "-2"),
            ("bucket-function.type", "mod"),
            ("tag.time-expire-enabled", "false"),
            ("write.compaction-skip", "true"),
            ("write.sequence-number-init-mode", "snapshot"),
            ("row-tracking.enabled", "true"),
            ("file-index.bloom-filter.columns", "a"),
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
            option_support("scan.fallback-branch"),
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
            ("data-evolution.enabled", "true"),
            ("scan.fallback-branch", "b"),
            ("scan.primary-branch", "b"),
            ("sequence.snapshot-ordering", "true"),
            ("type", "format-table"),
            ("blob-field", "pic"),
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
}
