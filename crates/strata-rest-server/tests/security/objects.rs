//! Grants on views and functions: they belong to the database — a grant on it (or on
//! everything) reads them, write on it changes them, a table grant covers neither (lists are
//! empty, a get is 403) — and their names never leave the warehouse.

use serde_json::{json, Value};

use crate::server::*;

fn view(db: &str, name: &str) -> Value {
    json!({
        "identifier": {"database": db, "object": name},
        "schema": {"fields": [{"id": 0, "name": "k", "type": "INT"}], "query": "SELECT 1 AS k",
                   "dialects": {}, "options": {}}
    })
}

fn function(name: &str) -> Value {
    json!({"name": name, "inputParams": null, "returnParams": null, "deterministic": true,
           "definitions": {"trino": {"type": "sql", "definition": "1"}}, "comment": null,
           "options": {}})
}

fn rename(from: (&str, &str), to: (&str, &str)) -> Value {
    json!({"source": {"database": from.0, "object": from.1},
           "destination": {"database": to.0, "object": to.1}})
}

#[tokio::test]
async fn views_and_functions_follow_database_grants() {
    let s = TestServer::start().await;
    for db in ["db1", "db2"] {
        let r = s
            .post(&format!("/databases/{db}/views"), ADMIN, view(db, "v"))
            .await;
        assert_eq!(r.status, 200, "{r:?}");
        let r = s
            .post(&format!("/databases/{db}/functions"), ADMIN, function("f"))
            .await;
        assert_eq!(r.status, 200, "{r:?}");
    }

    // read everything: reads, changes nothing
    assert_eq!(
        s.call("GET", "/databases/db1/views/v", READER).await.status,
        200
    );
    assert_eq!(
        s.call("GET", "/databases/db1/functions/f", READER)
            .await
            .status,
        200
    );
    assert_eq!(
        names(&s.call("GET", "/views", READER).await, "views"),
        ["db1.v", "db2.v"]
    );
    let before = tree(&s.warehouse());
    let refused = [
        s.post("/databases/db1/views", READER, view("db1", "v9"))
            .await,
        s.post("/databases/db1/views/v", READER, json!({"changes": []}))
            .await,
        s.call("DELETE", "/databases/db1/views/v", READER).await,
        s.post("/views/rename", READER, rename(("db1", "v"), ("db1", "v8")))
            .await,
        s.post("/databases/db1/functions", READER, function("f9"))
            .await,
        s.post("/databases/db1/functions/f", READER, json!({"changes": []}))
            .await,
        s.call("DELETE", "/databases/db1/functions/f", READER).await,
    ];
    for r in &refused {
        assert_eq!(r.status, 403, "{r:?}");
    }
    assert_eq!(
        tree(&s.warehouse()),
        before,
        "a refused call changed the warehouse"
    );

    // write on db1: changes db1's, sees nothing of db2's
    let r = s
        .post("/databases/db1/views", DB1_WRITER, view("db1", "w"))
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    let r = s
        .post(
            "/views/rename",
            DB1_WRITER,
            rename(("db1", "w"), ("db1", "w2")),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    let r = s
        .post(
            "/databases/db1/functions/f",
            DB1_WRITER,
            json!({"changes": [{"action": "setOption", "key": "a", "value": "b"}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(
        names(&s.call("GET", "/views", DB1_WRITER).await, "views"),
        ["db1.v", "db1.w2"]
    );
    assert_eq!(
        names(&s.call("GET", "/functions", DB1_WRITER).await, "functions"),
        ["db1.f"]
    );
    for (method, path) in [
        ("GET", "/databases/db2/views"),
        ("GET", "/databases/db2/view-details"),
        ("GET", "/databases/db2/views/v"),
        ("DELETE", "/databases/db2/views/v"),
        ("GET", "/databases/db2/functions"),
        ("GET", "/databases/db2/functions/f"),
        ("DELETE", "/databases/db2/functions/f"),
    ] {
        let r = s.call(method, path, DB1_WRITER).await;
        assert_eq!(r.status, 404, "{method} {path}: {r:?}");
    }
    let r = s
        .post("/databases/db2/views", DB1_WRITER, view("db2", "x"))
        .await;
    assert_eq!(r.status, 403, "{r:?}");
    let r = s
        .post(
            "/views/rename",
            DB1_WRITER,
            rename(("db1", "v"), ("db2", "x")),
        )
        .await;
    assert_eq!(r.status, 403, "{r:?}");
    let r = s
        .post(
            "/views/rename",
            DB1_WRITER,
            rename(("db2", "v"), ("db1", "x")),
        )
        .await;
    assert_eq!(r.status, 404, "{r:?}");
    assert!(!s.warehouse().join("db2.db/.views/x.json").exists());
    assert!(s.warehouse().join("db2.db/.views/v.json").exists());

    // a table grant: the database is visible, its views and functions are not
    let r = s.call("GET", "/databases/db2/views", T1_READER).await;
    assert_eq!(
        (r.status, r.json()["views"].clone()),
        (200, json!([])),
        "{r:?}"
    );
    let r = s.call("GET", "/databases/db2/functions", T1_READER).await;
    assert_eq!(
        (r.status, r.json()["functions"].clone()),
        (200, json!([])),
        "{r:?}"
    );
    assert_eq!(
        names(&s.call("GET", "/views", T1_READER).await, "views"),
        Vec::<String>::new()
    );
    assert_eq!(
        s.call("GET", "/databases/db2/views/v", T1_READER)
            .await
            .status,
        403
    );
    assert_eq!(
        s.call("GET", "/databases/db2/functions/f", T1_READER)
            .await
            .status,
        403
    );
    s.stop().await;
}

#[tokio::test]
async fn view_and_function_names_never_leave_the_warehouse() {
    let s = TestServer::start().await;
    let before = tree(&s.warehouse());
    let p = s.prefix.clone();
    for path in [
        format!("/v1/{p}/databases/db1/views/.."),
        format!("/v1/{p}/databases/db1/views/%2e%2e%2f..%2fx"),
        format!("/v1/{p}/databases/db1/views/.hidden"),
        format!("/v1/{p}/databases/db1/functions/..%2f..%2fetc"),
        format!("/v1/{p}/databases/db1/functions/a%00b"),
    ] {
        for method in ["GET", "DELETE"] {
            let r = s.send(method, &path, Some(ADMIN), b"").await;
            assert!(r.status == 400 || r.status == 404, "{method} {path}: {r:?}");
        }
    }
    for (path, body) in [
        ("/databases/db1/views", view("db1", "../x")),
        ("/databases/db1/views", view("db1", "..")),
        ("/databases/db1/views", view("../db2", "x")),
        ("/databases/db1/functions", function("../x")),
        ("/databases/db1/functions", function("x/y")),
        ("/views/rename", rename(("db1", "v"), ("db1", "../../x"))),
    ] {
        let r = s.post(path, ADMIN, body).await;
        assert_eq!(r.status, 400, "{path}: {r:?}");
    }
    assert_eq!(tree(&s.warehouse()), before, "nothing written");
    s.stop().await;
}
