//! Rescaling buckets: [`Table::rescale`] rewrites chosen partitions into a new bucket count in
//! one OVERWRITE commit — Java's `RescaleAction` / `RescaleProcedure` (`CALL sys.rescale`),
//! what `strata rescale` and SQL `CALL sys.rescale(table => …, bucket_num => …, partition =>
//! …)` run.
//!
//! As in Java: the latest snapshot's rows of the selected partitions (a batch read, so a
//! postpone-bucket table's real buckets only) are written by the table with `bucket` set to the
//! new count and committed as an INSERT OVERWRITE of the partition spec (every partition when
//! the spec is empty); `bucket_num` defaults to the table's `bucket` (and must be given for a
//! postpone-bucket table); a table without snapshots, or a spec without data files in real
//! buckets, is refused ("No need to rescale"). Java protects the rewrite with
//! `commit.strict-mode.last-safe-snapshot` (a commit that landed while the rows were read
//! would be lost); strata refuses to commit when the latest snapshot moved since the read.
//!
//! strata refuses one case Java lets through: a partition of a postpone-bucket table whose
//! postpone bucket still holds files — Java's overwrite would delete those rows unread; compact
//! the table first.

use futures::TryStreamExt;
use strata_spec::binary_row::BinaryRow;
use strata_spec::options::POSTPONE_BUCKET;
use strata_spec::Datum;

use crate::commit::OverwriteScope;
use crate::error::ErrorDetail;
use crate::table::Table;
use crate::Result;

/// What to rescale.
#[derive(Clone, Debug, Default)]
pub struct RescaleRequest {
    /// The new bucket count (`None`: the table's `bucket`, which must then be a count).
    pub bucket_num: Option<i32>,
    /// The partition spec (`[("dt", "1")]`, possibly partial); empty: every partition.
    pub partition: Vec<(String, String)>,
}

/// What a rescale did.
#[derive(Clone, Debug, Default)]
pub struct RescaleReport {
    /// The bucket count the partitions were rewritten with.
    pub bucket_num: i32,
    /// Rows rewritten.
    pub rows: u64,
    /// The OVERWRITE snapshot.
    pub snapshot: Option<i64>,
}

impl Table {
    /// Rewrites the partitions `request` selects into `bucket_num` buckets in one OVERWRITE
    /// commit (see the module docs).
    pub async fn rescale(&self, request: &RescaleRequest) -> Result<RescaleReport> {
        let id = self.identifier().to_string();
        let refuse = |m: String| -> crate::Error { ErrorDetail::InvalidArgument(m).into() };
        let table_bucket = self.options().bucket()?;
        let bucket_num = match request.bucket_num {
            Some(n) if n > 0 => n,
            Some(n) => return Err(refuse(format!("rescaling {id}: bucket_num must be positive, got {n}"))),
            None if table_bucket == POSTPONE_BUCKET => {
                return Err(refuse(
                    "When rescaling postpone bucket tables, you must provide the resulting bucket number."
                        .to_string(),
                ))
            }
            None if table_bucket > 0 => table_bucket,
            None => {
                return Err(refuse(format!(
                    "rescaling {id}: bucket = {table_bucket} has no bucket count to rescale to; \
                     give bucket_num"
                )))
            }
        };
        if table_bucket == -1 {
            return Err(ErrorDetail::Unsupported(format!(
                "rescaling {id}: bucket = -1 (dynamic or unaware buckets) has no fixed bucket \
                 count to rescale (Java refuses changing bucket from -1)"
            ))
            .into());
        }
        let Some(snapshot) = self.snapshot_manager().latest().await? else {
            return Err(refuse(format!(
                "Table {id} has no snapshot. No need to rescale."
            )));
        };
        let spec = self
            .partition_computer()
            .parse_partial_spec(&request.partition)?;
        let types = self.schema().partition_type().types();
        let selected = |p: &BinaryRow| -> Result<bool> {
            let values = p.to_datums(&types)?;
            Ok(spec.iter().all(|(i, v)| values.get(*i) == Some(v)))
        };
        // Java's `currentBucketNum`: the spec must hold data files in real buckets; strata
        // also refuses postponed rows the overwrite would drop.
        let mut has_real = false;
        for f in crate::system::live_files(self, Some(snapshot.id))
            .await?
            .files
        {
            if !spec.iter().all(|(i, v)| f.partition.get(*i) == Some(v)) {
                continue;
            }
            if f.bucket == POSTPONE_BUCKET {
                return Err(ErrorDetail::Unsupported(format!(
                    "rescaling {id}: partition {} still has rows in its postpone bucket, which \
                     an overwrite would drop unread; compact the table first",
                    f.partition_text
                ))
                .into());
            }
            has_real = true;
        }
        if !has_real {
            return Err(refuse(
                "The specified partition does not have any data files. No need to rescale."
                    .to_string(),
            ));
        }
        let mut splits = self
            .new_scan()
            .with_snapshot(snapshot.id)
            .own_branch()
            .plan()
            .await?
            .splits;
        let mut keep = Vec::with_capacity(splits.len());
        for s in splits.drain(..) {
            if selected(&s.partition)? {
                keep.push(s);
            }
        }
        let rescaled =
            self.with_dynamic_options([("bucket".to_string(), bucket_num.to_string())])?;
        let mut write = rescaled.new_write()?.with_overwrite(true);
        let scope = if spec.is_empty() {
            OverwriteScope::WholeTable
        } else {
            OverwriteScope::Static(
                spec.iter()
                    .map(|(i, v)| (self.schema().partition_keys[*i].clone(), v.clone()))
                    .collect::<Vec<(String, Option<Datum>)>>(),
            )
        };
        let result = async {
            let mut stream = self.new_read().to_stream(keep)?;
            while let Some(batch) = stream.try_next().await? {
                write.write(&batch).await?;
            }
            let messages = write.prepare_commit().await?;
            // Java: `commit.strict-mode.last-safe-snapshot` = the snapshot read.
            let latest = self.snapshot_manager().latest_id().await?;
            if latest != Some(snapshot.id) {
                return Err(ErrorDetail::CommitConflict {
                    table: id.clone(),
                    message: format!(
                    "rescaling {id}: snapshot {} was committed while the rescale read snapshot \
                     {}; its rows would be lost by the overwrite, run the rescale again",
                    latest.unwrap_or_default(),
                    snapshot.id
                ),
                }
                .into());
            }
            rescaled.new_commit()?.overwrite(scope, messages).await
        }
        .await;
        match result {
            Ok(snapshot) => Ok(RescaleReport {
                bucket_num,
                rows: write.rows_written(),
                snapshot,
            }),
            Err(e) => {
                if !e.may_have_committed() {
                    write.abort().await;
                }
                Err(e)
            }
        }
    }
}
