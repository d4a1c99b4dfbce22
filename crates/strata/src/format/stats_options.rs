//! Which statistics each column gets, following Java's `StatsCollectorFactories`:
//! `fields.<col>.stats-mode` wins over `metadata.stats-mode` (default `truncate(16)`), and
//! columns past `metadata.stats-keep-first-n-columns` get `none` unless set per column.

use strata_spec::schema::TableSchema;
use strata_spec::stats::StatsMode;

use crate::Result;

/// Stats mode of every column of `schema`, in column order.
pub fn column_stats_modes(schema: &TableSchema) -> Result<Vec<StatsMode>> {
    let opts = schema.options();
    let keep_first = opts.metadata_stats_keep_first_n_columns()?;
    let mut out = Vec::with_capacity(schema.fields.len());
    for (i, f) in schema.fields.iter().enumerate() {
        let per_column = opts.contains(&format!("fields.{}.stats-mode", f.name));
        let mode = if !per_column && keep_first >= 0 && i as i64 >= keep_first as i64 {
            StatsMode::None
        } else {
            opts.field_stats_mode(&f.name)?
        };
        out.push(mode);
    }
    Ok(out)
}

/// `metadata.stats-dense-store` (default true): drop `none` columns from value stats.
pub fn dense_store(schema: &TableSchema) -> Result<bool> {
    Ok(schema.options().metadata_stats_dense_store()?)
}
