//! Views of the JDBC catalog on SQLite and PostgreSQL: the `paimon_views` row as Java 2.0's
//! `JdbcCatalog` writes it (its `ViewSchema` JSON), and Java's answers to every view call —
//! exists / not exists / database not exists, a table and a view never sharing a name,
//! dialect changes, rename across databases, `dropDatabase` refusing a database with views
//! unless cascading (which removes their rows); functions stay refused by name.

use std::collections::BTreeMap;

use super::super::{sql, JdbcCatalog};
use super::{opts, pg_fixture, rows, schema, sqlite_options};
use crate::catalog::contract::Catalog;
use crate::catalog::objects::{object_identifier, Function, View, ViewChange};
use crate::table::Identifier;
use crate::ErrorKind;

fn vid(db: &str, name: &str) -> Identifier {
    object_identifier("view", db, name).unwrap()
}

async fn views_as_java_keeps_them(base: BTreeMap<String, String>) {
    let wh = tempfile::tempdir().unwrap();
    let mut o = base;
    o.insert("warehouse".into(), wh.path().to_str().unwrap().into());
    o.insert("lock.enabled".into(), "true".into());
    let c = JdbcCatalog::open(&o).await.unwrap();
    c.create_database("db", false).await.unwrap();
    c.create_table(
        &Identifier::new("db", "t").unwrap(),
        &schema(r#"{"fields":[{"id":0,"name":"id","type":"BIGINT"}]}"#),
        false,
    )
    .await
    .unwrap();

    let mut view = View::new(
        vid("db", "v"),
        strata_spec::types::json::parse_fields(&[
            serde_json::json!({"id": 0, "name": "id", "type": "BIGINT"}),
        ])
        .unwrap(),
        "SELECT id FROM db.t",
        Some("flink"),
    );
    view.schema.comment = Some("a view".into());
    view.schema.options.insert("k".into(), "v".into());
    c.create_view(&view, false).await.unwrap();
    let stored = rows(
        &c,
        sql::GET_VIEW_SQL,
        vec!["jdbc".into(), "db".into(), "v".into()],
        &["view_schema"],
    )
    .await;
    assert_eq!(
        stored,
        vec![vec![
            strata_spec::json::to_jackson_pretty(&view.schema).unwrap()
        ]]
    );
    let json: serde_json::Value = serde_json::from_str(&stored[0][0]).unwrap();
    assert_eq!(json["query"], "SELECT id FROM db.t");
    assert_eq!(json["dialects"]["flink"], "SELECT id FROM db.t");
    assert_eq!(json["fields"][0]["type"], "BIGINT");
    assert_eq!(json["comment"], "a view");
    assert_eq!(c.get_view(&vid("db", "v")).await.unwrap(), view);

    // exists: as a view, as a table; a table may not take a view's name either
    let e = c.create_view(&view, false).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists, "{e}");
    c.create_view(&view, true).await.unwrap();
    let as_table = View::new(vid("db", "t"), vec![], "SELECT 1", None);
    let e = c.create_view(&as_table, false).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists, "{e}");
    let e = c
        .create_table(
            &Identifier::new("db", "v").unwrap(),
            &schema(r#"{"fields":[{"id":0,"name":"id","type":"INT"}]}"#),
            false,
        )
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists, "{e}");
    let missing_db = View::new(vid("nodb", "v"), vec![], "SELECT 1", None);
    let e = c.create_view(&missing_db, false).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    assert!(e.to_string().contains("nodb"), "{e}");
    let e = c.list_views("nodb").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    let e = c.get_view(&vid("db", "none")).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");

    c.create_view(&View::new(vid("db", "a"), vec![], "SELECT 2", None), false)
        .await
        .unwrap();
    assert_eq!(c.list_views("db").await.unwrap(), vec!["a", "v"]);
    assert_eq!(c.list_tables("db").await.unwrap(), vec!["t"]);

    // alterView: in order, dialects checked
    c.alter_view(
        &vid("db", "v"),
        vec![
            ViewChange::SetOption {
                key: "k2".into(),
                value: "v2".into(),
            },
            ViewChange::RemoveOption { key: "k".into() },
            ViewChange::UpdateComment { comment: None },
            ViewChange::AddDialect {
                dialect: "spark".into(),
                query: "SELECT id FROM t".into(),
            },
            ViewChange::UpdateDialect {
                dialect: "flink".into(),
                query: "SELECT id + 0 FROM db.t".into(),
            },
        ],
        false,
    )
    .await
    .unwrap();
    let got = c.get_view(&vid("db", "v")).await.unwrap().schema;
    assert_eq!(
        got.options,
        BTreeMap::from([("k2".to_string(), "v2".to_string())])
    );
    assert_eq!(got.comment, None);
    assert_eq!(got.query, "SELECT id FROM db.t");
    assert_eq!(got.dialects["spark"], "SELECT id FROM t");
    assert_eq!(got.dialects["flink"], "SELECT id + 0 FROM db.t");
    let add = |d: &str| ViewChange::AddDialect {
        dialect: d.into(),
        query: "SELECT 3".into(),
    };
    let e = c
        .alter_view(&vid("db", "v"), vec![add("spark")], false)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists, "{e}");
    assert!(e.to_string().contains("spark"), "{e}");
    let e = c
        .alter_view(
            &vid("db", "v"),
            vec![ViewChange::DropDialect {
                dialect: "hive".into(),
            }],
            false,
        )
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    assert!(e.to_string().contains("hive"), "{e}");
    assert_eq!(c.get_view(&vid("db", "v")).await.unwrap().schema, got);
    let e = c
        .alter_view(&vid("db", "none"), vec![add("x")], false)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    c.alter_view(&vid("db", "none"), vec![add("x")], true)
        .await
        .unwrap();

    // renameView: across databases, never onto a view or a table, the target database must exist
    c.create_database("db2", false).await.unwrap();
    c.rename_view(&vid("db", "v"), &vid("db2", "w"), false)
        .await
        .unwrap();
    assert_eq!(c.list_views("db").await.unwrap(), vec!["a"]);
    assert_eq!(c.list_views("db2").await.unwrap(), vec!["w"]);
    assert_eq!(c.get_view(&vid("db2", "w")).await.unwrap().schema, got);
    for (to, kind) in [
        (vid("db", "a"), ErrorKind::AlreadyExists),
        (vid("db", "t"), ErrorKind::AlreadyExists),
        (vid("nodb", "w"), ErrorKind::InvalidInput),
    ] {
        let e = c
            .rename_view(&vid("db2", "w"), &to, false)
            .await
            .unwrap_err();
        assert_eq!(e.kind(), kind, "{to}: {e}");
    }
    let e = c
        .rename_view(&vid("db", "none"), &vid("db", "x"), false)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    c.rename_view(&vid("db", "none"), &vid("db", "x"), true)
        .await
        .unwrap();

    // dropView
    c.drop_view(&vid("db", "a"), false).await.unwrap();
    let e = c.drop_view(&vid("db", "a"), false).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    c.drop_view(&vid("db", "a"), true).await.unwrap();
    assert!(c.list_views("db").await.unwrap().is_empty());

    // a database with only a view is not empty; cascade removes the view's row
    let e = c.drop_database("db2", false, false).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict, "{e}");
    c.drop_database("db2", false, true).await.unwrap();
    assert!(rows(
        &c,
        sql::LIST_VIEWS_SQL,
        vec!["jdbc".into(), "db2".into()],
        &["view_name"]
    )
    .await
    .is_empty());
    assert!(!c.database_exists("db2").await.unwrap());

    // every lock row released; functions refused by name (Java's JdbcCatalog has none)
    assert!(rows(
        &c,
        "SELECT * FROM paimon_distributed_locks",
        vec![],
        &["lock_id"]
    )
    .await
    .is_empty());
    let e = c.list_functions("db").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    let f = Function::new(vid("db", "f"), BTreeMap::new());
    let e = c.create_function(&f, false).await.unwrap_err();
    assert!(e.to_string().contains("createFunction"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_views_as_java_keeps_them() {
    let dir = tempfile::tempdir().unwrap();
    views_as_java_keeps_them(sqlite_options(&dir)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_views_as_java_keeps_them() {
    let pg = pg_fixture::Postgres::start();
    let db = pg.create_database("views").await;
    views_as_java_keeps_them(opts(&[
        ("metastore", "jdbc"),
        ("uri", &pg.uri(&db)),
        ("jdbc.user", "postgres"),
    ]))
    .await;
}
