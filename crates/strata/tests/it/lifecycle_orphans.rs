//! Orphan file cleanup on a real table: files of a failed write and of a failed commit, and
//! staging/temporary leftovers, are deleted once old enough; referenced files (of snapshots,
//! tags, expired-but-tagged snapshots), schema files and hints never are; `dry_run` deletes
//! nothing.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::lifecycle_support::*;
use strata::maintenance::{ExpireConfig, ExpireSnapshots, OrphanFilesClean, TableLifecycle};
use strata::unstable::meta::FileNamer;
use strata_spec::manifest::{FileKind, ManifestEntry};

fn age(path: &Path, by: Duration) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - by).unwrap();
}

fn touch(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, b"leftover").unwrap();
}

#[tokio::test]
async fn orphan_files_of_failed_writes_and_commits_are_removed_referenced_ones_never() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    let dir = lake.table_dir("db.t");
    build_history(&t).await;
    t.create_tag("t2", Some(2), None).await.unwrap();
    ExpireSnapshots::new(&t)
        .unwrap()
        .with_config(ExpireConfig {
            retain_max: i32::MAX,
            retain_min: 2,
            time_retained: Duration::ZERO,
            max_deletes: 100,
        })
        .expire()
        .await
        .unwrap();
    let latest_rows = rows(&t, None).await;
    let referenced = files_on_disk(&dir);

    // A failed write: data files written, never committed.
    let mut w = t.new_write().unwrap();
    w.write(&batch(100_000..100_500, "lost")).await.unwrap();
    let messages = w.prepare_commit().await.unwrap();
    drop(w);
    let lost_data: Vec<String> = messages
        .iter()
        .flat_map(|m| m.new_files.iter().map(|f| f.file_name.clone()))
        .collect();
    assert!(!lost_data.is_empty());
    // A failed commit: its manifest and manifest list were written, the snapshot was not.
    let entries: Vec<ManifestEntry> = messages
        .iter()
        .flat_map(|m| {
            m.new_files.iter().map(|f| ManifestEntry {
                kind: FileKind::Add,
                partition: m.partition.clone(),
                bucket: m.bucket,
                total_buckets: m.total_buckets,
                file: f.clone(),
            })
        })
        .collect();
    let namer = FileNamer::new();
    let store = t.manifest_store();
    let meta = store
        .write_manifest(&namer, &entries, &t.schema().partition_type(), 0)
        .await
        .unwrap();
    let (list, _) = store
        .write_list(&namer, std::slice::from_ref(&meta))
        .await
        .unwrap();
    // Staging and temporary files of interrupted writes.
    let staging = [
        "snapshot/snapshot-6#1",
        "snapshot/.snapshot-6.0b1c.tmp",
        "schema/schema-1#1",
        "bucket-0/data-0000-0.parquet#1",
        "manifest/manifest-list-feed-1#2",
        "tag/tag-t9#1",
        "index/index-dead-0",
    ];
    for s in staging {
        touch(&dir.join(s));
    }
    let mut orphans: BTreeSet<String> = staging.iter().map(|s| s.to_string()).collect();
    for n in &lost_data {
        orphans.insert(format!("bucket-0/{n}"));
    }
    orphans.insert(format!("manifest/{}", meta.file_name));
    orphans.insert(format!("manifest/{list}"));
    // Everything is two days old, except one fresh orphan (a commit in progress may own it).
    for f in files_on_disk(&dir) {
        age(&dir.join(&f), Duration::from_secs(2 * 86_400));
    }
    touch(&dir.join("bucket-0/data-fresh-0.parquet"));
    let before = files_on_disk(&dir);
    assert_eq!(before.len(), referenced.len() + orphans.len() + 1);

    let shown = |r: &strata::maintenance::OrphanReport| -> BTreeSet<String> {
        let prefix = format!("{}/", dir.display());
        r.files
            .iter()
            .map(|f| f.path.strip_prefix(&prefix).unwrap_or(&f.path).to_string())
            .collect()
    };
    // Dry run: the report lists exactly the old orphans; nothing is deleted.
    let dry = t
        .remove_orphan_files(OrphanFilesClean::default_older_than_millis(&t), true)
        .await
        .unwrap();
    assert_eq!(shown(&dry), orphans);
    assert_eq!(files_on_disk(&dir), before);
    assert!(dry.bytes() > 0);

    let done = OrphanFilesClean::new(&t, OrphanFilesClean::default_older_than_millis(&t))
        .clean()
        .await
        .unwrap();
    assert_eq!(shown(&done), orphans);
    let mut expected = referenced.clone();
    expected.insert("bucket-0/data-fresh-0.parquet".into());
    assert_eq!(files_on_disk(&dir), expected, "only the old orphans went");
    assert!(dir.join("schema/schema-0").exists());
    assert!(dir.join("snapshot/LATEST").exists() && dir.join("snapshot/EARLIEST").exists());
    assert_eq!(rows(&t, None).await, latest_rows);
    let (tt, scan) = t
        .travel_to(&strata::maintenance::TravelTarget::Tag("t2".into()))
        .await
        .unwrap();
    assert!(!rows_of(&tt, scan).await.is_empty());

    // With a threshold in the future the fresh orphan goes too, and what is left is exactly
    // what the snapshots and the tag reference.
    let now_plus = chrono::Utc::now().timestamp_millis() + 60_000;
    let r = t.remove_orphan_files(now_plus, false).await.unwrap();
    assert_eq!(
        shown(&r),
        BTreeSet::from(["bucket-0/data-fresh-0.parquet".to_string()])
    );
    assert_eq!(files_on_disk(&dir), referenced);
    assert_exact_files(&t, &dir).await;
    // A second run finds nothing.
    assert_eq!(
        t.remove_orphan_files(now_plus, false)
            .await
            .unwrap()
            .count(),
        0
    );
}

#[tokio::test]
async fn orphans_of_a_partitioned_table_and_empty_directories() {
    let lake = Lake::new();
    let t = lake
        .create(
            "db.p",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"dt","type":"STRING"}],
            "partitionKeys":["dt"],"options":{"bucket":"-1"}}"#,
        )
        .await;
    let dir = lake.table_dir("db.p");
    let schema = std::sync::Arc::new(arrow_schema::Schema::new(vec![
        arrow_schema::Field::new("id", arrow_schema::DataType::Int64, false),
        arrow_schema::Field::new("dt", arrow_schema::DataType::Utf8, true),
    ]));
    let b = arrow_array::RecordBatch::try_new(
        schema,
        vec![
            std::sync::Arc::new(arrow_array::Int64Array::from(vec![1, 2])),
            std::sync::Arc::new(arrow_array::StringArray::from(vec!["a", "b"])),
        ],
    )
    .unwrap();
    t.write_batches([b], None).await.unwrap();
    let referenced = files_on_disk(&dir);
    touch(&dir.join("dt=a/bucket-0/data-orphan-0.parquet"));
    touch(&dir.join("dt=zz/bucket-0/data-orphan-1.parquet"));
    let r = t
        .remove_orphan_files(chrono::Utc::now().timestamp_millis() + 60_000, false)
        .await
        .unwrap();
    assert_eq!(r.count(), 2);
    assert_eq!(files_on_disk(&dir), referenced);
    assert!(
        !dir.join("dt=zz").exists(),
        "emptied partition directory removed"
    );
    assert!(dir.join("dt=a/bucket-0").exists());
}

#[tokio::test]
async fn orphans_on_an_object_store_without_directories() {
    let catalog = strata::catalog::FileSystemCatalog::open("memory://wh").unwrap();
    let id: strata::catalog::Identifier = "db.m".parse().unwrap();
    let schema = strata_spec::schema::Schema::from_json(
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"}],
            "primaryKeys":["id"],"options":{"bucket":"2"}}"#,
    )
    .unwrap();
    catalog.create_table(&id, &schema, false).await.unwrap();
    let t = catalog.get_table(&id).await.unwrap();
    write(&t, batch(0..100, "m")).await;
    write(&t, batch(50..150, "n")).await;
    let io = t.file_io();
    let root = t.paths().root().clone();
    let all = |io: strata::io::FileIO, root: object_store::path::Path| async move {
        let mut v: Vec<String> = io
            .list(&root)
            .await
            .unwrap()
            .into_iter()
            .map(|m| m.location.to_string())
            .collect();
        v.sort();
        v
    };
    let referenced = all(io.clone(), root.clone()).await;
    let orphan = root.clone().join("bucket-1").join("data-orphan-0.parquet");
    io.put(&orphan, bytes::Bytes::from_static(b"orphan"))
        .await
        .unwrap();
    let stray = root.clone().join("manifest").join("manifest-stray-0");
    io.put(&stray, bytes::Bytes::from_static(b"stray"))
        .await
        .unwrap();
    let before_rows = rows(&t, None).await;
    let future = chrono::Utc::now().timestamp_millis() + 60_000;
    let dry = t.remove_orphan_files(future, true).await.unwrap();
    assert_eq!(dry.count(), 2);
    assert_eq!(dry.bytes(), 11);
    let r = t.remove_orphan_files(future, false).await.unwrap();
    assert_eq!(r.count(), 2);
    assert_eq!(all(io.clone(), root.clone()).await, referenced);
    assert_eq!(rows(&t, None).await, before_rows);
}
