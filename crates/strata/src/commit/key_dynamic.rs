//! Concurrent writers of a cross-partition-upsert table (`bucket = -1`, a primary key without
//! every partition key: Java's `KEY_DYNAMIC` bucket mode).
//!
//! Each writer routes keys by a global key index bootstrapped from one snapshot
//! (`write::cross_partition`). Two writers that bootstrapped from the same snapshot could put one
//! key into two partitions, each unaware of the other's row. Java has the same limit and does not
//! check it (its `GlobalIndexAssigner` "only supports single write", and a later bootstrap fails on
//! the duplicate); strata refuses the second commit instead: an APPEND to such a table (or an
//! INSERT OVERWRITE that wrote rows, routed by the same index) lands only
//! if every APPEND or OVERWRITE snapshot since the writer's bootstrap snapshot
//! (`CommitMessage::index_base`) was committed by the same commit user. COMPACT snapshots never
//! move keys and are always accepted. The losing writer fails with a conflict, nothing of it
//! committed, and is retried by writing again (a new writer bootstraps from the latest snapshot).

use strata_spec::snapshot::CommitKind;

use crate::error::ErrorDetail;
use crate::table::Table;
use crate::Result;

/// Whether `table` is a cross-partition-upsert (`KEY_DYNAMIC`) table.
pub(super) fn is_key_dynamic(table: &Table) -> Result<bool> {
    Ok(table.is_primary_key_table()
        && table.options().bucket()? == -1
        && table.schema().cross_partition_update())
}

/// Refuses an APPEND (or OVERWRITE) of a `KEY_DYNAMIC` table bootstrapped at `base` (`None`:
/// an empty table) when another commit user appended or overwrote since (see the module docs).
pub(super) async fn check_concurrent_appends(
    table: &Table,
    latest: i64,
    base: Option<i64>,
    commit_user: &str,
) -> Result<()> {
    if !is_key_dynamic(table)? {
        return Ok(());
    }
    let sm = table.snapshot_manager();
    for id in base.unwrap_or(0) + 1..=latest {
        let conflict = |what: String| {
            ErrorDetail::CommitConflict {
                table: table.identifier().to_string(),
                message: format!(
                    "this cross-partition-upsert (bucket = -1, KEY_DYNAMIC) write routed its keys \
                     by the key index of snapshot {}, and {what}; committing it could leave a key \
                     in two partitions. Write again: a new writer bootstraps its index from the \
                     latest snapshot",
                    base.map_or_else(|| "none (an empty table)".to_string(), |b| b.to_string())
                ),
            }
            .into()
        };
        let s = match sm.snapshot(id).await {
            Ok(s) => s,
            Err(e) if e.kind() == crate::ErrorKind::NotFound => {
                return Err(conflict(format!(
                    "snapshot {id}, committed since, has expired so its writer is unknown"
                )))
            }
            Err(e) => return Err(e),
        };
        if matches!(s.commit_kind, CommitKind::Append | CommitKind::Overwrite)
            && s.commit_user != commit_user
        {
            return Err(conflict(format!(
                "snapshot {id} ({:?}) was committed since by another writer ({})",
                s.commit_kind, s.commit_user
            )));
        }
    }
    Ok(())
}
