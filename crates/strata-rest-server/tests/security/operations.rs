//! What operators rely on: audit lines without tokens, `/metrics`, a malformed token file
//! stopping the server, slow clients cut off.

use std::time::Duration;

use serde_json::Value;
use strata_rest_server::{Server, ServerConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::server::*;

#[tokio::test]
async fn audit_lines_name_principals_never_tokens_and_metrics_count_calls() {
    let s = TestServer::start().await;
    s.call("GET", "/databases", READER).await;
    s.call("DELETE", "/databases/db1", READER).await;
    s.call("GET", "/databases/db1/tables/t1/token", READER)
        .await;
    s.get(&format!("/v1/{}/databases", s.prefix), Some("nobody"))
        .await;
    let audit = std::fs::read_to_string(s.dir.path().join("audit.jsonl")).unwrap();
    for token in [ADMIN, READER, DB1_WRITER, T1_READER, "nobody"] {
        assert!(!audit.contains(token), "the audit log holds a token");
    }
    let lines: Vec<Value> = audit
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let keys = ["ts", "principal", "op", "db", "table", "status", "ms"];
    for line in &lines {
        let got: Vec<&str> = line
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(got, keys, "{line}");
    }
    let find = |op: &str, status: u64| {
        lines
            .iter()
            .find(|l| l["op"] == op && l["status"] == status)
            .cloned()
    };
    let drop = find("dropDatabase", 403).expect("the refused drop is audited");
    assert_eq!(
        (drop["principal"].as_str(), drop["db"].as_str()),
        (Some("reader"), Some("db1"))
    );
    let anonymous = find("listDatabases", 401).expect("the 401 is audited");
    assert!(anonymous["principal"].is_null());
    let metrics = s.get("/metrics", None).await;
    assert_eq!(metrics.status, 200);
    let text = metrics.body;
    for line in [
        "requests_total{op=\"dropDatabase\",code=\"403\"} 1",
        "requests_total{op=\"listDatabases\",code=\"401\"} 1",
        "commits_total{result=\"success\"} 0",
        "tokens_vended_total{level=\"read\"} 1",
        "tokens_vended_total{level=\"write\"} 0",
    ] {
        assert!(text.lines().any(|l| l == line), "no {line} in\n{text}");
    }
    assert!(text.contains("# TYPE request_seconds histogram"));
    assert!(
        !text.contains("db1") && !text.contains("reader"),
        "metrics name no object"
    );
    s.stop().await;
}

#[tokio::test]
async fn a_malformed_token_file_stops_the_server_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens");
    std::fs::write(
        &tokens,
        "# ok\nsecret-1 alice read\nsecret-2 bob wirte db1\n",
    )
    .unwrap();
    let mut config = ServerConfig::new(dir.path().join("wh").to_string_lossy());
    config.token_file = Some(tokens);
    let err = Server::new(config)
        .await
        .expect_err("a bad token file is refused")
        .to_string();
    assert!(err.contains("line 3") && err.contains("wirte"), "{err}");
    assert!(!err.contains("secret-2"), "the error shows a token: {err}");
}

#[tokio::test]
async fn a_client_that_never_finishes_its_headers_is_cut_off() {
    let s = TestServer::start_with(|c| c.header_read_timeout = Duration::from_secs(1)).await;
    let mut stream = TcpStream::connect(s.addr).await.unwrap();
    // Slowloris: a request line and one header, then nothing.
    stream
        .write_all(b"GET /v1/config?warehouse=wh HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    let started = std::time::Instant::now();
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the connection was still open after 10 s");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    if let Some(reply) = parse_reply(&answer) {
        assert_eq!(reply.status, 408, "{reply:?}");
    }
    // The server still answers everyone else.
    assert_eq!(s.get("/healthz", None).await.status, 200);
    s.stop().await;
}
