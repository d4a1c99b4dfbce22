//! The front ends (CLI, DataFusion, Python, examples, any new crate) build on strata's stable
//! API: no path through `strata::unstable` (nor the `unstable` feature) anywhere in them, their
//! tests included. Only strata itself (its `src/` defines it, its `tests/` use it), the benchmarks
//! (`bench/`) and the fuzzers (`fuzz/`, outside the workspace) may reach it.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::source::{expand_use, rust_files, PathCollector};
use crate::workspace::workspace;

/// Packages that may use `strata::unstable`.
const MAY_USE_UNSTABLE: &[&str] = &["strata-bench"];

/// Paths in one file naming `strata::unstable` (`use` aliases of `strata` followed): (line, path).
fn unstable_paths(text: &str) -> Vec<(usize, String)> {
    let Ok(ast) = syn::parse_file(text) else {
        return Vec::new();
    };
    let mut v = PathCollector::default();
    let mut leaves_at = Vec::new();
    for item in &ast.items {
        if let syn::Item::Use(u) = item {
            let mut leaves = Vec::new();
            expand_use(&u.tree, &mut Vec::new(), &mut leaves);
            leaves_at.push((leaves, u.span().start().line));
        } else {
            v.visit_item(item);
        }
    }
    leaves_at.extend(v.uses);
    // Names bound to a path (`use strata as s;`, `use strata::unstable;`).
    let mut alias: HashMap<String, Vec<String>> = HashMap::new();
    let mut all: Vec<(usize, Vec<String>)> = Vec::new();
    for (leaves, line) in &leaves_at {
        for (path, bound) in leaves {
            let mut p = path.clone();
            if p.first().is_some_and(|s| s == "::") {
                p.remove(0);
            }
            if let Some(b) = bound {
                alias.insert(b.clone(), p.clone());
            }
            all.push((*line, p));
        }
    }
    all.extend(v.paths.into_iter().map(|(p, l)| {
        let p = if p.first().is_some_and(|s| s == "::") {
            p[1..].to_vec()
        } else {
            p
        };
        (l, p)
    }));
    let mut out = Vec::new();
    for (line, mut p) in all {
        for _ in 0..8 {
            let Some(a) = p.first().and_then(|s| alias.get(s)) else {
                break;
            };
            if a.first() == p.first() {
                break;
            }
            let mut np = a.clone();
            np.extend(p[1..].iter().cloned());
            p = np;
        }
        if p.len() >= 2 && p[0] == "strata" && p[1] == "unstable" {
            out.push((line, p.join("::")));
        }
    }
    out
}

#[test]
fn front_ends_use_only_the_stable_api() {
    let ws = &workspace();
    let mut bad = BTreeSet::new();
    let mut files = 0;
    for pkg in &ws.packages {
        if MAY_USE_UNSTABLE.contains(&pkg.name.as_str()) {
            continue;
        }
        for (dep, kind, features) in &pkg.deps {
            if dep == "strata" && features.iter().any(|f| f == "unstable") && pkg.name != "strata" {
                bad.insert(format!(
                    "{}: {} turns on strata's `unstable` feature ({kind} dependency)",
                    ws.rel(&pkg.manifest),
                    pkg.name
                ));
            }
        }
        // strata's own sources define `unstable` and its tests may use it; its examples may not.
        let roots: Vec<PathBuf> = if pkg.name == "strata" {
            vec![pkg.dir.join("examples")]
        } else {
            vec![pkg.dir.clone()]
        };
        for root in roots {
            let mut rs = Vec::new();
            rust_files(&root, &mut rs);
            for f in rs {
                if f.components().any(|c| c.as_os_str() == "target") {
                    continue;
                }
                files += 1;
                let text = std::fs::read_to_string(&f).unwrap();
                for (line, path) in unstable_paths(&text) {
                    bad.insert(format!("{}:{line}: {path}", ws.rel(&f)));
                }
            }
        }
    }
    assert!(
        files > 50,
        "only {files} front-end files read: is it reading the sources?"
    );
    assert!(
        bad.is_empty(),
        "front ends reach strata's internals through `strata::unstable` (use the stable \
         modules, or move the logic into the engine behind a small stable function):\n{}",
        bad.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn unstable_paths_are_found_in_every_form() {
    let text = r#"
        use strata::{scan::TableScan, unstable::format::ReadHints};
        use strata as s;
        use ::strata::unstable;
        fn f() {
            let _ = strata::unstable::lsm::compaction_file_size(1);
            let _ = s::unstable::meta::FileNamer::new();
            let _ = unstable::index::KeyHasher::default();
            let _ = format!("{}", strata::unstable::x());
            let _ = "strata::unstable::in_a_string";
            // strata::unstable::in_a_comment
        }
    "#;
    let found: Vec<usize> = unstable_paths(text).into_iter().map(|(l, _)| l).collect();
    assert_eq!(found, vec![2, 4, 6, 7, 8, 9], "{found:?}");
}
