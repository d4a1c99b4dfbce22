//! Config, databases and tables over raw HTTP, paging, malformed and badly named requests,
//! table ids across a restart.

use serde_json::{json, Value};

use crate::support::{assert_error, call, create_table, delete, get, post, Running};

/// Databases and tables, one endpoint at a time, with their error answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn databases_and_tables() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start(dir.path()).await;
    let d = &s.dir;

    // config: only for our warehouse name
    let c = get(&format!("{}/v1/config?warehouse={}", s.url, s.name)).await;
    assert_eq!(c.status, 200);
    assert_eq!(c.body["defaults"]["prefix"], s.name.as_str());
    assert_error(
        &get(&format!("{}/v1/config?warehouse=other", s.url)).await,
        404,
        d,
    );
    assert_error(&get(&format!("{}/v1/config", s.url)).await, 404, d);
    assert_error(
        &get(&format!("{}/v1/otherprefix/databases", s.url)).await,
        404,
        d,
    );

    // databases
    let dbs = s.api("/databases");
    assert_eq!(
        post(&dbs, r#"{"name":"db1","options":{}}"#).await.status,
        200
    );
    assert!(d.join("db1.db").is_dir());
    let dup = post(&dbs, r#"{"name":"db1"}"#).await;
    assert_error(&dup, 409, d);
    assert_eq!(dup.body["resourceType"], "DATABASE");
    assert_error(
        &post(&dbs, r#"{"name":"db2","options":{"a":"b"}}"#).await,
        501,
        d,
    );
    let g = get(&s.api("/databases/db1")).await;
    assert_eq!((g.status, g.body["name"].clone()), (200, json!("db1")));
    assert_error(&get(&s.api("/databases/nope")).await, 404, d);
    assert_error(
        &post(&s.api("/databases/db1"), r#"{"updates":{"a":"b"}}"#).await,
        501,
        d,
    );

    // tables
    assert_eq!(create_table(&s, "db1", "t1").await.status, 200);
    assert_error(&create_table(&s, "db1", "t1").await, 409, d);
    assert_error(&create_table(&s, "nope", "t1").await, 404, d);
    assert!(!d.join("nope.db").exists());
    assert_eq!(create_table(&s, "db1", "t2").await.status, 200);
    let t = get(&s.api("/databases/db1/tables/t1")).await;
    assert_eq!(t.status, 200, "{}", t.text);
    assert_eq!(t.body["name"], "t1");
    assert_eq!(t.body["schemaId"], 0);
    assert_eq!(t.body["schema"]["partitionKeys"], json!(["dt"]));
    assert_eq!(t.body["path"], d.join("db1.db/t1").to_str().unwrap());
    let id = t.body["id"].as_str().unwrap().to_string();
    let by_id = get(&s.api(&format!("/tables/id/{id}"))).await;
    assert_eq!(by_id.body["name"], "t1");
    assert_error(
        &get(&s.api("/tables/id/00000000-0000-0000-0000-000000000000")).await,
        404,
        d,
    );
    assert_error(&get(&s.api("/databases/db1/tables/nope")).await, 404, d);
    let l = get(&s.api("/databases/db1/tables")).await;
    assert_eq!(l.body["tables"], json!(["t1", "t2"]));
    let l = get(&s.api("/databases/db1/tables?tableNamePattern=t2%25")).await;
    assert_eq!(l.body["tables"], json!(["t2"]));
    assert_error(
        &get(&s.api("/databases/db1/tables?tableNamePattern=%25x")).await,
        400,
        d,
    );
    let details = get(&s.api("/databases/db1/table-details")).await;
    assert_eq!(details.body["tableDetails"][1]["name"], "t2");
    let global = get(&s.api("/tables")).await;
    assert_eq!(
        global.body["tables"],
        json!([{"database":"db1","object":"t1"},{"database":"db1","object":"t2"}])
    );

    // alter: a new schema; a bad change is a 400
    let alter = post(
        &s.api("/databases/db1/tables/t1"),
        r#"{"changes":[{"action":"setOption","key":"snapshot.num-retained.max","value":"70"}]}"#,
    )
    .await;
    assert_eq!(alter.status, 200, "{}", alter.text);
    assert_eq!(
        get(&s.api("/databases/db1/tables/t1")).await.body["schemaId"],
        1
    );
    let bad = post(
        &s.api("/databases/db1/tables/t1"),
        r#"{"changes":[{"action":"dropColumn","fieldNames":["nope"]}]}"#,
    )
    .await;
    assert!(bad.status == 400 || bad.status == 404, "{}", bad.text);
    assert_error(&bad, bad.status, d);

    // rename (local warehouse): the directory moves, the id changes
    let r = post(
        &s.api("/tables/rename"),
        r#"{"source":{"database":"db1","object":"t2"},"destination":{"database":"db1","object":"t3"}}"#,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(d.join("db1.db/t3").is_dir() && !d.join("db1.db/t2").exists());
    assert_error(
        &post(
            &s.api("/tables/rename"),
            r#"{"source":{"database":"db1","object":"t1"},"destination":{"database":"db1","object":"t3"}}"#,
        )
        .await,
        409,
        d,
    );

    // token (local warehouse: no credentials needed), auth (no filters)
    let tok = get(&s.api("/databases/db1/tables/t1/token")).await;
    assert_eq!((tok.status, tok.body["token"].clone()), (200, json!({})));
    assert!(tok.body["expiresAtMillis"].as_i64().unwrap() > 0);
    let auth = post(
        &s.api("/databases/db1/tables/t1/auth"),
        r#"{"select":["id"]}"#,
    )
    .await;
    assert_eq!((auth.status, auth.body["filter"].clone()), (200, json!([])));

    // refused by name
    for (m, p) in [
        ("POST", "/databases/db1/register"),
        ("POST", "/databases/db1/tables/t1/partitions/drop"),
    ] {
        let a = call(m, &s.api(p), Some("{}")).await;
        assert_error(&a, 501, d);
    }
    assert_error(&call("PUT", &s.api("/databases"), Some("{}")).await, 405, d);
    assert_error(&get(&s.api("/no/such/endpoint")).await, 404, d);

    // drop table, drop database (with its tables)
    assert_eq!(delete(&s.api("/databases/db1/tables/t3")).await.status, 200);
    assert!(!d.join("db1.db/t3").exists());
    assert_error(&delete(&s.api("/databases/db1/tables/t3")).await, 404, d);
    assert_eq!(delete(&s.api("/databases/db1")).await.status, 200);
    assert!(!d.join("db1.db").exists());
    assert_error(&delete(&s.api("/databases/db1")).await, 404, d);
    s.stop().await;
}

/// List calls page with `maxResults` and `pageToken` (Java's `RESTApi.listDataFromPageApi`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paging_one_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start(dir.path()).await;
    for db in ["d3", "d1", "d5", "d2", "d4"] {
        let a = post(&s.api("/databases"), &format!(r#"{{"name":"{db}"}}"#)).await;
        assert_eq!(a.status, 200);
    }
    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    for _ in 0..10 {
        let url = match &token {
            Some(t) => s.api(&format!("/databases?maxResults=1&pageToken={t}")),
            None => s.api("/databases?maxResults=1"),
        };
        let a = get(&url).await;
        assert_eq!(a.status, 200);
        let page = a.body["databases"].as_array().unwrap().clone();
        assert!(page.len() <= 1);
        seen.extend(page.into_iter().map(|v| v.as_str().unwrap().to_string()));
        token = a.body["nextPageToken"].as_str().map(str::to_string);
        if token.is_none() {
            break;
        }
    }
    assert_eq!(seen, vec!["d1", "d2", "d3", "d4", "d5"]);
    // A non-positive maxResults is the default page; a non-number is a 400.
    let all = get(&s.api("/databases?maxResults=0")).await;
    assert_eq!(all.body["databases"].as_array().unwrap().len(), 5);
    // The last page says so with an explicit null (pypaimon requires the member).
    assert_eq!(all.body.get("nextPageToken"), Some(&Value::Null));
    assert_error(&get(&s.api("/databases?maxResults=abc")).await, 400, &s.dir);

    // strata's client follows the pages itself.
    let catalog = strata::catalog::open(&s.client_options()).await.unwrap();
    assert_eq!(catalog.list_databases().await.unwrap().len(), 5);
    s.stop().await;
}

/// Malformed, wrong-typed, oversized and badly named requests: 400 / 413 `ErrorResponse`s,
/// nothing on disk, no path in any answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_client_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start_with(dir.path(), |c| c.body_limit = 4096).await;
    let d = &s.dir;
    let dbs = s.api("/databases");
    for body in [
        "{",
        "not json",
        "[]",
        r#"{"name":5}"#,
        r#"{"options":{}}"#,
        "",
    ] {
        assert_error(&post(&dbs, body).await, 400, d);
    }
    for name in ["..", ".hidden", "a/b", "a\\\\b", "a\\u0000b", "a\\nb"] {
        assert_error(
            &post(&dbs, &format!(r#"{{"name":"{name}"}}"#)).await,
            400,
            d,
        );
    }
    assert_error(
        &post(&dbs, &format!(r#"{{"name":"{}"}}"#, "x".repeat(256))).await,
        400,
        d,
    );
    // (`..` in a URL is normalised away by the client library: raw requests are in security.rs)
    assert_error(&get(&s.api("/databases/.x/tables")).await, 400, d);
    let big = format!(r#"{{"name":"{}"}}"#, "x".repeat(10_000));
    assert_error(&post(&dbs, &big).await, 413, d);
    assert_eq!(std::fs::read_dir(d).unwrap().count(), 0, "nothing created");

    assert_eq!(post(&dbs, r#"{"name":"db"}"#).await.status, 200);
    let t = s.api("/databases/db/tables");
    assert_error(
        &post(&t, r#"{"identifier":{"database":"db","object":"t"}}"#).await,
        400,
        d,
    );
    assert_error(
        &post(&t, r#"{"identifier":{"database":"db","object":"t"},"schema":{"fields":[{"id":0,"name":"a","type":"NOSUCHTYPE"}]}}"#).await,
        400,
        d,
    );
    assert_error(&create_table(&s, "db", "../t").await, 400, d);
    assert_error(&create_table(&s, "db", "t$branch_b").await, 400, d);
    // A name with a space arrives as `+` from Java's URLEncoder.
    assert_eq!(create_table(&s, "db", "a b").await.status, 200);
    assert_eq!(get(&s.api("/databases/db/tables/a+b")).await.status, 200);
    assert_eq!(std::fs::read_dir(d.join("db.db")).unwrap().count(), 1);
    s.stop().await;
}

/// Table ids are stable across restarts and change when a table is re-created.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_ids_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start(dir.path()).await;
    assert_eq!(
        post(&s.api("/databases"), r#"{"name":"db"}"#).await.status,
        200
    );
    assert_eq!(create_table(&s, "db", "t").await.status, 200);
    let id1 = get(&s.api("/databases/db/tables/t")).await.body["id"].clone();
    assert!(id1.is_string());
    s.stop().await;

    let s = Running::start(dir.path()).await;
    let again = get(&s.api("/databases/db/tables/t")).await.body["id"].clone();
    assert_eq!(id1, again);
    assert_eq!(delete(&s.api("/databases/db/tables/t")).await.status, 200);
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    assert_eq!(create_table(&s, "db", "t").await.status, 200);
    let id2 = get(&s.api("/databases/db/tables/t")).await.body["id"].clone();
    assert_ne!(id1, id2);
    s.stop().await;
}
