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
            Err(other) => strata::Error::InvalidArgument(other.to_string()),
        },
        other => strata::Error::InvalidArgument(other.to_string()),
    }
}

/// A plain message as a DataFusion planning error.
pub fn plan_error(message: impl Into<String>) -> DataFusionError {
    DataFusionError::Plan(message.into())
}
