//! HASH index files of dynamic-bucket tables: the key hashes of one
//! (partition, bucket), each a 4-byte big-endian `int`, nothing else — no header, no count,
//! no checksum (Java `IntFileUtils.writeInts`, `HashIndexFile`). `_ROW_COUNT` of the index
//! manifest entry is the number of hashes.
//!
//! Java writes the hashes in its `IntHashSet` iteration order and pypaimon sorts them; readers
//! treat a file as a set, so strata writes them sorted (deterministic bytes).
//!
//! Where a file lives (Java `FileStorePathFactory.indexFileFactory`): `<table>/index/<name>` by
//! default; in the bucket directory when `index-file-in-data-file-dir = true`; at
//! `_EXTERNAL_PATH` when that is set (strata does not read external index paths yet).

use std::sync::atomic::{AtomicU64, Ordering};

use object_store::path::Path;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::IndexFileMeta;
use strata_spec::SpecError;

use crate::error::ErrorDetail;
use crate::table::Table;
use crate::{Error, Result};

/// `_INDEX_TYPE` of dynamic-bucket hash index files (Java `HashIndexFile.HASH_INDEX`).
pub(crate) const HASH_INDEX: &str = "HASH";

/// Table option placing index files in the bucket directories instead of `index/`.
pub(crate) const INDEX_FILE_IN_DATA_FILE_DIR: &str = "index-file-in-data-file-dir";

/// Encodes hashes as a HASH index file: 4 bytes big-endian each, in the given order.
pub(crate) fn encode_hash_index(hashes: &[i32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(hashes.len() * 4);
    for h in hashes {
        out.extend_from_slice(&h.to_be_bytes());
    }
    out
}

/// Decodes a HASH index file. A length that is not a multiple of 4 (a truncated or foreign
/// file) is an error, never a partially read set.
pub(crate) fn decode_hash_index(bytes: &[u8]) -> std::result::Result<Vec<i32>, SpecError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(SpecError::invalid(
            "HASH index file",
            format!(
                "{} bytes is not a whole number of 4-byte hashes (truncated file?)",
                bytes.len()
            ),
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| i32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Reads, writes and deletes the HASH index files of one table, and names new ones
/// (`index-<uuid>-<n>`, one UUID per instance, as Java's path factory does).
#[derive(Debug)]
pub struct HashIndexFiles {
    table: Table,
    in_data_dir: bool,
    uuid: String,
    counter: AtomicU64,
}

impl HashIndexFiles {
    /// The HASH index files of `table`, placed in the bucket directories when
    /// `index-file-in-data-file-dir` is set, else in the table's `index/` directory. Fails if that
    /// option does not parse as a boolean.
    pub fn new(table: &Table) -> Result<Self> {
        let in_data_dir = table
            .options()
            .get_bool(INDEX_FILE_IN_DATA_FILE_DIR)?
            .unwrap_or(false);
        Ok(HashIndexFiles {
            table: table.clone(),
            in_data_dir,
            uuid: uuid::Uuid::new_v4().to_string(),
            counter: AtomicU64::new(0),
        })
    }

    /// Where the index file `file` of (partition, bucket) lives.
    pub fn path(&self, partition: &BinaryRow, bucket: i32, file: &IndexFileMeta) -> Result<Path> {
        if let Some(ext) = &file.external_path {
            return Err(ErrorDetail::Unsupported(format!(
                "index file {} of table {} lives at external path {ext}; strata does not read \
                 external index paths yet",
                file.file_name,
                self.table.identifier()
            ))
            .into());
        }
        self.path_of_name(partition, bucket, &file.file_name)
    }

    fn path_of_name(&self, partition: &BinaryRow, bucket: i32, name: &str) -> Result<Path> {
        if self.in_data_dir {
            let part = self.table.partition_path(partition)?;
            Ok(self.table.paths().data_file(&part, bucket, name))
        } else {
            Ok(self.table.paths().index_file(name))
        }
    }

    /// The hashes stored in `file`; a missing, truncated or misaligned file is an error naming
    /// the path.
    pub async fn read(
        &self,
        partition: &BinaryRow,
        bucket: i32,
        file: &IndexFileMeta,
    ) -> Result<Vec<i32>> {
        let path = self.path(partition, bucket, file)?;
        let io = self.table.file_io();
        let bytes = io.get(&path).await?;
        decode_hash_index(&bytes).map_err(|e| Error::corrupt(io.display(&path), e))
    }

    /// Writes `hashes` (sorted here) as a new index file of (partition, bucket); returns its
    /// metadata (`HASH`, name, byte size, hash count) and its path.
    pub async fn write(
        &self,
        partition: &BinaryRow,
        bucket: i32,
        mut hashes: Vec<i32>,
    ) -> Result<(IndexFileMeta, Path)> {
        hashes.sort_unstable();
        hashes.dedup();
        let name = format!(
            "index-{}-{}",
            self.uuid,
            self.counter.fetch_add(1, Ordering::Relaxed)
        );
        let path = self.path_of_name(partition, bucket, &name)?;
        let bytes = encode_hash_index(&hashes);
        let size = bytes.len() as i64;
        self.table.file_io().put(&path, bytes).await?;
        Ok((
            IndexFileMeta {
                index_type: HASH_INDEX.to_string(),
                file_name: name,
                file_size: size,
                row_count: hashes.len() as i64,
                dv_ranges: None,
                external_path: None,
                global_index: None,
            },
            path,
        ))
    }

    /// Deletes files written by this instance (best effort, for aborts).
    pub async fn delete_quietly(&self, paths: &[Path]) {
        for p in paths {
            let _ = self.table.file_io().delete(p).await;
        }
    }
}
