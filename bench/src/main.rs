//! `strata-bench`: one benchmark phase per process, printing one JSON line
//! `{"engine", "phase", "seconds", "rows", "peak_rss_mb", ...}`.
//!
//! Phases (the workload is bench/gen_data.py's; bench/run.sh runs them all and
//! bench/report.py summarises):
//!
//! | command | engine / phase | what is timed |
//! |---|---|---|
//! | `write --wh W --data D [--table T]` | strata / write | 4 commits of the in-memory input into `bench.<T>_t` |
//! | `read --wh W [--table T] [--threads N]` | strata / read | plan + read of the whole table into memory |
//! | `filter --wh W [--table T] [--threads N]` | strata / filter | the same with `id < 1000` |
//! | `raw-write --data D --out O` | raw-parquet / write | the same batches through `ArrowWriter`, one file per commit |
//! | `raw-read --out O [--threads N]` | raw-parquet / read | those files read fully, N files at a time |
//! | `raw-scan --wh W [--table T] [--threads N]` | raw-parquet / read | the table's live data files read fully, no merge (PK floor) |
//! | `mem-write --wh W [--rows R]` | strata / mem-write | R generated rows (20M) into one PK bucket, `write-buffer-size = 64mb`, one commit |
//! | `mem-read --wh W [--rows R]` | strata / mem-read | that table streamed back (merge-on-read) and digested |
//! | `compact --wh W [--full]` | strata / compact-full, compact-upgrade | one compaction of every bucket of `bench.pk_t` + its commit (`TableWrite::compact`) |
//! | `raw-rewrite --wh W --out O [--write-rows N] [--threads N]` | raw-parquet / rewrite | the table's live data files read + written back with arrow-rs, no merge (rewrite floor) |
//! | `upgrade-write --wh W [--files F] [--file-mb M]` | strata / upgrade-write | F key-disjoint level-0 files of ≈ 0.9 × M MiB (`write-only`, `target-file-size = M mb`) |
//! | `stream --wh W [--option k=v]...` | strata / wa | initial load + upsert commits with compaction; bytes ingested, rewritten, upgraded |
//! | `scan-gen --wh W [--partitions P] [--buckets B] [--commits C]` | strata / scan-gen | the scan-planning table `bench.scan_t` (bench/scan.sh; see `scan_gen.rs`) |
//! | `scan-continuous --wh W --value V --bucket B --out F` | strata / scan-continuous | one plan per snapshot of `bench.scan_t`, uncached and through an incrementally built cache (bench/scan_continuous.sh; see `scan_gen.rs`) |
//! | `map-gen --wh W [--rows N] [--option k=v]...` | strata / map-gen | the MAP shredding table `bench.map_t`, C commits (bench/map_shredding.sh; see `map_gen.rs`) |
//! | `map-read --wh W [--columns id,metrics] [--where EXPR]` | strata / map-read | plan + read of those columns of `bench.map_t` into memory |
//! | `fi-write --wh W [--rows N] [--table T] [--option k=v]...` | strata / fi-write | N rows (10M) into an append table in one commit (bench/file_index.sh; see `issue31.rs`) |
//! | `fi-lookup --wh W [--table T] --value V` | strata / fi-lookup | plan + read of `user = V` with read metrics |
//! | `backfill --wh W [--rows N] --mode update\|rewrite` | strata / backfill | `score` of every row of a data-evolution table set (bench/column_backfill.sh) |
//! | `tpch-load --dir D [--sf 1]` | tpch / load | TPC-H tables as plain Parquet and as strata tables (bench/tpch.sh; see `tpch.rs`) |
//! | `tpch-run --dir D --engine parquet\|strata --queries Q [--runs N]` | parquet / strata | the 22 TPC-H queries through DataFusion, one JSON line per query |
//!
//! `--table` is `append` (default; `bench.append_t`, bucket -1) or `pk` (`bench.pk_t`, primary
//! key `id`, bucket 1); `raw-scan`, `compact` and `raw-rewrite` default to `pk`. `write
//! --option k=v` adds table options (the compaction workload writes with `write-only=true`).
//! The compaction phases are described in `compact.rs`.
//!
//! `--threads 1` runs strata on a single-threaded runtime and the raw reader on one thread;
//! the engine is then reported as `strata-1t` / `raw-parquet-1t`. `strata-1t` decodes on one
//! thread, but its local file reads still run on tokio's blocking pool (object_store's local
//! store reads through `spawn_blocking`), so it is not strictly single-threaded.

mod common;
mod compact;
mod issue31;
mod map_gen;
mod pk_mem;
mod raw;
mod scan_gen;
mod strata_phases;
#[cfg(feature = "sql")]
mod tpch;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use common::{emit, Result};
use strata_phases::TableKind;

#[derive(Parser)]
#[command(
    about = "strata vs raw arrow-rs Parquet on the append and PK workloads (one phase per run)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create the table in the warehouse and write every commit file as one commit.
    Write {
        #[arg(long)]
        wh: PathBuf,
        #[arg(long)]
        data: PathBuf,
        #[arg(long, value_enum, default_value_t = TableKind::Append)]
        table: TableKind,
        /// Extra table option `key=value` (repeatable), e.g. `write-only=true`.
        #[arg(long = "option")]
        options: Vec<String>,
    },
    /// Plan and read the whole table into memory.
    Read {
        #[arg(long)]
        wh: PathBuf,
        #[arg(long, value_enum, default_value_t = TableKind::Append)]
        table: TableKind,
        /// Runtime worker threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Plan and read with `id < 1000`.
    Filter {
        #[arg(long)]
        wh: PathBuf,
        #[arg(long, value_enum, default_value_t = TableKind::Append)]
        table: TableKind,
        #[arg(long)]
        threads: Option<usize>,
    },
    /// The write floor: the same batches through arrow-rs's ArrowWriter (zstd 1).
    RawWrite {
        #[arg(long)]
        data: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// The read floor: read raw-write's files with the arrow-rs Parquet reader.
    RawRead {
        #[arg(long)]
        out: PathBuf,
        /// Files decoded at once.
        #[arg(long, default_value_t = 2)]
        threads: usize,
    },
    /// The PK read floor: the table's live data files (all columns, no merge) read with the
    /// arrow-rs Parquet reader.
    RawScan {
        #[arg(long)]
        wh: PathBuf,
        #[arg(long, value_enum, default_value_t = TableKind::Pk)]
        table: TableKind,
        /// Files decoded at once.
        #[arg(long, default_value_t = 2)]
        threads: usize,
    },
    /// The PK memory test: generated rows into the one bucket of bench.pk_mem_t, one commit.
    MemWrite {
        #[arg(long)]
        wh: PathBuf,
        #[arg(long, default_value_t = 20_000_000)]
        rows: u64,
        /// The table's `write-buffer-size`.
        #[arg(long, default_value = pk_mem::WRITE_BUFFER_SIZE)]
        write_buffer_size: String,
    },
    /// Stream bench.pk_mem_t back and digest it (rows, sum(v_int), distinct ids).
    MemRead {
        #[arg(long)]
        wh: PathBuf,
        /// The rows mem-write wrote (ids are 0 .. rows).
        #[arg(long, default_value_t = 20_000_000)]
        rows: u64,
    },
    /// Compact every bucket of the table (TableWrite::compact + prepare_commit + commit).
    Compact {
        #[arg(long)]
        wh: PathBuf,
        #[arg(long, value_enum, default_value_t = TableKind::Pk)]
        table: TableKind,
        /// Full compaction (everything into the max level); else the table's normal picking.
        #[arg(long)]
        full: bool,
        /// The phase name reported (default: compact-full / compact).
        #[arg(long)]
        label: Option<String>,
    },
    /// The rewrite floor: the table's live data files read and written back with arrow-rs.
    RawRewrite {
        #[arg(long)]
        wh: PathBuf,
        #[arg(long, value_enum, default_value_t = TableKind::Pk)]
        table: TableKind,
        /// Directory of the output file (cleared first).
        #[arg(long)]
        out: PathBuf,
        /// Rows written (the compaction's output rows); default: every row read.
        #[arg(long)]
        write_rows: Option<u64>,
        /// 1: decode and encode on one thread; 2: a decoding thread feeds the encoder.
        #[arg(long, default_value_t = 2)]
        threads: usize,
    },
    /// The upgrade test's input: key-disjoint level-0 files just below target-file-size.
    UpgradeWrite {
        #[arg(long)]
        wh: PathBuf,
        /// Commits, one file each.
        #[arg(long, default_value_t = 8)]
        files: u64,
        /// target-file-size in MiB; each file is about 0.9 of it.
        #[arg(long, default_value_t = 128)]
        file_mb: u64,
        /// Rows per commit (default: sized from file-mb).
        #[arg(long)]
        rows_per_file: Option<u64>,
    },
    /// The write-amplification test: initial load, then upsert commits with compaction.
    Stream {
        #[arg(long)]
        wh: PathBuf,
        #[arg(long, default_value_t = 200)]
        commits: usize,
        #[arg(long, default_value_t = 5_000)]
        rows_per_commit: usize,
        /// Keys of the initial load (and of the update distribution).
        #[arg(long, default_value_t = 200_000)]
        keys: u64,
        /// The updates' Zipf ranks cover this many keys (default: all of --keys).
        #[arg(long)]
        hot_keys: Option<u64>,
        /// Fraction of each commit's rows that are new keys.
        #[arg(long, default_value_t = 0.1)]
        new_fraction: f64,
        /// Zipf exponent of the updated keys' ranks.
        #[arg(long, default_value_t = 0.99)]
        zipf: f64,
        #[arg(long, value_enum, default_value_t = compact::KeyLayout::Scattered)]
        layout: compact::KeyLayout,
        #[arg(long, default_value_t = 1)]
        buckets: i32,
        #[arg(long, default_value = "2mb")]
        target_file_size: String,
        /// Extra table option `key=value` (repeatable).
        #[arg(long = "option")]
        options: Vec<String>,
    },
    /// The scan-planning benchmark's table: a partitioned PK table, many small commits.
    ScanGen {
        #[arg(long)]
        wh: PathBuf,
        #[arg(long, default_value_t = 200)]
        partitions: usize,
        #[arg(long, default_value_t = 4)]
        buckets: i32,
        #[arg(long, default_value_t = 500)]
        commits: usize,
        /// Distinct partitions written by each commit (bench/scan.sh: ⌈0.26 × partitions⌉).
        #[arg(long, default_value_t = 52)]
        partitions_per_commit: usize,
        /// Rows per touched partition per commit.
        #[arg(long, default_value_t = 24)]
        rows_per_partition: usize,
        #[arg(long, default_value_t = 42)]
        seed: u64,
    },
    /// Plans `dt = V`, bucket B of `bench.scan_t` once per snapshot, uncached and cached
    /// (bench/scan_continuous.sh; see scan_gen.rs).
    ScanContinuous {
        #[arg(long)]
        wh: PathBuf,
        #[arg(long)]
        value: String,
        #[arg(long, default_value_t = 1)]
        bucket: i32,
        #[arg(long, default_value_t = 1)]
        from: i64,
        #[arg(long)]
        to: Option<i64>,
        #[arg(long, default_value_t = 3)]
        max_snapshots: usize,
        /// Every how many snapshots a plan through an empty cache is timed too (0: never).
        #[arg(long, default_value_t = 10)]
        rebuild_every: i64,
        /// Per-snapshot JSON lines.
        #[arg(long)]
        out: PathBuf,
    },
    /// The MAP shared-shredding benchmark's table (bench/map_shredding.sh; see map_gen.rs).
    MapGen {
        #[arg(long)]
        wh: PathBuf,
        #[arg(long, default_value = map_gen::TABLE)]
        table: String,
        #[arg(long, default_value_t = 1_000_000)]
        rows: u64,
        #[arg(long, default_value_t = 4)]
        commits: usize,
        #[arg(long, default_value_t = 4)]
        partitions: usize,
        /// Distinct keys, `usage` included.
        #[arg(long, default_value_t = 5_000)]
        keys: u64,
        /// Entries per row are uniform in 1..=max-keys.
        #[arg(long, default_value_t = 20)]
        max_keys: usize,
        /// Fraction of rows holding the key `usage`.
        #[arg(long, default_value_t = 0.3)]
        usage_fraction: f64,
        /// Zipf exponent of the other keys' popularity.
        #[arg(long, default_value_t = 1.1)]
        zipf: f64,
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Extra table option `key=value` (repeatable), e.g. the map storage layout.
        #[arg(long = "option")]
        options: Vec<String>,
    },
    /// Plan and read columns of the MAP benchmark table into memory; digests of the maps.
    MapRead {
        #[arg(long)]
        wh: PathBuf,
        #[arg(long, default_value = map_gen::TABLE)]
        table: String,
        #[arg(long, value_delimiter = ',', default_value = "id,metrics")]
        columns: Vec<String>,
        /// SQL filter on the scan and the read, e.g. "metrics['usage'] > 30".
        #[arg(long = "where")]
        filter: Option<String>,
    },
    /// The file-index table (see issue31.rs): generated rows, one commit.
    FiWrite {
        #[arg(long)]
        wh: PathBuf,
        #[arg(long, default_value = "fi_t")]
        table: String,
        #[arg(long, default_value_t = 10_000_000)]
        rows: u64,
        /// Extra table option `key=value` (repeatable), e.g. the bloom-filter columns.
        #[arg(long = "option")]
        options: Vec<String>,
    },
    /// Plan and read `user = VALUE` of the file-index table.
    FiLookup {
        #[arg(long)]
        wh: PathBuf,
        #[arg(long, default_value = "fi_t")]
        table: String,
        #[arg(long)]
        value: String,
    },
    /// A fresh data-evolution table, then `score` set on every row (see issue31.rs).
    Backfill {
        #[arg(long)]
        wh: PathBuf,
        #[arg(long, default_value_t = 2_000_000)]
        rows: u64,
        #[arg(long, value_enum)]
        mode: issue31::BackfillMode,
    },
    /// TPC-H tables as plain Parquet files and strata tables (see tpch.rs).
    #[cfg(feature = "sql")]
    TpchLoad {
        #[arg(long)]
        dir: PathBuf,
        #[arg(long, default_value_t = 1.0)]
        sf: f64,
        /// Extra option `key=value` of the strata tables (repeatable).
        #[arg(long = "option")]
        options: Vec<String>,
    },
    /// The TPC-H queries on one engine; one JSON line per query.
    #[cfg(feature = "sql")]
    TpchRun {
        #[arg(long)]
        dir: PathBuf,
        #[arg(long, value_enum)]
        engine: tpch::Engine,
        #[arg(long)]
        queries: PathBuf,
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Only these queries, e.g. `q1,q6`.
        #[arg(long)]
        only: Option<String>,
        /// Print each query's `EXPLAIN ANALYZE` to stderr after its timed runs.
        #[arg(long)]
        explain: bool,
    },
}

fn runtime(threads: Option<usize>) -> Result<tokio::runtime::Runtime> {
    let rt = match threads {
        Some(1) => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?,
        Some(n) => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(n)
            .enable_all()
            .build()?,
        None => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?,
    };
    Ok(rt)
}

fn strata_engine(threads: Option<usize>) -> String {
    match threads {
        None => "strata".into(),
        Some(n) => format!("strata-{n}t"),
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Write {
            wh,
            data,
            table,
            options,
        } => {
            let mut out =
                runtime(None)?.block_on(strata_phases::write(&wh, &data, table, &options))?;
            out.insert("table".into(), table.table_name().into());
            emit("strata", "write", out);
        }
        Command::Read { wh, table, threads } => {
            let mut out = runtime(threads)?.block_on(strata_phases::read(&wh, table, false))?;
            out.insert("table".into(), table.table_name().into());
            emit(&strata_engine(threads), "read", out);
        }
        Command::Filter { wh, table, threads } => {
            let mut out = runtime(threads)?.block_on(strata_phases::read(&wh, table, true))?;
            out.insert("table".into(), table.table_name().into());
            out.insert("predicate".into(), strata_phases::FILTER.into());
            emit(&strata_engine(threads), "filter", out);
        }
        Command::RawWrite { data, out } => {
            emit("raw-parquet", "write", raw::write(&data, &out)?);
        }
        Command::RawRead { out, threads } => {
            let engine = if threads == 2 {
                "raw-parquet".to_string()
            } else {
                format!("raw-parquet-{threads}t")
            };
            emit(&engine, "read", raw::read(&out, threads)?);
        }
        Command::RawScan { wh, table, threads } => {
            let engine = if threads == 2 {
                "raw-parquet".to_string()
            } else {
                format!("raw-parquet-{threads}t")
            };
            emit(&engine, "read", raw::scan_table(&wh, table, threads)?);
        }
        Command::MemWrite {
            wh,
            rows,
            write_buffer_size,
        } => {
            let out = runtime(None)?.block_on(pk_mem::write(&wh, rows, &write_buffer_size))?;
            emit("strata", "mem-write", out);
        }
        Command::MemRead { wh, rows } => {
            let out = runtime(None)?.block_on(pk_mem::read(&wh, rows))?;
            emit("strata", "mem-read", out);
        }
        Command::Compact {
            wh,
            table,
            full,
            label,
        } => {
            let out = runtime(None)?.block_on(compact::compact(&wh, table, full))?;
            let phase =
                label.unwrap_or_else(|| if full { "compact-full" } else { "compact" }.into());
            emit("strata", &phase, out);
        }
        Command::RawRewrite {
            wh,
            table,
            out,
            write_rows,
            threads,
        } => {
            let engine = if threads == 2 {
                "raw-parquet".to_string()
            } else {
                format!("raw-parquet-{threads}t")
            };
            let res = compact::raw_rewrite(&wh, table, &out, write_rows, threads)?;
            emit(&engine, "rewrite", res);
        }
        Command::UpgradeWrite {
            wh,
            files,
            file_mb,
            rows_per_file,
        } => {
            let out = runtime(None)?.block_on(compact::upgrade_write(
                &wh,
                files,
                file_mb,
                rows_per_file,
            ))?;
            emit("strata", "upgrade-write", out);
        }
        Command::Stream {
            wh,
            commits,
            rows_per_commit,
            keys,
            hot_keys,
            new_fraction,
            zipf,
            layout,
            buckets,
            target_file_size,
            options,
        } => {
            let cfg = compact::StreamConfig {
                commits,
                rows_per_commit,
                keys,
                hot_keys: hot_keys.unwrap_or(keys),
                new_fraction,
                zipf,
                layout,
                buckets,
                target_file_size,
                options,
            };
            let out = runtime(None)?.block_on(compact::stream(&wh, &cfg))?;
            emit("strata", "wa", out);
        }
        Command::ScanGen {
            wh,
            partitions,
            buckets,
            commits,
            partitions_per_commit,
            rows_per_partition,
            seed,
        } => {
            let cfg = scan_gen::GenConfig {
                partitions,
                buckets,
                commits,
                partitions_per_commit,
                rows_per_partition,
                seed,
            };
            let out = runtime(None)?.block_on(scan_gen::generate(&wh, &cfg))?;
            emit("strata", "scan-gen", out);
        }
        Command::ScanContinuous {
            wh,
            value,
            bucket,
            from,
            to,
            max_snapshots,
            rebuild_every,
            out,
        } => {
            let cfg = scan_gen::ContinuousConfig {
                value,
                bucket,
                from,
                to,
                max_snapshots,
                rebuild_every,
                out,
            };
            let out = runtime(None)?.block_on(scan_gen::continuous(&wh, &cfg))?;
            emit("strata", "scan-continuous", out);
        }
        Command::MapGen {
            wh,
            table,
            rows,
            commits,
            partitions,
            keys,
            max_keys,
            usage_fraction,
            zipf,
            seed,
            options,
        } => {
            let cfg = map_gen::MapGenConfig {
                rows,
                commits,
                partitions,
                keys,
                max_keys,
                usage_fraction,
                zipf,
                seed,
                options,
            };
            let out = runtime(None)?.block_on(map_gen::generate(&wh, &table, &cfg))?;
            emit("strata", "map-gen", out);
        }
        Command::MapRead {
            wh,
            table,
            columns,
            filter,
        } => {
            let out =
                runtime(None)?.block_on(map_gen::read(&wh, &table, &columns, filter.as_deref()))?;
            emit("strata", "map-read", out);
        }
        Command::FiWrite {
            wh,
            table,
            rows,
            options,
        } => {
            let out = runtime(None)?.block_on(issue31::fi_write(&wh, &table, rows, &options))?;
            emit("strata", "fi-write", out);
        }
        Command::FiLookup { wh, table, value } => {
            let out = runtime(None)?.block_on(issue31::fi_lookup(&wh, &table, &value))?;
            emit("strata", "fi-lookup", out);
        }
        Command::Backfill { wh, rows, mode } => {
            let out = runtime(None)?.block_on(issue31::backfill(&wh, rows, mode))?;
            emit("strata", "backfill", out);
        }
        #[cfg(feature = "sql")]
        Command::TpchLoad { dir, sf, options } => {
            let out = runtime(None)?.block_on(tpch::load(&dir, sf, &options))?;
            emit("strata", "tpch-load", out);
        }
        #[cfg(feature = "sql")]
        Command::TpchRun {
            dir,
            engine,
            queries,
            runs,
            only,
            explain,
        } => {
            let name = match engine {
                tpch::Engine::Parquet => "parquet",
                tpch::Engine::Strata => "strata",
            };
            let results = runtime(None)?.block_on(tpch::run(
                &dir,
                engine,
                &queries,
                runs,
                only.as_deref(),
                explain,
            ))?;
            for r in results {
                emit(name, "tpch", r);
            }
        }
    }
    Ok(())
}

fn main() {
    if let Err(e) = run(Cli::parse()) {
        eprintln!("strata-bench: {e}");
        std::process::exit(1);
    }
}
