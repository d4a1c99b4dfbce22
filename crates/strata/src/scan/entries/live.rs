//! What every path of [`super::read_live_entries`] returns: the live entries and what
//! obtaining them cost.

use strata_spec::manifest::ManifestEntry;

/// What reading entries cost.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct EntryCounters {
    pub manifests_total: usize,
    pub manifests_read: usize,
    pub manifests_skipped_by_partition: usize,
    pub manifests_skipped_by_bucket: usize,
    pub entries_inspected: usize,
    pub entries_decoded: usize,
    pub entries_skipped_by_partition: usize,
    pub entries_skipped_by_bucket: usize,
}

/// The live entries of a scan plus how they were obtained.
pub(crate) struct LiveEntries {
    pub entries: Vec<ManifestEntry>,
    /// Data files of the whole snapshot (Java's `allDataFiles`), for the skipped-files metric.
    pub table_files: u64,
    pub counters: EntryCounters,
    /// `None` when the scan was not eligible for the cache.
    pub cache_hit: Option<bool>,
    /// Snapshots whose delta manifests were applied to a cached slot to build this
    /// snapshot's (0 unless the slot was built incrementally).
    pub deltas_applied: usize,
}
