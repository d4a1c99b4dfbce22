//! [`DynamicBucketAssigner`]: bucket assignment for dynamic-bucket primary-key tables
//! (`bucket = -1`), as Java's `HashBucketAssigner` + `PartitionIndex` and the writer-side
//! `DynamicBucketIndexMaintainer` do it.
//!
//! Per partition, on first use, every HASH index file of that partition in the base snapshot
//! (the latest when first needed) is read: hash → bucket, and the number of hashes per bucket.
//! Then for each key hash:
//!
//! 1. a hash seen before goes to the bucket that holds it;
//! 2. otherwise the first bucket (ascending id; Java iterates a `HashMap` of small ints, which is
//!    ascending) holding fewer than `dynamic-bucket.target-row-num` keys takes it; full buckets
//!    are dropped from the candidates for good;
//! 3. otherwise the smallest unused bucket id is opened, up to `dynamic-bucket.max-buckets`
//!    (−1 = unlimited, i.e. ids below Java's `Short.MAX_VALUE`; running out is an error);
//! 4. past `max-buckets`, a random existing bucket takes it.
//!
//! `dynamic-bucket.initial-buckets = N` emulates Java's N parallel assigners in one process
//! (Flink/Spark use `min(initial-buckets, parallelism)` assigners; strata's parallelism is that
//! N, capped by `max-buckets`): a key belongs to assigner
//! `(|partitionHash % N| + |keyHash % N|) % N` (`BucketAssigner.computeAssigner`) and assigner
//! k only uses buckets with `bucket % N == k`, so an empty partition starts with N buckets
//! filling side by side. Without the option N = 1.
//!
//! [`DynamicBucketAssigner::prepare_commit`] writes, for every bucket that received new keys, a
//! complete new HASH file (old file's hashes ∪ new ones, as Java's maintainer does) and returns
//! the index changes: DELETE of the bucket's previous file(s), ADD of the new one. The commit
//! turns them into the snapshot's index manifest (see `crate::index::manifest`).
//!
//! Java assumes one writer per partition. strata does not: the index files a commit replaces
//! are checked against the snapshot it lands on and rebased when another writer changed them
//! meanwhile (see `crate::index::rebase`), using [`DynamicBucketAssigner::base_snapshot`]; and
//! `prepare_commit` builds each new file from the bucket's files live at that time, not from
//! the ones loaded at start.

use crate::error::ErrorDetail;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use futures::{stream, StreamExt, TryStreamExt};
use object_store::path::Path;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{FileKind, IndexManifestEntry};

use crate::index::hash_file::{HashIndexFiles, HASH_INDEX};
use crate::index::manifest::IndexManifestStore;
use crate::table::Table;
use crate::{Error, Result};

/// One index change of a commit: ADD of a new index file or DELETE of a replaced one, with its
/// partition and bucket.
pub(crate) type IndexFileChange = IndexManifestEntry;

/// Bucket ids of a dynamic-bucket table are below this (Java `Short.MAX_VALUE`).
pub(crate) const MAX_DYNAMIC_BUCKETS: i32 = i16::MAX as i32;

/// Option keys.
pub(crate) const DYNAMIC_BUCKET_INITIAL_BUCKETS: &str = "dynamic-bucket.initial-buckets";
pub(crate) const DYNAMIC_BUCKET_MAX_BUCKETS: &str = "dynamic-bucket.max-buckets";

/// How many HASH files of one partition are read at once.
const READ_CONCURRENCY: usize = 8;

/// Settings of a [`DynamicBucketAssigner`], from the table options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DynamicBucketOptions {
    /// `dynamic-bucket.target-row-num` (default 2,000,000): keys per bucket before a new one.
    pub target_row_num: i64,
    /// `dynamic-bucket.max-buckets` (default −1 = unlimited): buckets per partition.
    pub max_buckets: i32,
    /// Logical assigners: `dynamic-bucket.initial-buckets` (default 1), at most `max_buckets`.
    pub num_assigners: i32,
}

impl DynamicBucketOptions {
    /// Reads and validates the table's `dynamic-bucket.target-row-num` (positive),
    /// `dynamic-bucket.max-buckets` (-1, or 1 to 32,767) and
    /// `dynamic-bucket.initial-buckets` (1 to 32,767); a value out of range is
    /// `ErrorDetail::InvalidOption`.
    pub fn from_table(table: &Table) -> Result<Self> {
        let opts = table.options();
        let target_row_num = opts.dynamic_bucket_target_row_num()?;
        if target_row_num <= 0 {
            return Err(invalid(
                "dynamic-bucket.target-row-num",
                format!("must be positive, got {target_row_num}"),
            ));
        }
        let max_buckets = opts.get_i32(DYNAMIC_BUCKET_MAX_BUCKETS)?.unwrap_or(-1);
        if max_buckets != -1 && !(1..=MAX_DYNAMIC_BUCKETS).contains(&max_buckets) {
            return Err(invalid(
                DYNAMIC_BUCKET_MAX_BUCKETS,
                format!("must be -1 or between 1 and {MAX_DYNAMIC_BUCKETS}, got {max_buckets}"),
            ));
        }
        let initial = opts.get_i32(DYNAMIC_BUCKET_INITIAL_BUCKETS)?.unwrap_or(1);
        if !(1..=MAX_DYNAMIC_BUCKETS).contains(&initial) {
            return Err(invalid(
                DYNAMIC_BUCKET_INITIAL_BUCKETS,
                format!("must be between 1 and {MAX_DYNAMIC_BUCKETS}, got {initial}"),
            ));
        }
        let num_assigners = if max_buckets == -1 {
            initial
        } else {
            initial.min(max_buckets)
        };
        Ok(DynamicBucketOptions {
            target_row_num,
            max_buckets,
            num_assigners,
        })
    }
}

fn invalid(key: &str, message: String) -> Error {
    ErrorDetail::InvalidOption {
        key: key.into(),
        message,
    }
    .into()
}

/// Java `BucketAssigner.computeAssigner` with `numChannels = numAssigners = n`.
pub(crate) fn compute_assigner(partition_hash: i32, key_hash: i32, n: i32) -> i32 {
    let start = partition_hash.wrapping_rem(n).abs();
    let id = key_hash.wrapping_rem(n).abs();
    (start + id) % n
}

/// Routes primary keys of a dynamic-bucket table to buckets and maintains its HASH index files.
/// See the module docs for the rules.
pub struct DynamicBucketAssigner {
    table: Table,
    files: HashIndexFiles,
    options: DynamicBucketOptions,
    ignore_existing: bool,
    /// HASH entries of the base snapshot by partition; `None` until first needed.
    base: Option<HashMap<BinaryRow, Vec<IndexManifestEntry>>>,
    /// The snapshot `base` was read from (`None`: none yet, or the table had no snapshot).
    base_snapshot: Option<i64>,
    partitions: HashMap<BinaryRow, PartitionState>,
    /// Files written by the latest `prepare_commit` (deleted by `abort`).
    prepared: Vec<Path>,
    rng: u64,
}

struct PartitionState {
    partition_hash: i32,
    hash_to_bucket: HashMap<i32, i16>,
    /// One per logical assigner.
    assigners: Vec<PartitionIndex>,
    /// Live HASH entries per bucket (the base snapshot's, then the ones prepared here).
    current: BTreeMap<i32, Vec<IndexManifestEntry>>,
    /// Hashes assigned since the last `prepare_commit`, per bucket.
    new_hashes: BTreeMap<i32, Vec<i32>>,
}

/// Java `PartitionIndex` of one logical assigner (without the hash map, which is shared).
struct PartitionIndex {
    non_full: BTreeMap<i32, i64>,
    total: BTreeSet<i32>,
    total_list: Vec<i32>,
    upper_bound_reached: bool,
}

impl DynamicBucketAssigner {
    /// Assigner for an ordinary write: existing keys keep their buckets. Nothing is read until
    /// the first [`assign`](Self::assign); the base is the latest snapshot at that time.
    pub async fn new(table: &Table) -> Result<Self> {
        Self::create(table, false)
    }

    /// Assigner for an overwrite of the partitions it will receive keys for: the existing index
    /// is ignored (the commit drops it), every partition starts empty (Java uses
    /// `SimpleHashBucketAssigner` there).
    pub async fn for_overwrite(table: &Table) -> Result<Self> {
        Self::create(table, true)
    }

    fn create(table: &Table, ignore_existing: bool) -> Result<Self> {
        if table.options().bucket()? != -1 || !table.is_primary_key_table() {
            return Err(ErrorDetail::InvalidArgument(format!(
                "table {} is not a dynamic-bucket table (needs a primary key and bucket = -1)",
                table.identifier()
            ))
            .into());
        }
        Ok(DynamicBucketAssigner {
            table: table.clone(),
            files: HashIndexFiles::new(table)?,
            options: DynamicBucketOptions::from_table(table)?,
            ignore_existing,
            base: None,
            base_snapshot: None,
            partitions: HashMap::new(),
            prepared: Vec::new(),
            rng: (uuid::Uuid::new_v4().as_u128() as u64) | 1,
        })
    }

    /// The dynamic-bucket settings this assigner was created with.
    #[cfg_attr(not(feature = "unstable"), allow(dead_code))] // strata::unstable only
    pub fn options(&self) -> DynamicBucketOptions {
        self.options
    }

    /// The snapshot whose index the assignments so far are based on (`None`: the table had no
    /// snapshot, or nothing was loaded yet). The commit checks the index files live when it
    /// lands against this one (`CommitMessage::index_base`).
    pub fn base_snapshot(&self) -> Option<i64> {
        self.base_snapshot
    }

    /// Bucket of a key (`key_hash`: see `crate::index::KeyHasher`) in `partition`. Loads the
    /// partition's HASH files on first use.
    pub async fn assign(&mut self, partition: &BinaryRow, key_hash: i32) -> Result<i32> {
        if !self.partitions.contains_key(partition) {
            let state = self.load_partition(partition).await?;
            self.partitions.insert(partition.clone(), state);
        }
        let opts = self.options;
        let state = self
            .partitions
            .get_mut(partition)
            .expect("partition state inserted above");
        if let Some(&b) = state.hash_to_bucket.get(&key_hash) {
            return Ok(b as i32);
        }
        let k = compute_assigner(state.partition_hash, key_hash, opts.num_assigners);
        let index = &mut state.assigners[k as usize];
        let bucket = index.assign_new(k, &opts, &mut self.rng).map_err(|m| {
            Error::from(ErrorDetail::InvalidArgument(format!(
                "{m} (table {}, partition {})",
                self.table.identifier(),
                self.table
                    .partition_text(partition)
                    .unwrap_or_else(|_| format!("{partition:?}"))
            )))
        })?;
        state.hash_to_bucket.insert(key_hash, bucket as i16);
        state.new_hashes.entry(bucket).or_default().push(key_hash);
        Ok(bucket)
    }

    /// [`assign`](Self::assign) for many keys of one partition, in order.
    pub async fn assign_batch(
        &mut self,
        partition: &BinaryRow,
        key_hashes: &[i32],
    ) -> Result<Vec<i32>> {
        let mut out = Vec::with_capacity(key_hashes.len());
        for h in key_hashes {
            out.push(self.assign(partition, *h).await?);
        }
        Ok(out)
    }

    /// Writes a new complete HASH file for every bucket that received new keys since the last
    /// call and returns the index changes (DELETE old file, ADD new file, per bucket). Nothing
    /// changes in memory unless every file was written; files written by a failing call are
    /// left for [`abort`](Self::abort).
    pub async fn prepare_commit(&mut self) -> Result<Vec<IndexFileChange>> {
        self.prepared.clear();
        let mut keys: Vec<&BinaryRow> = self
            .partitions
            .iter()
            .filter(|(_, s)| !s.new_hashes.is_empty())
            .map(|(k, _)| k)
            .collect();
        keys.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        let mut written: Vec<(BinaryRow, i32, IndexManifestEntry)> = Vec::new();
        let mut changes = Vec::new();
        // Each new file extends the bucket's files live now (another writer may have replaced
        // the ones loaded at start; the commit rebases what changes after this).
        let live = if keys.is_empty() || self.ignore_existing {
            None
        } else {
            Some(self.load_base().await?.1)
        };
        for partition in keys {
            let state = &self.partitions[partition];
            for (&bucket, new) in &state.new_hashes {
                let mut hashes = new.clone();
                let live_now: Vec<IndexManifestEntry> = live
                    .as_ref()
                    .and_then(|l| l.get(partition))
                    .map(|es| es.iter().filter(|e| e.bucket == bucket).cloned().collect())
                    .unwrap_or_default();
                let old: &[IndexManifestEntry] = match &live {
                    Some(_) => &live_now,
                    None => state.current.get(&bucket).map(Vec::as_slice).unwrap_or(&[]),
                };
                for e in old {
                    hashes.extend(self.files.read(partition, bucket, &e.index_file).await?);
                }
                let (meta, path) = self.files.write(partition, bucket, hashes).await?;
                self.prepared.push(path);
                for e in old {
                    let mut d = e.clone();
                    d.kind = FileKind::Delete;
                    changes.push(d);
                }
                let add = IndexManifestEntry {
                    kind: FileKind::Add,
                    partition: partition.clone(),
                    bucket,
                    index_file: meta,
                };
                changes.push(add.clone());
                written.push((partition.clone(), bucket, add));
            }
        }
        for (partition, bucket, add) in written {
            let state = self
                .partitions
                .get_mut(&partition)
                .expect("partition exists");
            state.new_hashes.remove(&bucket);
            state.current.insert(bucket, vec![add]);
        }
        Ok(changes)
    }

    /// Deletes the index files written by the latest [`prepare_commit`](Self::prepare_commit)
    /// (call it when the commit carrying them failed) and forgets all state, so later use
    /// starts again from the latest snapshot.
    pub async fn abort(&mut self) {
        let prepared = std::mem::take(&mut self.prepared);
        self.files.delete_quietly(&prepared).await;
        self.partitions.clear();
        self.base = None;
        self.base_snapshot = None;
    }

    async fn load_partition(&mut self, partition: &BinaryRow) -> Result<PartitionState> {
        let n = self.options.num_assigners;
        let mut state = PartitionState {
            partition_hash: partition.hash_code(),
            hash_to_bucket: HashMap::new(),
            assigners: Vec::with_capacity(n as usize),
            current: BTreeMap::new(),
            new_hashes: BTreeMap::new(),
        };
        let mut counts: BTreeMap<i32, i64> = BTreeMap::new();
        if !self.ignore_existing {
            if self.base.is_none() {
                let (id, base) = self.load_base().await?;
                self.base = Some(base);
                self.base_snapshot = id;
            }
            let entries = self
                .base
                .as_ref()
                .and_then(|b| b.get(partition))
                .cloned()
                .unwrap_or_default();
            let files = &self.files;
            // Owned entries in the futures keep `assign` Send for every caller lifetime.
            let reads = entries.into_iter().map(move |e| async move {
                let hashes = files.read(&e.partition, e.bucket, &e.index_file).await?;
                Ok::<_, Error>((e, hashes))
            });
            let contents: Vec<(IndexManifestEntry, Vec<i32>)> = stream::iter(reads)
                .buffered(READ_CONCURRENCY)
                .try_collect()
                .await?;
            for (e, hashes) in contents {
                if !(0..MAX_DYNAMIC_BUCKETS).contains(&e.bucket) {
                    return Err(ErrorDetail::InvalidArgument(format!(
                        "HASH index file {} of table {} has bucket {}, outside 0..{}",
                        e.index_file.file_name,
                        self.table.identifier(),
                        e.bucket,
                        MAX_DYNAMIC_BUCKETS
                    ))
                    .into());
                }
                *counts.entry(e.bucket).or_default() += hashes.len() as i64;
                for h in hashes {
                    state.hash_to_bucket.insert(h, e.bucket as i16);
                }
                state.current.entry(e.bucket).or_default().push(e);
            }
        }
        for k in 0..n {
            let non_full: BTreeMap<i32, i64> = counts
                .iter()
                .filter(|(b, _)| **b % n == k)
                .map(|(b, c)| (*b, *c))
                .collect();
            state.assigners.push(PartitionIndex {
                total: non_full.keys().copied().collect(),
                total_list: non_full.keys().copied().collect(),
                non_full,
                upper_bound_reached: false,
            });
        }
        Ok(state)
    }

    /// The live HASH entries of the latest snapshot by partition, and that snapshot's id.
    async fn load_base(
        &self,
    ) -> Result<(Option<i64>, HashMap<BinaryRow, Vec<IndexManifestEntry>>)> {
        let mut out: HashMap<BinaryRow, Vec<IndexManifestEntry>> = HashMap::new();
        let Some(snapshot) = self.table.snapshot_manager().latest().await? else {
            return Ok((None, out));
        };
        let store = IndexManifestStore::new(&self.table)?;
        for e in store.read_snapshot(&snapshot).await? {
            if e.index_file.index_type == HASH_INDEX && e.kind == FileKind::Add {
                out.entry(e.partition.clone()).or_default().push(e);
            }
        }
        Ok((Some(snapshot.id), out))
    }
}

impl PartitionIndex {
    /// Steps 2–4 of Java's `PartitionIndex.assign` for a hash not seen before, for logical
    /// assigner `k`.
    fn assign_new(
        &mut self,
        k: i32,
        opts: &DynamicBucketOptions,
        rng: &mut u64,
    ) -> std::result::Result<i32, String> {
        // 2. the first non-full bucket
        while let Some((&bucket, &count)) = self.non_full.iter().next() {
            if count < opts.target_row_num {
                self.non_full.insert(bucket, count + 1);
                return Ok(bucket);
            }
            self.non_full.remove(&bucket);
        }
        // 3. a new bucket
        let limit = if opts.max_buckets == -1 {
            MAX_DYNAMIC_BUCKETS
        } else {
            opts.max_buckets
        };
        let n = opts.num_assigners;
        if !self.upper_bound_reached {
            let mut i = k % n;
            while i < limit {
                if !self.total.contains(&i) {
                    self.non_full.insert(i, 1);
                    self.total.insert(i);
                    self.total_list.push(i);
                    return Ok(i);
                }
                i += n;
            }
            if opts.max_buckets == -1 {
                return Err(format!(
                    "all {MAX_DYNAMIC_BUCKETS} dynamic bucket ids are used; increase \
                     dynamic-bucket.target-row-num ({})",
                    opts.target_row_num
                ));
            }
            self.upper_bound_reached = true;
        }
        // 4. a random existing bucket
        if self.total_list.is_empty() {
            return Err(format!(
                "no bucket is available to assigner {k} of {n}; increase \
                 dynamic-bucket.max-buckets ({})",
                opts.max_buckets
            ));
        }
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        Ok(self.total_list[(*rng % self.total_list.len() as u64) as usize])
    }
}
