//! `GET /v1/config?warehouse=NAME`: the handshake (Java's `RESTApi` constructor,
//! `ConfigResponse.merge`). The server answers only for its own warehouse name (else 404) and
//! gives the path prefix in `defaults`.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// `getConfig`.
pub(crate) async fn get_config(
    State(state): State<AppState>,
    Query(query): Query<HashMap<String, String>>,
) -> ApiResult<Json<Value>> {
    let name = &state.inner.name;
    match query.get("warehouse") {
        Some(w) if w == name => {}
        Some(w) => {
            return Err(ApiError::new(
                StatusCode::NOT_FOUND,
                format!("unknown warehouse {w:?}"),
            ))
        }
        None => {
            return Err(ApiError::new(
                StatusCode::NOT_FOUND,
                "the warehouse query parameter is required",
            ))
        }
    }
    Ok(Json(json!({
        "defaults": { "prefix": name },
        "overrides": {},
    })))
}
