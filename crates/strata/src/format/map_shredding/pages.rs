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

use parquet::arrow::arrow_reader::RowSelection;
use parquet::file::metadata::ParquetMetaData;
use strata_spec::shredding::metadata::column_name;
use strata_spec::types::{DataField, TypeKind};

use super::super::evolve::find_by_name;
use super::super::page_pruning::{page_rows, to_selection, Rows};
use super::super::read_hints::{MapKeyLeaf, MapKeyPredicate};
use super::read::FileShreddingMeta;
use crate::expr::{BoundLeafPredicate, BoundPredicate, LeafOp};

/// The rows of `row_groups` (in that order) that may satisfy `predicate`, as a selection
/// over those row groups' rows; `None` when nothing can be skipped (or the file has no page
/// index). `data_fields` is the file's own schema, `file_columns` its top-level names.
pub(crate) fn page_selection(
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
    to_selection(
        row_groups
            .iter()
            .map(|&rg| {
                let rows = meta.row_group(rg).num_rows() as usize;
                (rows, ctx.eval(predicate, rg))
            })
            .collect(),
    )
}

struct Ctx<'a> {
    meta: &'a ParquetMetaData,
    data_fields: &'a [DataField],
    file_columns: &'a [&'a str],
    shredding: &'a FileShreddingMeta,
}

impl Ctx<'_> {
    fn eval(&self, p: &MapKeyPredicate, rg: usize) -> Rows {
        match p {
            MapKeyPredicate::Unknown => Rows::All,
            MapKeyPredicate::And(c) => c.iter().fold(Rows::All, |acc, c| acc.and(self.eval(c, rg))),
            MapKeyPredicate::Or(c) => c
                .iter()
                .fold(Rows::Some(Vec::new()), |acc, c| acc.or(self.eval(c, rg))),
            MapKeyPredicate::Leaf(l) => self.leaf(l, rg),
        }
    }

    fn leaf(&self, leaf: &MapKeyLeaf, rg: usize) -> Rows {
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
            keep = keep.or(page_rows(self.meta, rg, i, value, &bound));
        }
        keep
    }
}
