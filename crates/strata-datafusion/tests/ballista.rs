//! Distributed queries: a strata table read through a standalone Ballista cluster (scheduler and
//! executor in this process, talking gRPC on localhost) returns the same rows as local
//! DataFusion. The plan crosses the wire twice — the logical plan to the scheduler (the table
//! provider through `StrataLogicalCodec`), the physical stages to the executor (`StrataScanExec`
//! with its splits through `StrataPhysicalCodec`) — so this proves both codecs end to end.
//! The scan is one partition (see `StrataTable::with_scan_partitions`); aggregation and join
//! stages above it run as several Ballista tasks.

#![recursion_limit = "256"]

use std::sync::Arc;

use arrow::util::pretty::pretty_format_batches;
use ballista::prelude::{SessionConfigExt, SessionContextExt};
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use strata::catalog::FileSystemCatalog;
use strata_datafusion::{SqlSession, StrataLogicalCodec, StrataPhysicalCodec, StrataTable};

async fn rows(ctx: &SessionContext, sql: &str) -> String {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    pretty_format_batches(&batches).unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ballista_reads_strata_tables_as_local_datafusion_does() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = FileSystemCatalog::open(dir.path().to_str().unwrap()).unwrap();
    let local = SqlSession::new(std::sync::Arc::new(catalog.clone()));
    local
        .execute_script(
            "CREATE TABLE db.t (id BIGINT NOT NULL, dt STRING NOT NULL, v DOUBLE, \
                 PRIMARY KEY (dt, id) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '3');
             INSERT INTO db.t SELECT value AS id, 'd' || CAST(value % 4 AS STRING) AS dt,
                 CAST(value AS DOUBLE) AS v
                 FROM generate_series(1, 3000);
             INSERT INTO db.t SELECT value AS id, 'd' || CAST(value % 4 AS STRING) AS dt, -1.0 AS v
                 FROM generate_series(1, 3000, 7);
             CREATE TABLE db.a (k INT, name STRING);
             INSERT INTO db.a VALUES (0, 'zero'), (1, 'one'), (2, 'two'), (3, 'three');",
        )
        .await
        .unwrap();

    let config = SessionConfig::new_with_ballista()
        .with_target_partitions(4)
        .with_ballista_logical_extension_codec(Arc::new(StrataLogicalCodec::wrapping(Arc::new(
            BallistaLogicalExtensionCodec::default(),
        ))))
        .with_ballista_physical_extension_codec(Arc::new(StrataPhysicalCodec::wrapping(Arc::new(
            BallistaPhysicalExtensionCodec::default(),
        ))));
    let state = SessionStateBuilder::new()
        .with_default_features()
        .with_config(config)
        .build();
    let cluster = SessionContext::standalone_with_state(state).await.unwrap();
    let id = |t: &str| format!("db.{t}").parse().unwrap();
    for t in ["t", "a"] {
        let table = catalog.get_table(&id(t)).await.unwrap();
        // One scan partition: Ballista 55 splits stages between tasks only for its own and
        // DataFusion's sources; with more, every task would read every partition.
        let provider = StrataTable::new(table)
            .await
            .unwrap()
            .with_scan_partitions(1);
        cluster.register_table(t, Arc::new(provider)).unwrap();
    }
    // The same tables in a plain local context.
    let plain = SessionContext::new();
    for t in ["t", "a"] {
        let table = catalog.get_table(&id(t)).await.unwrap();
        plain
            .register_table(t, Arc::new(StrataTable::new(table).await.unwrap()))
            .unwrap();
    }

    for sql in [
        "SELECT dt, count(*) AS n, sum(v) AS s, min(id) AS lo, max(id) AS hi FROM t \
         GROUP BY dt ORDER BY dt",
        "SELECT id, v FROM t WHERE id < 30 AND v < 0 ORDER BY id",
        "SELECT a.name, count(*) AS n FROM t JOIN a ON CAST(t.id % 4 AS INT) = a.k \
         WHERE t.v > 100 GROUP BY a.name ORDER BY a.name",
    ] {
        let expected = rows(&plain, sql).await;
        let got = rows(&cluster, sql).await;
        assert_eq!(got, expected, "{sql}");
        assert!(
            expected.lines().count() > 4,
            "{sql} returned too little:\n{expected}"
        );
    }
    // The upsert won: every seventh id reads -1.
    let updated = rows(&cluster, "SELECT count(*) AS n FROM t WHERE v = -1").await;
    assert!(updated.contains("| 429 |"), "{updated}");
}
