//! The HTTP exchange of the REST catalog client: one request → one typed answer, Paimon's
//! error answers mapped onto strata's errors. Java's `HttpClient` + `DefaultErrorHandler`.
//!
//! - The client is reqwest (rustls; the JSON is serde_json's, not reqwest's).
//! - Headers: `Content-Type: application/json` (with a body), the catalog's `header.*`
//!   options, then the auth provider's (`Authorization: Bearer …`, or a DLF signature of this
//!   very request — method, path, query, body — computed as each attempt is sent); a later one
//!   replaces an earlier one of the same name.
//! - GETs are retried on a connection failure, a timeout, 429 and 503 (Java's
//!   `ExponentialHttpRequestRetryStrategy`, which also retries only idempotent requests);
//!   a POST or DELETE is sent once.
//! - An error answer (`ErrorResponse`, or a bare status without a body) maps by status:
//!   400 → invalid input, 401/403 → permission denied, 404 → not found (database, table,
//!   tag, snapshot by `resourceType`), 409 → already exists, 501 → unsupported, 5xx and
//!   anything else → a catalog-server I/O error. Messages never carry the request body
//!   nor a response body that is not an `ErrorResponse` (a token answer holds credentials).

use std::collections::BTreeMap;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use serde::Serialize;
use strata_spec::rest::ErrorResponse;

use crate::error::ErrorDetail;
use crate::{Error, Result};

/// How many times a GET is tried in all.
const GET_ATTEMPTS: u32 = 4;

/// One request as it is sent: what an auth provider signs (Java's `RESTAuthParameter`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct OutgoingRequest<'a> {
    /// `GET`, `POST`, `DELETE`.
    pub(crate) method: &'a str,
    /// The resource path as sent (`/v1/prefix/databases/db%24x`), without the query.
    pub(crate) path: &'a str,
    /// The query parameters, unencoded.
    pub(crate) query: &'a [(&'a str, String)],
    /// The body as sent (`None` for GET and DELETE).
    pub(crate) body: Option<&'a str>,
}

/// The auth headers of each request (Java's `RESTAuthFunction`), asked as it is sent.
#[async_trait]
pub(crate) trait RequestAuth: Send + Sync {
    /// The headers `request` carries; an error (no credentials to be had) stops the call.
    async fn headers_for(&self, request: &OutgoingRequest<'_>) -> Result<Vec<(String, String)>>;
}

/// One REST endpoint: the base URI, the fixed headers, the reqwest client.
#[derive(Clone, Debug)]
pub(crate) struct HttpClient {
    uri: String,
    headers: BTreeMap<String, String>,
    client: reqwest::Client,
}

/// What an error answer said: the status and the `ErrorResponse` (or what stands in for it).
#[derive(Clone, Debug)]
pub(crate) struct RestFailure {
    /// The HTTP status.
    pub(crate) status: u16,
    /// The decoded `ErrorResponse` (empty members when the body was not one).
    pub(crate) error: ErrorResponse,
}

impl RestFailure {
    /// The `resourceType` of the answer, if any.
    pub(crate) fn resource_type(&self) -> Option<&str> {
        self.error.resource_type.as_deref()
    }
    fn message(&self) -> String {
        self.error
            .message
            .clone()
            .unwrap_or_else(|| format!("HTTP {}", self.status))
    }
}

/// The outcome of one call: an answer, an error answer (kept so callers can map 404/409 by
/// resource), or a transport failure.
#[derive(Debug)]
pub(crate) enum CallError {
    /// The server answered with an error status.
    Status(RestFailure),
    /// No usable answer: connection refused / reset, timeout, undecodable body.
    /// `sent` is false when the request certainly never reached the server (connect failure).
    Transport { message: String, sent: bool },
    /// The request was never sent: its credentials could not be had (a DLF token file or
    /// the ECS metadata service failed).
    Auth(Error),
}

impl CallError {
    /// The error answer, if the server gave one.
    pub(crate) fn status(&self) -> Option<&RestFailure> {
        match self {
            CallError::Status(f) => Some(f),
            CallError::Transport { .. } | CallError::Auth(_) => None,
        }
    }

    /// Whether this is a 404 (optionally of `resource_type`).
    pub(crate) fn is_not_found(&self, resource_type: Option<&str>) -> bool {
        matches!(self.status(), Some(f) if f.status == 404
            && resource_type.is_none_or(|t| f.resource_type() == Some(t)))
    }

    /// Whether this is a 409.
    pub(crate) fn is_already_exists(&self) -> bool {
        matches!(self.status(), Some(f) if f.status == 409)
    }

    /// The strata error for this failure of the call `endpoint` (e.g. `GET databases/db`).
    pub(crate) fn into_error(self, endpoint: &str) -> Error {
        match self {
            CallError::Transport { message, sent } => ErrorDetail::CatalogServer {
                endpoint: endpoint.to_string(),
                message,
                retryable: !sent,
            }
            .into(),
            CallError::Status(f) => status_error(endpoint, &f),
            CallError::Auth(e) => e,
        }
    }
}

/// Java's `DefaultErrorHandler`, onto strata's kinds.
fn status_error(endpoint: &str, f: &RestFailure) -> Error {
    let name = f.error.resource_name.clone().unwrap_or_default();
    let message = f.message();
    let detail = match f.status {
        400 => ErrorDetail::InvalidArgument(format!("{endpoint}: {message}")),
        401 | 403 => ErrorDetail::PermissionDenied {
            resource: if name.is_empty() {
                endpoint.to_string()
            } else {
                name
            },
            message: if f.status == 401 {
                format!("Not authorized: {message}")
            } else {
                format!("Forbidden: {message}")
            },
        },
        404 => match f.resource_type() {
            Some("DATABASE") if !name.is_empty() => ErrorDetail::DatabaseNotFound(name),
            Some("TABLE") if !name.is_empty() => ErrorDetail::TableNotFound(name),
            _ => ErrorDetail::NotFound(format!("{endpoint}: {message}")),
        },
        409 => match f.resource_type() {
            Some("DATABASE") if !name.is_empty() => ErrorDetail::DatabaseAlreadyExists(name),
            Some("TABLE") if !name.is_empty() => ErrorDetail::TableAlreadyExists(name),
            Some("TAG") if !name.is_empty() => ErrorDetail::TagAlreadyExists {
                table: endpoint.to_string(),
                name,
            },
            Some("COLUMN") if !name.is_empty() => ErrorDetail::ColumnAlreadyExists {
                table: endpoint.to_string(),
                column: name,
            },
            // BRANCH, PARTITION, UNKNOWN: the server's own words.
            _ => ErrorDetail::AlreadyExists(format!("{endpoint}: {message}")),
        },
        501 => ErrorDetail::Unsupported(format!("{endpoint}: {message}")),
        status => ErrorDetail::CatalogServer {
            endpoint: endpoint.to_string(),
            message: format!("HTTP {status}: {message}"),
            retryable: false,
        },
    };
    detail.into()
}

impl HttpClient {
    /// A client of the server at `uri` (`http://` is assumed without a scheme, as Java's
    /// `HttpClient.normalizeUri`), sending `headers` with every request.
    pub(crate) fn new(uri: &str, headers: BTreeMap<String, String>) -> Result<HttpClient> {
        let uri = uri.trim().trim_end_matches('/');
        if uri.is_empty() {
            return Err(Error::invalid_option(
                "uri",
                "a REST catalog needs `uri` (the server's base URL)",
            ));
        }
        let uri = if uri.starts_with("http://") || uri.starts_with("https://") {
            uri.to_string()
        } else if uri.contains("://") {
            return Err(Error::invalid_option(
                "uri",
                format!("uri = {uri}: a REST catalog URI is http:// or https://"),
            ));
        } else {
            format!("http://{uri}")
        };
        for (k, v) in &headers {
            if reqwest::header::HeaderName::from_bytes(k.as_bytes()).is_err()
                || reqwest::header::HeaderValue::from_str(v).is_err()
            {
                return Err(Error::invalid_option(
                    format!("header.{k}"),
                    "not a valid HTTP header name or value",
                ));
            }
        }
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .timeout(Duration::from_secs(120))
            .build()
            .map_err(|e| {
                Error::from(ErrorDetail::InvalidArgument(format!(
                    "cannot build the REST catalog's HTTP client: {e}"
                )))
            })?;
        Ok(HttpClient {
            uri,
            headers,
            client,
        })
    }

    /// The base URI.
    pub(crate) fn uri(&self) -> &str {
        &self.uri
    }

    /// Adds fixed headers (the server's `header.*` defaults after the config handshake).
    pub(crate) fn extend_headers(&mut self, headers: BTreeMap<String, String>) {
        self.headers.extend(headers);
    }

    /// `GET path?query` → `T`.
    pub(crate) async fn get<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
        auth: &dyn RequestAuth,
    ) -> std::result::Result<T, CallError> {
        let body = self.send(Method::GET, path, query, None, auth).await?;
        decode(&body)
    }

    /// `POST path` with `body` → `T`.
    pub(crate) async fn post<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
        auth: &dyn RequestAuth,
    ) -> std::result::Result<T, CallError> {
        let text = self.post_raw(path, body, auth).await?;
        decode(&text)
    }

    /// `POST path` with `body`, the answer ignored (Java's `post` without a response type).
    pub(crate) async fn post_raw<B: Serialize>(
        &self,
        path: &str,
        body: &B,
        auth: &dyn RequestAuth,
    ) -> std::result::Result<String, CallError> {
        let json = serde_json::to_string(body).map_err(|e| CallError::Transport {
            message: format!("cannot encode the request: {e}"),
            sent: false,
        })?;
        self.send(Method::POST, path, &[], Some(json), auth).await
    }

    /// `DELETE path`.
    pub(crate) async fn delete(
        &self,
        path: &str,
        auth: &dyn RequestAuth,
    ) -> std::result::Result<(), CallError> {
        self.send(Method::DELETE, path, &[], None, auth)
            .await
            .map(|_| ())
    }

    async fn send(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<String>,
        auth: &dyn RequestAuth,
    ) -> std::result::Result<String, CallError> {
        let mut url = format!("{}{}", self.uri, path);
        if !query.is_empty() {
            let q: Vec<String> = query
                .iter()
                .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
                .collect();
            url.push('?');
            url.push_str(&q.join("&"));
        }
        let request = OutgoingRequest {
            method: method.as_str(),
            path,
            query,
            body: body.as_deref(),
        };
        let attempts = if method == Method::GET {
            GET_ATTEMPTS
        } else {
            1
        };
        let mut attempt = 0;
        loop {
            attempt += 1;
            // Signed per attempt: a DLF signature carries its time.
            let signed = auth.headers_for(&request).await.map_err(CallError::Auth)?;
            let mut headers = HeaderMap::new();
            // As Java's `HttpClient`: a content type only on a request with a body (a DLF
            // server checks a signature over the headers it receives).
            if body.is_some() {
                headers.insert(
                    reqwest::header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
            }
            for (k, v) in self
                .headers
                .iter()
                .chain(signed.iter().map(|(k, v)| (k, v)))
            {
                let (Ok(name), Ok(value)) = (
                    HeaderName::from_bytes(k.as_bytes()),
                    HeaderValue::from_str(v),
                ) else {
                    return Err(CallError::Auth(Error::invalid_argument(format!(
                        "the header {k} of the request is not a valid HTTP header"
                    ))));
                };
                headers.insert(name, value);
            }
            let mut req = self.client.request(method.clone(), &url).headers(headers);
            if let Some(b) = &body {
                req = req.body(b.clone());
            }
            let err = match req.send().await {
                Ok(resp) => {
                    let status = resp.status();
                    match resp.text().await {
                        Ok(text) if status.is_success() => return Ok(text),
                        Ok(text) => CallError::Status(failure(status, &text)),
                        Err(e) => CallError::Transport {
                            message: format!("reading the answer failed: {}", short(&e)),
                            sent: true,
                        },
                    }
                }
                Err(e) => CallError::Transport {
                    message: short(&e),
                    sent: !e.is_connect(),
                },
            };
            let transient = match &err {
                CallError::Transport { .. } => true,
                CallError::Status(f) => f.status == 429 || f.status == 503,
                CallError::Auth(_) => false,
            };
            if !transient || attempt >= attempts {
                return Err(err);
            }
            tokio::time::sleep(Duration::from_millis(100 << attempt)).await;
        }
    }
}

/// Java's `URLEncoder.encode(s, UTF-8)` (`RESTUtil.encodeString`): `A-Za-z0-9.-*_` stay,
/// space is `+`, every other byte of the UTF-8 text is `%XX` (upper-case hex).
pub(crate) fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'-' | b'*' | b'_' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The error answer of `status` with `body` (an `ErrorResponse` when it decodes; Java's
/// `buildErrorResponse` otherwise: the status alone).
fn failure(status: StatusCode, body: &str) -> RestFailure {
    let error = serde_json::from_str::<ErrorResponse>(body)
        .ok()
        .filter(|e| e.message.is_some() || e.code.is_some())
        .unwrap_or_else(|| ErrorResponse {
            message: Some(
                status
                    .canonical_reason()
                    .unwrap_or("no error message")
                    .to_string(),
            ),
            ..ErrorResponse::default()
        });
    RestFailure {
        status: status.as_u16(),
        error,
    }
}

/// A transport error without the URL (which may carry tokens in its query).
fn short(e: &reqwest::Error) -> String {
    let what = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not connect"
    } else if e.is_request() {
        "the request failed"
    } else if e.is_body() || e.is_decode() {
        "the answer's body failed"
    } else {
        "HTTP error"
    };
    let source = std::error::Error::source(e)
        .map(|s| format!(": {s}"))
        .unwrap_or_default();
    format!("{what}{source}")
}

/// Decodes an answer body into `T`, never quoting the body (it may hold credentials).
fn decode<T: DeserializeOwned>(text: &str) -> std::result::Result<T, CallError> {
    // An empty body (Java's void answers) reads as `{}` for types that allow it.
    let text = if text.trim().is_empty() { "{}" } else { text };
    serde_json::from_str(text).map_err(|e| CallError::Transport {
        message: format!(
            "the answer is not a valid {} (line {}, column {})",
            std::any::type_name::<T>()
                .rsplit("::")
                .next()
                .unwrap_or("answer"),
            e.line(),
            e.column()
        ),
        sent: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    fn answer(status: u16, body: &str) -> Error {
        let code = StatusCode::from_u16(status).unwrap();
        CallError::Status(failure(code, body)).into_error("GET x")
    }

    #[test]
    fn error_answers_map_like_javas_default_error_handler() {
        let e = |t: &str, n: &str, c: u16| {
            format!(r#"{{"message":"m","resourceType":"{t}","resourceName":"{n}","code":{c}}}"#)
        };
        assert_eq!(
            answer(400, r#"{"message":"bad","code":400}"#).kind(),
            ErrorKind::InvalidInput
        );
        assert_eq!(answer(401, "").kind(), ErrorKind::PermissionDenied);
        assert_eq!(
            answer(403, &e("TABLE", "db.t", 403)).kind(),
            ErrorKind::PermissionDenied
        );
        let nf = answer(404, &e("DATABASE", "db", 404));
        assert_eq!(nf.kind(), ErrorKind::NotFound);
        assert!(nf.to_string().contains("db"), "{nf}");
        assert_eq!(
            answer(404, &e("TAG", "v1", 404)).kind(),
            ErrorKind::NotFound
        );
        for t in ["DATABASE", "TABLE", "TAG", "COLUMN", "BRANCH", "UNKNOWN"] {
            assert_eq!(
                answer(409, &e(t, "x", 409)).kind(),
                ErrorKind::AlreadyExists,
                "{t}"
            );
        }
        assert_eq!(
            answer(501, &e("UNKNOWN", "", 501)).kind(),
            ErrorKind::Unsupported
        );
        let s = answer(500, "<html>secret body</html>");
        assert_eq!(s.kind(), ErrorKind::Io);
        assert!(!s.is_retryable());
        assert!(!s.to_string().contains("secret"), "{s}");
    }

    #[test]
    fn uris_are_normalised_and_headers_checked() {
        let c = HttpClient::new("localhost:8080/", BTreeMap::new()).unwrap();
        assert_eq!(c.uri(), "http://localhost:8080");
        assert!(HttpClient::new("ftp://x", BTreeMap::new()).is_err());
        assert!(HttpClient::new("", BTreeMap::new()).is_err());
        let bad = BTreeMap::from([("a b".to_string(), "v".to_string())]);
        let e = HttpClient::new("http://x", bad).unwrap_err();
        assert!(e.to_string().contains("header.a b"), "{e}");
    }
}
