//! The options of a `strata.Catalog`: pypaimon's `CatalogFactory.create` dict (Paimon's catalog
//! option names), merged from the forms `strata.Catalog` takes (a warehouse path, a dict, a path
//! and a dict) into the one map `strata::catalog::open` takes. That opener honours every key or
//! refuses it with an error naming it, per catalog:
//!
//! | `metastore` | keys (beside `metastore`) |
//! |---|---|
//! | `filesystem` (default) | `warehouse` (required), `s3.*` (and Java's `s3a.`/`fs.s3a.`, pypaimon's `fs.s3.` spellings), `table-default.*` |
//! | `rest` | `uri`, `warehouse` (the server's catalog), `token.provider`, `token`, `header.*`, `data-token.enabled`, `prefix`, `dlf.*` as the REST client implements them, plus the keys every catalog takes |
//! | `jdbc` | `uri`, `warehouse`, `catalog-key`, `jdbc.*` (`jdbc.user`, `jdbc.password`, ...), `lock.*`, plus the keys every catalog takes |
//!
//! Here only what is about the Python forms is checked: a warehouse given twice must agree, and
//! a filesystem catalog needs one (an `InvalidInputError` before anything is opened).

use std::collections::{BTreeMap, HashMap};

/// The catalog options of `strata.Catalog(warehouse, options)`: `warehouse` (a path, or `None`
/// when only the dict was given) merged into `options` as `warehouse`.
pub(crate) fn merge(
    warehouse: Option<String>,
    options: HashMap<String, String>,
) -> strata::Result<BTreeMap<String, String>> {
    let mut out: BTreeMap<String, String> = options.into_iter().collect();
    if let Some(w) = warehouse {
        match out.get("warehouse") {
            Some(other) if *other != w => {
                return Err(strata::Error::invalid_option(
                    "warehouse",
                    format!("the catalog was given two warehouses, {w:?} and {other:?}"),
                ))
            }
            _ => {
                out.insert("warehouse".to_string(), w);
            }
        }
    }
    let filesystem = out
        .get("metastore")
        .is_none_or(|m| m.as_str() == "filesystem");
    if filesystem && !out.contains_key("warehouse") {
        return Err(strata::Error::invalid_option(
            "warehouse",
            "catalog options need a 'warehouse' (the warehouse directory or URI) for a \
             filesystem catalog",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_the_python_forms() {
        let o = merge(Some("/wh".into()), HashMap::new()).unwrap();
        assert_eq!(o["warehouse"], "/wh");
        let both = HashMap::from([("warehouse".to_string(), "/wh".to_string())]);
        assert_eq!(merge(Some("/wh".into()), both.clone()).unwrap().len(), 1);
        let e = merge(Some("/other".into()), both).unwrap_err();
        assert!(e.to_string().contains("two warehouses"), "{e}");
        let e = merge(None, HashMap::new()).unwrap_err();
        assert_eq!(e.kind(), strata::ErrorKind::InvalidInput);
        let rest = HashMap::from([("metastore".to_string(), "rest".to_string())]);
        assert!(
            merge(None, rest).is_ok(),
            "a REST catalog may leave warehouse out"
        );
    }
}
