//! strata's REST client writing, committing and reading through the server; the commit
//! decision; concurrent writers.

use serde_json::{json, Value};
use strata::catalog::Identifier;

use crate::support::{assert_error, create_table, get, post, Running};
use crate::{batch, first_commit, read_ids};

/// strata's REST client writes, commits (through the server's decision) and reads back rows;
/// the server wrote normal `snapshot-N` files into its warehouse.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strata_client_writes_commits_and_reads_through_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start(dir.path()).await;
    let catalog = strata::catalog::open(&s.client_options()).await.unwrap();
    catalog.create_database("db", false).await.unwrap();
    let id: Identifier = "db.t".parse().unwrap();
    let schema = strata_spec::schema::Schema::from_json(crate::support::SCHEMA).unwrap();
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
