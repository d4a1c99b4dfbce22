//! What the lifecycle operations share (Java's `FileDeletionBase`): where each kind of file a
//! snapshot references lives, which data files and metadata files a snapshot (or tag) uses,
//! and idempotent deletion with counters.
//!
//! Data files are identified by (partition bytes, bucket, file name) — never by level: a
//! compaction *upgrade* keeps a file's name and changes only its level, so a file that is
//! live at any level is "used".

use std::collections::HashSet;

use object_store::path::Path;
use strata_spec::manifest::{FileKind, IndexManifestEntry, ManifestEntry, ManifestFileMeta};
use strata_spec::snapshot::Snapshot;

use crate::error::ErrorDetail;
use crate::index::IndexManifestStore;
use crate::table::Table;
use crate::{Error, Result};

/// A data file's identity, level ignored: (partition bytes, bucket, file name).
pub type DataFileKey = (Vec<u8>, i32, String);

/// The identity of the file an entry names.
pub fn data_file_key(e: &ManifestEntry) -> DataFileKey {
    (
        e.partition.as_bytes().to_vec(),
        e.bucket,
        e.file.file_name.clone(),
    )
}

/// What a category of deleted files counts toward.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileCategory {
    /// Data files and their extra files (`_EXTRA_FILES`).
    Data,
    /// Changelog files (ADD entries of changelog manifests).
    Changelog,
    /// Data and changelog manifests.
    Manifest,
    /// HASH / deletion-vector index files.
    Index,
    /// Statistics files.
    Statistics,
    /// Manifest lists (base, delta, changelog).
    ManifestList,
    /// Index manifests.
    IndexManifest,
    /// `snapshot-N` files.
    Snapshot,
    /// `tag-NAME` files.
    Tag,
    /// `changelog/changelog-N` files (long-lived changelogs).
    LongLivedChangelog,
}

impl FileCategory {
    /// A camelCase name for output (`dataFile`, `manifestList`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            FileCategory::Data => "dataFile",
            FileCategory::Changelog => "changelogFile",
            FileCategory::Manifest => "manifest",
            FileCategory::Index => "indexFile",
            FileCategory::Statistics => "statistics",
            FileCategory::ManifestList => "manifestList",
            FileCategory::IndexManifest => "indexManifest",
            FileCategory::Snapshot => "snapshot",
            FileCategory::Tag => "tag",
            FileCategory::LongLivedChangelog => "changelog",
        }
    }
}

/// Counts of deleted (or, in a dry run, deletable) files per category.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeletionCounts {
    /// See [`FileCategory::Data`].
    pub data_files: usize,
    /// See [`FileCategory::Changelog`].
    pub changelog_files: usize,
    /// See [`FileCategory::Manifest`].
    pub manifests: usize,
    /// See [`FileCategory::ManifestList`].
    pub manifest_lists: usize,
    /// See [`FileCategory::Index`].
    pub index_files: usize,
    /// See [`FileCategory::IndexManifest`].
    pub index_manifests: usize,
    /// See [`FileCategory::Statistics`] (a snapshot's `statistics` file).
    pub statistics: usize,
    /// See [`FileCategory::Snapshot`].
    pub snapshots: usize,
    /// See [`FileCategory::Tag`].
    pub tags: usize,
    /// `changelog/changelog-N` files.
    pub long_lived_changelogs: usize,
}

impl DeletionCounts {
    pub(crate) fn add(&mut self, category: FileCategory) {
        match category {
            FileCategory::Data => self.data_files += 1,
            FileCategory::Changelog => self.changelog_files += 1,
            FileCategory::Manifest => self.manifests += 1,
            FileCategory::Index => self.index_files += 1,
            FileCategory::Statistics => self.statistics += 1,
            FileCategory::ManifestList => self.manifest_lists += 1,
            FileCategory::IndexManifest => self.index_manifests += 1,
            FileCategory::Snapshot => self.snapshots += 1,
            FileCategory::Tag => self.tags += 1,
            FileCategory::LongLivedChangelog => self.long_lived_changelogs += 1,
        }
    }

    /// Every file counted.
    pub fn total(&self) -> usize {
        self.data_files
            + self.changelog_files
            + self.manifests
            + self.manifest_lists
            + self.index_files
            + self.index_manifests
            + self.statistics
            + self.snapshots
            + self.tags
            + self.long_lived_changelogs
    }
}

/// One file to delete, in the order a crash-safe run deletes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deletion {
    /// What the file counts toward.
    pub category: FileCategory,
    /// The file's path in the table's store.
    pub path: Path,
}

/// Resolves the paths of the files one table's metadata names.
#[derive(Clone, Debug)]
pub struct TableFiles {
    table: Table,
    index_in_data_dir: bool,
}

impl TableFiles {
    /// The files of `table`; index files are looked for in the bucket directories when the
    /// table sets `index-file-in-data-file-dir`. Fails if that option is not a boolean.
    pub fn new(table: &Table) -> Result<Self> {
        let index_in_data_dir = table
            .options()
            .get_bool(crate::index::hash_file::INDEX_FILE_IN_DATA_FILE_DIR)?
            .unwrap_or(false);
        Ok(TableFiles {
            table: table.clone(),
            index_in_data_dir,
        })
    }

    /// The table whose files these are.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The data file an entry names, followed by its extra files (in the same directory).
    pub fn data_paths(&self, e: &ManifestEntry) -> Result<Vec<Path>> {
        let main = match &e.file.external_path {
            Some(p) => external_path(p),
            None => {
                let dir = self.table.partition_path(&e.partition)?;
                self.table
                    .paths()
                    .data_file(&dir, e.bucket, &e.file.file_name)
            }
        };
        let mut out = Vec::with_capacity(1 + e.file.extra_files.len());
        let parent = parent_of(&main);
        for extra in &e.file.extra_files {
            out.push(parent.clone().join(extra.as_str()));
        }
        out.insert(0, main);
        Ok(out)
    }

    /// Where an index file lives (`index/`, or the bucket directory with
    /// `index-file-in-data-file-dir`, or its external path).
    pub fn index_path(&self, e: &IndexManifestEntry) -> Result<Path> {
        if let Some(p) = &e.index_file.external_path {
            return Ok(external_path(p));
        }
        if self.index_in_data_dir {
            let dir = self.table.partition_path(&e.partition)?;
            Ok(self
                .table
                .paths()
                .data_file(&dir, e.bucket, &e.index_file.file_name))
        } else {
            Ok(self.table.paths().index_file(&e.index_file.file_name))
        }
    }

    /// `statistics/<name>`.
    pub fn statistics_path(&self, name: &str) -> Path {
        self.table
            .paths()
            .root()
            .clone()
            .join("statistics")
            .join(name)
    }

    /// A manifest list's entries, `None` when the list file is gone (an interrupted earlier
    /// run deleted it).
    pub async fn read_list_opt(&self, name: &str) -> Result<Option<Vec<ManifestFileMeta>>> {
        let path = self.table.paths().manifest_file(name);
        if !self.table.file_io().exists(&path).await? {
            return Ok(None);
        }
        self.table.manifest_store().read_list(name).await.map(Some)
    }

    /// A manifest's entries, `None` when the file is gone.
    pub async fn read_manifest_opt(&self, name: &str) -> Result<Option<Vec<ManifestEntry>>> {
        let path = self.table.paths().manifest_file(name);
        if !self.table.file_io().exists(&path).await? {
            return Ok(None);
        }
        self.table
            .manifest_store()
            .read_manifest(name)
            .await
            .map(Some)
    }

    /// An index manifest's entries, `None` when the file is gone.
    pub async fn read_index_manifest_opt(
        &self,
        name: &str,
    ) -> Result<Option<Vec<IndexManifestEntry>>> {
        let path = self.table.paths().manifest_file(name);
        if !self.table.file_io().exists(&path).await? {
            return Ok(None);
        }
        IndexManifestStore::new(&self.table)?
            .read(name)
            .await
            .map(Some)
    }

    /// Entries of every manifest of a list, `None` when the list or one of its manifests is
    /// gone (Java cancels the snapshot's data deletion then).
    pub async fn read_list_entries_opt(&self, list: &str) -> Result<Option<Vec<ManifestEntry>>> {
        let Some(metas) = self.read_list_opt(list).await? else {
            return Ok(None);
        };
        let mut out = Vec::new();
        for m in &metas {
            match self.read_manifest_opt(&m.file_name).await? {
                Some(entries) => out.extend(entries),
                None => return Ok(None),
            }
        }
        Ok(Some(out))
    }

    /// Live data files of a snapshot or tag (its base and delta manifests merged), by
    /// identity. Errors when a manifest is missing: such a set must never be guessed, since
    /// it protects files from deletion.
    pub async fn live_data_files(&self, snapshot: &Snapshot) -> Result<HashSet<DataFileKey>> {
        let metas = self.table.manifest_store().data_manifests(snapshot).await?;
        let live = crate::scan::live_entries(&self.table, snapshot, &metas).await?;
        Ok(live.iter().map(data_file_key).collect())
    }

    /// Every metadata file name a snapshot or tag uses (Java `manifestSkippingSet`): its
    /// manifest lists and their manifests, its index manifest and index files, its
    /// statistics file. Errors when one of them cannot be read.
    pub async fn metadata_names(&self, s: &Snapshot) -> Result<HashSet<String>> {
        let mut out = HashSet::new();
        let store = self.table.manifest_store();
        for list in [Some(&s.base_manifest_list), Some(&s.delta_manifest_list)]
            .into_iter()
            .flatten()
            .chain(s.changelog_manifest_list.as_ref())
        {
            out.insert(list.clone());
            for m in store.read_list(list).await? {
                out.insert(m.file_name);
            }
        }
        if let Some(im) = &s.index_manifest {
            out.insert(im.clone());
            for e in IndexManifestStore::new(&self.table)?.read(im).await? {
                out.insert(e.index_file.file_name);
            }
        }
        if let Some(st) = &s.statistics {
            out.insert(st.clone());
        }
        Ok(out)
    }

    /// Plans the deletion of the metadata of `s` not in `keep` (Java `planManifestsCleaner`):
    /// leaves (manifests, index files, statistics) go to `leaves`, the files naming them
    /// (manifest lists, index manifest) to `lists`, so that a run interrupted between the two
    /// can still find the leaves again. Names are added to `keep` so a file shared by several
    /// snapshots is planned once. Missing lists and manifests are skipped (already deleted).
    pub async fn plan_metadata_deletion(
        &self,
        s: &Snapshot,
        include_changelog: bool,
        keep: &mut HashSet<String>,
        leaves: &mut Vec<Deletion>,
        lists: &mut Vec<Deletion>,
    ) -> Result<()> {
        self.plan_metadata_deletion_of(s, true, include_changelog, keep, leaves, lists)
            .await
    }

    /// [`Self::plan_metadata_deletion`] choosing the manifest lists (Java
    /// `planManifestsCleaner(snapshot, skippingSet, deleteDataManifestLists,
    /// deleteChangelog)`): a decoupled changelog lifecycle keeps the lists its long-lived
    /// changelog reads.
    pub async fn plan_metadata_deletion_of(
        &self,
        s: &Snapshot,
        data_lists: bool,
        include_changelog: bool,
        keep: &mut HashSet<String>,
        leaves: &mut Vec<Deletion>,
        lists: &mut Vec<Deletion>,
    ) -> Result<()> {
        let paths = self.table.paths();
        let mut names = Vec::new();
        if data_lists {
            names.extend([&s.base_manifest_list, &s.delta_manifest_list]);
        }
        if include_changelog {
            names.extend(s.changelog_manifest_list.as_ref());
        }
        for list in names {
            if let Some(metas) = self.read_list_opt(list).await? {
                for m in metas {
                    if keep.insert(m.file_name.clone()) {
                        leaves.push(Deletion {
                            category: FileCategory::Manifest,
                            path: paths.manifest_file(&m.file_name),
                        });
                    }
                }
            }
            if keep.insert(list.clone()) {
                lists.push(Deletion {
                    category: FileCategory::ManifestList,
                    path: paths.manifest_file(list),
                });
            }
        }
        if let Some(im) = &s.index_manifest {
            if let Some(entries) = self.read_index_manifest_opt(im).await? {
                for e in entries {
                    if keep.insert(e.index_file.file_name.clone()) {
                        leaves.push(Deletion {
                            category: FileCategory::Index,
                            path: self.index_path(&e)?,
                        });
                    }
                }
            }
            if keep.insert(im.clone()) {
                lists.push(Deletion {
                    category: FileCategory::IndexManifest,
                    path: paths.manifest_file(im),
                });
            }
        }
        if let Some(st) = &s.statistics {
            if keep.insert(st.clone()) {
                leaves.push(Deletion {
                    category: FileCategory::Statistics,
                    path: self.statistics_path(st),
                });
            }
        }
        Ok(())
    }

    /// Deletes `d` (idempotent: a missing file is not an error) and counts it.
    pub async fn delete(&self, d: &Deletion, counts: &mut DeletionCounts) -> Result<()> {
        self.table.file_io().delete(&d.path).await?;
        counts.add(d.category);
        Ok(())
    }
}

/// Entries of a delta that remove a file for good: DELETE entries whose file is not ADDed
/// again in the same delta (an upgrade re-adds the same name at a new level).
pub fn deleted_in_delta(entries: &[ManifestEntry]) -> Vec<&ManifestEntry> {
    let re_added: HashSet<DataFileKey> = entries
        .iter()
        .filter(|e| e.kind == FileKind::Add)
        .map(data_file_key)
        .collect();
    let mut seen = HashSet::new();
    entries
        .iter()
        .filter(|e| e.kind == FileKind::Delete)
        .filter(|e| {
            let k = data_file_key(e);
            !re_added.contains(&k) && seen.insert(k)
        })
        .collect()
}

/// Removes the emptied bucket directories among `dirs`, then emptied partition directories
/// above them, up to the table root (local filesystem only; object stores have no
/// directories). A directory that is not empty stays.
pub(crate) async fn remove_empty_data_dirs(
    io: &crate::io::FileIO,
    root: &Path,
    dirs: impl IntoIterator<Item = std::path::PathBuf>,
) {
    if io.kind() != crate::io::StoreKind::Local {
        return;
    }
    let root = std::path::PathBuf::from(io.display(root));
    let dirs: Vec<std::path::PathBuf> = dirs.into_iter().collect();
    // Local directory calls block: run them on tokio's blocking pool.
    let _ = tokio::task::spawn_blocking(move || {
        let is_data_dir = |p: &std::path::Path| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("bucket-") || n.contains('='))
        };
        for d in dirs {
            let mut cur = d.as_path();
            while cur.starts_with(&root) && cur != root && is_data_dir(cur) {
                // Fails (and stops) when the directory is not empty.
                if std::fs::remove_dir(cur).is_err() {
                    break;
                }
                match cur.parent() {
                    Some(p) => cur = p,
                    None => break,
                }
            }
        }
    })
    .await;
}

/// A manifest's `_EXTERNAL_PATH` (a full URI or absolute path) as a store path.
pub(crate) fn external_path(p: &str) -> Path {
    let p = p.strip_prefix("file:").unwrap_or(p);
    Path::from(p.trim_start_matches('/'))
}

fn parent_of(p: &Path) -> Path {
    let parts: Vec<_> = p.parts().collect();
    if parts.len() <= 1 {
        return Path::default();
    }
    Path::from_iter(parts[..parts.len() - 1].iter().cloned())
}

/// `ErrorDetail::InvalidArgument` with a message.
pub(crate) fn invalid(message: impl Into<String>) -> Error {
    ErrorDetail::InvalidArgument(message.into()).into()
}
