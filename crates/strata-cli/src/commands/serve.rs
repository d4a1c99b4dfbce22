//! `strata serve`: Paimon's REST catalog API over a warehouse (a local directory or
//! `s3://…`), served by `strata_rest_server::Server` until Ctrl-C / SIGTERM, then drained
//! gracefully. The warehouse comes from the global `--warehouse` (its folder's base name is
//! the catalog name clients give as `warehouse`); `s3.*` catalog options configure its store.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::path::PathBuf;

use strata_rest_server::{Server, ServerConfig};

use crate::error::{msg, Result};

/// The arguments of `strata serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// HOST:PORT to listen on (port 0: any free port, printed at start)
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8181")]
    pub listen: String,
    /// Token file: bearer tokens, principals and grants (grammar below). Without it every
    /// caller is admin — listen on localhost only.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// TLS certificate chain (PEM); needs --tls-key
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// TLS private key (PEM); needs --tls-cert
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Append one JSON line per call to FILE (default: the server log on stderr)
    #[arg(long, value_name = "FILE")]
    pub audit_log: Option<PathBuf>,
    /// Request body limit in bytes
    #[arg(long, value_name = "BYTES", default_value_t = strata_rest_server::DEFAULT_BODY_LIMIT)]
    pub body_limit: usize,
    /// Body limit of commit requests in bytes
    #[arg(long, value_name = "BYTES", default_value_t = strata_rest_server::DEFAULT_COMMIT_BODY_LIMIT)]
    pub commit_body_limit: usize,
    /// Longest a request may take, in seconds (answered 408 after)
    #[arg(long, value_name = "SECONDS", default_value_t = strata_rest_server::DEFAULT_REQUEST_TIMEOUT.as_secs())]
    pub request_timeout: u64,
}

/// Runs the server over the catalog `options` (`warehouse`, `s3.*`).
pub async fn run(options: &BTreeMap<String, String>, args: &ServeArgs) -> Result<()> {
    if let Some(m) = options
        .get("metastore")
        .filter(|m| m.as_str() != "filesystem")
    {
        return Err(msg(format!(
            "strata serve serves a filesystem warehouse (--warehouse DIR|s3://…), not metastore={m}"
        )));
    }
    let Some(warehouse) = options.get("warehouse") else {
        return Err(msg("strata serve needs --warehouse DIR|s3://bucket/path"));
    };
    let mut store = HashMap::new();
    for (k, v) in options {
        match k.as_str() {
            "warehouse" | "metastore" => {}
            k if k.starts_with("s3.") => {
                store.insert(k.to_string(), v.clone());
            }
            other => {
                return Err(msg(format!(
                    "strata serve does not support the catalog option {other:?} (only \
                     warehouse and s3.*)"
                )))
            }
        }
    }
    let listen: SocketAddr = tokio::net::lookup_host(&args.listen)
        .await
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| msg(format!("--listen {:?}: not a HOST:PORT", args.listen)))?;
    let mut config = ServerConfig::new(warehouse.clone());
    config.warehouse_options = store;
    config.token_file = args.token_file.clone();
    config.audit_log = args.audit_log.clone();
    config.tls_cert = args.tls_cert.clone();
    config.tls_key = args.tls_key.clone();
    config.body_limit = args.body_limit;
    config.commit_body_limit = args.commit_body_limit;
    config.request_timeout = std::time::Duration::from_secs(args.request_timeout.max(1));
    let server = Server::new(config).await.map_err(|e| msg(e.to_string()))?;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| msg(format!("cannot listen on {listen}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| msg(format!("cannot listen on {listen}: {e}")))?;
    let scheme = if server.is_tls() { "https" } else { "http" };
    println!(
        "strata serve: warehouse {} at {scheme}://{bound} (catalog options: metastore=rest, \
         uri={scheme}://{bound}, warehouse={})",
        server.warehouse_name(),
        server.warehouse_name()
    );
    server
        .serve(listener, shutdown_signal())
        .await
        .map_err(|e| msg(format!("server failed: {e}")))
}

/// Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}
