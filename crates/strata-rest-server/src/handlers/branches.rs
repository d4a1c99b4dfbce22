//! The branches endpoints (in progress).

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
pub(crate) async fn rename() -> ApiError {
    ApiError::not_implemented("rename")
}
pub(crate) async fn forward() -> ApiError {
    ApiError::not_implemented("forward")
}
