//! The table a workload command works on (`--warehouse`, `--table`), opening it, and the
//! workload's result type (errors as text).

use strata::catalog::{FileSystemCatalog, Identifier};
use strata::Error;

/// The result of the workload's steps: errors as text, printed by `main`.
pub type Res<T> = std::result::Result<T, String>;

/// The warehouse and table of a workload command.
#[derive(clap::Args, Clone)]
pub struct TableArgs {
    #[arg(long)]
    pub warehouse: String,
    #[arg(long)]
    pub table: String,
}

/// The catalog of `t`'s warehouse and the identifier of its table.
pub async fn open(t: &TableArgs) -> Res<(FileSystemCatalog, Identifier)> {
    let catalog = FileSystemCatalog::open(&t.warehouse).map_err(|e| e.to_string())?;
    let id: Identifier = t.table.parse().map_err(|e: Error| e.to_string())?;
    Ok((catalog, id))
}
