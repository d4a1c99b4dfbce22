//! `strata compact DB.TABLE [--partition k=v ...] [--bucket N] [--full] [--metrics]`, and the
//! compaction report printed by `compact` and `write`.
//!
//! Compaction runs bucket by bucket (a progress bar counts them), then one commit writes the
//! COMPACT snapshot. Without `--full` each bucket uses the table's normal picking (universal
//! compaction: nothing happens when the bucket's shape does not call for it); with `--full`
//! everything goes to the max level, like Paimon's `compact` procedure. Per compaction task a
//! metrics record is printed: human-readable on stderr, or JSON lines on stdout with
//! `--metrics`. Upgraded files are reported apart and never counted as written bytes.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;
use strata::catalog::FileSystemCatalog;
use strata::table::Table;
use strata::write::{CompactRequest, CompactionMetrics};

use crate::commands::{msg, Result};

/// Runs the `compact` command.
pub async fn run(
    catalog: &FileSystemCatalog,
    table: &str,
    partition: &[String],
    bucket: Option<i32>,
    full: bool,
    metrics_json: bool,
) -> Result<()> {
    let t = catalog.get_table(&table.parse()?).await?;
    if !t.is_primary_key_table() {
        return Err(msg(format!(
            "{} has no primary key; strata compacts primary-key tables only",
            t.identifier()
        )));
    }
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

/// Prints one record per compaction task: JSON lines on stdout with `json`, else one
/// human-readable line each on stderr.
pub fn print_metrics(t: &Table, metrics: &[CompactionMetrics], json: bool) -> Result<()> {
    use std::io::Write;
    let ptype = t.schema().partition_type();
    let mut out = std::io::stdout().lock();
    for m in metrics {
        let values = m
            .partition
            .to_datums(&ptype.types())
            .map_err(strata::Error::from)?;
        let partition = t.partition_computer().to_map(&values);
        let task = &m.task;
        if json {
            let line = json!({
                "table": t.identifier().to_string(),
                "partition": partition.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
                "bucket": m.bucket,
                "outputLevel": task.output_level,
                "inputFiles": task.input_files,
                "inputBytes": task.input_bytes,
                "upgradedFiles": task.upgraded_files,
                "upgradedBytes": task.upgraded_bytes,
                "rewrittenInputFiles": task.rewritten_input_files,
                "rewrittenInputBytes": task.rewritten_input_bytes,
                "rewrites": task.rewrites,
                "outputFiles": task.output_files,
                "outputBytes": task.output_bytes,
                "inputRows": task.input_rows,
                "outputRows": task.output_rows,
                "durationMs": task.duration.as_secs_f64() * 1000.0,
            });
            writeln!(out, "{line}").map_err(|e| msg(format!("writing metrics: {e}")))?;
        } else {
            let part = if partition.is_empty() {
                String::new()
            } else {
                let spec: Vec<String> = partition.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("partition {} ", spec.join(","))
            };
            eprintln!(
                "compaction {part}bucket {} → L{}: {} input files ({}); upgraded {} ({}), \
                 rewrote {} ({}) into {} new files ({}); {:.1} ms",
                m.bucket,
                task.output_level,
                task.input_files,
                human_bytes(task.input_bytes),
                task.upgraded_files,
                human_bytes(task.upgraded_bytes),
                task.rewritten_input_files,
                human_bytes(task.rewritten_input_bytes),
                task.output_files,
                human_bytes(task.output_bytes),
                task.duration.as_secs_f64() * 1000.0,
            );
        }
    }
    Ok(())
}

fn human_bytes(n: i64) -> String {
    let n = n as f64;
    if n >= 1024.0 * 1024.0 * 1024.0 {
        format!("{:.2} GiB", n / (1024.0 * 1024.0 * 1024.0))
    } else if n >= 1024.0 * 1024.0 {
        format!("{:.2} MiB", n / (1024.0 * 1024.0))
    } else if n >= 1024.0 {
        format!("{:.1} KiB", n / 1024.0)
    } else {
        format!("{n} B")
    }
}
