//! Orphan file cleanup (Java `OrphanFilesClean` / `LocalOrphanFilesClean`): deletes files under the table directory that nothing references
//! and that are older than a threshold.
//!
//! *Used* is everything any snapshot, tag or long-lived changelog names: manifest lists, their
//! manifests, every data file any entry (ADD or DELETE) of those manifests names and its extra
//! files, index manifests and their index files, statistics files. Matching is by file name,
//! as in Java. *Candidates* are the files of `manifest/`, `index/`, `statistics/` and the
//! bucket directories (found partition level by partition level), plus — whatever their
//! names — leftovers in `snapshot/`, `changelog/`, `schema/` and `tag/` that are not a
//! snapshot, changelog, schema, tag or hint file: temporary files of interrupted writes, such
//! as the `<name>#<n>` staging files the local filesystem store writes before its atomic
//! rename (they are invisible to ordinary listing, so the local filesystem is walked
//! directly). Schema files, hints, snapshot and tag files are never candidates.
//!
//! Only files modified before `older_than` are deleted: a newer unreferenced file may belong
//! to a commit in progress. The manifests of the latest snapshot and of every tag must be
//! readable (a missing one is an error and nothing is deleted); for older snapshots a missing
//! manifest is taken as empty, as Java does, since an interrupted expiry deletes those last.
//!
//! Branches share the table's manifests, index files and data files: as Java's
//! `OrphanFilesClean.validBranches`, every branch (and `main`) is walked — its snapshots, tags
//! and changelogs count as used, and the leftovers of its own `snapshot/`, `changelog/`,
//! `schema/` and `tag/` are candidates. A branch without a schema file aborts the cleanup.

use crate::error::ErrorDetail;
use std::collections::HashSet;

use object_store::path::Path;
use strata_spec::snapshot::Snapshot;

use crate::io::{FileIO, StoreKind};
use crate::table::Table;
use crate::{Error, Result};

use super::files::TableFiles;
use crate::table::tags::{TagManager, TAG_PREFIX};

/// One file found orphaned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrphanFile {
    /// The path as shown to users.
    pub path: String,
    /// The file's size in bytes.
    pub size: u64,
}

/// What a cleanup found (and, unless a dry run, deleted).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrphanReport {
    /// The orphan files found, sorted by path (deleted unless [`Self::dry_run`]).
    pub files: Vec<OrphanFile>,
    /// Whether this was a dry run: the files were only listed, not deleted.
    pub dry_run: bool,
}

impl OrphanReport {
    /// How many orphan files were found.
    pub fn count(&self) -> usize {
        self.files.len()
    }
    /// Their total size in bytes.
    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }
}

/// Whether a file name in a metadata directory is a real metadata file (kept).
type KeepName = fn(&str) -> bool;

/// One listed file or directory.
#[derive(Clone, Debug)]
struct Listed {
    location: Location,
    name: String,
    size: u64,
    modified_millis: i64,
    is_dir: bool,
}

#[derive(Clone, Debug)]
enum Location {
    Local(std::path::PathBuf),
    Store(Path),
}

/// Removes the orphan files of one table.
#[derive(Clone, Debug)]
pub struct OrphanFilesClean {
    table: Table,
    older_than_millis: i64,
    dry_run: bool,
}

impl OrphanFilesClean {
    /// Files modified before `older_than_millis` (epoch ms) are candidates.
    pub fn new(table: &Table, older_than_millis: i64) -> Self {
        OrphanFilesClean {
            table: table.clone(),
            older_than_millis,
            dry_run: false,
        }
    }

    /// Java's default threshold: one day before now by `table`'s [`crate::clock::Clock`].
    pub fn default_older_than_millis(table: &Table) -> i64 {
        table.clock().now_millis() - 24 * 3_600_000
    }

    /// Only report what would be deleted.
    pub fn dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }

    /// Finds the orphan files (see the module doc) modified before the threshold and, unless a
    /// dry run, deletes them; returns what it found sorted by path. Every branch's snapshots,
    /// tags and changelogs count (a branch without schema files is an error, as in Java); a
    /// missing manifest of a latest snapshot or of a tag is an error and nothing is deleted.
    pub async fn clean(&self) -> Result<OrphanReport> {
        let paths = self.table.paths();
        let root = paths.root().clone();
        let branches = self.valid_branches().await?;
        let mut used = HashSet::new();
        for b in &branches {
            used.extend(used_names(b).await?);
        }

        let mut candidates: Vec<Listed> = Vec::new();
        for dir in ["manifest", "index", "statistics"] {
            candidates.extend(
                self.list(&root.clone().join(dir))
                    .await?
                    .into_iter()
                    .filter(|l| !l.is_dir && !used.contains(&l.name)),
            );
        }
        let mut bucket_dirs = Vec::new();
        self.bucket_dirs(
            Location::of(self.table.file_io(), &root),
            self.table.schema().partition_keys.len(),
            &mut bucket_dirs,
        )
        .await?;
        for dir in &bucket_dirs {
            candidates.extend(
                self.list_location(dir)
                    .await?
                    .into_iter()
                    .filter(|l| !l.is_dir && !used.contains(&l.name)),
            );
        }
        let leftovers: [(&str, KeepName); 4] = [
            ("snapshot", |n| is_numbered(n, "snapshot-") || is_hint(n)),
            ("changelog", |n| is_numbered(n, "changelog-") || is_hint(n)),
            ("schema", |n| is_numbered(n, "schema-")),
            ("tag", |n| n.starts_with(TAG_PREFIX) && !is_staging(n)),
        ];
        for b in &branches {
            let branch_root = b.paths().branch_root();
            for (dir, keep) in leftovers {
                candidates.extend(
                    self.list(&branch_root.clone().join(dir))
                        .await?
                        .into_iter()
                        .filter(|l| !l.is_dir && !keep(&l.name)),
                );
            }
        }

        let mut report = OrphanReport {
            dry_run: self.dry_run,
            ..Default::default()
        };
        let mut emptied: HashSet<std::path::PathBuf> = HashSet::new();
        for c in candidates
            .into_iter()
            .filter(|c| c.modified_millis < self.older_than_millis)
        {
            if !self.dry_run {
                self.delete(&c).await?;
                if let Location::Local(p) = &c.location {
                    if let Some(parent) = p.parent() {
                        emptied.insert(parent.to_path_buf());
                    }
                }
            }
            report.files.push(OrphanFile {
                path: c.location.shown(self.table.file_io()),
                size: c.size,
            });
        }
        report.files.sort_by(|a, b| a.path.cmp(&b.path));
        super::files::remove_empty_data_dirs(
            self.table.file_io(),
            self.table.paths().root(),
            emptied,
        )
        .await;
        Ok(report)
    }

    /// The table on each of its branches and on `main` (Java's `validBranches`): a branch
    /// without a schema file aborts the cleanup.
    async fn valid_branches(&self) -> Result<Vec<Table>> {
        let names = self.table.branches().await?;
        let mut out = Vec::with_capacity(names.len() + 1);
        let mut abnormal = Vec::new();
        for name in &names {
            match self.table.switch_to_branch(name).await {
                Ok(t) => out.push(t),
                Err(e) if e.kind() == crate::ErrorKind::NotFound => abnormal.push(name.clone()),
                Err(e) => return Err(e),
            }
        }
        if !abnormal.is_empty() {
            return Err(ErrorDetail::InvalidArgument(format!(
                "Branches {abnormal:?} have no schemas. Orphan files cleaning aborted. Please \
                 check these branches manually."
            ))
            .into());
        }
        out.push(self.table.switch_to_branch("main").await?);
        Ok(out)
    }

    /// The bucket directories under `dir`, `level` partition levels down.
    async fn bucket_dirs(
        &self,
        dir: Location,
        level: usize,
        out: &mut Vec<Location>,
    ) -> Result<()> {
        for l in self.list_location(&dir).await? {
            if !l.is_dir {
                continue;
            }
            if level == 0 {
                if l.name.starts_with("bucket-") {
                    out.push(l.location);
                }
            } else if l.name.contains('=') {
                Box::pin(self.bucket_dirs(l.location, level - 1, out)).await?;
            }
        }
        Ok(())
    }

    async fn list(&self, dir: &Path) -> Result<Vec<Listed>> {
        self.list_location(&Location::of(self.table.file_io(), dir))
            .await
    }

    /// One directory level, staging files included on the local filesystem.
    async fn list_location(&self, dir: &Location) -> Result<Vec<Listed>> {
        let io = self.table.file_io();
        match dir {
            Location::Local(p) => {
                let p = p.clone();
                crate::io::blocking("listing local files", move || list_local(&p)).await
            }
            Location::Store(p) => {
                let (dirs, files) = io.list_dir(p).await?;
                let mut out = Vec::new();
                for d in dirs {
                    out.push(Listed {
                        name: d.filename().unwrap_or_default().to_string(),
                        location: Location::Store(d),
                        size: 0,
                        modified_millis: i64::MAX,
                        is_dir: true,
                    });
                }
                for f in files {
                    out.push(Listed {
                        name: f.location.filename().unwrap_or_default().to_string(),
                        size: f.size,
                        modified_millis: f.last_modified.timestamp_millis(),
                        location: Location::Store(f.location),
                        is_dir: false,
                    });
                }
                Ok(out)
            }
        }
    }

    async fn delete(&self, l: &Listed) -> Result<()> {
        match &l.location {
            Location::Local(p) => match tokio::fs::remove_file(p).await {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(local_error(p, e)),
            },
            Location::Store(p) => self.table.file_io().delete(p).await,
        }
    }
}

/// Every file name a snapshot, tag or long-lived changelog of `table`'s branch references.
async fn used_names(table: &Table) -> Result<HashSet<String>> {
    let sm = table.snapshot_manager();
    let files = TableFiles::new(table)?;
    let mut used = HashSet::new();
    let mut read_manifests = HashSet::new();
    let latest = sm.latest_id().await?;
    for id in sm.list_ids().await? {
        let s = match sm.snapshot(id).await {
            Ok(s) => s,
            // Expired meanwhile.
            Err(e) if e.is_snapshot_not_found() => continue,
            Err(e) => return Err(e),
        };
        let strict = Some(id) == latest;
        collect_used(&files, &s, strict, &mut used, &mut read_manifests).await?;
    }
    for t in TagManager::new(table).all().await? {
        collect_used(&files, &t.snapshot, true, &mut used, &mut read_manifests).await?;
    }
    let io = table.file_io();
    let (_, changelogs) = io.list_dir(&table.paths().changelog_dir()).await?;
    for c in changelogs {
        let is_changelog = c
            .location
            .filename()
            .is_some_and(|n| is_numbered(n, "changelog-"));
        let Some(bytes) = io.get_opt(&c.location).await?.filter(|_| is_changelog) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let s =
            Snapshot::from_json(&text).map_err(|e| Error::corrupt(io.display(&c.location), e))?;
        collect_used(&files, &s, false, &mut used, &mut read_manifests).await?;
    }
    Ok(used)
}

impl Location {
    fn of(io: &FileIO, p: &Path) -> Location {
        match io.kind() {
            StoreKind::Local => Location::Local(std::path::PathBuf::from(io.display(p))),
            _ => Location::Store(p.clone()),
        }
    }

    fn shown(&self, io: &FileIO) -> String {
        match self {
            Location::Local(p) => p.display().to_string(),
            Location::Store(p) => io.display(p),
        }
    }
}

/// Adds what `s` references to `used`. `strict`: a missing manifest is an error (for the
/// latest snapshot and tags); otherwise it counts as empty.
async fn collect_used(
    files: &TableFiles,
    s: &Snapshot,
    strict: bool,
    used: &mut HashSet<String>,
    read_manifests: &mut HashSet<String>,
) -> Result<()> {
    let missing = |what: &str, name: &str| {
        ErrorDetail::InvalidArgument(format!(
            "{what} {name} of snapshot {} is missing; refusing to clean orphan files of a \
             table whose live metadata is incomplete",
            s.id
        ))
        .into()
    };
    let lists = [Some(&s.base_manifest_list), Some(&s.delta_manifest_list)]
        .into_iter()
        .flatten()
        .chain(s.changelog_manifest_list.as_ref());
    for list in lists {
        used.insert(list.clone());
        let metas = match files.read_list_opt(list).await? {
            Some(m) => m,
            None if strict => return Err(missing("manifest list", list)),
            None => continue,
        };
        for m in metas {
            used.insert(m.file_name.clone());
            if !read_manifests.insert(m.file_name.clone()) {
                continue;
            }
            let entries = match files.read_manifest_opt(&m.file_name).await? {
                Some(e) => e,
                None if strict => return Err(missing("manifest", &m.file_name)),
                None => continue,
            };
            for e in entries {
                used.extend(e.file.extra_files.iter().cloned());
                used.insert(e.file.file_name);
            }
        }
    }
    if let Some(im) = &s.index_manifest {
        used.insert(im.clone());
        match files.read_index_manifest_opt(im).await? {
            Some(entries) => used.extend(entries.into_iter().map(|e| e.index_file.file_name)),
            None if strict => return Err(missing("index manifest", im)),
            None => {}
        }
    }
    if let Some(st) = &s.statistics {
        used.insert(st.clone());
    }
    Ok(())
}

fn list_local(dir: &std::path::Path) -> Result<Vec<Listed>> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(local_error(dir, e)),
    };
    let mut out = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| local_error(dir, e))?;
        let meta = match entry.metadata() {
            Ok(m) => m,
            // Deleted while listing.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(local_error(&entry.path(), e)),
        };
        let modified_millis = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(i64::MAX, |d| d.as_millis() as i64);
        out.push(Listed {
            name: entry.file_name().to_string_lossy().into_owned(),
            location: Location::Local(entry.path()),
            size: meta.len(),
            modified_millis,
            is_dir: meta.is_dir(),
        });
    }
    Ok(out)
}

fn local_error(p: &std::path::Path, e: std::io::Error) -> Error {
    Error::io(
        p.display().to_string(),
        object_store::Error::Generic {
            store: "LocalFileSystem",
            source: Box::new(e),
        },
    )
}

/// `<prefix><digits>`.
fn is_numbered(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn is_hint(name: &str) -> bool {
    name == "EARLIEST" || name == "LATEST"
}

/// The local store's staging files: `<name>#<digits>`.
fn is_staging(name: &str) -> bool {
    name.rsplit_once('#')
        .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(is_numbered("snapshot-12", "snapshot-"));
        assert!(!is_numbered("snapshot-12#1", "snapshot-"));
        assert!(!is_numbered("snapshot-", "snapshot-"));
        assert!(is_staging("tag-a#3"));
        assert!(!is_staging("tag-a#b"));
        assert!(!is_staging("tag-a"));
    }
}
