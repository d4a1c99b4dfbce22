//! Vended data tokens: with `data-token.enabled = true` (usually a server default) a table's
//! files are read and written with credentials the catalog hands out per table (`GET
//! …/tables/{table}/token` → `{token: {option: value}, expiresAtMillis}`), Java's
//! `RESTTokenFileIO`. Tokens are cached per table and fetched again once fewer than
//! [`TOKEN_EXPIRATION_SAFE_TIME_MILLIS`] remain before they expire.
//!
//! The token's keys are FileIO options of the store. strata's FileIO takes S3 settings, under
//! every spelling Java's `S3FileIO` and pypaimon accept (`s3.access-key`, `fs.s3a.access.key`,
//! `fs.s3.accessKeyId`, …; `crate::catalog::options`); keys of stores strata has no client for
//! (OSS's `fs.oss.*`, the mock servers' dummy `akId`) are not options of a store strata can
//! open, and a table on such a store is refused by its path's scheme when it is loaded.
//!
//! A table on S3 whose token carries keys (`s3.access-key`, `s3.secret-key`, and
//! `s3.session-token` for temporary STS keys) signs with them through a refreshing credential
//! provider (`crate::io::credentials`): before a request, once the token is due (Java's margin,
//! capped at half the token's life), `GET …/token` is asked again, so a `Table` held for
//! longer than a token lives keeps reading and writing. A token without keys (a local
//! warehouse, or a reader of a server vending static keys only to writers) leaves the
//! catalog's own credentials in place.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use crate::io::credentials::StoreCredentials;

/// The token options that are credentials (signed with, refreshed); the rest (endpoint,
/// region, path style) configure the store.
const CREDENTIAL_KEYS: [&str; 3] = ["s3.access-key", "s3.secret-key", "s3.session-token"];

/// Java's `RESTTokenFileIO.TOKEN_EXPIRATION_SAFE_TIME_MILLIS`: refresh an hour before expiry.
pub(crate) const TOKEN_EXPIRATION_SAFE_TIME_MILLIS: i64 = 3_600_000;

/// The option switching vended tokens on.
pub(crate) const DATA_TOKEN_ENABLED: &str = "data-token.enabled";

/// One table's token.
#[derive(Clone, Debug)]
pub(crate) struct DataToken {
    pub(crate) token: BTreeMap<String, String>,
    pub(crate) expires_at_millis: i64,
}

impl DataToken {
    /// Java's `shouldRefresh`.
    pub(crate) fn should_refresh(&self, now_millis: i64) -> bool {
        self.expires_at_millis - now_millis < TOKEN_EXPIRATION_SAFE_TIME_MILLIS
    }

    /// The token as strata FileIO options (S3 settings under strata's names); other keys
    /// are left out (see the module docs).
    pub(crate) fn io_options(&self) -> HashMap<String, String> {
        let mut out = HashMap::new();
        for (k, v) in &self.token {
            let one = BTreeMap::from([(k.clone(), v.clone())]);
            if let Ok(parsed) = crate::catalog::options::split(&one, &|_| false, "") {
                out.extend(parsed.io);
            }
        }
        out
    }

    /// The token's store options without its credentials ([`DataToken::credentials`]).
    pub(crate) fn store_options(&self) -> HashMap<String, String> {
        let mut out = self.io_options();
        out.retain(|k, _| !CREDENTIAL_KEYS.contains(&k.as_str()));
        out
    }

    /// The token's S3 keys, when it carries an access key and its secret.
    pub(crate) fn credentials(&self) -> Option<StoreCredentials> {
        let mut io = self.io_options();
        Some(StoreCredentials {
            access_key: io.remove("s3.access-key")?,
            secret_key: io.remove("s3.secret-key")?,
            session_token: io.remove("s3.session-token"),
            expires_at_millis: self.expires_at_millis,
        })
    }
}

/// Tokens by table (`db` + object name), never printed.
#[derive(Default)]
pub(crate) struct TokenCache {
    tokens: Mutex<HashMap<(String, String), DataToken>>,
}

impl std::fmt::Debug for TokenCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenCache")
    }
}

impl TokenCache {
    /// The cached token of `key` if it need not be refreshed at `now_millis`.
    pub(crate) fn fresh(&self, key: &(String, String), now_millis: i64) -> Option<DataToken> {
        let tokens = self.tokens.lock().unwrap_or_else(|p| p.into_inner());
        tokens
            .get(key)
            .filter(|t| !t.should_refresh(now_millis))
            .cloned()
    }

    /// Remembers `token` for `key`.
    pub(crate) fn put(&self, key: (String, String), token: DataToken) {
        let mut tokens = self.tokens.lock().unwrap_or_else(|p| p.into_inner());
        tokens.insert(key, token);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refresh_an_hour_before_expiry_and_map_s3_keys() {
        let t = DataToken {
            token: BTreeMap::from([
                ("fs.s3a.access.key".to_string(), "AK".to_string()),
                ("fs.s3a.secret.key".to_string(), "SK".to_string()),
                ("s3.session-token".to_string(), "ST".to_string()),
                ("akId".to_string(), "dummy".to_string()),
                ("fs.oss.accessKeyId".to_string(), "oss".to_string()),
            ]),
            expires_at_millis: 10_000_000,
        };
        assert!(!t.should_refresh(10_000_000 - 3_600_001));
        assert!(t.should_refresh(10_000_000 - 3_599_999));
        let io = t.io_options();
        assert_eq!(io["s3.access-key"], "AK");
        assert_eq!(io["s3.secret-key"], "SK");
        assert_eq!(io["s3.session-token"], "ST");
        assert_eq!(io.len(), 3);
        let c = t.credentials().unwrap();
        assert_eq!(
            (c.access_key.as_str(), c.session_token.as_deref()),
            ("AK", Some("ST"))
        );
        assert_eq!(c.expires_at_millis, 10_000_000);
        assert!(t.store_options().is_empty());

        let cache = TokenCache::default();
        let key = ("db".to_string(), "t".to_string());
        cache.put(key.clone(), t);
        assert!(cache.fresh(&key, 0).is_some());
        assert!(cache.fresh(&key, 9_000_000).is_none());
    }
}
