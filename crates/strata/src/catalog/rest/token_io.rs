//! The store of a REST catalog's table and its vended credentials: the table's files are read
//! at the `path` the server gives with the catalog's FileIO options plus the table's data token
//! (Java's `RESTTokenFileIO`). A token carrying S3 keys is signed with through
//! [`RestTokenRefresh`], which asks `GET …/token` again when the token is due (the rule of
//! `crate::io::credentials`), so a table held past its token's life keeps working.

// Without the S3 client (feature `s3`) no store signs with refreshed keys.
#![cfg_attr(not(feature = "s3"), allow(dead_code))]

use std::sync::Arc;

use async_trait::async_trait;
use object_store::path::Path;

use super::token::{DataToken, TOKEN_EXPIRATION_SAFE_TIME_MILLIS};
use super::{local_path_of, now_millis, RestCatalog};
use crate::error::ErrorDetail;
use crate::io::credentials::{CredentialRefresh, RefreshingCredentials, StoreCredentials};
use crate::io::FileIO;
use crate::{Error, Result};

/// Fresh credentials of one table: its data token asked again (`GET …/token`).
#[derive(Debug)]
pub(crate) struct RestTokenRefresh {
    catalog: RestCatalog,
    db: String,
    object: String,
}

#[async_trait]
impl CredentialRefresh for RestTokenRefresh {
    async fn refresh(&self) -> Result<StoreCredentials> {
        let t = self
            .catalog
            .fetch_vended_token(&self.db, &self.object)
            .await?;
        t.credentials().ok_or_else(|| {
            Error::from(ErrorDetail::PermissionDenied {
                resource: format!("{}.{}", self.db, self.object),
                message: format!(
                    "the REST catalog's new data token of {}.{} carries no S3 keys \
                     (s3.access-key, s3.secret-key)",
                    self.db, self.object
                ),
            })
        })
    }
}

impl RestCatalog {
    /// The store of table `object` of `db` whose files are at `path` (as the server gave it).
    pub(super) async fn table_file_io(
        &self,
        db: &str,
        object: &str,
        path: &str,
    ) -> Result<(FileIO, Path)> {
        let mut io_options = self.inner.io_options.clone();
        let mut credentials = None;
        if self.inner.data_token_enabled {
            let token = self.vended_token(db, object).await?;
            io_options.extend(token.store_options());
            if let Some(c) = token.credentials() {
                let refresh = RestTokenRefresh {
                    catalog: self.clone(),
                    db: db.to_string(),
                    object: object.to_string(),
                };
                // Kept as if fetched now: a cached token then falls due no later than the
                // rule says for it.
                credentials = Some(RefreshingCredentials::new(
                    Arc::new(refresh),
                    Some((c, now_millis())),
                    TOKEN_EXPIRATION_SAFE_TIME_MILLIS,
                ));
            }
        }
        let location = local_path_of(path);
        FileIO::for_location_with_credentials(&location, &io_options, credentials)
    }

    /// The table's data token, from the cache or the server.
    async fn vended_token(&self, db: &str, object: &str) -> Result<DataToken> {
        let key = (db.to_string(), object.to_string());
        if let Some(t) = self.inner.tokens.fresh(&key, now_millis()) {
            return Ok(t);
        }
        self.fetch_vended_token(db, object).await
    }

    /// The table's data token from the server (cached for the next load).
    async fn fetch_vended_token(&self, db: &str, object: &str) -> Result<DataToken> {
        let key = (db.to_string(), object.to_string());
        let r = self
            .api()
            .table_token(db, object)
            .await
            .map_err(|e| e.into_error("GET token"))?;
        let t = DataToken {
            token: r.token,
            expires_at_millis: r.expires_at_millis,
        };
        self.inner.tokens.put(key, t.clone());
        Ok(t)
    }
}
