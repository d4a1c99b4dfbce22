//! The live manifest entries a scan needs: from manifests or from the snapshot live manifest
//! entry cache, with partition and bucket selection before decoding (lazy decoding).
//!
//! [`read_live_entries`] picks one of four paths, all returning the same entries for the same
//! snapshot and selection; planning goes down from here and never comes back up:
//!
//! * **Cache hit** (`scan.manifest-entry-cache.max-snapshots > 0`, a cache configured, the scan
//!   resolves to one bucket, and the cache holds a slot of this snapshot with the same manifest
//!   lists): no manifest list or manifest is read; the slot's encoded entries are selected by
//!   partition and only the kept ones decoded.
//! * **Cache miss, incremental build**: the cache holds a slot of an older snapshot; that slot
//!   plus the newer snapshots' delta manifests gives this snapshot's slot, when the chain
//!   provably lines up.
//! * **Cache miss, rebuild**: the bucket's entries are read from the snapshot's manifests,
//!   merged over every partition and written into a new slot.
//! * **No cache**: manifests pruned by partition statistics and bucket range, entries selected
//!   by bucket and partition while still encoded, merged, and the live ones decoded.
//!
//! With `scan.manifest-entry.lazy-decode.enabled = false` every inspected entry is decoded
//! before the partition selection runs (the bucket of a cache rebuild is still selected
//! first, since the rebuild stores only that bucket). Results are identical; only the work
//! differs, which [`live::EntryCounters`] shows.
//!
//! The parts, top down:
//!
//! | file | what |
//! |---|---|
//! | `cached` | the three cached paths: hit, incremental build, rebuild; storing a slot |
//! | `manifests` | manifest I/O on the blocking pool; the uncached path |
//! | `incremental_slot` | previous slot + delta entries → new slot, a pure function |
//! | `slot_select` | partition selection over a slot's entries, decoding the kept ones |
//! | `merge` | merging encoded entries into the live set, fast |
//! | `selection` | [`EntrySelection`] and the filter on encoded heads |
//! | `slot_index`, `slot_writer`, `slot` | the cache's values: slot index and keys; writing; format |
//! | `decode`, `live` | decoding and its checks; the result type |

mod cached;
mod decode;
mod incremental_slot;
mod live;
mod manifests;
mod merge;
mod selection;
mod slot;
mod slot_index;
mod slot_select;
mod slot_writer;

pub(crate) use cached::CacheUse;
pub(crate) use live::LiveEntries;
pub(crate) use manifests::all_live_entries;
pub(crate) use selection::EntrySelection;

use strata_spec::snapshot::Snapshot;

use crate::table::Table;
use crate::Result;

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
            let live = cached::read_through_cache(table, snapshot, sel, c, bucket, lazy).await?;
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
    manifests::read_uncached(table, snapshot, sel, lazy).await
}
