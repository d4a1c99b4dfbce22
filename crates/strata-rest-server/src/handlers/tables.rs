//! The tables endpoints (in progress).

use crate::error::ApiError;

pub(crate) async fn list() -> ApiError {
    ApiError::not_implemented("list")
}
pub(crate) async fn create() -> ApiError {
    ApiError::not_implemented("create")
}
pub(crate) async fn list_details() -> ApiError {
    ApiError::not_implemented("list_details")
}
pub(crate) async fn list_globally() -> ApiError {
    ApiError::not_implemented("list_globally")
}
pub(crate) async fn get_by_id() -> ApiError {
    ApiError::not_implemented("get_by_id")
}
pub(crate) async fn rename() -> ApiError {
    ApiError::not_implemented("rename")
}
pub(crate) async fn register() -> ApiError {
    ApiError::not_implemented("register")
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
pub(crate) async fn rollback_schema() -> ApiError {
    ApiError::not_implemented("rollback_schema")
}
pub(crate) async fn token() -> ApiError {
    ApiError::not_implemented("token")
}
pub(crate) async fn auth_query() -> ApiError {
    ApiError::not_implemented("auth_query")
}
