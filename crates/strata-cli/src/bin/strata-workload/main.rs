//! `strata-workload`: a deterministic commit workload for the reliability tests (concurrent
//! writers, `kill -9`, fault injection). Not part of the product; see RELIABILITY.md.
//!
//! ```text
//! strata-workload init   --warehouse W --table db.t [--buckets 2] [--option k=v]...
//! strata-workload run    --warehouse W --table db.t --writer NAME [--threads T] --commits N
//!                        [--rows R] [--log FILE]
//! strata-workload verify --warehouse W --table db.t [--log FILE]... [--expect-commits N]
//!                        [--expected-out FILE]
//! ```
//!
//! `run` starts T writers (`NAME-t0`, ...), each committing identifiers 1..=N with its own
//! commit user and resuming after the last identifier that user already committed (so a
//! killed writer is restarted with the same command). After each acknowledged commit it
//! appends `{"user", "identifier", "snapshot"}` to the log. `verify` checks the table against
//! the model (see `model`), the logs and the snapshot sequence, prints a JSON summary, and
//! writes the expected rows as JSON lines for other engines to compare with.

mod model;
mod table_args;
mod verify;

use std::io::Write;
use std::sync::Arc;

use arrow::array::{Int32Array, Int64Array, RecordBatch, StringArray};
use clap::{Parser, Subcommand};
use strata::ErrorKind;
use strata_spec::kv::RowKind;
use strata_spec::schema::Schema;

use crate::table_args::{open, Res, TableArgs};

#[derive(Parser)]
#[command(
    name = "strata-workload",
    about = "Deterministic commit workload for strata's reliability tests"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Create the workload's primary-key table.
    Init {
        #[command(flatten)]
        t: TableArgs,
        #[arg(long, default_value_t = 2)]
        buckets: i32,
        /// Extra table options, `key=value`.
        #[arg(long = "option")]
        options: Vec<String>,
    },
    /// Run writers.
    Run {
        #[command(flatten)]
        t: TableArgs,
        #[arg(long)]
        writer: String,
        #[arg(long, default_value_t = 1)]
        threads: usize,
        #[arg(long)]
        commits: i64,
        #[arg(long, default_value_t = 20)]
        rows: i32,
        #[arg(long)]
        log: Option<std::path::PathBuf>,
    },
    /// Check the table against the model and the logs.
    Verify {
        #[command(flatten)]
        t: TableArgs,
        #[arg(long = "log")]
        logs: Vec<std::path::PathBuf>,
        /// Every writer found must have committed exactly this many identifiers.
        #[arg(long)]
        expect_commits: Option<i64>,
        #[arg(long, default_value_t = 20)]
        rows: i32,
        #[arg(long)]
        expected_out: Option<std::path::PathBuf>,
    },
}

fn main() {
    let cli = Cli::parse();
    if std::env::var_os("STRATA_FAILPOINTS").is_some() && !strata::fault::ENABLED {
        eprintln!(
            "strata-workload: STRATA_FAILPOINTS is set but this build has no fault points \
             (build with `cargo build --features strata/failpoints`)"
        );
        std::process::exit(2);
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime can be built");
    let result = rt.block_on(async {
        match cli.cmd {
            Cmd::Init {
                t,
                buckets,
                options,
            } => init(&t, buckets, &options).await,
            Cmd::Run {
                t,
                writer,
                threads,
                commits,
                rows,
                log,
            } => run(&t, &writer, threads, commits, rows, log).await,
            Cmd::Verify {
                t,
                logs,
                expect_commits,
                rows,
                expected_out,
            } => verify::verify(&t, &logs, expect_commits, rows, expected_out.as_deref()).await,
        }
    });
    if let Err(e) = result {
        eprintln!("strata-workload: {e}");
        std::process::exit(1);
    }
}

async fn init(t: &TableArgs, buckets: i32, options: &[String]) -> Res<()> {
    let (catalog, id) = open(t).await?;
    let mut opts = serde_json::Map::new();
    opts.insert("bucket".into(), buckets.to_string().into());
    opts.insert("num-sorted-run.compaction-trigger".into(), "3".into());
    opts.insert("commit.max-retries".into(), "50".into());
    for o in options {
        let (k, v) = o
            .split_once('=')
            .ok_or_else(|| format!("--option {o:?}: expected key=value"))?;
        opts.insert(k.into(), v.into());
    }
    let json = serde_json::json!({
        "fields": [
            {"name": "u", "type": "STRING NOT NULL"},
            {"name": "k", "type": "INT NOT NULL"},
            {"name": "ident", "type": "BIGINT"},
            {"name": "v", "type": "STRING"},
        ],
        "primaryKeys": ["u", "k"],
        "options": opts,
    });
    let schema = Schema::from_json(&json.to_string()).map_err(|e| e.to_string())?;
    catalog
        .create_table(&id, &schema, true)
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}

async fn run(
    t: &TableArgs,
    writer: &str,
    threads: usize,
    commits: i64,
    rows: i32,
    log: Option<std::path::PathBuf>,
) -> Res<()> {
    let log = match log {
        Some(p) => Some(Arc::new(std::sync::Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&p)
                .map_err(|e| format!("cannot open log {}: {e}", p.display()))?,
        ))),
        None => None,
    };
    let mut tasks = Vec::new();
    for n in 0..threads {
        let name = if threads == 1 {
            writer.to_string()
        } else {
            format!("{writer}-t{n}")
        };
        let t = t.clone();
        let log = log.clone();
        tasks.push(tokio::spawn(async move {
            run_writer(&t, &name, commits, rows, log.as_deref()).await
        }));
    }
    for task in tasks {
        task.await
            .map_err(|e| format!("writer task failed: {e}"))??;
    }
    Ok(())
}

/// One writer: commits its identifiers in order, resuming after the last one that landed.
async fn run_writer(
    t: &TableArgs,
    name: &str,
    commits: i64,
    rows: i32,
    log: Option<&std::sync::Mutex<std::fs::File>>,
) -> Res<()> {
    let (catalog, id) = open(t).await?;
    let user = model::commit_user(name);
    let mut next = {
        let table = catalog.get_table(&id).await.map_err(|e| e.to_string())?;
        let commit = table
            .new_commit()
            .map_err(|e| e.to_string())?
            .with_commit_user(&user);
        match commit.latest_snapshot_of_user().await {
            Ok(Some(s)) => s.commit_identifier + 1,
            Ok(None) => 1,
            Err(e) => return Err(format!("{user}: {e}")),
        }
    };
    while next <= commits {
        // A fresh table handle each commit: the writer restores the bucket levels from the
        // latest snapshot, as a restarted job would.
        let table = catalog.get_table(&id).await.map_err(|e| e.to_string())?;
        let b = model::batch(next, rows);
        let batch = to_batch(name, next, &b)?;
        let kinds: Vec<RowKind> = b
            .iter()
            .map(|(_, v)| match v {
                Some(_) => RowKind::Insert,
                None => RowKind::Delete,
            })
            .collect();
        let mut write = table.new_write().map_err(|e| e.to_string())?;
        let commit = table
            .new_commit()
            .map_err(|e| e.to_string())?
            .with_commit_user(&user);
        let result = async {
            write.write_with_kinds(&batch, &kinds).await?;
            let messages = write.prepare_commit().await?;
            commit.commit_identified(next, messages, None).await
        }
        .await;
        match result {
            Ok(c) => {
                if let Some(log) = log {
                    let line = serde_json::json!({
                        "user": user,
                        "identifier": next,
                        "snapshot": c.append,
                        "alreadyCommitted": c.already_committed,
                    });
                    let mut f = log.lock().unwrap_or_else(|p| p.into_inner());
                    writeln!(f, "{line}").map_err(|e| format!("log write: {e}"))?;
                    f.flush().map_err(|e| format!("log flush: {e}"))?;
                }
                next += 1;
            }
            // Lost every race (or could not tell): the same identifier again; commit_identified
            // skips it if it landed after all.
            // (A conflict whose rows did commit — not yet visible — is not retried.)
            Err(e)
                if e.kind() == ErrorKind::OutcomeUnknown
                    || (e.kind() == ErrorKind::Conflict && !e.may_have_committed()) =>
            {
                if !e.may_have_committed() {
                    write.abort().await;
                }
                eprintln!("{user}: commit {next} retried: {e}");
            }
            Err(e) => {
                write.abort().await;
                return Err(format!("{user}: commit {next}: {e}"));
            }
        }
    }
    Ok(())
}

fn to_batch(name: &str, ident: i64, rows: &[(i32, Option<String>)]) -> Res<RecordBatch> {
    let u = StringArray::from(vec![name; rows.len()]);
    let k = Int32Array::from(rows.iter().map(|(k, _)| *k).collect::<Vec<_>>());
    let i = Int64Array::from(vec![ident; rows.len()]);
    let v = StringArray::from(
        rows.iter()
            .map(|(_, v)| v.clone().or(Some(String::new())))
            .collect::<Vec<_>>(),
    );
    RecordBatch::try_from_iter(vec![
        ("u", Arc::new(u) as _),
        ("k", Arc::new(k) as _),
        ("ident", Arc::new(i) as _),
        ("v", Arc::new(v) as _),
    ])
    .map_err(|e| e.to_string())
}
