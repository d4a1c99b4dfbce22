//! An S3-compatible server for strata's object-storage tests: `s3s` serving a local directory
//! (each sub-directory a bucket, each file an object) on `127.0.0.1` at an ephemeral port, with
//! SigV4 authentication and atomic conditional creates ([`atomic_fs`]), and an STS
//! `AssumeRole` endpoint minting temporary keys scoped by a session policy, enforced on every
//! request with their expiry ([`sts`], [`policy`]).
//!
//! Two forms, one implementation:
//! * in-process: [`S3Server::start`] runs the server on a thread of its own (its own tokio
//!   runtime, so it serves sync tests, `#[tokio::test]`s and child processes alike) and stops it
//!   on drop;
//! * the `strata-s3-test-server` binary (`src/main.rs`) for pytest and for crash tests where the
//!   server must outlive — or be separate from — the writers.
//!
//! Clients are configured either by [`S3Server::env_vars`] (the standard `AWS_*` variables, for
//! child processes) or by [`S3Server::catalog_options`] (Paimon's `s3.*` catalog options, for
//! in-process catalogs: no process-wide environment is touched).
//!
//! Loopback only: the listener binds `127.0.0.1` and nothing else.

pub mod atomic_fs;
pub mod policy;
pub mod sts;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder as ConnBuilder;
use s3s::service::S3ServiceBuilder;
use tokio::sync::oneshot;

pub use atomic_fs::AtomicFs;

/// Access key the server accepts (requests are SigV4-verified against it).
pub const ACCESS_KEY: &str = "strata-test";
/// Secret key paired with [`ACCESS_KEY`].
pub const SECRET_KEY: &str = "strata-test-secret";
/// Region clients sign for.
pub const REGION: &str = "us-east-1";
/// Bucket created at start.
pub const DEFAULT_BUCKET: &str = "strata";

/// A running server; stops (and, for [`S3Server::start`], deletes its directory) on drop.
pub struct S3Server {
    addr: SocketAddr,
    root: PathBuf,
    bucket: String,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
    // Held so the directory lives as long as the server; declared last so it is removed after
    // the server thread has stopped.
    _tempdir: Option<tempfile::TempDir>,
}

impl std::fmt::Debug for S3Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Server")
            .field("endpoint", &self.endpoint())
            .field("root", &self.root)
            .field("bucket", &self.bucket)
            .finish()
    }
}

impl S3Server {
    /// A server over a fresh temporary directory, on an ephemeral port, with bucket
    /// [`DEFAULT_BUCKET`].
    pub fn start() -> std::io::Result<S3Server> {
        let dir = tempfile::tempdir()?;
        let mut server = S3Server::start_in(dir.path(), 0, DEFAULT_BUCKET)?;
        server._tempdir = Some(dir);
        Ok(server)
    }

    /// A server over `root` (kept after the server stops) on `port` (0: ephemeral), creating
    /// bucket `bucket` if missing. Serving the same `root` again on the same port after a stop
    /// brings back the same objects — what a restart test needs.
    pub fn start_in(root: &Path, port: u16, bucket: &str) -> std::io::Result<S3Server> {
        std::fs::create_dir_all(root.join(bucket))?;
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let fs = AtomicFs::new(root)?;
        let (tx, rx) = oneshot::channel();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("s3-test-server")
            .enable_all()
            .build()?;
        let thread = std::thread::Builder::new()
            .name("s3-test-server".into())
            .spawn(move || runtime.block_on(serve(listener, fs, rx)))?;
        Ok(S3Server {
            addr,
            root: root.to_path_buf(),
            bucket: bucket.to_string(),
            shutdown: Some(tx),
            thread: Some(thread),
            _tempdir: None,
        })
    }

    /// `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// The directory served (bucket `b` is `root/b`, object `k` of it `root/b/k`).
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    /// A warehouse location in the bucket: `s3://<bucket>/wh`.
    pub fn warehouse(&self) -> String {
        format!("s3://{}/wh", self.bucket)
    }

    /// Creates another bucket (a directory under [`S3Server::root`]).
    pub fn create_bucket(&self, name: &str) -> std::io::Result<()> {
        std::fs::create_dir_all(self.root.join(name))
    }

    /// The standard AWS variables that point a client (a child `strata`, pyarrow, ...) at this
    /// server.
    pub fn env_vars(&self) -> Vec<(&'static str, String)> {
        env_vars(&self.endpoint())
    }

    /// The STS endpoint (`AssumeRole`): the server's own address, as MinIO serves it.
    pub fn sts_endpoint(&self) -> String {
        self.endpoint()
    }

    /// Paimon catalog options pointing a catalog at this server.
    pub fn catalog_options(&self) -> Vec<(&'static str, String)> {
        vec![
            ("s3.endpoint", self.endpoint()),
            ("s3.access-key", ACCESS_KEY.to_string()),
            ("s3.secret-key", SECRET_KEY.to_string()),
            ("s3.region", REGION.to_string()),
            ("s3.path-style-access", "true".to_string()),
        ]
    }
}

/// The `AWS_*` variables for a server at `endpoint`.
pub fn env_vars(endpoint: &str) -> Vec<(&'static str, String)> {
    vec![
        ("AWS_ENDPOINT_URL", endpoint.to_string()),
        ("AWS_ACCESS_KEY_ID", ACCESS_KEY.to_string()),
        ("AWS_SECRET_ACCESS_KEY", SECRET_KEY.to_string()),
        ("AWS_REGION", REGION.to_string()),
        ("AWS_ALLOW_HTTP", "true".to_string()),
    ]
}

impl Drop for S3Server {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Accepts connections until `stop` fires (or its sender is dropped); open connections are
/// dropped with the runtime.
pub async fn serve(listener: std::net::TcpListener, fs: AtomicFs, mut stop: oneshot::Receiver<()>) {
    let listener = match tokio::net::TcpListener::from_std(listener) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("s3 test server: cannot register the listener: {e}");
            return;
        }
    };
    let service = {
        let ids = sts::Identities::with_permanent(ACCESS_KEY, SECRET_KEY);
        let mut b = S3ServiceBuilder::new(fs);
        b.set_auth(ids.clone());
        b.set_access(sts::Access(ids.clone()));
        b.set_route(sts::AssumeRole(ids));
        b.build()
    };
    let http = ConnBuilder::new(TokioExecutor::new());
    loop {
        let socket = tokio::select! {
            res = listener.accept() => match res {
                Ok((socket, _)) => socket,
                Err(e) => {
                    // E.g. out of file descriptors: back off instead of spinning.
                    eprintln!("s3 test server: accept failed: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        let conn = http
            .serve_connection(TokioIo::new(socket), service.clone())
            .into_owned();
        tokio::spawn(async move {
            let _ = conn.await;
        });
    }
}
