//! Replays the fuzz corpora on the stable toolchain: every file under `fuzz/corpus/<target>/`
//! and `fuzz/regressions/<target>/` (inputs that once crashed a decoder, kept after the fix)
//! goes through the same check the cargo-fuzz target runs (`fuzz/src/spec_checks.rs`), so CI
//! catches a decoder regression without nightly or libFuzzer. The Parquet target is replayed
//! by `crates/strata/tests/it/fuzz_corpus.rs`.

#[allow(dead_code)]
#[path = "../../../fuzz/src/spec_checks.rs"]
mod spec_checks;

use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files of `fuzz/<kind>/<target>/`, sorted (none if the directory is absent).
fn inputs(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = fuzz_dir().join(kind).join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn replay(target: &str) -> usize {
    let mut n = 0;
    for kind in ["corpus", "regressions"] {
        for file in inputs(kind, target) {
            let data = std::fs::read(&file).unwrap();
            let outcome = std::panic::catch_unwind(|| spec_checks::check_spec(target, &data));
            match outcome {
                Ok(known) => assert!(known, "{target} is not a spec target"),
                Err(_) => panic!("{target}: {} fails its check", file.display()),
            }
            n += 1;
        }
    }
    n
}

macro_rules! corpus_test {
    ($($target:ident),* $(,)?) => {$(
        #[test]
        fn $target() {
            let n = replay(stringify!($target));
            assert!(n > 0, "fuzz/corpus/{} holds no seeds", stringify!($target));
        }
    )*};
}

corpus_test!(
    snapshot_json,
    schema_json,
    manifest_entries,
    manifest_list,
    index_manifest,
    raw_manifest,
    binary_row,
    shredding_metadata,
);

#[test]
fn every_spec_target_has_a_test() {
    // A target added to SPEC_TARGETS without a line above would go unreplayed.
    let tested = [
        "snapshot_json",
        "schema_json",
        "manifest_entries",
        "manifest_list",
        "index_manifest",
        "raw_manifest",
        "binary_row",
        "shredding_metadata",
    ];
    assert_eq!(spec_checks::SPEC_TARGETS, tested);
}
