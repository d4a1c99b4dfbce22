//! Time travel of a table with `scan.fallback-branch` / `scan.primary-branch` (Java's
//! `FallbackReadFileStoreTable.copy(dynamicOptions)` and `rewriteOtherOptions`): the table's
//! own branch travels as any table does; the other branch gets the same time-travel option,
//! rewritten where Java rewrites it:
//!
//! | the scan travels by | the other branch reads |
//! |---|---|
//! | a snapshot id (`scan.snapshot-id`, `--snapshot`, `VERSION AS OF n`) | its latest snapshot committed at or before the own snapshot's `timeMillis` (`SnapshotManager.earlierOrEqualTimeMills`); without one its snapshot 1, as Java's `Snapshot.FIRST_SNAPSHOT_ID` |
//! | a tag (`scan.tag-name`, `--tag`, `VERSION AS OF 'tag'`) | the **main** branch's tag of that name: Java's `StaticFromTagStartingScanner` builds its `TagManager` from the table path alone (the main branch), so the other branch plans main's tagged snapshot (manifests and data files are shared by all branches), read with the schema of the other branch's own tag of that name when it has one (Java's `tryTimeTravel` on the other table), else its latest; a tag main lacks is an error |
//! | a time (`scan.timestamp-millis`, `scan.timestamp`, `FOR SYSTEM_TIME AS OF`) | its latest snapshot at or before that time (none is an error, as Java's `StaticFromTimestampStartingScanner`) |
//! | a watermark (`scan.watermark`) | its first snapshot with a watermark at or after it |
//! | `scan.version` | the version resolved on its own tags and snapshots (Java passes `scan.version` unchanged: a number is the other branch's snapshot of that id, not mapped by time; a tag of its own is then planned as a tag above) |
//!
//! Each side is read with the schema of the snapshot it travels to (Java's `tryTimeTravel` on
//! both tables), and the two row types must match as in a scan of the latest snapshots.
//! The start modes without a snapshot to map (`compacted-full`, `from-file-creation-time`,
//! `from-creation-timestamp`) Java hands unchanged to the other branch: it starts where they
//! say on its own snapshots (its latest compacted snapshot, its files created since the time),
//! and the partition listing that decides which partitions the first branch owns applies the
//! same file filter (Java's `readPartitionEntries` with the starting scanner's
//! `manifestEntryFilter`). What strata does not map is refused by name: a scan given only a
//! snapshot's metadata (no target), and start options stored in the table's schema (Java's
//! other branch is built from its own schema and does not see them).

use strata_spec::options::{OptionEnum, StartupMode};
use strata_spec::snapshot::Snapshot;

use super::time_travel::{self, snapshot_at_or_before, TravelTarget};
use crate::error::ErrorDetail;
use crate::table::tags::TagManager;
use crate::table::Table;
use crate::Result;

/// The time-travel options Java's `TimeTravelUtil` and `CoreOptions.startupMode` read.
const TRAVEL_KEYS: [&str; 9] = [
    "scan.file-creation-time-millis",
    "scan.creation-time-millis",
    "scan.snapshot-id",
    "scan.tag-name",
    "scan.watermark",
    "scan.timestamp",
    "scan.timestamp-millis",
    "scan.version",
    "scan.mode",
];

/// How a time-travel scan chose its snapshot, which decides the other branch's snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BranchTravel {
    /// A target resolved on each branch as the table above says.
    Target(TravelTarget),
    /// `scan.version`, resolved by each branch on its own (`TimeTravelUtil.adaptScanVersion`).
    Version(String),
    /// A start mode without a snapshot to map (`compacted-full`, `from-file-creation-time`,
    /// `from-creation-timestamp`): these options, given to the other branch as dynamic options
    /// (Java's `other.copy(dynamicOptions)`), which starts where they say on its own snapshots.
    SameOptions(std::collections::BTreeMap<String, String>),
}

/// The options of the start modes [`BranchTravel::SameOptions`] hands to the other branch.
const START_KEYS: [&str; 3] = [
    "scan.mode",
    "scan.file-creation-time-millis",
    "scan.creation-time-millis",
];

/// The refusal of a time-travel scan of `table` (`key` = `name`) strata cannot map to the
/// other branch: `what` names the scan.
pub(crate) fn refused(table: &Table, key: &str, name: &str, what: &str) -> crate::Error {
    ErrorDetail::UnsupportedOption {
        key: key.into(),
        message: format!(
            "time travel of {} with `{key}` = `{name}` by {what}: strata does not map it to \
             branch `{name}` as Java's FallbackReadFileStoreTable does; read `{}$branch_{name}` \
             and the own branch at their own snapshots instead",
            table.identifier(),
            table.identifier().main()
        ),
    }
    .into()
}

/// The travel the table's own `scan.*` options ask for (the scan names no snapshot), as Java's
/// `rewriteOtherOptions` hands them to the other branch; `None` when the table reads its
/// latest snapshot. `stored` is the own branch's latest stored schema options: a time-travel
/// option stored there is refused (Java's other branch is built from its own schema and does
/// not see it).
pub(crate) fn from_options(
    own: &Table,
    stored: Option<&std::collections::BTreeMap<String, String>>,
    key: &str,
    name: &str,
) -> Result<Option<BranchTravel>> {
    let o = own.options();
    let mode = o.startup_mode()?;
    if matches!(
        mode,
        StartupMode::Default | StartupMode::LatestFull | StartupMode::Full | StartupMode::Latest
    ) {
        return Ok(None);
    }
    if let Some(stored) = stored {
        if let Some(k) = TRAVEL_KEYS.iter().find(|k| stored.contains_key(**k)) {
            return Err(refused(
                own,
                key,
                name,
                &format!("the option `{k}` stored in its schema"),
            ));
        }
    }
    let target = match mode {
        StartupMode::FromTimestamp => match o.scan_timestamp_millis()? {
            Some(ms) => TravelTarget::TimestampMillis(ms),
            None => match o.get("scan.timestamp") {
                Some(text) => TravelTarget::timestamp(text)?,
                // `start::batch_start` names the missing option.
                None => return Ok(None),
            },
        },
        StartupMode::FromSnapshot | StartupMode::FromSnapshotFull => {
            // Java's order (`AbstractDataTableScan.createStartingScanner`).
            if let Some(id) = o.scan_snapshot_id()? {
                TravelTarget::Snapshot(id)
            } else if let Some(w) = o.scan_watermark()? {
                TravelTarget::Watermark(w)
            } else if let Some(tag) = o.get("scan.tag-name") {
                TravelTarget::Tag(tag.to_string())
            } else if let Some(v) = o.get("scan.version") {
                return Ok(Some(BranchTravel::Version(v.to_string())));
            } else {
                return Ok(None);
            }
        }
        StartupMode::CompactedFull
        | StartupMode::FromFileCreationTime
        | StartupMode::FromCreationTimestamp => {
            let same = START_KEYS
                .iter()
                .filter_map(|k| o.get(k).map(|v| (k.to_string(), v.to_string())))
                .collect();
            return Ok(Some(BranchTravel::SameOptions(same)));
        }
        other => {
            let text = StartupMode::VALUES
                .iter()
                .find(|(_, v)| *v == other)
                .map_or("?", |(t, _)| *t);
            return Err(refused(own, key, name, &format!("the start mode `{text}`")));
        }
    };
    Ok(Some(BranchTravel::Target(target)))
}

/// What the other branch of a scan of `own` travelling by `travel` reads (the module's
/// table): the snapshot to plan and `other` at the schema to read it with. `own_snapshot` is
/// the own branch's snapshot when the scan already resolved it.
pub(crate) async fn other_side(
    own: &Table,
    own_snapshot: Option<&Snapshot>,
    other: &Table,
    travel: &BranchTravel,
) -> Result<(Snapshot, Table)> {
    let target = match travel {
        BranchTravel::Target(t) => t.clone(),
        BranchTravel::Version(v) => TravelTarget::version(other, v).await?,
        BranchTravel::SameOptions(_) => {
            return Err(ErrorDetail::InvalidArgument(
                "a start mode without a snapshot names no snapshot of the other branch".into(),
            )
            .into())
        }
    };
    if let TravelTarget::Tag(name) = &target {
        // Java's `StaticFromTagStartingScanner`: the main branch's tag.
        let main = own
            .switch_to_branch(crate::meta::paths::MAIN_BRANCH)
            .await?;
        let planned = TravelTarget::Tag(name.clone()).resolve(&main).await?;
        let schema_at = match TagManager::new(other).get(name).await? {
            Some(tag) => time_travel::table_at(other, &tag.snapshot).await?,
            None => other.clone(),
        };
        return Ok((planned, schema_at));
    }
    let snapshot = match (&target, travel) {
        // `scan.version` = digits is the other branch's snapshot of that id (not mapped).
        (TravelTarget::Snapshot(id), BranchTravel::Target(_)) => {
            let millis = match own_snapshot.filter(|s| s.id == *id) {
                Some(s) => s.time_millis,
                None => own.snapshot_manager().snapshot(*id).await?.time_millis,
            };
            match earlier_or_equal(other, millis).await? {
                Some(s) => s,
                None => first_snapshot(other, *id, millis).await?,
            }
        }
        _ => target.resolve(other).await?,
    };
    let at = time_travel::table_at(other, &snapshot).await?;
    Ok((snapshot, at))
}

/// Java's `SnapshotManager.earlierOrEqualTimeMills`: `None` when no snapshot of `table` was
/// committed at or before `millis`.
async fn earlier_or_equal(table: &Table, millis: i64) -> Result<Option<Snapshot>> {
    let sm = table.snapshot_manager();
    let Some(earliest) = sm.earliest_id().await? else {
        return Ok(None);
    };
    if sm.snapshot(earliest).await?.time_millis > millis {
        return Ok(None);
    }
    snapshot_at_or_before(table, millis).await.map(Some)
}

/// Snapshot 1 of `other` (Java's fallback `Snapshot.FIRST_SNAPSHOT_ID`), or Java's
/// `StaticFromSnapshotStartingScanner` errors when it does not exist.
async fn first_snapshot(other: &Table, own_id: i64, millis: i64) -> Result<Snapshot> {
    let sm = other.snapshot_manager();
    let (earliest, latest) = (sm.earliest_id().await?, sm.latest_id().await?);
    match (earliest, latest) {
        (Some(e), Some(l)) if e <= 1 && 1 <= l => sm.snapshot(1).await,
        (Some(e), Some(l)) => Err(ErrorDetail::InvalidArgument(format!(
            "{}: no snapshot committed at or before {millis} (the time of snapshot {own_id} \
             of the table's own branch), so Java reads snapshot 1, which is out of the \
             available snapshot id range [{e}, {l}]",
            other.identifier()
        ))
        .into()),
        _ => Err(ErrorDetail::InvalidArgument(format!(
            "{}: there is currently no snapshot (time travel to snapshot {own_id} of the \
             table's own branch reads this branch's snapshot 1, as Java does)",
            other.identifier()
        ))
        .into()),
    }
}
