//! The scan's partition selection over the entries of a cache slot — one being read on a hit
//! ([`select_cached`]) or one being written on a miss ([`SlotSelect`]) — with one verdict per
//! slot partition index, and the decoding of the kept entries. No I/O.

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{EntrySchema, ManifestEntry, RawEntry};

use super::decode::{decode_all, decode_raw};
use super::live::EntryCounters;
use super::selection::EntrySelection;
use super::slot;
use crate::{Error, Result};

/// An entry a scan keeps from a slot being written, decoded once the slot is done.
pub(super) enum Pick<'a> {
    Raw(RawEntry<'a>),
    Cached(&'a EntrySchema, &'a [u8]),
}

impl Pick<'_> {
    pub(super) fn decode(&self) -> Result<ManifestEntry> {
        match self {
            Pick::Raw(e) => decode_raw(e),
            Pick::Cached(schema, datum) => schema.decode(datum, 0).map_err(Error::from),
        }
    }
}

/// The scan's partition selection over the entries of a slot being written: one verdict per
/// slot partition index. With lazy decoding off every entry is decoded and the selection
/// runs on the decoded partitions (as on a hit).
pub(super) struct SlotSelect<'s, 'a> {
    sel: &'s EntrySelection,
    lazy: bool,
    verdicts: Vec<Option<bool>>,
    picks: Vec<Pick<'a>>,
    skipped: usize,
}

impl<'s, 'a> SlotSelect<'s, 'a> {
    pub(super) fn new(sel: &'s EntrySelection, lazy: bool) -> Self {
        SlotSelect {
            sel,
            lazy,
            verdicts: Vec::new(),
            picks: Vec::new(),
            skipped: 0,
        }
    }

    /// Whether the entry in slot partition `index` (of `partitions`) is kept.
    pub(super) fn keep(&mut self, index: u32, partitions: &[&[u8]]) -> Result<bool> {
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

    pub(super) fn push(&mut self, pick: Pick<'a>) {
        self.picks.push(pick);
    }

    /// Decodes the kept entries (every entry when lazy decoding is off, then selected).
    pub(super) fn finish(self, counters: &mut EntryCounters) -> Result<Vec<ManifestEntry>> {
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

/// Selects cached entries by partition (one verdict per distinct partition of the slot) and
/// decodes the kept ones (all of them first when lazy decoding is off). `None` when the
/// cached body is malformed.
pub(super) fn select_cached(
    cached: slot::SlotEntries<'_, '_>,
    sel: &EntrySelection,
    lazy: bool,
    counters: &mut EntryCounters,
) -> Option<Result<Vec<ManifestEntry>>> {
    counters.entries_inspected += cached.len();
    let decode = |e: &slot::CachedEntry<'_>| e.schema.decode(e.datum, 0).map_err(Error::from);
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
