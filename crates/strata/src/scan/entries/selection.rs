//! Pure selection over encoded manifest entries: which entries a scan keeps
//! ([`EntrySelection`]: buckets, bucket-key hashes, partitions), and the [`EntryFilter`] that
//! applies it to the heads of lazily decoded manifest entries before anything is decoded
//! ([`Selector`]). No I/O.

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{EntryFilter, EntryHead};
use strata_spec::DataType;

use super::live::EntryCounters;
use crate::expr::BoundPredicate;
use crate::scan::bucket_select::HashedBuckets;
use crate::Result;
use foldhash::HashMap as FastMap;

/// Which entries a scan keeps, evaluated before decoding.
#[derive(Clone, Debug, Default)]
pub(crate) struct EntrySelection {
    /// Only these bucket numbers, whatever an entry's bucket count (`with_bucket`,
    /// `scan.bucket`, internal readers of one bucket).
    pub buckets: Option<BTreeSet<i32>>,
    /// Buckets pinned by bucket-key equalities: an entry is kept when a pinned key hashes to
    /// its bucket under its own `totalBuckets` (see `bucket_select`).
    pub hashed: Option<Arc<HashedBuckets>>,
    /// The key hashes may be served by the live-entry cache of their one bucket: every entry
    /// of the table was written with the table's current bucket count as far as its schema
    /// history shows; a served entry with another count still falls back to a full read.
    pub cache_by_hash: bool,
    /// Skip the postpone bucket (-2): batch reads of `bucket = -2` tables see only the real
    /// buckets (Java `SnapshotReader.onlyReadRealBuckets`).
    pub real_buckets_only: bool,
    /// Bound to the partition row type.
    pub partition: Option<BoundPredicate>,
    pub partition_types: Vec<DataType>,
    /// Only these partitions (serialized `_PARTITION` bytes), for internal readers that know
    /// exactly which partitions they touch.
    pub partition_set: Option<HashSet<Vec<u8>>>,
}

impl EntrySelection {
    pub(crate) fn bucket_ok(&self, bucket: i32, total_buckets: i32) -> bool {
        if self.real_buckets_only && bucket == strata_spec::options::POSTPONE_BUCKET {
            return false;
        }
        self.buckets.as_ref().is_none_or(|b| b.contains(&bucket))
            && self
                .hashed
                .as_ref()
                .is_none_or(|h| h.contains(bucket, total_buckets))
    }

    /// The one bucket this selection is limited to, if any, when the live-entry cache may
    /// serve it.
    pub(crate) fn single_bucket(&self) -> Option<i32> {
        let hashed = match &self.hashed {
            None => None,
            Some(h) if self.cache_by_hash && h.current().len() == 1 => h.current().first().copied(),
            Some(_) => return None,
        };
        match (&self.buckets, hashed) {
            (None, None) => None,
            (Some(b), None) if b.len() == 1 => b.first().copied(),
            (None, Some(h)) => Some(h),
            (Some(b), Some(h)) if b.len() == 1 && b.contains(&h) => Some(h),
            _ => None,
        }
    }

    pub(super) fn without_partition(&self) -> EntrySelection {
        EntrySelection {
            partition: None,
            partition_set: None,
            ..self.clone()
        }
    }

    pub(super) fn partition_values_ok(&self, partition: &BinaryRow) -> Result<bool> {
        if let Some(set) = &self.partition_set {
            if !set.contains(&partition.to_serialized()) {
                return Ok(false);
            }
        }
        match &self.partition {
            None => Ok(true),
            Some(pf) => {
                let values = partition.to_datums(&self.partition_types)?;
                Ok(pf.test_values(&values) == Some(true))
            }
        }
    }
}

/// The [`EntryFilter`] of one parsing thread: bucket and partition selection on encoded
/// heads, memoizing partition verdicts, counting what it saw.
pub(super) struct Selector {
    sel: Arc<EntrySelection>,
    memo: FastMap<Vec<u8>, bool>,
    inspected: usize,
    skipped_by_bucket: usize,
    skipped_by_partition: usize,
}

impl Selector {
    pub(super) fn new(sel: Arc<EntrySelection>) -> Self {
        Selector {
            sel,
            memo: FastMap::default(),
            inspected: 0,
            skipped_by_bucket: 0,
            skipped_by_partition: 0,
        }
    }

    fn partition_ok(&mut self, serialized: &[u8]) -> strata_spec::Result<bool> {
        if let Some(set) = &self.sel.partition_set {
            if !set.contains(serialized) {
                return Ok(false);
            }
        }
        let Some(pf) = &self.sel.partition else {
            return Ok(true);
        };
        if let Some(&ok) = self.memo.get(serialized) {
            return Ok(ok);
        }
        let values =
            BinaryRow::from_serialized(serialized)?.to_datums(&self.sel.partition_types)?;
        let ok = pf.test_values(&values) == Some(true);
        self.memo.insert(serialized.to_vec(), ok);
        Ok(ok)
    }

    pub(super) fn add_to(&self, c: &mut EntryCounters) {
        c.entries_inspected += self.inspected;
        c.entries_skipped_by_bucket += self.skipped_by_bucket;
        c.entries_skipped_by_partition += self.skipped_by_partition;
    }
}

impl EntryFilter for Selector {
    fn keep(&mut self, head: &EntryHead<'_>) -> strata_spec::Result<bool> {
        self.inspected += 1;
        if !self.sel.bucket_ok(head.bucket, head.total_buckets) {
            self.skipped_by_bucket += 1;
            return Ok(false);
        }
        if !self.partition_ok(head.partition)? {
            self.skipped_by_partition += 1;
            return Ok(false);
        }
        Ok(true)
    }
}
