//! The live manifest entries a scan needs: from manifests or from the snapshot live manifest
//! entry cache, with partition and bucket selection before decoding (lazy decoding).
//!
//! Three paths, all returning the same entries for the same snapshot and selection:
//!
//! * **Cache hit** (`scan.manifest-entry-cache.max-snapshots > 0`, a cache configured, the scan
//!   resolves to one bucket, and the cached value holds this snapshot with the same manifest
//!   lists): no manifest list or manifest is read. The slot's encoded entries are selected by
//!   partition and only the kept ones decoded.
//! * **Cache miss**: the bucket's entries are read from the snapshot's manifests (manifests
//!   whose bucket range excludes the bucket are not read), merged over every partition and
//!   stored; then the partition selection and decoding run as on a hit.
//! * **No cache**: manifests pruned by partition statistics and bucket range, entries selected
//!   by bucket and partition while still encoded, merged, and the live ones decoded.
//!
//! With `scan.manifest-entry.lazy-decode.enabled = false` every inspected entry is decoded
//! before the partition selection runs (the bucket of a cache rebuild is still selected
//! first, since the rebuild stores only that bucket). Results are identical; only the work
//! differs, which [`EntryCounters`] shows.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use bytes::Bytes;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{
    merge_entries, EntryFilter, EntryHead, ManifestEntry, ManifestFileMeta, RawEntry, RawManifest,
};
use strata_spec::snapshot::Snapshot;
use strata_spec::DataType;

use super::live_cache::{self, fingerprint, LiveValue};
use crate::cache::{Cache, CacheKey, CacheKind};
use crate::expr::BoundPredicate;
use crate::table::Table;
use crate::{Error, Result};

/// Branch name in cache keys (strata reads and writes the main branch).
const BRANCH: &str = "main";

/// Entries decoded on one thread before decoding is split across threads.
const PARALLEL_DECODE_MIN: usize = 4096;

/// Which entries a scan keeps, evaluated before decoding.
#[derive(Clone, Debug, Default)]
pub(crate) struct EntrySelection {
    pub buckets: Option<BTreeSet<i32>>,
    /// Bound to the partition row type.
    pub partition: Option<BoundPredicate>,
    pub partition_types: Vec<DataType>,
    /// Only these partitions (serialized `_PARTITION` bytes), for internal readers that know
    /// exactly which partitions they touch.
    pub partition_set: Option<HashSet<Vec<u8>>>,
}

impl EntrySelection {
    fn bucket_ok(&self, bucket: i32) -> bool {
        self.buckets.as_ref().is_none_or(|b| b.contains(&bucket))
    }

    /// The one bucket this selection is limited to, if any.
    pub(crate) fn single_bucket(&self) -> Option<i32> {
        match &self.buckets {
            Some(b) if b.len() == 1 => b.first().copied(),
            _ => None,
        }
    }

    fn without_partition(&self) -> EntrySelection {
        EntrySelection {
            buckets: self.buckets.clone(),
            partition: None,
            partition_types: self.partition_types.clone(),
            partition_set: None,
        }
    }

    fn partition_values_ok(&self, partition: &BinaryRow) -> Result<bool> {
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

/// A fast hasher for short byte keys (serialized partitions) in per-scan memo tables: the
/// multiply-rotate word mix of rustc's FxHash. Not DoS-resistant, which does not matter for
/// maps that live for one scan over the table's own metadata.
#[derive(Default)]
struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("chunks_exact(8) yields 8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FxHasher>>;

/// Partition tests on encoded `_PARTITION` bytes, memoized: a bucket has far fewer distinct
/// partitions than entries.
struct PartitionTest<'s, 'a> {
    sel: &'s EntrySelection,
    memo: FastMap<&'a [u8], bool>,
}

impl<'s, 'a> PartitionTest<'s, 'a> {
    fn new(sel: &'s EntrySelection) -> Self {
        PartitionTest {
            sel,
            memo: FastMap::default(),
        }
    }

    fn ok(&mut self, serialized: &'a [u8]) -> Result<bool> {
        if let Some(set) = &self.sel.partition_set {
            if !set.contains(serialized) {
                return Ok(false);
            }
        }
        if self.sel.partition.is_none() {
            return Ok(true);
        }
        if let Some(&ok) = self.memo.get(serialized) {
            return Ok(ok);
        }
        let row = BinaryRow::from_serialized(serialized)?;
        let ok = self.sel.partition_values_ok(&row)?;
        self.memo.insert(serialized, ok);
        Ok(ok)
    }
}

/// The [`EntryFilter`] of one parsing thread: bucket and partition selection on encoded
/// heads, memoizing partition verdicts, counting what it saw.
struct Selector {
    sel: Arc<EntrySelection>,
    memo: FastMap<Vec<u8>, bool>,
    inspected: usize,
    skipped_by_bucket: usize,
    skipped_by_partition: usize,
}

impl Selector {
    fn new(sel: Arc<EntrySelection>) -> Self {
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

    fn add_to(&self, c: &mut EntryCounters) {
        c.entries_inspected += self.inspected;
        c.entries_skipped_by_bucket += self.skipped_by_bucket;
        c.entries_skipped_by_partition += self.skipped_by_partition;
    }
}

impl EntryFilter for Selector {
    fn keep(&mut self, head: &EntryHead<'_>) -> strata_spec::Result<bool> {
        self.inspected += 1;
        if !self.sel.bucket_ok(head.bucket) {
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

/// Reads `metas` lazily, keeping the entries `sel` selects, and merges them: the live ADDs
/// with the manifests they borrow from.
async fn read_selected(
    table: &Table,
    metas: &[ManifestFileMeta],
    sel: &EntrySelection,
    counters: &mut EntryCounters,
) -> Result<Vec<RawManifest>> {
    let shared = Arc::new(sel.clone());
    let (raws, filters) = table
        .manifest_store()
        .read_raw_manifests(metas, move || Selector::new(shared.clone()))
        .await?;
    for f in &filters {
        f.add_to(counters);
    }
    Ok(raws)
}

/// What reading entries cost.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct EntryCounters {
    pub manifests_total: usize,
    pub manifests_read: usize,
    pub manifests_skipped_by_partition: usize,
    pub manifests_skipped_by_bucket: usize,
    pub entries_inspected: usize,
    pub entries_decoded: usize,
    pub entries_skipped_by_partition: usize,
    pub entries_skipped_by_bucket: usize,
}

/// The live entries of a scan plus how they were obtained.
pub(crate) struct LiveEntries {
    pub entries: Vec<ManifestEntry>,
    /// Data files of the whole snapshot (Java's `allDataFiles`), for the skipped-files metric.
    pub table_files: u64,
    pub counters: EntryCounters,
    /// `None` when the scan was not eligible for the cache.
    pub cache_hit: Option<bool>,
}

/// The cache settings of one scan.
pub(crate) struct CacheUse {
    pub cache: Arc<dyn Cache>,
    pub max_snapshots: usize,
}

fn cache_key(table: &Table, bucket: i32) -> CacheKey {
    CacheKey::new(
        CacheKind::SnapshotLiveManifest,
        format!("{}\u{0}{BRANCH}\u{0}{bucket}", table.location()),
    )
}

/// Reads the live entries of `snapshot` selected by `sel`.
pub(crate) async fn read_live_entries(
    table: &Table,
    snapshot: &Snapshot,
    sel: &EntrySelection,
    cache: Option<CacheUse>,
    lazy: bool,
) -> Result<LiveEntries> {
    if let (Some(c), Some(bucket)) = (cache, sel.single_bucket()) {
        if c.max_snapshots > 0 {
            return read_through_cache(table, snapshot, sel, c, bucket, lazy).await;
        }
    }
    let mut counters = EntryCounters::default();
    let (metas, table_files) = data_manifests(table, snapshot, sel, true, &mut counters).await?;
    let sel = sel.clone();
    let entries = if lazy {
        let mut counters = counters;
        let raws = read_selected(table, &metas, &sel, &mut counters).await?;
        blocking(move || {
            let mut c = counters;
            let adds = merge_entries(raws.iter().flat_map(|r| r.entries()))?.adds;
            check_partition_arity(&adds, &sel.partition_types)?;
            let entries = decode_all(&adds, decode_raw)?;
            c.entries_decoded += entries.len();
            Ok((entries, c))
        })
        .await?
    } else {
        let batches = table.manifest_store().read_manifests(&metas).await?;
        let shown: Vec<String> = metas
            .iter()
            .map(|m| {
                table
                    .file_io()
                    .display(&table.paths().manifest_file(&m.file_name))
            })
            .collect();
        blocking(move || {
            let mut c = counters;
            let mut kept = Vec::new();
            for (batch, shown) in batches.iter().zip(&shown) {
                check_decoded_partition_arity(batch, &sel.partition_types, shown)?;
            }
            for e in batches.into_iter().flatten() {
                c.entries_inspected += 1;
                c.entries_decoded += 1;
                if !sel.bucket_ok(e.bucket) {
                    c.entries_skipped_by_bucket += 1;
                } else if !sel.partition_values_ok(&e.partition)? {
                    c.entries_skipped_by_partition += 1;
                } else {
                    kept.push(e);
                }
            }
            Ok((merge_entries(kept)?.adds, c))
        })
        .await?
    };
    let (entries, counters) = entries;
    Ok(LiveEntries {
        entries,
        table_files,
        counters,
        cache_hit: None,
    })
}

async fn read_through_cache(
    table: &Table,
    snapshot: &Snapshot,
    sel: &EntrySelection,
    c: CacheUse,
    bucket: i32,
    lazy: bool,
) -> Result<LiveEntries> {
    let key = cache_key(table, bucket);
    let fp = fingerprint(snapshot);
    let old: Option<Bytes> = c.cache.get(&key);
    let hit = old
        .as_ref()
        .is_some_and(|b| LiveValue::parse(b).is_some_and(|v| v.find(snapshot.id, &fp).is_some()));
    let sel = sel.clone();
    if hit {
        let bytes = old.expect("hit implies a cached value");
        let id = snapshot.id;
        let (entries, table_files, counters) = blocking(move || {
            let mut counters = EntryCounters::default();
            let value = LiveValue::parse(&bytes).ok_or_else(|| stale_value(&key))?;
            let slot = value.find(id, &fp).ok_or_else(|| stale_value(&key))?;
            let cached = value.entries(slot).ok_or_else(|| stale_value(&key))?;
            let entries = select_cached(cached, &sel, lazy, &mut counters)
                .ok_or_else(|| stale_value(&key))??;
            Ok((entries, slot.table_files, counters))
        })
        .await?;
        return Ok(LiveEntries {
            entries,
            table_files,
            counters,
            cache_hit: Some(true),
        });
    }

    let mut counters = EntryCounters::default();
    let bucket_only = sel.without_partition();
    let (metas, table_files) =
        data_manifests(table, snapshot, &bucket_only, false, &mut counters).await?;
    let raws = read_selected(table, &metas, &bucket_only, &mut counters).await?;
    let snap = snapshot.clone();
    let max = c.max_snapshots;
    let (entries, value, counters) = blocking(move || {
        let mut counters = counters;
        let adds = merge_entries(raws.iter().flat_map(|r| r.entries()))?.adds;
        check_partition_arity(&adds, &sel.partition_types)?;
        let old_value = old.as_deref().and_then(LiveValue::parse);
        let value = live_cache::encode(old_value.as_ref(), &snap, table_files, &adds, max);
        let mut test = PartitionTest::new(&sel);
        let entries = if lazy {
            let mut kept = Vec::new();
            for e in &adds {
                if test.ok(e.head.partition)? {
                    kept.push(e);
                } else {
                    counters.entries_skipped_by_partition += 1;
                }
            }
            decode_all(&kept, |e| decode_raw(e))?
        } else {
            let all = decode_all(&adds, decode_raw)?;
            counters.entries_decoded += all.len();
            let mut kept = Vec::new();
            for e in all {
                if sel.partition_values_ok(&e.partition)? {
                    kept.push(e);
                } else {
                    counters.entries_skipped_by_partition += 1;
                }
            }
            kept
        };
        if lazy {
            counters.entries_decoded += entries.len();
        }
        Ok((entries, value, counters))
    })
    .await?;
    c.cache.put(key, value);
    Ok(LiveEntries {
        entries,
        table_files,
        counters,
        cache_hit: Some(false),
    })
}

/// The live entries of the snapshot whose data manifests are `metas` (only those of
/// `partitions` when given): merged encoded, the live ones decoded.
pub(crate) async fn all_live_entries(
    table: &Table,
    metas: &[ManifestFileMeta],
    partitions: Option<&[BinaryRow]>,
) -> Result<Vec<ManifestEntry>> {
    let sel = EntrySelection {
        partition_set: partitions.map(|ps| ps.iter().map(BinaryRow::to_serialized).collect()),
        ..EntrySelection::default()
    };
    let raws = read_selected(table, metas, &sel, &mut EntryCounters::default()).await?;
    blocking(move || {
        let adds = merge_entries(raws.iter().flat_map(|r| r.entries()))?.adds;
        decode_all(&adds, decode_raw)
    })
    .await
}

fn stale_value(key: &CacheKey) -> Error {
    Error::Invariant(format!(
        "cached live manifest entries for {:?} changed while being read",
        key.key
    ))
}

/// The snapshot's data manifests, pruned by bucket range (and by partition statistics when
/// `by_partition`), plus the snapshot's total data file count.
async fn data_manifests(
    table: &Table,
    snapshot: &Snapshot,
    sel: &EntrySelection,
    by_partition: bool,
    counters: &mut EntryCounters,
) -> Result<(Vec<ManifestFileMeta>, u64)> {
    let metas = table.manifest_store().data_manifests(snapshot).await?;
    counters.manifests_total = metas.len();
    let table_files = metas
        .iter()
        .map(|m| m.num_added_files - m.num_deleted_files)
        .sum::<i64>()
        .max(0) as u64;
    let partition_types = &sel.partition_types;
    let mut kept = Vec::with_capacity(metas.len());
    for m in metas {
        if let (Some(buckets), Some(lo), Some(hi)) = (&sel.buckets, m.min_bucket, m.max_bucket) {
            if buckets.range(lo..=hi).next().is_none() {
                counters.manifests_skipped_by_bucket += 1;
                continue;
            }
        }
        if let (true, Some(pf)) = (by_partition, &sel.partition) {
            let stats = m.partition_stats.to_columns(partition_types)?;
            if !pf.test_stats(m.num_added_files + m.num_deleted_files, &stats) {
                counters.manifests_skipped_by_partition += 1;
                continue;
            }
        }
        kept.push(m);
    }
    counters.manifests_read = kept.len();
    Ok((kept, table_files))
}

/// Selects cached entries by partition (one verdict per distinct partition of the slot) and
/// decodes the kept ones (all of them first when lazy decoding is off). `None` when the
/// cached body is malformed.
fn select_cached(
    cached: live_cache::SlotEntries<'_, '_>,
    sel: &EntrySelection,
    lazy: bool,
    counters: &mut EntryCounters,
) -> Option<Result<Vec<ManifestEntry>>> {
    counters.entries_inspected += cached.len();
    let decode = |e: &live_cache::CachedEntry<'_>| e.schema.decode(e.datum, 0).map_err(Error::from);
    if !lazy {
        let mut all = Vec::with_capacity(cached.len());
        let walked = cached.try_for_each(|_, e| {
            all.push(e);
            Ok::<(), Error>(())
        })?;
        let result = walked.and_then(|()| {
            let decoded = decode_all(&all, decode)?;
            counters.entries_decoded += decoded.len();
            let mut kept = Vec::new();
            for e in decoded {
                if sel.partition_values_ok(&e.partition)? {
                    kept.push(e);
                } else {
                    counters.entries_skipped_by_partition += 1;
                }
            }
            Ok(kept)
        });
        return Some(result);
    }
    let mut verdicts: Vec<Option<bool>> = vec![None; cached.partitions.len()];
    let mut kept = Vec::new();
    let mut skipped = 0usize;
    let walked = cached.try_for_each(|partitions, e| {
        let ok = match verdicts[e.partition] {
            Some(ok) => ok,
            None => {
                let row = BinaryRow::from_serialized(partitions[e.partition])?;
                let ok = sel.partition_values_ok(&row)?;
                verdicts[e.partition] = Some(ok);
                ok
            }
        };
        if ok {
            kept.push(e);
        } else {
            skipped += 1;
        }
        Ok::<(), Error>(())
    })?;
    counters.entries_skipped_by_partition += skipped;
    Some(walked.and_then(|()| {
        let out = decode_all(&kept, decode)?;
        counters.entries_decoded += out.len();
        Ok(out)
    }))
}

/// Decodes an encoded entry; a failure names the manifest it came from.
fn decode_raw(e: &RawEntry<'_>) -> Result<ManifestEntry> {
    e.decode().map_err(|err| in_manifest(e, err))
}

fn in_manifest(e: &RawEntry<'_>, err: strata_spec::SpecError) -> Error {
    if e.source.is_empty() {
        Error::Spec(err)
    } else {
        Error::corrupt(e.source, err)
    }
}

/// Every live entry's partition must have the table's partition arity (partition keys never
/// change): a mismatch means the manifest, or the schema, is corrupt, and is reported with the
/// manifest's name before anything tries to decode the partition with the table's types.
fn check_partition_arity(adds: &[RawEntry<'_>], partition_types: &[DataType]) -> Result<()> {
    for e in adds {
        let arity = e
            .head
            .partition
            .first_chunk::<4>()
            .map(|b| i32::from_be_bytes(*b));
        if arity != Some(partition_types.len() as i32) {
            let message = format!(
                "entry {} (file {}) has a partition of arity {}, but the table has {} \
                 partition keys",
                e.ordinal,
                String::from_utf8_lossy(e.head.file_name),
                arity.map_or("?".to_string(), |a| a.to_string()),
                partition_types.len()
            );
            return Err(in_manifest(
                e,
                strata_spec::SpecError::invalid("manifest entry", message),
            ));
        }
    }
    Ok(())
}

/// [`check_partition_arity`] for the entries of manifest `shown`, already decoded.
fn check_decoded_partition_arity(
    entries: &[ManifestEntry],
    partition_types: &[DataType],
    shown: &str,
) -> Result<()> {
    match entries
        .iter()
        .position(|e| e.partition.arity() != partition_types.len())
    {
        None => Ok(()),
        Some(i) => Err(Error::corrupt(
            shown,
            strata_spec::SpecError::invalid(
                "manifest entry",
                format!(
                    "entry {i} (file {}) has a partition of arity {}, but the table has {} \
                     partition keys",
                    entries[i].file.file_name,
                    entries[i].partition.arity(),
                    partition_types.len()
                ),
            ),
        )),
    }
}

/// Decodes `items` in order, on several threads when there are many.
fn decode_all<T: Sync>(
    items: &[T],
    decode: impl Fn(&T) -> Result<ManifestEntry> + Sync,
) -> Result<Vec<ManifestEntry>> {
    let parts = crate::io::parallel::map_chunks(items, PARALLEL_DECODE_MIN, |part| {
        part.iter().map(&decode).collect::<Result<Vec<_>>>()
    })?;
    Ok(parts.into_iter().flatten().collect())
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    crate::io::blocking("scan planning", f).await
}
