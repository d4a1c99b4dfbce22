//! `database.table` identifiers, with an optional branch: `database.table$branch_NAME` (Java's
//! `Identifier` with `SYSTEM_TABLE_SPLITTER` `$` and `SYSTEM_BRANCH_PREFIX` `branch_`).

use crate::error::ErrorDetail;
use std::fmt;
use std::str::FromStr;

use crate::{Error, Result};

/// Separator of a table name and its branch or system table (Java's `SYSTEM_TABLE_SPLITTER`).
const SPLITTER: char = '$';
/// Prefix of a branch after the separator (Java's `SYSTEM_BRANCH_PREFIX`).
const BRANCH_PREFIX: &str = "branch_";

/// A table's full name: database and table, and the branch (`None`: `main`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Identifier {
    /// The database name (the warehouse directory `<database>.db`).
    pub database: String,
    /// The table name (its directory inside the database's).
    pub table: String,
    /// The branch (`t$branch_NAME`); `None` is the main branch. Never `Some("main")`.
    pub branch: Option<String>,
}

impl Identifier {
    /// The identifier `database.table`; names that cannot be directory names (see
    /// [`Self::validate_name`]) or the reserved database `sys` are `ErrorDetail::InvalidArgument`.
    /// A table name `t$branch_NAME` is table `t` on branch `NAME` (`main` in any case is the
    /// main branch, as Java's `Identifier`); other `$` suffixes (system tables) stay in the name.
    pub fn new(database: impl Into<String>, table: impl Into<String>) -> Result<Self> {
        let table: String = table.into();
        let (table, branch) = split_branch(&table)?;
        let id = Identifier {
            database: database.into(),
            table,
            branch: None,
        };
        Self::validate_name("database", &id.database)?;
        Self::validate_name("table", &id.table)?;
        id.with_branch(branch.as_deref())
    }

    /// This identifier on `branch` (`None`, blank or `main` in any case: the main branch).
    /// Branch names are checked as directory names.
    pub fn with_branch(mut self, branch: Option<&str>) -> Result<Self> {
        self.branch = match branch {
            Some(b) if !b.trim().is_empty() && !b.eq_ignore_ascii_case("main") => {
                Self::validate_name("branch", b)?;
                Some(b.to_string())
            }
            _ => None,
        };
        Ok(self)
    }

    /// The branch name, `main` for the main branch (Java's `getBranchNameOrDefault`).
    pub fn branch_or_main(&self) -> &str {
        self.branch.as_deref().unwrap_or("main")
    }

    /// This identifier on the main branch (the table itself).
    pub fn main(&self) -> Identifier {
        Identifier {
            database: self.database.clone(),
            table: self.table.clone(),
            branch: None,
        }
    }

    /// Rejects names that cannot be a directory name: empty, `/`, `\`, leading `.`,
    /// control characters. `sys` is reserved for system tables.
    pub fn validate_name(what: &str, name: &str) -> Result<()> {
        let bad = name.is_empty()
            || name.starts_with('.')
            || name
                .chars()
                .any(|c| c == '/' || c == '\\' || c.is_control());
        if bad {
            return Err(
                ErrorDetail::InvalidArgument(format!("invalid {what} name {name:?}")).into(),
            );
        }
        if what == "database" && name == "sys" {
            return Err(ErrorDetail::InvalidArgument(
                "database name \"sys\" is reserved for system tables".into(),
            )
            .into());
        }
        Ok(())
    }
}

impl FromStr for Identifier {
    type Err = Error;

    /// Parses `db.table`; a name without a dot is in database `default`. More than one dot is
    /// refused, as Java's `Identifier.fromString` does (`a.b.c` is not database `a`, table `b.c`).
    fn from_str(s: &str) -> Result<Self> {
        match s.split_once('.') {
            Some((_, t)) if t.contains('.') => Err(ErrorDetail::InvalidArgument(format!(
                "table identifier {s:?}: expected DATABASE.TABLE (one dot)"
            ))
            .into()),
            Some((db, t)) => Identifier::new(db, t),
            None => Identifier::new("default", s),
        }
    }
}

/// `t$branch_b` → (`t`, `Some(b)`); `t$branch_b$snapshots` → (`t$snapshots`, `Some(b)`) (the
/// system table kept in the name for the front ends that split it); anything else unchanged.
fn split_branch(table: &str) -> Result<(String, Option<String>)> {
    let parts: Vec<&str> = table.split(SPLITTER).collect();
    match parts.as_slice() {
        [t, b, rest @ ..] if b.starts_with(BRANCH_PREFIX) => {
            if rest.len() > 1 {
                return Err(ErrorDetail::InvalidArgument(format!(
                    "table name {table:?}: a system table can only contain one '$' \
                     separator after its branch"
                ))
                .into());
            }
            let name = match rest {
                [system] => format!("{t}{SPLITTER}{system}"),
                _ => t.to_string(),
            };
            Ok((name, Some(b[BRANCH_PREFIX.len()..].to_string())))
        }
        _ => Ok((table.to_string(), None)),
    }
}

impl fmt::Display for Identifier {
    /// `database.table`, or `database.table$branch_NAME` on a branch.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.branch {
            None => write!(f, "{}.{}", self.database, self.table),
            Some(b) => write!(
                f,
                "{}.{}{SPLITTER}{BRANCH_PREFIX}{b}",
                self.database, self.table
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse() {
        let id: Identifier = "db.t".parse().unwrap();
        assert_eq!((id.database.as_str(), id.table.as_str()), ("db", "t"));
        let id: Identifier = "t".parse().unwrap();
        assert_eq!(id.to_string(), "default.t");
        assert!("db./x".parse::<Identifier>().is_err());
        assert!(".db.t".parse::<Identifier>().is_err());
        assert!("sys.t".parse::<Identifier>().is_err());
    }

    #[test]
    fn branches() {
        let id: Identifier = "db.t$branch_b1".parse().unwrap();
        assert_eq!(id.table, "t");
        assert_eq!(id.branch.as_deref(), Some("b1"));
        assert_eq!(id.to_string(), "db.t$branch_b1");
        assert_eq!(id.main().to_string(), "db.t");
        let main: Identifier = "db.t$branch_MAIN".parse().unwrap();
        assert_eq!(main.branch, None);
        let sys: Identifier = "db.t$branch_b$snapshots".parse().unwrap();
        assert_eq!(
            (sys.table.as_str(), sys.branch_or_main()),
            ("t$snapshots", "b")
        );
        let plain: Identifier = "db.t$snapshots".parse().unwrap();
        assert_eq!((plain.table.as_str(), plain.branch), ("t$snapshots", None));
        assert!("db.t$branch_b/x".parse::<Identifier>().is_err());
    }
}
