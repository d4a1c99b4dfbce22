//! Who may do what on a `strata serve` REST catalog: the token file, its principals and grants,
//! and the check every route makes before any I/O.
//!
//! Paimon's REST catalog authenticates with a bearer token (`BearTokenAuthProvider`: header
//! `Authorization: Bearer <token>`). Java's `RESTCatalogServer` is a test mock with one token and
//! no grants; a served warehouse needs principals, so strata reads a small token file (grammar in
//! [`TOKEN_FILE_GRAMMAR`], shown by `strata serve --help`): each line gives a token to a
//! principal with a level (`read` < `write` < `admin`) on a scope (everything, one database, or
//! one table).
//!
//! The decision is made from the grants alone, before the handler touches the warehouse, so it
//! never depends on (and never reveals) whether an object exists: an object the principal has
//! no grant on at all answers the same 404 as a missing one; an object it can see but not change
//! answers 403. List calls keep only what [`visible`] allows. Data-token vending asks
//! [`may_write`]: a principal that only reads a table never receives write credentials.
//!
//! Tokens are compared in constant time: every configured token is compared with the presented
//! one, byte by byte, without an early exit, so response timing does not reveal a token prefix.
//! Hand-written rather than a crate: the comparison is ten lines and the grammar four forms.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use axum::http::header::AUTHORIZATION;
use axum::http::HeaderMap;

use crate::config::ServerConfig;
use crate::error::{ApiError, ApiResult, ResourceType};
use crate::ops::Op;

/// The token file grammar, for `strata serve --help` and the docs.
pub const TOKEN_FILE_GRAMMAR: &str = "\
Token file (--token-file): one grant per line, fields separated by spaces or tabs.
  # comment                     lines starting with '#' and blank lines are ignored
  TOKEN PRINCIPAL               full access (admin on everything)
  TOKEN PRINCIPAL read          read every database and table
  TOKEN PRINCIPAL write db1     read and write database db1 and its tables
  TOKEN PRINCIPAL read db2.t1   read table db2.t1 only
  TOKEN PRINCIPAL admin db3     also create, alter and drop database db3
Levels: read < write < admin.
  read   get and list metadata, snapshots, tags, branches and partitions; data tokens
         without write access
  write  also commit, roll back, create and drop tags, branches and partitions; alter,
         rename and drop tables (creating a table needs write on its database)
  admin  also create, alter and drop databases
A table grant covers the table's branches and system tables (t$branch_b, t$snapshots); a
database grant covers all its tables, views and functions (reading them needs read on the
database, creating, altering, renaming or dropping them write on it; a table grant covers
none). Several lines may name the same principal: its grants
add up. A token belongs to one principal. Clients send 'Authorization: Bearer TOKEN' (Paimon
options token.provider=bear, token=TOKEN). Databases and tables a principal has no grant on
answer 404 as if they did not exist; changes beyond its level answer 403. Without
--token-file every caller has full access.";

/// A grant's level: `Read` < `Write` < `Admin`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Read metadata and data.
    Read,
    /// Change tables: commits, rollback, tags, branches, partitions, table DDL.
    Write,
    /// Create, alter and drop databases.
    Admin,
}

impl Level {
    /// The token file's keyword: `read`, `write`, `admin`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Read => "read",
            Level::Write => "write",
            Level::Admin => "admin",
        }
    }
}

/// What a grant covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every database and table.
    All,
    /// One database and all its tables.
    Database(String),
    /// One table (with its branches and system tables): database, base table name.
    Table(String, String),
}

/// One line of the token file: a level on a scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    /// The level granted.
    pub level: Level,
    /// Where it applies.
    pub scope: Scope,
}

/// An authenticated caller: its name (for the audit log) and its grants.
#[derive(Clone, Debug)]
pub struct Principal {
    /// The principal's name as the token file gives it (`anonymous` without a token file).
    pub name: String,
    grants: Arc<Vec<Grant>>,
}

/// The base table of a Paimon object name: `t$branch_b` and `t$snapshots` belong to `t`.
fn base_table(object: &str) -> &str {
    object.split_once('$').map_or(object, |(base, _)| base)
}

impl Principal {
    /// A principal with the given grants.
    pub fn new(name: impl Into<String>, grants: Vec<Grant>) -> Principal {
        let name = name.into();
        let grants = Arc::new(grants);
        Principal { name, grants }
    }

    /// The highest level held on database `db` as a whole (`table` `None`: only grants on
    /// everything or on the database count) or on table object `table` of it.
    pub fn level_on(&self, db: &str, table: Option<&str>) -> Option<Level> {
        let table = table.map(base_table);
        let covers = |scope: &Scope| match (scope, table) {
            (Scope::All, _) => true,
            (Scope::Database(d), _) => d == db,
            (Scope::Table(d, t), Some(name)) => d == db && t == name,
            (Scope::Table(..), None) => false,
        };
        let grants = self.grants.iter().filter(|g| covers(&g.scope));
        grants.map(|g| g.level).max()
    }

    /// Whether database `db` is visible: a grant on everything, on it, or on one of its tables.
    pub fn sees_database(&self, db: &str) -> bool {
        self.grants.iter().any(|g| match &g.scope {
            Scope::All => true,
            Scope::Database(d) | Scope::Table(d, _) => d == db,
        })
    }
}

/// What an operation needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    /// Any authenticated principal; the handler filters its results with [`visible`].
    Authenticated,
    /// The database must be visible (database metadata, a table list, views, functions).
    SeeDatabase,
    /// A level on the database as a whole (database DDL).
    OnDatabase(Level),
    /// A level on the table named.
    OnTable(Level),
}

/// The route → (scope, level) table, one place to review it.
fn need(op: Op) -> Need {
    use Level::{Admin, Read, Write};
    match op {
        Op::GetConfig
        | Op::ListDatabases
        | Op::ListTablesGlobally
        | Op::ListViewsGlobally
        | Op::ListFunctionsGlobally => Need::Authenticated,
        Op::GetDatabase
        | Op::ListTables
        | Op::ListTableDetails
        | Op::ListViews
        | Op::ListViewDetails
        | Op::ListFunctions
        | Op::ListFunctionDetails => Need::SeeDatabase,
        // Views and functions belong to the database: a grant on it (or on everything)
        // reads them, write on it changes them; a table grant covers neither.
        Op::GetView | Op::GetFunction => Need::OnDatabase(Read),
        Op::CreateView
        | Op::AlterView
        | Op::DropView
        | Op::RenameView
        | Op::CreateFunction
        | Op::AlterFunction
        | Op::DropFunction => Need::OnDatabase(Write),
        Op::CreateDatabase | Op::AlterDatabase | Op::DropDatabase => Need::OnDatabase(Admin),
        Op::GetTable
        | Op::GetTableById
        | Op::GetTableToken
        | Op::AuthTableQuery
        | Op::GetTableSnapshot
        | Op::GetVersionSnapshot
        | Op::ListSnapshots
        | Op::ListPartitions
        | Op::ListPartitionsByNames
        | Op::ListPartitionsByFilter
        | Op::ListBranches
        | Op::ListTags
        | Op::GetTag
        | Op::ListConsumers => Need::OnTable(Read),
        Op::CreateTable
        | Op::RegisterTable
        | Op::AlterTable
        | Op::DropTable
        | Op::RenameTable
        | Op::CommitTable
        | Op::RollbackTable
        | Op::RollbackSchema
        | Op::CreatePartitions
        | Op::DropPartitions
        | Op::MarkDonePartitions
        | Op::CreateBranch
        | Op::DropBranch
        | Op::RenameBranch
        | Op::ForwardBranch
        | Op::CreateTag
        | Op::DeleteTag
        | Op::ResetConsumer => Need::OnTable(Write),
    }
}

/// Operations naming an object that need not exist yet: a denial there is 403, never 404.
fn creates(op: Op) -> bool {
    matches!(
        op,
        Op::CreateDatabase
            | Op::CreateTable
            | Op::RegisterTable
            | Op::CreateView
            | Op::CreateFunction
    )
}

fn not_found(db: &str, table: Option<&str>) -> ApiError {
    match table {
        Some(t) => ApiError::not_found(ResourceType::Table, format!("{db}.{t}")),
        None => ApiError::not_found(ResourceType::Database, db),
    }
}

/// May `principal` run `op` on database `db` / table object `table` (as sent: a `$branch_…`
/// or system suffix is fine)? Every route calls it after validating the names and before any
/// I/O. For `renameTable` call it on the source with `RenameTable` and on the destination with
/// `CreateTable`; list operations pass and filter their results with [`visible`].
pub fn check(
    principal: &Principal,
    op: Op,
    db: Option<&str>,
    table: Option<&str>,
) -> ApiResult<()> {
    let (required, table) = match (need(op), db) {
        (Need::Authenticated, _) => return Ok(()),
        // The name comes in the body (createDatabase, renameTable) or behind an id
        // (getTableById): a first, coarse check here — the principal must hold the level
        // somewhere — and the handler checks again with the name.
        (Need::OnDatabase(level) | Need::OnTable(level), None) => {
            if principal.grants.iter().any(|g| g.level >= level) {
                return Ok(());
            }
            return Err(forbidden(principal, op, level, None));
        }
        (Need::SeeDatabase, None) => return Ok(()),
        (Need::SeeDatabase, Some(d)) if principal.sees_database(d) => return Ok(()),
        (Need::SeeDatabase, Some(d)) => return Err(not_found(d, None)),
        (Need::OnDatabase(level), _) => (level, None),
        (Need::OnTable(level), _) => (level, table),
    };
    let db = db.unwrap_or_default();
    let held = principal.level_on(db, table);
    if held.is_some_and(|h| h >= required) {
        return Ok(());
    }
    let visible = match table {
        Some(_) => held.is_some(),
        None => principal.sees_database(db),
    };
    if !visible && !creates(op) {
        return Err(not_found(db, table));
    }
    Err(forbidden(principal, op, required, Some((db, table))))
}

fn forbidden(p: &Principal, op: Op, level: Level, on: Option<(&str, Option<&str>)>) -> ApiError {
    let what = |object: &str| {
        format!(
            "principal {} may not {} {object}: that needs a grant of level {}",
            p.name,
            op.operation_id(),
            level.as_str()
        )
    };
    match on {
        Some((db, Some(t))) => {
            let name = format!("{db}.{t}");
            ApiError::forbidden(what(&format!("table {name}"))).about(ResourceType::Table, name)
        }
        Some((db, None)) => {
            ApiError::forbidden(what(&format!("database {db}"))).about(ResourceType::Database, db)
        }
        None => ApiError::forbidden(what("anything")),
    }
}

/// Whether `principal` may see database `db` (`table` `None`) or table object `db.table` in a
/// list. Filter before paging, so pages stay full and page tokens never name hidden objects.
pub fn visible(principal: &Principal, db: &str, table: Option<&str>) -> bool {
    match table {
        Some(t) => principal.level_on(db, Some(t)).is_some(),
        None => principal.sees_database(db),
    }
}

/// Whether `principal` sees the views and functions of database `db` (in lists): a grant on
/// the database or on everything (a table grant does not cover them).
pub fn sees_database_objects(principal: &Principal, db: &str) -> bool {
    principal.level_on(db, None).is_some()
}

/// Whether `principal` may be given write credentials for `db.table` (`getTableToken`): only
/// with a write (or admin) grant covering the table. A read grant never yields write access.
pub fn may_write(principal: &Principal, db: &str, table: &str) -> bool {
    principal
        .level_on(db, Some(table))
        .is_some_and(|l| l >= Level::Write)
}

/// A malformed token file: names the line (1-based) and what is wrong, never the token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenFileError {
    /// 1-based line number; 0 when the file as a whole is at fault.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TokenFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "token file: {}", self.message),
            n => write!(f, "token file line {n}: {}", self.message),
        }
    }
}

impl std::error::Error for TokenFileError {}

/// The parsed token file: tokens → principals.
#[derive(Clone)]
pub struct TokenFile {
    /// (token bytes, index into `principals`).
    tokens: Vec<(Vec<u8>, usize)>,
    principals: Vec<Principal>,
}

impl fmt::Debug for TokenFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the tokens themselves.
        f.debug_struct("TokenFile")
            .field("tokens", &self.tokens.len())
            .field("principals", &self.principals)
            .finish()
    }
}

fn parse_level(word: &str, line: usize) -> Result<Level, TokenFileError> {
    match word {
        "read" => Ok(Level::Read),
        "write" => Ok(Level::Write),
        "admin" => Ok(Level::Admin),
        _ => Err(TokenFileError {
            line,
            message: format!("unknown level '{word}' (expected read, write or admin)"),
        }),
    }
}

fn parse_scope(word: &str, line: usize) -> Result<Scope, TokenFileError> {
    let bad = |part: &str| {
        part.is_empty()
            || part.starts_with('.')
            || part
                .chars()
                .any(|c| matches!(c, '/' | '\\') || c.is_control())
    };
    let err = |message: String| Err(TokenFileError { line, message });
    match word.split_once('.') {
        None if bad(word) => err(format!("invalid database name '{word}'")),
        None => Ok(Scope::Database(word.to_string())),
        Some((db, table)) if bad(db) || bad(table) || table.contains('.') => err(format!(
            "invalid scope '{word}' (expected DATABASE or DATABASE.TABLE)"
        )),
        Some((db, table)) if table.contains('$') => err(format!(
            "scope '{word}' names a branch or system table; grant the table {db}.{}",
            base_table(table)
        )),
        Some((db, table)) => Ok(Scope::Table(db.to_string(), table.to_string())),
    }
}

impl TokenFile {
    /// Parses token file text ([`TOKEN_FILE_GRAMMAR`]).
    pub fn parse(text: &str) -> Result<TokenFile, TokenFileError> {
        // principal name → (first appearance, grants); token → (principal name, line).
        let mut grants: BTreeMap<&str, (usize, Vec<Grant>)> = BTreeMap::new();
        let mut tokens: Vec<(&str, &str, usize)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let trimmed = raw.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let err = |message: String| TokenFileError { line, message };
            let fields: Vec<&str> = trimmed.split_whitespace().collect();
            if !(2..=4).contains(&fields.len()) {
                return Err(err(format!(
                    "expected TOKEN PRINCIPAL [LEVEL [SCOPE]], found {} field(s)",
                    fields.len()
                )));
            }
            let (token, name) = (fields[0], fields[1]);
            if !token.chars().all(|c| c.is_ascii_graphic()) {
                return Err(err("the token must be printable ASCII".into()));
            }
            let name_ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '@');
            if !name.chars().all(name_ok) {
                return Err(err(format!(
                    "invalid principal name '{name}' (letters, digits, '_', '-', '.', '@')"
                )));
            }
            let level = match fields.get(2) {
                Some(w) => parse_level(w, line)?,
                None => Level::Admin,
            };
            let scope = match fields.get(3) {
                Some(w) => parse_scope(w, line)?,
                None => Scope::All,
            };
            match tokens.iter().find(|(t, _, _)| *t == token) {
                Some((_, owner, first)) if *owner != name => {
                    return Err(err(format!(
                        "the token of line {first} (principal {owner}) is given again to \
                         principal {name}; a token belongs to one principal"
                    )));
                }
                Some(_) => {}
                None => tokens.push((token, name, line)),
            }
            let first = grants.len();
            let entry = grants.entry(name).or_insert_with(|| (first, Vec::new()));
            entry.1.push(Grant { level, scope });
        }
        if tokens.is_empty() {
            let message = "no token in the file (every request would be refused)".to_string();
            return Err(TokenFileError { line: 0, message });
        }
        let mut ordered: Vec<(usize, &str, Vec<Grant>)> =
            grants.into_iter().map(|(n, (i, g))| (i, n, g)).collect();
        ordered.sort_by_key(|(i, _, _)| *i);
        let position = |name: &str| ordered.iter().position(|(_, n, _)| *n == name);
        let tokens = tokens
            .iter()
            .filter_map(|(t, n, _)| position(n).map(|i| (t.as_bytes().to_vec(), i)))
            .collect();
        let principals = ordered
            .into_iter()
            .map(|(_, n, g)| Principal::new(n, g))
            .collect();
        Ok(TokenFile { tokens, principals })
    }

    /// Reads and parses a token file.
    pub fn load(path: &Path) -> Result<TokenFile, TokenFileError> {
        let text = std::fs::read_to_string(path).map_err(|e| TokenFileError {
            line: 0,
            message: format!("cannot read {}: {e}", path.display()),
        })?;
        TokenFile::parse(&text)
    }

    /// The principal of `token`, compared in constant time with every configured token.
    pub fn principal_of(&self, token: &str) -> Option<&Principal> {
        let mut found = usize::MAX;
        for (candidate, index) in &self.tokens {
            // No early exit: every token is compared, whether one matched already or not.
            let hit = constant_time_eq(candidate, token.as_bytes());
            found = if hit { *index } else { found };
        }
        self.principals.get(found)
    }
}

/// Byte equality whose time depends on the lengths only, not on where the bytes differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = (a.len() ^ b.len()) as u64;
    for i in 0..a.len().max(b.len()) {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        diff |= u64::from(x ^ y);
    }
    std::hint::black_box(diff) == 0
}

/// The token of an `Authorization` header value `Bearer TOKEN` (scheme case-insensitive).
pub fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The server's authenticator: the token file's principals, or full access without one.
#[derive(Debug)]
pub struct Authz {
    tokens: Option<TokenFile>,
}

impl Authz {
    /// Loads the token file named in `config`, if any (its errors name the line).
    /// A token file other users can read is served, with a warning in the log.
    pub fn from_config(config: &ServerConfig) -> Result<Self, String> {
        let Some(path) = &config.token_file else {
            return Ok(Authz::new(None));
        };
        let tokens = TokenFile::load(path).map_err(|e| e.to_string())?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path).map_or(0, |m| m.permissions().mode());
            if mode & 0o077 != 0 {
                tracing::warn!(
                    file = %path.display(),
                    mode = format!("{:o}", mode & 0o777),
                    "the token file is readable by other users (chmod 600 it)"
                );
            }
        }
        Ok(Authz::new(Some(tokens)))
    }

    /// An authenticator over `tokens` (`None`: every caller is the anonymous admin).
    pub fn new(tokens: Option<TokenFile>) -> Self {
        Authz { tokens }
    }

    /// The principal the request's `Authorization: Bearer` header names; 401 when the header
    /// is missing, malformed or names no token of the file.
    pub fn authenticate(&self, headers: &HeaderMap) -> ApiResult<Principal> {
        let Some(tokens) = &self.tokens else {
            let all = Grant {
                level: Level::Admin,
                scope: Scope::All,
            };
            return Ok(Principal::new("anonymous", vec![all]));
        };
        let token = headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(bearer_token);
        match token.and_then(|t| tokens.principal_of(t)) {
            Some(principal) => Ok(principal.clone()),
            None => Err(ApiError::unauthorized(
                "Not authorized: missing or unknown bearer token",
            )),
        }
    }
}

#[cfg(test)]
#[path = "authz_tests.rs"]
mod tests;
