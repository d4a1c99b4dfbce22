//! `ALTER TABLE`: schema changes committed as a new `schema-N` file, exactly as Java's
//! `SchemaManager.commitChanges` writes it (strata's `FileSystemCatalog::alter_table`; old
//! files keep being read through field ids).
//!
//! | statement | change |
//! |---|---|
//! | `ADD [COLUMN] c T [NOT NULL] [COMMENT '…'] [FIRST \| AFTER x]` | `AddColumn` |
//! | `DROP [COLUMN] c[, …]` | `DropColumn` |
//! | `RENAME COLUMN a TO b` | `RenameColumn` |
//! | `ALTER [COLUMN] c [SET DATA] TYPE T` | `UpdateColumnType` (widening as Java allows) |
//! | `ALTER [COLUMN] c SET NOT NULL` / `DROP NOT NULL` | `UpdateColumnNullability` |
//! | `ALTER [COLUMN] c SET DEFAULT v` / `DROP DEFAULT` | `UpdateColumnDefaultValue` (a literal; `NULL` drops it) |
//! | `SET ('k' = 'v')`, `SET TBLPROPERTIES ('k' = 'v')` | `SetOption` |
//! | `RESET ('k')`, `UNSET TBLPROPERTIES ('k')` (or a `NULL` value in SET) | `RemoveOption` |
//!
//! All operations of one statement are one schema version; an operation strata does not know
//! is refused, naming it.

use datafusion::common::Result;
use datafusion::dataframe::DataFrame;
use datafusion::sql::sqlparser::ast::{
    AlterColumnOperation, AlterTable, AlterTableOperation, ColumnOption, Expr, MySQLColumnPosition,
    SqlOption, Value, ValueWithSpan,
};
use strata::spec::schema::{ColumnMove, SchemaChange};

use super::ast::{column_type, name_parts, option_text, type_text};
use super::context::SqlContext;
use crate::error::{plan_error, to_df};

fn options(list: &[SqlOption], changes: &mut Vec<SchemaChange>) -> Result<()> {
    for o in list {
        let SqlOption::KeyValue { key, value } = o else {
            return Err(plan_error(format!(
                "ALTER TABLE SET {o}: expected 'key' = 'value'"
            )));
        };
        let key = key.value.clone();
        let is_null = matches!(
            value,
            Expr::Value(ValueWithSpan {
                value: Value::Null,
                ..
            })
        );
        changes.push(if is_null {
            SchemaChange::RemoveOption { key }
        } else {
            SchemaChange::SetOption {
                key,
                value: option_text(value)?,
            }
        });
    }
    Ok(())
}

/// The `defaultValue` text of `SET DEFAULT value`, as Spark's Paimon catalog stores it: a
/// string literal in single quotes (Java's `DefaultValueUtils` removes one enclosing pair, so
/// the text inside is the value as written, quotes included), a number, boolean, date or
/// timestamp literal as its SQL text; `NULL` is no default. Anything else (a function call such
/// as `CURRENT_TIMESTAMP`, an expression) is refused: Paimon stores a constant.
fn default_text(
    table: &impl std::fmt::Display,
    column: &str,
    value: &Expr,
) -> Result<Option<String>> {
    let refuse = || {
        plan_error(format!(
            "ALTER TABLE {table} ALTER COLUMN {column} SET DEFAULT {value}: a default must be a \
             literal (Paimon stores a constant text)"
        ))
    };
    let literal = |v: &Value| -> Result<Option<String>> {
        Ok(Some(match v {
            Value::Null => return Ok(None),
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => format!("'{s}'"),
            Value::Number(n, _) => n.to_string(),
            Value::Boolean(b) => b.to_string(),
            _ => return Err(refuse()),
        }))
    };
    match value {
        Expr::Value(ValueWithSpan { value: v, .. }) => literal(v),
        Expr::UnaryOp { op, expr } if op.to_string() == "-" => match expr.as_ref() {
            Expr::Value(ValueWithSpan {
                value: Value::Number(n, _),
                ..
            }) => Ok(Some(format!("-{n}"))),
            _ => Err(refuse()),
        },
        Expr::TypedString(ts) => match &ts.value.value {
            Value::SingleQuotedString(s) => Ok(Some(s.clone())),
            _ => Err(refuse()),
        },
        _ => Err(refuse()),
    }
}

pub(crate) async fn alter_table(session: &SqlContext, alter: &AlterTable) -> Result<DataFrame> {
    let id = session.identifier(&name_parts(&alter.name))?;
    let mut changes = Vec::new();
    for op in &alter.operations {
        match op {
            AlterTableOperation::AddColumn {
                column_def,
                column_position,
                ..
            } => {
                let name = column_def.name.value.clone();
                let mut t = column_type(&name, &type_text(&column_def.data_type))?;
                let mut comment = None;
                for o in &column_def.options {
                    match &o.option {
                        ColumnOption::NotNull => t.nullable = false,
                        ColumnOption::Null => t.nullable = true,
                        ColumnOption::Comment(c) => comment = Some(c.clone()),
                        other => {
                            return Err(plan_error(format!(
                            "ALTER TABLE {id} ADD COLUMN {name}: option {other} is not supported"
                        )))
                        }
                    }
                }
                let position = match column_position {
                    None => None,
                    Some(MySQLColumnPosition::First) => Some(ColumnMove::first(name.clone())),
                    Some(MySQLColumnPosition::After(r)) => {
                        Some(ColumnMove::after(name.clone(), r.value.clone()))
                    }
                };
                changes.push(SchemaChange::AddColumn {
                    field_names: vec![name],
                    data_type: t,
                    comment,
                    position,
                });
            }
            AlterTableOperation::DropColumn { column_names, .. } => {
                for c in column_names {
                    changes.push(SchemaChange::DropColumn {
                        field_names: vec![c.value.clone()],
                    });
                }
            }
            AlterTableOperation::RenameColumn {
                old_column_name,
                new_column_name,
            } => changes.push(SchemaChange::RenameColumn {
                field_names: vec![old_column_name.value.clone()],
                new_name: new_column_name.value.clone(),
            }),
            AlterTableOperation::AlterColumn { column_name, op } => {
                let field_names = vec![column_name.value.clone()];
                match op {
                    AlterColumnOperation::SetDataType { data_type, .. } => {
                        changes.push(SchemaChange::UpdateColumnType {
                            field_names,
                            new_data_type: column_type(&column_name.value, &type_text(data_type))?,
                            keep_nullability: true,
                        })
                    }
                    AlterColumnOperation::SetNotNull => {
                        changes.push(SchemaChange::UpdateColumnNullability {
                            field_names,
                            new_nullability: false,
                        })
                    }
                    AlterColumnOperation::DropNotNull => {
                        changes.push(SchemaChange::UpdateColumnNullability {
                            field_names,
                            new_nullability: true,
                        })
                    }
                    AlterColumnOperation::SetDefault { value } => {
                        changes.push(SchemaChange::UpdateColumnDefaultValue {
                            field_names,
                            new_default_value: default_text(&id, &column_name.value, value)?,
                        })
                    }
                    AlterColumnOperation::DropDefault => {
                        changes.push(SchemaChange::UpdateColumnDefaultValue {
                            field_names,
                            new_default_value: None,
                        })
                    }
                    other => {
                        return Err(plan_error(format!(
                            "ALTER TABLE {id} ALTER COLUMN {column_name} {other} is not supported"
                        )))
                    }
                }
            }
            AlterTableOperation::SetTblProperties { table_properties } => {
                options(table_properties, &mut changes)?
            }
            AlterTableOperation::SetOptionsParens { options: list } => options(list, &mut changes)?,
            other => {
                return Err(plan_error(format!(
                    "ALTER TABLE {id} {other} is not supported"
                )))
            }
        }
    }
    session
        .catalog()
        .alter_table(&id, changes, alter.if_exists)
        .await
        .map_err(to_df)?;
    Ok(session.empty())
}
