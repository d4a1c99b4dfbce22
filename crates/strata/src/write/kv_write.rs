//! The write path of primary-key tables: [`KvWrite`], used by [`super::TableWrite`].
//!
//! For every input batch: the row kind of each row comes from the caller, from the
//! `rowkind.field` column, or is `+I`; `ignore-delete` drops `-U`/`-D` rows and
//! `ignore-update-before` drops `-U` rows (Java `RowKindFilter`); rows are routed to
//! (partition, bucket) — Paimon's Murmur hash of the bucket key for `bucket = N`, the HASH
//! index for dynamic buckets (`bucket = -1`, [`crate::index::DynamicBucketAssigner`]) — and
//! buffered by that bucket's [`MergeTreeWriter`]. Rows of a cross-partition-upsert table
//! (`bucket = -1` and a primary key without every partition key, Java's `KEY_DYNAMIC`) are
//! routed by the global key index of [`super::cross_partition::GlobalIndexAssigner`], which
//! retracts a key from its old partition when it arrives in a new one.
//!
//! Memory is bounded across all buckets by `write-buffer-size`: when the buffers together
//! exceed it, the largest one is spilled to local disk (`write-buffer-spillable`, default
//! true; up to `write-buffer-spill.max-disk-size`) or else flushed to a level-0 file, like
//! Java's shared memory pool asking the biggest writer to give memory back.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_select::filter::filter_record_batch;
use strata_spec::binary_row::BinaryRow;
use strata_spec::kv::RowKind;

use super::compact_manager::{
    BucketLookup, CompactManager, CompactSettings, CompactionMetrics, Picking,
};
use super::cross_partition::{GlobalIndexAssigner, LiveBuckets};
use super::deletion_vectors::BucketVectors;
use super::lookup_settings::{changelog_writers, lookup_mode, lookup_reason, ChangelogWriters};
use super::merge_tree_writer::MergeTreeWriter;
use super::routing::Router;
use crate::commit::CommitMessage;
use crate::error::ErrorDetail;
use crate::index::{DynamicBucketAssigner, KeyHasher};
use crate::lsm::compact::bucket::TableCompaction;
use crate::lsm::compact::levels::Levels;
use crate::lsm::compact::lookup::{LookupChangelog, LookupMode};
use crate::lsm::compact::strategy::CompactStrategy;
use crate::lsm::kv_file_writer::KvWriterConfig;
use crate::lsm::merge::MergeFunction;
use crate::table::Table;
use crate::{Error, Result};
use strata_spec::manifest::DataFileMeta;
use strata_spec::options::ChangelogProducer;

enum Buckets {
    Fixed,
    Dynamic {
        hasher: KeyHasher,
        assigner: Box<DynamicBucketAssigner>,
    },
    /// `bucket = -1` with a primary key that lacks a partition key: Java's `KEY_DYNAMIC`
    /// bucket mode (`KeyValueFileStore.bucketMode`), cross-partition upsert: a global key →
    /// (partition, bucket) index (Java's `GlobalIndexAssigner`, bootstrapped from every live
    /// key at the first write) retracts a key from its old partition when it arrives in a new
    /// one; no HASH index files are written.
    KeyDynamic {
        /// Built at the first write.
        assigner: Option<Box<GlobalIndexAssigner>>,
        /// The restored snapshot's live files per bucket (with their bucket count), kept for
        /// the bootstrap until the first write.
        live: Option<LiveBuckets>,
    },
    /// `bucket = -2`: every row to its partition's postpone bucket, unsorted
    /// ([`super::postpone::PostponeWrite`], Java's `PostponeBucketFileStoreWrite`).
    Postpone(Box<super::postpone::PostponeWrite>),
}

/// Why an INSERT OVERWRITE of a cross-partition-upsert (`KEY_DYNAMIC`) table is refused.
fn key_dynamic_overwrite_refusal(table: &Table) -> Error {
    let schema = table.schema();
    ErrorDetail::Unsupported(format!(
        "overwriting {}: its primary key ({}) does not include every partition key ({}) and \
         bucket = -1 (Paimon's cross-partition upsert, bucket mode KEY_DYNAMIC); strata writes \
         such tables through a global key index, but not by INSERT OVERWRITE, where a key of \
         an overwritten partition may still live in another one. Delete the rows and write \
         them again instead",
        table.identifier(),
        schema.primary_keys.join(", "),
        schema.partition_keys.join(", "),
    ))
    .into()
}

pub(super) struct KvWrite {
    table: Table,
    router: Router,
    buckets: Buckets,
    config: Arc<KvWriterConfig>,
    /// `changelog-producer = input`: the changelog files' settings.
    changelog: Option<Arc<KvWriterConfig>>,
    /// `changelog-producer = lookup`: what lookup compactions write.
    lookup_changelog: Option<Arc<LookupChangelog>>,
    merge: Arc<dyn MergeFunction>,
    writers: HashMap<(BinaryRow, i32), MergeTreeWriter>,
    /// Live files per (partition, bucket) of the latest snapshot, loaded at the first write.
    restored: Option<HashMap<(BinaryRow, i32), Vec<DataFileMeta>>>,
    /// The bucket count (`_TOTAL_BUCKETS`) of each restored (partition, bucket)'s files.
    restored_buckets: HashMap<(BinaryRow, i32), i32>,
    /// The snapshot the buckets (files and deletion vectors) were restored from: the base of
    /// this writer's compactions (`CommitMessage::compact_base`).
    base: Option<i64>,
    /// What every bucket compacts with (rewriters, task options).
    compaction: TableCompaction,
    compact: CompactSettings,
    /// `write-only`: no compaction on write.
    write_only: bool,
    /// Buckets kept at one level (`force-lookup`, which strata's lookup compaction does not
    /// cover; see `Picking::AlwaysFull`).
    always_full: bool,
    /// Lookup compaction (deletion vectors or first-row; `crate::lsm::compact::lookup`).
    lookup: Option<LookupMode>,
    num_levels: i32,
    force_compact: bool,
    /// The buckets' deletion vectors and index files (deletion-vector tables), loaded at the
    /// first write.
    vectors: Option<BucketVectors>,
    /// `full-compaction.delta-commits`.
    full_delta_commits: Option<i64>,
    /// An OVERWRITE write: buckets start without their previous files (Java
    /// `ignorePreviousFiles`), so compaction only touches the new files.
    overwrite: bool,
    row_kind_field: Option<usize>,
    ignore_delete: bool,
    ignore_update_before: bool,
    buffer_size: usize,
    spillable: bool,
    spill_max_disk: u64,
    spill_dir: std::path::PathBuf,
}

impl KvWrite {
    pub(super) async fn new(table: Table, overwrite: bool) -> Result<Self> {
        let schema = table.schema().clone();
        let opts = table.options();
        // `changelog-producer = input` is written here (changelog files of every flush); the
        // lookup and full-compaction producers derive the changelog in compaction, which
        // strata does not: a commit without their changelog would be invisible to every
        // streaming reader of it.
        let producer = opts.changelog_producer()?;
        let ChangelogWriters {
            input: changelog,
            lookup: lookup_changelog,
            full: full_changelog,
        } = changelog_writers(&table, overwrite)?;
        let compaction = TableCompaction::new(&table)?;
        let merge = compaction.merge.clone();
        let config = compaction.config.clone();
        let bucket = opts.bucket()?;
        let buckets = match bucket {
            -1 if schema.cross_partition_update() => {
                if overwrite {
                    return Err(key_dynamic_overwrite_refusal(&table));
                }
                Buckets::KeyDynamic {
                    assigner: None,
                    live: None,
                }
            }
            -1 => Buckets::Dynamic {
                hasher: KeyHasher::new(&table)?,
                assigner: Box::new(if overwrite {
                    DynamicBucketAssigner::for_overwrite(&table).await?
                } else {
                    DynamicBucketAssigner::new(&table).await?
                }),
            },
            n if n > 0 => Buckets::Fixed,
            strata_spec::options::POSTPONE_BUCKET => Buckets::Postpone(Box::new(
                super::postpone::PostponeWrite::new(table.clone())?,
            )),
            other => {
                return Err(ErrorDetail::UnsupportedOption {
                    key: "bucket".into(),
                    message: format!(
                        "bucket = {other} is not supported for primary-key table {} \
                         (use bucket = -1 for dynamic buckets or a positive bucket count)",
                        table.identifier()
                    ),
                }
                .into())
            }
        };
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
        let compact = CompactSettings {
            key_types: compaction.key_types.clone(),
            task: compaction.task.clone(),
            stop_trigger: opts.num_sorted_run_stop_trigger()?.max(1) as usize,
            deletion_vectors: compaction.deletion_vectors,
            full_changelog,
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
            None if producer == ChangelogProducer::FullCompaction => Some(1),
            other => other,
        };
        Ok(KvWrite {
            router: Router::new(&table)?,
            write_only: opts.write_only()?,
            always_full: need_lookup && lookup.is_none(),
            lookup,
            num_levels: opts.num_levels()?,
            force_compact: opts.commit_force_compact()?,
            compact,
            table,
            buckets,
            config,
            changelog,
            lookup_changelog,
            merge,
            writers: HashMap::new(),
            restored: None,
            restored_buckets: HashMap::new(),
            base: None,
            compaction,
            vectors: None,
            full_delta_commits,
            overwrite,
            row_kind_field,
            ignore_delete,
            ignore_update_before,
            buffer_size,
            spillable,
            spill_max_disk,
            spill_dir: std::env::temp_dir().join("strata-spill"),
        })
    }

    /// The (partition, bucket)s with a writer (written to or compacted).
    pub(super) fn written_buckets(&self) -> std::collections::HashSet<(BinaryRow, i32)> {
        self.writers.keys().cloned().collect()
    }

    pub(super) fn total_buckets(&self) -> i32 {
        self.router.total_buckets()
    }

    /// Writes a batch already cast to the table schema; `kinds` overrides `rowkind.field`.
    pub(super) async fn write(
        &mut self,
        batch: &RecordBatch,
        kinds: Option<&[RowKind]>,
    ) -> Result<()> {
        let kinds: Vec<i8> = match kinds {
            Some(k) => {
                if k.len() != batch.num_rows() {
                    return Err(ErrorDetail::InvalidArgument(format!(
                        "{} row kinds for a batch of {} rows",
                        k.len(),
                        batch.num_rows()
                    ))
                    .into());
                }
                k.iter().map(|k| k.to_byte()).collect()
            }
            None => match self.row_kind_field {
                Some(idx) => self.kinds_from_column(batch.column(idx))?,
                None => vec![RowKind::Insert.to_byte(); batch.num_rows()],
            },
        };
        // Row-kind filter (ignore-delete / ignore-update-before).
        let (batch, kinds) = self.filter_kinds(batch, kinds)?;
        if batch.num_rows() == 0 {
            return Ok(());
        }
        // Kinds travel with the rows through routing as an extra column.
        let mut cols = batch.columns().to_vec();
        cols.push(Arc::new(arrow_array::Int8Array::from(kinds)) as ArrayRef);
        let mut fields = batch.schema().fields().to_vec();
        fields.push(Arc::new(arrow_schema::Field::new(
            "_row_kind",
            arrow_schema::DataType::Int8,
            false,
        )));
        let with_kinds = RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), cols)
            .map_err(|e| Error::arrow("attaching row kinds", e))?;
        if let Buckets::Postpone(postpone) = &mut self.buckets {
            // No restore: Java's postpone writers ignore previous files.
            for (partition, _, part) in self.router.route(&with_kinds)? {
                let (values, kinds) = split_kinds(&part);
                postpone.write(partition, values, kinds).await?;
            }
            return Ok(());
        }
        self.restore().await?;
        let mut parts = Vec::new();
        let mut routed = Vec::new();
        if let Buckets::KeyDynamic { assigner, live } = &mut self.buckets {
            if assigner.is_none() {
                let files = live.take().unwrap_or_default();
                let built = GlobalIndexAssigner::bootstrap(&self.table, self.base, &files).await?;
                *assigner = Some(Box::new(built));
            }
            parts = assigner
                .as_mut()
                .expect("bootstrapped above")
                .assign(&with_kinds)?;
        } else {
            routed = self.router.route(&with_kinds)?;
        }
        for (partition, bucket, part) in routed {
            match &mut self.buckets {
                Buckets::Fixed => parts.push((partition, bucket, part)),
                // Written above; kept out of the merge-tree writers.
                Buckets::Postpone(_) => {
                    return Err(ErrorDetail::InvalidArgument(
                        "postpone rows reached the merge-tree writers".into(),
                    )
                    .into())
                }
                Buckets::KeyDynamic { .. } => {}
                Buckets::Dynamic { hasher, assigner } => {
                    let hashes = hasher.hash_batch(&part)?;
                    let assigned = assigner.assign_batch(&partition, &hashes).await?;
                    for (b, sub) in split_by_bucket(&part, &assigned)? {
                        parts.push((partition.clone(), b, sub));
                    }
                }
            }
        }
        for (partition, bucket, part) in parts {
            let (values, kinds) = split_kinds(&part);
            let writer = self.writer(partition, bucket)?;
            writer.write(values, kinds)?;
        }
        self.enforce_memory().await
    }

    /// Loads the live files (and, for deletion-vector tables, the buckets' deletion vectors)
    /// of the latest snapshot, once; both from the same snapshot, the base of this writer's
    /// compactions.
    async fn restore(&mut self) -> Result<()> {
        if self.restored.is_some() {
            return Ok(());
        }
        let snapshot = self.table.snapshot_manager().latest().await?;
        let mut files: HashMap<(BinaryRow, i32), Vec<DataFileMeta>> = HashMap::new();
        if let Some(s) = &snapshot {
            let metas = self.table.manifest_store().data_manifests(s).await?;
            for e in crate::scan::live_entries(&self.table, s, &metas).await? {
                let key = (e.partition, e.bucket);
                self.restored_buckets.insert(key.clone(), e.total_buckets);
                files.entry(key).or_default().push(e.file);
            }
        }
        self.base = snapshot.as_ref().map(|s| s.id);
        if let Buckets::KeyDynamic { live, .. } = &mut self.buckets {
            let counts = &self.restored_buckets;
            *live = Some(
                files
                    .iter()
                    .map(|(k, f)| {
                        let total = counts.get(k).copied().unwrap_or(-1);
                        (k.clone(), (total, f.clone()))
                    })
                    .collect(),
            );
        }
        self.restored = Some(files);
        // An overwrite starts its buckets afresh and its OVERWRITE snapshot deletes the
        // partitions' index files: no vectors to carry over.
        self.vectors = Some(match (&snapshot, self.compact.deletion_vectors) {
            (Some(s), true) if !self.overwrite => BucketVectors::restore(&self.table, s).await?,
            _ => BucketVectors::default(),
        });
        Ok(())
    }

    /// Java `AbstractFileStoreWrite.scanExistingFileMetas`: a fixed-bucket table's bucket
    /// restored from files written with another bucket count (the table's `bucket` was
    /// changed and the partition not rewritten since) is refused, for writes and compactions
    /// alike; its rows would land in buckets no reader of the old layout looks in.
    fn check_bucket_count(&self, key: &(BinaryRow, i32)) -> Result<()> {
        if self.overwrite || !matches!(self.buckets, Buckets::Fixed) {
            return Ok(());
        }
        let Some(&previous) = self.restored_buckets.get(key) else {
            return Ok(());
        };
        let total = self.total_buckets();
        if previous <= 0 || previous == total {
            return Ok(());
        }
        Err(crate::commit::bucket_num_mismatch(
            &self.table,
            &key.0,
            total,
            previous,
        ))
    }

    fn writer(&mut self, partition: BinaryRow, bucket: i32) -> Result<&mut MergeTreeWriter> {
        let key = (partition, bucket);
        if !self.writers.contains_key(&key) {
            self.check_bucket_count(&key)?;
            let files = self
                .restored
                .as_mut()
                .and_then(|m| m.remove(&key))
                .unwrap_or_default();
            let w = self.new_writer(&key, files)?;
            self.writers.insert(key.clone(), w);
        }
        Ok(self.writers.get_mut(&key).expect("inserted just above"))
    }

    /// The writer of one bucket, restored from its live `files`.
    fn new_writer(
        &self,
        (partition, bucket): &(BinaryRow, i32),
        files: Vec<DataFileMeta>,
    ) -> Result<MergeTreeWriter> {
        let next_seq = files
            .iter()
            .map(|f| f.max_sequence_number)
            .max()
            .map(|s| s + 1)
            .unwrap_or(0);
        let dir = self.table.partition_path(partition)?;
        let opts = self.table.options();
        let files = if self.overwrite { Vec::new() } else { files };
        let levels = Levels::new(self.compact.key_types.to_vec(), self.num_levels, files)?;
        let picking = if self.write_only {
            Picking::Off
        } else if self.always_full {
            Picking::AlwaysFull
        } else {
            let restored = levels.all_files();
            Picking::Strategy(CompactStrategy::for_bucket(
                opts,
                self.lookup.is_some(),
                &restored,
            )?)
        };
        let rewriter = self.compaction.rewriter(partition, *bucket)?;
        let mut manager = CompactManager::new(
            partition.clone(),
            *bucket,
            levels,
            picking,
            self.compact.clone(),
            Arc::new(rewriter),
        );
        if let Some(mode) = self.lookup {
            // An overwrite starts the bucket afresh (its OVERWRITE snapshot drops the old
            // index files), so it has no vectors to carry over.
            let vectors = self
                .vectors
                .as_ref()
                .map(|v| v.of_bucket(&(partition.clone(), *bucket)))
                .unwrap_or_default();
            manager = manager.with_lookup(BucketLookup {
                mode,
                vectors,
                bitmap64: self.compaction.bitmap64,
                dirty: false,
                changelog: self.lookup_changelog.clone(),
            });
        }
        let writer = MergeTreeWriter::new(
            self.table.file_io().clone(),
            self.table.paths().clone(),
            dir,
            *bucket,
            self.config.clone(),
            self.merge.clone(),
            self.spill_dir.clone(),
            next_seq,
            manager,
            self.force_compact,
        );
        Ok(match &self.changelog {
            Some(config) => writer.with_input_changelog(config.clone()),
            None => writer,
        })
    }

    /// Compacts the given buckets (all restored buckets of the selected partitions when
    /// `buckets` is `None`); the result is part of the next prepare-commit.
    pub(super) async fn compact(
        &mut self,
        select: &(dyn Fn(&BinaryRow, i32) -> bool + Sync),
        full: bool,
    ) -> Result<usize> {
        self.restore().await?;
        let mut keys: Vec<(BinaryRow, i32)> = self
            .restored
            .as_ref()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        keys.extend(self.writers.keys().cloned());
        keys.retain(|(p, b)| select(p, *b));
        keys.sort_by(|a, b| (a.0.as_bytes(), a.1).cmp(&(b.0.as_bytes(), b.1)));
        keys.dedup();
        for (p, b) in &keys {
            self.writer(p.clone(), *b)?.compact(full).await?;
        }
        Ok(keys.len())
    }

    /// Spills (or flushes) the biggest buffers until the total fits `write-buffer-size`.
    async fn enforce_memory(&mut self) -> Result<()> {
        loop {
            let total: usize = self.writers.values().map(|w| w.memory()).sum();
            if total <= self.buffer_size {
                return Ok(());
            }
            let spilled: u64 = self.writers.values().map(|w| w.spilled_bytes()).sum();
            let Some(biggest) = self
                .writers
                .values_mut()
                .max_by_key(|w| w.memory())
                .filter(|w| w.memory() > 0)
            else {
                return Ok(());
            };
            if self.spillable && spilled < self.spill_max_disk {
                biggest.spill().await?;
            } else {
                biggest.flush_for_memory().await?;
            }
        }
    }

    fn kinds_from_column(&self, col: &ArrayRef) -> Result<Vec<i8>> {
        let name =
            &self.table.schema().fields[self.row_kind_field.expect("called with a field")].name;
        super::row_kinds::parse_row_kind_column(col, name)
    }

    fn filter_kinds(&self, batch: &RecordBatch, kinds: Vec<i8>) -> Result<(RecordBatch, Vec<i8>)> {
        let drop = |k: i8| {
            (self.ignore_delete
                && (k == RowKind::Delete.to_byte() || k == RowKind::UpdateBefore.to_byte()))
                || (self.ignore_update_before && k == RowKind::UpdateBefore.to_byte())
        };
        if !kinds.iter().any(|k| drop(*k)) {
            return Ok((batch.clone(), kinds));
        }
        let keep: arrow_array::BooleanArray = kinds.iter().map(|k| Some(!drop(*k))).collect();
        let filtered = filter_record_batch(batch, &keep)
            .map_err(|e| Error::arrow("dropping ignored row kinds", e))?;
        let kinds = kinds.into_iter().filter(|k| !drop(*k)).collect();
        Ok((filtered, kinds))
    }

    /// Flushes every bucket and returns the new files (and index changes) per bucket.
    pub(super) async fn prepare_commit(
        &mut self,
        metrics: &mut Vec<CompactionMetrics>,
    ) -> Result<Vec<CommitMessage>> {
        if let Buckets::Postpone(postpone) = &mut self.buckets {
            return postpone.prepare_commit().await;
        }
        let total_buckets = self.total_buckets();
        let mut keys: Vec<_> = self.writers.keys().cloned().collect();
        keys.sort_by(|a, b| (a.0.as_bytes(), a.1).cmp(&(b.0.as_bytes(), b.1)));
        let full = self.full_compaction_due().await?;
        // A cross-partition-upsert write: the snapshot its key index was bootstrapped from, so
        // that the commit refuses a concurrent writer's keys (`commit::key_dynamic`).
        let key_base = match &self.buckets {
            Buckets::KeyDynamic {
                assigner: Some(_), ..
            } => self.base,
            _ => None,
        };
        let mut out: Vec<CommitMessage> = Vec::new();
        for key in keys {
            let w = self
                .writers
                .get_mut(&key)
                .expect("key was taken from the map");
            let table = &self.table;
            let in_bucket = |e| table.error_in_bucket(e, &key.0, key.1);
            if full {
                w.compact(true).await.map_err(in_bucket)?;
            }
            let mut inc = w.prepare_commit(true).await.map_err(in_bucket)?;
            metrics.extend(inc.metrics);
            let compact_index_changes = match inc.deletion_vectors.take() {
                Some(vectors) => {
                    self.vectors
                        .get_or_insert_with(BucketVectors::default)
                        .write(&self.table, &key, vectors)
                        .await?
                }
                None => Vec::new(),
            };
            if !inc.new_files.is_empty()
                || !inc.new_changelog.is_empty()
                || !inc.compact_before.is_empty()
                || !inc.compact_after.is_empty()
                || !inc.compact_changelog.is_empty()
                || !compact_index_changes.is_empty()
            {
                out.push(CommitMessage {
                    new_files: inc.new_files,
                    new_changelog: inc.new_changelog,
                    compact_index_changes,
                    compact_before: inc.compact_before,
                    compact_after: inc.compact_after,
                    compact_changelog: inc.compact_changelog,
                    compact_base: self.base,
                    index_base: key_base,
                    ..CommitMessage::new(key.0.clone(), key.1, total_buckets)
                });
            }
        }
        if let Buckets::Dynamic { assigner, .. } = &mut self.buckets {
            let base = assigner.base_snapshot();
            for change in assigner.prepare_commit().await? {
                match out
                    .iter_mut()
                    .find(|m| m.partition == change.partition && m.bucket == change.bucket)
                {
                    Some(m) => {
                        m.index_changes.push(change);
                        m.index_base = base;
                    }
                    None => out.push(CommitMessage {
                        index_changes: vec![change.clone()],
                        index_base: base,
                        ..CommitMessage::new(change.partition.clone(), change.bucket, total_buckets)
                    }),
                }
            }
        }
        Ok(out)
    }

    /// `full-compaction.delta-commits = N`: the buckets written by this commit are fully
    /// compacted when the snapshot it creates has an id divisible by N (every commit for
    /// N = 1). Java's Flink sink counts checkpoints instead; a batch writer has no
    /// checkpoints, and snapshot ids are what every writer of the table shares.
    async fn full_compaction_due(&self) -> Result<bool> {
        let Some(n) = self.full_delta_commits.filter(|_| !self.write_only) else {
            return Ok(false);
        };
        if n == 1 {
            return Ok(true);
        }
        let next = self
            .table
            .snapshot_manager()
            .latest_id()
            .await?
            .unwrap_or(0)
            + 1;
        Ok(next % n == 0)
    }

    pub(super) async fn abort(&mut self) {
        if let Buckets::Postpone(postpone) = &mut self.buckets {
            postpone.abort().await;
        }
        for w in self.writers.values_mut() {
            w.abort().await;
        }
        self.writers.clear();
        if let Buckets::Dynamic { assigner, .. } = &mut self.buckets {
            assigner.abort().await;
        }
    }
}

/// The value columns and the row kinds of a routed batch (its last column, added by
/// [`KvWrite::write`]).
fn split_kinds(part: &RecordBatch) -> (Vec<ArrayRef>, Vec<i8>) {
    let n = part.num_columns();
    let kinds = part
        .column(n - 1)
        .as_any()
        .downcast_ref::<arrow_array::Int8Array>()
        .expect("the last column is the Int8 row-kind column added by KvWrite::write")
        .values()
        .to_vec();
    (part.columns()[..n - 1].to_vec(), kinds)
}

/// Splits rows by their assigned bucket, keeping arrival order within each bucket.
fn split_by_bucket(batch: &RecordBatch, buckets: &[i32]) -> Result<Vec<(i32, RecordBatch)>> {
    let first = buckets.first().copied().unwrap_or(0);
    if buckets.iter().all(|b| *b == first) {
        return Ok(vec![(first, batch.clone())]);
    }
    let mut groups: std::collections::BTreeMap<i32, Vec<u32>> = Default::default();
    for (i, b) in buckets.iter().enumerate() {
        groups.entry(*b).or_default().push(i as u32);
    }
    groups
        .into_iter()
        .map(|(b, rows)| {
            let part =
                arrow_select::take::take_record_batch(batch, &arrow_array::UInt32Array::from(rows))
                    .map_err(|e| Error::arrow("splitting batch by bucket", e))?;
            Ok((b, part))
        })
        .collect()
}
