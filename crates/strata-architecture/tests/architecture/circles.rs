//! No import circle, in any crate of the workspace: between files (file A uses an item defined
//! in file B, or the module B is; a parent's `mod child;` is no import), nor between folders
//! (the sibling modules under any module — a folder with everything below it, or a file — use
//! each other one way only). Tests and `#[cfg(test)]` code don't count.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::resolve::{circles, Graph};
use crate::source::{Crate, FileId, ModId};
use crate::workspace::workspace;

/// The file circles of one crate, as text (empty when there are none).
pub fn file_circles(c: &Crate, g: &Graph) -> Vec<String> {
    let n = c.files.len();
    let succ = |v: usize| -> Vec<usize> {
        g.edges
            .get(&v)
            .map(|m| m.keys().copied().collect())
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    for comp in circles(n, &succ) {
        let set: BTreeSet<FileId> = comp.iter().copied().collect();
        let mut s = format!(
            "{}: file circle of {} files: {}\n",
            c.package,
            comp.len(),
            comp.iter()
                .map(|f| c.files[*f].rel.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        for &a in &comp {
            for (b, e) in &g.edges[&a] {
                if set.contains(b) {
                    let _ = writeln!(
                        s,
                        "  {}:{} -> {}: {}",
                        c.files[a].rel,
                        e.line,
                        c.files[*b].rel,
                        e.names.iter().cloned().collect::<Vec<_>>().join(", ")
                    );
                }
            }
        }
        out.push(s);
    }
    out
}

/// The child of `m` on the way down to module `x` (`None` when `x` is not strictly below `m`).
fn child_towards(c: &Crate, m: ModId, x: ModId) -> Option<ModId> {
    let mut cur = x;
    while let Some(p) = c.modules[cur].parent {
        if p == m {
            return Some(cur);
        }
        cur = p;
    }
    None
}

/// Whether module `m` spans more than its own file (a folder: a child in a file of its own).
fn is_folder(c: &Crate, m: ModId) -> bool {
    c.modules[m]
        .children
        .values()
        .any(|&ch| c.modules[ch].file != c.modules[m].file || is_folder(c, ch))
}

fn unit_name(c: &Crate, m: ModId) -> String {
    let f = &c.files[c.modules[m].file].rel;
    if is_folder(c, m) {
        format!("{}/", f.rsplit_once('/').map_or(f.as_str(), |(d, _)| d))
    } else {
        f.clone()
    }
}

/// The folder circles of one crate: under each module, its child modules (each with everything
/// below it) form a graph; a circle there with at least one folder in it (circles of plain files
/// are file circles, reported as such).
pub fn folder_circles(c: &Crate, g: &Graph) -> Vec<String> {
    let mut out = Vec::new();
    for m in 0..c.modules.len() {
        let units: Vec<ModId> = c.modules[m]
            .children
            .values()
            .copied()
            .filter(|&ch| c.modules[ch].file != c.modules[m].file)
            .collect();
        if units.len() < 2 || !units.iter().any(|&u| is_folder(c, u)) {
            continue;
        }
        let index: BTreeMap<ModId, usize> =
            units.iter().enumerate().map(|(i, u)| (*u, i)).collect();
        let unit_of = |f: FileId| -> Option<usize> {
            child_towards(c, m, c.files[f].module).and_then(|u| index.get(&u).copied())
        };
        // unit → unit → the file edges behind it.
        let mut ue: BTreeMap<usize, BTreeMap<usize, Vec<(FileId, FileId)>>> = BTreeMap::new();
        for (&a, tos) in &g.edges {
            let Some(ua) = unit_of(a) else { continue };
            for &b in tos.keys() {
                let Some(ub) = unit_of(b) else { continue };
                if ua != ub {
                    ue.entry(ua)
                        .or_default()
                        .entry(ub)
                        .or_default()
                        .push((a, b));
                }
            }
        }
        let succ = |v: usize| -> Vec<usize> {
            ue.get(&v)
                .map(|m| m.keys().copied().collect())
                .unwrap_or_default()
        };
        for comp in circles(units.len(), &succ) {
            if !comp.iter().any(|&u| is_folder(c, units[u])) {
                continue;
            }
            let set: BTreeSet<usize> = comp.iter().copied().collect();
            let mut s = format!(
                "{}: folder circle of {}\n",
                c.package,
                comp.iter()
                    .map(|&u| unit_name(c, units[u]))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            for &u in &comp {
                for (v, files) in &ue[&u] {
                    if !set.contains(v) {
                        continue;
                    }
                    let _ = writeln!(
                        s,
                        "  {} -> {}:",
                        unit_name(c, units[u]),
                        unit_name(c, units[*v])
                    );
                    for (a, b) in files {
                        let e = &g.edges[a][b];
                        let _ = writeln!(
                            s,
                            "    {}:{} -> {}: {}",
                            c.files[*a].rel,
                            e.line,
                            c.files[*b].rel,
                            e.names.iter().cloned().collect::<Vec<_>>().join(", ")
                        );
                    }
                }
            }
            out.push(s);
        }
    }
    out
}

#[test]
fn no_import_circle_between_files_or_folders() {
    let ws = &workspace();
    let mut found = Vec::new();
    let mut edges = 0;
    for c in &ws.crates {
        let g = c.file_graph();
        edges += g.edges.values().map(|m| m.len()).sum::<usize>();
        found.extend(file_circles(c, &g));
        found.extend(folder_circles(c, &g));
    }
    assert!(
        edges > 500,
        "the check found only {edges} imports between files: is it reading the sources?"
    );
    assert!(
        found.is_empty(),
        "{} import circles (move what both sides share down into a small leaf file, so \
         imports run one way):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn tarjan_finds_each_circle_once() {
    // 0 → 1 → 2 → 0 is a circle, 3 → 4 → 3 another, 5 stands alone, 2 → 3 links them one way.
    let edges: [&[usize]; 6] = [&[1], &[2], &[0, 3], &[4], &[3], &[5]];
    let found = circles(6, &|v| edges[v].to_vec());
    assert_eq!(found, vec![vec![0, 1, 2], vec![3, 4]]);
}
