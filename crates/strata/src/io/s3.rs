//! The S3 backend of [`super::FileIO`]: `s3://bucket/prefix` (also `s3a://`) over
//! `object_store`'s Amazon S3 client, for AWS S3 and S3-compatible stores (MinIO, Cloudflare
//! R2, ...).
//!
//! Configuration, later sources overriding earlier ones:
//! 1. the standard AWS environment variables (`AWS_ENDPOINT_URL` / `AWS_ENDPOINT`,
//!    `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`,
//!    `AWS_ALLOW_HTTP`, `AWS_VIRTUAL_HOSTED_STYLE_REQUEST`, ... — whatever
//!    `AmazonS3Builder::from_env` reads), plus `AWS_MAX_ATTEMPTS` (total tries of a request);
//! 2. catalog options with Paimon's names ([`OPTION_KEYS`]): `s3.endpoint`, `s3.access-key`,
//!    `s3.secret-key`, `s3.session-token`, `s3.region`, `s3.path-style-access` (or
//!    `s3.path.style.access`), and strata's `s3.max-retries`.
//!
//! 3. credentials that expire and are fetched again ([`super::credentials`]: a REST
//!    catalog's vended data token), which replace the keys of 1. and 2. when given.
//!
//! An `http://` endpoint allows plain HTTP without a separate switch; an endpoint without a
//! scheme means `https://`. A custom endpoint is addressed path-style
//! (`<endpoint>/<bucket>/<key>`) unless `s3.path-style-access` is `false`.
//!
//! Commits rely on `PutMode::Create`, sent as `If-None-Match: *`: the store must refuse to
//! overwrite an existing key atomically (AWS S3 since August 2024, MinIO, R2 do).

use std::collections::HashMap;
use std::sync::Arc;

#[cfg(feature = "s3")]
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::path::Path;
use object_store::ObjectStore;
#[cfg(feature = "s3")]
use object_store::RetryConfig;

use crate::error::ErrorDetail;
use crate::{Error, Result};

/// Catalog option keys this backend reads (anything else under `s3.` is rejected, so a typo
/// does not silently fall back to a default).
pub const OPTION_KEYS: &[&str] = &[
    "s3.endpoint",
    "s3.access-key",
    "s3.secret-key",
    "s3.session-token",
    "s3.region",
    "s3.path-style-access",
    "s3.path.style.access",
    "s3.max-retries",
];

/// `true` for the URL schemes this backend serves.
pub(crate) fn is_s3_location(location: &str) -> bool {
    location.starts_with("s3://") || location.starts_with("s3a://")
}

/// Splits `s3://bucket/prefix` into the bucket and the key prefix inside it.
pub(crate) fn parse_location(location: &str) -> Result<(String, Path)> {
    let rest = location
        .strip_prefix("s3://")
        .or_else(|| location.strip_prefix("s3a://"))
        .ok_or_else(|| bad(location, "expected s3://<bucket>/<path>"))?;
    let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return Err(bad(
            location,
            "no bucket name (expected s3://<bucket>/<path>)",
        ));
    }
    if !bucket
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '.' | '_'))
        || bucket.len() > 63
    {
        return Err(bad(
            location,
            &format!(
                "invalid bucket name {bucket:?} (lower-case letters, digits, '-', '.', at most 63)"
            ),
        ));
    }
    if key.contains("//") {
        return Err(bad(location, "empty path segment ('//')"));
    }
    let key = key.trim_end_matches('/');
    let path = Path::parse(key).map_err(|e| bad(location, &e.to_string()))?;
    Ok((bucket.to_string(), path))
}

fn bad(location: &str, why: &str) -> Error {
    ErrorDetail::InvalidLocation {
        location: location.to_string(),
        message: format!("invalid S3 location {location}: {why}"),
    }
    .into()
}

/// What a built store talks to, kept for messages.
#[derive(Clone, Debug)]
pub(crate) struct S3Target {
    pub bucket: Arc<str>,
    /// The configured endpoint, `None` for AWS's regional default.
    pub endpoint: Option<Arc<str>>,
    /// The catalog options the client was built with: a file of the table in another bucket
    /// (an external path) is read with the same endpoint and credentials.
    pub options: Arc<HashMap<String, String>>,
}

/// Without the `s3` cargo feature there is no S3 client: an `s3://` location is refused.
#[cfg(not(feature = "s3"))]
pub(crate) fn build(
    bucket: &str,
    _options: &HashMap<String, String>,
    _credentials: Option<super::credentials::RefreshingCredentials>,
) -> Result<(Arc<dyn ObjectStore>, S3Target)> {
    Err(ErrorDetail::Unsupported(format!(
        "s3://{bucket}: this strata was built without its `s3` cargo feature (enable it to \
         read and write tables on S3)"
    ))
    .into())
}

/// Builds the client for `bucket` from the environment, then `options`, then `credentials`
/// (kept and fetched again as they expire).
#[cfg(feature = "s3")]
pub(crate) fn build(
    bucket: &str,
    options: &HashMap<String, String>,
    credentials: Option<super::credentials::RefreshingCredentials>,
) -> Result<(Arc<dyn ObjectStore>, S3Target)> {
    for key in options.keys() {
        if key.starts_with("s3.") && !OPTION_KEYS.contains(&key.as_str()) {
            return Err(ErrorDetail::InvalidOption {
                key: key.clone(),
                message: format!(
                    "unknown catalog option {key} (S3 options: {})",
                    OPTION_KEYS.join(", ")
                ),
            }
            .into());
        }
    }
    let mut builder = AmazonS3Builder::from_env().with_bucket_name(bucket);
    let mut retry = RetryConfig::default();
    if let Ok(v) = std::env::var("AWS_MAX_ATTEMPTS") {
        let attempts: usize = v.trim().parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
            Error::from(ErrorDetail::InvalidArgument(format!(
                "AWS_MAX_ATTEMPTS={v}: expected a whole number >= 1"
            )))
        })?;
        retry.max_retries = attempts - 1;
    }
    let opt = |k: &str| options.get(k).map(|v| v.trim().to_string());
    if let Some(v) = opt("s3.access-key") {
        builder = builder.with_access_key_id(v);
    }
    if let Some(v) = opt("s3.secret-key") {
        builder = builder.with_secret_access_key(v);
    }
    if let Some(v) = opt("s3.session-token") {
        builder = builder.with_token(v);
    }
    if let Some(v) = opt("s3.region") {
        builder = builder.with_region(v);
    }
    if let Some(v) = opt("s3.endpoint") {
        builder = builder.with_endpoint(v);
    }
    if let Some(v) = opt("s3.path-style-access").or_else(|| opt("s3.path.style.access")) {
        let path_style = parse_bool("s3.path-style-access", &v)?;
        builder = builder.with_virtual_hosted_style_request(!path_style);
    }
    if let Some(v) = opt("s3.max-retries") {
        retry.max_retries = v.parse().map_err(|_| {
            Error::from(ErrorDetail::InvalidOption {
                key: "s3.max-retries".into(),
                message: format!("catalog option s3.max-retries={v}: expected a whole number"),
            })
        })?;
    }
    builder = builder.with_retry(retry);
    if let Some(c) = credentials {
        builder = builder.with_credentials(Arc::new(super::credentials::AwsRefreshing(c)));
    }

    let endpoint = builder
        .get_config_value(&AmazonS3ConfigKey::Endpoint)
        .filter(|e| !e.is_empty());
    let endpoint = endpoint.map(|e| {
        let e = e.trim().trim_end_matches('/');
        if e.contains("://") {
            e.to_string()
        } else {
            format!("https://{e}")
        }
    });
    if let Some(e) = &endpoint {
        url_check(e)?;
        builder = builder.with_endpoint(e.clone());
        if e.starts_with("http://") {
            // An explicit http:// endpoint is the switch; object_store would refuse it otherwise.
            builder = builder.with_allow_http(true);
        }
    }
    let store = builder.build().map_err(|e| {
        ErrorDetail::InvalidArgument(format!("cannot configure S3 bucket {bucket}: {e}"))
    })?;
    Ok((
        Arc::new(store),
        S3Target {
            bucket: bucket.into(),
            endpoint: endpoint.map(Into::into),
            options: Arc::new(options.clone()),
        },
    ))
}

#[cfg(feature = "s3")]
fn url_check(endpoint: &str) -> Result<()> {
    let (scheme, rest) = endpoint.split_once("://").unwrap_or(("", endpoint));
    if !matches!(scheme, "http" | "https") || rest.is_empty() || rest.starts_with('/') {
        return Err(ErrorDetail::InvalidArgument(format!(
            "invalid S3 endpoint {endpoint:?}: expected http(s)://host[:port]"
        ))
        .into());
    }
    Ok(())
}

#[cfg(feature = "s3")]
fn parse_bool(key: &str, v: &str) -> Result<bool> {
    match v.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(ErrorDetail::InvalidOption {
            key: key.to_string(),
            message: format!("catalog option {key}={v}: expected true or false"),
        }
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_parse_into_bucket_and_prefix() {
        let (b, p) = parse_location("s3://bkt/wh/sub/").unwrap();
        assert_eq!((b.as_str(), p.as_ref()), ("bkt", "wh/sub"));
        let (b, p) = parse_location("s3a://bkt").unwrap();
        assert_eq!((b.as_str(), p.as_ref()), ("bkt", ""));
        for bad in ["s3://", "s3:///wh", "s3://Bad_Upper/wh", "s3://b/a//c"] {
            let e = parse_location(bad).unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
        }
    }

    #[test]
    fn bad_options_are_named() {
        let mut o = HashMap::new();
        o.insert("s3.endpoint".to_string(), "http://127.0.0.1:1".to_string());
        o.insert("s3.acces-key".to_string(), "x".to_string());
        let e = build("b", &o, None).unwrap_err().to_string();
        assert!(e.contains("s3.acces-key"), "{e}");
        o.remove("s3.acces-key");
        o.insert("s3.path-style-access".to_string(), "yes".to_string());
        let e = build("b", &o, None).unwrap_err().to_string();
        assert!(e.contains("s3.path-style-access"), "{e}");
        o.remove("s3.path-style-access");
        o.insert("s3.endpoint".to_string(), "ftp://host".to_string());
        let e = build("b", &o, None).unwrap_err().to_string();
        assert!(e.contains("ftp://host"), "{e}");
    }
}
