//! Store credentials that expire and are fetched again: a table loaded from a REST catalog
//! with vended data tokens (Java's `RESTTokenFileIO`) reads and writes its files with
//! temporary keys the catalog hands out per table. The io layer must not know catalogs, so it
//! asks a small [`CredentialRefresh`] (the catalog implements it) and wraps the answers into
//! `object_store`'s `CredentialProvider`, which the S3 client consults before every request.
//!
//! When to fetch again: Java's `RESTTokenFileIO.shouldRefresh` refreshes once fewer than its
//! margin (`TOKEN_EXPIRATION_SAFE_TIME_MILLIS`, one hour) remain. A token that lives shorter
//! than twice that margin would then be fetched for every request, so strata caps the margin at
//! half the token's life as it was when fetched: a 2 h token (strata's server default) is
//! refreshed an hour before it expires, exactly as Java; a 10 s token after 5 s.

// The REST catalog (feature `rest`) is the one source of refreshing credentials today, and
// only the S3 client (feature `s3`) signs with them.
#![cfg_attr(not(all(feature = "rest", feature = "s3")), allow(dead_code))]

use std::sync::Arc;

use async_trait::async_trait;

use crate::Result;

/// Temporary credentials of an object store and when they expire.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct StoreCredentials {
    pub(crate) access_key: String,
    pub(crate) secret_key: String,
    /// The session token of temporary keys (STS), sent as `x-amz-security-token`.
    pub(crate) session_token: Option<String>,
    /// Unix epoch milliseconds; `i64::MAX` for keys that do not expire.
    pub(crate) expires_at_millis: i64,
}

impl std::fmt::Debug for StoreCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreCredentials")
            .field("access_key", &self.access_key)
            .field("expires_at_millis", &self.expires_at_millis)
            .finish_non_exhaustive()
    }
}

/// Where fresh credentials come from (a catalog's per-table token endpoint).
#[async_trait]
pub(crate) trait CredentialRefresh: std::fmt::Debug + Send + Sync {
    /// Fetches new credentials (never the cached ones).
    async fn refresh(&self) -> Result<StoreCredentials>;
}

/// The refresh rule of the module docs: should credentials fetched at `fetched_at_millis` and
/// expiring at `expires_at_millis` be fetched again at `now_millis`, with Java's `margin`?
pub(crate) fn should_refresh(
    fetched_at_millis: i64,
    expires_at_millis: i64,
    now_millis: i64,
    margin_millis: i64,
) -> bool {
    let life = expires_at_millis.saturating_sub(fetched_at_millis).max(0);
    let margin = margin_millis.min(life / 2);
    expires_at_millis.saturating_sub(now_millis) < margin
}

/// The current Unix time in milliseconds.
pub(crate) fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Credentials kept and fetched again by the rule above.
#[derive(Debug)]
pub(crate) struct RefreshingCredentials {
    source: Arc<dyn CredentialRefresh>,
    margin_millis: i64,
    /// (credentials, fetched at).
    current: tokio::sync::Mutex<Option<(StoreCredentials, i64)>>,
}

impl RefreshingCredentials {
    /// Starts from `initial` (fetched at `fetched_at_millis`), refreshing from `source`.
    pub(crate) fn new(
        source: Arc<dyn CredentialRefresh>,
        initial: Option<(StoreCredentials, i64)>,
        margin_millis: i64,
    ) -> Self {
        RefreshingCredentials {
            source,
            margin_millis,
            current: tokio::sync::Mutex::new(initial),
        }
    }

    /// The credentials to sign the next request with: the kept ones, or fresh ones when the
    /// kept ones are due. One caller fetches while the others wait for its answer.
    pub(crate) async fn get(&self) -> Result<StoreCredentials> {
        let mut current = self.current.lock().await;
        let now = now_millis();
        if let Some((c, fetched)) = current.as_ref() {
            if !should_refresh(*fetched, c.expires_at_millis, now, self.margin_millis) {
                return Ok(c.clone());
            }
        }
        let fresh = self.source.refresh().await?;
        *current = Some((fresh.clone(), now));
        Ok(fresh)
    }
}

#[cfg(feature = "s3")]
pub(crate) use aws::AwsRefreshing;

#[cfg(feature = "s3")]
mod aws {
    use super::*;
    use object_store::aws::AwsCredential;

    /// [`RefreshingCredentials`] as the S3 client's credential provider.
    #[derive(Debug)]
    pub(crate) struct AwsRefreshing(pub(crate) RefreshingCredentials);

    #[async_trait]
    impl object_store::CredentialProvider for AwsRefreshing {
        type Credential = AwsCredential;

        async fn get_credential(&self) -> object_store::Result<Arc<AwsCredential>> {
            let c = self
                .0
                .get()
                .await
                .map_err(|e| object_store::Error::Generic {
                    store: "S3",
                    source: format!("cannot refresh the table's vended credentials: {e}").into(),
                })?;
            Ok(Arc::new(AwsCredential {
                key_id: c.access_key,
                secret_key: c.secret_key,
                token: c.session_token,
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn java_margin_capped_at_half_the_life() {
        const HOUR: i64 = 3_600_000;
        // A 2 h token: refreshed within the last hour, as Java.
        assert!(!should_refresh(0, 2 * HOUR, HOUR - 1, HOUR));
        assert!(should_refresh(0, 2 * HOUR, HOUR + 1, HOUR));
        // A 10 s token: after 5 s, not on every request.
        assert!(!should_refresh(0, 10_000, 4_999, HOUR));
        assert!(should_refresh(0, 10_000, 5_001, HOUR));
        // Expired or never valid: refresh.
        assert!(should_refresh(0, 0, 1, HOUR));
        assert!(!should_refresh(0, i64::MAX, 10 * HOUR, HOUR));
    }

    #[derive(Debug, Default)]
    struct Counting(AtomicUsize);

    #[async_trait]
    impl CredentialRefresh for Counting {
        async fn refresh(&self) -> Result<StoreCredentials> {
            let n = self.0.fetch_add(1, Ordering::SeqCst) + 1;
            Ok(StoreCredentials {
                access_key: format!("AK{n}"),
                secret_key: "SK".into(),
                session_token: Some(format!("T{n}")),
                expires_at_millis: now_millis() + 400,
            })
        }
    }

    #[tokio::test]
    async fn kept_until_due_then_fetched_again() {
        let source = Arc::new(Counting::default());
        let creds = RefreshingCredentials::new(source.clone(), None, 3_600_000);
        assert_eq!(creds.get().await.unwrap().access_key, "AK1");
        assert_eq!(creds.get().await.unwrap().access_key, "AK1");
        assert_eq!(source.0.load(Ordering::SeqCst), 1);
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        let c = creds.get().await.unwrap();
        assert_eq!(
            (c.access_key.as_str(), c.session_token.as_deref()),
            ("AK2", Some("T2"))
        );
        assert_eq!(source.0.load(Ordering::SeqCst), 2);
    }
}
