//! Catalogs: where a lake's databases and tables are found, created, altered and dropped, and
//! who decides a table's commits — [`Catalog`], Java's `org.apache.paimon.catalog.Catalog`.
//!
//! | file | what |
//! |---|---|
//! | `contract` | the [`Catalog`] trait and [`CatalogSnapshotCommit`] (a catalog deciding commits) |
//! | [`filesystem`] | [`FileSystemCatalog`]: a warehouse directory, as Java's `FileSystemCatalog` |
//!
//! Front ends (CLI, SQL, Python) hold an `Arc<dyn Catalog>`. A new catalog (Paimon's REST
//! catalog, JDBC) is a new file here implementing the trait; if it decides commits on its side
//! (REST), its [`Catalog::get_table`] gives each table a [`CatalogSnapshotCommit`] so the commit
//! protocol publishes through [`Catalog::commit_snapshot`] instead of the warehouse's
//! create-if-absent ([`crate::table::SnapshotCommit`]).

mod contract;
pub mod filesystem;

pub use crate::table::Identifier;
pub use contract::{Catalog, CatalogSnapshotCommit};
pub use filesystem::{FileSystemCatalog, DB_SUFFIX};
