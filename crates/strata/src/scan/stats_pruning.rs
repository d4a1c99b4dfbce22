//! File pruning by value statistics, across schema evolution.
//!
//! A file's `_VALUE_STATS` cover the columns named by `_VALUE_STATS_COLS` (or, when that is
//! null, every column of the schema the file was written with). The filter is bound to the
//! table's current schema, so statistics are re-aligned by field id: renamed columns keep
//! their stats, columns added after the file was written are all-NULL in that file, and a
//! column whose type changed has unknown stats (never pruned on).

use strata_spec::manifest::DataFileMeta;
use strata_spec::stats::ColumnStats;
use strata_spec::DataField;

use crate::expr::BoundPredicate;
use crate::table::Table;
use crate::Result;

/// False only when no row of `file` can satisfy `bound`.
pub(super) async fn may_match(
    table: &Table,
    bound: &BoundPredicate,
    file: &DataFileMeta,
) -> Result<bool> {
    Ok(match file_column_stats(table, file).await? {
        Some(aligned) => bound.test_stats(file.row_count, &aligned),
        None => true,
    })
}

/// The value statistics of `file` for each column of the table's current schema (in order),
/// re-aligned by field id as described in the module docs; an entry with no min, max or null
/// count is unknown. `None` when the file's statistics cannot be placed at all. Min and max
/// are bounds, not values (`truncate(N)` string statistics are prefixes, see
/// [`crate::expr`]'s stats tests).
pub async fn file_column_stats(
    table: &Table,
    file: &DataFileMeta,
) -> Result<Option<Vec<ColumnStats>>> {
    let data_schema = table.schema_manager().schema(file.schema_id).await?;
    let stats_fields: Vec<&DataField> = match (&file.value_stats_cols, &file.write_cols) {
        (Some(cols), _) | (None, Some(cols)) => {
            let mut v = Vec::with_capacity(cols.len());
            for c in cols {
                match data_schema.fields.iter().find(|f| &f.name == c) {
                    Some(f) => v.push(f),
                    // Stats over a column we cannot place: treat everything as unknown.
                    None => return Ok(None),
                }
            }
            v
        }
        (None, None) => data_schema.fields.iter().collect(),
    };
    let types: Vec<_> = stats_fields.iter().map(|f| f.data_type.clone()).collect();
    let Ok(cols) = file.value_stats.to_columns(&types) else {
        return Ok(None);
    };
    let current = table.schema();
    let mut aligned = vec![ColumnStats::default(); current.fields.len()];
    for (i, f) in current.fields.iter().enumerate() {
        if let Some(pos) = stats_fields.iter().position(|sf| sf.id == f.id) {
            if stats_fields[pos].data_type.kind == f.data_type.kind {
                if let Some(c) = cols.get(pos) {
                    aligned[i] = c.clone();
                }
            }
        } else if !data_schema.fields.iter().any(|df| df.id == f.id) {
            // Added after this file was written: every row reads as NULL.
            aligned[i] = ColumnStats {
                min: None,
                max: None,
                null_count: Some(file.row_count),
            };
        }
    }
    Ok(Some(aligned))
}
