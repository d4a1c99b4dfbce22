//! View endpoints (Java's `RESTApi` `listViews`, `listViewDetails`, `listViewsGlobally`,
//! `createView`, `getView`, `alterView`, `dropView`, `renameView`), answered as Java's
//! `RESTCatalogServer` answers them: 404 `VIEW` for a missing view, 409 `VIEW` when it exists,
//! 409 / 404 `DIALECT` for `addDialect` of an existing dialect / `updateDialect`, `dropDialect`
//! of a missing one; lists paged and filtered by prefix patterns as the table lists are. Kept
//! in the database's `.views` folder (`db_objects`).
//!
//! A view may share its name with a table, as Java's server allows (its views and tables are
//! separate namespaces; a client asking `getTable` gets the table). An alter applies all its
//! changes or none; each change is checked against the view as the earlier changes of the
//! same request left it (Java's server checks against the stored view, which only differs for
//! requests that change one dialect twice).

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::response::Response;
use axum::{Extension, Json};
use strata_spec::rest::{
    AlterViewRequest, CreateViewRequest, GetViewResponse, ListViewDetailsResponse,
    ListViewsGloballyResponse, ListViewsResponse, ObjectIdentifier, RenameTableRequest, ViewChange,
    ViewSchema,
};

use super::common::{db_err, empty, matches_pattern, paged, require_database, JsonBody, Paging};
use crate::authz::{self, Principal};
use crate::db_objects::{Kind, Store};
use crate::error::{ApiError, ApiResult, ResourceType};
use crate::ops::Op;
use crate::state::{AppState, Caller};
use crate::validate;

/// Now, epoch milliseconds (the audit members).
pub(crate) fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Names of `kind` objects of `db` that `p` sees and that match `pattern`.
pub(crate) async fn visible_names(
    state: &AppState,
    p: &Principal,
    db: &str,
    kind: Kind,
    pattern: Option<&String>,
) -> ApiResult<Vec<String>> {
    if !authz::sees_database_objects(p, db) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for n in Store::new(state, db, kind)?.names().await? {
        if matches_pattern(&n, pattern)? {
            out.push(n);
        }
    }
    Ok(out)
}

/// Every visible `kind` object of the warehouse as `db.name`, filtered by
/// `databaseNamePattern` and `name_param`.
pub(crate) async fn visible_globally(
    state: &AppState,
    p: &Principal,
    kind: Kind,
    q: &HashMap<String, String>,
    name_param: &str,
) -> ApiResult<Vec<ObjectIdentifier>> {
    let dbs = state
        .inner
        .catalog
        .list_databases()
        .await
        .map_err(|e| db_err(state, "*", &e))?;
    let mut all = Vec::new();
    for db in dbs {
        if validate::database(&db).is_err() || !matches_pattern(&db, q.get("databaseNamePattern"))?
        {
            continue;
        }
        for n in visible_names(state, p, &db, kind, q.get(name_param)).await? {
            all.push(ObjectIdentifier::new(db.clone(), n));
        }
    }
    Ok(all)
}

/// `listViews` (⧉, `viewNamePattern`).
pub(crate) async fn list(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Path((_, db)): Path<(String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<serde_json::Value>> {
    let paging = Paging::from_query(&state, &q)?;
    require_database(&state, &db).await?;
    let names = visible_names(&state, &p, &db, Kind::View, q.get("viewNamePattern")).await?;
    let (views, next_page_token) = paging.page(names, |n| n.clone());
    paged(&ListViewsResponse {
        views,
        next_page_token,
    })
}

/// `listViewDetails` (⧉, `viewNamePattern`).
pub(crate) async fn list_details(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Path((_, db)): Path<(String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<serde_json::Value>> {
    let paging = Paging::from_query(&state, &q)?;
    require_database(&state, &db).await?;
    let names = visible_names(&state, &p, &db, Kind::View, q.get("viewNamePattern")).await?;
    let (page, next_page_token) = paging.page(names, |n| n.clone());
    let store = Store::new(&state, &db, Kind::View)?;
    let mut view_details = Vec::with_capacity(page.len());
    for n in page {
        // A view dropped since the listing is left out.
        if let Some(v) = store.get::<GetViewResponse>(&n).await? {
            view_details.push(v);
        }
    }
    paged(&ListViewDetailsResponse {
        view_details,
        next_page_token,
    })
}

/// `listViewsGlobally` (⧉ over `db.view`, `databaseNamePattern`, `viewNamePattern`).
pub(crate) async fn list_globally(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<serde_json::Value>> {
    let paging = Paging::from_query(&state, &q)?;
    let all = visible_globally(&state, &p, Kind::View, &q, "viewNamePattern").await?;
    let (views, next_page_token) = paging.page(all, |i| format!("{}.{}", i.database, i.object));
    paged(&ListViewsGloballyResponse {
        views,
        next_page_token,
    })
}

/// `createView`: 404 when the database is missing, 409 when the view exists.
pub(crate) async fn create(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Path((_, db)): Path<(String, String)>,
    JsonBody(req): JsonBody<CreateViewRequest>,
) -> ApiResult<Response> {
    let ObjectIdentifier { database, object } = &req.identifier;
    if database != &db {
        return Err(ApiError::bad_request(format!(
            "the identifier's database {database:?} is not the path's {db:?}"
        )));
    }
    validate::view(object)?;
    require_database(&state, &db).await?;
    let now = now_millis();
    let id = uuid::Uuid::new_v5(
        &uuid::Uuid::NAMESPACE_OID,
        format!("view\n{db}\n{object}\n{now}").as_bytes(),
    );
    let view = GetViewResponse {
        id: Some(id.to_string()),
        name: object.clone(),
        schema: req.schema,
        owner: Some(p.name.clone()),
        created_at: Some(now),
        created_by: Some(p.name.clone()),
        updated_at: Some(now),
        updated_by: Some(p.name.clone()),
    };
    let lock = Store::lock(&state, Kind::View);
    let _guard = lock.lock().await;
    if !Store::new(&state, &db, Kind::View)?
        .create(object, &view)
        .await?
    {
        return Err(ApiError::already_exists(
            ResourceType::View,
            format!("{db}.{object}"),
        ));
    }
    Ok(empty())
}

/// `getView`: 404 `VIEW` when missing.
pub(crate) async fn get(
    State(state): State<AppState>,
    Path((_, db, view)): Path<(String, String, String)>,
) -> ApiResult<Json<GetViewResponse>> {
    require_database(&state, &db).await?;
    let v = Store::new(&state, &db, Kind::View)?.require(&view).await?;
    Ok(Json(v))
}

/// Applies `changes` to `schema` in order (Java's `RESTCatalogServer` alter-view rules).
pub(crate) fn apply_view_changes(
    schema: &mut ViewSchema,
    changes: &[ViewChange],
    view: &str,
) -> ApiResult<()> {
    for c in changes {
        match c {
            ViewChange::SetOption { key, value } => {
                schema.options.insert(key.clone(), value.clone());
            }
            ViewChange::RemoveOption { key } => {
                schema.options.remove(key);
            }
            ViewChange::UpdateComment { comment } => schema.comment = comment.clone(),
            ViewChange::AddDialect { dialect, query } => {
                if schema.dialects.contains_key(dialect) {
                    return Err(ApiError::new(
                        axum::http::StatusCode::CONFLICT,
                        format!("Dialect {dialect} in view {view} already exists."),
                    )
                    .about(ResourceType::Dialect, dialect.clone()));
                }
                schema.dialects.insert(dialect.clone(), query.clone());
            }
            ViewChange::UpdateDialect { dialect, query } => {
                match schema.dialects.get_mut(dialect) {
                    Some(q) => *q = query.clone(),
                    None => return Err(no_dialect(dialect, view)),
                }
            }
            ViewChange::DropDialect { dialect } => {
                if schema.dialects.remove(dialect).is_none() {
                    return Err(no_dialect(dialect, view));
                }
            }
        }
    }
    Ok(())
}

fn no_dialect(dialect: &str, view: &str) -> ApiError {
    ApiError::new(
        axum::http::StatusCode::NOT_FOUND,
        format!("Dialect {dialect} in view {view} doesn't exist."),
    )
    .about(ResourceType::Dialect, dialect)
}

/// `alterView`: 404 `VIEW` when missing; the `DIALECT` answers of [`apply_view_changes`].
pub(crate) async fn alter(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Path((_, db, view)): Path<(String, String, String)>,
    JsonBody(req): JsonBody<AlterViewRequest>,
) -> ApiResult<Response> {
    require_database(&state, &db).await?;
    let lock = Store::lock(&state, Kind::View);
    let _guard = lock.lock().await;
    let store = Store::new(&state, &db, Kind::View)?;
    let mut v: GetViewResponse = store.require(&view).await?;
    apply_view_changes(&mut v.schema, &req.changes, &format!("{db}.{view}"))?;
    v.updated_at = Some(now_millis());
    v.updated_by = Some(p.name.clone());
    store.replace(&view, &v).await?;
    Ok(empty())
}

/// `dropView`: 404 `VIEW` when missing.
pub(crate) async fn drop(
    State(state): State<AppState>,
    Path((_, db, view)): Path<(String, String, String)>,
) -> ApiResult<Response> {
    require_database(&state, &db).await?;
    let lock = Store::lock(&state, Kind::View);
    let _guard = lock.lock().await;
    if !Store::new(&state, &db, Kind::View)?.delete(&view).await? {
        return Err(ApiError::not_found(
            ResourceType::View,
            format!("{db}.{view}"),
        ));
    }
    Ok(empty())
}

/// `renameView` (`RenameTableRequest`): 404 `VIEW` when the source is missing, 404
/// `DATABASE` when the destination's database is, 409 `VIEW` when the destination exists.
/// Needs write on both databases.
pub(crate) async fn rename(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    JsonBody(req): JsonBody<RenameTableRequest>,
) -> ApiResult<Response> {
    let (from, to) = (&req.source, &req.destination);
    for id in [from, to] {
        validate::database(&id.database)?;
        validate::view(&id.object)?;
    }
    authz::check(&p, Op::RenameView, Some(&from.database), None)?;
    authz::check(&p, Op::CreateView, Some(&to.database), None)?;
    require_database(&state, &from.database).await?;
    require_database(&state, &to.database).await?;
    let lock = Store::lock(&state, Kind::View);
    let _guard = lock.lock().await;
    let src = Store::new(&state, &from.database, Kind::View)?;
    let dst = Store::new(&state, &to.database, Kind::View)?;
    let mut v: GetViewResponse = src.require(&from.object).await?;
    if from == to {
        return Err(ApiError::already_exists(
            ResourceType::View,
            format!("{}.{}", to.database, to.object),
        ));
    }
    v.name = to.object.clone();
    v.updated_at = Some(now_millis());
    v.updated_by = Some(p.name.clone());
    if !dst.create(&to.object, &v).await? {
        return Err(ApiError::already_exists(
            ResourceType::View,
            format!("{}.{}", to.database, to.object),
        ));
    }
    src.delete(&from.object).await?;
    Ok(empty())
}
