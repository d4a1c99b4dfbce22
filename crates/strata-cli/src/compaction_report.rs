//! The compaction report printed by `strata compact` and `strata write`: one record per
//! compaction task, JSON lines on stdout (`--metrics`) or one readable line each on stderr.
//! Upgraded files are reported apart and never counted as written bytes.

use serde_json::json;
use strata::table::Table;
use strata::write::CompactionMetrics;

use crate::error::{msg, Result};

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
