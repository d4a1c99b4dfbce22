//! The core crate's layers: each top-level module of `crates/strata/src` uses only modules
//! listed before it in [`LAYERS`] (through any path: `use` trees, inline `crate::…`,
//! `super::…`, a re-export at the crate root). A new module goes into the table at the height
//! of what it uses; an upward import fails here, naming the file, line and path.

use std::collections::BTreeSet;

use crate::workspace::workspace;

/// strata's top-level modules from the bottom up. `unstable` re-exports internals for strata's
/// own benchmarks, fuzzers and tests, so it is at the top: no module reaches anything through it.
const LAYERS: &[&str] = &[
    "error",
    "fault",
    "clock",
    "io",
    "expr",
    "format",
    "arrow",
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
    "unstable",
];

#[test]
fn core_modules_use_only_lower_layers() {
    let ws = &workspace();
    let c = ws.lib("strata");
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let mut violations = BTreeSet::new();
    let mut edges = 0;
    for top in c.modules[0].children.keys() {
        if rank(top).is_none() {
            violations.insert(format!(
                "module `{top}` is not in LAYERS (crates/strata-architecture/tests/architecture/layers.rs): place it at the height of what it uses"
            ));
        }
    }
    for r in &c.refs {
        let own_path = c.module_path(r.module);
        let Some(own) = own_path.first() else {
            continue; // lib.rs: the crate root declares and re-exports everything
        };
        let Some(own_rank) = rank(own) else { continue };
        let (_, touched) = c.resolve(r.module, &r.path);
        for m in touched {
            let Some(top) = c.module_path(m).first().cloned() else {
                continue;
            };
            if top == *own {
                continue;
            }
            match rank(&top) {
                Some(t) if t < own_rank => edges += 1,
                _ => {
                    violations.insert(format!(
                        "{}:{}: `{own}` uses `{}`, which reaches `{top}`, a layer above it",
                        c.files[r.file].rel,
                        r.line,
                        r.path.join("::")
                    ));
                }
            }
        }
    }
    assert!(
        edges > 200,
        "the check found only {edges} imports between modules: is it reading the sources?"
    );
    assert!(
        violations.is_empty(),
        "layering broken (a module may use only modules listed before it in LAYERS):\n{}",
        violations.into_iter().collect::<Vec<_>>().join("\n")
    );
}
