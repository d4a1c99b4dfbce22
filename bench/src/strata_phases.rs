//! The strata phases: write the append or primary-key table in 4 commits, read it fully, read
//! it with `id < 1000`. Timers cover the same work as bench/peers.py's: for a write, each commit
//! from `get_table` to the committed snapshot (input already in memory); for a read, plan + read
//! into memory, with opening the catalog and table reported apart as `open_s`.

use std::path::Path;
use std::time::Instant;

use arrow::record_batch::RecordBatch;
use serde_json::{json, Map};
use strata::catalog::{FileSystemCatalog, Identifier};
use strata::table::Table;

use crate::common::{cpu_time, load_commits, row_count, secs, Digest, Result};

pub const DATABASE: &str = "bench";
/// The filter of the `filter` phase.
pub const FILTER: &str = "id < 1000";

/// Which table of the workload a phase works on (the same names as bench/peers.py's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TableKind {
    /// `bench.append_t`: no primary key, `bucket = -1`.
    Append,
    /// `bench.pk_t`: primary key `id`, `bucket = 1` (deduplicate merge engine).
    Pk,
}

impl TableKind {
    pub fn table_name(self) -> &'static str {
        match self {
            TableKind::Append => "append_t",
            TableKind::Pk => "pk_t",
        }
    }

    pub fn schema_json(self) -> &'static str {
        match self {
            TableKind::Append => APPEND_SCHEMA_JSON,
            TableKind::Pk => PK_SCHEMA_JSON,
        }
    }

    pub fn identifier(self) -> Result<Identifier> {
        Ok(Identifier::new(DATABASE, self.table_name())?)
    }
}

/// The append table: the workload schema, unaware bucket (-1), Paimon defaults otherwise.
const APPEND_SCHEMA_JSON: &str = r#"{
  "fields": [
    {"name": "id", "type": "BIGINT NOT NULL"},
    {"name": "v_long", "type": "BIGINT"},
    {"name": "v_double", "type": "DOUBLE"},
    {"name": "v_str", "type": "STRING"},
    {"name": "v_int", "type": "INT"}
  ],
  "partitionKeys": [],
  "primaryKeys": [],
  "options": {"bucket": "-1"}
}"#;

/// The primary-key table: the same columns, primary key `id`, one bucket, Paimon defaults
/// otherwise (deduplicate merge engine, no compaction options).
const PK_SCHEMA_JSON: &str = r#"{
  "fields": [
    {"name": "id", "type": "BIGINT NOT NULL"},
    {"name": "v_long", "type": "BIGINT"},
    {"name": "v_double", "type": "DOUBLE"},
    {"name": "v_str", "type": "STRING"},
    {"name": "v_int", "type": "INT"}
  ],
  "partitionKeys": [],
  "primaryKeys": ["id"],
  "options": {"bucket": "1"}
}"#;

pub fn catalog(wh: &Path) -> Result<FileSystemCatalog> {
    std::fs::create_dir_all(wh).map_err(|e| format!("creating {}: {e}", wh.display()))?;
    let abs = wh
        .canonicalize()
        .map_err(|e| format!("resolving {}: {e}", wh.display()))?;
    let location = abs
        .to_str()
        .ok_or_else(|| format!("warehouse path {} is not UTF-8", abs.display()))?;
    Ok(FileSystemCatalog::open(location)?)
}

/// Creates `bench.<table>` from `schema_json` in `cat`.
pub async fn create_table(
    cat: &FileSystemCatalog,
    id: &Identifier,
    schema_json: &str,
) -> Result<()> {
    cat.create_database(DATABASE, true).await?;
    let schema = strata_spec::schema::Schema::from_json(schema_json)?;
    cat.create_table(id, &schema, false).await?;
    Ok(())
}

/// Writes `batches` with the table API and commits them as one snapshot:
/// `new_write` → `write` per batch → `prepare_commit` → `new_commit().commit`. On failure the
/// written files are deleted. Returns the new snapshot id.
pub async fn commit_batches(
    table: &Table,
    batches: impl IntoIterator<Item = RecordBatch>,
) -> Result<Option<i64>> {
    let mut write = table.new_write()?;
    let result = async {
        for b in batches {
            write.write(&b).await?;
        }
        let messages = write.prepare_commit().await?;
        table.new_commit()?.commit(messages).await
    }
    .await;
    if result.is_err() {
        write.abort().await;
    }
    Ok(result?)
}

/// `schema_json` with `options` (`key=value`) added to (or replacing) its table options.
pub fn with_options(schema_json: &str, options: &[String]) -> Result<String> {
    let mut v: serde_json::Value = serde_json::from_str(schema_json)?;
    let opts = v
        .get_mut("options")
        .and_then(|o| o.as_object_mut())
        .ok_or("the schema JSON has no \"options\" object")?;
    for kv in options {
        let (k, val) = kv
            .split_once('=')
            .ok_or_else(|| format!("table option {kv:?} is not key=value"))?;
        opts.insert(k.trim().to_string(), json!(val.trim()));
    }
    Ok(v.to_string())
}

/// Creates `bench.<table>` in `wh` (with the extra table `options`, `key=value`) and commits
/// each generated commit file as one snapshot.
pub async fn write(
    wh: &Path,
    data: &Path,
    kind: TableKind,
    options: &[String],
) -> Result<Map<String, serde_json::Value>> {
    let commits = load_commits(data)?; // not timed
    let rows: usize = commits.iter().map(|c| row_count(c)).sum();
    let cat = catalog(wh)?;
    let id = kind.identifier()?;
    create_table(&cat, &id, &with_options(kind.schema_json(), options)?).await?;

    let cpu0 = cpu_time();
    let mut per_commit = Vec::new();
    for (k, batches) in commits.into_iter().enumerate() {
        let t0 = Instant::now();
        let table = cat.get_table(&id).await?;
        let snapshot = commit_batches(&table, batches).await?;
        per_commit.push(t0.elapsed());
        if snapshot.is_none() {
            return Err(format!("commit {k} produced no snapshot").into());
        }
    }
    let cpu = cpu_time().saturating_sub(cpu0);
    let mut out = Map::new();
    out.insert("seconds".into(), json!(secs(per_commit.iter().sum())));
    out.insert("rows".into(), json!(rows));
    out.insert(
        "per_commit_s".into(),
        json!(per_commit.iter().map(|d| secs(*d)).collect::<Vec<_>>()),
    );
    out.insert("cpu_s".into(), json!(secs(cpu)));
    if !options.is_empty() {
        out.insert("options".into(), json!(options));
    }
    Ok(out)
}

/// Plans and reads the table in `wh` into memory, optionally with [`FILTER`].
pub async fn read(
    wh: &Path,
    kind: TableKind,
    filtered: bool,
) -> Result<Map<String, serde_json::Value>> {
    let t_open = Instant::now();
    let cat = catalog(wh)?;
    let table = cat.get_table(&kind.identifier()?).await?;
    let open = t_open.elapsed();
    let predicate = if filtered {
        Some(strata::expr::parse_sql_predicate(FILTER)?)
    } else {
        None
    };

    let cpu0 = cpu_time();
    let t0 = Instant::now();
    let mut scan = table.new_scan();
    if let Some(p) = &predicate {
        scan = scan.with_filter(p.clone());
    }
    let plan = scan.plan().await?;
    let plan_time = t0.elapsed();
    let files: usize = plan.splits.iter().map(|s| s.files.len()).sum();
    let splits = plan.splits.len();
    let metrics = std::sync::Arc::new(strata::read::ReadMetrics::default());
    let mut reader = table.new_read().with_metrics(metrics.clone());
    if let Some(p) = predicate {
        reader = reader.with_filter(p);
    }
    let batches = reader.to_batches(plan.splits).await?;
    let elapsed = t0.elapsed();
    let cpu = cpu_time().saturating_sub(cpu0);

    let mut out = Map::new();
    out.insert("seconds".into(), json!(secs(elapsed)));
    out.insert("plan_s".into(), json!(secs(plan_time)));
    out.insert("open_s".into(), json!(secs(open)));
    out.insert("cpu_s".into(), json!(secs(cpu)));
    out.insert("splits".into(), json!(splits));
    out.insert("files".into(), json!(files));
    // What the Parquet reader read: files, row groups, rows skipped by the page index, bytes.
    out.insert("read_metrics".into(), json!(metrics.snapshot()));
    Digest::of(&batches)?.add_to(&mut out);
    Ok(out)
}
