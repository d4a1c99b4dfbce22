//! Partition endpoints. Listing (`listPartitions`, `list-by-names`) computes each partition's
//! statistics from the latest snapshot's live files (what Java's `PartitionEntry` sums), so
//! they are right after restarts and out-of-band writes. Creating, dropping and marking
//! partitions done through the catalog, and listing by a predicate, are refused by name
//! (501): a filesystem warehouse has no partition metadata to keep (Java's
//! `FileSystemCatalog` neither), and dropping one is a data commit the client makes.

use std::collections::{BTreeMap, HashMap};

use axum::extract::{Path, Query, State};
use axum::Json;
use strata_spec::rest::{ListPartitionsResponse, Partition, PartitionSpecsRequest};

use super::common::{load_table, matches_pattern, paged, table_err, JsonBody, Paging};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// The partitions of `db.object`'s latest snapshot, with their statistics.
async fn partitions(state: &AppState, db: &str, object: &str) -> ApiResult<Vec<Partition>> {
    let table = load_table(state, db, object).await?;
    let live = strata::system::live_files(&table, None)
        .await
        .map_err(|e| table_err(state, db, object, &e))?;
    let computer = table.partition_computer();
    let mut by_spec: BTreeMap<BTreeMap<String, String>, Partition> = BTreeMap::new();
    for f in &live.files {
        let spec: BTreeMap<String, String> = computer.to_map(&f.partition).into_iter().collect();
        let p = by_spec.entry(spec.clone()).or_insert_with(|| Partition {
            spec,
            ..Partition::default()
        });
        p.record_count += f.file.row_count;
        p.file_size_in_bytes += f.file.file_size;
        p.file_count += 1;
        p.last_file_creation_time = p
            .last_file_creation_time
            .max(f.file.creation_time.unwrap_or(0));
        p.total_buckets = p.total_buckets.max(f.total_buckets);
    }
    Ok(by_spec.into_values().collect())
}

/// Java's partition name: `k1=v1/k2=v2` in partition-key order.
fn partition_name(p: &Partition, keys: &[String]) -> String {
    keys.iter()
        .filter_map(|k| p.spec.get(k).map(|v| format!("{k}={v}")))
        .collect::<Vec<_>>()
        .join("/")
}

/// `listPartitions` (⧉, `partitionNamePattern`).
pub(crate) async fn list(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<serde_json::Value>> {
    let paging = Paging::from_query(&state, &q)?;
    let table = load_table(&state, &db, &object).await?;
    let keys = table.schema().partition_keys.clone();
    let mut out = Vec::new();
    for p in partitions(&state, &db, &object).await? {
        if matches_pattern(&partition_name(&p, &keys), q.get("partitionNamePattern"))? {
            out.push(p);
        }
    }
    let (partitions, next_page_token) = paging.page(out, |p| partition_name(p, &keys));
    paged(&ListPartitionsResponse {
        partitions,
        next_page_token,
    })
}

/// `listPartitionsByNames`: the partitions among `specs` that exist.
pub(crate) async fn list_by_names(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
    JsonBody(req): JsonBody<PartitionSpecsRequest>,
) -> ApiResult<Json<serde_json::Value>> {
    let wanted: Vec<BTreeMap<String, String>> = req.specs;
    let partitions = partitions(&state, &db, &object)
        .await?
        .into_iter()
        .filter(|p| wanted.contains(&p.spec))
        .collect();
    paged(&ListPartitionsResponse {
        partitions,
        next_page_token: None,
    })
}

/// `createPartitions`: refused by name.
pub(crate) async fn create() -> ApiError {
    ApiError::not_implemented(
        "createPartitions (a filesystem warehouse keeps no partition metadata; partitions \
         appear when data is committed)",
    )
}

/// `dropPartitions`: refused by name.
pub(crate) async fn drop() -> ApiError {
    ApiError::not_implemented(
        "dropPartitions through the catalog (drop a partition with a delete/overwrite commit)",
    )
}

/// `markDonePartitions`: refused by name.
pub(crate) async fn mark_done() -> ApiError {
    ApiError::not_implemented("markDonePartitions (a filesystem warehouse keeps no done marks)")
}

/// `listPartitionsByFilter`: refused by name.
pub(crate) async fn list_by_filter() -> ApiError {
    ApiError::not_implemented("listPartitionsByFilter (list all partitions and filter them)")
}
