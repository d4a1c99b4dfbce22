//! strata's error type, in two tiers as iceberg-rust and slatedb have it: the public [`Error`]
//! — a [`kind`](Error::kind) to act on, the message, the structured [`ErrorContext`] (table,
//! partition, bucket, file, option, snapshot), [`is_retryable`](Error::is_retryable),
//! [`may_have_committed`](Error::may_have_committed) and the `source()` chain — built from a
//! crate-private detail (`detail.rs`) that internal code constructs and that maps exhaustively
//! onto the kinds. `context.rs` holds the context and `kind.rs` the kinds, both leaves; the
//! crate-private `Result` extension the boundaries attach context with (`ResultExt`) is here.
//! Format errors from `strata_spec` are wrapped with the path of their file.
//!
//! [`ReportedError`] is an error reported beside a successful result (a commit that landed
//! whose compaction or expiry then failed): the kind, message and context, cloneable.

mod context;
mod detail;
mod kind;
#[cfg(test)]
mod tests;

use std::fmt::{self, Debug, Display};

use strata_spec::SpecError;

pub use context::ErrorContext;
pub(crate) use detail::ErrorDetail;
pub use kind::ErrorKind;

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error of strata's library API. `Display` is the message, then the context it does not
/// mention already (`… (table: db.t, bucket: 3)`); `source()` is the underlying error (object
/// store, Parquet, Arrow, format). Match on [`Error::kind`] to act on a class of errors.
pub struct Error {
    inner: Box<Inner>,
}

struct Inner {
    detail: ErrorDetail,
    context: ErrorContext,
}

impl Error {
    /// Bad input from the caller: an argument, identifier, predicate or value
    /// ([`ErrorKind::InvalidInput`]; the message reads `invalid argument: …`).
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        ErrorDetail::InvalidArgument(message.into()).into()
    }

    /// An option that is unknown or has a bad value ([`ErrorKind::InvalidInput`], with the
    /// key as [`ErrorContext::option`]).
    pub fn invalid_option(key: impl Into<String>, message: impl Into<String>) -> Self {
        ErrorDetail::InvalidOption {
            key: key.into(),
            message: message.into(),
        }
        .into()
    }

    /// Something strata does not implement, refused ([`ErrorKind::Unsupported`]; the message
    /// reads `unsupported: …`).
    pub fn unsupported(message: impl Into<String>) -> Self {
        ErrorDetail::Unsupported(message.into()).into()
    }

    /// An Arrow computation that failed while doing `context` ([`ErrorKind::Internal`]).
    pub fn arrow(context: impl Into<String>, source: arrow_schema::ArrowError) -> Self {
        ErrorDetail::Arrow {
            context: context.into(),
            source,
        }
        .into()
    }

    /// Wraps a spec error with the path of the file it came from.
    pub(crate) fn corrupt(path: impl Into<String>, source: SpecError) -> Self {
        ErrorDetail::CorruptFile {
            path: path.into(),
            source,
        }
        .into()
    }

    /// A Parquet file that cannot be read or written.
    pub(crate) fn parquet(path: impl Into<String>, source: parquet::errors::ParquetError) -> Self {
        ErrorDetail::Parquet {
            path: path.into(),
            source,
        }
        .into()
    }

    /// A storage failure on `path`.
    pub(crate) fn io(path: impl Into<String>, source: object_store::Error) -> Self {
        ErrorDetail::Io {
            path: path.into(),
            source,
        }
        .into()
    }

    /// The class of this error.
    pub fn kind(&self) -> ErrorKind {
        self.inner.detail.kind()
    }

    /// The message, without the context (today's wording: it names what its detail knows).
    pub fn message(&self) -> String {
        self.inner.detail.to_string()
    }

    /// What this error concerns: table, partition, bucket, file, option, snapshot.
    pub fn context(&self) -> &ErrorContext {
        &self.inner.context
    }

    /// The table this error concerns, when known.
    pub fn table(&self) -> Option<&str> {
        self.inner.context.table()
    }
    /// The partition this error concerns, when known.
    pub fn partition(&self) -> Option<&str> {
        self.inner.context.partition()
    }
    /// The bucket this error concerns, when known.
    pub fn bucket(&self) -> Option<i32> {
        self.inner.context.bucket()
    }
    /// The file this error concerns, when known.
    pub fn file(&self) -> Option<&str> {
        self.inner.context.file()
    }
    /// The option this error concerns, when known.
    pub fn option(&self) -> Option<&str> {
        self.inner.context.option()
    }
    /// The snapshot this error concerns, when known.
    pub fn snapshot(&self) -> Option<i64> {
        self.inner.context.snapshot()
    }

    /// Whether making the same call again may succeed: transient storage I/O (an object
    /// store's network, timeout or server error after its own retries; a timed-out or
    /// interrupted local read). Not for not-found, permission, corrupt data, bad input, nor
    /// for commit conflicts (the committer retried already: re-plan the write) or commits of
    /// unknown outcome (check before repeating). Each detail's answer is documented in
    /// `error/detail.rs`.
    pub fn is_retryable(&self) -> bool {
        self.inner.detail.is_retryable()
    }

    /// Whether the failed operation may still have committed a snapshot (the commit outcome
    /// is unknown, or it did commit but the rows are not yet visible): its files must then be
    /// kept, not cleaned up.
    pub fn may_have_committed(&self) -> bool {
        self.inner.detail.may_have_committed()
    }

    /// Adds the table this error concerns (kept if already known).
    pub fn with_table(mut self, table: impl Display) -> Self {
        let c = &mut self.inner.context;
        c.table.get_or_insert_with(|| table.to_string());
        self
    }
    /// Adds the partition this error concerns (kept if already known).
    pub fn with_partition(mut self, partition: impl Display) -> Self {
        let c = &mut self.inner.context;
        c.partition.get_or_insert_with(|| partition.to_string());
        self
    }
    /// Adds the bucket this error concerns (kept if already known).
    pub fn with_bucket(mut self, bucket: i32) -> Self {
        self.inner.context.bucket.get_or_insert(bucket);
        self
    }
    /// Adds the file this error concerns (kept if already known).
    pub fn with_file(mut self, file: impl Display) -> Self {
        let c = &mut self.inner.context;
        c.file.get_or_insert_with(|| file.to_string());
        self
    }
    /// Adds the option this error concerns (kept if already known).
    pub fn with_option(mut self, key: impl Display) -> Self {
        let c = &mut self.inner.context;
        c.option.get_or_insert_with(|| key.to_string());
        self
    }
    /// Adds the snapshot this error concerns (kept if already known).
    pub fn with_snapshot(mut self, snapshot: i64) -> Self {
        self.inner.context.snapshot.get_or_insert(snapshot);
        self
    }

    /// The detail (strata's own tests check which one an error is).
    #[cfg(test)]
    pub(crate) fn detail(&self) -> &ErrorDetail {
        &self.inner.detail
    }

    /// Whether this is a table that does not exist.
    pub(crate) fn is_table_not_found(&self) -> bool {
        matches!(self.inner.detail, ErrorDetail::TableNotFound(_))
    }

    /// Whether this is a snapshot that does not exist (expired, or never written).
    pub(crate) fn is_snapshot_not_found(&self) -> bool {
        matches!(self.inner.detail, ErrorDetail::SnapshotNotFound { .. })
    }

    /// This error with its detail rebuilt by `f` (to say more, e.g. which file a schema
    /// mismatch was read from): the new detail's own fields win, the context already attached
    /// fills the rest.
    pub(crate) fn map_detail(self, f: impl FnOnce(ErrorDetail) -> ErrorDetail) -> Self {
        let Inner { detail, context } = *self.inner;
        let mut e = Error::from(f(detail));
        e.inner.context.merge(context);
        e
    }

    /// The format-layer error this is (not tied to a file), or `self` back.
    pub(crate) fn into_spec(self) -> std::result::Result<SpecError, Error> {
        match *self.inner {
            Inner {
                detail: ErrorDetail::Spec(e),
                ..
            } => Ok(e),
            inner => Err(Error {
                inner: Box::new(inner),
            }),
        }
    }
}

impl From<ErrorDetail> for Error {
    fn from(detail: ErrorDetail) -> Self {
        let context = detail.implied_context();
        Error {
            inner: Box::new(Inner { detail, context }),
        }
    }
}

impl From<SpecError> for Error {
    fn from(e: SpecError) -> Self {
        ErrorDetail::Spec(e).into()
    }
}

impl Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = self.inner.detail.to_string();
        f.write_str(&message)?;
        let extra = self.inner.context.unmentioned(&message);
        if !extra.is_empty() {
            f.write_str(" (")?;
            for (i, (name, value)) in extra.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{name}: {value}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.kind())
            .field("detail", &self.inner.detail)
            .field("context", &self.inner.context)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.inner.detail)
    }
}

/// An error reported beside a result that succeeded (a commit that landed, whose compaction
/// or snapshot expiry then failed): what [`Error`] says of it, as a value that can be cloned
/// and compared. `Display` is the message (with its context).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportedError {
    kind: ErrorKind,
    message: String,
    context: ErrorContext,
    retryable: bool,
}

impl ReportedError {
    /// `e`, with `note` saying what became of the step that failed (appended to the message).
    pub(crate) fn new(e: &Error, note: &str) -> Self {
        ReportedError {
            kind: e.kind(),
            message: format!("{e}{note}"),
            context: e.context().clone(),
            retryable: e.is_retryable(),
        }
    }
    /// The class of the error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// The message, with the context it did not mention.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// What the error concerns.
    pub fn context(&self) -> &ErrorContext {
        &self.context
    }
    /// Whether the step that failed may succeed when run again ([`Error::is_retryable`]).
    pub fn is_retryable(&self) -> bool {
        self.retryable
    }
    /// `self`, with `prefix` (an earlier failure of the same step) before its message.
    pub(crate) fn after(mut self, prefix: &str) -> Self {
        self.message = format!("{prefix}{}", self.message);
        self
    }
}

impl Display for ReportedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Attaches context to the error of a `Result` at the boundary that knows it (the value is
/// formatted only when there is an error).
pub(crate) trait ResultExt<T> {
    /// The table the failed operation ran on.
    fn with_table(self, table: impl Display) -> Result<T, Error>;
    /// The file the failed operation read or wrote.
    fn with_file(self, file: impl Display) -> Result<T, Error>;
    /// The snapshot being loaded or read.
    fn with_snapshot(self, snapshot: i64) -> Result<T, Error>;
}

impl<T, E: Into<Error>> ResultExt<T> for Result<T, E> {
    fn with_table(self, table: impl Display) -> Result<T, Error> {
        self.map_err(|e| e.into().with_table(table))
    }
    fn with_file(self, file: impl Display) -> Result<T, Error> {
        self.map_err(|e| e.into().with_file(file))
    }
    fn with_snapshot(self, snapshot: i64) -> Result<T, Error> {
        self.map_err(|e| e.into().with_snapshot(snapshot))
    }
}
