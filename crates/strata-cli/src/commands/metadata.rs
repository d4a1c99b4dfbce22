//! A table's metadata as JSON: `snapshots` (one object per snapshot) and `schema` (the
//! current schema, Paimon's schema-N shape).

use serde_json::{json, Value};
use strata::catalog::Catalog;

use crate::error::{msg, Result};
use crate::output::println_json;

/// `strata snapshots DB.TABLE`.
pub(crate) async fn snapshots(catalog: &dyn Catalog, table: &str) -> Result<()> {
    let t = catalog.get_table(&table.parse()?).await?;
    let mut out = std::io::stdout().lock();
    for s in t.snapshot_manager().all().await? {
        let line = json!({
            "id": s.id,
            "schemaId": s.schema_id,
            "commitKind": s.commit_kind.as_str(),
            "commitUser": s.commit_user,
            "commitIdentifier": s.commit_identifier,
            "timeMillis": s.time_millis,
            "totalRecordCount": s.total_record_count,
            "deltaRecordCount": s.delta_record_count,
        });
        println_json(&mut out, &line)?;
    }
    Ok(())
}

/// `strata schema DB.TABLE`.
pub(crate) async fn schema(catalog: &dyn Catalog, table: &str) -> Result<()> {
    let t = catalog.get_table(&table.parse()?).await?;
    let text = t.schema().to_json().map_err(strata::Error::from)?;
    let v: Value = serde_json::from_str(&text).map_err(|e| msg(e.to_string()))?;
    println_json(&mut std::io::stdout().lock(), &v)
}
