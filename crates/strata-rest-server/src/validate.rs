//! Names from the URL and the body, checked before any I/O: a database, table, branch, tag or
//! partition value never reaches the filesystem unless it is a plain name. Java's mock server
//! (`RESTCatalogServer`) passes them to its filesystem catalog unchecked; strata's refuses.

use crate::error::{ApiError, ApiResult, ResourceType};

/// The longest name accepted, in UTF-8 bytes (a file name on most filesystems).
pub const MAX_NAME_BYTES: usize = 255;

/// Checks one name segment: non-empty, at most [`MAX_NAME_BYTES`] bytes, no `/`, `\`, NUL or
/// other control character, not `.`/`..`, no leading `.` (hidden files, `..x` tricks).
pub fn name(what: &str, value: &str) -> ApiResult<()> {
    let bad = |why: &str| Err(ApiError::bad_request(format!("invalid {what} name: {why}")));
    if value.is_empty() {
        return bad("empty");
    }
    if value.len() > MAX_NAME_BYTES {
        return bad(&format!("longer than {MAX_NAME_BYTES} bytes"));
    }
    if value.starts_with('.') {
        return bad("starts with '.'");
    }
    if value
        .chars()
        .any(|c| c == '/' || c == '\\' || c.is_control())
    {
        return bad("contains a path separator or a control character");
    }
    Ok(())
}

/// A database name.
pub fn database(db: &str) -> ApiResult<()> {
    name("database", db)
}

/// A table object name: `t`, or `t$branch_b` (a branch of `t`). Other `$` suffixes (system
/// tables) are answered by the client from the base table, so they are refused here.
pub fn table_object(object: &str) -> ApiResult<()> {
    name("table", object)?;
    if let Some((base, rest)) = object.split_once('$') {
        name("table", base)?;
        match rest.strip_prefix("branch_") {
            Some(branch) if !branch.contains('$') => name("branch", branch)?,
            // A system table (`t$snapshots`): not a table of the catalog (clients read
            // system tables from the base table); a well-formed name, so "does not exist".
            Some(_) | None if !rest.is_empty() && !rest.contains(['$', '/', '\\']) => {
                return Err(ApiError::not_found(ResourceType::Table, object))
            }
            _ => {
                return Err(ApiError::bad_request(format!(
                    "invalid table name {object:?}: only a branch suffix `$branch_NAME` is \
                     served (system tables are read by the client from the base table)"
                )))
            }
        }
    }
    Ok(())
}

/// A view name: a plain name as a table's, without `$` (views have no branches or system
/// tables; a `$` would read as one to the clients).
pub fn view(v: &str) -> ApiResult<()> {
    name("view", v)?;
    if v.contains('$') {
        return Err(ApiError::bad_request("invalid view name: contains '$'"));
    }
    Ok(())
}

/// A function name: Java's `RESTFunctionValidator` rule (letters, digits, `.`, `_`, `-`, at
/// least one letter), which also makes it a plain file name.
pub fn function(f: &str) -> ApiResult<()> {
    name("function", f)?;
    if !strata_spec::rest::is_valid_function_name(f) {
        return Err(ApiError::bad_request(format!("Invalid function name: {f}")));
    }
    Ok(())
}

/// A branch or tag name.
pub fn branch(b: &str) -> ApiResult<()> {
    name("branch", b)?;
    if b.contains('$') {
        return Err(ApiError::bad_request("invalid branch name: contains '$'"));
    }
    Ok(())
}

/// A tag name.
pub fn tag(t: &str) -> ApiResult<()> {
    name("tag", t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_paths_and_controls() {
        for bad in [
            "", ".", "..", "../x", "a/b", "a\\b", "a\0b", "a\nb", ".hidden", "%2e%2e/x",
        ] {
            assert!(name("database", bad).is_err(), "{bad:?}");
        }
        assert!(name("database", &"x".repeat(256)).is_err());
        assert!(name("database", &"x".repeat(255)).is_ok());
        assert!(name("database", "db_1-ü").is_ok());
    }

    #[test]
    fn table_objects() {
        assert!(table_object("t").is_ok());
        assert!(table_object("t$branch_b1").is_ok());
        assert_eq!(
            table_object("t$snapshots").unwrap_err().status.as_u16(),
            404
        );
        assert!(table_object("t$branch_b$files").is_err());
        assert!(table_object("t$branch_..").is_err());
        assert!(table_object("$branch_b").is_err());
    }
}
