//! Endpoints strata's server does not implement, answered 501 with an `ErrorResponse` that
//! names them (Java's `NotImplementedException` on the client): views and functions (strata
//! has no view or function catalog), consumers through REST.

use crate::error::ApiError;

/// Any view endpoint.
pub(crate) async fn views() -> ApiError {
    ApiError::not_implemented("views (the /views endpoints)")
}

/// Any function endpoint.
pub(crate) async fn functions() -> ApiError {
    ApiError::not_implemented("functions (the /functions endpoints)")
}

/// `listConsumers` / `resetConsumer`.
pub(crate) async fn consumers() -> ApiError {
    ApiError::not_implemented("consumers (the /consumers endpoints)")
}
