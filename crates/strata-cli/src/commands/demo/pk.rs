//! The primary-key half of `strata demo`: `demo.accounts`, a primary-key table (deduplicate
//! merge engine, 2 buckets) receiving inserts, updates and deletes over three commits, read
//! back by merge-on-read, with its level-0 files and time travel shown; then what sets strata
//! apart: point lookups planned from the snapshot live manifest entry cache, and a compaction
//! that *upgrades* a file (same name, new level, no bytes rewritten) instead of rewriting it.

use std::sync::Arc;
use std::time::Instant;

use arrow::array::{ArrayRef, Int64Array, StringArray};
use arrow::record_batch::RecordBatch;
use futures::StreamExt;
use strata::cache::LruCache;
use strata::catalog::{Catalog, Identifier};
use strata::table::Table;
use strata_spec::kv::RowKind;
use strata_spec::schema::Schema;

use crate::error::{msg, Result};

const SCHEMA: &str = r#"{
  "fields": [
    {"name": "account_id", "type": "BIGINT NOT NULL"},
    {"name": "balance", "type": "BIGINT"},
    {"name": "tier", "type": "STRING"}
  ],
  "primaryKeys": ["account_id"],
  "options": {"bucket": "2"},
  "comment": "strata demo: account balances (primary key, upserts and deletes)"
}"#;

fn batch(table: &Table, ids: &[i64], round: i64) -> Result<RecordBatch> {
    let balance: Vec<i64> = ids.iter().map(|i| i * 100 + round).collect();
    let tier: Vec<&str> = ids
        .iter()
        .map(|i| ["bronze", "silver", "gold"][((i + round) % 3) as usize])
        .collect();
    let cols: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(ids.to_vec())),
        Arc::new(Int64Array::from(balance)),
        Arc::new(StringArray::from(tier)),
    ];
    let schema = table.new_write()?.arrow_schema().clone();
    RecordBatch::try_new(schema, cols).map_err(|e| msg(e.to_string()))
}

async fn rows_and_sum(table: &Table, snapshot: Option<i64>) -> Result<(usize, i64)> {
    let mut scan = table.new_scan();
    if let Some(s) = snapshot {
        scan = scan.with_snapshot(s);
    }
    let plan = scan.plan().await?;
    let read = table.new_read().with_projection(vec!["balance".into()]);
    let mut stream = read.to_stream(plan.splits)?;
    let (mut rows, mut sum) = (0usize, 0i64);
    while let Some(b) = stream.next().await {
        let b = b?;
        rows += b.num_rows();
        let col = b
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .ok_or_else(|| msg("balance is not BIGINT"))?;
        sum += col.iter().flatten().sum::<i64>();
    }
    Ok((rows, sum))
}

pub async fn run(catalog: &dyn Catalog, rows: usize, flags: &str) -> Result<()> {
    let id = Identifier::new("demo", "accounts")?;
    if catalog.table_exists(&id).await? {
        catalog.drop_table(&id, false).await?;
    }
    let schema = Schema::from_json(SCHEMA).map_err(strata::Error::from)?;
    catalog.create_table(&id, &schema, false).await?;
    let table = catalog.get_table(&id).await?;
    println!("\ncreated {id}: primary key account_id, 2 buckets, merge engine deduplicate");

    let n = rows as i64;
    let t0 = Instant::now();
    let ids: Vec<i64> = (0..n).collect();
    let s1 = table.write_batches([batch(&table, &ids, 1)?], None).await?;
    println!(
        "commit 1: inserted {n} accounts -> snapshot {} ({:.0} ms)",
        s1.unwrap_or(0),
        t0.elapsed().as_secs_f64() * 1000.0
    );
    let t0 = Instant::now();
    let updates: Vec<i64> = (0..n).step_by(3).chain(n..n + n / 10).collect();
    let s2 = table
        .write_batches([batch(&table, &updates, 2)?], None)
        .await?;
    println!(
        "commit 2: upserted {} accounts (every third updated, {} new) -> snapshot {} ({:.0} ms)",
        updates.len(),
        n / 10,
        s2.unwrap_or(0),
        t0.elapsed().as_secs_f64() * 1000.0
    );
    let t0 = Instant::now();
    let deletes: Vec<i64> = (0..n).step_by(10).collect();
    let mut write = table.new_write()?;
    let kinds = vec![RowKind::Delete; deletes.len()];
    write
        .write_with_kinds(&batch(&table, &deletes, 3)?, &kinds)
        .await?;
    let messages = write.prepare_commit().await?;
    let s3 = table.new_commit()?.commit(messages).await?;
    println!(
        "commit 3: deleted {} accounts (row kind -D) -> snapshot {} ({:.0} ms)",
        deletes.len(),
        s3.unwrap_or(0),
        t0.elapsed().as_secs_f64() * 1000.0
    );

    let plan = table.new_scan().plan().await?;
    let files: Vec<_> = plan.splits.iter().flat_map(|s| s.files.iter()).collect();
    let physical: i64 = files.iter().map(|f| f.row_count).sum();
    let level0 = files.iter().filter(|f| f.level == 0).count();
    let t0 = Instant::now();
    let (live, sum) = rows_and_sum(&table, None).await?;
    println!(
        "merge-on-read: {live} live accounts (sum of balances {sum}) from {physical} records in \
         {} files, {level0} of them level-0 sorted runs ({:.0} ms)",
        files.len(),
        t0.elapsed().as_secs_f64() * 1000.0
    );
    let (before, _) = rows_and_sum(&table, s1).await?;
    println!(
        "time travel to snapshot {}: {before} accounts",
        s1.unwrap_or(0)
    );

    // Full compaction: every bucket into the max level, deletes dropped.
    let t0 = Instant::now();
    let mut write = table.new_write()?;
    write.compact(&|_, _| true, true).await?;
    let messages = write.prepare_commit().await?;
    let metrics = write.take_compaction_metrics();
    let s4 = table.new_commit()?.commit(messages).await?;
    let (upgraded, rewritten, written): (usize, usize, usize) =
        metrics.iter().fold((0, 0, 0), |acc, m| {
            (
                acc.0 + m.task.upgraded_files,
                acc.1 + m.task.rewritten_input_files,
                acc.2 + m.task.output_files,
            )
        });
    let (live_after, sum_after) = rows_and_sum(&table, None).await?;
    println!(
        "full compaction -> snapshot {} (COMPACT): {} buckets, {upgraded} files upgraded in place, \
         {rewritten} rewritten into {written}; {live_after} accounts (sum {sum_after}) ({:.0} ms)",
        s4.unwrap_or(0),
        metrics.len(),
        t0.elapsed().as_secs_f64() * 1000.0
    );
    point_lookups(&table, n).await?;
    upgrade(&table, n).await?;
    println!(
        "\ntry: strata {flags} files demo.accounts --format text\n     \
         strata {flags} levels demo.accounts --svg accounts.svg"
    );
    Ok(())
}

/// Point lookups: a key equality plans one bucket, and with
/// `scan.manifest-entry-cache.max-snapshots` the second plan of the same snapshot is served
/// from the live entries the first one cached (no manifest read).
async fn point_lookups(table: &Table, n: i64) -> Result<()> {
    let cached = table
        .with_dynamic_options([(
            "scan.manifest-entry-cache.max-snapshots".to_string(),
            "1".to_string(),
        )])?
        .with_cache(Arc::new(LruCache::new(64 << 20)));
    let mut lines = Vec::new();
    for key in [n / 2, n / 2 + 1] {
        let filter = strata::expr::parse_sql_predicate(&format!("account_id = {key}"))?;
        let plan = cached.new_scan().with_filter(filter).plan().await?;
        let m = &plan.metrics;
        lines.push(format!(
            "account_id = {key}: {} manifests read, cache {}, {} µs",
            m.last_scanned_manifests,
            match m.cache_hit {
                Some(true) => "hit",
                Some(false) => "miss",
                None => "not used",
            },
            m.planning_micros
        ));
    }
    println!(
        "point lookups with the live manifest entry cache: {} -> {}",
        lines[0], lines[1]
    );
    Ok(())
}

/// New keys above all others land in level-0 files that overlap nothing; a full compaction
/// moves them to the max level by rewriting only the manifest entry (Java's upgrade in
/// `MergeTreeCompactTask`).
async fn upgrade(table: &Table, n: i64) -> Result<()> {
    let ids: Vec<i64> = (3 * n..3 * n + n / 2).collect();
    let s = table.write_batches([batch(table, &ids, 5)?], None).await?;
    let level0: Vec<String> = table
        .new_scan()
        .plan()
        .await?
        .splits
        .iter()
        .flat_map(|s| s.files.iter())
        .filter(|f| f.level == 0)
        .map(|f| f.file_name.clone())
        .collect();
    println!(
        "commit 4: inserted {} accounts with ids above all others -> snapshot {}: {} new level-0 \
         files",
        ids.len(),
        s.unwrap_or(0),
        level0.len()
    );
    // A file is upgraded when it is at least target-file-size x compaction.small-file-ratio
    // (0.7); the demo's files are small, so this compaction uses a small target.
    let small =
        table.with_dynamic_options([("target-file-size".to_string(), "64 kb".to_string())])?;
    let mut write = small.new_write()?;
    write.compact(&|_, _| true, true).await?;
    let messages = write.prepare_commit().await?;
    let metrics = write.take_compaction_metrics();
    let sc = small.new_commit()?.commit(messages).await?;
    let after = table.new_scan().plan().await?;
    let moved: Vec<String> = after
        .splits
        .iter()
        .flat_map(|s| s.files.iter())
        .filter(|f| level0.contains(&f.file_name))
        .map(|f| format!("{} (level 0 -> {})", f.file_name, f.level))
        .collect();
    let upgraded: usize = metrics.iter().map(|m| m.task.upgraded_files).sum();
    let rewritten: usize = metrics.iter().map(|m| m.task.rewritten_input_files).sum();
    println!(
        "full compaction -> snapshot {}: {upgraded} files upgraded in place (same name, new level, \
         no bytes rewritten), {rewritten} rewritten",
        sc.unwrap_or(0)
    );
    for m in &moved {
        println!("  upgraded: {m}");
    }
    Ok(())
}
