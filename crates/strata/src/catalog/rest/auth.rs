//! Who the REST catalog client says it is: Java's `AuthProvider`s, chosen by
//! `token.provider`. `bear` (Java's `BearTokenAuthProvider`) sends `Authorization: Bearer
//! <token>`. `dlf` (Alibaba DLF's request signing, `DLFAuthProvider`) is not implemented and
//! refused by name, as is any other provider. Without `token.provider` no credentials are
//! sent (Java insists on a provider; a server without authentication needs none).

use std::collections::BTreeMap;

use crate::{Error, Result};

/// The option naming the provider.
pub(crate) const TOKEN_PROVIDER: &str = "token.provider";
/// The bearer token option.
pub(crate) const TOKEN: &str = "token";

/// The credentials sent with each request.
#[derive(Clone)]
pub(crate) enum AuthProvider {
    /// No `Authorization` header.
    None,
    /// `Authorization: Bearer <token>`.
    Bearer(String),
}

impl std::fmt::Debug for AuthProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuthProvider::None => f.write_str("AuthProvider::None"),
            // Never print the token.
            AuthProvider::Bearer(_) => f.write_str("AuthProvider::Bearer(***)"),
        }
    }
}

impl AuthProvider {
    /// The provider the catalog options name (Java's `AuthProviderFactory.createAuthProvider`).
    pub(crate) fn from_options(options: &BTreeMap<String, String>) -> Result<AuthProvider> {
        let provider = options.get(TOKEN_PROVIDER).map(|s| s.trim());
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
            Some("dlf") => Err(Error::unsupported(
                "token.provider = dlf: Alibaba DLF request signing is not implemented by strata \
                 (supported: bear)",
            )
            .with_option(TOKEN_PROVIDER)),
            Some(other) => Err(Error::invalid_option(
                TOKEN_PROVIDER,
                format!("token.provider = {other}: unknown provider (strata supports bear)"),
            )),
        }
    }

    /// The headers this provider adds to a request.
    pub(crate) fn headers(&self) -> Vec<(String, String)> {
        match self {
            AuthProvider::None => Vec::new(),
            AuthProvider::Bearer(t) => vec![("Authorization".to_string(), format!("Bearer {t}"))],
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

    #[test]
    fn providers_are_chosen_or_refused_by_name() {
        let b = AuthProvider::from_options(&opts(&[("token.provider", "bear"), ("token", "t")]))
            .unwrap();
        assert_eq!(
            b.headers(),
            vec![("Authorization".to_string(), "Bearer t".to_string())]
        );
        assert!(!format!("{b:?}").contains('t') || !format!("{b:?}").contains("\"t\""));
        assert!(AuthProvider::from_options(&opts(&[]))
            .unwrap()
            .headers()
            .is_empty());
        let e = AuthProvider::from_options(&opts(&[("token.provider", "dlf")])).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Unsupported);
        assert!(e.to_string().contains("dlf"), "{e}");
        let e = AuthProvider::from_options(&opts(&[("token.provider", "oauth")])).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("oauth"), "{e}");
        let e = AuthProvider::from_options(&opts(&[("token.provider", "bear")])).unwrap_err();
        assert!(e.to_string().contains("token"), "{e}");
        let e = AuthProvider::from_options(&opts(&[("token", "x")])).unwrap_err();
        assert!(e.to_string().contains("token.provider"), "{e}");
    }
}
