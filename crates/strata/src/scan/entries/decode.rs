//! Decoding the kept entries (on several threads when there are many) and the checks that
//! run before: a live entry's partition arity, errors naming the manifest an entry came from;
//! [`blocking`] runs planning's CPU work (merging, selecting, decoding) off the async runtime.

use crate::error::ErrorDetail;
use strata_spec::manifest::{ManifestEntry, RawEntry};
use strata_spec::DataType;

use crate::{Error, Result};

/// Entries decoded on one thread before decoding is split across threads.
const PARALLEL_DECODE_MIN: usize = 4096;

/// Decodes an encoded entry; a failure names the manifest it came from.
pub(super) fn decode_raw(e: &RawEntry<'_>) -> Result<ManifestEntry> {
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
pub(super) fn check_partition_arity(
    adds: &[RawEntry<'_>],
    partition_types: &[DataType],
) -> Result<()> {
    adds.iter()
        .try_for_each(|e| check_entry_arity(e, partition_types))
}

/// [`check_partition_arity`] of one entry.
pub(super) fn check_entry_arity(e: &RawEntry<'_>, partition_types: &[DataType]) -> Result<()> {
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
pub(super) fn check_decoded_partition_arity(
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
pub(super) fn decode_all<T: Sync>(
    items: &[T],
    decode: impl Fn(&T) -> Result<ManifestEntry> + Sync,
) -> Result<Vec<ManifestEntry>> {
    let parts = crate::io::parallel::map_chunks(items, PARALLEL_DECODE_MIN, |part| {
        part.iter().map(&decode).collect::<Result<Vec<_>>>()
    })?;
    Ok(parts.into_iter().flatten().collect())
}

pub(super) fn name_outside_datum() -> Error {
    ErrorDetail::Invariant("a manifest entry's file name is not part of its encoded datum".into())
        .into()
}

pub(super) fn stale_value() -> Error {
    ErrorDetail::Invariant("a cached slot of live manifest entries changed while being read".into())
        .into()
}

/// Runs `f` (merging, selecting, decoding: CPU work) on the blocking pool.
pub(super) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    crate::io::blocking("scan planning", f).await
}
