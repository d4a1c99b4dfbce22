//! The incremental slot as a pure function: a cached slot of snapshot `B` plus the merged
//! delta entries of `B+1 ..= S` gives `S`'s slot (see [`super::cached`] for when the chain
//! lines up, and why this is `S`'s live set). The base slot's encoded entries are copied
//! (identities compared only in partitions the deltas touch), then the new ADDs appended;
//! the scan's entries are selected on the way. No I/O.

use std::borrow::Cow;

use bytes::Bytes;
use strata_spec::manifest::{ManifestEntry, RawEntry, RawManifest};
use strata_spec::snapshot::Snapshot;

use super::decode::{check_partition_arity, name_outside_datum};
use super::live::EntryCounters;
use super::merge::{describe_raw, entry_size, merge_fast, raw_items};
use super::selection::EntrySelection;
use super::slot::{self, SlotValue, SLOT_SLACK};
use super::slot_select::{Pick, SlotSelect};
use super::slot_writer::SlotWriter;
use crate::{Error, Result};
use foldhash::HashMap as FastMap;

/// What an incremental build applies to its base slot.
pub(super) struct Delta {
    /// The delta manifests of the snapshots after the base, in commit order, with only the
    /// bucket's entries.
    pub(super) raws: Vec<RawManifest>,
    /// Data files added minus deleted by those manifests (every bucket).
    pub(super) files_delta: i64,
    pub(super) snapshot: Snapshot,
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
            extras: Cow::Owned(slot::encode_extras(e.head.extras.as_deref())),
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
pub(super) fn apply_deltas(
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
