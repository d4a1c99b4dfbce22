//! Starts a `strata_rest_server::Server` in-process on a free port over a temporary
//! warehouse, for the integration tests of this crate.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use strata_rest_server::{Server, ServerConfig};

/// A running server: its base URL, catalog name and warehouse directory.
pub struct Running {
    pub url: String,
    pub name: String,
    pub dir: PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl Running {
    /// Starts a server over `dir` with `config` applied.
    pub async fn start_with(dir: &Path, tweak: impl FnOnce(&mut ServerConfig)) -> Running {
        let dir = &dir.join("wh");
        let mut config = ServerConfig::new(dir.to_str().unwrap());
        tweak(&mut config);
        let server = Server::new(config).await.unwrap();
        let name = server.warehouse_name().to_string();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(server.serve(listener, async {
            let _ = rx.await;
        }));
        Running {
            url: format!("http://{addr}"),
            name,
            dir: dir.canonicalize().unwrap(),
            stop: Some(tx),
            task: Some(task),
        }
    }

    /// Starts a server over `dir` with the defaults.
    pub async fn start(dir: &Path) -> Running {
        Self::start_with(dir, |_| {}).await
    }

    /// Stops the server and waits for it to drain.
    pub async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.task.take() {
            t.await.unwrap().unwrap();
        }
    }

    /// `/v1/{prefix}` + `path`.
    pub fn api(&self, path: &str) -> String {
        format!("{}/v1/{}{}", self.url, self.name, path)
    }

    /// The catalog options of strata's REST client for this server.
    pub fn client_options(&self) -> std::collections::BTreeMap<String, String> {
        [
            ("metastore", "rest".to_string()),
            ("uri", self.url.clone()),
            ("warehouse", self.name.clone()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// An HTTP answer: status and JSON body (`Value::Null` when empty or not JSON).
pub struct Answer {
    pub status: u16,
    pub body: Value,
    pub text: String,
}

/// Sends `method url` with an optional JSON body (raw text).
pub async fn call(method: &str, url: &str, body: Option<&str>) -> Answer {
    let client = reqwest::Client::new();
    let mut req = client.request(method.parse().unwrap(), url);
    if let Some(b) = body {
        req = req
            .header("Content-Type", "application/json")
            .body(b.to_string());
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    Answer { status, body, text }
}

pub async fn get(url: &str) -> Answer {
    call("GET", url, None).await
}

pub async fn post(url: &str, body: &str) -> Answer {
    call("POST", url, Some(body)).await
}

pub async fn delete(url: &str) -> Answer {
    call("DELETE", url, None).await
}

/// Asserts `a` is an `ErrorResponse` with `status` whose text names no warehouse path.
pub fn assert_error(a: &Answer, status: u16, dir: &Path) {
    assert_eq!(a.status, status, "{}", a.text);
    assert_eq!(a.body["code"], status, "{}", a.text);
    assert!(a.body["message"].is_string(), "{}", a.text);
    let dir = dir.to_str().unwrap();
    assert!(
        !a.text.contains(dir),
        "error body leaks the warehouse path: {}",
        a.text
    );
}

/// A table schema (Java's `Schema` JSON): `id BIGINT NOT NULL, dt STRING, v STRING`
/// partitioned by `dt`, append-only, parquet.
pub const SCHEMA: &str = r#"{"fields":[
    {"id":0,"name":"id","type":"BIGINT NOT NULL"},
    {"id":1,"name":"dt","type":"STRING"},
    {"id":2,"name":"v","type":"STRING"}],
  "partitionKeys":["dt"],"primaryKeys":[],
  "options":{"file.format":"parquet","bucket":"-1"},"comment":null}"#;

/// `POST …/databases/{db}/tables` with [`SCHEMA`].
pub async fn create_table(s: &Running, db: &str, table: &str) -> Answer {
    post(
        &s.api(&format!("/databases/{db}/tables")),
        &format!(r#"{{"identifier":{{"database":"{db}","object":"{table}"}},"schema":{SCHEMA}}}"#),
    )
    .await
}
