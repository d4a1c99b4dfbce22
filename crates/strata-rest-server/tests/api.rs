//! Every operation of the REST catalog API against an in-process `strata serve` over a temporary
//! warehouse: strata's own REST client (`strata::catalog::open` with `metastore=rest`) writing,
//! committing and reading rows through it, and raw HTTP for each endpoint, paging, the commit
//! decision (stale base, wrong table id, a snapshot with unknown members kept as sent), error
//! answers (`ErrorResponse`, never a path) and table ids that survive a restart.

mod support;

use std::sync::Arc;

use arrow::array::{Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use serde_json::{json, Value};
use strata::catalog::Identifier;
use support::{assert_error, call, create_table, delete, get, post, Running};

fn batch(ids: &[i64], dt: &str) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("dt", DataType::Utf8, true),
        Field::new("v", DataType::Utf8, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(vec![dt; ids.len()])),
            Arc::new(StringArray::from(
                ids.iter().map(|i| format!("v{i}")).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap()
}

async fn read_ids(table: &strata::table::Table) -> Vec<i64> {
    let plan = table.new_scan().plan().await.unwrap();
    let batches = table.new_read().to_batches(plan.splits).await.unwrap();
    let mut ids: Vec<i64> = batches
        .iter()
        .flat_map(|b| {
            b.column_by_name("id")
                .unwrap()
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap()
                .values()
                .to_vec()
        })
        .collect();
    ids.sort();
    ids
}

/// strata's REST client writes, commits (through the server's decision) and reads back rows;
/// the server wrote normal `snapshot-N` files into its warehouse.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strata_client_writes_commits_and_reads_through_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start(dir.path()).await;
    let catalog = strata::catalog::open(&s.client_options()).await.unwrap();
    catalog.create_database("db", false).await.unwrap();
    let id: Identifier = "db.t".parse().unwrap();
    let schema = strata_spec::schema::Schema::from_json(support::SCHEMA).unwrap();
    assert!(catalog.create_table(&id, &schema, false).await.unwrap());
    assert_eq!(catalog.list_databases().await.unwrap(), vec!["db"]);
    assert_eq!(catalog.list_tables("db").await.unwrap(), vec!["t"]);

    let table = catalog.get_table(&id).await.unwrap();
    table
        .write_batches([batch(&[1, 2], "a")], None)
        .await
        .unwrap();
    table.write_batches([batch(&[3], "b")], None).await.unwrap();
    let table = catalog.get_table(&id).await.unwrap();
    assert_eq!(read_ids(&table).await, vec![1, 2, 3]);
    let snap_dir = s.dir.join("db.db/t/snapshot");
    assert!(snap_dir.join("snapshot-1").exists() && snap_dir.join("snapshot-2").exists());

    // The server's view: latest snapshot with totals, partitions with statistics.
    let latest = get(&s.api("/databases/db/tables/t/snapshot")).await;
    assert_eq!(latest.status, 200, "{}", latest.text);
    assert_eq!(latest.body["snapshot"]["snapshot"]["id"], 2);
    assert_eq!(latest.body["snapshot"]["recordCount"], 3);
    assert_eq!(latest.body["snapshot"]["fileCount"], 2);
    let parts = get(&s.api("/databases/db/tables/t/partitions")).await;
    assert_eq!(parts.status, 200, "{}", parts.text);
    let specs: Vec<(String, i64)> = parts.body["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["spec"]["dt"].as_str().unwrap().to_string(),
                p["recordCount"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(specs, vec![("a".to_string(), 2), ("b".to_string(), 1)]);

    // Alter through the client; the schema on disk moved on.
    catalog
        .alter_table(
            &id,
            vec![strata_spec::schema::SchemaChange::SetOption {
                key: "snapshot.num-retained.max".into(),
                value: "50".into(),
            }],
            false,
        )
        .await
        .unwrap();
    assert!(s.dir.join("db.db/t/schema/schema-1").exists());
    catalog.drop_table(&id, false).await.unwrap();
    assert!(!s.dir.join("db.db/t").exists());
    s.stop().await;
}

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
        ("POST", "/databases/db1/tables/t1/rollback-schema"),
        ("GET", "/databases/db1/views"),
        ("GET", "/views"),
        ("GET", "/databases/db1/functions/f"),
        ("GET", "/databases/db1/tables/t1/consumers"),
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

/// The snapshot written by a normal commit, as JSON.
async fn first_commit(s: &Running) -> (String, Value) {
    assert_eq!(
        post(&s.api("/databases"), r#"{"name":"db"}"#).await.status,
        200
    );
    assert_eq!(create_table(s, "db", "t").await.status, 200);
    let catalog = strata::catalog::open(&s.client_options()).await.unwrap();
    let table = catalog.get_table(&"db.t".parse().unwrap()).await.unwrap();
    table.write_batches([batch(&[1], "a")], None).await.unwrap();
    let t = get(&s.api("/databases/db/tables/t")).await;
    let snap = get(&s.api("/databases/db/tables/t/snapshots/1")).await;
    assert_eq!(snap.status, 200, "{}", snap.text);
    (
        t.body["id"].as_str().unwrap().to_string(),
        snap.body["snapshot"].clone(),
    )
}

/// The commit decision: `tableId` must be the table's, `baseSnapshotUuid` the latest's
/// (`{"success":false}` otherwise), the id the next one; members strata does not know are
/// kept in `snapshot-N` as the client sent them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commit_decision() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start(dir.path()).await;
    let (table_id, s1) = first_commit(&s).await;
    let base = s1["uuid"].as_str().unwrap().to_string();
    let commit = s.api("/databases/db/tables/t/commit");
    let mut s2 = s1.clone();
    s2["id"] = json!(2);
    s2["uuid"] = json!("5d9f3f6e-0c1a-4a55-9c43-2b1f3c1a0002");
    s2["commitKind"] = json!("ANALYZE");
    s2["someFutureMember"] = json!({"x": 1});
    let body = |tid: &str, base: Option<&str>, snap: &Value| {
        json!({"tableId": tid, "baseSnapshotUuid": base, "snapshot": snap, "statistics": []})
            .to_string()
    };

    // wrong table id: 404
    let a = post(
        &commit,
        &body("00000000-0000-0000-0000-000000000000", Some(&base), &s2),
    )
    .await;
    assert_error(&a, 404, &s.dir);
    // stale / missing base: success false, nothing written
    let a = post(&commit, &body(&table_id, Some("not-the-latest"), &s2)).await;
    assert_eq!((a.status, a.body.clone()), (200, json!({"success": false})));
    let a = post(&commit, &body(&table_id, None, &s2)).await;
    assert_eq!(a.body, json!({"success": false}));
    let snap2 = s.dir.join("db.db/t/snapshot/snapshot-2");
    assert!(!snap2.exists());
    // an id gap: 400
    let mut gap = s2.clone();
    gap["id"] = json!(5);
    assert_error(
        &post(&commit, &body(&table_id, Some(&base), &gap)).await,
        400,
        &s.dir,
    );
    // malformed: 400
    assert_error(&post(&commit, r#"{"tableId":1}"#).await, 400, &s.dir);
    assert_error(
        &post(&commit, r#"{"tableId":"x","snapshot":{"id":"two"}}"#).await,
        400,
        &s.dir,
    );

    // the right base: published, the unknown member kept
    let a = post(&commit, &body(&table_id, Some(&base), &s2)).await;
    assert_eq!(
        (a.status, a.body.clone()),
        (200, json!({"success": true})),
        "{}",
        a.text
    );
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&snap2).unwrap()).unwrap();
    assert_eq!(written["someFutureMember"], json!({"x": 1}));
    assert_eq!(written["uuid"], s2["uuid"]);
    // the same request again: its base is stale now
    let a = post(&commit, &body(&table_id, Some(&base), &s2)).await;
    assert_eq!(a.body, json!({"success": false}));
    let latest = get(&s.api("/databases/db/tables/t/snapshots/LATEST")).await;
    assert_eq!(latest.body["snapshot"]["id"], 2);
    let list = get(&s.api("/databases/db/tables/t/snapshots?maxResults=1")).await;
    assert_eq!(list.body["snapshots"][0]["id"], 1);
    let next = list.body["nextPageToken"].as_str().unwrap().to_string();
    let list = get(&s.api(&format!(
        "/databases/db/tables/t/snapshots?maxResults=1&pageToken={next}"
    )))
    .await;
    assert_eq!(list.body["snapshots"][0]["id"], 2);
    assert_error(
        &get(&s.api("/databases/db/tables/t/snapshots/9")).await,
        404,
        &s.dir,
    );
    s.stop().await;
}

/// Two strata writers racing through the server: both commits land (the loser re-plans on
/// `{"success":false}`), no rows lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writers_both_land() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start(dir.path()).await;
    assert_eq!(
        post(&s.api("/databases"), r#"{"name":"db"}"#).await.status,
        200
    );
    assert_eq!(create_table(&s, "db", "t").await.status, 200);
    let mut tasks = Vec::new();
    for w in 0..4i64 {
        let opts = s.client_options();
        tasks.push(tokio::spawn(async move {
            let catalog = strata::catalog::open(&opts).await.unwrap();
            let table = catalog.get_table(&"db.t".parse().unwrap()).await.unwrap();
            for i in 0..3 {
                table
                    .write_batches([batch(&[w * 10 + i], "a")], None)
                    .await
                    .unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let catalog = strata::catalog::open(&s.client_options()).await.unwrap();
    let table = catalog.get_table(&"db.t".parse().unwrap()).await.unwrap();
    let mut want: Vec<i64> = (0..4)
        .flat_map(|w| (0..3).map(move |i| w * 10 + i))
        .collect();
    want.sort();
    assert_eq!(read_ids(&table).await, want);
    assert_eq!(
        get(&s.api("/databases/db/tables/t/snapshots/LATEST"))
            .await
            .body["snapshot"]["id"],
        12
    );
    s.stop().await;
}

/// Tags, branches (the `t$branch_b` object) and rollback.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tags_branches_rollback() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start(dir.path()).await;
    let d = s.dir.clone();
    let (_, _) = first_commit(&s).await;
    let catalog = strata::catalog::open(&s.client_options()).await.unwrap();
    let table = catalog.get_table(&"db.t".parse().unwrap()).await.unwrap();
    table.write_batches([batch(&[2], "a")], None).await.unwrap();
    let t = |p: &str| s.api(&format!("/databases/db/tables/t{p}"));

    // tags
    let a = post(
        &t("/tags"),
        r#"{"tagName":"v1","snapshotId":1,"timeRetained":"1 d"}"#,
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert!(d.join("db.db/t/tag/tag-v1").exists());
    assert_error(
        &post(&t("/tags"), r#"{"tagName":"v1","snapshotId":1}"#).await,
        409,
        &d,
    );
    assert_error(
        &post(&t("/tags"), r#"{"tagName":"v9","snapshotId":99}"#).await,
        404,
        &d,
    );
    let again = post(
        &t("/tags"),
        r#"{"tagName":"v1","snapshotId":2,"ignoreIfExists":true}"#,
    )
    .await;
    assert_eq!(again.status, 200);
    assert_eq!(
        get(&t("/tags/v1")).await.body["snapshot"]["id"],
        1,
        "kept as it was"
    );
    assert_eq!(post(&t("/tags"), r#"{"tagName":"w2"}"#).await.status, 200);
    let g = get(&t("/tags/v1")).await;
    assert_eq!(
        (g.body["tagName"].clone(), g.body["snapshot"]["id"].clone()),
        (json!("v1"), json!(1))
    );
    assert_eq!(get(&t("/tags")).await.body["tags"], json!(["v1", "w2"]));
    assert_eq!(
        get(&t("/tags?tagNamePrefix=w")).await.body["tags"],
        json!(["w2"])
    );
    assert_eq!(
        get(&t("/tags?maxResults=1")).await.body["nextPageToken"],
        "v1"
    );
    assert_eq!(delete(&t("/tags/w2")).await.status, 200);
    assert_error(&delete(&t("/tags/w2")).await, 404, &d);
    assert_error(&get(&t("/tags/w2")).await, 404, &d);

    // branches: from a tag, read as object t$branch_b1 (encoded as Java does: `$` → %24)
    let a = post(&t("/branches"), r#"{"branch":"b1","fromTag":"v1"}"#).await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert_error(&post(&t("/branches"), r#"{"branch":"b1"}"#).await, 409, &d);
    assert_error(
        &post(&t("/branches"), r#"{"branch":"b2","fromTag":"nope"}"#).await,
        404,
        &d,
    );
    assert_eq!(get(&t("/branches")).await.body["branches"], json!(["b1"]));
    let bt = get(&s.api("/databases/db/tables/t%24branch_b1")).await;
    assert_eq!(bt.status, 200, "{}", bt.text);
    let b_latest = get(&s.api("/databases/db/tables/t%24branch_b1/snapshots/LATEST")).await;
    assert_eq!(b_latest.body["snapshot"]["id"], 1);
    let branch = catalog
        .get_table(&"db.t$branch_b1".parse().unwrap())
        .await
        .unwrap();
    assert_eq!(read_ids(&branch).await, vec![1]);
    assert_error(
        &get(&s.api("/databases/db/tables/t%24branch_nope")).await,
        404,
        &d,
    );
    assert_error(
        &get(&s.api("/databases/db/tables/t%24snapshots")).await,
        404,
        &d,
    );
    assert_error(
        &post(&t("/branches/b1/rename"), r#"{"toBranch":"b3"}"#).await,
        501,
        &d,
    );
    assert_eq!(delete(&t("/branches/b1")).await.status, 200);
    assert_error(&delete(&t("/branches/b1")).await, 404, &d);

    // rollback: fromSnapshot must be the latest; a missing snapshot is 404
    let stale = post(
        &t("/rollback"),
        r#"{"instant":{"type":"snapshot","snapshotId":1},"fromSnapshot":1}"#,
    )
    .await;
    assert_error(&stale, 409, &d);
    assert_error(
        &post(
            &t("/rollback"),
            r#"{"instant":{"type":"snapshot","snapshotId":9}}"#,
        )
        .await,
        404,
        &d,
    );
    assert_error(
        &post(
            &t("/rollback"),
            r#"{"instant":{"type":"tag","tagName":"nope"}}"#,
        )
        .await,
        404,
        &d,
    );
    let a = post(
        &t("/rollback"),
        r#"{"instant":{"action":"snapshot","snapshotId":1},"fromSnapshot":2}"#,
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.text);
    let table = catalog.get_table(&"db.t".parse().unwrap()).await.unwrap();
    assert_eq!(read_ids(&table).await, vec![1]);
    assert!(!d.join("db.db/t/snapshot/snapshot-2").exists());
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
