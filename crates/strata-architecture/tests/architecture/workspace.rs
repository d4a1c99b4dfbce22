//! The workspace's packages and their targets, from `cargo metadata`, each production target
//! (lib, bin) loaded as a [`Crate`].

use std::path::{Path, PathBuf};

use crate::source::{self, Crate};

pub struct Target {
    /// `lib`, `bin`, `test`, `bench`, `example`, …
    pub kind: String,
    pub src_path: PathBuf,
}

pub struct Package {
    pub name: String,
    /// The package's directory.
    pub dir: PathBuf,
    pub manifest: PathBuf,
    pub targets: Vec<Target>,
    /// Crate names the code may use: dependencies (renames applied, `-` as `_`), the package's
    /// own library, and std's crates.
    pub externs: Vec<String>,
    /// Dependencies as (crate name, kind: `normal`/`dev`/`build`, features enabled).
    pub deps: Vec<(String, String, Vec<String>)>,
}

pub struct Workspace {
    pub root: PathBuf,
    pub packages: Vec<Package>,
    /// Every package's production targets (lib and bins), parsed.
    pub crates: Vec<Crate>,
}

impl Workspace {
    pub fn package(&self, name: &str) -> &Package {
        self.packages
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("no package {name} in the workspace"))
    }

    /// The library crate of package `name`.
    pub fn lib(&self, name: &str) -> &Crate {
        self.crates
            .iter()
            .find(|c| c.package == name && c.files[0].rel.ends_with("lib.rs"))
            .unwrap_or_else(|| panic!("package {name} has no lib.rs"))
    }

    /// A path relative to the workspace root.
    pub fn rel(&self, p: &Path) -> String {
        p.strip_prefix(&self.root)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/")
    }
}

/// The workspace, read afresh (syn's trees are not `Sync`, so each test reads its own).
pub fn workspace() -> Workspace {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .current_dir(&root)
        .output()
        .expect("running cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut packages = Vec::new();
    for p in meta["packages"].as_array().unwrap() {
        let manifest = PathBuf::from(p["manifest_path"].as_str().unwrap());
        let dir = manifest.parent().unwrap().to_path_buf();
        let mut externs: Vec<String> = ["std", "core", "alloc", "proc_macro", "test"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut deps = Vec::new();
        for d in p["dependencies"].as_array().unwrap() {
            let name = d["rename"]
                .as_str()
                .unwrap_or_else(|| d["name"].as_str().unwrap());
            externs.push(name.replace('-', "_"));
            deps.push((
                d["name"].as_str().unwrap().to_string(),
                d["kind"].as_str().unwrap_or("normal").to_string(),
                d["features"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f.as_str().unwrap().to_string())
                    .collect(),
            ));
        }
        let mut targets = Vec::new();
        for t in p["targets"].as_array().unwrap() {
            let kinds = t["kind"].as_array().unwrap();
            let kind = kinds[0].as_str().unwrap().to_string();
            if kinds
                .iter()
                .any(|k| k == "lib" || k == "rlib" || k == "cdylib")
            {
                externs.push(t["name"].as_str().unwrap().replace('-', "_"));
            }
            targets.push(Target {
                kind,
                src_path: PathBuf::from(t["src_path"].as_str().unwrap()),
            });
        }
        packages.push(Package {
            name: p["name"].as_str().unwrap().to_string(),
            dir,
            manifest,
            targets,
            externs,
            deps,
        });
    }
    packages.sort_by(|a, b| a.name.cmp(&b.name));
    let mut crates = Vec::new();
    for p in &packages {
        for t in &p.targets {
            let production = matches!(
                t.kind.as_str(),
                "lib" | "rlib" | "cdylib" | "staticlib" | "dylib" | "bin"
            );
            if production {
                crates.push(source::load(&p.name, &t.src_path, &root, p.externs.clone()));
            }
        }
    }
    Workspace {
        root,
        packages,
        crates,
    }
}
