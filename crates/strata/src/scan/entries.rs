//! The live manifest entries a scan needs: from manifests or from the snapshot live manifest
//! entry cache, with partition and bucket selection before decoding (lazy decoding).
//!
//! Four paths, all returning the same entries for the same snapshot and selection:
//!
//! * **Cache hit** (`scan.manifest-entry-cache.max-snapshots > 0`, a cache configured, the scan
//!   resolves to one bucket, and the cache holds a slot of this snapshot with the same manifest
//!   lists, see `live_cache`): no manifest list or manifest is read. The slot's encoded entries are selected by
//!   partition and only the kept ones decoded.
//! * **Cache miss, incremental build**: the cache holds a slot of an older snapshot `B` (at most
//!   [`MAX_INCREMENTAL_SNAPSHOTS`] behind). In Paimon the live files of snapshot `N` are those of
//!   `N - 1` plus the entries of `N`'s delta manifest list: a commit writes every file change it
//!   makes — ADDs, and the DELETEs of compaction inputs, of overwritten and of rewritten files —
//!   as its delta, and its base list is the previous snapshot's base and delta lists, merged
//!   (Java `FileStoreCommitImpl.tryCommitOnce`; strata's `commit::attempt`; manifest merging,
//!   `ManifestFileMerger`, preserves the merged live set as `FileEntry.mergeEntries` defines
//!   it). So `B`'s slot plus the merged delta entries of `B+1 ..= S` is `S`'s live set: only the
//!   snapshot files, the delta lists and the delta manifests holding the bucket are read. The
//!   build is used only when the chain provably lines up, else the slot is rebuilt:
//!   - snapshot `B` still exists with the slot's manifest lists (expired or rolled back: no);
//!   - no snapshot of `B+1 ..= S` is an OVERWRITE: Java also writes OVERWRITE snapshots whose
//!     base list is not derived from the previous snapshot's (`FileStoreCommitImpl`'s
//!     `rollbackToAsLatest`, `replaceManifestList` with any lists, a REPLACE TABLE AS SELECT
//!     after a TRUNCATE), and nothing in a snapshot tells those from a plain INSERT OVERWRITE,
//!     so every OVERWRITE is rebuilt (the snapshots after it are incremental again);
//!   - snapshot `S` is read again after the others and is unchanged, so the ids in between were
//!     not rolled back and reused meanwhile (a snapshot file is deleted, never replaced, while
//!     a newer one exists);
//!   - every delta DELETE removes a file the slot holds, and no delta ADD is already in it;
//!   - any error on the way (a file gone, a manifest that does not merge) falls back too; the
//!     rebuild reports real errors.
//!
//!   The slot is written by copying the base slot's encoded entries (identities compared only
//!   in partitions the deltas touch), then the new ADDs.
//! * **Cache miss, rebuild**: the bucket's entries are read from the snapshot's manifests
//!   (manifests whose bucket range excludes the bucket are not read), merged over every
//!   partition (`merge_bucket`: identities hashed once, only those meeting a DELETE merged
//!   exactly) and written into a new slot.
//! * **No cache**: manifests pruned by partition statistics and bucket range, entries selected
//!   by bucket and partition while still encoded, merged, and the live ones decoded.
//!
//! On both misses the scan's partitions are selected while the slot is written, one verdict per
//! slot partition index, and only the kept entries decoded; the slot is written once, straight
//! into the buffer the cache keeps, under its own key (only the small index of the bucket's
//! slots is rewritten).
//! With `scan.manifest-entry.lazy-decode.enabled = false` every inspected entry is decoded
//! before the partition selection runs (the bucket of a cache rebuild is still selected
//! first, since the rebuild stores only that bucket). Results are identical; only the work
//! differs, which [`EntryCounters`] shows.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use bytes::Bytes;
use futures::{stream, StreamExt, TryStreamExt};
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{
    merge_entries, EntryFilter, EntryHead, EntrySchema, FileKind, ManifestEntry, ManifestFileMeta,
    MergeItem, Merged, RawEntry, RawManifest,
};
use strata_spec::snapshot::{CommitKind, Snapshot};
use strata_spec::DataType;

use super::bucket_select::HashedBuckets;
use super::live_cache::{self, fingerprint, SlotIndex, SlotValue, SlotWriter};
use crate::cache::{Cache, CacheKey, CacheKind};
use crate::error::ErrorDetail;
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

    fn without_partition(&self) -> EntrySelection {
        EntrySelection {
            partition: None,
            partition_set: None,
            ..self.clone()
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

/// A fast hasher for short keys (serialized partitions, file identities) in the maps of one
/// scan or one cache slot: partition memos, slot dictionaries, the merge index of a cache
/// miss. The multiply-rotate word mix of rustc's FxHash, integers in one round. Not
/// DoS-resistant, which does not matter for maps over the table's own metadata.
#[derive(Default)]
pub(super) struct FxHasher(u64);

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl std::hash::Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(
                c.try_into().expect("chunks_exact(8) yields 8 bytes"),
            ));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // The tail as one word (zero-padded, tagged with its length).
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }

    // Integers (lengths, buckets, levels, discriminants) in one round each.
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_i32(&mut self, i: i32) {
        self.add(i as u32 as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

pub(super) type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FxHasher>>;

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
    /// Snapshots whose delta manifests were applied to a cached slot to build this
    /// snapshot's (0 unless the slot was built incrementally).
    pub deltas_applied: usize,
}

/// The cache settings of one scan.
pub(crate) struct CacheUse {
    pub cache: Arc<dyn Cache>,
    pub max_snapshots: usize,
}

/// Key of a bucket's slot index (see `live_cache`).
fn index_key(table: &Table, bucket: i32) -> CacheKey {
    CacheKey::new(
        CacheKind::SnapshotLiveManifest,
        format!("{}\u{0}{BRANCH}\u{0}{bucket}", table.location()),
    )
}

/// Key of the slot of snapshot `id` with fingerprint `fp`.
fn slot_key(table: &Table, bucket: i32, id: i64, fp: &str) -> CacheKey {
    CacheKey::new(
        CacheKind::SnapshotLiveManifest,
        format!(
            "{}\u{0}{BRANCH}\u{0}{bucket}\u{0}{id}\u{0}{fp}",
            table.location()
        ),
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
            let live = read_through_cache(table, snapshot, sel, c, bucket, lazy).await?;
            // A bucket chosen by hashing is right only if its entries have the table's bucket
            // count; one with another (a partition rescaled without ALTER TABLE) means others
            // may sit in other buckets: read without the cache.
            let rescaled = sel.hashed.as_ref().is_some_and(|h| {
                live.entries
                    .iter()
                    .any(|e| e.total_buckets > 0 && !h.is_current_count(e.total_buckets))
            });
            if !rescaled {
                return Ok(live);
            }
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
                if !sel.bucket_ok(e.bucket, e.total_buckets) {
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
        deltas_applied: 0,
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
    let fp = fingerprint(snapshot);
    let index: SlotIndex = c
        .cache
        .get(&index_key(table, bucket))
        .and_then(|b| live_cache::parse_index(&b))
        .unwrap_or_default();
    let stored = |id: i64, fp: &str| -> Option<Bytes> {
        if !index.iter().any(|(i, f)| *i == id && f == fp) {
            return None;
        }
        let bytes = c.cache.get(&slot_key(table, bucket, id, fp))?;
        // A slot is checked against its own header, whatever the index says.
        SlotValue::parse(&bytes)
            .is_some_and(|v| v.is(id, fp))
            .then_some(bytes)
    };
    if let Some(bytes) = stored(snapshot.id, &fp) {
        let sel = sel.clone();
        let (entries, table_files, counters) = blocking(move || {
            let mut counters = EntryCounters::default();
            let slot = SlotValue::parse(&bytes).ok_or_else(stale_value)?;
            let entries = select_cached(slot.entries(), &sel, lazy, &mut counters)
                .ok_or_else(stale_value)??;
            Ok((entries, slot.table_files, counters))
        })
        .await?;
        return Ok(LiveEntries {
            entries,
            table_files,
            counters,
            cache_hit: Some(true),
            deltas_applied: 0,
        });
    }
    let base = live_cache::base_for(&index, snapshot.id, MAX_INCREMENTAL_SNAPSHOTS)
        .and_then(|(id, fp)| Some((*id, fp.clone(), stored(*id, fp)?)));
    let mut built = None;
    if let Some((base_id, base_fp, base)) = base {
        // Anything that does not line up (or fails) falls back to the full rebuild, which
        // reports real errors.
        if let Ok(Some(b)) =
            build_incrementally(table, snapshot, sel, bucket, lazy, base_id, &base_fp, base).await
        {
            built = Some(b);
        }
    }
    let (live, slot) = match built {
        Some(b) => b,
        None => rebuild(table, snapshot, sel, lazy).await?,
    };
    store_slot(table, &c, bucket, snapshot.id, fp, slot);
    Ok(live)
}

/// Puts a new slot and registers it in its bucket's index: replacing a slot of the same
/// snapshot id (other content: a rollback reused the id), and invalidating the oldest other
/// slots beyond `max_snapshots` (the new slot is kept even when older than the others, e.g.
/// for a time-travel scan). The index is read again just before it is written, so concurrent
/// scans rarely lose each other's slots (a lost one is only a later miss).
fn store_slot(table: &Table, c: &CacheUse, bucket: i32, id: i64, fp: String, slot: Bytes) {
    c.cache.put(slot_key(table, bucket, id, &fp), slot);
    let key = index_key(table, bucket);
    let mut index: SlotIndex = c
        .cache
        .get(&key)
        .and_then(|b| live_cache::parse_index(&b))
        .unwrap_or_default();
    let mut dropped: Vec<(i64, String)> = Vec::new();
    index.retain(|(i, f)| {
        if *i == id && *f != fp {
            dropped.push((*i, f.clone()));
        }
        *i != id
    });
    // The other slots, oldest dropped first; the new slot is always kept.
    index.sort_by_key(|(i, _)| *i);
    let excess = (index.len() + 1).saturating_sub(c.max_snapshots.max(1));
    dropped.extend(index.drain(..excess));
    index.push((id, fp));
    index.sort_by_key(|(i, _)| *i);
    for (i, f) in &dropped {
        c.cache.invalidate(&slot_key(table, bucket, *i, f));
    }
    c.cache.put(key, live_cache::encode_index(&index));
}

/// A cache miss without a usable base slot: the bucket's entries are read from every data
/// manifest of the snapshot, merged, and written into a new slot, the scan's partitions
/// selected (by slot partition index) while the slot is written.
async fn rebuild(
    table: &Table,
    snapshot: &Snapshot,
    sel: &EntrySelection,
    lazy: bool,
) -> Result<(LiveEntries, Bytes)> {
    let mut counters = EntryCounters::default();
    let bucket_only = sel.without_partition();
    let (metas, table_files) =
        data_manifests(table, snapshot, &bucket_only, false, &mut counters).await?;
    let raws = read_selected(table, &metas, &bucket_only, &mut counters).await?;
    let snap = snapshot.clone();
    let sel = sel.clone();
    let (entries, slot, counters) = blocking(move || {
        let mut counters = counters;
        let (adds, size) = merge_bucket(&raws)?;
        let mut w = SlotWriter::new(None, &snap, size + SLOT_SLACK);
        let mut pick = SlotSelect::new(&sel, lazy);
        for p in &adds {
            let e = p.entry();
            check_entry_arity(&e, &sel.partition_types)?;
            let partition = w.push_raw(&e).ok_or_else(name_outside_datum)?;
            if pick.keep(partition, w.partitions())? {
                pick.push(Pick::Raw(e));
            }
        }
        let slot = w.finish(table_files);
        let entries = pick.finish(&mut counters)?;
        Ok((entries, slot, counters))
    })
    .await?;
    let live = LiveEntries {
        entries,
        table_files,
        counters,
        cache_hit: Some(false),
        deltas_applied: 0,
    };
    Ok((live, slot))
}

/// Room reserved in a new slot beyond its entries, for the partition dictionary and schema
/// texts that follow them (a few KB), so that finishing the slot does not reallocate it.
const SLOT_SLACK: usize = 32 << 10;

/// Merges entries — each given with its identity and kind — into live ADDs and orphan
/// DELETEs by exactly the rules of [`merge_entries`] (Java `FileEntry.mergeEntries`, see
/// `strata_spec::manifest::merge`), with the fast hasher and the index sized up front: a cache
/// miss merges every entry of a bucket (tens of thousands), where SipHash, rehashing and
/// moving whole entries around cost about a tenth of the miss. `describe` gives (file name,
/// bucket, level) for the error of a file added twice.
fn merge_fast<I: std::hash::Hash + Eq, T>(
    entries: impl IntoIterator<Item = (I, FileKind, T)>,
    capacity: usize,
    describe: impl Fn(&T) -> (String, i32, i32),
) -> strata_spec::Result<Merged<T>> {
    let mut slots: Vec<Option<(FileKind, T)>> = Vec::with_capacity(capacity);
    let mut index: FastMap<I, usize> = FastMap::default();
    index.reserve(capacity);
    for (id, kind, item) in entries {
        match kind {
            FileKind::Add => {
                if let Some(&slot) = index.get(&id) {
                    let old = slots[slot].as_ref().map_or("an entry", |(k, _)| match k {
                        FileKind::Add => "an ADD",
                        FileKind::Delete => "a DELETE",
                    });
                    let (name, bucket, level) = describe(&item);
                    return Err(strata_spec::SpecError::invalid(
                        "manifest entries",
                        format!(
                            "trying to add file {name} (bucket {bucket}, level {level}) which is \
                             already recorded by {old}"
                        ),
                    ));
                }
                index.insert(id, slots.len());
                slots.push(Some((kind, item)));
            }
            FileKind::Delete => match index.remove(&id) {
                Some(slot) => slots[slot] = None,
                None => {
                    index.insert(id, slots.len());
                    slots.push(Some((kind, item)));
                }
            },
        }
    }
    let mut out = Merged::default();
    for (kind, item) in slots.into_iter().flatten() {
        match kind {
            FileKind::Add => out.adds.push(item),
            FileKind::Delete => out.orphan_deletes.push(item),
        }
    }
    Ok(out)
}

/// The live ADDs among every entry of `raws` (a bucket's manifests, base list then delta), in
/// merge order, and the bytes they take in a slot: what [`merge_fast`] gives, found with less
/// work for the tens of thousands of entries of a cache rebuild. Each entry's identity is
/// hashed once; only the entries whose identity hash is also a DELETE's (every entry of an
/// identity that has a DELETE, plus any hash collisions) go through the exact merge. The
/// others are ADDs of identities without a DELETE, live unless one is added twice — which a
/// repeated hash reveals. On any repeat, or an error, the exact merge of everything decides
/// (and names the file in its error).
fn merge_bucket<'a>(raws: &'a [RawManifest]) -> Result<(Vec<RawPos<'a>>, usize)> {
    use std::hash::{Hash, Hasher};
    const UNTOUCHED: u8 = 0;
    const DEAD: u8 = 1;
    const LIVE: u8 = 2;
    let n: usize = raws.iter().map(RawManifest::len).sum();
    let mut pos: Vec<RawPos<'a>> = Vec::with_capacity(n);
    let mut hashes: Vec<u64> = Vec::with_capacity(n);
    let mut sizes: Vec<u32> = Vec::with_capacity(n);
    let mut deletes: FastMap<u64, ()> = FastMap::default();
    for (m, r) in raws.iter().enumerate() {
        for (i, e) in r.entries().enumerate() {
            let mut h = FxHasher::default();
            e.merge_id().hash(&mut h);
            let h = h.finish();
            if e.head.kind == FileKind::Delete {
                deletes.insert(h, ());
            }
            hashes.push(h);
            sizes.push(entry_size(&e) as u32);
            pos.push(RawPos {
                raws,
                manifest: m as u32,
                entry: i as u32,
            });
        }
    }
    let exact = || -> Result<(Vec<RawPos<'a>>, usize)> {
        let items = pos.iter().map(|p| {
            let e = p.entry();
            (e.merge_id(), e.head.kind, *p)
        });
        let adds = merge_fast(items, n, |p: &RawPos<'_>| describe_raw(&p.entry()))?.adds;
        let size = adds.iter().map(|p| entry_size(&p.entry())).sum();
        Ok((adds, size))
    };
    let mut state = vec![UNTOUCHED; n];
    if !deletes.is_empty() {
        let touched: Vec<usize> = (0..n)
            .filter(|&i| deletes.contains_key(&hashes[i]))
            .collect();
        let items = touched.iter().map(|&i| {
            state[i] = DEAD;
            let e = pos[i].entry();
            (e.merge_id(), e.head.kind, i)
        });
        match merge_fast(items, touched.len(), |&i| describe_raw(&pos[i].entry())) {
            Ok(merged) => {
                for i in merged.adds {
                    state[i] = LIVE;
                }
            }
            Err(_) => return exact(),
        }
    }
    let mut seen: FastMap<u64, ()> = FastMap::default();
    seen.reserve(n);
    for i in 0..n {
        if state[i] == UNTOUCHED && seen.insert(hashes[i], ()).is_some() {
            return exact();
        }
    }
    let mut adds = Vec::with_capacity(n);
    let mut size = 0usize;
    for i in 0..n {
        if state[i] != DEAD {
            adds.push(pos[i]);
            size += sizes[i] as usize;
        }
    }
    Ok((adds, size))
}

/// (file name, bucket, level) of an encoded entry, for [`merge_fast`]'s errors.
fn describe_raw(e: &RawEntry<'_>) -> (String, i32, i32) {
    let (name, bucket, level) = e.describe();
    (name.to_string(), bucket, level)
}

/// The merge items of encoded entries.
fn raw_items<'a>(
    entries: impl Iterator<Item = RawEntry<'a>>,
) -> impl Iterator<Item = (<RawEntry<'a> as MergeItem>::Id, FileKind, RawEntry<'a>)> {
    entries.map(|e| (e.merge_id(), e.head.kind, e))
}

/// An entry of a list of manifests by position: what a cache rebuild merges, so that merging
/// tens of thousands of entries moves small positions rather than whole [`RawEntry`] views.
#[derive(Clone, Copy)]
struct RawPos<'a> {
    raws: &'a [RawManifest],
    manifest: u32,
    entry: u32,
}

impl<'a> RawPos<'a> {
    fn entry(&self) -> RawEntry<'a> {
        self.raws[self.manifest as usize].entry(self.entry as usize)
    }
}

/// Bytes an entry read from a manifest takes in a slot (its extras are almost always none).
fn entry_size(e: &RawEntry<'_>) -> usize {
    live_cache::ENTRY_HEADER + e.head.file_name.len() + e.datum.len()
}

/// How far back (in snapshots) a cached slot may be and still serve as the base of an
/// incremental build. Each step reads a snapshot file, a delta manifest list and the delta
/// manifests that hold the bucket (fetched concurrently); far behind, reading the new
/// snapshot's own manifests is cheaper.
pub(super) const MAX_INCREMENTAL_SNAPSHOTS: i64 = 64;

/// Builds `snapshot`'s slot from the newest cached slot of an older snapshot of the same
/// chain plus the delta manifests of the snapshots after it. `Ok(None)` when the chain does
/// not line up (see the module docs); the caller then rebuilds from scratch.
#[allow(clippy::too_many_arguments)]
async fn build_incrementally(
    table: &Table,
    snapshot: &Snapshot,
    sel: &EntrySelection,
    bucket: i32,
    lazy: bool,
    base_id: i64,
    base_fp: &str,
    base: Bytes,
) -> Result<Option<(LiveEntries, Bytes)>> {
    if snapshot.commit_kind == CommitKind::Overwrite {
        return Ok(None);
    }
    let sm = table.snapshot_manager().clone();
    // The base and the snapshots after it, then the planned snapshot once more: read last,
    // its unchanged content proves that the ids in between were not rolled back and reused
    // while they were read (a snapshot file is only deleted, never replaced, while a newer
    // one exists).
    // (Owned futures: a stream of futures borrowing `sm` would make the scan future's
    // `Send` depend on a higher-ranked lifetime, which callers cannot prove.)
    let chain: Vec<Snapshot> = stream::iter(base_id..snapshot.id)
        .map(|id| {
            let sm = sm.clone();
            async move { sm.snapshot(id).await }
        })
        .buffered(SNAPSHOT_READ_CONCURRENCY)
        .try_collect()
        .await?;
    if fingerprint(&chain[0]) != base_fp
        || chain[1..]
            .iter()
            .any(|s| s.commit_kind == CommitKind::Overwrite)
    {
        return Ok(None);
    }
    let again = sm.snapshot(snapshot.id).await?;
    if fingerprint(&again) != fingerprint(snapshot) {
        return Ok(None);
    }
    let steps: Vec<String> = chain[1..]
        .iter()
        .chain([snapshot])
        .map(|s| s.delta_manifest_list.clone())
        .collect();
    let store = table.manifest_store().clone();
    let lists: Vec<Vec<ManifestFileMeta>> = stream::iter(steps.clone())
        .map(|list| {
            let store = store.clone();
            async move { store.read_list(&list).await }
        })
        .buffered(SNAPSHOT_READ_CONCURRENCY)
        .try_collect()
        .await?;

    let mut counters = EntryCounters::default();
    let bucket_only = sel.without_partition();
    let mut files_delta = 0i64;
    let mut metas = Vec::new();
    for m in lists.into_iter().flatten() {
        files_delta += m.num_added_files - m.num_deleted_files;
        if let (Some(lo), Some(hi)) = (m.min_bucket, m.max_bucket) {
            if !(lo..=hi).contains(&bucket) {
                counters.manifests_skipped_by_bucket += 1;
                continue;
            }
        }
        metas.push(m);
    }
    counters.manifests_read = metas.len();
    let raws = read_selected(table, &metas, &bucket_only, &mut counters).await?;
    let delta = Delta {
        raws,
        files_delta,
        snapshot: snapshot.clone(),
    };
    let sel = sel.clone();
    let deltas_applied = steps.len();
    blocking(move || {
        let mut counters = counters;
        let built = apply_deltas(&base, &delta, &sel, lazy, &mut counters)?;
        Ok(built.map(|(entries, value, table_files)| {
            let live = LiveEntries {
                entries,
                table_files,
                counters,
                cache_hit: Some(false),
                deltas_applied,
            };
            (live, value)
        }))
    })
    .await
}

/// Snapshots fetched at once by an incremental build.
const SNAPSHOT_READ_CONCURRENCY: usize = 16;

/// What an incremental build applies to its base slot.
struct Delta {
    /// The delta manifests of the snapshots after the base, in commit order, with only the
    /// bucket's entries.
    raws: Vec<RawManifest>,
    /// Data files added minus deleted by those manifests (every bucket).
    files_delta: i64,
    snapshot: Snapshot,
}

/// A file identity (Java's `FileEntry.Identifier`; the bucket is the slot's) of an entry in a
/// cached slot or a delta manifest.
#[derive(PartialEq, Eq, Hash)]
struct Identity<'a> {
    partition: &'a [u8],
    level: i32,
    file_name: &'a [u8],
    extras: Cow<'a, [u8]>,
}

impl<'a> Identity<'a> {
    fn of_raw(e: &RawEntry<'a>) -> Identity<'a> {
        Identity {
            partition: e.head.partition,
            level: e.head.level,
            file_name: e.head.file_name,
            extras: Cow::Owned(live_cache::encode_extras(e.head.extras.as_deref())),
        }
    }
}

/// A delta change to the base slot, by identity.
enum Change {
    /// A DELETE of a file the base holds; `matched` once the base entry was seen.
    Delete { matched: bool },
    /// A new file: the base must not hold it.
    Add,
}

/// Writes the new slot: the base slot's entries minus the ones the deltas delete, plus the
/// files the deltas add (merged first, with the usual rules, so a file added and deleted
/// within the deltas never appears), selecting the scan's entries on the way. `Ok(None)` when
/// the deltas do not fit the base: a DELETE of a file the base does not hold, an ADD of one
/// it already holds, or deltas that do not merge — the full rebuild decides then.
fn apply_deltas(
    base: &Bytes,
    d: &Delta,
    sel: &EntrySelection,
    lazy: bool,
    counters: &mut EntryCounters,
) -> Result<Option<(Vec<ManifestEntry>, Bytes, u64)>> {
    let Some(base) = SlotValue::parse(base) else {
        return Ok(None);
    };
    let n = d.raws.iter().map(RawManifest::len).sum();
    let items = raw_items(d.raws.iter().flat_map(|r| r.entries()));
    let Ok(merged) = merge_fast(items, n, describe_raw) else {
        return Ok(None);
    };
    check_partition_arity(&merged.adds, &sel.partition_types)?;
    let mut changes: FastMap<Identity<'_>, Change> = FastMap::default();
    let mut touched: FastMap<&[u8], ()> = FastMap::default();
    for e in &merged.orphan_deletes {
        changes.insert(Identity::of_raw(e), Change::Delete { matched: false });
        touched.insert(e.head.partition, ());
    }
    for e in &merged.adds {
        // The merger never leaves an ADD and an orphan DELETE of one identity.
        if changes.insert(Identity::of_raw(e), Change::Add).is_some() {
            return Ok(None);
        }
        touched.insert(e.head.partition, ());
    }
    let cached = base.entries();
    counters.entries_inspected += cached.len();
    // Only entries of partitions the deltas touch are looked up.
    let hot: Vec<bool> = cached
        .partitions
        .iter()
        .map(|p| touched.contains_key(p))
        .collect();
    let mut remap: Vec<Option<u32>> = vec![None; cached.partitions.len()];
    let size = base.rows_len() + merged.adds.iter().map(entry_size).sum::<usize>() + SLOT_SLACK;
    let mut w = SlotWriter::new(Some(&base), &d.snapshot, size);
    let mut pick = SlotSelect::new(sel, lazy);
    let mut fits = true;
    let walked = cached.try_for_each(|partitions, e| {
        if hot[e.partition] {
            let id = Identity {
                partition: partitions[e.partition],
                level: e.level,
                file_name: e.file_name,
                extras: Cow::Borrowed(e.extras),
            };
            match changes.get_mut(&id) {
                Some(Change::Delete { matched }) => {
                    // A second cached entry of one identity would be a corrupt slot.
                    fits &= !*matched;
                    *matched = true;
                    return Ok(());
                }
                Some(Change::Add) => {
                    fits = false;
                    return Ok(());
                }
                None => {}
            }
        }
        let p = *remap[e.partition].get_or_insert_with(|| w.partition(partitions[e.partition]));
        w.push(p, e.level, e.schema_index, e.name, e.extras, e.datum);
        if pick.keep(p, w.partitions())? {
            pick.push(Pick::Cached(e.schema, e.datum));
        }
        Ok::<(), Error>(())
    });
    match walked {
        None => return Ok(None),
        Some(r) => r?,
    }
    let all_deletes_found = changes
        .values()
        .all(|c| !matches!(c, Change::Delete { matched: false }));
    if !fits || !all_deletes_found {
        return Ok(None);
    }
    for e in &merged.adds {
        let p = w.push_raw(e).ok_or_else(name_outside_datum)?;
        if pick.keep(p, w.partitions())? {
            pick.push(Pick::Raw(e.clone()));
        }
    }
    let table_files = (base.table_files as i64 + d.files_delta).max(0) as u64;
    let bytes = w.finish(table_files);
    let entries = pick.finish(counters)?;
    Ok(Some((entries, bytes, table_files)))
}

/// An entry a scan keeps from a slot being written, decoded once the slot is done.
enum Pick<'a> {
    Raw(RawEntry<'a>),
    Cached(&'a EntrySchema, &'a [u8]),
}

impl Pick<'_> {
    fn decode(&self) -> Result<ManifestEntry> {
        match self {
            Pick::Raw(e) => decode_raw(e),
            Pick::Cached(schema, datum) => schema.decode(datum, 0).map_err(Error::from),
        }
    }
}

/// The scan's partition selection over the entries of a slot being written: one verdict per
/// slot partition index. With lazy decoding off every entry is decoded and the selection
/// runs on the decoded partitions (as on a hit).
struct SlotSelect<'s, 'a> {
    sel: &'s EntrySelection,
    lazy: bool,
    verdicts: Vec<Option<bool>>,
    picks: Vec<Pick<'a>>,
    skipped: usize,
}

impl<'s, 'a> SlotSelect<'s, 'a> {
    fn new(sel: &'s EntrySelection, lazy: bool) -> Self {
        SlotSelect {
            sel,
            lazy,
            verdicts: Vec::new(),
            picks: Vec::new(),
            skipped: 0,
        }
    }

    /// Whether the entry in slot partition `index` (of `partitions`) is kept.
    fn keep(&mut self, index: u32, partitions: &[&[u8]]) -> Result<bool> {
        if !self.lazy {
            return Ok(true);
        }
        let i = index as usize;
        if i >= self.verdicts.len() {
            self.verdicts.resize(partitions.len().max(i + 1), None);
        }
        let ok = match self.verdicts[i] {
            Some(ok) => ok,
            None => {
                let row = BinaryRow::from_serialized(partitions[i])?;
                let ok = self.sel.partition_values_ok(&row)?;
                self.verdicts[i] = Some(ok);
                ok
            }
        };
        if !ok {
            self.skipped += 1;
        }
        Ok(ok)
    }

    fn push(&mut self, pick: Pick<'a>) {
        self.picks.push(pick);
    }

    /// Decodes the kept entries (every entry when lazy decoding is off, then selected).
    fn finish(self, counters: &mut EntryCounters) -> Result<Vec<ManifestEntry>> {
        let decoded = decode_all(&self.picks, Pick::decode)?;
        counters.entries_decoded += decoded.len();
        if self.lazy {
            counters.entries_skipped_by_partition += self.skipped;
            return Ok(decoded);
        }
        let mut kept = Vec::with_capacity(decoded.len());
        for e in decoded {
            if self.sel.partition_values_ok(&e.partition)? {
                kept.push(e);
            } else {
                counters.entries_skipped_by_partition += 1;
            }
        }
        Ok(kept)
    }
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

fn name_outside_datum() -> Error {
    ErrorDetail::Invariant("a manifest entry's file name is not part of its encoded datum".into())
        .into()
}

fn stale_value() -> Error {
    ErrorDetail::Invariant("a cached slot of live manifest entries changed while being read".into())
        .into()
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
        ErrorDetail::Spec(err).into()
    } else {
        Error::corrupt(e.source, err)
    }
}

/// Every live entry's partition must have the table's partition arity (partition keys never
/// change): a mismatch means the manifest, or the schema, is corrupt, and is reported with the
/// manifest's name before anything tries to decode the partition with the table's types.
fn check_partition_arity(adds: &[RawEntry<'_>], partition_types: &[DataType]) -> Result<()> {
    adds.iter()
        .try_for_each(|e| check_entry_arity(e, partition_types))
}

/// [`check_partition_arity`] of one entry.
fn check_entry_arity(e: &RawEntry<'_>, partition_types: &[DataType]) -> Result<()> {
    {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use strata_spec::manifest::DataFileMeta;
    use strata_spec::stats::SimpleStats;
    use strata_spec::{Datum, TypeKind};

    fn entry(kind: FileKind, partition: i32, level: i32, name: u8) -> ManifestEntry {
        ManifestEntry {
            kind,
            partition: BinaryRow::from_datums(
                &[Some(Datum::Int(partition))],
                &[DataType::nullable(TypeKind::Int)],
            )
            .unwrap(),
            bucket: 0,
            total_buckets: 1,
            file: DataFileMeta {
                file_name: format!("f{name}"),
                file_size: 1,
                row_count: 1,
                min_key: BinaryRow::empty(),
                max_key: BinaryRow::empty(),
                key_stats: SimpleStats::empty(),
                value_stats: SimpleStats::empty(),
                min_sequence_number: 0,
                max_sequence_number: 0,
                schema_id: 0,
                level,
                extra_files: vec![],
                creation_time: None,
                delete_row_count: Some(0),
                embedded_index: None,
                file_source: None,
                value_stats_cols: None,
                external_path: None,
                first_row_id: None,
                write_cols: None,
            },
        }
    }

    proptest! {
        /// `merge_fast` is `merge_entries`: the same live ADDs in the same order, the same
        /// orphan DELETEs, and an error exactly when it errs, with the same message.
        #[test]
        fn merge_fast_is_merge_entries(
            ops in prop::collection::vec((any::<bool>(), 0i32..2, 0i32..2, 0u8..6), 0..40)
        ) {
            let entries: Vec<ManifestEntry> = ops
                .iter()
                .map(|&(add, p, level, name)| {
                    let kind = if add { FileKind::Add } else { FileKind::Delete };
                    entry(kind, p, level, name)
                })
                .collect();
            let want = merge_entries(entries.clone()).map_err(|e| e.to_string());
            let items = entries.into_iter().map(|e| (e.identifier(), e.kind, e));
            let describe = |e: &ManifestEntry| (e.file.file_name.clone(), e.bucket, e.file.level);
            let got = merge_fast(items, 0, describe).map_err(|e| e.to_string());
            prop_assert_eq!(got, want);
        }

        /// `merge_bucket` over encoded manifests gives `merge_entries`'s live ADDs, in order,
        /// and its error when it errs; the slot size is that of the live entries.
        #[test]
        fn merge_bucket_is_merge_entries(
            ops in prop::collection::vec((prop::bool::weighted(0.7), 0i32..3, 0i32..2, 0u8..12), 0..60),
            cuts in prop::collection::vec(0usize..60, 0..4),
        ) {
            let entries: Vec<ManifestEntry> = ops
                .iter()
                .map(|&(add, p, level, name)| {
                    let kind = if add { FileKind::Add } else { FileKind::Delete };
                    entry(kind, p, level, name)
                })
                .collect();
            let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (entries.len() + 1)).collect();
            bounds.extend([0, entries.len()]);
            bounds.sort_unstable();
            let raws: Vec<RawManifest> = bounds
                .windows(2)
                .map(|w| {
                    let bytes = strata_spec::manifest::encode_manifest_entries(
                        &entries[w[0]..w[1]],
                        strata_spec::manifest::ManifestCompression::Null,
                    )
                    .unwrap();
                    RawManifest::parse(&bytes).unwrap()
                })
                .collect();
            let want = merge_entries(entries.clone()).map_err(|e| e.to_string());
            let got = merge_bucket(&raws).map_err(|e| e.to_string());
            match (got, want) {
                (Ok((adds, size)), Ok(want)) => {
                    let got: Vec<ManifestEntry> =
                        adds.iter().map(|p| p.entry().decode().unwrap()).collect();
                    prop_assert_eq!(&got, &want.adds);
                    let sizes: usize = adds.iter().map(|p| entry_size(&p.entry())).sum();
                    prop_assert_eq!(size, sizes);
                }
                (Err(got), Err(want)) => prop_assert!(got.contains(&want), "{got} / {want}"),
                (got, want) => prop_assert!(false, "{:?} vs {:?}", got.map(|g| g.0.len()), want.map(|w| w.adds.len())),
            }
        }
    }
}
