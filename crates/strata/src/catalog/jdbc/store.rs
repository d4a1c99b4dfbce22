//! The database under a JDBC catalog: [`SqlStore`] runs Java's statements (`super::sql`) on
//! SQLite (rusqlite, its own bundled SQLite; blocking calls on tokio's blocking pool, one
//! connection per statement with a busy timeout, the journal mode left at SQLite's default as
//! sqlite-jdbc leaves it) or PostgreSQL (tokio-postgres, one shared connection re-opened when
//! it drops; no TLS). Java reaches the same database through `JdbcClientPool`'s JDBC URL:
//! `jdbc:sqlite:/path/catalog.db`, `jdbc:postgresql://host:port/database`.
//!
//! Every argument is bound as a string except the lock's expiry (`setLong` in Java), and every
//! result column is read as a string, as `JdbcUtils` does.

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use crate::error::ErrorDetail;
use crate::Result;

/// A bound statement argument (`PreparedStatement.setString` / `setLong`).
#[derive(Clone, Debug)]
pub(crate) enum SqlArg {
    Str(String),
    Long(i64),
}

impl From<&str> for SqlArg {
    fn from(s: &str) -> Self {
        SqlArg::Str(s.to_string())
    }
}

impl From<String> for SqlArg {
    fn from(s: String) -> Self {
        SqlArg::Str(s)
    }
}

/// Why a statement failed, as far as the catalog cares.
#[derive(Debug)]
pub(crate) enum SqlFailure {
    /// A unique / primary-key constraint refused the row (`JdbcUtils.isUniqueConstraintViolation`).
    UniqueViolation(String),
    /// The database was busy or locked past the busy timeout (SQLite).
    Busy(String),
    /// Anything else: connection, syntax, permission.
    Other(String),
}

impl SqlFailure {
    fn message(&self) -> &str {
        match self {
            SqlFailure::UniqueViolation(m) | SqlFailure::Busy(m) | SqlFailure::Other(m) => m,
        }
    }
}

/// The dialect of the database (Java's `DistributedLockDialectFactory.JdbcProtocol`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Protocol {
    Sqlite,
    Postgres,
}

enum Backend {
    Sqlite {
        path: PathBuf,
        busy_timeout: Duration,
    },
    Postgres {
        config: Box<tokio_postgres::Config>,
        client: tokio::sync::Mutex<Option<Arc<tokio_postgres::Client>>>,
    },
}

/// One database (cheap to clone).
#[derive(Clone)]
pub(crate) struct SqlStore {
    backend: Arc<Backend>,
    /// The JDBC URL for messages, a `password=` URL parameter masked (`jdbc.password` is the
    /// usual place of the password, and never shown).
    uri: String,
}

impl std::fmt::Debug for SqlStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqlStore").field("uri", &self.uri).finish()
    }
}

/// How long a SQLite statement waits for another connection's write lock before it fails.
const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(30);

impl SqlStore {
    /// The database of JDBC URL `uri` (`JdbcClientPool`'s `jdbc:([^:]+):(.*)`), with
    /// `jdbc.user` / `jdbc.password`. MySQL / MariaDB and any other protocol are refused.
    pub(crate) fn open(uri: &str, user: Option<&str>, password: Option<&str>) -> Result<Self> {
        let invalid = |why: &str| crate::Error::invalid_option("uri", format!("{uri}: {why}"));
        let rest = uri
            .strip_prefix("jdbc:")
            .ok_or_else(|| invalid("a JDBC URL starts with `jdbc:` (Java's JdbcClientPool)"))?;
        let (protocol, target) = rest
            .split_once(':')
            .ok_or_else(|| invalid("expected jdbc:PROTOCOL:…"))?;
        let backend = match protocol {
            "sqlite" => {
                let path = target.strip_prefix("file:").unwrap_or(target);
                if path.is_empty() || path.contains(":memory:") || path.contains('?') {
                    return Err(crate::Error::unsupported(format!(
                        "JDBC catalog uri {uri}: strata opens SQLite databases by file path \
                         (jdbc:sqlite:/path/catalog.db); in-memory databases and sqlite-jdbc URL \
                         parameters are not supported"
                    ))
                    .with_option("uri"));
                }
                Backend::Sqlite {
                    path: PathBuf::from(path),
                    busy_timeout: SQLITE_BUSY_TIMEOUT,
                }
            }
            "postgresql" => {
                let url = match target.strip_prefix("//") {
                    Some(_) => format!("postgresql:{target}"),
                    // jdbc:postgresql:database — the local server on the default port
                    None => format!("postgresql://localhost:5432/{target}"),
                };
                let mut config = tokio_postgres::Config::from_str(&url)
                    .map_err(|e| invalid(&format!("not a PostgreSQL URL strata can open: {e}")))?;
                if let Some(u) = user {
                    config.user(u);
                }
                if let Some(p) = password {
                    config.password(p);
                }
                if config.get_user().is_none() {
                    // pgjdbc's default: the operating-system user
                    let os_user = std::env::var("USER").map_err(|_| {
                        crate::Error::invalid_option(
                            "jdbc.user",
                            "a PostgreSQL JDBC catalog needs jdbc.user",
                        )
                    })?;
                    config.user(&os_user);
                }
                if config.get_connect_timeout().is_none() {
                    config.connect_timeout(Duration::from_secs(30));
                }
                Backend::Postgres {
                    config: Box::new(config),
                    client: tokio::sync::Mutex::new(None),
                }
            }
            "mysql" | "mariadb" => {
                return Err(crate::Error::unsupported(format!(
                    "JDBC catalog uri {uri}: the {protocol} protocol (Java's \
                     MysqlDistributedLockDialect) is not implemented by strata; it opens \
                     jdbc:sqlite: and jdbc:postgresql: catalogs"
                ))
                .with_option("uri"))
            }
            other => {
                return Err(crate::Error::unsupported(format!(
                    "JDBC catalog uri {uri}: protocol `{other}` is not supported (strata opens \
                     jdbc:sqlite: and jdbc:postgresql: catalogs)"
                ))
                .with_option("uri"))
            }
        };
        Ok(SqlStore {
            backend: Arc::new(backend),
            uri: redacted(uri),
        })
    }

    /// The JDBC URL, a `password=` parameter masked: for messages.
    pub(crate) fn uri(&self) -> &str {
        &self.uri
    }

    pub(crate) fn protocol(&self) -> Protocol {
        match &*self.backend {
            Backend::Sqlite { .. } => Protocol::Sqlite,
            Backend::Postgres { .. } => Protocol::Postgres,
        }
    }

    /// The error strata reports for `failure` while doing `what`.
    pub(crate) fn error(&self, what: &str, failure: &SqlFailure) -> crate::Error {
        ErrorDetail::CatalogServer {
            endpoint: self.uri.clone(),
            message: format!("{what}: {}", failure.message()),
            retryable: matches!(failure, SqlFailure::Busy(_)),
        }
        .into()
    }

    /// `executeUpdate`: the number of rows changed.
    pub(crate) async fn execute(
        &self,
        sql: &str,
        args: Vec<SqlArg>,
    ) -> std::result::Result<u64, SqlFailure> {
        match &*self.backend {
            Backend::Sqlite { path, busy_timeout } => {
                let (path, timeout, sql) = (path.clone(), *busy_timeout, sql.to_string());
                blocking(move || {
                    let conn = sqlite_open(&path, timeout)?;
                    let n = conn
                        .execute(&sql, rusqlite::params_from_iter(args.iter()))
                        .map_err(sqlite_failure)?;
                    Ok(n as u64)
                })
                .await
            }
            Backend::Postgres { .. } => {
                let client = self.pg_client().await?;
                let sql = super::sql::numbered_placeholders(sql);
                let params = pg_params(&args);
                let refs: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> =
                    params.iter().map(|p| p.as_ref() as _).collect();
                client.execute(&sql, &refs).await.map_err(pg_failure)
            }
        }
    }

    /// `executeQuery`: the values of `columns` (as strings, NULL as `None`) of each row.
    pub(crate) async fn query(
        &self,
        sql: &str,
        args: Vec<SqlArg>,
        columns: &[&str],
    ) -> std::result::Result<Vec<Vec<Option<String>>>, SqlFailure> {
        let columns: Vec<String> = columns.iter().map(|c| c.to_string()).collect();
        match &*self.backend {
            Backend::Sqlite { path, busy_timeout } => {
                let (path, timeout, sql) = (path.clone(), *busy_timeout, sql.to_string());
                blocking(move || {
                    let conn = sqlite_open(&path, timeout)?;
                    let mut stmt = conn.prepare(&sql).map_err(sqlite_failure)?;
                    let rows = stmt
                        .query_map(rusqlite::params_from_iter(args.iter()), |row| {
                            columns
                                .iter()
                                .map(|c| row.get::<_, Option<String>>(c.as_str()))
                                .collect::<rusqlite::Result<Vec<_>>>()
                        })
                        .map_err(sqlite_failure)?;
                    rows.collect::<rusqlite::Result<Vec<_>>>()
                        .map_err(sqlite_failure)
                })
                .await
            }
            Backend::Postgres { .. } => {
                let client = self.pg_client().await?;
                let sql = super::sql::numbered_placeholders(sql);
                let params = pg_params(&args);
                let refs: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> =
                    params.iter().map(|p| p.as_ref() as _).collect();
                let rows = client.query(&sql, &refs).await.map_err(pg_failure)?;
                rows.iter()
                    .map(|row| {
                        columns
                            .iter()
                            .map(|c| row.try_get::<_, Option<String>>(c.as_str()))
                            .collect::<std::result::Result<Vec<_>, _>>()
                            .map_err(pg_failure)
                    })
                    .collect()
            }
        }
    }

    /// Whether table `name` exists (Java asks `DatabaseMetaData.getTables(null, null, name,
    /// null)`: any schema the connection sees).
    pub(crate) async fn table_exists(&self, name: &str) -> std::result::Result<bool, SqlFailure> {
        let sql = match self.protocol() {
            Protocol::Sqlite => "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?",
            Protocol::Postgres => {
                "SELECT table_name::text AS name FROM information_schema.tables \
                 WHERE table_name::text = ?"
            }
        };
        Ok(!self
            .query(sql, vec![name.into()], &["name"])
            .await?
            .is_empty())
    }

    /// Creates table `name` with `ddl` unless it exists (Java's `initializeCatalogTablesIfNeed`;
    /// a concurrent creator winning the race is fine).
    pub(crate) async fn create_table_if_absent(&self, name: &str, ddl: &str) -> Result<()> {
        let what = format!("creating the JDBC catalog table {name}");
        if self
            .table_exists(name)
            .await
            .map_err(|e| self.error(&what, &e))?
        {
            return Ok(());
        }
        if let Err(e) = self.execute(ddl, Vec::new()).await {
            if !self
                .table_exists(name)
                .await
                .map_err(|e| self.error(&what, &e))?
            {
                return Err(self.error(&what, &e));
            }
        }
        Ok(())
    }

    /// The shared PostgreSQL connection, opened (again) when there is none or it closed.
    async fn pg_client(&self) -> std::result::Result<Arc<tokio_postgres::Client>, SqlFailure> {
        let Backend::Postgres { config, client } = &*self.backend else {
            return Err(SqlFailure::Other("not a PostgreSQL catalog".into()));
        };
        let mut slot = client.lock().await;
        if let Some(c) = slot.as_ref() {
            if !c.is_closed() {
                return Ok(c.clone());
            }
        }
        let (c, connection) = config
            .connect(tokio_postgres::NoTls)
            .await
            .map_err(|e| SqlFailure::Other(format!("cannot connect: {}", pg_message(&e))))?;
        tokio::spawn(async move {
            // Ends when the client is dropped or the server closes; the next call reconnects.
            let _ = connection.await;
        });
        let c = Arc::new(c);
        *slot = Some(c.clone());
        Ok(c)
    }
}

/// `uri` with the value of every `password=` parameter replaced by `***`.
fn redacted(uri: &str) -> String {
    let Some((head, query)) = uri.split_once('?') else {
        return uri.to_string();
    };
    let params: Vec<String> = query
        .split('&')
        .map(|p| match p.split_once('=') {
            Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
            _ => p.to_string(),
        })
        .collect();
    format!("{head}?{}", params.join("&"))
}

impl rusqlite::ToSql for SqlArg {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(match self {
            SqlArg::Str(s) => rusqlite::types::ToSqlOutput::from(s.as_str()),
            SqlArg::Long(v) => rusqlite::types::ToSqlOutput::from(*v),
        })
    }
}

type PgParam = Box<dyn tokio_postgres::types::ToSql + Sync + Send>;

fn pg_params(args: &[SqlArg]) -> Vec<PgParam> {
    args.iter()
        .map(|a| match a {
            SqlArg::Str(s) => Box::new(s.clone()) as PgParam,
            SqlArg::Long(v) => Box::new(*v) as PgParam,
        })
        .collect()
}

fn pg_message(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => e.to_string(),
    }
}

fn pg_failure(e: tokio_postgres::Error) -> SqlFailure {
    let message = pg_message(&e);
    if e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) {
        SqlFailure::UniqueViolation(message)
    } else {
        SqlFailure::Other(message)
    }
}

fn sqlite_open(
    path: &std::path::Path,
    busy_timeout: Duration,
) -> std::result::Result<rusqlite::Connection, SqlFailure> {
    let conn = rusqlite::Connection::open(path).map_err(|e| {
        SqlFailure::Other(format!(
            "cannot open SQLite database {}: {e}",
            path.display()
        ))
    })?;
    conn.busy_timeout(busy_timeout).map_err(sqlite_failure)?;
    Ok(conn)
}

fn sqlite_failure(e: rusqlite::Error) -> SqlFailure {
    use rusqlite::ErrorCode;
    let message = e.to_string();
    match e.sqlite_error_code() {
        Some(ErrorCode::ConstraintViolation) => SqlFailure::UniqueViolation(message),
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => {
            SqlFailure::Busy(message)
        }
        _ => SqlFailure::Other(message),
    }
}

/// Runs blocking SQLite work on tokio's blocking pool.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> std::result::Result<T, SqlFailure> + Send + 'static,
) -> std::result::Result<T, SqlFailure> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| SqlFailure::Other(format!("the SQLite task failed: {e}")))?
}
