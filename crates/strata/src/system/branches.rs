//! The `branches` system table (Java's `BranchesTable`): one row per branch, its name and the
//! modification time of its directory (`branch/branch-<name>`) as the local date-time, as Java
//! reads it from the file status. On object stores, which have no directories, the oldest file
//! of the branch stands for it.

use arrow_array::RecordBatch;
use strata_spec::{DataField, TypeKind};

use super::batch::{col, string, Cell, Rows};
use super::java_text::local_wall_clock_millis;
use crate::io::StoreKind;
use crate::table::Table;
use crate::Result;

/// Columns of `branches` (Java 2.0 `BranchesTable.TABLE_TYPE`).
pub(super) fn branches_fields() -> Vec<DataField> {
    vec![
        col(0, "branch_name", string(), false),
        col(1, "create_time", TypeKind::Timestamp(3), false),
    ]
}

/// `branches`: every branch of the table, by name (a branch deleted while listing is skipped).
pub async fn branches(table: &Table) -> Result<RecordBatch> {
    let io = table.file_io();
    let mut rows = Rows::new(
        format!("{}$branches", table.identifier()),
        branches_fields(),
    );
    for name in table.branches().await? {
        let dir = table.paths().branches_dir().join(format!("branch-{name}"));
        let millis = if io.kind() == StoreKind::Local {
            let path = std::path::PathBuf::from(io.display(&dir));
            std::fs::metadata(&path)
                .ok()
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_millis() as i64)
        } else {
            io.list(&dir)
                .await?
                .iter()
                .map(|m| m.last_modified.timestamp_millis())
                .min()
        };
        let Some(millis) = millis else {
            continue;
        };
        rows.push(vec![
            Cell::Str(name),
            Cell::Millis(local_wall_clock_millis(millis)),
        ])?;
    }
    rows.finish()
}
