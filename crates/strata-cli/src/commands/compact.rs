//! `strata compact DB.TABLE [--partition k=v ...] [--bucket N] [--full] [--metrics]`.
//!
//! Compaction runs bucket by bucket (a progress bar counts them), then one commit writes the
//! COMPACT snapshot. Without `--full` each bucket uses the table's normal picking (universal
//! compaction: nothing happens when the bucket's shape does not call for it); with `--full`
//! everything goes to the max level, like Paimon's `compact` procedure (append tables: Java's
//! `AppendCompactCoordinator` / `BucketedAppendCompactManager` picking). Per compaction task a
//! metrics record is printed ([`crate::compaction_report`]): human-readable on stderr, or JSON
//! lines on stdout with `--metrics`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use strata::catalog::Catalog;
use strata::write::CompactRequest;

use crate::compaction_report::print_metrics;
use crate::error::{msg, Result};

/// Runs the `compact` command.
pub async fn run(
    catalog: &dyn Catalog,
    table: &str,
    partition: &[String],
    bucket: Option<i32>,
    full: bool,
    metrics_json: bool,
) -> Result<()> {
    let t = catalog.get_table(&table.parse()?).await?;
    let mut spec = Vec::new();
    for arg in partition {
        for kv in arg.split(',') {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| msg(format!("--partition expects K=V, got {kv:?}")))?;
            spec.push((k.trim().to_string(), v.to_string()));
        }
    }
    let request = CompactRequest {
        partitions: if spec.is_empty() { vec![] } else { vec![spec] },
        bucket,
        full,
    };
    let selected = t.select_buckets(&request).await?;
    if selected.is_empty() {
        eprintln!(
            "no bucket of {} matches; nothing to compact",
            t.identifier()
        );
        return Ok(());
    }
    let bar =
        ProgressBar::with_draw_target(Some(selected.len() as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{spinner} compacting [{bar:30}] {pos}/{len} buckets ({eta})")
            .expect("the progress template is a valid constant")
            .progress_chars("=> "),
    );
    let progress = bar.clone();
    let report = t
        .compact(&request, &move |done, _| progress.set_position(done as u64))
        .await;
    bar.finish_and_clear();
    let report = report?;
    print_metrics(&t, &report.metrics, metrics_json)?;
    match report.snapshot {
        Some(id) => eprintln!(
            "compacted {} bucket(s) of {}: snapshot {id} (COMPACT)",
            report.buckets.len(),
            t.identifier()
        ),
        None => eprintln!(
            "{} bucket(s) of {} visited; nothing needed compaction, no snapshot created",
            report.buckets.len(),
            t.identifier()
        ),
    }
    Ok(())
}
