//! The commit decision (`POST …/tables/{table}/commit`, Java's `RESTCatalogServer.
//! commitSnapshot`) and rollback (`POST …/rollback`).
//!
//! A commit is decided under the table's async mutex (one decision per table at a time):
//! 1. `tableId` must be the table's stable id (`tables::table_id`), else 404 — a writer of a
//!    dropped and re-created table is refused;
//! 2. `baseSnapshotUuid` must be the uuid of the latest snapshot, read from its `snapshot-N`
//!    file (the filesystem is the truth: restarts and out-of-band writers stay safe), `null`
//!    only when the table has no snapshot or its latest has no uuid — else `{"success":false}`
//!    (the client re-plans on the newer snapshot; conflicts are never HTTP errors);
//! 3. the snapshot's id must be the next id and its schema must exist (else 400);
//! 4. the snapshot is published create-if-absent: through the table's
//!    `SnapshotCommit` (the warehouse's atomic create-if-absent of `snapshot-N` plus the
//!    `LATEST` hint) when strata's `Snapshot` type holds every member the client sent; a
//!    snapshot with members strata does not know (a newer client) is written as the client's
//!    JSON, Jackson-pretty-printed, by the same create-if-absent — never re-encoded with
//!    members dropped. A taken id answers `{"success":false}`.
//!
//! `statistics` (per-partition deltas) are checked for shape; partition statistics are
//! computed from the table's files when listed, so nothing else is kept.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::Json;
use serde_json::Value;
use strata::maintenance::TableLifecycle;
use strata::table::{CommitContext, Table};
use strata::ErrorKind;
use strata_spec::partition::PartitionStatistics;
use strata_spec::rest::{CommitTableResponse, Instant, RollbackTableRequest};
use strata_spec::snapshot::Snapshot;

use super::common::{empty, identifier, load_table, parse_json, table_err, JsonBody};
use super::tables::table_id;
use crate::error::{ApiError, ApiResult, ResourceType};
use crate::metrics::CommitOutcome;
use crate::state::AppState;

/// `commitTable`.
pub(crate) async fn commit(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
    JsonBody(body): JsonBody<Value>,
) -> ApiResult<Json<CommitTableResponse>> {
    let result = decide(&state, &db, &object, body).await;
    state.inner.metrics.commit(match &result {
        Ok(true) => CommitOutcome::Success,
        Ok(false) => CommitOutcome::Conflict,
        Err(_) => CommitOutcome::Error,
    });
    result.map(|success| Json(CommitTableResponse { success }))
}

/// The parsed request: (tableId, baseSnapshotUuid, the snapshot as sent, typed, statistics).
struct CommitRequest {
    table_id: String,
    base: Option<String>,
    raw: Value,
    snapshot: Snapshot,
    statistics: Vec<PartitionStatistics>,
}

fn parse_request(body: Value) -> ApiResult<CommitRequest> {
    let Value::Object(mut map) = body else {
        return Err(ApiError::bad_request(
            "the commit body must be a JSON object",
        ));
    };
    let table_id = match map.remove("tableId") {
        Some(Value::String(s)) => s,
        Some(Value::Null) | None => {
            return Err(ApiError::bad_request("the commit body has no tableId"))
        }
        Some(_) => return Err(ApiError::bad_request("tableId must be a string")),
    };
    let base = match map.remove("baseSnapshotUuid") {
        Some(Value::String(s)) => Some(s),
        Some(Value::Null) | None => None,
        Some(_) => {
            return Err(ApiError::bad_request(
                "baseSnapshotUuid must be a string or null",
            ))
        }
    };
    let raw = match map.remove("snapshot") {
        Some(v @ Value::Object(_)) => v,
        _ => {
            return Err(ApiError::bad_request(
                "the commit body has no snapshot object",
            ))
        }
    };
    let snapshot: Snapshot = serde_json::from_value(raw.clone())
        .map_err(|e| ApiError::bad_request(format!("malformed snapshot: {e}")))?;
    let statistics = match map.remove("statistics") {
        Some(Value::Null) | None => Vec::new(),
        Some(v) => serde_json::from_value(v)
            .map_err(|e| ApiError::bad_request(format!("malformed statistics: {e}")))?,
    };
    Ok(CommitRequest {
        table_id,
        base,
        raw,
        snapshot,
        statistics,
    })
}

async fn decide(state: &AppState, db: &str, object: &str, body: Value) -> ApiResult<bool> {
    let req = parse_request(body)?;
    let table = load_table(state, db, object).await?;
    let lock = state.table_lock(&format!("{db}.{object}"));
    let _guard = lock.lock().await;
    let not_found = || ApiError::not_found(ResourceType::Table, format!("{db}.{object}"));
    if table_id(state, db, object, &table).await? != req.table_id {
        return Err(not_found());
    }
    let latest = table
        .snapshot_manager()
        .latest()
        .await
        .map_err(|e| table_err(state, db, object, &e))?;
    let latest_uuid = latest.as_ref().and_then(|s| s.uuid.clone());
    if latest_uuid != req.base {
        return Ok(false);
    }
    let snapshot = &req.snapshot;
    let next = latest.as_ref().map_or(snapshot.id.max(1), |s| s.id + 1);
    if snapshot.id != next {
        return Err(ApiError::bad_request(format!(
            "snapshot id {} is not the table's next snapshot id {next}",
            snapshot.id
        ))
        .about(ResourceType::Snapshot, snapshot.id.to_string()));
    }
    if let Err(e) = table.schema_manager().schema(snapshot.schema_id).await {
        return Err(match e.kind() {
            ErrorKind::NotFound => ApiError::bad_request(format!(
                "the snapshot's schema {} does not exist",
                snapshot.schema_id
            )),
            _ => table_err(state, db, object, &e),
        });
    }
    let branch = identifier(db, object)?.branch_or_main().to_string();
    let ctx = CommitContext::new(branch, req.base.clone()).with_statistics(req.statistics);
    if lossless(&req.raw, snapshot) {
        table
            .snapshot_commit()
            .commit(snapshot, &ctx)
            .await
            .map_err(|e| table_err(state, db, object, &e))
    } else {
        publish_raw(state, db, object, &table, snapshot.id, &req.raw).await
    }
}

/// Whether `snapshot` re-encodes every non-null member of `raw` with the same value.
fn lossless(raw: &Value, snapshot: &Snapshot) -> bool {
    let Ok(Value::Object(typed)) = serde_json::to_value(snapshot) else {
        return false;
    };
    let Value::Object(raw) = raw else {
        return false;
    };
    raw.iter().all(|(k, v)| match (v, typed.get(k)) {
        (Value::Null, _) => true,
        (v, Some(t)) => same(v, t),
        (Value::Object(m), None) => m.is_empty(),
        (_, None) => false,
    })
}

/// JSON equality with numbers compared by value (`1` and `1.0` are one number).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// Publishes the client's snapshot JSON as `snapshot-N` (create-if-absent) and the `LATEST`
/// hint (best effort, as `SnapshotManager.try_publish`).
async fn publish_raw(
    state: &AppState,
    db: &str,
    object: &str,
    table: &Table,
    id: i64,
    raw: &Value,
) -> ApiResult<bool> {
    let text = strata_spec::json::to_jackson_pretty(raw).map_err(|e| ApiError::internal(&e))?;
    let io = table.file_io();
    let paths = table.paths();
    let published = io
        .put_if_absent(&paths.snapshot_file(id), text.into_bytes())
        .await
        .map_err(|e| table_err(state, db, object, &e))?;
    if published {
        let _ = io
            .put(&paths.latest_hint(), id.to_string().into_bytes())
            .await;
    }
    Ok(published)
}

/// `rollbackTable`: to a snapshot or a tag, refused with 409 when `fromSnapshot` is given and
/// is no longer the latest snapshot. The instant's discriminator is Java's `type`; the
/// OpenAPI file's `action` is accepted too.
pub(crate) async fn rollback(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
    JsonBody(mut body): JsonBody<Value>,
) -> ApiResult<Response> {
    if let Some(Value::Object(instant)) = body.get_mut("instant") {
        if !instant.contains_key("type") {
            if let Some(action) = instant.remove("action") {
                instant.insert("type".to_string(), action);
            }
        }
    }
    let req: RollbackTableRequest = parse_json(&serde_json::to_vec(&body).unwrap_or_default())?;
    let table = load_table(&state, &db, &object).await?;
    let lock = state.table_lock(&format!("{db}.{object}"));
    let _guard = lock.lock().await;
    if let Some(from) = req.from_snapshot {
        let latest = table
            .snapshot_manager()
            .latest_id()
            .await
            .map_err(|e| table_err(&state, &db, &object, &e))?;
        if latest != Some(from) {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                format!("the latest snapshot is no longer {from}"),
            )
            .about(ResourceType::Snapshot, from.to_string()));
        }
    }
    let result = match &req.instant {
        Instant::Snapshot { snapshot_id } => table
            .rollback_to_snapshot(*snapshot_id)
            .await
            .map_err(|e| (e, ResourceType::Snapshot, snapshot_id.to_string())),
        Instant::Tag { tag_name } => {
            crate::validate::tag(tag_name)?;
            table
                .rollback_to_tag(tag_name)
                .await
                .map_err(|e| (e, ResourceType::Tag, tag_name.clone()))
        }
    };
    match result {
        Ok(_) => Ok(empty()),
        Err((e, kind, name)) => Err(ApiError::from_strata(
            &e,
            kind,
            &name,
            &state.inner.location,
        )),
    }
}
