//! The records of one key inside [`super::MergeSorter`]: Paimon's order within a key
//! (`sequence.field` values, then `_SEQUENCE_NUMBER`, then retract before add), a record's
//! values for the merge function, and the batch of rows a merge function built.

use crate::error::ErrorDetail;
use std::cmp::Ordering;
use std::sync::Arc;

use arrow_array::{Int64Array, Int8Array, RecordBatch};
use strata_spec::kv::RowKind;

use crate::lsm::kv_layout::KvLayout;
use crate::lsm::merge::value::{value_at, values_to_array};
use crate::lsm::merge::{KvMeta, Value};
use crate::Result;

/// One record of the group being reduced.
pub(super) struct Member {
    pub(super) source: usize,
    pub(super) row: usize,
    pub(super) level: i32,
    pub(super) meta: KvMeta,
}

/// Paimon's order within a key: `sequence.field` values, `_SEQUENCE_NUMBER`, retract
/// before add.
pub(super) fn order_group(
    layout: &KvLayout,
    sources: &[RecordBatch],
    group: &mut [Member],
) -> Result<()> {
    if layout.sequence_fields.is_empty() {
        group.sort_by_key(|m| (m.meta.sequence, m.meta.kind.is_add()));
        return Ok(());
    }
    let mut keyed = Vec::with_capacity(group.len());
    for m in group.iter() {
        let batch = &sources[m.source];
        let mut vals = Vec::with_capacity(layout.sequence_fields.len());
        for f in &layout.sequence_fields {
            vals.push(crate::format::datum::datum_at(
                batch.column(layout.value_col(*f)).as_ref(),
                m.row,
            )?);
        }
        keyed.push(vals);
    }
    let mut order: Vec<usize> = (0..group.len()).collect();
    order.sort_by(|a, b| {
        let mut o = compare_sequence_values(&keyed[*a], &keyed[*b]);
        if layout.sequence_descending {
            o = o.reverse();
        }
        o.then(group[*a].meta.sequence.cmp(&group[*b].meta.sequence))
            .then(
                group[*a]
                    .meta
                    .kind
                    .is_add()
                    .cmp(&group[*b].meta.kind.is_add()),
            )
    });
    let sorted: Vec<Member> = order
        .iter()
        .map(|i| Member {
            source: group[*i].source,
            row: group[*i].row,
            level: group[*i].level,
            meta: group[*i].meta,
        })
        .collect();
    for (slot, m) in group.iter_mut().zip(sorted) {
        *slot = m;
    }
    Ok(())
}

/// NULLs first, then natural order (Java's user-defined sequence comparator).
fn compare_sequence_values(
    a: &[Option<strata_spec::Datum>],
    b: &[Option<strata_spec::Datum>],
) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(x), Some(y)) => x.compare(y).unwrap_or(Ordering::Equal),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// Record `row`'s value columns as [`Value`]s.
pub(super) fn row_values(layout: &KvLayout, batch: &RecordBatch, row: usize) -> Result<Vec<Value>> {
    (0..layout.value_fields.len())
        .map(|i| value_at(batch.column(layout.value_col(i)).as_ref(), row))
        .collect()
}

/// A batch of rows built by the merge function.
pub(super) fn build_merged(
    layout: &KvLayout,
    rows: Vec<(RowKind, i64, Vec<Value>)>,
) -> Result<RecordBatch> {
    let n = layout.value_fields.len();
    let mut columns: Vec<Vec<Value>> = (0..n).map(|_| Vec::with_capacity(rows.len())).collect();
    let mut seqs = Vec::with_capacity(rows.len());
    let mut kinds = Vec::with_capacity(rows.len());
    for (kind, seq, values) in rows {
        if values.len() != n {
            return Err(ErrorDetail::InvalidArgument(format!(
                "merge function returned {} values for {} columns",
                values.len(),
                n
            ))
            .into());
        }
        seqs.push(seq);
        kinds.push(kind.to_byte());
        for (col, v) in columns.iter_mut().zip(values) {
            col.push(v);
        }
    }
    let arrays = columns
        .iter()
        .zip(&layout.value_fields)
        .map(|(vals, f)| values_to_array(vals, &f.data_type))
        .collect::<Result<Vec<_>>>()?;
    layout.assemble(
        arrays,
        Arc::new(Int64Array::from(seqs)),
        Arc::new(Int8Array::from(kinds)),
    )
}
