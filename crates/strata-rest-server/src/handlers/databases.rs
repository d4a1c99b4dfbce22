//! Database endpoints: list, create, get, alter, drop — over the warehouse's `<db>.db`
//! directories (strata's `FileSystemCatalog`, Java's `FileSystemCatalog`).

use std::collections::{BTreeMap, HashMap};

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Json};
use strata_spec::rest::{CreateDatabaseRequest, GetDatabaseResponse, ListDatabasesResponse};

use super::common::{db_err, empty, matches_pattern, paged, require_database, JsonBody, Paging};
use crate::authz;
use crate::error::{ApiError, ApiResult, ResourceType};
use crate::ops::Op;
use crate::state::AppState;
use crate::state::Caller;
use crate::validate;

/// `listDatabases` (⧉, `databaseNamePattern`).
pub(crate) async fn list(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<serde_json::Value>> {
    let paging = Paging::from_query(&state, &q)?;
    let names = state
        .inner
        .catalog
        .list_databases()
        .await
        .map_err(|e| db_err(&state, "*", &e))?;
    let mut visible = Vec::new();
    for n in names {
        if validate::database(&n).is_ok()
            && authz::visible(&p, &n, None)
            && matches_pattern(&n, q.get("databaseNamePattern"))?
        {
            visible.push(n);
        }
    }
    let (databases, next_page_token) = paging.page(visible, |n| n.clone());
    paged(&ListDatabasesResponse {
        databases,
        next_page_token,
    })
}

/// `createDatabase`: 409 when it exists. Database options are refused by name: a filesystem
/// warehouse keeps none (Java's `FileSystemCatalog` discards them; strata does not ignore input).
pub(crate) async fn create(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    JsonBody(req): JsonBody<CreateDatabaseRequest>,
) -> ApiResult<Response> {
    validate::database(&req.name)?;
    authz::check(&p, Op::CreateDatabase, Some(&req.name), None)?;
    if !req.options.is_empty() {
        let keys: Vec<&str> = req.options.keys().map(String::as_str).collect();
        return Err(ApiError::new(
            StatusCode::NOT_IMPLEMENTED,
            format!(
                "database options are not supported by a filesystem warehouse: {}",
                keys.join(", ")
            ),
        )
        .about(ResourceType::Database, req.name));
    }
    let catalog = &state.inner.catalog;
    if catalog
        .database_exists(&req.name)
        .await
        .map_err(|e| db_err(&state, &req.name, &e))?
    {
        return Err(ApiError::already_exists(ResourceType::Database, req.name));
    }
    catalog
        .create_database(&req.name, false)
        .await
        .map_err(|e| db_err(&state, &req.name, &e))?;
    Ok(empty())
}

/// `getDatabase`.
pub(crate) async fn get(
    State(state): State<AppState>,
    Path((_, db)): Path<(String, String)>,
) -> ApiResult<Json<GetDatabaseResponse>> {
    require_database(&state, &db).await?;
    Ok(Json(GetDatabaseResponse {
        id: None,
        name: db,
        location: None,
        options: BTreeMap::new(),
        // A warehouse keeps no record of a database's creation: the audit members Java's
        // `RESTCatalog` copies into options are present (see `common::AUDIT_PRINCIPAL`), the
        // times unknown (0).
        owner: Some(super::common::AUDIT_PRINCIPAL.to_string()),
        created_at: Some(0),
        created_by: Some(super::common::AUDIT_PRINCIPAL.to_string()),
        updated_at: Some(0),
        updated_by: Some(super::common::AUDIT_PRINCIPAL.to_string()),
    }))
}

/// `alterDatabase`: refused (501) — a filesystem warehouse keeps no database options (Java's
/// `FileSystemCatalog.alterDatabaseImpl` throws `UnsupportedOperationException` too).
pub(crate) async fn alter(
    State(state): State<AppState>,
    Path((_, db)): Path<(String, String)>,
) -> ApiResult<Response> {
    require_database(&state, &db).await?;
    Err(ApiError::new(
        StatusCode::NOT_IMPLEMENTED,
        "alterDatabase is not supported by a filesystem warehouse (it keeps no database options)",
    )
    .about(ResourceType::Database, db))
}

/// `dropDatabase`: drops the database with its tables (Java's `RESTCatalog.dropDatabase`
/// checks emptiness itself when not cascading, then DELETEs).
pub(crate) async fn drop(
    State(state): State<AppState>,
    Path((_, db)): Path<(String, String)>,
) -> ApiResult<Response> {
    require_database(&state, &db).await?;
    state
        .inner
        .catalog
        .drop_database(&db, false, true)
        .await
        .map_err(|e| db_err(&state, &db, &e))?;
    Ok(empty())
}
