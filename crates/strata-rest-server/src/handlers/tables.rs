//! Table endpoints: list (names, details, globally), create, get (by name and by id), alter,
//! drop, rename; rollback-schema; register refused by name; the data token and query auth.
//!
//! Table ids: a table's `id` (`GetTableResponse.id`, the `tableId` every commit must carry)
//! is a UUIDv5 of the table's place (`<db>.db/<object>`) and its `schema-0` creation time
//! (`timeMillis`). It needs no extra file, survives restarts, and changes when the table is
//! dropped and re-created or renamed — so a writer holding the old table's id is refused with
//! 404 (Java's `RESTCatalogServer` semantics, whose random ids are lost on restart).

use std::collections::{BTreeMap, HashMap};

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Json};
use strata::table::Table;
use strata_spec::rest::{
    AlterTableRequest, AuthTableQueryRequest, AuthTableQueryResponse, CreateTableRequest,
    GetTableResponse, GetTableTokenResponse, ListTableDetailsResponse, ListTablesGloballyResponse,
    ListTablesResponse, ObjectIdentifier, RenameTableRequest,
};
use strata_spec::schema::{Schema, TableSchema};

use super::common::{
    db_err, empty, identifier, load_table, matches_pattern, paged, require_database, table_err,
    JsonBody, Paging,
};
use crate::authz;
use crate::error::{ApiError, ApiResult, ResourceType};
use crate::ops::Op;
use crate::state::AppState;
use crate::state::Caller;
use crate::validate;

/// The namespace of table ids (a fixed random UUID: ids are `uuid5(NS, "<db>.db/<object>\n<ms>")`).
const TABLE_ID_NAMESPACE: uuid::Uuid =
    uuid::Uuid::from_u128(0x5f0c_2d7e_91a4_4c3b_8e61_d2a9_07b4_c1e3);

/// The stable id of `table` named `db.object`.
pub(crate) async fn table_id(
    state: &AppState,
    db: &str,
    object: &str,
    table: &Table,
) -> ApiResult<String> {
    let millis = created_millis(state, db, object, table).await?;
    let name = format!("{db}.db/{object}\n{millis}");
    Ok(uuid::Uuid::new_v5(&TABLE_ID_NAMESPACE, name.as_bytes()).to_string())
}

/// When `table` was created: its first schema's `timeMillis`.
async fn created_millis(state: &AppState, db: &str, object: &str, table: &Table) -> ApiResult<i64> {
    let sm = table.schema_manager();
    let first = match sm.list_ids().await {
        Ok(ids) => ids.into_iter().min(),
        Err(e) => return Err(table_err(state, db, object, &e)),
    };
    let millis = match first {
        Some(id) => {
            sm.schema(id)
                .await
                .map_err(|e| table_err(state, db, object, &e))?
                .time_millis
        }
        None => table.schema().time_millis,
    };
    Ok(millis)
}

/// The create-table form of a table schema.
pub(crate) fn schema_of(s: &TableSchema) -> Schema {
    Schema {
        fields: s.fields.clone(),
        partition_keys: s.partition_keys.clone(),
        primary_keys: s.primary_keys.clone(),
        options: s.options.clone(),
        comment: s.comment.clone(),
    }
}

async fn describe(
    state: &AppState,
    db: &str,
    object: &str,
    table: &Table,
) -> ApiResult<GetTableResponse> {
    let schema = table.schema();
    let created = created_millis(state, db, object, table).await?;
    Ok(GetTableResponse {
        id: table_id(state, db, object, table).await?,
        database: Some(db.to_string()),
        name: object.to_string(),
        path: table.location(),
        is_external: false,
        schema_id: schema.id,
        schema: schema_of(schema),
        owner: Some(super::common::AUDIT_PRINCIPAL.to_string()),
        created_at: Some(created),
        created_by: Some(super::common::AUDIT_PRINCIPAL.to_string()),
        updated_at: Some(schema.time_millis),
        updated_by: Some(super::common::AUDIT_PRINCIPAL.to_string()),
    })
}

/// Visible table names of `db` matching `tableNamePattern`.
async fn visible_tables(
    state: &AppState,
    p: &authz::Principal,
    db: &str,
    pattern: Option<&String>,
) -> ApiResult<Vec<String>> {
    let names = state
        .inner
        .catalog
        .list_tables(db)
        .await
        .map_err(|e| db_err(state, db, &e))?;
    let mut out = Vec::new();
    for n in names {
        if validate::table_object(&n).is_ok()
            && authz::visible(p, db, Some(&n))
            && matches_pattern(&n, pattern)?
        {
            out.push(n);
        }
    }
    Ok(out)
}

/// `listTables` (⧉, `tableNamePattern`).
pub(crate) async fn list(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Path((_, db)): Path<(String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<serde_json::Value>> {
    let paging = Paging::from_query(&state, &q)?;
    require_database(&state, &db).await?;
    let names = visible_tables(&state, &p, &db, q.get("tableNamePattern")).await?;
    let (tables, next_page_token) = paging.page(names, |n| n.clone());
    paged(&ListTablesResponse {
        tables,
        next_page_token,
    })
}

/// `listTableDetails` (⧉, `tableNamePattern`; `tableType` other than `table` gives nothing).
pub(crate) async fn list_details(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Path((_, db)): Path<(String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<serde_json::Value>> {
    let paging = Paging::from_query(&state, &q)?;
    require_database(&state, &db).await?;
    let mut names = visible_tables(&state, &p, &db, q.get("tableNamePattern")).await?;
    if q.get("tableType")
        .is_some_and(|t| !t.is_empty() && !t.eq_ignore_ascii_case("table"))
    {
        names.clear();
    }
    let (page, next_page_token) = paging.page(names, |n| n.clone());
    let mut table_details = Vec::with_capacity(page.len());
    for n in page {
        // A table dropped since the listing is left out.
        if let Ok(t) = load_table(&state, &db, &n).await {
            table_details.push(describe(&state, &db, &n, &t).await?);
        }
    }
    paged(&ListTableDetailsResponse {
        table_details,
        next_page_token,
    })
}

/// `listTablesGlobally` (⧉ over `db.table`, `databaseNamePattern`, `tableNamePattern`).
pub(crate) async fn list_globally(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<serde_json::Value>> {
    let paging = Paging::from_query(&state, &q)?;
    let dbs = state
        .inner
        .catalog
        .list_databases()
        .await
        .map_err(|e| db_err(&state, "*", &e))?;
    let mut all = Vec::new();
    for db in dbs {
        if validate::database(&db).is_err()
            || !authz::visible(&p, &db, None)
            || !matches_pattern(&db, q.get("databaseNamePattern"))?
        {
            continue;
        }
        for t in visible_tables(&state, &p, &db, q.get("tableNamePattern")).await? {
            all.push(ObjectIdentifier::new(db.clone(), t));
        }
    }
    let (tables, next_page_token) = paging.page(all, |i| format!("{}.{}", i.database, i.object));
    paged(&ListTablesGloballyResponse {
        tables,
        next_page_token,
    })
}

/// `createTable`: 404 when the database is missing, 409 when the table exists.
pub(crate) async fn create(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Path((_, db)): Path<(String, String)>,
    JsonBody(req): JsonBody<CreateTableRequest>,
) -> ApiResult<Response> {
    let ObjectIdentifier { database, object } = &req.identifier;
    if database != &db {
        return Err(ApiError::bad_request(format!(
            "the identifier's database {database:?} is not the path's {db:?}"
        )));
    }
    validate::table_object(object)?;
    if object.contains('$') {
        return Err(ApiError::bad_request(
            "a branch is created with createBranch, not createTable",
        ));
    }
    authz::check(&p, Op::CreateTable, Some(&db), Some(object))?;
    require_database(&state, &db).await?;
    let id = identifier(&db, object)?;
    let created = state
        .inner
        .catalog
        .create_table(&id, &req.schema, true)
        .await
        .map_err(|e| table_err(&state, &db, object, &e))?;
    if !created {
        return Err(ApiError::already_exists(
            ResourceType::Table,
            format!("{db}.{object}"),
        ));
    }
    Ok(empty())
}

/// `getTable`.
pub(crate) async fn get(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
) -> ApiResult<Json<GetTableResponse>> {
    let table = load_table(&state, &db, &object).await?;
    Ok(Json(describe(&state, &db, &object, &table).await?))
}

/// `getTableById`: the visible table whose id is `id` (404 otherwise).
pub(crate) async fn get_by_id(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Path((_, id)): Path<(String, String)>,
) -> ApiResult<Json<GetTableResponse>> {
    let not_found = || ApiError::not_found(ResourceType::Table, id.clone());
    if uuid::Uuid::parse_str(&id).is_err() {
        return Err(not_found());
    }
    let dbs = state
        .inner
        .catalog
        .list_databases()
        .await
        .map_err(|e| db_err(&state, "*", &e))?;
    for db in dbs {
        if validate::database(&db).is_err() {
            continue;
        }
        let tables = state
            .inner
            .catalog
            .list_tables(&db)
            .await
            .map_err(|e| db_err(&state, &db, &e))?;
        for t in tables {
            if validate::table_object(&t).is_err() {
                continue;
            }
            let Ok(table) = load_table(&state, &db, &t).await else {
                continue;
            };
            if table_id(&state, &db, &t, &table).await? == id {
                if authz::check(&p, Op::GetTable, Some(&db), Some(&t)).is_err() {
                    return Err(not_found());
                }
                return Ok(Json(describe(&state, &db, &t, &table).await?));
            }
        }
    }
    Err(not_found())
}

/// `alterTable`: the changes applied in order as one new schema (400 for an invalid change,
/// 409 for a column that exists).
pub(crate) async fn alter(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
    JsonBody(req): JsonBody<AlterTableRequest>,
) -> ApiResult<Response> {
    let table = load_table(&state, &db, &object).await?;
    let lock = state.table_lock(&format!("{db}.{object}"));
    let _guard = lock.lock().await;
    table
        .alter(&req.changes)
        .await
        .map_err(|e| table_err(&state, &db, &object, &e))?;
    Ok(empty())
}

/// `dropTable` (a branch object drops the branch).
pub(crate) async fn drop(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
) -> ApiResult<Response> {
    let id = identifier(&db, &object)?;
    let table = load_table(&state, &db, &object).await?;
    let lock = state.table_lock(&format!("{db}.{}", id.table));
    let _guard = lock.lock().await;
    match &id.branch {
        Some(b) => {
            let main = load_table(&state, &db, &id.table).await?;
            main.delete_branch(b)
                .await
                .map_err(|e| table_err(&state, &db, &object, &e))?;
        }
        None => {
            drop_table_files(&state, &db, &object, &table).await?;
        }
    }
    Ok(empty())
}

async fn drop_table_files(
    state: &AppState,
    db: &str,
    object: &str,
    _table: &Table,
) -> ApiResult<()> {
    let id = identifier(db, object)?;
    state
        .inner
        .catalog
        .drop_table(&id, false)
        .await
        .map_err(|e| table_err(state, db, object, &e))
}

/// `renameTable`: moves the table directory (local warehouses; an object store has no rename —
/// refused by name). The renamed table gets a new id (see the module docs).
pub(crate) async fn rename(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    JsonBody(req): JsonBody<RenameTableRequest>,
) -> ApiResult<Response> {
    let (src, dst) = (&req.source, &req.destination);
    for i in [src, dst] {
        validate::database(&i.database)?;
        validate::table_object(&i.object)?;
        if i.object.contains('$') {
            return Err(ApiError::bad_request(
                "a branch cannot be renamed with renameTable",
            ));
        }
    }
    authz::check(&p, Op::RenameTable, Some(&src.database), Some(&src.object))?;
    authz::check(&p, Op::CreateTable, Some(&dst.database), Some(&dst.object))?;
    load_table(&state, &src.database, &src.object).await?;
    require_database(&state, &dst.database).await?;
    let dst_id = identifier(&dst.database, &dst.object)?;
    if state
        .inner
        .catalog
        .table_exists(&dst_id)
        .await
        .map_err(|e| table_err(&state, &dst.database, &dst.object, &e))?
    {
        return Err(ApiError::already_exists(
            ResourceType::Table,
            format!("{}.{}", dst.database, dst.object),
        ));
    }
    if state.inner.config.warehouse.contains("://") {
        return Err(ApiError::new(
            StatusCode::NOT_IMPLEMENTED,
            "renameTable is not supported on an object-store warehouse (no atomic rename)",
        ));
    }
    let root = std::path::Path::new(&state.inner.config.warehouse);
    let from = root.join(format!("{}.db", src.database)).join(&src.object);
    let to = root.join(format!("{}.db", dst.database)).join(&dst.object);
    let lock = state.table_lock(&format!("{}.{}", src.database, src.object));
    let _guard = lock.lock().await;
    tokio::fs::rename(&from, &to)
        .await
        .map_err(|e| ApiError::internal(&e))?;
    Ok(empty())
}

/// `registerTable`: refused by name — the warehouse's tables are its directories.
pub(crate) async fn register() -> ApiError {
    ApiError::not_implemented(
        "registerTable (a filesystem warehouse's tables are its <db>.db/<table> directories)",
    )
}

/// `rollbackSchema`: the schema versions above `schemaId` are deleted (`Table::rollback_schema`,
/// Java's `SchemaManager.rollbackTo`, which Java's `RESTCatalogServer` calls). 400 when the
/// schema does not exist or a snapshot, tag or changelog still refers to a newer one (Java's
/// server answers those 500; they are the caller's mistakes).
pub(crate) async fn rollback_schema(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
    JsonBody(req): JsonBody<strata_spec::rest::RollbackSchemaRequest>,
) -> ApiResult<Response> {
    let table = load_table(&state, &db, &object).await?;
    let lock = state.table_lock(&format!("{db}.{object}"));
    let _guard = lock.lock().await;
    table
        .rollback_schema(req.schema_id)
        .await
        .map_err(|e| table_err(&state, &db, &object, &e))?;
    Ok(empty())
}

/// `getTableToken`: the credentials a client needs for the table's files (`crate::vending`):
/// none for a local warehouse; STS keys scoped to the table's directory and to read or
/// read + write by the caller's grant when `s3.sts.role-arn` is set; else the warehouse's own
/// (unscoped) keys for principals who may write the table and an empty map for readers.
pub(crate) async fn token(
    State(state): State<AppState>,
    Extension(Caller(p)): Extension<Caller>,
    Path((_, db, object)): Path<(String, String, String)>,
) -> ApiResult<Json<GetTableTokenResponse>> {
    let table = load_table(&state, &db, &object).await?;
    let write = authz::may_write(&p, &db, &object);
    state.inner.metrics.token_vended(write);
    let (token, expires_at_millis) = state.inner.vending.token(&table.location(), write).await?;
    Ok(Json(GetTableTokenResponse {
        token,
        expires_at_millis,
    }))
}

/// `authTableQuery`: strata's server keeps no row filters or column masks, so a caller who may
/// read the table (the guard checked) reads it unfiltered.
pub(crate) async fn auth_query(
    State(state): State<AppState>,
    Path((_, db, object)): Path<(String, String, String)>,
    JsonBody(_req): JsonBody<AuthTableQueryRequest>,
) -> ApiResult<Json<AuthTableQueryResponse>> {
    load_table(&state, &db, &object).await?;
    Ok(Json(AuthTableQueryResponse {
        filter: Some(Vec::new()),
        column_masking: Some(BTreeMap::new()),
    }))
}
