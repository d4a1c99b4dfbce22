//! The catalog's commands: `create-table` (from a schema JSON file, Paimon's schema-N shape),
//! `drop-table`, and `list` (databases, or the tables of one, as JSON lines).

use std::path::Path;

use serde_json::json;
use strata::catalog::{Catalog, Identifier};
use strata_spec::schema::Schema;

use crate::error::{msg, Result};
use crate::output::println_json;

/// `strata create-table DB.TABLE --schema FILE [--if-not-exists]`.
pub(crate) async fn create_table(
    catalog: &dyn Catalog,
    table: &str,
    schema: &Path,
    if_not_exists: bool,
) -> Result<()> {
    let id: Identifier = table.parse()?;
    let text = std::fs::read_to_string(schema)
        .map_err(|e| msg(format!("cannot read schema file {}: {e}", schema.display())))?;
    let parsed = Schema::from_json(&text)
        .map_err(|e| msg(format!("invalid schema file {}: {e}", schema.display())))?;
    let created = catalog.create_table(&id, &parsed, if_not_exists).await?;
    let t = catalog.get_table(&id).await?;
    eprintln!(
        "{} table {id} at {}",
        if created { "created" } else { "kept existing" },
        t.location()
    );
    Ok(())
}

/// `strata drop-table DB.TABLE [--if-exists]`.
pub(crate) async fn drop_table(catalog: &dyn Catalog, table: &str, if_exists: bool) -> Result<()> {
    let id: Identifier = table.parse()?;
    catalog.drop_table(&id, if_exists).await?;
    Ok(())
}

/// `strata list [DB]`: the databases, or the tables of `database`.
pub(crate) async fn list(catalog: &dyn Catalog, database: Option<&str>) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match database {
        None => {
            for db in catalog.list_databases().await? {
                println_json(&mut out, &json!({ "database": db }))?;
            }
        }
        Some(db) => {
            for t in catalog.list_tables(db).await? {
                println_json(&mut out, &json!({ "database": db, "table": t }))?;
            }
        }
    }
    Ok(())
}
