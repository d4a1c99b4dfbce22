//! Where a batch read starts when the caller names no snapshot: the table's `scan.mode` and
//! `scan.*` options, exactly as Java's batch scans read them (`CoreOptions.startupMode`,
//! `AbstractDataTableScan.createStartingScanner` with `isStreaming = false`,
//! `AbstractBatchTableScan`):
//!
//! | startup mode | snapshot read | files |
//! |---|---|---|
//! | `latest-full`, `full`, `latest`, `default` without other options | the latest | all |
//! | `compacted-full` | the latest COMPACT snapshot (of a full compaction with `changelog-producer = full-compaction` or `full-compaction.delta-commits`), else the latest | all |
//! | `from-timestamp` (`scan.timestamp-millis`, `scan.timestamp`) | the latest committed at or before it | all |
//! | `from-snapshot` (`scan.snapshot-id`, `scan.watermark`, `scan.tag-name`, `scan.version`) | that snapshot (the tag's copy of it) | all |
//! | `from-snapshot-full` (`scan.snapshot-id`) | that snapshot | all |
//! | `from-file-creation-time` (`scan.file-creation-time-millis`) | the latest | created at or after the time |
//! | `from-creation-timestamp` (`scan.creation-time-millis`) | the first committed at or after the time, else the latest | all, else those created at or after the time |
//! | `incremental` (`incremental-between*`) | refused: an [`super::IncrementalScan`] reads it | — |
//!
//! `scan.bucket` limits any scan to one bucket (Java `AbstractBatchTableScan`). An explicit
//! snapshot ([`super::TableScan::with_snapshot`], a tag's metadata) wins over all of these, as a
//! Flink or Spark time-travel hint does in Java; [`super::TableScan::with_latest`] plans the
//! latest snapshot whatever the options say (writes that rewrite what they read).
//!
//! The columns a scan's rows get are the table handle's schema (as Java's core `ReadBuilder`
//! reads a table whose stored options time-travel); front ends that time-travel explicitly use
//! [`super::travel`], which also takes the snapshot's schema.

use crate::error::ErrorDetail;
use chrono::TimeZone;
use strata_spec::options::StartupMode;
use strata_spec::snapshot::{CommitKind, Snapshot};

use super::incremental_between::{INCREMENTAL_BETWEEN, INCREMENTAL_BETWEEN_TIMESTAMP};
use super::time_travel::TravelTarget;
use crate::table::Table;
use crate::{Error, Result};

impl Table {
    /// Whether a scan without an explicit snapshot reads every live file of the latest
    /// snapshot, or the table's `scan.*` options send it elsewhere (another snapshot, some
    /// files, one bucket, an incremental read). Statements that rewrite what they read (SQL
    /// UPDATE, DELETE, MERGE INTO) need the former.
    pub fn reads_latest_snapshot(&self) -> Result<bool> {
        let opts = self.options();
        Ok(matches!(
            opts.startup_mode()?,
            StartupMode::LatestFull | StartupMode::Latest
        ) && opts.scan_bucket()?.is_none())
    }
}

/// What a batch scan without an explicit snapshot reads.
#[derive(Clone, Debug, Default)]
pub(crate) struct BatchStart {
    /// The snapshot to plan, `None` for a table without snapshots.
    pub snapshot: Option<Snapshot>,
    /// Only files created at or after this time (epoch milliseconds).
    pub min_file_creation_millis: Option<i64>,
}

/// The start the table's options give a batch read.
pub(crate) async fn batch_start(table: &Table) -> Result<BatchStart> {
    let opts = table.options();
    let sm = table.snapshot_manager();
    let mode = opts.startup_mode()?;
    let travel = |target: TravelTarget| async move {
        Ok::<_, Error>(BatchStart {
            snapshot: Some(target.resolve(table).await?),
            min_file_creation_millis: None,
        })
    };
    match mode {
        StartupMode::Default
        | StartupMode::LatestFull
        | StartupMode::Full
        | StartupMode::Latest => Ok(BatchStart {
            snapshot: sm.latest().await?,
            min_file_creation_millis: None,
        }),
        StartupMode::CompactedFull => {
            let id = latest_compacted(table, sm.latest_id().await?).await?;
            Ok(BatchStart {
                snapshot: match id {
                    Some(id) => Some(sm.snapshot(id).await?),
                    None => None,
                },
                min_file_creation_millis: None,
            })
        }
        StartupMode::FromTimestamp => {
            let ms = match opts.scan_timestamp_millis()? {
                Some(ms) => ms,
                None => match opts.get("scan.timestamp") {
                    Some(text) => super::time_travel::parse_local_timestamp(text)?,
                    None => {
                        return Err(needs(
                            mode_text(opts),
                            "scan.timestamp-millis or scan.timestamp",
                        ))
                    }
                },
            };
            travel(TravelTarget::TimestampMillis(ms)).await
        }
        StartupMode::FromSnapshot => {
            // Java's order: snapshot id, watermark, tag; `scan.version` names one of them.
            let target = if let Some(id) = opts.scan_snapshot_id()? {
                TravelTarget::Snapshot(id)
            } else if let Some(w) = opts.scan_watermark()? {
                TravelTarget::Watermark(w)
            } else if let Some(tag) = opts.get("scan.tag-name") {
                TravelTarget::Tag(tag.to_string())
            } else if let Some(v) = opts.get("scan.version") {
                TravelTarget::version(table, v).await?
            } else {
                return Err(needs(
                    mode_text(opts),
                    "scan.snapshot-id, scan.watermark, scan.tag-name or scan.version",
                ));
            };
            travel(target).await
        }
        StartupMode::FromSnapshotFull => match opts.scan_snapshot_id()? {
            Some(id) => travel(TravelTarget::Snapshot(id)).await,
            None => Err(needs(mode_text(opts), "scan.snapshot-id")),
        },
        StartupMode::FromFileCreationTime => {
            let Some(ms) = opts.scan_file_creation_time_millis()? else {
                return Err(needs(mode_text(opts), "scan.file-creation-time-millis"));
            };
            Ok(BatchStart {
                snapshot: sm.latest().await?,
                min_file_creation_millis: Some(ms),
            })
        }
        StartupMode::FromCreationTimestamp => {
            let Some(ms) = opts.scan_creation_time_millis()? else {
                return Err(needs(mode_text(opts), "scan.creation-time-millis"));
            };
            from_creation_timestamp(table, ms).await
        }
        StartupMode::Incremental => {
            let key = [INCREMENTAL_BETWEEN, INCREMENTAL_BETWEEN_TIMESTAMP]
                .into_iter()
                .find(|k| opts.get(k).is_some())
                .unwrap_or("scan.mode");
            // Java reads the changes instead of the snapshot: never read the snapshot silently.
            Err(ErrorDetail::InvalidOption {
                key: key.into(),
                message: format!(
                    "table {} asks for an incremental read; plan it with IncrementalScan \
                     (IncrementalScan::from_options) and read it with IncrementalRead",
                    table.identifier()
                ),
            }
            .into())
        }
    }
}

/// `from-creation-timestamp` (Java `createCreationTimestampStartingScanner`, batch): the first
/// snapshot committed at or after `ms`, read whole; when every snapshot is older (or there is
/// none after it), the latest snapshot's files created at or after `ms`.
async fn from_creation_timestamp(table: &Table, ms: i64) -> Result<BatchStart> {
    let sm = table.snapshot_manager();
    let (Some(earliest), Some(latest)) = (sm.earliest_id().await?, sm.latest_id().await?) else {
        return Ok(BatchStart::default());
    };
    let by_files = || async {
        Ok::<_, Error>(BatchStart {
            snapshot: Some(sm.snapshot(latest).await?),
            min_file_creation_millis: Some(ms),
        })
    };
    let first = sm.snapshot(earliest).await?;
    if first.time_millis >= ms {
        // Java returns no starting snapshot when the earliest is not earlier than `ms`.
        return by_files().await;
    }
    // The latest snapshot committed before `ms`.
    let (mut lo, mut hi) = (earliest, latest);
    while lo < hi {
        let mid = lo + (hi - lo + 1) / 2;
        if sm.snapshot(mid).await?.time_millis < ms {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    if lo < latest {
        Ok(BatchStart {
            snapshot: Some(sm.snapshot(lo + 1).await?),
            min_file_creation_millis: None,
        })
    } else {
        by_files().await
    }
}

/// The snapshot a `compacted-full` read starts with (Java `CompactedStartingScanner` /
/// `FullCompactedStartingScanner`, `SnapshotManager.pickOrLatest`): the latest COMPACT
/// snapshot (of a full compaction: its commit identifier a multiple of
/// `full-compaction.delta-commits`, or a batch commit's `Long.MAX_VALUE`, when the table
/// compacts fully on a schedule), else the latest snapshot.
pub(crate) async fn latest_compacted(table: &Table, latest: Option<i64>) -> Result<Option<i64>> {
    let Some(latest) = latest else {
        return Ok(None);
    };
    let opts = table.options();
    let full_every = if opts.changelog_producer()?
        == strata_spec::options::ChangelogProducer::FullCompaction
        || opts.get("full-compaction.delta-commits").is_some()
    {
        Some(
            opts.get_i64("full-compaction.delta-commits")?
                .unwrap_or(1)
                .max(1),
        )
    } else {
        None
    };
    let sm = table.snapshot_manager();
    let mut ids = sm.list_ids().await?;
    ids.sort_unstable();
    for id in ids.into_iter().rev().filter(|id| *id <= latest) {
        let s = sm.snapshot(id).await?;
        let full = full_every
            .is_none_or(|n| s.commit_identifier % n == 0 || s.commit_identifier == i64::MAX);
        if s.commit_kind == CommitKind::Compact && full {
            return Ok(Some(id));
        }
    }
    Ok(Some(latest))
}

/// A data file's `_CREATION_TIME` (the writer's local wall clock, as Java stores a
/// `Timestamp`) as epoch milliseconds in this process's zone, Java's
/// `DataFileMeta.creationTimeEpochMillis`.
pub(crate) fn creation_epoch_millis(local_wall_millis: i64) -> i64 {
    let Some(naive) = chrono::DateTime::from_timestamp_millis(local_wall_millis) else {
        return local_wall_millis;
    };
    chrono::Local
        .from_local_datetime(&naive.naive_utc())
        .earliest()
        .map_or(local_wall_millis, |t| t.timestamp_millis())
}

fn mode_text(opts: &strata_spec::options::CoreOptions) -> String {
    match opts.get("scan.mode").or_else(|| opts.get("log.scan")) {
        Some(m) => format!("scan.mode = {m}"),
        None => "the table's scan options".to_string(),
    }
}

fn needs(what: String, keys: &str) -> Error {
    ErrorDetail::InvalidOption {
        key: "scan.mode".into(),
        message: format!("{what} needs {keys}"),
    }
    .into()
}
