//! The options of a catalog, key by key (Paimon's `CatalogOptions` names), shared by every front
//! end through [`crate::catalog::open`]: each is honoured or refused with an error naming it,
//! never accepted and dropped.
//!
//! | key | what strata does |
//! |---|---|
//! | `metastore` | which catalog: `filesystem` (the default), or the catalogs `open` dispatches to |
//! | `warehouse` | the warehouse location |
//! | `s3.*` | the S3 client of an `s3://` warehouse: `s3.endpoint`, `s3.access-key`, `s3.secret-key`, `s3.session-token`, `s3.region`, `s3.path-style-access`, `s3.max-retries` |
//! | `s3a.*`, `fs.s3a.*`, `fs.s3.*` | the same settings under the prefixes Java's `S3FileIO` (`s3.`, `s3a.`, `fs.s3a.`) and pypaimon's `PyArrowFileIO` (also `fs.s3.`, and `fs.s3.accessKeyId`, `fs.s3.accessKeySecret`, `fs.s3.securityToken`) accept, with the Hadoop spellings (`access.key`, `secret.key`, `session.token`, `path.style.access`) |
//! | `table-default.K` | option `K` of every table this catalog creates whose schema does not set `K` (Java's `AbstractCatalog.copyTableDefaultOptions`, applied in `createTable` after the existence check) |
//!
//! A catalog that takes more keys (REST's `uri`, `token`, the `dlf.*` keys of its DLF signing;
//! JDBC's `catalog-key`) names them ([`split`]'s `own`); every other key is refused: nothing
//! would honour it.

use std::collections::{BTreeMap, HashMap};

/// Java's `Catalog.TABLE_DEFAULT_OPTION_PREFIX`.
pub const TABLE_DEFAULT_PREFIX: &str = "table-default.";

/// The catalog options strata's `FileIO` takes for `s3://` warehouses.
const S3_KEYS: &[&str] = crate::io::S3_OPTION_KEYS;

/// Prefixes other engines accept for the same S3 settings (Java's `S3FileIO.CONFIG_PREFIXES`
/// beside `s3.`, and pypaimon's `fs.s3.`).
const S3_ALIAS_PREFIXES: &[&str] = &["fs.s3a.", "s3a.", "fs.s3."];

/// The catalog options, sorted by what they configure.
#[derive(Clone, Debug, Default)]
pub(crate) struct CatalogOptions {
    /// `metastore` (`filesystem` when absent).
    pub metastore: String,
    /// `warehouse`, when given.
    pub warehouse: Option<String>,
    /// Options for `FileIO::for_location_with_options`, with strata's `s3.*` names.
    pub io: HashMap<String, String>,
    /// `table-default.K = V` as `K = V`.
    pub table_defaults: BTreeMap<String, String>,
    /// The keys the catalog itself takes (`own` of [`split`]), as given.
    pub own: BTreeMap<String, String>,
}

/// strata's `s3.*` name of an S3 setting spelled `name` after a prefix.
fn s3_setting(name: &str) -> Option<&'static str> {
    Some(match name {
        "endpoint" => "s3.endpoint",
        "region" | "endpoint.region" => "s3.region",
        "access-key" | "access.key" | "accessKeyId" => "s3.access-key",
        "secret-key" | "secret.key" | "accessKeySecret" => "s3.secret-key",
        "session-token" | "session.token" | "security-token" | "security.token"
        | "securityToken" => "s3.session-token",
        "path-style-access" | "path.style.access" => "s3.path-style-access",
        "max-retries" => "s3.max-retries",
        _ => return None,
    })
}

fn unsupported(key: &str, why: &str) -> crate::Error {
    crate::Error::unsupported(format!("catalog option {key}: {why}")).with_option(key)
}

/// Sorts `options`, refusing every key nothing honours: the keys every catalog takes (above),
/// and those `own` says the catalog `metastore` takes itself (named in the refusal as
/// `own_keys`).
pub(crate) fn split(
    options: &BTreeMap<String, String>,
    own: &dyn Fn(&str) -> bool,
    own_keys: &str,
) -> crate::Result<CatalogOptions> {
    let mut out = CatalogOptions {
        metastore: options
            .get("metastore")
            .cloned()
            .unwrap_or_else(|| "filesystem".to_string()),
        ..CatalogOptions::default()
    };
    // strata's s3.* name → (the key given, its value), to catch two spellings that disagree.
    let mut s3: BTreeMap<&'static str, (&str, &str)> = BTreeMap::new();
    let mut keys: Vec<&String> = options.keys().collect();
    keys.sort();
    for key in keys {
        let value = options[key].as_str();
        if key == "warehouse" {
            out.warehouse = Some(value.to_string());
            continue;
        }
        if key == "metastore" {
            continue;
        }
        if own(key) {
            out.own.insert(key.clone(), value.to_string());
            continue;
        }
        if let Some(option) = key.strip_prefix(TABLE_DEFAULT_PREFIX) {
            if option.is_empty() {
                return Err(crate::Error::invalid_option(
                    key.clone(),
                    "table-default. must be followed by a table option name",
                ));
            }
            out.table_defaults
                .insert(option.to_string(), value.to_string());
            continue;
        }
        let setting = if let Some(k) = S3_KEYS.iter().copied().find(|k| *k == key) {
            Some(match k {
                "s3.path.style.access" => "s3.path-style-access",
                k => k,
            })
        } else if let Some(prefix) = ["s3."]
            .iter()
            .chain(S3_ALIAS_PREFIXES)
            .find(|p| key.starts_with(**p))
        {
            match s3_setting(&key[prefix.len()..]) {
                Some(s) => Some(s),
                None => {
                    return Err(unsupported(
                        key,
                        &format!(
                            "not an S3 setting strata knows (it takes {} and their s3a., \
                             fs.s3a. and fs.s3. spellings)",
                            S3_KEYS.join(", ")
                        ),
                    ))
                }
            }
        } else {
            None
        };
        if let Some(setting) = setting {
            if let Some((other, v)) = s3.get(setting) {
                if *v != value {
                    return Err(crate::Error::invalid_option(
                        key.clone(),
                        format!(
                            "{key} = {value:?} and {other} = {v:?} set the same S3 setting \
                             ({setting}) differently"
                        ),
                    ));
                }
            }
            s3.insert(setting, (key.as_str(), value));
            continue;
        }
        return Err(unsupported(
            key,
            &format!(
                "the {} catalog does not honour it (it takes warehouse, metastore, the s3.* \
                 settings of an s3:// warehouse, table-default.*{own_keys})",
                out.metastore
            ),
        ));
    }
    for (setting, (_, value)) in s3 {
        out.io.insert(setting.to_string(), value.to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn sorts_and_refuses_by_name() {
        let o = split(
            &opts(&[
                ("warehouse", "s3://b/wh"),
                ("fs.s3a.access.key", "A"),
                ("table-default.bucket", "2"),
                ("uri", "http://x"),
            ]),
            &|k| k == "uri",
            ", uri",
        )
        .unwrap();
        assert_eq!(o.metastore, "filesystem");
        assert_eq!(o.warehouse.as_deref(), Some("s3://b/wh"));
        assert_eq!(o.io["s3.access-key"], "A");
        assert_eq!(o.table_defaults["bucket"], "2");
        assert_eq!(o.own["uri"], "http://x");

        let e = split(&opts(&[("cache-enabled", "true")]), &|_| false, "").unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Unsupported);
        assert!(e.to_string().contains("cache-enabled"), "{e}");

        let e = split(
            &opts(&[("s3.access-key", "A"), ("fs.s3a.access.key", "B")]),
            &|_| false,
            "",
        )
        .unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidInput);
    }
}
