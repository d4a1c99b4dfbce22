//! The CLI's errors, at the bottom of the crate: every command and helper returns
//! [`Result`], and `main` prints the error with its chain of causes (exit code 1).
//!
//! A [`CliError`] is either a library error (kept whole, so `may_have_committed` and the
//! causes survive) or a plain message of the CLI's own ([`msg`]).

/// Errors of the CLI: library errors and plain messages.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Strata(#[from] strata::Error),
    #[error("{0}")]
    Message(String),
}

/// The result of every command and helper of the CLI.
pub type Result<T> = std::result::Result<T, CliError>;

impl CliError {
    /// See [`strata::Error::may_have_committed`]: the written files must be kept.
    pub fn may_have_committed(&self) -> bool {
        matches!(self, CliError::Strata(e) if e.may_have_committed())
    }
}

impl From<strata_spec::SpecError> for CliError {
    fn from(e: strata_spec::SpecError) -> Self {
        CliError::Strata(e.into())
    }
}

/// A plain error message.
pub fn msg(s: impl Into<String>) -> CliError {
    CliError::Message(s.into())
}

/// The error of a failed write to stdout or an output file.
pub fn write_error(e: impl std::fmt::Display) -> CliError {
    msg(format!("cannot write output: {e}"))
}
