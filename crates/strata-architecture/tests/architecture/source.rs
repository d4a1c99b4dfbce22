//! One crate's sources as the checks see them: the module tree (followed from the crate root
//! through `mod` declarations and `#[path]` attributes, `#[cfg(test)]` modules left out), the
//! names each module defines or imports, and every path the code names (`use` trees expanded,
//! inline paths in expressions, types and patterns, paths inside macro invocations).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::visit::Visit;

pub type FileId = usize;
pub type ModId = usize;

/// A source file of the crate.
pub struct SourceFile {
    /// Path relative to the workspace root, with `/`.
    pub rel: String,
    /// The module this file is.
    pub module: ModId,
}

/// What a name in a module's namespace is bound to.
#[derive(Clone)]
pub enum Binding {
    /// An item defined here (fn, struct, enum, trait, const, …), in `file`.
    Item {
        file: FileId,
        public: bool,
        hidden: bool,
    },
    /// A `use` import (or re-export): the path as written, resolved from `module`.
    Import {
        path: Vec<String>,
        public: bool,
        hidden: bool,
    },
}

pub struct Module {
    pub name: String,
    pub parent: Option<ModId>,
    /// The file the module's items are written in (for an inline `mod x { … }`, the file that
    /// contains it).
    pub file: FileId,
    pub public: bool,
    pub hidden: bool,
    pub children: BTreeMap<String, ModId>,
    pub names: HashMap<String, Vec<Binding>>,
    /// `use path::*` imports: (path, public).
    pub globs: Vec<(Vec<String>, bool)>,
}

/// Whether a named path came from a `use` tree or was written inline.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RefKind {
    Use,
    Inline,
}

/// A path the code names.
pub struct Ref {
    pub file: FileId,
    pub module: ModId,
    pub line: usize,
    pub path: Vec<String>,
    pub kind: RefKind,
}

/// An `impl` block (for the public-API listing).
pub struct Impl {
    pub module: ModId,
    pub item: syn::ItemImpl,
}

pub struct Crate {
    /// The package name (for messages).
    pub package: String,
    pub files: Vec<SourceFile>,
    pub modules: Vec<Module>,
    pub refs: Vec<Ref>,
    pub impls: Vec<Impl>,
    /// Every item defined, by (module, name): the syntax, for the public-API listing.
    pub items: HashMap<(ModId, String), syn::Item>,
    /// Names of the crates the code may name by their first segment (dependencies, std).
    pub externs: Vec<String>,
    /// Resolutions made so far (see `resolve.rs`).
    pub memo: RefCell<HashMap<(ModId, Vec<String>), Resolved>>,
    /// Lookups under way (a guard against import loops).
    pub in_progress: RefCell<Vec<(ModId, String)>>,
}

/// What a path resolves to, and the modules the resolution went through.
pub type Resolved = (Vec<crate::resolve::Res>, Vec<ModId>);

impl Crate {
    /// The module path of `m` below the crate root (`[]` for the root).
    pub fn module_path(&self, m: ModId) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = Some(m);
        while let Some(c) = cur {
            if let Some(p) = self.modules[c].parent {
                out.push(self.modules[c].name.clone());
                cur = Some(p);
            } else {
                cur = None;
            }
        }
        out.reverse();
        out
    }
}

/// Loads the crate rooted at `root` (a `lib.rs`, `main.rs` or other target source).
pub fn load(package: &str, root: &Path, workspace: &Path, externs: Vec<String>) -> Crate {
    let mut c = Crate {
        package: package.to_string(),
        files: Vec::new(),
        modules: Vec::new(),
        refs: Vec::new(),
        impls: Vec::new(),
        items: HashMap::new(),
        externs,
        memo: RefCell::new(HashMap::new()),
        in_progress: RefCell::new(Vec::new()),
    };
    c.modules.push(Module {
        name: String::new(),
        parent: None,
        file: 0,
        public: true,
        hidden: false,
        children: BTreeMap::new(),
        names: HashMap::new(),
        globs: Vec::new(),
    });
    let dir = root.parent().unwrap().to_path_buf();
    load_file(&mut c, root, 0, &dir, workspace);
    c
}

fn read(path: &Path) -> syn::File {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    syn::parse_file(&text)
        .unwrap_or_else(|e| panic!("parsing {}:{}: {e}", path.display(), e.span().start().line))
}

fn load_file(c: &mut Crate, path: &Path, module: ModId, child_dir: &Path, workspace: &Path) {
    let ast = read(path);
    let rel = path
        .strip_prefix(workspace)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/");
    let file = c.files.len();
    c.files.push(SourceFile { rel, module });
    c.modules[module].file = file;
    let file_dir = path.parent().unwrap().to_path_buf();
    collect_items(c, &ast.items, module, file, child_dir, &file_dir, workspace);
}

/// Whether attributes switch the item off outside tests (`#[cfg(test)]`, `#[test]`,
/// `#[cfg(all(test, …))]`).
pub fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        if a.path().is_ident("test") {
            return true;
        }
        if !a.path().is_ident("cfg") {
            return false;
        }
        let Ok(tokens) = a.meta.require_list().map(|l| l.tokens.clone()) else {
            return false;
        };
        cfg_requires_test(tokens)
    })
}

fn cfg_requires_test(tokens: TokenStream) -> bool {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    match trees.as_slice() {
        [TokenTree::Ident(i)] => i == "test",
        [TokenTree::Ident(i), TokenTree::Group(g)] if i == "all" => {
            // `all(a, b, …)`: test-only when one of the parts is.
            let mut part = TokenStream::new();
            for t in g.stream() {
                if matches!(&t, TokenTree::Punct(p) if p.as_char() == ',') {
                    if cfg_requires_test(std::mem::take(&mut part)) {
                        return true;
                    }
                } else {
                    part.extend([t]);
                }
            }
            cfg_requires_test(part)
        }
        _ => false,
    }
}

pub fn is_doc_hidden(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("doc")
            && a.meta
                .require_list()
                .is_ok_and(|l| l.tokens.to_string().trim() == "hidden")
    })
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| {
        if !a.path().is_ident("path") {
            return None;
        }
        let nv = a.meta.require_name_value().ok()?;
        match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        }
    })
}

pub fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item::*;
    match item {
        Const(i) => &i.attrs,
        Enum(i) => &i.attrs,
        ExternCrate(i) => &i.attrs,
        Fn(i) => &i.attrs,
        ForeignMod(i) => &i.attrs,
        Impl(i) => &i.attrs,
        Macro(i) => &i.attrs,
        Mod(i) => &i.attrs,
        Static(i) => &i.attrs,
        Struct(i) => &i.attrs,
        Trait(i) => &i.attrs,
        TraitAlias(i) => &i.attrs,
        Type(i) => &i.attrs,
        Union(i) => &i.attrs,
        Use(i) => &i.attrs,
        _ => &[],
    }
}

fn item_name_vis(item: &syn::Item) -> Option<(String, Option<&syn::Visibility>)> {
    use syn::Item::*;
    Some(match item {
        Const(i) => (i.ident.to_string(), Some(&i.vis)),
        Enum(i) => (i.ident.to_string(), Some(&i.vis)),
        Fn(i) => (i.sig.ident.to_string(), Some(&i.vis)),
        Static(i) => (i.ident.to_string(), Some(&i.vis)),
        Struct(i) => (i.ident.to_string(), Some(&i.vis)),
        Trait(i) => (i.ident.to_string(), Some(&i.vis)),
        TraitAlias(i) => (i.ident.to_string(), Some(&i.vis)),
        Type(i) => (i.ident.to_string(), Some(&i.vis)),
        Union(i) => (i.ident.to_string(), Some(&i.vis)),
        Macro(i) => {
            let name = i.ident.as_ref()?.to_string();
            let exported = i.attrs.iter().any(|a| a.path().is_ident("macro_export"));
            return Some((
                name,
                if exported {
                    None
                } else {
                    Some(&syn::Visibility::Inherited)
                },
            ));
        }
        _ => return None,
    })
}

/// `pub` exactly (not `pub(crate)`, `pub(super)`, `pub(in …)`).
pub fn is_pub(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

#[allow(clippy::too_many_arguments)]
fn collect_items(
    c: &mut Crate,
    items: &[syn::Item],
    module: ModId,
    file: FileId,
    child_dir: &Path,
    file_dir: &Path,
    workspace: &Path,
) {
    for item in items {
        let attrs = item_attrs(item);
        if is_test_only(attrs) {
            continue;
        }
        let hidden = is_doc_hidden(attrs);
        match item {
            syn::Item::Mod(m) => {
                let name = m.ident.to_string();
                let child = c.modules.len();
                c.modules.push(Module {
                    name: name.clone(),
                    parent: Some(module),
                    file,
                    public: is_pub(&m.vis),
                    hidden,
                    children: BTreeMap::new(),
                    names: HashMap::new(),
                    globs: Vec::new(),
                });
                c.modules[module].children.insert(name.clone(), child);
                if let Some((_, content)) = &m.content {
                    let dir = child_dir.join(&name);
                    collect_items(c, content, child, file, &dir, file_dir, workspace);
                } else {
                    let path = match path_attr(&m.attrs) {
                        Some(p) => file_dir.join(p),
                        None => {
                            let flat = child_dir.join(format!("{name}.rs"));
                            if flat.exists() {
                                flat
                            } else {
                                child_dir.join(&name).join("mod.rs")
                            }
                        }
                    };
                    let dir = if path.file_name().is_some_and(|n| n == "mod.rs") {
                        path.parent().unwrap().to_path_buf()
                    } else {
                        path.parent().unwrap().join(path.file_stem().unwrap())
                    };
                    load_file(c, &path, child, &dir, workspace);
                }
            }
            syn::Item::Use(u) => {
                let public = is_pub(&u.vis);
                let line = u.span().start().line;
                let mut leaves = Vec::new();
                expand_use(&u.tree, &mut Vec::new(), &mut leaves);
                if u.leading_colon.is_some() {
                    for (p, _) in &mut leaves {
                        p.insert(0, "::".to_string());
                    }
                }
                add_uses(c, module, file, line, leaves, public, hidden);
            }
            syn::Item::ExternCrate(e) => {
                let name = e
                    .rename
                    .as_ref()
                    .map(|(_, r)| r.to_string())
                    .unwrap_or_else(|| e.ident.to_string());
                let target = if e.ident == "self" {
                    "crate".to_string()
                } else {
                    e.ident.to_string()
                };
                let path = if target == "crate" {
                    vec!["crate".to_string()]
                } else {
                    vec!["::".to_string(), target]
                };
                c.modules[module]
                    .names
                    .entry(name)
                    .or_default()
                    .push(Binding::Import {
                        path,
                        public: is_pub(&e.vis),
                        hidden,
                    });
            }
            _ => {
                if let Some((name, vis)) = item_name_vis(item) {
                    let public = vis.is_none_or(is_pub);
                    c.modules[module]
                        .names
                        .entry(name.clone())
                        .or_default()
                        .push(Binding::Item {
                            file,
                            public,
                            hidden,
                        });
                    c.items.insert((module, name), item.clone());
                }
                if let syn::Item::Impl(i) = item {
                    c.impls.push(Impl {
                        module,
                        item: i.clone(),
                    });
                }
                let mut v = PathCollector::default();
                v.visit_item(item);
                for (path, line) in v.paths {
                    c.refs.push(Ref {
                        file,
                        module,
                        line,
                        path,
                        kind: RefKind::Inline,
                    });
                }
                for (leaves, line) in v.uses {
                    add_uses(c, module, file, line, leaves, false, false);
                }
            }
        }
    }
}

/// A `use` leaf: the path, and the name it binds (`None` for a glob).
type UseLeaf = (Vec<String>, Option<String>);

fn add_uses(
    c: &mut Crate,
    module: ModId,
    file: FileId,
    line: usize,
    leaves: Vec<UseLeaf>,
    public: bool,
    hidden: bool,
) {
    for (path, bound) in leaves {
        match bound {
            Some(name) => {
                if name != "_" {
                    c.modules[module]
                        .names
                        .entry(name)
                        .or_default()
                        .push(Binding::Import {
                            path: path.clone(),
                            public,
                            hidden,
                        });
                }
                c.refs.push(Ref {
                    file,
                    module,
                    line,
                    path,
                    kind: RefKind::Use,
                });
            }
            None => {
                // A glob names nothing by itself; the names used through it are resolved
                // through the module's globs. A `pub use m::*` re-exports, so it imports m.
                if public {
                    c.refs.push(Ref {
                        file,
                        module,
                        line,
                        path: path.clone(),
                        kind: RefKind::Use,
                    });
                }
                c.modules[module].globs.push((path, public));
            }
        }
    }
}

/// Expands a `use` tree into its leaves: `a::{b, c::{self, d as e}, f::*}` →
/// `a::b` (b), `a::c` (c), `a::c::d` (e), `a::f` (glob).
pub fn expand_use(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<UseLeaf>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            expand_use(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                out.push((prefix.clone(), prefix.last().cloned()));
            } else {
                let mut p = prefix.clone();
                p.push(name.clone());
                out.push((p, Some(name)));
            }
        }
        syn::UseTree::Rename(r) => {
            let name = r.ident.to_string();
            let mut p = prefix.clone();
            if name != "self" {
                p.push(name);
            }
            out.push((p, Some(r.rename.to_string())));
        }
        syn::UseTree::Glob(_) => out.push((prefix.clone(), None)),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                expand_use(t, prefix, out);
            }
        }
    }
}

/// Collects the paths an item's code names, skipping test-only parts.
#[derive(Default)]
pub struct PathCollector {
    pub paths: Vec<(Vec<String>, usize)>,
    pub uses: Vec<(Vec<UseLeaf>, usize)>,
}

impl<'ast> Visit<'ast> for PathCollector {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        if is_test_only(item_attrs(i)) {
            return;
        }
        match i {
            syn::Item::Use(u) => {
                let mut leaves = Vec::new();
                expand_use(&u.tree, &mut Vec::new(), &mut leaves);
                if u.leading_colon.is_some() {
                    for (p, _) in &mut leaves {
                        p.insert(0, "::".to_string());
                    }
                }
                self.uses.push((leaves, u.span().start().line));
            }
            // Nested inline modules inside bodies are rare; their paths count as the item's.
            _ => syn::visit::visit_item(self, i),
        }
    }

    fn visit_impl_item(&mut self, i: &'ast syn::ImplItem) {
        let attrs = match i {
            syn::ImplItem::Fn(f) => &f.attrs,
            syn::ImplItem::Const(c) => &c.attrs,
            syn::ImplItem::Type(t) => &t.attrs,
            _ => return syn::visit::visit_impl_item(self, i),
        };
        if !is_test_only(attrs) {
            syn::visit::visit_impl_item(self, i);
        }
    }

    // `pub(super)`, `pub(in crate::x)` name no item.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let mut segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if p.leading_colon.is_some() {
            segs.insert(0, "::".to_string());
        }
        self.paths.push((segs, p.span().start().line));
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.visit_path(&m.path);
        macro_paths(m.tokens.clone(), &mut self.paths);
    }
}

/// Paths in a macro's tokens: runs of `ident (:: ident)*` (with `$crate` read as `crate`).
fn macro_paths(tokens: TokenStream, out: &mut Vec<(Vec<String>, usize)>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        match &trees[i] {
            TokenTree::Group(g) => {
                macro_paths(g.stream(), out);
                i += 1;
            }
            TokenTree::Ident(id) => {
                let line = id.span().start().line;
                let mut segs = vec![id.to_string()];
                // A `::` before the first ident (`::std::…`).
                let leading = i >= 2
                    && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == ':')
                    && matches!(&trees[i - 2], TokenTree::Punct(p) if p.as_char() == ':')
                    && !(i >= 3 && matches!(&trees[i - 3], TokenTree::Ident(_)));
                if leading {
                    segs.insert(0, "::".to_string());
                }
                let mut j = i + 1;
                while j + 2 < trees.len()
                    && matches!(&trees[j], TokenTree::Punct(p) if p.as_char() == ':')
                    && matches!(&trees[j + 1], TokenTree::Punct(p) if p.as_char() == ':')
                {
                    if let TokenTree::Ident(next) = &trees[j + 2] {
                        segs.push(next.to_string());
                        j += 3;
                    } else {
                        break;
                    }
                }
                // Generic arguments in a turbofish end the path (`x::<T>::y` is rare).
                out.push((segs, line));
                i = j;
            }
            _ => i += 1,
        }
    }
}

/// Every `.rs` file under `dir` (recursively).
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}
