//! The in-process server of the security tests (token file with four principals, databases
//! db1 (t1), db2 (t1, t2), db3) and the raw HTTP/1.1 client they talk through.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use strata_rest_server::{Server, ServerConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

pub(crate) const ADMIN: &str = "adm-5f1c9e2a7b";
pub(crate) const READER: &str = "rd-93be01c4d2";
pub(crate) const DB1_WRITER: &str = "w1-0a7d33f19c";
pub(crate) const T1_READER: &str = "t21-6e2b8c0f4a";

pub(crate) const TOKEN_FILE: &str = "\
# strata serve token file of the security tests
adm-5f1c9e2a7b  root
rd-93be01c4d2   reader  read
w1-0a7d33f19c   w1      write db1
t21-6e2b8c0f4a  t21     read  db2.t1
";

pub(crate) struct TestServer {
    pub(crate) addr: SocketAddr,
    /// Holds the warehouse (`root/wh`), the token file and the audit log.
    pub(crate) dir: tempfile::TempDir,
    pub(crate) prefix: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) body: String,
}

impl Reply {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

impl TestServer {
    /// A server over `root/wh` with the test token file, the three databases db1 (t1), db2
    /// (t1, t2) and db3 (no table) created by the admin through the API.
    pub(crate) async fn start() -> TestServer {
        TestServer::start_with(|_| {}).await
    }

    /// [`TestServer::start`] with `adjust` applied to the configuration first.
    pub(crate) async fn start_with(adjust: impl FnOnce(&mut ServerConfig)) -> TestServer {
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

    pub(crate) fn warehouse(&self) -> PathBuf {
        self.dir.path().join("root").join("wh")
    }

    /// Sends one raw request; checks that no error answer names the warehouse's location.
    pub(crate) async fn send(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &[u8],
    ) -> Reply {
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

    pub(crate) async fn get(&self, path: &str, token: Option<&str>) -> Reply {
        self.send("GET", path, token, b"").await
    }

    /// POST to `/v1/{prefix}{path}`.
    pub(crate) async fn post(&self, path: &str, token: &str, body: Value) -> Reply {
        let path = format!("/v1/{}{path}", self.prefix);
        self.send("POST", &path, Some(token), body.to_string().as_bytes())
            .await
    }

    /// `method` on `/v1/{prefix}{path}` without a body.
    pub(crate) async fn call(&self, method: &str, path: &str, token: &str) -> Reply {
        let path = format!("/v1/{}{path}", self.prefix);
        self.send(method, &path, Some(token), b"").await
    }

    pub(crate) async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.unwrap().unwrap();
        }
    }
}

pub(crate) fn table_body(db: &str, table: &str) -> Value {
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
pub(crate) fn parse_reply(raw: &[u8]) -> Option<Reply> {
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
pub(crate) fn tree(dir: &Path) -> BTreeSet<PathBuf> {
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

pub(crate) fn names(reply: &Reply, key: &str) -> Vec<String> {
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
