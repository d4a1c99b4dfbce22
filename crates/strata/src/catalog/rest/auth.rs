//! Who the REST catalog client says it is: Java's `AuthProvider`s, chosen by
//! `token.provider`. `bear` (Java's `BearTokenAuthProvider`) sends `Authorization: Bearer
//! <token>`. `dlf` (Java's `DLFAuthProvider`, `dlf/`) signs each request — its method, path,
//! query and body — with an Alibaba DLF access key. Any other provider is refused by name.
//! Without `token.provider` no credentials are sent (Java insists on a provider; a server
//! without authentication needs none), and `token` or a `dlf.*` key without the provider
//! that reads it is refused.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;

use super::dlf::{DlfAuth, DLF_OPTION_KEYS};
use super::http::{OutgoingRequest, RequestAuth};
use crate::{Error, Result};

/// The option naming the provider.
pub(crate) const TOKEN_PROVIDER: &str = "token.provider";
/// The bearer token option.
pub(crate) const TOKEN: &str = "token";

/// Whether `key` is an option of an auth provider (the REST catalog's own keys).
pub(crate) fn is_auth_key(key: &str) -> bool {
    key == TOKEN_PROVIDER || key == TOKEN || DLF_OPTION_KEYS.contains(&key)
}

/// The credentials sent with each request.
#[derive(Clone)]
pub(crate) enum AuthProvider {
    /// No `Authorization` header.
    None,
    /// `Authorization: Bearer <token>`.
    Bearer(String),
    /// DLF's signature of each request.
    Dlf(Arc<DlfAuth>),
}

impl std::fmt::Debug for AuthProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuthProvider::None => f.write_str("AuthProvider::None"),
            // Never print the token.
            AuthProvider::Bearer(_) => f.write_str("AuthProvider::Bearer(***)"),
            AuthProvider::Dlf(_) => f.write_str("AuthProvider::Dlf(***)"),
        }
    }
}

impl AuthProvider {
    /// The provider the catalog options name (Java's `AuthProviderFactory.createAuthProvider`).
    pub(crate) fn from_options(options: &BTreeMap<String, String>) -> Result<AuthProvider> {
        let provider = options.get(TOKEN_PROVIDER).map(|s| s.trim());
        if provider != Some("dlf") {
            if let Some(k) = DLF_OPTION_KEYS.iter().find(|k| options.contains_key(**k)) {
                return Err(Error::invalid_option(
                    *k,
                    format!("{k} is set but token.provider is not dlf"),
                ));
            }
        }
        match provider {
            None | Some("") => {
                if options.contains_key(TOKEN) {
                    return Err(Error::invalid_option(
                        TOKEN,
                        "`token` is set but `token.provider` is not (use token.provider = bear)",
                    ));
                }
                Ok(AuthProvider::None)
            }
            Some("bear") => {
                let token = options.get(TOKEN).map(|t| t.trim()).unwrap_or_default();
                if token.is_empty() {
                    return Err(Error::invalid_option(
                        TOKEN,
                        "token.provider = bear needs `token` (the bearer token)",
                    ));
                }
                Ok(AuthProvider::Bearer(token.to_string()))
            }
            Some("dlf") => {
                if options.contains_key(TOKEN) {
                    return Err(Error::invalid_option(
                        TOKEN,
                        "`token` is a bearer token; token.provider = dlf reads the dlf.* keys",
                    ));
                }
                Ok(AuthProvider::Dlf(Arc::new(DlfAuth::from_options(options)?)))
            }
            Some(other) => Err(Error::invalid_option(
                TOKEN_PROVIDER,
                format!("token.provider = {other}: unknown provider (strata supports bear, dlf)"),
            )),
        }
    }

    /// This provider as the HTTP client asks it, per request (Java's `RESTAuthFunction`).
    pub(crate) fn headers(&self) -> AuthHeaders<'_> {
        AuthHeaders(self)
    }
}

/// A provider's headers, computed for each request as it is sent (a DLF signature covers
/// the request's method, path, query and body, and its time).
pub(crate) struct AuthHeaders<'a>(&'a AuthProvider);

#[async_trait]
impl RequestAuth for AuthHeaders<'_> {
    /// Java's `mergeAuthHeader`. Fails only when a DLF token cannot be loaded.
    async fn headers_for(&self, request: &OutgoingRequest<'_>) -> Result<Vec<(String, String)>> {
        match self.0 {
            AuthProvider::None => Ok(Vec::new()),
            AuthProvider::Bearer(t) => {
                Ok(vec![("Authorization".to_string(), format!("Bearer {t}"))])
            }
            AuthProvider::Dlf(d) => Ok(d.headers(request).await?.into_iter().collect()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    async fn headers(p: &AuthProvider) -> Vec<(String, String)> {
        let request = OutgoingRequest {
            method: "GET",
            path: "/v1/config",
            query: &[],
            body: None,
        };
        p.headers().headers_for(&request).await.unwrap()
    }

    #[tokio::test]
    async fn providers_are_chosen_or_refused_by_name() {
        let b = AuthProvider::from_options(&opts(&[("token.provider", "bear"), ("token", "t")]))
            .unwrap();
        assert_eq!(
            headers(&b).await,
            vec![("Authorization".to_string(), "Bearer t".to_string())]
        );
        assert_eq!(format!("{b:?}"), "AuthProvider::Bearer(***)");
        assert!(headers(&AuthProvider::from_options(&opts(&[])).unwrap())
            .await
            .is_empty());
        let d = AuthProvider::from_options(&opts(&[
            ("token.provider", "dlf"),
            ("uri", "http://cn-hangzhou-vpc.dlf.aliyuncs.com"),
            ("dlf.access-key-id", "ak"),
            ("dlf.access-key-secret", "sk"),
        ]))
        .unwrap();
        let h: BTreeMap<String, String> = headers(&d).await.into_iter().collect();
        assert!(
            h["Authorization"].starts_with("DLF4-HMAC-SHA256 Credential=ak/"),
            "{h:?}"
        );
        assert!(h["Authorization"].contains("/cn-hangzhou/DlfNext/aliyun_v4_request,"));
        assert!(!format!("{d:?}").contains("sk"));
        // dlf without a key source, dlf.* keys without dlf, and bear's token with dlf.
        let e = AuthProvider::from_options(&opts(&[
            ("token.provider", "dlf"),
            ("uri", "x"),
            ("dlf.region", "cn-hangzhou"),
        ]))
        .unwrap_err();
        assert!(e.to_string().contains("dlf.access-key-id"), "{e}");
        let e = AuthProvider::from_options(&opts(&[("dlf.region", "cn-hangzhou")])).unwrap_err();
        assert!(e.to_string().contains("dlf.region"), "{e}");
        let e = AuthProvider::from_options(&opts(&[
            ("token.provider", "bear"),
            ("token", "t"),
            ("dlf.access-key-id", "ak"),
        ]))
        .unwrap_err();
        assert!(e.to_string().contains("dlf.access-key-id"), "{e}");
        let e = AuthProvider::from_options(&opts(&[
            ("token.provider", "dlf"),
            ("token", "t"),
            ("dlf.access-key-id", "ak"),
            ("dlf.access-key-secret", "sk"),
            ("dlf.region", "cn-hangzhou"),
        ]))
        .unwrap_err();
        assert_eq!(e.context().option(), Some("token"), "{e}");
        let e = AuthProvider::from_options(&opts(&[("token.provider", "oauth")])).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("oauth"), "{e}");
        let e = AuthProvider::from_options(&opts(&[("token.provider", "bear")])).unwrap_err();
        assert!(e.to_string().contains("token"), "{e}");
        let e = AuthProvider::from_options(&opts(&[("token", "x")])).unwrap_err();
        assert!(e.to_string().contains("token.provider"), "{e}");
        for k in ["token", "token.provider", "dlf.token-path", "dlf.region"] {
            assert!(is_auth_key(k), "{k}");
        }
        assert!(!is_auth_key("dlf.oss-endpoint"));
    }
}
