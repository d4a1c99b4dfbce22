//! strata's error type. Every variant carries what a user needs to act: the table, file,
//! column or option involved. Format errors from `strata_spec` are wrapped with the path of the
//! file they came from.

use strata_spec::SpecError;

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Errors returned by strata's library API. New variants may be added; match on
/// [`Error::kind`] to act on a class of errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
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
    #[error("snapshot {id} does not exist in {table}")]
    SnapshotNotFound { table: String, id: i64 },
    /// Something asked for by name or id that is not there, described in full (for example a
    /// snapshot id with the ids the table has, in [`crate::system::levels_svg::levels_doc`]).
    #[error("{0}")]
    NotFound(String),
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
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// Table metadata that breaks an LSM invariant (overlapping files in a level ≥ 1, a file
    /// moving down a level...): a bug or a corrupt table, never applied.
    #[error("LSM invariant violated: {0}")]
    Invariant(String),
    /// A task of strata panicked (a bug, or a decoder's assertion on corrupt input); what it
    /// was producing is reported as failed rather than cut short.
    #[error("{what} failed: a task panicked ({message}); nothing more of it was returned")]
    TaskPanicked { what: String, message: String },
    /// A fault armed by a test (`crate::fault`) fired at this point.
    #[error("injected fault at {0}")]
    InjectedFault(String),
}

/// The class of an [`Error`]: what a caller can act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A database, table, column or snapshot that does not exist.
    NotFound,
    /// A database, table or column that exists already.
    AlreadyExists,
    /// A commit that lost to a concurrent one in a way retrying cannot fix (or ran out of
    /// retries), or a database that is not empty. Nothing was committed — except for
    /// [`Error::CommittedNotVisible`], whose rows were committed but are not yet visible.
    Conflict,
    /// A commit that may or may not have landed ([`Error::may_have_committed`]).
    OutcomeUnknown,
    /// A file on storage that does not decode or breaks the format's or the LSM's invariants.
    Corrupt,
    /// A feature, option value or table strata does not implement (refused, never ignored).
    Unsupported,
    /// Bad input from the caller: an option value, an argument, a schema that does not match.
    InvalidInput,
    /// Storage I/O (object store or local disk).
    Io,
    /// A bug in strata (a task panicked), an Arrow computation error, or an injected fault.
    Internal,
}

impl Error {
    /// The class of this error.
    pub fn kind(&self) -> ErrorKind {
        use ErrorKind::*;
        match self {
            Error::DatabaseNotFound(_)
            | Error::TableNotFound(_)
            | Error::ColumnNotFound { .. }
            | Error::SnapshotNotFound { .. }
            | Error::NotFound(_)
            | Error::TagNotFound { .. }
            | Error::Spec(SpecError::ColumnNotFound { .. }) => NotFound,
            Error::DatabaseAlreadyExists(_)
            | Error::TableAlreadyExists(_)
            | Error::TagAlreadyExists { .. }
            | Error::ColumnAlreadyExists { .. }
            | Error::Spec(SpecError::ColumnAlreadyExists { .. }) => AlreadyExists,
            Error::CommitConflict { .. }
            | Error::CommittedNotVisible { .. }
            | Error::DatabaseNotEmpty(_) => Conflict,
            Error::CommitOutcomeUnknown { .. } => OutcomeUnknown,
            Error::CorruptFile { .. }
            | Error::Parquet { .. }
            | Error::DataFile { .. }
            | Error::Invariant(_) => Corrupt,
            Error::Unsupported(_) => Unsupported,
            Error::Spec(_)
            | Error::SchemaMismatch { .. }
            | Error::InvalidOption { .. }
            | Error::InvalidArgument(_) => InvalidInput,
            Error::Io { .. } | Error::LocalIo { .. } => Io,
            Error::Arrow { .. } | Error::TaskPanicked { .. } | Error::InjectedFault(_) => Internal,
        }
    }

    /// Whether the failed operation may still have committed a snapshot
    /// ([`Error::CommitOutcomeUnknown`], or it did: [`Error::CommittedNotVisible`]): its files
    /// must then be kept, not cleaned up.
    pub fn may_have_committed(&self) -> bool {
        matches!(
            self,
            Error::CommitOutcomeUnknown { .. } | Error::CommittedNotVisible { .. }
        )
    }

    /// Wraps a spec error with the path of the file it came from.
    pub fn corrupt(path: impl Into<String>, source: SpecError) -> Self {
        Error::CorruptFile {
            path: path.into(),
            source,
        }
    }
    pub fn arrow(context: impl Into<String>, source: arrow_schema::ArrowError) -> Self {
        Error::Arrow {
            context: context.into(),
            source,
        }
    }
    pub fn parquet(path: impl Into<String>, source: parquet::errors::ParquetError) -> Self {
        Error::Parquet {
            path: path.into(),
            source,
        }
    }
    pub fn io(path: impl Into<String>, source: object_store::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_classify_what_a_caller_acts_on() {
        assert_eq!(
            Error::TableNotFound("db.t".into()).kind(),
            ErrorKind::NotFound
        );
        let conflict = Error::CommitConflict {
            table: "db.t".into(),
            message: "m".into(),
        };
        assert_eq!(conflict.kind(), ErrorKind::Conflict);
        assert!(!conflict.may_have_committed());
        let unknown = Error::CommitOutcomeUnknown {
            table: "db.t".into(),
            message: "m".into(),
        };
        assert_eq!(unknown.kind(), ErrorKind::OutcomeUnknown);
        assert!(unknown.may_have_committed());
        assert_eq!(
            Error::Unsupported("x".into()).kind(),
            ErrorKind::Unsupported
        );
        assert_eq!(
            Error::InvalidOption {
                key: "bucket".into(),
                message: "m".into()
            }
            .kind(),
            ErrorKind::InvalidInput
        );
    }
}
