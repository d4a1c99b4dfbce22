//! The per-partition statistics a commit hands the catalog that decides it ([`CommitContext`]'s
//! `statistics`): Java's `PartitionEntry.merge` over the commit's delta entries, then
//! `toPartitionStatistics` (`FileStoreCommitImpl.commitSnapshotImpl`). Paimon's REST catalog
//! sums them into its partition listing; a filesystem warehouse ignores them.
//!
//! [`CommitContext`]: crate::table::CommitContext

use std::collections::HashMap;

use chrono::TimeZone;
use strata_spec::manifest::{FileKind, ManifestEntry};
use strata_spec::partition::{PartitionComputer, PartitionStatistics};

use crate::Result;

/// Java `DataFileMeta.creationTimeEpochMillis`: the file's creation time is a local date-time
/// (Java `LocalDateTime.now()` stored as millis); as an instant in the system time zone.
fn creation_epoch_millis(local_millis: Option<i64>) -> i64 {
    let Some(ms) = local_millis else { return 0 };
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|utc| utc.naive_utc())
        .and_then(|naive| chrono::Local.from_local_datetime(&naive).earliest())
        .map(|local| local.timestamp_millis())
        .unwrap_or(ms)
}

/// One statistics delta per partition the `delta` entries touch, in the order the partitions
/// first appear: files added count up, deleted ones down (Java `PartitionEntry.fromDataFile`);
/// the creation time is the newest, the bucket count the last entry's (`PartitionEntry.merge`).
pub(crate) fn partition_statistics(
    delta: &[ManifestEntry],
    computer: &PartitionComputer,
) -> Result<Vec<PartitionStatistics>> {
    let types = computer.partition_type().types();
    let mut index: HashMap<&[u8], usize> = HashMap::new();
    let mut out: Vec<PartitionStatistics> = Vec::new();
    for e in delta {
        let sign = match e.kind {
            FileKind::Add => 1,
            FileKind::Delete => -1,
        };
        let created = creation_epoch_millis(e.file.creation_time);
        let key = e.partition.as_bytes();
        let i = match index.get(key) {
            Some(i) => *i,
            None => {
                let values = e.partition.to_datums(&types)?;
                out.push(PartitionStatistics {
                    spec: computer.to_map(&values).into_iter().collect(),
                    last_file_creation_time: created,
                    ..PartitionStatistics::default()
                });
                index.insert(key, out.len() - 1);
                out.len() - 1
            }
        };
        let s = &mut out[i];
        s.record_count += sign * e.file.row_count;
        s.file_size_in_bytes += sign * e.file.file_size;
        s.file_count += sign;
        s.last_file_creation_time = s.last_file_creation_time.max(created);
        s.total_buckets = e.total_buckets;
    }
    Ok(out)
}
