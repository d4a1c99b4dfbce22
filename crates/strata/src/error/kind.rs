//! [`ErrorKind`]: the class of a strata error, what a caller acts on (retry, report the
//! missing table, fix the input...). A leaf: every detail maps onto one (`detail.rs`).

use std::fmt::{self, Display};

/// The class of an `Error`: what a caller can act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A database, table, column or snapshot that does not exist.
    NotFound,
    /// A database, table or column that exists already.
    AlreadyExists,
    /// A commit that lost to a concurrent one in a way retrying cannot fix (or ran out of
    /// retries), or a database that is not empty. Nothing was committed — except when the
    /// rows were committed but are not yet visible (`Error::may_have_committed` says so).
    Conflict,
    /// A commit that may or may not have landed (`Error::may_have_committed`).
    OutcomeUnknown,
    /// A file on storage that does not decode or breaks the format's or the LSM's invariants.
    Corrupt,
    /// A feature, option value or table strata does not implement (refused, never ignored).
    Unsupported,
    /// Bad input from the caller: an option value, an argument, a schema that does not match.
    InvalidInput,
    /// The caller may not do this: a catalog refused the credentials (Paimon's REST catalog
    /// answering 401 or 403) or the grant does not cover the operation.
    PermissionDenied,
    /// Storage I/O (object store or local disk).
    Io,
    /// A bug in strata (a task panicked), an Arrow computation error, or an injected fault.
    Internal,
}

impl ErrorKind {
    /// The kind's name (`"NotFound"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::NotFound => "NotFound",
            ErrorKind::AlreadyExists => "AlreadyExists",
            ErrorKind::Conflict => "Conflict",
            ErrorKind::OutcomeUnknown => "OutcomeUnknown",
            ErrorKind::Corrupt => "Corrupt",
            ErrorKind::Unsupported => "Unsupported",
            ErrorKind::InvalidInput => "InvalidInput",
            ErrorKind::PermissionDenied => "PermissionDenied",
            ErrorKind::Io => "Io",
            ErrorKind::Internal => "Internal",
        }
    }
}

impl Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
