//! What a primary-key table's write is built with, read from the table's options once:
//! the changelog writers and compaction of its buckets ([`WriterSetup`]: the `input`,
//! `lookup` and `full-compaction` changelog producers, Java's `KeyValueFileStoreWrite`
//! setup) and the per-write settings ([`KvOptions`]: row kinds, `write-only`, lookup
//! compaction, `full-compaction.delta-commits`, the write buffer and its spilling).

use std::sync::Arc;

use strata_spec::options::ChangelogProducer;

use crate::error::ErrorDetail;
use crate::lsm::compact::bucket::TableCompaction;
use crate::lsm::compact::lookup::{LookupChangelog, LookupMode};
use crate::lsm::compact::strategy::CompactStrategy;
use crate::lsm::kv_file_writer::KvWriterConfig;
use crate::lsm::merge::MergeFunction;
use crate::table::Table;
use crate::write::compact_manager::CompactSettings;
use crate::write::lookup_settings::{
    changelog_writers, lookup_mode, lookup_reason, ChangelogWriters,
};
use crate::Result;

/// The changelog writers and compaction every bucket's writer is built with.
pub(super) struct WriterSetup {
    /// The data files' settings.
    pub(super) config: Arc<KvWriterConfig>,
    /// `changelog-producer = input`: the changelog files' settings.
    pub(super) changelog: Option<Arc<KvWriterConfig>>,
    /// `changelog-producer = lookup`: what lookup compactions write.
    pub(super) lookup_changelog: Option<Arc<LookupChangelog>>,
    /// `changelog-producer = full-compaction`: what compactions into the max level write.
    full_changelog: Option<Arc<LookupChangelog>>,
    pub(super) merge: Arc<dyn MergeFunction>,
    /// What every bucket compacts with (rewriters, task options).
    pub(super) compaction: TableCompaction,
    producer: ChangelogProducer,
}

impl WriterSetup {
    pub(super) fn new(table: &Table, overwrite: bool) -> Result<Self> {
        // `changelog-producer = input` is written here (changelog files of every flush); the
        // lookup and full-compaction producers derive the changelog in compaction, which
        // strata does not: a commit without their changelog would be invisible to every
        // streaming reader of it.
        let producer = table.options().changelog_producer()?;
        let ChangelogWriters {
            input: changelog,
            lookup: lookup_changelog,
            full: full_changelog,
        } = changelog_writers(table, overwrite)?;
        let compaction = TableCompaction::new(table)?;
        Ok(WriterSetup {
            config: compaction.config.clone(),
            merge: compaction.merge.clone(),
            changelog,
            lookup_changelog,
            full_changelog,
            compaction,
            producer,
        })
    }
}

/// The per-write settings of a primary-key table's write.
pub(super) struct KvOptions {
    pub(super) compact: CompactSettings,
    /// `write-only`: no compaction on write.
    pub(super) write_only: bool,
    /// Buckets kept at one level (`force-lookup`, which strata's lookup compaction does not
    /// cover; see `Picking::AlwaysFull`).
    pub(super) always_full: bool,
    /// Lookup compaction (deletion vectors or first-row; `crate::lsm::compact::lookup`).
    pub(super) lookup: Option<LookupMode>,
    pub(super) num_levels: i32,
    pub(super) force_compact: bool,
    /// `full-compaction.delta-commits`.
    pub(super) full_delta_commits: Option<i64>,
    /// The `rowkind.field` column.
    pub(super) row_kind_field: Option<usize>,
    pub(super) ignore_delete: bool,
    pub(super) ignore_update_before: bool,
    pub(super) buffer_size: usize,
    pub(super) spillable: bool,
    pub(super) spill_max_disk: u64,
}

impl KvOptions {
    pub(super) fn new(table: &Table, setup: &WriterSetup) -> Result<Self> {
        let schema = table.schema();
        let opts = table.options();
        let row_kind_field =
            match opts.get("rowkind.field") {
                None => None,
                Some(name) => {
                    let idx = schema.row_type().index_of(name).ok_or_else(|| {
                        ErrorDetail::InvalidOption {
                            key: "rowkind.field".into(),
                            message: format!(
                                "column {name} does not exist in {}",
                                table.identifier()
                            ),
                        }
                    })?;
                    Some(idx)
                }
            };
        let ignore_delete = opts.ignore_delete()?;
        let ignore_update_before = opts.get_bool("ignore-update-before")?.unwrap_or(false);
        let buffer_size = opts.write_buffer_size()? as usize;
        let spillable = opts.write_buffer_spillable()?;
        let spill_max_disk = opts
            .get_memory_size("write-buffer-spill.max-disk-size")?
            .unwrap_or(u64::MAX);
        let need_lookup = lookup_reason(opts)?.is_some();
        let lookup = lookup_mode(opts)?;
        // Validate the strategy options now rather than at the first flush.
        CompactStrategy::from_options(opts, need_lookup)?;
        let compaction = &setup.compaction;
        let compact = CompactSettings {
            key_types: compaction.key_types.clone(),
            task: compaction.task.clone(),
            stop_trigger: opts.num_sorted_run_stop_trigger()?.max(1) as usize,
            deletion_vectors: compaction.deletion_vectors,
            full_changelog: setup.full_changelog.clone(),
        };
        let full_delta_commits = match opts.get_i64("full-compaction.delta-commits")? {
            Some(n) if n < 1 => {
                return Err(ErrorDetail::InvalidOption {
                    key: "full-compaction.delta-commits".into(),
                    message: format!("must be at least 1, got {n}"),
                }
                .into())
            }
            // The full-compaction producer compacts fully at every commit unless told otherwise
            // (Flink's `GlobalFullCompactionSinkWrite` with `max(delta-commits, 1)`).
            None if setup.producer == ChangelogProducer::FullCompaction => Some(1),
            other => other,
        };
        Ok(KvOptions {
            compact,
            write_only: opts.write_only()?,
            always_full: need_lookup && lookup.is_none(),
            lookup,
            num_levels: opts.num_levels()?,
            force_compact: opts.commit_force_compact()?,
            full_delta_commits,
            row_kind_field,
            ignore_delete,
            ignore_update_before,
            buffer_size,
            spillable,
            spill_max_disk,
        })
    }
}
