//! The REST catalog's calls, one function per endpoint, typed with `strata_spec::rest`'s
//! bodies: Java's `RESTApi` (config handshake, paging), `ResourcePaths` (every path under
//! `/v1/{prefix}`) and `RESTUtil.encodeString` (path segments and query values are
//! `URLEncoder`-encoded: `$` → `%24`, space → `+`). Errors stay [`CallError`]s here so the
//! catalog (`mod.rs`) can read 404 / 409 by resource before mapping them.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::Serialize;
use strata_spec::rest as dto;
use strata_spec::snapshot::Snapshot;

use super::auth::AuthProvider;
use super::http::{encode, CallError, HttpClient};
use crate::Result;

/// Prefix of the options sent as HTTP headers (`header.User-Agent` → `User-Agent`).
pub(crate) const HEADER_PREFIX: &str = "header.";

/// Java's `ResourcePaths`: `/v1/{prefix}/…`, the prefix left out when the server gave none.
#[derive(Clone, Debug)]
pub(crate) struct ResourcePaths {
    base: String,
}

impl ResourcePaths {
    /// Paths under `/v1/{prefix}`.
    pub(crate) fn new(prefix: Option<&str>) -> ResourcePaths {
        let base = match prefix.filter(|p| !p.is_empty()) {
            Some(p) => format!("/v1/{}", encode(p)),
            None => "/v1".to_string(),
        };
        ResourcePaths { base }
    }
    pub(crate) fn config() -> &'static str {
        "/v1/config"
    }
    pub(crate) fn databases(&self) -> String {
        format!("{}/databases", self.base)
    }
    pub(crate) fn database(&self, db: &str) -> String {
        format!("{}/databases/{}", self.base, encode(db))
    }
    pub(crate) fn tables(&self, db: &str) -> String {
        format!("{}/tables", self.database(db))
    }
    pub(crate) fn table(&self, db: &str, object: &str) -> String {
        format!("{}/tables/{}", self.database(db), encode(object))
    }
    pub(crate) fn rename_table(&self) -> String {
        format!("{}/tables/rename", self.base)
    }
    pub(crate) fn table_sub(&self, db: &str, object: &str, sub: &str) -> String {
        format!("{}/{}", self.table(db, object), sub)
    }
    /// `…/databases/{db}/{kind}` (`views`, `view-details`, `functions`, `function-details`).
    pub(crate) fn database_sub(&self, db: &str, kind: &str) -> String {
        format!("{}/{kind}", self.database(db))
    }
    /// `…/databases/{db}/{kind}/{name}` (a view or a function).
    pub(crate) fn database_object(&self, db: &str, kind: &str, name: &str) -> String {
        format!("{}/{kind}/{}", self.database(db), encode(name))
    }
    /// `/v1/{prefix}/{kind}` (`views`, `functions` of every database; `views/rename`).
    pub(crate) fn catalog_sub(&self, kind: &str) -> String {
        format!("{}/{kind}", self.base)
    }
}

/// One REST catalog endpoint after the config handshake.
#[derive(Clone, Debug)]
pub(crate) struct RestApi {
    http: HttpClient,
    auth: AuthProvider,
    paths: ResourcePaths,
    /// The merged options: server defaults ⊕ the client's ⊕ server overrides.
    options: BTreeMap<String, String>,
}

/// The `header.*` options, without the prefix.
fn headers_of(options: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    options
        .iter()
        .filter_map(|(k, v)| {
            k.strip_prefix(HEADER_PREFIX)
                .filter(|h| !h.is_empty())
                .map(|h| (h.to_string(), v.clone()))
        })
        .collect()
}

impl RestApi {
    /// Connects: `GET /v1/config?warehouse=W` and merges the answer with `options` (Java's
    /// `RESTApi(Options)`), taking `prefix` and `header.*` from the result.
    pub(crate) async fn connect(options: &BTreeMap<String, String>) -> Result<RestApi> {
        let uri = options.get("uri").cloned().unwrap_or_default();
        let mut http = HttpClient::new(&uri, headers_of(options))?;
        let auth = AuthProvider::from_options(options)?;
        let mut query = Vec::new();
        if let Some(w) = options.get("warehouse").filter(|w| !w.is_empty()) {
            query.push(("warehouse", w.clone()));
        }
        let config: dto::ConfigResponse = http
            .get(ResourcePaths::config(), &query, &auth.headers())
            .await
            .map_err(|e| e.into_error("GET /v1/config"))?;
        let merged = config.merge(options);
        http.extend_headers(headers_of(&merged));
        let paths = ResourcePaths::new(merged.get("prefix").map(String::as_str));
        Ok(RestApi {
            http,
            auth,
            paths,
            options: merged,
        })
    }

    /// The merged catalog options.
    pub(crate) fn options(&self) -> &BTreeMap<String, String> {
        &self.options
    }

    /// The server's base URI.
    pub(crate) fn uri(&self) -> &str {
        self.http.uri()
    }

    /// The resource paths (with the server's prefix).
    pub(crate) fn paths(&self) -> &ResourcePaths {
        &self.paths
    }

    pub(crate) async fn get<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<T, CallError> {
        self.http.get(path, query, &self.auth.headers()).await
    }

    pub(crate) async fn post<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, CallError> {
        self.http.post(path, body, &self.auth.headers()).await
    }

    pub(crate) async fn post_void<B: Serialize>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<(), CallError> {
        self.http
            .post_raw(path, body, &self.auth.headers())
            .await
            .map(|_| ())
    }

    pub(crate) async fn delete(&self, path: &str) -> Result<(), CallError> {
        self.http.delete(path, &self.auth.headers()).await
    }

    /// Every page of a paged list (Java's `listDataFromPageApi`): follows `nextPageToken`
    /// until it is absent or a page comes back empty.
    pub(crate) async fn paged<R, T>(
        &self,
        path: &str,
        query: &[(&str, String)],
        split: impl Fn(R) -> (Vec<T>, Option<String>),
    ) -> Result<Vec<T>, CallError>
    where
        R: DeserializeOwned,
    {
        let mut out = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let mut q = query.to_vec();
            if let Some(t) = &token {
                q.push(("pageToken", t.clone()));
            }
            let (items, next) = split(self.get::<R>(path, &q).await?);
            let empty = items.is_empty();
            out.extend(items);
            match next.filter(|t| !t.is_empty()) {
                Some(t) if !empty => {
                    if token.as_deref() == Some(t.as_str()) {
                        // A server repeating its token would loop forever.
                        return Err(CallError::Transport {
                            message: format!("the server repeated page token {t} for {path}"),
                            sent: true,
                        });
                    }
                    token = Some(t)
                }
                _ => return Ok(out),
            }
        }
    }

    // ---- databases -------------------------------------------------------------------

    pub(crate) async fn list_databases(&self) -> Result<Vec<String>, CallError> {
        self.paged(
            &self.paths.databases(),
            &[],
            |r: dto::ListDatabasesResponse| (r.databases, r.next_page_token),
        )
        .await
    }

    pub(crate) async fn get_database(
        &self,
        db: &str,
    ) -> Result<dto::GetDatabaseResponse, CallError> {
        self.get(&self.paths.database(db), &[]).await
    }

    pub(crate) async fn create_database(
        &self,
        db: &str,
        options: BTreeMap<String, String>,
    ) -> Result<(), CallError> {
        let body = dto::CreateDatabaseRequest {
            name: db.to_string(),
            options,
        };
        self.post_void(&self.paths.databases(), &body).await
    }

    pub(crate) async fn drop_database(&self, db: &str) -> Result<(), CallError> {
        self.delete(&self.paths.database(db)).await
    }

    pub(crate) async fn alter_database(
        &self,
        db: &str,
        removals: Vec<String>,
        updates: BTreeMap<String, String>,
    ) -> Result<dto::AlterDatabaseResponse, CallError> {
        let body = dto::AlterDatabaseRequest { removals, updates };
        self.post(&self.paths.database(db), &body).await
    }

    // ---- tables ----------------------------------------------------------------------

    pub(crate) async fn list_tables(&self, db: &str) -> Result<Vec<String>, CallError> {
        self.paged(&self.paths.tables(db), &[], |r: dto::ListTablesResponse| {
            (r.tables, r.next_page_token)
        })
        .await
    }

    pub(crate) async fn get_table(
        &self,
        db: &str,
        object: &str,
    ) -> Result<dto::GetTableResponse, CallError> {
        self.get(&self.paths.table(db, object), &[]).await
    }

    pub(crate) async fn create_table(
        &self,
        body: &dto::CreateTableRequest,
    ) -> Result<(), CallError> {
        self.post_void(&self.paths.tables(&body.identifier.database), body)
            .await
    }

    pub(crate) async fn drop_table(&self, db: &str, object: &str) -> Result<(), CallError> {
        self.delete(&self.paths.table(db, object)).await
    }

    pub(crate) async fn alter_table(
        &self,
        db: &str,
        object: &str,
        body: &dto::AlterTableRequest,
    ) -> Result<(), CallError> {
        self.post_void(&self.paths.table(db, object), body).await
    }

    pub(crate) async fn rename_table(
        &self,
        body: &dto::RenameTableRequest,
    ) -> Result<(), CallError> {
        self.post_void(&self.paths.rename_table(), body).await
    }

    pub(crate) async fn commit(
        &self,
        db: &str,
        object: &str,
        body: &dto::CommitTableRequest,
    ) -> Result<bool, CallError> {
        let r: dto::CommitTableResponse = self
            .post(&self.paths.table_sub(db, object, "commit"), body)
            .await?;
        Ok(r.success)
    }

    pub(crate) async fn rollback(
        &self,
        db: &str,
        object: &str,
        body: &dto::RollbackTableRequest,
    ) -> Result<(), CallError> {
        self.post_void(&self.paths.table_sub(db, object, "rollback"), body)
            .await
    }

    pub(crate) async fn table_token(
        &self,
        db: &str,
        object: &str,
    ) -> Result<dto::GetTableTokenResponse, CallError> {
        self.get(&self.paths.table_sub(db, object, "token"), &[])
            .await
    }

    pub(crate) async fn load_snapshot(
        &self,
        db: &str,
        object: &str,
    ) -> Result<dto::TableSnapshot, CallError> {
        let r: dto::GetTableSnapshotResponse = self
            .get(&self.paths.table_sub(db, object, "snapshot"), &[])
            .await?;
        Ok(r.snapshot)
    }

    pub(crate) async fn list_snapshots(
        &self,
        db: &str,
        object: &str,
    ) -> Result<Vec<Snapshot>, CallError> {
        self.paged(
            &self.paths.table_sub(db, object, "snapshots"),
            &[],
            |r: dto::ListSnapshotsResponse| (r.snapshots, r.next_page_token),
        )
        .await
    }

    pub(crate) async fn list_partitions(
        &self,
        db: &str,
        object: &str,
    ) -> Result<Vec<dto::Partition>, CallError> {
        self.paged(
            &self.paths.table_sub(db, object, "partitions"),
            &[],
            |r: dto::ListPartitionsResponse| (r.partitions, r.next_page_token),
        )
        .await
    }

    // ---- branches and tags -----------------------------------------------------------

    pub(crate) async fn list_branches(
        &self,
        db: &str,
        object: &str,
    ) -> Result<Vec<String>, CallError> {
        let r: dto::ListBranchesResponse = self
            .get(&self.paths.table_sub(db, object, "branches"), &[])
            .await?;
        Ok(r.branches)
    }

    pub(crate) async fn create_branch(
        &self,
        db: &str,
        object: &str,
        body: &dto::CreateBranchRequest,
    ) -> Result<(), CallError> {
        self.post_void(&self.paths.table_sub(db, object, "branches"), body)
            .await
    }

    pub(crate) async fn drop_branch(
        &self,
        db: &str,
        object: &str,
        branch: &str,
    ) -> Result<(), CallError> {
        let path = self
            .paths
            .table_sub(db, object, &format!("branches/{}", encode(branch)));
        self.delete(&path).await
    }

    pub(crate) async fn forward_branch(
        &self,
        db: &str,
        object: &str,
        branch: &str,
    ) -> Result<(), CallError> {
        let path =
            self.paths
                .table_sub(db, object, &format!("branches/{}/forward", encode(branch)));
        self.post_void(&path, &dto::ForwardBranchRequest {}).await
    }

    pub(crate) async fn rename_branch(
        &self,
        db: &str,
        object: &str,
        branch: &str,
        to: &str,
    ) -> Result<(), CallError> {
        let path = self
            .paths
            .table_sub(db, object, &format!("branches/{}/rename", encode(branch)));
        let body = dto::RenameBranchRequest {
            to_branch: to.to_string(),
        };
        self.post_void(&path, &body).await
    }

    // ---- consumers and schema rollback ---------------------------------------------------

    pub(crate) async fn list_consumers(
        &self,
        db: &str,
        object: &str,
    ) -> Result<Vec<dto::ConsumerInfo>, CallError> {
        self.paged(
            &self.paths.table_sub(db, object, "consumers"),
            &[],
            |r: dto::ListConsumersResponse| (r.consumers, r.next_page_token),
        )
        .await
    }

    pub(crate) async fn reset_consumer(
        &self,
        db: &str,
        object: &str,
        body: &dto::ResetConsumerRequest,
    ) -> Result<(), CallError> {
        self.post_void(&self.paths.table_sub(db, object, "consumers/reset"), body)
            .await
    }

    pub(crate) async fn rollback_schema(
        &self,
        db: &str,
        object: &str,
        schema_id: i64,
    ) -> Result<(), CallError> {
        let body = dto::RollbackSchemaRequest { schema_id };
        self.post_void(&self.paths.table_sub(db, object, "rollback-schema"), &body)
            .await
    }

    pub(crate) async fn list_tags(&self, db: &str, object: &str) -> Result<Vec<String>, CallError> {
        self.paged(
            &self.paths.table_sub(db, object, "tags"),
            &[],
            |r: dto::ListTagsResponse| (r.tags, r.next_page_token),
        )
        .await
    }

    pub(crate) async fn create_tag(
        &self,
        db: &str,
        object: &str,
        body: &dto::CreateTagRequest,
    ) -> Result<(), CallError> {
        self.post_void(&self.paths.table_sub(db, object, "tags"), body)
            .await
    }

    pub(crate) async fn get_tag(
        &self,
        db: &str,
        object: &str,
        tag: &str,
    ) -> Result<dto::GetTagResponse, CallError> {
        let path = self
            .paths
            .table_sub(db, object, &format!("tags/{}", encode(tag)));
        self.get(&path, &[]).await
    }

    pub(crate) async fn delete_tag(
        &self,
        db: &str,
        object: &str,
        tag: &str,
    ) -> Result<(), CallError> {
        let path = self
            .paths
            .table_sub(db, object, &format!("tags/{}", encode(tag)));
        self.delete(&path).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_and_paths_are_javas() {
        assert_eq!(encode("t$branch_b"), "t%24branch_b");
        assert_eq!(encode("a b/c"), "a+b%2Fc");
        assert_eq!(encode("ü.-*_~"), "%C3%BC.-*_%7E");
        let p = ResourcePaths::new(Some("my cat"));
        assert_eq!(p.databases(), "/v1/my+cat/databases");
        assert_eq!(
            p.table_sub("db", "t$branch_b", "commit"),
            "/v1/my+cat/databases/db/tables/t%24branch_b/commit"
        );
        assert_eq!(ResourcePaths::new(None).rename_table(), "/v1/tables/rename");
        assert_eq!(ResourcePaths::config(), "/v1/config");
    }
}
