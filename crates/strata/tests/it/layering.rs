//! The crate's layers (ARCHITECTURE.md) checked on its sources: a module may use only modules
//! listed before it in [`LAYERS`]. Every `crate::module` path outside comments and test code
//! counts (`use` lines, grouped `crate::{a, b}` imports, inline paths), so a new upward import
//! fails here, naming the file and line.

use std::path::{Path, PathBuf};

/// strata's modules from the bottom up.
const LAYERS: &[&str] = &[
    "unstable",
    "error",
    "fault",
    "io",
    "expr",
    "format",
    "cache",
    "meta",
    "table",
    "lsm",
    "index",
    "scan",
    "read",
    "maintenance",
    "stream",
    "system",
    "commit",
    "write",
    "catalog",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            // Test-only directories may use anything.
            if p.file_name().is_some_and(|n| n == "tests") {
                continue;
            }
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name != "tests.rs" && !name.ends_with("_tests.rs") {
                out.push(p);
            }
        }
    }
}

/// Module names a line of code refers to as `crate::name` or inside `crate::{...}`.
fn crate_refs(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

#[test]
fn lower_layers_never_import_higher_ones() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let mut violations = Vec::new();
    let mut edges = 0;
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "lib" {
            continue;
        }
        let Some(own) = rank(&module) else {
            violations.push(format!(
                "module {module} ({}) is not in LAYERS: place it in the layer list",
                rel.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(f).unwrap();
        // Inline unit tests at the end of a file may use anything.
        let code = match text.find("\n#[cfg(test)]\nmod tests") {
            Some(i) => &text[..i],
            None => &text[..],
        };
        for (n, line) in code.lines().enumerate() {
            let line = line.split("//").next().unwrap_or("");
            for dep in crate_refs(line) {
                if dep == module {
                    continue;
                }
                match rank(&dep) {
                    Some(r) if r < own => edges += 1,
                    Some(_) => violations.push(format!(
                        "{}:{}: {module} uses crate::{dep}, a layer above it",
                        rel.display(),
                        n + 1
                    )),
                    // Not a module (a crate-root item such as crate::Error's module path).
                    None => {}
                }
            }
        }
    }
    assert!(
        edges > 50,
        "the check found only {edges} imports: is it reading the sources?"
    );
    assert!(
        violations.is_empty(),
        "layering broken:\n{}",
        violations.join("\n")
    );
}
