//! `strata rewrite-file-index DB.TABLE [--partition k=v ...]`: (re)builds the file indexes of
//! the table's live data files from its current `file-index.*` options (Paimon's
//! `rewrite_file_index` procedure) and commits one COMPACT snapshot; prints one JSON line
//! (`files`, `indexFiles`, `snapshot`).

use strata::catalog::Catalog;

use crate::error::{msg, Result};

/// Runs the `rewrite-file-index` command.
pub async fn run(catalog: &dyn Catalog, table: &str, partition: &[String]) -> Result<()> {
    let t = catalog.get_table(&table.parse()?).await?;
    let mut specs = Vec::new();
    for arg in partition {
        let mut spec = Vec::new();
        for kv in arg.split(',') {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| msg(format!("--partition expects K=V, got {kv:?}")))?;
            spec.push((k.trim().to_string(), v.to_string()));
        }
        specs.push(spec);
    }
    let report = t.rewrite_file_index(&specs).await?;
    println!(
        "{}",
        serde_json::json!({
            "files": report.files,
            "indexFiles": report.index_files,
            "snapshot": report.snapshot,
        })
    );
    Ok(())
}
