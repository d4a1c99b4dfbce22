//! Tag endpoints over the table's `tag/tag-NAME` files (strata's `TableLifecycle` tags, Java's
//! `TagManager`): list (⧉, `tagNamePrefix`), create, get, delete.

use std::collections::HashMap;
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::response::Response;
use axum::Json;
use strata::maintenance::TableLifecycle;
use strata::table::tags::TagManager;
use strata_spec::rest::{CreateTagRequest, GetTagResponse, ListTagsResponse};

use super::common::{empty, load_table, paged, table_err, JsonBody, Paging};
use crate::error::{ApiError, ApiResult, ResourceType};
use crate::state::AppState;
use crate::validate;

/// `listTags`.
pub(crate) async fn list(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<serde_json::Value>> {
    let paging = Paging::from_query(&state, &q)?;
    let table = load_table(&state, &db, &object).await?;
    let mut names = TagManager::new(&table)
        .names()
        .await
        .map_err(|e| table_err(&state, &db, &object, &e))?;
    if let Some(prefix) = q.get("tagNamePrefix") {
        names.retain(|n| n.starts_with(prefix.as_str()));
    }
    let (tags, next_page_token) = paging.page(names, |n| n.clone());
    paged(&ListTagsResponse {
        tags,
        next_page_token,
    })
}

/// `createTag`: of `snapshotId` (default: the latest), kept `timeRetained` (Java's duration
/// text). 409 when the tag exists, 404 when the snapshot does not.
pub(crate) async fn create(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> ApiResult<Response> {
    // `ignoreIfExists` (Java 2.0's `CreateTagRequest`, pypaimon) besides the typed members.
    let ignore_if_exists = match body.get("ignoreIfExists") {
        None | Some(serde_json::Value::Null) => false,
        Some(serde_json::Value::Bool(b)) => *b,
        Some(_) => return Err(ApiError::bad_request("ignoreIfExists must be a boolean")),
    };
    let req: CreateTagRequest = serde_json::from_value(body)
        .map_err(|e| ApiError::bad_request(format!("malformed request body: {e}")))?;
    validate::tag(&req.tag_name)?;
    let retained: Option<Duration> = match req.time_retained.as_deref() {
        None | Some("") => None,
        Some(text) => Some(
            strata_spec::options::units::parse_duration(text)
                .map_err(|e| ApiError::bad_request(format!("invalid timeRetained: {e}")))?,
        ),
    };
    let table = load_table(&state, &db, &object).await?;
    let lock = state.table_lock(&format!("{db}.{object}"));
    let _guard = lock.lock().await;
    let tags = TagManager::new(&table);
    if tags
        .get(&req.tag_name)
        .await
        .map_err(|e| table_err(&state, &db, &object, &e))?
        .is_some()
    {
        if ignore_if_exists {
            return Ok(empty());
        }
        return Err(ApiError::already_exists(ResourceType::Tag, req.tag_name));
    }
    table
        .create_tag(&req.tag_name, req.snapshot_id, retained)
        .await
        .map_err(|e| {
            ApiError::from_strata(&e, ResourceType::Tag, &req.tag_name, &state.inner.location)
        })?;
    Ok(empty())
}

/// `getTag`.
pub(crate) async fn get(
    State(state): State<AppState>,
    Path((_, db, object, tag)): Path<(String, String, String, String)>,
) -> ApiResult<Json<GetTagResponse>> {
    let table = load_table(&state, &db, &object).await?;
    let found = TagManager::new(&table)
        .get(&tag)
        .await
        .map_err(|e| table_err(&state, &db, &object, &e))?;
    let Some(t) = found else {
        return Err(ApiError::not_found(ResourceType::Tag, tag));
    };
    Ok(Json(GetTagResponse {
        tag_name: t.name.clone(),
        tag_create_time: t.create_time.map(|c| c.and_utc().timestamp_millis()),
        tag_time_retained: t.time_retained.map(|d| format!("{} ms", d.as_millis())),
        snapshot: t.snapshot,
    }))
}

/// `deleteTag`.
pub(crate) async fn delete(
    State(state): State<AppState>,
    Path((_, db, object, tag)): Path<(String, String, String, String)>,
) -> ApiResult<Response> {
    let table = load_table(&state, &db, &object).await?;
    let lock = state.table_lock(&format!("{db}.{object}"));
    let _guard = lock.lock().await;
    if TagManager::new(&table)
        .get(&tag)
        .await
        .map_err(|e| table_err(&state, &db, &object, &e))?
        .is_none()
    {
        return Err(ApiError::not_found(ResourceType::Tag, tag));
    }
    table
        .delete_tag(&tag)
        .await
        .map_err(|e| ApiError::from_strata(&e, ResourceType::Tag, &tag, &state.inner.location))?;
    Ok(empty())
}
