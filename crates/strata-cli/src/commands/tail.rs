//! `strata tail DB.TABLE`: follows a table like `tail -f`, printing every change as one JSON
//! line with its row kind (`{"rowkind":"+I", ...columns}`), flushed after each batch, through
//! [`strata::stream`] (the table's changelog when it has a `changelog-producer`, else the rows
//! each APPEND snapshot added). `--consumer-id` records progress in `consumer/consumer-ID` so
//! expiry keeps what the tail still needs and a restarted tail resumes where it stopped.

use std::io::Write;
use std::time::Duration;

use futures::StreamExt;
use strata::catalog::Catalog;
use strata::stream::StartingPosition;

use crate::error::{msg, Result};

/// Arguments of `strata tail`.
#[derive(clap::Args, Debug)]
pub struct TailArgs {
    /// DB.TABLE
    pub table: String,
    /// Where to start: latest (changes committed from now on), full (the latest snapshot
    /// whole, then its changes), compacted (the latest compacted snapshot whole, then later
    /// changes: Java's compacted-full), earliest (the earliest snapshot whole, then every
    /// change), or a snapshot id N (the changes of N and later). Default: where the table's
    /// scan.mode / scan.snapshot-id / scan.timestamp-millis options say, else latest. A
    /// consumer that has recorded progress resumes there instead
    #[arg(long, value_name = "latest|full|compacted|earliest|N")]
    pub from: Option<String>,
    /// Record progress in consumer/consumer-ID (expiry keeps the snapshots it still needs;
    /// a tail restarted with the same id resumes after the last snapshot it printed)
    #[arg(long, value_name = "ID")]
    pub consumer_id: Option<String>,
    /// Output format (one JSON object per change)
    #[arg(long, value_enum, default_value_t = TailFormat::Jsonl)]
    pub format: TailFormat,
    /// Comma-separated columns to output after rowkind
    #[arg(long, value_name = "COLS")]
    pub columns: Vec<String>,
    /// Milliseconds between looks for a new snapshot once caught up
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub poll_ms: u64,
    /// Stop after printing the changes of this snapshot (default: follow forever)
    #[arg(long, value_name = "SNAPSHOT")]
    pub until: Option<i64>,
    /// Print `{"snapshot": N}` to stderr as each snapshot's changes begin
    #[arg(long)]
    pub verbose: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TailFormat {
    Jsonl,
}

fn start(text: &str) -> Result<StartingPosition> {
    Ok(match text {
        "latest" => StartingPosition::Latest,
        "full" => StartingPosition::LatestFull,
        "compacted" => StartingPosition::CompactedFull,
        "earliest" => StartingPosition::Earliest,
        n => StartingPosition::FromSnapshot(n.parse().map_err(|_| {
            msg(format!(
                "--from {n}: expected latest, full, compacted, earliest or a snapshot id"
            ))
        })?),
    })
}

/// Whether the table's options say where a read starts.
fn has_start_options(t: &strata::table::Table) -> bool {
    [
        "scan.mode",
        "log.scan",
        "scan.snapshot-id",
        "scan.timestamp-millis",
        "log.scan.timestamp-millis",
        "scan.timestamp",
        "scan.creation-time-millis",
        "scan.file-creation-time-millis",
        "scan.tag-name",
        "scan.watermark",
        "scan.version",
    ]
    .iter()
    .any(|k| t.options().contains(k))
}

pub async fn run(catalog: &dyn Catalog, args: TailArgs) -> Result<()> {
    let t = catalog.get_table(&args.table.parse()?).await?;
    let start = match &args.from {
        Some(from) => start(from)?,
        // The table's own start (Java's scan options), else `tail -f`'s latest.
        None if has_start_options(&t) => StartingPosition::from_options(&t)?,
        None => StartingPosition::Latest,
    };
    let mut read = t
        .new_stream_read()
        .with_start(start)
        .with_poll_interval(Duration::from_millis(args.poll_ms.max(1)));
    if let Some(id) = &args.consumer_id {
        read = read.with_consumer_id(id.clone());
    }
    if let Some(until) = args.until {
        read = read.until_snapshot(until);
    }
    if !args.columns.is_empty() {
        let mut cols = Vec::new();
        for text in &args.columns {
            cols.extend(crate::columns::split_columns(text)?);
        }
        read = read.with_projection(cols);
    }
    let mut changes = read.changes()?;
    let mut current = None;
    let stdout = std::io::stdout();
    while let Some(change) = changes.next().await {
        let change = change?;
        if args.verbose && current != Some(change.snapshot_id) {
            eprintln!("{{\"snapshot\": {}}}", change.snapshot_id);
        }
        current = Some(change.snapshot_id);
        let mut out = stdout.lock();
        for row in 0..change.batch.num_rows() {
            let v = crate::json_values::row_to_json(&change.batch, row)?;
            // A closed pipe (`strata tail ... | head`) ends the tail quietly.
            if writeln!(out, "{v}").is_err() {
                return Ok(());
            }
        }
        if out.flush().is_err() {
            return Ok(());
        }
    }
    Ok(())
}
