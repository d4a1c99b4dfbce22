//! `strata-spec` is Paimon's on-disk format as pure functions over bytes and values: it depends
//! on no I/O crate and names no file system, network, process or environment API.

use std::collections::BTreeSet;

use crate::resolve::Res;
use crate::workspace::workspace;

/// Crates that do I/O (or run it: async runtimes), by name or name prefix (`arrow` covers
/// `arrow-array`, …: the columnar layer is the engine's, not the format's).
const IO_CRATES: &[&str] = &[
    "tokio",
    "futures",
    "async-",
    "object_store",
    "parquet",
    "arrow",
    "orc-rust",
    "reqwest",
    "hyper",
    "mio",
    "socket2",
    "tempfile",
    "memmap",
    "libc",
    "nix",
    "opendal",
    "aws-",
    "walkdir",
    "strata",
];

/// Paths into std that reach the outside world.
const IO_PATHS: &[&[&str]] = &[
    &["std", "fs"],
    &["std", "net"],
    &["std", "process"],
    &["std", "os"],
    &["std", "env"],
    &["std", "io", "stdin"],
    &["std", "io", "stdout"],
    &["std", "io", "stderr"],
    &["std", "time", "SystemTime"],
    &["std", "time", "Instant"],
];

fn io_crate(name: &str) -> bool {
    IO_CRATES.iter().any(|c| {
        if c.ends_with('-') {
            name.starts_with(c)
        } else {
            name == *c || name.starts_with(&format!("{c}-")) || name.starts_with(&format!("{c}_"))
        }
    })
}

#[test]
fn spec_depends_on_no_io() {
    let ws = &workspace();
    let pkg = ws.package("strata-spec");
    let mut bad = BTreeSet::new();
    for (name, kind, _) in &pkg.deps {
        if kind == "normal" && io_crate(name) {
            bad.insert(format!(
                "{}: strata-spec depends on `{name}`, an I/O crate",
                ws.rel(&pkg.manifest)
            ));
        }
    }
    let c = ws.lib("strata-spec");
    let mut seen = 0;
    let mut check = |file: &str, line: usize, written: &[String], res: &[Res]| {
        for r in res {
            let Res::Extern(p) = r else { continue };
            seen += 1;
            let first = p.first().map(String::as_str).unwrap_or("");
            let through_io_path = IO_PATHS
                .iter()
                .any(|io| p.len() >= io.len() && io.iter().zip(p).all(|(a, b)| a == b));
            if through_io_path || io_crate(&first.replace('_', "-")) {
                bad.insert(format!(
                    "{file}:{line}: `{}` names `{}`, which does I/O",
                    written.join("::"),
                    p.join("::")
                ));
            }
        }
    };
    for r in &c.refs {
        let (res, _) = c.resolve(r.module, &r.path);
        check(&c.files[r.file].rel, r.line, &r.path, &res);
    }
    for (m, module) in c.modules.iter().enumerate() {
        for (glob, _) in &module.globs {
            let (res, _) = c.resolve(m, glob);
            check(&c.files[module.file].rel, 0, glob, &res);
        }
    }
    assert!(
        seen > 100,
        "only {seen} paths into other crates: is it reading the sources?"
    );
    assert!(
        bad.is_empty(),
        "strata-spec must stay pure (no I/O):\n{}",
        bad.into_iter().collect::<Vec<_>>().join("\n")
    );
}
