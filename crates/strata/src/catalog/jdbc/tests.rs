//! Tests of the JDBC catalog on SQLite (a temp file) and on a real PostgreSQL server started
//! for the test (`pg_fixture`): Java's rows after each operation, tables' files where the
//! filesystem catalog puts them, refusals by name, and the distributed lock (a held row makes
//! a commit wait and time out, an expired row is cleared, concurrent writers of two catalogs
//! lose no commit).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::store::SqlArg;
use super::{sql, JdbcCatalog};
use crate::catalog::contract::Catalog;
use crate::table::{Identifier, Table};

mod branch_lock_tests;
pub(super) mod pg_fixture;
mod view_tests;

fn opts(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn ids_batch(v: &[i64]) -> arrow_array::RecordBatch {
    arrow_array::RecordBatch::try_new(
        Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
            "id",
            arrow_schema::DataType::Int64,
            true,
        )])),
        vec![Arc::new(arrow_array::Int64Array::from(v.to_vec()))],
    )
    .unwrap()
}

fn schema(json: &str) -> strata_spec::schema::Schema {
    strata_spec::schema::Schema::from_json(json).unwrap()
}

async fn rows(c: &JdbcCatalog, sql: &str, args: Vec<SqlArg>, cols: &[&str]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = c
        .store
        .query(sql, args, cols)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.into_iter().map(|v| v.unwrap_or_default()).collect())
        .collect();
    out.sort();
    out
}

async fn latest_records(t: &Table) -> (i64, i64) {
    let s = t.snapshot_manager().latest().await.unwrap().unwrap();
    (s.id, s.total_record_count)
}

/// Databases, tables, rows and files of one catalog; `base` are the catalog options besides
/// `warehouse`.
async fn catalog_rows_and_files(base: BTreeMap<String, String>) {
    let wh = tempfile::tempdir().unwrap();
    let mut o = base.clone();
    o.insert("warehouse".into(), wh.path().to_str().unwrap().into());
    let c = JdbcCatalog::open(&o).await.unwrap();
    let key = || SqlArg::from("jdbc");

    c.create_database("db", false).await.unwrap();
    assert!(c.database_exists("db").await.unwrap());
    let props = rows(
        &c,
        sql::GET_ALL_DATABASE_PROPERTIES_SQL,
        vec![key(), "db".into()],
        &["property_key", "property_value"],
    )
    .await;
    let location = format!("{}/db.db", wh.path().to_str().unwrap());
    assert_eq!(
        props,
        vec![
            vec!["exists".to_string(), "true".to_string()],
            vec!["location".to_string(), location]
        ]
    );
    let e = c.create_database("db", false).await.unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::AlreadyExists, "{e}");
    c.create_database("db", true).await.unwrap();

    let id: Identifier = "db.t".parse().unwrap();
    let s = schema(
        r#"{"fields":[{"name":"k","type":"INT NOT NULL"},{"name":"p","type":"STRING NOT NULL"},
        {"name":"id","type":"BIGINT"}],"partitionKeys":["p"],"primaryKeys":["k","p"],
        "options":{"bucket":"2"}}"#,
    );
    assert!(c.create_table(&id, &s, false).await.unwrap());
    assert!(!c.create_table(&id, &s, true).await.unwrap());
    let e = c.create_table(&id, &s, false).await.unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::AlreadyExists, "{e}");
    assert_eq!(
        rows(
            &c,
            sql::LIST_TABLES_SQL,
            vec![key(), "db".into()],
            &["table_name"]
        )
        .await,
        vec![vec!["t".to_string()]]
    );
    let tprops = rows(
        &c,
        "SELECT * FROM paimon_table_properties WHERE catalog_key = ? AND table_name = ?",
        vec![key(), "t".into()],
        &["property_key", "property_value"],
    )
    .await;
    assert_eq!(
        tprops,
        vec![
            vec!["bucket".to_string(), "2".to_string()],
            vec!["bucket-key".to_string(), "k".to_string()],
            vec!["partition".to_string(), "p".to_string()],
            vec!["primary-key".to_string(), "k,p".to_string()],
        ]
    );
    assert!(wh.path().join("db.db/t/schema/schema-0").is_file());
    assert_eq!(c.list_tables("db").await.unwrap(), vec!["t".to_string()]);
    assert_eq!(c.list_databases().await.unwrap(), vec!["db".to_string()]);
    assert!(c.table_exists(&id).await.unwrap());

    // A table directory without a row is not the catalog's table.
    let other = crate::catalog::FileSystemCatalog::open(wh.path().to_str().unwrap()).unwrap();
    let ghost: Identifier = "db.ghost".parse().unwrap();
    other
        .create_table(
            &ghost,
            &schema(r#"{"fields":[{"name":"id","type":"BIGINT"}]}"#),
            false,
        )
        .await
        .unwrap();
    assert!(!c.table_exists(&ghost).await.unwrap());
    let e = c.get_table(&ghost).await.unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::NotFound, "{e}");

    // ALTER TABLE rewrites the property rows.
    c.alter_table(
        &id,
        vec![strata_spec::schema::SchemaChange::SetOption {
            key: "snapshot.num-retained.max".into(),
            value: "70".into(),
        }],
        false,
    )
    .await
    .unwrap();
    let tprops = rows(
        &c,
        "SELECT * FROM paimon_table_properties WHERE catalog_key = ? AND table_name = ? AND property_key = ?",
        vec![key(), "t".into(), "snapshot.num-retained.max".into()],
        &["property_value"],
    )
    .await;
    assert_eq!(tprops, vec![vec!["70".to_string()]]);

    // Branches are refused as Java's JdbcCatalog refuses them.
    let e = c
        .get_table(&"db.t$branch_b".parse().unwrap())
        .await
        .unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::Unsupported, "{e}");

    // Drop: not empty without cascade; cascade removes rows and the table's files.
    let e = c.drop_database("db", false, false).await.unwrap_err();
    assert!(e.to_string().contains("db"), "{e}");
    c.drop_database("db", false, true).await.unwrap();
    assert!(!c.database_exists("db").await.unwrap());
    assert!(!wh.path().join("db.db/t").exists());
    assert!(rows(
        &c,
        sql::LIST_TABLES_SQL,
        vec![key(), "db".into()],
        &["table_name"]
    )
    .await
    .is_empty());
    assert!(rows(
        &c,
        "SELECT * FROM paimon_table_properties",
        vec![],
        &["table_name"]
    )
    .await
    .is_empty());
    // The same name can be created again.
    assert!(c.create_table(&id, &s, false).await.unwrap());
    c.drop_table(&id, false).await.unwrap();
    assert!(!c.table_exists(&id).await.unwrap());
    assert!(!wh.path().join("db.db/t").exists());
}

/// The lock: its table, a held row making a commit time out, an expired row cleared, and
/// concurrent writers through two catalog instances losing no commit.
async fn lock_excludes_and_expires(base: BTreeMap<String, String>) {
    let wh = tempfile::tempdir().unwrap();
    let mut o = base.clone();
    o.insert("warehouse".into(), wh.path().to_str().unwrap().into());
    o.insert("lock.enabled".into(), "true".into());
    o.insert("lock-acquire-timeout".into(), "2 s".into());
    o.insert("lock-check-max-sleep".into(), "100 ms".into());
    let c = JdbcCatalog::open(&o).await.unwrap();
    assert!(c
        .store
        .table_exists(sql::DISTRIBUTED_LOCKS_TABLE_NAME)
        .await
        .unwrap());
    let id: Identifier = "db.t".parse().unwrap();
    let s = schema(
        r#"{"fields":[{"name":"id","type":"BIGINT"}],"options":{"bucket":"-1",
        "commit.max-retries":"200","commit.min-retry-wait":"1 ms","commit.max-retry-wait":"20 ms",
        "commit.timeout":"600 s"}}"#,
    );
    c.create_table(&id, &s, false).await.unwrap();
    let t = c.get_table(&id).await.unwrap();
    assert_eq!(
        t.write_batches([ids_batch(&[1])], None).await.unwrap(),
        Some(1)
    );
    assert!(rows(
        &c,
        "SELECT * FROM paimon_distributed_locks",
        vec![],
        &["lock_id"]
    )
    .await
    .is_empty());

    // Another holder (Java's row shape: lock_id, expire_time_seconds).
    c.store
        .execute(
            sql::LOCK_ACQUIRE_SQL,
            vec!["jdbc.db.t".into(), SqlArg::Long(3600)],
        )
        .await
        .unwrap();
    // (A commit retries after a failed publish, as Java's does: one retry here.)
    let once = t
        .with_dynamic_options([("commit.max-retries".to_string(), "1".to_string())])
        .unwrap();
    let start = std::time::Instant::now();
    let e = once
        .write_batches([ids_batch(&[2])], None)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("Acquire lock failed"), "{e}");
    assert!(start.elapsed() >= std::time::Duration::from_secs(2));
    assert_eq!(
        latest_records(&t).await,
        (1, 1),
        "nothing published without the lock"
    );

    // An expired row is cleared by the next acquirer (tryReleaseTimedOutLock).
    c.store
        .execute(
            "UPDATE paimon_distributed_locks SET acquired_at = '2000-01-01 00:00:00' WHERE lock_id = ?",
            vec!["jdbc.db.t".into()],
        )
        .await
        .unwrap();
    assert_eq!(
        t.write_batches([ids_batch(&[2])], None).await.unwrap(),
        Some(2)
    );
    assert!(rows(
        &c,
        "SELECT * FROM paimon_distributed_locks",
        vec![],
        &["lock_id"]
    )
    .await
    .is_empty());

    // Concurrent writers of two catalogs: every commit lands.
    let c2 = JdbcCatalog::open(&o).await.unwrap();
    let mut tasks = Vec::new();
    for (i, cat) in [c.clone(), c2.clone(), c.clone(), c2]
        .into_iter()
        .enumerate()
    {
        let id = id.clone();
        tasks.push(tokio::spawn(async move {
            let t = cat.get_table(&id).await.unwrap();
            for j in 0..3 {
                let v = 100 + (i as i64) * 10 + j;
                t.write_batches([ids_batch(&[v])], None).await.unwrap();
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(latest_records(&t).await, (14, 14));
    assert!(rows(
        &c,
        "SELECT * FROM paimon_distributed_locks",
        vec![],
        &["lock_id"]
    )
    .await
    .is_empty());
}

fn sqlite_options(dir: &tempfile::TempDir) -> BTreeMap<String, String> {
    let uri = format!("jdbc:sqlite:{}", dir.path().join("catalog.db").display());
    opts(&[("metastore", "jdbc"), ("uri", &uri)])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_catalog_rows_and_files() {
    let dir = tempfile::tempdir().unwrap();
    catalog_rows_and_files(sqlite_options(&dir)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_lock_excludes_and_expires() {
    let dir = tempfile::tempdir().unwrap();
    lock_excludes_and_expires(sqlite_options(&dir)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_catalog_rows_and_files() {
    let pg = pg_fixture::Postgres::start();
    let db = pg.create_database("rows").await;
    catalog_rows_and_files(opts(&[
        ("metastore", "jdbc"),
        ("uri", &pg.uri(&db)),
        ("jdbc.user", "postgres"),
        ("jdbc.password", "unused"),
    ]))
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_lock_excludes_and_expires() {
    let pg = pg_fixture::Postgres::start();
    let db = pg.create_database("locks").await;
    lock_excludes_and_expires(opts(&[
        ("metastore", "jdbc"),
        ("uri", &pg.uri(&db)),
        ("jdbc.user", "postgres"),
    ]))
    .await;
}

#[tokio::test]
async fn refusals_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().to_str().unwrap().to_string();
    let open = |extra: &[(&str, &str)]| {
        let mut o = sqlite_options(&dir);
        o.insert("warehouse".into(), wh.clone());
        for (k, v) in extra {
            o.insert(k.to_string(), v.to_string());
        }
        async move { JdbcCatalog::open(&o).await }
    };
    open(&[]).await.unwrap();
    // The front ends' opener dispatches metastore = jdbc here.
    let mut o = sqlite_options(&dir);
    o.insert("warehouse".into(), wh.clone());
    let c = crate::catalog::open(&o).await.unwrap();
    c.create_database("via_open", false).await.unwrap();
    assert_eq!(
        c.list_databases().await.unwrap(),
        vec!["via_open".to_string()]
    );
    let e = open(&[("uri", "jdbc:mysql://localhost:3306/db")])
        .await
        .unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::Unsupported, "{e}");
    assert!(e.to_string().contains("mysql"), "{e}");
    let e = open(&[("jdbc.sslmode", "require")]).await.unwrap_err();
    assert!(e.to_string().contains("jdbc.sslmode"), "{e}");
    let e = open(&[("lock.type", "zookeeper")]).await.unwrap_err();
    assert!(e.to_string().contains("lock.type"), "{e}");
    let e = open(&[("lock.enabled", "yes")]).await.unwrap_err();
    assert!(e.to_string().contains("lock.enabled"), "{e}");
    let e = open(&[("uri", "postgres://x")]).await.unwrap_err();
    assert!(e.to_string().contains("jdbc:"), "{e}");
    assert_eq!(
        super::store::SqlStore::open(
            "jdbc:postgresql://h:1/db?user=u&password=secret",
            None,
            None
        )
        .unwrap()
        .uri(),
        "jdbc:postgresql://h:1/db?user=u&password=***"
    );
    let e = open(&[("no-such-option", "1")]).await.unwrap_err();
    assert!(e.to_string().contains("no-such-option"), "{e}");
    let mut o = sqlite_options(&dir);
    o.remove("uri");
    o.insert("warehouse".into(), wh.clone());
    let e = JdbcCatalog::open(&o).await.unwrap_err();
    assert!(e.to_string().contains("uri"), "{e}");
}
