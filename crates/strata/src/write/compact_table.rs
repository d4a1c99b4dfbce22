//! Compaction of a whole table, or of selected partitions and buckets, in one COMPACT commit:
//! what `strata compact`, SQL's `CALL sys.compact` and the Python `compact()` share.
//!
//! Buckets are those holding a live file in the latest snapshot (level-0 files included, which
//! scans of first-row and deletion-vector tables do not list), filtered by partition specs
//! (`dt=1,hh=2`; several specs select their union, as Paimon's `partitions => 'dt=1;dt=2'`) and
//! an optional bucket. Each bucket is compacted by the table's compaction strategy (or fully),
//! and everything commits in one snapshot; a failure deletes the files written. Append tables
//! (no primary key) are compacted as Java's explicit append compaction (`append_compact`).
//!
//! `write-only = true` tells the table's *writers* not to compact, so that a dedicated
//! compactor does: like Java's `CompactAction` (which copies the table with `write-only`
//! false for its own writer), the compaction here picks with the table's strategy whatever
//! that option says. A compaction that loses to a concurrent commit (another writer compacted
//! the same files) is planned again on the new latest snapshot, within `commit.max-retries`
//! and `commit.timeout`.

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::merge_entries;
use strata_spec::Datum;

use super::CompactionMetrics;
use crate::table::Table;
use crate::{Error, Result};

/// What to compact.
#[derive(Clone, Debug, Default)]
pub struct CompactRequest {
    /// Partition specs (`[("dt", "1")]`); a bucket is selected when it matches any spec. Empty:
    /// every partition.
    pub partitions: Vec<Vec<(String, String)>>,
    /// Only this bucket.
    pub bucket: Option<i32>,
    /// Full compaction (everything into the highest level; append tables: every small file of
    /// a partition or bucket rewritten, see `append_compact`) instead of the table's strategy.
    pub full: bool,
}

/// What a compaction did.
#[derive(Clone, Debug, Default)]
pub struct CompactReport {
    /// (partition, bucket) pairs visited.
    pub buckets: Vec<(BinaryRow, i32)>,
    /// The COMPACT snapshot, `None` when nothing needed compaction.
    pub snapshot: Option<i64>,
    /// One record per compaction task.
    pub metrics: Vec<CompactionMetrics>,
}

impl Table {
    /// Every (partition, bucket) holding a live file in the latest snapshot, level 0 included,
    /// in (partition bytes, bucket) order.
    pub async fn live_buckets(&self) -> Result<Vec<(BinaryRow, i32)>> {
        let Some(snapshot) = self.snapshot_manager().latest().await? else {
            return Ok(Vec::new());
        };
        let store = self.manifest_store();
        let metas = store.data_manifests(&snapshot).await?;
        let batches = store.read_manifests(&metas).await?;
        let merged = merge_entries(batches.into_iter().flatten())?;
        let mut out: Vec<(BinaryRow, i32)> = Vec::new();
        for e in merged.adds {
            if !out.contains(&(e.partition.clone(), e.bucket)) {
                out.push((e.partition, e.bucket));
            }
        }
        out.sort_by(|a, b| (a.0.as_bytes(), a.1).cmp(&(b.0.as_bytes(), b.1)));
        Ok(out)
    }

    /// The buckets `request` selects (see [`CompactRequest`]).
    pub async fn select_buckets(&self, request: &CompactRequest) -> Result<Vec<(BinaryRow, i32)>> {
        let mut specs: Vec<Vec<(usize, Option<Datum>)>> = Vec::new();
        for spec in &request.partitions {
            specs.push(self.partition_computer().parse_partial_spec(spec)?);
        }
        let types = self.schema().partition_type().types();
        let mut out = Vec::new();
        for (p, b) in self.live_buckets().await? {
            if request.bucket.is_some_and(|want| want != b) {
                continue;
            }
            let values = p.to_datums(&types)?;
            let matches = specs.is_empty()
                || specs
                    .iter()
                    .any(|s| s.iter().all(|(i, v)| values.get(*i) == Some(v)));
            if matches {
                out.push((p, b));
            }
        }
        Ok(out)
    }

    /// Compacts the buckets `request` selects in one COMPACT commit; `progress` is called after
    /// each bucket with (done, total).
    pub async fn compact(
        &self,
        request: &CompactRequest,
        progress: &(dyn Fn(usize, usize) + Send + Sync),
    ) -> Result<CompactReport> {
        // Java `CompactAction`: the compactor's own writer is not write-only.
        let table = self.with_dynamic_options([("write-only".to_string(), "false".to_string())])?;
        let opts = table.options();
        let max_retries = opts.commit_max_retries()?.max(0) as u32;
        let timeout = opts.commit_timeout()?;
        let min_wait = opts.commit_min_retry_wait()?;
        let max_wait = opts.commit_max_retry_wait()?;
        let started = std::time::Instant::now();
        let mut attempt = 0u32;
        loop {
            match table.compact_once(request, progress).await {
                Attempt::Lost(e)
                    if attempt < max_retries && timeout.is_none_or(|t| started.elapsed() < t) =>
                {
                    attempt += 1;
                    let wait = min_wait
                        .saturating_mul(1u32 << attempt.min(16))
                        .min(max_wait);
                    tokio::time::sleep(wait).await;
                    drop(e);
                }
                Attempt::Lost(e) | Attempt::Failed(e) => return Err(e),
                Attempt::Done(report) => return Ok(report),
            }
        }
    }

    /// One [`Self::compact`] attempt on the latest snapshot.
    async fn compact_once(
        &self,
        request: &CompactRequest,
        progress: &(dyn Fn(usize, usize) + Send + Sync),
    ) -> Attempt {
        if self.options().bucket().ok() == Some(strata_spec::options::POSTPONE_BUCKET) {
            return self.compact_postpone_once(request, progress).await;
        }
        if !self.is_primary_key_table() {
            return self.compact_append_once(request, progress).await;
        }
        let selected = match self.select_buckets(request).await {
            Ok(s) if s.is_empty() => return Attempt::Done(CompactReport::default()),
            Ok(s) => s,
            Err(e) => return Attempt::Failed(e),
        };
        let mut write = match self.new_write() {
            Ok(w) => w,
            Err(e) => return Attempt::Failed(e),
        };
        let mut committing = false;
        let result = async {
            for (i, (p, b)) in selected.iter().enumerate() {
                write
                    .compact(&|wp, wb| wp == p && wb == *b, request.full)
                    .await?;
                progress(i + 1, selected.len());
            }
            let messages = write.prepare_commit().await?;
            let metrics = write.take_compaction_metrics();
            committing = true;
            let committed = self.new_commit()?.commit_messages(messages, None).await?;
            Ok::<_, Error>((committed, metrics))
        }
        .await;
        match result {
            Ok((committed, metrics)) => Attempt::Done(CompactReport {
                buckets: selected,
                snapshot: committed.compact,
                metrics,
            }),
            Err(e) => {
                if !e.may_have_committed() {
                    write.abort().await;
                }
                // Only losing the commit to a concurrent one is worth planning again.
                if committing && e.kind() == crate::ErrorKind::Conflict && !e.may_have_committed() {
                    Attempt::Lost(e)
                } else {
                    Attempt::Failed(e)
                }
            }
        }
    }
}

/// The outcome of one compaction attempt.
pub(super) enum Attempt {
    Done(CompactReport),
    /// The COMPACT commit lost to a concurrent commit: plan again on the new snapshot.
    Lost(Error),
    Failed(Error),
}
