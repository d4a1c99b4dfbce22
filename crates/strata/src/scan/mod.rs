//! Scan planning: snapshot → manifest lists → manifests → live files → splits.
//!
//! Vocabulary (Paimon's): a [`TableScan`] produces a [`Plan`] of [`DataSplit`]s, one per
//! (partition, bucket), each listing the live data files to read. Pruning happens at three
//! levels, cheapest first, and is counted in [`ScanMetrics`]:
//! 1. manifests whose partition statistics cannot match the partition predicate are not read;
//! 2. entries whose partition values fail the partition predicate are dropped before merging;
//! 3. live files whose value statistics cannot match the filter are dropped.
//!
//! Pruning is conservative: it never drops a file that may contain a matching row. Exact row
//! filtering is the reader's job ([`crate::read`]).

mod pk_splits;
mod stats_pruning;

use std::collections::BTreeMap;

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{merge_entries, DataFileMeta, ManifestEntry, ManifestFileMeta};
use strata_spec::snapshot::Snapshot;

use crate::expr::{BoundPredicate, Predicate};
use crate::table::Table;
use crate::Result;

/// Files of one (partition, bucket) to be read together.
#[derive(Clone, Debug)]
pub struct DataSplit {
    pub snapshot_id: i64,
    pub partition: BinaryRow,
    pub bucket: i32,
    pub total_buckets: i32,
    pub files: Vec<DataFileMeta>,
    /// Primary-key tables: the files can be read without merging (no overlapping keys, no
    /// deletes). Always true for append tables.
    pub raw_convertible: bool,
}

impl DataSplit {
    pub fn row_count(&self) -> i64 {
        self.files.iter().map(|f| f.row_count).sum()
    }
}

/// Counters of what planning read and pruned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScanMetrics {
    pub manifests_total: usize,
    pub manifests_skipped_by_partition: usize,
    pub entries_read: usize,
    pub entries_skipped_by_partition: usize,
    pub live_files: usize,
    pub files_skipped_by_stats: usize,
    /// Level-0 files not read (first-row and deletion-vector tables, lsm-algorithms.md §6.3).
    pub files_skipped_by_level: usize,
}

/// The result of planning.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// The snapshot planned, `None` for a table without snapshots.
    pub snapshot: Option<Snapshot>,
    pub splits: Vec<DataSplit>,
    pub metrics: ScanMetrics,
}

/// Builder of a scan over one snapshot.
#[derive(Clone, Debug)]
pub struct TableScan {
    table: Table,
    snapshot_id: Option<i64>,
    filter: Option<Predicate>,
}

impl TableScan {
    pub(crate) fn new(table: Table) -> Self {
        TableScan {
            table,
            snapshot_id: None,
            filter: None,
        }
    }

    /// Time travel: plan snapshot `id` instead of the latest.
    pub fn with_snapshot(mut self, id: i64) -> Self {
        self.snapshot_id = Some(id);
        self
    }

    /// A filter used for partition and statistics pruning.
    pub fn with_filter(mut self, filter: Predicate) -> Self {
        self.filter = Some(filter);
        self
    }

    pub async fn plan(&self) -> Result<Plan> {
        let sm = self.table.snapshot_manager();
        let snapshot = match self.snapshot_id {
            Some(id) => Some(sm.snapshot(id).await?),
            None => sm.latest().await?,
        };
        let Some(snapshot) = snapshot else {
            return Ok(Plan::default());
        };
        let schema = self.table.schema();
        let row_type = schema.row_type();
        let bound = match &self.filter {
            Some(f) => Some(f.bind(&row_type, &self.table.identifier().to_string())?),
            None => None,
        };
        let partition_filter = match &bound {
            Some(b) => partition_predicate(&self.table, b),
            None => None,
        };

        let mut metrics = ScanMetrics::default();
        let metas = self
            .table
            .manifest_store()
            .data_manifests(&snapshot)
            .await?;
        metrics.manifests_total = metas.len();
        let partition_types = schema.partition_type().types();
        let metas: Vec<ManifestFileMeta> = match &partition_filter {
            Some(pf) => {
                let mut kept = Vec::new();
                for m in metas {
                    let stats = m.partition_stats.to_columns(&partition_types)?;
                    let rows = m.num_added_files + m.num_deleted_files;
                    if pf.test_stats(rows, &stats) {
                        kept.push(m);
                    } else {
                        metrics.manifests_skipped_by_partition += 1;
                    }
                }
                kept
            }
            None => metas,
        };
        let mut entries = Vec::new();
        for batch in self.table.manifest_store().read_manifests(&metas).await? {
            metrics.entries_read += batch.len();
            for e in batch {
                if let Some(pf) = &partition_filter {
                    let values = e.partition.to_datums(&partition_types)?;
                    if pf.test_values(&values) != Some(true) {
                        metrics.entries_skipped_by_partition += 1;
                        continue;
                    }
                }
                entries.push(e);
            }
        }
        let live = merge_entries(entries)?.adds;
        metrics.live_files = live.len();
        if self.table.is_primary_key_table() {
            let splits = pk_splits::plan_splits(
                &self.table,
                snapshot.id,
                live,
                bound.as_ref(),
                &mut metrics,
            )
            .await?;
            return Ok(Plan {
                snapshot: Some(snapshot),
                splits,
                metrics,
            });
        }

        let mut groups: BTreeMap<(Vec<u8>, i32), DataSplit> = BTreeMap::new();
        for e in live {
            if let Some(b) = &bound {
                if !stats_pruning::may_match(&self.table, b, &e.file).await? {
                    metrics.files_skipped_by_stats += 1;
                    continue;
                }
            }
            let key = (e.partition.as_bytes().to_vec(), e.bucket);
            groups
                .entry(key)
                .or_insert_with(|| DataSplit {
                    snapshot_id: snapshot.id,
                    partition: e.partition.clone(),
                    bucket: e.bucket,
                    total_buckets: e.total_buckets,
                    files: Vec::new(),
                    raw_convertible: true,
                })
                .files
                .push(e.file);
        }
        let mut splits: Vec<DataSplit> = groups.into_values().collect();
        for s in &mut splits {
            s.files
                .sort_by_key(|f| (f.min_sequence_number, f.file_name.clone()));
        }
        Ok(Plan {
            snapshot: Some(snapshot),
            splits,
            metrics,
        })
    }
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
/// restoring sequence numbers).
pub(crate) async fn live_entries(
    table: &Table,
    _snapshot: &Snapshot,
    metas: &[ManifestFileMeta],
) -> Result<Vec<ManifestEntry>> {
    let batches = table.manifest_store().read_manifests(metas).await?;
    Ok(merge_entries(batches.into_iter().flatten())?.adds)
}
