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
