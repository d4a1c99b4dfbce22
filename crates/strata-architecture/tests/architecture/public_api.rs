//! The `strata` crate's public API as text, one line per public item (its path and signature:
//! fn signatures, struct pub fields, enum variants, trait items, the pub methods of inherent
//! impls, trait impls), sorted, compared with the committed `crates/strata/public-api.txt`. Any
//! change to the surface is then a visible diff; bless a deliberate one with
//! `STRATA_BLESS=1 cargo test -p strata-architecture`.
//!
//! The walk starts at `crates/strata/src/lib.rs` and follows `pub mod`, `pub use` re-exports and
//! `pub` items; `#[doc(hidden)]` items and everything under `unstable` are left out. An item
//! reachable at several paths is listed at its shortest one; the others are `pub use` lines.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use quote::ToTokens;

use crate::resolve::Res;
use crate::source::{is_doc_hidden, is_pub, Binding, Crate, ModId};
use crate::workspace::workspace;

/// Modules left out of the listing (no stability promise).
const UNLISTED: &[&str] = &["unstable"];

/// Token text made readable: `Vec < u8 >` → `Vec<u8>`.
fn tidy(tokens: impl ToTokens) -> String {
    let mut s = tokens.to_token_stream().to_string();
    for (from, to) in [
        (" :: ", "::"),
        (":: ", "::"),
        (" ::", "::"),
        (" ,", ","),
        (" ;", ";"),
        ("( ", "("),
        (" )", ")"),
        ("[ ", "["),
        (" ]", "]"),
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        ("& ", "&"),
        (" :", ":"),
        (" ?", "?"),
        (" (", "("),
        ("# [", "#["),
        ("! [", "!["),
    ] {
        while s.contains(from) {
            s = s.replace(from, to);
        }
    }
    // `->` lost its spaces to the `>` rule; `impl<T>Foo` its space after `>`.
    s.replace("->", " -> ")
        .replace("  ", " ")
        .trim()
        .to_string()
}

type ItemKey = (ModId, String);

struct Walk<'a> {
    c: &'a Crate,
    /// Each public item and the paths it is reachable at.
    items: BTreeMap<ItemKey, BTreeSet<String>>,
    /// `pub use` of another crate: (path, what).
    externs: BTreeSet<String>,
    modules: BTreeSet<String>,
    seen: HashSet<(ModId, String)>,
}

impl Walk<'_> {
    fn module(&mut self, m: ModId, prefix: &str) {
        if !self.seen.insert((m, prefix.to_string())) {
            return;
        }
        self.modules.insert(prefix.to_string());
        let c = self.c;
        for (name, &child) in &c.modules[m].children {
            let cm = &c.modules[child];
            if cm.public && !cm.hidden && !UNLISTED.contains(&name.as_str()) {
                self.module(child, &format!("{prefix}::{name}"));
            }
        }
        let mut names: Vec<&String> = c.modules[m].names.keys().collect();
        names.sort();
        for name in names {
            for b in &c.modules[m].names[name] {
                let path = format!("{prefix}::{name}");
                match b {
                    Binding::Item { public, hidden, .. } => {
                        if *public && !*hidden {
                            self.items
                                .entry((m, name.clone()))
                                .or_default()
                                .insert(path);
                        }
                    }
                    Binding::Import {
                        path: target,
                        public,
                        hidden,
                    } => {
                        if *public && !*hidden && !UNLISTED.contains(&name.as_str()) {
                            self.reexport(m, target, &path);
                        }
                    }
                }
            }
        }
        for (glob, public) in &c.modules[m].globs {
            if *public {
                let (res, _) = c.resolve(m, glob);
                for r in res {
                    if let Res::Module(g) = r {
                        self.glob(g, prefix);
                    }
                }
            }
        }
    }

    /// `pub use m::*`: the public names of `m`, at `prefix`.
    fn glob(&mut self, m: ModId, prefix: &str) {
        let c = self.c;
        for (name, &child) in &c.modules[m].children {
            if c.modules[child].public {
                self.module(child, &format!("{prefix}::{name}"));
            }
        }
        for (name, bindings) in &c.modules[m].names {
            for b in bindings {
                let path = format!("{prefix}::{name}");
                match b {
                    Binding::Item {
                        public: true,
                        hidden: false,
                        ..
                    } => {
                        self.items
                            .entry((m, name.clone()))
                            .or_default()
                            .insert(path);
                    }
                    Binding::Import {
                        path: target,
                        public: true,
                        hidden: false,
                    } => self.reexport(m, target, &path),
                    _ => {}
                }
            }
        }
    }

    fn reexport(&mut self, m: ModId, target: &[String], path: &str) {
        let (res, _) = self.c.resolve(m, target);
        for r in res {
            match r {
                Res::Module(t) => self.module(t, path),
                Res::Item { module, name, .. } => {
                    self.items
                        .entry((module, name))
                        .or_default()
                        .insert(path.to_string());
                }
                Res::Extern(p) => {
                    self.externs
                        .insert(format!("{path}: pub use {}", p.join("::")));
                }
            }
        }
    }
}

fn fn_line(path: &str, vis: &syn::Visibility, sig: &syn::Signature) -> String {
    format!("{path}: {} {}", tidy(vis), tidy(sig))
}

fn derives(attrs: &[syn::Attribute]) -> String {
    let mut out = Vec::new();
    for a in attrs {
        if a.path().is_ident("derive") || a.path().is_ident("non_exhaustive") {
            out.push(tidy(a));
        }
    }
    if out.is_empty() {
        String::new()
    } else {
        format!("{} ", out.join(" "))
    }
}

fn fields_lines(path: &str, fields: &syn::Fields, out: &mut Vec<String>) {
    for (i, f) in fields.iter().enumerate() {
        if !is_pub(&f.vis) || is_doc_hidden(&f.attrs) {
            continue;
        }
        let name = f
            .ident
            .as_ref()
            .map_or_else(|| i.to_string(), |id| id.to_string());
        out.push(format!("{path}.{name}: {}", tidy(&f.ty)));
    }
}

fn item_lines(path: &str, item: &syn::Item, out: &mut Vec<String>) {
    use syn::Item;
    match item {
        Item::Fn(f) => out.push(fn_line(path, &f.vis, &f.sig)),
        Item::Struct(s) => {
            let private = s.fields.iter().any(|f| !is_pub(&f.vis));
            out.push(format!(
                "{path}: {}pub struct {}{}{}{}",
                derives(&s.attrs),
                s.ident,
                tidy(&s.generics),
                s.generics
                    .where_clause
                    .as_ref()
                    .map(|w| format!(" {}", tidy(w)))
                    .unwrap_or_default(),
                if private { " (private fields)" } else { "" }
            ));
            fields_lines(path, &s.fields, out);
        }
        Item::Union(u) => {
            out.push(format!(
                "{path}: pub union {}{}",
                u.ident,
                tidy(&u.generics)
            ));
            fields_lines(path, &syn::Fields::Named(u.fields.clone()), out);
        }
        Item::Enum(e) => {
            out.push(format!(
                "{path}: {}pub enum {}{}",
                derives(&e.attrs),
                e.ident,
                tidy(&e.generics)
            ));
            for v in &e.variants {
                if is_doc_hidden(&v.attrs) {
                    continue;
                }
                let fields = tidy(&v.fields);
                out.push(if fields.is_empty() {
                    format!("{path}::{}", v.ident)
                } else {
                    format!("{path}::{}: {fields}", v.ident)
                });
            }
        }
        Item::Trait(t) => {
            let supers = if t.supertraits.is_empty() {
                String::new()
            } else {
                format!(": {}", tidy(&t.supertraits))
            };
            out.push(format!(
                "{path}: pub {}trait {}{}{supers}",
                if t.unsafety.is_some() { "unsafe " } else { "" },
                t.ident,
                tidy(&t.generics)
            ));
            for ti in &t.items {
                match ti {
                    syn::TraitItem::Fn(f) if !is_doc_hidden(&f.attrs) => out.push(format!(
                        "{path}::{}: {}{}",
                        f.sig.ident,
                        tidy(&f.sig),
                        if f.default.is_some() {
                            " (provided)"
                        } else {
                            ""
                        }
                    )),
                    syn::TraitItem::Type(ty) if !is_doc_hidden(&ty.attrs) => {
                        out.push(format!("{path}::{}: type {}", ty.ident, tidy(&ty.bounds)))
                    }
                    syn::TraitItem::Const(k) if !is_doc_hidden(&k.attrs) => {
                        out.push(format!("{path}::{}: const {}", k.ident, tidy(&k.ty)))
                    }
                    _ => {}
                }
            }
        }
        Item::Type(t) => out.push(format!(
            "{path}: pub type {}{} = {}",
            t.ident,
            tidy(&t.generics),
            tidy(&t.ty)
        )),
        Item::Const(k) => out.push(format!("{path}: pub const {}: {}", k.ident, tidy(&k.ty))),
        Item::Static(s) => out.push(format!("{path}: pub static {}: {}", s.ident, tidy(&s.ty))),
        Item::Macro(_) => out.push(format!("{path}!: macro")),
        Item::TraitAlias(t) => out.push(format!("{path}: pub trait alias {}", t.ident)),
        _ => {}
    }
}

/// The public API of the `strata` library, one sorted line per item.
pub fn public_api(c: &Crate) -> Vec<String> {
    let mut w = Walk {
        c,
        items: BTreeMap::new(),
        externs: BTreeSet::new(),
        modules: BTreeSet::new(),
        seen: HashSet::new(),
    };
    w.module(0, "strata");
    let mut out: Vec<String> = w.modules.iter().map(|m| format!("{m}: mod")).collect();
    out.extend(w.externs.iter().cloned());
    // The shortest path of each item is where it is listed in full.
    let mut canonical: BTreeMap<ItemKey, String> = BTreeMap::new();
    for (key, paths) in &w.items {
        let canon = paths
            .iter()
            .min_by_key(|p| (p.matches("::").count(), (*p).clone()))
            .unwrap()
            .clone();
        for p in paths {
            if *p != canon {
                out.push(format!("{p}: pub use {canon}"));
            }
        }
        if let Some(item) = c.items.get(key) {
            item_lines(&canon, item, &mut out);
        }
        canonical.insert(key.clone(), canon);
    }
    for imp in &c.impls {
        if is_doc_hidden(&imp.item.attrs) {
            continue;
        }
        let syn::Type::Path(tp) = &*imp.item.self_ty else {
            continue;
        };
        let segs: Vec<String> = tp
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let (res, _) = c.resolve(imp.module, &segs);
        let Some(canon) = res.iter().find_map(|r| match r {
            Res::Item { module, name, .. } => canonical.get(&(*module, name.clone())),
            _ => None,
        }) else {
            continue;
        };
        if let Some((_, trait_path, _)) = &imp.item.trait_ {
            out.push(format!(
                "{canon}: impl{} {}{} for {}",
                tidy(&imp.item.generics),
                if imp.item.trait_.as_ref().unwrap().0.is_some() {
                    "!"
                } else {
                    ""
                },
                tidy(trait_path),
                tidy(&imp.item.self_ty)
            ));
            continue;
        }
        for ii in &imp.item.items {
            match ii {
                syn::ImplItem::Fn(f) if is_pub(&f.vis) && !is_doc_hidden(&f.attrs) => out.push(
                    fn_line(&format!("{canon}::{}", f.sig.ident), &f.vis, &f.sig),
                ),
                syn::ImplItem::Const(k) if is_pub(&k.vis) && !is_doc_hidden(&k.attrs) => {
                    out.push(format!("{canon}::{}: pub const {}", k.ident, tidy(&k.ty)))
                }
                _ => {}
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn public_api_matches_the_snapshot() {
    let ws = &workspace();
    let c = ws.lib("strata");
    let actual = public_api(c);
    assert!(
        actual.len() > 100,
        "only {} public items: is it reading the sources?",
        actual.len()
    );
    let file = ws.package("strata").dir.join("public-api.txt");
    let text = actual.join("\n") + "\n";
    if std::env::var_os("STRATA_BLESS").is_some() {
        std::fs::write(&file, &text).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&file).unwrap_or_default();
    if expected == text {
        return;
    }
    let want: BTreeSet<&str> = expected.lines().collect();
    let have: BTreeSet<&str> = actual.iter().map(String::as_str).collect();
    let mut diff: Vec<String> = want
        .difference(&have)
        .map(|l| format!("- {l}"))
        .chain(have.difference(&want).map(|l| format!("+ {l}")))
        .collect();
    diff.sort_by(|a, b| a[2..].cmp(&b[2..]));
    panic!(
        "strata's public API differs from {} ({} lines differ; - removed, + added):\n{}\n\n\
         If the change is deliberate, bless it: STRATA_BLESS=1 cargo test -p strata-architecture \
         public_api",
        ws.rel(&file),
        diff.len(),
        diff.join("\n")
    );
}
