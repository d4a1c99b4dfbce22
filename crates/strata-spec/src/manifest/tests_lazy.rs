//! Lazy decoding agrees with full decoding: same entries, heads equal to the decoded fields,
//! same merge result, same accept/reject decision on corrupt input.

use proptest::prelude::*;

use super::compression::ManifestCompression;
use super::lazy::RawManifest;
use super::merge::merge_entries;
use super::model::{FileKind, ManifestEntry};
use super::testkit::{arb_entry, entry};
use super::{decode_manifest_entries, encode_manifest_entries};

/// Checks every way of reading `bytes` lazily against [`decode_manifest_entries`].
pub(super) fn assert_lazy_agrees(bytes: &[u8]) {
    let full = decode_manifest_entries(bytes);
    let lazy = RawManifest::parse(bytes).and_then(|raw| {
        let decoded = raw.decode_all()?;
        for (i, (e, d)) in raw.entries().zip(&decoded).enumerate() {
            assert_eq!(e.ordinal, i);
            assert_eq!(e.head.kind, d.kind);
            assert_eq!(e.head.partition, d.partition.to_serialized().as_slice());
            assert_eq!(e.head.bucket, d.bucket);
            assert_eq!(e.head.total_buckets, d.total_buckets);
            assert_eq!(e.head.level, d.file.level);
            assert_eq!(e.head.file_name, d.file.file_name.as_bytes());
            let extras = e.head.extras.as_deref().cloned().unwrap_or_default();
            assert_eq!(extras.extra_files, d.file.extra_files);
            assert_eq!(extras.embedded_index, d.file.embedded_index);
            assert_eq!(extras.external_path, d.file.external_path);
        }
        Ok(decoded)
    });
    match (&full, &lazy) {
        (Ok(f), Ok(l)) => assert_eq!(f, l),
        (Err(_), Err(_)) => {}
        _ => panic!(
            "full and lazy decoding disagree: full {:?}, lazy {:?}",
            full.as_ref().map(Vec::len),
            lazy.as_ref().map(Vec::len)
        ),
    }
}

fn names<E>(items: &[E], name: impl Fn(&E) -> String) -> Vec<String> {
    items.iter().map(name).collect()
}

#[test]
fn merge_of_raw_entries_matches_merge_of_decoded_entries() {
    let mut upgraded = entry(FileKind::Add, 1, 0, "f");
    upgraded.file.level = 4;
    let mut with_extra = entry(FileKind::Add, 2, 0, "g");
    with_extra.file.extra_files = vec!["g.index".into()];
    let mut delete_extra = with_extra.clone();
    delete_extra.kind = FileKind::Delete;
    let entries = vec![
        entry(FileKind::Add, 1, 0, "f"),
        entry(FileKind::Add, 1, 0, "h"),
        with_extra.clone(),
        entry(FileKind::Delete, 1, 0, "f"),
        upgraded,
        // Same name in another partition: another file.
        entry(FileKind::Delete, 3, 0, "h"),
        // An identity differing only in extra files does not remove `g`.
        entry(FileKind::Delete, 2, 0, "g"),
        delete_extra,
    ];
    let bytes = encode_manifest_entries(&entries, ManifestCompression::Null).unwrap();
    let raw = RawManifest::parse(&bytes).unwrap();
    let merged_raw = merge_entries(raw.entries()).unwrap();
    let merged = merge_entries(entries).unwrap();
    assert_eq!(
        names(&merged_raw.adds, |e| format!(
            "{}@{}",
            String::from_utf8_lossy(e.head.file_name),
            e.head.level
        )),
        names(&merged.adds, |e| format!(
            "{}@{}",
            e.file.file_name, e.file.level
        ))
    );
    assert_eq!(
        names(&merged_raw.orphan_deletes, |e| String::from_utf8_lossy(
            e.head.file_name
        )
        .into_owned()),
        names(&merged.orphan_deletes, |e| e.file.file_name.clone())
    );
    let decoded: Vec<ManifestEntry> = merged_raw
        .adds
        .iter()
        .map(|e| e.decode().unwrap())
        .collect();
    assert_eq!(decoded, merged.adds);
}

#[test]
fn adding_a_live_file_twice_is_an_error_naming_it() {
    let entries = vec![
        entry(FileKind::Add, 1, 0, "twice"),
        entry(FileKind::Add, 1, 0, "twice"),
    ];
    let bytes = encode_manifest_entries(&entries, ManifestCompression::Null).unwrap();
    let raw = RawManifest::parse(&bytes).unwrap();
    let err = merge_entries(raw.entries()).unwrap_err().to_string();
    assert!(err.contains("twice"), "{err}");
}

#[test]
fn empty_manifest_has_no_entries() {
    let bytes = encode_manifest_entries(&[], ManifestCompression::Zstandard { level: 1 }).unwrap();
    assert!(RawManifest::parse(&bytes).unwrap().is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn lazy_decoding_equals_full_decoding(
        entries in prop::collection::vec(arb_entry(), 0..40),
        c in 0usize..4,
    ) {
        let codec = [
            ManifestCompression::Null,
            ManifestCompression::Deflate,
            ManifestCompression::Snappy,
            ManifestCompression::Zstandard { level: 1 },
        ][c];
        let bytes = encode_manifest_entries(&entries, codec).unwrap();
        assert_lazy_agrees(&bytes);
        let raw = RawManifest::parse(&bytes).unwrap();
        prop_assert_eq!(raw.decode_all().unwrap(), entries);
    }

    #[test]
    fn corrupt_manifests_are_rejected_alike(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        truncate in any::<prop::sample::Index>(),
        cut in any::<bool>(),
    ) {
        let entries = vec![
            super::tests::entry_fixture(),
            entry(FileKind::Add, 1, 0, "d.parquet"),
            entry(FileKind::Delete, 2, 3, "e.parquet"),
        ];
        let mut bytes = encode_manifest_entries(&entries, ManifestCompression::Null).unwrap();
        for (i, b) in edits {
            let i = i.index(bytes.len());
            bytes[i] = b;
        }
        if cut {
            bytes.truncate(truncate.index(bytes.len()));
        }
        assert_lazy_agrees(&bytes);
    }
}

struct OddBuckets(usize);

impl super::lazy::EntryFilter for OddBuckets {
    fn keep(&mut self, head: &super::lazy::EntryHead<'_>) -> crate::error::Result<bool> {
        self.0 += 1;
        Ok(head.bucket % 2 != 0)
    }
}

#[test]
fn filtered_parse_keeps_the_selected_entries_with_their_ordinals() {
    let entries: Vec<ManifestEntry> = (0..50)
        .map(|i| entry(FileKind::Add, i % 7, i % 4, &format!("f-{i}")))
        .collect();
    for codec in [
        ManifestCompression::Null,
        ManifestCompression::Zstandard { level: 1 },
    ] {
        let bytes = encode_manifest_entries(&entries, codec).unwrap();
        let mut filter = OddBuckets(0);
        let raw = RawManifest::parse_filtered(&bytes, &mut filter).unwrap();
        assert_eq!((filter.0, raw.walked()), (50, 50));
        let kept: Vec<(usize, ManifestEntry)> = raw
            .entries()
            .map(|e| (e.ordinal, e.decode().unwrap()))
            .collect();
        let want: Vec<(usize, ManifestEntry)> = entries
            .iter()
            .cloned()
            .enumerate()
            .filter(|(_, e)| e.bucket % 2 != 0)
            .collect();
        assert_eq!(kept, want);
        for (e, (_, d)) in raw.entries().zip(&want) {
            assert_eq!(e.head.partition, d.partition.to_serialized().as_slice());
            assert_eq!(e.head.file_name, d.file.file_name.as_bytes());
        }
    }
}
