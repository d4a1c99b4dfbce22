//! The data tokens the server vends (`GET …/tables/{table}/token`, Java's `getTableToken`;
//! the client side is Java's `RESTTokenFileIO`): credentials for one table's files.
//!
//! Three modes, from the warehouse's options:
//! * **local warehouse**: no credentials are needed, the token is empty;
//! * **STS, scoped** (`s3.sts.role-arn` set): the server calls STS `AssumeRole` with an inline
//!   session policy limited to the table's directory (`s3:GetObject` on `<prefix>/*` and
//!   `s3:ListBucket` with an `s3:prefix` condition for a reader; `s3:PutObject`,
//!   `s3:DeleteObject`, `s3:AbortMultipartUpload` too for a principal who may write the table)
//!   and hands out the temporary keys with their session token (also as Hadoop S3A's
//!   `fs.s3a.session.token` with its `TemporaryAWSCredentialsProvider`, which Java's
//!   `S3FileIO` needs) and STS's expiry as `expiresAtMillis`. Works with AWS STS and MinIO (and strata's S3 test server). Keys are
//!   cached per (table directory, read/write) and reused while at least half their life
//!   remains, so a client that refreshes (strata: at half the life at the latest) gets new ones;
//! * **static keys** (an object store without STS): the warehouse's own `s3.*` options go to
//!   principals who may write the table, an empty token to readers. These keys are **not
//!   scoped**: a writer of one table can reach everything the warehouse's keys can.
//!
//! Options (`strata serve --catalog-option K=V`): `s3.sts.role-arn` (switches STS on),
//! `s3.sts.endpoint` (default: `s3.endpoint` when set — MinIO serves STS at its S3 address —
//! else `https://sts.<region>.amazonaws.com`), `s3.sts.region` (default `s3.region`, else
//! `us-east-1`), `s3.sts.duration-seconds` (default 3600, STS's default; Java's client asks
//! for a new token whenever less than an hour remains, so raise it above 3600 — the role's
//! `MaxSessionDuration` permitting — when Java clients read through the server). The
//! `AssumeRole` call is signed with the warehouse's keys (`s3.access-key`, `s3.secret-key`,
//! `s3.session-token`, else `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN`)
//! by `object_store`'s `AwsAuthorizer` (SigV4), sent with reqwest; the answer's four fields are
//! read by hand (the XML is flat and its values are base64/ISO text: no XML parser needed).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use axum::http::StatusCode;
use bytes::Bytes;
use object_store::aws::{AwsAuthorizer, AwsCredential};

use crate::config::ServerConfig;
use crate::error::ApiError;

/// The options of this module; they are not options of the warehouse's store.
pub(crate) const STS_KEYS: [&str; 4] = [
    "s3.sts.role-arn",
    "s3.sts.endpoint",
    "s3.sts.region",
    "s3.sts.duration-seconds",
];

/// Static-keys and local tokens: one hour beyond Java's refresh margin
/// (`RESTTokenFileIO.TOKEN_EXPIRATION_SAFE_TIME_MILLIS`, 1 h), so clients refresh rarely.
const STATIC_VALIDITY_MILLIS: i64 = 2 * 3_600_000;

/// Store options that travel with scoped keys (how to reach the store, no secrets).
const STORE_KEYS: [&str; 4] = [
    "s3.endpoint",
    "s3.region",
    "s3.path-style-access",
    "s3.path.style.access",
];

/// The warehouse's options without this module's (what the catalog opens the store with).
pub(crate) fn store_options(options: &HashMap<String, String>) -> HashMap<String, String> {
    let mut out = options.clone();
    out.retain(|k, _| !STS_KEYS.contains(&k.as_str()));
    out
}

/// One vended token.
#[derive(Clone)]
struct Vended {
    token: BTreeMap<String, String>,
    issued_at_millis: i64,
    expires_at_millis: i64,
}

struct Sts {
    role_arn: String,
    endpoint: String,
    region: String,
    duration_seconds: u64,
    credential: AwsCredential,
    store: BTreeMap<String, String>,
    client: reqwest::Client,
}

enum Mode {
    Local,
    Static(BTreeMap<String, String>),
    Sts(Box<Sts>),
}

/// How this server vends tokens, and the scoped keys it keeps.
pub(crate) struct Vending {
    mode: Mode,
    cache: Mutex<HashMap<(String, bool), Vended>>,
}

impl std::fmt::Debug for Vending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = match &self.mode {
            Mode::Local => "local",
            Mode::Static(_) => "static keys (unscoped)",
            Mode::Sts(_) => "sts (scoped)",
        };
        f.debug_struct("Vending").field("mode", &mode).finish()
    }
}

fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl Vending {
    /// The vending mode of `config` (see the module docs); a misconfiguration is named.
    pub(crate) fn from_config(config: &ServerConfig) -> Result<Vending, String> {
        let o = &config.warehouse_options;
        let get = |k: &str| {
            o.get(k)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let on_s3 = config.warehouse.starts_with("s3://") || config.warehouse.starts_with("s3a://");
        let mode = match get("s3.sts.role-arn") {
            None => {
                if let Some(k) = STS_KEYS.iter().find(|k| o.contains_key(**k)) {
                    return Err(format!("{k} is set but s3.sts.role-arn is not"));
                }
                if on_s3 {
                    let keys = o
                        .iter()
                        .filter(|(k, _)| k.starts_with("s3."))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    Mode::Static(keys)
                } else {
                    Mode::Local
                }
            }
            Some(_) if !on_s3 => {
                return Err("s3.sts.role-arn needs an s3:// warehouse".to_string());
            }
            Some(role_arn) => {
                let region = get("s3.sts.region")
                    .or_else(|| get("s3.region"))
                    .unwrap_or_else(|| "us-east-1".to_string());
                let endpoint = get("s3.sts.endpoint")
                    .or_else(|| get("s3.endpoint"))
                    .unwrap_or_else(|| format!("https://sts.{region}.amazonaws.com"));
                let endpoint = if endpoint.contains("://") {
                    endpoint
                } else {
                    format!("https://{endpoint}")
                };
                let endpoint = endpoint.trim_end_matches('/').to_string();
                reqwest::Url::parse(&endpoint)
                    .map_err(|e| format!("s3.sts.endpoint {endpoint:?}: {e}"))?;
                let duration_seconds = match get("s3.sts.duration-seconds") {
                    None => 3600,
                    Some(v) => v.parse::<u64>().ok().filter(|n| *n >= 1).ok_or_else(|| {
                        format!("s3.sts.duration-seconds={v}: expected a whole number >= 1")
                    })?,
                };
                let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
                let (key_id, secret_key, token) = match (get("s3.access-key"), get("s3.secret-key"))
                {
                    (Some(a), Some(s)) => (a, s, get("s3.session-token")),
                    _ => match (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY")) {
                        (Some(a), Some(s)) => (a, s, env("AWS_SESSION_TOKEN")),
                        _ => {
                            return Err("s3.sts.role-arn: the AssumeRole call needs keys \
                                            (s3.access-key and s3.secret-key, or \
                                            AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"
                                .to_string())
                        }
                    },
                };
                let store = STORE_KEYS
                    .iter()
                    .filter_map(|k| get(k).map(|v| (k.to_string(), v)))
                    .collect();
                let client = reqwest::Client::builder()
                    .timeout(std::time::Duration::from_secs(20))
                    .build()
                    .map_err(|e| format!("cannot build the STS client: {e}"))?;
                Mode::Sts(Box::new(Sts {
                    role_arn,
                    endpoint,
                    region,
                    duration_seconds,
                    credential: AwsCredential {
                        key_id,
                        secret_key,
                        token,
                    },
                    store,
                    client,
                }))
            }
        };
        Ok(Vending {
            mode,
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// The token of the table whose directory is `location` (`s3://bucket/…/db.db/t`) for a
    /// caller who may (`write`) or may not write it: `(token, expiresAtMillis)`.
    pub(crate) async fn token(
        &self,
        location: &str,
        write: bool,
    ) -> Result<(BTreeMap<String, String>, i64), ApiError> {
        let now = now_millis();
        let sts = match &self.mode {
            Mode::Local => return Ok((BTreeMap::new(), now + STATIC_VALIDITY_MILLIS)),
            Mode::Static(keys) => {
                let token = if write { keys.clone() } else { BTreeMap::new() };
                return Ok((token, now + STATIC_VALIDITY_MILLIS));
            }
            Mode::Sts(sts) => sts,
        };
        let key = (location.to_string(), write);
        if let Some(v) = self.lock().get(&key) {
            // Reused while at least half its life remains.
            if (v.expires_at_millis - now) * 2 >= v.expires_at_millis - v.issued_at_millis {
                return Ok((v.token.clone(), v.expires_at_millis));
            }
        }
        let (bucket, prefix) = split_location(location)?;
        let policy = session_policy(&bucket, &prefix, write);
        let v = sts.assume_role(&policy, now).await?;
        self.lock().insert(key, v.clone());
        Ok((v.token, v.expires_at_millis))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, bool), Vended>> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `s3://bucket/a/b` → (`bucket`, `a/b`).
fn split_location(location: &str) -> Result<(String, String), ApiError> {
    let rest = location
        .strip_prefix("s3://")
        .or_else(|| location.strip_prefix("s3a://"))
        .ok_or_else(|| ApiError::internal(&format!("table location {location} is not on S3")))?;
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    Ok((bucket.to_string(), prefix.trim_matches('/').to_string()))
}

/// The inline session policy of a table's directory (see the module docs).
pub(crate) fn session_policy(bucket: &str, prefix: &str, write: bool) -> String {
    let mut actions = vec!["s3:GetObject"];
    if write {
        actions.extend(["s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"]);
    }
    serde_json::json!({
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": actions,
                "Resource": [format!("arn:aws:s3:::{bucket}/{prefix}/*")],
            },
            {
                "Effect": "Allow",
                "Action": ["s3:ListBucket"],
                "Resource": [format!("arn:aws:s3:::{bucket}")],
                "Condition": {"StringLike": {"s3:prefix": [prefix, format!("{prefix}/*")]}},
            },
        ],
    })
    .to_string()
}

impl Sts {
    /// `AssumeRole` with `policy`: the new keys as a token.
    async fn assume_role(&self, policy: &str, now: i64) -> Result<Vended, ApiError> {
        let form: String = form_urlencoded::Serializer::new(String::new())
            .append_pair("Action", "AssumeRole")
            .append_pair("Version", "2011-06-15")
            .append_pair("RoleArn", &self.role_arn)
            .append_pair("RoleSessionName", &format!("strata-{now}"))
            .append_pair("DurationSeconds", &self.duration_seconds.to_string())
            .append_pair("Policy", policy)
            .finish();
        let body = Bytes::from(form);
        let mut request = axum::http::Request::builder()
            .method("POST")
            .uri(format!("{}/", self.endpoint))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(object_store::client::HttpRequestBody::from(body.clone()))
            .map_err(|e| ApiError::internal(&format!("STS request: {e}")))?;
        AwsAuthorizer::new(&self.credential, "sts", &self.region).authorize(&mut request, None);
        let mut send = self.client.post(format!("{}/", self.endpoint));
        for (k, v) in request.headers() {
            if k != "host" {
                send = send.header(k.as_str(), v.as_bytes());
            }
        }
        let failed = |detail: String| {
            tracing::error!(error = %detail, "STS AssumeRole failed");
            ApiError::new(
                StatusCode::BAD_GATEWAY,
                format!("the store's STS did not vend credentials: {detail}"),
            )
        };
        let resp = send
            .body(body)
            .send()
            .await
            .map_err(|e| failed(format!("cannot reach STS: {}", e.without_url())))?;
        let status = resp.status();
        let text = resp
            .text()
            .await
            .map_err(|e| failed(format!("cannot read STS's answer: {}", e.without_url())))?;
        if !status.is_success() {
            let code = tag(&text, "Code").unwrap_or_default();
            let message = tag(&text, "Message").unwrap_or_default();
            return Err(failed(format!("HTTP {status} {code}: {message}")));
        }
        let field = |name: &str| {
            tag(&text, name).ok_or_else(|| failed(format!("STS's answer has no {name}")))
        };
        let expiration = field("Expiration")?;
        let expires_at_millis = chrono::DateTime::parse_from_rfc3339(&expiration)
            .map_err(|e| failed(format!("STS's Expiration {expiration:?}: {e}")))?
            .timestamp_millis();
        let mut token = self.store.clone();
        token.insert("s3.access-key".into(), field("AccessKeyId")?);
        token.insert("s3.secret-key".into(), field("SecretAccessKey")?);
        let session = field("SessionToken")?;
        token.insert("s3.session-token".into(), session.clone());
        // Java's `S3FileIO` passes `s3.*` on as `fs.s3a.*`, but Hadoop's S3A reads the session
        // token only as `fs.s3a.session.token` and only with its temporary-keys provider.
        token.insert("fs.s3a.session.token".into(), session);
        token.insert(
            "fs.s3a.aws.credentials.provider".into(),
            "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider".into(),
        );
        Ok(Vended {
            token,
            issued_at_millis: now,
            expires_at_millis,
        })
    }
}

/// The text of the first `<name>…</name>` of a flat XML answer, entities decoded.
fn tag(xml: &str, name: &str) -> Option<String> {
    let open = format!("<{name}>");
    let start = xml.find(&open)? + open.len();
    let end = start + xml[start..].find(&format!("</{name}>"))?;
    Some(
        xml[start..end]
            .trim()
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&apos;", "'")
            .replace("&amp;", "&"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_and_answer_fields() {
        let p: serde_json::Value =
            serde_json::from_str(&session_policy("b", "wh/db.db/t", false)).unwrap();
        assert_eq!(
            p["Statement"][0]["Action"],
            serde_json::json!(["s3:GetObject"])
        );
        assert_eq!(
            p["Statement"][0]["Resource"][0],
            "arn:aws:s3:::b/wh/db.db/t/*"
        );
        let w = session_policy("b", "wh/db.db/t", true);
        assert!(
            w.contains("s3:PutObject") && w.contains("s3:DeleteObject"),
            "{w}"
        );
        assert_eq!(
            split_location("s3://b/wh/db.db/t/").unwrap(),
            ("b".to_string(), "wh/db.db/t".to_string())
        );
        let xml = "<R><Credentials><AccessKeyId>AK</AccessKeyId>\
                   <SessionToken>a&amp;b</SessionToken></Credentials></R>";
        assert_eq!(tag(xml, "AccessKeyId").as_deref(), Some("AK"));
        assert_eq!(tag(xml, "SessionToken").as_deref(), Some("a&b"));
        assert_eq!(tag(xml, "Expiration"), None);
    }

    #[test]
    fn misconfigurations_are_named() {
        let mut c = ServerConfig::new("/tmp/wh");
        c.warehouse_options
            .insert("s3.sts.role-arn".into(), "arn:aws:iam::1:role/r".into());
        assert!(Vending::from_config(&c).unwrap_err().contains("s3://"));
        let mut c = ServerConfig::new("s3://b/wh");
        c.warehouse_options
            .insert("s3.sts.region".into(), "eu-west-1".into());
        assert!(Vending::from_config(&c)
            .unwrap_err()
            .contains("s3.sts.region"));
        c.warehouse_options
            .insert("s3.sts.role-arn".into(), "arn:aws:iam::1:role/r".into());
        c.warehouse_options
            .insert("s3.sts.duration-seconds".into(), "soon".into());
        assert!(Vending::from_config(&c)
            .unwrap_err()
            .contains("s3.sts.duration-seconds"));
    }
}
