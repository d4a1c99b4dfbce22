//! The arguments of `strata read` (shared by its snapshot and incremental paths).

use std::path::PathBuf;

use crate::output;

/// Arguments of `strata read`.
#[derive(clap::Args, Debug)]
pub struct ReadArgs {
    /// DB.TABLE
    pub table: String,
    /// Comma-separated columns to output; a MAP key is written m['key'] (output column
    /// named m['key'], NULL when the map is NULL or lacks the key). Commas inside quotes
    /// belong to the item: m['a,b'] is one column
    #[arg(long, value_name = "COLS")]
    pub columns: Vec<String>,
    /// SQL boolean expression, e.g. "dt = '2024-01-01' AND id < 10" or "m['usage'] > 30"
    #[arg(long = "where", value_name = "EXPR")]
    pub filter: Option<String>,
    /// Time travel to this snapshot id
    #[arg(long, conflicts_with_all = ["tag", "timestamp", "timestamp_millis"])]
    pub snapshot: Option<i64>,
    /// Time travel to this tag (reads even after the tagged snapshot expired)
    #[arg(long, conflicts_with_all = ["timestamp", "timestamp_millis"])]
    pub tag: Option<String>,
    /// Time travel to the latest snapshot committed at or before this local time,
    /// 'yyyy-MM-dd HH:mm:ss[.fff]' (scan.timestamp)
    #[arg(long, conflicts_with = "timestamp_millis")]
    pub timestamp: Option<String>,
    /// Time travel to the latest snapshot committed at or before this epoch millisecond
    /// (scan.timestamp-millis)
    #[arg(long, value_name = "MILLIS")]
    pub timestamp_millis: Option<i64>,
    /// Output at most N rows
    #[arg(long)]
    pub limit: Option<usize>,
    /// Output format
    #[arg(long, value_enum, default_value_t = output::Format::Table)]
    pub format: output::Format,
    /// Write to this file instead of stdout
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// After the rows, print one JSON line to stderr: filesRead, filesSkipped, rowGroupsRead,
    /// rowGroupsSkipped, pageRowsSkipped, bytesRead, rowsOutput, scanSkippedFiles
    #[arg(long)]
    pub metrics: bool,
    /// Read the changes between snapshots START (exclusive) and END (inclusive), given as
    /// snapshot ids or tag names, START..END (incremental-between); rows come with their
    /// kind in a first column `rowkind`
    #[arg(
        long,
        value_name = "START..END",
        conflicts_with_all = ["snapshot", "tag", "timestamp", "timestamp_millis", "filter", "metrics", "incremental_timestamp"]
    )]
    pub incremental: Option<String>,
    /// Like --incremental, the range as times T1..T2: epoch milliseconds or local
    /// 'yyyy-MM-dd HH:mm:ss' (incremental-between-timestamp)
    #[arg(
        long,
        value_name = "T1..T2",
        conflicts_with_all = ["snapshot", "tag", "timestamp", "timestamp_millis", "filter", "metrics"]
    )]
    pub incremental_timestamp: Option<String>,
    /// How --incremental reads: auto (changelog when the table has a changelog producer,
    /// else delta), delta (records the APPEND snapshots added), changelog (changelog
    /// files), diff (END compared with START) (incremental-between-scan-mode)
    #[arg(long, value_name = "MODE")]
    pub incremental_mode: Option<String>,
    /// With --incremental between two tags: read the snapshots between them (delta or
    /// changelog) instead of their diff (incremental-between-tag-to-snapshot)
    #[arg(long)]
    pub incremental_tag_to_snapshot: bool,
}
