//! Consumer endpoints over the table's `consumer/consumer-<id>` files (strata's
//! `maintenance::consumers::ConsumerManager`, Java's `ConsumerManager`), as Java's
//! `RESTCatalogServer` serves them: `listConsumers` (paged by consumer id) and `resetConsumer`
//! (a next snapshot moves the consumer there, none deletes it). The files are the table's
//! branch's (`t$branch_b` → the branch's `consumer/`, as Java's `ConsumerManager` keeps them per
//! branch; Java's mock server always uses `main`).

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::response::Response;
use axum::Json;
use strata::maintenance::consumers::{validate_consumer_id, ConsumerManager};
use strata_spec::rest::{ConsumerInfo, ListConsumersResponse, ResetConsumerRequest};

use super::common::{empty, load_table, paged, table_err, JsonBody, Paging};
use crate::error::{ApiError, ApiResult, ResourceType};
use crate::state::AppState;

/// `listConsumers`: every consumer with its next snapshot, paged by id.
pub(crate) async fn list(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<serde_json::Value>> {
    let paging = Paging::from_query(&state, &q)?;
    let table = load_table(&state, &db, &object).await?;
    let consumers = ConsumerManager::new(&table)
        .consumers()
        .await
        .map_err(|e| table_err(&state, &db, &object, &e))?;
    let infos = consumers
        .into_iter()
        .map(|(consumer_id, next)| ConsumerInfo {
            consumer_id,
            next_snapshot: Some(next),
        })
        .collect();
    let (consumers, next_page_token) = paging.page(infos, |c| c.consumer_id.clone());
    paged(&ListConsumersResponse {
        consumers,
        next_page_token,
    })
}

/// `resetConsumer`: `nextSnapshotId` must name an existing snapshot (404 SNAPSHOT, Java's
/// `snapshotManager().snapshot(id)` check) and becomes the consumer's next snapshot; without
/// it the consumer is deleted (no error when it does not exist). A consumer id that cannot
/// name a consumer file is a 400.
pub(crate) async fn reset(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
    JsonBody(req): JsonBody<ResetConsumerRequest>,
) -> ApiResult<Response> {
    validate_consumer_id(&req.consumer_id).map_err(|e| ApiError::bad_request(e.message()))?;
    let table = load_table(&state, &db, &object).await?;
    let lock = state.table_lock(&format!("{db}.{object}"));
    let _guard = lock.lock().await;
    let consumers = ConsumerManager::new(&table);
    let err = |e: strata::Error| table_err(&state, &db, &object, &e);
    match req.next_snapshot_id {
        Some(next) => {
            match table.snapshot_manager().snapshot(next).await {
                Ok(_) => {}
                Err(e) if e.kind() == strata::ErrorKind::NotFound => {
                    return Err(ApiError::not_found(
                        ResourceType::Snapshot,
                        next.to_string(),
                    ))
                }
                Err(e) => return Err(err(e)),
            }
            consumers.reset(&req.consumer_id, next).await.map_err(err)?;
        }
        None => consumers.delete(&req.consumer_id).await.map_err(err)?,
    }
    Ok(empty())
}
