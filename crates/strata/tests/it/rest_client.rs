//! strata's REST catalog client (`strata::catalog::rest::RestCatalog`, opened through
//! `strata::catalog::open` with `metastore = rest`) against pypaimon's mock REST catalog server
//! (`tests/rest/pypaimon_rest_server.py`, Apache Paimon 2.0's `rest_server.py`, run by
//! `tests/rest/pypaimon_mock_main.py` with the interop venv's pypaimon). The server decides
//! commits (compare-and-set on the base snapshot uuid) and writes the snapshot files; strata
//! writes the data files at the path the server gives and reads them back.
//!
//! Needs `.interop-venv` (the interop suite creates it: `tests/interop/README.md`); without it
//! the tests say so and pass vacuously.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use crate::common::read_ids;
use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::catalog::{CommitContext, Identifier, RollbackInstant};
use strata::maintenance::TableLifecycle;
use strata::table::Table;
use strata::ErrorKind;
use strata_spec::schema::{Schema, SchemaChange};

const TOKEN: &str = "strata-test-token";

struct MockServer {
    child: Child,
    url: String,
    _dir: tempfile::TempDir,
}

impl Drop for MockServer {
    fn drop(&mut self) {
        // Closing stdin stops the server; kill in case it hangs.
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Starts the mock, or `None` (with a message) when the interop venv is missing.
fn start_mock(extra: Option<&str>) -> Option<MockServer> {
    let root = repo_root();
    let python = root.join(".interop-venv/bin/python");
    if !python.exists() {
        eprintln!(
            "SKIPPED: {} is missing (create the interop venv, tests/interop/README.md)",
            python.display()
        );
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(python);
    cmd.arg(root.join("tests/rest/pypaimon_mock_main.py"))
        .arg(dir.path())
        .arg(TOKEN)
        .arg("mock test");
    if let Some(e) = extra {
        cmd.arg(e);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().to_string();
    assert!(url.starts_with("http://"), "mock server said {line:?}");
    Some(MockServer {
        child,
        url,
        _dir: dir,
    })
}

fn options(url: &str, token: &str) -> BTreeMap<String, String> {
    [
        ("metastore", "rest"),
        ("uri", url),
        ("warehouse", "warehouse"),
        ("token.provider", "bear"),
        ("token", token),
        ("header.X-Strata-Test", "1"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

fn rows(ids: &[i64], dt: &str) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("dt", ArrowType::Utf8, false),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(vec![dt; ids.len()])),
        ],
    )
    .unwrap()
}

async fn write(t: &Table, ids: &[i64], dt: &str) -> Option<i64> {
    let mut w = t.new_write().unwrap();
    w.write(&rows(ids, dt)).await.unwrap();
    let messages = w.prepare_commit().await.unwrap();
    t.new_commit().unwrap().commit(messages).await.unwrap()
}

const SCHEMA: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
  {"name":"dt","type":"STRING NOT NULL"}],"partitionKeys":["dt"],"primaryKeys":["dt","id"],
  "options":{"bucket":"1"}}"#;

#[tokio::test]
async fn databases_tables_commits_and_rollback_through_pypaimons_mock() {
    let Some(server) = start_mock(None) else {
        return;
    };
    let catalog = strata::catalog::open(&options(&server.url, TOKEN))
        .await
        .unwrap();
    assert_eq!(catalog.location(), server.url);

    // Databases.
    catalog.create_database("db", false).await.unwrap();
    catalog.create_database("db", true).await.unwrap();
    let e = catalog.create_database("db", false).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists, "{e}");
    catalog.create_database("other", false).await.unwrap();
    assert_eq!(catalog.list_databases().await.unwrap(), ["db", "other"]);
    assert!(catalog.database_exists("db").await.unwrap());
    assert!(!catalog.database_exists("nope").await.unwrap());

    // Tables.
    let id: Identifier = "db.t".parse().unwrap();
    let schema = Schema::from_json(SCHEMA).unwrap();
    assert!(catalog.create_table(&id, &schema, false).await.unwrap());
    assert!(!catalog.create_table(&id, &schema, true).await.unwrap());
    let e = catalog.create_table(&id, &schema, false).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists, "{e}");
    assert_eq!(catalog.list_tables("db").await.unwrap(), ["t"]);
    assert!(catalog.table_exists(&id).await.unwrap());
    let missing: Identifier = "db.missing".parse().unwrap();
    assert!(!catalog.table_exists(&missing).await.unwrap());
    let e = catalog.get_table(&missing).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    let e = catalog.list_tables("nope").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");

    // Commits go through the server (POST …/commit); the data is at the server's path.
    let t = catalog.get_table(&id).await.unwrap();
    assert_eq!(t.schema().primary_keys, ["dt", "id"]);
    assert_eq!(write(&t, &[1, 2, 3], "a").await, Some(1));
    assert_eq!(write(&t, &[4], "b").await, Some(2));
    let t = catalog.get_table(&id).await.unwrap();
    assert_eq!(read_ids(&t, None, None).await, [1, 2, 3, 4]);
    let latest = t.snapshot_manager().latest().await.unwrap().unwrap();
    assert_eq!(latest.id, 2);

    // A commit planned on a stale base is refused by the server, not an error.
    let mut stale = latest.clone();
    stale.id = 3;
    stale.uuid = Some("not-the-base".into());
    let ctx = CommitContext::new("main", Some("an-old-uuid".into()));
    assert!(!catalog.commit_snapshot(&id, &stale, &ctx).await.unwrap());
    assert_eq!(t.snapshot_manager().latest_id().await.unwrap(), Some(2));

    // A commit racing a writer that planned on snapshot 1 re-plans and lands.
    let old = catalog.get_table(&id).await.unwrap();
    assert_eq!(write(&t, &[5], "a").await, Some(3));
    assert_eq!(write(&old, &[6], "a").await, Some(4));
    assert_eq!(read_ids(&t, None, None).await, [1, 2, 3, 4, 5, 6]);

    // Rollback is the server's (POST …/rollback).
    t.rollback_to_snapshot(2).await.unwrap();
    let t = catalog.get_table(&id).await.unwrap();
    assert_eq!(t.snapshot_manager().latest_id().await.unwrap(), Some(2));
    assert_eq!(read_ids(&t, None, None).await, [1, 2, 3, 4]);
    let e = catalog
        .rollback_to(&id, &RollbackInstant::Snapshot(99), Some(2))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");

    // ALTER TABLE is the server's too; the new schema is read back.
    let s = catalog
        .alter_table(
            &id,
            vec![SchemaChange::set_option("snapshot.num-retained.max", "7")],
            false,
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(s.options["snapshot.num-retained.max"], "7");
    assert_eq!(
        catalog
            .alter_table(&missing, vec![SchemaChange::remove_option("x")], true)
            .await
            .unwrap(),
        None
    );

    // Drops.
    let e = catalog.drop_database("db", false, false).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict, "{e}");
    catalog.drop_table(&id, false).await.unwrap();
    catalog.drop_table(&id, true).await.unwrap();
    let e = catalog.drop_table(&id, false).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    catalog.drop_database("db", false, false).await.unwrap();
    catalog.drop_database("db", true, false).await.unwrap();
    assert_eq!(catalog.list_databases().await.unwrap(), ["other"]);
}

#[tokio::test]
async fn refusals_and_permission_errors() {
    let Some(server) = start_mock(None) else {
        return;
    };
    // A wrong token: the config handshake is refused with PermissionDenied.
    let e = strata::catalog::open(&options(&server.url, "wrong"))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::PermissionDenied, "{e}");

    // Unknown providers and options are refused by name before anything is sent.
    let mut o = options(&server.url, TOKEN);
    o.insert("token.provider".into(), "oauth".into());
    let e = strata::catalog::open(&o).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    assert!(e.to_string().contains("oauth"), "{e}");
    // DLF signing reads the dlf.* keys, never the bearer token; without a key source (and
    // with no region in a loopback uri) it is refused by name.
    let mut o = options(&server.url, TOKEN);
    o.insert("token.provider".into(), "dlf".into());
    let e = strata::catalog::open(&o).await.unwrap_err();
    assert_eq!(e.context().option(), Some("token"), "{e}");
    o.remove("token");
    let e = strata::catalog::open(&o).await.unwrap_err();
    assert!(e.to_string().contains("dlf."), "{e}");
    let mut o = options(&server.url, TOKEN);
    o.insert("io-cache.enabled".into(), "true".into());
    let e = strata::catalog::open(&o).await.unwrap_err();
    assert!(e.to_string().contains("io-cache.enabled"), "{e}");

    // Nobody listening: an I/O error naming the call.
    let e = strata::catalog::open(&options("http://127.0.0.1:9", TOKEN))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");
}

#[tokio::test]
async fn vended_data_tokens_are_fetched_for_tables() {
    let Some(server) = start_mock(Some("data-token")) else {
        return;
    };
    let catalog = strata::catalog::open(&options(&server.url, TOKEN))
        .await
        .unwrap();
    let id: Identifier = "db.t".parse().unwrap();
    let schema = Schema::from_json(SCHEMA).unwrap();
    catalog.create_table(&id, &schema, false).await.unwrap();
    // The mock vends dummy OSS-style keys (`akId`/`akSecret`) for its local warehouse; they
    // are not options of a store strata opens, so the local table works as before.
    let t = catalog.get_table(&id).await.unwrap();
    assert_eq!(write(&t, &[7], "a").await, Some(1));
    assert_eq!(read_ids(&t, None, None).await, [7]);
}

/// The mock answers at most 100 names per page (`DEFAULT_MAX_RESULTS`); the client follows
/// `nextPageToken` to the end (Java's `listDataFromPageApi`).
#[tokio::test]
async fn listings_follow_every_page() {
    let Some(server) = start_mock(None) else {
        return;
    };
    let catalog = strata::catalog::open(&options(&server.url, TOKEN))
        .await
        .unwrap();
    let mut expected: Vec<String> = (0..105).map(|i| format!("db{i:03}")).collect();
    for db in &expected {
        catalog.create_database(db, false).await.unwrap();
    }
    expected.sort();
    assert_eq!(catalog.list_databases().await.unwrap(), expected);
}
