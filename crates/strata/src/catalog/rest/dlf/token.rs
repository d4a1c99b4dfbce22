//! DLF credentials and where they come from: Java's `DLFToken` (`AccessKeyId`,
//! `AccessKeySecret`, `SecurityToken`, `Expiration` as `yyyy-MM-dd'T'HH:mm:ss'Z'` UTC, unknown
//! members ignored) and its two loaders, `DLFLocalFileTokenLoader` (`dlf.token-path`: the
//! token as JSON in a local file, read up to 5 times with 1 s, 2 s, … pauses) and
//! `DLFECSTokenLoader` (`dlf.token-loader = ecs`: the instance RAM role's STS token from the
//! ECS metadata service — the role from `dlf.token-ecs-role-name`, or asked of the service
//! once). No message ever quotes a token's text: it holds the secret.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use serde::Deserialize;

use crate::error::ErrorDetail;
use crate::{Error, Result};

/// Java's `DLFToken.TOKEN_DATE_FORMATTER`.
const EXPIRATION_FORMAT: &str = "%Y-%m-%dT%H:%M:%SZ";

/// `dlf.token-path` (named in the file loader's errors).
pub(crate) const DLF_TOKEN_PATH: &str = "dlf.token-path";

/// `dlf.token-ecs-metadata-url`'s default (Java's `RESTCatalogOptions`).
pub(crate) const DEFAULT_ECS_METADATA_URL: &str =
    "http://100.100.100.200/latest/meta-data/Ram/security-credentials/";

/// A DLF access key, possibly temporary (an STS token with its expiry).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct DlfToken {
    access_key_id: String,
    access_key_secret: String,
    security_token: Option<String>,
    /// Epoch milliseconds of `Expiration`, when the token has one.
    expiration_millis: Option<i64>,
}

impl std::fmt::Debug for DlfToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The id names the key; the secret and the STS token are never printed.
        f.debug_struct("DlfToken")
            .field("access_key_id", &self.access_key_id)
            .field("expiration_millis", &self.expiration_millis)
            .finish_non_exhaustive()
    }
}

/// The JSON form (Jackson names of Java's `DLFToken`).
#[derive(Deserialize)]
struct TokenJson {
    #[serde(rename = "AccessKeyId")]
    access_key_id: Option<String>,
    #[serde(rename = "AccessKeySecret")]
    access_key_secret: Option<String>,
    #[serde(rename = "SecurityToken")]
    security_token: Option<String>,
    #[serde(rename = "Expiration")]
    expiration: Option<String>,
}

impl DlfToken {
    /// A token from its parts (`dlf.access-key-id`, `dlf.access-key-secret`,
    /// `dlf.security-token`), never expiring.
    pub(crate) fn new(
        access_key_id: impl Into<String>,
        access_key_secret: impl Into<String>,
        security_token: Option<String>,
    ) -> DlfToken {
        DlfToken {
            access_key_id: access_key_id.into(),
            access_key_secret: access_key_secret.into(),
            security_token,
            expiration_millis: None,
        }
    }

    /// Java's `DLFToken` JSON, from `source` (named in errors, e.g. the file).
    pub(crate) fn from_json(text: &str, source: &str) -> Result<DlfToken> {
        let json: TokenJson = serde_json::from_str(text).map_err(|e| {
            Error::invalid_argument(format!(
                "the DLF token from {source} is not a token's JSON (line {}, column {})",
                e.line(),
                e.column()
            ))
        })?;
        let missing = |what: &str| {
            Error::invalid_argument(format!("the DLF token from {source} has no {what}"))
        };
        let access_key_id = json
            .access_key_id
            .filter(|s| !s.is_empty())
            .ok_or_else(|| missing("AccessKeyId"))?;
        let access_key_secret = json
            .access_key_secret
            .filter(|s| !s.is_empty())
            .ok_or_else(|| missing("AccessKeySecret"))?;
        let expiration_millis = match json.expiration {
            None => None,
            Some(e) => Some(parse_expiration(&e).ok_or_else(|| {
                Error::invalid_argument(format!(
                    "the DLF token from {source} has Expiration {e:?}, not \
                     yyyy-MM-ddTHH:mm:ssZ"
                ))
            })?),
        };
        Ok(DlfToken {
            access_key_id,
            access_key_secret,
            security_token: json.security_token,
            expiration_millis,
        })
    }

    /// The access key id.
    pub(crate) fn access_key_id(&self) -> &str {
        &self.access_key_id
    }
    /// The access key secret.
    pub(crate) fn access_key_secret(&self) -> &str {
        &self.access_key_secret
    }
    /// The STS security token, for temporary keys.
    pub(crate) fn security_token(&self) -> Option<&str> {
        self.security_token.as_deref()
    }
    /// When the token expires (epoch milliseconds), if it does.
    pub(crate) fn expiration_millis(&self) -> Option<i64> {
        self.expiration_millis
    }
}

/// `yyyy-MM-dd'T'HH:mm:ss'Z'` (UTC) → epoch milliseconds.
fn parse_expiration(text: &str) -> Option<i64> {
    // Java's pattern takes exactly these widths; chrono's %Y would take more digits.
    if text.len() != 20 {
        return None;
    }
    chrono::NaiveDateTime::parse_from_str(text, EXPIRATION_FORMAT)
        .ok()
        .map(|t| t.and_utc().timestamp_millis())
}

/// Where a token is (re)loaded from (Java's `DLFTokenLoader`s).
#[derive(Debug)]
pub(crate) enum TokenLoader {
    /// `DLFLocalFileTokenLoader`.
    File(FileLoader),
    /// `DLFECSTokenLoader`.
    Ecs(EcsLoader),
}

impl TokenLoader {
    /// Java's `loadToken`.
    pub(crate) async fn load(&self) -> Result<DlfToken> {
        match self {
            TokenLoader::File(f) => f.load().await,
            TokenLoader::Ecs(e) => e.load().await,
        }
    }
}

/// The token file of `dlf.token-path`.
#[derive(Debug)]
pub(crate) struct FileLoader {
    path: PathBuf,
    attempts: u32,
    pause: Duration,
}

impl FileLoader {
    /// Java's loader: 5 attempts, pausing 1 s, 2 s, … between them.
    pub(crate) fn new(path: impl Into<PathBuf>) -> FileLoader {
        FileLoader {
            path: path.into(),
            attempts: 5,
            pause: Duration::from_secs(1),
        }
    }

    /// The same with `attempts` and a `pause` unit of its own (tests).
    #[cfg(test)]
    pub(crate) fn with_retries(mut self, attempts: u32, pause: Duration) -> FileLoader {
        self.attempts = attempts.max(1);
        self.pause = pause;
        self
    }

    /// The file's modification time (`None` when it cannot be read).
    pub(crate) fn modified(&self) -> Option<SystemTime> {
        std::fs::metadata(&self.path)
            .and_then(|m| m.modified())
            .ok()
    }

    /// Reads the token once (no retries): a rewritten file picked up between expiries.
    pub(crate) async fn load_once(&self) -> Result<DlfToken> {
        let source = format!("the file {}", self.path.display());
        match tokio::fs::read_to_string(&self.path).await {
            Ok(text) => DlfToken::from_json(&text, &source),
            Err(e) => Err(Error::invalid_option(
                DLF_TOKEN_PATH,
                format!(
                    "cannot read the DLF token file {}: {e}",
                    self.path.display()
                ),
            )),
        }
    }

    async fn load(&self) -> Result<DlfToken> {
        let mut attempt = 1;
        loop {
            match self.load_once().await {
                Ok(t) => return Ok(t),
                // A file being rewritten may be caught half-written or missing: retried.
                Err(e) if attempt >= self.attempts => return Err(e),
                Err(_) => {
                    tokio::time::sleep(self.pause * attempt).await;
                    attempt += 1;
                }
            }
        }
    }
}

/// The ECS metadata service's instance RAM role credentials.
#[derive(Debug)]
pub(crate) struct EcsLoader {
    url: String,
    role: Mutex<Option<String>>,
    client: reqwest::Client,
}

impl EcsLoader {
    /// The loader of `url` (`dlf.token-ecs-metadata-url`, ending in `/`) for `role`
    /// (`dlf.token-ecs-role-name`; asked of the service when `None`).
    pub(crate) fn new(url: &str, role: Option<String>) -> Result<EcsLoader> {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| {
                Error::invalid_argument(format!("cannot build the ECS metadata HTTP client: {e}"))
            })?;
        Ok(EcsLoader {
            url: url.to_string(),
            role: Mutex::new(role),
            client,
        })
    }

    async fn load(&self) -> Result<DlfToken> {
        let known = self.role.lock().map(|r| r.clone()).unwrap_or_default();
        let role = match known {
            Some(r) => r,
            None => {
                // Java's `getRole`: the service answers the role name at the base URL.
                let r = self
                    .get(&self.url, "the role name")
                    .await?
                    .trim()
                    .to_string();
                if let Ok(mut slot) = self.role.lock() {
                    *slot = Some(r.clone());
                }
                r
            }
        };
        // Java concatenates: the URL ends in `/`.
        let url = format!("{}{role}", self.url);
        let text = self.get(&url, "the role's token").await?;
        DlfToken::from_json(&text, "the ECS metadata service")
    }

    /// Java's `SimpleHttpClient.get`: a 2xx answer with a non-blank body, never quoted.
    async fn get(&self, url: &str, what: &str) -> Result<String> {
        let failed = |message: String| -> Error {
            ErrorDetail::CatalogServer {
                endpoint: format!("ECS metadata service ({what})"),
                message,
                retryable: true,
            }
            .into()
        };
        let resp = self.client.get(url).send().await.map_err(|e| {
            failed(if e.is_timeout() {
                "timed out".to_string()
            } else {
                "could not connect".to_string()
            })
        })?;
        let status = resp.status();
        let body = resp
            .text()
            .await
            .map_err(|_| failed("reading the answer failed".to_string()))?;
        if !status.is_success() {
            return Err(failed(format!("HTTP {}", status.as_u16())));
        }
        if body.trim().is_empty() {
            return Err(failed("the answer is empty".to_string()));
        }
        Ok(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_read_like_javas_dlf_token() {
        let t = DlfToken::from_json(
            r#"{"AccessKeyId":"id","AccessKeySecret":"sk","SecurityToken":"st",
                "Expiration":"2025-04-16T03:44:46Z","Code":"Success","LastUpdated":"x"}"#,
            "test",
        )
        .unwrap();
        assert_eq!(t.access_key_id(), "id");
        assert_eq!(t.access_key_secret(), "sk");
        assert_eq!(t.security_token(), Some("st"));
        assert_eq!(t.expiration_millis(), Some(1_744_775_086_000));
        let dbg = format!("{t:?}");
        assert!(!dbg.contains("sk") && !dbg.contains("st\""), "{dbg}");

        let t = DlfToken::from_json(r#"{"AccessKeyId":"id","AccessKeySecret":"sk"}"#, "t").unwrap();
        assert_eq!(t.security_token(), None);
        assert_eq!(t.expiration_millis(), None);

        for bad in [
            r#"{"AccessKeySecret":"sk"}"#,
            r#"{"AccessKeyId":"id"}"#,
            r#"{"AccessKeyId":"id","AccessKeySecret":"sk","Expiration":"2025-04-16 03:44:46"}"#,
            r#"{"AccessKeyId":"id","AccessKeySecret":"sk","Expiration":"12025-04-16T03:44:46Z"}"#,
            r#"{"AccessKeyId":"id","AccessKeySecret":"secret-value""#,
        ] {
            let e = DlfToken::from_json(bad, "the file f").unwrap_err();
            assert!(e.to_string().contains("the file f"), "{e}");
            assert!(!e.to_string().contains("secret-value"), "{e}");
        }
    }

    #[tokio::test]
    async fn the_file_loader_retries_then_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        let loader = FileLoader::new(&path).with_retries(3, Duration::from_millis(1));
        let e = loader.load().await.unwrap_err();
        assert!(e.to_string().contains("dlf.token-path"), "{e}");
        assert!(e.to_string().contains("token"), "{e}");
        // A file written while the loader waits is read on a later attempt.
        let slow = FileLoader::new(&path).with_retries(5, Duration::from_millis(100));
        let writer = {
            let path = path.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(150)).await;
                std::fs::write(&path, r#"{"AccessKeyId":"a","AccessKeySecret":"b"}"#).unwrap();
            })
        };
        let t = slow.load().await.unwrap();
        writer.await.unwrap();
        assert_eq!(t.access_key_id(), "a");
        assert!(slow.modified().is_some());
    }
}
