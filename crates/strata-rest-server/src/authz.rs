//! Authentication and authorization (owned by helper D — this first version is the hook only).
//!
//! The router's guard calls [`Authz::authenticate`] on every request, then
//! [`check`]`(&principal, op, db, table)` with the database / table named in the URL (handlers
//! call it again for names that come in the body), and list handlers keep only what
//! [`visible`] allows. Without a token file every caller is the anonymous admin; a token file
//! is refused until the grants are implemented (never accepted and ignored).

use axum::http::HeaderMap;

use crate::config::ServerConfig;
use crate::error::{ApiError, ApiResult};
use crate::ops::Op;

/// Who is calling.
#[derive(Clone, Debug)]
pub struct Principal {
    /// The principal's name (for the audit log).
    pub name: String,
}

/// The server's authenticator: the token file's principals and grants.
#[derive(Debug)]
pub struct Authz {}

impl Authz {
    /// Loads the token file named in `config`, if any.
    pub fn from_config(config: &ServerConfig) -> Result<Self, String> {
        if config.token_file.is_some() {
            return Err("--token-file is not implemented yet".to_string());
        }
        Ok(Authz {})
    }

    /// The principal the request's `Authorization: Bearer` header names (401 otherwise).
    pub fn authenticate(&self, _headers: &HeaderMap) -> ApiResult<Principal> {
        Ok(Principal {
            name: "anonymous".to_string(),
        })
    }
}

/// Whether `principal` may do `op` on database `db` / table `table` (`None`: not named).
pub fn check(
    _principal: &Principal,
    _op: Op,
    _db: Option<&str>,
    _table: Option<&str>,
) -> ApiResult<()> {
    Ok(())
}

/// Whether `principal` may see database `db` (`table` `None`) or table `db.table` in lists.
pub fn visible(_principal: &Principal, _db: &str, _table: Option<&str>) -> bool {
    true
}

/// Whether `principal` may be given write credentials for `db.table` (`getTableToken`).
pub fn may_write(principal: &Principal, db: &str, table: &str) -> bool {
    check(principal, Op::CommitTable, Some(db), Some(table)).is_ok()
}

#[allow(dead_code)]
fn _unused(_: ApiError) {}
