//! What a failed call answers: [`ApiError`] → an HTTP status and Paimon's `ErrorResponse` JSON
//! (`{message, resourceType, resourceName, code}`, Java's `org.apache.paimon.rest.responses.
//! ErrorResponse`), the body Java's `DefaultErrorHandler` maps back onto its exceptions.
//!
//! Messages never carry a path, a backtrace or an internal detail: a strata error's message is
//! kept only for the kinds whose text is about the caller's input (invalid input, unsupported,
//! conflict), with the warehouse location scrubbed; storage and internal failures answer a
//! fixed text (the detail goes to the server's log through `tracing`).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use strata::ErrorKind;

/// Java's `ErrorResponse.RESOURCE_TYPE_*` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResourceType {
    /// `DATABASE`
    Database,
    /// `TABLE`
    Table,
    /// `SNAPSHOT`
    Snapshot,
    /// `BRANCH`
    Branch,
    /// `TAG`
    Tag,
    /// `VIEW`
    View,
    /// `DIALECT` (a view's query for one SQL dialect)
    Dialect,
    /// `FUNCTION`
    Function,
    /// `DEFINITION` (a function's definition for one dialect)
    Definition,
}

impl ResourceType {
    fn as_str(self) -> &'static str {
        match self {
            ResourceType::Database => "DATABASE",
            ResourceType::Table => "TABLE",
            ResourceType::Snapshot => "SNAPSHOT",
            ResourceType::Branch => "BRANCH",
            ResourceType::Tag => "TAG",
            ResourceType::View => "VIEW",
            ResourceType::Dialect => "DIALECT",
            ResourceType::Function => "FUNCTION",
            ResourceType::Definition => "DEFINITION",
        }
    }
}

/// A failed call: status, message (safe to show) and the resource it concerns.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The message (no paths, no internals).
    pub message: String,
    /// What kind of resource the error is about.
    pub resource_type: Option<ResourceType>,
    /// The resource's name (`db`, `db.table`, a tag name ...).
    pub resource_name: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ErrorBody<'a> {
    message: &'a str,
    resource_type: Option<&'static str>,
    resource_name: Option<&'a str>,
    code: u16,
}

impl ApiError {
    /// An error with `status` and `message`, about no particular resource.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
            resource_type: None,
            resource_name: None,
        }
    }

    /// The same error about resource `name` of type `kind`.
    pub fn about(mut self, kind: ResourceType, name: impl Into<String>) -> Self {
        self.resource_type = Some(kind);
        self.resource_name = Some(name.into());
        self
    }

    /// 400: the request is malformed (Java's `BadRequestException`).
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    /// 401: no or an unknown token (Java's `NotAuthorizedException`).
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, message)
    }

    /// 403: the token's grants do not cover the call (Java's `ForbiddenException`).
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, message)
    }

    /// 404 for resource `name` of type `kind` (Java's `NoSuchResourceException`).
    pub fn not_found(kind: ResourceType, name: impl Into<String>) -> Self {
        let name = name.into();
        Self::new(
            StatusCode::NOT_FOUND,
            format!("{} {name} does not exist", title(kind)),
        )
        .about(kind, name)
    }

    /// 409 for resource `name` of type `kind` (Java's `AlreadyExistsException`).
    pub fn already_exists(kind: ResourceType, name: impl Into<String>) -> Self {
        let name = name.into();
        Self::new(
            StatusCode::CONFLICT,
            format!("{} {name} already exists", title(kind)),
        )
        .about(kind, name)
    }

    /// 501: an endpoint strata's server does not implement, named (Java's
    /// `NotImplementedException`).
    pub fn not_implemented(what: &str) -> Self {
        Self::new(
            StatusCode::NOT_IMPLEMENTED,
            format!("{what} is not supported by strata's REST catalog server"),
        )
    }

    /// 500 with a fixed text; the detail is logged, never answered.
    pub fn internal(detail: &dyn std::fmt::Display) -> Self {
        tracing::error!(error = %detail, "internal error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal server error (see the server's log)",
        )
    }

    /// A strata error of an operation on resource `name` of type `kind`. `scrub` is the
    /// warehouse location, removed from any message that is answered.
    pub fn from_strata(err: &strata::Error, kind: ResourceType, name: &str, scrub: &str) -> Self {
        let safe = || scrub_text(&err.message(), scrub);
        match err.kind() {
            ErrorKind::NotFound => ApiError::new(StatusCode::NOT_FOUND, safe()).about(kind, name),
            ErrorKind::AlreadyExists => {
                ApiError::new(StatusCode::CONFLICT, safe()).about(kind, name)
            }
            ErrorKind::InvalidInput => {
                ApiError::new(StatusCode::BAD_REQUEST, safe()).about(kind, name)
            }
            ErrorKind::Unsupported => {
                ApiError::new(StatusCode::NOT_IMPLEMENTED, safe()).about(kind, name)
            }
            ErrorKind::Conflict => ApiError::new(StatusCode::CONFLICT, safe()).about(kind, name),
            ErrorKind::PermissionDenied => {
                ApiError::new(StatusCode::FORBIDDEN, safe()).about(kind, name)
            }
            _ => {
                tracing::error!(error = %err, resource = name, "storage or internal error");
                let status = if err.kind() == ErrorKind::Io {
                    StatusCode::SERVICE_UNAVAILABLE
                } else {
                    StatusCode::INTERNAL_SERVER_ERROR
                };
                ApiError::new(
                    status,
                    "the server failed to serve the request (see its log)",
                )
                .about(kind, name)
            }
        }
    }
}

fn title(kind: ResourceType) -> &'static str {
    match kind {
        ResourceType::Database => "Database",
        ResourceType::Table => "Table",
        ResourceType::Snapshot => "Snapshot",
        ResourceType::Branch => "Branch",
        ResourceType::Tag => "Tag",
        ResourceType::View => "View",
        ResourceType::Dialect => "Dialect",
        ResourceType::Function => "Function",
        ResourceType::Definition => "Definition",
    }
}

/// `text` with every occurrence of the warehouse location (and its `file://` form) replaced by
/// `<warehouse>`, and any remaining absolute local path cut.
pub(crate) fn scrub_text(text: &str, warehouse: &str) -> String {
    let mut out = text.to_string();
    let trimmed = warehouse.trim_end_matches('/');
    if !trimmed.is_empty() {
        for form in [
            format!("file://{trimmed}"),
            trimmed.to_string(),
            trimmed.trim_start_matches('/').to_string(),
        ] {
            if !form.is_empty() {
                out = out.replace(&form, "<warehouse>");
            }
        }
    }
    out
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            message: &self.message,
            resource_type: self.resource_type.map(ResourceType::as_str),
            resource_name: self.resource_name.as_deref(),
            code: self.status.as_u16(),
        };
        let json = serde_json::to_vec(&body).unwrap_or_else(|_| b"{}".to_vec());
        (
            self.status,
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            json,
        )
            .into_response()
    }
}

/// What handlers return.
pub type ApiResult<T> = std::result::Result<T, ApiError>;
