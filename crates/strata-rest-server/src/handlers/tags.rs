//! The tags endpoints (in progress).

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
pub(crate) async fn delete() -> ApiError {
    ApiError::not_implemented("delete")
}
