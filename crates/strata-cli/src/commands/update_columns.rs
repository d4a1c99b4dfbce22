//! `strata update-columns DB.TABLE FILES…`: some columns of existing rows of a data-evolution
//! table written by row id (`Table::update_columns`): each Parquet file holds `_ROW_ID` and the
//! columns to write; one commit for all files.

use std::fs::File;
use std::path::PathBuf;

use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use strata::catalog::Catalog;

use crate::error::{msg, Result};

/// Runs `strata update-columns`.
pub(crate) async fn run(catalog: &dyn Catalog, table: &str, files: &[PathBuf]) -> Result<()> {
    let t = catalog.get_table(&table.parse()?).await?;
    let mut batches = Vec::new();
    for path in files {
        let shown = path.display().to_string();
        let file = File::open(path).map_err(|e| msg(format!("cannot open {shown}: {e}")))?;
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .and_then(|b| b.build())
            .map_err(|e| msg(format!("{shown}: not a readable Parquet file: {e}")))?;
        for b in reader {
            batches.push(b.map_err(|e| msg(format!("{shown}: {e}")))?);
        }
    }
    let Some(first) = batches.first() else {
        eprintln!("no rows given; no snapshot created");
        return Ok(());
    };
    let batch = arrow::compute::concat_batches(&first.schema(), &batches)
        .map_err(|e| msg(format!("the input files' columns differ: {e}")))?;
    match t.update_columns(&batch).await? {
        Some(id) => eprintln!(
            "updated {} rows of {}, snapshot {id}",
            batch.num_rows(),
            t.identifier()
        ),
        None => eprintln!("nothing to update; no snapshot created"),
    }
    Ok(())
}
