//! `ALTER TABLE` from the command line, through the library's
//! `FileSystemCatalog::alter_table` (used by `tests/interop/test_alter_strata.py` until the
//! SQL front end has its own `ALTER TABLE`):
//!
//! ```text
//! cargo run -p strata --example alter_table -- WAREHOUSE DB.TABLE 'CHANGES'
//! ```
//!
//! `CHANGES` is a JSON list in the Java oracle's `alterTable` form (tests/java-oracle), so one
//! list drives both engines: `{"op": "addColumn", "name" | "path", "type", "description",
//! "after" | "before" | "first" | "last"}`, `{"op": "renameColumn", "name" | "path",
//! "newName"}`, `{"op": "dropColumn", …}`, `{"op": "updateColumnType", …, "type",
//! "keepNullability"}`, `{"op": "updateColumnNullability", …, "nullable"}`, `{"op":
//! "updateColumnComment", …, "description"}`, `{"op": "updateColumnPosition", "name",
//! "after" | "before" | "first" | "last"}`, `{"op": "setOption", "key", "value"}`, `{"op":
//! "removeOption", "key"}`, `{"op": "updateComment", "comment"}`. Types are Paimon's SQL
//! text (`BIGINT`, `ROW<a INT>`). Prints the new schema file; on a refusal prints
//! `error (<kind>): <message>` to stderr and exits with 1.

use serde_json::Value;
use strata::catalog::{FileSystemCatalog, Identifier};
use strata_spec::schema::{ColumnMove, SchemaChange};
use strata_spec::types::json::parse_type_text;

fn text(c: &Value, key: &str) -> Result<String, String> {
    c.get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("change {c}: `{key}` must be a string"))
}

fn opt_text(c: &Value, key: &str) -> Option<String> {
    c.get(key).and_then(Value::as_str).map(str::to_string)
}

fn path(c: &Value) -> Result<Vec<String>, String> {
    match (c.get("path"), c.get("name")) {
        (Some(Value::Array(p)), _) => p
            .iter()
            .map(|s| {
                s.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("change {c}: `path` must hold strings"))
            })
            .collect(),
        (_, Some(Value::String(n))) => Ok(vec![n.clone()]),
        _ => Err(format!("change {c}: needs `name` or `path`")),
    }
}

fn position(c: &Value, column: &str) -> Option<ColumnMove> {
    if let Some(r) = opt_text(c, "after") {
        Some(ColumnMove::after(column, r))
    } else if let Some(r) = opt_text(c, "before") {
        Some(ColumnMove::before(column, r))
    } else if c.get("first") == Some(&Value::Bool(true)) {
        Some(ColumnMove::first(column))
    } else if c.get("last") == Some(&Value::Bool(true)) {
        Some(ColumnMove::last(column))
    } else {
        None
    }
}

fn change(c: &Value) -> Result<SchemaChange, String> {
    let ty = |c: &Value| parse_type_text(&text(c, "type")?).map_err(|e| format!("change {c}: {e}"));
    Ok(match text(c, "op")?.as_str() {
        "addColumn" => {
            let p = path(c)?;
            let last = p.last().cloned().unwrap_or_default();
            SchemaChange::add_nested_column(
                p,
                ty(c)?,
                opt_text(c, "description"),
                position(c, &last),
            )
        }
        "renameColumn" => SchemaChange::rename_nested_column(path(c)?, text(c, "newName")?),
        "dropColumn" => SchemaChange::drop_nested_column(path(c)?),
        "updateColumnType" => SchemaChange::update_nested_column_type(
            path(c)?,
            ty(c)?,
            c.get("keepNullability") == Some(&Value::Bool(true)),
        ),
        "updateColumnNullability" => SchemaChange::update_column_nullability(
            path(c)?,
            c.get("nullable") == Some(&Value::Bool(true)),
        ),
        "updateColumnComment" => {
            SchemaChange::update_column_comment(path(c)?, opt_text(c, "description"))
        }
        "updateColumnPosition" => {
            let name = text(c, "name")?;
            let m = position(c, &name)
                .ok_or_else(|| format!("change {c}: needs after, before, first or last"))?;
            SchemaChange::update_column_position(m)
        }
        "setOption" => SchemaChange::set_option(text(c, "key")?, text(c, "value")?),
        "removeOption" => SchemaChange::remove_option(text(c, "key")?),
        "updateComment" => SchemaChange::update_comment(opt_text(c, "comment")),
        other => return Err(format!("unknown op `{other}`")),
    })
}

async fn run(args: &[String]) -> Result<(), String> {
    let [warehouse, table, changes] = args else {
        return Err("usage: alter_table WAREHOUSE DB.TABLE CHANGES_JSON".into());
    };
    let list: Vec<Value> =
        serde_json::from_str(changes).map_err(|e| format!("CHANGES_JSON: {e}"))?;
    let changes = list.iter().map(change).collect::<Result<Vec<_>, _>>()?;
    let catalog = FileSystemCatalog::open(warehouse).map_err(|e| e.to_string())?;
    let id: Identifier = table.parse().map_err(|e: strata::Error| e.to_string())?;
    match catalog.alter_table(&id, changes, false).await {
        Ok(Some(schema)) => {
            println!("{}", schema.to_json().map_err(|e| e.to_string())?);
            Ok(())
        }
        Ok(None) => Err(format!("table {id} does not exist")),
        Err(e) => Err(format!("error ({:?}): {e}", e.kind())),
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args).await {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
