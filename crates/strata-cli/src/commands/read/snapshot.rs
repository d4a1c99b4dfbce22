//! `strata read` of one snapshot: the latest, `--snapshot N`, or the one `--tag`,
//! `--timestamp` or `--timestamp-millis` travels to, with `--columns`, `--where`, `--limit`
//! and `--metrics`.

use std::sync::Arc;

use futures::StreamExt;
use strata::expr::parse_sql_predicate;
use strata::maintenance::TravelTarget;
use strata::read::ReadMetrics;
use strata::table::Table;

use super::args::ReadArgs;
use crate::columns::split_columns;
use crate::error::{msg, Result};
use crate::output;

/// Reads the snapshot `args` name (default the latest) of `t` and writes its rows.
pub(super) async fn run(mut t: Table, args: &ReadArgs) -> Result<()> {
    // --tag / --timestamp / --timestamp-millis: the snapshot as the tag (or the timeline)
    // has it, read with the schema it was committed with.
    let travel = travel_target(
        args.tag.as_deref(),
        args.timestamp.as_deref(),
        args.timestamp_millis,
    )?;
    let travelled = match travel {
        Some(target) => {
            let s = target.resolve(&t).await?;
            t = strata::maintenance::time_travel::table_at(&t, &s).await?;
            Some((target, s))
        }
        None => None,
    };
    if let Some(id) = args.snapshot {
        // Time travel reads with the schema the snapshot was committed with.
        t = t.at_snapshot(id).await?;
    }
    let predicate = match &args.filter {
        Some(text) => Some(parse_sql_predicate(text)?),
        None => None,
    };
    let mut scan = t.new_scan();
    if let Some(id) = args.snapshot {
        scan = scan.with_snapshot(id);
    }
    if let Some((target, s)) = travelled {
        // The target too: a `scan.fallback-branch` table travels its other branch by it.
        scan = scan.with_travel(target, s);
    }
    if let Some(p) = &predicate {
        scan = scan.with_filter(p.clone());
    }
    let plan = scan.plan().await?;
    let mut read = t.new_read();
    if !args.columns.is_empty() {
        let mut cols = Vec::new();
        for text in &args.columns {
            cols.extend(split_columns(text)?);
        }
        read = read.with_projection(cols);
    }
    if let Some(p) = predicate {
        read = read.with_filter(p);
    }
    if let Some(n) = args.limit {
        read = read.with_limit(n);
    }
    let metrics = Arc::new(ReadMetrics::default());
    if args.metrics {
        read = read.with_metrics(metrics.clone());
    }
    let schema = read.output_schema()?;
    let rows = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counter = rows.clone();
    let stream = read
        .to_stream(plan.splits)?
        .inspect(move |b| {
            if let Ok(b) = b {
                counter.fetch_add(b.num_rows() as u64, std::sync::atomic::Ordering::Relaxed);
            }
        })
        .boxed();
    output::write_stream(stream, schema, args.format, args.output.as_deref()).await?;
    if args.metrics {
        let mut line = serde_json::to_value(metrics.snapshot())
            .map_err(|e| msg(format!("cannot print metrics: {e}")))?;
        if let Some(obj) = line.as_object_mut() {
            obj.insert(
                "rowsOutput".into(),
                rows.load(std::sync::atomic::Ordering::Relaxed).into(),
            );
            obj.insert("scanSkippedFiles".into(), plan.metrics.skipped_files.into());
        }
        eprintln!("{line}");
    }
    Ok(())
}

/// The time travel target of `read --snapshot/--tag/--timestamp/--timestamp-millis`.
fn travel_target(
    tag: Option<&str>,
    timestamp: Option<&str>,
    timestamp_millis: Option<i64>,
) -> Result<Option<TravelTarget>> {
    Ok(match (tag, timestamp, timestamp_millis) {
        (Some(t), _, _) => Some(TravelTarget::Tag(t.to_string())),
        (_, Some(ts), _) => {
            Some(TravelTarget::timestamp(ts).map_err(|e| msg(format!("--timestamp: {e}")))?)
        }
        (_, _, Some(ms)) => Some(TravelTarget::TimestampMillis(ms)),
        _ => None,
    })
}
