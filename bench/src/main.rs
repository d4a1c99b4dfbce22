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
//!
//! `--table` is `append` (default; `bench.append_t`, bucket -1) or `pk` (`bench.pk_t`, primary
//! key `id`, bucket 1); `raw-scan` defaults to `pk`.
//!
//! `--threads 1` runs strata on a single-threaded runtime and the raw reader on one thread;
//! the engine is then reported as `strata-1t` / `raw-parquet-1t`. `strata-1t` decodes on one
//! thread, but its local file reads still run on tokio's blocking pool (object_store's local
//! store reads through `spawn_blocking`), so it is not strictly single-threaded.

mod common;
mod pk_mem;
mod raw;
mod strata_phases;

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
        Command::Write { wh, data, table } => {
            let mut out = runtime(None)?.block_on(strata_phases::write(&wh, &data, table))?;
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
    }
    Ok(())
}

fn main() {
    if let Err(e) = run(Cli::parse()) {
        eprintln!("strata-bench: {e}");
        std::process::exit(1);
    }
}
