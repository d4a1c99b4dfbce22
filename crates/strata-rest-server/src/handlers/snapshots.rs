//! Snapshot endpoints: the latest with the table's totals (`getTableSnapshot`), one by id or
//! `LATEST`/`EARLIEST` (`getVersionSnapshot`), all of them paged (`listSnapshots`). Read from
//! the `snapshot-N` files.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::Json;
use strata::ErrorKind;
use strata_spec::rest::{
    GetTableSnapshotResponse, GetVersionSnapshotResponse, ListSnapshotsResponse, TableSnapshot,
};

use super::common::{load_table, paged, table_err, Paging};
use crate::error::{ApiError, ApiResult, ResourceType};
use crate::state::AppState;

/// `getTableSnapshot`: 404 SNAPSHOT when the table has none.
pub(crate) async fn latest(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
) -> ApiResult<Json<GetTableSnapshotResponse>> {
    let table = load_table(&state, &db, &object).await?;
    let live = strata::system::live_files(&table, None)
        .await
        .map_err(|e| table_err(&state, &db, &object, &e))?;
    let Some(snapshot) = live.snapshot else {
        return Err(ApiError::not_found(
            ResourceType::Snapshot,
            format!("{db}.{object}"),
        ));
    };
    let mut totals = TableSnapshot {
        record_count: 0,
        file_size_in_bytes: 0,
        file_count: 0,
        last_file_creation_time: 0,
        snapshot,
    };
    for f in &live.files {
        totals.record_count += f.file.row_count;
        totals.file_size_in_bytes += f.file.file_size;
        totals.file_count += 1;
        totals.last_file_creation_time = totals
            .last_file_creation_time
            .max(f.file.creation_time.unwrap_or(0));
    }
    Ok(Json(GetTableSnapshotResponse { snapshot: totals }))
}

/// `getVersionSnapshot`: `{version}` is a snapshot id, `LATEST` or `EARLIEST`.
pub(crate) async fn version(
    State(state): State<AppState>,
    Path((_, db, object, version)): Path<(String, String, String, String)>,
) -> ApiResult<Json<GetVersionSnapshotResponse>> {
    let table = load_table(&state, &db, &object).await?;
    let sm = table.snapshot_manager();
    let missing = || ApiError::not_found(ResourceType::Snapshot, version.clone());
    let id = if version.eq_ignore_ascii_case("LATEST") {
        sm.latest_id().await
    } else if version.eq_ignore_ascii_case("EARLIEST") {
        sm.earliest_id().await
    } else {
        match version.parse::<i64>() {
            Ok(id) => Ok(Some(id)),
            Err(_) => {
                return Err(ApiError::bad_request(format!(
                    "invalid snapshot version {version:?}: a snapshot id, LATEST or EARLIEST"
                )))
            }
        }
    }
    .map_err(|e| table_err(&state, &db, &object, &e))?;
    let Some(id) = id else {
        return Err(missing());
    };
    match sm.snapshot(id).await {
        Ok(snapshot) => Ok(Json(GetVersionSnapshotResponse { snapshot })),
        Err(e) if e.kind() == ErrorKind::NotFound => Err(missing()),
        Err(e) => Err(table_err(&state, &db, &object, &e)),
    }
}

/// `listSnapshots` (⧉, by id; the page token is the last id of the page).
pub(crate) async fn list(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<serde_json::Value>> {
    let mut paging = Paging::from_query(&state, &q)?;
    paging.token = paging
        .token
        .map(|t| t.parse::<i64>().map_or(t, |n| format!("{n:020}")));
    let table = load_table(&state, &db, &object).await?;
    let snapshots = table
        .snapshot_manager()
        .all()
        .await
        .map_err(|e| table_err(&state, &db, &object, &e))?;
    // Ids as zero-padded text sort like numbers.
    let (snapshots, next_page_token) = paging.page(snapshots, |s| format!("{:020}", s.id));
    paged(&ListSnapshotsResponse {
        snapshots,
        next_page_token: next_page_token.map(|t| t.trim_start_matches('0').to_string()),
    })
}
