//! Functions of a REST catalog (Java's `RESTCatalog.listFunctions`, `getFunction`,
//! `createFunction`, `alterFunction`, `dropFunction`, `listFunctionDetailsPaged`,
//! `listFunctionsPagedGlobally` over `RESTApi`'s calls of the same names): the endpoints under
//! `…/databases/{db}/functions`, `…/function-details` and `/v1/{prefix}/functions`; names
//! checked before any call as Java's `RESTFunctionValidator` does.

use strata_spec::rest as dto;

use super::api::RestApi;
use super::http::CallError;
use super::views::{pattern_query, DATABASE_NAME_PATTERN};
use super::RestCatalog;
use crate::catalog::objects::{Function, FunctionChange};
use crate::error::ErrorDetail;
use crate::table::Identifier;
use crate::{Error, Result};

/// Java's `RESTApi.FUNCTION_NAME_PATTERN`.
const FUNCTION_NAME_PATTERN: &str = "functionNamePattern";

impl RestApi {
    async fn list_functions(
        &self,
        db: &str,
        pattern: Option<&str>,
    ) -> Result<Vec<String>, CallError> {
        let q = pattern_query(&[(FUNCTION_NAME_PATTERN, pattern)]);
        self.paged(
            &self.paths().database_sub(db, "functions"),
            &q,
            |r: dto::ListFunctionsResponse| (r.functions, r.next_page_token),
        )
        .await
    }

    async fn list_function_details(
        &self,
        db: &str,
        pattern: Option<&str>,
    ) -> Result<Vec<dto::GetFunctionResponse>, CallError> {
        let q = pattern_query(&[(FUNCTION_NAME_PATTERN, pattern)]);
        self.paged(
            &self.paths().database_sub(db, "function-details"),
            &q,
            |r: dto::ListFunctionDetailsResponse| (r.function_details, r.next_page_token),
        )
        .await
    }

    async fn list_functions_globally(
        &self,
        db_pattern: Option<&str>,
        pattern: Option<&str>,
    ) -> Result<Vec<dto::ObjectIdentifier>, CallError> {
        let q = pattern_query(&[
            (DATABASE_NAME_PATTERN, db_pattern),
            (FUNCTION_NAME_PATTERN, pattern),
        ]);
        self.paged(
            &self.paths().catalog_sub("functions"),
            &q,
            |r: dto::ListFunctionsGloballyResponse| (r.functions, r.next_page_token),
        )
        .await
    }

    async fn get_function(
        &self,
        db: &str,
        name: &str,
    ) -> Result<dto::GetFunctionResponse, CallError> {
        self.get(&self.paths().database_object(db, "functions", name), &[])
            .await
    }

    async fn create_function(
        &self,
        db: &str,
        body: &dto::CreateFunctionRequest,
    ) -> Result<(), CallError> {
        self.post_void(&self.paths().database_sub(db, "functions"), body)
            .await
    }

    async fn alter_function(
        &self,
        db: &str,
        name: &str,
        body: &dto::AlterFunctionRequest,
    ) -> Result<(), CallError> {
        self.post_void(&self.paths().database_object(db, "functions", name), body)
            .await
    }

    async fn drop_function(&self, db: &str, name: &str) -> Result<(), CallError> {
        self.delete(&self.paths().database_object(db, "functions", name))
            .await
    }
}

/// Java's `RESTFunctionValidator.checkFunctionName` (and no branch).
fn check_function_id(id: &Identifier) -> Result<()> {
    if id.branch.is_some() || !dto::is_valid_function_name(&id.table) {
        return Err(Error::invalid_argument(format!(
            "Invalid function name: {} (letters, digits, '.', '_' and '-', at least one letter)",
            id.table
        )));
    }
    Ok(())
}

fn function_not_found(id: &Identifier) -> Error {
    ErrorDetail::NotFound(format!("function {id} does not exist")).into()
}

/// Java's `GetFunctionResponse.toFunction`.
fn function_of(identifier: Identifier, r: dto::GetFunctionResponse) -> Function {
    Function {
        identifier,
        input_params: r.input_params,
        return_params: r.return_params,
        deterministic: r.deterministic,
        definitions: r.definitions,
        comment: r.comment,
        options: r.options,
    }
}

/// A function's identifier as a listing names it (names with `.` are valid function names).
fn function_identifier(db: &str, name: &str) -> Result<Identifier> {
    Identifier::validate_name("database", db)?;
    Ok(Identifier {
        database: db.to_string(),
        table: name.to_string(),
        branch: None,
    })
}

impl RestCatalog {
    /// Function names of database `db` matching `pattern` (a SQL `LIKE` prefix pattern,
    /// Java's `functionNamePattern`; `None`: every function), every page, sorted.
    pub async fn list_functions_matching(
        &self,
        db: &str,
        pattern: Option<&str>,
    ) -> Result<Vec<String>> {
        match self.api().list_functions(db, pattern).await {
            Ok(mut f) => {
                f.sort();
                Ok(f)
            }
            Err(e) if e.is_not_found(None) => {
                Err(ErrorDetail::DatabaseNotFound(db.to_string()).into())
            }
            Err(e) => Err(e.into_error("GET functions")),
        }
    }

    /// The functions of database `db` with their definitions (`GET …/function-details`,
    /// Java's `listFunctionDetailsPaged`), every page.
    pub async fn list_function_details(
        &self,
        db: &str,
        pattern: Option<&str>,
    ) -> Result<Vec<Function>> {
        match self.api().list_function_details(db, pattern).await {
            Ok(v) => v
                .into_iter()
                .map(|r| Ok(function_of(function_identifier(db, &r.name)?, r)))
                .collect(),
            Err(e) if e.is_not_found(None) => {
                Err(ErrorDetail::DatabaseNotFound(db.to_string()).into())
            }
            Err(e) => Err(e.into_error("GET function-details")),
        }
    }

    /// The functions of every database matching the patterns (`GET /v1/{prefix}/functions`,
    /// Java's `listFunctionsPagedGlobally`), every page, sorted.
    pub async fn list_functions_globally(
        &self,
        database_pattern: Option<&str>,
        function_pattern: Option<&str>,
    ) -> Result<Vec<Identifier>> {
        let ids = self
            .api()
            .list_functions_globally(database_pattern, function_pattern)
            .await
            .map_err(|e| e.into_error("GET functions"))?;
        let mut out = ids
            .into_iter()
            .map(|i| function_identifier(&i.database, &i.object))
            .collect::<Result<Vec<_>>>()?;
        out.sort_by(|a, b| (&a.database, &a.table).cmp(&(&b.database, &b.table)));
        Ok(out)
    }

    pub(super) async fn rest_get_function(&self, id: &Identifier) -> Result<Function> {
        // Java's RESTApi.getFunction: an invalid name is a missing function.
        if id.branch.is_some() || !dto::is_valid_function_name(&id.table) {
            return Err(function_not_found(id));
        }
        match self.api().get_function(&id.database, &id.table).await {
            Ok(r) => Ok(function_of(id.clone(), r)),
            Err(e) if e.is_not_found(None) => Err(function_not_found(id)),
            Err(e) => Err(e.into_error("GET function")),
        }
    }

    pub(super) async fn rest_create_function(
        &self,
        function: &Function,
        ignore_if_exists: bool,
    ) -> Result<()> {
        let id = &function.identifier;
        check_function_id(id)?;
        let body = dto::CreateFunctionRequest {
            name: id.table.clone(),
            input_params: function.input_params.clone(),
            return_params: function.return_params.clone(),
            deterministic: function.deterministic,
            definitions: function.definitions.clone(),
            comment: function.comment.clone(),
            options: function.options.clone(),
        };
        match self.api().create_function(&id.database, &body).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_not_found(None) => {
                Err(ErrorDetail::DatabaseNotFound(id.database.clone()).into())
            }
            Err(e) if e.is_already_exists() && ignore_if_exists => Ok(()),
            Err(e) if e.is_already_exists() => {
                Err(ErrorDetail::AlreadyExists(format!("function {id} already exists")).into())
            }
            Err(e) => Err(e.into_error("POST functions")),
        }
    }

    pub(super) async fn rest_alter_function(
        &self,
        id: &Identifier,
        changes: Vec<FunctionChange>,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        check_function_id(id)?;
        let body = dto::AlterFunctionRequest { changes };
        match self
            .api()
            .alter_function(&id.database, &id.table, &body)
            .await
        {
            Ok(()) => Ok(()),
            Err(e) if e.is_already_exists() => Err(ErrorDetail::AlreadyExists(format!(
                "definition {} already exists in function {id}",
                super::resource_name(&e)
            ))
            .into()),
            Err(e) if e.is_not_found(Some("DEFINITION")) => Err(ErrorDetail::NotFound(format!(
                "definition {} does not exist in function {id}",
                super::resource_name(&e)
            ))
            .into()),
            Err(e) if e.is_not_found(None) && ignore_if_not_exists => Ok(()),
            Err(e) if e.is_not_found(None) => Err(function_not_found(id)),
            Err(e) => Err(e.into_error("POST function")),
        }
    }

    pub(super) async fn rest_drop_function(
        &self,
        id: &Identifier,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        check_function_id(id)?;
        match self.api().drop_function(&id.database, &id.table).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_not_found(None) && ignore_if_not_exists => Ok(()),
            Err(e) if e.is_not_found(None) => Err(function_not_found(id)),
            Err(e) => Err(e.into_error("DELETE function")),
        }
    }

    pub(super) async fn rest_list_functions(&self, db: &str) -> Result<Vec<String>> {
        self.list_functions_matching(db, None).await
    }
}
