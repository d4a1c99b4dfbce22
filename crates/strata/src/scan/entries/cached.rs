//! The cached paths of [`super::read_live_entries`], for a scan of one bucket with the
//! snapshot live manifest entry cache on (`scan.manifest-entry-cache.max-snapshots > 0`):
//!
//! * **hit**: the cache holds this snapshot's slot (same manifest lists): no manifest list or
//!   manifest is read; the slot's entries are selected by partition and only the kept ones
//!   decoded ([`super::slot_select`]).
//! * **miss, incremental build**: the cache holds a slot of an older snapshot `B` (at most
//!   [`MAX_INCREMENTAL_SNAPSHOTS`] behind). In Paimon the live files of snapshot `N` are those of
//!   `N - 1` plus the entries of `N`'s delta manifest list: a commit writes every file change it
//!   makes — ADDs, and the DELETEs of compaction inputs, of overwritten and of rewritten files —
//!   as its delta, and its base list is the previous snapshot's base and delta lists, merged
//!   (Java `FileStoreCommitImpl.tryCommitOnce`; strata's `commit::attempt`; manifest merging,
//!   `ManifestFileMerger`, preserves the merged live set as `FileEntry.mergeEntries` defines
//!   it). So `B`'s slot plus the merged delta entries of `B+1 ..= S` is `S`'s live set: only the
//!   snapshot files, the delta lists and the delta manifests holding the bucket are read
//!   (here), and the new slot is written by [`super::incremental_slot`]. The build is used only
//!   when the chain provably lines up, else the slot is rebuilt:
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
//! * **miss, rebuild**: the bucket's entries are read from the snapshot's manifests
//!   (manifests whose bucket range excludes the bucket are not read), merged over every
//!   partition ([`super::merge::merge_bucket`]) and written into a new slot.
//!
//! On both misses the scan's partitions are selected while the slot is written, and the slot
//! is stored under its own key, only the small index of the bucket's slots rewritten
//! ([`super::slot_index`]).

use std::sync::Arc;

use bytes::Bytes;
use futures::{stream, StreamExt, TryStreamExt};
use strata_spec::manifest::ManifestFileMeta;
use strata_spec::snapshot::{CommitKind, Snapshot};

use super::decode::{blocking, check_entry_arity, name_outside_datum, stale_value};
use super::incremental_slot::{apply_deltas, Delta};
use super::live::{EntryCounters, LiveEntries};
use super::manifests::{data_manifests, read_selected};
use super::merge::merge_bucket;
use super::selection::EntrySelection;
use super::slot::{fingerprint, SlotValue, SLOT_SLACK};
use super::slot_index::{self, index_key, slot_key, SlotIndex};
use super::slot_select::{select_cached, Pick, SlotSelect};
use super::slot_writer::SlotWriter;
use crate::cache::Cache;
use crate::table::Table;
use crate::Result;

/// The cache settings of one scan.
pub(crate) struct CacheUse {
    pub cache: Arc<dyn Cache>,
    pub max_snapshots: usize,
}

pub(super) async fn read_through_cache(
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
        .and_then(|b| slot_index::parse_index(&b))
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
    let base = slot_index::base_for(&index, snapshot.id, MAX_INCREMENTAL_SNAPSHOTS)
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
        .and_then(|b| slot_index::parse_index(&b))
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
    c.cache.put(key, slot_index::encode_index(&index));
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
