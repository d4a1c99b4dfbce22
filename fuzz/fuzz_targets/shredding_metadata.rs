//! cargo-fuzz target `shredding_metadata`: see `strata_fuzz` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| strata_fuzz::check("shredding_metadata", data));
