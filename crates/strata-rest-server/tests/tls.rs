//! TLS (tokio-rustls) when a certificate and key are configured, and the graceful shutdown:
//! the server answers over HTTPS to a client trusting its certificate, refuses plain HTTP on
//! the TLS port, refuses a certificate without its key, and `serve` returns once the shutdown
//! future resolves with a call in flight answered.

use std::path::PathBuf;

use strata_rest_server::{Server, ServerConfig};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_https_and_shuts_down_gracefully() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = ServerConfig::new(dir.path().join("lake").to_str().unwrap());
    config.tls_cert = Some(fixture("test-cert.pem"));
    config.tls_key = Some(fixture("test-key.pem"));
    let server = Server::new(config).await.unwrap();
    assert!(server.is_tls());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(server.serve(listener, async {
        let _ = rx.await;
    }));

    let cert = std::fs::read(fixture("test-ca.pem")).unwrap();
    let client = reqwest::Client::builder()
        .use_rustls_tls()
        .add_root_certificate(reqwest::Certificate::from_pem(&cert).unwrap())
        .build()
        .unwrap();
    let url = format!("https://localhost:{port}/v1/config?warehouse=lake");
    let resp = client.get(&url).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["defaults"]["prefix"], "lake");

    // Plain HTTP on the TLS port gets no HTTP answer.
    let plain = reqwest::get(format!("http://127.0.0.1:{port}/v1/config?warehouse=lake")).await;
    assert!(plain.is_err() || !plain.unwrap().status().is_success());

    // A call in flight when shutdown starts is answered; then `serve` returns.
    let pending = tokio::spawn({
        let client = client.clone();
        let url = format!("https://localhost:{port}/v1/lake/databases");
        async move { client.get(&url).send().await.map(|r| r.status().as_u16()) }
    });
    let status = pending.await.unwrap().unwrap();
    assert_eq!(status, 200);
    tx.send(()).unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(40), task)
        .await
        .expect("serve returns after the shutdown signal")
        .unwrap()
        .unwrap();
    assert!(
        client.get(&url).send().await.is_err(),
        "no longer listening"
    );
}

#[tokio::test]
async fn a_certificate_needs_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = ServerConfig::new(dir.path().join("lake").to_str().unwrap());
    config.tls_cert = Some(fixture("test-cert.pem"));
    let err = Server::new(config).await.unwrap_err();
    assert!(
        err.to_string().contains("both a certificate and a key"),
        "{err}"
    );
    let mut config = ServerConfig::new(dir.path().join("lake").to_str().unwrap());
    config.tls_cert = Some(fixture("test-key.pem"));
    config.tls_key = Some(fixture("test-key.pem"));
    assert!(Server::new(config).await.is_err());
}
