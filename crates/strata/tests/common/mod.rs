//! Shared helpers of the integration tests: a temporary local warehouse and small readers.

#![allow(dead_code)]

use arrow_array::{Array, Int64Array};
use strata::catalog::{FileSystemCatalog, Identifier};
use strata::expr::parse_sql_predicate;
use strata::table::Table;
use strata_spec::schema::Schema;

pub struct Warehouse {
    pub dir: tempfile::TempDir,
    pub catalog: FileSystemCatalog,
}

impl Warehouse {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let catalog = FileSystemCatalog::open(dir.path().to_str().unwrap()).unwrap();
        Warehouse { dir, catalog }
    }

    pub async fn create(&self, name: &str, schema_json: &str) -> Table {
        let id: Identifier = name.parse().unwrap();
        let schema = Schema::from_json(schema_json).unwrap();
        self.catalog
            .create_table(&id, &schema, false)
            .await
            .unwrap();
        self.catalog.get_table(&id).await.unwrap()
    }

    pub fn table_dir(&self, db: &str, table: &str) -> std::path::PathBuf {
        self.dir.path().join(format!("{db}.db")).join(table)
    }
}

/// Sorted values of the BIGINT column `id`.
pub async fn read_ids(t: &Table, filter: Option<&str>, snapshot: Option<i64>) -> Vec<i64> {
    let mut scan = t.new_scan();
    let mut read = t.new_read().with_projection(vec!["id".into()]);
    if let Some(f) = filter {
        let p = parse_sql_predicate(f).unwrap();
        scan = scan.with_filter(p.clone());
        read = read.with_filter(p);
    }
    if let Some(s) = snapshot {
        scan = scan.with_snapshot(s);
    }
    let plan = scan.plan().await.unwrap();
    let mut out = Vec::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        let col = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        for i in 0..col.len() {
            out.push(col.value(i));
        }
    }
    out.sort();
    out
}

/// Number of `data-*.parquet` files under a table directory.
pub fn count_data_files(dir: &std::path::Path) -> usize {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("data-") && n.ends_with(".parquet"))
            {
                n += 1;
            }
        }
    }
    n
}

/// Commits a deletion vector marking rows `positions` of data file `data_file` (unpartitioned,
/// bucket 0 of `total_buckets`) deleted, as Java writes one: an index file `index_name` holding
/// a version byte and one length-prefixed 32-bit bitmap, listed in the index manifest.
pub async fn commit_deletion_vector(
    t: &Table,
    total_buckets: i32,
    data_file: &str,
    positions: &[u32],
    index_name: &str,
) {
    use strata::commit::CommitMessage;
    use strata::read::deletion_vectors::DeletionVector;
    use strata::unstable::index::DELETION_VECTORS_INDEX;
    use strata_spec::binary_row::BinaryRow;
    use strata_spec::manifest::{DeletionVectorMeta, FileKind, IndexFileMeta, IndexManifestEntry};

    let bitmap: roaring::RoaringBitmap = positions.iter().copied().collect();
    let vector = DeletionVector::encode_32(&bitmap);
    let mut bytes = vec![1u8];
    bytes.extend_from_slice(&vector);
    t.file_io()
        .put(
            &t.paths().index_file(index_name),
            bytes::Bytes::from(bytes.clone()),
        )
        .await
        .unwrap();
    let entry = IndexManifestEntry {
        kind: FileKind::Add,
        partition: BinaryRow::empty(),
        bucket: 0,
        index_file: IndexFileMeta {
            index_type: DELETION_VECTORS_INDEX.into(),
            file_name: index_name.to_string(),
            file_size: bytes.len() as i64,
            row_count: positions.len() as i64,
            dv_ranges: Some(vec![DeletionVectorMeta {
                data_file_name: data_file.to_string(),
                offset: 1,
                length: (vector.len() - 8) as i32,
                cardinality: Some(positions.len() as i64),
            }]),
            external_path: None,
            global_index: None,
        },
    };
    let msg = CommitMessage {
        partition: BinaryRow::empty(),
        bucket: 0,
        total_buckets,
        new_files: Vec::new(),
        deleted_files: Vec::new(),
        compact_before: Vec::new(),
        compact_after: Vec::new(),
        new_changelog: Vec::new(),
        compact_changelog: Vec::new(),
        compact_index_changes: Vec::new(),
        index_changes: vec![entry],
        index_base: None,
        compact_base: None,
    };
    t.new_commit().unwrap().commit(vec![msg]).await.unwrap();
}
