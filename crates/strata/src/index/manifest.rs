//! Index manifests of one table: `manifest/index-manifest-<uuid>-<n>`, an
//! Avro file of [`IndexManifestEntry`]s naming every live index file of a snapshot
//! (`Snapshot.indexManifest`). The Avro codec is pure (`strata_spec::manifest`); this module adds
//! the I/O, the file names, and Java's rule for combining a previous index manifest with the
//! ADD/DELETE changes of a commit (`IndexManifestFileHandler`):
//!
//! * HASH files, and DELETION_VECTORS files of bucketed tables, are keyed by
//!   (partition, bucket, index type): DELETE changes are applied first, then ADDs replace
//!   whatever the key held (so a bucket's new HASH file replaces its old one even without a
//!   DELETE). Stricter than Java for deletion vectors: a DELETE must name the bucket's live
//!   file and an ADD may not replace a live file it does not delete, else the commit is a
//!   conflict (Java would silently drop the live file's vectors; strata's compactions rebase
//!   first, `crate::index::dv_rebase`).
//! * DELETION_VECTORS of bucket-unaware tables are keyed by file name; adding a name twice or
//!   deleting an absent name is an error.
//! * Global-index types are keyed by file name; deleting an absent name is an error.
//!
//! A written index manifest holds only ADD entries. Retained entries keep their previous order
//! and new ones follow in commit order (Java's order is that of a `HashMap`; readers do not
//! depend on it).

use crate::error::ErrorDetail;
use std::collections::HashMap;

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{
    decode_index_manifest, encode_index_manifest, FileKind, IndexManifestEntry, ManifestCompression,
};
use strata_spec::snapshot::Snapshot;

use crate::index::hash_file::HASH_INDEX;
use crate::table::Table;
use crate::{Error, Result};

/// `_INDEX_TYPE` of deletion-vector index files.
pub const DELETION_VECTORS_INDEX: &str = "DELETION_VECTORS";

/// Reads and writes the index manifests of one table.
#[derive(Debug, Clone)]
pub struct IndexManifestStore {
    table: Table,
    compression: ManifestCompression,
    uuid: String,
}

impl IndexManifestStore {
    /// The index manifest store of `table`, writing with its `manifest.compression` (and
    /// `file.compression.zstd-level`); an invalid codec is `ErrorDetail::InvalidOption`.
    pub fn new(table: &Table) -> Result<Self> {
        let opts = table.options();
        let compression = ManifestCompression::from_options(
            opts.manifest_compression(),
            opts.file_compression_zstd_level()?,
        )
        .map_err(|e| ErrorDetail::InvalidOption {
            key: "manifest.compression".into(),
            message: e.to_string(),
        })?;
        Ok(IndexManifestStore {
            table: table.clone(),
            compression,
            uuid: uuid::Uuid::new_v4().to_string(),
        })
    }

    /// Entries of the index manifest `name` (in `manifest/`).
    pub async fn read(&self, name: &str) -> Result<Vec<IndexManifestEntry>> {
        let path = self.table.paths().manifest_file(name);
        let io = self.table.file_io();
        let bytes = io.get(&path).await?;
        decode_index_manifest(&bytes).map_err(|e| Error::corrupt(io.display(&path), e))
    }

    /// Live index entries of a snapshot (empty when it has no index manifest).
    pub async fn read_snapshot(&self, snapshot: &Snapshot) -> Result<Vec<IndexManifestEntry>> {
        match &snapshot.index_manifest {
            Some(name) => self.read(name).await,
            None => Ok(Vec::new()),
        }
    }

    /// Writes `entries` as a new index manifest and returns its file name. `n` distinguishes
    /// the files of one store (e.g. a commit attempt counter).
    pub async fn write(&self, entries: &[IndexManifestEntry], n: u64) -> Result<String> {
        let name = format!("index-manifest-{}-{n}", self.uuid);
        let bytes = encode_index_manifest(entries, self.compression)?;
        self.table
            .file_io()
            .put(&self.table.paths().manifest_file(&name), bytes)
            .await?;
        Ok(name)
    }
}

/// Java's `IndexManifestFileHandler.write` combination: the live index entries after applying
/// `changes` to `previous`. `bucket_unaware` selects the by-file-name rule for deletion vectors
/// (append tables with `bucket = -1`). Errors name the offending file.
pub(crate) fn combine_index_entries(
    previous: Vec<IndexManifestEntry>,
    changes: &[IndexManifestEntry],
    bucket_unaware: bool,
) -> Result<Vec<IndexManifestEntry>> {
    if let Some(e) = previous.iter().find(|e| e.kind != FileKind::Add) {
        return Err(ErrorDetail::InvalidArgument(format!(
            "index manifest holds a DELETE entry for {}; only ADD entries are allowed",
            e.index_file.file_name
        ))
        .into());
    }
    let rule = |e: &IndexManifestEntry| -> Rule {
        let t = e.index_file.index_type.as_str();
        if t == HASH_INDEX || (t == DELETION_VECTORS_INDEX && !bucket_unaware) {
            Rule::Bucketed
        } else if t == DELETION_VECTORS_INDEX {
            Rule::GlobalDv
        } else {
            Rule::GlobalIndex
        }
    };
    let mut live: Vec<Option<IndexManifestEntry>> = Vec::with_capacity(previous.len());
    let mut by_key: HashMap<Key, usize> = HashMap::new();
    for e in previous {
        let k = Key::of(&e, rule(&e));
        match by_key.get(&k) {
            // A duplicate key in the previous manifest: the later entry wins, as with Java's map.
            Some(&i) => live[i] = Some(e),
            None => {
                by_key.insert(k, live.len());
                live.push(Some(e));
            }
        }
    }
    // Bucketed and global-index rules apply all DELETEs before the ADDs; the deletion-vector
    // file-name rule applies changes in order. Both orders agree unless a change set deletes
    // a file it also adds, which only the in-order rule rejects.
    let (deletes, ordered): (Vec<_>, Vec<_>) = changes
        .iter()
        .partition(|e| e.kind == FileKind::Delete && rule(e) != Rule::GlobalDv);
    let bucketed_dv = |e: &IndexManifestEntry| {
        rule(e) == Rule::Bucketed && e.index_file.index_type == DELETION_VECTORS_INDEX
    };
    let mut deleted_dv: Vec<&str> = Vec::new();
    for e in deletes {
        let k = Key::of(e, rule(e));
        if bucketed_dv(e) {
            // A bucket's deletion vectors live in one file that each compaction replaces
            // whole: deleting a file that is no longer live (or not this bucket's live one)
            // would drop the vectors of the file that replaced it.
            let current = by_key
                .get(&k)
                .and_then(|&i| live[i].as_ref())
                .map(|l| l.index_file.file_name.as_str());
            let name = e.index_file.file_name.as_str();
            if current != Some(name) && !deleted_dv.contains(&name) {
                return Err(stale_dv_file(e, current));
            }
            deleted_dv.push(name);
        }
        match by_key.remove(&k) {
            Some(i) => live[i] = None,
            None if rule(e) == Rule::GlobalIndex => {
                return Err(ErrorDetail::InvalidArgument(format!(
                    "trying to delete global index file {} which does not exist",
                    e.index_file.file_name
                ))
                .into())
            }
            None => {}
        }
    }
    for e in ordered {
        let r = rule(e);
        let k = Key::of(e, r);
        if e.kind == FileKind::Delete {
            // Deletion vectors of a bucket-unaware table, by file name.
            match by_key.remove(&k) {
                Some(i) => live[i] = None,
                None => {
                    return Err(ErrorDetail::InvalidArgument(format!(
                        "trying to delete index file {} which does not exist",
                        e.index_file.file_name
                    ))
                    .into())
                }
            }
            continue;
        }
        match by_key.get(&k) {
            // Replacing a bucket's live vectors without deleting them (Java's map would).
            Some(&i) if bucketed_dv(e) => {
                let current = live[i].as_ref().map(|l| l.index_file.file_name.as_str());
                return Err(stale_dv_file(e, current));
            }
            Some(_) if r == Rule::GlobalDv => {
                return Err(ErrorDetail::InvalidArgument(format!(
                    "trying to add index file {} which is already added",
                    e.index_file.file_name
                ))
                .into())
            }
            Some(&i) => live[i] = Some(e.clone()),
            None => {
                by_key.insert(k, live.len());
                live.push(Some(e.clone()));
            }
        }
    }
    Ok(live.into_iter().flatten().collect())
}

/// A change of a bucket's deletion-vector index file planned on other vectors than the live
/// ones (`crate::index::dv_rebase` rebases the compactions strata commits; anything else is
/// refused rather than losing vectors).
fn stale_dv_file(e: &IndexManifestEntry, live: Option<&str>) -> Error {
    ErrorDetail::CommitConflict {
        table: String::new(),
        message: format!(
            "deletion-vector index file {} of bucket {} ({} entry) was planned on vectors that \
             are no longer live (the bucket's live index file is {}); committing it would drop \
             deletion vectors",
            e.index_file.file_name,
            e.bucket,
            if e.kind == FileKind::Add {
                "ADD"
            } else {
                "DELETE"
            },
            live.unwrap_or("none"),
        ),
    }
    .into()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Rule {
    Bucketed,
    GlobalDv,
    GlobalIndex,
}

#[derive(Hash, PartialEq, Eq)]
enum Key {
    Bucket(BinaryRow, i32, String),
    /// Deletion vectors and global indexes are keyed by name within their own type.
    Name(String, String),
}

impl Key {
    fn of(e: &IndexManifestEntry, rule: Rule) -> Key {
        match rule {
            Rule::Bucketed => Key::Bucket(
                e.partition.clone(),
                e.bucket,
                e.index_file.index_type.clone(),
            ),
            Rule::GlobalDv | Rule::GlobalIndex => Key::Name(
                e.index_file.index_type.clone(),
                e.index_file.file_name.clone(),
            ),
        }
    }
}
