//! strata's architecture, checked on its sources by this package's tests
//! (`cargo test -p strata-architecture`); there is no library code.
//!
//! The tests in `tests/architecture` parse every workspace crate with `syn` and check:
//!
//! - **spec pure**: `strata-spec` depends on no I/O crate and uses no `std::fs`/`std::net`/…;
//! - **core layers**: each top-level module of `strata` uses only modules below it (the table in
//!   `tests/architecture/layers.rs`);
//! - **front ends above the core**: no crate but `strata` itself (its `tests/`), the benchmarks
//!   and the fuzzers reaches `strata::unstable`;
//! - **no import circle**: between the files of any crate, or between the folders (sibling
//!   modules) of any crate; tests and `#[cfg(test)]` code don't count;
//! - **public API**: the `strata` crate's public items match `crates/strata/public-api.txt`
//!   (bless a deliberate change with `STRATA_BLESS=1 cargo test -p strata-architecture`).
