//! Manifest I/O for scan planning: the snapshot's data manifests pruned by statistics and
//! bucket range, manifests read lazily with the scan's [`Selector`] on the encoded heads, and
//! the merge and decoding that follow on the blocking pool. The uncached path lives here
//! whole ([`read_uncached`]); the cached paths read through the same functions.

use std::sync::Arc;

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{merge_entries, ManifestEntry, ManifestFileMeta, RawManifest};
use strata_spec::snapshot::Snapshot;

use super::decode::{
    blocking, check_decoded_partition_arity, check_partition_arity, decode_all, decode_raw,
};
use super::live::{EntryCounters, LiveEntries};
use super::selection::{EntrySelection, Selector};
use crate::table::Table;
use crate::Result;

/// The uncached path: the snapshot's data manifests pruned by partition statistics and bucket
/// range, entries selected by bucket and partition while still encoded (all decoded first
/// when `lazy` is off), merged, and the live ones decoded.
pub(super) async fn read_uncached(
    table: &Table,
    snapshot: &Snapshot,
    sel: &EntrySelection,
    lazy: bool,
) -> Result<LiveEntries> {
    let mut counters = EntryCounters::default();
    let (metas, table_files) = data_manifests(table, snapshot, sel, true, &mut counters).await?;
    let sel = sel.clone();
    let entries = if lazy {
        let mut counters = counters;
        let raws = read_selected(table, &metas, &sel, &mut counters).await?;
        blocking(move || {
            let mut c = counters;
            let adds = merge_entries(raws.iter().flat_map(|r| r.entries()))?.adds;
            check_partition_arity(&adds, &sel.partition_types)?;
            let entries = decode_all(&adds, decode_raw)?;
            c.entries_decoded += entries.len();
            Ok((entries, c))
        })
        .await?
    } else {
        let batches = table.manifest_store().read_manifests(&metas).await?;
        let shown: Vec<String> = metas
            .iter()
            .map(|m| {
                table
                    .file_io()
                    .display(&table.paths().manifest_file(&m.file_name))
            })
            .collect();
        blocking(move || {
            let mut c = counters;
            let mut kept = Vec::new();
            for (batch, shown) in batches.iter().zip(&shown) {
                check_decoded_partition_arity(batch, &sel.partition_types, shown)?;
            }
            for e in batches.into_iter().flatten() {
                c.entries_inspected += 1;
                c.entries_decoded += 1;
                if !sel.bucket_ok(e.bucket, e.total_buckets) {
                    c.entries_skipped_by_bucket += 1;
                } else if !sel.partition_values_ok(&e.partition)? {
                    c.entries_skipped_by_partition += 1;
                } else {
                    kept.push(e);
                }
            }
            Ok((merge_entries(kept)?.adds, c))
        })
        .await?
    };
    let (entries, counters) = entries;
    Ok(LiveEntries {
        entries,
        table_files,
        counters,
        cache_hit: None,
        deltas_applied: 0,
    })
}

/// Reads `metas` lazily, keeping the entries `sel` selects, and merges them: the live ADDs
/// with the manifests they borrow from.
pub(super) async fn read_selected(
    table: &Table,
    metas: &[ManifestFileMeta],
    sel: &EntrySelection,
    counters: &mut EntryCounters,
) -> Result<Vec<RawManifest>> {
    let shared = Arc::new(sel.clone());
    let (raws, filters) = table
        .manifest_store()
        .read_raw_manifests(metas, move || Selector::new(shared.clone()))
        .await?;
    for f in &filters {
        f.add_to(counters);
    }
    Ok(raws)
}

/// The snapshot's data manifests, pruned by bucket range (and by partition statistics when
/// `by_partition`), plus the snapshot's total data file count.
pub(super) async fn data_manifests(
    table: &Table,
    snapshot: &Snapshot,
    sel: &EntrySelection,
    by_partition: bool,
    counters: &mut EntryCounters,
) -> Result<(Vec<ManifestFileMeta>, u64)> {
    let metas = table.manifest_store().data_manifests(snapshot).await?;
    counters.manifests_total = metas.len();
    let table_files = metas
        .iter()
        .map(|m| m.num_added_files - m.num_deleted_files)
        .sum::<i64>()
        .max(0) as u64;
    let partition_types = &sel.partition_types;
    let mut kept = Vec::with_capacity(metas.len());
    for m in metas {
        if let (Some(buckets), Some(lo), Some(hi)) = (&sel.buckets, m.min_bucket, m.max_bucket) {
            if buckets.range(lo..=hi).next().is_none() {
                counters.manifests_skipped_by_bucket += 1;
                continue;
            }
        }
        if let (true, Some(pf)) = (by_partition, &sel.partition) {
            let stats = m.partition_stats.to_columns(partition_types)?;
            if !pf.test_stats(m.num_added_files + m.num_deleted_files, &stats) {
                counters.manifests_skipped_by_partition += 1;
                continue;
            }
        }
        kept.push(m);
    }
    counters.manifests_read = kept.len();
    Ok((kept, table_files))
}

/// The live entries of the snapshot whose data manifests are `metas` (only those of
/// `partitions` when given): merged encoded, the live ones decoded.
pub(crate) async fn all_live_entries(
    table: &Table,
    metas: &[ManifestFileMeta],
    partitions: Option<&[BinaryRow]>,
) -> Result<Vec<ManifestEntry>> {
    let sel = EntrySelection {
        partition_set: partitions.map(|ps| ps.iter().map(BinaryRow::to_serialized).collect()),
        ..EntrySelection::default()
    };
    let raws = read_selected(table, metas, &sel, &mut EntryCounters::default()).await?;
    blocking(move || {
        let adds = merge_entries(raws.iter().flat_map(|r| r.entries()))?.adds;
        decode_all(&adds, decode_raw)
    })
    .await
}
