//! The table a workload command works on (`--warehouse` or `--catalog-option K=V`, `--table`),
//! opening it through `strata::catalog::open` (any catalog: filesystem, REST, JDBC), and the
//! workload's result type (errors as text).

use std::sync::Arc;

use strata::catalog::{Catalog, Identifier};
use strata::Error;

#[path = "../../catalog_args.rs"]
mod catalog_args;

/// The result of the workload's steps: errors as text, printed by `main`.
pub type Res<T> = std::result::Result<T, String>;

/// The catalog and table of a workload command.
#[derive(clap::Args, Clone)]
pub struct TableArgs {
    /// The warehouse (`warehouse=X`)
    #[arg(long)]
    pub warehouse: Option<String>,
    /// A Paimon catalog option K=V (repeatable; K=V,K=V in one), as `strata --catalog-option`
    #[arg(long = "catalog-option", value_name = "K=V")]
    pub catalog_option: Vec<String>,
    #[arg(long)]
    pub table: String,
}

/// The catalog `t` describes and the identifier of its table.
pub async fn open(t: &TableArgs) -> Res<(Arc<dyn Catalog>, Identifier)> {
    let options = catalog_args::catalog_options(
        t.warehouse.as_deref(),
        &t.catalog_option,
        std::env::var("STRATA_CATALOG_OPTIONS").ok().as_deref(),
        std::env::var("STRATA_WAREHOUSE").ok().as_deref(),
    )?;
    let catalog = strata::catalog::open(&options)
        .await
        .map_err(|e| e.to_string())?;
    let id: Identifier = t.table.parse().map_err(|e: Error| e.to_string())?;
    Ok((catalog, id))
}
