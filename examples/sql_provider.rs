//! strata's tables in any DataFusion engine: the warehouse registered as a DataFusion
//! `CatalogProvider`, queried with plain DataFusion SQL —
//!
//! ```text
//! cargo run -p strata-examples --example sql_provider [WAREHOUSE]
//! ```
//!
//! `StrataCatalog` exposes the warehouse's databases as schemas and its tables as
//! `TableProvider`s (filter and projection pushdown, statistics, INSERT). strata's own
//! `SqlSession` (the `strata sql` command) adds Paimon's DDL, procedures and time travel on top.

use std::sync::Arc;

use datafusion::prelude::SessionContext;
use strata::catalog::FileSystemCatalog;
use strata_datafusion::StrataCatalog;
use strata_examples::BoxError;

/// Creates `db.orders` under `warehouse` through the library, inserts and aggregates through
/// DataFusion; returns the aggregate's rows as text.
pub async fn run(warehouse: &str) -> Result<Vec<String>, BoxError> {
    let catalog = Arc::new(FileSystemCatalog::open(warehouse)?);
    let schema = strata_spec::schema::Schema::from_json(
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"customer","type":"STRING"},
           {"name":"amount","type":"DOUBLE"}],"primaryKeys":["id"],"options":{"bucket":"1"}}"#,
    )?;
    catalog
        .create_table(&"db.orders".parse()?, &schema, true)
        .await?;

    let ctx = SessionContext::new();
    ctx.register_catalog("paimon", Arc::new(StrataCatalog::new(catalog)));
    ctx.sql(
        "INSERT INTO paimon.db.orders VALUES (1, 'ann', 10.0), (2, 'bob', 5.5), (3, 'ann', 2.5)",
    )
    .await?
    .collect()
    .await?;
    let batches = ctx
        .sql("SELECT customer, sum(amount) AS total FROM paimon.db.orders GROUP BY customer ORDER BY customer")
        .await?
        .collect()
        .await?;
    let text = arrow::util::pretty::pretty_format_batches(&batches)?.to_string();
    println!("{text}");
    Ok(text.lines().map(str::to_string).collect())
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
    async fn datafusion_reads_what_it_wrote_through_the_provider() {
        let dir = tempfile::tempdir().unwrap();
        let lines = super::run(dir.path().to_str().unwrap()).await.unwrap();
        assert!(
            lines
                .iter()
                .any(|l| l.contains("ann") && l.contains("12.5")),
            "{lines:?}"
        );
        assert!(
            lines.iter().any(|l| l.contains("bob") && l.contains("5.5")),
            "{lines:?}"
        );
    }
}
