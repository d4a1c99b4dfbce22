//! Errors of the pure format layer. Each variant says *what* was being decoded or encoded;
//! the I/O layer above wraps them with the file path.

/// Result alias of this crate.
pub type Result<T, E = SpecError> = std::result::Result<T, E>;

/// A format violation or an unsupported construct found while encoding or decoding.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// Malformed input: `context` names the structure/field, `message` what is wrong.
    #[error("invalid {context}: {message}")]
    Invalid { context: String, message: String },
    /// JSON that does not parse or does not have the expected shape.
    #[error("invalid JSON in {context}: {source}")]
    Json {
        context: String,
        #[source]
        source: serde_json::Error,
    },
    /// Avro container or datum that does not decode (or cannot be encoded).
    #[error("Avro error in {context}: {message}")]
    Avro { context: String, message: String },
    /// Valid Paimon construct that strata does not support yet, or a change Paimon refuses
    /// as unsupported (Java's `UnsupportedOperationException`, e.g. dropping a primary key).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A schema change names a column that does not exist (Java's
    /// `Catalog.ColumnNotExistException`); `column` is the dotted path.
    #[error("column `{column}` does not exist")]
    ColumnNotFound { column: String },
    /// A schema change adds or renames to a column name that exists already (Java's
    /// `Catalog.ColumnAlreadyExistException`); `column` is the dotted path.
    #[error("column `{column}` already exists")]
    ColumnAlreadyExists { column: String },
}

impl SpecError {
    /// Shorthand for [`SpecError::Invalid`].
    pub fn invalid(context: impl Into<String>, message: impl Into<String>) -> Self {
        SpecError::Invalid {
            context: context.into(),
            message: message.into(),
        }
    }
}
