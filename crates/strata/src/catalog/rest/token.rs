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
//! A table keeps the credentials it was loaded with: load the table again (`get_table`) to
//! pick up fresh ones (a `Table` held longer than the token lives fails with the store's
//! permission error).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

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

        let cache = TokenCache::default();
        let key = ("db".to_string(), "t".to_string());
        cache.put(key.clone(), t);
        assert!(cache.fresh(&key, 0).is_some());
        assert!(cache.fresh(&key, 9_000_000).is_none());
    }
}
