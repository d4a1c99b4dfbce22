//! `database.table` identifiers.

use crate::error::ErrorDetail;
use std::fmt;
use std::str::FromStr;

use crate::{Error, Result};

/// A table's full name: database and table.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Identifier {
    /// The database name (the warehouse directory `<database>.db`).
    pub database: String,
    /// The table name (its directory inside the database's).
    pub table: String,
}

impl Identifier {
    /// The identifier `database.table`; names that cannot be directory names (see
    /// [`Self::validate_name`]) or the reserved database `sys` are `ErrorDetail::InvalidArgument`.
    pub fn new(database: impl Into<String>, table: impl Into<String>) -> Result<Self> {
        let id = Identifier {
            database: database.into(),
            table: table.into(),
        };
        Self::validate_name("database", &id.database)?;
        Self::validate_name("table", &id.table)?;
        Ok(id)
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

impl fmt::Display for Identifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.database, self.table)
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
}
