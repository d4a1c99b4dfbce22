//! `token.provider = dlf`: Alibaba DLF's request signing, as Java 2.0's `DLFAuthProvider`
//! (paimon-api `org.apache.paimon.rest.auth`) and `DLFAuthProviderFactory` choose and apply it.
//!
//! | file | what |
//! |---|---|
//! | `mod` (here) | the options, the token source, the cached token and its refresh |
//! | `signer` | `DLFDefaultSigner` (`DLF4-HMAC-SHA256`) and `DLFOpenApiSigner` (`acs` HMAC-SHA1) |
//! | `token` | `DLFToken` and its loaders: the local file and the ECS metadata service |
//!
//! Options (Java's `RESTCatalogOptions`), the source chosen as Java does — the first that is
//! set wins: `dlf.token-loader` (`ecs`, or `local_file` with `dlf.token-path`), then
//! `dlf.token-path`, then `dlf.access-key-id` + `dlf.access-key-secret` (+ `dlf.security-token`).
//! A key the chosen source would leave unread is refused by name rather than ignored, as are
//! loaders Java finds through its SPI (strata has only these two). `dlf.region` (else the
//! first `[a-z]+-[a-z]+(-\d+)?` of `uri`, Java's `parseRegionFromUri`),
//! `dlf.signing-algorithm` (`default` or `openapi`; else `openapi` when `uri` contains
//! `dlfnext`), `dlf.token-ecs-metadata-url`, `dlf.token-ecs-role-name`.
//!
//! A loaded token is kept until it has less than an hour left (Java's
//! `RESTApi.TOKEN_EXPIRATION_SAFE_TIME_MILLIS`), then loaded again before the next request; a
//! token without `Expiration` is kept for good. Beyond Java, a token file whose modification
//! time changed is read again before the next request (a rotated file is picked up at once;
//! if the new text does not read, the previous, still valid token stays in use).

mod signer;
mod token;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use chrono::{DateTime, Utc};

pub(crate) use self::signer::Headers;
use self::signer::{Signer, DEFAULT, OPENAPI};
use self::token::{
    DlfToken, EcsLoader, FileLoader, TokenLoader, DEFAULT_ECS_METADATA_URL, DLF_TOKEN_PATH,
};
use crate::catalog::rest::http::OutgoingRequest as SignRequest;
use crate::{Error, Result};

/// `dlf.region`.
pub(crate) const DLF_REGION: &str = "dlf.region";
/// `dlf.access-key-id`.
pub(crate) const DLF_ACCESS_KEY_ID: &str = "dlf.access-key-id";
/// `dlf.access-key-secret`.
pub(crate) const DLF_ACCESS_KEY_SECRET: &str = "dlf.access-key-secret";
/// `dlf.security-token`.
pub(crate) const DLF_SECURITY_TOKEN: &str = "dlf.security-token";
/// `dlf.token-loader`.
pub(crate) const DLF_TOKEN_LOADER: &str = "dlf.token-loader";
/// `dlf.token-ecs-metadata-url`.
pub(crate) const DLF_TOKEN_ECS_METADATA_URL: &str = "dlf.token-ecs-metadata-url";
/// `dlf.token-ecs-role-name`.
pub(crate) const DLF_TOKEN_ECS_ROLE_NAME: &str = "dlf.token-ecs-role-name";
/// `dlf.signing-algorithm`.
pub(crate) const DLF_SIGNING_ALGORITHM: &str = "dlf.signing-algorithm";

/// Every `dlf.*` key strata's DLF provider reads (`dlf.oss-endpoint`, for Java's OSS FileIO,
/// is not one: strata has no OSS store).
pub(crate) const DLF_OPTION_KEYS: &[&str] = &[
    DLF_REGION,
    DLF_TOKEN_PATH,
    DLF_ACCESS_KEY_ID,
    DLF_ACCESS_KEY_SECRET,
    DLF_SECURITY_TOKEN,
    DLF_TOKEN_LOADER,
    DLF_TOKEN_ECS_METADATA_URL,
    DLF_TOKEN_ECS_ROLE_NAME,
    DLF_SIGNING_ALGORITHM,
];

/// Java's `RESTApi.TOKEN_EXPIRATION_SAFE_TIME_MILLIS`: a token with less left is reloaded.
const TOKEN_EXPIRATION_SAFE_TIME_MILLIS: i64 = 3_600_000;

/// Where the provider's token comes from.
#[derive(Debug)]
enum Source {
    /// `dlf.access-key-id` + `dlf.access-key-secret` (+ `dlf.security-token`).
    Static(DlfToken),
    /// A loader, asked again as the token nears its expiry.
    Loader(TokenLoader),
}

#[derive(Debug, Default)]
struct State {
    token: Option<DlfToken>,
    /// The token file's modification time when it was read.
    file_modified: Option<SystemTime>,
}

/// Java's `DLFAuthProvider`: signs every request with the current DLF token.
#[derive(Debug)]
pub(crate) struct DlfAuth {
    signer: Signer,
    /// `uri`'s host (and port): Java's `extractHost`, the OpenAPI signer's `Host`.
    host: String,
    source: Source,
    state: tokio::sync::Mutex<State>,
    nonces: AtomicU64,
}

fn option<'a>(options: &'a BTreeMap<String, String>, key: &str) -> Option<&'a str> {
    options.get(key).map(String::as_str)
}

impl DlfAuth {
    /// Java's `DLFAuthProviderFactory.create`.
    pub(crate) fn from_options(options: &BTreeMap<String, String>) -> Result<DlfAuth> {
        let uri = option(options, "uri").unwrap_or_default();
        let algorithm = option(options, DLF_SIGNING_ALGORITHM)
            .map(str::to_string)
            .unwrap_or_else(|| signing_algorithm_of_uri(uri).to_string());
        let signer = match algorithm.as_str() {
            DEFAULT => {
                let region = match option(options, DLF_REGION) {
                    Some(r) => r.to_string(),
                    None => region_of_uri(uri).ok_or_else(|| {
                        Error::invalid_option(
                            DLF_REGION,
                            format!(
                                "token.provider = dlf needs dlf.region: none is set and none \
                                 reads from uri = {uri}"
                            ),
                        )
                    })?,
                };
                Signer::Default { region }
            }
            OPENAPI => Signer::OpenApi,
            other => {
                return Err(Error::invalid_option(
                    DLF_SIGNING_ALGORITHM,
                    format!(
                        "unknown DLF signing algorithm {other} (supported: {DEFAULT}, {OPENAPI})"
                    ),
                ))
            }
        };
        let (source, used) = source_of(options)?;
        let mut used = used;
        used.extend([DLF_REGION, DLF_SIGNING_ALGORITHM]);
        if let Some(unread) = DLF_OPTION_KEYS
            .iter()
            .find(|k| options.contains_key(**k) && !used.contains(*k))
        {
            return Err(Error::invalid_option(
                *unread,
                format!(
                    "{unread} is set but the DLF token comes from {} (Java would ignore it)",
                    match &source {
                        Source::Static(_) => "dlf.access-key-id / dlf.access-key-secret",
                        Source::Loader(TokenLoader::File(_)) => DLF_TOKEN_PATH,
                        Source::Loader(TokenLoader::Ecs(_)) => "dlf.token-loader = ecs",
                    }
                ),
            ));
        }
        Ok(DlfAuth {
            signer,
            host: host_of_uri(uri).to_string(),
            source,
            state: tokio::sync::Mutex::new(State::default()),
            nonces: AtomicU64::new(0),
        })
    }

    /// Java's `mergeAuthHeader` (without the base headers, which the HTTP client adds): the
    /// signature headers of `request` at the current time, with a fresh token.
    pub(crate) async fn headers(&self, request: &SignRequest<'_>) -> Result<Headers> {
        let token = self.fresh_token(Utc::now().timestamp_millis()).await?;
        Ok(self.sign(request, Utc::now(), &token))
    }

    /// The headers of `request` signed at `now` with `token`.
    fn sign(&self, request: &SignRequest<'_>, now: DateTime<Utc>, token: &DlfToken) -> Headers {
        // Java's nonce: a UUID, the time in milliseconds and the thread id; here a counter
        // stands for the thread id, so two signatures of one process never share a nonce.
        let nonce = format!(
            "{}{}{}",
            uuid::Uuid::new_v4(),
            now.timestamp_millis(),
            self.nonces.fetch_add(1, Ordering::Relaxed)
        );
        self.signer.sign(request, now, token, &self.host, &nonce)
    }

    /// Java's `getFreshToken` at `now_millis` (plus the token file's change check).
    async fn fresh_token(&self, now_millis: i64) -> Result<DlfToken> {
        let loader = match &self.source {
            Source::Static(t) => return Ok(t.clone()),
            Source::Loader(l) => l,
        };
        let mut state = self.state.lock().await;
        let expiring = match &state.token {
            None => true,
            Some(t) => t
                .expiration_millis()
                .is_some_and(|e| e - now_millis < TOKEN_EXPIRATION_SAFE_TIME_MILLIS),
        };
        if expiring {
            let modified = file_modified(loader);
            state.token = Some(loader.load().await?);
            state.file_modified = modified;
        } else if let TokenLoader::File(file) = loader {
            let modified = file.modified();
            if modified.is_some() && modified != state.file_modified {
                if let Ok(t) = file.load_once().await {
                    state.token = Some(t);
                    state.file_modified = modified;
                }
            }
        }
        state
            .token
            .clone()
            .ok_or_else(|| Error::invalid_argument("the DLF token loader gave no token"))
    }
}

fn file_modified(loader: &TokenLoader) -> Option<SystemTime> {
    match loader {
        TokenLoader::File(f) => f.modified(),
        TokenLoader::Ecs(_) => None,
    }
}

/// The token source of `options` and the `dlf.*` keys it reads (Java's factory order).
fn source_of(options: &BTreeMap<String, String>) -> Result<(Source, Vec<&'static str>)> {
    let path = option(options, DLF_TOKEN_PATH).filter(|p| !p.is_empty());
    if let Some(loader) = option(options, DLF_TOKEN_LOADER) {
        return match loader {
            "local_file" => {
                let path = path.ok_or_else(|| {
                    Error::invalid_option(
                        DLF_TOKEN_PATH,
                        "dlf.token-loader = local_file needs dlf.token-path",
                    )
                })?;
                Ok((
                    Source::Loader(TokenLoader::File(FileLoader::new(path))),
                    vec![DLF_TOKEN_LOADER, DLF_TOKEN_PATH],
                ))
            }
            "ecs" => {
                let url =
                    option(options, DLF_TOKEN_ECS_METADATA_URL).unwrap_or(DEFAULT_ECS_METADATA_URL);
                let role = option(options, DLF_TOKEN_ECS_ROLE_NAME).map(str::to_string);
                Ok((
                    Source::Loader(TokenLoader::Ecs(EcsLoader::new(url, role)?)),
                    vec![
                        DLF_TOKEN_LOADER,
                        DLF_TOKEN_ECS_METADATA_URL,
                        DLF_TOKEN_ECS_ROLE_NAME,
                    ],
                ))
            }
            other => Err(Error::unsupported(format!(
                "dlf.token-loader = {other}: strata has the loaders ecs and local_file (Java \
                 finds others through its DLFTokenLoaderFactory SPI)"
            ))
            .with_option(DLF_TOKEN_LOADER)),
        };
    }
    if let Some(path) = path {
        return Ok((
            Source::Loader(TokenLoader::File(FileLoader::new(path))),
            vec![DLF_TOKEN_PATH],
        ));
    }
    match (
        option(options, DLF_ACCESS_KEY_ID),
        option(options, DLF_ACCESS_KEY_SECRET),
    ) {
        (Some(id), Some(secret)) => Ok((
            Source::Static(DlfToken::new(
                id,
                secret,
                option(options, DLF_SECURITY_TOKEN).map(str::to_string),
            )),
            vec![DLF_ACCESS_KEY_ID, DLF_ACCESS_KEY_SECRET, DLF_SECURITY_TOKEN],
        )),
        _ => Err(Error::invalid_option(
            DLF_ACCESS_KEY_ID,
            "token.provider = dlf needs dlf.token-path, dlf.token-loader, or dlf.access-key-id \
             with dlf.access-key-secret",
        )),
    }
}

/// Java's `DLFAuthProviderFactory.parseRegionFromUri`: the first `(pre-)?[a-z]+-[a-z]+(-\d+)?`.
fn region_of_uri(uri: &str) -> Option<String> {
    static PATTERN: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    PATTERN
        .get_or_init(|| regex::Regex::new(r"(?:pre-)?([a-z]+-[a-z]+(?:-[0-9]+)?)").ok())
        .as_ref()?
        .captures(uri)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string())
}

/// Java's `DLFAuthProviderFactory.parseSigningAlgoFromUri`.
fn signing_algorithm_of_uri(uri: &str) -> &'static str {
    if uri.to_lowercase().contains("dlfnext") {
        OPENAPI
    } else {
        DEFAULT
    }
}

/// Java's `DLFAuthProvider.extractHost`: `uri` without `http(s)://` and without its path.
fn host_of_uri(uri: &str) -> &str {
    let rest = uri
        .strip_prefix("http://")
        .or_else(|| uri.strip_prefix("https://"))
        .unwrap_or(uri);
    rest.split('/').next().unwrap_or(rest)
}

#[cfg(test)]
#[path = "provider_tests.rs"]
mod tests;
