//! The handlers, one file per resource of Paimon's REST catalog API, and what they share: the
//! JSON body extractor ([`JsonBody`]: a malformed, truncated or wrong-typed body is a 400, an
//! oversized one a 413, both as `ErrorResponse`), paging ([`Page`]) and the caller.

pub(crate) mod branches;
pub(crate) mod commit;
pub(crate) mod config;
pub(crate) mod databases;
pub(crate) mod partitions;
pub(crate) mod snapshots;
pub(crate) mod tables;
pub(crate) mod tags;
pub(crate) mod unsupported;

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// A JSON request body of type `T`.
pub(crate) struct JsonBody<T>(pub(crate) T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "request body larger than the server accepts",
                )
            } else {
                ApiError::bad_request("cannot read the request body")
            }
        })?;
        parse_json(&bytes).map(JsonBody)
    }
}

/// `bytes` as a `T`; any error is a 400 naming what did not parse.
pub(crate) fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(bytes)
        .map_err(|e| ApiError::bad_request(format!("malformed request body: {e}")))
}
