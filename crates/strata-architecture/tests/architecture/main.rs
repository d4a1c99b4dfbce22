//! strata's architecture, checked on the sources of every workspace crate (parsed with `syn`):
//!
//! - [`layers`]: the core's top-level modules use only lower layers;
//! - [`spec_pure`]: `strata-spec` does no I/O;
//! - [`front_ends`]: nothing but strata itself, its tests and the benchmarks reaches
//!   `strata::unstable`;
//! - [`circles`]: no import circle between files or folders of any crate;
//! - [`public_api`]: the `strata` crate's public items match `crates/strata/public-api.txt`.
//!
//! [`source`] reads a crate (module tree, names, paths), [`resolve`] resolves paths and builds
//! the file import graph, [`workspace`] finds the crates with `cargo metadata`.

mod circles;
mod front_ends;
mod layers;
mod public_api;
mod resolve;
mod source;
mod spec_pure;
mod workspace;
