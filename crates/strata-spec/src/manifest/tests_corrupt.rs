//! Corrupt and truncated input must give `SpecError::Avro`/`Invalid`/`Unsupported`, never a
//! panic or an abort.

use proptest::prelude::*;

use super::ocf::write_long;
use super::testkit::*;
use super::tests::entry_fixture;
use super::*;
use crate::error::SpecError;

const ALL_CODECS: [ManifestCompression; 4] = [
    ManifestCompression::Null,
    ManifestCompression::Deflate,
    ManifestCompression::Snappy,
    ManifestCompression::Zstandard { level: 1 },
];

/// (codec, manifest file, manifest list, empty index manifest)
type SampleFiles = Vec<(ManifestCompression, Vec<u8>, Vec<u8>, Vec<u8>)>;

fn sample_files() -> SampleFiles {
    let entries = vec![
        entry_fixture(),
        entry(FileKind::Delete, 3, 1, "data-2.parquet"),
    ];
    let list = vec![ManifestFileMeta {
        file_name: "manifest-1".into(),
        file_size: 5,
        num_added_files: 1,
        num_deleted_files: 1,
        partition_stats: stats(&[Some(1)], &[Some(3)], &[Some(0)]),
        schema_id: 1,
        min_bucket: Some(0),
        max_bucket: Some(1),
        min_level: None,
        max_level: None,
        min_row_id: Some(0),
        max_row_id: Some(9),
    }];
    ALL_CODECS
        .iter()
        .map(|&c| {
            (
                c,
                encode_manifest_entries(&entries, c).unwrap(),
                encode_manifest_list(&list, c).unwrap(),
                encode_index_manifest(&[], c).unwrap(),
            )
        })
        .collect()
}

fn is_decode_error(e: &SpecError) -> bool {
    matches!(
        e,
        SpecError::Avro { .. } | SpecError::Invalid { .. } | SpecError::Unsupported(_)
    )
}

/// Byte length of the single block (count, size, data, marker) at the end of `bytes`.
fn block_len(bytes: &[u8]) -> usize {
    let marker = &bytes[bytes.len() - 16..];
    // The header ends with the same marker; the block starts right after it.
    let first = bytes.windows(16).position(|w| w == marker).unwrap();
    bytes.len() - (first + 16)
}

#[test]
fn every_truncation_is_an_error() {
    for (codec, entries, list, index) in sample_files() {
        // One block each: any cut loses part of the header, the block or its marker, except
        // a cut right after the header, which is a valid empty container (as in Java).
        let header_end = |bytes: &[u8]| bytes.len() - block_len(bytes);
        for cut in 0..entries.len() {
            match decode_manifest_entries(&entries[..cut]) {
                Ok(v) => assert!(
                    cut == header_end(&entries) && v.is_empty(),
                    "{codec:?} cut {cut}"
                ),
                Err(err) => assert!(is_decode_error(&err), "{codec:?} cut {cut}: {err:?}"),
            }
        }
        for cut in 0..list.len() {
            match decode_manifest_list(&list[..cut]) {
                Ok(v) => assert!(
                    cut == header_end(&list) && v.is_empty(),
                    "{codec:?} cut {cut}"
                ),
                Err(err) => assert!(is_decode_error(&err), "{codec:?} cut {cut}: {err:?}"),
            }
        }
        // An empty index manifest is header + marker; cutting into it always fails.
        for cut in 0..index.len() {
            assert!(
                decode_index_manifest(&index[..cut]).is_err(),
                "{codec:?} cut {cut}"
            );
        }
    }
}

#[test]
fn every_single_bit_flip_is_handled() {
    for (codec, entries, list, _) in sample_files() {
        let mut errors = 0;
        for pos in 0..entries.len() {
            // One bit per byte, rotating through the bit positions (all 8 would be slow).
            {
                let bit = pos % 8;
                let mut bad = entries.clone();
                bad[pos] ^= 1 << bit;
                // Either an error or a (different) successful decode; never a panic.
                if let Err(e) = decode_manifest_entries(&bad) {
                    assert!(is_decode_error(&e), "{e:?}");
                    errors += 1;
                }
            }
        }
        assert!(errors > 0, "{codec:?}: no flip was detected");
        for pos in 0..list.len() {
            let mut bad = list.clone();
            bad[pos] ^= 0x10;
            let _ = decode_manifest_list(&bad);
        }
    }
}

#[test]
fn flipped_sync_marker_names_the_block() {
    let bytes = encode_manifest_entries(&[entry_fixture()], ManifestCompression::Null).unwrap();
    let mut bad = bytes.clone();
    let last = bad.len() - 1;
    bad[last] ^= 0xff;
    match decode_manifest_entries(&bad) {
        Err(SpecError::Avro { context, message }) => {
            assert_eq!(context, "Avro block #0 of manifest entry file");
            assert!(message.contains("sync marker"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

/// A container with `datum` as the single record of one uncompressed block.
fn container_with_datum(schema: &str, datum: &[u8], count: i64) -> Vec<u8> {
    let mut out = b"Obj\x01".to_vec();
    write_long(&mut out, 1);
    write_long(&mut out, 11);
    out.extend_from_slice(b"avro.schema");
    write_long(&mut out, schema.len() as i64);
    out.extend_from_slice(schema.as_bytes());
    write_long(&mut out, 0);
    let marker = [7u8; 16];
    out.extend_from_slice(&marker);
    write_long(&mut out, count);
    write_long(&mut out, datum.len() as i64);
    out.extend_from_slice(datum);
    out.extend_from_slice(&marker);
    out
}

#[test]
fn huge_array_count_is_rejected_without_allocating() {
    // apache-avro's own reader reserves the claimed slots first and aborts on this input.
    let schema = r#"{"type":"record","name":"r","fields":[{"name":"a","type":{"type":"array","items":"long"}}]}"#;
    let mut datum = Vec::new();
    write_long(&mut datum, 500_000_000);
    datum.extend_from_slice(&[2, 0]);
    // (A manifest list: manifest files must also have the entry fields the lazy decoder
    // routes on, see `entry_schema_must_suit_both_decoders`.)
    let err = decode_manifest_list(&container_with_datum(schema, &datum, 1)).unwrap_err();
    match err {
        SpecError::Avro { context, message } => {
            assert_eq!(context, "manifest list entry #0 field a");
            assert!(message.contains("item count 500000000"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn huge_record_count_and_lengths_are_rejected() {
    let schema = r#"{"type":"record","name":"r","fields":[{"name":"s","type":"string"}]}"#;
    let mut datum = Vec::new();
    write_long(&mut datum, 1 << 40);
    let err = decode_manifest_list(&container_with_datum(schema, &datum, 1)).unwrap_err();
    assert!(
        matches!(&err, SpecError::Avro { context, message }
            if context == "manifest list entry #0 field s" && message.contains("exceeds")),
        "{err:?}"
    );
    let err = decode_manifest_list(&container_with_datum(schema, &[0], 1 << 50)).unwrap_err();
    assert!(matches!(err, SpecError::Avro { .. }), "{err:?}");
}

#[test]
fn deep_recursive_schema_is_bounded() {
    let schema = r#"{"type":"record","name":"n","fields":[{"name":"next","type":["null","n"]}]}"#;
    let datum = vec![2u8; 10_000]; // branch 1 forever
    let err = decode_manifest_list(&container_with_datum(schema, &datum, 1)).unwrap_err();
    assert!(
        matches!(&err, SpecError::Avro { message, .. } if message.contains("nesting")),
        "{err:?}"
    );
}

#[test]
fn entry_schema_must_suit_both_decoders() {
    // Found by the raw_manifest fuzz target: writer schemas the full decoder used to accept
    // and the lazy one rejects (no `_PARTITION`, nesting past the walker's bound). Both now
    // reject them, naming the schema problem.
    let entries = vec![entry_fixture()];
    let good = encode_manifest_entries(&entries, ManifestCompression::Null).unwrap();
    let text = String::from_utf8_lossy(&good).into_owned();
    assert!(text.contains("\"_PARTITION\""));
    for (from, to) in [
        ("\"_PARTITION\"", "\"_PARTIDION\""),
        ("\"_FILE\"", "\"_FILF\""),
    ] {
        let bytes = replace_once(&good, from.as_bytes(), to.as_bytes());
        let full = decode_manifest_entries(&bytes).unwrap_err();
        let lazy = RawManifest::parse(&bytes).unwrap_err();
        for e in [full, lazy] {
            assert!(
                matches!(&e, SpecError::Invalid { context, .. } if context == "manifest entry schema"),
                "{from}: {e:?}"
            );
        }
    }
}

fn replace_once(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(
        from.len(),
        to.len(),
        "same length keeps the header length prefix valid"
    );
    let at = bytes.windows(from.len()).position(|w| w == from).unwrap();
    let mut out = bytes.to_vec();
    out[at..at + from.len()].copy_from_slice(to);
    out
}

#[test]
fn bad_header_and_codec_errors() {
    assert!(matches!(
        decode_manifest_entries(b"PAR1"),
        Err(SpecError::Avro { .. })
    ));
    assert!(matches!(
        decode_manifest_entries(b""),
        Err(SpecError::Avro { .. })
    ));
    let mut out = b"Obj\x01".to_vec();
    write_long(&mut out, 2);
    for (k, v) in [("avro.schema", "\"long\""), ("avro.codec", "lzo")] {
        write_long(&mut out, k.len() as i64);
        out.extend_from_slice(k.as_bytes());
        write_long(&mut out, v.len() as i64);
        out.extend_from_slice(v.as_bytes());
    }
    write_long(&mut out, 0);
    out.extend_from_slice(&[0; 16]);
    assert!(matches!(
        decode_manifest_entries(&out),
        Err(SpecError::Unsupported(m)) if m.contains("lzo")
    ));
}

#[test]
fn short_snappy_block_is_an_error() {
    let bytes = encode_manifest_list(&[], ManifestCompression::Snappy).unwrap();
    let marker: Vec<u8> = bytes[bytes.len() - 16..].to_vec();
    for block in [
        vec![],
        vec![1u8],
        vec![0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0],
    ] {
        let mut bad = bytes.clone();
        write_long(&mut bad, 1);
        write_long(&mut bad, block.len() as i64);
        bad.extend_from_slice(&block);
        bad.extend_from_slice(&marker);
        let err = decode_manifest_list(&bad).unwrap_err();
        assert!(matches!(err, SpecError::Avro { .. }), "{err:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_corruption_never_panics(
        c in 0usize..4,
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let entries = vec![entry_fixture(), entry(FileKind::Add, 1, 0, "d.parquet")];
        let mut bytes = encode_manifest_entries(&entries, ALL_CODECS[c]).unwrap();
        for (i, b) in edits {
            let i = i.index(bytes.len());
            bytes[i] = b;
        }
        if let Err(e) = decode_manifest_entries(&bytes) {
            prop_assert!(is_decode_error(&e));
        }
    }
}
