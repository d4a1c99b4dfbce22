//! Statistics of a strata scan for DataFusion's planner: row counts, and each column's
//! min / max / null count from the files' value statistics (the manifests' `_VALUE_STATS`,
//! re-aligned by field id across schema changes: `strata::scan::file_column_stats`), so that
//! the planner estimates filter and join sizes — and picks hash-join build sides and join
//! order — as it does for Parquet files from their footers.
//!
//! Exactness: the row count is exact only when every file row is output (append tables without
//! deletion vectors, read without filter or limit); a pushed filter scales it by DataFusion's
//! `default_filter_selectivity`, the estimate its own `FilterExec` would make, so that a small
//! filtered table is still recognised as a broadcast build side. Min and max are bounds, not values
//! (`truncate(N)` string statistics are prefixes; merging and filters remove rows), and null
//! counts are counted before merging, so column statistics are always `Inexact`: DataFusion
//! plans with them but never answers a query from them.
//!
//! Statistics of tables with very many files are not gathered (row counts only), so planning
//! stays cheap.

use std::cmp::Ordering;

use arrow_schema::SchemaRef;
use datafusion::common::stats::Precision;
use datafusion::common::{ColumnStatistics, ScalarValue, Statistics};
use strata::scan::{file_column_stats, DataSplit};
use strata::spec::stats::ColumnStats;
use strata::spec::types::DataType;
use strata::spec::Datum;
use strata::table::Table;

/// Above this many files a scan reports row counts only.
const MAX_FILES_WITH_COLUMN_STATS: usize = 100_000;

/// Statistics of each partition of a scan (`groups`), and of the whole scan.
#[derive(Debug, Clone)]
pub(crate) struct ScanStatistics {
    pub partitions: Vec<Statistics>,
    pub total: Statistics,
}

/// Running min / max / null count of one column over files.
#[derive(Clone, Default)]
struct ColumnAcc {
    /// `None` once a file with unknown statistics (or a non-null value without bounds) is seen.
    min: Option<Option<Datum>>,
    max: Option<Option<Datum>>,
    nulls: Option<i64>,
}

impl ColumnAcc {
    fn start() -> Self {
        ColumnAcc {
            min: Some(None),
            max: Some(None),
            nulls: Some(0),
        }
    }

    fn add(&mut self, s: Option<&ColumnStats>, rows: i64) {
        let Some(s) = s else {
            *self = ColumnAcc::default();
            return;
        };
        self.nulls = match (self.nulls, s.null_count) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
        let all_null = s.null_count == Some(rows);
        if all_null {
            return;
        }
        self.min = bound(self.min.take(), s.min.as_ref(), Ordering::Less);
        self.max = bound(self.max.take(), s.max.as_ref(), Ordering::Greater);
    }

    fn merge(&mut self, other: &ColumnAcc) {
        self.nulls = match (self.nulls, other.nulls) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
        self.min = match &other.min {
            Some(v) => bound(self.min.take(), v.as_ref(), Ordering::Less),
            None => None,
        };
        self.max = match &other.max {
            Some(v) => bound(self.max.take(), v.as_ref(), Ordering::Greater),
            None => None,
        };
    }
}

/// The bound of `acc` and `value` keeping the one ordered `keep` (less for min). A missing
/// value where values exist makes the bound unknown; incomparable values too.
fn bound(
    acc: Option<Option<Datum>>,
    value: Option<&Datum>,
    keep: Ordering,
) -> Option<Option<Datum>> {
    let acc = acc?;
    let value = value?;
    Some(Some(match acc {
        None => value.clone(),
        Some(a) => match value.compare(&a)? {
            o if o == keep => value.clone(),
            _ => a,
        },
    }))
}

/// How the rows a scan outputs relate to its files' rows.
#[derive(Clone, Copy, Debug)]
pub(crate) enum RowEstimate {
    /// Every file row is output.
    Exact,
    /// At most the files' rows (merging, deletion vectors, a limit).
    AtMost,
    /// A pushed filter keeps this percentage of the rows (DataFusion's
    /// `default_filter_selectivity`, as its `FilterExec` would estimate).
    Filtered(u8),
}

impl RowEstimate {
    fn rows(self, rows: usize) -> Precision<usize> {
        match self {
            RowEstimate::Exact => Precision::Exact(rows),
            RowEstimate::AtMost => Precision::Inexact(rows),
            RowEstimate::Filtered(p) => {
                Precision::Inexact(rows.saturating_mul(p.min(100) as usize) / 100)
            }
        }
    }
}

/// Gathers the statistics of `groups` for the output columns of `schema` (table columns by
/// name; other columns, such as `rowkind` or MAP key accesses, are unknown).
pub(crate) async fn scan_statistics(
    table: &Table,
    groups: &[Vec<DataSplit>],
    schema: &SchemaRef,
    estimate: RowEstimate,
) -> strata::Result<ScanStatistics> {
    let table_schema = table.schema();
    let columns: Vec<Option<(usize, DataType)>> = schema
        .fields()
        .iter()
        .map(|f| {
            table_schema
                .fields
                .iter()
                .position(|t| &t.name == f.name())
                .map(|i| (i, table_schema.fields[i].data_type.clone()))
        })
        .collect();
    let files: usize = groups.iter().flatten().map(|s| s.files.len()).sum();
    let with_columns = files <= MAX_FILES_WITH_COLUMN_STATS;
    let mut partitions = Vec::with_capacity(groups.len());
    let mut total_rows = 0i64;
    let mut total_acc: Vec<ColumnAcc> = vec![ColumnAcc::start(); columns.len()];
    for group in groups {
        let rows: i64 = group.iter().map(DataSplit::row_count).sum();
        total_rows += rows;
        let mut acc: Vec<ColumnAcc> = vec![
            if with_columns {
                ColumnAcc::start()
            } else {
                ColumnAcc::default()
            };
            columns.len()
        ];
        if with_columns {
            for split in group {
                for file in &split.files {
                    let stats = file_column_stats(table, file).await?;
                    for (a, c) in acc.iter_mut().zip(&columns) {
                        let s = match (&stats, c) {
                            (Some(stats), Some((i, _))) => stats.get(*i),
                            _ => None,
                        };
                        a.add(s, file.row_count);
                    }
                }
            }
        }
        for (t, a) in total_acc.iter_mut().zip(&acc) {
            t.merge(a);
        }
        partitions.push(to_statistics(rows, estimate, &acc, &columns, schema));
    }
    if groups.is_empty() {
        total_acc = vec![ColumnAcc::start(); columns.len()];
    }
    let total = to_statistics(total_rows, estimate, &total_acc, &columns, schema);
    Ok(ScanStatistics { partitions, total })
}

fn to_statistics(
    rows: i64,
    estimate: RowEstimate,
    acc: &[ColumnAcc],
    columns: &[Option<(usize, DataType)>],
    schema: &SchemaRef,
) -> Statistics {
    let rows = usize::try_from(rows).unwrap_or(0);
    let mut stats = Statistics::new_unknown(schema);
    stats.num_rows = estimate.rows(rows);
    let out_rows = stats.num_rows.get_value().copied().unwrap_or(rows);
    for (((cs, a), c), field) in stats
        .column_statistics
        .iter_mut()
        .zip(acc)
        .zip(columns)
        .zip(schema.fields())
    {
        let Some((_, data_type)) = c else {
            continue;
        };
        let scalar = |d: &Option<Option<Datum>>| match d {
            Some(Some(d)) => to_scalar(d, data_type, field.data_type())
                .map_or(Precision::Absent, Precision::Inexact),
            _ => Precision::Absent,
        };
        *cs = ColumnStatistics {
            null_count: a
                .nulls
                .and_then(|n| usize::try_from(n).ok())
                .map_or(Precision::Absent, Precision::Inexact),
            min_value: scalar(&a.min),
            max_value: scalar(&a.max),
            byte_size: field
                .data_type()
                .primitive_width()
                .map_or(Precision::Absent, |w| Precision::Inexact(w * out_rows)),
            ..ColumnStatistics::new_unknown()
        };
    }
    stats
}

/// A statistics value as a DataFusion scalar of the output column's Arrow type.
fn to_scalar(
    d: &Datum,
    data_type: &DataType,
    arrow: &arrow_schema::DataType,
) -> Option<ScalarValue> {
    let array = strata::arrow::datums_to_array(&[Some(d.clone())], data_type).ok()?;
    let scalar = ScalarValue::try_from_array(&array, 0).ok()?;
    if scalar.data_type() == *arrow {
        Some(scalar)
    } else {
        scalar.cast_to(arrow).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(min: i64, max: i64, nulls: i64) -> ColumnStats {
        ColumnStats {
            min: Some(Datum::BigInt(min)),
            max: Some(Datum::BigInt(max)),
            null_count: Some(nulls),
        }
    }

    #[test]
    fn bounds_and_null_counts_combine_over_files() {
        let mut a = ColumnAcc::start();
        a.add(Some(&stats(5, 9, 1)), 10);
        a.add(Some(&stats(-3, 4, 0)), 10);
        // An all-NULL file moves no bound.
        a.add(
            Some(&ColumnStats {
                min: None,
                max: None,
                null_count: Some(7),
            }),
            7,
        );
        assert_eq!(a.min, Some(Some(Datum::BigInt(-3))));
        assert_eq!(a.max, Some(Some(Datum::BigInt(9))));
        assert_eq!(a.nulls, Some(8));
        let mut b = ColumnAcc::start();
        b.add(Some(&stats(20, 30, 0)), 5);
        a.merge(&b);
        assert_eq!(a.max, Some(Some(Datum::BigInt(30))));
    }

    #[test]
    fn a_file_without_statistics_makes_the_column_unknown() {
        let mut a = ColumnAcc::start();
        a.add(Some(&stats(1, 2, 0)), 3);
        a.add(None, 3);
        assert!(a.min.is_none() && a.max.is_none() && a.nulls.is_none());
        // Values without bounds (null count below the row count): bounds unknown, nulls known.
        let mut b = ColumnAcc::start();
        b.add(
            Some(&ColumnStats {
                min: None,
                max: None,
                null_count: Some(1),
            }),
            3,
        );
        assert!(b.min.is_none() && b.max.is_none());
        assert_eq!(b.nulls, Some(1));
    }
}
