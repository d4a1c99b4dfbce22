//! Incremental scans: the changes between two snapshots (Paimon's batch `incremental-between`
//! reads, Java `AbstractDataTableScan.createIncrementalStartingScanner`).
//!
//! The range `(START, END]` — START exclusive, END inclusive — is given as two snapshot ids or
//! two tag names (`incremental-between`) or two times (`incremental-between-timestamp`), and
//! read in one of three ways (`incremental-between-scan-mode`):
//!
//! * `delta` (Java `IncrementalDeltaStartingScanner`, `ScanMode.DELTA`): the files the APPEND
//!   snapshots of the range added (their delta manifests); COMPACT and OVERWRITE snapshots are
//!   skipped. Every record of those files is returned as written, with its row kind — not
//!   merged, no deletion vectors applied;
//! * `changelog` (`ScanMode.CHANGELOG`): the changelog files (`changelogManifestList`) of every
//!   snapshot of the range except OVERWRITE ones, every record with its kind;
//! * `diff` (Java `IncrementalDiffStartingScanner`, `SnapshotReader.readIncrementalDiff`,
//!   `IncrementalDiffSplitRead`): per bucket, the live files of END and START minus the files
//!   both hold; a primary-key table merges each side and compares them key by key
//!   ([`crate::read`]), an append table returns the rows of END's new files;
//! * `auto` (the default): `changelog` when the table's `changelog-producer` is not `none`,
//!   else `delta`.
//!
//! Java's rules kept here: START = END is an empty read, START > END an error; snapshot ids
//! must lie in `[earliest - 1, latest]` for delta and changelog reads, and both snapshots must
//! exist for a diff; a delta manifest holding a DELETE entry is an error. Two tag names are
//! read as a diff of the tags' snapshots whatever the mode, unless
//! `incremental-between-tag-to-snapshot` is true (then as a delta or changelog read between the
//! tags' snapshot ids). Times resolve to the latest snapshot at or before each time (Java
//! `SnapshotManager.earlierOrEqualTimeMills`); a start before the earliest snapshot starts
//! before it for delta and changelog reads, and at it for a diff (Paimon 1.4 and 2.0; later
//! Java reads END whole when the earliest snapshot is the first). A diff between snapshots of
//! different schemas with different bucket counts is an error (Java
//! `TimeTravelUtil.checkRescaleBucketForIncrementalDiffQuery`).
//!
//! strata's own refusal: `changelog` on a table whose `changelog-producer` is `none` is an
//! error (Java returns no rows), since no snapshot of such a table holds changelog files.

use crate::error::ErrorDetail;
use std::collections::BTreeMap;

use strata_spec::manifest::{FileKind, ManifestEntry};
use strata_spec::options::ChangelogProducer;
use strata_spec::snapshot::{CommitKind, Snapshot};

use super::entries::all_live_entries;
use super::incremental_between::{
    IncrementalBetween, IncrementalMode, INCREMENTAL_BETWEEN, INCREMENTAL_BETWEEN_SCAN_MODE,
    INCREMENTAL_BETWEEN_TAG_TO_SNAPSHOT, INCREMENTAL_BETWEEN_TIMESTAMP,
};
use super::plan::{add_to_split, DataSplit};
use super::read_audit::{describe_entry, option_error};
use crate::table::Table;
use crate::{Error, Result};

/// One unit of an incremental read, of one (partition, bucket).
#[derive(Clone, Debug)]
pub enum IncrementalSplit {
    /// Delta or changelog files: every record as written, with its row kind (no merging, no
    /// deletion vectors).
    Records(DataSplit),
    /// A diff: the files only START holds (`before`, read as of START) and only END holds
    /// (`after`, as of END).
    Diff {
        /// The files only START holds, read as of START.
        before: DataSplit,
        /// The files only END holds, read as of END.
        after: DataSplit,
        /// START and END: their deletion vectors are read from this metadata (a tag's copy
        /// outlives its snapshot file).
        snapshots: Vec<Snapshot>,
    },
}

/// The result of planning an incremental scan.
#[derive(Clone, Debug, Default)]
pub struct IncrementalPlan {
    /// The mode read (`Auto` resolved; `Diff` for two tags read as a diff).
    pub mode: IncrementalMode,
    /// START and END as snapshot ids, `None` for an empty range.
    pub start_snapshot: Option<i64>,
    /// END's snapshot id, `None` for an empty range.
    pub end_snapshot: Option<i64>,
    /// What to read, one split per (partition, bucket) and kind of read.
    pub splits: Vec<IncrementalSplit>,
}

impl Table {
    /// A scan of the changes between two snapshots ([`IncrementalScan`]).
    pub fn new_incremental_scan(&self, between: IncrementalBetween) -> IncrementalScan {
        IncrementalScan {
            table: self.clone(),
            between,
            mode: IncrementalMode::Auto,
            tag_to_snapshot: false,
            streaming: false,
        }
    }

    /// The changes of one snapshot, `(id - 1, id]` in `auto` mode, planned from the metadata
    /// given: a snapshot, or the long-lived changelog `changelog/changelog-<id>` of a snapshot
    /// that expired under a decoupled changelog lifecycle (what Java's follow-up scanners
    /// read from the snapshot `NextSnapshotFetcher` returns). Streaming reads use it.
    pub async fn plan_snapshot_changes(&self, snapshot: &Snapshot) -> Result<IncrementalPlan> {
        let scan = self
            .new_incremental_scan(IncrementalBetween::ids(snapshot.id - 1, snapshot.id))
            .for_streaming();
        super::read_audit::check_options(self, true)?;
        refuse_data_evolution(self)?;
        let mode = scan.range_mode()?;
        let mut groups = BTreeMap::new();
        scan.add_changes(snapshot, mode, snapshot.id, &mut groups)
            .await?;
        Ok(IncrementalPlan {
            mode,
            start_snapshot: Some(snapshot.id - 1),
            end_snapshot: Some(snapshot.id),
            splits: groups
                .into_values()
                .map(IncrementalSplit::Records)
                .collect(),
        })
    }
}

/// Builder of an incremental scan: [`Table::new_incremental_scan`], or
/// [`IncrementalScan::from_options`] for the table's `incremental-between*` options. Read its
/// plan with [`crate::read::IncrementalRead`].
#[derive(Clone, Debug)]
pub struct IncrementalScan {
    table: Table,
    between: IncrementalBetween,
    mode: IncrementalMode,
    tag_to_snapshot: bool,
    /// Planned for a streaming read (its options are checked as a stream's, and the postpone
    /// bucket of a `bucket = -2` table without a changelog producer is read, as Java's
    /// streaming scans do; batch reads see real buckets only).
    streaming: bool,
}

/// What the range resolved to.
enum Resolved {
    Empty,
    /// Delta or changelog reads of the snapshots `(start, end]`.
    Range(i64, i64, IncrementalMode),
    Diff(Box<Snapshot>, Box<Snapshot>),
}

impl IncrementalScan {
    /// The scan the table's options ask for (`incremental-between` or
    /// `incremental-between-timestamp`, with `incremental-between-scan-mode` and
    /// `incremental-between-tag-to-snapshot`), `None` when neither range option is set.
    pub fn from_options(table: &Table) -> Result<Option<IncrementalScan>> {
        let o = table.options();
        let between = match (
            o.get(INCREMENTAL_BETWEEN),
            o.get(INCREMENTAL_BETWEEN_TIMESTAMP),
        ) {
            (None, None) => return Ok(None),
            // Java reads incremental-between first.
            (Some(b), _) => IncrementalBetween::parse(b)?,
            (None, Some(t)) => IncrementalBetween::parse_timestamps(t)?,
        };
        let mut scan = table.new_incremental_scan(between);
        if let Some(m) = o.get(INCREMENTAL_BETWEEN_SCAN_MODE) {
            scan.mode = IncrementalMode::parse(m)?;
        }
        scan.tag_to_snapshot = o
            .get_bool(INCREMENTAL_BETWEEN_TAG_TO_SNAPSHOT)
            .map_err(option_error)?
            .unwrap_or(false);
        Ok(Some(scan))
    }

    /// Plans the scan for a streaming read (see the field's docs).
    pub(crate) fn for_streaming(mut self) -> Self {
        self.streaming = true;
        self
    }

    /// Whether an entry of `bucket` is read: `bucket = -2` tables are read from their real
    /// buckets only, except by streams of tables without a changelog producer (Java
    /// `AbstractBatchTableScan` / `DataTableStreamScan` with `onlyReadRealBuckets`).
    fn reads_bucket(&self, bucket: i32) -> Result<bool> {
        let opts = self.table.options();
        if bucket != strata_spec::options::POSTPONE_BUCKET
            || opts.bucket().map_err(option_error)? != strata_spec::options::POSTPONE_BUCKET
        {
            return Ok(true);
        }
        Ok(self.streaming
            && opts.changelog_producer().map_err(option_error)? == ChangelogProducer::None)
    }

    /// The mode (default [`IncrementalMode::Auto`]).
    pub fn with_mode(mut self, mode: IncrementalMode) -> Self {
        self.mode = mode;
        self
    }

    /// Two tags read as the snapshot range between them (delta or changelog) instead of a
    /// diff (`incremental-between-tag-to-snapshot`).
    pub fn with_tag_to_snapshot(mut self, on: bool) -> Self {
        self.tag_to_snapshot = on;
        self
    }

    /// `delta` or `changelog` for `auto` (Java `toSnapshotScanMode`).
    fn range_mode(&self) -> Result<IncrementalMode> {
        let producer = self
            .table
            .options()
            .changelog_producer()
            .map_err(option_error)?;
        let mode = match self.mode {
            IncrementalMode::Auto if producer == ChangelogProducer::None => IncrementalMode::Delta,
            IncrementalMode::Auto => IncrementalMode::Changelog,
            m => m,
        };
        if mode == IncrementalMode::Changelog && producer == ChangelogProducer::None {
            return Err(ErrorDetail::InvalidOption {
                key: INCREMENTAL_BETWEEN_SCAN_MODE.into(),
                message: format!(
                    "changelog: table {} has changelog-producer = none, so its snapshots hold \
                     no changelog files (Java Paimon would return no rows); read it in delta \
                     or diff mode",
                    self.table.identifier()
                ),
            }
            .into());
        }
        Ok(mode)
    }

    /// Plans the splits of the range.
    pub async fn plan(&self) -> Result<IncrementalPlan> {
        super::read_audit::check_options(&self.table, self.streaming)?;
        refuse_data_evolution(&self.table)?;
        let resolved = match &self.between {
            IncrementalBetween::Snapshots { start, end } => {
                self.resolve_snapshots(start, end).await?
            }
            IncrementalBetween::Timestamps { start, end } => {
                self.resolve_timestamps(*start, *end).await?
            }
        };
        match resolved {
            Resolved::Empty => Ok(IncrementalPlan {
                mode: if self.mode == IncrementalMode::Diff {
                    IncrementalMode::Diff
                } else {
                    self.range_mode()?
                },
                ..IncrementalPlan::default()
            }),
            Resolved::Range(start, end, mode) => Ok(IncrementalPlan {
                mode,
                start_snapshot: Some(start),
                end_snapshot: Some(end),
                splits: self.plan_range(start, end, mode).await?,
            }),
            Resolved::Diff(start, end) => Ok(IncrementalPlan {
                mode: IncrementalMode::Diff,
                start_snapshot: Some(start.id),
                end_snapshot: Some(end.id),
                splits: self.plan_diff(&start, &end).await?,
            }),
        }
    }

    fn invalid(&self, key: &str, message: String) -> Error {
        ErrorDetail::InvalidOption {
            key: key.into(),
            message: format!("table {}: {message}", self.table.identifier()),
        }
        .into()
    }

    async fn resolve_snapshots(&self, start: &str, end: &str) -> Result<Resolved> {
        let (start_tag, end_tag) = (self.tag(start).await?, self.tag(end).await?);
        if let (Some(s), Some(e)) = (start_tag, end_tag) {
            if self.tag_to_snapshot {
                if self.mode == IncrementalMode::Diff {
                    return Err(self.invalid(
                        INCREMENTAL_BETWEEN_SCAN_MODE,
                        "diff cannot be combined with incremental-between-tag-to-snapshot = \
                         true (Java: unsupported incremental scan mode DIFF)"
                            .into(),
                    ));
                }
                return self.checked_range(s.id, e.id).await;
            }
            if e.id < s.id {
                return Err(self.invalid(
                    INCREMENTAL_BETWEEN,
                    format!(
                        "tag end {end} with snapshot id {} should be >= tag start {start} with \
                         snapshot id {}",
                        e.id, s.id
                    ),
                ));
            }
            if s.id == e.id {
                return Ok(Resolved::Empty);
            }
            return Ok(Resolved::Diff(Box::new(s), Box::new(e)));
        }
        let (Ok(start_id), Ok(end_id)) = (start.parse::<i64>(), end.parse::<i64>()) else {
            return Err(self.invalid(
                INCREMENTAL_BETWEEN,
                format!(
                    "{start},{end}: didn't find two tags for start '{start}' and end '{end}', \
                     and they are not two snapshot ids"
                ),
            ));
        };
        if end_id < start_id {
            return Err(self.invalid(
                INCREMENTAL_BETWEEN,
                format!(
                    "{start_id},{end_id}: the end snapshot {end_id} is before the start \
                     snapshot {start_id} (START is exclusive, END inclusive)"
                ),
            ));
        }
        let sm = self.table.snapshot_manager();
        if sm.earliest_id().await?.is_none() || start_id == end_id {
            return Ok(Resolved::Empty);
        }
        if self.mode == IncrementalMode::Diff {
            let snapshot = |id: i64| async move {
                sm.snapshot(id).await.map_err(|e| match e {
                    e if e.is_snapshot_not_found() => self.invalid(
                        INCREMENTAL_BETWEEN,
                        format!(
                            "{start_id},{end_id}: snapshot {id} does not exist (expired or \
                             never written); a diff reads both snapshots"
                        ),
                    ),
                    other => other,
                })
            };
            let (s, e) = (snapshot(start_id).await?, snapshot(end_id).await?);
            return Ok(Resolved::Diff(Box::new(s), Box::new(e)));
        }
        self.checked_range(start_id, end_id).await
    }

    /// Java `IncrementalDeltaStartingScanner.betweenSnapshotIds`: ids within
    /// `[earliest - 1, latest]`.
    async fn checked_range(&self, start: i64, end: i64) -> Result<Resolved> {
        let sm = self.table.snapshot_manager();
        let (earliest, latest) = (sm.earliest_id().await?, sm.latest_id().await?);
        let (Some(earliest), Some(latest)) = (earliest, latest) else {
            return Ok(Resolved::Empty);
        };
        if start < earliest - 1 || end > latest {
            return Err(self.invalid(
                INCREMENTAL_BETWEEN,
                format!(
                    "the snapshot range ({start}, {end}] is out of the available snapshots \
                     [{earliest}, {latest}] (older snapshots expired); START may be at least \
                     {}",
                    earliest - 1
                ),
            ));
        }
        if start == end {
            return Ok(Resolved::Empty);
        }
        Ok(Resolved::Range(start, end, self.range_mode()?))
    }

    /// Java `AbstractDataTableScan` for `incremental-between-timestamp`, then
    /// `betweenTimestamps` of the delta or diff scanner.
    async fn resolve_timestamps(&self, start: i64, end: i64) -> Result<Resolved> {
        if end < start {
            return Err(self.invalid(
                INCREMENTAL_BETWEEN_TIMESTAMP,
                format!(
                    "{start},{end}: ending timestamp {end} should be >= starting timestamp {start}"
                ),
            ));
        }
        let sm = self.table.snapshot_manager();
        let (Some(earliest_id), Some(latest_id)) = (sm.earliest_id().await?, sm.latest_id().await?)
        else {
            return Ok(Resolved::Empty);
        };
        let earliest = sm.snapshot(earliest_id).await?;
        let latest = sm.snapshot(latest_id).await?;
        if start == end || start > latest.time_millis || end < earliest.time_millis {
            return Ok(Resolved::Empty);
        }
        let start_snapshot = self.at_or_before(start, &earliest, latest_id).await?;
        let end_snapshot = match self.at_or_before(end, &earliest, latest_id).await? {
            Some(s) => s,
            None => latest,
        };
        if self.mode == IncrementalMode::Diff {
            let start_snapshot = start_snapshot.unwrap_or(earliest);
            return Ok(Resolved::Diff(
                Box::new(start_snapshot),
                Box::new(end_snapshot),
            ));
        }
        let start_id = match start_snapshot {
            Some(s) if earliest.time_millis <= start => s.id,
            _ => earliest.id - 1,
        };
        Ok(Resolved::Range(
            start_id,
            end_snapshot.id,
            self.range_mode()?,
        ))
    }

    /// The latest snapshot committed at or before `millis` (Java `earlierOrEqualTimeMills`).
    async fn at_or_before(
        &self,
        millis: i64,
        earliest: &Snapshot,
        latest_id: i64,
    ) -> Result<Option<Snapshot>> {
        if earliest.time_millis > millis {
            return Ok(None);
        }
        let sm = self.table.snapshot_manager();
        let (mut lo, mut hi) = (earliest.id, latest_id);
        let mut found = None;
        while lo <= hi {
            let mid = lo + (hi - lo) / 2;
            let s = sm.snapshot(mid).await?;
            if s.time_millis > millis {
                hi = mid - 1;
            } else if s.time_millis < millis {
                lo = mid + 1;
                found = Some(s);
            } else {
                found = Some(s);
                break;
            }
        }
        Ok(found)
    }

    /// Tag `name`'s snapshot (Java `Tag.trimToSnapshot`), `None` without such a tag. Tag
    /// files are `tag/tag-<name>` holding the snapshot's JSON (see
    /// `crate::maintenance::tags`).
    async fn tag(&self, name: &str) -> Result<Option<Snapshot>> {
        let path = self.table.paths().tag_dir().join(format!("tag-{name}"));
        let io = self.table.file_io();
        let Some(bytes) = io.get_opt(&path).await? else {
            return Ok(None);
        };
        let text = String::from_utf8_lossy(&bytes);
        Snapshot::from_json(&text)
            .map(Some)
            .map_err(|e| Error::corrupt(io.display(&path), e))
    }

    /// Delta or changelog files of the snapshots `(start, end]`, grouped by bucket.
    async fn plan_range(
        &self,
        start: i64,
        end: i64,
        mode: IncrementalMode,
    ) -> Result<Vec<IncrementalSplit>> {
        let sm = self.table.snapshot_manager();
        let mut groups: BTreeMap<(Vec<u8>, i32), DataSplit> = BTreeMap::new();
        for id in start + 1..=end {
            let snapshot = sm.snapshot(id).await?;
            self.add_changes(&snapshot, mode, end, &mut groups).await?;
        }
        Ok(groups
            .into_values()
            .map(IncrementalSplit::Records)
            .collect())
    }

    /// Adds the delta or changelog files of `snapshot` to `groups` (splits of snapshot `end`).
    async fn add_changes(
        &self,
        snapshot: &Snapshot,
        mode: IncrementalMode,
        end: i64,
        groups: &mut BTreeMap<(Vec<u8>, i32), DataSplit>,
    ) -> Result<()> {
        let id = snapshot.id;
        let store = self.table.manifest_store();
        let list = match mode {
            // Java: COMPACT and OVERWRITE snapshots are ignored.
            IncrementalMode::Delta if snapshot.commit_kind == CommitKind::Append => {
                Some(&snapshot.delta_manifest_list)
            }
            IncrementalMode::Changelog if snapshot.commit_kind != CommitKind::Overwrite => {
                snapshot.changelog_manifest_list.as_ref()
            }
            _ => None,
        };
        let Some(list) = list else { return Ok(()) };
        let metas = store.read_list(list).await?;
        for entries in store.read_manifests(&metas).await? {
            for e in entries {
                if e.kind != FileKind::Add {
                    return Err(ErrorDetail::InvalidArgument(format!(
                        "incremental {} read of table {}: snapshot {id} deletes file {} in \
                         its {} manifests; delta and changelog manifests should only add \
                         files (Java refuses them too)",
                        mode.as_str(),
                        self.table.identifier(),
                        e.file.file_name,
                        mode.as_str()
                    ))
                    .into());
                }
                if !self.reads_bucket(e.bucket)? {
                    continue;
                }
                super::read_audit::check_file(&self.table, &e.file, || {
                    describe_entry(&self.table, &e)
                })?;
                push(groups, end, e);
            }
        }
        Ok(())
    }

    /// Per bucket, the live files only one of the two snapshots holds.
    async fn plan_diff(&self, start: &Snapshot, end: &Snapshot) -> Result<Vec<IncrementalSplit>> {
        if start.schema_id != end.schema_id {
            let sm = self.table.schema_manager();
            let buckets = |id: i64| async move {
                let schema = sm.schema(id).await?;
                schema.options().bucket().map_err(option_error)
            };
            let (a, b) = (
                buckets(start.schema_id).await?,
                buckets(end.schema_id).await?,
            );
            if a != b {
                return Err(self.invalid(
                    INCREMENTAL_BETWEEN,
                    format!(
                        "a diff of snapshots {} and {}: their bucket counts differ ({a}, {b}), \
                         which incremental diff reads do not support",
                        start.id, end.id
                    ),
                ));
            }
        }
        let store = self.table.manifest_store();
        let before =
            all_live_entries(&self.table, &store.data_manifests(start).await?, None).await?;
        let after = all_live_entries(&self.table, &store.data_manifests(end).await?, None).await?;
        let mut befores: BTreeMap<(Vec<u8>, i32), DataSplit> = BTreeMap::new();
        let mut afters: BTreeMap<(Vec<u8>, i32), DataSplit> = BTreeMap::new();
        for (entries, id, side) in [
            (before, start.id, &mut befores),
            (after, end.id, &mut afters),
        ] {
            for e in entries {
                if !self.reads_bucket(e.bucket)? {
                    continue;
                }
                super::read_audit::check_file(&self.table, &e.file, || {
                    describe_entry(&self.table, &e)
                })?;
                push(side, id, e);
            }
        }
        let keys: std::collections::BTreeSet<(Vec<u8>, i32)> =
            befores.keys().chain(afters.keys()).cloned().collect();
        let mut out = Vec::new();
        for key in keys {
            let before = befores.remove(&key);
            let after = afters.remove(&key);
            let template = after
                .as_ref()
                .or(before.as_ref())
                .expect("key of one side")
                .clone();
            let empty = |snapshot_id: i64| DataSplit {
                snapshot_id,
                files: Vec::new(),
                ..template.clone()
            };
            let mut before = before.unwrap_or_else(|| empty(start.id));
            let mut after = after.unwrap_or_else(|| empty(end.id));
            // Java `SnapshotReaderImpl.deduplicate`: files equal in both (level included).
            let common: Vec<_> = before
                .files
                .iter()
                .filter(|f| after.files.contains(f))
                .cloned()
                .collect();
            before.files.retain(|f| !common.contains(f));
            after.files.retain(|f| !common.contains(f));
            if before.files.is_empty() && after.files.is_empty() {
                continue;
            }
            out.push(IncrementalSplit::Diff {
                before,
                after,
                snapshots: vec![start.clone(), end.clone()],
            });
        }
        Ok(out)
    }
}

/// Adds `e`'s file to the split of its (partition, bucket).
fn push(groups: &mut BTreeMap<(Vec<u8>, i32), DataSplit>, snapshot_id: i64, e: ManifestEntry) {
    add_to_split(groups, snapshot_id, e, false);
}

/// Refuses the changes of snapshots of a data-evolution table: a snapshot that updates some
/// columns adds files holding only those columns of rows written earlier (`writeCols`), which
/// are rows only once stitched by row id with the files of the rest of their range, as Java's
/// `DataEvolutionSplitRead` stitches a whole snapshot. Read on their own they would be rows
/// with NULL in every other column, so strata refuses instead of returning them.
fn refuse_data_evolution(table: &Table) -> Result<()> {
    if !table.options().data_evolution_enabled()? {
        return Ok(());
    }
    Err(ErrorDetail::UnsupportedOption {
        key: "data-evolution.enabled".into(),
        message: format!(
            "an incremental or streaming read of {}: the files a snapshot adds to a \
             data-evolution table may hold only some columns of rows written earlier, and \
             strata stitches them by row id only in reads of a whole snapshot; read a snapshot \
             (scan.snapshot-id, --snapshot) instead",
            table.identifier()
        ),
    }
    .into())
}
