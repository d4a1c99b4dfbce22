//! Paimon's REST catalog, the client: [`RestCatalog`], Java's `RESTCatalog` over `RESTApi`.
//! Databases, tables and commits are the server's; a table's files are read and written
//! directly at the `path` the server gives, with the catalog's FileIO options plus the
//! credentials it vends (`data-token.enabled`, `token.rs`).
//!
//! | file | what |
//! |---|---|
//! | `api` | one function per endpoint, `ResourcePaths`, URL encoding, paging |
//! | `http` | the HTTP exchange (reqwest), retries of GETs, error answers → strata errors |
//! | `auth` | `token.provider` (`bear`) |
//! | `token` | vended data tokens, cached and refreshed an hour before expiry |
//! | `commit` | the table's [`SnapshotCommit`](crate::table::SnapshotCommit): `POST …/commit`, `…/rollback` |
//!
//! Options (Java's `RESTCatalogOptions`): `uri` (required), `warehouse` (sent as
//! `/v1/config?warehouse=`), `token.provider` + `token`, `header.NAME` (sent as header NAME),
//! `data-token.enabled`, plus what every catalog takes (`s3.*` for the tables' FileIO,
//! `table-default.*`). The server's `defaults` ⊕ these ⊕ its `overrides` are the effective
//! options (its `prefix` starts every path). Any other key is refused by name.
//!
//! Commits are the server's decision (compare-and-set on the latest snapshot's uuid): the
//! snapshot goes to `POST …/commit` with the table's uuid, the base snapshot uuid and the
//! partition statistics; `{"success": false}` is a lost race (the committer re-plans). An
//! answer that never comes (5xx, timeout, reset connection) leaves the outcome unknown
//! ([`crate::ErrorKind::OutcomeUnknown`], `may_have_committed`).

mod api;
mod auth;
mod commit;
mod http;
mod token;

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use strata_spec::rest as dto;
use strata_spec::schema::{Schema, SchemaChange, TableSchema};
use strata_spec::snapshot::Snapshot;

use self::api::RestApi;
use self::commit::RestSnapshotCommit;
use self::http::CallError;
use self::token::{DataToken, TokenCache, DATA_TOKEN_ENABLED};
use crate::catalog::contract::Catalog;
use crate::error::ErrorDetail;
use crate::io::FileIO;
use crate::meta::{SchemaManager, TablePaths};
use crate::table::{CommitContext, Identifier, RollbackInstant, Table};
use crate::{Error, Result};

/// The catalog option keys the REST catalog takes itself.
fn is_rest_key(key: &str) -> bool {
    matches!(
        key,
        "uri" | "token.provider" | "token" | DATA_TOKEN_ENABLED | "prefix"
    ) || key.starts_with(api::HEADER_PREFIX)
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
            ", uri, token.provider, token, header.*, data-token.enabled",
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

    /// The table's snapshots as the server lists them (`GET …/snapshots`, every page).
    pub async fn list_snapshots(&self, id: &Identifier) -> Result<Vec<Snapshot>> {
        let object = object_name(&id.table, id.branch.as_deref());
        self.api()
            .list_snapshots(&id.database, &object)
            .await
            .map_err(|e| table_error(e, id, "GET snapshots"))
    }

    /// The table's latest snapshot with its totals (`GET …/snapshot`); `None` when it has
    /// none yet.
    pub async fn load_snapshot(&self, id: &Identifier) -> Result<Option<dto::TableSnapshot>> {
        let object = object_name(&id.table, id.branch.as_deref());
        match self.api().load_snapshot(&id.database, &object).await {
            Ok(s) => Ok(Some(s)),
            Err(e) if e.is_not_found(Some("SNAPSHOT")) => Ok(None),
            Err(e) => Err(table_error(e, id, "GET snapshot")),
        }
    }

    /// The table's partitions with the statistics the server summed from the commits
    /// (`GET …/partitions`, every page).
    pub async fn list_partitions(&self, id: &Identifier) -> Result<Vec<dto::Partition>> {
        let object = object_name(&id.table, id.branch.as_deref());
        self.api()
            .list_partitions(&id.database, &object)
            .await
            .map_err(|e| table_error(e, id, "GET partitions"))
    }

    /// The table's branches (`GET …/branches`).
    pub async fn list_branches(&self, id: &Identifier) -> Result<Vec<String>> {
        self.api()
            .list_branches(&id.database, &id.table)
            .await
            .map_err(|e| table_error(e, id, "GET branches"))
    }

    /// Creates branch `branch` of table `id`, from tag `from_tag` or empty (`POST …/branches`).
    pub async fn create_branch(
        &self,
        id: &Identifier,
        branch: &str,
        from_tag: Option<&str>,
    ) -> Result<()> {
        let body = dto::CreateBranchRequest {
            branch: branch.to_string(),
            from_tag: from_tag.map(str::to_string),
        };
        self.api()
            .create_branch(&id.database, &id.table, &body)
            .await
            .map_err(|e| table_error(e, id, "POST branches"))
    }

    /// Drops branch `branch` of table `id` (`DELETE …/branches/{branch}`).
    pub async fn drop_branch(&self, id: &Identifier, branch: &str) -> Result<()> {
        self.api()
            .drop_branch(&id.database, &id.table, branch)
            .await
            .map_err(|e| table_error(e, id, "DELETE branches"))
    }

    /// The table's tag names (`GET …/tags`, every page).
    pub async fn list_tags(&self, id: &Identifier) -> Result<Vec<String>> {
        let object = object_name(&id.table, id.branch.as_deref());
        self.api()
            .list_tags(&id.database, &object)
            .await
            .map_err(|e| table_error(e, id, "GET tags"))
    }

    /// Tag `tag` of table `id` with its snapshot (`GET …/tags/{tag}`).
    pub async fn get_tag(&self, id: &Identifier, tag: &str) -> Result<dto::GetTagResponse> {
        let object = object_name(&id.table, id.branch.as_deref());
        match self.api().get_tag(&id.database, &object, tag).await {
            Err(e) if e.is_not_found(Some("TAG")) => Err(ErrorDetail::TagNotFound {
                table: id.to_string(),
                name: tag.to_string(),
            }
            .into()),
            r => r.map_err(|e| table_error(e, id, "GET tags")),
        }
    }

    /// Creates tag `tag` of table `id` on snapshot `snapshot_id` (the latest when `None`),
    /// kept `time_retained` (a duration text such as `1 d`) when given (`POST …/tags`).
    pub async fn create_tag(
        &self,
        id: &Identifier,
        tag: &str,
        snapshot_id: Option<i64>,
        time_retained: Option<&str>,
    ) -> Result<()> {
        let object = object_name(&id.table, id.branch.as_deref());
        let body = dto::CreateTagRequest {
            tag_name: tag.to_string(),
            snapshot_id,
            time_retained: time_retained.map(str::to_string),
        };
        match self.api().create_tag(&id.database, &object, &body).await {
            Err(e) if e.is_already_exists() => Err(ErrorDetail::TagAlreadyExists {
                table: id.to_string(),
                name: tag.to_string(),
            }
            .into()),
            r => r.map_err(|e| table_error(e, id, "POST tags")),
        }
    }

    /// Deletes tag `tag` of table `id` (`DELETE …/tags/{tag}`).
    pub async fn delete_tag(&self, id: &Identifier, tag: &str) -> Result<()> {
        let object = object_name(&id.table, id.branch.as_deref());
        match self.api().delete_tag(&id.database, &object, tag).await {
            Err(e) if e.is_not_found(Some("TAG")) => Err(ErrorDetail::TagNotFound {
                table: id.to_string(),
                name: tag.to_string(),
            }
            .into()),
            r => r.map_err(|e| table_error(e, id, "DELETE tags")),
        }
    }

    /// The table's data token, from the cache or the server.
    async fn data_token(&self, db: &str, object: &str) -> Result<DataToken> {
        let key = (db.to_string(), object.to_string());
        if let Some(t) = self.inner.tokens.fresh(&key, now_millis()) {
            return Ok(t);
        }
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

    /// The table `id` the server answered with `r`, reading its files at `r.path`.
    async fn load_table(&self, id: &Identifier, r: dto::GetTableResponse) -> Result<Table> {
        let object = object_name(&id.table, id.branch.as_deref());
        let mut io_options = self.inner.io_options.clone();
        if self.inner.data_token_enabled {
            io_options.extend(self.data_token(&id.database, &object).await?.io_options());
        }
        let location = local_path_of(&r.path);
        let (io, root) = FileIO::for_location_with_options(&location, &io_options)?;
        let paths = TablePaths::new(root).with_branch(id.branch.as_deref());
        let sm = SchemaManager::new(io.clone(), paths.clone());
        let schema = match sm.latest().await? {
            Some(s) => s,
            // The server knows the table but its files hold no schema (yet): the server's.
            None => Arc::new(table_schema_of(&r)?),
        };
        let schema = crate::table::with_branch_option(&schema, paths.branch());
        let commit = RestSnapshotCommit::new(self.clone(), id.clone(), r.id.clone());
        Ok(Table::new(id.clone(), io, paths, sm, schema)?.with_snapshot_commit(Arc::new(commit)))
    }

    /// `POST …/commit` for table `id` with uuid `table_id` (see the module docs).
    pub(crate) async fn commit_with_uuid(
        &self,
        id: &Identifier,
        table_id: Option<String>,
        snapshot: &Snapshot,
        ctx: &CommitContext,
    ) -> Result<bool> {
        let branch = Some(ctx.branch.as_str()).filter(|b| !b.is_empty());
        let object = object_name(&id.table, branch.or(id.branch.as_deref()));
        let body = dto::CommitTableRequest {
            table_id,
            base_snapshot_uuid: ctx.base_snapshot_uuid.clone(),
            snapshot: snapshot.clone(),
            statistics: ctx.statistics.clone(),
        };
        commit::commit_outcome(self.api().commit(&id.database, &object, &body).await, id)
    }

    /// `POST …/rollback` for table `id`.
    pub(crate) async fn rollback(
        &self,
        id: &Identifier,
        instant: &RollbackInstant,
        from_snapshot: Option<i64>,
    ) -> Result<()> {
        let object = object_name(&id.table, id.branch.as_deref());
        let body = dto::RollbackTableRequest {
            instant: match instant {
                RollbackInstant::Snapshot(s) => dto::Instant::Snapshot { snapshot_id: *s },
                RollbackInstant::Tag(t) => dto::Instant::Tag {
                    tag_name: t.clone(),
                },
            },
            from_snapshot,
        };
        match self.api().rollback(&id.database, &object, &body).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_not_found(Some("SNAPSHOT")) => Err(Error::invalid_argument(format!(
                "Rollback snapshot '{}' doesn't exist.",
                resource_name(&e)
            ))),
            Err(e) if e.is_not_found(Some("TAG")) => Err(Error::invalid_argument(format!(
                "Rollback tag '{}' doesn't exist.",
                resource_name(&e)
            ))),
            Err(e) => Err(table_error(e, id, "POST rollback")),
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
            ("dlf.region".to_string(), "r".to_string()),
        ]);
        let e = crate::catalog::options::split(&o, &is_rest_key, "").unwrap_err();
        assert!(e.to_string().contains("dlf.region"), "{e}");
    }
}
