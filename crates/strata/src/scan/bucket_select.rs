//! Buckets a filter can match, from equalities on the bucket key (Java
//! `BucketSelectConverter`): with `bucket = N > 0` and the default bucket function, a filter
//! `k1 = a AND k2 IN (b, c)` over every bucket-key column can only match rows whose key hashes
//! to one of the buckets of (a, b) and (a, c). Knowing a single bucket makes a scan eligible
//! for the snapshot live manifest entry cache, and any bucket set lets planning skip the
//! entries of other buckets before decoding them.

use std::collections::BTreeSet;

use strata_spec::binary_row::BinaryRow;
use strata_spec::bucket::bucket_of;
use strata_spec::options::BucketFunctionType;
use strata_spec::Datum;

use crate::expr::{BoundPredicate, LeafOp};
use crate::table::Table;
use crate::Result;

/// Most key combinations hashed (Java uses the same bound).
const MAX_COMBINATIONS: usize = 1000;

/// The buckets `filter` can match, or `None` when it does not pin the bucket key.
pub(crate) fn select_buckets(
    table: &Table,
    filter: &BoundPredicate,
) -> Result<Option<BTreeSet<i32>>> {
    let opts = table.options();
    let num_buckets = opts.bucket()?;
    if num_buckets <= 0 || opts.bucket_function_type()? != BucketFunctionType::Default {
        return Ok(None);
    }
    let schema = table.schema();
    let row_type = schema.row_type();
    let keys = schema.bucket_keys();
    if keys.is_empty() {
        return Ok(None);
    }
    let conjuncts: &[BoundPredicate] = match filter {
        BoundPredicate::And(parts) => parts,
        BoundPredicate::AlwaysFalse => return Ok(Some(BTreeSet::new())),
        other => std::slice::from_ref(other),
    };
    let mut per_key: Vec<Vec<Datum>> = Vec::with_capacity(keys.len());
    let mut types = Vec::with_capacity(keys.len());
    for k in &keys {
        let Some(idx) = row_type.index_of(k) else {
            return Ok(None);
        };
        types.push(row_type.fields[idx].data_type.clone());
        match conjuncts.iter().find_map(|c| literals_for(c, idx)) {
            Some(values) => per_key.push(values),
            None => return Ok(None),
        }
    }
    let combinations = per_key
        .iter()
        .try_fold(1usize, |acc, v| acc.checked_mul(v.len()));
    if combinations.is_none_or(|n| n > MAX_COMBINATIONS) {
        return Ok(None);
    }
    let mut buckets = BTreeSet::new();
    let mut row: Vec<Option<Datum>> = vec![None; keys.len()];
    hash_all(&per_key, &types, 0, &mut row, num_buckets, &mut buckets)?;
    Ok(Some(buckets))
}

fn hash_all(
    per_key: &[Vec<Datum>],
    types: &[strata_spec::DataType],
    i: usize,
    row: &mut Vec<Option<Datum>>,
    num_buckets: i32,
    out: &mut BTreeSet<i32>,
) -> Result<()> {
    if i == per_key.len() {
        let key = BinaryRow::from_datums(row, types)?;
        out.insert(bucket_of(key.hash_code(), num_buckets));
        return Ok(());
    }
    for v in &per_key[i] {
        row[i] = Some(v.clone());
        hash_all(per_key, types, i + 1, row, num_buckets, out)?;
    }
    Ok(())
}

/// The literals a conjunct restricts column `idx` to: `= v`, `IN (..)`, or an OR of those.
fn literals_for(p: &BoundPredicate, idx: usize) -> Option<Vec<Datum>> {
    match p {
        BoundPredicate::Leaf(l) if l.index == idx => match &l.op {
            LeafOp::Equal(d) => Some(vec![d.clone()]),
            LeafOp::In(ds) => Some(ds.clone()),
            _ => None,
        },
        BoundPredicate::Or(parts) => {
            let mut all = Vec::new();
            for part in parts {
                all.extend(literals_for(part, idx)?);
            }
            Some(all)
        }
        _ => None,
    }
}
