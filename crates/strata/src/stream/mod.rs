//! Streaming reads: follow a table as it is committed to, snapshot after snapshot, as Flink's
//! Paimon source does (Java `DataTableStreamScan` with its starting scanners and follow-up
//! scanners). [`StreamRead::changes`] is a `Stream` of Arrow batches, each with the snapshot it
//! comes from and a first `rowkind` column (`+I`, `-U`, `+U`, `-D`).
//!
//! Where the stream starts ([`StartingPosition`], Java's `scan.mode`):
//!
//! | position | first | then |
//! |---|---|---|
//! | `Latest` (`latest`) | nothing | changes of every snapshot committed after the start |
//! | `LatestFull` (`latest-full`) | the latest snapshot, whole | changes of later snapshots |
//! | `FromSnapshot(n)` (`from-snapshot`) | changes of snapshot n | changes of later snapshots |
//! | `FromSnapshotFull(n)` (`from-snapshot-full`) | snapshot n, whole | changes of later snapshots |
//! | `CompactedFull` (`compacted-full`) | the latest COMPACT snapshot (of a full compaction when the table compacts fully on a schedule), whole | changes of later snapshots |
//! | `Earliest` | the earliest snapshot, whole | changes of later snapshots |
//! | `FromTimestamp(ms)` (`from-timestamp`) | changes of the first snapshot committed after ms | changes of later snapshots |
//!
//! The changes of snapshot n are the incremental read of `(n - 1, n]`
//! ([`crate::scan::IncrementalScan`], mode `auto`): the snapshot's changelog files when the
//! table has a `changelog-producer`, else the files an APPEND snapshot added (Java
//! `ChangelogFollowUpScanner` / `DeltaFollowUpScanner`; COMPACT snapshots hold no new changes).
//! A whole snapshot is read merged, deletes dropped, each row with its record's kind (`+I`, or
//! `+U` for a key last written as an update), as Java's `ScanMode.ALL` read gives Flink.
//!
//! With a consumer id ([`StreamRead::with_consumer_id`]) the stream records its progress in
//! `consumer/consumer-<id>` ([`crate::maintenance::consumers`]): the snapshot it reads next,
//! written when the stream starts and each time it has returned every batch of a snapshot.
//! Expiry keeps that snapshot and every later one, and a stream started again with the same id
//! resumes at the recorded snapshot, whatever its starting position says (as Java does). A
//! snapshot that expired before the stream reached it is an error that says so, never a gap.
//!
//! A table with a decoupled changelog lifecycle (`changelog.num-retained.*` /
//! `changelog.time-retained` above `snapshot.*`, see [`crate::maintenance::expire`]) keeps an
//! expired snapshot's changes as `changelog/changelog-N`: the stream reads snapshot `N`'s
//! changes from there (Java `NextSnapshotFetcher`), `FromSnapshot(n)` and a consumer may start
//! at a long-lived changelog, and `FromTimestamp` searches the changelogs too (Java
//! `TimeTravelUtil.earlierThanTimeMills` with `startFromChangelog`). A whole-snapshot start
//! (`FromSnapshotFull`, `Earliest`) still needs the snapshot itself.

use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures::stream::BoxStream;
use futures::StreamExt;

use strata_spec::options::StartupMode;

use crate::error::ErrorDetail;
use crate::maintenance::consumers::{validate_consumer_id, ConsumerManager};
use crate::read::IncrementalRead;
use crate::scan::{IncrementalBetween, IncrementalMode};
use crate::table::Table;
use crate::{Error, Result};

/// Where a streaming read starts (Java `scan.mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum StartingPosition {
    /// Only changes committed after the stream starts (`latest`).
    Latest,
    /// The latest snapshot whole, then later changes (`latest-full`, Java's default).
    #[default]
    LatestFull,
    /// The changes of this snapshot and every later one (`from-snapshot`).
    FromSnapshot(i64),
    /// This snapshot whole, then later changes (`from-snapshot-full`).
    FromSnapshotFull(i64),
    /// The earliest retained snapshot whole, then every later change.
    Earliest,
    /// Changes of the snapshots committed after this time, epoch milliseconds
    /// (`from-timestamp`).
    FromTimestamp(i64),
    /// The latest compacted snapshot whole, then later changes (`compacted-full`): the latest
    /// COMPACT snapshot (with `changelog-producer = full-compaction` or
    /// `full-compaction.delta-commits`, the latest COMPACT snapshot of a full compaction,
    /// Java's `FullCompactedStartingScanner`; else `CompactedStartingScanner`), or the latest
    /// snapshot when there is none.
    CompactedFull,
}

/// Rows of one snapshot's changes (or of a whole snapshot read first), with a first `rowkind`
/// column.
#[derive(Clone, Debug)]
pub struct ChangeBatch {
    /// The snapshot whose changes (or, for the first read, whose whole contents) these rows are.
    pub snapshot_id: i64,
    /// The rows, with a first `rowkind` column (`+I`, `-U`, `+U`, `-D`).
    pub batch: RecordBatch,
}

impl Table {
    /// A streaming read of this table (see [`crate::stream`]). It starts where the table's
    /// options say (`scan.mode`, `scan.snapshot-id`, `scan.timestamp-millis`, ... as Java's
    /// streaming scans read them; `latest-full` without them) and records progress under the
    /// `consumer-id` option when it is set; [`StreamRead::with_start`] and
    /// [`StreamRead::with_consumer_id`] override both.
    pub fn new_stream_read(&self) -> StreamRead {
        let opts = self.options();
        StreamRead {
            table: self.clone(),
            start: None,
            consumer_id: opts.get("consumer-id").map(str::to_string),
            poll_interval: Duration::from_secs(1),
            projection: None,
            until: None,
        }
    }
}

impl StartingPosition {
    /// Where the table's options start a stream (Java `AbstractDataTableScan.
    /// createStartingScanner` with `isStreaming`): `scan.mode`, or the mode the other `scan.*`
    /// options imply. Tags and watermarks cannot start a stream (as in Java), nor can
    /// `from-file-creation-time` or `incremental` (strata's streams have no such start).
    pub fn from_options(table: &Table) -> Result<StartingPosition> {
        let opts = table.options();
        let refuse = |what: &str| {
            Err(ErrorDetail::Unsupported(format!(
                "streaming read of {}: {what}",
                table.identifier()
            ))
            .into())
        };
        Ok(match opts.startup_mode()? {
            StartupMode::Default | StartupMode::LatestFull | StartupMode::Full => {
                StartingPosition::LatestFull
            }
            StartupMode::Latest => StartingPosition::Latest,
            StartupMode::CompactedFull => StartingPosition::CompactedFull,
            StartupMode::FromTimestamp => {
                match (opts.scan_timestamp_millis()?, opts.get("scan.timestamp")) {
                    (Some(ms), _) => StartingPosition::FromTimestamp(ms),
                    (None, Some(text)) => StartingPosition::FromTimestamp(
                        crate::scan::time_travel::parse_local_timestamp(text)?,
                    ),
                    (None, None) => return refuse(
                        "scan.mode = from-timestamp needs scan.timestamp-millis or scan.timestamp",
                    ),
                }
            }
            // The first snapshot committed at or after the time (Java
            // `createCreationTimestampStartingScanner`).
            StartupMode::FromCreationTimestamp => match opts.scan_creation_time_millis()? {
                Some(ms) => StartingPosition::FromTimestamp(ms.saturating_sub(1)),
                None => {
                    return refuse(
                        "scan.mode = from-creation-timestamp needs scan.creation-time-millis",
                    )
                }
            },
            StartupMode::FromSnapshot => {
                if let Some(id) = opts.scan_snapshot_id()? {
                    StartingPosition::FromSnapshot(id)
                } else if opts.scan_watermark()?.is_some() {
                    return refuse("cannot scan from watermark in streaming mode (scan.watermark)");
                } else if opts.get("scan.tag-name").is_some() || opts.get("scan.version").is_some()
                {
                    return refuse(
                        "cannot scan from tag in streaming mode (scan.tag-name, scan.version)",
                    );
                } else {
                    return refuse("scan.mode = from-snapshot needs scan.snapshot-id");
                }
            }
            StartupMode::FromSnapshotFull => match opts.scan_snapshot_id()? {
                Some(id) => StartingPosition::FromSnapshotFull(id),
                None => return refuse("scan.mode = from-snapshot-full needs scan.snapshot-id"),
            },
            StartupMode::FromFileCreationTime => return refuse(
                "a stream starting with the files created after scan.file-creation-time-millis \
                     is not supported; start it from a snapshot or a timestamp",
            ),
            StartupMode::Incremental => {
                return refuse(
                    "cannot read incremental-between in streaming mode; read it as a batch",
                )
            }
        })
    }
}

/// Builder of a streaming read.
#[derive(Clone)]
pub struct StreamRead {
    table: Table,
    /// `None`: where the table's options say ([`StartingPosition::from_options`]).
    start: Option<StartingPosition>,
    consumer_id: Option<String>,
    poll_interval: Duration,
    projection: Option<Vec<String>>,
    until: Option<i64>,
}

impl StreamRead {
    /// Where the stream starts, whatever the table's `scan.*` options say.
    pub fn with_start(mut self, start: StartingPosition) -> Self {
        self.start = Some(start);
        self
    }

    /// Records progress in `consumer/consumer-<id>` and resumes from it (see the module doc).
    pub fn with_consumer_id(mut self, id: impl Into<String>) -> Self {
        self.consumer_id = Some(id.into());
        self
    }

    /// How often to look for a new snapshot when the stream has caught up (default 1 s;
    /// Java's `continuous.discovery-interval` is 10 s).
    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// Output only these table columns (after `rowkind`).
    pub fn with_projection(mut self, columns: Vec<String>) -> Self {
        self.projection = Some(columns);
        self
    }

    /// End the stream once snapshot `id` has been read (a bounded stream; Java's
    /// `scan.bounded.watermark` plays this role for Flink). Without it the stream never ends.
    pub fn until_snapshot(mut self, id: i64) -> Self {
        self.until = Some(id);
        self
    }

    fn incremental_read(&self) -> IncrementalRead {
        let read = self.table.new_incremental_read();
        match &self.projection {
            Some(cols) => read.with_projection(cols.clone()),
            None => read,
        }
    }

    /// The schema of every batch: `rowkind`, then the (projected) table columns.
    pub fn output_schema(&self) -> Result<SchemaRef> {
        self.incremental_read().output_schema()
    }

    /// The stream of changes. Errors (an expired snapshot, an unreadable file) end it.
    pub fn changes(self) -> Result<BoxStream<'static, Result<ChangeBatch>>> {
        if let Some(id) = &self.consumer_id {
            validate_consumer_id(id)?;
        }
        crate::scan::read_audit::check_options(&self.table, true)?;
        let start = match self.start {
            Some(s) => s,
            None => StartingPosition::from_options(&self.table)?,
        };
        let ignore_progress = self
            .table
            .options()
            .get_bool("consumer.ignore-progress")?
            .unwrap_or(false);
        let schema = self.output_schema()?;
        let follower = Follower {
            read: self.incremental_read(),
            schema,
            consumers: self
                .consumer_id
                .clone()
                .map(|id| (ConsumerManager::new(&self.table), id)),
            start: Some(start),
            ignore_progress,
            next: 0,
            current: None,
            done: false,
            builder: self,
        };
        Ok(futures::stream::unfold(follower, |mut f| async move {
            if f.done {
                return None;
            }
            match f.next_batch().await {
                Ok(Some(b)) => Some((Ok(b), f)),
                Ok(None) => None,
                Err(e) => {
                    f.done = true;
                    Some((Err(e), f))
                }
            }
        })
        .boxed())
    }
}

struct Follower {
    builder: StreamRead,
    read: IncrementalRead,
    schema: SchemaRef,
    consumers: Option<(ConsumerManager, String)>,
    start: Option<StartingPosition>,
    /// `consumer.ignore-progress`: start where the position says, not at the consumer's
    /// recorded snapshot (which is then overwritten).
    ignore_progress: bool,
    /// The next snapshot whose changes are read.
    next: i64,
    /// The snapshot being returned and its remaining batches.
    current: Option<(i64, BoxStream<'static, Result<RecordBatch>>)>,
    done: bool,
}

impl Follower {
    async fn next_batch(&mut self) -> Result<Option<ChangeBatch>> {
        if let Some(start) = self.start.take() {
            self.begin(start).await?;
        }
        loop {
            if let Some((id, batches)) = &mut self.current {
                let id = *id;
                match batches.next().await {
                    Some(batch) => {
                        return Ok(Some(ChangeBatch {
                            snapshot_id: id,
                            batch: batch?,
                        }))
                    }
                    None => {
                        self.current = None;
                        self.record(id + 1).await?;
                    }
                }
                continue;
            }
            if self.builder.until.is_some_and(|until| self.next > until) {
                return Ok(None);
            }
            let sm = self.builder.table.snapshot_manager();
            if sm
                .latest_id()
                .await?
                .is_none_or(|latest| latest < self.next)
            {
                tokio::time::sleep(self.builder.poll_interval).await;
                continue;
            }
            let id = self.next;
            let plan = match long_lived_changelog(&self.builder.table, id).await? {
                Some(changelog) => self.builder.table.plan_snapshot_changes(&changelog).await?,
                None => {
                    self.check_not_expired(id, false).await?;
                    self.builder
                        .table
                        .new_incremental_scan(IncrementalBetween::ids(id - 1, id))
                        .for_streaming()
                        .with_mode(IncrementalMode::Auto)
                        .plan()
                        .await?
                }
            };
            self.current = Some((id, self.read.to_stream(plan.splits)?));
            self.next = id + 1;
        }
    }

    /// Where to start: a consumer's recorded snapshot, else the starting position.
    async fn begin(&mut self, start: StartingPosition) -> Result<()> {
        if let Some((consumers, id)) = self.consumers.as_ref().filter(|_| !self.ignore_progress) {
            if let Some(next) = consumers.next_snapshot(id).await? {
                self.check_not_expired(next, true).await?;
                self.next = next;
                return Ok(());
            }
        }
        let table = self.builder.table.clone();
        let sm = table.snapshot_manager();
        let (earliest, latest) = (sm.earliest_id().await?, sm.latest_id().await?);
        let full = match start {
            StartingPosition::Latest => {
                self.next = latest.map_or(1, |l| l + 1);
                None
            }
            StartingPosition::LatestFull => latest,
            StartingPosition::CompactedFull => {
                crate::scan::latest_compacted(&table, latest).await?
            }
            StartingPosition::Earliest => earliest,
            StartingPosition::FromSnapshotFull(n) => Some(n),
            StartingPosition::FromSnapshot(n) => {
                self.check_not_expired(n, true).await?;
                self.next = n;
                None
            }
            StartingPosition::FromTimestamp(ms)
                if crate::maintenance::changelog_decoupled(&table)? =>
            {
                self.next = first_after_with_changelogs(&table, ms, earliest, latest).await?;
                None
            }
            StartingPosition::FromTimestamp(ms) => {
                self.next = match earliest {
                    None => 1,
                    // Every retained snapshot was committed after `ms`.
                    Some(e) if sm.snapshot(e).await?.time_millis > ms => e,
                    Some(_) => {
                        crate::maintenance::time_travel::snapshot_at_or_before(&table, ms)
                            .await?
                            .id
                            + 1
                    }
                };
                None
            }
        };
        match full {
            Some(n) => {
                self.check_not_expired(n, false).await?;
                self.record(n).await?;
                self.current = Some((n, self.whole_snapshot(n).await?));
                self.next = n + 1;
            }
            // An empty table: every snapshot to come is a change.
            None if latest.is_none() => {
                self.next = 1;
                self.record(1).await?;
            }
            None => self.record(self.next).await?,
        }
        Ok(())
    }

    /// Snapshot `id` read whole, merged, each row with its record's kind (`+I`, or `+U` when
    /// the key's newest record is one), deletes dropped: what Java's `ScanMode.ALL` read gives
    /// Flink's streaming source.
    async fn whole_snapshot(&mut self, id: i64) -> Result<BoxStream<'static, Result<RecordBatch>>> {
        let table = &self.builder.table;
        let splits = table
            .new_scan()
            .with_snapshot(id)
            .own_branch()
            .plan()
            .await?
            .splits;
        let mut read = table.new_read().with_row_kinds();
        if let Some(cols) = &self.builder.projection {
            read = read.with_projection(cols.clone());
        }
        let schema = self.schema.clone();
        Ok(read
            .to_stream(splits)?
            .map(move |b| b.and_then(|b| additions(&schema, &b)))
            .boxed())
    }

    /// Snapshot `id` must still exist (not expired) to be read; for its changes only
    /// (`changes`), a long-lived changelog of it will do.
    async fn check_not_expired(&mut self, id: i64, changes: bool) -> Result<()> {
        let sm = self.builder.table.snapshot_manager();
        match sm.earliest_id().await? {
            Some(earliest) if id < earliest => {
                if changes
                    && long_lived_changelog(&self.builder.table, id)
                        .await?
                        .is_some()
                {
                    return Ok(());
                }
                Err(ErrorDetail::InvalidArgument(format!(
                    "streaming read of {}: snapshot {id} expired before it was read (the \
                     earliest snapshot is {earliest}{}); read with a consumer id so that \
                     expiry keeps the snapshots it still needs, or retain snapshots longer \
                     (snapshot.num-retained.min, snapshot.time-retained) or their changelogs \
                     (changelog.num-retained.min, changelog.time-retained)",
                    self.builder.table.identifier(),
                    if changes {
                        ", and there is no changelog/changelog-".to_string() + &id.to_string()
                    } else {
                        ", and a whole-snapshot read needs the snapshot".to_string()
                    }
                ))
                .into())
            }
            _ => Ok(()),
        }
    }

    /// The consumer, if any, reads `next` next.
    async fn record(&mut self, next: i64) -> Result<()> {
        match &self.consumers {
            Some((consumers, id)) => consumers.reset(id, next).await,
            None => Ok(()),
        }
    }
}

/// `changelog/changelog-<id>` when snapshot `id` is gone and the table's changelog lifecycle
/// is decoupled (Java `NextSnapshotFetcher.getNextSnapshot`).
async fn long_lived_changelog(
    table: &Table,
    id: i64,
) -> Result<Option<strata_spec::snapshot::Snapshot>> {
    if !crate::maintenance::changelog_decoupled(table)? {
        return Ok(None);
    }
    if table
        .file_io()
        .exists(&table.paths().snapshot_file(id))
        .await?
    {
        return Ok(None);
    }
    table.changelog_manager().get(id).await
}

/// The first id after the latest snapshot or long-lived changelog committed at or before `ms`,
/// searching from the earliest changelog (Java `earlierThanTimeMills` with
/// `startFromChangelog`).
async fn first_after_with_changelogs(
    table: &Table,
    ms: i64,
    earliest: Option<i64>,
    latest: Option<i64>,
) -> Result<i64> {
    let cm = table.changelog_manager();
    let sm = table.snapshot_manager();
    let (Some(first), Some(latest)) = (cm.earliest_id().await?.or(earliest), latest) else {
        return Ok(latest.map_or(1, |l| l + 1));
    };
    let at = |id: i64| {
        let (cm, sm) = (cm.clone(), sm.clone());
        async move {
            match sm.snapshot(id).await {
                Ok(s) => Ok(s.time_millis),
                Err(e) if e.is_snapshot_not_found() => Ok(cm.changelog(id).await?.time_millis),
                Err(e) => Err(e),
            }
        }
    };
    if at(first).await? > ms {
        return Ok(first);
    }
    // The last id in [first, latest] committed at or before `ms`.
    let (mut lo, mut hi) = (first, latest);
    while lo < hi {
        let mid = lo + (hi - lo + 1) / 2;
        if at(mid).await? <= ms {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Ok(lo + 1)
}

/// The additions of a whole-snapshot read (the deletes a merge keeps for the audit log go), in
/// the stream's schema.
fn additions(schema: &SchemaRef, batch: &RecordBatch) -> Result<RecordBatch> {
    let kept = crate::read::row_kinds::additions(batch)?;
    // The stream's batches all have the incremental read's schema.
    RecordBatch::try_new(schema.clone(), kept.columns().to_vec())
        .map_err(|e| Error::arrow("a whole-snapshot read in the stream's schema", e))
}
