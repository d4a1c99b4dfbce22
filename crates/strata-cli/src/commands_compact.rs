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
use strata::write::CompactionMetrics;
use strata_spec::binary_row::BinaryRow;
use strata_spec::Datum;

use crate::commands::{msg, CliError, Result};

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
    let wanted = parse_partition(&t, partition)?;
    let plan = t.new_scan().plan().await?;
    let mut buckets: Vec<(BinaryRow, i32)> = Vec::new();
    for s in &plan.splits {
        let key = (s.partition.clone(), s.bucket);
        if !buckets.contains(&key) {
            buckets.push(key);
        }
    }
    // Level-0 files can be missing from the plan (first-row, deletion vectors): add the
    // buckets of every live file.
    for (p, b) in all_buckets(&t).await? {
        if !buckets.contains(&(p.clone(), b)) {
            buckets.push((p, b));
        }
    }
    let ptype = t.schema().partition_type();
    let mut selected = Vec::new();
    for (p, b) in buckets {
        if bucket.is_some_and(|want| want != b) {
            continue;
        }
        let values = p.to_datums(&ptype.types()).map_err(strata::Error::from)?;
        if wanted.iter().all(|(i, v)| values.get(*i) == Some(v)) {
            selected.push((p, b));
        }
    }
    if selected.is_empty() {
        eprintln!(
            "no bucket of {} matches; nothing to compact",
            t.identifier()
        );
        return Ok(());
    }
    selected.sort_by(|a, b| (a.0.as_bytes(), a.1).cmp(&(b.0.as_bytes(), b.1)));
    let bar =
        ProgressBar::with_draw_target(Some(selected.len() as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{spinner} compacting [{bar:30}] {pos}/{len} buckets ({eta})")
            .expect("the progress template is a valid constant")
            .progress_chars("=> "),
    );
    let mut write = t.new_write()?;
    let result = async {
        for (p, b) in &selected {
            write.compact(&|wp, wb| wp == p && wb == *b, full).await?;
            bar.inc(1);
        }
        let messages = write.prepare_commit().await?;
        let metrics = write.take_compaction_metrics();
        let committed = t.new_commit()?.commit_messages(messages, None).await?;
        Ok::<_, CliError>((committed, metrics))
    }
    .await;
    bar.finish_and_clear();
    let (committed, metrics) = match result {
        Ok(r) => r,
        Err(e) => {
            if !e.may_have_committed() {
                write.abort().await;
            }
            return Err(e);
        }
    };
    print_metrics(&t, &metrics, metrics_json)?;
    match committed.compact {
        Some(id) => eprintln!(
            "compacted {} bucket(s) of {}: snapshot {id} (COMPACT)",
            selected.len(),
            t.identifier()
        ),
        None => eprintln!(
            "{} bucket(s) of {} visited; nothing needed compaction, no snapshot created",
            selected.len(),
            t.identifier()
        ),
    }
    Ok(())
}

/// The partition columns fixed by `--partition k=v` arguments: (index, value).
fn parse_partition(t: &Table, partition: &[String]) -> Result<Vec<(usize, Option<Datum>)>> {
    let mut spec = Vec::new();
    for arg in partition {
        for kv in arg.split(',') {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| msg(format!("--partition expects K=V, got {kv:?}")))?;
            spec.push((k.trim().to_string(), v.to_string()));
        }
    }
    Ok(t.partition_computer()
        .parse_partial_spec(&spec)
        .map_err(strata::Error::from)?)
}

/// Every (partition, bucket) holding a live file in the latest snapshot, level 0 included.
async fn all_buckets(t: &Table) -> Result<Vec<(BinaryRow, i32)>> {
    let Some(snapshot) = t.snapshot_manager().latest().await? else {
        return Ok(Vec::new());
    };
    let store = t.manifest_store();
    let metas = store.data_manifests(&snapshot).await?;
    let mut out: Vec<(BinaryRow, i32)> = Vec::new();
    let batches = store.read_manifests(&metas).await?;
    let merged = strata_spec::manifest::merge_entries(batches.into_iter().flatten())
        .map_err(strata::Error::from)?;
    for e in merged.adds {
        if !out.contains(&(e.partition.clone(), e.bucket)) {
            out.push((e.partition, e.bucket));
        }
    }
    Ok(out)
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
