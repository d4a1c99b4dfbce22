//! Views in SQL over a catalog that keeps them: a filesystem warehouse for the tables plus an
//! in-memory view store (what a REST catalog keeps on its server), so resolution, nesting,
//! `CREATE [OR REPLACE] VIEW`, `DROP VIEW` and the refusals are checked without a server. The
//! REST round trips (Java's `RESTCatalogServer`, `strata serve`) are in
//! `tests/interop/test_rest_views_client.py`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use arrow_array::{Array, Int64Array};
use async_trait::async_trait;
use datafusion::prelude::SessionContext;
use strata::catalog::{
    object_identifier, Catalog, CommitContext, FileSystemCatalog, Identifier, View, ViewChange,
};
use strata::spec::schema::{Schema, SchemaChange, TableSchema};
use strata::spec::snapshot::Snapshot;
use strata::table::Table;

use crate::{SqlSession, StrataCatalog};

/// Tables in a filesystem warehouse, views in memory.
#[derive(Debug)]
struct ViewCatalog {
    fs: FileSystemCatalog,
    views: Mutex<BTreeMap<(String, String), View>>,
}

fn key(id: &Identifier) -> (String, String) {
    (id.database.clone(), id.table.clone())
}

#[async_trait]
impl Catalog for ViewCatalog {
    fn location(&self) -> String {
        self.fs.location()
    }
    async fn list_databases(&self) -> strata::Result<Vec<String>> {
        self.fs.list_databases().await
    }
    async fn database_exists(&self, db: &str) -> strata::Result<bool> {
        self.fs.database_exists(db).await
    }
    async fn create_database(&self, db: &str, ignore: bool) -> strata::Result<()> {
        self.fs.create_database(db, ignore).await
    }
    async fn drop_database(&self, db: &str, ignore: bool, cascade: bool) -> strata::Result<()> {
        self.fs.drop_database(db, ignore, cascade).await
    }
    async fn list_tables(&self, db: &str) -> strata::Result<Vec<String>> {
        self.fs.list_tables(db).await
    }
    async fn table_exists(&self, id: &Identifier) -> strata::Result<bool> {
        self.fs.table_exists(id).await
    }
    async fn create_table(
        &self,
        id: &Identifier,
        s: &Schema,
        ignore: bool,
    ) -> strata::Result<bool> {
        self.fs.create_table(id, s, ignore).await
    }
    async fn drop_table(&self, id: &Identifier, ignore: bool) -> strata::Result<()> {
        self.fs.drop_table(id, ignore).await
    }
    async fn alter_table(
        &self,
        id: &Identifier,
        changes: Vec<SchemaChange>,
        ignore: bool,
    ) -> strata::Result<Option<Arc<TableSchema>>> {
        self.fs.alter_table(id, changes, ignore).await
    }
    async fn get_table(&self, id: &Identifier) -> strata::Result<Table> {
        self.fs.get_table(id).await
    }
    async fn commit_snapshot(
        &self,
        id: &Identifier,
        snapshot: &Snapshot,
        ctx: &CommitContext,
    ) -> strata::Result<bool> {
        self.fs.commit_snapshot(id, snapshot, ctx).await
    }
    async fn list_views(&self, db: &str) -> strata::Result<Vec<String>> {
        let views = self.views.lock().unwrap();
        Ok(views
            .keys()
            .filter(|k| k.0 == db)
            .map(|k| k.1.clone())
            .collect())
    }
    async fn get_view(&self, id: &Identifier) -> strata::Result<View> {
        let found = self.views.lock().unwrap().get(&key(id)).cloned();
        match found {
            Some(v) => Ok(v),
            None => Err(self.missing().await),
        }
    }
    async fn create_view(&self, view: &View, ignore: bool) -> strata::Result<()> {
        let mut views = self.views.lock().unwrap();
        if views.contains_key(&key(&view.identifier)) {
            if ignore {
                return Ok(());
            }
            return Err(strata::Error::invalid_argument("view exists"));
        }
        views.insert(key(&view.identifier), view.clone());
        Ok(())
    }
    async fn alter_view(&self, _: &Identifier, _: Vec<ViewChange>, _: bool) -> strata::Result<()> {
        Err(strata::Error::unsupported("not in this test catalog"))
    }
    async fn drop_view(&self, id: &Identifier, ignore: bool) -> strata::Result<()> {
        let removed = self.views.lock().unwrap().remove(&key(id));
        match removed {
            Some(_) => Ok(()),
            None if ignore => Ok(()),
            None => Err(self.missing().await),
        }
    }
}

impl ViewCatalog {
    /// A `NotFound` error as a catalog gives it (a missing table's).
    async fn missing(&self) -> strata::Error {
        let id = Identifier::new("db", "no_such_object").unwrap();
        self.fs.get_table(&id).await.unwrap_err()
    }
}

async fn session() -> (tempfile::TempDir, Arc<ViewCatalog>, SqlSession) {
    let dir = tempfile::tempdir().unwrap();
    let catalog = Arc::new(ViewCatalog {
        fs: FileSystemCatalog::open(dir.path().to_str().unwrap()).unwrap(),
        views: Mutex::new(BTreeMap::new()),
    });
    let s = SqlSession::new(catalog.clone());
    s.sql("CREATE SCHEMA db")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    s.sql("CREATE TABLE db.t (id BIGINT, amount BIGINT)")
        .await
        .unwrap();
    s.sql("INSERT INTO db.t VALUES (1, 10), (2, 20), (3, 30), (4, 40)")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    (dir, catalog, s)
}

async fn ints(s: &SqlSession, sql: &str) -> Vec<i64> {
    let batches = s.sql(sql).await.unwrap().collect().await.unwrap();
    let mut out = Vec::new();
    for b in batches {
        let a = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        out.extend((0..a.len()).map(|i| a.value(i)));
    }
    out
}

async fn error(s: &SqlSession, sql: &str) -> String {
    match s.sql(sql).await {
        Ok(df) => df.collect().await.unwrap_err().to_string(),
        Err(e) => e.to_string(),
    }
}

#[tokio::test]
async fn create_read_replace_nest_and_drop_views() {
    let (_dir, catalog, s) = session().await;
    s.sql("CREATE VIEW db.big (k, money) AS SELECT id, amount FROM t WHERE amount > 15")
        .await
        .unwrap();
    let id = object_identifier("view", "db", "big").unwrap();
    let v = catalog.get_view(&id).await.unwrap();
    let names: Vec<_> = v.schema.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["k", "money"]);
    assert_eq!(v.schema.query, "SELECT id, amount FROM t WHERE amount > 15");
    assert_eq!(v.schema.dialects["datafusion"], v.schema.query);
    assert_eq!(
        ints(&s, "SELECT money FROM db.big ORDER BY k").await,
        [20, 30, 40]
    );

    s.sql("CREATE VIEW db.total AS SELECT sum(money) AS s FROM big")
        .await
        .unwrap();
    assert_eq!(ints(&s, "SELECT s FROM db.total").await, [90]);
    let e = error(&s, "CREATE VIEW db.big AS SELECT 1 AS x").await;
    assert!(e.contains("view db.big already exists"), "{e}");
    s.sql("CREATE VIEW IF NOT EXISTS db.big AS SELECT 1 AS x")
        .await
        .unwrap();
    s.sql("CREATE OR REPLACE VIEW db.big (k, money) AS SELECT id, amount FROM t WHERE amount > 35")
        .await
        .unwrap();
    assert_eq!(ints(&s, "SELECT s FROM db.total").await, [40]);

    let e = error(&s, "CREATE VIEW db.t AS SELECT 1 AS x").await;
    assert!(e.contains("a table of that name exists"), "{e}");
    let e = error(&s, "CREATE VIEW db.tt AS SELECT * FROM t VERSION AS OF 1").await;
    assert!(!e.is_empty());
    assert!(catalog
        .get_view(&object_identifier("view", "db", "tt").unwrap())
        .await
        .is_err());

    s.sql("DROP VIEW db.total").await.unwrap();
    s.sql("DROP VIEW IF EXISTS db.total").await.unwrap();
    assert_eq!(catalog.list_views("db").await.unwrap(), ["big"]);
    let e = error(&s, "SELECT * FROM db.total").await;
    assert!(e.contains("total"), "{e}");
}

#[tokio::test]
async fn dialects_and_refusals_of_a_catalogs_view() {
    let (_dir, catalog, s) = session().await;
    let id = |n: &str| object_identifier("view", "db", n).unwrap();
    // The default query when there is no datafusion dialect; the datafusion one when there is.
    let mut v = View::new(
        id("v"),
        vec![],
        "SELECT id FROM t WHERE id < 3",
        Some("flink"),
    );
    catalog.create_view(&v, false).await.unwrap();
    assert_eq!(ints(&s, "SELECT * FROM db.v ORDER BY id").await, [1, 2]);
    catalog.drop_view(&id("v"), false).await.unwrap();
    v.schema
        .dialects
        .insert("datafusion".into(), "SELECT id FROM t WHERE id >= 3".into());
    catalog.create_view(&v, false).await.unwrap();
    assert_eq!(ints(&s, "SELECT * FROM db.v ORDER BY id").await, [3, 4]);

    // Flink's and Spark's quoting, and the warehouse's three-part names.
    let quoted = View::new(
        id("quoted"),
        vec![],
        "SELECT `id` FROM `db`.`t` WHERE `id` IN (SELECT id FROM paimon.db.t WHERE id > 2)",
        None,
    );
    catalog.create_view(&quoted, false).await.unwrap();
    assert_eq!(
        ints(&s, "SELECT * FROM db.quoted ORDER BY id").await,
        [3, 4]
    );

    let bad = View::new(id("bad"), vec![], "SELEC nonsense", Some("datafusion"));
    catalog.create_view(&bad, false).await.unwrap();
    let e = error(&s, "SELECT * FROM db.bad").await;
    assert!(
        e.contains("view db.bad") && e.contains("datafusion query"),
        "{e}"
    );

    let fields = strata::arrow::from_arrow_schema(&arrow_schema::Schema::new(vec![
        arrow_schema::Field::new("a", arrow_schema::DataType::Int64, true),
        arrow_schema::Field::new("b", arrow_schema::DataType::Int64, true),
    ]))
    .unwrap()
    .fields;
    let wide = View::new(id("wide"), fields, "SELECT id FROM t", None);
    catalog.create_view(&wide, false).await.unwrap();
    let e = error(&s, "SELECT * FROM db.wide").await;
    assert!(e.contains("gives 1 columns, the view declares 2"), "{e}");

    let selfish = View::new(id("me"), vec![], "SELECT * FROM me", None);
    catalog.create_view(&selfish, false).await.unwrap();
    let e = error(&s, "SELECT * FROM db.me").await;
    assert!(e.contains("nest deeper"), "{e}");
}

#[tokio::test]
async fn a_plain_datafusion_context_creates_and_drops_the_catalogs_view() {
    let (_dir, catalog, _s) = session().await;
    let ctx = SessionContext::new();
    ctx.register_catalog("paimon", Arc::new(StrataCatalog::new(catalog.clone())));
    ctx.sql("CREATE VIEW paimon.db.small AS SELECT id FROM paimon.db.t WHERE id = 1")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let v = catalog
        .get_view(&object_identifier("view", "db", "small").unwrap())
        .await
        .unwrap();
    assert_eq!(v.schema.query, "SELECT id FROM paimon.db.t WHERE id = 1");
    let rows = ctx
        .sql("SELECT * FROM paimon.db.small")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    assert_eq!(rows.iter().map(|b| b.num_rows()).sum::<usize>(), 1);
    ctx.sql("DROP VIEW paimon.db.small")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    assert!(catalog.list_views("db").await.unwrap().is_empty());
    assert!(catalog
        .table_exists(&"db.t".parse().unwrap())
        .await
        .unwrap());
}
