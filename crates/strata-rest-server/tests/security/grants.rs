//! Grant boundaries: 401 without a valid token, a read grant changing nothing, a database
//! grant seeing nothing of other databases, a table grant seeing its table only.

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::server::*;

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
