//! The table directory layout: `schema/`, `snapshot/`, `manifest/`, and the
//! `<partition path>/bucket-<N>/` data directories. Names of new files are made here too, so the
//! naming rules (`data-<uuid>-<n>.parquet`, `manifest-<uuid>-<n>`, ...) live in one place.
//!
//! A branch other than `main` keeps its own `schema/`, `snapshot/`, `tag/`, `changelog/` and
//! `consumer/` under `branch/branch-<name>/` (Java's `BranchManager.branchPath`); manifests,
//! index files and data files are shared with `main` at the table root.

use std::sync::atomic::{AtomicU64, Ordering};

use object_store::path::Path;

/// Paths of one table, rooted at the table directory.
#[derive(Clone, Debug)]
pub struct TablePaths {
    root: Path,
    /// `data-file.path-directory`: the directory of the table the partition directories sit
    /// in (Java `FileStorePathFactory.dataFilePathDirectory`).
    data_dir: Option<String>,
    /// The branch whose metadata these paths name; `None` is `main`.
    branch: Option<String>,
}

/// The default branch (Java's `Identifier.DEFAULT_MAIN_BRANCH`).
pub(crate) const MAIN_BRANCH: &str = "main";

/// Prefix of branch directories (Java's `BranchManager.BRANCH_PREFIX`).
pub(crate) const BRANCH_PREFIX: &str = "branch-";

impl TablePaths {
    pub fn new(root: Path) -> Self {
        TablePaths {
            root,
            data_dir: None,
            branch: None,
        }
    }

    /// These paths on `branch` (`None`, empty or `main`: the main branch; Java's
    /// `BranchManager.normalizeBranch`).
    pub fn with_branch(mut self, branch: Option<&str>) -> Self {
        self.branch = branch
            .filter(|b| !b.trim().is_empty() && *b != MAIN_BRANCH)
            .map(str::to_string);
        self
    }

    /// The branch these paths name (`main` for the main branch).
    pub fn branch(&self) -> &str {
        self.branch.as_deref().unwrap_or(MAIN_BRANCH)
    }

    /// `branch/`: the directory holding every branch's directory.
    pub fn branches_dir(&self) -> Path {
        self.root.clone().join("branch")
    }

    /// The directory of this branch's metadata: the table directory for `main`,
    /// `branch/branch-<name>` otherwise (Java's `BranchManager.branchPath`).
    pub fn branch_root(&self) -> Path {
        match &self.branch {
            None => self.root.clone(),
            Some(b) => self.branches_dir().join(format!("{BRANCH_PREFIX}{b}")),
        }
    }

    /// These paths with the data files of each bucket under `dir` (`data-file.path-directory`),
    /// `None` or empty for the table directory itself.
    pub fn with_data_directory(mut self, dir: Option<&str>) -> Self {
        self.data_dir = dir
            .map(|d| d.trim_matches('/').to_string())
            .filter(|d| !d.is_empty());
        self
    }
    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn schema_dir(&self) -> Path {
        self.branch_root().join("schema")
    }
    pub fn schema_file(&self, id: i64) -> Path {
        self.schema_dir().join(format!("schema-{id}"))
    }
    pub fn snapshot_dir(&self) -> Path {
        self.branch_root().join("snapshot")
    }
    pub fn snapshot_file(&self, id: i64) -> Path {
        self.snapshot_dir().join(format!("snapshot-{id}"))
    }
    pub fn latest_hint(&self) -> Path {
        self.snapshot_dir().join("LATEST")
    }
    pub fn earliest_hint(&self) -> Path {
        self.snapshot_dir().join("EARLIEST")
    }
    /// `tag/` of this branch.
    pub fn tag_dir(&self) -> Path {
        self.branch_root().join("tag")
    }
    /// `changelog/` (long-lived changelogs) of this branch.
    pub fn changelog_dir(&self) -> Path {
        self.branch_root().join("changelog")
    }
    /// `consumer/` of this branch.
    pub fn consumer_dir(&self) -> Path {
        self.branch_root().join("consumer")
    }
    pub fn manifest_dir(&self) -> Path {
        self.root.clone().join("manifest")
    }
    pub fn manifest_file(&self, name: &str) -> Path {
        self.manifest_dir().join(name)
    }
    pub fn index_file(&self, name: &str) -> Path {
        self.root.clone().join("index").join(name)
    }
    /// Directory of one bucket. `partition_path` is the relative partition path as made by
    /// `strata_spec::partition` (e.g. `dt=2024-01-01/`), empty for unpartitioned tables.
    pub fn bucket_dir(&self, partition_path: &str, bucket: i32) -> Path {
        let mut p = self.root.clone();
        for part in self.data_dir.iter().flat_map(|d| d.split('/')) {
            p = p.join(part);
        }
        for part in partition_path.split('/').filter(|s| !s.is_empty()) {
            // Partition path segments are already escaped by Paimon's rules; keep them verbatim.
            p = p.join(part);
        }
        p.join(bucket_dir_name(bucket))
    }
    /// A data file in a bucket directory; an `external_path` from the manifest wins.
    pub fn data_file(&self, partition_path: &str, bucket: i32, file_name: &str) -> Path {
        self.bucket_dir(partition_path, bucket).join(file_name)
    }
}

/// `bucket-<N>`, or `bucket-postpone` for the postpone bucket (-2) of `bucket = -2` tables
/// (Java `FileStorePathFactory.relativeBucketPath`).
pub(crate) fn bucket_dir_name(bucket: i32) -> String {
    if bucket == strata_spec::options::POSTPONE_BUCKET {
        "bucket-postpone".to_string()
    } else {
        format!("bucket-{bucket}")
    }
}

/// Generates unique file names for one writer or committer: one random UUID per instance and a
/// counter, as Java's `DataFilePathFactory`/`FileStorePathFactory` do.
#[derive(Debug)]
pub struct FileNamer {
    uuid: String,
    counter: AtomicU64,
}

impl Default for FileNamer {
    fn default() -> Self {
        Self::new()
    }
}

impl FileNamer {
    /// A namer with a fresh random UUID and its counter at 0.
    pub fn new() -> Self {
        FileNamer {
            uuid: uuid::Uuid::new_v4().to_string(),
            counter: AtomicU64::new(0),
        }
    }
    fn next(&self) -> u64 {
        self.counter.fetch_add(1, Ordering::Relaxed)
    }
    /// `<prefix><uuid>-<n>.<ext>`, e.g. `data-…-0.parquet`.
    pub fn data_file(&self, prefix: &str, ext: &str) -> String {
        format!("{prefix}{}-{}.{ext}", self.uuid, self.next())
    }
    /// `manifest-<uuid>-<n>`
    pub fn manifest(&self) -> String {
        format!("manifest-{}-{}", self.uuid, self.next())
    }
    /// `manifest-list-<uuid>-<n>`
    pub fn manifest_list(&self) -> String {
        format!("manifest-list-{}-{}", self.uuid, self.next())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_layout() {
        let p = TablePaths::new(Path::from("wh/db.db/t")).with_branch(Some("b1"));
        assert_eq!(p.branch(), "b1");
        assert_eq!(
            p.schema_file(0).as_ref(),
            "wh/db.db/t/branch/branch-b1/schema/schema-0"
        );
        assert_eq!(
            p.snapshot_file(2).as_ref(),
            "wh/db.db/t/branch/branch-b1/snapshot/snapshot-2"
        );
        assert_eq!(p.tag_dir().as_ref(), "wh/db.db/t/branch/branch-b1/tag");
        assert_eq!(p.manifest_file("m").as_ref(), "wh/db.db/t/manifest/m");
        assert_eq!(p.bucket_dir("", 0).as_ref(), "wh/db.db/t/bucket-0");
        let main = TablePaths::new(Path::from("wh/db.db/t")).with_branch(Some("main"));
        assert_eq!(main.branch(), "main");
        assert_eq!(main.tag_dir().as_ref(), "wh/db.db/t/tag");
    }

    #[test]
    fn layout() {
        let p = TablePaths::new(Path::from("wh/db.db/t"));
        assert_eq!(p.schema_file(0).as_ref(), "wh/db.db/t/schema/schema-0");
        assert_eq!(
            p.snapshot_file(3).as_ref(),
            "wh/db.db/t/snapshot/snapshot-3"
        );
        assert_eq!(
            p.bucket_dir("dt=2024-01-01/hr=1/", 2).as_ref(),
            "wh/db.db/t/dt=2024-01-01/hr=1/bucket-2"
        );
        assert_eq!(p.bucket_dir("", 0).as_ref(), "wh/db.db/t/bucket-0");
        assert_eq!(
            p.bucket_dir("dt=1/", -2).as_ref(),
            "wh/db.db/t/dt=1/bucket-postpone"
        );
        let d = p.clone().with_data_directory(Some("data/"));
        assert_eq!(
            d.bucket_dir("dt=1/", 0).as_ref(),
            "wh/db.db/t/data/dt=1/bucket-0"
        );
        assert_eq!(d.schema_file(0).as_ref(), "wh/db.db/t/schema/schema-0");
        let n = FileNamer::new();
        let a = n.data_file("data-", "parquet");
        let b = n.data_file("data-", "parquet");
        assert!(a.starts_with("data-") && a.ends_with("-0.parquet"));
        assert!(b.ends_with("-1.parquet"));
    }
}
