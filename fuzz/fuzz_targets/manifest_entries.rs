//! cargo-fuzz target `manifest_entries`: see `strata_fuzz` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| strata_fuzz::check("manifest_entries", data));
