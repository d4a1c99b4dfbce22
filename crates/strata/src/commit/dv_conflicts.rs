//! Deletion-vector conflicts of a commit against the latest snapshot, as Java's
//! `ConflictDetection.buildBaseEntriesWithDV` / `buildDeltaEntriesWithDV` pair every data file
//! with the deletion-vector index file that holds its vector.
//!
//! A commit that deletes a data file, or that adds or removes the vector of one, was planned
//! on some snapshot and names the vector it saw: the `DELETION_VECTORS` index entry it
//! deletes that lists the file, or none. It may only land if the latest snapshot still pairs
//! the file with that same index file:
//! * a compaction that rewrote file F with the vectors it read must not land after a
//!   concurrent DELETE gave F a new or changed vector (the rewritten file would bring the
//!   deleted rows back);
//! * a DELETE that gives F a vector must not land after a concurrent compaction removed F
//!   (the vector would name a dead file and the row, rewritten elsewhere, would stay), nor
//!   after another DELETE replaced F's vector (one of the two deletions would be lost).
//!
//! Java applies the pairing to bucket-unaware tables (`BucketMode.BUCKET_UNAWARE`); strata
//! applies it to every append table with deletion vectors (fixed buckets and data evolution
//! too, whose bucket index file is replaced whole). Primary-key tables are left to
//! `lookup_conflicts`, which rebases their lookup compactions' vectors onto the live ones.
//! Overwrites choose their deletions on the latest snapshot and need no check.

use std::collections::{HashMap, HashSet};

use strata_spec::manifest::{FileKind, IndexManifestEntry, ManifestEntry};

use crate::error::ErrorDetail;
use crate::index::DELETION_VECTORS_INDEX;
use crate::{Error, Result};

/// (partition bytes, data file name).
type FileKey = (Vec<u8>, String);

/// The data files whose deletion vectors `entries` (of one kind, or all) list, each with the
/// index file that lists it.
fn vectors_of<'a>(
    entries: impl Iterator<Item = &'a IndexManifestEntry>,
) -> HashMap<FileKey, Vec<&'a str>> {
    let mut out: HashMap<FileKey, Vec<&'a str>> = HashMap::new();
    for e in entries.filter(|e| e.index_file.index_type == DELETION_VECTORS_INDEX) {
        for r in e.index_file.dv_ranges.iter().flatten() {
            out.entry((e.partition.as_bytes().to_vec(), r.data_file_name.clone()))
                .or_default()
                .push(e.index_file.file_name.as_str());
        }
    }
    out
}

/// Whether a commit of `delta` data entries and `index` changes needs the check (it deletes a
/// data file or changes a deletion vector).
pub(super) fn needs_check(delta: &[ManifestEntry], index: &[IndexManifestEntry]) -> bool {
    delta.iter().any(|e| e.kind == FileKind::Delete)
        || index
            .iter()
            .any(|e| e.index_file.index_type == DELETION_VECTORS_INDEX)
}

/// Checks the commit's `delta` (data entries) and `index` (index changes) against the latest
/// snapshot: `live` are its live data entries (at least of the partitions the commit touches)
/// and `live_index` its index entries. A mismatch is a `CommitConflict` (nothing published;
/// a compaction is planned again by its caller).
pub(super) fn check_deletion_vector_conflicts(
    table: &str,
    live: &[ManifestEntry],
    live_index: &[IndexManifestEntry],
    delta: &[ManifestEntry],
    index: &[IndexManifestEntry],
) -> Result<()> {
    let conflict = |message: String| {
        Error::from(ErrorDetail::CommitConflict {
            table: table.to_string(),
            message: format!("File deletion conflicts detected! Give up committing. {message}"),
        })
    };
    let latest = vectors_of(live_index.iter().filter(|e| e.kind == FileKind::Add));
    let removed = vectors_of(index.iter().filter(|e| e.kind == FileKind::Delete));
    let added = vectors_of(index.iter().filter(|e| e.kind == FileKind::Add));
    // What the commit believed the file's vector was: the index file it deletes that lists
    // the file, or none.
    let believed = |k: &FileKey| -> Result<Option<&str>> {
        match removed.get(k).map(Vec::as_slice) {
            None | Some([]) => Ok(None),
            Some([one]) => Ok(Some(*one)),
            Some(_) => Err(conflict(format!(
                "the commit deletes more than one deletion-vector index file holding a \
                 vector of data file {}",
                k.1
            ))),
        }
    };
    let current = |k: &FileKey| -> Result<Option<&str>> {
        match latest.get(k).map(Vec::as_slice) {
            None | Some([]) => Ok(None),
            Some([one]) => Ok(Some(*one)),
            Some(_) => Err(conflict(format!(
                "data file {} has more than one deletion vector in the latest snapshot",
                k.1
            ))),
        }
    };
    let key = |e: &ManifestEntry| (e.partition.as_bytes().to_vec(), e.file.file_name.clone());
    let mut deleted: HashSet<FileKey> = HashSet::new();
    let mut new_files: HashSet<FileKey> = HashSet::new();
    for e in delta {
        match e.kind {
            FileKind::Delete => deleted.insert(key(e)),
            FileKind::Add => new_files.insert(key(e)),
        };
    }
    // A deleted data file leaves with the vector the commit saw. A file deleted and added
    // under its own name is replaced in place (`rewrite_file_index`): its vector stays with it.
    for k in deleted.iter().filter(|k| !new_files.contains(*k)) {
        let (saw, now) = (believed(k)?, current(k)?);
        if saw != now {
            return Err(conflict(format!(
                "data file {} is deleted by this commit with {}, but the latest snapshot \
                 pairs it with {}: a concurrent commit changed its deletion vector, and its \
                 deleted rows would come back",
                k.1,
                describe(saw),
                describe(now)
            )));
        }
    }
    // A vector added or removed for a file the commit neither adds nor deletes: the file must
    // be live, with the vector the commit replaces.
    let live_files: HashSet<FileKey> = live.iter().map(key).collect();
    let mut touched: Vec<&FileKey> = added.keys().chain(removed.keys()).collect();
    touched.sort();
    touched.dedup();
    for k in touched {
        if deleted.contains(k) || new_files.contains(k) {
            continue;
        }
        if added.contains_key(k) && !live_files.contains(k) {
            return Err(conflict(format!(
                "trying to create a deletion vector on data file {} which is no longer live: \
                 a concurrent commit (a compaction or overwrite) removed it",
                k.1
            )));
        }
        let (saw, now) = (believed(k)?, current(k)?);
        if saw != now {
            return Err(conflict(format!(
                "the deletion vector of data file {} was planned on {}, but the latest \
                 snapshot has {}: a concurrent commit changed it",
                k.1,
                describe(saw),
                describe(now)
            )));
        }
    }
    Ok(())
}

fn describe(index_file: Option<&str>) -> String {
    match index_file {
        Some(f) => format!("the deletion vector in index file {f}"),
        None => "no deletion vector".to_string(),
    }
}

#[cfg(test)]
#[path = "dv_conflicts_tests.rs"]
mod tests;
