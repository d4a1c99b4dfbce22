//! MAP key access `m['k']`: the reference syntax, its canonical name, and resolving it to a
//! virtual field.
//!
//! A key access names the value of key `k` in the `MAP<STRING, T>` column `m`. It is a
//! *derived* column: its type is `T` made nullable, and it is NULL when the map is NULL, the key
//! is absent, or its value is NULL. Wherever a column name is accepted by [`super::Predicate`]
//! builders or by a read projection, the text `m['k']` (or `"m"['k']`) may be used; SQL
//! predicates ([`super::parse_sql_predicate`]) turn the subscript `m['k']` into that text.
//!
//! Name resolution: a real column whose name is exactly (or case-insensitively, when unique) the
//! text wins; otherwise text of the form `col['key']` is a key access on `col`. Binding
//! ([`super::Predicate::bind_with_map_keys`]) gives every distinct key access a virtual field
//! placed after the row type's fields, so evaluation stays positional.

use crate::error::ErrorDetail;
use strata_spec::{DataField, DataType, RowType, TypeKind};

use super::ident::write_ident;
use crate::error::Result;

/// Field id given to the virtual fields of key accesses (they are not table columns).
pub(crate) const MAP_KEY_FIELD_ID: i32 = -1;

/// The syntax of a key access: column `column`, key `key` (both unescaped).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MapKeyRef {
    /// The MAP column's name.
    pub column: String,
    /// The key whose value is accessed.
    pub key: String,
}

impl MapKeyRef {
    /// The access `column['key']` (both unescaped; nothing is checked until it is resolved).
    pub fn new(column: impl Into<String>, key: impl Into<String>) -> Self {
        MapKeyRef {
            column: column.into(),
            key: key.into(),
        }
    }

    /// The canonical text `col['key']`: the column bare when it is a plain identifier (else
    /// double-quoted), `'` in the key doubled. This is the name of the output column.
    pub fn name(&self) -> String {
        let mut s = String::with_capacity(self.column.len() + self.key.len() + 4);
        // Writing to a String cannot fail.
        let _ = write_ident(&mut s, &self.column);
        s.push_str("['");
        s.push_str(&self.key.replace('\'', "''"));
        s.push_str("']");
        s
    }

    /// Recognizes `col['key']`, `"col"['key']` or `` `col`['key'] `` (spaces allowed around the
    /// brackets). `None` when `text` is not of that form.
    pub fn parse(text: &str) -> Option<MapKeyRef> {
        let text = text.trim();
        let (column, rest) = match text.chars().next()? {
            q @ ('"' | '`') => quoted(&text[1..], q)?,
            _ => {
                let end = text.find('[')?;
                let column = text[..end].trim_end();
                let plain =
                    !column.is_empty() && column.chars().all(|c| c.is_alphanumeric() || c == '_');
                if !plain {
                    return None;
                }
                (column.to_string(), &text[end..])
            }
        };
        let rest = rest.trim_start().strip_prefix('[')?.trim_start();
        let (key, rest) = quoted(rest.strip_prefix('\'')?, '\'')?;
        let rest = rest.trim_start().strip_prefix(']')?;
        rest.trim().is_empty().then_some(MapKeyRef { column, key })
    }
}

/// Text after an opening quote `q` up to the closing one (a doubled `q` is one `q`): the
/// unescaped content and what follows the closing quote.
fn quoted(s: &str, q: char) -> Option<(String, &str)> {
    let mut out = String::new();
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == q {
            if matches!(chars.peek(), Some((_, n)) if *n == q) {
                chars.next();
                out.push(q);
                continue;
            }
            return Some((out, &s[i + c.len_utf8()..]));
        }
        out.push(c);
    }
    None
}

/// A key access resolved against a row type.
#[derive(Clone, Debug, PartialEq)]
pub struct MapKeyColumn {
    /// The MAP column.
    pub map_field: DataField,
    /// The key whose value the derived column holds.
    pub key: String,
    /// The derived column: canonical name, the value type made nullable, id
    /// [`MAP_KEY_FIELD_ID`].
    pub field: DataField,
}

impl MapKeyColumn {
    /// The key access on `map_field` (which must be a `MAP<STRING-like, T>`).
    pub fn new(map_field: &DataField, key: impl Into<String>) -> Result<MapKeyColumn> {
        let key = key.into();
        let name = MapKeyRef::new(&map_field.name, &key).name();
        let TypeKind::Map { key: kt, value } = &map_field.data_type.kind else {
            return Err(ErrorDetail::InvalidArgument(format!(
                "{name}: column {} has type {}, not MAP; key access needs a MAP<STRING, T> column",
                map_field.name, map_field.data_type
            ))
            .into());
        };
        if !kt.is_string() {
            return Err(ErrorDetail::InvalidArgument(format!(
                "{name}: column {} has type {}; key access needs STRING map keys",
                map_field.name, map_field.data_type
            ))
            .into());
        }
        let ty: DataType = value.with_nullable(true);
        Ok(MapKeyColumn {
            map_field: map_field.clone(),
            field: DataField::new(MAP_KEY_FIELD_ID, name, ty),
            key,
        })
    }

    /// Whether this is the access of `key` on the map with field id `map_id`.
    pub fn is(&self, map_id: i32, key: &str) -> bool {
        self.map_field.id == map_id && self.key == key
    }
}

/// Finds a field by exact name, else by a case-insensitive name when exactly one matches.
pub(crate) fn resolve_column(row_type: &RowType, name: &str) -> Option<usize> {
    if let Some(i) = row_type.index_of(name) {
        return Some(i);
    }
    let mut found = row_type
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| f.name.eq_ignore_ascii_case(name));
    match (found.next(), found.next()) {
        (Some((i, _)), None) => Some(i),
        _ => None,
    }
}

/// `text` as a key access against `row_type`: `Ok(None)` when it names a column of
/// `row_type` or is not of the form `col['key']`; an error naming the column when `col` does
/// not exist or is not a `MAP<STRING, T>`.
pub(crate) fn resolve_map_key(
    row_type: &RowType,
    text: &str,
    table: &str,
) -> Result<Option<MapKeyColumn>> {
    if resolve_column(row_type, text).is_some() {
        return Ok(None);
    }
    let Some(r) = MapKeyRef::parse(text) else {
        return Ok(None);
    };
    let index = resolve_column(row_type, &r.column).ok_or_else(|| ErrorDetail::ColumnNotFound {
        table: table.to_string(),
        column: r.column.clone(),
        available: row_type
            .fields
            .iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    })?;
    MapKeyColumn::new(&row_type.fields[index], r.key).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map_type(key: TypeKind) -> DataType {
        DataType::nullable(TypeKind::Map {
            key: Box::new(DataType::not_null(key)),
            value: Box::new(DataType::not_null(TypeKind::Double)),
        })
    }

    fn row() -> RowType {
        RowType::new(vec![
            DataField::new(0, "id", DataType::not_null(TypeKind::Int)),
            DataField::new(
                1,
                "m",
                map_type(TypeKind::VarChar(strata_spec::types::MAX_LENGTH)),
            ),
            DataField::new(2, "im", map_type(TypeKind::Int)),
            DataField::new(3, "My Map", map_type(TypeKind::VarChar(10))),
            DataField::new(4, "x['y']", DataType::nullable(TypeKind::Int)),
        ])
    }

    #[test]
    fn parses_key_access_syntax() {
        let r = |c: &str, k: &str| Some(MapKeyRef::new(c, k));
        assert_eq!(MapKeyRef::parse("m['usage']"), r("m", "usage"));
        assert_eq!(MapKeyRef::parse(" m [ 'a,b' ] "), r("m", "a,b"));
        assert_eq!(MapKeyRef::parse("\"My Map\"['it''s']"), r("My Map", "it's"));
        assert_eq!(MapKeyRef::parse("`m`['']"), r("m", ""));
        assert_eq!(MapKeyRef::parse("\"a\"\"b\"['k']"), r("a\"b", "k"));
        for bad in [
            "m",
            "m[k]",
            "m['k'",
            "m['k']x",
            "['k']",
            "m['a']['b']",
            "a b['k']",
            "m[\"k\"]",
            "\"m['k']",
        ] {
            assert_eq!(MapKeyRef::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn canonical_names_round_trip() {
        for (c, k, name) in [
            ("m", "usage", "m['usage']"),
            ("m", "it's", "m['it''s']"),
            ("My Map", "k", "\"My Map\"['k']"),
            ("m", "a']b", "m['a'']b']"),
        ] {
            let r = MapKeyRef::new(c, k);
            assert_eq!(r.name(), name);
            assert_eq!(MapKeyRef::parse(name), Some(r));
        }
    }

    #[test]
    fn resolves_against_a_row_type() {
        let row = row();
        let k = resolve_map_key(&row, "m['usage']", "db.t")
            .unwrap()
            .unwrap();
        assert_eq!((k.map_field.id, k.key.as_str()), (1, "usage"));
        assert_eq!(k.field.name, "m['usage']");
        assert_eq!(k.field.data_type, DataType::nullable(TypeKind::Double));
        assert_eq!(k.field.id, MAP_KEY_FIELD_ID);
        // Case-insensitive column part; canonical name from the schema.
        let k = resolve_map_key(&row, "M['K']", "db.t").unwrap().unwrap();
        assert_eq!(k.field.name, "m['K']");
        assert!(resolve_map_key(&row, "\"My Map\"['a']", "db.t")
            .unwrap()
            .is_some());
        // Real columns win, plain names are not key accesses.
        assert_eq!(resolve_map_key(&row, "x['y']", "db.t").unwrap(), None);
        assert_eq!(resolve_map_key(&row, "id", "db.t").unwrap(), None);
        assert_eq!(resolve_map_key(&row, "nope", "db.t").unwrap(), None);

        let err = |t: &str| resolve_map_key(&row, t, "db.t").unwrap_err().to_string();
        assert!(
            err("id['k']").contains("column id has type INT"),
            "{}",
            err("id['k']")
        );
        assert!(
            err("im['k']").contains("STRING map keys"),
            "{}",
            err("im['k']")
        );
        let e = resolve_map_key(&row, "zz['k']", "db.t").unwrap_err();
        assert!(
            matches!(e.detail(), ErrorDetail::ColumnNotFound { column, .. } if column == "zz"),
            "{e}"
        );
    }
}
