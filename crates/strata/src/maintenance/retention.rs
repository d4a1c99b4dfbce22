//! What snapshot and changelog expiry share: the retention options' check, the tags an expiry
//! must keep (Java `findPreviousSnapshot`, `findSkippingTags`) and the consumers' lowest next
//! snapshot. A leaf under `expire` and `expire_changelog`.

use crate::error::ErrorDetail;
use strata_spec::snapshot::Snapshot;

use crate::table::Table;
use crate::Result;

/// Checks `<prefix>.num-retained.min` ≥ 1, `<prefix>.num-retained.max` ≥ min and
/// `snapshot.expire.limit` ≥ 1 (`prefix`: `snapshot` or `changelog`).
pub(super) fn validate_retention(
    prefix: &str,
    retain_min: i32,
    retain_max: i32,
    max_deletes: i32,
) -> Result<()> {
    if retain_min < 1 {
        return Err(ErrorDetail::InvalidOption {
            key: format!("{prefix}.num-retained.min"),
            message: format!("must be at least 1, got {retain_min}"),
        }
        .into());
    }
    if retain_max < retain_min {
        return Err(ErrorDetail::InvalidOption {
            key: format!("{prefix}.num-retained.max"),
            message: format!(
                "retain max ({retain_max}) must not be less than retain min ({retain_min}, \
                 {prefix}.num-retained.min)"
            ),
        }
        .into());
    }
    if max_deletes < 1 {
        return Err(ErrorDetail::InvalidOption {
            key: "snapshot.expire.limit".into(),
            message: format!("must be at least 1, got {max_deletes}"),
        }
        .into());
    }
    Ok(())
}

/// The nearest tagged snapshot with an id below `id` (Java `findPreviousSnapshot`).
pub(super) fn previous_tag(tagged: &[Snapshot], id: i64) -> Option<&Snapshot> {
    tagged.iter().rev().find(|t| t.id < id)
}

/// Tags overlapping `[begin, end)` (Java `findSkippingTags`): from the last tag at or before
/// `begin` to the last tag before `end`.
pub(super) fn skipping_tags(tagged: &[Snapshot], begin: i64, end: i64) -> Vec<&Snapshot> {
    let Some(right) = tagged.iter().rposition(|t| t.id < end) else {
        return Vec::new();
    };
    let left = tagged.iter().rposition(|t| t.id <= begin).unwrap_or(0);
    tagged[left..=right].iter().collect()
}

/// The smallest `nextSnapshot` of the consumers in `consumer/` (Java
/// `ConsumerManager.minNextSnapshot`).
pub(super) async fn min_consumer_next_snapshot(table: &Table) -> Result<Option<i64>> {
    let io = table.file_io();
    let dir = table.paths().consumer_dir();
    let (_, files) = io.list_dir(&dir).await?;
    let mut min: Option<i64> = None;
    for f in files {
        if !f
            .location
            .filename()
            .is_some_and(|n| n.starts_with("consumer-"))
        {
            continue;
        }
        let Some(next) = super::consumers::read_next_snapshot(io, &f.location).await? else {
            continue;
        };
        min = Some(min.map_or(next, |m| m.min(next)));
    }
    Ok(min)
}
