//! Names that would leave the warehouse (400, nothing created), oversized and malformed
//! bodies.

use serde_json::json;

use crate::server::*;

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
