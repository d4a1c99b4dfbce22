//! Branches through the catalog, consumers and schema rollback against an in-process
//! `strata serve`:
//!
//! * strata's REST client (`strata::catalog::open` with `metastore=rest`) creating, listing,
//!   fast-forwarding, renaming and dropping branches with `Table`'s own methods — which go to
//!   the server (`POST …/branches`, …, counted in `/metrics`) as Java's `CatalogBranchManager`
//!   does, never to the files behind its back — and committing rows to a branch through it;
//! * `listConsumers` / `resetConsumer` over the table's `consumer/consumer-<id>` files;
//! * `rollbackSchema` deleting newer schema files, refused while a snapshot needs them;
//! * the grants each needs (read lists consumers; write resets them, rolls back, renames).

#[path = "support/mod.rs"]
mod support;

use std::sync::Arc;

use arrow::array::{Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use serde_json::json;
use strata::table::branches::BranchStart;
use strata::table::Table;
use strata::ErrorKind;

use support::{assert_error, create_table, get, post, Running};

fn batch(ids: &[i64]) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("dt", DataType::Utf8, true),
        Field::new("v", DataType::Utf8, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(vec!["a"; ids.len()])),
            Arc::new(StringArray::from(
                ids.iter().map(|i| format!("v{i}")).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap()
}

async fn read_ids(table: &Table) -> Vec<i64> {
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

/// Database `db`, table `db.t`, and strata's REST client on it.
async fn setup(s: &Running) -> (Arc<dyn strata::catalog::Catalog>, Table) {
    assert_eq!(
        post(&s.api("/databases"), r#"{"name":"db"}"#).await.status,
        200
    );
    assert_eq!(create_table(s, "db", "t").await.status, 200);
    let catalog = strata::catalog::open(&s.client_options()).await.unwrap();
    let table = catalog.get_table(&"db.t".parse().unwrap()).await.unwrap();
    (catalog, table)
}

/// How many `op` calls the server answered with `code` (its `/metrics`).
async fn calls(s: &Running, op: &str, code: u16) -> u64 {
    let text = reqwest::get(format!("{}/metrics", s.url))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let prefix = format!("requests_total{{op=\"{op}\",code=\"{code}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .map_or(0, |n| n.parse().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn branches_of_a_rest_table_go_through_the_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start(dir.path()).await;
    let (catalog, table) = setup(&s).await;
    let d = s.dir.join("db.db/t");
    table.write_batches([batch(&[1])], None).await.unwrap();
    let t = |p: &str| s.api(&format!("/databases/db/tables/t{p}"));
    assert_eq!(
        post(&t("/tags"), r#"{"tagName":"v1","snapshotId":1}"#)
            .await
            .status,
        200
    );

    // create: empty and from a tag, through POST …/branches
    table.create_branch("b1", BranchStart::Empty).await.unwrap();
    table
        .create_branch("b2", BranchStart::Tag("v1".into()))
        .await
        .unwrap();
    assert_eq!(calls(&s, "createBranch", 200).await, 2);
    assert!(d.join("branch/branch-b1/schema/schema-0").exists());
    assert!(d.join("branch/branch-b2/snapshot/snapshot-1").exists());
    assert_eq!(table.branches().await.unwrap(), ["b1", "b2"]);
    assert_eq!(calls(&s, "listBranches", 200).await, 1);
    assert_eq!(
        get(&t("/branches")).await.body["branches"],
        json!(["b1", "b2"])
    );
    // Java's CatalogBranchManager wording; the server said 409 / 404 TAG
    let e = table
        .create_branch("b1", BranchStart::Empty)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(
        e.to_string().contains("Branch name 'b1' already exists"),
        "{e}"
    );
    let e = table
        .create_branch("b9", BranchStart::Tag("nope".into()))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("Tag 'nope' doesn't exist"), "{e}");
    // a start the REST API cannot express is refused by name, before any call
    let before = calls(&s, "createBranch", 200).await;
    let e = table
        .create_branch("b9", BranchStart::Snapshot(1))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(e.to_string().contains("from snapshot 1"), "{e}");
    assert_eq!(calls(&s, "createBranch", 200).await, before);
    assert!(!d.join("branch/branch-b9").exists());

    // rows committed to branch b2 through the server: by name, and by switching branches
    let b2 = catalog
        .get_table(&"db.t$branch_b2".parse().unwrap())
        .await
        .unwrap();
    b2.write_batches([batch(&[2])], None).await.unwrap();
    let switched = table.switch_to_branch("b2").await.unwrap();
    let commits = calls(&s, "commitTable", 200).await;
    switched.write_batches([batch(&[3])], None).await.unwrap();
    assert_eq!(
        calls(&s, "commitTable", 200).await,
        commits + 1,
        "a switched handle commits through the catalog"
    );
    assert_eq!(read_ids(&b2).await, [1, 2, 3]);
    assert_eq!(read_ids(&table).await, [1]);

    // fast-forward main to b2
    table.fast_forward("b2").await.unwrap();
    assert_eq!(calls(&s, "forwardBranch", 200).await, 1);
    let main = catalog.get_table(&"db.t".parse().unwrap()).await.unwrap();
    assert_eq!(read_ids(&main).await, [1, 2, 3]);
    let e = table.fast_forward("nope").await.unwrap_err();
    assert!(
        e.to_string().contains("Branch name 'nope' doesn't exist"),
        "{e}"
    );

    // rename, then drop
    table.rename_branch("b1", "b3").await.unwrap();
    assert_eq!(calls(&s, "renameBranch", 200).await, 1);
    assert_eq!(table.branches().await.unwrap(), ["b2", "b3"]);
    assert!(d.join("branch/branch-b3/schema/schema-0").exists());
    assert!(!d.join("branch/branch-b1").exists());
    let e = table.rename_branch("b2", "b3").await.unwrap_err();
    assert!(
        e.to_string().contains("Branch name 'b3' already exists"),
        "{e}"
    );
    let e = table.rename_branch("b1", "b4").await.unwrap_err();
    assert!(
        e.to_string().contains("Branch name 'b1' doesn't exist"),
        "{e}"
    );
    table.delete_branch("b3").await.unwrap();
    assert_eq!(calls(&s, "dropBranch", 200).await, 1);
    assert!(!d.join("branch/branch-b3").exists());
    let e = table.delete_branch("b3").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(
        e.to_string().contains("Branch name 'b3' doesn't exist"),
        "{e}"
    );
    assert_eq!(table.branches().await.unwrap(), ["b2"]);

    // the server side: rename answers 404 / 409 BRANCH, a bad new name 400
    assert_error(
        &post(&t("/branches/nope/rename"), r#"{"toBranch":"x"}"#).await,
        404,
        &s.dir,
    );
    assert_error(
        &post(&t("/branches/b2/rename"), r#"{"toBranch":"b2"}"#).await,
        409,
        &s.dir,
    );
    assert_error(
        &post(&t("/branches/b2/rename"), r#"{"toBranch":"123"}"#).await,
        400,
        &s.dir,
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consumers_are_the_tables_consumer_files() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start(dir.path()).await;
    let (_, table) = setup(&s).await;
    table.write_batches([batch(&[1])], None).await.unwrap();
    table.write_batches([batch(&[2])], None).await.unwrap();
    let d = s.dir.join("db.db/t");
    let t = |p: &str| s.api(&format!("/databases/db/tables/t{p}"));
    let empty = get(&t("/consumers")).await;
    assert_eq!(empty.status, 200, "{}", empty.text);
    assert_eq!(empty.body["consumers"], json!([]));

    for (id, next) in [("flink", 2), ("spark", 1)] {
        let body = format!(r#"{{"consumerId":"{id}","nextSnapshotId":{next}}}"#);
        let a = post(&t("/consumers/reset"), &body).await;
        assert_eq!(a.status, 200, "{}", a.text);
    }
    let file = std::fs::read_to_string(d.join("consumer/consumer-flink")).unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&file).unwrap(),
        json!({"nextSnapshot": 2})
    );
    // a consumer another engine wrote is listed too
    std::fs::write(d.join("consumer/consumer-java"), r#"{"nextSnapshot":1}"#).unwrap();
    let all = get(&t("/consumers")).await;
    assert_eq!(
        all.body["consumers"],
        json!([
            {"consumerId": "flink", "nextSnapshot": 2},
            {"consumerId": "java", "nextSnapshot": 1},
            {"consumerId": "spark", "nextSnapshot": 1},
        ])
    );
    let page = get(&t("/consumers?maxResults=2")).await;
    assert_eq!(page.body["consumers"].as_array().unwrap().len(), 2);
    assert_eq!(page.body["nextPageToken"], json!("java"));
    let rest = get(&t("/consumers?maxResults=2&pageToken=java")).await;
    assert_eq!(
        rest.body["consumers"],
        json!([{"consumerId": "spark", "nextSnapshot": 1}])
    );

    // a snapshot that does not exist, a consumer id that cannot be a file: refused
    assert_error(
        &post(
            &t("/consumers/reset"),
            r#"{"consumerId":"flink","nextSnapshotId":9}"#,
        )
        .await,
        404,
        &s.dir,
    );
    assert_error(
        &post(
            &t("/consumers/reset"),
            r#"{"consumerId":"../x","nextSnapshotId":1}"#,
        )
        .await,
        400,
        &s.dir,
    );
    // without a next snapshot the consumer is deleted (twice: no error)
    for _ in 0..2 {
        let a = post(&t("/consumers/reset"), r#"{"consumerId":"flink"}"#).await;
        assert_eq!(a.status, 200, "{}", a.text);
    }
    assert!(!d.join("consumer/consumer-flink").exists());
    assert_eq!(
        get(&t("/consumers")).await.body["consumers"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_error(
        &get(&s.api("/databases/db/tables/nope/consumers")).await,
        404,
        &s.dir,
    );

    // strata's client: RestCatalog::{list_consumers, reset_consumer}
    let rest = strata::catalog::rest::RestCatalog::open(&s.client_options())
        .await
        .unwrap();
    let id = "db.t".parse().unwrap();
    rest.reset_consumer(&id, "strata", Some(2)).await.unwrap();
    assert_eq!(
        rest.list_consumers(&id).await.unwrap(),
        [
            ("java".to_string(), 1),
            ("spark".to_string(), 1),
            ("strata".to_string(), 2)
        ]
    );
    let e = rest
        .reset_consumer(&id, "strata", Some(9))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    rest.reset_consumer(&id, "strata", None).await.unwrap();
    assert!(!d.join("consumer/consumer-strata").exists());
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rollback_schema_deletes_newer_schemas_nothing_needs() {
    use strata_spec::schema::SchemaChange;
    use strata_spec::types::json::parse_type_text;
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start(dir.path()).await;
    let (catalog, table) = setup(&s).await;
    let id = "db.t".parse().unwrap();
    table.write_batches([batch(&[1])], None).await.unwrap();
    let add = |name: &str| {
        vec![SchemaChange::add_column(
            name,
            parse_type_text("INT").unwrap(),
        )]
    };
    catalog.alter_table(&id, add("c1"), false).await.unwrap();
    // a snapshot written with schema 1
    let t1 = catalog.get_table(&id).await.unwrap();
    let b = {
        let b = batch(&[2]);
        let mut fields: Vec<Field> = b.schema().fields().iter().map(|f| (**f).clone()).collect();
        fields.push(Field::new("c1", DataType::Int32, true));
        let mut cols = b.columns().to_vec();
        cols.push(Arc::new(arrow::array::Int32Array::from(vec![7])));
        RecordBatch::try_new(Arc::new(Schema::new(fields)), cols).unwrap()
    };
    t1.write_batches([b], None).await.unwrap();
    catalog.alter_table(&id, add("c2"), false).await.unwrap();
    catalog.alter_table(&id, add("c3"), false).await.unwrap();
    let schema = |n: i64| s.dir.join(format!("db.db/t/schema/schema-{n}"));
    assert!(schema(3).exists());
    let rb = |n: i64| {
        let url = s.api("/databases/db/tables/t/rollback-schema");
        async move { post(&url, &format!(r#"{{"schemaId":{n}}}"#)).await }
    };

    // schema 1 is still needed by snapshot 2: nothing deleted
    let a = rb(0).await;
    assert_error(&a, 400, &s.dir);
    assert!(
        a.text.contains("schema 1 is still referenced"),
        "{}",
        a.text
    );
    assert!(schema(3).exists());
    let a = rb(9).await;
    assert_error(&a, 400, &s.dir);
    assert!(a.text.contains("Schema 9 does not exist"), "{}", a.text);
    // back to 2 through strata's client (RestCatalog::rollback_schema), then to 1 over HTTP
    let rest = strata::catalog::rest::RestCatalog::open(&s.client_options())
        .await
        .unwrap();
    rest.rollback_schema(&id, 2).await.unwrap();
    assert!(schema(2).exists() && !schema(3).exists());
    let e = rest.rollback_schema(&id, 0).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    let a = rb(1).await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert!(schema(1).exists() && !schema(2).exists() && !schema(3).exists());
    let again = catalog.get_table(&id).await.unwrap();
    assert_eq!(again.schema().id, 1);
    assert_eq!(read_ids(&again).await, [1, 2]);
    assert_error(
        &post(&s.api("/databases/db/tables/t/rollback-schema"), "{}").await,
        400,
        &s.dir,
    );
    s.stop().await;
}

/// Grants: listing consumers needs read on the table; resetting one, rolling a schema back and
/// renaming a branch need write; a principal without a grant on the table gets 404 (its
/// existence is not revealed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consumers_schema_rollback_and_branch_rename_need_their_grants() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens");
    std::fs::write(
        &tokens,
        "admin-token admin\nreader-token reader read db.t\nwriter-token writer write db.t\n\
         other-token other read db.u\n",
    )
    .unwrap();
    let s = Running::start_with(dir.path(), |c| c.token_file = Some(tokens.clone())).await;
    let send = |token: &'static str, method: &'static str, path: &str, body: Option<&str>| {
        let url = s.api(&format!("/databases/db/tables/t{path}"));
        let body = body.map(str::to_string);
        async move {
            let mut req = reqwest::Client::new()
                .request(method.parse().unwrap(), url)
                .bearer_auth(token);
            if let Some(b) = body {
                req = req.header("Content-Type", "application/json").body(b);
            }
            req.send().await.unwrap().status().as_u16()
        }
    };
    let admin = |method: &'static str, path: &str, body: String| {
        let url = s.api(path);
        async move {
            reqwest::Client::new()
                .request(method.parse().unwrap(), url)
                .bearer_auth("admin-token")
                .header("Content-Type", "application/json")
                .body(body)
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    assert_eq!(
        admin("POST", "/databases", r#"{"name":"db"}"#.into()).await,
        200
    );
    let create = format!(
        r#"{{"identifier":{{"database":"db","object":"t"}},"schema":{}}}"#,
        support::SCHEMA
    );
    assert_eq!(admin("POST", "/databases/db/tables", create).await, 200);
    assert_eq!(
        admin(
            "POST",
            "/databases/db/tables/t/branches",
            r#"{"branch":"b1"}"#.into()
        )
        .await,
        200
    );

    let reset = Some(r#"{"consumerId":"c1"}"#);
    let rollback = Some(r#"{"schemaId":0}"#);
    let rename = Some(r#"{"toBranch":"b2"}"#);
    assert_eq!(send("reader-token", "GET", "/consumers", None).await, 200);
    assert_eq!(
        send("reader-token", "POST", "/consumers/reset", reset).await,
        403
    );
    assert_eq!(
        send("reader-token", "POST", "/rollback-schema", rollback).await,
        403
    );
    assert_eq!(
        send("reader-token", "POST", "/branches/b1/rename", rename).await,
        403
    );
    assert_eq!(send("other-token", "GET", "/consumers", None).await, 404);
    assert_eq!(
        send("other-token", "POST", "/branches/b1/rename", rename).await,
        404
    );
    assert_eq!(
        send("writer-token", "POST", "/consumers/reset", reset).await,
        200
    );
    assert_eq!(
        send("writer-token", "POST", "/rollback-schema", rollback).await,
        200
    );
    assert_eq!(
        send("writer-token", "POST", "/branches/b1/rename", rename).await,
        200
    );
    assert!(s.dir.join("db.db/t/branch/branch-b2").exists());
    s.stop().await;
}
