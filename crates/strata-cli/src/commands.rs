//! Command implementations: each maps one subcommand onto the library API.

use std::io::Write;

use serde_json::{json, Value};
use strata::catalog::{FileSystemCatalog, Identifier};
use strata::commit::OverwriteScope;
use strata::table::Table;
use strata_spec::schema::Schema;

use crate::{input, Cli, Command};

/// Errors of the CLI: library errors and plain messages.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Strata(#[from] strata::Error),
    #[error("{0}")]
    Message(String),
}

pub type Result<T> = std::result::Result<T, CliError>;

impl CliError {
    /// See [`strata::Error::may_have_committed`]: the written files must be kept.
    pub fn may_have_committed(&self) -> bool {
        matches!(self, CliError::Strata(e) if e.may_have_committed())
    }
}

impl From<strata_spec::SpecError> for CliError {
    fn from(e: strata_spec::SpecError) -> Self {
        CliError::Strata(e.into())
    }
}

pub fn msg(s: impl Into<String>) -> CliError {
    CliError::Message(s.into())
}

pub async fn run(cli: Cli) -> Result<()> {
    let catalog = FileSystemCatalog::open(&cli.warehouse)?;
    match cli.command {
        Command::CreateTable {
            table,
            schema,
            if_not_exists,
        } => {
            let id: Identifier = table.parse()?;
            let text = std::fs::read_to_string(&schema)
                .map_err(|e| msg(format!("cannot read schema file {}: {e}", schema.display())))?;
            let schema = Schema::from_json(&text)
                .map_err(|e| msg(format!("invalid schema file {}: {e}", schema.display())))?;
            let created = catalog.create_table(&id, &schema, if_not_exists).await?;
            let t = catalog.get_table(&id).await?;
            eprintln!(
                "{} table {id} at {}",
                if created { "created" } else { "kept existing" },
                t.location()
            );
            Ok(())
        }
        Command::DropTable { table, if_exists } => {
            let id: Identifier = table.parse()?;
            catalog.drop_table(&id, if_exists).await?;
            Ok(())
        }
        Command::Write {
            table,
            files,
            overwrite,
            partition,
            metrics,
        } => {
            let t = catalog.get_table(&table.parse()?).await?;
            let scope = if overwrite {
                Some(overwrite_scope(&t, &partition)?)
            } else {
                None
            };
            if let Some(why) = strata::write::TableWrite::full_compaction_on_write(&t)? {
                eprintln!(
                    "note: {} has {why}, which needs Paimon's lookup compaction; strata does not \
                     have it yet and fully compacts every bucket this write touches instead (the \
                     write rewrites those buckets whole; see README, \"Tables kept at one level\")",
                    t.identifier()
                );
            }
            let report = input::write_files(&t, &files, scope).await?;
            crate::commands_compact::print_metrics(&t, &report.compaction, metrics)?;
            if let Some(e) = &report.compact_error {
                eprintln!("warning: {e}");
            }
            if let Some(e) = &report.expire_error {
                eprintln!("warning: {e}");
            }
            match report.snapshot_id {
                Some(id) => eprintln!(
                    "wrote {} rows into {} ({} files), snapshot {id}",
                    report.rows,
                    t.identifier(),
                    report.files
                ),
                None => eprintln!("no rows written; no snapshot created"),
            }
            Ok(())
        }
        Command::Read(args) => crate::commands_read::run(&catalog, args).await,
        Command::Sql(args) => crate::commands_sql::run(&catalog, args).await,
        Command::Maintenance(cmd) => crate::commands_maintenance::run(&catalog, cmd).await,
        Command::Scan(args) => crate::commands_scan::run(&catalog, args).await,
        Command::Tail(args) => crate::commands_tail::run(&catalog, args).await,
        Command::Snapshots { table } => {
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
        Command::Files {
            table,
            snapshot,
            format,
            json,
        } => {
            let t = catalog.get_table(&table.parse()?).await?;
            let format = if json {
                crate::commands_levels::FilesFormat::Jsonl
            } else {
                format
            };
            crate::commands_levels::files(&t, snapshot, format).await
        }
        Command::Compact {
            table,
            partition,
            bucket,
            full,
            metrics,
        } => {
            crate::commands_compact::run(&catalog, &table, &partition, bucket, full, metrics).await
        }
        Command::Levels {
            table,
            partition,
            bucket,
            snapshot,
            svg,
        } => {
            let t = catalog.get_table(&table.parse()?).await?;
            let args = crate::commands_levels::LevelsArgs {
                partition,
                bucket,
                snapshot,
                svg,
            };
            crate::commands_levels::levels(&t, args).await
        }
        Command::Schema { table } => {
            let t = catalog.get_table(&table.parse()?).await?;
            let text = t.schema().to_json().map_err(strata::Error::from)?;
            let v: Value = serde_json::from_str(&text).map_err(|e| msg(e.to_string()))?;
            println_json(&mut std::io::stdout().lock(), &v)
        }
        Command::List { database } => {
            let mut out = std::io::stdout().lock();
            match database {
                None => {
                    for db in catalog.list_databases().await? {
                        println_json(&mut out, &json!({ "database": db }))?;
                    }
                }
                Some(db) => {
                    for t in catalog.list_tables(&db).await? {
                        println_json(&mut out, &json!({ "database": db, "table": t }))?;
                    }
                }
            }
            Ok(())
        }
        Command::Demo { rows } => crate::commands_demo::run(&catalog, rows).await,
    }
}

fn println_json(out: &mut impl Write, v: &Value) -> Result<()> {
    writeln!(out, "{v}").map_err(|e| msg(format!("cannot write output: {e}")))
}

/// `--overwrite` with or without `--partition k=v`.
fn overwrite_scope(table: &Table, partition: &[String]) -> Result<OverwriteScope> {
    if partition.is_empty() {
        let dynamic = table.options().dynamic_partition_overwrite()?;
        return Ok(if dynamic {
            OverwriteScope::Dynamic
        } else {
            OverwriteScope::WholeTable
        });
    }
    let ptype = table.schema().partition_type();
    let mut spec = Vec::new();
    for kv in partition {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| msg(format!("--partition expects K=V, got {kv:?}")))?;
        let idx = ptype.index_of(k).ok_or_else(|| {
            msg(format!(
                "{k} is not a partition column of {} (partition keys: {})",
                table.identifier(),
                ptype.names().join(", ")
            ))
        })?;
        let value = table
            .partition_computer()
            .parse_value(idx, v)
            .map_err(strata::Error::from)?;
        spec.push((k.to_string(), value));
    }
    Ok(OverwriteScope::Static(spec))
}
