//! Security tests of `strata serve` (DESIGN32 §3): the grant boundaries of the token file, 401
//! without a valid token, names that would leave the warehouse (refused with 400 and nothing
//! created on disk), oversized and malformed bodies, and error answers that never name the
//! warehouse's location. Plus what operators rely on: audit lines without tokens, `/metrics`
//! and `/healthz`.
//!
//! Each test starts an in-process server on a loopback port over a fresh warehouse and talks
//! raw HTTP/1.1 over TCP: an HTTP client library would normalise `..`, reject NUL and refuse to
//! send what an attacker sends, which is exactly what these tests must send.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use strata_rest_server::{Server, ServerConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const ADMIN: &str = "adm-5f1c9e2a7b";
const READER: &str = "rd-93be01c4d2";
const DB1_WRITER: &str = "w1-0a7d33f19c";
const T1_READER: &str = "t21-6e2b8c0f4a";

const TOKEN_FILE: &str = "\
# strata serve token file of the security tests
adm-5f1c9e2a7b  root
rd-93be01c4d2   reader  read
w1-0a7d33f19c   w1      write db1
t21-6e2b8c0f4a  t21     read  db2.t1
";

struct TestServer {
    addr: SocketAddr,
    /// Holds the warehouse (`root/wh`), the token file and the audit log.
    dir: tempfile::TempDir,
    prefix: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

#[derive(Debug)]
struct Reply {
    status: u16,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

impl TestServer {
    /// A server over `root/wh` with the test token file, the three databases db1 (t1), db2
    /// (t1, t2) and db3 (no table) created by the admin through the API.
    async fn start() -> TestServer {
        TestServer::start_with(|_| {}).await
    }

    /// [`TestServer::start`] with `adjust` applied to the configuration first.
    async fn start_with(adjust: impl FnOnce(&mut ServerConfig)) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let warehouse = dir.path().join("root").join("wh");
        std::fs::create_dir_all(&warehouse).unwrap();
        let tokens = dir.path().join("tokens");
        std::fs::write(&tokens, TOKEN_FILE).unwrap();
        let mut config = ServerConfig::new(warehouse.to_string_lossy());
        config.token_file = Some(tokens);
        config.audit_log = Some(dir.path().join("audit.jsonl"));
        adjust(&mut config);
        let server = Server::new(config).await.expect("server starts");
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(server.serve(listener, async {
            let _ = stopped.await;
        }));
        let mut s = TestServer {
            addr,
            dir,
            prefix: String::new(),
            stop: Some(stop),
            task: Some(task),
        };
        let config = s.get("/v1/config?warehouse=wh", Some(ADMIN)).await;
        assert_eq!(config.status, 200, "{config:?}");
        s.prefix = config.json()["defaults"]["prefix"]
            .as_str()
            .unwrap()
            .to_string();
        for (db, tables) in [("db1", &["t1"][..]), ("db2", &["t1", "t2"]), ("db3", &[])] {
            let r = s
                .post("/databases", ADMIN, json!({"name": db, "options": {}}))
                .await;
            assert_eq!(r.status, 200, "create {db}: {r:?}");
            for t in tables {
                let r = s
                    .post(&format!("/databases/{db}/tables"), ADMIN, table_body(db, t))
                    .await;
                assert_eq!(r.status, 200, "create {db}.{t}: {r:?}");
            }
        }
        s
    }

    fn warehouse(&self) -> PathBuf {
        self.dir.path().join("root").join("wh")
    }

    /// Sends one raw request; checks that no error answer names the warehouse's location.
    async fn send(&self, method: &str, path: &str, token: Option<&str>, body: &[u8]) -> Reply {
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
            self.addr
        );
        if let Some(t) = token {
            head.push_str(&format!("Authorization: Bearer {t}\r\n"));
        }
        if !body.is_empty() || method == "POST" {
            head.push_str("Content-Type: application/json\r\n");
            head.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        head.push_str("\r\n");
        let stream = TcpStream::connect(self.addr).await.unwrap();
        let (mut rd, mut wr) = stream.into_split();
        let mut request = head.into_bytes();
        request.extend_from_slice(body);
        // Write and read at once: the server may answer (413) before the body is sent.
        let writer = tokio::spawn(async move {
            let _ = wr.write_all(&request).await;
            wr
        });
        let mut raw = Vec::new();
        // A reset after the answer (the server closing on an unread body) is no failure: what
        // was read before it is kept and parsed.
        let read = tokio::time::timeout(Duration::from_secs(30), rd.read_to_end(&mut raw)).await;
        assert!(read.is_ok(), "{method} {path}: no answer in 30 s");
        drop(writer.await);
        let reply = parse_reply(&raw).unwrap_or_else(|| {
            panic!(
                "{method} {path}: unparsable answer {:?}",
                String::from_utf8_lossy(&raw)
            )
        });
        if reply.status >= 400 {
            let location = self.warehouse().to_string_lossy().into_owned();
            let root = self.dir.path().to_string_lossy().into_owned();
            assert!(
                !reply.body.contains(&location) && !reply.body.contains(&root),
                "{method} {path}: the error answer names the warehouse: {}",
                reply.body
            );
        }
        reply
    }

    async fn get(&self, path: &str, token: Option<&str>) -> Reply {
        self.send("GET", path, token, b"").await
    }

    /// POST to `/v1/{prefix}{path}`.
    async fn post(&self, path: &str, token: &str, body: Value) -> Reply {
        let path = format!("/v1/{}{path}", self.prefix);
        self.send("POST", &path, Some(token), body.to_string().as_bytes())
            .await
    }

    /// `method` on `/v1/{prefix}{path}` without a body.
    async fn call(&self, method: &str, path: &str, token: &str) -> Reply {
        let path = format!("/v1/{}{path}", self.prefix);
        self.send(method, &path, Some(token), b"").await
    }

    async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.unwrap().unwrap();
        }
    }
}

fn table_body(db: &str, table: &str) -> Value {
    json!({
        "identifier": {"database": db, "object": table},
        "schema": {
            "fields": [{"id": 0, "name": "k", "type": "INT NOT NULL"}, {"id": 1, "name": "v", "type": "STRING"}],
            "partitionKeys": [],
            "primaryKeys": [],
            "options": {},
        },
    })
}

/// Status and body of an HTTP/1.1 answer (content-length or chunked).
fn parse_reply(raw: &[u8]) -> Option<Reply> {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&raw[..end]).ok()?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    let mut body = raw[end + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let mut out = Vec::new();
        let mut rest = &body[..];
        loop {
            let eol = rest.windows(2).position(|w| w == b"\r\n")?;
            let size =
                usize::from_str_radix(std::str::from_utf8(&rest[..eol]).ok()?.trim(), 16).ok()?;
            if size == 0 {
                break;
            }
            out.extend_from_slice(rest.get(eol + 2..eol + 2 + size)?);
            rest = rest.get(eol + 4 + size..)?;
        }
        body = out;
    }
    Some(Reply {
        status,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

/// Every file and directory below `dir`, relative.
fn tree(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path.clone());
            }
            out.insert(path.strip_prefix(dir).unwrap().to_path_buf());
        }
    }
    out
}

fn names(reply: &Reply, key: &str) -> Vec<String> {
    let v = reply.json();
    let mut names: Vec<String> = v[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} in {v}"))
        .iter()
        .map(|n| match n {
            Value::String(s) => s.clone(),
            other => format!(
                "{}.{}",
                other["database"].as_str().unwrap(),
                other["object"].as_str().unwrap()
            ),
        })
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn no_token_or_a_wrong_token_is_401_and_health_needs_none() {
    let s = TestServer::start().await;
    let p = s.prefix.clone();
    for path in [
        "/v1/config?warehouse=wh".to_string(),
        format!("/v1/{p}/databases"),
        format!("/v1/{p}/databases/db1/tables/t1"),
        format!("/v1/{p}/databases/nope/tables/nope"),
    ] {
        assert_eq!(
            s.get(&path, None).await.status,
            401,
            "{path} without a token"
        );
        assert_eq!(
            s.get(&path, Some("adm-5f1c9e2a7")).await.status,
            401,
            "{path}: a prefix"
        );
        assert_eq!(
            s.get(&path, Some("adm-5f1c9e2a7bX")).await.status,
            401,
            "{path}: longer"
        );
    }
    // A token sent with another scheme is not a bearer token.
    let raw = format!(
        "GET /v1/{p}/databases HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Basic {ADMIN}\r\n\r\n"
    );
    let mut stream = TcpStream::connect(s.addr).await.unwrap();
    stream.write_all(raw.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    assert_eq!(parse_reply(&answer).unwrap().status, 401);
    // A 401 creates nothing.
    let before = tree(&s.warehouse());
    let r = s
        .send(
            "POST",
            &format!("/v1/{p}/databases"),
            Some("wrong"),
            br#"{"name":"x"}"#,
        )
        .await;
    assert_eq!(r.status, 401);
    assert_eq!(tree(&s.warehouse()), before);
    assert_eq!(s.get("/healthz", None).await.status, 200);
    s.stop().await;
}

#[tokio::test]
async fn a_read_token_reads_but_changes_nothing_and_never_gets_write_credentials() {
    let s = TestServer::start().await;
    assert_eq!(
        names(&s.call("GET", "/databases", READER).await, "databases"),
        ["db1", "db2", "db3"]
    );
    assert_eq!(
        s.call("GET", "/databases/db1/tables/t1", READER)
            .await
            .status,
        200
    );
    let before = tree(&s.warehouse());
    let t = "/databases/db1/tables/t1";
    let refused = [
        s.post(&format!("{t}/commit"), READER, json!({"tableId": "x", "snapshot": {}, "statistics": []})).await,
        s.call("DELETE", t, READER).await,
        s.call("DELETE", "/databases/db1", READER).await,
        s.post("/databases", READER, json!({"name": "db9", "options": {}})).await,
        s.post("/databases/db1/tables", READER, table_body("db1", "t9")).await,
        s.post(&format!("{t}/tags"), READER, json!({"tagName": "tag1"})).await,
        s.call("DELETE", &format!("{t}/tags/tag1"), READER).await,
        s.post(&format!("{t}/branches"), READER, json!({"branch": "b1"})).await,
        s.post(&format!("{t}/rollback"), READER, json!({"instant": {"type": "snapshot", "snapshotId": 1}})).await,
        s.post(t, READER, json!({"changes": [{"action": "setOption", "key": "a", "value": "b"}]})).await,
        s.post("/tables/rename", READER, json!({"source": {"database": "db1", "object": "t1"}, "destination": {"database": "db1", "object": "t8"}})).await,
    ];
    for r in &refused {
        assert_eq!(r.status, 403, "{r:?}");
        assert_eq!(r.json()["code"], 403, "an ErrorResponse: {r:?}");
    }
    assert_eq!(
        tree(&s.warehouse()),
        before,
        "a refused call changed the warehouse"
    );
    // The data token of a read grant carries no credentials (a local warehouse has none to
    // give, and a read grant never receives the server's own, writable ones).
    let token = s.call("GET", &format!("{t}/token"), READER).await;
    assert_eq!(token.status, 200, "{token:?}");
    assert_eq!(token.json()["token"], json!({}), "{token:?}");
    s.stop().await;
}

#[tokio::test]
async fn a_database_grant_sees_nothing_of_other_databases() {
    let s = TestServer::start().await;
    assert_eq!(
        names(&s.call("GET", "/databases", DB1_WRITER).await, "databases"),
        ["db1"]
    );
    assert_eq!(
        names(&s.call("GET", "/tables", DB1_WRITER).await, "tables"),
        ["db1.t1"]
    );
    // db2 and its table answer exactly as a database and a table that do not exist.
    let hidden = s.call("GET", "/databases/db2/tables/t1", DB1_WRITER).await;
    let missing = s.call("GET", "/databases/db1/tables/nope", ADMIN).await;
    assert_eq!((hidden.status, missing.status), (404, 404));
    assert_eq!(
        hidden.json()["resourceType"],
        missing.json()["resourceType"]
    );
    assert_eq!(
        hidden.json()["message"]
            .as_str()
            .unwrap()
            .replace("db2.t1", "X"),
        missing.json()["message"]
            .as_str()
            .unwrap()
            .replace("db1.nope", "X")
    );
    for (method, path) in [
        ("GET", "/databases/db2"),
        ("GET", "/databases/db2/tables"),
        ("GET", "/databases/db2/table-details"),
        ("GET", "/databases/db3"),
        ("GET", "/databases/db2/tables/t1/snapshots"),
        ("GET", "/databases/db2/tables/t1/token"),
        ("DELETE", "/databases/db2/tables/t2"),
    ] {
        let r = s.call(method, path, DB1_WRITER).await;
        assert_eq!(r.status, 404, "{method} {path}: {r:?}");
        assert!(
            !r.body.contains("403") && !r.body.to_lowercase().contains("forbidden"),
            "{r:?}"
        );
    }
    let hidden_commit = s
        .post("/databases/db2/tables/t1/commit", DB1_WRITER, json!({}))
        .await;
    assert_eq!(hidden_commit.status, 404);
    // Its own database: it may create and change tables there, not drop the database.
    assert_eq!(
        s.post("/databases/db1/tables", DB1_WRITER, table_body("db1", "t2"))
            .await
            .status,
        200
    );
    assert_eq!(
        s.call("DELETE", "/databases/db1/tables/t2", DB1_WRITER)
            .await
            .status,
        200
    );
    assert_eq!(
        s.call("DELETE", "/databases/db1", DB1_WRITER).await.status,
        403
    );
    // By id: a hidden table's id answers like an unknown id.
    let id = s
        .call("GET", "/databases/db2/tables/t1", ADMIN)
        .await
        .json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        s.call("GET", &format!("/tables/id/{id}"), ADMIN)
            .await
            .status,
        200
    );
    assert_eq!(
        s.call("GET", &format!("/tables/id/{id}"), DB1_WRITER)
            .await
            .status,
        404
    );
    // Renames: out of a hidden database is 404, into a database without a grant 403.
    let rename = |from: (&str, &str), to: (&str, &str)| {
        json!({"source": {"database": from.0, "object": from.1},
               "destination": {"database": to.0, "object": to.1}})
    };
    let r = s
        .post(
            "/tables/rename",
            DB1_WRITER,
            rename(("db2", "t1"), ("db1", "x")),
        )
        .await;
    assert_eq!(r.status, 404, "{r:?}");
    let r = s
        .post(
            "/tables/rename",
            DB1_WRITER,
            rename(("db1", "t1"), ("db2", "x")),
        )
        .await;
    assert_eq!(r.status, 403, "{r:?}");
    assert!(s.warehouse().join("db1.db").join("t1").exists());
    assert!(!s.warehouse().join("db2.db").join("x").exists());
    // Creating a table in a database it has no grant on is refused, never created.
    let r = s
        .post("/databases/db2/tables", DB1_WRITER, table_body("db2", "t9"))
        .await;
    assert_eq!(r.status, 403, "{r:?}");
    assert!(!s.warehouse().join("db2.db").join("t9").exists());
    // A token for one table sees that table and its database, nothing else.
    assert_eq!(
        names(&s.call("GET", "/databases", T1_READER).await, "databases"),
        ["db2"]
    );
    assert_eq!(
        names(
            &s.call("GET", "/databases/db2/tables", T1_READER).await,
            "tables"
        ),
        ["t1"]
    );
    assert_eq!(
        s.call("GET", "/databases/db2/tables/t2", T1_READER)
            .await
            .status,
        404
    );
    assert_eq!(
        s.call("GET", "/databases/db2/tables/t1", T1_READER)
            .await
            .status,
        200
    );
    s.stop().await;
}

#[tokio::test]
async fn names_that_leave_the_warehouse_are_400_and_create_nothing() {
    let s = TestServer::start().await;
    let p = s.prefix.clone();
    let root = s.dir.path().join("root");
    let before = tree(&root);
    let long = "x".repeat(256);
    // As they would appear in a URL path segment.
    let in_path = [
        "..",
        "%2e%2e",
        "%2E%2E",
        "a%2Fb",
        "%2F",
        "..%2Fx",
        "a%00b",
        "%00",
        ".hidden",
        long.as_str(),
        "a%5Cb",
    ];
    for bad in in_path {
        for (method, path) in [
            ("GET", format!("/v1/{p}/databases/{bad}")),
            ("DELETE", format!("/v1/{p}/databases/{bad}")),
            ("POST", format!("/v1/{p}/databases/{bad}/tables")),
            ("GET", format!("/v1/{p}/databases/db1/tables/{bad}")),
            ("POST", format!("/v1/{p}/databases/db1/tables/{bad}/commit")),
            ("GET", format!("/v1/{p}/databases/db1/tables/t1/tags/{bad}")),
            (
                "DELETE",
                format!("/v1/{p}/databases/db1/tables/t1/branches/{bad}"),
            ),
        ] {
            let body = if method == "POST" {
                br#"{"name":"x"}"#.as_slice()
            } else {
                b""
            };
            let r = s.send(method, &path, Some(ADMIN), body).await;
            assert_eq!(r.status, 400, "{method} {path}: {r:?}");
        }
    }
    // As they would appear in a JSON body.
    for bad in [
        "..",
        "../x",
        "a/b",
        "a\\b",
        "a\u{0}b",
        ".hidden",
        "/abs",
        long.as_str(),
        "",
    ] {
        let r = s
            .post("/databases", ADMIN, json!({"name": bad, "options": {}}))
            .await;
        assert_eq!(r.status, 400, "createDatabase {bad:?}: {r:?}");
        let r = s
            .post("/databases/db1/tables", ADMIN, table_body("db1", bad))
            .await;
        assert_eq!(r.status, 400, "createTable {bad:?}: {r:?}");
        let rename = json!({"source": {"database": "db1", "object": "t1"}, "destination": {"database": "db1", "object": bad}});
        let r = s.post("/tables/rename", ADMIN, rename).await;
        assert_eq!(r.status, 400, "renameTable to {bad:?}: {r:?}");
        let r = s
            .post(
                "/databases/db1/tables/t1/tags",
                ADMIN,
                json!({"tagName": bad}),
            )
            .await;
        assert_eq!(r.status, 400, "createTag {bad:?}: {r:?}");
        let r = s
            .post(
                "/databases/db1/tables/t1/branches",
                ADMIN,
                json!({"branch": bad}),
            )
            .await;
        assert_eq!(r.status, 400, "createBranch {bad:?}: {r:?}");
    }
    assert_eq!(tree(&root), before, "a refused name changed the disk");
    s.stop().await;
}

#[tokio::test]
async fn oversized_and_malformed_bodies_are_refused() {
    let s = TestServer::start().await;
    let p = s.prefix.clone();
    let before = tree(&s.warehouse());
    // 50 MB: over the commit limit (16 MiB) and the general one (1 MiB).
    let mut big = br#"{"name":""#.to_vec();
    big.resize(50 << 20, b'a');
    big.extend_from_slice(br#"","options":{}}"#);
    for path in ["/databases", "/databases/db1/tables/t1/commit"] {
        let r = s
            .send("POST", &format!("/v1/{p}{path}"), Some(ADMIN), &big)
            .await;
        assert_eq!(r.status, 413, "{path}: {r:?}");
    }
    for path in [
        "/databases",
        "/databases/db1/tables",
        "/databases/db1/tables/t1/commit",
        "/databases/db1/tables/t1/tags",
    ] {
        for body in [
            &br#"{"name":"db9","opt"#[..], // truncated
            b"not json at all",
            b"",
            br#"{"name": 7, "options": []}"#, // wrong types
            br#"["name","db9"]"#,
            br#"{"identifier": "db1.t9", "schema": 3}"#,
            br#"{"tableId": 1, "snapshot": "x", "statistics": {}}"#,
            br#"{"tagName": ["a"], "snapshotId": "one"}"#,
        ] {
            let r = s
                .send("POST", &format!("/v1/{p}{path}"), Some(ADMIN), body)
                .await;
            assert_eq!(
                r.status,
                400,
                "{path} with {:?}: {r:?}",
                String::from_utf8_lossy(body)
            );
            assert_eq!(r.json()["code"], 400);
        }
    }
    assert_eq!(
        tree(&s.warehouse()),
        before,
        "a refused body changed the warehouse"
    );
    s.stop().await;
}

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
