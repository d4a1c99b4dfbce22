//! Creating and deleting tags (Java `AbstractFileStoreTable.createTag`, `TagManager.deleteTag`
//! with `TagDeletion`), and the expiry of tags whose retention time is over (`TagTimeExpire`).
//!
//! Deleting a tag whose snapshot still exists deletes only the tag file: the snapshot still
//! uses everything. Once the snapshot has expired, the tag may be the last user of some files;
//! those are deleted — every data file live in the tag that neither its left neighbour tag nor
//! its nearest right neighbour (the next tag or the earliest snapshot, whichever is older) has
//! live, and every manifest, index file and statistics file neither of them uses. File
//! lifetimes are contiguous, so those two neighbours stand for every other user.

use std::collections::HashSet;
use std::time::Duration;

use chrono::NaiveDateTime;
use strata_spec::snapshot::Snapshot;

use crate::table::Table;
use crate::Result;

use super::files::{data_file_key, invalid, Deletion, DeletionCounts, FileCategory, TableFiles};
use crate::error::ErrorDetail;
use crate::table::tags::{validate_tag_name, Tag, TagManager};

/// `tag.default-time-retained`: the retention of tags created without one.
pub const TAG_DEFAULT_TIME_RETAINED: &str = "tag.default-time-retained";

/// Creates tag `name` of snapshot `snapshot_id` (default: the latest). The snapshot may also
/// be one that only a tag still holds. `time_retained` (default
/// `tag.default-time-retained`, else none) makes the tag expire that long after creation.
pub async fn create_tag(
    table: &Table,
    name: &str,
    snapshot_id: Option<i64>,
    time_retained: Option<Duration>,
) -> Result<Tag> {
    validate_tag_name(name)?;
    let tags = TagManager::new(table);
    if table.file_io().exists(&tags.tag_path(name)).await? {
        return Err(ErrorDetail::TagAlreadyExists {
            table: table.identifier().to_string(),
            name: name.to_string(),
        }
        .into());
    }
    let snapshot = match snapshot_id {
        Some(id) => find_snapshot(table, &tags, id).await?,
        None => table.snapshot_manager().latest().await?.ok_or_else(|| {
            invalid(format!(
                "cannot create tag '{name}': table {} has no snapshot",
                table.identifier()
            ))
        })?,
    };
    let time_retained = match time_retained {
        Some(d) => Some(d),
        None => table.options().get_duration(TAG_DEFAULT_TIME_RETAINED)?,
    };
    let tag = Tag {
        name: name.to_string(),
        snapshot,
        // Java writes the creation time only with a retention (old readers reject it).
        create_time: time_retained.map(|_| chrono::Local::now().naive_local()),
        time_retained,
    };
    tags.write(&tag).await?;
    Ok(tag)
}

/// Snapshot `id` from its file, else from a tag of it (Java `findSnapshot`).
pub(crate) async fn find_snapshot(table: &Table, tags: &TagManager, id: i64) -> Result<Snapshot> {
    match table.snapshot_manager().snapshot(id).await {
        Ok(s) => Ok(s),
        Err(e) if e.is_snapshot_not_found() => tags
            .tagged_snapshots()
            .await?
            .into_iter()
            .find(|s| s.id == id)
            .ok_or_else(|| {
                ErrorDetail::SnapshotNotFound {
                    table: table.identifier().to_string(),
                    id,
                }
                .into()
            }),
        Err(e) => Err(e),
    }
}

/// What deleting a tag removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TagDeletionReport {
    /// The tag file and the files only the tag still used.
    pub deleted: DeletionCounts,
}

/// Deletes tag `name` and the files only it still uses (see the module doc).
pub async fn delete_tag(table: &Table, name: &str) -> Result<TagDeletionReport> {
    validate_tag_name(name)?;
    let tags = TagManager::new(table);
    let tag = tags.get_or_err(name).await?;
    let mut report = TagDeletionReport::default();
    let files = TableFiles::new(table)?;
    let tag_file = Deletion {
        category: FileCategory::Tag,
        path: tags.tag_path(name),
    };
    let sm = table.snapshot_manager();
    if table
        .file_io()
        .exists(&table.paths().snapshot_file(tag.snapshot.id))
        .await?
    {
        files.delete(&tag_file, &mut report.deleted).await?;
        return Ok(report);
    }
    // Tags are found through their files: read them all before deleting this one.
    let all = tags.all().await?;
    files.delete(&tag_file, &mut report.deleted).await?;
    if all
        .iter()
        .any(|t| t.name != name && t.snapshot.id == tag.snapshot.id)
    {
        return Ok(report);
    }
    let tagged: Vec<&Snapshot> = dedup_by_id(all.iter().map(|t| &t.snapshot));
    let index = tagged
        .iter()
        .position(|s| s.id == tag.snapshot.id)
        .ok_or_else(|| ErrorDetail::Invariant(format!("tag '{name}' not among the tags")))?;
    let mut neighbours: Vec<Snapshot> = Vec::new();
    if index > 0 {
        neighbours.push(tagged[index - 1].clone());
    }
    let earliest = sm.earliest_id().await?;
    let right_tag = tagged.get(index + 1).map(|s| (*s).clone());
    let right = match (earliest, right_tag) {
        (Some(e), Some(t)) if t.id < e => Some(t),
        (Some(e), _) => Some(sm.snapshot(e).await?),
        (None, t) => t,
    };
    neighbours.extend(right);
    clean_unused(&files, &[tag.snapshot], &neighbours, &mut report.deleted).await?;
    Ok(report)
}

/// Deletes the data files live in `removed` and the metadata they use, except what a snapshot
/// of `kept` uses: data files first, then manifests, then manifest lists.
pub(crate) async fn clean_unused(
    files: &TableFiles,
    removed: &[Snapshot],
    kept: &[Snapshot],
    counts: &mut DeletionCounts,
) -> Result<()> {
    let mut keep_files = HashSet::new();
    let mut keep_names = HashSet::new();
    for k in kept {
        keep_files.extend(files.live_data_files(k).await?);
        keep_names.extend(files.metadata_names(k).await?);
    }
    let mut planned = HashSet::new();
    let mut deletions = Vec::new();
    for r in removed {
        let metas = files.table().manifest_store().data_manifests(r).await?;
        let live = crate::scan::live_entries(files.table(), r, &metas).await?;
        for e in live {
            if keep_files.contains(&data_file_key(&e)) {
                continue;
            }
            for path in files.data_paths(&e)? {
                if planned.insert(path.clone()) {
                    deletions.push(Deletion {
                        category: FileCategory::Data,
                        path,
                    });
                }
            }
        }
    }
    let (mut leaves, mut lists) = (Vec::new(), Vec::new());
    for r in removed {
        // A tag does not own changelog files; expiry handles those.
        files
            .plan_metadata_deletion(r, false, &mut keep_names, &mut leaves, &mut lists)
            .await?;
    }
    for d in deletions.iter().chain(&leaves).chain(&lists) {
        files.delete(d, counts).await?;
    }
    Ok(())
}

/// Deletes the tags whose `tagCreateTime + tagTimeRetained` is before `now` (local time).
/// Returns their names.
pub async fn expire_tags(table: &Table, now: NaiveDateTime) -> Result<Vec<String>> {
    let tags = TagManager::new(table);
    let mut out = Vec::new();
    for t in tags.all().await? {
        if t.is_expired_at(now) {
            delete_tag(table, &t.name).await?;
            out.push(t.name);
        }
    }
    Ok(out)
}

fn dedup_by_id<'a>(it: impl Iterator<Item = &'a Snapshot>) -> Vec<&'a Snapshot> {
    let mut out: Vec<&Snapshot> = Vec::new();
    for s in it {
        if out.last().map(|l| l.id) != Some(s.id) {
            out.push(s);
        }
    }
    out
}
