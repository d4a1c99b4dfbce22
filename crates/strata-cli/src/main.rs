//! `strata`: the command-line front end of the strata Paimon engine.
//!
//! Every command opens the catalog its Paimon catalog options describe (`--catalog-option K=V`:
//! filesystem, REST or JDBC; `--warehouse X` is `warehouse=X`, default `$STRATA_WAREHOUSE`, else
//! `./warehouse`) and maps onto the library's catalog/table API. Metadata commands print
//! one JSON object per line with camelCase keys, so their output can be piped into `jq`.
//! Errors go to stderr as `error: …` with exit code 1 (2 for usage errors, from clap).

mod catalog_args;
mod cli;
mod columns;
mod commands;
mod compaction_report;
mod dispatch;
mod error;
mod input;
mod json_values;
mod output;
mod variant_input;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Fault points exist only in test builds: a fault asked of a normal build is refused, not
    // silently skipped.
    if std::env::var_os("STRATA_FAILPOINTS").is_some() && !strata::fault::ENABLED {
        eprintln!(
            "error: STRATA_FAILPOINTS is set but this strata build has no fault points (they \
             are for strata's own tests: build with `cargo build --features strata/failpoints`)"
        );
        return ExitCode::FAILURE;
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(dispatch::run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                eprintln!("  caused by: {s}");
                source = s.source();
            }
            ExitCode::FAILURE
        }
    }
}
