//! The partitions endpoints (in progress).

use crate::error::ApiError;

pub(crate) async fn list() -> ApiError {
    ApiError::not_implemented("list")
}
pub(crate) async fn create() -> ApiError {
    ApiError::not_implemented("create")
}
pub(crate) async fn drop() -> ApiError {
    ApiError::not_implemented("drop")
}
pub(crate) async fn mark_done() -> ApiError {
    ApiError::not_implemented("mark_done")
}
pub(crate) async fn list_by_names() -> ApiError {
    ApiError::not_implemented("list_by_names")
}
pub(crate) async fn list_by_filter() -> ApiError {
    ApiError::not_implemented("list_by_filter")
}
