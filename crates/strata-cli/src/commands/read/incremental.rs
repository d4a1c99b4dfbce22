//! `strata read --incremental START..END`: the changes between two snapshots or tags
//! (`strata::scan::IncrementalScan`), every row with its kind in a first `rowkind` column,
//! written in any `--format`, with `--columns` and `--limit`. A plain `strata read` of a table
//! whose options hold `incremental-between*` reads this way too.

use strata::read::limit_rows;
use strata::scan::{IncrementalBetween, IncrementalMode, IncrementalScan};
use strata::table::Table;

use super::args::ReadArgs;
use crate::columns::split_columns;
use crate::error::{msg, Result};
use crate::output;

/// `A..B` as (A, B).
fn range<'a>(flag: &str, text: &'a str) -> Result<(&'a str, &'a str)> {
    match text.split_once("..") {
        Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() => Ok((a.trim(), b.trim())),
        _ => Err(msg(format!(
            "{flag} {text:?}: expected START..END (START exclusive, END inclusive), e.g. 3..7"
        ))),
    }
}

pub(super) async fn run(t: &Table, args: &ReadArgs) -> Result<()> {
    let between = match (&args.incremental, &args.incremental_timestamp) {
        (Some(text), _) => {
            let (a, b) = range("--incremental", text)?;
            IncrementalBetween::parse(&format!("{a},{b}"))?
        }
        (None, Some(text)) => {
            let (a, b) = range("--incremental-timestamp", text)?;
            IncrementalBetween::parse_timestamps(&format!("{a},{b}"))?
        }
        (None, None) => return Err(msg("--incremental or --incremental-timestamp is needed")),
    };
    let mut scan = t
        .new_incremental_scan(between)
        .with_tag_to_snapshot(args.incremental_tag_to_snapshot);
    if let Some(mode) = &args.incremental_mode {
        scan = scan.with_mode(IncrementalMode::parse(mode)?);
    }
    run_scan(t, args, scan).await
}

/// Reads the incremental `scan` and writes its rows (with `rowkind`) as `args` say.
pub(super) async fn run_scan(t: &Table, args: &ReadArgs, scan: IncrementalScan) -> Result<()> {
    let plan = scan.plan().await?;
    let mut read = t.new_incremental_read();
    if !args.columns.is_empty() {
        let mut cols = Vec::new();
        for text in &args.columns {
            cols.extend(split_columns(text)?);
        }
        read = read.with_projection(cols);
    }
    let schema = read.output_schema()?;
    let mut stream = read.to_stream(plan.splits)?;
    if let Some(limit) = args.limit {
        stream = limit_rows(stream, limit);
    }
    output::write_stream(stream, schema, args.format, args.output.as_deref()).await
}
