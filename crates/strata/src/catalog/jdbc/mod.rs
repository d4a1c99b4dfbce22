//! Paimon's JDBC catalog (`metastore = jdbc`), as Java's `org.apache.paimon.jdbc.JdbcCatalog`
//! defines it: databases and tables are rows of a SQL database (SQLite or PostgreSQL) and the
//! tables' files live in the warehouse exactly as the filesystem catalog lays them out
//! (`<warehouse>/<db>.db/<table>`, written through
//! [`FileSystemCatalog`](crate::catalog::FileSystemCatalog)), so Java's `JdbcCatalog` and strata
//! share one catalog: the same tables and rows (`sql`), the same `exists` row per database, the
//! same table-property rows (`sync-all-properties`), the same lock rows (`lock`).
//!
//! | file | what |
//! |---|---|
//! | `catalog` | [`JdbcCatalog`]: options, the tables at open, the rows and locks its operations use |
//! | `operations` | the `Catalog` operations (Java's `JdbcCatalog` method by method) |
//! | `sql` | Java's `JdbcUtils` statements and the lock dialects' SQL, verbatim |
//! | `store` | the database: SQLite (rusqlite) or PostgreSQL (tokio-postgres) |
//! | `lock` | `JdbcCatalogLock` and the commit under it (`JdbcSnapshotCommit`) |
//! | `views` | views in `paimon_views` (Java 2.0's `JdbcCatalog` view methods) |
//!
//! Options (Java's names): `uri` (`jdbc:sqlite:/path/cat.db`, `jdbc:postgresql://host:port/db`;
//! MySQL refused), `warehouse`, `catalog-key` (default `jdbc`), `jdbc.user`, `jdbc.password`,
//! `lock.enabled` (default: on for object-store warehouses, as `AbstractCatalog.lockEnabled`),
//! `lock.type` (only `jdbc`), `lock-check-max-sleep` (8 s), `lock-acquire-timeout` (8 min),
//! `lock-key-max-length` (255), `sync-all-properties` (true), `client-pool-size` (validated;
//! strata opens one SQLite connection per statement and keeps one PostgreSQL connection), plus
//! the options every catalog takes (`s3.*`, `table-default.*`). Other `jdbc.*` driver
//! properties are refused by name.
//!
//! Where strata differs, on purpose: `drop_database(cascade)` also deletes the dropped tables'
//! directories (Java leaves them, and then cannot create a table of the same name again);
//! `create_table` creates a missing database as every strata catalog does (Java requires it).
//! Branch identifiers (`t$branch_b`) are refused as Java's `JdbcCatalog` refuses them
//! (`assertMainBranch`). Views are kept as Java 2.0 keeps them (`views`); functions are refused
//! by name, as Java's `JdbcCatalog` has none.

mod catalog;
mod lock;
mod operations;
mod sql;
mod store;
#[cfg(test)]
mod tests;
mod views;

pub(crate) use catalog::JdbcCatalog;
