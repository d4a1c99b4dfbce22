//! Shared by strata's example programs (see README.md): where an example's warehouse is.

/// The warehouse an example uses: the first command-line argument, or a fresh temporary
/// directory (kept alive by the returned guard) when none is given.
pub fn warehouse_from_args() -> (String, Option<tempfile::TempDir>) {
    match std::env::args().nth(1) {
        Some(w) => (w, None),
        None => {
            let dir = tempfile::tempdir().expect("a temporary directory");
            (
                dir.path().to_str().expect("a UTF-8 path").to_string(),
                Some(dir),
            )
        }
    }
}

/// The examples' error type: any error, with its message.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
