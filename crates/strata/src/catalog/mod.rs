//! Catalogs: where a lake's databases and tables are found, created, altered and dropped, and
//! who decides a table's commits — [`Catalog`], Java's `org.apache.paimon.catalog.Catalog`.
//!
//! | file | what |
//! |---|---|
//! | `contract` | the [`Catalog`] trait and [`CatalogSnapshotCommit`] (a catalog deciding commits) |
//! | `objects` | [`View`] and [`Function`], the objects a REST catalog keeps besides tables (the other catalogs refuse them by name) |
//! | `options` | the catalog options every catalog shares (`warehouse`, `s3.*`, `table-default.*`), refused by name when nothing honours them |
//! | [`filesystem`] | [`FileSystemCatalog`]: a warehouse directory, as Java's `FileSystemCatalog` |
//!
//! Front ends (CLI, SQL, Python, the REST server) open a catalog with [`open`] from Paimon's
//! catalog options (`metastore`, `warehouse`, `uri`, ...) and hold an `Arc<dyn Catalog>`. A new
//! catalog (Paimon's REST catalog, JDBC) is a new module here implementing the trait plus one
//! arm in [`open`]; if it decides commits on its side (REST), its [`Catalog::get_table`] gives
//! each table a [`SnapshotCommit`](crate::table::SnapshotCommit) that asks it (such as
//! [`CatalogSnapshotCommit`]) so the commit protocol publishes through
//! [`Catalog::commit_snapshot`] with the [`CommitContext`] (base snapshot uuid, branch,
//! partition statistics) instead of the warehouse's create-if-absent.

use std::collections::BTreeMap;
use std::sync::Arc;

mod contract;
pub mod filesystem;
#[cfg(feature = "jdbc")]
mod jdbc;
mod objects;
pub(crate) mod options;
#[cfg(feature = "rest")]
pub mod rest;

pub use crate::table::{CommitContext, Identifier, RollbackInstant};
pub use contract::{Catalog, CatalogSnapshotCommit};
pub use filesystem::{FileSystemCatalog, DB_SUFFIX};
pub use objects::{
    object_identifier, Function, FunctionChange, FunctionDefinition, FunctionFileResource, View,
    ViewChange, ViewSchema, DATAFUSION_DIALECT,
};
pub use options::TABLE_DEFAULT_PREFIX;
pub use strata_spec::partition::PartitionStatistics;

use crate::error::ErrorDetail;
use crate::Result;

/// Opens the catalog Paimon's catalog `options` describe (Java's `CatalogFactory.createCatalog`;
/// the same keys pypaimon and Flink/Spark take): `metastore` = `filesystem` (the default; needs
/// `warehouse`, takes the `s3.*` settings of an `s3://` warehouse and `table-default.*`). Every
/// key is honoured or refused by name.
pub async fn open(options: &BTreeMap<String, String>) -> Result<Arc<dyn Catalog>> {
    let metastore = options
        .get("metastore")
        .map(String::as_str)
        .unwrap_or("filesystem");
    match metastore {
        "filesystem" => Ok(Arc::new(open_filesystem(options)?)),
        #[cfg(feature = "rest")]
        "rest" => rest::RestCatalog::open(options)
            .await
            .map(|c| Arc::new(c) as Arc<dyn Catalog>),
        #[cfg(feature = "jdbc")]
        "jdbc" => jdbc::JdbcCatalog::open(options)
            .await
            .map(|c| Arc::new(c) as Arc<dyn Catalog>),
        other => Err(ErrorDetail::UnsupportedOption {
            key: "metastore".into(),
            message: format!(
                "metastore = {other}: strata opens the catalogs filesystem (the default){}",
                OTHER_METASTORES
            ),
        }
        .into()),
    }
}

/// The metastores besides `filesystem` this build opens, for the refusal of another.
const OTHER_METASTORES: &str = match (cfg!(feature = "rest"), cfg!(feature = "jdbc")) {
    (true, true) => ", rest and jdbc",
    (true, false) => " and rest",
    (false, true) => " and jdbc",
    (false, false) => "",
};

/// The filesystem arm of [`open`].
fn open_filesystem(options: &BTreeMap<String, String>) -> Result<FileSystemCatalog> {
    let parsed = options::split(options, &|_| false, "")?;
    let warehouse = parsed.warehouse.ok_or_else(|| ErrorDetail::InvalidOption {
        key: "warehouse".into(),
        message: "a filesystem catalog needs `warehouse` (a directory, s3://bucket/path or \
                  memory://name)"
            .into(),
    })?;
    Ok(
        FileSystemCatalog::open_with_options(&warehouse, &parsed.io)?
            .with_table_defaults(parsed.table_defaults),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn open_dispatches_and_refuses_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let o: BTreeMap<String, String> = [("warehouse", dir.path().to_str().unwrap())]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let c = open(&o).await.unwrap();
        c.create_database("db", false).await.unwrap();
        assert_eq!(c.list_databases().await.unwrap(), vec!["db".to_string()]);

        let mut bad = o.clone();
        bad.insert("metastore".into(), "hive".into());
        let e = open(&bad).await.unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Unsupported);
        assert!(e.to_string().contains("metastore = hive"), "{e}");

        let e = open(&BTreeMap::new()).await.unwrap_err();
        assert!(e.to_string().contains("warehouse"), "{e}");
    }
}
