//! `strata-s3-test-server`: the test S3 server as a process, for tests whose clients are other
//! processes (pytest, the `strata` CLI under kill -9).
//!
//! ```text
//! strata-s3-test-server --root DIR [--port N] [--bucket NAME] [--exit-on-stdin-eof]
//! ```
//! Serves `DIR` (bucket `NAME` = `DIR/NAME`, created if missing) on `127.0.0.1:N` (default 0:
//! an ephemeral port). Once listening it prints the client configuration as `KEY=VALUE` lines —
//! `AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`,
//! `AWS_ALLOW_HTTP`, `STRATA_S3_BUCKET`, `STRATA_S3_WAREHOUSE` — then one empty line, and serves
//! until killed. With `--exit-on-stdin-eof` it also stops when its standard input closes, so a
//! test that dies without cleaning up does not leave the server behind.

use std::io::Write;
use std::path::PathBuf;

use clap::Parser;
use strata_s3_test_server::{env_vars, serve, AtomicFs};
use tokio::io::AsyncReadExt;
use tokio::sync::oneshot;

#[derive(Parser, Debug)]
#[command(about = "S3-compatible test server over a local directory, on 127.0.0.1")]
struct Opt {
    /// Directory served: each sub-directory is a bucket.
    #[arg(long)]
    root: PathBuf,
    /// Port on 127.0.0.1 (0: ephemeral).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Bucket created at start.
    #[arg(long, default_value = strata_s3_test_server::DEFAULT_BUCKET)]
    bucket: String,
    /// Stop when standard input reaches end of file.
    #[arg(long)]
    exit_on_stdin_eof: bool,
}

fn main() {
    let opt = Opt::parse();
    if let Err(e) = run(opt) {
        eprintln!("strata-s3-test-server: {e}");
        std::process::exit(1);
    }
}

fn run(opt: Opt) -> std::io::Result<()> {
    std::fs::create_dir_all(opt.root.join(&opt.bucket))?;
    let listener = std::net::TcpListener::bind(("127.0.0.1", opt.port))?;
    listener.set_nonblocking(true)?;
    let endpoint = format!("http://{}", listener.local_addr()?);
    let fs = AtomicFs::new(&opt.root)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let (tx, rx) = oneshot::channel::<()>();
        let server = tokio::spawn(serve(listener, fs, rx));
        let mut out = std::io::stdout().lock();
        for (k, v) in env_vars(&endpoint) {
            writeln!(out, "{k}={v}")?;
        }
        writeln!(out, "STRATA_S3_BUCKET={}", opt.bucket)?;
        writeln!(out, "STRATA_S3_WAREHOUSE=s3://{}/wh", opt.bucket)?;
        writeln!(out)?;
        out.flush()?;
        drop(out);
        if opt.exit_on_stdin_eof {
            let mut stdin = tokio::io::stdin();
            let mut buf = [0u8; 256];
            while stdin.read(&mut buf).await? > 0 {}
            let _ = tx.send(());
        } else {
            // Keep the sender alive: the server runs until the process is killed.
            std::mem::forget(tx);
        }
        let _ = server.await;
        Ok(())
    })
}
