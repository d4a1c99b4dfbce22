//! `strata scan`: plan a scan without reading data, optionally K times through one shared
//! cache, printing the splits or the per-scan metrics (see `strata::scan::ScanMetrics`).

use std::io::Write;
use std::sync::Arc;

use serde_json::json;
use strata::cache::{Cache, LruCache};
use strata::catalog::Catalog;
use strata::expr::parse_sql_predicate;
use strata_spec::options::units::parse_memory_size;

use crate::error::{msg, Result};

/// Arguments of `strata scan`.
#[derive(clap::Args, Debug)]
pub struct ScanArgs {
    /// DB.TABLE
    pub table: String,
    /// SQL boolean expression used for partition, bucket and statistics pruning
    #[arg(long = "where", value_name = "EXPR")]
    pub filter: Option<String>,
    /// Only this bucket
    #[arg(long)]
    pub bucket: Option<i32>,
    /// Plan this snapshot id (default latest)
    #[arg(long)]
    pub snapshot: Option<i64>,
    /// Plan the same scan K times
    #[arg(long, default_value_t = 1, value_name = "K")]
    pub repeat: usize,
    /// Print one JSON object of scan metrics per scan instead of the splits
    #[arg(long)]
    pub metrics: bool,
    /// Table option for this command only, KEY=VALUE (repeatable), e.g.
    /// -o scan.manifest-entry-cache.max-snapshots=3
    #[arg(short = 'o', long = "option", value_name = "KEY=VALUE")]
    pub options: Vec<String>,
    /// Capacity of the in-memory metadata cache (bytes; k/m/g suffixes allowed)
    #[arg(long, default_value = "256m", value_name = "SIZE")]
    pub cache_size: String,
}

fn parse_option(text: &str) -> Result<(String, String)> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(msg(format!(
            "--option expects KEY=VALUE (e.g. scan.manifest-entry-cache.max-snapshots=3), got '{text}'"
        ))),
    }
}

pub async fn run(catalog: &dyn Catalog, args: ScanArgs) -> Result<()> {
    if args.repeat == 0 {
        return Err(msg("--repeat must be at least 1"));
    }
    let capacity = parse_memory_size(&args.cache_size)
        .map_err(|e| msg(format!("--cache-size '{}': {e}", args.cache_size)))?;
    let cache: Arc<dyn Cache> = Arc::new(LruCache::new(capacity as usize));
    let options = args
        .options
        .iter()
        .map(|o| parse_option(o))
        .collect::<Result<Vec<_>>>()?;
    let mut table = catalog.get_table(&args.table.parse()?).await?;
    if let Some(id) = args.snapshot {
        table = table.at_snapshot(id).await?;
    }
    let table = table.with_dynamic_options(options)?.with_cache(cache);
    let predicate = match &args.filter {
        Some(text) => Some(parse_sql_predicate(text)?),
        None => None,
    };
    let mut out = std::io::stdout().lock();
    for _ in 0..args.repeat {
        let mut scan = table.new_scan();
        if let Some(id) = args.snapshot {
            scan = scan.with_snapshot(id);
        }
        if let Some(p) = &predicate {
            scan = scan.with_filter(p.clone());
        }
        if let Some(b) = args.bucket {
            scan = scan.with_bucket(b);
        }
        let plan = scan.plan().await?;
        if args.metrics {
            let line = serde_json::to_string(&plan.metrics)
                .map_err(|e| msg(format!("cannot print metrics: {e}")))?;
            writeln!(out, "{line}").map_err(|e| msg(format!("stdout: {e}")))?;
        } else {
            for s in &plan.splits {
                let files: Vec<_> = s
                    .files
                    .iter()
                    .map(|f| json!({"fileName": f.file_name, "level": f.level, "rowCount": f.row_count, "fileSize": f.file_size}))
                    .collect();
                let line = json!({
                    "snapshotId": s.snapshot_id,
                    "partition": table.partition_text(&s.partition)?,
                    "bucket": s.bucket,
                    "rawConvertible": s.raw_convertible,
                    "rowCount": s.row_count(),
                    "files": files,
                });
                writeln!(out, "{line}").map_err(|e| msg(format!("stdout: {e}")))?;
            }
        }
    }
    Ok(())
}
