//! strata's REST client (`strata::catalog::rest::RestCatalog`, Java's `RESTCatalog`) on views
//! and functions against an in-process `strata serve` whose pages hold two entries, so every
//! listing follows `nextPageToken`: the `Catalog` trait's calls, the client's name patterns
//! (`viewNamePattern`, `functionNamePattern`, `databaseNamePattern`), `*-details` and the
//! catalog-wide listings, and the errors as strata's kinds. (The same calls against Java's
//! `RESTCatalogServer`, with Java's `RESTCatalog` reading back: `tests/interop/
//! test_rest_views_client.py`.)

#[path = "support/mod.rs"]
mod support;

use std::collections::BTreeMap;

use strata::catalog::rest::RestCatalog;
use strata::catalog::{
    object_identifier, Catalog, Function, FunctionChange, FunctionDefinition, Identifier, View,
    ViewChange,
};
use strata::spec::DataField;
use strata::ErrorKind;

use support::Running;

fn fields() -> Vec<DataField> {
    let schema = arrow::datatypes::Schema::new(vec![
        arrow::datatypes::Field::new("id", arrow::datatypes::DataType::Int32, false),
        arrow::datatypes::Field::new("name", arrow::datatypes::DataType::Utf8, true),
    ]);
    strata::arrow::from_arrow_schema(&schema).unwrap().fields
}

fn view(db: &str, name: &str) -> View {
    let id = object_identifier("view", db, name).unwrap();
    let mut v = View::new(
        id,
        fields(),
        format!("SELECT id, name FROM {db}.t"),
        Some("spark"),
    );
    v.schema.comment = Some(format!("view {name}"));
    v.schema.options.insert("k".into(), name.into());
    v
}

fn fid(db: &str, name: &str) -> Identifier {
    Identifier {
        database: db.into(),
        table: name.into(),
        branch: None,
    }
}

fn function(db: &str, name: &str) -> Function {
    let defs = BTreeMap::from([(
        "trino".to_string(),
        FunctionDefinition::Sql {
            definition: "x + 1".into(),
        },
    )]);
    let mut f = Function::new(fid(db, name), defs);
    f.input_params = Some(fields());
    f.comment = Some("plus one".into());
    f
}

fn names(ids: &[Identifier]) -> Vec<String> {
    ids.iter()
        .map(|i| format!("{}.{}", i.database, i.table))
        .collect()
}

#[tokio::test]
async fn views_through_strata_serve_with_small_pages() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start_with(dir.path(), |c| c.max_results = 2).await;
    let c = RestCatalog::open(&s.client_options()).await.unwrap();
    c.create_database("a", false).await.unwrap();
    c.create_database("b", false).await.unwrap();
    for (db, v) in [
        ("a", "v1"),
        ("a", "v2"),
        ("a", "w1"),
        ("b", "v3"),
        ("b", "x"),
    ] {
        c.create_view(&view(db, v), false).await.unwrap();
    }
    assert_eq!(c.list_views("a").await.unwrap(), ["v1", "v2", "w1"]);
    assert_eq!(
        c.list_views_matching("a", Some("v%")).await.unwrap(),
        ["v1", "v2"]
    );
    let details = c.list_view_details("a", Some("w%")).await.unwrap();
    assert_eq!(details, [view("a", "w1")]);
    assert_eq!(c.list_view_details("b", None).await.unwrap().len(), 2);
    assert_eq!(
        names(&c.list_views_globally(None, Some("v%")).await.unwrap()),
        ["a.v1", "a.v2", "b.v3"]
    );
    assert_eq!(
        names(&c.list_views_globally(Some("b%"), None).await.unwrap()),
        ["b.v3", "b.x"]
    );
    let got = c.get_view(&view("a", "v1").identifier).await.unwrap();
    assert_eq!(got, view("a", "v1"));
    assert_eq!(got.query_for("flink"), "SELECT id, name FROM a.t");

    // Errors as strata's kinds.
    let e = c.create_view(&view("a", "v1"), false).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists, "{e}");
    c.create_view(&view("a", "v1"), true).await.unwrap();
    let e = c.create_view(&view("nodb", "v"), false).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    assert!(e.to_string().contains("nodb"), "{e}");
    let missing = object_identifier("view", "a", "nope").unwrap();
    let e = c.get_view(&missing).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    assert!(e.to_string().contains("view a.nope does not exist"), "{e}");
    c.drop_view(&missing, true).await.unwrap();
    assert_eq!(
        c.list_views("nodb").await.unwrap_err().kind(),
        ErrorKind::NotFound
    );

    // Alter, rename, drop.
    let v1 = view("a", "v1").identifier;
    c.alter_view(
        &v1,
        vec![
            ViewChange::SetOption {
                key: "x".into(),
                value: "y".into(),
            },
            ViewChange::AddDialect {
                dialect: "datafusion".into(),
                query: "SELECT 1 AS id, 'a' AS name".into(),
            },
            ViewChange::UpdateComment { comment: None },
        ],
        false,
    )
    .await
    .unwrap();
    let got = c.get_view(&v1).await.unwrap();
    assert_eq!(got.schema.options["x"], "y");
    assert_eq!(got.schema.comment, None);
    assert_eq!(got.query_for("datafusion"), "SELECT 1 AS id, 'a' AS name");
    let e = c
        .alter_view(
            &v1,
            vec![ViewChange::DropDialect {
                dialect: "hive".into(),
            }],
            false,
        )
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    assert!(e.to_string().contains("dialect hive"), "{e}");
    c.alter_view(&missing, vec![], true).await.unwrap();

    let v9 = object_identifier("view", "a", "v9").unwrap();
    c.rename_view(&v1, &v9, false).await.unwrap();
    assert_eq!(c.list_views("a").await.unwrap(), ["v2", "v9", "w1"]);
    let v2 = view("a", "v2").identifier;
    let e = c.rename_view(&v2, &v9, false).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists, "{e}");
    c.rename_view(&missing, &v9, true).await.unwrap();
    c.drop_view(&v9, false).await.unwrap();
    let e = c.drop_view(&v9, false).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    s.stop().await;
}

#[tokio::test]
async fn functions_through_strata_serve_with_small_pages() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start_with(dir.path(), |c| c.max_results = 2).await;
    let c = RestCatalog::open(&s.client_options()).await.unwrap();
    c.create_database("a", false).await.unwrap();
    c.create_database("b", false).await.unwrap();
    for (db, f) in [("a", "f1"), ("a", "f2"), ("a", "my.fn"), ("b", "f3")] {
        c.create_function(&function(db, f), false).await.unwrap();
    }
    assert_eq!(c.list_functions("a").await.unwrap(), ["f1", "f2", "my.fn"]);
    assert_eq!(
        c.list_functions_matching("a", Some("f%")).await.unwrap(),
        ["f1", "f2"]
    );
    let details = c.list_function_details("a", Some("my%")).await.unwrap();
    assert_eq!(details, [function("a", "my.fn")]);
    assert_eq!(
        names(&c.list_functions_globally(None, Some("f%")).await.unwrap()),
        ["a.f1", "a.f2", "b.f3"]
    );
    assert_eq!(
        c.get_function(&fid("a", "my.fn")).await.unwrap(),
        function("a", "my.fn")
    );

    c.alter_function(
        &fid("a", "f1"),
        vec![
            FunctionChange::AddDefinition {
                name: "spark".into(),
                definition: FunctionDefinition::Lambda {
                    definition: "(x) -> x + 1".into(),
                    language: Some("JAVA".into()),
                },
            },
            FunctionChange::SetOption {
                key: "k".into(),
                value: "v".into(),
            },
        ],
        false,
    )
    .await
    .unwrap();
    let f1 = c.get_function(&fid("a", "f1")).await.unwrap();
    assert_eq!(f1.definitions.len(), 2);
    assert_eq!(f1.options["k"], "v");
    let e = c
        .alter_function(
            &fid("a", "f1"),
            vec![FunctionChange::AddDefinition {
                name: "spark".into(),
                definition: FunctionDefinition::Sql {
                    definition: "x".into(),
                },
            }],
            false,
        )
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists, "{e}");

    // Java's RESTFunctionValidator: refused before any call; a missing one is NotFound.
    let e = c
        .create_function(&function("a", "bad name"), false)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    let e = c.get_function(&fid("a", "123")).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    let e = c
        .create_function(&function("a", "f2"), false)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists, "{e}");
    c.create_function(&function("a", "f2"), true).await.unwrap();
    c.drop_function(&fid("a", "f2"), false).await.unwrap();
    let e = c.drop_function(&fid("a", "f2"), false).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    c.drop_function(&fid("a", "f2"), true).await.unwrap();
    assert_eq!(c.list_functions("a").await.unwrap(), ["f1", "my.fn"]);
    s.stop().await;
}
