//! Runs a parsed command line: opens the catalog its options describe (`--catalog-option`,
//! `--warehouse`: `crate::catalog_args`, through `strata::catalog::open`) and hands each
//! [`Command`] to the command file that implements it (`crate::commands`). It sits above both
//! the clap types (`crate::cli`, which name the commands' argument types) and the commands, so
//! neither imports the other back.

use std::sync::Arc;

use strata::catalog::Catalog;

use crate::cli::{Cli, Command};
use crate::commands::{
    branches, catalog, compact, demo, levels, maintenance, metadata, read, rescale,
    rewrite_file_index, scan, serve, sql, tail, update_columns, views, write,
};
use crate::error::Result;

/// Runs the command of `cli`.
pub async fn run(cli: Cli) -> Result<()> {
    // The front end holds the catalog trait: filesystem, REST or JDBC, as the options say.
    let options = crate::catalog_args::catalog_options(
        cli.warehouse.as_deref(),
        &cli.catalog_option,
        std::env::var("STRATA_CATALOG_OPTIONS").ok().as_deref(),
        std::env::var("STRATA_WAREHOUSE").ok().as_deref(),
    )
    .map_err(crate::error::msg)?;
    // `serve` serves the warehouse itself (it decides commits): no catalog client to open.
    if let Command::Serve(args) = &cli.command {
        return serve::run(&options, args).await;
    }
    let catalog: Arc<dyn Catalog> = strata::catalog::open(&options).await?;
    match cli.command {
        Command::CreateTable {
            table,
            schema,
            if_not_exists,
        } => catalog::create_table(catalog.as_ref(), &table, &schema, if_not_exists).await,
        Command::DropTable { table, if_exists } => {
            catalog::drop_table(catalog.as_ref(), &table, if_exists).await
        }
        Command::List { database } => catalog::list(catalog.as_ref(), database.as_deref()).await,
        Command::Write {
            table,
            files,
            overwrite,
            partition,
            metrics,
        } => {
            write::run(
                catalog.as_ref(),
                &table,
                &files,
                overwrite,
                &partition,
                metrics,
            )
            .await
        }
        Command::Read(args) => read::run(catalog.as_ref(), args).await,
        Command::Sql(args) => sql::run(&catalog, args).await,
        Command::Maintenance(cmd) => maintenance::run(catalog.as_ref(), cmd).await,
        Command::Branch(cmd) => branches::run(catalog.as_ref(), cmd).await,
        Command::View(cmd) => views::run_view(&catalog, cmd).await,
        Command::Function(cmd) => views::run_function(catalog.as_ref(), cmd).await,
        Command::Scan(args) => scan::run(catalog.as_ref(), args).await,
        Command::Tail(args) => tail::run(catalog.as_ref(), args).await,
        Command::Snapshots { table } => metadata::snapshots(catalog.as_ref(), &table).await,
        Command::Schema { table } => metadata::schema(catalog.as_ref(), &table).await,
        Command::Files {
            table,
            snapshot,
            format,
            json,
        } => {
            let t = catalog.get_table(&table.parse()?).await?;
            let format = if json {
                levels::FilesFormat::Jsonl
            } else {
                format
            };
            levels::files(&t, snapshot, format).await
        }
        Command::Compact {
            table,
            partition,
            bucket,
            full,
            metrics,
        } => compact::run(catalog.as_ref(), &table, &partition, bucket, full, metrics).await,
        Command::UpdateColumns { table, files } => {
            update_columns::run(catalog.as_ref(), &table, &files).await
        }
        Command::RewriteFileIndex { table, partition } => {
            rewrite_file_index::run(catalog.as_ref(), &table, &partition).await
        }
        Command::Rescale {
            table,
            bucket_num,
            partition,
        } => rescale::run(catalog.as_ref(), &table, bucket_num, &partition).await,
        Command::Levels {
            table,
            partition,
            bucket,
            snapshot,
            svg,
        } => {
            let t = catalog.get_table(&table.parse()?).await?;
            let args = levels::LevelsArgs {
                partition,
                bucket,
                snapshot,
                svg,
            };
            levels::levels(&t, args).await
        }
        Command::Demo { rows } => {
            demo::run(catalog.as_ref(), rows, &demo::catalog_flags(&options)).await
        }
        Command::Serve(args) => serve::run(&options, &args).await,
    }
}
