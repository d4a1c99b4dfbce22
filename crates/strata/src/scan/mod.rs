//! Scan planning: snapshot → manifest lists → manifests → live files → splits.
//!
//! Vocabulary (Paimon's): a [`TableScan`] produces a [`Plan`] of [`DataSplit`]s, one per
//! (partition, bucket), each listing the live data files to read. Pruning happens at four
//! levels, cheapest first, and is counted in [`ScanMetrics`]:
//! 1. manifests whose partition statistics or bucket range cannot match are not read;
//! 2. entries of other buckets and partitions are dropped while still encoded, before they
//!    are decoded or merged (lazy decoding, `entries`); the bucket comes from
//!    [`TableScan::with_bucket`] or from equalities on the bucket key (`bucket_select`);
//! 3. a scan of one bucket can be served by the snapshot live manifest entry cache
//!    (`entries::cached`, [`crate::cache`]) without reading any manifest; a snapshot the cache does
//!    not hold yet is built from an older snapshot's cached entries plus the newer snapshots'
//!    delta manifests when the chain allows it (`entries`), so a table that commits
//!    continuously reads only each commit's delta;
//! 4. live files whose statistics cannot match the filter are dropped.
//!
//! [`IncrementalScan`] (`incremental`) plans the changes between two snapshots instead
//! (`incremental-between`, Paimon's batch incremental reads); a [`TableScan`] of a table whose
//! options ask for one is refused rather than silently reading the whole snapshot.
//!
//! Without an explicit snapshot a scan starts where the table's `scan.*` options say, as
//! Java's batch scans do (`start`: `scan.snapshot-id`, `scan.tag-name`, `scan.timestamp`,
//! `scan.mode = compacted-full`, `scan.file-creation-time-millis`, `scan.bucket`, ...;
//! [`time_travel`] resolves snapshot ids, tags, watermarks and times). Every plan is checked by
//! `read_audit` before a row is read: options reads do not honour and files strata cannot read
//! as Java does are refused by name. Partitions a rescale left with another bucket count are
//! read with their own count (each entry's `totalBuckets`); `bucket = -2` tables are read from
//! their real buckets only (the postpone bucket waits for its compaction, as in Java).
//!
//! Pruning is conservative: it never drops a file that may contain a matching row. Exact row
//! filtering is the reader's job ([`crate::read`]).

mod bucket_select;
mod entries;
pub(crate) mod fallback;
pub(crate) mod fallback_travel;
mod incremental;
mod incremental_between;
mod pk_splits;
mod plan;
pub(crate) mod read_audit;
mod start;
mod stats_pruning;
pub mod time_travel;

pub use incremental::{IncrementalPlan, IncrementalScan, IncrementalSplit};
pub use incremental_between::{
    IncrementalBetween, IncrementalMode, INCREMENTAL_BETWEEN, INCREMENTAL_BETWEEN_SCAN_MODE,
    INCREMENTAL_BETWEEN_TAG_TO_SNAPSHOT, INCREMENTAL_BETWEEN_TIMESTAMP,
};
pub use plan::{DataSplit, Plan, ScanMetrics};
pub use stats_pruning::file_column_stats;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Instant;

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{ManifestEntry, ManifestFileMeta};
use strata_spec::snapshot::Snapshot;

pub(crate) use bucket_select::select_buckets;
use entries::{read_live_entries, CacheUse, EntrySelection};
use plan::add_to_split;
use read_audit::{describe_entry, option_error};
pub(crate) use start::{creation_epoch_millis, latest_compacted};

use crate::cache::Cache;
use crate::error::ResultExt;
use crate::expr::{BoundPredicate, Predicate};
use crate::table::Table;
use crate::Result;

impl Table {
    /// A scan planner of this table's snapshots into [`DataSplit`]s.
    pub fn new_scan(&self) -> TableScan {
        TableScan::new(self.clone())
    }
}

/// Builder of a scan over one snapshot (Paimon's `ScanMode.ALL`: every live file).
#[derive(Clone, Debug)]
pub struct TableScan {
    table: Table,
    snapshot_id: Option<i64>,
    /// A snapshot given as metadata (a tag's copy, which outlives the snapshot file).
    snapshot_meta: Option<Snapshot>,
    /// How the explicit snapshot was chosen: what a `scan.fallback-branch` table maps to its
    /// other branch (`fallback_travel`).
    travel: Option<fallback_travel::BranchTravel>,
    /// With an explicit snapshot: only files created at or after this time (the partition
    /// listing of a `scan.fallback-branch` plan under a file-creation start mode).
    min_file_creation: Option<i64>,
    filter: Option<Predicate>,
    buckets: Option<BTreeSet<i32>>,
    cache: Option<Arc<dyn Cache>>,
    /// Plan the latest snapshot whatever the table's `scan.*` options say.
    latest: bool,
    /// Plan the table's own branch only, whatever `scan.fallback-branch` says (`fallback`).
    own_branch: bool,
}

impl TableScan {
    pub(crate) fn new(table: Table) -> Self {
        let cache = table.cache().cloned();
        TableScan {
            table,
            snapshot_id: None,
            snapshot_meta: None,
            travel: None,
            min_file_creation: None,
            filter: None,
            buckets: None,
            cache,
            latest: false,
            own_branch: false,
        }
    }

    /// Plan the table's own branch only, ignoring `scan.fallback-branch` /
    /// `scan.primary-branch` (`fallback`): streaming reads and the scans of maintenance jobs,
    /// which Java runs on the own branch too.
    pub(crate) fn own_branch(mut self) -> Self {
        self.own_branch = true;
        self
    }

    /// Plan the latest snapshot and every live file of the selected buckets, ignoring the
    /// table's `scan.*` options (where to start, `scan.bucket`): for writes that rewrite what
    /// they read (copy-on-write UPDATE and DELETE, MERGE INTO), which must see the table as it
    /// is now.
    pub fn with_latest(mut self) -> Self {
        self.latest = true;
        self
    }

    /// Time travel: plan snapshot `id` instead of the latest.
    pub fn with_snapshot(mut self, id: i64) -> Self {
        self.snapshot_id = Some(id);
        self.travel = Some(fallback_travel::BranchTravel::Target(
            time_travel::TravelTarget::Snapshot(id),
        ));
        self
    }

    /// Time travel to `snapshot`, which `target` resolved to on this table (see [`travel`]):
    /// as [`Self::with_snapshot_meta`], and a table with `scan.fallback-branch` /
    /// `scan.primary-branch` travels its other branch by the same target, as Java's
    /// `FallbackReadFileStoreTable` does (a snapshot id by its time, a tag by its name, a
    /// time as is). A scan given only the metadata refuses such a table.
    pub fn with_travel(mut self, target: time_travel::TravelTarget, snapshot: Snapshot) -> Self {
        self.snapshot_meta = Some(snapshot);
        self.travel = Some(fallback_travel::BranchTravel::Target(target));
        self
    }

    /// Time travel to a snapshot given by its metadata, e.g. a tag's (see
    /// `crate::maintenance::time_travel`); wins over [`Self::with_snapshot`].
    pub fn with_snapshot_meta(mut self, snapshot: Snapshot) -> Self {
        self.snapshot_meta = Some(snapshot);
        self
    }

    /// A filter used for partition, bucket and statistics pruning.
    pub fn with_filter(mut self, filter: Predicate) -> Self {
        self.filter = Some(filter);
        self
    }

    /// Only bucket `bucket` (Java's `withBucket`). Combined with a bucket derived from the
    /// filter, the scan covers their intersection.
    pub fn with_bucket(mut self, bucket: i32) -> Self {
        self.buckets = Some(BTreeSet::from([bucket]));
        self
    }

    /// The cache for the snapshot live manifest entry cache (default: the table's, see
    /// [`Table::with_cache`]). Used only when `scan.manifest-entry-cache.max-snapshots > 0`.
    pub fn with_cache(mut self, cache: Arc<dyn Cache>) -> Self {
        self.cache = Some(cache);
        self
    }

    /// Plans the scan: the snapshot it reads (where the table's `scan.*` options say, unless
    /// one was chosen), its live files after partition, bucket, level and statistics pruning,
    /// grouped into [`DataSplit`]s, with the planning's [`ScanMetrics`]. Refuses, before any
    /// row is read, a table or file its reads do not honour (`read_audit`).
    pub async fn plan(&self) -> Result<Plan> {
        let started = Instant::now();
        let planned = match self.plan_through_branches().await {
            Ok(Some(plan)) => Ok(plan),
            Ok(None) => self.plan_inner().await,
            Err(e) => Err(e),
        };
        let mut plan = planned.with_table(self.table.identifier())?;
        plan.metrics.planning_micros = started.elapsed().as_micros() as u64;
        Ok(plan)
    }

    /// The plan through the other branch of a table with `scan.fallback-branch` /
    /// `scan.primary-branch` (`fallback`, Java's `FallbackReadScan.plan`), or `None` when the
    /// scan reads the own branch only (no such option, the branch missing or the same, a
    /// writer's or stream's scan).
    async fn plan_through_branches(&self) -> Result<Option<Plan>> {
        if self.latest || self.own_branch {
            return Ok(None);
        }
        let own = &self.table;
        let explicit = self.snapshot_id.is_some() || self.snapshot_meta.is_some();
        let travelling = explicit || !fallback::reads_latest(own)?;
        // A time-travel handle at an older schema may lack the option Java takes from the
        // latest schema (its `FallbackReadFileStoreTable` keeps it through `copy`).
        let latest = match travelling {
            true => own.schema_manager().latest().await?,
            false => None,
        };
        let found = fallback::other_branch(own)
            .or_else(|| latest.as_deref().and_then(fallback::other_branch_of));
        let Some((key, name, own_first)) = found else {
            return Ok(None);
        };
        if name == own.branch() {
            return Ok(None);
        }
        let travel = match (travelling, explicit) {
            (false, _) => None,
            (true, true) => match &self.travel {
                Some(t) => Some(t.clone()),
                None => {
                    return Err(fallback_travel::refused(
                        own,
                        key,
                        &name,
                        "a snapshot given without its time-travel target",
                    ))
                }
            },
            (true, false) => fallback_travel::from_options(
                own,
                latest.as_deref().map(|s| &s.options),
                key,
                &name,
            )?,
        };
        let Some(mut other) = fallback::other_table(own, &name).await? else {
            return Ok(None);
        };
        let mut other_snapshot = None;
        if let Some(fallback_travel::BranchTravel::SameOptions(same)) = &travel {
            // Java's `other.copy(dynamicOptions)`: the other branch starts where they say.
            other = other.with_dynamic_options(same.clone())?;
        } else if let Some(travel) = &travel {
            let (s, at) =
                fallback_travel::other_side(own, self.snapshot_meta.as_ref(), &other, travel)
                    .await?;
            other = at;
            other_snapshot = Some(s);
        }
        fallback::validate_schema(own, &other, key)?;
        let mut other_scan = TableScan {
            table: other.clone(),
            cache: other.cache().cloned().or_else(|| self.cache.clone()),
            ..self.clone()
        };
        if let Some(s) = other_snapshot {
            other_scan.snapshot_id = None;
            other_scan.travel = None;
            other_scan.snapshot_meta = Some(s);
        }
        let (first, second) = match own_first {
            true => (self.clone(), other_scan),
            false => (other_scan, self.clone()),
        };
        let first_plan = first.plan_inner().await?;
        // Java's `newPartitionListingScan(true).listPartitions()`: the partitions with a live
        // file under the partition filter alone, at the snapshot the first side planned.
        let complete = match &first_plan.snapshot {
            None => Default::default(),
            Some(s) => {
                let mut listing = first.clone().with_snapshot_meta(s.clone());
                // Java's listing scan applies the start's file filter too
                // (`FileCreationTimeStartingScanner` through `readPartitionEntries`).
                if first.snapshot_id.is_none() && first.snapshot_meta.is_none() {
                    listing.min_file_creation = start::batch_start(&first.table)
                        .await?
                        .min_file_creation_millis;
                }
                listing.filter = self.filter.as_ref().and_then(|f| {
                    fallback::partition_part(f, &first.table.schema().partition_keys)
                });
                listing.buckets = None;
                let plan = listing.plan_inner().await?;
                plan.splits
                    .iter()
                    .map(|s| s.partition.as_bytes().to_vec())
                    .collect()
            }
        };
        let second_plan = second.plan_inner().await?;
        Ok(Some(fallback::combine(
            first_plan,
            second_plan,
            &complete,
            own_first,
            &name,
        )))
    }

    async fn plan_inner(&self) -> Result<Plan> {
        let opts = self.table.options();
        read_audit::check_options(&self.table, false)?;
        let sm = self.table.snapshot_manager();
        let (snapshot, min_file_creation) = match (&self.snapshot_meta, self.snapshot_id) {
            (Some(s), _) => (Some(s.clone()), self.min_file_creation),
            (None, Some(id)) => (Some(sm.snapshot(id).await?), self.min_file_creation),
            (None, None) if self.latest => (sm.latest().await?, None),
            (None, None) => {
                let start = start::batch_start(&self.table).await?;
                (start.snapshot, start.min_file_creation_millis)
            }
        };
        let Some(snapshot) = snapshot else {
            return Ok(Plan::default());
        };
        let schema = self.table.schema();
        let mut row_type = schema.row_type();
        let n_columns = row_type.fields.len();
        // A row-tracking table's filter may test `_ROW_ID` / `_SEQUENCE_NUMBER`, which no
        // file statistics cover: those tests are left to the read.
        let row_tracking = opts.row_tracking_enabled()?;
        if row_tracking {
            row_type
                .fields
                .extend(strata_spec::kv::row_tracking_fields());
        }
        // MAP key tests (`m['k'] > 1`) prune as `m IS NOT NULL` (`Predicate::bind_for_pruning`).
        let bound = match &self.filter {
            Some(f) => f.bind_for_pruning(&row_type, &self.table.identifier().to_string())?,
            None => None,
        };
        let bound = match bound {
            Some(b) if row_tracking => b.extract_for_columns(&(0..n_columns).collect::<Vec<_>>()),
            other => other,
        };
        let mut buckets = self.buckets.clone();
        if let Some(b) = opts.scan_bucket()?.filter(|_| !self.latest) {
            buckets = Some(match buckets {
                Some(explicit) => explicit.into_iter().filter(|x| *x == b).collect(),
                None => BTreeSet::from([b]),
            });
        }
        let hashed = match &bound {
            Some(b) => select_buckets(&self.table, b)?.map(Arc::new),
            None => None,
        };
        let cache_by_hash = match &hashed {
            Some(_) if self.cache.is_some() => self.table.bucket_count_never_altered().await?,
            _ => false,
        };
        let selection = EntrySelection {
            buckets,
            hashed,
            cache_by_hash,
            real_buckets_only: opts.bucket()? == strata_spec::options::POSTPONE_BUCKET,
            partition: bound
                .as_ref()
                .and_then(|b| partition_predicate(&self.table, b)),
            partition_types: schema.partition_type().types(),
            partition_set: None,
        };
        let max_snapshots = opts
            .scan_manifest_entry_cache_max_snapshots()
            .map_err(option_error)?;
        let lazy = opts
            .scan_manifest_entry_lazy_decode()
            .map_err(option_error)?;
        let cache = self.cache.clone().map(|cache| CacheUse {
            cache,
            max_snapshots,
        });
        let mut live = read_live_entries(&self.table, &snapshot, &selection, cache, lazy).await?;
        if let Some(min) = min_file_creation {
            // `scan.file-creation-time-millis` (Java `FileCreationTimeStartingScanner`).
            live.entries.retain(|e| {
                e.file
                    .creation_time
                    .is_some_and(|t| start::creation_epoch_millis(t) >= min)
            });
        }
        for e in &live.entries {
            read_audit::check_file(&self.table, &e.file, || describe_entry(&self.table, e))?;
        }
        read_audit::check_index_files(&self.table, &snapshot).await?;

        let c = &live.counters;
        let mut metrics = ScanMetrics {
            snapshot_id: Some(snapshot.id),
            cache_hit: live.cache_hit,
            cache_deltas_applied: live.deltas_applied,
            manifests_total: c.manifests_total,
            last_scanned_manifests: if live.cache_hit == Some(true) {
                0
            } else {
                c.manifests_read
            },
            manifests_skipped_by_partition: c.manifests_skipped_by_partition,
            manifests_skipped_by_bucket: c.manifests_skipped_by_bucket,
            entries_inspected: c.entries_inspected,
            entries_decoded: c.entries_decoded,
            entries_skipped_by_partition: c.entries_skipped_by_partition,
            entries_skipped_by_bucket: c.entries_skipped_by_bucket,
            live_files: live.entries.len(),
            ..ScanMetrics::default()
        };
        let splits = if self.table.is_primary_key_table() {
            pk_splits::plan_splits(
                &self.table,
                snapshot.id,
                live.entries,
                bound.as_ref(),
                &mut metrics,
            )
            .await?
        } else {
            self.append_splits(snapshot.id, live.entries, bound.as_ref(), &mut metrics)
                .await?
        };
        metrics.splits = splits.len();
        metrics.files = splits.iter().map(|s| s.files.len()).sum();
        metrics.skipped_files = live.table_files.saturating_sub(metrics.files as u64);
        Ok(Plan {
            snapshot: Some(snapshot),
            splits,
            metrics,
        })
    }

    async fn append_splits(
        &self,
        snapshot_id: i64,
        live: Vec<ManifestEntry>,
        bound: Option<&BoundPredicate>,
        metrics: &mut ScanMetrics,
    ) -> Result<Vec<DataSplit>> {
        let mut groups: BTreeMap<(Vec<u8>, i32), DataSplit> = BTreeMap::new();
        // Data evolution: the files of a row-id range are read together (never one by one,
        // `read::data_evolution`), and none is pruned by its statistics (a file without a
        // column cannot answer a filter on it).
        let data_evolution = self.table.options().data_evolution_enabled()?;
        for e in live {
            if let Some(b) = bound.filter(|_| !data_evolution) {
                if !stats_pruning::may_match(&self.table, b, &e.file).await? {
                    metrics.files_skipped_by_stats += 1;
                    continue;
                }
            }
            add_to_split(&mut groups, snapshot_id, e, !data_evolution);
        }
        let mut splits: Vec<DataSplit> = groups.into_values().collect();
        for s in &mut splits {
            s.files
                .sort_by_key(|f| (f.min_sequence_number, f.file_name.clone()));
        }
        Ok(splits)
    }
}

/// The table at `target` and a scan of that snapshot: `(table, scan)` to plan and read with
/// ([`time_travel`] resolves the target and picks the snapshot's schema).
pub async fn travel(
    table: &Table,
    target: &time_travel::TravelTarget,
) -> Result<(Table, TableScan)> {
    let snapshot = target.resolve(table).await?;
    let t = time_travel::table_at(table, &snapshot).await?;
    let scan = t.new_scan().with_travel(target.clone(), snapshot);
    Ok((t, scan))
}

/// The part of a row filter that only references partition columns, re-indexed onto the
/// partition row type.
fn partition_predicate(table: &Table, bound: &BoundPredicate) -> Option<BoundPredicate> {
    let schema = table.schema();
    let row_type = schema.row_type();
    let mapping: Vec<usize> = schema
        .partition_keys
        .iter()
        .filter_map(|k| row_type.index_of(k))
        .collect();
    if mapping.is_empty() {
        return None;
    }
    bound.project(&mapping)
}

/// Live entries of `snapshot` given its data manifests (used by overwrite commits and writers
/// restoring sequence numbers). Entries are merged while still encoded, so files added and
/// later deleted (compaction inputs) are never decoded.
pub(crate) async fn live_entries(
    table: &Table,
    _snapshot: &Snapshot,
    metas: &[ManifestFileMeta],
) -> Result<Vec<ManifestEntry>> {
    entries::all_live_entries(table, metas, None).await
}

/// Like [`live_entries`], only the entries of `partitions`.
pub(crate) async fn live_entries_of_partitions(
    table: &Table,
    metas: &[ManifestFileMeta],
    partitions: &[BinaryRow],
) -> Result<Vec<ManifestEntry>> {
    entries::all_live_entries(table, metas, Some(partitions)).await
}
