//! The compaction of one bucket, shared by the writer's per-bucket compaction manager
//! (`crate::write`) and the commit's re-planning of a lookup compaction that lost a conflict
//! (`crate::commit`, which compacts a bucket's level 0 again on the snapshot it lands on).
//!
//! * [`TableCompaction`]: what every bucket of a primary-key table compacts with (key types,
//!   task options, merge engine, record-level TTL, lookup mode, changelog), from the table's
//!   options, and the [`MergeTreeCompactRewriter`] of a bucket.
//! * [`BucketLookup`]: a bucket's lookup state (Java `BucketedDvMaintainer` + lookup mode): its
//!   deletion vectors, updated by each finished task ([`BucketLookup::apply`]).
//! * [`plan_task`]: the task options and rewriter for a picked unit: plain, lookup (the levels
//!   above the output and the vectors), or the full-compaction changelog producer's.

use std::collections::HashMap;
use std::sync::Arc;

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::DataFileMeta;
use strata_spec::options::{ChangelogProducer, CoreOptions, MergeEngine};
use strata_spec::schema::TableSchema;
use strata_spec::DataType;

use super::expire::RecordLevelExpire;
use super::levels::Levels;
use super::lookup::{DeletedRows, LookupChangelog, LookupContext, LookupMode};
use super::rewriter::{LookupRewriter, MergeTreeCompactRewriter};
use super::strategy::compaction_file_size;
use super::task::{CompactRewriter, LookupUpgrade, Sections, TaskOptions};
use super::{CompactResult, CompactUnit};
use crate::error::ErrorDetail;
use crate::format::deletion_vector::DeletionVector;
use crate::lsm::kv_file_writer::KvWriterConfig;
use crate::lsm::merge::{create_merge_function, MergeFunction};
use crate::table::Table;
use crate::{Error, Result};

/// Rows per batch of compaction reads and merges.
pub(crate) const COMPACT_BATCH_ROWS: usize = 8192;

/// How a primary-key table compacts with lookups: deletion vectors (`deletion-vectors.enabled`),
/// first-row (`merge-engine = first-row`, which keeps first rows by lookup and needs no
/// vectors) or plain lookups for the changelog (`changelog-producer = lookup`); `None` for
/// tables that need no lookup, and for `force-lookup` alone (kept at one level by full
/// compactions instead).
pub(crate) fn lookup_mode(opts: &CoreOptions) -> Result<Option<LookupMode>> {
    Ok(if matches!(opts.merge_engine()?, MergeEngine::FirstRow) {
        Some(LookupMode::FirstRow)
    } else if opts.deletion_vectors_enabled()? {
        Some(LookupMode::DeletionVectors)
    } else if opts.changelog_producer()? == ChangelogProducer::Lookup {
        Some(LookupMode::Plain)
    } else {
        None
    })
}

/// Whether batch readers of the table skip level 0 (Java semantics: deletion vectors without
/// `deletion-vectors.merge-on-read`, or `merge-engine = first-row`): rows a write leaves at
/// level 0 are invisible to them until a compaction moves them up. The same rule as the scan
/// planner's level-0 skipping (`crate::scan`).
pub(crate) fn readers_skip_level0(opts: &CoreOptions) -> Result<bool> {
    Ok(opts.batch_scan_skip_level0()?)
}

/// The changelog a compaction writes for `changelog-producer = lookup` / `full-compaction`:
/// the changelog files' settings and `changelog-producer.row-deduplicate[-ignore-fields]`
/// (Java `CoreOptions.changelogRowDeduplicate`).
pub(crate) fn compaction_changelog(schema: &TableSchema) -> Result<Arc<LookupChangelog>> {
    let opts = schema.options();
    let dedupe = opts
        .get_bool("changelog-producer.row-deduplicate")?
        .unwrap_or(false);
    let equal_fields = if dedupe {
        let ignore: Vec<String> = opts
            .get("changelog-producer.row-deduplicate-ignore-fields")
            .map(|v| {
                v.split(',')
                    .map(|f| f.trim().to_string())
                    .filter(|f| !f.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        for name in &ignore {
            if !schema.fields.iter().any(|f| &f.name == name) {
                return Err(ErrorDetail::InvalidOption {
                    key: "changelog-producer.row-deduplicate-ignore-fields".into(),
                    message: format!("field {name} does not exist in the table's schema"),
                }
                .into());
            }
        }
        Some(
            schema
                .fields
                .iter()
                .enumerate()
                .filter(|(_, f)| !ignore.contains(&f.name))
                .map(|(i, _)| i)
                .collect(),
        )
    } else {
        None
    };
    Ok(Arc::new(LookupChangelog {
        config: KvWriterConfig::for_changelog(schema)?,
        equal_fields,
    }))
}

/// What every bucket of one primary-key table compacts with.
#[derive(Clone)]
pub(crate) struct TableCompaction {
    pub table: Table,
    pub config: Arc<KvWriterConfig>,
    pub merge: Arc<dyn MergeFunction>,
    pub expire: Option<RecordLevelExpire>,
    /// Trimmed primary-key types.
    pub key_types: Arc<Vec<DataType>>,
    /// The task options before a unit is known (`max_level`, `drop_delete` and `lookup` are
    /// set per task by [`plan_task`]).
    pub task: TaskOptions,
    pub num_levels: i32,
    pub deletion_vectors: bool,
    /// Lookup compaction ([`lookup_mode`]).
    pub lookup: Option<LookupMode>,
    /// `deletion-vectors.bitmap64`: the form of new vectors.
    pub bitmap64: bool,
}

impl TableCompaction {
    pub(crate) fn new(table: &Table) -> Result<Self> {
        let schema = table.schema();
        let opts = table.options();
        let config = KvWriterConfig::new(schema)?;
        Ok(TableCompaction {
            key_types: Arc::new(config.key_types().to_vec()),
            merge: create_merge_function(schema)?,
            expire: RecordLevelExpire::from_schema(schema)?,
            task: TaskOptions {
                min_file_size: compaction_file_size(opts, true)?,
                max_level: 0,
                drop_delete: false,
                force_rewrite_all_files: opts
                    .get_bool("compaction.force-rewrite-all-files")?
                    .unwrap_or(false),
                lookup: LookupUpgrade::Off,
            },
            num_levels: opts.num_levels()?,
            deletion_vectors: opts.deletion_vectors_enabled()?,
            lookup: lookup_mode(opts)?,
            // `deletion-vectors.bitmap64` (`crate::index::DELETION_VECTORS_BITMAP64`).
            bitmap64: opts.get_bool("deletion-vectors.bitmap64")?.unwrap_or(false),
            config,
            table: table.clone(),
        })
    }

    /// The rewriter of (partition, bucket): inputs read from the bucket directory (or a
    /// file's external path), outputs written there.
    pub(crate) fn rewriter(
        &self,
        partition: &BinaryRow,
        bucket: i32,
    ) -> Result<MergeTreeCompactRewriter> {
        let dir = self.table.partition_path(partition)?;
        let paths = self.table.paths().clone();
        let (dir_a, dir_b, paths_b) = (dir.clone(), dir, paths.clone());
        Ok(MergeTreeCompactRewriter::new(
            self.table.file_io().clone(),
            self.table.schema_manager().clone(),
            self.config.clone(),
            self.merge.clone(),
            Arc::new(move |f: &DataFileMeta| match &f.external_path {
                Some(p) => object_store::path::Path::from(
                    p.strip_prefix("file:").unwrap_or(p).trim_start_matches('/'),
                ),
                None => paths.data_file(&dir_a, bucket, &f.file_name),
            }),
            Arc::new(move |name: &str| paths_b.data_file(&dir_b, bucket, name)),
            COMPACT_BATCH_ROWS,
            self.expire.clone(),
        ))
    }
}

/// The lookup-compaction state of a bucket: its mode and its deletion vectors (per data file,
/// existing ones in the form they were read in, new ones in the table's form).
pub(crate) struct BucketLookup {
    pub mode: LookupMode,
    pub vectors: HashMap<String, DeletionVector>,
    /// `deletion-vectors.bitmap64`: the form of new vectors.
    pub bitmap64: bool,
    /// The vectors changed since they were last handed to a commit.
    pub dirty: bool,
    /// `changelog-producer = lookup`: the changelog each lookup compaction writes.
    pub changelog: Option<Arc<LookupChangelog>>,
}

impl BucketLookup {
    /// Folds a finished task into the vectors (Java `BucketedDvMaintainer`): a rewritten file
    /// takes its vector with it, an upgraded one (same name) keeps it, and the deletions the
    /// lookups found join the vectors of their files.
    pub(crate) fn apply(&mut self, result: &CompactResult, bucket: i32) -> Result<()> {
        for f in &result.before {
            if !result.after.iter().any(|a| a.file_name == f.file_name)
                && self.vectors.remove(&f.file_name).is_some()
            {
                self.dirty = true;
            }
        }
        for (file, positions) in &result.deletions {
            let bitmap64 = self.bitmap64;
            let dv = self
                .vectors
                .entry(file.clone())
                .or_insert_with(|| DeletionVector::new_empty(bitmap64));
            for p in positions {
                dv.delete(*p).map_err(|e| {
                    Error::from(ErrorDetail::Unsupported(format!(
                        "deletion vector of data file {file} in bucket {bucket}: {e}"
                    )))
                })?;
            }
            self.dirty = true;
        }
        Ok(())
    }

    /// The bucket's deletion vectors when they changed since the last call (every vector of
    /// a live file, possibly none left), for a new deletion-vector index file.
    pub(crate) fn take_changed_vectors(&mut self) -> Option<HashMap<String, DeletionVector>> {
        if self.mode != LookupMode::DeletionVectors || !self.dirty {
            return None;
        }
        self.dirty = false;
        Some(self.vectors.clone())
    }
}

/// The rewriter of one task.
pub(crate) enum TaskRewriter {
    Plain(Arc<MergeTreeCompactRewriter>),
    Lookup(LookupRewriter),
}

impl CompactRewriter for TaskRewriter {
    async fn rewrite(
        &self,
        output_level: i32,
        drop_delete: bool,
        sections: Sections,
    ) -> Result<CompactResult> {
        match self {
            TaskRewriter::Plain(r) => r.rewrite(output_level, drop_delete, sections).await,
            TaskRewriter::Lookup(r) => r.rewrite(output_level, drop_delete, sections).await,
        }
    }

    async fn has_expired_records(&self, file: &DataFileMeta) -> Result<bool> {
        match self {
            TaskRewriter::Plain(r) => r.has_expired_records(file).await,
            TaskRewriter::Lookup(r) => r.has_expired_records(file).await,
        }
    }

    async fn discard(&self, files: &[DataFileMeta]) {
        match self {
            TaskRewriter::Plain(r) => r.discard(files).await,
            TaskRewriter::Lookup(r) => r.discard(files).await,
        }
    }
}

/// What a bucket's compaction needs besides its levels.
pub(crate) struct TaskInputs<'a> {
    /// The table's task options ([`TableCompaction::task`]).
    pub base: &'a TaskOptions,
    pub key_types: &'a Arc<Vec<DataType>>,
    pub deletion_vectors: bool,
    /// `changelog-producer = full-compaction`: what compactions into the max level write.
    pub full_changelog: Option<&'a Arc<LookupChangelog>>,
    pub lookup: Option<&'a BucketLookup>,
    pub rewriter: Arc<MergeTreeCompactRewriter>,
}

/// The options and rewriter of the task that compacts `unit` of `levels` (Java
/// `MergeTreeCompactManager.triggerCompaction` + the rewriter the table's compaction uses).
pub(crate) fn plan_task(
    levels: &Levels,
    unit: &CompactUnit,
    inputs: TaskInputs<'_>,
) -> (TaskOptions, TaskRewriter) {
    let mut options = inputs.base.clone();
    options.max_level = levels.max_level();
    options.drop_delete = unit.output_level != 0
        && (unit.output_level >= levels.non_empty_highest_level() || inputs.deletion_vectors);
    let key_types = inputs.key_types.clone();
    if let (None, Some(changelog), true) = (
        inputs.lookup,
        inputs.full_changelog,
        unit.output_level == options.max_level,
    ) {
        // Every key this compaction moves into the max level gets its changelog (Java
        // `FullChangelogMergeTreeCompactRewriter`): files below are rewritten, not upgraded.
        options.lookup = LookupUpgrade::All;
        let rewriter = LookupRewriter {
            inner: inputs.rewriter,
            context: Arc::new(LookupContext {
                mode: LookupMode::FullCompaction,
                upper_levels: Vec::new(),
                deleted: HashMap::new(),
                changelog: Some(changelog.clone()),
            }),
            key_types,
        };
        return (options, TaskRewriter::Lookup(rewriter));
    }
    let Some(lookup) = inputs.lookup else {
        return (options, TaskRewriter::Plain(inputs.rewriter));
    };
    // The sorted runs above the output level: what the task's keys are looked up in.
    let mut upper_levels = Vec::new();
    for level in (unit.output_level + 1)..levels.number_of_levels() {
        let run = levels.run_of_level(level).unwrap_or_default();
        if !run.is_empty() {
            upper_levels.push(run);
        }
    }
    // A level-0 file with nothing above has nothing to look up, unless its keys become
    // changelog records.
    options.lookup = if upper_levels.is_empty() && lookup.changelog.is_none() {
        LookupUpgrade::NothingAbove
    } else {
        LookupUpgrade::Rewrite
    };
    let deleted: HashMap<String, DeletedRows> = lookup
        .vectors
        .iter()
        .map(|(file, dv)| {
            let dv = Arc::new(dv.clone());
            let rows: DeletedRows = Arc::new(move |p| dv.is_deleted(p));
            (file.clone(), rows)
        })
        .collect();
    let rewriter = LookupRewriter {
        inner: inputs.rewriter,
        context: Arc::new(LookupContext {
            mode: lookup.mode,
            upper_levels,
            deleted,
            changelog: lookup.changelog.clone(),
        }),
        key_types,
    };
    (options, TaskRewriter::Lookup(rewriter))
}
