//! Conflict checks of COMPACT commits, and of APPEND commits that remove files (a
//! copy-on-write UPDATE or DELETE), as Java's `ConflictDetection`.
//!
//! A compaction was planned on some snapshot; by the time it commits, other writers may
//! have committed too. It may only land if:
//! * every file it deletes is still live (another compaction may have rewritten it: "File
//!   deletion conflicts detected");
//! * no file it adds is live already;
//! * afterwards no two files of one (partition, bucket, level ≥ 1) overlap in key range
//!   (the LSM invariant every reader relies on);
//! * every entry of a partition agrees on the bucket count.
//!
//! A failed check gives up the commit: nothing is published.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashSet};

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{FileEntryIdentifier, FileKind, ManifestEntry};
use strata_spec::DataType;

use crate::error::ErrorDetail;
use crate::lsm::interval_partition::compare_keys;
use crate::{Error, Result};

/// Checks `delta` (the COMPACT commit's entries) against `base` (the live entries of the
/// latest snapshot). `key_types` are the trimmed primary-key types.
pub(super) fn check_compact_conflicts(
    table: &str,
    base: &[ManifestEntry],
    delta: &[ManifestEntry],
    key_types: &[DataType],
) -> Result<()> {
    let conflict = |message: String| {
        Error::from(ErrorDetail::CommitConflict {
            table: table.to_string(),
            message,
        })
    };
    let changed: HashSet<(&BinaryRow, i32)> =
        delta.iter().map(|e| (&e.partition, e.bucket)).collect();
    // Live files of the touched buckets, by identity.
    let mut live: BTreeMap<(Vec<u8>, i32, i32, String), &ManifestEntry> = BTreeMap::new();
    let key = |id: &FileEntryIdentifier| {
        (
            id.partition.as_bytes().to_vec(),
            id.bucket,
            id.level,
            id.file_name.clone(),
        )
    };
    for e in base {
        if changed.contains(&(&e.partition, e.bucket)) {
            live.insert(key(&e.identifier()), e);
        }
    }
    for e in delta.iter().filter(|e| e.kind == FileKind::Delete) {
        if live.remove(&key(&e.identifier())).is_none() {
            return Err(conflict(format!(
                "File deletion conflicts detected! Give up committing. Data file {} \
                 (bucket {}, level {}) is no longer live: a concurrent commit removed it",
                e.file.file_name, e.bucket, e.file.level
            )));
        }
    }
    for e in delta.iter().filter(|e| e.kind == FileKind::Add) {
        if live.insert(key(&e.identifier()), e).is_some() {
            return Err(conflict(format!(
                "data file {} (bucket {}, level {}) is already live; a concurrent commit \
                 added it",
                e.file.file_name, e.bucket, e.file.level
            )));
        }
    }
    // Bucket count per partition (Java `ConflictDetection` skips `totalBuckets <= 0`: the
    // postpone bucket's `-2` beside a partition's real buckets).
    let mut buckets: BTreeMap<&[u8], i32> = BTreeMap::new();
    for e in live
        .values()
        .copied()
        .chain(delta.iter())
        .filter(|e| e.total_buckets > 0)
    {
        let n = *buckets
            .entry(e.partition.as_bytes())
            .or_insert(e.total_buckets);
        if n != e.total_buckets {
            return Err(conflict(format!(
                "total buckets of a partition changed from {n} to {} (data file {}); \
                 rescale the partition with an overwrite first",
                e.total_buckets, e.file.file_name
            )));
        }
    }
    // LSM invariant on levels ≥ 1.
    let mut groups: BTreeMap<(Vec<u8>, i32, i32), Vec<&ManifestEntry>> = BTreeMap::new();
    for ((p, b, l, _), e) in &live {
        if *l >= 1 {
            groups.entry((p.clone(), *b, *l)).or_default().push(e);
        }
    }
    for ((_, bucket, level), files) in groups {
        let mut keyed = Vec::with_capacity(files.len());
        for e in files {
            keyed.push((
                e.file.min_key.to_datums(key_types)?,
                e.file.max_key.to_datums(key_types)?,
                &e.file.file_name,
            ));
        }
        keyed.sort_by(|a, b| compare_keys(&a.0, &b.0));
        for pair in keyed.windows(2) {
            if compare_keys(&pair[0].1, &pair[1].0) != Ordering::Less {
                return Err(conflict(format!(
                    "LSM conflicts detected! Give up committing. Data files {} and {} of \
                     bucket {bucket} overlap in key range at level {level}",
                    pair[0].2, pair[1].2
                )));
            }
        }
    }
    Ok(())
}
