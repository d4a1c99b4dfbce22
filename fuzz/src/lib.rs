//! strata's fuzz targets (cargo-fuzz): each target in `fuzz_targets/` hands its input to
//! [`check`], which runs the decoder and its oracle (round trips, differential decoding).
//!
//! The checks live in two files shared with the stable replay tests
//! (`crates/strata-spec/tests/fuzz_corpus.rs`, `crates/strata/tests/it/fuzz_corpus.rs`), so a
//! corpus file checked here is checked the same way by `cargo test`.

#[cfg(feature = "format")]
#[path = "format_checks.rs"]
pub mod format_checks;
#[path = "spec_checks.rs"]
pub mod spec_checks;

/// Every target, as named in `fuzz_targets/` and `corpus/`.
pub fn targets() -> Vec<&'static str> {
    let mut t = spec_checks::SPEC_TARGETS.to_vec();
    if cfg!(feature = "format") {
        t.push("parquet_file");
    }
    t
}

/// Runs target `name` on `data` (panics on an unknown name).
pub fn check(name: &str, data: &[u8]) {
    #[cfg(feature = "format")]
    if name == "parquet_file" {
        return format_checks::parquet_file(data);
    }
    assert!(
        spec_checks::check_spec(name, data),
        "unknown fuzz target {name}"
    );
}
