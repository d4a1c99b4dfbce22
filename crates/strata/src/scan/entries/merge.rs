//! Merging encoded entries into the live set fast: [`merge_fast`] is
//! [`strata_spec::manifest::merge_entries`] with foldhash and a presized index, and
//! [`merge_bucket`] finds the live ADDs of a whole bucket (a cache rebuild) hashing each
//! identity once. Pure.

use strata_spec::manifest::{FileKind, MergeItem, Merged, RawEntry, RawManifest};

use super::slot;
use crate::Result;
use foldhash::HashMap as FastMap;

/// Merges entries — each given with its identity and kind — into live ADDs and orphan
/// DELETEs by exactly the rules of [`merge_entries`](strata_spec::manifest::merge_entries) (Java `FileEntry.mergeEntries`, see
/// `strata_spec::manifest::merge`), with foldhash and the index sized up front: a cache
/// miss merges every entry of a bucket (tens of thousands), where SipHash, rehashing and
/// moving whole entries around cost about a tenth of the miss. `describe` gives (file name,
/// bucket, level) for the error of a file added twice.
pub(super) fn merge_fast<I: std::hash::Hash + Eq, T>(
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
pub(super) fn merge_bucket<'a>(raws: &'a [RawManifest]) -> Result<(Vec<RawPos<'a>>, usize)> {
    use std::hash::BuildHasher;
    const UNTOUCHED: u8 = 0;
    const DEAD: u8 = 1;
    const LIVE: u8 = 2;
    let hasher = foldhash::fast::RandomState::default();
    let n: usize = raws.iter().map(RawManifest::len).sum();
    let mut pos: Vec<RawPos<'a>> = Vec::with_capacity(n);
    let mut hashes: Vec<u64> = Vec::with_capacity(n);
    let mut sizes: Vec<u32> = Vec::with_capacity(n);
    let mut deletes: FastMap<u64, ()> = FastMap::default();
    for (m, r) in raws.iter().enumerate() {
        for (i, e) in r.entries().enumerate() {
            let h = hasher.hash_one(e.merge_id());
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
pub(super) fn describe_raw(e: &RawEntry<'_>) -> (String, i32, i32) {
    let (name, bucket, level) = e.describe();
    (name.to_string(), bucket, level)
}

/// The merge items of encoded entries.
pub(super) fn raw_items<'a>(
    entries: impl Iterator<Item = RawEntry<'a>>,
) -> impl Iterator<Item = (<RawEntry<'a> as MergeItem>::Id, FileKind, RawEntry<'a>)> {
    entries.map(|e| (e.merge_id(), e.head.kind, e))
}

/// An entry of a list of manifests by position: what a cache rebuild merges, so that merging
/// tens of thousands of entries moves small positions rather than whole [`RawEntry`] views.
#[derive(Clone, Copy)]
pub(super) struct RawPos<'a> {
    raws: &'a [RawManifest],
    manifest: u32,
    entry: u32,
}

impl<'a> RawPos<'a> {
    pub(super) fn entry(&self) -> RawEntry<'a> {
        self.raws[self.manifest as usize].entry(self.entry as usize)
    }
}

/// Bytes an entry read from a manifest takes in a slot (its extras are almost always none).
pub(super) fn entry_size(e: &RawEntry<'_>) -> usize {
    slot::ENTRY_HEADER + e.head.file_name.len() + e.datum.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use strata_spec::binary_row::BinaryRow;
    use strata_spec::manifest::{merge_entries, DataFileMeta, ManifestEntry};
    use strata_spec::stats::SimpleStats;
    use strata_spec::DataType;
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
