//! Expiry of the long-lived changelogs in `changelog/` (Java `ExpireChangelogImpl` +
//! `ChangelogDeletion`), for tables whose changelog lifecycle is decoupled from their
//! snapshots' (see [`super::expire`]): after every commit, after snapshot expiry, and on
//! demand (`strata expire-changelogs`, Java's `expire_changelogs` procedure).
//!
//! Range. With latest snapshot `L`, earliest changelog `E` and latest changelog `C`: the
//! changelogs below `L − changelog.num-retained.max + 1` always go; the last
//! `changelog.num-retained.min` snapshot ids stay; at most `snapshot.expire.limit` go per run;
//! a consumer's `nextSnapshot` is never expired; the latest changelog `C` always stays (it is
//! the end of the range); and walking up from the max-retained bound, changelog `id` may only
//! expire when it is older than `changelog.time-retained` (Java checks the changelog itself,
//! not its successor as snapshot expiry does). The run expires `[E, end)`.
//!
//! What is deleted, per changelog of the range (Java `ChangelogDeletion`), in this order so
//! that a rerun finds what is left:
//! 1. with a changelog manifest list: the files its ADD entries name; without one
//!    (`changelog-producer = none`): the data files its delta removes for good (as snapshot
//!    expiry's step 1), unless the nearest tag before it still has them;
//! 2. its changelog manifest list, or its delta and base manifest lists, with their manifests,
//!    unless the earliest snapshot, changelog `end` or a tag overlapping the range uses them
//!    (index manifests and statistics went with the snapshot);
//! 3. the `changelog-N` files, then the changelog `EARLIEST` hint (`end`).

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use strata_spec::manifest::FileKind;
use strata_spec::snapshot::{format_hint, Snapshot};

use crate::table::Table;
use crate::Result;

use super::files::{
    data_file_key, deleted_in_delta, invalid, DataFileKey, Deletion, DeletionCounts, FileCategory,
    TableFiles,
};
use super::retention::{min_consumer_next_snapshot, previous_tag, skipping_tags};
use crate::table::tags::TagManager;

/// Retention settings of one changelog expiry (the changelog half of Java `ExpireConfig`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangelogExpireConfig {
    /// `changelog.num-retained.max` (default `snapshot.num-retained.max`).
    pub retain_max: i32,
    /// `changelog.num-retained.min` (default `snapshot.num-retained.min`).
    pub retain_min: i32,
    /// `changelog.time-retained` (default `snapshot.time-retained`).
    pub time_retained: Duration,
    /// `snapshot.expire.limit` (Java's `changelogMaxDeletes`).
    pub max_deletes: i32,
}

impl ChangelogExpireConfig {
    /// The table's options.
    pub fn from_table(table: &Table) -> Result<Self> {
        let o = table.options();
        Ok(ChangelogExpireConfig {
            retain_max: o.changelog_num_retained_max()?,
            retain_min: o.changelog_num_retained_min()?,
            time_retained: o.changelog_time_retained()?,
            max_deletes: o.snapshot_expire_limit()?,
        })
    }

    fn validate(&self) -> Result<()> {
        super::retention::validate_retention(
            "changelog",
            self.retain_min,
            self.retain_max,
            self.max_deletes,
        )
    }
}

/// What one changelog expiry will delete, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangelogExpirePlan {
    /// Changelog ids that expire, ascending.
    pub expired: Vec<i64>,
    /// Every file to delete, in order (the `changelog-N` files last).
    pub deletions: Vec<Deletion>,
    /// The changelog `EARLIEST` hint written at the end, if any.
    pub earliest_hint: Option<i64>,
    /// Delete both changelog hints at the end (`expire_all`).
    pub delete_hints: bool,
}

/// What one changelog expiry did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangelogExpireReport {
    /// Changelog ids expired, ascending.
    pub expired: Vec<i64>,
    /// Files deleted, per kind.
    pub deleted: DeletionCounts,
    /// The earliest long-lived changelog after the run.
    pub earliest: Option<i64>,
}

/// Expires the long-lived changelogs of one table.
#[derive(Clone, Debug)]
pub struct ExpireChangelogs {
    table: Table,
    config: ChangelogExpireConfig,
    now_millis: Option<i64>,
}

impl ExpireChangelogs {
    /// With the table's retention options.
    pub fn new(table: &Table) -> Result<Self> {
        Ok(ExpireChangelogs {
            config: ChangelogExpireConfig::from_table(table)?,
            table: table.clone(),
            now_millis: None,
        })
    }

    /// With explicit retention settings.
    pub fn with_config(mut self, config: ChangelogExpireConfig) -> Self {
        self.config = config;
        self
    }

    /// The retention settings this run applies (the table's options unless [`Self::with_config`]).
    pub fn config(&self) -> &ChangelogExpireConfig {
        &self.config
    }

    /// The clock of the time-retained rule (default: now), in epoch milliseconds.
    pub fn with_now_millis(mut self, now: i64) -> Self {
        self.now_millis = Some(now);
        self
    }

    /// Plans and runs one expiry.
    pub async fn expire(&self) -> Result<ChangelogExpireReport> {
        let plan = self.plan().await?;
        self.execute(&plan).await
    }

    /// Decides the range (Java `ExpireChangelogImpl.expire`) and plans it, deleting nothing.
    pub async fn plan(&self) -> Result<ChangelogExpirePlan> {
        self.config.validate()?;
        let sm = self.table.snapshot_manager();
        let cm = self.table.changelog_manager();
        let (Some(latest), Some(_)) = (sm.latest_id().await?, sm.earliest_id().await?) else {
            return Ok(ChangelogExpirePlan::default());
        };
        let (Some(latest_changelog), Some(earliest_changelog)) =
            (cm.latest_id().await?, cm.earliest_id().await?)
        else {
            return Ok(ChangelogExpirePlan::default());
        };
        let c = &self.config;
        let now = self
            .now_millis
            .unwrap_or_else(|| self.table.clock().now_millis());
        let older_than = now.saturating_sub(c.time_retained.as_millis() as i64);

        let min = (latest - c.retain_max as i64 + 1).max(earliest_changelog);
        let mut max_exclusive = latest - c.retain_min as i64 + 1;
        if let Some(next) = min_consumer_next_snapshot(&self.table).await? {
            max_exclusive = max_exclusive.min(next);
        }
        max_exclusive = max_exclusive
            .min(earliest_changelog.saturating_add(c.max_deletes as i64))
            .min(latest_changelog);
        if max_exclusive <= earliest_changelog {
            return Ok(ChangelogExpirePlan::default());
        }
        for id in min..=max_exclusive {
            if let Some(changelog) = cm.get(id).await? {
                if older_than <= changelog.time_millis {
                    return self.plan_until(earliest_changelog, id).await;
                }
            }
        }
        self.plan_until(earliest_changelog, max_exclusive).await
    }

    /// Plans the expiry of the changelogs `[earliest, end_exclusive)` (Java `expireUntil`):
    /// the changelog `end_exclusive` and the earliest snapshot keep their files.
    pub async fn plan_until(
        &self,
        earliest: i64,
        end_exclusive: i64,
    ) -> Result<ChangelogExpirePlan> {
        let cm = self.table.changelog_manager();
        let Some(end) = cm.get(end_exclusive).await? else {
            // Java logs and skips: the end of the range must be a changelog.
            return Ok(ChangelogExpirePlan::default());
        };
        let tagged = TagManager::new(&self.table).tagged_snapshots().await?;
        let mut skipping: Vec<Snapshot> = skipping_tags(&tagged, earliest, end_exclusive)
            .into_iter()
            .cloned()
            .collect();
        skipping.push(end);
        if let Some(s) = self.earliest_snapshot().await? {
            skipping.push(s);
        }
        let mut plan = self
            .plan_range(earliest..end_exclusive, &tagged, &skipping)
            .await?;
        plan.earliest_hint = Some(end_exclusive);
        Ok(plan)
    }

    /// Plans the expiry of every long-lived changelog (Java `expireAll`, the
    /// `expire_changelogs` procedure's `delete_all`): the files only they use, then the
    /// `changelog-N` files and both hints.
    pub async fn plan_all(&self) -> Result<ChangelogExpirePlan> {
        let cm = self.table.changelog_manager();
        let (Some(latest_changelog), Some(earliest_changelog)) =
            (cm.latest_id().await?, cm.earliest_id().await?)
        else {
            return Ok(ChangelogExpirePlan::default());
        };
        let Some(earliest) = self.earliest_snapshot().await? else {
            return Ok(ChangelogExpirePlan::default());
        };
        if latest_changelog >= earliest.id {
            return Err(invalid(format!(
                "table {}: the latest changelog {latest_changelog} ({}) is not older than the \
                 earliest snapshot {}; the table's changelog/ and snapshot/ directories \
                 disagree",
                self.table.identifier(),
                self.table.file_io().display(&cm.file(latest_changelog)),
                earliest.id
            )));
        }
        let tagged = TagManager::new(&self.table).tagged_snapshots().await?;
        let mut skipping: Vec<Snapshot> = skipping_tags(&tagged, earliest_changelog, earliest.id)
            .into_iter()
            .cloned()
            .collect();
        skipping.push(earliest);
        let mut plan = self
            .plan_range(earliest_changelog..latest_changelog + 1, &tagged, &skipping)
            .await?;
        plan.delete_hints = true;
        Ok(plan)
    }

    async fn earliest_snapshot(&self) -> Result<Option<Snapshot>> {
        let sm = self.table.snapshot_manager();
        match sm.earliest_id().await? {
            Some(id) => match sm.snapshot(id).await {
                Ok(s) => Ok(Some(s)),
                Err(e) if e.is_snapshot_not_found() => Ok(None),
                Err(e) => Err(e),
            },
            None => Ok(None),
        }
    }

    /// The deletions of the changelogs `ids`, keeping the files `skipping` uses (Java
    /// `ChangelogDeletion.manifestSkippingSet`: base and delta lists, index, statistics).
    async fn plan_range(
        &self,
        ids: std::ops::Range<i64>,
        tagged: &[Snapshot],
        skipping: &[Snapshot],
    ) -> Result<ChangelogExpirePlan> {
        let files = TableFiles::new(&self.table)?;
        let cm = self.table.changelog_manager();
        let mut keep: HashSet<String> = HashSet::new();
        for s in skipping {
            keep.extend(skipping_names(&files, s).await?);
        }
        let mut plan = ChangelogExpirePlan::default();
        let mut planned: HashSet<object_store::path::Path> = HashSet::new();
        let (mut data, mut leaves, mut lists, mut metas) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut tag_files: HashMap<i64, HashSet<DataFileKey>> = HashMap::new();
        for id in ids {
            let Some(changelog) = cm.get(id).await? else {
                continue;
            };
            // 1. Data: the changelog files, or the delta's removed files.
            if let Some(list) = &changelog.changelog_manifest_list {
                for e in files
                    .read_list_entries_opt(list)
                    .await?
                    .unwrap_or_default()
                    .iter()
                    .filter(|e| e.kind == FileKind::Add)
                {
                    for path in files.data_paths(e)? {
                        if planned.insert(path.clone()) {
                            data.push(Deletion {
                                category: FileCategory::Changelog,
                                path,
                            });
                        }
                    }
                }
            } else if let Some(entries) = files
                .read_list_entries_opt(&changelog.delta_manifest_list)
                .await?
            {
                let tag = previous_tag(tagged, id);
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
                    for path in files.data_paths(e)? {
                        if planned.insert(path.clone()) {
                            data.push(Deletion {
                                category: FileCategory::Data,
                                path,
                            });
                        }
                    }
                }
            }
            // 2. Manifests (Java `ChangelogDeletion.cleanUnusedManifests`).
            let changelog_only = changelog.changelog_manifest_list.is_some();
            files
                .plan_metadata_deletion_of(
                    &Snapshot {
                        index_manifest: None,
                        statistics: None,
                        ..changelog.clone()
                    },
                    !changelog_only,
                    changelog_only,
                    &mut keep,
                    &mut leaves,
                    &mut lists,
                )
                .await?;
            // 3. The changelog file.
            plan.expired.push(id);
            metas.push(Deletion {
                category: FileCategory::LongLivedChangelog,
                path: cm.file(id),
            });
        }
        plan.deletions = data
            .into_iter()
            .chain(leaves)
            .chain(lists)
            .chain(metas)
            .collect();
        Ok(plan)
    }

    /// Runs a plan: deletes its files in order, then writes (or deletes) the hints.
    pub async fn execute(&self, plan: &ChangelogExpirePlan) -> Result<ChangelogExpireReport> {
        let files = TableFiles::new(&self.table)?;
        let mut deleted = DeletionCounts::default();
        for d in &plan.deletions {
            files.delete(d, &mut deleted).await?;
        }
        let io = self.table.file_io();
        if self.table.options().snapshot_clean_empty_directories()? {
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
        let cm = self.table.changelog_manager();
        if let Some(h) = plan.earliest_hint {
            let current = io.get_opt(&cm.earliest_hint()).await.ok().flatten();
            if current.as_deref() != Some(format_hint(h).as_bytes()) {
                cm.commit_earliest_hint(h).await?;
            }
        }
        if plan.delete_hints {
            io.delete(&cm.earliest_hint()).await?;
            io.delete(&cm.latest_hint()).await?;
        }
        Ok(ChangelogExpireReport {
            expired: plan.expired.clone(),
            deleted,
            earliest: cm.earliest_id().await?,
        })
    }
}

/// Java `ChangelogDeletion.manifestSkippingSet` of one snapshot: its base and delta lists and
/// their manifests (when the list exists), its index manifest and index files (when it
/// exists), its statistics file. Changelog manifest lists are not in it.
async fn skipping_names(files: &TableFiles, s: &Snapshot) -> Result<HashSet<String>> {
    let mut out = HashSet::new();
    for list in [&s.base_manifest_list, &s.delta_manifest_list] {
        if let Some(metas) = files.read_list_opt(list).await? {
            out.insert(list.clone());
            out.extend(metas.into_iter().map(|m| m.file_name));
        }
    }
    if let Some(im) = &s.index_manifest {
        if let Some(entries) = files.read_index_manifest_opt(im).await? {
            out.insert(im.clone());
            out.extend(entries.into_iter().map(|e| e.index_file.file_name));
        }
    }
    if let Some(st) = &s.statistics {
        out.insert(st.clone());
    }
    Ok(out)
}
