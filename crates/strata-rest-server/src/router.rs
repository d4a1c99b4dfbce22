//! The axum router: every path of Paimon's REST catalog API (`ResourcePaths` in Java,
//! `rest-catalog-open-api.yaml`) with its [`Op`] — this file is the route → `Op` table — and the
//! guard every route passes first: path names validated (before any I/O), the caller
//! authenticated and authorized (`authz`), the call audited and counted (`audit`, `metrics`).
//! Unknown paths answer 404, wrong methods 405, both as `ErrorResponse`.

use std::time::Instant;

use axum::extract::{DefaultBodyLimit, RawPathParams, Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post, MethodRouter};
use axum::Router;

use crate::audit::AuditEvent;
use crate::authz;
use crate::error::ApiError;
use crate::handlers::{
    branches, commit, config, consumers, databases, functions, partitions, snapshots, tables, tags,
    views,
};
use crate::metrics;
use crate::ops::Op;
use crate::state::{AppState, Caller};
use crate::validate;

/// `…/databases/{db}/tables/{table}`
const T: &str = "/v1/{prefix}/databases/{db}/tables/{table}";
/// `…/databases/{db}/views/{view}`
const V: &str = "/v1/{prefix}/databases/{db}/views/{view}";
/// `…/databases/{db}/functions/{function}`
const F: &str = "/v1/{prefix}/databases/{db}/functions/{function}";

/// The router of every operation, over `state`.
pub(crate) fn router(state: AppState) -> Router {
    let body_limit = state.inner.config.body_limit;
    let commit_limit = state.inner.config.commit_body_limit;
    let s = &state;
    let api = Router::new()
        .route("/v1/config", at(s, Op::GetConfig, get(config::get_config)))
        // databases
        .route(
            "/v1/{prefix}/databases",
            at(s, Op::ListDatabases, get(databases::list)),
        )
        .route(
            "/v1/{prefix}/databases",
            at(s, Op::CreateDatabase, post(databases::create)),
        )
        .route(
            "/v1/{prefix}/databases/{db}",
            at(s, Op::GetDatabase, get(databases::get)),
        )
        .route(
            "/v1/{prefix}/databases/{db}",
            at(s, Op::AlterDatabase, post(databases::alter)),
        )
        .route(
            "/v1/{prefix}/databases/{db}",
            at(s, Op::DropDatabase, delete(databases::drop)),
        )
        // tables
        .route(
            "/v1/{prefix}/databases/{db}/tables",
            at(s, Op::ListTables, get(tables::list)),
        )
        .route(
            "/v1/{prefix}/databases/{db}/tables",
            at(s, Op::CreateTable, post(tables::create)),
        )
        .route(
            "/v1/{prefix}/databases/{db}/table-details",
            at(s, Op::ListTableDetails, get(tables::list_details)),
        )
        .route(
            "/v1/{prefix}/tables",
            at(s, Op::ListTablesGlobally, get(tables::list_globally)),
        )
        .route(
            "/v1/{prefix}/tables/id/{id}",
            at(s, Op::GetTableById, get(tables::get_by_id)),
        )
        .route(
            "/v1/{prefix}/tables/rename",
            at(s, Op::RenameTable, post(tables::rename)),
        )
        .route(
            "/v1/{prefix}/databases/{db}/register",
            at(s, Op::RegisterTable, post(tables::register)),
        )
        .route(T, at(s, Op::GetTable, get(tables::get)))
        .route(T, at(s, Op::AlterTable, post(tables::alter)))
        .route(T, at(s, Op::DropTable, delete(tables::drop)))
        .route(
            &format!("{T}/commit"),
            at(s, Op::CommitTable, post(commit::commit)).layer(DefaultBodyLimit::max(commit_limit)),
        )
        .route(
            &format!("{T}/rollback"),
            at(s, Op::RollbackTable, post(commit::rollback)),
        )
        .route(
            &format!("{T}/rollback-schema"),
            at(s, Op::RollbackSchema, post(tables::rollback_schema)),
        )
        .route(
            &format!("{T}/token"),
            at(s, Op::GetTableToken, get(tables::token)),
        )
        .route(
            &format!("{T}/auth"),
            at(s, Op::AuthTableQuery, post(tables::auth_query)),
        )
        // snapshots
        .route(
            &format!("{T}/snapshot"),
            at(s, Op::GetTableSnapshot, get(snapshots::latest)),
        )
        .route(
            &format!("{T}/snapshots"),
            at(s, Op::ListSnapshots, get(snapshots::list)),
        )
        .route(
            &format!("{T}/snapshots/{{version}}"),
            at(s, Op::GetVersionSnapshot, get(snapshots::version)),
        )
        // partitions
        .route(
            &format!("{T}/partitions"),
            at(s, Op::ListPartitions, get(partitions::list)),
        )
        .route(
            &format!("{T}/partitions"),
            at(s, Op::CreatePartitions, post(partitions::create)),
        )
        .route(
            &format!("{T}/partitions/drop"),
            at(s, Op::DropPartitions, post(partitions::drop)),
        )
        .route(
            &format!("{T}/partitions/mark"),
            at(s, Op::MarkDonePartitions, post(partitions::mark_done)),
        )
        .route(
            &format!("{T}/partitions/list-by-names"),
            at(
                s,
                Op::ListPartitionsByNames,
                post(partitions::list_by_names),
            ),
        )
        .route(
            &format!("{T}/partitions/list-by-filter"),
            at(
                s,
                Op::ListPartitionsByFilter,
                post(partitions::list_by_filter),
            ),
        )
        // branches
        .route(
            &format!("{T}/branches"),
            at(s, Op::ListBranches, get(branches::list)),
        )
        .route(
            &format!("{T}/branches"),
            at(s, Op::CreateBranch, post(branches::create)),
        )
        .route(
            &format!("{T}/branches/{{branch}}"),
            at(s, Op::DropBranch, delete(branches::drop)),
        )
        .route(
            &format!("{T}/branches/{{branch}}/rename"),
            at(s, Op::RenameBranch, post(branches::rename)),
        )
        .route(
            &format!("{T}/branches/{{branch}}/forward"),
            at(s, Op::ForwardBranch, post(branches::forward)),
        )
        // tags
        .route(&format!("{T}/tags"), at(s, Op::ListTags, get(tags::list)))
        .route(
            &format!("{T}/tags"),
            at(s, Op::CreateTag, post(tags::create)),
        )
        .route(
            &format!("{T}/tags/{{tag}}"),
            at(s, Op::GetTag, get(tags::get)),
        )
        .route(
            &format!("{T}/tags/{{tag}}"),
            at(s, Op::DeleteTag, delete(tags::delete)),
        )
        // consumers
        .route(
            &format!("{T}/consumers"),
            at(s, Op::ListConsumers, get(consumers::list)),
        )
        .route(
            &format!("{T}/consumers/reset"),
            at(s, Op::ResetConsumer, post(consumers::reset)),
        );
    // views
    let api = api
        .route(
            "/v1/{prefix}/databases/{db}/views",
            at(s, Op::ListViews, get(views::list)),
        )
        .route(
            "/v1/{prefix}/databases/{db}/views",
            at(s, Op::CreateView, post(views::create)),
        )
        .route(
            "/v1/{prefix}/databases/{db}/view-details",
            at(s, Op::ListViewDetails, get(views::list_details)),
        )
        .route(
            "/v1/{prefix}/views",
            at(s, Op::ListViewsGlobally, get(views::list_globally)),
        )
        .route(
            "/v1/{prefix}/views/rename",
            at(s, Op::RenameView, post(views::rename)),
        )
        .route(V, at(s, Op::GetView, get(views::get)))
        .route(V, at(s, Op::AlterView, post(views::alter)))
        .route(V, at(s, Op::DropView, delete(views::drop)));
    // functions
    let api = api
        .route(
            "/v1/{prefix}/databases/{db}/functions",
            at(s, Op::ListFunctions, get(functions::list)),
        )
        .route(
            "/v1/{prefix}/databases/{db}/functions",
            at(s, Op::CreateFunction, post(functions::create)),
        )
        .route(
            "/v1/{prefix}/databases/{db}/function-details",
            at(s, Op::ListFunctionDetails, get(functions::list_details)),
        )
        .route(
            "/v1/{prefix}/functions",
            at(s, Op::ListFunctionsGlobally, get(functions::list_globally)),
        )
        .route(F, at(s, Op::GetFunction, get(functions::get)))
        .route(F, at(s, Op::AlterFunction, post(functions::alter)))
        .route(F, at(s, Op::DropFunction, delete(functions::drop)));
    api.merge(metrics::routes())
        .fallback(unknown_path)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(body_limit))
        .with_state(state)
}

/// `handler` guarded for `op`.
fn at(state: &AppState, op: Op, handler: MethodRouter<AppState>) -> MethodRouter<AppState> {
    handler.route_layer(middleware::from_fn_with_state(
        (state.clone(), op),
        guard_fn,
    ))
}

async fn guard_fn(State((state, op)): State<(AppState, Op)>, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let (mut parts, body) = req.into_parts();
    let params = {
        use axum::extract::FromRequestParts;
        RawPathParams::from_request_parts(&mut parts, &()).await
    };
    let mut db = None;
    let mut table = None;
    let mut principal_name = None;
    let answer = async {
        let params = params.map_err(|_| ApiError::bad_request("malformed path"))?;
        for (key, value) in params.iter() {
            match key {
                "prefix" if value != state.inner.name => {
                    return Err(ApiError::new(
                        StatusCode::NOT_FOUND,
                        format!("unknown catalog prefix {value:?}"),
                    ));
                }
                "db" => {
                    validate::database(value)?;
                    db = Some(value.to_string());
                }
                "table" => {
                    validate::table_object(value)?;
                    table = Some(value.to_string());
                }
                "branch" => validate::branch(value)?,
                "view" => validate::view(value)?,
                "function" => validate::function(value)?,
                "tag" => validate::tag(value)?,
                _ => {}
            }
        }
        let principal = state.inner.authz.authenticate(&parts.headers)?;
        principal_name = Some(principal.name.clone());
        authz::check(&principal, op, db.as_deref(), table.as_deref())?;
        parts.extensions.insert(Caller(principal));
        parts.extensions.insert(op);
        Ok::<_, ApiError>(())
    }
    .await;
    let response = match answer {
        Ok(()) => next.run(Request::from_parts(parts, body)).await,
        Err(e) => e.into_response(),
    };
    let status = response.status().as_u16();
    state.inner.audit.record(&AuditEvent {
        principal: principal_name.as_deref(),
        op,
        db: db.as_deref(),
        table: table.as_deref(),
        status,
        millis: started.elapsed().as_millis(),
    });
    state
        .inner
        .metrics
        .observe(op, status, started.elapsed().as_secs_f64());
    response
}

async fn unknown_path(method: Method, uri: axum::http::Uri) -> Response {
    let _ = method;
    ApiError::new(
        StatusCode::NOT_FOUND,
        format!("no such endpoint: {}", uri.path()),
    )
    .into_response()
}

async fn method_not_allowed(method: Method) -> Response {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("method {method} is not allowed on this endpoint"),
    )
    .into_response()
}
