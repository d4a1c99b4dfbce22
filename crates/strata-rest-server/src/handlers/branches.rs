//! Branch endpoints over the table's `branch/branch-NAME` directories (strata's
//! `Table::{branches, create_branch, delete_branch, fast_forward}`, Java's
//! `FileSystemBranchManager`): list, create (empty or from a tag), drop, forward, rename
//! (`Table::rename_branch`, Java's `FileSystemBranchManager.renameBranch`; Java's
//! `RESTCatalogServer` answers the rename 200 without doing it, strata renames). As in Java's
//! server the table object may be a branch (`t$branch_b`): its branch manager is the same
//! table's, a branch created from it starts at that branch's schema or tag, and `forward`
//! fast-forwards that branch.

use axum::extract::{Path, State};
use axum::response::Response;
use axum::Json;
use strata::table::branches::BranchStart;
use strata::table::Table;
use strata_spec::rest::{CreateBranchRequest, ListBranchesResponse, RenameBranchRequest};

use super::common::{empty, load_table, JsonBody};
use crate::error::{ApiError, ApiResult, ResourceType};
use crate::state::AppState;
use crate::validate;

fn branch_err(state: &AppState, branch: &str, e: &strata::Error) -> ApiError {
    ApiError::from_strata(e, ResourceType::Branch, branch, &state.inner.location)
}

/// Table `object` (the main table or a branch of it) whose branches are managed; one lock
/// per table, whichever branch object names it.
async fn main_table(state: &AppState, db: &str, object: &str) -> ApiResult<Table> {
    load_table(state, db, object).await
}

/// The lock of table `db.object`'s branches (the main table's name).
fn branch_lock(state: &AppState, db: &str, object: &str) -> std::sync::Arc<tokio::sync::Mutex<()>> {
    let main = object.split('$').next().unwrap_or(object);
    state.table_lock(&format!("{db}.{main}"))
}

/// `listBranches` (not paged).
pub(crate) async fn list(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
) -> ApiResult<Json<ListBranchesResponse>> {
    let table = main_table(&state, &db, &object).await?;
    let mut branches = table
        .branches()
        .await
        .map_err(|e| branch_err(&state, "*", &e))?;
    branches.sort();
    Ok(Json(ListBranchesResponse { branches }))
}

/// `createBranch`: empty, or from tag `fromTag`. 409 when it exists, 404 for a missing tag.
pub(crate) async fn create(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
    JsonBody(req): JsonBody<CreateBranchRequest>,
) -> ApiResult<Response> {
    validate::branch(&req.branch)?;
    let start = match &req.from_tag {
        Some(tag) if !tag.is_empty() => {
            validate::tag(tag)?;
            BranchStart::Tag(tag.clone())
        }
        _ => BranchStart::Empty,
    };
    let table = main_table(&state, &db, &object).await?;
    let lock = branch_lock(&state, &db, &object);
    let _guard = lock.lock().await;
    if table
        .branch_exists(&req.branch)
        .await
        .map_err(|e| branch_err(&state, &req.branch, &e))?
    {
        return Err(ApiError::already_exists(ResourceType::Branch, req.branch));
    }
    if let BranchStart::Tag(tag) = &start {
        let exists = strata::table::tags::TagManager::new(&table)
            .get(tag)
            .await
            .map_err(|e| branch_err(&state, &req.branch, &e))?
            .is_some();
        if !exists {
            return Err(ApiError::not_found(ResourceType::Tag, tag.clone()));
        }
    }
    table
        .create_branch(&req.branch, start)
        .await
        .map_err(|e| branch_err(&state, &req.branch, &e))?;
    Ok(empty())
}

/// `dropBranch`.
pub(crate) async fn drop(
    State(state): State<AppState>,
    Path((_, db, object, branch)): Path<(String, String, String, String)>,
) -> ApiResult<Response> {
    let table = main_table(&state, &db, &object).await?;
    let lock = branch_lock(&state, &db, &object);
    let _guard = lock.lock().await;
    require_branch(&state, &table, &branch).await?;
    table
        .delete_branch(&branch)
        .await
        .map_err(|e| branch_err(&state, &branch, &e))?;
    Ok(empty())
}

/// `renameBranch`: `{branch}` becomes `toBranch`. 404 BRANCH when `{branch}` does not exist,
/// 409 BRANCH when `toBranch` does, 400 for an invalid new name.
pub(crate) async fn rename(
    State(state): State<AppState>,
    Path((_, db, object, branch)): Path<(String, String, String, String)>,
    JsonBody(req): JsonBody<RenameBranchRequest>,
) -> ApiResult<Response> {
    validate::branch(&req.to_branch)?;
    strata::table::branches::validate_branch_name(&req.to_branch)
        .map_err(|e| ApiError::bad_request(e.message()))?;
    let table = main_table(&state, &db, &object).await?;
    let lock = branch_lock(&state, &db, &object);
    let _guard = lock.lock().await;
    require_branch(&state, &table, &branch).await?;
    if table
        .branch_exists(&req.to_branch)
        .await
        .map_err(|e| branch_err(&state, &req.to_branch, &e))?
    {
        return Err(ApiError::already_exists(
            ResourceType::Branch,
            req.to_branch,
        ));
    }
    table
        .rename_branch(&branch, &req.to_branch)
        .await
        .map_err(|e| branch_err(&state, &branch, &e))?;
    Ok(empty())
}

/// `forwardBranch`: fast-forwards the main branch to `{branch}` (Java's
/// `BranchManager.fastForward`).
pub(crate) async fn forward(
    State(state): State<AppState>,
    Path((_, db, object, branch)): Path<(String, String, String, String)>,
) -> ApiResult<Response> {
    let table = main_table(&state, &db, &object).await?;
    let lock = branch_lock(&state, &db, &object);
    let _guard = lock.lock().await;
    require_branch(&state, &table, &branch).await?;
    table
        .fast_forward(&branch)
        .await
        .map_err(|e| branch_err(&state, &branch, &e))?;
    Ok(empty())
}

/// 404 BRANCH unless `table` has branch `branch`.
async fn require_branch(state: &AppState, table: &Table, branch: &str) -> ApiResult<()> {
    if table
        .branch_exists(branch)
        .await
        .map_err(|e| branch_err(state, branch, &e))?
    {
        Ok(())
    } else {
        Err(ApiError::not_found(
            ResourceType::Branch,
            branch.to_string(),
        ))
    }
}
