//! Column names written back as SQL identifiers (double-quoted unless a plain, unreserved word),
//! so a predicate's text parses back to the same column. A leaf under `predicate` and `map_key`.

use std::fmt;

/// Writes a column name as a SQL identifier, double-quoting it unless it is a plain word.
pub(crate) fn write_ident(f: &mut impl fmt::Write, name: &str) -> fmt::Result {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !is_reserved(name);
    if plain {
        f.write_str(name)
    } else {
        write!(f, "\"{}\"", name.replace('"', "\"\""))
    }
}

/// Words that cannot be used as bare column names in the predicate grammar.
fn is_reserved(name: &str) -> bool {
    const WORDS: &[&str] = &[
        "and",
        "or",
        "not",
        "in",
        "is",
        "null",
        "true",
        "false",
        "like",
        "between",
        "date",
        "time",
        "timestamp",
        "interval",
        "case",
        "cast",
        "select",
        "exists",
        "ilike",
    ];
    WORDS.iter().any(|w| w.eq_ignore_ascii_case(name))
}
