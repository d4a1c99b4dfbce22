//! Snapshot expiry, as Java's `ExpireSnapshotsImpl` + `SnapshotDeletion` do it
//!: after every commit (unless `write-only`) and on demand.
//!
//! Range. With latest `L` and earliest `E`: snapshots below `L − num-retained.max + 1` always
//! go; at least `num-retained.min` stay; at most `snapshot.expire.limit` go per run; a
//! consumer's `nextSnapshot` is never expired; and walking up from there, a snapshot may only
//! expire once its *successor* is older than `snapshot.time-retained`. The run expires
//! `[E, end)`; snapshot `end` is the first one kept.
//!
//! What is deleted, in this order (so that a run stopped at any point leaves every retained
//! snapshot and tag readable, and a rerun finds what is left and finishes the job):
//! 1. data files removed for good in the delta of a snapshot in `(E, end]` — a DELETE entry
//!    not re-ADDed in the same delta (a compaction *upgrade* re-adds the same file at a new
//!    level and is never deleted), unless the nearest tag before that snapshot still has it;
//! 2. changelog files of the expired snapshots;
//! 3. manifests, index files and statistics of the expired snapshots that neither snapshot
//!    `end` nor an overlapping tag uses; then the manifest lists and index manifests naming
//!    them (after their contents, so a rerun can still read them);
//! 4. the `snapshot-N` files, in id order; then the `EARLIEST` hint.
//!
//! The deletion is planned first ([`ExpirePlan`], every path in order) and then executed;
//! tests use the plan to stop a run after any number of deletions.
//!
//! Decoupled changelog lifecycle (Java `changelogLifecycleDecoupled`: `changelog.num-retained.*`
//! or `changelog.time-retained` above the `snapshot.*` values): each expired snapshot's JSON is
//! written to `changelog/changelog-N` (and the changelog `LATEST` hint) just before its
//! `snapshot-N` is deleted, and what that changelog reads stays: step 2 is skipped and the
//! changelog manifest lists too; with `changelog-producer = none` the delta's APPEND data
//! files (step 1) and the base and delta manifest lists (step 3) stay as well (Java
//! `SnapshotDeletion`). [`super::expire_changelog`] expires them later.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use strata_spec::manifest::{FileKind, FileSource};
use strata_spec::options::ChangelogProducer;
use strata_spec::snapshot::{format_hint, Snapshot};

use crate::table::Table;
use crate::Result;

use super::files::{
    data_file_key, deleted_in_delta, DataFileKey, Deletion, DeletionCounts, FileCategory,
    TableFiles,
};
use super::retention::{
    min_consumer_next_snapshot, previous_tag, skipping_tags, validate_retention,
};
use crate::table::tags::TagManager;

/// Retention settings of one expiry run (Java `ExpireConfig`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpireConfig {
    /// `snapshot.num-retained.max`.
    pub retain_max: i32,
    /// `snapshot.num-retained.min`.
    pub retain_min: i32,
    /// `snapshot.time-retained`.
    pub time_retained: Duration,
    /// `snapshot.expire.limit`.
    pub max_deletes: i32,
}

impl ExpireConfig {
    /// The table's options.
    pub fn from_table(table: &Table) -> Result<Self> {
        let o = table.options();
        Ok(ExpireConfig {
            retain_max: o.snapshot_num_retained_max()?,
            retain_min: o.snapshot_num_retained_min()?,
            time_retained: o.snapshot_time_retained()?,
            max_deletes: o.snapshot_expire_limit()?,
        })
    }

    fn validate(&self) -> Result<()> {
        validate_retention(
            "snapshot",
            self.retain_min,
            self.retain_max,
            self.max_deletes,
        )
    }
}

/// What one expiry run will delete, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExpirePlan {
    /// Snapshot ids that expire, ascending.
    pub expired: Vec<i64>,
    /// Every file to delete, in the crash-safe order of the module doc.
    pub deletions: Vec<Deletion>,
    /// The `EARLIEST` hint written at the end, if any.
    pub earliest_hint: Option<i64>,
    /// Decoupled changelog lifecycle: the snapshots whose `changelog/changelog-N` is written
    /// just before their `snapshot-N` is deleted.
    pub long_lived_changelogs: Vec<i64>,
}

/// What one expiry run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExpireReport {
    /// Snapshot ids expired, ascending.
    pub expired: Vec<i64>,
    /// Files deleted, per kind.
    pub deleted: DeletionCounts,
    /// The earliest snapshot after the run.
    pub earliest: Option<i64>,
}

/// Expires the snapshots of one table.
#[derive(Clone, Debug)]
pub struct ExpireSnapshots {
    table: Table,
    config: ExpireConfig,
    now_millis: Option<i64>,
    decoupled: Option<bool>,
}

impl ExpireSnapshots {
    /// With the table's retention options.
    pub fn new(table: &Table) -> Result<Self> {
        Ok(ExpireSnapshots {
            config: ExpireConfig::from_table(table)?,
            table: table.clone(),
            now_millis: None,
            decoupled: None,
        })
    }

    /// Whether expired snapshots become long-lived changelogs (default: the table's options,
    /// [`changelog_decoupled`]). `false` is what Java's `expire_snapshots` procedure does,
    /// whose config leaves the changelog options at the snapshot values.
    pub fn with_changelog_decoupled(mut self, decoupled: bool) -> Self {
        self.decoupled = Some(decoupled);
        self
    }

    fn decoupled(&self) -> Result<bool> {
        match self.decoupled {
            Some(d) => Ok(d),
            None => changelog_decoupled(&self.table),
        }
    }

    /// With explicit retention settings.
    pub fn with_config(mut self, config: ExpireConfig) -> Self {
        self.config = config;
        self
    }

    /// The retention settings this run applies (the table's options unless [`Self::with_config`]).
    pub fn config(&self) -> &ExpireConfig {
        &self.config
    }

    /// The time of the time-retained rule, in epoch milliseconds (default: the table's
    /// [`crate::clock::Clock`]).
    pub fn with_now_millis(mut self, now: i64) -> Self {
        self.now_millis = Some(now);
        self
    }

    /// Plans and runs one expiry.
    pub async fn expire(&self) -> Result<ExpireReport> {
        let plan = self.plan().await?;
        self.execute(&plan).await
    }

    /// Runs a plan: deletes its files in order, then writes the `EARLIEST` hint.
    pub async fn execute(&self, plan: &ExpirePlan) -> Result<ExpireReport> {
        let files = TableFiles::new(&self.table)?;
        let mut deleted = DeletionCounts::default();
        let changelogs = self.table.changelog_manager();
        let sm = self.table.snapshot_manager();
        for d in &plan.deletions {
            if d.category == FileCategory::Snapshot {
                if let Some(id) = plan
                    .long_lived_changelogs
                    .iter()
                    .find(|id| self.table.paths().snapshot_file(**id) == d.path)
                {
                    // Java `commitChangelog(new Changelog(snapshot))` before `deleteSnapshot`.
                    // A snapshot already gone (a rerun) had its changelog written first.
                    match sm.snapshot(*id).await {
                        Ok(s) => changelogs.commit(&s).await?,
                        Err(e) if e.is_snapshot_not_found() => {}
                        Err(e) => return Err(e),
                    }
                }
            }
            files.delete(d, &mut deleted).await?;
        }
        if self.table.options().snapshot_clean_empty_directories()? {
            let io = self.table.file_io();
            let dirs: HashSet<std::path::PathBuf> = plan
                .deletions
                .iter()
                .filter(|d| matches!(d.category, FileCategory::Data | FileCategory::Changelog))
                .filter_map(|d| {
                    std::path::Path::new(&io.display(&d.path))
                        .parent()
                        .map(|p| p.to_path_buf())
                })
                .collect();
            super::files::remove_empty_data_dirs(io, self.table.paths().root(), dirs).await;
        }
        if let Some(h) = plan.earliest_hint {
            self.table
                .file_io()
                .put(
                    &self.table.paths().earliest_hint(),
                    format_hint(h).into_bytes(),
                )
                .await?;
        }
        Ok(ExpireReport {
            expired: plan.expired.clone(),
            deleted,
            earliest: self.table.snapshot_manager().earliest_id().await?,
        })
    }

    /// Decides the range and lists every file to delete, deleting nothing.
    pub async fn plan(&self) -> Result<ExpirePlan> {
        self.config.validate()?;
        let sm = self.table.snapshot_manager();
        let (Some(latest), Some(earliest)) = (sm.latest_id().await?, sm.earliest_id().await?)
        else {
            return Ok(ExpirePlan::default());
        };
        let c = &self.config;
        let now = self
            .now_millis
            .unwrap_or_else(|| self.table.clock().now_millis());
        let older_than = now.saturating_sub(c.time_retained.as_millis() as i64);

        let min = (latest - c.retain_max as i64 + 1).max(earliest);
        let mut max_exclusive = latest - c.retain_min as i64 + 1;
        if let Some(next) = min_consumer_next_snapshot(&self.table).await? {
            max_exclusive = max_exclusive.min(next);
        }
        max_exclusive = max_exclusive.min(earliest.saturating_add(c.max_deletes as i64));
        let mut end = max_exclusive;
        // `snapshot.time-retained`: snapshot `id` may expire only once its successor `id + 1`
        // is older than the window, so the snapshot that was the latest at `now - retained`
        // stays and time travel to any instant inside the window still finds its snapshot.
        // This is Java 2.0's `ExpireSnapshotsImpl.expire` (Paimon #7706, "Check next
        // snapshot's time"); Java 1.4's checks snapshot `id` itself and so expires that one
        // snapshot more. strata keeps 2.0's rule: it never expires a snapshot either version
        // keeps (1.4 expires `[E, e14)`, 2.0 `[E, e20)` with `e20 <= e14`, as commit times
        // never decrease), and a run by either Java version after strata's removes only what
        // that version would have removed anyway. `lifecycle_expire::time_retained_boundary_*`
        // pins the boundary.
        for id in min..max_exclusive {
            match sm.snapshot(id + 1).await {
                Ok(next) if older_than <= next.time_millis => {
                    end = id;
                    break;
                }
                Ok(_) => {}
                Err(e) if e.is_snapshot_not_found() => {}
                Err(e) => return Err(e),
            }
        }
        self.plan_until(earliest, end).await
    }

    /// Plans the expiry of `[earliest, end_exclusive)` (Java `expireUntil`).
    pub async fn plan_until(&self, earliest: i64, end_exclusive: i64) -> Result<ExpirePlan> {
        let io = self.table.file_io();
        if end_exclusive <= earliest {
            // Nothing expires; write the hint if it is missing (like Java) or stale (an
            // interrupted run deleted snapshot files but not the hint).
            // An unreadable hint is a missing one (hints are advisory; see SnapshotManager).
            let hint = io
                .get_opt(&self.table.paths().earliest_hint())
                .await
                .ok()
                .flatten();
            let current = hint.and_then(|b| {
                std::str::from_utf8(&b)
                    .ok()
                    .and_then(strata_spec::snapshot::parse_hint)
            });
            return Ok(ExpirePlan {
                earliest_hint: (current != Some(earliest)).then_some(earliest),
                ..Default::default()
            });
        }
        let sm = self.table.snapshot_manager();
        let mut including_end = Vec::new();
        for id in earliest..=end_exclusive {
            match sm.snapshot(id).await {
                Ok(s) => including_end.push(s),
                Err(e) if e.is_snapshot_not_found() => {}
                Err(e) => return Err(e),
            }
        }
        let Some(begin) = including_end.first().map(|s| s.id) else {
            return Ok(ExpirePlan::default());
        };
        let files = TableFiles::new(&self.table)?;
        let tagged = TagManager::new(&self.table).tagged_snapshots().await?;
        let decoupled = self.decoupled()?;
        let produces_changelog =
            self.table.options().changelog_producer()? != ChangelogProducer::None;
        // Java `SnapshotDeletion`: with a decoupled lifecycle and no changelog producer, the
        // changelog is the delta's APPEND files (a file without a source counts as APPEND);
        // `expire_changelog` deletes them.
        let keep_append_files = decoupled && !produces_changelog;

        let mut plan = ExpirePlan::default();
        let mut planned: HashSet<object_store::path::Path> = HashSet::new();
        let mut push = |plan: &mut ExpirePlan, d: Deletion| {
            if planned.insert(d.path.clone()) {
                plan.deletions.push(d);
            }
        };

        // 1. Data files removed for good in the deltas of (begin, end].
        let mut tag_files: HashMap<i64, HashSet<DataFileKey>> = HashMap::new();
        for s in including_end.iter().filter(|s| s.id != begin) {
            let Some(entries) = files.read_list_entries_opt(&s.delta_manifest_list).await? else {
                // An interrupted earlier run already deleted this delta (after its files).
                continue;
            };
            let tag = previous_tag(&tagged, s.id);
            if let Some(t) = tag {
                if let std::collections::hash_map::Entry::Vacant(v) = tag_files.entry(t.id) {
                    v.insert(files.live_data_files(t).await?);
                }
            }
            let protected = tag.and_then(|t| tag_files.get(&t.id));
            for e in deleted_in_delta(&entries) {
                if protected.is_some_and(|p| p.contains(&data_file_key(e))) {
                    continue;
                }
                if keep_append_files && e.file.file_source != Some(FileSource::Compact) {
                    continue;
                }
                for path in files.data_paths(e)? {
                    push(
                        &mut plan,
                        Deletion {
                            category: FileCategory::Data,
                            path,
                        },
                    );
                }
            }
        }

        // 2. Changelog files of the expired snapshots.
        let excluding_end: Vec<&Snapshot> = including_end
            .iter()
            .filter(|s| s.id != end_exclusive)
            .collect();
        for s in excluding_end.iter().filter(|_| !decoupled) {
            let Some(list) = &s.changelog_manifest_list else {
                continue;
            };
            let Some(entries) = files.read_list_entries_opt(list).await? else {
                continue;
            };
            for e in entries.iter().filter(|e| e.kind == FileKind::Add) {
                let path = files.data_paths(e)?.swap_remove(0);
                push(
                    &mut plan,
                    Deletion {
                        category: FileCategory::Changelog,
                        path,
                    },
                );
            }
        }

        // Snapshot `end` is gone (a concurrent expiry): stop after the data, like Java.
        let Some(end_snapshot) = including_end.iter().find(|s| s.id == end_exclusive) else {
            return Ok(plan);
        };

        // 3. Metadata no kept snapshot or overlapping tag uses.
        let mut keep: HashSet<String> = files.metadata_names(end_snapshot).await?;
        for t in skipping_tags(&tagged, begin, end_exclusive) {
            keep.extend(files.metadata_names(t).await?);
        }
        let (mut leaves, mut lists) = (Vec::new(), Vec::new());
        for s in &excluding_end {
            files
                .plan_metadata_deletion_of(
                    s,
                    !decoupled || produces_changelog,
                    !decoupled,
                    &mut keep,
                    &mut leaves,
                    &mut lists,
                )
                .await?;
        }
        for d in leaves.into_iter().chain(lists) {
            push(&mut plan, d);
        }

        // 4. Snapshot files in id order, then the hint.
        for s in &excluding_end {
            plan.expired.push(s.id);
            if decoupled {
                plan.long_lived_changelogs.push(s.id);
            }
            push(
                &mut plan,
                Deletion {
                    category: FileCategory::Snapshot,
                    path: self.table.paths().snapshot_file(s.id),
                },
            );
        }
        plan.earliest_hint = Some(end_exclusive);
        Ok(plan)
    }
}

/// Expiry after a successful commit (Java `TableCommitImpl` maintenance): snapshots, then
/// with a decoupled changelog lifecycle the long-lived changelogs (Java
/// `newExpireRunnable`), then tags whose retention time is over. `None` for `write-only`
/// tables, and for commits of a postpone-bucket primary-key table (`bucket = -2`), whose
/// snapshots and changelogs Java never expires on commit (`PrimaryKeyFileStoreTable`
/// overrides `newExpireRunnable` to return null; its tags still expire, through the tag
/// manager Java keeps for every table that is not `write-only`). Java's postpone compaction
/// commits through the table with a real bucket count (`PostponeUtils.tableForPostponeCompact`)
/// and so expires; strata's does the same ([`Table::compact`]).
pub async fn expire_after_commit(table: &Table) -> Result<Option<ExpireReport>> {
    let opts = table.options();
    if opts.write_only()? {
        return Ok(None);
    }
    let postpone =
        table.is_primary_key_table() && opts.bucket()? == strata_spec::options::POSTPONE_BUCKET;
    let report = if postpone {
        None
    } else {
        let report = ExpireSnapshots::new(table)?.expire().await?;
        if changelog_decoupled(table)? {
            super::expire_changelog::ExpireChangelogs::new(table)?
                .expire()
                .await?;
        }
        Some(report)
    };
    super::tag_ops::expire_tags(table, chrono::Local::now().naive_local()).await?;
    Ok(report)
}

/// Java `CoreOptions.changelogLifecycleDecoupled`: changelogs kept longer than snapshots
/// (`changelog.num-retained.max` / `.min` or `changelog.time-retained` above the
/// `snapshot.*` value; unset, they are the snapshot value).
pub fn changelog_decoupled(table: &Table) -> Result<bool> {
    let o = table.options();
    Ok(
        o.changelog_num_retained_max()? > o.snapshot_num_retained_max()?
            || o.changelog_time_retained()? > o.snapshot_time_retained()?
            || o.changelog_num_retained_min()? > o.snapshot_num_retained_min()?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(id: i64) -> Snapshot {
        Snapshot::from_json(&format!(
            r#"{{"version":3,"id":{id},"schemaId":0,"baseManifestList":"b","deltaManifestList":"d",
            "commitUser":"u","commitIdentifier":1,"commitKind":"APPEND","timeMillis":0,
            "totalRecordCount":0,"deltaRecordCount":0}}"#
        ))
        .unwrap()
    }

    #[test]
    fn tags_overlapping_a_range() {
        let tags: Vec<Snapshot> = [2, 5, 9].into_iter().map(snap).collect();
        let ids = |v: Vec<&Snapshot>| v.iter().map(|s| s.id).collect::<Vec<_>>();
        assert_eq!(ids(skipping_tags(&tags, 3, 8)), [2, 5]);
        assert_eq!(ids(skipping_tags(&tags, 5, 9)), [5]);
        assert_eq!(ids(skipping_tags(&tags, 1, 2)), Vec::<i64>::new());
        assert_eq!(ids(skipping_tags(&tags, 1, 3)), [2]);
        assert_eq!(previous_tag(&tags, 5).map(|s| s.id), Some(2));
        assert_eq!(previous_tag(&tags, 2).map(|s| s.id), None);
    }

    #[test]
    fn config_is_checked() {
        let c = ExpireConfig {
            retain_max: 2,
            retain_min: 3,
            time_retained: Duration::ZERO,
            max_deletes: 10,
        };
        let e = c.validate().unwrap_err().to_string();
        assert!(e.contains("snapshot.num-retained.max"), "{e}");
        let c = ExpireConfig {
            retain_min: 0,
            retain_max: 3,
            ..c
        };
        assert!(c.validate().is_err());
    }
}
