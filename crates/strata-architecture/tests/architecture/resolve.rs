//! Name resolution over a [`Crate`]: a path as written in a module (`crate::…`, `self::…`,
//! `super::…`, a name imported or defined there, a glob-imported name, an extern crate) to what
//! it names, following `use` imports and re-exports to the item's definition; and the crate's
//! file-level import graph built from it.

use std::collections::{BTreeMap, BTreeSet};

use crate::source::{Binding, Crate, FileId, ModId, RefKind};

/// What a path names.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Res {
    Module(ModId),
    /// An item defined in `module` (in `file`); a path continuing into it (`Type::new`,
    /// `Enum::Variant`) names the item.
    Item {
        module: ModId,
        name: String,
        file: FileId,
    },
    /// A path into another crate (`std::fs::File`, `strata::unstable::x`), in full.
    Extern(Vec<String>),
}

/// How deep imports are followed (import chains are short; this guards against loops).
const MAX_DEPTH: usize = 32;

impl Crate {
    /// What `path`, written in module `ctx`, names, and every module whose namespace the
    /// resolution went through (the modules of the results included).
    pub fn resolve(&self, ctx: ModId, path: &[String]) -> (Vec<Res>, Vec<ModId>) {
        let key = (ctx, path.to_vec());
        if let Some(hit) = self.memo.borrow().get(&key) {
            return hit.clone();
        }
        let mut touched = Vec::new();
        let res = self.resolve_in(ctx, path, 0, &mut touched);
        for r in &res {
            match r {
                Res::Module(m) => touched.push(*m),
                Res::Item { module, .. } => touched.push(*module),
                Res::Extern(_) => {}
            }
        }
        touched.sort();
        touched.dedup();
        self.memo
            .borrow_mut()
            .insert(key, (res.clone(), touched.clone()));
        (res, touched)
    }

    fn parent(&self, m: ModId) -> ModId {
        self.modules[m].parent.unwrap_or(m)
    }

    fn resolve_in(
        &self,
        ctx: ModId,
        path: &[String],
        depth: usize,
        touched: &mut Vec<ModId>,
    ) -> Vec<Res> {
        if path.is_empty() || depth > MAX_DEPTH {
            return Vec::new();
        }
        let mut cur = match path[0].as_str() {
            "crate" => vec![Res::Module(0)],
            "self" => vec![Res::Module(ctx)],
            "super" => vec![Res::Module(self.parent(ctx))],
            "::" => return vec![Res::Extern(path[1..].to_vec())],
            "Self" => return Vec::new(),
            name => {
                let found = self.lookup(ctx, name, path.len() > 1, depth, touched);
                if found.is_empty() {
                    if self.externs.iter().any(|e| e == name) {
                        return vec![Res::Extern(path.to_vec())];
                    }
                    return Vec::new();
                }
                found
            }
        };
        for (i, seg) in path.iter().enumerate().skip(1) {
            let want_module = i + 1 < path.len();
            let mut next = Vec::new();
            for r in cur {
                match r {
                    Res::Module(m) => match seg.as_str() {
                        "super" => next.push(Res::Module(self.parent(m))),
                        "self" => next.push(Res::Module(m)),
                        _ => next.extend(self.lookup(m, seg, want_module, depth, touched)),
                    },
                    item @ Res::Item { .. } => next.push(item),
                    Res::Extern(mut p) => {
                        p.push(seg.clone());
                        next.push(Res::Extern(p));
                    }
                }
            }
            next.dedup();
            cur = next;
        }
        cur
    }

    /// `name` in module `m`'s namespace: a child module, an item, an import, a glob import.
    fn lookup(
        &self,
        m: ModId,
        name: &str,
        want_module: bool,
        depth: usize,
        touched: &mut Vec<ModId>,
    ) -> Vec<Res> {
        let key = (m, name.to_string());
        if self.in_progress.borrow().contains(&key) {
            return Vec::new(); // a loop of imports (through globs): nothing new down this way
        }
        self.in_progress.borrow_mut().push(key);
        let out = self.lookup_fresh(m, name, want_module, depth, touched);
        self.in_progress.borrow_mut().pop();
        out
    }

    fn lookup_fresh(
        &self,
        m: ModId,
        name: &str,
        want_module: bool,
        depth: usize,
        touched: &mut Vec<ModId>,
    ) -> Vec<Res> {
        let module = &self.modules[m];
        let mut out = Vec::new();
        if let Some(&child) = module.children.get(name) {
            out.push(Res::Module(child));
        }
        if let Some(bindings) = module.names.get(name) {
            for b in bindings {
                match b {
                    Binding::Item { file, .. } => out.push(Res::Item {
                        module: m,
                        name: name.to_string(),
                        file: *file,
                    }),
                    Binding::Import { path, .. } => {
                        out.extend(self.resolve_in(m, path, depth + 1, touched))
                    }
                }
            }
        }
        if out.is_empty() {
            for (glob, _) in &module.globs {
                for g in self.resolve_in(m, glob, depth + 1, touched) {
                    if let Res::Module(g) = g {
                        if g != m {
                            out.extend(self.lookup(g, name, want_module, depth + 1, touched));
                        }
                    }
                }
            }
        }
        if !out.is_empty() {
            touched.push(m);
        }
        // In the middle of a path, a module wins over a same-named item (`mod parse;` beside
        // `pub use parse::parse;`).
        if want_module && out.iter().any(|r| !matches!(r, Res::Item { .. })) {
            out.retain(|r| !matches!(r, Res::Item { .. }));
        }
        out.dedup();
        out
    }

    /// The file a resolution lands in (none for an extern path).
    pub fn target_file(&self, r: &Res) -> Option<FileId> {
        match r {
            Res::Module(m) => Some(self.modules[*m].file),
            Res::Item { file, .. } => Some(*file),
            Res::Extern(_) => None,
        }
    }

    /// The crate's import graph between files: `from → to → (names, first line)`.
    pub fn file_graph(&self) -> Graph {
        let mut g = Graph::default();
        for r in &self.refs {
            let (res, _) = self.resolve(r.module, &r.path);
            for t in res {
                let Some(to) = self.target_file(&t) else {
                    continue;
                };
                if to == r.file {
                    continue;
                }
                let name = r.path.last().cloned().unwrap_or_default();
                let name = if name == "self" || name == "super" || name == "crate" {
                    r.path.join("::")
                } else {
                    name
                };
                let e = g
                    .edges
                    .entry(r.file)
                    .or_default()
                    .entry(to)
                    .or_insert_with(|| Edge {
                        names: BTreeSet::new(),
                        line: r.line,
                        via_use: r.kind == RefKind::Use,
                    });
                e.names.insert(name);
                e.line = e.line.min(r.line);
            }
        }
        g
    }
}

pub struct Edge {
    pub names: BTreeSet<String>,
    pub line: usize,
    #[allow(dead_code)]
    pub via_use: bool,
}

#[derive(Default)]
pub struct Graph {
    pub edges: BTreeMap<usize, BTreeMap<usize, Edge>>,
}

/// Strongly connected components of more than one node (Tarjan), each sorted; `n` nodes
/// `0..n`, `succ(v)` their successors.
pub fn circles(n: usize, succ: &dyn Fn(usize) -> Vec<usize>) -> Vec<Vec<usize>> {
    struct State<'a> {
        succ: &'a dyn Fn(usize) -> Vec<usize>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn strong(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for w in (s.succ)(v) {
            match s.index[w] {
                None => {
                    strong(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        succ,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            strong(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}
