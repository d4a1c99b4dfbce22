//! A primary-key table: upserts and deletes merged by key, as Paimon's LSM tree does —
//!
//! ```text
//! cargo run -p strata-examples --example pk_upsert [WAREHOUSE]
//! ```
//!
//! Each commit lands as level-0 sorted runs of the table's buckets; a read merges them by key
//! with the table's merge engine (`deduplicate` here: the newest record of a key wins), and
//! compaction (run by the writer as files accumulate) merges them on disk.

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use strata::catalog::{Catalog, FileSystemCatalog, Identifier};
use strata::table::Table;
use strata_examples::BoxError;
use strata_spec::kv::RowKind;

async fn commit(
    table: &Table,
    ids: Vec<i64>,
    names: Vec<&str>,
    kinds: &[RowKind],
) -> Result<(), BoxError> {
    let arrow = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, true),
    ]));
    let batch = RecordBatch::try_new(
        arrow,
        vec![
            Arc::new(Int64Array::from(ids)),
            Arc::new(StringArray::from(names)),
        ],
    )?;
    let mut write = table.new_write()?;
    write.write_with_kinds(&batch, kinds).await?;
    table
        .new_commit()?
        .commit(write.prepare_commit().await?)
        .await?;
    Ok(())
}

/// Upserts into `db.users` under `warehouse`; returns the merged `(id, name)` rows.
pub async fn run(warehouse: &str) -> Result<Vec<(i64, String)>, BoxError> {
    let catalog: Arc<dyn Catalog> = Arc::new(FileSystemCatalog::open(warehouse)?);
    let id: Identifier = "db.users".parse()?;
    let schema = strata_spec::schema::Schema::from_json(
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"name","type":"STRING"}],
           "primaryKeys":["id"],"options":{"bucket":"2","merge-engine":"deduplicate"}}"#,
    )?;
    catalog.create_table(&id, &schema, true).await?;
    let table = catalog.get_table(&id).await?;

    let insert = RowKind::Insert;
    commit(
        &table,
        vec![1, 2, 3],
        vec!["ann", "bob", "cy"],
        &[insert; 3],
    )
    .await?;
    // Key 2 is renamed (an upsert is just a newer record of the key), key 3 deleted.
    commit(
        &table,
        vec![2, 3],
        vec!["bobby", "cy"],
        &[insert, RowKind::Delete],
    )
    .await?;

    let plan = table.new_scan().plan().await?;
    let batches = table.new_read().to_batches(plan.splits).await?;
    let mut rows = Vec::new();
    for b in &batches {
        let ids = b
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .ok_or("id is BIGINT")?;
        let names = b
            .column(1)
            .as_any()
            .downcast_ref::<StringArray>()
            .ok_or("name is STRING")?;
        for i in 0..b.num_rows() {
            rows.push((ids.value(i), names.value(i).to_string()));
        }
    }
    rows.sort();
    println!("{rows:?}");
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
    async fn the_newest_record_of_each_key_wins() {
        let dir = tempfile::tempdir().unwrap();
        let rows = super::run(dir.path().to_str().unwrap()).await.unwrap();
        assert_eq!(rows, vec![(1, "ann".to_string()), (2, "bobby".to_string())]);
    }
}
