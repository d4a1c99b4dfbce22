//! The table of the scan-planning benchmark (`bench/scan.sh`): `bench.scan_t`, a primary-key
//! table partitioned by `dt` (`partitions` days from 2024-01-01) with `bucket = buckets` and
//! `write-only = true`, written in `commits` commits through one long-lived `TableWrite`.
//!
//! Every commit writes `rows_per_partition` rows into each of `partitions_per_commit` distinct
//! partitions drawn at random (`SmallRng::seed_from_u64(seed)`); the ids are uniform in
//! `0 .. 1,000,000` per partition (updates and inserts mixed), so with the default 24 rows a
//! touched partition gets a new level-0 file in every one of its 4 buckets with probability
//! 1 − 4·(3/4)^24 ≈ 99.6%. `write-only` keeps compaction off, and each commit adds one delta
//! manifest of about `partitions_per_commit × buckets` ADD entries. strata now merges manifests
//! on commit as Java does (`manifest.merge-min-count`, default 30), so the latest snapshot names
//! about 30 of them rather than one per commit; set `manifest.merge-min-count` very high to get
//! the metadata of a busy table that has not been manifest-compacted (the BENCHMARKS scan
//! numbers predate merging).
//!
//! The phase prints one JSON line with the table's shape (entries, manifests, bytes) and
//! `files_by_partition`: the files written per partition and bucket, from the commit messages,
//! which `bench/scan_report.py` uses as the expected plan of a single-partition scan.
//!
//! [`continuous`] is the `scan-continuous` phase of `bench/scan_continuous.sh`: it replays the
//! table's history as a reader of a continuously committing table sees it — snapshot after
//! snapshot, the same one-partition, one-bucket scan planned once per new snapshot — without
//! the cache, through a long-lived cache (each new snapshot's slot built incrementally from the
//! previous one's), a second time through that cache (an exact hit), and every
//! `rebuild_every`-th snapshot through an empty cache (the full rebuild a miss without a base
//! costs). It writes one JSON line per snapshot and returns a summary.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Map, Value};
use strata::cache::{Cache, LruCache};
use strata::catalog::Identifier;
use strata::expr::{parse_sql_predicate, Predicate};
use strata::scan::Plan;
use strata::table::Table;

use crate::common::{cpu_time, secs, BoxError, Result};
use crate::strata_phases::{catalog, create_table, DATABASE};

pub const TABLE: &str = "scan_t";
/// The id space of each partition.
const ID_SPACE: i64 = 1_000_000;

/// The shape of the generated table.
#[derive(Clone, Debug)]
pub struct GenConfig {
    pub partitions: usize,
    pub buckets: i32,
    pub commits: usize,
    pub partitions_per_commit: usize,
    pub rows_per_partition: usize,
    pub seed: u64,
}

fn schema_json(buckets: i32) -> String {
    format!(
        r#"{{
  "fields": [
    {{"name": "dt", "type": "STRING NOT NULL"}},
    {{"name": "id", "type": "BIGINT NOT NULL"}},
    {{"name": "v", "type": "BIGINT"}},
    {{"name": "s", "type": "STRING"}}
  ],
  "partitionKeys": ["dt"],
  "primaryKeys": ["dt", "id"],
  "options": {{"bucket": "{buckets}", "write-only": "true"}}
}}"#
    )
}

/// `YYYY-MM-DD` of `days` after 1970-01-01 (proleptic Gregorian; H. Hinnant's algorithm).
fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The partition values: `count` consecutive days from 2024-01-01.
pub fn partition_values(count: usize) -> Vec<String> {
    const JAN_1_2024: i64 = 19_723; // days since 1970-01-01
    (0..count as i64)
        .map(|i| civil_date(JAN_1_2024 + i))
        .collect()
}

/// The `scan-gen` phase: creates `bench.scan_t` in `wh` and writes `cfg.commits` commits.
pub async fn generate(wh: &Path, cfg: &GenConfig) -> Result<Map<String, Value>> {
    if cfg.partitions_per_commit > cfg.partitions || cfg.partitions == 0 {
        return Err(format!(
            "--partitions-per-commit ({}) must be between 1 and --partitions ({})",
            cfg.partitions_per_commit, cfg.partitions
        )
        .into());
    }
    let cat = catalog(wh)?;
    let id = Identifier::new(DATABASE, TABLE)?;
    create_table(&cat, &id, &schema_json(cfg.buckets)).await?;
    let table = cat.get_table(&id).await?;

    let values = partition_values(cfg.partitions);
    let arrow_schema = Arc::new(Schema::new(vec![
        Field::new("dt", DataType::Utf8, false),
        Field::new("id", DataType::Int64, false),
        Field::new("v", DataType::Int64, true),
        Field::new("s", DataType::Utf8, true),
    ]));
    let mut rng = SmallRng::seed_from_u64(cfg.seed);
    let mut order: Vec<usize> = (0..cfg.partitions).collect();
    // Files written per (partition text, bucket), from the commit messages.
    let mut files: BTreeMap<String, BTreeMap<i32, u64>> = BTreeMap::new();
    let mut entries = 0u64;
    let mut rows = 0u64;
    let mut last_snapshot = None;

    let cpu0 = cpu_time();
    let t0 = Instant::now();
    let mut write = table.new_write()?;
    let result = async {
        for c in 0..cfg.commits {
            // Partial Fisher–Yates: the first partitions_per_commit of `order` are the sample.
            for i in 0..cfg.partitions_per_commit {
                let j = rng.random_range(i..cfg.partitions);
                order.swap(i, j);
            }
            let n = cfg.partitions_per_commit * cfg.rows_per_partition;
            let mut dt = Vec::with_capacity(n);
            let mut ids = Vec::with_capacity(n);
            let mut v = Vec::with_capacity(n);
            let mut s = Vec::with_capacity(n);
            for &p in &order[..cfg.partitions_per_commit] {
                for _ in 0..cfg.rows_per_partition {
                    dt.push(values[p].as_str());
                    ids.push(rng.random_range(0..ID_SPACE));
                    v.push(rng.random_range(0..i64::MAX));
                    s.push(format!("c{c:05}-{:08x}", rng.random::<u32>()));
                }
            }
            let columns: Vec<ArrayRef> = vec![
                Arc::new(StringArray::from(dt)),
                Arc::new(Int64Array::from(ids)),
                Arc::new(Int64Array::from(v)),
                Arc::new(StringArray::from(s)),
            ];
            let batch = RecordBatch::try_new(arrow_schema.clone(), columns)?;
            rows += n as u64;
            write.write(&batch).await?;
            let messages = write.prepare_commit().await?;
            for m in &messages {
                let k = m.new_files.len() as u64;
                entries += k;
                *files
                    .entry(table.partition_text(&m.partition)?)
                    .or_default()
                    .entry(m.bucket)
                    .or_default() += k;
            }
            last_snapshot = table.new_commit()?.commit(messages).await?;
            if last_snapshot.is_none() {
                return Err(format!("commit {c} produced no snapshot").into());
            }
            if (c + 1) % 50 == 0 || c + 1 == cfg.commits {
                eprintln!(
                    "scan-gen: {} / {} commits, {entries} entries, {:.1} s",
                    c + 1,
                    cfg.commits,
                    t0.elapsed().as_secs_f64()
                );
            }
        }
        Ok::<_, BoxError>(())
    }
    .await;
    if let Err(e) = result {
        write.abort().await;
        return Err(e);
    }
    drop(write);
    let elapsed = t0.elapsed();
    let cpu = cpu_time().saturating_sub(cpu0);

    // The manifest directory: data manifests vs manifest lists.
    let manifest_dir = wh
        .join(format!("{DATABASE}.db"))
        .join(TABLE)
        .join("manifest");
    let (mut manifests, mut manifest_bytes, mut lists, mut list_bytes) = (0u64, 0u64, 0u64, 0u64);
    if let Ok(dir) = std::fs::read_dir(&manifest_dir) {
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let len = e.metadata().map(|m| m.len()).unwrap_or(0);
            if name.starts_with("manifest-list-") {
                lists += 1;
                list_bytes += len;
            } else if name.starts_with("manifest-") {
                manifests += 1;
                manifest_bytes += len;
            }
        }
    }

    let by_partition: Map<String, Value> = files
        .into_iter()
        .map(|(p, b)| {
            let counts: Vec<u64> = (0..cfg.buckets)
                .map(|i| b.get(&i).copied().unwrap_or(0))
                .collect();
            (p, json!(counts))
        })
        .collect();
    let mut out = Map::new();
    out.insert("seconds".into(), json!(secs(elapsed)));
    out.insert("cpu_s".into(), json!(secs(cpu)));
    out.insert("table".into(), json!(format!("{DATABASE}.{TABLE}")));
    out.insert("location".into(), json!(table.location()));
    out.insert("partition_column".into(), json!("dt"));
    out.insert("partitions".into(), json!(cfg.partitions));
    out.insert("buckets".into(), json!(cfg.buckets));
    out.insert("commits".into(), json!(cfg.commits));
    out.insert(
        "partitions_per_commit".into(),
        json!(cfg.partitions_per_commit),
    );
    out.insert("rows_per_partition".into(), json!(cfg.rows_per_partition));
    out.insert("seed".into(), json!(cfg.seed));
    out.insert("snapshot_id".into(), json!(last_snapshot));
    out.insert("rows".into(), json!(rows));
    out.insert("entries".into(), json!(entries));
    out.insert("manifests".into(), json!(manifests));
    out.insert("manifest_bytes".into(), json!(manifest_bytes));
    out.insert("manifest_lists".into(), json!(lists));
    out.insert("manifest_list_bytes".into(), json!(list_bytes));
    out.insert("files_by_partition".into(), Value::Object(by_partition));
    Ok(out)
}

/// What the `scan-continuous` phase plans.
#[derive(Clone, Debug)]
pub struct ContinuousConfig {
    /// The `dt` value of the scanned partition.
    pub value: String,
    pub bucket: i32,
    /// First and last snapshot planned (default: 1 and the latest).
    pub from: i64,
    pub to: Option<i64>,
    /// `scan.manifest-entry-cache.max-snapshots` of the cached configurations.
    pub max_snapshots: usize,
    /// Every how many snapshots the rebuild (empty cache) is timed too; 0 never.
    pub rebuild_every: i64,
    /// Where the per-snapshot JSON lines go.
    pub out: PathBuf,
}

/// One timed plan: wall milliseconds around `plan()`, and the plan.
async fn timed(
    table: &Table,
    filter: &Predicate,
    bucket: i32,
    snapshot: i64,
) -> Result<(f64, Plan)> {
    let scan = table
        .new_scan()
        .with_filter(filter.clone())
        .with_bucket(bucket)
        .with_snapshot(snapshot);
    let t = Instant::now();
    let plan = scan.plan().await?;
    Ok((t.elapsed().as_secs_f64() * 1000.0, plan))
}

/// The planned data files, sorted.
fn plan_files(p: &Plan) -> Vec<String> {
    let mut files: Vec<String> = p
        .splits
        .iter()
        .flat_map(|s| {
            s.files
                .iter()
                .map(|f| format!("{}@{}", f.file_name, f.level))
        })
        .collect();
    files.sort();
    files
}

/// The `scan-continuous` phase (see the module docs).
pub async fn continuous(wh: &Path, cfg: &ContinuousConfig) -> Result<Map<String, Value>> {
    let cat = catalog(wh)?;
    let table = cat.get_table(&Identifier::new(DATABASE, TABLE)?).await?;
    let filter = parse_sql_predicate(&format!("dt = '{}'", cfg.value))?;
    let latest = table
        .snapshot_manager()
        .latest_id()
        .await?
        .ok_or("the table has no snapshot")?;
    let to = cfg.to.unwrap_or(latest).min(latest);
    let with_cache_option = table.with_dynamic_options([(
        "scan.manifest-entry-cache.max-snapshots".to_string(),
        cfg.max_snapshots.to_string(),
    )])?;
    let cache = Arc::new(LruCache::new(1 << 30));
    let cached = with_cache_option
        .clone()
        .with_cache(cache.clone() as Arc<dyn Cache>);
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(&cfg.out).map_err(|e| format!("{}: {e}", cfg.out.display()))?,
    );
    let (mut uncached_ms, mut cached_ms, mut hit_ms, mut rebuild_ms) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut incremental, mut rebuilt, mut mismatches) = (0u64, 0u64, 0u64);
    let t0 = Instant::now();
    for s in cfg.from..=to {
        // Alternate which configuration plans first, so neither always finds the other's
        // reads in the page cache.
        let (u, c) = if s % 2 == 0 {
            let u = timed(&table, &filter, cfg.bucket, s).await?;
            let c = timed(&cached, &filter, cfg.bucket, s).await?;
            (u, c)
        } else {
            let c = timed(&cached, &filter, cfg.bucket, s).await?;
            let u = timed(&table, &filter, cfg.bucket, s).await?;
            (u, c)
        };
        let h = timed(&cached, &filter, cfg.bucket, s).await?;
        let r = if cfg.rebuild_every > 0 && s % cfg.rebuild_every == 0 {
            let fresh = with_cache_option
                .clone()
                .with_cache(Arc::new(LruCache::new(1 << 30)) as Arc<dyn Cache>);
            Some(timed(&fresh, &filter, cfg.bucket, s).await?)
        } else {
            None
        };
        let want = plan_files(&u.1);
        let mut ok = plan_files(&c.1) == want && plan_files(&h.1) == want;
        ok &= c.1.metrics.cache_hit == Some(false) && h.1.metrics.cache_hit == Some(true);
        if let Some((_, p)) = &r {
            ok &= plan_files(p) == want && p.metrics.cache_deltas_applied == 0;
        }
        if !ok {
            mismatches += 1;
        }
        let deltas = c.1.metrics.cache_deltas_applied;
        if deltas > 0 {
            incremental += 1;
        } else {
            rebuilt += 1;
        }
        uncached_ms.push(u.0);
        cached_ms.push(c.0);
        hit_ms.push(h.0);
        if let Some((ms, _)) = &r {
            rebuild_ms.push(*ms);
        }
        let line = json!({
            "snapshot": s,
            "uncached_ms": u.0,
            "cached_ms": c.0,
            "hit_ms": h.0,
            "rebuild_ms": r.as_ref().map(|(ms, _)| *ms),
            "deltas_applied": deltas,
            "cached_manifests_read": c.1.metrics.last_scanned_manifests,
            "uncached_manifests_read": u.1.metrics.last_scanned_manifests,
            "manifests_total": u.1.metrics.manifests_total,
            "entries_inspected_uncached": u.1.metrics.entries_inspected,
            "entries_inspected_cached": c.1.metrics.entries_inspected,
            "files": want.len(),
            "splits": u.1.splits.len(),
            "ok": ok,
        });
        writeln!(out, "{line}")?;
        if (s - cfg.from + 1) % 100 == 0 {
            eprintln!(
                "scan-continuous: snapshot {s} / {to}: uncached {:.1} ms, cached {:.1} ms, hit {:.2} ms, {:.0} s",
                u.0,
                c.0,
                h.0,
                t0.elapsed().as_secs_f64()
            );
        }
    }
    out.flush()?;
    let median = |v: &mut Vec<f64>| -> Option<f64> {
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        Some(v[v.len() / 2])
    };
    let mut res = Map::new();
    res.insert("snapshots".into(), json!(to - cfg.from + 1));
    res.insert("from".into(), json!(cfg.from));
    res.insert("to".into(), json!(to));
    res.insert("value".into(), json!(cfg.value));
    res.insert("bucket".into(), json!(cfg.bucket));
    res.insert("incremental".into(), json!(incremental));
    res.insert("rebuilt".into(), json!(rebuilt));
    res.insert("mismatches".into(), json!(mismatches));
    res.insert("uncached_median_ms".into(), json!(median(&mut uncached_ms)));
    res.insert("cached_median_ms".into(), json!(median(&mut cached_ms)));
    res.insert("hit_median_ms".into(), json!(median(&mut hit_ms)));
    res.insert("rebuild_median_ms".into(), json!(median(&mut rebuild_ms)));
    res.insert("cache_weight".into(), json!(cache.stats().weight));
    res.insert("out".into(), json!(cfg.out.display().to_string()));
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(19_723), "2024-01-01");
        assert_eq!(civil_date(19_723 + 59), "2024-02-29");
        assert_eq!(civil_date(19_723 + 366), "2025-01-01");
        let v = partition_values(200);
        assert_eq!(v.len(), 200);
        assert_eq!(v[199], "2024-07-18");
    }
}
