//! The databases endpoints (in progress).

use crate::error::ApiError;

pub(crate) async fn list() -> ApiError {
    ApiError::not_implemented("list")
}
pub(crate) async fn create() -> ApiError {
    ApiError::not_implemented("create")
}
pub(crate) async fn get() -> ApiError {
    ApiError::not_implemented("get")
}
pub(crate) async fn alter() -> ApiError {
    ApiError::not_implemented("alter")
}
pub(crate) async fn drop() -> ApiError {
    ApiError::not_implemented("drop")
}
