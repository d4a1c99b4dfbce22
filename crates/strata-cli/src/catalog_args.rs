//! The catalog options a command line gives: Paimon's catalog option names (`metastore`,
//! `warehouse`, `uri`, `token.provider`, `token`, `header.*`, `catalog-key`, `jdbc.*`, `lock.*`,
//! `s3.*`, `table-default.*`, ...) from the repeatable `--catalog-option K=V` (one flag may hold
//! several, `K=V,K=V`), `$STRATA_CATALOG_OPTIONS` (the same `K=V,K=V` text, for secrets kept out
//! of the command line), and `--warehouse X` (`warehouse=X`). The map goes to
//! `strata::catalog::open`, which honours every key or refuses it by name.
//!
//! Precedence: a `--catalog-option` overrides the same key of `$STRATA_CATALOG_OPTIONS`;
//! `--warehouse` and a `warehouse=` option that disagree are an error (the same key twice on
//! the command line with different values too). With neither, `$STRATA_WAREHOUSE` gives the
//! warehouse, and a filesystem catalog (no `metastore`, or `metastore=filesystem`) defaults to
//! `./warehouse`; a REST or JDBC catalog gets no default warehouse (there it names the
//! server's catalog, or the JDBC catalog's root).
//!
//! Shared by `strata` and `strata-workload` (included there by path), so it returns its errors
//! as text and depends on nothing else of the crate.

use std::collections::BTreeMap;

/// Splits one `K=V[,K=V...]` text into pairs. A comma starts a new pair only when the text after
/// it has a `=` before the next comma, so a value may hold commas (`header.Accept=a,b`).
fn split_pairs(text: &str, origin: &str) -> Result<Vec<(String, String)>, String> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for piece in text.split(',') {
        match piece.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                pairs.push((k.trim().to_string(), v.to_string()));
            }
            _ => match pairs.last_mut() {
                // A comma inside the previous value.
                Some((_, v)) => {
                    v.push(',');
                    v.push_str(piece);
                }
                None => {
                    return Err(format!(
                        "{origin} {text:?}: expected K=V (a Paimon catalog option such as \
                         metastore=rest or warehouse=/data/wh)"
                    ))
                }
            },
        }
    }
    Ok(pairs)
}

/// The catalog options of a command line: `warehouse_flag` (`--warehouse`), `flags` (every
/// `--catalog-option`), `env_options` (`$STRATA_CATALOG_OPTIONS`) and `env_warehouse`
/// (`$STRATA_WAREHOUSE`), with the precedence the module doc describes.
pub fn catalog_options(
    warehouse_flag: Option<&str>,
    flags: &[String],
    env_options: Option<&str>,
    env_warehouse: Option<&str>,
) -> Result<BTreeMap<String, String>, String> {
    let mut options = BTreeMap::new();
    if let Some(text) = env_options.filter(|t| !t.trim().is_empty()) {
        for (k, v) in split_pairs(text, "STRATA_CATALOG_OPTIONS")? {
            options.insert(k, v);
        }
    }
    let mut given: BTreeMap<String, String> = BTreeMap::new();
    for flag in flags {
        for (k, v) in split_pairs(flag, "--catalog-option")? {
            if let Some(before) = given.get(&k) {
                if *before != v {
                    return Err(format!(
                        "--catalog-option {k} given twice with different values ({before:?} \
                         and {v:?})"
                    ));
                }
            }
            given.insert(k.clone(), v.clone());
            options.insert(k, v);
        }
    }
    if let Some(w) = warehouse_flag {
        match given.get("warehouse") {
            Some(v) if v != w => {
                return Err(format!(
                    "--warehouse {w:?} and --catalog-option warehouse={v:?} disagree: give one \
                     (--warehouse X means warehouse=X)"
                ))
            }
            _ => {
                options.insert("warehouse".to_string(), w.to_string());
            }
        }
    }
    if !options.contains_key("warehouse") {
        let filesystem = options
            .get("metastore")
            .is_none_or(|m| m.as_str() == "filesystem");
        match env_warehouse.filter(|w| !w.is_empty()) {
            Some(w) => {
                options.insert("warehouse".to_string(), w.to_string());
            }
            None if filesystem => {
                options.insert("warehouse".to_string(), "./warehouse".to_string());
            }
            None => {}
        }
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn flags_env_and_warehouse() {
        let o = catalog_options(None, &[], None, None).unwrap();
        assert_eq!(o["warehouse"], "./warehouse");
        assert_eq!(o.len(), 1);

        let o = catalog_options(Some("/wh"), &[], None, Some("/env")).unwrap();
        assert_eq!(o["warehouse"], "/wh");
        let o = catalog_options(None, &[], None, Some("/env")).unwrap();
        assert_eq!(o["warehouse"], "/env");

        let o = catalog_options(
            None,
            &s(&[
                "metastore=rest,uri=http://h:1",
                "warehouse=cat",
                "header.Accept=a,b",
            ]),
            Some("token=secret,uri=http://other"),
            Some("/env"),
        )
        .unwrap();
        assert_eq!(o["metastore"], "rest");
        assert_eq!(o["uri"], "http://h:1", "a flag overrides the environment");
        assert_eq!(o["token"], "secret");
        assert_eq!(
            o["warehouse"], "cat",
            "an option wins over $STRATA_WAREHOUSE"
        );
        assert_eq!(o["header.Accept"], "a,b");

        // REST without a warehouse gets none.
        let o = catalog_options(None, &s(&["metastore=rest"]), None, None).unwrap();
        assert!(!o.contains_key("warehouse"));

        // --warehouse and warehouse= agreeing is fine, disagreeing an error.
        catalog_options(Some("/a"), &s(&["warehouse=/a"]), None, None).unwrap();
        let e = catalog_options(Some("/a"), &s(&["warehouse=/b"]), None, None).unwrap_err();
        assert!(e.contains("--warehouse") && e.contains("/b"), "{e}");
        let e = catalog_options(None, &s(&["uri=x", "uri=y"]), None, None).unwrap_err();
        assert!(e.contains("uri"), "{e}");
        let e = catalog_options(None, &s(&["nonsense"]), None, None).unwrap_err();
        assert!(e.contains("K=V"), "{e}");
    }
}
