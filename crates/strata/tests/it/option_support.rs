//! Every table option `strata_spec::options::support` classifies as `Implemented` is read by
//! strata: its key text, the name of its constant in `strata_spec::options::keys`, or a
//! `CoreOptions` getter whose body reads it occurs in the non-test sources of `strata` and
//! `strata-spec` outside the options module itself (`strata-spec/src/options.rs` and
//! `strata-spec/src/options/`, where every key is named and validated). The test fails when a
//! key is classified `Implemented` but nothing in strata reads it.
//!
//! Plain text search, deliberately simple: a key counts as read when one of
//! * the literal `"key"` (per-column options: `"suffix"`, as in `fields.<col>.suffix`),
//! * a `pub const NAME: &str = "key";` of `options/keys.rs`, as the word `NAME`,
//! * a call `.getter(` of a `pub fn getter` of `options.rs` whose body holds the literal or
//!   the constant, or calls another such getter
//!
//! occurs in a source file. Unit-test files (`tests.rs`, `*_tests.rs`, `tests/` directories)
//! and inline `#[cfg(test)] mod … {` blocks (taken to run to the end of their file) are left
//! out.

use std::fs;
use std::path::{Path, PathBuf};

use strata_spec::options::known::{KNOWN_KEYS, KNOWN_PREFIXES};
use strata_spec::options::support::{field_option_suffixes, option_support, OptionSupport};

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crates/strata has a parent directory")
        .to_path_buf()
}

fn spec_src() -> PathBuf {
    crates_dir().join("strata-spec").join("src")
}

/// The options module root: `options.rs`, or `options/mod.rs`.
fn options_root() -> PathBuf {
    let file = spec_src().join("options.rs");
    if file.exists() {
        file
    } else {
        spec_src().join("options").join("mod.rs")
    }
}

fn is_test_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    name == "tests.rs" || name.ends_with("_tests.rs")
}

/// `text` without an inline `#[cfg(test)] mod name {` block and everything after it.
fn without_test_module(text: &str) -> &str {
    let mut from = 0;
    while let Some(i) = text[from..].find("#[cfg(test)]") {
        let at = from + i;
        let rest = text[at + "#[cfg(test)]".len()..].trim_start();
        let line = rest.lines().next().unwrap_or_default().trim_end();
        if line.starts_with("mod ") && line.ends_with('{') {
            return &text[..at];
        }
        from = at + 1;
    }
    text
}

fn collect(dir: &Path, skip: &[PathBuf], out: &mut Vec<(PathBuf, String)>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if skip.contains(&path) {
            continue;
        }
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "tests") {
                collect(&path, skip, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") && !is_test_file(&path) {
            let text = fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            let code = without_test_module(&text).to_string();
            out.push((path, code));
        }
    }
}

/// The non-test sources of strata's read paths: scans (incremental ones included), reads,
/// streams, the formats and LSM merges they decode and merge with, the metadata and table
/// context they resolve files with, and `strata-spec` outside the options module.
fn read_path_sources() -> Vec<(PathBuf, String)> {
    let skip = [spec_src().join("options"), options_root()];
    let src = crates_dir().join("strata").join("src");
    let mut out = Vec::new();
    for dir in [
        "scan", "read", "stream", "format", "lsm", "meta", "table", "expr", "io", "index",
    ] {
        collect(&src.join(dir), &skip, &mut out);
    }
    collect(&spec_src(), &skip, &mut out);
    out
}

/// The non-test sources of `strata` and `strata-spec` outside the options module.
fn sources() -> Vec<(PathBuf, String)> {
    let skip = [spec_src().join("options"), options_root()];
    let mut out = Vec::new();
    collect(&crates_dir().join("strata").join("src"), &skip, &mut out);
    collect(&spec_src(), &skip, &mut out);
    out
}

/// `(NAME, "value")` of every `pub const NAME: &str = "value";` in `options/keys.rs`
/// (declarations may span lines).
fn key_constants() -> Vec<(String, String)> {
    let path = spec_src().join("options").join("keys.rs");
    let text =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.split("pub const ")
        .skip(1)
        .filter_map(|decl| {
            let decl = decl.split(';').next()?;
            let (name, rest) = decl.split_once(':')?;
            let value = rest.trim_start().strip_prefix("&str")?.trim_start();
            let value = value.strip_prefix('=')?.trim();
            let value = value.strip_prefix('"')?.strip_suffix('"')?;
            Some((name.trim().to_string(), value.to_string()))
        })
        .collect()
}

/// `(name, body)` of every `pub fn` of the options module root and `CoreOptions`' file (a
/// body runs to the next `pub fn`).
fn getters() -> Vec<(String, String)> {
    // `CoreOptions`' getters live in `options/core_options.rs` (below the module root).
    let mut text = String::new();
    for path in [
        options_root(),
        spec_src().join("options").join("core_options.rs"),
    ] {
        if path.exists() {
            text += &fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        }
    }
    text.split("pub fn ")
        .skip(1)
        .filter_map(|chunk| {
            let end = chunk.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
            Some((chunk[..end].to_string(), chunk[end..].to_string()))
        })
        .collect()
}

/// Whether `word` occurs in `text` as a whole identifier.
fn contains_word(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

struct Evidence {
    sources: Vec<(PathBuf, String)>,
    constants: Vec<(String, String)>,
    getters: Vec<(String, String)>,
}

impl Evidence {
    fn load() -> Self {
        Self::load_from(sources())
    }

    fn load_from(sources: Vec<(PathBuf, String)>) -> Self {
        assert!(
            sources.len() > 20,
            "found only {} source files: wrong directory?",
            sources.len()
        );
        Evidence {
            sources,
            constants: key_constants(),
            getters: getters(),
        }
    }

    fn anywhere(&self, found: impl Fn(&str) -> bool) -> Option<&Path> {
        self.sources
            .iter()
            .find(|(_, text)| found(text))
            .map(|(path, _)| path.as_path())
    }

    /// Where `name` (a key, family or per-column suffix) is read, and how.
    fn reader_of(&self, name: &str) -> Option<String> {
        let literal = format!("\"{name}\"");
        if let Some(path) = self.anywhere(|t| t.contains(&literal)) {
            return Some(format!("{literal} in {}", path.display()));
        }
        let consts: Vec<&str> = self
            .constants
            .iter()
            .filter(|(_, value)| value == name)
            .map(|(c, _)| c.as_str())
            .collect();
        for c in &consts {
            if let Some(path) = self.anywhere(|t| contains_word(t, c)) {
                return Some(format!("{c} in {}", path.display()));
            }
        }
        // Getters reading the key, directly or through another getter (`self.stats_mode()`).
        let mut readers: Vec<&str> = Vec::new();
        loop {
            let before = readers.len();
            for (getter, body) in &self.getters {
                let reads = body.contains(&literal)
                    || consts.iter().any(|c| contains_word(body, c))
                    || readers.iter().any(|r| body.contains(&format!(".{r}(")));
                if reads && !readers.contains(&getter.as_str()) {
                    readers.push(getter);
                }
            }
            if readers.len() == before {
                break;
            }
        }
        for getter in readers {
            let call = format!(".{getter}(");
            if let Some(path) = self.anywhere(|t| t.contains(&call)) {
                return Some(format!("CoreOptions::{getter} in {}", path.display()));
            }
        }
        None
    }
}

#[derive(Default)]
struct Counts {
    implemented: usize,
    no_effect: usize,
    unsupported: usize,
    unclassified: usize,
}

impl Counts {
    fn add(&mut self, support: Option<OptionSupport>) {
        match support {
            Some(OptionSupport::Implemented) => self.implemented += 1,
            Some(OptionSupport::NoEffectOnData(_)) => self.no_effect += 1,
            Some(OptionSupport::Unsupported(_)) => self.unsupported += 1,
            None => self.unclassified += 1,
        }
    }
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} implemented, {} no effect on data, {} unsupported, {} unclassified",
            self.implemented, self.no_effect, self.unsupported, self.unclassified
        )
    }
}

#[test]
fn every_implemented_option_is_read_by_strata() {
    let evidence = Evidence::load();
    // (what is checked, the text searched for)
    let mut implemented: Vec<(String, String)> = Vec::new();
    let (mut keys, mut prefixes, mut fields) =
        (Counts::default(), Counts::default(), Counts::default());
    for key in KNOWN_KEYS {
        let support = option_support(key);
        keys.add(support);
        if support == Some(OptionSupport::Implemented) {
            implemented.push((key.to_string(), key.to_string()));
        }
    }
    for prefix in KNOWN_PREFIXES {
        let support = option_support(prefix);
        prefixes.add(support);
        if support == Some(OptionSupport::Implemented) {
            implemented.push((format!("{prefix}*"), prefix.to_string()));
        }
    }
    for (suffix, support) in field_option_suffixes() {
        fields.add(Some(support));
        if support == OptionSupport::Implemented {
            implemented.push((format!("fields.<col>.{suffix}"), suffix.to_string()));
        }
    }
    let default_agg = "fields.default-aggregate-function";
    if option_support(default_agg) == Some(OptionSupport::Implemented) {
        implemented.push((default_agg.to_string(), default_agg.to_string()));
    }

    eprintln!("option support, KNOWN_KEYS ({}): {keys}", KNOWN_KEYS.len());
    eprintln!(
        "option support, KNOWN_PREFIXES ({}): {prefixes}",
        KNOWN_PREFIXES.len()
    );
    eprintln!("option support, per-column suffixes: {fields}");

    let mut unread = Vec::new();
    for (what, name) in &implemented {
        match evidence.reader_of(name) {
            Some(how) => eprintln!("  {what}: {how}"),
            None => unread.push(what.as_str()),
        }
    }
    assert_eq!(
        keys.unclassified + prefixes.unclassified,
        0,
        "every KNOWN_KEYS / KNOWN_PREFIXES entry needs a classification"
    );
    assert!(
        unread.is_empty(),
        "classified Implemented, but no source of strata or strata-spec outside the options \
         module reads them (no literal, keys.rs constant or CoreOptions getter call): {}",
        unread.join(", ")
    );
}

/// The read side of the audit: every option classified as honoured by reads is read by one of
/// strata's read paths (`read_path_sources`), so a read cannot claim to honour what no read
/// code looks at.
#[test]
fn every_option_reads_honour_is_read_by_a_read_path() {
    use strata_spec::options::support::{read_support, ReadSupport};
    let evidence = Evidence::load_from(read_path_sources());
    let mut honoured: Vec<(String, String)> = Vec::new();
    for key in KNOWN_KEYS {
        if read_support(key) == Some(ReadSupport::Honoured) {
            honoured.push((key.to_string(), key.to_string()));
        }
    }
    for prefix in KNOWN_PREFIXES {
        if read_support(prefix) == Some(ReadSupport::Honoured) {
            honoured.push((format!("{prefix}*"), prefix.to_string()));
        }
    }
    for (suffix, _) in field_option_suffixes() {
        if read_support(&format!("fields.c.{suffix}")) == Some(ReadSupport::Honoured) {
            honoured.push((format!("fields.<col>.{suffix}"), suffix.to_string()));
        }
    }
    let (mut keys_honoured, mut refused, mut no_effect) = (0, 0, 0);
    for key in KNOWN_KEYS {
        match read_support(key) {
            Some(ReadSupport::Honoured) => keys_honoured += 1,
            Some(ReadSupport::Refused { .. }) => refused += 1,
            Some(ReadSupport::NoEffect(_)) => no_effect += 1,
            None => {}
        }
    }
    eprintln!(
        "read support, KNOWN_KEYS ({}): {keys_honoured} honoured, {no_effect} no effect, \
         {refused} refused",
        KNOWN_KEYS.len(),
    );
    let mut unread = Vec::new();
    for (what, name) in &honoured {
        match evidence.reader_of(name) {
            Some(how) => eprintln!("  {what}: {how}"),
            None => unread.push(what.as_str()),
        }
    }
    assert!(
        unread.is_empty(),
        "classified as honoured by reads, but no read path (scan, read, stream, format, lsm, \
         meta, table, expr, io, strata-spec) reads them: {}",
        unread.join(", ")
    );
}

#[test]
fn the_search_finds_what_it_should() {
    assert!(contains_word("keys::BUCKET)", "BUCKET"));
    assert!(!contains_word("DYNAMIC_BUCKET", "BUCKET"));
    assert!(!contains_word("BUCKET_KEY", "BUCKET"));
    let code =
        "fn f() {}\n#[cfg(test)]\nmod x;\nfn g() {}\n#[cfg(test)]\nmod tests {\n  \"k\"\n}\n";
    let kept = without_test_module(code);
    assert!(kept.contains("fn g()") && !kept.contains("\"k\""));
    let consts = key_constants();
    assert!(consts.contains(&("BUCKET".to_string(), "bucket".to_string())));
    assert!(consts.iter().any(|(name, value)| {
        name == "COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT"
            && value == "compaction.max-size-amplification-percent"
    }));
    assert!(getters().iter().any(
        |(name, body)| name == "ignore_delete" && body.contains("\"first-row.ignore-delete\"")
    ));
    // A key nothing reads is not found.
    assert_eq!(Evidence::load().reader_of("no-such-option-anywhere"), None);
}

/// Options strata does not implement are refused where they would be ignored: at table
/// creation, as dynamic options of a read, and when writing to a table that carries them
/// (e.g. created by Java) — each error names the option and its value.
#[tokio::test]
async fn unsupported_options_are_refused_at_creation_dynamic_options_and_writes() {
    use crate::common::Warehouse;
    use strata::ErrorKind;
    let wh = Warehouse::new();
    let schema = |opts: &str| {
        strata_spec::schema::Schema::from_json(&format!(
            r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}}],"primaryKeys":["id"],
            "options":{{"bucket":"1"{opts}}}}}"#
        ))
        .unwrap()
    };
    let id: strata::catalog::Identifier = "db.t".parse().unwrap();
    let err = wh
        .catalog
        .create_table(&id, &schema(r#","data-file.thin-mode":"true""#), false)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported, "{err}");
    let text = err.to_string();
    assert!(text.contains("`data-file.thin-mode` = `true`"), "{text}");
    assert!(!wh.catalog.table_exists(&id).await.unwrap());
    // The harmless value is accepted.
    wh.catalog
        .create_table(&id, &schema(r#","data-file.thin-mode":"false""#), false)
        .await
        .unwrap();
    let t = wh.catalog.get_table(&id).await.unwrap();
    let err = t
        .with_dynamic_options([("chain-table.enabled".to_string(), "true".to_string())])
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported, "{err}");
    assert!(
        err.to_string().contains("`chain-table.enabled` = `true`"),
        "{err}"
    );
    // Time travel by dynamic options is honoured (read back in `read_audit.rs`).
    t.with_dynamic_options([("scan.snapshot-id".to_string(), "1".to_string())])
        .unwrap();
    // A table another engine created with an option strata does not implement: writes refuse.
    let dir = wh.table_dir("db", "t").join("schema");
    let path = dir.join("schema-0");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    json["options"]["file-index.no-such-type.columns"] = serde_json::json!("id");
    std::fs::write(&path, serde_json::to_string(&json).unwrap()).unwrap();
    let t = wh.catalog.get_table(&id).await.unwrap();
    let err = t.new_write().err().expect("a write is refused");
    assert_eq!(err.kind(), ErrorKind::Unsupported, "{err}");
    assert!(
        err.to_string().contains("writing to db.t")
            && err.to_string().contains("file-index.no-such-type.columns"),
        "{err}"
    );
}
