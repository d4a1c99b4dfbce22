//! Which statistics each column gets (`metadata.stats-mode`, `fields.<col>.stats-mode`,
//! `metadata.stats-keep-first-n-columns`, `metadata.stats-dense-store`), following Java's
//! `StatsCollectorFactories`: per-column mode wins over the table mode; columns past the
//! first N get `none`.

use strata_spec::schema::TableSchema;
use strata_spec::stats::StatsMode;

use crate::{Error, Result};

/// Default of `metadata.stats-mode`.
pub const DEFAULT_STATS_MODE: StatsMode = StatsMode::Truncate(16);

/// Stats mode of every column of `schema`, in column order.
pub(crate) fn column_stats_modes(schema: &TableSchema) -> Result<Vec<StatsMode>> {
    let parse = |key: &str, text: &str| {
        StatsMode::parse(text).ok_or_else(|| Error::InvalidOption {
            key: key.to_string(),
            message: format!("{text:?} is not a stats mode (none, counts, truncate(N), full)"),
        })
    };
    let table_mode = match schema.options.get("metadata.stats-mode") {
        Some(v) => parse("metadata.stats-mode", v)?,
        None => DEFAULT_STATS_MODE,
    };
    let keep_first: i64 = match schema.options.get("metadata.stats-keep-first-n-columns") {
        Some(v) => v.trim().parse().map_err(|_| Error::InvalidOption {
            key: "metadata.stats-keep-first-n-columns".into(),
            message: format!("{v:?} is not an integer"),
        })?,
        None => -1,
    };
    let mut out = Vec::with_capacity(schema.fields.len());
    for (i, f) in schema.fields.iter().enumerate() {
        let key = format!("fields.{}.stats-mode", f.name);
        let mode = match schema.options.get(&key) {
            Some(v) => parse(&key, v)?,
            None if keep_first >= 0 && i as i64 >= keep_first => StatsMode::None,
            None => table_mode,
        };
        out.push(mode);
    }
    Ok(out)
}

/// `metadata.stats-dense-store` (default true): drop `none` columns from value stats.
pub(crate) fn dense_store(schema: &TableSchema) -> Result<bool> {
    match schema.options.get("metadata.stats-dense-store") {
        None => Ok(true),
        Some(v) => v.trim().to_ascii_lowercase().parse().map_err(|_| Error::InvalidOption {
            key: "metadata.stats-dense-store".into(),
            message: format!("{v:?} is not a boolean"),
        }),
    }
}
