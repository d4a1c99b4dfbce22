//! The rows of a primary-key table's write on their way to the buckets: their row kinds
//! (from the caller, the `rowkind.field` column, or `+I`), the row-kind filter
//! (`ignore-delete` drops `-U`/`-D` rows, `ignore-update-before` drops `-U` rows: Java's
//! `RowKindFilter`), the kinds carried as an extra column through routing, and the routing to
//! (partition, bucket) of the fixed, dynamic (HASH index) and cross-partition (global key
//! index) bucket modes.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_select::filter::filter_record_batch;
use strata_spec::binary_row::BinaryRow;
use strata_spec::kv::RowKind;

use super::bucket_mode::Buckets;
use super::settings::KvOptions;
use crate::error::ErrorDetail;
use crate::table::Table;
use crate::write::cross_partition::GlobalIndexAssigner;
use crate::write::routing::Router;
use crate::{Error, Result};

/// Rows of one (partition, bucket), with their kinds as the last column.
pub(super) type Routed = Vec<(BinaryRow, i32, RecordBatch)>;

/// The kinds of `batch`'s rows as bytes: `kinds` (the caller's), else the `rowkind.field`
/// column, else all `+I`.
pub(super) fn row_kinds(
    table: &Table,
    options: &KvOptions,
    batch: &RecordBatch,
    kinds: Option<&[RowKind]>,
) -> Result<Vec<i8>> {
    Ok(match kinds {
        Some(k) => {
            if k.len() != batch.num_rows() {
                return Err(ErrorDetail::InvalidArgument(format!(
                    "{} row kinds for a batch of {} rows",
                    k.len(),
                    batch.num_rows()
                ))
                .into());
            }
            k.iter().map(|k| k.to_byte()).collect()
        }
        None => match options.row_kind_field {
            Some(idx) => {
                let name = &table.schema().fields[idx].name;
                crate::write::row_kinds::parse_row_kind_column(batch.column(idx), name)?
            }
            None => vec![RowKind::Insert.to_byte(); batch.num_rows()],
        },
    })
}

/// Drops the rows `ignore-delete` / `ignore-update-before` ignore.
pub(super) fn filter_kinds(
    options: &KvOptions,
    batch: &RecordBatch,
    kinds: Vec<i8>,
) -> Result<(RecordBatch, Vec<i8>)> {
    let drop = |k: i8| {
        (options.ignore_delete
            && (k == RowKind::Delete.to_byte() || k == RowKind::UpdateBefore.to_byte()))
            || (options.ignore_update_before && k == RowKind::UpdateBefore.to_byte())
    };
    if !kinds.iter().any(|k| drop(*k)) {
        return Ok((batch.clone(), kinds));
    }
    let keep: arrow_array::BooleanArray = kinds.iter().map(|k| Some(!drop(*k))).collect();
    let filtered = filter_record_batch(batch, &keep)
        .map_err(|e| Error::arrow("dropping ignored row kinds", e))?;
    let kinds = kinds.into_iter().filter(|k| !drop(*k)).collect();
    Ok((filtered, kinds))
}

/// `batch` with `kinds` as an extra last Int8 column, so that kinds travel with the rows
/// through routing.
pub(super) fn attach_kinds(batch: &RecordBatch, kinds: Vec<i8>) -> Result<RecordBatch> {
    let mut cols = batch.columns().to_vec();
    cols.push(Arc::new(arrow_array::Int8Array::from(kinds)) as ArrayRef);
    let mut fields = batch.schema().fields().to_vec();
    fields.push(Arc::new(arrow_schema::Field::new(
        "_row_kind",
        arrow_schema::DataType::Int8,
        false,
    )));
    RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), cols)
        .map_err(|e| Error::arrow("attaching row kinds", e))
}

/// Routes rows (with their kinds attached) to their (partition, bucket)s in every bucket
/// mode but postpone: the global key index of a cross-partition-upsert table (bootstrapped at
/// the first write from `base`'s live files), the HASH index of dynamic buckets, or the
/// bucket key's hash.
pub(super) async fn route(
    buckets: &mut Buckets,
    router: &Router,
    table: &Table,
    base: Option<i64>,
    with_kinds: &RecordBatch,
) -> Result<Routed> {
    let mut parts = Vec::new();
    let mut routed = Vec::new();
    if let Buckets::KeyDynamic { assigner, live } = buckets {
        if assigner.is_none() {
            let files = live.take().unwrap_or_default();
            let built = GlobalIndexAssigner::bootstrap(table, base, &files).await?;
            *assigner = Some(Box::new(built));
        }
        parts = assigner
            .as_mut()
            .expect("bootstrapped above")
            .assign(with_kinds)?;
    } else {
        routed = router.route(with_kinds)?;
    }
    for (partition, bucket, part) in routed {
        match &mut *buckets {
            Buckets::Fixed => parts.push((partition, bucket, part)),
            // Written above; kept out of the merge-tree writers.
            Buckets::Postpone(_) => {
                return Err(ErrorDetail::InvalidArgument(
                    "postpone rows reached the merge-tree writers".into(),
                )
                .into())
            }
            Buckets::KeyDynamic { .. } => {}
            Buckets::Dynamic { hasher, assigner } => {
                let hashes = hasher.hash_batch(&part)?;
                let assigned = assigner.assign_batch(&partition, &hashes).await?;
                for (b, sub) in split_by_bucket(&part, &assigned)? {
                    parts.push((partition.clone(), b, sub));
                }
            }
        }
    }
    Ok(parts)
}

/// The value columns and the row kinds of a routed batch (its last column, added by
/// [`attach_kinds`]).
pub(super) fn split_kinds(part: &RecordBatch) -> (Vec<ArrayRef>, Vec<i8>) {
    let n = part.num_columns();
    let kinds = part
        .column(n - 1)
        .as_any()
        .downcast_ref::<arrow_array::Int8Array>()
        .expect("the last column is the Int8 row-kind column added by attach_kinds")
        .values()
        .to_vec();
    (part.columns()[..n - 1].to_vec(), kinds)
}

/// Splits rows by their assigned bucket, keeping arrival order within each bucket.
fn split_by_bucket(batch: &RecordBatch, buckets: &[i32]) -> Result<Vec<(i32, RecordBatch)>> {
    let first = buckets.first().copied().unwrap_or(0);
    if buckets.iter().all(|b| *b == first) {
        return Ok(vec![(first, batch.clone())]);
    }
    let mut groups: std::collections::BTreeMap<i32, Vec<u32>> = Default::default();
    for (i, b) in buckets.iter().enumerate() {
        groups.entry(*b).or_default().push(i as u32);
    }
    groups
        .into_iter()
        .map(|(b, rows)| {
            let part =
                arrow_select::take::take_record_batch(batch, &arrow_array::UInt32Array::from(rows))
                    .map_err(|e| Error::arrow("splitting batch by bucket", e))?;
            Ok((b, part))
        })
        .collect()
}
