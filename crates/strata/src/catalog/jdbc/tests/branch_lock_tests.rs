//! A JDBC table switched to a branch still commits under `JdbcCatalogLock`, with Java's lock id
//! for the branch's identifier (`{catalog-key}.{db}.{table}$branch_{b}`): a lock row held by
//! someone else stops the branch's commit (and not the main branch's), and concurrent writers
//! of the branch through two catalog instances lose no commit.

use std::collections::BTreeMap;

use super::super::store::SqlArg;
use super::super::{sql, JdbcCatalog};
use super::{ids_batch, latest_records, opts, pg_fixture, rows, schema, sqlite_options};
use crate::catalog::contract::Catalog;
use crate::table::branches::BranchStart;
use crate::table::Identifier;

async fn branch_commits_take_the_lock(base: BTreeMap<String, String>) {
    let wh = tempfile::tempdir().unwrap();
    let mut o = base;
    o.insert("warehouse".into(), wh.path().to_str().unwrap().into());
    o.insert("lock.enabled".into(), "true".into());
    o.insert("lock-acquire-timeout".into(), "2 s".into());
    o.insert("lock-check-max-sleep".into(), "100 ms".into());
    let c = JdbcCatalog::open(&o).await.unwrap();
    let id: Identifier = "db.t".parse().unwrap();
    let s = schema(
        r#"{"fields":[{"name":"id","type":"BIGINT"}],"options":{"bucket":"-1",
        "commit.max-retries":"200","commit.min-retry-wait":"1 ms","commit.max-retry-wait":"20 ms",
        "commit.timeout":"600 s"}}"#,
    );
    c.create_table(&id, &s, false).await.unwrap();
    let t = c.get_table(&id).await.unwrap();
    t.write_batches([ids_batch(&[1])], None).await.unwrap();
    t.create_branch("b", BranchStart::Empty).await.unwrap();
    let b = t.switch_to_branch("b").await.unwrap();

    // Java's lock row of the branch's identifier, held by someone else.
    let held = "jdbc.db.t$branch_b";
    c.store
        .execute(sql::LOCK_ACQUIRE_SQL, vec![held.into(), SqlArg::Long(3600)])
        .await
        .unwrap();
    let once = b
        .with_dynamic_options([("commit.max-retries".to_string(), "1".to_string())])
        .unwrap();
    let start = std::time::Instant::now();
    let e = once
        .write_batches([ids_batch(&[2])], None)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("Acquire lock failed"), "{e}");
    assert!(e.to_string().contains(held), "{e}");
    assert!(start.elapsed() >= std::time::Duration::from_secs(2));
    assert!(b.snapshot_manager().latest().await.unwrap().is_none());
    // The main branch's lock is another row: its commit goes through.
    t.write_batches([ids_batch(&[3])], None).await.unwrap();
    assert_eq!(latest_records(&t).await, (2, 2));
    c.store
        .execute(sql::RELEASE_LOCK_SQL, vec![held.into()])
        .await
        .unwrap();

    // Concurrent writers of the branch through two catalogs: every commit lands.
    let c2 = JdbcCatalog::open(&o).await.unwrap();
    let mut tasks = Vec::new();
    for (i, cat) in [c.clone(), c2].into_iter().enumerate() {
        let id = id.clone();
        tasks.push(tokio::spawn(async move {
            let t = cat.get_table(&id).await.unwrap();
            let b = t.switch_to_branch("b").await.unwrap();
            for j in 0..3 {
                b.write_batches([ids_batch(&[100 + (i as i64) * 10 + j])], None)
                    .await
                    .unwrap();
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(latest_records(&b).await, (6, 6));
    assert_eq!(latest_records(&t).await, (2, 2));
    assert!(rows(
        &c,
        "SELECT * FROM paimon_distributed_locks",
        vec![],
        &["lock_id"]
    )
    .await
    .is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_branch_commits_take_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    branch_commits_take_the_lock(sqlite_options(&dir)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_branch_commits_take_the_lock() {
    let pg = pg_fixture::Postgres::start();
    let db = pg.create_database("branches").await;
    branch_commits_take_the_lock(opts(&[
        ("metastore", "jdbc"),
        ("uri", &pg.uri(&db)),
        ("jdbc.user", "postgres"),
    ]))
    .await;
}
