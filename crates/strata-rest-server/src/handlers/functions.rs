//! Function endpoints (Java's `RESTApi` `listFunctions`, `listFunctionDetails`,
//! `listFunctionsGlobally`, `createFunction`, `getFunction`, `alterFunction`, `dropFunction`),
//! answered as Java's `RESTCatalogServer` answers them: 404 `FUNCTION` for a missing function,
//! 409 when it exists, 409 / 404 `DEFINITION` for `addDefinition` of an existing dialect /
//! `updateDefinition`, `dropDefinition` of a missing one; names by Java's
//! `RESTFunctionValidator` rule (400 otherwise); lists paged and filtered by prefix patterns.
//! Kept in the database's `.functions` folder (`db_objects`). An alter applies all its changes
//! or none, each checked against the function as the earlier changes left it.
//!
//! Java's server answers an existing function's 409 with resource type `DEFINITION`; strata's
//! says `FUNCTION` (Java's client maps any 409 of `createFunction` to
//! `FunctionAlreadyExistException` either way).

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Json};
use strata_spec::rest::{
    AlterFunctionRequest, CreateFunctionRequest, FunctionChange, GetFunctionResponse,
    ListFunctionDetailsResponse, ListFunctionsGloballyResponse, ListFunctionsResponse,
};

use super::common::{empty, paged, require_database, JsonBody, Paging};
use super::views::{now_millis, visible_globally, visible_names};
use crate::db_objects::{Kind, Store};
use crate::error::{ApiError, ApiResult, ResourceType};
use crate::state::{AppState, Caller};
use crate::validate;

/// `listFunctions` (⧉, `functionNamePattern`).
pub(crate) async fn list(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Path((_, db)): Path<(String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<serde_json::Value>> {
    let paging = Paging::from_query(&state, &q)?;
    require_database(&state, &db).await?;
    let pattern = q.get("functionNamePattern");
    let names = visible_names(&state, &p, &db, Kind::Function, pattern).await?;
    let (functions, next_page_token) = paging.page(names, |n| n.clone());
    paged(&ListFunctionsResponse {
        functions,
        next_page_token,
    })
}

/// `listFunctionDetails` (⧉, `functionNamePattern`).
pub(crate) async fn list_details(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Path((_, db)): Path<(String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<serde_json::Value>> {
    let paging = Paging::from_query(&state, &q)?;
    require_database(&state, &db).await?;
    let pattern = q.get("functionNamePattern");
    let names = visible_names(&state, &p, &db, Kind::Function, pattern).await?;
    let (page, next_page_token) = paging.page(names, |n| n.clone());
    let store = Store::new(&state, &db, Kind::Function)?;
    let mut function_details = Vec::with_capacity(page.len());
    for n in page {
        // A function dropped since the listing is left out.
        if let Some(f) = store.get::<GetFunctionResponse>(&n).await? {
            function_details.push(f);
        }
    }
    paged(&ListFunctionDetailsResponse {
        function_details,
        next_page_token,
    })
}

/// `listFunctionsGlobally` (⧉ over `db.function`, `databaseNamePattern`,
/// `functionNamePattern`).
pub(crate) async fn list_globally(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<serde_json::Value>> {
    let paging = Paging::from_query(&state, &q)?;
    let all = visible_globally(&state, &p, Kind::Function, &q, "functionNamePattern").await?;
    let (functions, next_page_token) = paging.page(all, |i| format!("{}.{}", i.database, i.object));
    paged(&ListFunctionsGloballyResponse {
        functions,
        next_page_token,
    })
}

/// `createFunction`: 400 for a name Java refuses, 404 when the database is missing, 409 when
/// the function exists.
pub(crate) async fn create(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Path((_, db)): Path<(String, String)>,
    JsonBody(req): JsonBody<CreateFunctionRequest>,
) -> ApiResult<Response> {
    validate::function(&req.name)?;
    require_database(&state, &db).await?;
    let now = now_millis();
    let uuid = uuid::Uuid::new_v5(
        &uuid::Uuid::NAMESPACE_OID,
        format!("function\n{db}\n{}\n{now}", req.name).as_bytes(),
    );
    let name = req.name.clone();
    let function = GetFunctionResponse {
        uuid: Some(uuid.to_string()),
        name: req.name,
        input_params: req.input_params,
        return_params: req.return_params,
        deterministic: req.deterministic,
        definitions: req.definitions,
        comment: req.comment,
        options: req.options,
        owner: Some(p.name.clone()),
        created_at: Some(now),
        created_by: Some(p.name.clone()),
        updated_at: Some(now),
        updated_by: Some(p.name.clone()),
    };
    let lock = Store::lock(&state, Kind::Function);
    let _guard = lock.lock().await;
    if !Store::new(&state, &db, Kind::Function)?
        .create(&name, &function)
        .await?
    {
        return Err(ApiError::already_exists(
            ResourceType::Function,
            format!("{db}.{name}"),
        ));
    }
    Ok(empty())
}

/// `getFunction`: 404 `FUNCTION` when missing.
pub(crate) async fn get(
    State(state): State<AppState>,
    Path((_, db, function)): Path<(String, String, String)>,
) -> ApiResult<Json<GetFunctionResponse>> {
    require_database(&state, &db).await?;
    let f = Store::new(&state, &db, Kind::Function)?
        .require(&function)
        .await?;
    Ok(Json(f))
}

/// Applies `changes` to `f` in order (Java's `RESTCatalogServer` alter-function rules).
pub(crate) fn apply_function_changes(
    f: &mut GetFunctionResponse,
    changes: &[FunctionChange],
    function: &str,
) -> ApiResult<()> {
    let missing = |name: &str| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            format!("Definition {name} in function {function} doesn't exist."),
        )
        .about(ResourceType::Definition, name)
    };
    for c in changes {
        match c {
            FunctionChange::SetOption { key, value } => {
                f.options.insert(key.clone(), value.clone());
            }
            FunctionChange::RemoveOption { key } => {
                f.options.remove(key);
            }
            FunctionChange::UpdateComment { comment } => f.comment = comment.clone(),
            FunctionChange::AddDefinition { name, definition } => {
                if f.definitions.contains_key(name) {
                    return Err(ApiError::new(
                        StatusCode::CONFLICT,
                        format!("Definition {name} in function {function} already exists."),
                    )
                    .about(ResourceType::Definition, name.clone()));
                }
                f.definitions.insert(name.clone(), definition.clone());
            }
            FunctionChange::UpdateDefinition { name, definition } => {
                match f.definitions.get_mut(name) {
                    Some(d) => *d = definition.clone(),
                    None => return Err(missing(name)),
                }
            }
            FunctionChange::DropDefinition { name } => {
                if f.definitions.remove(name).is_none() {
                    return Err(missing(name));
                }
            }
        }
    }
    Ok(())
}

/// `alterFunction`: 404 `FUNCTION` when missing; the `DEFINITION` answers of
/// [`apply_function_changes`].
pub(crate) async fn alter(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Path((_, db, function)): Path<(String, String, String)>,
    JsonBody(req): JsonBody<AlterFunctionRequest>,
) -> ApiResult<Response> {
    require_database(&state, &db).await?;
    let lock = Store::lock(&state, Kind::Function);
    let _guard = lock.lock().await;
    let store = Store::new(&state, &db, Kind::Function)?;
    let mut f: GetFunctionResponse = store.require(&function).await?;
    apply_function_changes(&mut f, &req.changes, &format!("{db}.{function}"))?;
    f.updated_at = Some(now_millis());
    f.updated_by = Some(p.name.clone());
    store.replace(&function, &f).await?;
    Ok(empty())
}

/// `dropFunction`: 404 `FUNCTION` when missing.
pub(crate) async fn drop(
    State(state): State<AppState>,
    Path((_, db, function)): Path<(String, String, String)>,
) -> ApiResult<Response> {
    require_database(&state, &db).await?;
    let lock = Store::lock(&state, Kind::Function);
    let _guard = lock.lock().await;
    if !Store::new(&state, &db, Kind::Function)?
        .delete(&function)
        .await?
    {
        return Err(ApiError::not_found(
            ResourceType::Function,
            format!("{db}.{function}"),
        ));
    }
    Ok(empty())
}
