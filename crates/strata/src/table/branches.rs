//! Branches of a table, as Java's `FileSystemBranchManager` keeps them: a branch is the
//! directory `branch/branch-<name>/` holding its own `schema/`, `snapshot/`, `tag/` (and
//! `changelog/`, `consumer/`); its snapshots name manifests and data files in the table's
//! shared directories. A [`Table`] handle is on one branch ([`Table::branch`]); everything it
//! reads and writes (snapshots, schemas, tags, rollback, expiry) is that branch's.
//!
//! * [`Table::create_branch`]: an empty branch holds the current schemas only (Java's
//!   `createBranch(name)`); from a tag it also gets the tag file and the tagged snapshot
//!   (Java's `createBranch(name, tag)`); from a snapshot (strata's addition, the same layout
//!   without the tag file) the snapshot file.
//! * [`Table::delete_branch`]: removes the branch directory (Java's `dropBranch`), refused for
//!   the `scan.fallback-branch` / `scan.primary-branch` of this table.
//! * [`Table::fast_forward`]: this branch takes the other branch's snapshots, schemas and tags
//!   from the other's earliest snapshot on (Java's `fastForward`).
//! * [`Table::branches`]: the branch names (Java's `branches()`).
//! * [`Table::rename_branch`]: moves the branch directory (Java's `renameBranch`).
//! * [`Table::switch_to_branch`]: the same table on another branch (Java's `switchToBranch`).
//!
//! A table whose catalog manages versions (Paimon's REST catalog: Java's
//! `AbstractFileStoreTable.branchManager` is then a `CatalogBranchManager`) asks its
//! [`crate::table::SnapshotCommit`] first — list, create, drop, fast-forward and rename go to the
//! catalog, which registers the branch where the files alone would not — and uses the files only
//! when the decider answers "not handled here". Merging branches is not implemented (Java's
//! `CatalogBranchManager.mergeBranch` refuses too).

use object_store::path::Path;

use crate::error::ErrorDetail;
use crate::meta::paths::{BRANCH_PREFIX, MAIN_BRANCH};
use crate::meta::{SchemaManager, SnapshotManager, TablePaths};
use crate::table::tags::TagManager;
use crate::table::Table;
use crate::{Error, Result};

/// Where a new branch starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BranchStart {
    /// No snapshot: the branch holds the current schemas only (Java's `createBranch(name)`,
    /// `CALL sys.create_branch('db.t', 'b')`).
    Empty,
    /// Tag `name`: the branch holds the tag, its snapshot and the schemas up to the
    /// snapshot's (Java's `createBranch(name, tag)`).
    Tag(String),
    /// Snapshot `id` of this branch: as from a tag, without a tag file.
    Snapshot(i64),
}

fn invalid(message: String) -> Error {
    ErrorDetail::InvalidArgument(message).into()
}

/// Java's `BranchManager.validateBranch` (without the existence check): not `main`, not blank,
/// not only digits; and a name strata can use as a directory name.
pub fn validate_branch_name(name: &str) -> Result<()> {
    if name == MAIN_BRANCH {
        return Err(invalid(format!(
            "Branch name '{MAIN_BRANCH}' is the default branch and cannot be used."
        )));
    }
    if name.trim().is_empty() {
        return Err(invalid(format!("Branch name '{name}' is blank.")));
    }
    if name.chars().all(|c| c.is_ascii_digit()) {
        return Err(invalid(format!(
            "Branch name cannot be pure numeric string but is '{name}'."
        )));
    }
    crate::table::Identifier::validate_name("branch", name)?;
    if name.contains('$') {
        return Err(invalid(format!(
            "Branch name '{name}' contains '$', which separates branches and system tables \
             in table names"
        )));
    }
    Ok(())
}

impl Table {
    /// The branch this handle reads and writes (`main` for the main branch).
    pub fn branch(&self) -> &str {
        self.paths().branch()
    }

    /// The paths of this table on `branch`.
    fn branch_paths(&self, branch: &str) -> TablePaths {
        self.paths().clone().with_branch(Some(branch))
    }

    /// The branches of the table (Java's `branches()`: the `branch/branch-<name>` directories),
    /// sorted; `main` is not listed.
    pub async fn branches(&self) -> Result<Vec<String>> {
        if let Some(mut names) = self.snapshot_commit().list_branches().await? {
            names.sort();
            return Ok(names);
        }
        let mut names: Vec<String> = self
            .file_io()
            .list_dir_names(&self.paths().branches_dir())
            .await?
            .into_iter()
            .filter_map(|n| n.strip_prefix(BRANCH_PREFIX).map(str::to_string))
            .filter(|n| !n.is_empty())
            .collect();
        names.sort();
        Ok(names)
    }

    /// Whether branch `name` exists (`main` always does).
    pub async fn branch_exists(&self, name: &str) -> Result<bool> {
        if name == MAIN_BRANCH {
            return Ok(true);
        }
        Ok(self.branches().await?.iter().any(|b| b == name))
    }

    /// This table on branch `name` at the branch's latest schema, with the `branch` option set
    /// as Java's `switchToBranch` sets it; the same storage, cache and clock. A branch without
    /// a schema is `NotFound`.
    pub async fn switch_to_branch(&self, name: &str) -> Result<Table> {
        if name == self.branch() {
            return Ok(self.clone());
        }
        let paths = self.branch_paths(name);
        let sm = SchemaManager::new(self.file_io().clone(), paths.clone());
        let Some(schema) = sm.latest().await? else {
            return Err(ErrorDetail::TableNotFound(format!(
                "{} (branch {name} does not exist)",
                self.identifier().main()
            ))
            .into());
        };
        let id = self.identifier().main().with_branch(Some(name))?;
        let schema = crate::table::with_branch_option(&schema, paths.branch());
        let mut table = Table::new(id, self.file_io().clone(), paths, sm, schema)?
            .with_clock(self.clock().clone());
        if let Some(c) = self.cache() {
            table = table.with_cache(c.clone());
        }
        if let Some(commit) = self.snapshot_commit().on_branch(name) {
            table = table.with_snapshot_commit(commit);
        }
        Ok(table)
    }

    /// Creates branch `name` from `start` (Java's `FileSystemBranchManager.createBranch`): the
    /// schema files up to the latest (empty) or the start snapshot's schema are copied into
    /// the branch, and from a tag the tag file and the snapshot (copied, or written from the
    /// tag when the snapshot has expired). Names are checked as Java's `validateBranch` does.
    /// A table whose catalog manages branches has the catalog create it (see the module docs).
    pub async fn create_branch(&self, name: &str, start: BranchStart) -> Result<()> {
        validate_branch_name(name)?;
        let (from_tag, from_snapshot) = match &start {
            BranchStart::Empty => (None, None),
            BranchStart::Tag(t) => (Some(t.as_str()), None),
            BranchStart::Snapshot(id) => (None, Some(*id)),
        };
        if self
            .snapshot_commit()
            .create_branch(name, from_tag, from_snapshot)
            .await?
        {
            return Ok(());
        }
        if self.branch_exists(name).await? {
            return Err(ErrorDetail::InvalidArgument(format!(
                "Branch name '{name}' already exists."
            ))
            .into());
        }
        let io = self.file_io();
        let to = self.branch_paths(name);
        let schema_id = match &start {
            BranchStart::Empty => self.latest_schema_id().await?,
            BranchStart::Tag(tag) => {
                let tags = TagManager::new(self);
                let t = tags.get_or_err(tag).await?;
                let snapshot = &t.snapshot;
                let to_tags = to
                    .tag_dir()
                    .join(format!("{}{tag}", crate::table::tags::TAG_PREFIX));
                io.put(&to_tags, io.get(&tags.tag_path(tag)).await?).await?;
                self.copy_snapshot_to(&to, snapshot).await?;
                snapshot.schema_id
            }
            BranchStart::Snapshot(id) => {
                let snapshot = self.snapshot_manager().snapshot(*id).await?;
                self.copy_snapshot_to(&to, &snapshot).await?;
                snapshot.schema_id
            }
        };
        // Java's copySchemasToBranch: schema-0 ..= schema-<id>, those that exist.
        for id in 0..=schema_id {
            let from = self.paths().schema_file(id);
            if let Some(bytes) = io.get_opt(&from).await? {
                io.put(&to.schema_file(id), bytes).await?;
            }
        }
        Ok(())
    }

    async fn latest_schema_id(&self) -> Result<i64> {
        match self.schema_manager().latest().await? {
            Some(s) => Ok(s.id),
            None => Err(ErrorDetail::TableNotFound(self.identifier().to_string()).into()),
        }
    }

    /// `snapshot`'s file copied into `to`'s snapshot directory, or written from the snapshot
    /// when the file is gone (Java writes `Tag.trimToSnapshot().toJson()` then).
    async fn copy_snapshot_to(
        &self,
        to: &TablePaths,
        snapshot: &strata_spec::snapshot::Snapshot,
    ) -> Result<()> {
        let io = self.file_io();
        let target = to.snapshot_file(snapshot.id);
        match io.get_opt(&self.paths().snapshot_file(snapshot.id)).await? {
            Some(bytes) => io.put(&target, bytes).await,
            None => io.put(&target, snapshot.to_json()?.into_bytes()).await,
        }
    }

    /// Deletes branch `name` (Java's `deleteBranch`): refused while it is this table's
    /// `scan.fallback-branch` or `scan.primary-branch`, and for a branch that does not exist.
    pub async fn delete_branch(&self, name: &str) -> Result<()> {
        for key in ["scan.fallback-branch", "scan.primary-branch"] {
            if self.options().get(key).is_some_and(|b| b == name) {
                return Err(invalid(format!(
                    "Cannot delete branch '{name}' because it is configured as '{key}'. \
                     Unset '{key}' first."
                )));
            }
        }
        if name == MAIN_BRANCH {
            return Err(invalid(format!("Branch name '{name}' doesn't exist.")));
        }
        if self.snapshot_commit().drop_branch(name).await? {
            return Ok(());
        }
        if !self.branch_exists(name).await? {
            return Err(invalid(format!("Branch name '{name}' doesn't exist.")));
        }
        self.file_io()
            .delete_prefix(&self.branch_paths(name).branch_root())
            .await
    }

    /// Fast-forwards this handle's branch to branch `name` (Java's `fastForward`): this
    /// branch's snapshots from `name`'s earliest snapshot on, its schemas from that snapshot's
    /// schema on and its tags of those snapshots are deleted, its `LATEST` hint too, then
    /// `name`'s snapshot, schema and tag files are copied in. Handles loaded before see the
    /// old schemas; load the table again.
    pub async fn fast_forward(&self, name: &str) -> Result<()> {
        if name == MAIN_BRANCH {
            return Err(invalid(format!(
                "Branch name '{name}' do not use in fast-forward."
            )));
        }
        if name.trim().is_empty() {
            return Err(invalid(format!("Branch name '{name}' is blank.")));
        }
        if name == self.branch() {
            return Err(invalid(format!(
                "Fast-forward from the current branch '{name}' is not allowed."
            )));
        }
        if self.snapshot_commit().fast_forward(name).await? {
            return Ok(());
        }
        if !self.branch_exists(name).await? {
            return Err(invalid(format!("Branch name '{name}' doesn't exist.")));
        }
        let io = self.file_io();
        let from = self.branch_paths(name);
        let from_snapshots = SnapshotManager::new(io.clone(), from.clone());
        let Some(earliest) = from_snapshots.earliest_id().await? else {
            return Err(ErrorDetail::InvalidArgument(format!(
                "Cannot fast forward branch {name}, because it does not have snapshot."
            ))
            .into());
        };
        let earliest_schema = from_snapshots.snapshot(earliest).await?.schema_id;

        let mut delete: Vec<Path> = Vec::new();
        for id in self.snapshot_manager().list_ids().await? {
            if id >= earliest {
                delete.push(self.paths().snapshot_file(id));
            }
        }
        for id in self.schema_manager().list_ids().await? {
            if id >= earliest_schema {
                delete.push(self.paths().schema_file(id));
            }
        }
        let tags = TagManager::new(self);
        for tag in tags.all().await? {
            if tag.snapshot.id >= earliest {
                delete.push(tags.tag_path(&tag.name));
            }
        }
        io.delete(&self.paths().latest_hint()).await?;
        for p in &delete {
            io.delete(p).await?;
        }
        copy_files(io, &from.snapshot_dir(), &self.paths().snapshot_dir()).await?;
        copy_files(io, &from.schema_dir(), &self.paths().schema_dir()).await?;
        copy_files(io, &from.tag_dir(), &self.paths().tag_dir()).await?;
        Ok(())
    }
}

impl Table {
    /// Renames branch `from` to `to` (Java's `FileSystemBranchManager.renameBranch`): `from`
    /// must exist and not be `main`, `to` must not exist and is checked as a new branch name.
    /// Java renames the directory; object stores have no rename, so every file of the branch
    /// is copied under the new name first and the old directory removed after (an interrupted
    /// rename leaves both, the new one complete). A table whose catalog manages branches has
    /// the catalog rename it.
    pub async fn rename_branch(&self, from: &str, to: &str) -> Result<()> {
        if from == MAIN_BRANCH {
            return Err(invalid("Cannot rename the main branch.".to_string()));
        }
        validate_branch_name(to)?;
        if self.snapshot_commit().rename_branch(from, to).await? {
            return Ok(());
        }
        if !self.branch_exists(from).await? {
            return Err(invalid(format!("Branch name '{from}' doesn't exist.")));
        }
        if self.branch_exists(to).await? {
            return Err(invalid(format!("Branch name '{to}' already exists.")));
        }
        let io = self.file_io();
        let old_root = self.branch_paths(from).branch_root();
        let new_root = self.branch_paths(to).branch_root();
        for f in io.list(&old_root).await? {
            let Some(rest) = f.location.prefix_match(&old_root) else {
                continue;
            };
            let mut target = new_root.clone();
            for part in rest {
                target = target.join(part.as_ref());
            }
            io.put(&target, io.get(&f.location).await?).await?;
        }
        io.delete_prefix(&old_root).await
    }
}

/// Every file directly in `from` copied into `to` under the same name, overwriting (Java's
/// `FileIO.copyFiles(.., overwrite = true)`); a missing `from` copies nothing.
async fn copy_files(io: &crate::io::FileIO, from: &Path, to: &Path) -> Result<()> {
    let (_, files) = io.list_dir(from).await?;
    for f in files {
        let Some(name) = f.location.filename() else {
            continue;
        };
        let bytes = io.get(&f.location).await?;
        io.put(&to.clone().join(name), bytes).await?;
    }
    Ok(())
}
