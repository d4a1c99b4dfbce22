//! Rollback to a snapshot or a tag (Java `FileStoreTable.rollbackTo`, `RollbackHelper`).
//!
//! The snapshots newer than the target and the tags of newer snapshots are deleted, the
//! `LATEST` hint is moved to the target, and — rolling back to a tag whose snapshot already
//! expired — `snapshot-<id>` is restored from the tag (and becomes `EARLIEST`). Java today
//! leaves the newer snapshots' files to orphan cleanup; strata also deletes the files that
//! only the removed snapshots and tags used (Java's earlier `RollbackHelper` did this too),
//! keeping everything the target and the remaining tags use. A data file is kept by name, not
//! level, so a file that a newer compaction merely upgraded stays.
//!
//! Order, so the table is readable at every step: restore the target snapshot file, move
//! `LATEST`, delete snapshot files newest first (each step leaves an older valid latest), move
//! `EARLIEST`, delete the newer tags; only then the data files, manifests and manifest lists.
//! A run stopped during the file deletions leaves unreferenced files only, which
//! `remove-orphan-files` deletes. Long-lived changelogs (`changelog/changelog-N`) above the
//! target are deleted as Java's `RollbackHelper` does (the `changelog/LATEST` hint moved below
//! them, `-1` when none is left), their files left to orphan cleanup.

use std::collections::HashSet;

use strata_spec::manifest::FileKind;
use strata_spec::snapshot::{format_hint, Snapshot};

use crate::table::{RollbackInstant, Table};
use crate::Result;

use super::files::{
    data_file_key, invalid, DataFileKey, Deletion, DeletionCounts, FileCategory, TableFiles,
};
use super::tag_ops::find_snapshot;
use crate::table::tags::TagManager;

/// What a rollback removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RollbackReport {
    /// The snapshot the table is at now.
    pub snapshot_id: i64,
    /// Snapshot ids deleted, newest first.
    pub removed_snapshots: Vec<i64>,
    /// Tags deleted.
    pub removed_tags: Vec<String>,
    /// Whether `snapshot-<id>` was restored from the tag.
    pub restored_from_tag: bool,
    /// Files deleted, per kind.
    pub deleted: DeletionCounts,
}

/// Rolls back to snapshot `id`; a snapshot that expired but is still tagged is restored from
/// its tag (Java does the same).
pub async fn rollback_to_snapshot(table: &Table, id: i64) -> Result<RollbackReport> {
    if let Some(report) = by_catalog(table, RollbackInstant::Snapshot(id), id).await? {
        return Ok(report);
    }
    let tags = TagManager::new(table);
    let target = find_snapshot(table, &tags, id).await?;
    rollback_to(table, target).await
}

/// Rolls back to the snapshot of tag `name`.
pub async fn rollback_to_tag(table: &Table, name: &str) -> Result<RollbackReport> {
    let tag = TagManager::new(table).get_or_err(name).await?;
    let instant = RollbackInstant::Tag(name.to_string());
    if let Some(report) = by_catalog(table, instant, tag.snapshot.id).await? {
        return Ok(report);
    }
    rollback_to(table, tag.snapshot).await
}

/// A rollback the table's catalog does on its side (Java: `Catalog.rollbackTo` when the catalog
/// `supportsVersionManagement`, Paimon's REST catalog), told the latest snapshot this handle
/// sees; `None` when the catalog leaves it to the table's files. The catalog deletes what it
/// deletes; the report names the target only.
async fn by_catalog(
    table: &Table,
    instant: RollbackInstant,
    target: i64,
) -> Result<Option<RollbackReport>> {
    let latest = table.snapshot_manager().latest_id().await?;
    if !table
        .snapshot_commit()
        .rollback_to(&instant, latest)
        .await?
    {
        return Ok(None);
    }
    Ok(Some(RollbackReport {
        snapshot_id: target,
        ..RollbackReport::default()
    }))
}

async fn rollback_to(table: &Table, target: Snapshot) -> Result<RollbackReport> {
    let sm = table.snapshot_manager();
    let io = table.file_io();
    let paths = table.paths();
    let latest = sm.latest_id().await?.ok_or_else(|| {
        invalid(format!(
            "cannot roll back {}: the table has no snapshot",
            table.identifier()
        ))
    })?;
    let earliest = sm.earliest_id().await?.unwrap_or(latest);
    let files = TableFiles::new(table)?;
    let tag_manager = TagManager::new(table);
    let all_tags = tag_manager.all().await?;

    // What goes: snapshots above the target, tags of snapshots above it.
    let mut removed = Vec::new();
    for id in earliest.max(target.id + 1)..=latest {
        match sm.snapshot(id).await {
            Ok(s) => removed.push(s),
            Err(e) if e.is_snapshot_not_found() => {}
            Err(e) => return Err(e),
        }
    }
    let (removed_tags, kept_tags): (Vec<_>, Vec<_>) = all_tags
        .into_iter()
        .partition(|t| t.snapshot.id > target.id);

    // What stays in use: the target and the remaining tags.
    let mut kept: Vec<&Snapshot> = vec![&target];
    kept.extend(kept_tags.iter().map(|t| &t.snapshot));
    let mut keep_files: HashSet<DataFileKey> = HashSet::new();
    let mut keep_names: HashSet<String> = HashSet::new();
    for k in &kept {
        keep_files.extend(files.live_data_files(k).await?);
        keep_names.extend(files.metadata_names(k).await?);
    }

    // Candidates: files added by the removed snapshots (all live files of one whose
    // predecessor is gone, so files added by expired snapshots in between are found too),
    // and the live files of removed tags whose snapshots expired.
    let mut data: Vec<Deletion> = Vec::new();
    let mut planned = HashSet::new();
    let mut add_entry = |e: &strata_spec::manifest::ManifestEntry,
                         category: FileCategory,
                         data: &mut Vec<Deletion>|
     -> Result<()> {
        if category == FileCategory::Data && keep_files.contains(&data_file_key(e)) {
            return Ok(());
        }
        for path in files.data_paths(e)? {
            if planned.insert(path.clone()) {
                data.push(Deletion { category, path });
            }
        }
        Ok(())
    };
    let removed_ids: HashSet<i64> = removed.iter().map(|s| s.id).collect();
    let mut full_sets: Vec<&Snapshot> = Vec::new();
    for s in &removed {
        let predecessor_known = s.id - 1 == target.id || removed_ids.contains(&(s.id - 1));
        if predecessor_known {
            let entries = files
                .read_list_entries_opt(&s.delta_manifest_list)
                .await?
                .unwrap_or_default();
            for e in entries.iter().filter(|e| e.kind == FileKind::Add) {
                add_entry(e, FileCategory::Data, &mut data)?;
            }
        } else {
            full_sets.push(s);
        }
        if let Some(list) = &s.changelog_manifest_list {
            let entries = files.read_list_entries_opt(list).await?.unwrap_or_default();
            for e in entries.iter().filter(|e| e.kind == FileKind::Add) {
                add_entry(e, FileCategory::Changelog, &mut data)?;
            }
        }
    }
    for t in &removed_tags {
        if !removed_ids.contains(&t.snapshot.id) {
            full_sets.push(&t.snapshot);
        }
    }
    for s in full_sets {
        let metas = table.manifest_store().data_manifests(s).await?;
        for e in crate::scan::live_entries(table, s, &metas).await? {
            add_entry(&e, FileCategory::Data, &mut data)?;
        }
    }
    let (mut leaves, mut lists) = (Vec::new(), Vec::new());
    let mut owners: Vec<&Snapshot> = removed.iter().collect();
    owners.extend(removed_tags.iter().map(|t| &t.snapshot));
    for s in owners {
        files
            .plan_metadata_deletion(s, true, &mut keep_names, &mut leaves, &mut lists)
            .await?;
    }

    // Metadata first, newest snapshot first: every intermediate state is a valid table.
    let mut report = RollbackReport {
        snapshot_id: target.id,
        ..Default::default()
    };
    let target_path = paths.snapshot_file(target.id);
    if !io.exists(&target_path).await? {
        io.put_if_absent(&target_path, target.to_json()?.into_bytes())
            .await?;
        report.restored_from_tag = true;
    }
    io.put(&paths.latest_hint(), format_hint(target.id).into_bytes())
        .await?;
    for s in removed.iter().rev() {
        files
            .delete(
                &Deletion {
                    category: FileCategory::Snapshot,
                    path: paths.snapshot_file(s.id),
                },
                &mut report.deleted,
            )
            .await?;
        report.removed_snapshots.push(s.id);
    }
    if report.restored_from_tag || earliest > target.id {
        io.put(&paths.earliest_hint(), format_hint(target.id).into_bytes())
            .await?;
    }
    // Java `RollbackHelper.cleanLongLivedChangelogs`: the long-lived changelogs above the
    // target go (their files are left to orphan cleanup, as in Java), `LATEST` moves below.
    let cm = table.changelog_manager();
    if let (Some(first), Some(last)) = (cm.earliest_id().await?, cm.latest_id().await?) {
        let to = first.max(target.id + 1);
        if to <= last {
            cm.commit_latest_hint(if to == first { -1 } else { to - 1 })
                .await?;
            for id in (to..=last).rev() {
                files
                    .delete(
                        &Deletion {
                            category: FileCategory::LongLivedChangelog,
                            path: cm.file(id),
                        },
                        &mut report.deleted,
                    )
                    .await?;
            }
        }
    }
    for t in &removed_tags {
        files
            .delete(
                &Deletion {
                    category: FileCategory::Tag,
                    path: tag_manager.tag_path(&t.name),
                },
                &mut report.deleted,
            )
            .await?;
        report.removed_tags.push(t.name.clone());
    }
    for d in data.iter().chain(&leaves).chain(&lists) {
        files.delete(d, &mut report.deleted).await?;
    }
    Ok(report)
}
