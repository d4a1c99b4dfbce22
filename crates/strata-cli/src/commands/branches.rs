//! Branch commands: `create-branch`, `delete-branch`, `fast-forward`, `rename-branch`,
//! `branches` (through `strata::table::Table`: Java's `FileSystemBranchManager` on a
//! filesystem warehouse, the catalog's branch endpoints for a REST catalog's table, as Java's
//! `CatalogBranchManager`; the procedures `sys.create_branch`, `sys.delete_branch`,
//! `sys.fast_forward`). Every command that takes a table also takes `DB.TABLE$branch_NAME` for
//! the table on a branch.

use serde_json::json;
use strata::catalog::Catalog;
use strata::table::branches::BranchStart;

use crate::error::Result;
use crate::output::println_json;

/// The branch subcommands (flattened into the top-level command list).
#[derive(clap::Subcommand, Debug)]
pub enum BranchCommand {
    /// Create a branch: empty (the current schemas only, as Java's create_branch without a
    /// tag), from a tag, or from a snapshot.
    CreateBranch {
        /// DB.TABLE
        table: String,
        /// Branch name (not `main`, not only digits)
        name: String,
        /// Start the branch at this tag (Java's create_branch with a tag)
        #[arg(long, value_name = "TAG", conflicts_with = "snapshot")]
        tag: Option<String>,
        /// Start the branch at this snapshot
        #[arg(long, value_name = "N")]
        snapshot: Option<i64>,
    },
    /// Delete a branch (its snapshots, schemas and tags; data files stay for orphan cleanup).
    DeleteBranch {
        /// DB.TABLE
        table: String,
        /// Branch name
        name: String,
    },
    /// Fast-forward the table (or DB.TABLE$branch_X) to a branch: it takes the branch's
    /// snapshots, schemas and tags from the branch's earliest snapshot on.
    FastForward {
        /// DB.TABLE
        table: String,
        /// Branch name
        name: String,
    },
    /// Rename a branch (Java's renameBranch).
    RenameBranch {
        /// DB.TABLE
        table: String,
        /// The branch's name
        from: String,
        /// Its new name
        to: String,
    },
    /// The branches of a table, one JSON object per line.
    Branches {
        /// DB.TABLE
        table: String,
    },
}

pub async fn run(catalog: &dyn Catalog, cmd: BranchCommand) -> Result<()> {
    match cmd {
        BranchCommand::CreateBranch {
            table,
            name,
            tag,
            snapshot,
        } => {
            let t = catalog.get_table(&table.parse()?).await?;
            let start = match (tag, snapshot) {
                (Some(tag), _) => BranchStart::Tag(tag),
                (None, Some(id)) => BranchStart::Snapshot(id),
                (None, None) => BranchStart::Empty,
            };
            t.create_branch(&name, start.clone()).await?;
            eprintln!("created branch '{name}' of {} ({start:?})", t.identifier());
            Ok(())
        }
        BranchCommand::DeleteBranch { table, name } => {
            let t = catalog.get_table(&table.parse()?).await?;
            t.delete_branch(&name).await?;
            eprintln!("deleted branch '{name}' of {}", t.identifier());
            Ok(())
        }
        BranchCommand::FastForward { table, name } => {
            let t = catalog.get_table(&table.parse()?).await?;
            t.fast_forward(&name).await?;
            eprintln!("fast-forwarded {} to branch '{name}'", t.identifier());
            Ok(())
        }
        BranchCommand::RenameBranch { table, from, to } => {
            let t = catalog.get_table(&table.parse()?).await?;
            t.rename_branch(&from, &to).await?;
            eprintln!("renamed branch '{from}' of {} to '{to}'", t.identifier());
            Ok(())
        }
        BranchCommand::Branches { table } => {
            let t = catalog.get_table(&table.parse()?).await?;
            let mut out = std::io::stdout().lock();
            for name in t.branches().await? {
                let latest = match t.switch_to_branch(&name).await {
                    Ok(b) => b.snapshot_manager().latest_id().await?,
                    Err(_) => None,
                };
                println_json(
                    &mut out,
                    &json!({ "branchName": name, "latestSnapshotId": latest }),
                )?;
            }
            Ok(())
        }
    }
}
