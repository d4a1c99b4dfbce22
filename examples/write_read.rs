//! Create an append table, write two commits of Arrow batches, then plan a scan and read it
//! back — strata's basic write and read path through the stable API:
//!
//! ```text
//! cargo run -p strata-examples --example write_read [WAREHOUSE]
//! ```
//!
//! catalog → table → `TableWrite` → `CommitMessage`s → `TableCommit` (a snapshot) →
//! `TableScan` (splits) → `TableRead` (Arrow batches). Any Paimon engine (Java, Spark, Flink,
//! pypaimon) reads the table this writes.

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use strata::catalog::{Catalog, FileSystemCatalog, Identifier};
use strata_examples::BoxError;

/// Writes `db.events` under `warehouse` and returns the rows read back.
pub async fn run(warehouse: &str) -> Result<usize, BoxError> {
    let catalog: Arc<dyn Catalog> = Arc::new(FileSystemCatalog::open(warehouse)?);
    let id: Identifier = "db.events".parse()?;
    let schema = strata_spec::schema::Schema::from_json(
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"kind","type":"STRING"}],
           "options":{"file.format":"parquet"}}"#,
    )?;
    catalog.create_table(&id, &schema, true).await?;
    let table = catalog.get_table(&id).await?;

    let arrow = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("kind", DataType::Utf8, true),
    ]));
    for (ids, kinds) in [
        (vec![1, 2], vec!["open", "click"]),
        (vec![3], vec!["close"]),
    ] {
        let batch = RecordBatch::try_new(
            arrow.clone(),
            vec![
                Arc::new(Int64Array::from(ids)),
                Arc::new(StringArray::from(kinds)),
            ],
        )?;
        let mut write = table.new_write()?;
        write.write(&batch).await?;
        let messages = write.prepare_commit().await?;
        let snapshot = table.new_commit()?.commit(messages).await?;
        println!("committed snapshot {snapshot:?}");
    }

    let plan = table.new_scan().plan().await?;
    let batches = table.new_read().to_batches(plan.splits).await?;
    let rows = batches.iter().map(RecordBatch::num_rows).sum();
    println!("{}", arrow::util::pretty::pretty_format_batches(&batches)?);
    Ok(rows)
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let (warehouse, _guard) = strata_examples::warehouse_from_args();
    run(&warehouse).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn writes_and_reads_back_every_row() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(super::run(dir.path().to_str().unwrap()).await.unwrap(), 3);
    }
}
