//! Rebasing a compaction's deletion-vector index change onto the snapshot it lands on.
//!
//! A primary-key bucket keeps all its deletion vectors in one index file; a lookup compaction
//! commits "DELETE the bucket's index file(s) of the snapshot it was planned on, ADD a new
//! file with every vector" (Java `BucketedDvMaintainer`). Java's index manifest applies that
//! by (partition, bucket) (`IndexManifestFileHandler`): if another writer's compaction
//! replaced the bucket's index file in between, the DELETE names a file that is no longer
//! live, the ADD replaces the other writer's file anyway, and the other writer's vectors are
//! gone — its superseded rows come back, a key is read twice.
//!
//! strata rebases instead, per attempt, when the bucket's live index files are not the ones
//! the compaction was planned with:
//!
//! * the vectors written are the live ones with this compaction's *new* deletions added
//!   (its vector minus the base vector of each data file), for every data file still live
//!   after the commit;
//! * a new deletion in a data file that is no longer live (a concurrent compaction rewrote
//!   it: the row this compaction meant to delete now lives in another file, unmarked) is a
//!   conflict; the vector of a file that is gone is otherwise dropped with it;
//! * a data file this compaction rewrote must have had, when it was read, the vector it has
//!   now (else rows another writer deleted in it were copied into the output): a conflict
//!   otherwise.
//!
//! The changes become "DELETE every live index file of the bucket, ADD the rebased file".

use std::collections::{HashMap, HashSet};

use object_store::path::Path;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{FileKind, IndexManifestEntry};

use super::deletion_vectors::{read_index_vectors, DeletionVectorIndexWriter};
use crate::error::ErrorDetail;
use crate::format::deletion_vector::DeletionVector;
use crate::table::Table;
use crate::{Error, Result};

/// One bucket's deletion-vector state around a compaction commit.
pub(crate) struct BucketDvChange<'a> {
    pub partition: &'a BinaryRow,
    pub bucket: i32,
    /// The bucket's deletion-vector index files in the snapshot the compaction was planned on.
    pub base_index: Vec<&'a IndexManifestEntry>,
    /// The bucket's deletion-vector index files live in the snapshot the commit lands on.
    pub live_index: Vec<&'a IndexManifestEntry>,
    /// The index file the compaction adds (all its vectors), if it changed any.
    pub ours: Option<&'a IndexManifestEntry>,
    /// Data files the compaction rewrote (read with their base vectors, not live after it).
    pub rewritten: HashSet<&'a str>,
    /// Data files live after the commit (the live ones minus those the compaction removes,
    /// plus its outputs).
    pub live_after: HashSet<&'a str>,
}

/// A bucket's rebased deletion-vector change.
pub(crate) struct RebasedVectors {
    /// DELETE of every live index file of the bucket, ADD of the rebased file.
    pub changes: Vec<IndexManifestEntry>,
    /// The rebased file (delete it if the attempt does not land).
    pub written: Path,
}

/// Rebases `c` (see the module doc). `None` when the bucket's index files did not change
/// since the compaction was planned, or the compaction changes no vector and rewrote no file
/// whose vector changed.
pub(crate) async fn rebase_bucket_vectors(
    table: &Table,
    writer: &DeletionVectorIndexWriter,
    c: &BucketDvChange<'_>,
) -> Result<Option<RebasedVectors>> {
    let names = |v: &[&IndexManifestEntry]| -> HashSet<String> {
        v.iter().map(|e| e.index_file.file_name.clone()).collect()
    };
    if names(&c.base_index) == names(&c.live_index) {
        return Ok(None);
    }
    let conflict = |message: String| {
        Error::from(ErrorDetail::CommitConflict {
            table: table.identifier().to_string(),
            message,
        })
    };
    let partition = table
        .partition_text(c.partition)
        .unwrap_or_else(|_| format!("{:?}", c.partition));
    let where_ = if partition.is_empty() {
        format!("bucket {}", c.bucket)
    } else {
        format!("bucket {} of partition {partition}", c.bucket)
    };
    let base = read_index_vectors(table, &c.base_index)
        .await
        .map_err(|e| {
            conflict(format!(
                "the deletion vectors of {where_} changed since this compaction was planned, and \
             the vectors it was planned with cannot be read: {e}"
            ))
        })?;
    let live = read_index_vectors(table, &c.live_index).await?;
    let empty =
        |dv: &DeletionVector| DeletionVector::new_empty(matches!(dv, DeletionVector::Bitmap64(_)));
    for f in &c.rewritten {
        let before = base.get(*f);
        let now = live.get(*f);
        let same = match (before, now) {
            (None, None) => true,
            (Some(a), None) | (None, Some(a)) => a.is_empty(),
            (Some(a), Some(b)) => positions(a).eq(positions(b)),
        };
        if !same {
            return Err(conflict(format!(
                "data file {f} of {where_} was rewritten by this compaction with the deletion \
                 vector it had when the compaction was planned, and a concurrent commit has \
                 since deleted more of its rows"
            )));
        }
    }
    let Some(ours) = c.ours else {
        return Ok(None);
    };
    let mine = read_index_vectors(table, &[ours]).await?;
    let mut out: HashMap<String, DeletionVector> = HashMap::new();
    for (file, dv) in &live {
        if c.live_after.contains(file.as_str()) {
            out.insert(file.clone(), dv.clone());
        }
    }
    for (file, dv) in &mine {
        let base_dv = base.get(file);
        let new_marks: Vec<u64> = positions(dv)
            .filter(|p| !base_dv.is_some_and(|b| b.is_deleted(*p)))
            .collect();
        if new_marks.is_empty() {
            continue;
        }
        if !c.live_after.contains(file.as_str()) {
            return Err(conflict(format!(
                "this compaction deletes rows of data file {file} of {where_} through its \
                 deletion vector, and a concurrent compaction has rewritten that file since \
                 (the rows now live elsewhere, unmarked)"
            )));
        }
        let target = out.entry(file.clone()).or_insert_with(|| empty(dv));
        for p in new_marks {
            target.delete(p).map_err(|e| {
                Error::from(ErrorDetail::Unsupported(format!(
                    "deletion vector of data file {file} of {where_}: {e}"
                )))
            })?;
        }
    }
    let mut list: Vec<(String, DeletionVector)> =
        out.into_iter().filter(|(_, v)| !v.is_empty()).collect();
    list.sort_by(|a, b| a.0.cmp(&b.0));
    let (entry, written) = writer.write(c.partition, c.bucket, &list).await?;
    let mut changes: Vec<IndexManifestEntry> = c
        .live_index
        .iter()
        .map(|e| IndexManifestEntry {
            kind: FileKind::Delete,
            ..(*e).clone()
        })
        .collect();
    changes.push(entry);
    Ok(Some(RebasedVectors { changes, written }))
}

/// The deleted positions of a vector, in increasing order.
fn positions(dv: &DeletionVector) -> Box<dyn Iterator<Item = u64> + '_> {
    match dv {
        DeletionVector::Bitmap32(b) => Box::new(b.iter().map(u64::from)),
        DeletionVector::Bitmap64(b) => Box::new(b.iter()),
    }
}
