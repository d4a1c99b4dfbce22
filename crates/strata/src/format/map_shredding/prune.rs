//! Predicate translation for shredded MAP keys: `m['k'] OP c` → which row groups may match.
//!
//! Neither Java nor paimon-cpp translates predicates on map keys; strata does, conservatively:
//!
//! * **file**: a key missing from the file's field dictionary is NULL in every row, so a
//!   NULL-rejecting test on it (every op except `IS NULL`) matches nothing in the file;
//! * **row group**: a key's values live only in the `__col_i` its `field-columns` lists, plus
//!   `__overflow` if it ever overflowed. The row group may match only if some `__col_i` in that
//!   set has statistics that admit `OP c`, or the key overflowed (overflow entries have no
//!   per-key statistics). Those columns also hold other keys' values, so their min/max only
//!   widen the range — the test never rejects a row group holding a match; the lru placement
//!   keeps a key in one column, which keeps the ranges tight in practice.
//!
//! The exact answer always comes from evaluating the filter on the reconstructed values.

use std::collections::HashMap;

use parquet::file::metadata::{ParquetMetaData, RowGroupMetaData};
use strata_spec::shredding::metadata::column_name;
use strata_spec::types::{DataField, TypeKind};

use super::super::evolve::find_by_name;
use super::super::read_hints::{MapKeyLeaf, MapKeyPredicate};
use super::super::rowgroup_stats::column_stats;
use super::read::FileShreddingMeta;
use crate::expr::{BoundLeafPredicate, BoundPredicate, LeafOp};

/// For each row group of the file, whether it may hold a row satisfying `predicate`.
/// `data_fields` is the file's own schema; `file_columns` its top-level column names.
pub(crate) fn row_groups_may_match(
    predicate: &MapKeyPredicate,
    meta: &ParquetMetaData,
    data_fields: &[DataField],
    file_columns: &[&str],
    shredding: &FileShreddingMeta,
) -> Vec<bool> {
    let ctx = Ctx {
        data_fields,
        file_columns,
        shredding,
    };
    meta.row_groups()
        .iter()
        .map(|rg| {
            let chunks: HashMap<String, usize> = rg
                .columns()
                .iter()
                .enumerate()
                .filter(|(_, c)| c.column_path().parts().len() == 2)
                .map(|(i, c)| (c.column_path().string(), i))
                .collect();
            ctx.eval(predicate, rg, &chunks)
        })
        .collect()
}

struct Ctx<'a> {
    data_fields: &'a [DataField],
    file_columns: &'a [&'a str],
    shredding: &'a FileShreddingMeta,
}

impl Ctx<'_> {
    fn eval(
        &self,
        p: &MapKeyPredicate,
        rg: &RowGroupMetaData,
        chunks: &HashMap<String, usize>,
    ) -> bool {
        match p {
            MapKeyPredicate::Unknown => true,
            MapKeyPredicate::And(c) => c.iter().all(|c| self.eval(c, rg, chunks)),
            MapKeyPredicate::Or(c) => c.iter().any(|c| self.eval(c, rg, chunks)),
            MapKeyPredicate::Leaf(l) => self.leaf(l, rg, chunks),
        }
    }

    fn leaf(
        &self,
        leaf: &MapKeyLeaf,
        rg: &RowGroupMetaData,
        chunks: &HashMap<String, usize>,
    ) -> bool {
        if matches!(leaf.op, LeafOp::IsNull) {
            return true;
        }
        let Some(field) = self.data_fields.iter().find(|f| f.id == leaf.field_id) else {
            return true;
        };
        let Some(pos) = find_by_name(self.file_columns.iter().copied(), &field.name) else {
            // The column was added after this file: every map is NULL.
            return false;
        };
        let name = self.file_columns[pos];
        let Some(meta) = self.shredding.get(name) else {
            return true; // default layout: no per-key statistics
        };
        let TypeKind::Map { value, .. } = &field.data_type.kind else {
            return true;
        };
        let Some(&id) = meta.dictionary.get(&leaf.key) else {
            return false; // the key is in no row of this file
        };
        if value.kind != leaf.value_type.kind {
            return true; // value type changed since the file: its statistics do not apply
        }
        if meta.overflow.contains(&id) {
            return true;
        }
        let bound = BoundPredicate::Leaf(BoundLeafPredicate {
            index: 0,
            name: leaf.key.clone(),
            data_type: (**value).clone(),
            op: leaf.op.clone(),
        });
        let rows = rg.num_rows();
        meta.field_columns.get(&id).into_iter().flatten().any(|&c| {
            match chunks.get(&format!("{name}.{}", column_name(c as usize))) {
                Some(&i) => {
                    let chunk = rg.column(i);
                    let nan_free = super::super::page_pruning::nan_free(chunk);
                    bound.test_stats_nan_free(rows, &[column_stats(chunk, value)], nan_free)
                }
                None => true,
            }
        })
    }
}
