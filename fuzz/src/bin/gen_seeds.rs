//! Builds the seed corpora of the fuzz targets from real Paimon tables.
//!
//! ```text
//! cargo run --manifest-path fuzz/Cargo.toml --bin gen-seeds -- OUT_DIR TABLE_OR_FILE...
//! ```
//!
//! Walks every table directory (or file) given and copies each metadata file into the corpus
//! of the target that decodes it: `snapshot-N`, `LATEST`, `EARLIEST` → `snapshot_json`;
//! `schema-N` and `*.json` → `schema_json`; manifest lists, manifests (also `raw_manifest`),
//! index manifests; data files up to 256 KiB → `parquet_file`. It also extracts the
//! BinaryRows of every manifest entry (partition, keys, statistics rows) → `binary_row`, and the
//! `paimon.map.*` metadata of every shredded MAP column in a data-file footer →
//! `shredding_metadata` (in that target's input form; needs the `footers` feature, part of the default `format`). Seeds are named by an FNV-1a hash of
//! their bytes, so re-running adds nothing twice.

use std::path::{Path, PathBuf};

#[cfg(feature = "footers")]
use strata_fuzz::spec_checks::encode_shredding_input;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::decode_manifest_entries;
#[cfg(feature = "footers")]
use strata_spec::shredding::metadata::{is_shredded, DictCompression, MapShreddingFileMeta};

const MAX_DATA_FILE: u64 = 256 * 1024;

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

struct Out {
    root: PathBuf,
    written: usize,
}

impl Out {
    fn add(&mut self, target: &str, bytes: &[u8]) {
        let dir = self.root.join(target);
        std::fs::create_dir_all(&dir).expect("create the corpus directory");
        let path = dir.join(format!("seed-{:016x}", fnv1a(bytes)));
        if !path.exists() {
            std::fs::write(&path, bytes).expect("write a seed");
            self.written += 1;
        }
    }
}

fn files_under(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .expect("read a directory")
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for e in entries {
            files_under(&e, out);
        }
    } else {
        out.push(p.to_path_buf());
    }
}

fn rows_of_manifest(bytes: &[u8], out: &mut Out) {
    let Ok(entries) = decode_manifest_entries(bytes) else {
        return;
    };
    let mut rows: Vec<&BinaryRow> = Vec::new();
    for e in &entries {
        let f = &e.file;
        rows.extend([&e.partition, &f.min_key, &f.max_key]);
        for s in [&f.key_stats, &f.value_stats] {
            rows.extend([&s.min_values, &s.max_values]);
        }
    }
    for r in rows {
        out.add("binary_row", &r.to_serialized());
    }
}

#[cfg(not(feature = "footers"))]
fn shredding_of_data_file(_: &[u8], _: &mut Out) {}

#[cfg(feature = "footers")]
fn shredding_of_data_file(bytes: &[u8], out: &mut Out) {
    let bytes = bytes::Bytes::copy_from_slice(bytes);
    let Ok(meta) =
        parquet::arrow::arrow_reader::ArrowReaderMetadata::load(&bytes, Default::default())
    else {
        return;
    };
    for field in meta.schema().fields() {
        let md = field.metadata();
        if is_shredded(|k| md.get(k).map(String::as_str)) {
            out.add(
                "shredding_metadata",
                &encode_shredding_input(|k| md.get(k).cloned()),
            );
            // The same metadata with the other dictionary compressions.
            let Ok(parsed) =
                MapShreddingFileMeta::from_key_values(|k| md.get(k).map(String::as_str))
            else {
                continue;
            };
            for c in [
                DictCompression::None,
                DictCompression::Lz4,
                DictCompression::Zstd,
            ] {
                let Ok(kv) = parsed.to_key_values(c) else {
                    continue;
                };
                out.add(
                    "shredding_metadata",
                    &encode_shredding_input(|k| {
                        kv.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone())
                    }),
                );
            }
        }
    }
}

/// An index manifest with what strata's own tables never write: deletion-vector ranges and a
/// global index (Java writes both), uncompressed and zstd.
fn synthetic_index_manifests(out: &mut Out) {
    use strata_spec::manifest::{
        encode_index_manifest, DeletionVectorMeta, FileKind, GlobalIndexMeta, IndexFileMeta,
        IndexManifestEntry, ManifestCompression,
    };
    use strata_spec::{DataType, Datum};
    let partition =
        BinaryRow::from_datums(&[Some(Datum::String("a".into()))], &[DataType::string()])
            .expect("a one-string row encodes");
    let dv = IndexManifestEntry {
        kind: FileKind::Add,
        partition: partition.clone(),
        bucket: 0,
        index_file: IndexFileMeta {
            index_type: "DELETION_VECTORS".into(),
            file_name: "index-dv-0".into(),
            file_size: 120,
            row_count: 3,
            dv_ranges: Some(vec![
                DeletionVectorMeta {
                    data_file_name: "data-1.parquet".into(),
                    offset: 1,
                    length: 40,
                    cardinality: Some(2),
                },
                DeletionVectorMeta {
                    data_file_name: "data-2.parquet".into(),
                    offset: 41,
                    length: 30,
                    cardinality: None,
                },
            ]),
            external_path: None,
            global_index: None,
        },
    };
    let global = IndexManifestEntry {
        kind: FileKind::Delete,
        partition,
        bucket: 1,
        index_file: IndexFileMeta {
            index_type: "btree".into(),
            file_name: "index-global-0".into(),
            file_size: 999,
            row_count: 10,
            dv_ranges: None,
            external_path: Some("s3://bucket/index-global-0".into()),
            global_index: Some(GlobalIndexMeta {
                row_range_start: 0,
                row_range_end: 9,
                index_field_id: 2,
                extra_field_ids: Some(vec![3, 4]),
                index_meta: Some(vec![1, 2, 3]),
                source_meta: None,
            }),
        },
    };
    for codec in [
        ManifestCompression::Null,
        ManifestCompression::Zstandard { level: 1 },
    ] {
        let bytes = encode_index_manifest(&[dv.clone(), global.clone()], codec)
            .expect("synthetic index entries encode");
        out.add("index_manifest", &bytes);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((root, inputs)) = args.split_first() else {
        eprintln!("usage: gen-seeds OUT_DIR TABLE_OR_FILE...");
        std::process::exit(2);
    };
    let mut out = Out {
        root: PathBuf::from(root),
        written: 0,
    };
    let mut files = Vec::new();
    for i in inputs {
        files_under(Path::new(i), &mut files);
    }
    for f in files {
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let bytes = std::fs::read(&f).expect("read an input file");
        if name.starts_with("snapshot-") || name == "LATEST" || name == "EARLIEST" {
            out.add("snapshot_json", &bytes);
        } else if name.starts_with("schema-") || name.ends_with(".json") {
            out.add("schema_json", &bytes);
        } else if name.starts_with("manifest-list-") {
            out.add("manifest_list", &bytes);
        } else if name.starts_with("index-manifest-") {
            out.add("index_manifest", &bytes);
        } else if name.starts_with("manifest-") {
            out.add("manifest_entries", &bytes);
            out.add("raw_manifest", &bytes);
            rows_of_manifest(&bytes, &mut out);
        } else if name.ends_with(".parquet") {
            shredding_of_data_file(&bytes, &mut out);
            if bytes.len() as u64 <= MAX_DATA_FILE {
                out.add("parquet_file", &bytes);
            }
        }
    }
    synthetic_index_manifests(&mut out);
    println!("{} new seeds in {}", out.written, out.root.display());
}
