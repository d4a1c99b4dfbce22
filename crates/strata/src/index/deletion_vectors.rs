//! Writing deletion-vector index files (Java `DeletionVectorIndexFileWriter.writeSingleFile`,
//! `DeletionFileWriter`): the vectors of one (partition, bucket) in one new file, and the
//! `DELETION_VECTORS` index-manifest entry that adds it.
//!
//! The bytes come from [`crate::format::deletion_vector`]: version byte `1`, then each vector
//! in the given order. The [`IndexFileMeta`] is Java's: `_INDEX_TYPE` `DELETION_VECTORS`,
//! name `index-<uuid>-<n>` (one UUID per writer, as Java's `IndexPathFactory`), file size,
//! `_ROW_COUNT` = the number of vectors (Java records `dvMetas.size()`, not deleted rows), and
//! `_DELETIONS_VECTORS_RANGES` with each data file's offset, recorded length and cardinality
//! in file order.
//!
//! A primary-key bucket keeps all its vectors in one file: a commit that changes any vector
//! of the bucket writes a new file with all of them (ADD) and drops the previous one (DELETE),
//! which the caller adds from the snapshot it read. New vectors take the form
//! `deletion-vectors.bitmap64` selects ([`DeletionVectorIndexWriter::new_vector`]); vectors
//! read from earlier files keep theirs, as in Java.
//!
//! Where the file lives follows the HASH index ([`super::hash_file`]): `<table>/index/` or,
//! with `index-file-in-data-file-dir = true`, the bucket directory.

use std::sync::atomic::{AtomicU64, Ordering};

use object_store::path::Path;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{FileKind, IndexFileMeta, IndexManifestEntry};

use super::hash_file::INDEX_FILE_IN_DATA_FILE_DIR;
use super::manifest::DELETION_VECTORS_INDEX;
use crate::error::ErrorDetail;
use crate::format::deletion_vector::{encode_deletion_vectors_index, DeletionVector};
use crate::table::Table;
use crate::{Error, Result};

/// Table option: new deletion vectors in the 64-bit form (Java `CoreOptions.DELETION_VECTOR_BITMAP64`).
pub(crate) const DELETION_VECTORS_BITMAP64: &str = "deletion-vectors.bitmap64";

/// Writes the deletion-vector index files of one table and names them.
#[derive(Debug)]
pub(crate) struct DeletionVectorIndexWriter {
    table: Table,
    in_data_dir: bool,
    #[cfg_attr(not(test), allow(dead_code))] // read by unit tests only
    bitmap64: bool,
    uuid: String,
    counter: AtomicU64,
}

impl DeletionVectorIndexWriter {
    pub(crate) fn new(table: &Table) -> Result<Self> {
        let options = table.options();
        Ok(DeletionVectorIndexWriter {
            table: table.clone(),
            in_data_dir: options
                .get_bool(INDEX_FILE_IN_DATA_FILE_DIR)?
                .unwrap_or(false),
            bitmap64: options
                .get_bool(DELETION_VECTORS_BITMAP64)?
                .unwrap_or(false),
            uuid: uuid::Uuid::new_v4().to_string(),
            counter: AtomicU64::new(0),
        })
    }

    /// Whether new vectors take the 64-bit form (`deletion-vectors.bitmap64`).
    #[cfg(test)]
    pub(crate) fn bitmap64(&self) -> bool {
        self.bitmap64
    }

    /// An empty vector of the table's form for a data file that has none yet.
    #[cfg(test)]
    pub(crate) fn new_vector(&self) -> DeletionVector {
        DeletionVector::new_empty(self.bitmap64)
    }

    /// Where an index file named `name` of (partition, bucket) is written.
    pub(crate) fn path_of(&self, partition: &BinaryRow, bucket: i32, name: &str) -> Result<Path> {
        index_path_of(&self.table, self.in_data_dir, partition, bucket, name)
    }

    /// Writes `vectors` (data file name, vector; each data file once) as a new index file of
    /// (partition, bucket) and returns the ADD entry to commit with its path (for aborts).
    /// An empty list writes a file holding only the version byte, as Java's
    /// `writeSingleFile` does when a bucket's last vector goes away.
    pub(crate) async fn write(
        &self,
        partition: &BinaryRow,
        bucket: i32,
        vectors: &[(String, DeletionVector)],
    ) -> Result<(IndexManifestEntry, Path)> {
        let name = format!(
            "index-{}-{}",
            self.uuid,
            self.counter.fetch_add(1, Ordering::Relaxed)
        );
        let path = self.path_of(partition, bucket, &name)?;
        let (bytes, ranges) = encode_deletion_vectors_index(vectors).map_err(|e| {
            Error::from(ErrorDetail::InvalidArgument(format!(
                "deletion vectors of bucket {bucket} of table {}: {e}",
                self.table.identifier()
            )))
        })?;
        let file_size = bytes.len() as i64;
        self.table
            .file_io()
            .put(&path, bytes::Bytes::from(bytes))
            .await?;
        let entry = IndexManifestEntry {
            kind: FileKind::Add,
            partition: partition.clone(),
            bucket,
            index_file: IndexFileMeta {
                index_type: DELETION_VECTORS_INDEX.to_string(),
                file_name: name,
                file_size,
                row_count: ranges.len() as i64,
                dv_ranges: Some(ranges),
                external_path: None,
                global_index: None,
            },
        };
        Ok((entry, path))
    }

    /// Deletes files written by this writer (best effort, for aborts).
    pub(crate) async fn delete_quietly(&self, paths: &[Path]) {
        for p in paths {
            let _ = self.table.file_io().delete(p).await;
        }
    }
}

fn index_path_of(
    table: &Table,
    in_data_dir: bool,
    partition: &BinaryRow,
    bucket: i32,
    name: &str,
) -> Result<Path> {
    if in_data_dir {
        let part = table.partition_path(partition)?;
        Ok(table.paths().data_file(&part, bucket, name))
    } else {
        Ok(table.paths().index_file(name))
    }
}

/// Where the deletion-vector index file of `entry` lives: `index/`, or the bucket directory
/// with `index-file-in-data-file-dir = true` (the rule the writer follows). An external path
/// is refused with an error naming the file.
pub(crate) fn deletion_vector_file_path(table: &Table, entry: &IndexManifestEntry) -> Result<Path> {
    let file = &entry.index_file;
    if let Some(ext) = &file.external_path {
        return Err(ErrorDetail::Unsupported(format!(
            "deletion-vector index file {} of table {} lives at external path {ext}; strata does \
             not read external index paths yet",
            file.file_name,
            table.identifier()
        ))
        .into());
    }
    let in_data_dir = table
        .options()
        .get_bool(INDEX_FILE_IN_DATA_FILE_DIR)?
        .unwrap_or(false);
    index_path_of(
        table,
        in_data_dir,
        &entry.partition,
        entry.bucket,
        &file.file_name,
    )
}

/// Every vector of the deletion-vector index files `entries` (data file name → vector; a
/// later file's vector of the same data file wins). Errors name the index file.
pub(crate) async fn read_index_vectors(
    table: &Table,
    entries: &[&IndexManifestEntry],
) -> Result<std::collections::HashMap<String, DeletionVector>> {
    let mut out = std::collections::HashMap::new();
    for e in entries {
        let ranges = e.index_file.dv_ranges.as_deref().unwrap_or_default();
        if ranges.is_empty() {
            continue;
        }
        let path = deletion_vector_file_path(table, e)?;
        let io = table.file_io();
        let bytes = io.get(&path).await?;
        let vectors = crate::format::deletion_vector::decode_deletion_vectors_index(&bytes, ranges)
            .map_err(|err| Error::corrupt(io.display(&path), err))?;
        out.extend(vectors);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use roaring::RoaringBitmap;

    use super::*;
    use crate::catalog::{FileSystemCatalog, Identifier};
    use crate::format::deletion_vector::decode_deletion_vectors_index;
    use crate::read::deletion_vectors::load_deletion_vectors;

    async fn table(options: &str) -> Table {
        let catalog = FileSystemCatalog::open("memory://dv-writer-tests").unwrap();
        let json = format!(
            r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"v","type":"INT"}}],
            "primaryKeys":["id"],"options":{{"bucket":"1","deletion-vectors.enabled":"true"{options}}}}}"#
        );
        let id: Identifier = format!("db.t{}", options.len()).parse().unwrap();
        catalog
            .create_table(
                &id,
                &strata_spec::schema::Schema::from_json(&json).unwrap(),
                false,
            )
            .await
            .unwrap();
        catalog.get_table(&id).await.unwrap()
    }

    #[tokio::test]
    async fn writes_java_metadata_and_readable_bytes() {
        let t = table("").await;
        let w = DeletionVectorIndexWriter::new(&t).unwrap();
        assert!(!w.bitmap64());
        let mut a = w.new_vector();
        a.delete(3).unwrap();
        a.delete(70_000).unwrap();
        let b = DeletionVector::Bitmap32(RoaringBitmap::from_iter([0u32]));
        let vectors = vec![
            ("data-b-0.parquet".to_string(), b),
            ("data-a-0.parquet".into(), a),
        ];
        let (entry, path) = w.write(&BinaryRow::empty(), 0, &vectors).await.unwrap();
        let f = &entry.index_file;
        assert_eq!(entry.kind, FileKind::Add);
        assert_eq!(f.index_type, "DELETION_VECTORS");
        assert!(f.file_name.starts_with("index-") && f.file_name.ends_with("-0"));
        assert_eq!(f.row_count, 2);
        let ranges = f.dv_ranges.as_ref().unwrap();
        assert_eq!(ranges[0].data_file_name, "data-b-0.parquet");
        assert_eq!(ranges[0].offset, 1);
        assert_eq!(ranges[1].cardinality, Some(2));
        let bytes = t.file_io().get(&path).await.unwrap();
        assert_eq!(bytes.len() as i64, f.file_size);
        assert_eq!(
            decode_deletion_vectors_index(&bytes, ranges).unwrap(),
            vectors
        );
        let (second, _) = w.write(&BinaryRow::empty(), 0, &[]).await.unwrap();
        assert!(second.index_file.file_name.ends_with("-1"));
        assert_eq!(second.index_file.file_size, 1);
        assert_eq!(second.index_file.dv_ranges, Some(vec![]));
    }

    #[tokio::test]
    async fn committed_vectors_are_loaded_by_the_read_path() {
        for options in [
            r#","deletion-vectors.bitmap64":"true""#,
            r#","index-file-in-data-file-dir":"true""#,
        ] {
            committed_vectors_are_loaded(options).await;
        }
    }

    async fn committed_vectors_are_loaded(options: &str) {
        let t = table(options).await;
        let w = DeletionVectorIndexWriter::new(&t).unwrap();
        let mut dv = w.new_vector();
        dv.delete(1).unwrap();
        if w.bitmap64() {
            dv.delete(5_000_000_000).unwrap();
        }
        let (entry, path) = w
            .write(
                &BinaryRow::empty(),
                0,
                &[("data-x.parquet".into(), dv.clone())],
            )
            .await
            .unwrap();
        assert_eq!(deletion_vector_file_path(&t, &entry).unwrap(), path);
        let in_bucket_dir = path.as_ref().contains("/bucket-0/");
        assert_eq!(
            in_bucket_dir,
            options.contains("index-file-in-data-file-dir")
        );
        let mut msg = crate::commit::CommitMessage::new(BinaryRow::empty(), 0, 1);
        msg.index_changes = vec![entry];
        let id = t.new_commit().unwrap().commit(vec![msg]).await.unwrap();
        let snapshot = t.snapshot_manager().snapshot(id.unwrap()).await.unwrap();
        let loaded = load_deletion_vectors(&t, &snapshot, &BinaryRow::empty(), 0)
            .await
            .unwrap();
        assert_eq!(loaded.len(), 1);
        assert_eq!(*loaded["data-x.parquet"], dv);
    }
}
