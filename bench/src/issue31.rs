//! The issue-31 phases: a point lookup on a non-key column with and without a bloom-filter
//! file index (bench/file_index.sh), and a column backfill on a data-evolution table
//! (bench/column_backfill.sh). Java's counterparts are `strata.bench.Issue31Peer`
//! (bench/java), which generates the same rows.
//!
//! * `fi-write`: N rows `id BIGINT NOT NULL, user STRING, v BIGINT` (`user = u%08d` of
//!   `id * 7368787 mod N`, a permutation: every file's min/max of `user` spans nearly the whole
//!   range, so statistics cannot prune) built in memory (untimed), then one commit into an
//!   unaware-bucket append table, timed from `get_table` to the committed snapshot.
//! * `fi-lookup`: plan + read of `user = VALUE` (scan and read filter) into memory, timed after
//!   the catalog and table are opened; the read metrics (files read / skipped by the index,
//!   bytes) and the process's `rchar` delta (`/proc/self/io`: every byte read through a
//!   syscall, index files included).
//! * `backfill`: a fresh table with `row-tracking.enabled` and `data-evolution.enabled`,
//!   N rows of six columns written in one commit (untimed), then `score = id % 97` set on every
//!   row, timed: `--mode update` through `Table::update_columns` (one file of `score` per
//!   row-id range, as Java's partial-column writer), `--mode rewrite` as an OVERWRITE of every
//!   row with the new `score`. Bytes written are the new files under the table directory
//!   (data files apart from metadata) and the process's `wchar` delta.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use arrow::array::{ArrayRef, Float64Array, Int32Array, Int64Array, StringArray};
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use serde_json::{json, Map, Value};
use strata::catalog::Identifier;
use strata::commit::OverwriteScope;
use strata::table::Table;

use crate::common::{cpu_time, secs, Result, INPUT_BATCH_ROWS};
use crate::strata_phases::{catalog, commit_batches, create_table, with_options, DATABASE};

/// The multiplier of the `user` permutation (coprime to the row count).
pub const PERMUTE: u64 = 7_368_787;

const FI_SCHEMA_JSON: &str = r#"{
  "fields": [
    {"name": "id", "type": "BIGINT NOT NULL"},
    {"name": "user", "type": "STRING"},
    {"name": "v", "type": "BIGINT"}
  ],
  "partitionKeys": [],
  "primaryKeys": [],
  "options": {"bucket": "-1"}
}"#;

const BACKFILL_SCHEMA_JSON: &str = r#"{
  "fields": [
    {"name": "id", "type": "BIGINT NOT NULL"},
    {"name": "name", "type": "STRING"},
    {"name": "a", "type": "INT"},
    {"name": "b", "type": "STRING"},
    {"name": "c", "type": "DOUBLE"},
    {"name": "score", "type": "INT"}
  ],
  "partitionKeys": [],
  "primaryKeys": [],
  "options": {"bucket": "-1", "row-tracking.enabled": "true", "data-evolution.enabled": "true"}
}"#;

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The `user` value of row `i` of `n`.
pub fn user(i: u64, n: u64) -> String {
    format!("u{:08}", (i as u128 * PERMUTE as u128 % n as u128) as u64)
}

/// `/proc/self/io` field (`rchar`, `wchar`), 0 when unreadable.
fn proc_io(key: &str) -> u64 {
    let text = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// Columns cast to the writer's Arrow schema (strings may be string views).
fn batch(schema: &SchemaRef, columns: Vec<ArrayRef>) -> Result<RecordBatch> {
    let cols = columns
        .iter()
        .zip(schema.fields())
        .map(|(c, f)| arrow::compute::cast(c, f.data_type()))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(RecordBatch::try_new(schema.clone(), cols)?)
}

/// Every file under `dir` (relative path → size).
fn file_sizes(dir: &Path) -> BTreeMap<String, u64> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, u64>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            match e.metadata() {
                Ok(m) if m.is_dir() => walk(root, &p, out),
                Ok(m) => {
                    let rel = p.strip_prefix(root).unwrap_or(&p).display().to_string();
                    out.insert(rel, m.len());
                }
                Err(_) => {}
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Sizes of the files in `after` but not in `before`: (data files, index files, the rest).
fn new_bytes(before: &BTreeMap<String, u64>, after: &BTreeMap<String, u64>) -> (u64, u64, u64) {
    let (mut data, mut index, mut meta) = (0, 0, 0);
    for (name, size) in after.iter().filter(|(k, _)| !before.contains_key(*k)) {
        if name.starts_with("bucket-") && name.ends_with(".index") {
            index += size;
        } else if name.starts_with("bucket-") {
            data += size;
        } else {
            meta += size;
        }
    }
    (data, index, meta)
}

fn table_dir(wh: &Path, table: &str) -> std::path::PathBuf {
    wh.join(format!("{DATABASE}.db")).join(table)
}

/// `fi-write`: the file-index table written in one commit.
pub async fn fi_write(
    wh: &Path,
    table: &str,
    rows: u64,
    options: &[String],
) -> Result<Map<String, Value>> {
    if gcd(PERMUTE, rows) != 1 {
        return Err(format!("--rows {rows} shares a factor with {PERMUTE}").into());
    }
    let cat = catalog(wh)?;
    let id = Identifier::new(DATABASE, table)?;
    create_table(&cat, &id, &with_options(FI_SCHEMA_JSON, options)?).await?;
    let schema = cat
        .get_table(&id)
        .await?
        .new_write()?
        .arrow_schema()
        .clone();
    let mut batches = Vec::new();
    let mut start = 0u64;
    while start < rows {
        let end = (start + INPUT_BATCH_ROWS as u64).min(rows);
        let ids: Int64Array = (start as i64..end as i64).collect();
        let users: StringArray = (start..end).map(|i| Some(user(i, rows))).collect();
        let v: Int64Array = (start as i64..end as i64).map(|i| Some(i * 3)).collect();
        batches.push(batch(
            &schema,
            vec![Arc::new(ids), Arc::new(users), Arc::new(v)],
        )?);
        start = end;
    }
    let cpu0 = cpu_time();
    let t0 = Instant::now();
    let t = cat.get_table(&id).await?;
    let snapshot = commit_batches(&t, batches).await?;
    let elapsed = t0.elapsed();
    let cpu = cpu_time().saturating_sub(cpu0);
    if snapshot.is_none() {
        return Err("the write produced no snapshot".into());
    }
    let (data, index, meta) = new_bytes(&BTreeMap::new(), &file_sizes(&table_dir(wh, table)));
    let files = file_sizes(&table_dir(wh, table))
        .keys()
        .filter(|k| k.starts_with("bucket-") && !k.ends_with(".index"))
        .count();
    let mut out = Map::new();
    out.insert("table".into(), json!(table));
    out.insert("seconds".into(), json!(secs(elapsed)));
    out.insert("cpu_s".into(), json!(secs(cpu)));
    out.insert("rows".into(), json!(rows));
    out.insert("data_files".into(), json!(files));
    out.insert("data_bytes".into(), json!(data));
    out.insert("index_bytes".into(), json!(index));
    out.insert("meta_bytes".into(), json!(meta));
    out.insert("options".into(), json!(options));
    Ok(out)
}

/// `fi-lookup`: plan + read of `user = value`.
pub async fn fi_lookup(wh: &Path, table: &str, value: &str) -> Result<Map<String, Value>> {
    let cat = catalog(wh)?;
    let t = cat.get_table(&Identifier::new(DATABASE, table)?).await?;
    let predicate = strata::expr::parse_sql_predicate(&format!("\"user\" = '{value}'"))?;
    let rchar0 = proc_io("rchar");
    let cpu0 = cpu_time();
    let t0 = Instant::now();
    let plan = t.new_scan().with_filter(predicate.clone()).plan().await?;
    let plan_time = t0.elapsed();
    let planned: usize = plan.splits.iter().map(|s| s.files.len()).sum();
    let metrics = Arc::new(strata::read::ReadMetrics::default());
    let batches = t
        .new_read()
        .with_metrics(metrics.clone())
        .with_filter(predicate)
        .to_batches(plan.splits)
        .await?;
    let elapsed = t0.elapsed();
    let cpu = cpu_time().saturating_sub(cpu0);
    let rchar = proc_io("rchar") - rchar0;
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    let mut out = Map::new();
    out.insert("table".into(), json!(table));
    out.insert("seconds".into(), json!(secs(elapsed)));
    out.insert("plan_s".into(), json!(secs(plan_time)));
    out.insert("cpu_s".into(), json!(secs(cpu)));
    out.insert("rows".into(), json!(rows));
    out.insert("files_planned".into(), json!(planned));
    out.insert("read_metrics".into(), json!(metrics.snapshot()));
    out.insert("rchar".into(), json!(rchar));
    Ok(out)
}

/// How `backfill` sets the column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BackfillMode {
    /// `Table::update_columns` (a file of `score` per row-id range).
    Update,
    /// OVERWRITE of every row with the new `score`.
    Rewrite,
}

/// The backfill table's rows `start..end` (`score` = `new_score` or 0).
fn backfill_batch(
    schema: &SchemaRef,
    start: u64,
    end: u64,
    new_score: bool,
) -> Result<RecordBatch> {
    let (s, e) = (start as i64, end as i64);
    let ids: Int64Array = (s..e).collect();
    let name: StringArray = (s..e).map(|i| Some(format!("user-{i:08}"))).collect();
    let a: Int32Array = (s..e).map(|i| Some((i % 1000) as i32)).collect();
    let b: StringArray = (s..e)
        .map(|i| Some(format!("b-{}", i * 7919 % 100_003)))
        .collect();
    let c: Float64Array = (s..e).map(|i| Some(i as f64 / 7.0)).collect();
    let score: Int32Array = (s..e)
        .map(|i| Some(if new_score { (i % 97) as i32 } else { 0 }))
        .collect();
    let cols: Vec<ArrayRef> = vec![
        Arc::new(ids),
        Arc::new(name),
        Arc::new(a),
        Arc::new(b),
        Arc::new(c),
        Arc::new(score),
    ];
    batch(schema, cols)
}

fn all_rows(schema: &SchemaRef, rows: u64, new_score: bool) -> Result<Vec<RecordBatch>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < rows {
        let end = (start + INPUT_BATCH_ROWS as u64).min(rows);
        out.push(backfill_batch(schema, start, end, new_score)?);
        start = end;
    }
    Ok(out)
}

/// `backfill`: a fresh data-evolution table of `rows` rows, then `score` set on every row.
pub async fn backfill(wh: &Path, rows: u64, mode: BackfillMode) -> Result<Map<String, Value>> {
    let table = "backfill_t";
    let dir = table_dir(wh, table);
    if dir.exists() {
        return Err(format!("{} exists (backfill needs a fresh table)", dir.display()).into());
    }
    let cat = catalog(wh)?;
    let id = Identifier::new(DATABASE, table)?;
    create_table(&cat, &id, BACKFILL_SCHEMA_JSON).await?;
    let t: Table = cat.get_table(&id).await?;
    let schema = t.new_write()?.arrow_schema().clone();
    let t_setup = Instant::now();
    commit_batches(&t, all_rows(&schema, rows, false)?).await?;
    let setup = t_setup.elapsed();
    let before = file_sizes(&dir);
    let table_bytes: u64 = before
        .iter()
        .filter(|(k, _)| k.starts_with("bucket-"))
        .map(|(_, v)| v)
        .sum();

    // The input, untimed: `_ROW_ID` + `score` (update) or every row (rewrite).
    let input: Vec<RecordBatch> = match mode {
        BackfillMode::Update => {
            let ids: Int64Array = (0..rows as i64).collect();
            let score: Int32Array = (0..rows as i64).map(|i| Some((i % 97) as i32)).collect();
            vec![RecordBatch::try_from_iter(vec![
                ("_ROW_ID", Arc::new(ids) as ArrayRef),
                ("score", Arc::new(score) as ArrayRef),
            ])?]
        }
        BackfillMode::Rewrite => all_rows(&schema, rows, true)?,
    };
    let wchar0 = proc_io("wchar");
    let cpu0 = cpu_time();
    let t0 = Instant::now();
    let t = cat.get_table(&id).await?;
    let snapshot = match mode {
        BackfillMode::Update => t.update_columns(&input[0]).await?,
        BackfillMode::Rewrite => {
            let mut write = t.new_write()?.with_overwrite(true);
            for b in &input {
                write.write(b).await?;
            }
            let messages = write.prepare_commit().await?;
            t.new_commit()?
                .overwrite(OverwriteScope::WholeTable, messages)
                .await?
        }
    };
    let elapsed = t0.elapsed();
    let cpu = cpu_time().saturating_sub(cpu0);
    let wchar = proc_io("wchar") - wchar0;
    if snapshot.is_none() {
        return Err("the backfill produced no snapshot".into());
    }
    let (data, index, meta) = new_bytes(&before, &file_sizes(&dir));
    let mut out = Map::new();
    out.insert(
        "mode".into(),
        json!(match mode {
            BackfillMode::Update => "update",
            BackfillMode::Rewrite => "rewrite",
        }),
    );
    out.insert("seconds".into(), json!(secs(elapsed)));
    out.insert("cpu_s".into(), json!(secs(cpu)));
    out.insert("rows".into(), json!(rows));
    out.insert("setup_s".into(), json!(secs(setup)));
    out.insert("table_bytes".into(), json!(table_bytes));
    out.insert("data_bytes_written".into(), json!(data + index));
    out.insert("meta_bytes_written".into(), json!(meta));
    out.insert("wchar".into(), json!(wchar));
    Ok(out)
}
