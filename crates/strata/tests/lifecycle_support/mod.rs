//! Helpers of the lifecycle tests: a primary-key table whose history contains a compaction
//! upgrade and a rewrite, the files on disk, and the files that snapshots and tags reference
//! computed independently of `strata::maintenance` (manifests read and merged here).

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::catalog::{FileSystemCatalog, Identifier};
use strata::maintenance::TagManager;
use strata::table::Table;
use strata_spec::manifest::FileKind;
use strata_spec::schema::Schema;
use strata_spec::snapshot::Snapshot;

pub struct Lake {
    pub dir: tempfile::TempDir,
    pub catalog: FileSystemCatalog,
}

impl Lake {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let catalog = FileSystemCatalog::open(dir.path().to_str().unwrap()).unwrap();
        Lake { dir, catalog }
    }

    /// A copy of this warehouse in a new directory.
    pub fn copy(&self) -> Lake {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(self.dir.path(), dir.path());
        let catalog = FileSystemCatalog::open(dir.path().to_str().unwrap()).unwrap();
        Lake { dir, catalog }
    }

    pub async fn pk_table(&self, name: &str, extra_options: &str) -> Table {
        let json = format!(
            r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"v","type":"STRING"}}],
            "primaryKeys":["id"],"options":{{"bucket":"1","target-file-size":"256kb"{extra_options}}}}}"#
        );
        self.create(name, &json).await
    }

    pub async fn create(&self, name: &str, json: &str) -> Table {
        let id: Identifier = name.parse().unwrap();
        self.catalog
            .create_table(&id, &Schema::from_json(json).unwrap(), false)
            .await
            .unwrap();
        self.catalog.get_table(&id).await.unwrap()
    }

    pub async fn table(&self, name: &str) -> Table {
        self.catalog
            .get_table(&name.parse().unwrap())
            .await
            .unwrap()
    }

    pub fn table_dir(&self, name: &str) -> PathBuf {
        let (db, t) = name.split_once('.').unwrap();
        self.dir.path().join(format!("{db}.db")).join(t)
    }
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Rows `ids` with a payload that does not compress away (files of tens of KB).
pub fn batch(ids: std::ops::Range<i64>, version: &str) -> RecordBatch {
    let ids: Vec<i64> = ids.collect();
    let vals: Vec<String> = ids
        .iter()
        .map(|i| {
            let h = (*i as u64 ^ 0x5bd1_e995).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            format!("{version}-{h:016x}-{:016x}", h.rotate_left(17))
        })
        .collect();
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("v", ArrowType::Utf8, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids)),
            Arc::new(StringArray::from(vals)),
        ],
    )
    .unwrap()
}

/// Writes `b` as one commit; returns the last snapshot id.
pub async fn write(t: &Table, b: RecordBatch) -> i64 {
    t.write_batches([b], None).await.unwrap().unwrap()
}

/// A full compaction of every bucket, committed; returns the COMPACT snapshot id.
pub async fn full_compact(t: &Table) -> i64 {
    let mut w = t.new_write().unwrap();
    w.compact(&|_, _| true, true).await.unwrap();
    let messages = w.prepare_commit().await.unwrap();
    let c = t
        .new_commit()
        .unwrap()
        .commit_messages(messages, None)
        .await
        .unwrap();
    c.compact
        .expect("the full compaction created a COMPACT snapshot")
}

/// All rows (id → v) of the latest snapshot, or of `snapshot`.
pub async fn rows(t: &Table, snapshot: Option<i64>) -> BTreeMap<i64, String> {
    let mut scan = t.new_scan();
    if let Some(s) = snapshot {
        scan = scan.with_snapshot(s);
    }
    rows_of(t, scan).await
}

pub async fn rows_of(t: &Table, scan: strata::scan::TableScan) -> BTreeMap<i64, String> {
    let plan = scan.plan().await.unwrap();
    let mut out = BTreeMap::new();
    for b in t.new_read().to_batches(plan.splits).await.unwrap() {
        let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let v = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.num_rows() {
            out.insert(id.value(i), v.value(i).to_string());
        }
    }
    out
}

/// Relative paths of every file under `dir`.
pub fn files_on_disk(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(dir).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    out
}

/// Names of the data files (`data-*.parquet`) on disk.
pub fn data_files_on_disk(dir: &Path) -> BTreeSet<String> {
    files_on_disk(dir)
        .into_iter()
        .filter_map(|p| p.rsplit('/').next().map(str::to_string))
        .filter(|n| n.starts_with("data-") && n.ends_with(".parquet"))
        .collect()
}

/// Names in `manifest/`.
pub fn manifest_dir_files(dir: &Path) -> BTreeSet<String> {
    files_on_disk(&dir.join("manifest"))
}

/// Snapshot ids with a file on disk.
pub fn snapshot_ids_on_disk(dir: &Path) -> Vec<i64> {
    let mut ids: Vec<i64> = files_on_disk(&dir.join("snapshot"))
        .iter()
        .filter_map(|n| n.strip_prefix("snapshot-").and_then(|n| n.parse().ok()))
        .collect();
    ids.sort();
    ids
}

/// Live data file names of a snapshot, merged here from its manifests: ADD and DELETE
/// entries applied in order by (partition, bucket, level, name).
pub async fn live_files(t: &Table, s: &Snapshot) -> BTreeSet<String> {
    let store = t.manifest_store();
    let mut live: HashMap<(Vec<u8>, i32, i32, String), ()> = HashMap::new();
    for list in [&s.base_manifest_list, &s.delta_manifest_list] {
        for m in store.read_list(list).await.unwrap() {
            for e in store.read_manifest(&m.file_name).await.unwrap() {
                let key = (
                    e.partition.as_bytes().to_vec(),
                    e.bucket,
                    e.file.level,
                    e.file.file_name.clone(),
                );
                match e.kind {
                    FileKind::Add => {
                        live.insert(key, ());
                    }
                    FileKind::Delete => {
                        live.remove(&key);
                    }
                }
            }
        }
    }
    live.into_keys().map(|k| k.3).collect()
}

/// Metadata file names (manifest lists, manifests, index manifests) a snapshot references.
pub async fn metadata_files(t: &Table, s: &Snapshot) -> BTreeSet<String> {
    let store = t.manifest_store();
    let mut out = BTreeSet::new();
    for list in [&s.base_manifest_list, &s.delta_manifest_list] {
        out.insert(list.clone());
        for m in store.read_list(list).await.unwrap() {
            out.insert(m.file_name);
        }
    }
    if let Some(im) = &s.index_manifest {
        out.insert(im.clone());
    }
    out
}

/// The snapshots on disk and the tagged snapshots.
pub async fn retained(t: &Table) -> Vec<Snapshot> {
    let mut out = t.snapshot_manager().all().await.unwrap();
    out.extend(TagManager::new(t).tagged_snapshots().await.unwrap());
    out
}

/// Expected data files: the union of the live files of every snapshot on disk and every tag.
pub async fn expected_data_files(t: &Table) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in retained(t).await {
        out.extend(live_files(t, &s).await);
    }
    out
}

/// Expected `manifest/` content: what every snapshot on disk and every tag references.
pub async fn expected_manifest_files(t: &Table) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in retained(t).await {
        out.extend(metadata_files(t, &s).await);
    }
    out
}

/// Checks that the files on disk are exactly the ones retained snapshots and tags use.
pub async fn assert_exact_files(t: &Table, dir: &Path) {
    assert_eq!(
        data_files_on_disk(dir),
        expected_data_files(t).await,
        "data files on disk vs files live in a retained snapshot or tag"
    );
    assert_eq!(
        manifest_dir_files(dir),
        expected_manifest_files(t).await,
        "manifest/ vs metadata referenced by retained snapshots and tags"
    );
}

/// Builds the history used by most tests and returns the ids of the interesting files:
///
/// ```text
/// s1 APPEND  ids 0..3000 "a"            → file A at level 0
/// s2 COMPACT full: A upgraded           → A at the max level (DELETE L0 + ADD Lmax, same name)
/// s3 APPEND  ids 2000..2600 "b"         → file B at level 0
/// s4 COMPACT full: A + B rewritten      → C (A and B deleted)
/// s5 APPEND  ids 5000..5100 "c"         → file D at level 0
/// ```
pub struct History {
    pub a: String,
    pub b: String,
    pub times: Vec<i64>,
}

pub async fn build_history(t: &Table) -> History {
    let s1 = write(t, batch(0..3000, "a")).await;
    assert_eq!(s1, 1);
    let after1 = live_files(t, &t.snapshot_manager().snapshot(1).await.unwrap()).await;
    assert_eq!(after1.len(), 1, "one level-0 file after s1: {after1:?}");
    let a = after1.iter().next().unwrap().clone();
    sleep_ms(5).await;
    assert_eq!(full_compact(t).await, 2);
    // Precondition: s2 upgraded A (same name, DELETE at level 0 and ADD at a higher level).
    let s2 = t.snapshot_manager().snapshot(2).await.unwrap();
    let store = t.manifest_store();
    let mut kinds = Vec::new();
    for m in store.read_list(&s2.delta_manifest_list).await.unwrap() {
        for e in store.read_manifest(&m.file_name).await.unwrap() {
            kinds.push((e.kind, e.file.file_name.clone(), e.file.level));
        }
    }
    assert!(
        kinds
            .iter()
            .any(|(k, n, l)| *k == FileKind::Delete && *n == a && *l == 0)
            && kinds
                .iter()
                .any(|(k, n, l)| *k == FileKind::Add && *n == a && *l > 0),
        "s2 must upgrade {a}: {kinds:?}"
    );
    sleep_ms(5).await;
    assert_eq!(write(t, batch(2000..2600, "b")).await, 3);
    let after3 = live_files(t, &t.snapshot_manager().snapshot(3).await.unwrap()).await;
    let b = after3.iter().find(|n| **n != a).unwrap().clone();
    sleep_ms(5).await;
    assert_eq!(full_compact(t).await, 4);
    let after4 = live_files(t, &t.snapshot_manager().snapshot(4).await.unwrap()).await;
    assert!(
        !after4.contains(&a) && !after4.contains(&b),
        "s4 rewrote A and B"
    );
    sleep_ms(5).await;
    assert_eq!(write(t, batch(5000..5100, "c")).await, 5);
    let times = t
        .snapshot_manager()
        .all()
        .await
        .unwrap()
        .iter()
        .map(|s| s.time_millis)
        .collect();
    History { a, b, times }
}

pub async fn sleep_ms(ms: u64) {
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
}
