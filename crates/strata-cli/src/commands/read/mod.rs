//! `strata read`: rows of a table as a text table, JSON lines, CSV or Parquet, with a
//! projection that may name MAP keys (`m['k']`), a SQL filter, time travel, a limit, and
//! `--metrics` (one JSON line on stderr after the rows: files, row groups and bytes read).
//!
//! `--incremental A..B` reads the changes between snapshots (or tags) A (exclusive) and B
//! (inclusive) instead of one snapshot — Paimon's `incremental-between`, in the mode of
//! `--incremental-mode` (`incremental-between-scan-mode`) — every row with its kind in a first
//! `rowkind` column (`+I`, `-U`, `+U`, `-D`); `--incremental-timestamp T1..T2` gives the range
//! as times (`incremental-between-timestamp`).
mod args;
mod incremental;
mod snapshot;

use strata::catalog::Catalog;

use crate::error::{msg, Result};

pub use args::ReadArgs;

/// Runs `strata read`: an incremental read when `--incremental*` or the table's own
/// `incremental-between*` options ask for one, else a read of one snapshot.
pub async fn run(catalog: &dyn Catalog, args: ReadArgs) -> Result<()> {
    let t = catalog.get_table(&args.table.parse()?).await?;
    if args.incremental.is_some() || args.incremental_timestamp.is_some() {
        return incremental::run(&t, &args).await;
    }
    if args.incremental_mode.is_some() || args.incremental_tag_to_snapshot {
        return Err(msg(
            "--incremental-mode and --incremental-tag-to-snapshot need --incremental or \
             --incremental-timestamp",
        ));
    }
    // A table whose own options ask for an incremental read (`incremental-between*`, Java's
    // INCREMENTAL startup mode) is read that way when no snapshot is named, as Java reads it.
    let explicit = args.snapshot.is_some()
        || args.tag.is_some()
        || args.timestamp.is_some()
        || args.timestamp_millis.is_some();
    if !explicit && t.options().startup_mode()? == strata::spec::options::StartupMode::Incremental {
        if let Some(scan) = strata::scan::IncrementalScan::from_options(&t)? {
            if args.filter.is_some() || args.metrics {
                return Err(msg(format!(
                    "table {} is read incrementally (its incremental-between options); \
                     --where and --metrics do not apply to incremental reads",
                    t.identifier()
                )));
            }
            return incremental::run_scan(&t, &args, scan).await;
        }
    }
    snapshot::run(t, &args).await
}
