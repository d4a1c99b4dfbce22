//! Paimon's REST catalog, the client: [`RestCatalog`], Java's `RESTCatalog` over `RESTApi`.
//! Databases, tables and commits are the server's; a table's files are read and written
//! directly at the `path` the server gives, with the catalog's FileIO options plus the
//! credentials it vends (`data-token.enabled`, `token.rs`).
//!
//! | file | what |
//! |---|---|
//! | `api` | one function per endpoint, `ResourcePaths`, URL encoding, paging |
//! | `http` | the HTTP exchange (reqwest), retries of GETs, error answers → strata errors |
//! | `auth` | `token.provider`: `bear`, or `dlf` (`dlf/`: Alibaba DLF's request signing) |
//! | `token` | vended data tokens, cached and refreshed an hour before expiry |
//! | `token_io` | a table's store with its vended S3 keys, fetched again when due (`io::credentials`) |
//! | `table_io` | loading a table (its FileIO, schema) and its [`SnapshotCommit`](crate::table::SnapshotCommit): `POST …/commit`, `…/rollback` |
//! | `versions` | snapshots, partitions, tags and branches as the server lists and manages them |
//! | `views` | views: list (by pattern, with details, globally), get, create, alter, drop, rename |
//! | `functions` | functions: list (by pattern, with details, globally), get, create, alter, drop |
//!
//! Options (Java's `RESTCatalogOptions`): `uri` (required), `warehouse` (sent as
//! `/v1/config?warehouse=`), `token.provider` + `token` (or the `dlf.*` keys of `dlf`),
//! `header.NAME` (sent as header NAME), `data-token.enabled`, plus what every catalog takes
//! (`s3.*` for the tables' FileIO, `table-default.*`). The server's `defaults` ⊕ these ⊕ its
//! `overrides` are the effective options (its `prefix` starts every path). Any other key is
//! refused by name.
//!
//! Commits are the server's decision (compare-and-set on the latest snapshot's uuid): the
//! snapshot goes to `POST …/commit` with the table's uuid, the base snapshot uuid and the
//! partition statistics; `{"success": false}` is a lost race (the committer re-plans). An
//! answer that never comes (5xx, timeout, reset connection) leaves the outcome unknown
//! ([`crate::ErrorKind::OutcomeUnknown`], `may_have_committed`).

mod api;
mod auth;
mod dlf;
mod functions;
mod http;
mod table_io;
mod token;
mod token_io;
mod versions;
mod views;

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use strata_spec::rest as dto;
use strata_spec::schema::{Schema, SchemaChange, TableSchema};
use strata_spec::snapshot::Snapshot;

use self::api::RestApi;
use self::http::CallError;
use self::token::{TokenCache, DATA_TOKEN_ENABLED};
use crate::catalog::contract::Catalog;
use crate::catalog::objects::{Function, FunctionChange, View, ViewChange};
use crate::error::ErrorDetail;
use crate::table::{CommitContext, Identifier, RollbackInstant, Table};
use crate::{Error, Result};

/// The catalog option keys the REST catalog takes itself.
fn is_rest_key(key: &str) -> bool {
    matches!(key, "uri" | DATA_TOKEN_ENABLED | "prefix")
        || key.starts_with(api::HEADER_PREFIX)
        || auth::is_auth_key(key)
}

/// A catalog served by a Paimon REST catalog server (Java's `RESTCatalog`; Java's
/// `RESTCatalogServer`, pypaimon's mock server and `strata serve` answer it). Cheap to clone.
#[derive(Clone, Debug)]
pub struct RestCatalog {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    api: RestApi,
    /// FileIO options of the tables (`s3.*` under strata's names).
    io_options: std::collections::HashMap<String, String>,
    /// `table-default.K` → `K`.
    table_defaults: BTreeMap<String, String>,
    data_token_enabled: bool,
    tokens: TokenCache,
}

fn now_millis() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// The REST object name of `id`: `t`, or `t$branch_b` (Java's `Identifier.getObjectName`).
pub(crate) fn object_name(table: &str, branch: Option<&str>) -> String {
    match branch.filter(|b| *b != "main") {
        Some(b) => format!("{table}$branch_{b}"),
        None => table.to_string(),
    }
}

impl RestCatalog {
    /// Connects to the server Paimon's catalog `options` name (`metastore = rest`, `uri`, …;
    /// see the module docs): the `/v1/config` handshake, then nothing until the first call.
    pub async fn open(options: &BTreeMap<String, String>) -> Result<RestCatalog> {
        // The client's own keys are checked before anything is sent.
        crate::catalog::options::split(
            options,
            &is_rest_key,
            ", uri, token.provider, token, the dlf.* keys of token.provider = dlf, header.*, \
             data-token.enabled",
        )?;
        let api = RestApi::connect(options).await?;
        let merged = api.options().clone();
        // Server-given keys are not the user's to fix: those strata's FileIO takes are used,
        // the rest (Java-side settings such as io-cache.*) concern other clients.
        let mut io_options = std::collections::HashMap::new();
        let mut table_defaults = BTreeMap::new();
        for (k, v) in &merged {
            let one = BTreeMap::from([(k.clone(), v.clone())]);
            if let Ok(parsed) = crate::catalog::options::split(&one, &|_| false, "") {
                io_options.extend(parsed.io);
                table_defaults.extend(parsed.table_defaults);
            }
        }
        let data_token_enabled = match merged.get(DATA_TOKEN_ENABLED).map(|v| v.trim()) {
            None => false,
            Some(v) if v.eq_ignore_ascii_case("true") => true,
            Some(v) if v.eq_ignore_ascii_case("false") => false,
            Some(v) => {
                return Err(Error::invalid_option(
                    DATA_TOKEN_ENABLED,
                    format!("data-token.enabled = {v}: expected true or false"),
                ))
            }
        };
        Ok(RestCatalog {
            inner: Arc::new(Inner {
                api,
                io_options,
                table_defaults,
                data_token_enabled,
                tokens: TokenCache::default(),
            }),
        })
    }

    /// The effective options: the server's defaults ⊕ the client's ⊕ the server's overrides.
    pub fn options(&self) -> &BTreeMap<String, String> {
        self.inner.api.options()
    }

    fn api(&self) -> &RestApi {
        &self.inner.api
    }

    /// Database `db`'s options as the server keeps them (`GET databases/{db}`), with its
    /// `location` when the server gives one.
    pub async fn database_options(&self, db: &str) -> Result<BTreeMap<String, String>> {
        match self.api().get_database(db).await {
            Ok(r) => {
                let mut options = r.options;
                if let Some(l) = r.location {
                    options.insert("location".into(), l);
                }
                Ok(options)
            }
            Err(e) if e.is_not_found(None) => {
                Err(ErrorDetail::DatabaseNotFound(db.to_string()).into())
            }
            Err(e) => Err(e.into_error("GET database")),
        }
    }

    /// Sets `updates` and removes `removals` of database `db`'s options (`POST
    /// databases/{db}`, Java's `alterDatabase`).
    pub async fn alter_database(
        &self,
        db: &str,
        updates: BTreeMap<String, String>,
        removals: Vec<String>,
    ) -> Result<()> {
        match self.api().alter_database(db, removals, updates).await {
            Ok(_) => Ok(()),
            Err(e) if e.is_not_found(None) => {
                Err(ErrorDetail::DatabaseNotFound(db.to_string()).into())
            }
            Err(e) => Err(e.into_error("POST database")),
        }
    }

    /// Renames table `from` to `to` (Java's `renameTable`; branches cannot be renamed).
    pub async fn rename_table(
        &self,
        from: &Identifier,
        to: &Identifier,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        check_not_branch(from, "renameTable")?;
        check_not_branch(to, "renameTable")?;
        let body = dto::RenameTableRequest {
            source: dto::ObjectIdentifier::new(&from.database, &from.table),
            destination: dto::ObjectIdentifier::new(&to.database, &to.table),
        };
        match self.api().rename_table(&body).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_not_found(None) && ignore_if_not_exists => Ok(()),
            Err(e) if e.is_not_found(None) => {
                Err(ErrorDetail::TableNotFound(from.to_string()).into())
            }
            Err(e) if e.is_already_exists() => {
                Err(ErrorDetail::TableAlreadyExists(to.to_string()).into())
            }
            Err(e) => Err(e.into_error("POST tables/rename")),
        }
    }
}

fn resource_name(e: &CallError) -> String {
    e.status()
        .and_then(|f| f.error.resource_name.clone())
        .unwrap_or_default()
}

/// A failed call about table `id`: a 404 is the table's absence.
fn table_error(e: CallError, id: &Identifier, endpoint: &str) -> Error {
    if e.is_not_found(None)
        && matches!(
            e.status().and_then(|f| f.resource_type()),
            None | Some("TABLE")
        )
    {
        return ErrorDetail::TableNotFound(id.to_string()).into();
    }
    e.into_error(endpoint).with_table(id)
}

/// Java's `checkNotBranch`.
fn check_not_branch(id: &Identifier, method: &str) -> Result<()> {
    if id.branch.is_some() {
        return Err(Error::invalid_argument(format!(
            "Cannot '{method}' for branch table '{id}', please modify the table with the \
             default branch."
        )));
    }
    Ok(())
}

/// A `file:` URI as the local path strata's FileIO takes (`file:/a` and `file:///a` → `/a`);
/// other locations unchanged.
fn local_path_of(path: &str) -> String {
    match path.strip_prefix("file:") {
        Some(rest) if rest.starts_with("///") => rest[2..].to_string(),
        Some(rest) if rest.starts_with("//") => path.to_string(),
        Some(rest) => rest.to_string(),
        None => path.to_string(),
    }
}

/// The server's schema of a table whose files hold none (Java's `TableSchema.create`).
fn table_schema_of(r: &dto::GetTableResponse) -> Result<TableSchema> {
    let s = &r.schema;
    Ok(TableSchema {
        version: strata_spec::schema::CURRENT_VERSION,
        id: r.schema_id,
        fields: s.fields.clone(),
        highest_field_id: strata_spec::schema::highest_user_field_id(&s.fields),
        partition_keys: s.partition_keys.clone(),
        primary_keys: s.primary_keys.clone(),
        options: s.options.clone(),
        comment: s.comment.clone(),
        time_millis: r.updated_at.or(r.created_at).unwrap_or(0),
    })
}

/// `schema` as sent to the server: the catalog's `table-default.*` where the schema does not
/// set them (Java's `copyTableDefaultOptions`), field ids assigned as Java's `Schema.Builder`.
fn schema_to_send(schema: &Schema, defaults: &BTreeMap<String, String>) -> Schema {
    let mut s = schema.clone();
    for (k, v) in defaults {
        s.options.entry(k.clone()).or_insert_with(|| v.clone());
    }
    if s.fields
        .iter()
        .any(|f| f.id == strata_spec::types::json::UNASSIGNED_FIELD_ID)
    {
        s.fields = strata_spec::schema::assign_field_ids(&s.fields);
    }
    s
}

#[async_trait]
impl Catalog for RestCatalog {
    fn location(&self) -> String {
        self.api().uri().to_string()
    }

    async fn list_databases(&self) -> Result<Vec<String>> {
        let mut dbs = self
            .api()
            .list_databases()
            .await
            .map_err(|e| e.into_error("GET databases"))?;
        dbs.sort();
        Ok(dbs)
    }

    async fn database_exists(&self, db: &str) -> Result<bool> {
        match self.api().get_database(db).await {
            Ok(_) => Ok(true),
            Err(e) if e.is_not_found(None) => Ok(false),
            Err(e) => Err(e.into_error("GET database")),
        }
    }

    async fn create_database(&self, db: &str, ignore_if_exists: bool) -> Result<()> {
        Identifier::validate_name("database", db)?;
        match self.api().create_database(db, BTreeMap::new()).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_already_exists() && ignore_if_exists => Ok(()),
            Err(e) if e.is_already_exists() => {
                Err(ErrorDetail::DatabaseAlreadyExists(db.to_string()).into())
            }
            Err(e) => Err(e.into_error("POST databases")),
        }
    }

    async fn drop_database(
        &self,
        db: &str,
        ignore_if_not_exists: bool,
        cascade: bool,
    ) -> Result<()> {
        let missing = |e: &CallError| e.is_not_found(None);
        if !cascade {
            match self.api().list_tables(db).await {
                Ok(t) if !t.is_empty() => {
                    return Err(ErrorDetail::DatabaseNotEmpty(db.to_string()).into())
                }
                Ok(_) => {}
                Err(e) if missing(&e) && ignore_if_not_exists => return Ok(()),
                Err(e) if missing(&e) => {
                    return Err(ErrorDetail::DatabaseNotFound(db.to_string()).into())
                }
                Err(e) => return Err(e.into_error("GET tables")),
            }
        }
        match self.api().drop_database(db).await {
            Ok(()) => Ok(()),
            Err(e) if missing(&e) && ignore_if_not_exists => Ok(()),
            Err(e) if missing(&e) => Err(ErrorDetail::DatabaseNotFound(db.to_string()).into()),
            Err(e) => Err(e.into_error("DELETE database")),
        }
    }

    async fn list_tables(&self, db: &str) -> Result<Vec<String>> {
        match self.api().list_tables(db).await {
            Ok(mut t) => {
                t.sort();
                Ok(t)
            }
            Err(e) if e.is_not_found(None) => {
                Err(ErrorDetail::DatabaseNotFound(db.to_string()).into())
            }
            Err(e) => Err(e.into_error("GET tables")),
        }
    }

    async fn table_exists(&self, id: &Identifier) -> Result<bool> {
        let object = object_name(&id.table, id.branch.as_deref());
        match self.api().get_table(&id.database, &object).await {
            Ok(_) => Ok(true),
            Err(e) if e.is_not_found(None) => Ok(false),
            Err(e) => Err(e.into_error("GET table").with_table(id)),
        }
    }

    async fn create_table(
        &self,
        id: &Identifier,
        schema: &Schema,
        ignore_if_exists: bool,
    ) -> Result<bool> {
        check_not_branch(id, "createTable")?;
        let body = dto::CreateTableRequest {
            identifier: dto::ObjectIdentifier::new(&id.database, &id.table),
            schema: schema_to_send(schema, &self.inner.table_defaults),
        };
        let mut created_db = false;
        loop {
            match self.api().create_table(&body).await {
                Ok(()) => return Ok(true),
                Err(e) if e.is_already_exists() && ignore_if_exists => return Ok(false),
                Err(e) if e.is_already_exists() => {
                    return Err(ErrorDetail::TableAlreadyExists(id.to_string()).into())
                }
                // strata's contract: the database is created when missing.
                Err(e) if e.is_not_found(None) && !created_db => {
                    self.create_database(&id.database, true).await?;
                    created_db = true;
                }
                Err(e) => return Err(e.into_error("POST tables").with_table(id)),
            }
        }
    }

    async fn drop_table(&self, id: &Identifier, ignore_if_not_exists: bool) -> Result<()> {
        check_not_branch(id, "dropTable")?;
        match self.api().drop_table(&id.database, &id.table).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_not_found(None) && ignore_if_not_exists => Ok(()),
            Err(e) => Err(table_error(e, id, "DELETE table")),
        }
    }

    async fn alter_table(
        &self,
        id: &Identifier,
        changes: Vec<SchemaChange>,
        ignore_if_not_exists: bool,
    ) -> Result<Option<Arc<TableSchema>>> {
        let object = object_name(&id.table, id.branch.as_deref());
        let body = dto::AlterTableRequest { changes };
        match self.api().alter_table(&id.database, &object, &body).await {
            Ok(()) => {}
            Err(e) if e.is_not_found(Some("COLUMN")) => {
                return Err(ErrorDetail::ColumnNotFound {
                    table: id.to_string(),
                    column: resource_name(&e),
                    available: "see the table's schema".into(),
                }
                .into())
            }
            Err(e) if e.is_not_found(None) && ignore_if_not_exists => return Ok(None),
            Err(e) if e.is_already_exists() => {
                return Err(ErrorDetail::ColumnAlreadyExists {
                    table: id.to_string(),
                    column: resource_name(&e),
                }
                .into())
            }
            Err(e) => return Err(table_error(e, id, "POST table")),
        }
        Ok(Some(self.get_table(id).await?.schema().clone()))
    }

    async fn get_table(&self, id: &Identifier) -> Result<Table> {
        let object = object_name(&id.table, id.branch.as_deref());
        let r = self
            .api()
            .get_table(&id.database, &object)
            .await
            .map_err(|e| table_error(e, id, "GET table"))?;
        self.load_table(id, r).await
    }

    /// Asks the server for the table's uuid first (a table from [`Catalog::get_table`]
    /// commits with the uuid it was loaded with).
    async fn commit_snapshot(
        &self,
        id: &Identifier,
        snapshot: &Snapshot,
        ctx: &CommitContext,
    ) -> Result<bool> {
        let r = self
            .api()
            .get_table(&id.database, &id.table)
            .await
            .map_err(|e| table_error(e, id, "GET table"))?;
        self.commit_with_uuid(id, Some(r.id), snapshot, ctx).await
    }

    async fn rollback_to(
        &self,
        id: &Identifier,
        instant: &RollbackInstant,
        from_snapshot: Option<i64>,
    ) -> Result<bool> {
        self.rollback(id, instant, from_snapshot).await?;
        Ok(true)
    }

    async fn list_views(&self, db: &str) -> Result<Vec<String>> {
        self.rest_list_views(db).await
    }

    async fn get_view(&self, id: &Identifier) -> Result<View> {
        self.rest_get_view(id).await
    }

    async fn create_view(&self, view: &View, ignore_if_exists: bool) -> Result<()> {
        self.rest_create_view(view, ignore_if_exists).await
    }

    async fn alter_view(
        &self,
        id: &Identifier,
        changes: Vec<ViewChange>,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        self.rest_alter_view(id, changes, ignore_if_not_exists)
            .await
    }

    async fn drop_view(&self, id: &Identifier, ignore_if_not_exists: bool) -> Result<()> {
        self.rest_drop_view(id, ignore_if_not_exists).await
    }

    async fn rename_view(
        &self,
        from: &Identifier,
        to: &Identifier,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        self.rest_rename_view(from, to, ignore_if_not_exists).await
    }

    async fn list_functions(&self, db: &str) -> Result<Vec<String>> {
        self.rest_list_functions(db).await
    }

    async fn get_function(&self, id: &Identifier) -> Result<Function> {
        self.rest_get_function(id).await
    }

    async fn create_function(&self, function: &Function, ignore_if_exists: bool) -> Result<()> {
        self.rest_create_function(function, ignore_if_exists).await
    }

    async fn alter_function(
        &self,
        id: &Identifier,
        changes: Vec<FunctionChange>,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        self.rest_alter_function(id, changes, ignore_if_not_exists)
            .await
    }

    async fn drop_function(&self, id: &Identifier, ignore_if_not_exists: bool) -> Result<()> {
        self.rest_drop_function(id, ignore_if_not_exists).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_names_and_file_uris() {
        assert_eq!(object_name("t", None), "t");
        assert_eq!(object_name("t", Some("b")), "t$branch_b");
        assert_eq!(object_name("t", Some("main")), "t");
        assert_eq!(local_path_of("file:/tmp/wh/db.db/t"), "/tmp/wh/db.db/t");
        assert_eq!(local_path_of("file:///tmp/wh"), "/tmp/wh");
        assert_eq!(local_path_of("/tmp/wh"), "/tmp/wh");
        assert_eq!(local_path_of("s3://b/wh/t"), "s3://b/wh/t");
    }

    #[test]
    fn own_keys_are_accepted_others_refused_by_name() {
        for k in [
            "uri",
            "token",
            "token.provider",
            "header.X-A",
            "data-token.enabled",
        ] {
            assert!(is_rest_key(k), "{k}");
        }
        let o = BTreeMap::from([
            ("uri".to_string(), "http://x".to_string()),
            // Java's OSS FileIO endpoint: strata has no OSS store.
            ("dlf.oss-endpoint".to_string(), "r".to_string()),
        ]);
        let e = crate::catalog::options::split(&o, &is_rest_key, "").unwrap_err();
        assert!(e.to_string().contains("dlf.oss-endpoint"), "{e}");
        assert!(is_rest_key("dlf.region") && is_rest_key("dlf.token-path"));
    }
}
