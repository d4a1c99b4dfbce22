//! Replays the `parquet_file` fuzz corpus on the stable toolchain: every file under
//! `fuzz/corpus/parquet_file/` and `fuzz/regressions/parquet_file/` is read through strata's
//! Parquet reader by the same check the cargo-fuzz target runs (`fuzz/src/format_checks.rs`):
//! it may fail, only with an error naming the file, and must not panic.

#[path = "../../../../fuzz/src/format_checks.rs"]
mod format_checks;

use std::path::{Path, PathBuf};

fn inputs(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz")
        .join(kind)
        .join("parquet_file");
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

#[test]
fn parquet_file() {
    let mut n = 0;
    for kind in ["corpus", "regressions"] {
        for file in inputs(kind) {
            let data = std::fs::read(&file).unwrap();
            if std::panic::catch_unwind(|| format_checks::parquet_file(&data)).is_err() {
                panic!("parquet_file: {} fails its check", file.display());
            }
            n += 1;
        }
    }
    assert!(n > 0, "fuzz/corpus/parquet_file holds no seeds");
}
