//! Which statistics each column gets, following Java's `StatsCollectorFactories`:
//! `fields.<col>.stats-mode` wins over `metadata.stats-mode` (default `truncate(16)`), and
//! columns past `metadata.stats-keep-first-n-columns` get `none` unless set per column.

use strata_spec::schema::TableSchema;
use strata_spec::stats::StatsMode;

use crate::Result;

/// Stats mode of every column of `schema`, in column order.
pub(crate) fn column_stats_modes(schema: &TableSchema) -> Result<Vec<StatsMode>> {
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
pub(crate) fn dense_store(schema: &TableSchema) -> Result<bool> {
    Ok(schema.options().metadata_stats_dense_store()?)
}

/// Which value columns a data file's `_VALUE_STATS` hold, as Java's writers decide: every
/// column's stats mode; with dense store and some `none` columns, the kept column indices and
/// names (`_VALUE_STATS_COLS`), else `None` (all columns); and the types of the kept columns.
#[derive(Debug, Clone)]
pub(crate) struct ValueStatsLayout {
    pub modes: Vec<StatsMode>,
    pub stats_cols: Option<(Vec<usize>, Vec<String>)>,
    pub stats_types: Vec<strata_spec::DataType>,
}

impl ValueStatsLayout {
    pub(crate) fn new(schema: &TableSchema) -> Result<Self> {
        let row_type = schema.row_type();
        let modes = column_stats_modes(schema)?;
        let stats_cols = if dense_store(schema)? && modes.contains(&StatsMode::None) {
            let idx: Vec<usize> = (0..modes.len())
                .filter(|i| modes[*i] != StatsMode::None)
                .collect();
            let names = idx
                .iter()
                .map(|i| row_type.fields[*i].name.clone())
                .collect();
            Some((idx, names))
        } else {
            None
        };
        let stats_types = match &stats_cols {
            Some((idx, _)) => idx
                .iter()
                .map(|i| row_type.fields[*i].data_type.clone())
                .collect(),
            None => row_type.types(),
        };
        Ok(ValueStatsLayout {
            modes,
            stats_cols,
            stats_types,
        })
    }
}
