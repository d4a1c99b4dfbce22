//! Unit tests of `.blob` files: bytes built as Java's `BlobFormatWriter` lays them out, and a
//! file Java Paimon 2.0.0 wrote.

use arrow_array::Array;

use super::*;
use crate::ErrorKind;

/// Java `DeltaVarintCompressor.compress`.
fn compress(values: &[i64]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut prev = 0i64;
    for (i, &v) in values.iter().enumerate() {
        let d = if i == 0 { v } else { v - prev };
        prev = v;
        let mut tmp = ((d << 1) ^ (d >> 63)) as u64;
        while tmp & !0x7F != 0 {
            out.push((tmp as u8 & 0x7F) | 0x80);
            tmp >>= 7;
        }
        out.push(tmp as u8);
    }
    out
}

/// A `.blob` file as Java's `BlobFormatWriter` writes `rows` (`None` = NULL).
fn java_blob_file(rows: &[Option<&[u8]>]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut lengths = Vec::new();
    for row in rows {
        match row {
            None => lengths.push(-1),
            Some(payload) => {
                let start = out.len();
                out.extend_from_slice(&MAGIC.to_le_bytes());
                out.extend_from_slice(payload);
                let length = (out.len() - start + 12) as i64;
                out.extend_from_slice(&length.to_le_bytes());
                let crc = crc32(&out[start..]);
                out.extend_from_slice(&crc.to_le_bytes());
                lengths.push(length);
            }
        }
    }
    let index = compress(&lengths);
    out.extend_from_slice(&index);
    out.extend_from_slice(&(index.len() as i32).to_le_bytes());
    out.push(VERSION);
    out
}

fn values(a: &BinaryArray) -> Vec<Option<Vec<u8>>> {
    (0..a.len())
        .map(|i| (!a.is_null(i)).then(|| a.value(i).to_vec()))
        .collect()
}

/// `data-…-1.blob` of a Java Paimon 2.0.0 table (`payload BLOB`, `blob.target-file-size` =
/// 100 b): rows NULL, 20 × 0x01, 40 × 0x02, NULL, 80 × 0x04.
pub(crate) const JAVA_FILE: &str =
    "cf114e580101010101010101010101010101010101010101240000000000000069823227cf114e5802020202\
0202020202020202020202020202020202020202020202020202020202020202020202023800000000000000\
6f3f58f0cf114e58040404040404040404040404040404040404040404040404040404040404040404040404\
0404040404040404040404040404040404040404040404040404040404040404040404040404040404040404\
60000000000000002a3d0665014a2871c2010600000001";

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn reads_a_file_java_wrote() {
    let bytes = unhex(JAVA_FILE);
    let a = read_blob_file("data-1.blob", &bytes).unwrap();
    assert_eq!(
        values(&a),
        vec![
            None,
            Some(vec![1; 20]),
            Some(vec![2; 40]),
            None,
            Some(vec![4; 80])
        ]
    );
    // the layout this module builds is the one Java wrote, byte for byte
    let rebuilt = java_blob_file(&[None, Some(&[1; 20]), Some(&[2; 40]), None, Some(&[4; 80])]);
    assert_eq!(rebuilt, bytes);
}

#[test]
fn reads_values_nulls_and_empty_values() {
    let big = vec![7u8; 300];
    let bytes = java_blob_file(&[Some(b"abc"), None, Some(b""), Some(&big)]);
    let a = read_blob_file("f.blob", &bytes).unwrap();
    assert_eq!(
        values(&a),
        vec![Some(b"abc".to_vec()), None, Some(vec![]), Some(big)]
    );
    let slots = blob_slots("f.blob", &bytes).unwrap();
    assert_eq!(
        slots[0],
        BlobSlot::Value {
            offset: 4,
            length: 3
        }
    );
    assert_eq!(
        slots[2],
        BlobSlot::Value {
            offset: 23,
            length: 0
        }
    );
}

#[test]
fn a_file_of_only_nulls_and_an_empty_file() {
    // Java's file of one NULL row: index [-1], no records
    assert_eq!(java_blob_file(&[None]), unhex("010100000001"));
    let a = read_blob_file("n.blob", &unhex("010100000001")).unwrap();
    assert_eq!(values(&a), vec![None]);
    let a = read_blob_file("e.blob", &java_blob_file(&[])).unwrap();
    assert_eq!(a.len(), 0);
}

#[test]
fn placeholders_are_refused_by_name() {
    // Java's file of one placeholder row: index [-2], no records
    let mut bytes = compress(&[-2]);
    bytes.extend_from_slice(&1i32.to_le_bytes());
    bytes.push(VERSION);
    assert_eq!(
        blob_slots("p.blob", &bytes).unwrap(),
        vec![BlobSlot::Placeholder]
    );
    let e = read_blob_file("p.blob", &bytes).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(e.to_string().contains("BlobFallbackRecordReader"), "{e}");
}

#[test]
fn bad_bytes_are_errors_naming_the_file() {
    let good = java_blob_file(&[Some(b"hello"), Some(b"world")]);
    let mut cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![], "shorter"),
        (good[..good.len() - 1].to_vec(), "version"),
    ];
    let mut v = good.clone();
    *v.last_mut().unwrap() = 2;
    cases.push((v, "version 2"));
    let mut v = good.clone();
    let n = v.len();
    v[n - 5..n - 1].copy_from_slice(&1000i32.to_le_bytes());
    cases.push((v, "index length"));
    let mut v = good.clone();
    v[5] ^= 0xFF;
    cases.push((v, "CRC"));
    let mut v = good.clone();
    v[0] ^= 0xFF;
    cases.push((v, "magic"));
    // the index says longer records than the file holds
    let mut v = good[..good.len() - 7].to_vec();
    v.extend_from_slice(&compress(&[21, 500]));
    v.extend_from_slice(&(compress(&[21, 500]).len() as i32).to_le_bytes());
    v.push(VERSION);
    cases.push((v, "runs past"));
    // an unterminated varint
    let mut v = good[..good.len() - 7].to_vec();
    v.extend_from_slice(&[0x80, 0x80]);
    v.extend_from_slice(&2i32.to_le_bytes());
    v.push(VERSION);
    cases.push((v, "varint"));
    for (bytes, want) in cases {
        let e = read_blob_file("bucket-0/data-9.blob", &bytes).unwrap_err();
        let text = e.to_string();
        assert_eq!(e.kind(), ErrorKind::Corrupt, "{text}");
        assert!(text.contains("bucket-0/data-9.blob"), "{text}");
        assert!(text.contains(want), "{want}: {text}");
    }
}

#[test]
fn slots_from_the_index_alone_match_the_records() {
    let bytes = unhex(JAVA_FILE);
    let size = bytes.len() as u64;
    let index = index_range("f.blob", size, &bytes[bytes.len() - 5..]).unwrap();
    let from_index = slots_from_index(
        "f.blob",
        index.start,
        &bytes[index.start as usize..index.end as usize],
    )
    .unwrap();
    assert_eq!(from_index, blob_slots("f.blob", &bytes).unwrap());
    // a wrong version or an index that does not fit is an error naming the file
    let mut bad = bytes[bytes.len() - 5..].to_vec();
    bad[4] = 9;
    assert!(index_range("f.blob", size, &bad)
        .unwrap_err()
        .to_string()
        .contains("f.blob"));
    bad[4] = 1;
    bad[..4].copy_from_slice(&(size as i32).to_le_bytes());
    assert!(index_range("f.blob", size, &bad).is_err());
    // lengths that do not end where the index starts
    assert!(slots_from_index(
        "f.blob",
        index.start + 1,
        &bytes[index.start as usize..index.end as usize]
    )
    .is_err());
}
