//! The filesystem catalog's directory calls go through `FileIO`: failures are errors naming
//! the path, never an empty answer.

use strata::catalog::FileSystemCatalog;

/// A warehouse path that is a file, not a directory: listing its databases is an error that
/// names it (it used to read as "no databases").
#[tokio::test]
async fn a_warehouse_that_cannot_be_listed_is_an_error_not_an_empty_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    let catalog = FileSystemCatalog::open(file.to_str().unwrap()).unwrap();
    let err = catalog.list_databases().await.unwrap_err();
    assert_eq!(err.kind(), strata::ErrorKind::Io, "{err}");
    assert!(err.to_string().contains("not-a-dir"), "{err}");
    // A warehouse that does not exist yet simply has no databases.
    let fresh = FileSystemCatalog::open(dir.path().join("fresh").to_str().unwrap()).unwrap();
    assert!(fresh.list_databases().await.unwrap().is_empty());
    fresh.create_database("db", false).await.unwrap();
    assert_eq!(
        fresh.list_databases().await.unwrap(),
        vec!["db".to_string()]
    );
}

/// Java's `table-default.*` catalog options: set on tables created through the catalog unless
/// their schema sets the key, validated like the table's own options, not applied on load.
#[tokio::test]
async fn table_defaults_apply_at_create_only() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = strata::catalog::FileSystemCatalog::open(dir.path().to_str().unwrap())
        .unwrap()
        .with_table_defaults([
            ("bucket".to_string(), "3".to_string()),
            ("snapshot.num-retained.max".to_string(), "70".to_string()),
        ]);
    let schema = |opts: &str| {
        strata_spec::schema::Schema::from_json(&format!(
            r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}}],"primaryKeys":["id"],
            "options":{{{opts}}}}}"#
        ))
        .unwrap()
    };
    let a: strata::catalog::Identifier = "db.a".parse().unwrap();
    let b: strata::catalog::Identifier = "db.b".parse().unwrap();
    catalog.create_table(&a, &schema(""), false).await.unwrap();
    catalog
        .create_table(&b, &schema(r#""bucket":"2""#), false)
        .await
        .unwrap();
    let ta = catalog.get_table(&a).await.unwrap();
    let tb = catalog.get_table(&b).await.unwrap();
    assert_eq!(ta.options().get("bucket"), Some("3"));
    assert_eq!(ta.options().get("snapshot.num-retained.max"), Some("70"));
    assert_eq!(tb.options().get("bucket"), Some("2"));
    // A default strata does not implement is refused like the table's own option.
    let bad = catalog
        .clone()
        .with_table_defaults([("scan.fallback-branch".to_string(), "x".to_string())]);
    let c: strata::catalog::Identifier = "db.c".parse().unwrap();
    let e = bad.create_table(&c, &schema(""), false).await.unwrap_err();
    assert!(e.to_string().contains("scan.fallback-branch"), "{e}");
}
