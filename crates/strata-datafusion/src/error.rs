//! Errors across the DataFusion boundary: strata's errors travel inside
//! `DataFusionError::External` (so their message — file, option, column — reaches the user
//! unchanged, and `strata::Error` can be recovered by downcasting), and DataFusion's come back
//! as [`strata::Error`] where strata code needs one.

use datafusion::error::DataFusionError;

/// A strata error as a DataFusion error.
pub fn to_df(e: strata::Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

/// A DataFusion error as a strata error (the message kept whole).
pub fn from_df(e: DataFusionError) -> strata::Error {
    match e {
        DataFusionError::External(inner) => match inner.downcast::<strata::Error>() {
            Ok(e) => *e,
            Err(other) => strata::Error::invalid_argument(other.to_string()),
        },
        other => strata::Error::invalid_argument(other.to_string()),
    }
}

/// A plain message as a DataFusion planning error.
pub fn plan_error(message: impl Into<String>) -> DataFusionError {
    DataFusionError::Plan(message.into())
}

/// Where in the SQL text an error points, when DataFusion's planner knows (its `Diagnostic`
/// span; a `SqlSession` collects spans): `(line, column, end column)`, 1-based, the
/// end on the same line (or the column itself when the span runs over several lines).
pub fn error_position(e: &DataFusionError) -> Option<(usize, usize, usize)> {
    let span = e.diagnostic()?.span?;
    let (line, column) = (span.start.line as usize, span.start.column as usize);
    if line == 0 || column == 0 {
        return None;
    }
    let end = if span.end.line == span.start.line {
        (span.end.column as usize).max(column + 1)
    } else {
        column + 1
    };
    Some((line, column, end))
}
