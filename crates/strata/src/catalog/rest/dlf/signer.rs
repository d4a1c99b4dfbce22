//! The two request signers of Alibaba DLF, byte for byte as Java 2.0 computes them: Java's
//! `DLFDefaultSigner` (`DLF4-HMAC-SHA256`, DLF's own VPC endpoints, the default) and
//! `DLFOpenApiSigner` (Alibaba Cloud's ROA `acs` HMAC-SHA1 signature for the `DlfNext`
//! OpenAPI endpoints, API version `2026-01-18`). Pure functions of the request, the time and
//! the token, so the unit tests pin them with Java's own test vectors and the interop test
//! compares them with Java's headers for many generated requests.
//!
//! Hand-written on RustCrypto's `hmac`/`sha2`/`sha1`/`md-5`: the canonical request is DLF's
//! own format (not SigV4, which `aws-sigv4` would compute), and it is a few lines.

use std::collections::BTreeMap;

use base64::Engine;
use chrono::{DateTime, Utc};
use hmac::{KeyInit, Mac};
use sha2::Digest;

use super::token::DlfToken;
use crate::catalog::rest::http::{encode, OutgoingRequest as SignRequest};

/// Java's `DLFDefaultSigner.IDENTIFIER`.
pub(crate) const DEFAULT: &str = "default";
/// Java's `DLFOpenApiSigner.IDENTIFIER`.
pub(crate) const OPENAPI: &str = "openapi";

/// `Authorization`.
pub(crate) const AUTHORIZATION: &str = "Authorization";
const CONTENT_MD5: &str = "Content-MD5";
const CONTENT_TYPE: &str = "Content-Type";
const DLF_DATE: &str = "x-dlf-date";
const DLF_SECURITY_TOKEN: &str = "x-dlf-security-token";
const DLF_VERSION: &str = "x-dlf-version";
const DLF_CONTENT_SHA256: &str = "x-dlf-content-sha256";
const UNSIGNED_PAYLOAD: &str = "UNSIGNED-PAYLOAD";
const MEDIA_TYPE: &str = "application/json";

const DLF4_ALGORITHM: &str = "DLF4-HMAC-SHA256";
const PRODUCT: &str = "DlfNext";
const REQUEST_TYPE: &str = "aliyun_v4_request";
/// The headers `DLFDefaultSigner` signs (lower case), when present.
const DLF4_SIGNED_HEADERS: [&str; 6] = [
    "content-md5",
    "content-type",
    "x-dlf-content-sha256",
    "x-dlf-date",
    "x-dlf-version",
    "x-dlf-security-token",
];

/// `DLFOpenApiSigner.API_VERSION`.
const OPENAPI_VERSION: &str = "2026-01-18";

/// Java's `RESTAuthParameter.parameters()`: key → encoded value, one per key (a map).
fn encoded_parameters(request: &SignRequest<'_>) -> BTreeMap<String, String> {
    request
        .query
        .iter()
        .map(|(k, v)| (k.to_string(), encode(v)))
        .collect()
}

/// The body, when there is a non-empty one (Java signs `null` and `""` alike).
fn body_of<'a>(request: &SignRequest<'a>) -> Option<&'a str> {
    request.body.filter(|b| !b.is_empty())
}

/// The signer `dlf.signing-algorithm` names (Java's `DLFRequestSigner`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Signer {
    /// `DLFDefaultSigner` for a region.
    Default { region: String },
    /// `DLFOpenApiSigner`.
    OpenApi,
}

/// One signature's headers: name → value (the header names as Java spells them).
pub(crate) type Headers = BTreeMap<String, String>;

impl Signer {
    /// Java's `DLFRequestSigner.signHeaders` then `authorization`: every header a request
    /// carries for this signature, `Authorization` included. `nonce` is the OpenAPI signer's
    /// `x-acs-signature-nonce` (ignored by the default signer).
    pub(crate) fn sign(
        &self,
        request: &SignRequest<'_>,
        now: DateTime<Utc>,
        token: &DlfToken,
        host: &str,
        nonce: &str,
    ) -> Headers {
        let mut headers = match self {
            Signer::Default { .. } => dlf4_sign_headers(request, now, token.security_token()),
            Signer::OpenApi => {
                openapi_sign_headers(request, now, token.security_token(), host, nonce)
            }
        };
        let authorization = match self {
            Signer::Default { region } => dlf4_authorization(request, region, token, &headers),
            Signer::OpenApi => openapi_authorization(request, token, &headers),
        };
        headers.insert(AUTHORIZATION.to_string(), authorization);
        headers
    }
}

// ---- DLFDefaultSigner -----------------------------------------------------------------------

fn dlf4_sign_headers(
    request: &SignRequest<'_>,
    now: DateTime<Utc>,
    security_token: Option<&str>,
) -> Headers {
    let mut h = Headers::new();
    h.insert(
        DLF_DATE.to_string(),
        now.format("%Y%m%dT%H%M%SZ").to_string(),
    );
    h.insert(DLF_CONTENT_SHA256.to_string(), UNSIGNED_PAYLOAD.to_string());
    h.insert(DLF_VERSION.to_string(), "v1".to_string());
    if let Some(body) = body_of(request) {
        h.insert(CONTENT_TYPE.to_string(), MEDIA_TYPE.to_string());
        h.insert(CONTENT_MD5.to_string(), md5_base64(body));
    }
    if let Some(t) = security_token {
        h.insert(DLF_SECURITY_TOKEN.to_string(), t.to_string());
    }
    h
}

/// Java's `DLFDefaultSigner.getCanonicalRequest`.
fn dlf4_canonical_request(request: &SignRequest<'_>, headers: &Headers) -> String {
    let mut out = format!("{}\n{}\n", request.method, request.path);
    let query: Vec<String> = encoded_parameters(request)
        .into_iter()
        .map(|(k, v)| {
            let k = java_trim(&k);
            let v = java_trim(&v);
            if v.is_empty() {
                k.to_string()
            } else {
                format!("{k}={v}")
            }
        })
        .collect();
    out.push_str(&query.join("&"));
    let signed: BTreeMap<String, &str> = headers
        .iter()
        .map(|(k, v)| (k.to_lowercase(), java_trim(v)))
        .filter(|(k, _)| DLF4_SIGNED_HEADERS.contains(&k.as_str()))
        .collect();
    for (k, v) in signed {
        out.push('\n');
        out.push_str(&k);
        out.push(':');
        out.push_str(v);
    }
    out.push('\n');
    out.push_str(
        headers
            .get(DLF_CONTENT_SHA256)
            .map(String::as_str)
            .unwrap_or(UNSIGNED_PAYLOAD),
    );
    out
}

fn dlf4_authorization(
    request: &SignRequest<'_>,
    region: &str,
    token: &DlfToken,
    headers: &Headers,
) -> String {
    let date_time = headers
        .get(DLF_DATE)
        .map(String::as_str)
        .unwrap_or_default();
    let date = date_time.get(..8).unwrap_or(date_time);
    let canonical = dlf4_canonical_request(request, headers);
    let scope = format!("{date}/{region}/{PRODUCT}/{REQUEST_TYPE}");
    let string_to_sign = format!(
        "{DLF4_ALGORITHM}\n{date_time}\n{scope}\n{}",
        hex(&sha2::Sha256::digest(canonical.as_bytes()))
    );
    let date_key = hmac_sha256(
        format!("aliyun_v4{}", token.access_key_secret()).as_bytes(),
        date,
    );
    let region_key = hmac_sha256(&date_key, region);
    let service_key = hmac_sha256(&region_key, PRODUCT);
    let signing_key = hmac_sha256(&service_key, REQUEST_TYPE);
    let signature = hex(&hmac_sha256(&signing_key, &string_to_sign));
    format!(
        "{DLF4_ALGORITHM} Credential={}/{scope},Signature={signature}",
        token.access_key_id()
    )
}

// ---- DLFOpenApiSigner -----------------------------------------------------------------------

fn openapi_sign_headers(
    request: &SignRequest<'_>,
    now: DateTime<Utc>,
    security_token: Option<&str>,
    host: &str,
    nonce: &str,
) -> Headers {
    let mut h = Headers::new();
    // RFC 1123 in English whatever the locale (Java's GMT_DATE_FORMATTER with Locale.ENGLISH).
    h.insert(
        "Date".to_string(),
        now.format("%a, %d %b %Y %H:%M:%S GMT").to_string(),
    );
    h.insert("Accept".to_string(), MEDIA_TYPE.to_string());
    if let Some(body) = body_of(request) {
        h.insert(CONTENT_MD5.to_string(), md5_base64(body));
        h.insert(CONTENT_TYPE.to_string(), MEDIA_TYPE.to_string());
    }
    h.insert("Host".to_string(), host.to_string());
    h.insert(
        "x-acs-signature-method".to_string(),
        "HMAC-SHA1".to_string(),
    );
    h.insert("x-acs-signature-nonce".to_string(), nonce.to_string());
    h.insert("x-acs-signature-version".to_string(), "1.0".to_string());
    h.insert("x-acs-version".to_string(), OPENAPI_VERSION.to_string());
    if let Some(t) = security_token {
        h.insert("x-acs-security-token".to_string(), t.to_string());
    }
    h
}

/// Java's `DLFOpenApiSigner.buildStringToSign`.
fn openapi_string_to_sign(request: &SignRequest<'_>, headers: &Headers) -> String {
    let get = |k: &str| headers.get(k).map(String::as_str).unwrap_or_default();
    let mut out = format!(
        "{}\n{}\n{}\n{}\n{}\n",
        request.method,
        get("Accept"),
        get(CONTENT_MD5),
        get(CONTENT_TYPE),
        // Java appends `headers.get(DATE)`, which the signer always set.
        get("Date"),
    );
    let acs: BTreeMap<String, &str> = headers
        .iter()
        .map(|(k, v)| (k.to_lowercase(), java_trim(v)))
        .filter(|(k, _)| k.starts_with("x-acs-"))
        .collect();
    for (k, v) in acs {
        out.push_str(&format!("{k}:{v}\n"));
    }
    // CanonicalizedResource: the decoded path, then the parameters sorted by key.
    out.push_str(&url_decode(request.path));
    let params = encoded_parameters(request);
    if !params.is_empty() {
        let query: Vec<String> = params
            .into_iter()
            .map(|(k, v)| {
                let v = url_decode(&v);
                if v.is_empty() {
                    k
                } else {
                    format!("{k}={v}")
                }
            })
            .collect();
        out.push('?');
        out.push_str(&query.join("&"));
    }
    out
}

fn openapi_authorization(request: &SignRequest<'_>, token: &DlfToken, headers: &Headers) -> String {
    let string_to_sign = openapi_string_to_sign(request, headers);
    let mut mac = hmac::Hmac::<sha1::Sha1>::new_from_slice(token.access_key_secret().as_bytes())
        .expect("HMAC takes a key of any length");
    mac.update(string_to_sign.as_bytes());
    let signature = base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes());
    format!("acs {}:{signature}", token.access_key_id())
}

// ---- shared ---------------------------------------------------------------------------------

fn hmac_sha256(key: &[u8], data: &str) -> Vec<u8> {
    let mut mac =
        hmac::Hmac::<sha2::Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(data.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

fn md5_base64(data: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(md5::Md5::digest(data.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Java's `String.trim`: strips every character up to U+0020 at both ends.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// Java's `URLDecoder.decode(s, UTF-8)` (`RESTUtil.decodeString`): `+` is a space, `%XX` a
/// byte; the bytes read as UTF-8 (malformed sequences replaced). A `%` without two hex digits
/// (never in strata's encoded paths; Java would throw) stays as it is.
pub(crate) fn url_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hexval = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hexval {
                    Some(b) => {
                        out.push(b);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
#[path = "signer_tests.rs"]
mod tests;
