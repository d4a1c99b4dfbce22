//! Small readers of sqlparser's AST that the statements strata handles itself share: a name's
//! parts, an option value's text, a column type in Paimon's spelling. A leaf of the SQL layer:
//! [`super::ddl`], [`super::alter`] and [`super::procedures`] use it, it uses nothing of theirs.

use datafusion::common::Result;
use datafusion::sql::sqlparser::ast::{Expr, ObjectName, ObjectNamePart, Value, ValueWithSpan};
use strata::spec::types::json::sql::parse_type_text;

use crate::error::plan_error;

/// The identifiers of a (1- to 3-part) object name, as written.
pub(crate) fn name_parts(name: &ObjectName) -> Vec<String> {
    name.0
        .iter()
        .filter_map(|p| match p {
            ObjectNamePart::Identifier(i) => Some(i.value.clone()),
            _ => None,
        })
        .collect()
}

/// An option value as text: `'x'`, `4`, `true`.
pub(crate) fn option_text(e: &Expr) -> Result<String> {
    match e {
        Expr::Value(ValueWithSpan { value, .. }) => match value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Ok(s.clone()),
            Value::Number(n, _) => Ok(n.clone()),
            Value::Boolean(b) => Ok(b.to_string()),
            other => Err(plan_error(format!(
                "option value {other}: expected a literal"
            ))),
        },
        Expr::Identifier(i) => Ok(i.value.clone()),
        other => Err(plan_error(format!(
            "option value {other}: expected a literal"
        ))),
    }
}

/// The Paimon type text of a parsed SQL type: sqlparser prints `MAP<K, V>` as ClickHouse's
/// `Map(K, V)`, which Paimon's type grammar does not take, so maps (also inside arrays and
/// maps) are printed back in Paimon's spelling.
pub(crate) fn type_text(t: &datafusion::sql::sqlparser::ast::DataType) -> String {
    use datafusion::sql::sqlparser::ast::{ArrayElemTypeDef, DataType as SqlType};
    match t {
        SqlType::Map(k, v) => format!("MAP<{}, {}>", type_text(k), type_text(v)),
        SqlType::Array(ArrayElemTypeDef::AngleBracket(e)) => format!("ARRAY<{}>", type_text(e)),
        other => other.to_string(),
    }
}

/// A column's Paimon type from its SQL type text.
pub(crate) fn column_type(name: &str, sql_type: &str) -> Result<strata::spec::DataType> {
    parse_type_text(sql_type)
        .map_err(|e| plan_error(format!("column {name}: type {sql_type}: {e}")))
}
