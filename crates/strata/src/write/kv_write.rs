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
//!
//! Split by concern: [`bucket_mode`] chooses how rows find their bucket (and refuses what
//! strata does not write), [`settings`] reads the changelog writers, compaction and write
//! options once, [`rows`] gives rows their kinds and routes them; this file holds the
//! per-bucket writers, their restore, compaction, memory and commit.

mod bucket_mode;
mod rows;
mod settings;

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::RecordBatch;
use strata_spec::binary_row::BinaryRow;
use strata_spec::kv::RowKind;
use strata_spec::manifest::DataFileMeta;

use super::compact_manager::{BucketLookup, CompactManager, CompactionMetrics, Picking};
use super::deletion_vectors::BucketVectors;
use super::merge_tree_writer::MergeTreeWriter;
use super::routing::Router;
use crate::commit::CommitMessage;
use crate::lsm::compact::levels::Levels;
use crate::lsm::compact::strategy::CompactStrategy;
use crate::table::Table;
use crate::Result;
use bucket_mode::Buckets;
use settings::{KvOptions, WriterSetup};

pub(super) struct KvWrite {
    table: Table,
    router: Router,
    buckets: Buckets,
    /// The changelog writers and compaction of every bucket.
    setup: WriterSetup,
    /// The write's settings from the table options.
    options: KvOptions,
    writers: HashMap<(BinaryRow, i32), MergeTreeWriter>,
    /// Live files per (partition, bucket) of the latest snapshot, loaded at the first write.
    restored: Option<HashMap<(BinaryRow, i32), Vec<DataFileMeta>>>,
    /// The bucket count (`_TOTAL_BUCKETS`) of each restored (partition, bucket)'s files.
    restored_buckets: HashMap<(BinaryRow, i32), i32>,
    /// The snapshot the buckets (files and deletion vectors) were restored from: the base of
    /// this writer's compactions (`CommitMessage::compact_base`).
    base: Option<i64>,
    /// The buckets' deletion vectors and index files (deletion-vector tables), loaded at the
    /// first write.
    vectors: Option<BucketVectors>,
    /// An OVERWRITE write: buckets start without their previous files (Java
    /// `ignorePreviousFiles`), so compaction only touches the new files.
    overwrite: bool,
    spill_dir: std::path::PathBuf,
}

impl KvWrite {
    pub(super) async fn new(table: Table, overwrite: bool) -> Result<Self> {
        let setup = WriterSetup::new(&table, overwrite)?;
        let buckets = Buckets::choose(&table, overwrite).await?;
        let options = KvOptions::new(&table, &setup)?;
        Ok(KvWrite {
            router: Router::new(&table)?,
            table,
            buckets,
            setup,
            options,
            writers: HashMap::new(),
            restored: None,
            restored_buckets: HashMap::new(),
            base: None,
            vectors: None,
            overwrite,
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
        let kinds = rows::row_kinds(&self.table, &self.options, batch, kinds)?;
        // Row-kind filter (ignore-delete / ignore-update-before).
        let (batch, kinds) = rows::filter_kinds(&self.options, batch, kinds)?;
        if batch.num_rows() == 0 {
            return Ok(());
        }
        // Kinds travel with the rows through routing as an extra column.
        let with_kinds = rows::attach_kinds(&batch, kinds)?;
        if let Buckets::Postpone(postpone) = &mut self.buckets {
            // No restore: Java's postpone writers ignore previous files.
            for (partition, _, part) in self.router.route(&with_kinds)? {
                let (values, kinds) = rows::split_kinds(&part);
                postpone.write(partition, values, kinds).await?;
            }
            return Ok(());
        }
        self.restore().await?;
        let parts = rows::route(
            &mut self.buckets,
            &self.router,
            &self.table,
            self.base,
            &with_kinds,
        )
        .await?;
        for (partition, bucket, part) in parts {
            let (values, kinds) = rows::split_kinds(&part);
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
        self.vectors = Some(match (&snapshot, self.options.compact.deletion_vectors) {
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
        let levels = Levels::new(
            self.options.compact.key_types.to_vec(),
            self.options.num_levels,
            files,
        )?;
        let picking = if self.options.write_only {
            Picking::Off
        } else if self.options.always_full {
            Picking::AlwaysFull
        } else {
            let restored = levels.all_files();
            Picking::Strategy(CompactStrategy::for_bucket(
                opts,
                self.options.lookup.is_some(),
                &restored,
            )?)
        };
        let rewriter = self.setup.compaction.rewriter(partition, *bucket)?;
        let mut manager = CompactManager::new(
            partition.clone(),
            *bucket,
            levels,
            picking,
            self.options.compact.clone(),
            Arc::new(rewriter),
        );
        if let Some(mode) = self.options.lookup {
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
                bitmap64: self.setup.compaction.bitmap64,
                dirty: false,
                changelog: self.setup.lookup_changelog.clone(),
            });
        }
        let writer = MergeTreeWriter::new(
            self.table.file_io().clone(),
            self.table.paths().clone(),
            dir,
            *bucket,
            self.setup.config.clone(),
            self.setup.merge.clone(),
            self.spill_dir.clone(),
            next_seq,
            manager,
            self.options.force_compact,
        );
        Ok(match &self.setup.changelog {
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
            if total <= self.options.buffer_size {
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
            if self.options.spillable && spilled < self.options.spill_max_disk {
                biggest.spill().await?;
            } else {
                biggest.flush_for_memory().await?;
            }
        }
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
        let Some(n) = self
            .options
            .full_delta_commits
            .filter(|_| !self.options.write_only)
        else {
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
