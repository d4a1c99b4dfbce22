//! Helpers shared by the CLI integration tests: run the `strata` binary on a warehouse and
//! read its JSON-lines output.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

pub fn strata(warehouse: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .arg("--warehouse")
        .arg(warehouse)
        .args(args)
        .output()
        .expect("run strata")
}

pub fn ok(warehouse: &Path, args: &[&str]) -> String {
    let out = strata(warehouse, args);
    assert!(
        out.status.success(),
        "strata {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

pub fn fails(warehouse: &Path, args: &[&str]) -> String {
    let out = strata(warehouse, args);
    assert!(!out.status.success(), "strata {args:?} succeeded");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn jsonl(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}
