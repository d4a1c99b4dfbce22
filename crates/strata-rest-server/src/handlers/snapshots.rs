//! The snapshots endpoints (in progress).

use crate::error::ApiError;

pub(crate) async fn latest() -> ApiError {
    ApiError::not_implemented("latest")
}
pub(crate) async fn list() -> ApiError {
    ApiError::not_implemented("list")
}
pub(crate) async fn version() -> ApiError {
    ApiError::not_implemented("version")
}
