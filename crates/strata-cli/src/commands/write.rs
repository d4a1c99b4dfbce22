//! `strata write DB.TABLE FILES… [--overwrite [--partition K=V]…] [--metrics]`: rows from
//! Parquet, JSON lines or CSV files ([`crate::input`]) appended (or overwriting) in one commit,
//! with the compaction report of the write ([`crate::compaction_report`]).

use std::path::PathBuf;

use strata::catalog::Catalog;
use strata::commit::OverwriteScope;
use strata::table::Table;

use crate::compaction_report::print_metrics;
use crate::error::{msg, Result};
use crate::input;

/// Runs `strata write`.
pub(crate) async fn run(
    catalog: &dyn Catalog,
    table: &str,
    files: &[PathBuf],
    overwrite: bool,
    partition: &[String],
    metrics: bool,
) -> Result<()> {
    let t = catalog.get_table(&table.parse()?).await?;
    let scope = if overwrite {
        Some(overwrite_scope(&t, partition)?)
    } else {
        None
    };
    if let Some(why) = strata::write::TableWrite::full_compaction_on_write(&t)? {
        eprintln!(
            "note: {} has {why}, which needs Paimon's lookup compaction; strata does not \
             have it yet and fully compacts every bucket this write touches instead (the \
             write rewrites those buckets whole; see README, \"Tables kept at one level\")",
            t.identifier()
        );
    }
    let report = input::write_files(&t, files, scope).await?;
    print_metrics(&t, &report.compaction, metrics)?;
    if let Some(e) = &report.compact_error {
        eprintln!("warning: {e}");
    }
    if let Some(e) = &report.expire_error {
        eprintln!("warning: {e}");
    }
    match report.snapshot_id {
        Some(id) => eprintln!(
            "wrote {} rows into {} ({} files), snapshot {id}",
            report.rows,
            t.identifier(),
            report.files
        ),
        None => eprintln!("no rows written; no snapshot created"),
    }
    Ok(())
}

/// `--overwrite` with or without `--partition k=v`.
fn overwrite_scope(table: &Table, partition: &[String]) -> Result<OverwriteScope> {
    if partition.is_empty() {
        let dynamic = table.options().dynamic_partition_overwrite()?;
        return Ok(if dynamic {
            OverwriteScope::Dynamic
        } else {
            OverwriteScope::WholeTable
        });
    }
    let ptype = table.schema().partition_type();
    let mut spec = Vec::new();
    for kv in partition {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| msg(format!("--partition expects K=V, got {kv:?}")))?;
        let idx = ptype.index_of(k).ok_or_else(|| {
            msg(format!(
                "{k} is not a partition column of {} (partition keys: {})",
                table.identifier(),
                ptype.names().join(", ")
            ))
        })?;
        let value = table
            .partition_computer()
            .parse_value(idx, v)
            .map_err(strata::Error::from)?;
        spec.push((k.to_string(), value));
    }
    Ok(OverwriteScope::Static(spec))
}
