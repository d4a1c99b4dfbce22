//! `strata demo`: builds `demo.events` in the warehouse over several commits — three appends
//! and one INSERT OVERWRITE of a partition — then reads it back (full, filtered, time travel)
//! and prints what happened at each step; then the primary-key demo
//! ([`pk`]) and the shredded-MAP demo ([`map`]). Re-running it recreates the tables. It works
//! through any catalog; the `try:` hints repeat the catalog flags ([`catalog_flags`]).

mod map;
mod pk;

use std::sync::Arc;
use std::time::Instant;

use arrow::array::{
    ArrayRef, Decimal128Array, Int32Array, Int64Array, StringArray, TimestampMillisecondArray,
};
use arrow::record_batch::RecordBatch;
use futures::StreamExt;
use strata::catalog::{Catalog, Identifier};
use strata::commit::OverwriteScope;
use strata::expr::parse_sql_predicate;
use strata::table::Table;
use strata_spec::schema::Schema;

use crate::error::{msg, Result};

const SCHEMA: &str = r#"{
  "fields": [
    {"name": "event_id", "type": "BIGINT NOT NULL"},
    {"name": "dt", "type": "STRING"},
    {"name": "user_id", "type": "INT"},
    {"name": "kind", "type": "STRING"},
    {"name": "amount", "type": "DECIMAL(10, 2)"},
    {"name": "ts", "type": "TIMESTAMP(3)"}
  ],
  "partitionKeys": ["dt"],
  "primaryKeys": [],
  "options": {"bucket": "2", "bucket-key": "user_id", "metadata.stats-mode": "full"},
  "comment": "strata demo: click events"
}"#;

const DAYS: [&str; 3] = ["2026-11-01", "2026-11-02", "2026-11-03"];
const KINDS: [&str; 4] = ["view", "click", "cart", "buy"];

fn batch(
    table: &Table,
    start: i64,
    rows: usize,
    day: Option<&str>,
    seed: i64,
) -> Result<RecordBatch> {
    let ids: Vec<i64> = (start..start + rows as i64).collect();
    let dt: Vec<&str> = ids
        .iter()
        .map(|i| day.unwrap_or(DAYS[(i % 3) as usize]))
        .collect();
    let user: Vec<i32> = ids
        .iter()
        .map(|i| ((i * 7919 + seed) % 1000) as i32)
        .collect();
    let kind: Vec<&str> = ids
        .iter()
        .map(|i| KINDS[((i + seed) % 4) as usize])
        .collect();
    let amount: Vec<i128> = ids
        .iter()
        .map(|i| ((i * 37 + seed) % 10_000) as i128)
        .collect();
    let ts: Vec<i64> = ids.iter().map(|i| 1_793_491_200_000 + i * 1000).collect();
    let cols: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(ids)),
        Arc::new(StringArray::from(dt)),
        Arc::new(Int32Array::from(user)),
        Arc::new(StringArray::from(kind)),
        Arc::new(
            Decimal128Array::from(amount)
                .with_precision_and_scale(10, 2)
                .map_err(|e| msg(e.to_string()))?,
        ),
        Arc::new(TimestampMillisecondArray::from(ts)),
    ];
    let schema = table.new_write()?.arrow_schema().clone();
    RecordBatch::try_new(schema, cols).map_err(|e| msg(e.to_string()))
}

async fn count(
    table: &Table,
    filter: Option<&str>,
    snapshot: Option<i64>,
) -> Result<(usize, usize)> {
    let mut scan = table.new_scan();
    let mut read = table.new_read();
    if let Some(f) = filter {
        let p = parse_sql_predicate(f)?;
        scan = scan.with_filter(p.clone());
        read = read.with_filter(p);
    }
    if let Some(s) = snapshot {
        scan = scan.with_snapshot(s);
    }
    let plan = scan.plan().await?;
    let files: usize = plan.splits.iter().map(|s| s.files.len()).sum();
    let mut stream = read.to_stream(plan.splits)?;
    let mut rows = 0;
    while let Some(b) = stream.next().await {
        rows += b?.num_rows();
    }
    Ok((rows, files))
}

/// The catalog flags the `try:` hints repeat: `--warehouse X` for a filesystem catalog, else
/// `--catalog-option K=V,…` without the secrets (they come from `$STRATA_CATALOG_OPTIONS`).
pub fn catalog_flags(options: &std::collections::BTreeMap<String, String>) -> String {
    let filesystem = options
        .get("metastore")
        .is_none_or(|m| m.as_str() == "filesystem");
    match options.get("warehouse") {
        Some(w) if filesystem && options.len() == 1 => format!("--warehouse {w}"),
        _ => {
            let pairs: Vec<String> = options
                .iter()
                .filter(|(k, _)| !strata_datafusion::codec::is_secret_catalog_option(k))
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            format!("--catalog-option {}", pairs.join(","))
        }
    }
}

pub async fn run(catalog: &dyn Catalog, rows: usize, flags: &str) -> Result<()> {
    let id = Identifier::new("demo", "events")?;
    println!("catalog: {}", catalog.location());
    if catalog.table_exists(&id).await? {
        catalog.drop_table(&id, false).await?;
        println!("dropped the previous {id}");
    }
    let schema = Schema::from_json(SCHEMA).map_err(strata::Error::from)?;
    catalog.create_table(&id, &schema, false).await?;
    let table = catalog.get_table(&id).await?;
    println!(
        "created {id}: partitioned by dt, 2 buckets by user_id, at {}",
        table.location()
    );

    let mut next = 0i64;
    for commit in 1..=3 {
        let t0 = Instant::now();
        let b = batch(&table, next, rows, None, commit)?;
        next += rows as i64;
        let snap = table.write_batches([b], None).await?;
        println!(
            "commit {commit}: appended {rows} rows -> snapshot {} ({:.0} ms)",
            snap.unwrap_or(0),
            t0.elapsed().as_secs_f64() * 1000.0
        );
    }
    let t0 = Instant::now();
    let replacement = rows / 10;
    let b = batch(&table, next, replacement, Some(DAYS[1]), 99)?;
    let snap = table
        .write_batches([b], Some(OverwriteScope::Dynamic))
        .await?;
    println!(
        "commit 4: INSERT OVERWRITE partition dt={} with {replacement} rows -> snapshot {} ({:.0} ms)",
        DAYS[1],
        snap.unwrap_or(0),
        t0.elapsed().as_secs_f64() * 1000.0
    );

    println!("\nsnapshots:");
    for s in table.snapshot_manager().all().await? {
        println!(
            "  {:>2}  {:<9} total rows {:>9}  delta {:>+9}",
            s.id,
            s.commit_kind.as_str(),
            s.total_record_count,
            s.delta_record_count
        );
    }

    println!("\nreads:");
    let t0 = Instant::now();
    let (n, files) = count(&table, None, None).await?;
    println!(
        "  full table: {n} rows from {files} files ({:.0} ms)",
        t0.elapsed().as_secs_f64() * 1000.0
    );
    let f = format!("dt = '{}' AND kind = 'buy'", DAYS[0]);
    let t0 = Instant::now();
    let (n, files) = count(&table, Some(&f), None).await?;
    println!(
        "  WHERE {f}: {n} rows, {files} files after pruning ({:.0} ms)",
        t0.elapsed().as_secs_f64() * 1000.0
    );
    let (n, files) = count(&table, Some("event_id < 1000"), None).await?;
    println!("  WHERE event_id < 1000: {n} rows, {files} files after stats pruning");
    let (n, _) = count(&table, None, Some(1)).await?;
    println!("  time travel to snapshot 1: {n} rows");
    println!(
        "\ntry: strata {flags} read demo.events --where \"dt = '{}'\" --limit 5",
        DAYS[1]
    );
    pk::run(catalog, rows, flags).await?;
    map::run(catalog, rows / 2, flags).await
}
