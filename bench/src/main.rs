//! `strata-bench`: one benchmark phase per process, printing one JSON line
//! `{"engine", "phase", "seconds", "rows", "peak_rss_mb", ...}`.
//!
//! Phases (the workload is bench/gen_data.py's; bench/run.sh runs them all and
//! bench/report.py summarises):
//!
//! | command | engine / phase | what is timed |
//! |---|---|---|
//! | `write --wh W --data D` | strata / write | 4 commits of the in-memory input into `bench.append_t` |
//! | `read --wh W [--threads N]` | strata / read | plan + read of the whole table into memory |
//! | `filter --wh W [--threads N]` | strata / filter | the same with `id < 1000` |
//! | `raw-write --data D --out O` | raw-parquet / write | the same batches through `ArrowWriter`, one file per commit |
//! | `raw-read --out O [--threads N]` | raw-parquet / read | those files read fully, N files at a time |
//!
//! `--threads 1` runs strata on a single-threaded runtime and the raw reader on one thread;
//! the engine is then reported as `strata-1t` / `raw-parquet-1t`. `strata-1t` decodes on one
//! thread, but its local file reads still run on tokio's blocking pool (object_store's local
//! store reads through `spawn_blocking`), so it is not strictly single-threaded.

mod common;
mod raw;
mod strata_phases;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use common::{emit, Result};

#[derive(Parser)]
#[command(about = "strata vs raw arrow-rs Parquet on the append workload (one phase per run)")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create bench.append_t in the warehouse and write every commit file as one commit.
    Write {
        #[arg(long)]
        wh: PathBuf,
        #[arg(long)]
        data: PathBuf,
    },
    /// Plan and read the whole table into memory.
    Read {
        #[arg(long)]
        wh: PathBuf,
        /// Runtime worker threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Plan and read with `id < 1000`.
    Filter {
        #[arg(long)]
        wh: PathBuf,
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
        Command::Write { wh, data } => {
            let out = runtime(None)?.block_on(strata_phases::write(&wh, &data))?;
            emit("strata", "write", out);
        }
        Command::Read { wh, threads } => {
            let out = runtime(threads)?.block_on(strata_phases::read(&wh, false))?;
            emit(&strata_engine(threads), "read", out);
        }
        Command::Filter { wh, threads } => {
            let mut out = runtime(threads)?.block_on(strata_phases::read(&wh, true))?;
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
    }
    Ok(())
}

fn main() {
    if let Err(e) = run(Cli::parse()) {
        eprintln!("strata-bench: {e}");
        std::process::exit(1);
    }
}
