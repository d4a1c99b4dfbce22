//! Row groups and pages a filter rules out by the file's own statistics: the footer's column
//! chunk statistics skip row groups, the page index (column index bounds, offset index row
//! positions) skips pages inside the row groups read.
//!
//! The filter's leaves test read fields (the current schema), tied to the file's columns by
//! field id as the reader ties them ([`super::parquet_reader`]): a field the file does not
//! have (added later) is NULL in every row; a field whose type changed since the file, a
//! nested field or a column without statistics is unknown and rules nothing out. Min/max are
//! used as bounds only ([`crate::expr::BoundPredicate::test_stats`]), so truncated string
//! statistics and float bounds stay safe.
//!
//! Pages of different columns start at different rows, so a page test yields row ranges per
//! row group: a leaf keeps the rows of the pages that may match, AND intersects, OR unites
//! (`Rows`). The result is a `RowSelection` over the row groups read; the reader then
//! decodes only the pages holding selected rows (for every projected column, through the
//! offset index). Skipping is conservative — the exact filter still runs on decoded rows.
//!
//! DataFusion's Parquet source prunes the same way (`PruningPredicate` on row groups,
//! `PagePruningAccessPlanFilter` on pages); this is the same idea over Paimon types and
//! schema evolution.

use std::ops::Range;

use parquet::arrow::arrow_reader::RowSelection;
use parquet::file::metadata::{ParquetMetaData, RowGroupMetaData};
use strata_spec::stats::ColumnStats;
use strata_spec::types::{DataField, DataType};

use super::evolve::find_by_name;
use super::rowgroup_stats::{column_stats, page_stats};
use crate::expr::{BoundLeafPredicate, BoundPredicate};

/// A filter to prune row groups and pages by: `predicate`'s field `i` is `fields[i]`; leaves
/// on fields past the end (derived columns such as MAP key accesses) are unknown here.
#[derive(Clone, Debug)]
pub struct StatsPruning {
    pub fields: Vec<DataField>,
    pub predicate: BoundPredicate,
}

/// Rows of one row group that may match: every row, or sorted disjoint ranges.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Rows {
    All,
    Some(Vec<Range<usize>>),
}

impl Rows {
    pub(super) fn and(self, other: Rows) -> Rows {
        match (self, other) {
            (Rows::All, r) | (r, Rows::All) => r,
            (Rows::Some(a), Rows::Some(b)) => {
                let (mut i, mut j, mut out) = (0, 0, Vec::new());
                while i < a.len() && j < b.len() {
                    let (s, e) = (a[i].start.max(b[j].start), a[i].end.min(b[j].end));
                    if s < e {
                        out.push(s..e);
                    }
                    if a[i].end < b[j].end {
                        i += 1;
                    } else {
                        j += 1;
                    }
                }
                Rows::Some(out)
            }
        }
    }

    pub(super) fn or(self, other: Rows) -> Rows {
        match (self, other) {
            (Rows::All, _) | (_, Rows::All) => Rows::All,
            (Rows::Some(mut a), Rows::Some(b)) => {
                a.extend(b);
                Rows::Some(merge(a))
            }
        }
    }
}

/// Sorts and merges overlapping or touching ranges.
pub(super) fn merge(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|r| r.start);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges.into_iter().filter(|r| r.start < r.end) {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// `ranges` of each of `row_groups` (in order, `rows` each) as one selection over their rows;
/// `None` when every row is kept.
pub(super) fn to_selection(per_group: Vec<(usize, Rows)>) -> Option<RowSelection> {
    let mut ranges = Vec::new();
    let mut offset = 0;
    let mut skips = false;
    for (rows, keep) in per_group {
        match keep {
            Rows::All => ranges.push(offset..offset + rows),
            Rows::Some(r) => {
                skips |= r.iter().map(|r| r.len()).sum::<usize>() < rows;
                ranges.extend(r.into_iter().map(|r| r.start + offset..r.end + offset));
            }
        }
        offset += rows;
    }
    skips.then(|| RowSelection::from_consecutive_ranges(merge(ranges).into_iter(), offset))
}

/// Where a pruning field's values are in one file.
enum Source {
    /// This top-level column chunk (index in the row group), read as the field's type.
    Chunk(usize),
    /// The file has no such field: NULL in every row.
    AllNull,
    /// No usable statistics.
    Unknown,
}

struct Ctx<'a> {
    pruning: &'a StatsPruning,
    /// Each pruning field's column, by field id then name (for the first row group; every row
    /// group of a file has the same columns in the same order).
    sources: Vec<Source>,
}

impl<'a> Ctx<'a> {
    fn new(
        pruning: &'a StatsPruning,
        meta: &ParquetMetaData,
        data_fields: &[DataField],
        file_columns: &[&str],
    ) -> Self {
        let first = meta.row_groups().first();
        let sources = pruning
            .fields
            .iter()
            .map(|f| match first {
                Some(rg) => source(f, rg, data_fields, file_columns),
                None => Source::Unknown,
            })
            .collect();
        Ctx { pruning, sources }
    }

    /// Statistics of every pruning field in row group `rg`.
    fn row_group_stats(&self, rg: &RowGroupMetaData) -> Vec<ColumnStats> {
        self.pruning
            .fields
            .iter()
            .zip(&self.sources)
            .map(|(f, s)| match s {
                Source::Chunk(i) => column_stats(rg.column(*i), &f.data_type),
                Source::AllNull => all_null(rg.num_rows()),
                Source::Unknown => ColumnStats::default(),
            })
            .collect()
    }

    fn rows(&self, p: &BoundPredicate, meta: &ParquetMetaData, rg: usize) -> Rows {
        let group = meta.row_group(rg);
        let rows = group.num_rows().max(0) as usize;
        match p {
            BoundPredicate::AlwaysTrue => Rows::All,
            BoundPredicate::AlwaysFalse => Rows::Some(Vec::new()),
            BoundPredicate::And(c) => c
                .iter()
                .fold(Rows::All, |acc, c| acc.and(self.rows(c, meta, rg))),
            BoundPredicate::Or(c) => c.iter().fold(Rows::Some(Vec::new()), |acc, c| {
                acc.or(self.rows(c, meta, rg))
            }),
            BoundPredicate::Leaf(l) => self.leaf_rows(l, meta, rg, rows),
        }
    }

    fn leaf_rows(
        &self,
        leaf: &BoundLeafPredicate,
        meta: &ParquetMetaData,
        rg: usize,
        rows: usize,
    ) -> Rows {
        let (Some(field), Some(source)) = (
            self.pruning.fields.get(leaf.index),
            self.sources.get(leaf.index),
        ) else {
            return Rows::All;
        };
        let alone = BoundPredicate::Leaf(BoundLeafPredicate {
            index: 0,
            ..leaf.clone()
        });
        let i = match source {
            Source::Unknown => return Rows::All,
            Source::AllNull => {
                return match alone.test_stats(rows as i64, &[all_null(rows as i64)]) {
                    true => Rows::All,
                    false => Rows::Some(Vec::new()),
                }
            }
            Source::Chunk(i) => *i,
        };
        page_rows(meta, rg, i, &field.data_type, &alone)
    }
}

/// The rows of row group `rg` in the pages of column chunk `column` whose column-index bounds
/// (read as `data_type`) admit `leaf` (a single leaf on field 0); every row when the chunk has
/// no page index. Shared by plain columns and the shredded MAP columns (`map_shredding`).
pub(super) fn page_rows(
    meta: &ParquetMetaData,
    rg: usize,
    column: usize,
    data_type: &DataType,
    leaf: &BoundPredicate,
) -> Rows {
    let group = meta.row_group(rg);
    let rows = group.num_rows().max(0) as usize;
    let (Some(ci), Some(oi)) = (
        meta.column_index().and_then(|c| c.get(rg)?.get(column)),
        meta.offset_index().and_then(|o| o.get(rg)?.get(column)),
    ) else {
        return Rows::All;
    };
    let chunk = group.column(column);
    let nan_free = nan_free(chunk);
    let pages = oi.page_locations();
    let mut ranges = Vec::new();
    for (p, loc) in pages.iter().enumerate() {
        let start = (loc.first_row_index.max(0) as usize).min(rows);
        let end = pages
            .get(p + 1)
            .map_or(rows, |n| n.first_row_index.max(0) as usize)
            .min(rows);
        let stats = page_stats(chunk, ci, p, data_type);
        if leaf.test_stats_nan_free((end - start) as i64, &[stats], nan_free) {
            ranges.push(start..end);
        }
    }
    Rows::Some(merge(ranges))
}

/// Whether a float column chunk is known to hold no NaN, so that its maximum is exact. The
/// Parquet footer of this parquet version carries no NaN count, so this is known only for
/// columns that are not floating point: float bounds are used conservatively.
pub(super) fn nan_free(chunk: &parquet::file::metadata::ColumnChunkMetaData) -> bool {
    !matches!(
        chunk.column_type(),
        parquet::basic::Type::FLOAT | parquet::basic::Type::DOUBLE
    )
}

fn all_null(rows: i64) -> ColumnStats {
    ColumnStats {
        min: None,
        max: None,
        null_count: Some(rows),
    }
}

/// The column of `field` (a read field) in a file of schema `data_fields`.
fn source(
    field: &DataField,
    rg: &RowGroupMetaData,
    data_fields: &[DataField],
    file_columns: &[&str],
) -> Source {
    let Some(data) = data_fields.iter().find(|d| d.id == field.id) else {
        return Source::AllNull;
    };
    if data.data_type.kind != field.data_type.kind || field.data_type.is_nested() {
        return Source::Unknown;
    }
    let Some(pos) = find_by_name(file_columns.iter().copied(), &data.name) else {
        return Source::Unknown;
    };
    let name = file_columns[pos];
    match rg
        .columns()
        .iter()
        .position(|c| matches!(c.column_path().parts(), [n] if n == name))
    {
        Some(i) => Source::Chunk(i),
        None => Source::Unknown,
    }
}

/// For each row group of the file, whether its footer statistics admit a matching row.
pub(super) fn row_groups_may_match(
    pruning: &StatsPruning,
    meta: &ParquetMetaData,
    data_fields: &[DataField],
    file_columns: &[&str],
) -> Vec<bool> {
    let ctx = Ctx::new(pruning, meta, data_fields, file_columns);
    meta.row_groups()
        .iter()
        .map(|rg| {
            let stats = ctx.row_group_stats(rg);
            pruning.predicate.test_stats(rg.num_rows(), &stats)
        })
        .collect()
}

/// The rows of `row_groups` (in that order) whose pages may satisfy the filter, as a
/// selection over those row groups' rows; `None` when nothing can be skipped or the file has
/// no page index.
pub(super) fn page_selection(
    pruning: &StatsPruning,
    meta: &ParquetMetaData,
    row_groups: &[usize],
    data_fields: &[DataField],
    file_columns: &[&str],
) -> Option<RowSelection> {
    meta.column_index()?;
    meta.offset_index()?;
    let ctx = Ctx::new(pruning, meta, data_fields, file_columns);
    to_selection(
        row_groups
            .iter()
            .map(|&rg| {
                let rows = meta.row_group(rg).num_rows().max(0) as usize;
                (rows, ctx.rows(&pruning.predicate, meta, rg))
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::single_range_in_vec_init)]
    fn ranges_combine() {
        let a = Rows::Some(vec![0..10, 20..30]);
        let b = Rows::Some(vec![5..25]);
        assert_eq!(a.clone().and(b.clone()), Rows::Some(vec![5..10, 20..25]));
        assert_eq!(a.clone().or(b), Rows::Some(vec![0..30]));
        assert_eq!(a.clone().and(Rows::All), a);
        assert_eq!(a.or(Rows::All), Rows::All);
        assert_eq!(merge(vec![3..4, 0..2, 2..3, 7..7]), vec![0..4]);
    }

    #[test]
    #[allow(clippy::single_range_in_vec_init)]
    fn selections_cover_the_row_groups_in_order() {
        assert!(to_selection(vec![(10, Rows::All), (5, Rows::Some(vec![0..5]))]).is_none());
        let s = to_selection(vec![(10, Rows::Some(vec![2..4])), (5, Rows::All)]).unwrap();
        assert_eq!(s.row_count(), 7);
        let ranges: Vec<_> = s.iter().map(|r| (r.skip, r.row_count)).collect();
        assert_eq!(ranges, [(true, 2), (false, 2), (true, 6), (false, 5)]);
    }
}
