//! Temporary credentials for the test server, as AWS STS and MinIO hand them out: an
//! `AssumeRole` endpoint (`POST /` with a form body `Action=AssumeRole&RoleArn=…&Policy=…
//! &DurationSeconds=…`, SigV4-signed for service `sts` by a permanent key — s3s verifies the
//! signature) mints an access key, a secret and a session token bound to the session policy it
//! was given and to an expiry, and every S3 request signed with them is checked ([`Access`],
//! s3s's `S3Access`): the key must not have expired, its `x-amz-security-token` must be the
//! one minted with it, and its policy ([`crate::policy`]) must allow the action on the bucket
//! and key (listings: on the bucket, with the request's `prefix` as `s3:prefix`).
//!
//! Deviations from AWS, for tests: `DurationSeconds` may be as short as one second (AWS: at
//! least 900) so expiry can be tested in seconds; the role ARN is accepted as given (no IAM
//! roles here: the role's own permissions are everything, the session policy is the scope);
//! temporary credentials cannot assume a role again (no role chaining).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use s3s::access::{S3Access, S3AccessContext};
use s3s::auth::{S3Auth, SecretKey};
use s3s::dto::DeleteObjectsInput;
use s3s::path::S3Path;
use s3s::route::S3Route;
use s3s::{s3_error, Body, S3Error, S3ErrorCode, S3Request, S3Response, S3Result};

use crate::policy::{Policy, Request};

/// One key the server knows.
#[derive(Clone)]
struct Identity {
    secret: String,
    /// Temporary keys: the session token minted with them.
    session_token: Option<String>,
    /// `None`: everything (a permanent key).
    policy: Option<Policy>,
    expires_at: Option<SystemTime>,
}

/// The keys the server accepts: the permanent ones and every temporary key minted.
#[derive(Clone, Default)]
pub struct Identities {
    keys: Arc<Mutex<HashMap<String, Identity>>>,
}

impl std::fmt::Debug for Identities {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Identities")
    }
}

/// Temporary credentials minted by `AssumeRole`.
#[derive(Clone, Debug)]
pub struct TempCredentials {
    pub access_key: String,
    pub secret_key: String,
    pub session_token: String,
    pub expires_at: SystemTime,
}

impl Identities {
    /// Accepting the permanent key `access_key` with `secret`, allowed everything.
    pub fn with_permanent(access_key: &str, secret: &str) -> Self {
        let ids = Identities::default();
        ids.lock().insert(
            access_key.to_string(),
            Identity {
                secret: secret.to_string(),
                session_token: None,
                policy: None,
                expires_at: None,
            },
        );
        ids
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Identity>> {
        self.keys.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Mints temporary credentials scoped by `policy` (`None`: everything), valid for `life`.
    pub fn mint(&self, policy: Option<Policy>, life: Duration) -> TempCredentials {
        let id = || {
            uuid::Uuid::new_v4()
                .simple()
                .to_string()
                .to_ascii_uppercase()
        };
        let access_key = format!("ASIA{}", &id()[..16]);
        let secret_key = format!("{}{}", id(), &id()[..8]).to_ascii_lowercase();
        let session_token = format!("{}{}{}", id(), id(), id());
        let expires_at = SystemTime::now() + life;
        self.lock().insert(
            access_key.clone(),
            Identity {
                secret: secret_key.clone(),
                session_token: Some(session_token.clone()),
                policy,
                expires_at: Some(expires_at),
            },
        );
        TempCredentials {
            access_key,
            secret_key,
            session_token,
            expires_at,
        }
    }

    fn get(&self, access_key: &str) -> S3Result<Identity> {
        let id = self
            .lock()
            .get(access_key)
            .cloned()
            .ok_or_else(|| s3_error!(InvalidAccessKeyId, "unknown access key"))?;
        if id.expires_at.is_some_and(|t| t <= SystemTime::now()) {
            return Err(s3_error!(
                ExpiredToken,
                "the temporary credentials have expired"
            ));
        }
        Ok(id)
    }
}

#[async_trait::async_trait]
impl S3Auth for Identities {
    async fn get_secret_key(&self, access_key: &str) -> S3Result<SecretKey> {
        Ok(SecretKey::from(self.get(access_key)?.secret))
    }
}

/// The access check of every S3 request (see the module docs).
pub struct Access(pub Identities);

impl Access {
    /// The caller's identity, its session token checked.
    fn identity(&self, access_key: Option<&str>, headers: &http::HeaderMap) -> S3Result<Identity> {
        let key = access_key.ok_or_else(|| s3_error!(AccessDenied, "Signature is required"))?;
        let id = self.0.get(key)?;
        if let Some(token) = &id.session_token {
            let sent = headers
                .get("x-amz-security-token")
                .and_then(|v| v.to_str().ok());
            if sent != Some(token.as_str()) {
                return Err(s3_error!(
                    InvalidToken,
                    "the session token is missing or not the one of these credentials"
                ));
            }
        }
        Ok(id)
    }
}

fn check(policy: &Policy, req: &Request<'_>) -> S3Result<()> {
    if policy.allows(req) {
        Ok(())
    } else {
        Err(S3Error::with_message(
            S3ErrorCode::AccessDenied,
            format!(
                "{} on {} is not allowed by the session policy",
                req.action, req.resource
            ),
        ))
    }
}

fn query_param(uri: &http::Uri, name: &str) -> Option<String> {
    let q = uri.query()?;
    form_urlencoded::parse(q.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

#[async_trait::async_trait]
impl S3Access for Access {
    async fn check(&self, cx: &mut S3AccessContext<'_>) -> S3Result<()> {
        let key = cx.credentials().map(|c| c.access_key.clone());
        let id = self.identity(key.as_deref(), cx.headers())?;
        let Some(policy) = &id.policy else {
            return Ok(());
        };
        let op = cx.s3_op().name();
        let (bucket, object) = match cx.s3_path() {
            S3Path::Root => (None, None),
            S3Path::Bucket { bucket } => (Some(bucket.to_string()), None),
            S3Path::Object { bucket, key } => (Some(bucket.to_string()), Some(key.to_string())),
        };
        let action = match op {
            "GetObject" | "HeadObject" | "GetObjectAttributes" => "s3:GetObject",
            "PutObject"
            | "CreateMultipartUpload"
            | "UploadPart"
            | "CompleteMultipartUpload"
            | "AbortMultipartUpload" => "s3:PutObject",
            "DeleteObject" => "s3:DeleteObject",
            "ListObjects" | "ListObjectsV2" => "s3:ListBucket",
            // Checked key by key in `delete_objects`.
            "DeleteObjects" => return Ok(()),
            _ => {
                return Err(S3Error::with_message(
                    S3ErrorCode::AccessDenied,
                    format!("{op} is not allowed with scoped temporary credentials"),
                ))
            }
        };
        let bucket = bucket.ok_or_else(|| s3_error!(AccessDenied, "no bucket"))?;
        let resource = match &object {
            Some(k) => format!("arn:aws:s3:::{bucket}/{k}"),
            None => format!("arn:aws:s3:::{bucket}"),
        };
        let prefix = query_param(cx.uri(), "prefix");
        check(
            policy,
            &Request {
                action,
                resource,
                prefix: prefix.as_deref(),
            },
        )
    }

    async fn delete_objects(&self, req: &mut S3Request<DeleteObjectsInput>) -> S3Result<()> {
        let key = req.credentials.as_ref().map(|c| c.access_key.clone());
        let id = self.identity(key.as_deref(), &req.headers)?;
        let Some(policy) = &id.policy else {
            return Ok(());
        };
        for o in &req.input.delete.objects {
            check(
                policy,
                &Request {
                    action: "s3:DeleteObject",
                    resource: format!("arn:aws:s3:::{}/{}", req.input.bucket, o.key),
                    prefix: None,
                },
            )?;
        }
        Ok(())
    }
}

/// The `AssumeRole` endpoint (an s3s route beside the S3 API).
pub struct AssumeRole(pub Identities);

/// The longest a session may last (AWS's role maximum).
const MAX_DURATION_SECONDS: u64 = 12 * 3600;

fn sts_error(code: &'static str, message: String) -> S3Error {
    let mut e = S3Error::with_message(S3ErrorCode::Custom(code.into()), message);
    e.set_status_code(http::StatusCode::BAD_REQUEST);
    e
}

#[async_trait::async_trait]
impl S3Route for AssumeRole {
    fn is_match(
        &self,
        method: &http::Method,
        uri: &http::Uri,
        headers: &http::HeaderMap,
        _: &mut http::Extensions,
    ) -> bool {
        method == http::Method::POST
            && uri.path() == "/"
            && headers
                .get(http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"))
    }

    async fn call(&self, mut req: S3Request<Body>) -> S3Result<S3Response<Body>> {
        let caller = req
            .credentials
            .as_ref()
            .map(|c| c.access_key.clone())
            .ok_or_else(|| s3_error!(AccessDenied, "Signature is required"))?;
        if self.0.get(&caller)?.session_token.is_some() {
            return Err(s3_error!(
                AccessDenied,
                "temporary credentials cannot assume a role here"
            ));
        }
        let body = req
            .input
            .store_all_limited(64 * 1024)
            .await
            .map_err(|e| sts_error("InvalidInput", format!("cannot read the body: {e}")))?;
        let form: HashMap<String, String> = form_urlencoded::parse(&body).into_owned().collect();
        match form.get("Action").map(String::as_str) {
            Some("AssumeRole") => {}
            other => {
                return Err(sts_error(
                    "InvalidAction",
                    format!("unsupported action {other:?} (this STS serves AssumeRole)"),
                ))
            }
        }
        let role = form
            .get("RoleArn")
            .filter(|r| !r.is_empty())
            .ok_or_else(|| sts_error("MissingParameter", "RoleArn is required".into()))?;
        let session = form
            .get("RoleSessionName")
            .filter(|r| !r.is_empty())
            .ok_or_else(|| sts_error("MissingParameter", "RoleSessionName is required".into()))?;
        let seconds = match form.get("DurationSeconds") {
            None => 3600,
            Some(s) => s
                .parse::<u64>()
                .ok()
                .filter(|s| (1..=MAX_DURATION_SECONDS).contains(s))
                .ok_or_else(|| {
                    sts_error(
                        "ValidationError",
                        format!("DurationSeconds {s}: expected 1..={MAX_DURATION_SECONDS}"),
                    )
                })?,
        };
        let policy = match form.get("Policy") {
            None => None,
            Some(p) => Some(Policy::parse(p).map_err(|e| sts_error("MalformedPolicyDocument", e))?),
        };
        let c = self.0.mint(policy, Duration::from_secs(seconds));
        let expiration = chrono::DateTime::<chrono::Utc>::from(c.expires_at)
            .format("%Y-%m-%dT%H:%M:%SZ")
            .to_string();
        let xml = format!(
            "<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\
             <AssumeRoleResult><Credentials><AccessKeyId>{}</AccessKeyId>\
             <SecretAccessKey>{}</SecretAccessKey><SessionToken>{}</SessionToken>\
             <Expiration>{expiration}</Expiration></Credentials>\
             <AssumedRoleUser><Arn>{}/{}</Arn><AssumedRoleId>{}:{}</AssumedRoleId>\
             </AssumedRoleUser></AssumeRoleResult>\
             <ResponseMetadata><RequestId>{}</RequestId></ResponseMetadata>\
             </AssumeRoleResponse>",
            c.access_key,
            c.secret_key,
            c.session_token,
            xml_escape(role),
            xml_escape(session),
            c.access_key,
            xml_escape(session),
            uuid::Uuid::new_v4(),
        );
        let mut resp = S3Response::new(Body::from(xml));
        resp.headers.insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("text/xml"),
        );
        Ok(resp)
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
