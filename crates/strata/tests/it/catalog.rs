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
