//! The SQL of Java's JDBC catalog, statement for statement: `JdbcUtils`' constants (tables,
//! DDL, queries) and the distributed-lock dialects (`SqlLiteDistributedLockDialect`,
//! `PostgresqlDistributedLockDialect`). Kept verbatim, with `?` placeholders, so a database
//! shared with Java's `JdbcCatalog` holds the same tables, rows and lock rows; the PostgreSQL
//! store numbers the placeholders (`$1`, `$2`, …) when it runs them.

/// `JdbcUtils.CATALOG_TABLE_NAME`: one row per table.
pub(crate) const CATALOG_TABLE_NAME: &str = "paimon_tables";
/// `JdbcUtils.DATABASE_PROPERTIES_TABLE_NAME`: database properties (and the `exists` row).
pub(crate) const DATABASE_PROPERTIES_TABLE_NAME: &str = "paimon_database_properties";
/// `JdbcUtils.TABLE_PROPERTIES_TABLE_NAME`: table properties (`sync-all-properties`).
pub(crate) const TABLE_PROPERTIES_TABLE_NAME: &str = "paimon_table_properties";
/// `JdbcUtils.DISTRIBUTED_LOCKS_TABLE_NAME`: the lock rows of `JdbcCatalogLock`.
pub(crate) const DISTRIBUTED_LOCKS_TABLE_NAME: &str = "paimon_distributed_locks";
/// `JdbcUtils.VIEW_TABLE_NAME`: one row per view, its `ViewSchema` JSON in `view_schema`.
pub(crate) const VIEW_TABLE_NAME: &str = "paimon_views";

pub(crate) const CREATE_CATALOG_TABLE: &str = "CREATE TABLE paimon_tables(catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL,table_name VARCHAR(255) NOT NULL, PRIMARY KEY (catalog_key, database_name, table_name))";
pub(crate) const GET_TABLE_SQL: &str =
    "SELECT * FROM paimon_tables WHERE catalog_key = ? AND database_name = ? AND table_name = ? ";
pub(crate) const LIST_TABLES_SQL: &str =
    "SELECT * FROM paimon_tables WHERE catalog_key = ? AND database_name = ?";
pub(crate) const DELETE_TABLES_SQL: &str =
    "DELETE FROM  paimon_tables WHERE catalog_key = ? AND database_name = ?";
pub(crate) const DROP_TABLE_SQL: &str =
    "DELETE FROM paimon_tables WHERE catalog_key = ? AND database_name = ? AND table_name = ? ";
pub(crate) const GET_DATABASE_SQL: &str =
    "SELECT database_name FROM paimon_tables WHERE catalog_key = ? AND database_name = ? LIMIT 1";
pub(crate) const LIST_ALL_TABLE_DATABASES_SQL: &str =
    "SELECT DISTINCT database_name FROM paimon_tables WHERE catalog_key = ?";
pub(crate) const DO_COMMIT_CREATE_TABLE_SQL: &str =
    "INSERT INTO paimon_tables (catalog_key, database_name, table_name)  VALUES (?,?,?)";

pub(crate) const CREATE_DATABASE_PROPERTIES_TABLE: &str = "CREATE TABLE paimon_database_properties(catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL,property_key VARCHAR(255),property_value VARCHAR(1000),PRIMARY KEY (catalog_key, database_name, property_key))";
pub(crate) const GET_DATABASE_PROPERTIES_SQL: &str =
    "SELECT database_name FROM paimon_database_properties WHERE catalog_key = ? AND database_name = ? ";
pub(crate) const INSERT_DATABASE_PROPERTIES_SQL: &str = "INSERT INTO paimon_database_properties (catalog_key, database_name, property_key, property_value) VALUES ";
pub(crate) const INSERT_PROPERTIES_VALUES_BASE: &str = "(?,?,?,?)";
/// (Read by the tests: the catalog itself exposes no database properties.)
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const GET_ALL_DATABASE_PROPERTIES_SQL: &str =
    "SELECT *  FROM paimon_database_properties WHERE catalog_key = ? AND database_name = ? ";
pub(crate) const DELETE_ALL_DATABASE_PROPERTIES_SQL: &str =
    "DELETE FROM paimon_database_properties WHERE catalog_key = ? AND database_name = ?";
pub(crate) const LIST_ALL_PROPERTY_DATABASES_SQL: &str =
    "SELECT DISTINCT database_name FROM paimon_database_properties WHERE catalog_key = ?";

pub(crate) const CREATE_TABLE_PROPERTIES_TABLE: &str = "CREATE TABLE paimon_table_properties(catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL,table_name VARCHAR(255) NOT NULL,property_key VARCHAR(255) NOT NULL,property_value VARCHAR(1000),PRIMARY KEY (catalog_key, database_name, table_name, property_key))";
pub(crate) const INSERT_TABLE_PROPERTIES_SQL: &str = "INSERT INTO paimon_table_properties (catalog_key, database_name, table_name, property_key, property_value) VALUES ";
pub(crate) const INSERT_TABLE_PROPERTIES_VALUES_BASE: &str = "(?,?,?,?,?)";
pub(crate) const DELETE_ALL_TABLE_PROPERTIES_SQL: &str =
    "DELETE FROM paimon_table_properties WHERE catalog_key = ? AND database_name = ? AND table_name = ?";
pub(crate) const DELETE_ALL_TABLE_PROPERTIES_FOR_DB_SQL: &str =
    "DELETE FROM paimon_table_properties WHERE catalog_key = ? AND database_name = ?";

pub(crate) const CREATE_VIEW_TABLE: &str = "CREATE TABLE paimon_views(catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL,view_name VARCHAR(255) NOT NULL,view_schema TEXT NOT NULL, PRIMARY KEY (catalog_key, database_name, view_name))";
pub(crate) const GET_VIEW_SQL: &str =
    "SELECT * FROM paimon_views WHERE catalog_key = ? AND database_name = ? AND view_name = ? ";
pub(crate) const GET_VIEW_DATABASE_SQL: &str =
    "SELECT database_name FROM paimon_views WHERE catalog_key = ? AND database_name = ? LIMIT 1";
pub(crate) const LIST_VIEWS_SQL: &str =
    "SELECT * FROM paimon_views WHERE catalog_key = ? AND database_name = ?";
pub(crate) const DELETE_VIEWS_SQL: &str =
    "DELETE FROM  paimon_views WHERE catalog_key = ? AND database_name = ?";
pub(crate) const INSERT_VIEW_SQL: &str = "INSERT INTO paimon_views (catalog_key, database_name, view_name, view_schema)  VALUES (?,?,?,?)";
pub(crate) const DROP_VIEW_SQL: &str =
    "DELETE FROM paimon_views WHERE catalog_key = ? AND database_name = ? AND view_name = ? ";
pub(crate) const RENAME_VIEW_SQL: &str = "UPDATE paimon_views SET database_name = ? , view_name = ?  WHERE catalog_key = ? AND database_name = ? AND view_name = ? ";
pub(crate) const UPDATE_VIEW_SQL: &str = "UPDATE paimon_views SET view_schema = ?  WHERE catalog_key = ? AND database_name = ? AND view_name = ? ";
pub(crate) const LIST_ALL_VIEW_DATABASES_SQL: &str =
    "SELECT DISTINCT database_name FROM paimon_views WHERE catalog_key = ?";

/// The lock table of both dialects (`getCreateTableSql`), `%s` = `lock-key-max-length`.
pub(crate) fn create_distributed_locks_table(lock_key_max_length: u32) -> String {
    format!(
        "CREATE TABLE paimon_distributed_locks(lock_id VARCHAR({lock_key_max_length}) NOT NULL,acquired_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,expire_time_seconds BIGINT DEFAULT 0 NOT NULL,PRIMARY KEY (lock_id))"
    )
}
/// `getLockAcquireSql` (both dialects): the insert that takes the lock, or fails on the key.
pub(crate) const LOCK_ACQUIRE_SQL: &str =
    "INSERT INTO paimon_distributed_locks (lock_id,expire_time_seconds) VALUES (?,?)";
/// `getReleaseLockSql` (both dialects).
pub(crate) const RELEASE_LOCK_SQL: &str = "DELETE FROM paimon_distributed_locks WHERE lock_id = ?";
/// `SqlLiteDistributedLockDialect.getTryReleaseTimedOutLock`.
pub(crate) const SQLITE_RELEASE_TIMED_OUT_LOCK_SQL: &str = "DELETE FROM paimon_distributed_locks WHERE  strftime('%s', 'now') - strftime('%s', acquired_at) > expire_time_seconds and lock_id = ?";
/// `PostgresqlDistributedLockDialect.getTryReleaseTimedOutLock`.
pub(crate) const POSTGRES_RELEASE_TIMED_OUT_LOCK_SQL: &str = "DELETE FROM paimon_distributed_locks WHERE EXTRACT(EPOCH FROM AGE(NOW(), acquired_at)) >expire_time_seconds and lock_id = ?";

/// `JdbcUtils.insertPropertiesStatement(n)`: one multi-row insert.
pub(crate) fn insert_database_properties(n: usize) -> String {
    repeat_values(
        INSERT_DATABASE_PROPERTIES_SQL,
        INSERT_PROPERTIES_VALUES_BASE,
        n,
    )
}

/// `JdbcUtils.insertTablePropertiesStatement(n)`.
pub(crate) fn insert_table_properties(n: usize) -> String {
    repeat_values(
        INSERT_TABLE_PROPERTIES_SQL,
        INSERT_TABLE_PROPERTIES_VALUES_BASE,
        n,
    )
}

fn repeat_values(head: &str, values: &str, n: usize) -> String {
    let mut sql = head.to_string();
    for i in 0..n {
        if i != 0 {
            sql.push_str(", ");
        }
        sql.push_str(values);
    }
    sql
}

/// `?` placeholders numbered for PostgreSQL (`$1`, `$2`, …). None of the statements above has
/// a `?` inside a literal.
pub(crate) fn numbered_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut n = 0;
    for c in sql.chars() {
        if c == '?' {
            n += 1;
            out.push('$');
            out.push_str(&n.to_string());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_as_java_builds_them() {
        assert_eq!(
            insert_database_properties(2),
            "INSERT INTO paimon_database_properties (catalog_key, database_name, property_key, \
             property_value) VALUES (?,?,?,?), (?,?,?,?)"
        );
        assert_eq!(
            numbered_placeholders(LOCK_ACQUIRE_SQL),
            "INSERT INTO paimon_distributed_locks (lock_id,expire_time_seconds) VALUES ($1,$2)"
        );
        assert!(create_distributed_locks_table(255).contains("lock_id VARCHAR(255) NOT NULL"));
    }
}
