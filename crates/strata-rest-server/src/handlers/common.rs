//! What the handlers share: the JSON body extractor ([`JsonBody`]: a malformed, truncated or
//! wrong-typed body is a 400, an oversized one a 413, both as `ErrorResponse`), paging
//! ([`Paging`], Java's `buildPagedEntities`), prefix name patterns, loading a table (a branch
//! for `t$branch_b`) with 404s, and strata errors mapped onto answers.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

/// Who a table or database "belongs to" and who last changed it, in the audit members of
/// `GetTableResponse` / `GetDatabaseResponse` (`owner`, `createdBy`, `updatedBy`). A warehouse
/// keeps no such records; Java's `RESTCatalog` copies the members into a table's options
/// (`AuditRESTResponse.putAuditOptionsTo`) and a missing owner becomes a null option value that
/// Flink refuses, so they are always present: the serving process's name.
pub(crate) const AUDIT_PRINCIPAL: &str = "strata";

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

use std::collections::HashMap;

use strata::catalog::Identifier;
use strata::table::Table;

use crate::error::{ApiResult, ResourceType};
use crate::state::AppState;

/// The query parameters of a list call (`maxResults`, `pageToken`, a name pattern).
pub(crate) struct Paging {
    max: usize,
    pub(crate) token: Option<String>,
}

impl Paging {
    /// Paging of `query`: `maxResults` not a 32-bit integer → 400; absent or ≤ 0 → the server's page
    /// size, larger → clamped to it (Java's `RESTCatalogServer.getMaxResults`).
    pub(crate) fn from_query(state: &AppState, query: &HashMap<String, String>) -> ApiResult<Self> {
        let limit = state.inner.config.max_results.max(1);
        let max = match query.get("maxResults") {
            None => limit,
            // An int32, as the OpenAPI file declares and Java's `Integer.parseInt` reads it.
            Some(text) => match text.trim().parse::<i32>() {
                Ok(n) if n <= 0 => limit,
                Ok(n) => (n as u64).min(limit as u64) as usize,
                Err(_) => {
                    return Err(ApiError::bad_request(format!(
                        "invalid maxResults {text:?}: not a 32-bit integer"
                    )))
                }
            },
        };
        Ok(Paging {
            max,
            token: query.get("pageToken").filter(|t| !t.is_empty()).cloned(),
        })
    }

    /// One page of `items` (any order): sorted by `key`, those after the page token, at most
    /// `maxResults`; the next token is the last key of a full page (Java's
    /// `buildPagedEntities`).
    pub(crate) fn page<T>(
        &self,
        mut items: Vec<T>,
        key: impl Fn(&T) -> String,
    ) -> (Vec<T>, Option<String>) {
        items.sort_by_key(|a| key(a));
        let mut rest: Vec<T> = match &self.token {
            Some(t) => items
                .into_iter()
                .filter(|i| key(i).as_str() > t.as_str())
                .collect(),
            None => items,
        };
        let more = rest.len() > self.max;
        rest.truncate(self.max);
        let next = if more { rest.last().map(&key) } else { None };
        (rest, next)
    }
}

/// Whether `name` matches a prefix pattern (`abc%`, `\%` a literal `%`; Java's
/// `RESTUtil.validatePrefixSqlPattern`: only a trailing `%` is supported, anything else a 400).
pub(crate) fn matches_pattern(name: &str, pattern: Option<&String>) -> ApiResult<bool> {
    let Some(pattern) = pattern.filter(|p| !p.is_empty()) else {
        return Ok(true);
    };
    let mut literal = String::new();
    let mut wildcard = false;
    let mut escaped = false;
    for c in pattern.chars() {
        if escaped {
            literal.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '%' {
            wildcard = true;
        } else if wildcard {
            return Err(ApiError::bad_request(
                "only prefix name patterns (`abc%`) are supported",
            ));
        } else {
            literal.push(c);
        }
    }
    Ok(if wildcard {
        name.starts_with(&literal)
    } else {
        name == literal
    })
}

/// `db.object` as strata's identifier (the branch parsed from `$branch_NAME`).
pub(crate) fn identifier(db: &str, object: &str) -> ApiResult<Identifier> {
    Identifier::new(db, object).map_err(|e| {
        ApiError::bad_request(format!("invalid table name {object:?}: {}", e.message()))
    })
}

/// Maps a strata error about table `db.object`.
pub(crate) fn table_err(state: &AppState, db: &str, object: &str, e: &strata::Error) -> ApiError {
    ApiError::from_strata(
        e,
        ResourceType::Table,
        &format!("{db}.{object}"),
        &state.inner.location,
    )
}

/// Maps a strata error about database `db`.
pub(crate) fn db_err(state: &AppState, db: &str, e: &strata::Error) -> ApiError {
    ApiError::from_strata(e, ResourceType::Database, db, &state.inner.location)
}

/// 404 unless database `db` exists.
pub(crate) async fn require_database(state: &AppState, db: &str) -> ApiResult<()> {
    match state.inner.catalog.database_exists(db).await {
        Ok(true) => Ok(()),
        Ok(false) => Err(ApiError::not_found(ResourceType::Database, db)),
        Err(e) => Err(db_err(state, db, &e)),
    }
}

/// Table `db.object` (a branch for `t$branch_b`); 404 when it (or its branch) does not exist.
pub(crate) async fn load_table(state: &AppState, db: &str, object: &str) -> ApiResult<Table> {
    let id = identifier(db, object)?;
    let catalog = &state.inner.catalog;
    let main = id.main();
    match catalog.table_exists(&main).await {
        Ok(true) => {}
        Ok(false) => {
            return Err(ApiError::not_found(
                ResourceType::Table,
                format!("{db}.{object}"),
            ))
        }
        Err(e) => return Err(table_err(state, db, object, &e)),
    }
    if let Some(b) = &id.branch {
        let base = catalog
            .get_table(&main)
            .await
            .map_err(|e| table_err(state, db, object, &e))?;
        match base.branch_exists(b).await {
            Ok(true) => {}
            Ok(false) => {
                return Err(ApiError::not_found(
                    ResourceType::Table,
                    format!("{db}.{object}"),
                ))
            }
            Err(e) => return Err(table_err(state, db, object, &e)),
        }
    }
    catalog
        .get_table(&id)
        .await
        .map_err(|e| table_err(state, db, object, &e))
}

/// An empty 200 answer (Java's void calls).
pub(crate) fn empty() -> axum::response::Response {
    use axum::response::IntoResponse;
    (
        StatusCode::OK,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        "{}",
    )
        .into_response()
}

/// A paged list answer with `nextPageToken` always present (`null` on the last page): Java's
/// `PagedResponse` writes it, and pypaimon's response classes require the member.
pub(crate) fn paged<T: serde::Serialize>(response: &T) -> ApiResult<axum::Json<serde_json::Value>> {
    let mut v = serde_json::to_value(response).map_err(|e| ApiError::internal(&e))?;
    if let serde_json::Value::Object(m) = &mut v {
        m.entry("nextPageToken").or_insert(serde_json::Value::Null);
    }
    Ok(axum::Json(v))
}
