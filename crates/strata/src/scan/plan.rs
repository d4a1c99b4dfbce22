//! What planning produces: a [`Plan`] of [`DataSplit`]s (Paimon's `DataSplit`: the live data
//! files of one (partition, bucket) to be read together) with the [`ScanMetrics`] of how it
//! was planned, and the grouping of live entries into splits that every planner shares.

use std::collections::BTreeMap;

use serde::Serialize;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{DataFileMeta, ManifestEntry};
use strata_spec::snapshot::Snapshot;

/// Files of one (partition, bucket) to be read together.
#[derive(Clone, Debug)]
pub struct DataSplit {
    /// The snapshot the files were planned from (Java's `DataSplit.snapshotId`).
    pub snapshot_id: i64,
    /// The partition, as Paimon's BinaryRow of the partition columns.
    pub partition: BinaryRow,
    /// The bucket number.
    pub bucket: i32,
    /// The bucket count of the partition the files were written with (`totalBuckets` of
    /// their manifest entries; differs from the table's `bucket` in rescaled partitions).
    pub total_buckets: i32,
    /// The data files to read, as their manifest metadata.
    pub files: Vec<DataFileMeta>,
    /// Primary-key tables: the files can be read without merging (no overlapping keys, no
    /// deletes). Always true for append tables.
    pub raw_convertible: bool,
    /// Only rows `[start, end)` of the split's one file are read: a slice of a large file made
    /// by [`DataSplit::slices`] so that several readers share it. `None` (every split a scan
    /// plans) reads every file whole.
    pub row_range: Option<std::ops::Range<u64>>,
    /// The branch whose snapshot the files were planned from, when it is not the branch of
    /// the table reading them: a table with `scan.fallback-branch` or `scan.primary-branch`
    /// takes whole partitions from that branch (Java's `FallbackDataSplit`), and its
    /// [`crate::read::TableRead`] reads such a split with that branch's table (its schemas).
    /// `None` (every split of a table without those options): the reading table's branch.
    pub branch: Option<String>,
}

impl DataSplit {
    /// Rows of the split's files (of its row range, if any) before merging, deletion vectors
    /// and filters.
    pub fn row_count(&self) -> i64 {
        match &self.row_range {
            Some(r) => (r.end - r.start) as i64,
            None => self.files.iter().map(|f| f.row_count).sum(),
        }
    }

    /// A raw-convertible split as one split per file (each read on its own anyway, see
    /// [`crate::read::TableRead`]); any other split unchanged.
    pub fn per_file(self) -> Vec<DataSplit> {
        if !self.raw_convertible || self.files.len() <= 1 || self.row_range.is_some() {
            return vec![self];
        }
        let DataSplit {
            snapshot_id,
            partition,
            bucket,
            total_buckets,
            files,
            raw_convertible,
            row_range: _,
            branch,
        } = self;
        files
            .into_iter()
            .map(|f| DataSplit {
                snapshot_id,
                partition: partition.clone(),
                bucket,
                total_buckets,
                files: vec![f],
                raw_convertible,
                row_range: None,
                branch: branch.clone(),
            })
            .collect()
    }

    /// The split cut into `n` slices of about equal rows, each reading a row range of the
    /// file, when it can be: a raw-convertible split of one whole Parquet file with at least
    /// `n` rows. Otherwise the split unchanged.
    pub fn slices(self, n: usize) -> Vec<DataSplit> {
        let sliceable = self.raw_convertible
            && self.row_range.is_none()
            && self.files.len() == 1
            && self.files[0].file_name.ends_with(".parquet");
        let rows = self.files.first().map_or(0, |f| f.row_count.max(0) as u64);
        if !sliceable || n <= 1 || rows < n as u64 {
            return vec![self];
        }
        let n = n as u64;
        (0..n)
            .map(|i| DataSplit {
                row_range: Some(rows * i / n..rows * (i + 1) / n),
                ..self.clone()
            })
            .collect()
    }
}

/// Counters of what planning read, decoded and pruned. Serialized (camelCase) by
/// `strata scan --metrics`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScanMetrics {
    /// The snapshot planned (`None` for a table without snapshots).
    pub snapshot_id: Option<i64>,
    /// `Some(true)` when the snapshot live manifest entry cache served the scan,
    /// `Some(false)` when it was eligible but missed, `None` when not eligible (cache off or
    /// not configured, or the scan does not resolve to one bucket).
    pub cache_hit: Option<bool>,
    /// On a cache miss: the snapshots whose delta manifests were applied to the cached slot
    /// of an older snapshot to build this snapshot's slot (an incremental build); 0 when the
    /// slot was rebuilt from all the snapshot's manifests, on a hit, and without the cache.
    pub cache_deltas_applied: usize,
    /// Data manifests of the snapshot (0 when none was listed: a cache hit or an
    /// incremental build).
    pub manifests_total: usize,
    /// Manifest files read by this scan (0 on a cache hit, the delta manifests on an
    /// incremental build; Java's `lastScannedManifests`).
    pub last_scanned_manifests: usize,
    /// Manifest files skipped by their partition statistics.
    pub manifests_skipped_by_partition: usize,
    /// Manifest files skipped by their bucket range.
    pub manifests_skipped_by_bucket: usize,
    /// Encoded manifest entries looked at (from manifests, or from the cached snapshot).
    pub entries_inspected: usize,
    /// Entries fully decoded into `ManifestEntry`/`DataFileMeta` (statistics and all).
    pub entries_decoded: usize,
    /// Entries dropped by the partition filter before decoding.
    pub entries_skipped_by_partition: usize,
    /// Entries dropped by bucket selection before decoding.
    pub entries_skipped_by_bucket: usize,
    /// Live files after bucket and partition selection.
    pub live_files: usize,
    /// Live files ruled out by their column statistics against the filter.
    pub files_skipped_by_stats: usize,
    /// Level-0 files not read (first-row and deletion-vector tables).
    pub files_skipped_by_level: usize,
    /// Data files of the snapshot not in the plan (Java's `skippedTableFiles`: all data files
    /// of the snapshot minus the planned ones).
    pub skipped_files: u64,
    /// Splits in the plan.
    pub splits: usize,
    /// Data files in the plan.
    pub files: usize,
    /// Wall time of planning, microseconds.
    pub planning_micros: u64,
}

/// The result of planning.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// The snapshot planned, `None` for a table without snapshots.
    pub snapshot: Option<Snapshot>,
    /// The files to read, grouped by (partition, bucket).
    pub splits: Vec<DataSplit>,
    /// What planning looked at and skipped.
    pub metrics: ScanMetrics,
}

/// Splits by (partition bytes, bucket), in that order.
pub(crate) type SplitGroups = BTreeMap<(Vec<u8>, i32), DataSplit>;

/// Adds `e`'s file to the split of its (partition, bucket), creating the split (with
/// `raw_convertible`) at its first file.
pub(crate) fn add_to_split(
    groups: &mut SplitGroups,
    snapshot_id: i64,
    e: ManifestEntry,
    raw_convertible: bool,
) {
    groups
        .entry((e.partition.as_bytes().to_vec(), e.bucket))
        .or_insert_with(|| DataSplit {
            snapshot_id,
            partition: e.partition.clone(),
            bucket: e.bucket,
            total_buckets: e.total_buckets,
            files: Vec::new(),
            raw_convertible,
            row_range: None,
            branch: None,
        })
        .files
        .push(e.file);
}
