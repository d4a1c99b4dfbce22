//! The commit endpoints (in progress).

use crate::error::ApiError;

pub(crate) async fn commit() -> ApiError {
    ApiError::not_implemented("commit")
}
pub(crate) async fn rollback() -> ApiError {
    ApiError::not_implemented("rollback")
}
