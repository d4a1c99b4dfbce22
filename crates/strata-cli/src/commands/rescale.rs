//! `strata rescale DB.TABLE [--bucket-num N] [--partition k=v,...]`: the partitions rewritten
//! into `N` buckets in one OVERWRITE commit ([`strata::table::Table::rescale`], Paimon's
//! `RescaleProcedure` / `RescaleAction`).

use strata::catalog::Catalog;
use strata::write::RescaleRequest;

use crate::error::{msg, Result};

/// Runs the `rescale` command.
pub async fn run(
    catalog: &dyn Catalog,
    table: &str,
    bucket_num: Option<i32>,
    partition: &[String],
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
    let report = t
        .rescale(&RescaleRequest {
            bucket_num,
            partition: spec,
        })
        .await?;
    match report.snapshot {
        Some(id) => eprintln!(
            "rescaled {} row(s) of {} into {} bucket(s): snapshot {id} (OVERWRITE)",
            report.rows,
            t.identifier(),
            report.bucket_num
        ),
        None => eprintln!("nothing to rescale in {}", t.identifier()),
    }
    Ok(())
}
