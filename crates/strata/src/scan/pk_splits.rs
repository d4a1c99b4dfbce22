//! Planning primary-key tables.
//!
//! * **Level-0 skipping**: with deletion vectors unless `deletion-vectors.merge-on-read`, or
//!   else with `merge-engine = first-row`, batch scans read only levels ≥ 1 (Java semantics:
//!   level-0 data becomes visible at compaction) — so such tables written only by
//!   non-compacting writers read empty, exactly as in Paimon.
//! * **File pruning**: only the part of the filter on primary-key columns is tested per file
//!   (key statistics, then value statistics of those columns); that is always safe. A value
//!   filter could drop a file holding the newest version of a key, so it is applied per bucket:
//!   for deduplicate and first-row a bucket is dropped only when no file can match; with
//!   partial-update and aggregation buckets are always kept.
//! * **Splits**: one per (partition, bucket); `raw_convertible` when the files can be read
//!   without merging: one file without deletes, or all files at the same level ≥ 1 without
//!   deletes (or at any level ≥ 1 when level 0 is skipped).

use std::collections::BTreeMap;

use strata_spec::manifest::{DataFileMeta, ManifestEntry};
use strata_spec::options::MergeEngine;
use strata_spec::stats::ColumnStats;

use super::plan::{add_to_split, DataSplit, ScanMetrics};
use super::stats_pruning;
use crate::expr::BoundPredicate;
use crate::table::Table;
use crate::Result;

/// Whether batch scans of this table skip level 0 (Java `CoreOptions.batchScanSkipLevel0`:
/// deletion vectors decide when enabled, so a first-row table with deletion vectors and
/// `deletion-vectors.merge-on-read` reads level 0).
pub(crate) fn skips_level_zero(table: &Table) -> Result<bool> {
    Ok(table.options().batch_scan_skip_level0()?)
}

pub(super) async fn plan_splits(
    table: &Table,
    snapshot_id: i64,
    live: Vec<ManifestEntry>,
    bound: Option<&BoundPredicate>,
    metrics: &mut ScanMetrics,
) -> Result<Vec<DataSplit>> {
    let skip_l0 = skips_level_zero(table)?;
    let schema = table.schema();
    let row_type = schema.row_type();
    let pk_idx: Vec<usize> = schema
        .trimmed_primary_keys()
        .iter()
        .filter_map(|k| row_type.index_of(k))
        .collect();
    let key_filter = bound.and_then(|b| b.extract_for_columns(&pk_idx));
    let engine = table.options().merge_engine()?;
    let value_filter_per_bucket =
        matches!(engine, MergeEngine::Deduplicate | MergeEngine::FirstRow);

    let mut groups: BTreeMap<(Vec<u8>, i32), DataSplit> = BTreeMap::new();
    for e in live {
        if skip_l0 && e.file.level == 0 {
            metrics.files_skipped_by_level += 1;
            continue;
        }
        if let Some(kf) = &key_filter {
            if !key_may_match(table, kf, &pk_idx, &e.file).await?
                || !stats_pruning::may_match(table, kf, &e.file).await?
            {
                metrics.files_skipped_by_stats += 1;
                continue;
            }
        }
        add_to_split(&mut groups, snapshot_id, e, false);
    }
    let mut out = Vec::with_capacity(groups.len());
    for (_, mut split) in groups {
        if let (Some(b), true) = (bound, value_filter_per_bucket) {
            let mut any = false;
            for f in &split.files {
                if stats_pruning::may_match(table, b, f).await? {
                    any = true;
                    break;
                }
            }
            if !any {
                metrics.files_skipped_by_stats += split.files.len();
                continue;
            }
        }
        split
            .files
            .sort_by_key(|f| (f.level, f.min_sequence_number, f.file_name.clone()));
        split.raw_convertible = raw_convertible(&split.files, skip_l0);
        out.push(split);
    }
    Ok(out)
}

fn no_deletes(f: &DataFileMeta) -> bool {
    f.delete_row_count == Some(0)
}

fn raw_convertible(files: &[DataFileMeta], skip_l0: bool) -> bool {
    if files.len() == 1 {
        return no_deletes(&files[0]);
    }
    let all_upper = files.iter().all(|f| f.level != 0 && no_deletes(f));
    let one_level = files.windows(2).all(|w| w[0].level == w[1].level);
    all_upper && (one_level || skip_l0)
}

/// Tests a primary-key-only predicate against the file's key statistics.
async fn key_may_match(
    table: &Table,
    key_filter: &BoundPredicate,
    pk_idx: &[usize],
    file: &DataFileMeta,
) -> Result<bool> {
    let key_types = table.key_types_for(file.schema_id).await?;
    if key_types.len() != pk_idx.len() {
        return Ok(true);
    }
    let Ok(cols) = file.key_stats.to_columns(&key_types) else {
        return Ok(true);
    };
    if cols.len() != pk_idx.len() {
        return Ok(true);
    }
    let mut aligned = vec![ColumnStats::default(); table.schema().fields.len()];
    for (k, idx) in pk_idx.iter().enumerate() {
        aligned[*idx] = cols[k].clone();
    }
    Ok(key_filter.test_stats(file.row_count, &aligned))
}
