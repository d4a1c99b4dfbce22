//! The inner tier of strata's errors: [`ErrorDetail`], one variant per thing that can go wrong,
//! each carrying the fields its message needs. Internal code constructs details (`ErrorDetail::X
//! { .. }.into()`, or `?` on a `Result<_, ErrorDetail>`); callers only see the public
//! [`crate::Error`] built from them. Every detail maps — exhaustively, no catch-all arm — onto an
//! [`ErrorKind`], onto whether retrying may succeed, and onto the structured context its fields
//! already name (table, file, option, snapshot).

use strata_spec::SpecError;

use super::context::ErrorContext;
use super::kind::ErrorKind;

/// What went wrong, in full. `pub(crate)`: the public face is [`crate::Error`]; new details
/// can be added without breaking a caller, who matches on [`crate::Error::kind`].
#[derive(Debug, thiserror::Error)]
pub(crate) enum ErrorDetail {
    /// A metadata file (schema, snapshot, manifest, manifest list) that does not decode.
    #[error("corrupt or unreadable file {path}: {source}")]
    CorruptFile {
        path: String,
        #[source]
        source: SpecError,
    },
    /// A format error not tied to one file (e.g. while encoding).
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// Storage failure (not found, permission, network...).
    #[error("I/O error on {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: object_store::Error,
    },
    /// Local scratch-file failure (write-buffer spill files).
    #[error("local I/O error on {path}: {source}")]
    LocalIo {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A Parquet data file that cannot be read or written.
    #[error("Parquet error in {path}: {source}")]
    Parquet {
        path: String,
        #[source]
        source: parquet::errors::ParquetError,
    },
    /// An ORC or Avro data file (written by Java Paimon) that cannot be read.
    #[error("{format} error in {path}: {message}")]
    DataFile {
        format: &'static str,
        path: String,
        message: String,
    },
    /// Arrow compute/conversion failure, with what was being done.
    #[error("{context}: {source}")]
    Arrow {
        context: String,
        #[source]
        source: arrow_schema::ArrowError,
    },
    #[error("database {0} does not exist")]
    DatabaseNotFound(String),
    #[error("database {0} already exists")]
    DatabaseAlreadyExists(String),
    #[error("database {0} is not empty (drop its tables first or use cascade)")]
    DatabaseNotEmpty(String),
    #[error("table {0} does not exist")]
    TableNotFound(String),
    #[error("table {0} already exists")]
    TableAlreadyExists(String),
    /// A column named by the user does not exist.
    #[error("column {column} does not exist in {table} (columns: {available})")]
    ColumnNotFound {
        table: String,
        column: String,
        available: String,
    },
    /// A schema change adds a column, or renames one to a name, that exists already.
    #[error("column {column} already exists in {table}")]
    ColumnAlreadyExists { table: String, column: String },
    /// Input data that does not match the table schema.
    #[error("schema mismatch for column {column}: {message}")]
    SchemaMismatch { column: String, message: String },
    /// A table option that is unknown or has a bad value.
    #[error("invalid option {key}: {message}")]
    InvalidOption { key: String, message: String },
    /// A bad argument (identifier, predicate, partition spec...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A warehouse or file location that does not parse or names a store strata cannot use.
    #[error("invalid argument: {message}")]
    InvalidLocation { location: String, message: String },
    #[error("snapshot {id} does not exist in {table}")]
    SnapshotNotFound { table: String, id: i64 },
    /// Something asked for by name or id that is not there, described in full (for example a
    /// snapshot id with the ids the table has, in the `$levels` document).
    #[error("{0}")]
    NotFound(String),
    /// Something created by name that exists already, described in full (a branch or a
    /// partition a REST catalog reports as existing).
    #[cfg_attr(not(feature = "rest"), allow(dead_code))]
    #[error("{0}")]
    AlreadyExists(String),
    #[error("tag '{name}' does not exist in {table}")]
    TagNotFound { table: String, name: String },
    #[error("tag '{name}' already exists in {table}")]
    TagAlreadyExists { table: String, name: String },
    /// Another writer committed something incompatible; the commit was abandoned, nothing changed.
    #[error("commit conflict on {table}: {message}")]
    CommitConflict { table: String, message: String },
    /// Publishing a snapshot failed in a way that leaves open whether it landed (e.g. a
    /// network error on the conditional put), and retries could not tell. Nothing the commit
    /// wrote was deleted; a restarted committer with the same commit user finds out with
    /// `TableCommit::filter_committed`.
    #[error("commit outcome unknown on {table}: {message}")]
    CommitOutcomeUnknown { table: String, message: String },
    /// The write's rows were committed (snapshot `snapshot`), but the readers of the table
    /// cannot see them yet: a deletion-vector or first-row table whose batch readers skip
    /// level 0, where compacting the new level-0 files up lost to concurrent commits until
    /// the retries ran out. The committed files must be kept (`may_have_committed`); the
    /// message says what makes them visible (a compaction of their buckets).
    #[error("the write to {table} was committed in snapshot {snapshot} but is not yet visible to its readers: {message}")]
    CommittedNotVisible {
        table: String,
        snapshot: i64,
        message: String,
    },
    /// A catalog refused the caller's credentials or grant (REST 401/403).
    #[cfg_attr(not(feature = "rest"), allow(dead_code))]
    #[error("permission denied on {resource}: {message}")]
    PermissionDenied { resource: String, message: String },
    /// A catalog server (Paimon's REST catalog) failed to answer: a 5xx, a timeout, a reset
    /// connection, or an answer that does not decode. `retryable` when the request was
    /// idempotent and the failure transient.
    #[cfg_attr(not(feature = "rest"), allow(dead_code))]
    #[error("catalog server {endpoint} failed: {message}")]
    CatalogServer {
        endpoint: String,
        message: String,
        retryable: bool,
    },
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A table option whose value strata does not implement (`bucket = -2`, a non-Parquet
    /// `file.format` on write...): refused, never ignored.
    #[error("unsupported: {message}")]
    UnsupportedOption { key: String, message: String },
    /// Table metadata that breaks an LSM invariant (overlapping files in a level ≥ 1, a file
    /// moving down a level...): a bug or a corrupt table, never applied.
    #[error("LSM invariant violated: {0}")]
    Invariant(String),
    /// A task of strata panicked (a bug, or a decoder's assertion on corrupt input); what it
    /// was producing is reported as failed rather than cut short.
    #[error("{what} failed: a task panicked ({message}); nothing more of it was returned")]
    TaskPanicked { what: String, message: String },
    /// A fault armed by a test (`crate::fault`) fired at this point.
    #[cfg_attr(not(feature = "failpoints"), allow(dead_code))]
    #[error("injected fault at {0}")]
    InjectedFault(String),
}

impl ErrorDetail {
    /// The class of this detail. Exhaustive on purpose: a new detail must pick its kind.
    pub(crate) fn kind(&self) -> ErrorKind {
        use ErrorDetail as D;
        use ErrorKind::*;
        match self {
            D::DatabaseNotFound(_)
            | D::TableNotFound(_)
            | D::ColumnNotFound { .. }
            | D::SnapshotNotFound { .. }
            | D::NotFound(_)
            | D::TagNotFound { .. } => NotFound,
            D::DatabaseAlreadyExists(_)
            | D::TableAlreadyExists(_)
            | D::AlreadyExists(_)
            | D::TagAlreadyExists { .. }
            | D::ColumnAlreadyExists { .. } => AlreadyExists,
            D::CommitConflict { .. } | D::CommittedNotVisible { .. } | D::DatabaseNotEmpty(_) => {
                Conflict
            }
            D::CommitOutcomeUnknown { .. } => OutcomeUnknown,
            D::CorruptFile { .. } | D::Parquet { .. } | D::DataFile { .. } | D::Invariant(_) => {
                Corrupt
            }
            D::Unsupported(_) | D::UnsupportedOption { .. } => Unsupported,
            D::Spec(e) => spec_kind(e),
            D::SchemaMismatch { .. }
            | D::InvalidOption { .. }
            | D::InvalidArgument(_)
            | D::InvalidLocation { .. } => InvalidInput,
            D::Io { .. } | D::LocalIo { .. } | D::CatalogServer { .. } => Io,
            D::PermissionDenied { .. } => PermissionDenied,
            D::Arrow { .. } | D::TaskPanicked { .. } | D::InjectedFault(_) => Internal,
        }
    }

    /// Whether the same call may succeed if simply made again. Exhaustive on purpose; per detail:
    /// - `Io`: an object store's `Generic` error (network, HTTP 5xx, timeouts — what the
    ///   store's own retry layer gave up on) is transient; not-found, already-exists,
    ///   precondition, permission, authentication, bad path, unsupported and configuration
    ///   errors are not.
    /// - `LocalIo`: timed out, interrupted, would block; not a full disk or a missing directory.
    /// - `Parquet`: when the Parquet reader's failure is the object store's (its `External`
    ///   error), as `Io`; a file that does not decode is not.
    /// - `CommitConflict`: no — the committer already retried (`commit.max-retries`) and what
    ///   is left is a conflict retrying cannot fix, or the retries ran out; the caller re-plans
    ///   its write (re-read the table) rather than repeat the same commit.
    /// - `CommitOutcomeUnknown`: no — the snapshot may have landed; repeating the commit could
    ///   commit twice. Check with `TableCommit::filter_committed` first.
    /// - `CommittedNotVisible`: no — the rows are committed; a compaction makes them visible.
    /// - `TaskPanicked`, `InjectedFault`, `Arrow`: no (a bug, a test's fault, a computation).
    /// - Every other detail (not found, exists, bad input, unsupported, corrupt): no.
    pub(crate) fn is_retryable(&self) -> bool {
        use ErrorDetail as D;
        match self {
            D::Io { source, .. } => object_store_retryable(source),
            D::LocalIo { source, .. } => io_retryable(source),
            D::CatalogServer { retryable, .. } => *retryable,
            D::Parquet { source, .. } => match source {
                parquet::errors::ParquetError::External(e) => e
                    .downcast_ref::<object_store::Error>()
                    .is_some_and(object_store_retryable),
                _ => false,
            },
            D::CommitConflict { .. }
            | D::CommitOutcomeUnknown { .. }
            | D::CommittedNotVisible { .. }
            | D::TaskPanicked { .. }
            | D::InjectedFault(_)
            | D::Arrow { .. }
            | D::CorruptFile { .. }
            | D::Spec(_)
            | D::DataFile { .. }
            | D::DatabaseNotFound(_)
            | D::DatabaseAlreadyExists(_)
            | D::DatabaseNotEmpty(_)
            | D::TableNotFound(_)
            | D::TableAlreadyExists(_)
            | D::ColumnNotFound { .. }
            | D::ColumnAlreadyExists { .. }
            | D::SchemaMismatch { .. }
            | D::InvalidOption { .. }
            | D::InvalidArgument(_)
            | D::InvalidLocation { .. }
            | D::SnapshotNotFound { .. }
            | D::NotFound(_)
            | D::AlreadyExists(_)
            | D::TagNotFound { .. }
            | D::TagAlreadyExists { .. }
            | D::Unsupported(_)
            | D::UnsupportedOption { .. }
            | D::PermissionDenied { .. }
            | D::Invariant(_) => false,
        }
    }

    /// Whether the failed operation may still have committed a snapshot.
    pub(crate) fn may_have_committed(&self) -> bool {
        matches!(
            self,
            ErrorDetail::CommitOutcomeUnknown { .. } | ErrorDetail::CommittedNotVisible { .. }
        )
    }

    /// The context this detail's own fields name (the table of a commit conflict, the file of
    /// an I/O error, the key of an invalid option, ...). Exhaustive on purpose.
    pub(crate) fn implied_context(&self) -> ErrorContext {
        use ErrorDetail as D;
        let mut c = ErrorContext::default();
        match self {
            D::CorruptFile { path, .. }
            | D::Io { path, .. }
            | D::LocalIo { path, .. }
            | D::Parquet { path, .. }
            | D::DataFile { path, .. }
            | D::InvalidLocation { location: path, .. } => c.file = Some(path.clone()),
            D::TableNotFound(table)
            | D::TableAlreadyExists(table)
            | D::ColumnNotFound { table, .. }
            | D::ColumnAlreadyExists { table, .. }
            | D::TagNotFound { table, .. }
            | D::TagAlreadyExists { table, .. }
            | D::CommitConflict { table, .. }
            | D::CommitOutcomeUnknown { table, .. } => c.table = Some(table.clone()),
            D::SnapshotNotFound {
                table,
                id: snapshot,
            }
            | D::CommittedNotVisible {
                table, snapshot, ..
            } => {
                c.table = Some(table.clone());
                c.snapshot = Some(*snapshot);
            }
            D::InvalidOption { key, .. } | D::UnsupportedOption { key, .. } => {
                c.option = Some(key.clone())
            }
            D::Spec(e) => c.option = spec_option(e),
            D::Arrow { .. }
            | D::DatabaseNotFound(_)
            | D::DatabaseAlreadyExists(_)
            | D::DatabaseNotEmpty(_)
            | D::SchemaMismatch { .. }
            | D::InvalidArgument(_)
            | D::NotFound(_)
            | D::AlreadyExists(_)
            | D::Unsupported(_)
            | D::PermissionDenied { .. }
            | D::CatalogServer { .. }
            | D::Invariant(_)
            | D::TaskPanicked { .. }
            | D::InjectedFault(_) => {}
        }
        c
    }
}

/// The kind of a format-layer error not tied to a file: a schema change naming a missing or
/// existing column is `NotFound` / `AlreadyExists`; every other one (including a construct the
/// format layer does not support) is `InvalidInput` — the caller's schema, JSON or value.
fn spec_kind(e: &SpecError) -> ErrorKind {
    match e {
        SpecError::ColumnNotFound { .. } => ErrorKind::NotFound,
        SpecError::ColumnAlreadyExists { .. } => ErrorKind::AlreadyExists,
        SpecError::Invalid { .. }
        | SpecError::Json { .. }
        | SpecError::Avro { .. }
        | SpecError::Unsupported(_) => ErrorKind::InvalidInput,
    }
}

/// The option a format-layer error is about: its convention for a bad option value is the
/// context ``table option `<key>` `` (`strata_spec::options::validate`).
fn spec_option(e: &SpecError) -> Option<String> {
    match e {
        SpecError::Invalid { context, .. } => context
            .strip_prefix("table option `")
            .and_then(|rest| rest.strip_suffix('`'))
            .map(str::to_string),
        SpecError::Json { .. }
        | SpecError::Avro { .. }
        | SpecError::Unsupported(_)
        | SpecError::ColumnNotFound { .. }
        | SpecError::ColumnAlreadyExists { .. } => None,
    }
}

/// Transient object-store failures: `Generic` is what the store's HTTP client and retry layer
/// return for network errors, timeouts and server errors; the others say something retrying
/// does not change.
pub(crate) fn object_store_retryable(e: &object_store::Error) -> bool {
    matches!(e, object_store::Error::Generic { .. })
}

/// Transient local-disk failures.
fn io_retryable(e: &std::io::Error) -> bool {
    use std::io::ErrorKind as K;
    matches!(e.kind(), K::TimedOut | K::Interrupted | K::WouldBlock)
}
