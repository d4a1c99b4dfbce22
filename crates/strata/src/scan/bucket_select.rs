//! Buckets a filter can match, from equalities on the bucket key (Java
//! `BucketSelectConverter`): with `bucket = N > 0` and the default bucket function, a filter
//! `k1 = a AND k2 IN (b, c)` over every bucket-key column can only match rows whose key hashes
//! to one of the buckets of (a, b) and (a, c). Knowing a single bucket makes a scan eligible
//! for the snapshot live manifest entry cache, and any bucket set lets planning skip the
//! entries of other buckets before decoding them.
//!
//! The buckets are kept as the keys' hash codes, not bucket numbers: a partition keeps the
//! bucket count it was written with until it is rewritten (`ALTER TABLE ... SET ('bucket' =
//! ...)`, Java's rescale), and every manifest entry records its own `totalBuckets`, so an
//! entry is kept when one of the hashes falls into its bucket *under its own count* — Java's
//! `BucketSelectConverter` returns the same (bucket, totalBuckets) filter.

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

/// The bucket-key hash codes a filter pins, and the buckets they select.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HashedBuckets {
    hashes: Vec<i32>,
    /// The table's current bucket count and its buckets, computed once.
    table_buckets: i32,
    current: BTreeSet<i32>,
}

impl HashedBuckets {
    /// The buckets the hashes select among `total_buckets` buckets (every bucket when the
    /// count is not a fixed one: dynamic, unaware or postpone entries are not hashed).
    pub(crate) fn contains(&self, bucket: i32, total_buckets: i32) -> bool {
        if total_buckets <= 0 {
            return true;
        }
        if total_buckets == self.table_buckets {
            return self.current.contains(&bucket);
        }
        self.hashes
            .iter()
            .any(|h| bucket_of(*h, total_buckets) == bucket)
    }

    /// The buckets of the table's current bucket count.
    pub(crate) fn current(&self) -> &BTreeSet<i32> {
        &self.current
    }

    /// Whether `total_buckets` is the table's current bucket count.
    pub(crate) fn is_current_count(&self, total_buckets: i32) -> bool {
        total_buckets == self.table_buckets
    }
}

/// The bucket-key hashes `filter` pins, or `None` when it does not pin the bucket key.
pub(crate) fn select_buckets(
    table: &Table,
    filter: &BoundPredicate,
) -> Result<Option<HashedBuckets>> {
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
        BoundPredicate::AlwaysFalse => {
            return Ok(Some(HashedBuckets {
                hashes: Vec::new(),
                table_buckets: num_buckets,
                current: BTreeSet::new(),
            }))
        }
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
    let mut hashes = Vec::new();
    let mut row: Vec<Option<Datum>> = vec![None; keys.len()];
    hash_all(&per_key, &types, 0, &mut row, &mut hashes)?;
    hashes.sort_unstable();
    hashes.dedup();
    let current = hashes.iter().map(|h| bucket_of(*h, num_buckets)).collect();
    Ok(Some(HashedBuckets {
        hashes,
        table_buckets: num_buckets,
        current,
    }))
}

fn hash_all(
    per_key: &[Vec<Datum>],
    types: &[strata_spec::DataType],
    i: usize,
    row: &mut Vec<Option<Datum>>,
    out: &mut Vec<i32>,
) -> Result<()> {
    if i == per_key.len() {
        let key = BinaryRow::from_datums(row, types)?;
        out.push(key.hash_code());
        return Ok(());
    }
    for v in &per_key[i] {
        row[i] = Some(v.clone());
        hash_all(per_key, types, i + 1, row, out)?;
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
