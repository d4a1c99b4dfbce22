//! Page-level skipping for `m['k'] OP c` on shredded MAP keys, from the Parquet page index.
//!
//! The row-group test of [`super::prune`] applied to each data page of the `__col_i` that can
//! hold the key: a page whose column-index bounds rule the value out holds no matching row
//! for that column. Pages of different columns start at different rows, so the result is a
//! set of row ranges per row group: a leaf keeps the rows of the pages (of any of the key's
//! columns) that may match, AND intersects, OR unites; a key that overflowed, an `IS NULL`
//! test, a column without a page index or any non-key part of the filter keeps every row.
//! The ranges become the reader's `RowSelection`, so only the pages holding selected rows are
//! decoded (for every projected column, through the offset index). The exact filter still runs
//! on the rebuilt values; this only skips what cannot match.

use std::ops::Range;

use parquet::arrow::arrow_reader::RowSelection;
use parquet::file::metadata::ParquetMetaData;
use strata_spec::shredding::metadata::column_name;
use strata_spec::types::{DataField, TypeKind};

use super::super::evolve::find_by_name;
use super::super::read_hints::{MapKeyLeaf, MapKeyPredicate};
use super::super::rowgroup_stats::page_stats;
use super::read::FileShreddingMeta;
use crate::expr::{BoundLeafPredicate, BoundPredicate, LeafOp};

/// Rows of one row group that may match: every row, or sorted disjoint ranges.
#[derive(Clone, Debug, PartialEq)]
enum Rows {
    All,
    Some(Vec<Range<usize>>),
}

impl Rows {
    fn and(self, other: Rows) -> Rows {
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

    fn or(self, other: Rows) -> Rows {
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
fn merge(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
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

/// The rows of `row_groups` (in that order) that may satisfy `predicate`, as a selection
/// over those row groups' rows; `None` when nothing can be skipped (or the file has no page
/// index). `data_fields` is the file's own schema, `file_columns` its top-level names.
pub fn page_selection(
    predicate: &MapKeyPredicate,
    meta: &ParquetMetaData,
    row_groups: &[usize],
    data_fields: &[DataField],
    file_columns: &[&str],
    shredding: &FileShreddingMeta,
) -> Option<RowSelection> {
    meta.column_index()?;
    meta.offset_index()?;
    let ctx = Ctx {
        meta,
        data_fields,
        file_columns,
        shredding,
    };
    let mut ranges = Vec::new();
    let mut offset = 0;
    let mut skips = false;
    for &rg in row_groups {
        let rows = meta.row_group(rg).num_rows() as usize;
        match ctx.eval(predicate, rg, rows) {
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

struct Ctx<'a> {
    meta: &'a ParquetMetaData,
    data_fields: &'a [DataField],
    file_columns: &'a [&'a str],
    shredding: &'a FileShreddingMeta,
}

impl Ctx<'_> {
    fn eval(&self, p: &MapKeyPredicate, rg: usize, rows: usize) -> Rows {
        match p {
            MapKeyPredicate::Unknown => Rows::All,
            MapKeyPredicate::And(c) => c
                .iter()
                .fold(Rows::All, |acc, c| acc.and(self.eval(c, rg, rows))),
            MapKeyPredicate::Or(c) => c.iter().fold(Rows::Some(Vec::new()), |acc, c| {
                acc.or(self.eval(c, rg, rows))
            }),
            MapKeyPredicate::Leaf(l) => self.leaf(l, rg, rows),
        }
    }

    fn leaf(&self, leaf: &MapKeyLeaf, rg: usize, rows: usize) -> Rows {
        if matches!(leaf.op, LeafOp::IsNull) {
            return Rows::All;
        }
        let Some(field) = self.data_fields.iter().find(|f| f.id == leaf.field_id) else {
            return Rows::All;
        };
        let Some(pos) = find_by_name(self.file_columns.iter().copied(), &field.name) else {
            return Rows::Some(Vec::new()); // added after this file: every map is NULL
        };
        let name = self.file_columns[pos];
        let (Some(meta), TypeKind::Map { value, .. }) =
            (self.shredding.get(name), &field.data_type.kind)
        else {
            return Rows::All;
        };
        let Some(&id) = meta.dictionary.get(&leaf.key) else {
            return Rows::Some(Vec::new());
        };
        if meta.overflow.contains(&id) || value.kind != leaf.value_type.kind {
            // Overflowed, or the value type changed since the file: no usable statistics.
            return Rows::All;
        }
        let bound = BoundPredicate::Leaf(BoundLeafPredicate {
            index: 0,
            name: leaf.key.clone(),
            data_type: (**value).clone(),
            op: leaf.op.clone(),
        });
        let group = self.meta.row_group(rg);
        let column_index = self.meta.column_index().and_then(|c| c.get(rg));
        let offset_index = self.meta.offset_index().and_then(|o| o.get(rg));
        let mut keep = Rows::Some(Vec::new());
        for &c in meta.field_columns.get(&id).into_iter().flatten() {
            let path = format!("{name}.{}", column_name(c as usize));
            let Some(i) = group
                .columns()
                .iter()
                .position(|ch| ch.column_path().string() == path)
            else {
                return Rows::All;
            };
            let (Some(ci), Some(oi)) = (
                column_index.and_then(|c| c.get(i)),
                offset_index.and_then(|o| o.get(i)),
            ) else {
                return Rows::All;
            };
            let chunk = group.column(i);
            let nan_free = nan_free(chunk);
            let pages = oi.page_locations();
            let mut ranges = Vec::new();
            for (p, loc) in pages.iter().enumerate() {
                let start = loc.first_row_index as usize;
                let end = pages
                    .get(p + 1)
                    .map_or(rows, |n| n.first_row_index as usize)
                    .min(rows);
                let stats = page_stats(chunk, ci, p, value);
                if bound.test_stats_nan_free((end - start) as i64, &[stats], nan_free) {
                    ranges.push(start..end);
                }
            }
            keep = keep.or(Rows::Some(merge(ranges)));
        }
        keep
    }
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
}
