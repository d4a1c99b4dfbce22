//! [`Server`]: the embeddable REST catalog server — the router over a warehouse, served on a
//! TCP listener with hyper (HTTP/1.1 and HTTP/2), TLS through tokio-rustls when a certificate
//! and key are configured, a header-read timeout against slow clients, a per-request timeout
//! (answered 408 as an `ErrorResponse`), and a graceful shutdown that stops accepting and lets
//! in-flight calls (a commit deciding) finish.
//!
//! Path segments arrive encoded as Java's `RESTUtil.encodeString` (`URLEncoder`: a space is
//! `+`); before routing, `+` in the path becomes `%20` so axum's percent-decoding yields the
//! name Java meant (a literal `+` arrives as `%2B` from Java's and pypaimon's clients).

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode, Uri};
use axum::response::IntoResponse;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use strata::catalog::FileSystemCatalog;
use tokio::net::TcpListener;
use tokio_rustls::rustls;
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt;

use crate::audit::Audit;
use crate::authz::Authz;
use crate::config::ServerConfig;
use crate::error::ApiError;
use crate::metrics::Metrics;
use crate::state::AppState;
use crate::vending::Vending;

/// Why a server could not start.
#[derive(Debug)]
pub struct ServerError(String);

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServerError {}

/// A REST catalog server over one warehouse.
pub struct Server {
    state: AppState,
    tls: Option<TlsAcceptor>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("warehouse", &self.state.inner.name)
            .field("tls", &self.tls.is_some())
            .finish()
    }
}

impl Server {
    /// A server for `config`: opens the warehouse (creating a local directory that does not
    /// exist), the token file and the TLS certificate; nothing is listened on yet.
    pub async fn new(mut config: ServerConfig) -> Result<Server, ServerError> {
        if !config.warehouse.contains("://") {
            // Clients open the tables' files at the path `getTable` answers: make it absolute.
            std::fs::create_dir_all(&config.warehouse)
                .and_then(|()| std::fs::canonicalize(&config.warehouse))
                .map(|p| config.warehouse = p.to_string_lossy().into_owned())
                .map_err(|e| {
                    ServerError(format!(
                        "cannot create warehouse directory {}: {e}",
                        config.warehouse
                    ))
                })?;
        }
        let vending =
            Vending::from_config(&config).map_err(|e| ServerError(format!("data tokens: {e}")))?;
        let catalog = FileSystemCatalog::open_with_options(
            &config.warehouse,
            &crate::vending::store_options(&config.warehouse_options),
        )
        .map_err(|e| ServerError(format!("cannot open warehouse: {e}")))?;
        if config.warehouse_name().is_empty() {
            return Err(ServerError(format!(
                "warehouse {:?} has no folder name to serve it under",
                config.warehouse
            )));
        }
        let tls = match (&config.tls_cert, &config.tls_key) {
            (Some(cert), Some(key)) => Some(tls_acceptor(cert, key)?),
            (None, None) => None,
            _ => {
                return Err(ServerError(
                    "TLS needs both a certificate and a key".to_string(),
                ))
            }
        };
        let authz = Authz::from_config(&config).map_err(ServerError)?;
        let audit = Audit::from_config(&config).map_err(ServerError)?;
        let state = AppState::new(config, catalog, authz, audit, Metrics::new(), vending);
        Ok(Server { state, tls })
    }

    /// The catalog name clients give as `warehouse` (the warehouse folder's base name).
    pub fn warehouse_name(&self) -> &str {
        &self.state.inner.name
    }

    /// Whether connections are served over TLS.
    pub fn is_tls(&self) -> bool {
        self.tls.is_some()
    }

    /// The router alone (no timeouts, no TLS), for serving it inside another axum app.
    pub fn router(&self) -> Router {
        crate::router::router(self.state.clone())
    }

    /// Serves connections from `listener` until `shutdown` resolves, then stops accepting and
    /// waits for in-flight calls (at most the request timeout).
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send,
    ) -> std::io::Result<()> {
        let config = &self.state.inner.config;
        let timeout = config.request_timeout;
        let router = self.router();
        let mut builder = Builder::new(TokioExecutor::new());
        builder
            .http1()
            .timer(TokioTimer::new())
            .header_read_timeout(config.header_read_timeout);
        builder.http2().timer(TokioTimer::new());
        let builder = Arc::new(builder);
        let graceful = GracefulShutdown::new();
        tokio::pin!(shutdown);
        loop {
            let (stream, peer) = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(x) => x,
                    Err(e) => {
                        // Out of file descriptors and the like: back off, keep serving.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
                () = &mut shutdown => break,
            };
            let _ = stream.set_nodelay(true);
            let router = router.clone();
            let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                call(router.clone(), timeout, req)
            });
            let builder = builder.clone();
            let watcher = graceful.watcher();
            let tls = self.tls.clone();
            let handshake_timeout = config.header_read_timeout;
            tokio::spawn(async move {
                let result = match tls {
                    Some(acceptor) => {
                        let stream =
                            match tokio::time::timeout(handshake_timeout, acceptor.accept(stream))
                                .await
                            {
                                Ok(Ok(s)) => s,
                                Ok(Err(e)) => {
                                    tracing::debug!(%peer, error = %e, "TLS handshake failed");
                                    return;
                                }
                                Err(_) => return,
                            };
                        let conn = builder
                            .serve_connection_with_upgrades(TokioIo::new(stream), service)
                            .into_owned();
                        watcher.watch(conn).await
                    }
                    None => {
                        let conn = builder
                            .serve_connection_with_upgrades(TokioIo::new(stream), service)
                            .into_owned();
                        watcher.watch(conn).await
                    }
                };
                if let Err(e) = result {
                    tracing::debug!(%peer, error = %e, "connection ended with an error");
                }
            });
        }
        drop(listener);
        let drain = self.state.inner.config.request_timeout + Duration::from_secs(1);
        if tokio::time::timeout(drain, graceful.shutdown())
            .await
            .is_err()
        {
            tracing::warn!("in-flight calls did not finish within the drain time");
        }
        Ok(())
    }

    /// Binds `addr` and serves until `shutdown` resolves ([`Server::serve`]).
    pub async fn bind_and_serve(
        self,
        addr: SocketAddr,
        shutdown: impl Future<Output = ()> + Send,
    ) -> std::io::Result<()> {
        let listener = TcpListener::bind(addr).await?;
        self.serve(listener, shutdown).await
    }
}

/// One request: `+` in the path decoded as a space, the request timeout.
async fn call(
    router: Router,
    timeout: Duration,
    req: Request<Incoming>,
) -> Result<axum::response::Response, Infallible> {
    let req = plus_as_space(req.map(Body::new));
    match tokio::time::timeout(timeout, router.oneshot(req)).await {
        Ok(r) => r,
        Err(_) => Ok(ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "the request took longer than the server allows",
        )
        .into_response()),
    }
}

/// Java's `URLEncoder` writes a space in a path segment as `+`: make it `%20` before routing.
pub(crate) fn plus_as_space(mut req: Request<Body>) -> Request<Body> {
    let uri = req.uri();
    if !uri.path().contains('+') {
        return req;
    }
    let path = uri.path().replace('+', "%20");
    let pq = match uri.query() {
        Some(q) => format!("{path}?{q}"),
        None => path,
    };
    let mut parts = uri.clone().into_parts();
    if let Ok(pq) = pq.parse() {
        parts.path_and_query = Some(pq);
        if let Ok(new) = Uri::from_parts(parts) {
            *req.uri_mut() = new;
        }
    }
    req
}

fn tls_acceptor(cert: &std::path::Path, key: &std::path::Path) -> Result<TlsAcceptor, ServerError> {
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(|it| it.collect::<Result<Vec<_>, _>>())
        .map_err(|e| {
            ServerError(format!(
                "cannot read TLS certificate {}: {e}",
                cert.display()
            ))
        })?;
    if certs.is_empty() {
        return Err(ServerError(format!("no certificate in {}", cert.display())));
    }
    let key = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| ServerError(format!("cannot read TLS key {}: {e}", key.display())))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| ServerError(format!("TLS: {e}")))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| ServerError(format!("TLS certificate and key do not fit: {e}")))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}
