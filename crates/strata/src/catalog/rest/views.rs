//! Views of a REST catalog (Java's `RESTCatalog.listViews`, `getView`, `createView`,
//! `alterView`, `dropView`, `renameView`, `listViewDetailsPaged`, `listViewsPagedGlobally` over
//! `RESTApi`'s calls of the same names): the endpoints under `…/databases/{db}/views`,
//! `…/view-details`, `/v1/{prefix}/views` and `…/views/rename`, and Java's reading of their
//! errors (a 404 on create is the database's absence, a 409 on alter an existing dialect, a
//! 404 `DIALECT` a missing one).

use strata_spec::rest as dto;

use super::api::RestApi;
use super::http::CallError;
use super::RestCatalog;
use crate::catalog::objects::{View, ViewChange};
use crate::error::ErrorDetail;
use crate::table::Identifier;
use crate::{Error, Result};

/// The query parameter of a name pattern (Java's `RESTApi.VIEW_NAME_PATTERN`).
const VIEW_NAME_PATTERN: &str = "viewNamePattern";
/// Java's `RESTApi.DATABASE_NAME_PATTERN`.
pub(super) const DATABASE_NAME_PATTERN: &str = "databaseNamePattern";

/// The name-pattern query parameters that are set (Java's `buildPagedQueryParams` leaves out
/// empty ones).
pub(super) fn pattern_query<'a>(pairs: &[(&'a str, Option<&str>)]) -> Vec<(&'a str, String)> {
    pairs
        .iter()
        .filter_map(|(k, v)| v.filter(|v| !v.is_empty()).map(|v| (*k, v.to_string())))
        .collect()
}

impl RestApi {
    async fn list_views(&self, db: &str, pattern: Option<&str>) -> Result<Vec<String>, CallError> {
        let q = pattern_query(&[(VIEW_NAME_PATTERN, pattern)]);
        self.paged(
            &self.paths().database_sub(db, "views"),
            &q,
            |r: dto::ListViewsResponse| (r.views, r.next_page_token),
        )
        .await
    }

    async fn list_view_details(
        &self,
        db: &str,
        pattern: Option<&str>,
    ) -> Result<Vec<dto::GetViewResponse>, CallError> {
        let q = pattern_query(&[(VIEW_NAME_PATTERN, pattern)]);
        self.paged(
            &self.paths().database_sub(db, "view-details"),
            &q,
            |r: dto::ListViewDetailsResponse| (r.view_details, r.next_page_token),
        )
        .await
    }

    async fn list_views_globally(
        &self,
        db_pattern: Option<&str>,
        pattern: Option<&str>,
    ) -> Result<Vec<dto::ObjectIdentifier>, CallError> {
        let q = pattern_query(&[
            (DATABASE_NAME_PATTERN, db_pattern),
            (VIEW_NAME_PATTERN, pattern),
        ]);
        self.paged(
            &self.paths().catalog_sub("views"),
            &q,
            |r: dto::ListViewsGloballyResponse| (r.views, r.next_page_token),
        )
        .await
    }

    async fn get_view(&self, db: &str, view: &str) -> Result<dto::GetViewResponse, CallError> {
        self.get(&self.paths().database_object(db, "views", view), &[])
            .await
    }

    async fn create_view(&self, body: &dto::CreateViewRequest) -> Result<(), CallError> {
        let path = self
            .paths()
            .database_sub(&body.identifier.database, "views");
        self.post_void(&path, body).await
    }

    async fn alter_view(
        &self,
        db: &str,
        view: &str,
        body: &dto::AlterViewRequest,
    ) -> Result<(), CallError> {
        self.post_void(&self.paths().database_object(db, "views", view), body)
            .await
    }

    async fn drop_view(&self, db: &str, view: &str) -> Result<(), CallError> {
        self.delete(&self.paths().database_object(db, "views", view))
            .await
    }

    async fn rename_view(&self, body: &dto::RenameTableRequest) -> Result<(), CallError> {
        self.post_void(&self.paths().catalog_sub("views/rename"), body)
            .await
    }
}

fn view_not_found(id: &Identifier) -> Error {
    ErrorDetail::NotFound(format!("view {id} does not exist")).into()
}

fn view_of(db: &str, r: dto::GetViewResponse) -> Result<View> {
    Ok(View {
        identifier: crate::catalog::objects::object_identifier("view", db, &r.name)?,
        schema: r.schema,
    })
}

fn check_view_id(id: &Identifier) -> Result<()> {
    if id.branch.is_some() {
        return Err(Error::invalid_argument(format!(
            "view {id}: a view has no branches ('$branch_' belongs to tables)"
        )));
    }
    Ok(())
}

impl RestCatalog {
    /// View names of database `db` matching `pattern` (a SQL `LIKE` prefix pattern such as
    /// `v%`, Java's `viewNamePattern`; `None`: every view), every page, sorted.
    pub async fn list_views_matching(
        &self,
        db: &str,
        pattern: Option<&str>,
    ) -> Result<Vec<String>> {
        match self.api().list_views(db, pattern).await {
            Ok(mut v) => {
                v.sort();
                Ok(v)
            }
            Err(e) if e.is_not_found(None) => {
                Err(ErrorDetail::DatabaseNotFound(db.to_string()).into())
            }
            Err(e) => Err(e.into_error("GET views")),
        }
    }

    /// The views of database `db` with their definitions (`GET …/view-details`, Java's
    /// `listViewDetailsPaged`), every page.
    pub async fn list_view_details(&self, db: &str, pattern: Option<&str>) -> Result<Vec<View>> {
        match self.api().list_view_details(db, pattern).await {
            Ok(v) => v.into_iter().map(|r| view_of(db, r)).collect(),
            Err(e) if e.is_not_found(None) => {
                Err(ErrorDetail::DatabaseNotFound(db.to_string()).into())
            }
            Err(e) => Err(e.into_error("GET view-details")),
        }
    }

    /// The views of every database matching the patterns (`GET /v1/{prefix}/views`, Java's
    /// `listViewsPagedGlobally`), every page, sorted.
    pub async fn list_views_globally(
        &self,
        database_pattern: Option<&str>,
        view_pattern: Option<&str>,
    ) -> Result<Vec<Identifier>> {
        let ids = self
            .api()
            .list_views_globally(database_pattern, view_pattern)
            .await
            .map_err(|e| e.into_error("GET views"))?;
        let mut out = ids
            .into_iter()
            .map(|i| crate::catalog::objects::object_identifier("view", &i.database, &i.object))
            .collect::<Result<Vec<_>>>()?;
        out.sort_by(|a, b| (&a.database, &a.table).cmp(&(&b.database, &b.table)));
        Ok(out)
    }

    pub(super) async fn rest_list_views(&self, db: &str) -> Result<Vec<String>> {
        self.list_views_matching(db, None).await
    }

    pub(super) async fn rest_get_view(&self, id: &Identifier) -> Result<View> {
        check_view_id(id)?;
        match self.api().get_view(&id.database, &id.table).await {
            Ok(r) => Ok(View {
                identifier: id.clone(),
                schema: r.schema,
            }),
            Err(e) if e.is_not_found(None) => Err(view_not_found(id)),
            Err(e) => Err(e.into_error("GET view")),
        }
    }

    pub(super) async fn rest_create_view(&self, view: &View, ignore_if_exists: bool) -> Result<()> {
        let id = &view.identifier;
        check_view_id(id)?;
        let body = dto::CreateViewRequest {
            identifier: dto::ObjectIdentifier::new(&id.database, &id.table),
            schema: view.schema.clone(),
        };
        match self.api().create_view(&body).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_not_found(None) => {
                Err(ErrorDetail::DatabaseNotFound(id.database.clone()).into())
            }
            Err(e) if e.is_already_exists() && ignore_if_exists => Ok(()),
            Err(e) if e.is_already_exists() => Err(ErrorDetail::AlreadyExists(format!(
                "view {id} already exists{}",
                taken_by(&e)
            ))
            .into()),
            Err(e) => Err(e.into_error("POST views")),
        }
    }

    pub(super) async fn rest_alter_view(
        &self,
        id: &Identifier,
        changes: Vec<ViewChange>,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        check_view_id(id)?;
        let body = dto::AlterViewRequest { changes };
        match self.api().alter_view(&id.database, &id.table, &body).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_already_exists() => Err(ErrorDetail::AlreadyExists(format!(
                "dialect {} already exists in view {id}",
                super::resource_name(&e)
            ))
            .into()),
            Err(e) if e.is_not_found(Some("DIALECT")) => Err(ErrorDetail::NotFound(format!(
                "dialect {} does not exist in view {id}",
                super::resource_name(&e)
            ))
            .into()),
            Err(e) if e.is_not_found(None) && ignore_if_not_exists => Ok(()),
            Err(e) if e.is_not_found(None) => Err(view_not_found(id)),
            Err(e) => Err(e.into_error("POST view")),
        }
    }

    pub(super) async fn rest_drop_view(
        &self,
        id: &Identifier,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        check_view_id(id)?;
        match self.api().drop_view(&id.database, &id.table).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_not_found(None) && ignore_if_not_exists => Ok(()),
            Err(e) if e.is_not_found(None) => Err(view_not_found(id)),
            Err(e) => Err(e.into_error("DELETE view")),
        }
    }

    pub(super) async fn rest_rename_view(
        &self,
        from: &Identifier,
        to: &Identifier,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        check_view_id(from)?;
        check_view_id(to)?;
        let body = dto::RenameTableRequest {
            source: dto::ObjectIdentifier::new(&from.database, &from.table),
            destination: dto::ObjectIdentifier::new(&to.database, &to.table),
        };
        match self.api().rename_view(&body).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_not_found(None) && ignore_if_not_exists => Ok(()),
            Err(e) if e.is_not_found(None) => Err(view_not_found(from)),
            Err(e) if e.is_already_exists() => Err(ErrorDetail::AlreadyExists(format!(
                "view {to} already exists{}",
                taken_by(&e)
            ))
            .into()),
            Err(e) => Err(e.into_error("POST views/rename")),
        }
    }
}

/// ` (a table of that name exists)` when the server's 409 names a table, not a view.
fn taken_by(e: &CallError) -> &'static str {
    match e.status().and_then(|f| f.resource_type()) {
        Some("TABLE") => " (as a table)",
        _ => "",
    }
}
