//! TPC-H through DataFusion: strata tables vs the same rows as plain Parquet files
//! (bench/tpch.sh runs it with pypaimon-rust's SQL layer as the third engine).
//!
//! * `tpch-load --dir D [--sf 1]`: generates the eight tables with `tpchgen-arrow` (strings as
//!   `Utf8`), writes each as one plain Parquet file `D/parquet/<t>.parquet` (arrow-rs, zstd
//!   level 1 — strata's default codec) and as a strata append table `tpch.<t>` (bucket -1,
//!   default options) of the warehouse `D/wh`, one commit per table, through strata's
//!   `TableWrite`.
//! * `tpch-run --dir D --engine parquet|strata --queries Q [--runs N]`: each query once to warm
//!   up, then N timed runs (plan + execute + collect), on a fresh `SessionContext` with
//!   `target_partitions = 2`; one JSON line per query: median, all times, rows, and a digest of
//!   the result (the rows as text, floats to 2 decimals, sorted) to compare engines by.
//!
//! `parquet` registers the files with `register_parquet` (DataFusion's defaults, string views
//! included); `strata` reads through `strata_datafusion::SqlSession` (`StrataTable` providers).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use arrow::array::{Array, ArrayRef, RecordBatch};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use serde_json::{json, Map, Value};
use strata::catalog::FileSystemCatalog;
use strata::spec::schema::Schema as PaimonSchema;

use crate::common::Result;

/// The eight TPC-H tables.
pub const TABLES: [&str; 8] = [
    "region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem",
];

const DB: &str = "tpch";

/// Batches of table `name` at scale factor `sf`, strings as `Utf8` (strata has no view types).
fn generate(name: &str, sf: f64) -> Result<Vec<RecordBatch>> {
    use tpchgen::generators::*;
    use tpchgen_arrow::*;
    let batches: Vec<RecordBatch> =
        match name {
            "region" => RegionArrow::new(RegionGenerator::new(sf, 1, 1))
                .collect::<std::result::Result<_, _>>()?,
            "nation" => NationArrow::new(NationGenerator::new(sf, 1, 1))
                .collect::<std::result::Result<_, _>>()?,
            "supplier" => SupplierArrow::new(SupplierGenerator::new(sf, 1, 1))
                .collect::<std::result::Result<_, _>>()?,
            "customer" => CustomerArrow::new(CustomerGenerator::new(sf, 1, 1))
                .collect::<std::result::Result<_, _>>()?,
            "part" => PartArrow::new(PartGenerator::new(sf, 1, 1))
                .collect::<std::result::Result<_, _>>()?,
            "partsupp" => PartSuppArrow::new(PartSuppGenerator::new(sf, 1, 1))
                .collect::<std::result::Result<_, _>>()?,
            "orders" => OrderArrow::new(OrderGenerator::new(sf, 1, 1))
                .collect::<std::result::Result<_, _>>()?,
            "lineitem" => LineItemArrow::new(LineItemGenerator::new(sf, 1, 1))
                .collect::<std::result::Result<_, _>>()?,
            other => return Err(format!("no TPC-H table {other}").into()),
        };
    batches.iter().map(to_utf8).collect()
}

fn to_utf8(batch: &RecordBatch) -> Result<RecordBatch> {
    let fields: Vec<Field> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::Utf8View => Field::new(f.name(), DataType::Utf8, f.is_nullable()),
            _ => f.as_ref().clone(),
        })
        .collect();
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(c, f)| {
            if c.data_type() == f.data_type() {
                Ok(c.clone())
            } else {
                cast(c, f.data_type())
            }
        })
        .collect::<std::result::Result<Vec<ArrayRef>, _>>()?;
    Ok(RecordBatch::try_new(schema, columns)?)
}

/// The Paimon type of an Arrow column of the TPC-H schema.
fn paimon_type(f: &Field) -> Result<String> {
    let t = match f.data_type() {
        DataType::Int32 => "INT".to_string(),
        DataType::Int64 => "BIGINT".to_string(),
        DataType::Utf8 => "STRING".to_string(),
        DataType::Date32 => "DATE".to_string(),
        DataType::Decimal128(p, s) => format!("DECIMAL({p}, {s})"),
        DataType::Float64 => "DOUBLE".to_string(),
        other => return Err(format!("column {}: no Paimon type for {other}", f.name()).into()),
    };
    Ok(if f.is_nullable() {
        t
    } else {
        format!("{t} NOT NULL")
    })
}

/// Generates the tables into `dir/parquet` and the strata warehouse `dir/wh`.
/// `options`: extra table options `key=value` of the strata tables (e.g. `target-file-size`).
pub async fn load(dir: &Path, sf: f64, options: &[String]) -> Result<Map<String, Value>> {
    let pq_dir = dir.join("parquet");
    std::fs::create_dir_all(&pq_dir)?;
    let wh = dir.join("wh");
    std::fs::create_dir_all(&wh)?;
    let catalog = FileSystemCatalog::open(wh.to_str().ok_or("warehouse path is not UTF-8")?)?;
    let mut out = Map::new();
    let mut rows_total = 0usize;
    for name in TABLES {
        let t0 = Instant::now();
        let batches = generate(name, sf)?;
        let schema = batches
            .first()
            .map(|b| b.schema())
            .ok_or_else(|| format!("{name}: no rows generated"))?;
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        rows_total += rows;
        // Plain Parquet.
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(1)?))
            .build();
        let file = std::fs::File::create(pq_dir.join(format!("{name}.parquet")))?;
        let mut w = ArrowWriter::try_new(file, schema.clone(), Some(props))?;
        for b in &batches {
            w.write(b)?;
        }
        w.close()?;
        // The strata table.
        let fields: Vec<Value> = schema
            .fields()
            .iter()
            .map(|f| Ok(json!({"name": f.name(), "type": paimon_type(f)?})))
            .collect::<Result<_>>()?;
        let mut table_options = Map::new();
        table_options.insert("bucket".into(), json!("-1"));
        for o in options {
            let (k, v) = o
                .split_once('=')
                .ok_or_else(|| format!("--option {o}: expected key=value"))?;
            table_options.insert(k.into(), json!(v));
        }
        let doc = json!({"fields": fields, "options": table_options}).to_string();
        let id: strata::catalog::Identifier = format!("{DB}.{name}").parse()?;
        catalog
            .create_table(&id, &PaimonSchema::from_json(&doc)?, true)
            .await?;
        let table = catalog.get_table(&id).await?;
        let mut write = table.new_write()?;
        for b in &batches {
            write.write(b).await?;
        }
        let messages = write.prepare_commit().await?;
        table.new_commit()?.commit(messages).await?;
        out.insert(
            name.into(),
            json!({"rows": rows, "seconds": t0.elapsed().as_secs_f64()}),
        );
    }
    out.insert("rows".into(), json!(rows_total));
    out.insert("sf".into(), json!(sf));
    Ok(out)
}

/// The engines `tpch-run` compares.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Engine {
    Parquet,
    Strata,
}

/// DataFusion's defaults (overridable by `DATAFUSION_*` variables, e.g.
/// `DATAFUSION_EXECUTION_PARQUET_SCHEMA_FORCE_VIEW_TYPES=false`), two partitions.
fn config() -> Result<SessionConfig> {
    Ok(SessionConfig::from_env()?.with_target_partitions(2))
}

async fn parquet_context(dir: &Path) -> Result<SessionContext> {
    let ctx = SessionContext::new_with_config(config()?);
    for name in TABLES {
        let path = dir.join("parquet").join(format!("{name}.parquet"));
        ctx.register_parquet(
            name,
            path.to_str().ok_or("path is not UTF-8")?,
            ParquetReadOptions::default(),
        )
        .await?;
    }
    Ok(ctx)
}

/// Runs the queries `q1.sql` … of `queries` on `engine`; one JSON object per query.
pub async fn run(
    dir: &Path,
    engine: Engine,
    queries: &Path,
    runs: usize,
    only: Option<&str>,
    explain: bool,
) -> Result<Vec<Map<String, Value>>> {
    let mut files: Vec<(u32, PathBuf)> = std::fs::read_dir(queries)?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n = name.strip_prefix('q')?.strip_suffix(".sql")?.parse().ok()?;
            Some((n, e.path()))
        })
        .collect();
    files.sort();
    let mut out = Vec::new();
    for (n, path) in files {
        let query = format!("q{n}");
        if only.is_some_and(|o| o.split(',').all(|q| q != query)) {
            continue;
        }
        let sql = std::fs::read_to_string(&path)?;
        let mut times = Vec::with_capacity(runs);
        let mut result = None;
        for i in 0..=runs {
            let t0 = Instant::now();
            let batches = execute(dir, engine, &sql).await?;
            let secs = t0.elapsed().as_secs_f64();
            if i > 0 {
                times.push(secs);
            }
            result = Some(batches);
        }
        let batches = result.unwrap_or_default();
        let (rows, digest) = digest(&batches)?;
        if explain {
            let plan = execute(dir, engine, &format!("EXPLAIN ANALYZE {sql}")).await?;
            let text = arrow::util::pretty::pretty_format_batches(&plan)?;
            eprintln!("-- {query} ({engine:?})\n{text}");
        }
        let mut sorted = times.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN);
        let mut m = Map::new();
        m.insert("query".into(), json!(query));
        m.insert("median_s".into(), json!(median));
        m.insert("times_s".into(), json!(times));
        m.insert("rows".into(), json!(rows));
        m.insert("digest".into(), json!(digest));
        out.push(m);
    }
    Ok(out)
}

/// Plans, runs and collects `sql` on a fresh session of `engine`.
async fn execute(dir: &Path, engine: Engine, sql: &str) -> Result<Vec<RecordBatch>> {
    Ok(match engine {
        Engine::Parquet => {
            let ctx = parquet_context(dir).await?;
            ctx.sql(sql).await?.collect().await?
        }
        Engine::Strata => {
            let wh = dir.join("wh");
            let catalog =
                FileSystemCatalog::open(wh.to_str().ok_or("warehouse path is not UTF-8")?)?;
            let session =
                strata_datafusion::SqlSession::with_config(std::sync::Arc::new(catalog), config()?);
            session.sql(&format!("USE {DB}")).await?.collect().await?;
            session.sql(sql).await?.collect().await?
        }
    })
}

/// Rows and an order-independent digest of a result: each row as text (floats rounded to
/// 2 decimals, so engines that sum in another order agree), sorted, hashed (FNV-1a).
fn digest(batches: &[RecordBatch]) -> Result<(usize, String)> {
    let options = FormatOptions::default().with_null("NULL");
    let mut lines = Vec::new();
    for b in batches {
        let columns: Vec<ArrayRef> = b
            .columns()
            .iter()
            .map(|c| match c.data_type() {
                DataType::Float32 | DataType::Float64 => cast(c, &DataType::Decimal128(38, 2)),
                DataType::Decimal128(_, s) if *s > 2 => cast(c, &DataType::Decimal128(38, 2)),
                DataType::Utf8View => cast(c, &DataType::Utf8),
                _ => Ok(c.clone()),
            })
            .collect::<std::result::Result<_, _>>()?;
        let formatters = columns
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        for row in 0..b.num_rows() {
            let cells: Vec<String> = formatters
                .iter()
                .map(|f| f.value(row).to_string())
                .collect();
            lines.push(cells.join("|"));
        }
    }
    lines.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for line in &lines {
        for b in line.bytes().chain(std::iter::once(b'\n')) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    Ok((lines.len(), format!("{h:016x}")))
}
