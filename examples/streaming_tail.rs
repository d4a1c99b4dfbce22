//! Follow a table as it is committed to — a streaming read, as Flink's Paimon source does:
//!
//! ```text
//! cargo run -p strata-examples --example streaming_tail [WAREHOUSE]
//! ```
//!
//! The stream starts with the earliest snapshot whole, then yields the changes of every later
//! snapshot as it is committed, each batch with the snapshot it comes from and a first
//! `rowkind` column (`+I`, `-U`, `+U`, `-D`). A writer task commits while the stream reads;
//! `until_snapshot` ends the stream after the last commit (without it the stream waits for
//! more, polling). With `with_consumer_id`, progress is recorded so a restarted stream resumes.

use std::sync::Arc;
use std::time::Duration;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use futures::StreamExt;
use strata::catalog::{Catalog, FileSystemCatalog, Identifier};
use strata::stream::StartingPosition;
use strata::table::Table;
use strata_examples::BoxError;

const COMMITS: i64 = 3;

async fn append(table: &Table, ids: Vec<i64>) -> Result<(), BoxError> {
    let arrow = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));
    let batch = RecordBatch::try_new(arrow, vec![Arc::new(Int64Array::from(ids))])?;
    let mut write = table.new_write()?;
    write.write(&batch).await?;
    table
        .new_commit()?
        .commit(write.prepare_commit().await?)
        .await?;
    Ok(())
}

/// Streams `db.clicks` under `warehouse` while another task commits to it; returns
/// `(snapshot, rows)` per batch received.
pub async fn run(warehouse: &str) -> Result<Vec<(i64, usize)>, BoxError> {
    let catalog: Arc<dyn Catalog> = Arc::new(FileSystemCatalog::open(warehouse)?);
    let id: Identifier = "db.clicks".parse()?;
    let schema = strata_spec::schema::Schema::from_json(
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"}]}"#,
    )?;
    catalog.create_table(&id, &schema, true).await?;
    let table = catalog.get_table(&id).await?;
    append(&table, vec![0]).await?;

    // The writer: more commits, while the stream below is reading.
    let writer = {
        let table = table.clone();
        tokio::spawn(async move {
            for n in 1..COMMITS {
                tokio::time::sleep(Duration::from_millis(50)).await;
                append(&table, vec![n * 10, n * 10 + 1]).await?;
            }
            Ok::<_, BoxError>(())
        })
    };

    let mut changes = table
        .new_stream_read()
        .with_start(StartingPosition::Earliest)
        .with_poll_interval(Duration::from_millis(20))
        .until_snapshot(COMMITS)
        .changes()?;
    let mut seen = Vec::new();
    while let Some(change) = changes.next().await {
        let change = change?;
        println!(
            "snapshot {}: {} rows",
            change.snapshot_id,
            change.batch.num_rows()
        );
        seen.push((change.snapshot_id, change.batch.num_rows()));
    }
    writer.await??;
    Ok(seen)
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let (warehouse, _guard) = strata_examples::warehouse_from_args();
    run(&warehouse).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_commit_arrives_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let seen = super::run(dir.path().to_str().unwrap()).await.unwrap();
        let rows: usize = seen.iter().map(|(_, n)| n).sum();
        assert_eq!(rows, 1 + 2 * (super::COMMITS as usize - 1), "{seen:?}");
        let snapshots: Vec<i64> = seen.iter().map(|(s, _)| *s).collect();
        assert!(snapshots.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
        assert_eq!(snapshots.last(), Some(&super::COMMITS), "{seen:?}");
    }
}
