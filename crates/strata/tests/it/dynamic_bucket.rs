//! Dynamic-bucket primary-key tables (`bucket = -1`) without the PK write path: the assigner's
//! HASH index files travel through real commits, the snapshot's index manifest is checked after
//! appends and overwrites, and a table written by pypaimon 2.1.0 (fixture made by
//! `fixtures/make_pypaimon_dynamic_bucket.py`) routes its keys to the buckets pypaimon chose.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use crate::common::*;
use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::catalog::{FileSystemCatalog, Identifier};
use strata::commit::{attach_index_changes, CommitMessage, OverwriteScope};
use strata::table::Table;
use strata::unstable::index::{
    DynamicBucketAssigner, HashIndexFiles, IndexManifestStore, KeyHasher,
};
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{DataFileMeta, FileKind, IndexManifestEntry};
use strata_spec::stats::SimpleStats;
use strata_spec::{DataType, Datum};

const PK_TABLE: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
 {"name":"dt","type":"STRING NOT NULL"},{"name":"v","type":"INT"}],"partitionKeys":["dt"],
 "primaryKeys":["id","dt"],"options":{"bucket":"-1","dynamic-bucket.target-row-num":"2"}}"#;

fn part(dt: &str) -> BinaryRow {
    BinaryRow::from_datums(&[Some(Datum::String(dt.into()))], &[DataType::string()]).unwrap()
}

fn keys(ids: &[i64], dt: &str) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("dt", ArrowType::Utf8, false),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(vec![dt; ids.len()])),
        ],
    )
    .unwrap()
}

/// Assigns `ids` of partition `dt`; returns their buckets.
async fn assign(t: &Table, a: &mut DynamicBucketAssigner, dt: &str, ids: &[i64]) -> Vec<i32> {
    let hashes = KeyHasher::new(t)
        .unwrap()
        .hash_batch(&keys(ids, dt))
        .unwrap();
    a.assign_batch(&part(dt), &hashes).await.unwrap()
}

/// A manifest entry for a data file that is never read (commit bookkeeping only).
fn fake_file(name: &str) -> DataFileMeta {
    DataFileMeta {
        file_name: name.into(),
        file_size: 1,
        row_count: 1,
        min_key: BinaryRow::empty(),
        max_key: BinaryRow::empty(),
        key_stats: SimpleStats::empty(),
        value_stats: SimpleStats::empty(),
        min_sequence_number: 0,
        max_sequence_number: 0,
        schema_id: 0,
        level: 0,
        extra_files: Vec::new(),
        creation_time: None,
        delete_row_count: Some(0),
        embedded_index: None,
        file_source: None,
        value_stats_cols: None,
        external_path: None,
        first_row_id: None,
        write_cols: None,
    }
}

/// Commits the assigner's index changes, each bucket with one (fake) new data file.
async fn commit(
    t: &Table,
    a: &mut DynamicBucketAssigner,
    overwrite: Option<OverwriteScope>,
) -> i64 {
    let changes = a.prepare_commit().await.unwrap();
    let mut messages: Vec<CommitMessage> = Vec::new();
    attach_index_changes(&mut messages, changes, -1);
    for m in &mut messages {
        m.new_files
            .push(fake_file(&format!("data-{}.parquet", uuid_like())));
    }
    let c = t.new_commit().unwrap();
    let r = match overwrite {
        None => c.commit(messages).await,
        Some(s) => c.overwrite(s, messages).await,
    };
    r.unwrap().unwrap()
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!("f{}", N.fetch_add(1, Ordering::Relaxed))
}

/// The live index entries of snapshot `id` as (partition, bucket) → (file name, hashes).
async fn index_of(
    t: &Table,
    id: i64,
) -> (Option<String>, BTreeMap<(String, i32), (String, Vec<i32>)>) {
    let s = t.snapshot_manager().snapshot(id).await.unwrap();
    let entries = IndexManifestStore::new(t)
        .unwrap()
        .read_snapshot(&s)
        .await
        .unwrap();
    let files = HashIndexFiles::new(t).unwrap();
    let mut out = BTreeMap::new();
    for e in entries {
        assert_eq!(e.kind, FileKind::Add);
        assert_eq!(e.index_file.index_type, "HASH");
        let hashes = files
            .read(&e.partition, e.bucket, &e.index_file)
            .await
            .unwrap();
        assert_eq!(hashes.len() as i64, e.index_file.row_count);
        let key = (t.partition_text(&e.partition).unwrap(), e.bucket);
        assert!(out.insert(key, (e.index_file.file_name, hashes)).is_none());
    }
    (s.index_manifest, out)
}

fn hashes_of(t: &Table, ids: &[i64]) -> Vec<i32> {
    let mut h = KeyHasher::new(t)
        .unwrap()
        .hash_batch(&keys(ids, "x"))
        .unwrap();
    h.sort();
    h
}

fn k(p: &str, b: i32) -> (String, i32) {
    (p.to_string(), b)
}

fn l(p: &str, b: i32, n: usize) -> (String, i32, usize) {
    (p.to_string(), b, n)
}

fn layout(m: &BTreeMap<(String, i32), (String, Vec<i32>)>) -> Vec<(String, i32, usize)> {
    m.iter()
        .map(|((p, b), (_, h))| (p.clone(), *b, h.len()))
        .collect()
}

#[tokio::test]
async fn index_manifest_through_appends_and_overwrites() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", PK_TABLE).await;

    // Commit 1: a gets buckets 0,0,1; b gets 0.
    let mut a = DynamicBucketAssigner::new(&t).await.unwrap();
    assert_eq!(assign(&t, &mut a, "a", &[1, 2, 3]).await, [0, 0, 1]);
    assert_eq!(assign(&t, &mut a, "b", &[1]).await, [0]);
    let s1 = commit(&t, &mut a, None).await;
    let (name1, idx1) = index_of(&t, s1).await;
    let name1 = name1.expect("index manifest written");
    assert!(name1.starts_with("index-manifest-"));
    assert!(wh
        .table_dir("db", "t")
        .join("manifest")
        .join(&name1)
        .is_file());
    assert_eq!(
        layout(&idx1),
        [l("dt=a", 0, 2), l("dt=a", 1, 1), l("dt=b", 0, 1)]
    );
    assert_eq!(idx1[&k("dt=a", 0)].1, hashes_of(&t, &[1, 2]));

    // Commit 2 by a new assigner: old keys keep buckets; a's bucket 1 fills, bucket 2 opens.
    let mut a = DynamicBucketAssigner::new(&t).await.unwrap();
    assert_eq!(assign(&t, &mut a, "a", &[2, 3, 4, 5]).await, [0, 1, 1, 2]);
    let s2 = commit(&t, &mut a, None).await;
    let (name2, idx2) = index_of(&t, s2).await;
    assert_ne!(name2.as_deref(), Some(name1.as_str()));
    assert_eq!(
        layout(&idx2),
        [
            l("dt=a", 0, 2),
            l("dt=a", 1, 2),
            l("dt=a", 2, 1),
            l("dt=b", 0, 1)
        ]
    );
    // Untouched buckets keep their file; the changed one has a new file with old+new hashes.
    assert_eq!(idx2[&k("dt=a", 0)].0, idx1[&k("dt=a", 0)].0);
    assert_eq!(idx2[&k("dt=b", 0)].0, idx1[&k("dt=b", 0)].0);
    assert_ne!(idx2[&k("dt=a", 1)].0, idx1[&k("dt=a", 1)].0);
    assert_eq!(idx2[&k("dt=a", 1)].1, hashes_of(&t, &[3, 4]));

    // A commit without index changes reuses the previous index manifest name.
    let c = t.new_commit().unwrap();
    let s3 = c
        .commit(vec![CommitMessage {
            partition: part("b"),
            bucket: 0,
            total_buckets: -1,
            new_files: vec![fake_file("data-plain.parquet")],
            deleted_files: Vec::new(),
            compact_before: Vec::new(),
            compact_after: Vec::new(),
            new_changelog: Vec::new(),
            compact_changelog: Vec::new(),
            compact_index_changes: Vec::new(),
            index_changes: Vec::new(),
            index_base: None,
            compact_base: None,
        }])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(index_of(&t, s3).await.0, name2);

    // Dynamic overwrite of partition a: its index files go, new ones come, b stays.
    let mut o = DynamicBucketAssigner::for_overwrite(&t).await.unwrap();
    assert_eq!(assign(&t, &mut o, "a", &[9, 8, 7]).await, [0, 0, 1]);
    let s4 = commit(&t, &mut o, Some(OverwriteScope::Dynamic)).await;
    let (_, idx4) = index_of(&t, s4).await;
    assert_eq!(
        layout(&idx4),
        [l("dt=a", 0, 2), l("dt=a", 1, 1), l("dt=b", 0, 1)]
    );
    assert_eq!(idx4[&k("dt=a", 0)].1, hashes_of(&t, &[8, 9]));
    assert_eq!(idx4[&k("dt=b", 0)].0, idx1[&k("dt=b", 0)].0);
    // The old keys of a are gone: a new assigner places key 1 as a new key.
    let mut a = DynamicBucketAssigner::new(&t).await.unwrap();
    assert_eq!(assign(&t, &mut a, "a", &[8, 1]).await, [0, 1]);

    // Static overwrite of b with nothing new: b's index entry is dropped too.
    let c = t.new_commit().unwrap();
    let spec = vec![("dt".to_string(), Some(Datum::String("b".into())))];
    let s5 = c
        .overwrite(OverwriteScope::Static(spec), Vec::new())
        .await
        .unwrap()
        .unwrap();
    let (_, idx5) = index_of(&t, s5).await;
    assert_eq!(layout(&idx5), [l("dt=a", 0, 2), l("dt=a", 1, 1)]);

    // Whole-table overwrite with no new rows leaves an empty index manifest.
    let s6 = t
        .new_commit()
        .unwrap()
        .overwrite(OverwriteScope::WholeTable, Vec::new())
        .await
        .unwrap()
        .unwrap();
    let (name6, idx6) = index_of(&t, s6).await;
    assert!(name6.is_some());
    assert!(idx6.is_empty());
}

#[tokio::test]
async fn concurrent_commits_keep_no_orphan_index_manifests() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", PK_TABLE).await;
    let mut tasks = Vec::new();
    for i in 0..4i64 {
        let t = t.clone();
        tasks.push(tokio::spawn(async move {
            let mut a = DynamicBucketAssigner::for_overwrite(&t).await.unwrap();
            let dt = format!("p{i}");
            assign(&t, &mut a, &dt, &[i]).await;
            commit(&t, &mut a, None).await
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let latest = t.snapshot_manager().latest().await.unwrap().unwrap();
    let (_, idx) = index_of(&t, latest.id).await;
    assert_eq!(
        idx.len(),
        4,
        "every committer's index entry survives the retries"
    );
    // Every index manifest on disk belongs to some snapshot (failed attempts cleaned up).
    let mut referenced = Vec::new();
    for s in t.snapshot_manager().all().await.unwrap() {
        referenced.extend(s.index_manifest);
    }
    for f in std::fs::read_dir(wh.table_dir("db", "t").join("manifest")).unwrap() {
        let name = f.unwrap().file_name().into_string().unwrap();
        if name.starts_with("index-manifest-") {
            assert!(referenced.contains(&name), "orphan {name}");
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

#[tokio::test]
async fn pypaimon_dynamic_bucket_table_routes_keys_to_their_buckets() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pypaimon_dynamic_bucket");
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture, dir.path());
    let catalog = FileSystemCatalog::open(dir.path().to_str().unwrap()).unwrap();
    let id: Identifier = "db.t".parse().unwrap();
    let t = catalog.get_table(&id).await.unwrap();

    #[derive(serde::Deserialize)]
    struct Row {
        dt: String,
        id: i64,
        bucket: i32,
    }
    let rows: Vec<Row> =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("buckets.json")).unwrap())
            .unwrap();
    let mut a = DynamicBucketAssigner::new(&t).await.unwrap();
    let mut max_bucket: BTreeMap<String, i32> = BTreeMap::new();
    let mut count: BTreeMap<(String, i32), i64> = BTreeMap::new();
    for r in &rows {
        let got = assign(&t, &mut a, &r.dt, &[r.id]).await;
        assert_eq!(got, [r.bucket], "key {} of dt={}", r.id, r.dt);
        let m = max_bucket.entry(r.dt.clone()).or_insert(0);
        *m = (*m).max(r.bucket);
        *count.entry((r.dt.clone(), r.bucket)).or_default() += 1;
    }
    // Nothing new was assigned, so there is nothing to write.
    assert!(a.prepare_commit().await.unwrap().is_empty());

    // New keys fill the last non-full bucket (target-row-num = 4), then open the next one.
    let target = t.options().dynamic_bucket_target_row_num().unwrap();
    assert_eq!(target, 4);
    let last = max_bucket["a"];
    let free = (target - count[&("a".to_string(), last)]) as usize;
    let new_ids: Vec<i64> = (1000..1000 + free as i64 + 1).collect();
    let got = assign(&t, &mut a, "a", &new_ids).await;
    let mut expected = vec![last; free];
    expected.push(last + 1);
    assert_eq!(got, expected);

    // strata's index changes commit cleanly on top of pypaimon's index manifest.
    let changes: Vec<IndexManifestEntry> = a.prepare_commit().await.unwrap();
    let mut messages = Vec::new();
    attach_index_changes(&mut messages, changes, -1);
    let s = t
        .new_commit()
        .unwrap()
        .commit(messages)
        .await
        .unwrap()
        .unwrap();
    let (_, idx) = index_of(&t, s).await;
    let hashes = KeyHasher::new(&t)
        .unwrap()
        .hash_batch(&keys(&new_ids, "a"))
        .unwrap();
    let last_file = &idx[&k("dt=a", last)].1;
    assert_eq!(last_file.len() as i64, target);
    assert!(hashes[..free].iter().all(|h| last_file.contains(h)));
    assert_eq!(idx[&k("dt=a", last + 1)].1, vec![hashes[free]]);
    let b_buckets = idx.keys().filter(|(p, _)| p == "dt=b").count();
    assert_eq!(
        b_buckets as i32,
        max_bucket["b"] + 1,
        "partition b untouched"
    );
    // For a manual check that pypaimon honours strata's index: keep the table.
    if let Ok(out) = std::env::var("STRATA_DYNAMIC_BUCKET_OUT") {
        copy_dir(dir.path(), Path::new(&out));
    }
}

fn rows(ids: &[i64], dt: &str, v: i32) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("dt", ArrowType::Utf8, false),
        Field::new("v", ArrowType::Int32, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(vec![dt; ids.len()])),
            Arc::new(arrow_array::Int32Array::from(vec![v; ids.len()])),
        ],
    )
    .unwrap()
}

/// Every live HASH entry of the latest snapshot: partition text → hash → buckets holding it.
async fn live_index(t: &Table) -> BTreeMap<String, BTreeMap<i32, Vec<i32>>> {
    let latest = t.snapshot_manager().latest().await.unwrap().unwrap();
    let (_, idx) = index_of(t, latest.id).await;
    let mut out: BTreeMap<String, BTreeMap<i32, Vec<i32>>> = BTreeMap::new();
    for ((p, bucket), (_, hashes)) in idx {
        for h in hashes {
            out.entry(p.clone())
                .or_default()
                .entry(h)
                .or_default()
                .push(bucket);
        }
    }
    out
}

/// Writers that all loaded the same index commit one after the other (the interleaving that
/// lost the earlier writers' index entries, so the next round's updates of their keys went to
/// new buckets and every reader saw those keys twice). Each commit is rebased onto the latest
/// index: after every round each key is read exactly once with its newest value and the index
/// holds every key in exactly one bucket.
#[tokio::test]
async fn concurrent_writers_of_one_partition_keep_every_index_entry() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.t",
            &PK_TABLE.replace(
                r#""dynamic-bucket.target-row-num":"2""#,
                r#""dynamic-bucket.target-row-num":"40""#,
            ),
        )
        .await;
    let ids_of = |w: i64| -> Vec<i64> { (0..100).map(|i| w * 1000 + i).collect() };
    for round in 0..3 {
        let mut prepared = Vec::new();
        for w in 0..4i64 {
            let mut write = t.new_write().unwrap();
            for dt in ["a", "b"] {
                write.write(&rows(&ids_of(w), dt, round)).await.unwrap();
            }
            prepared.push(write.prepare_commit().await.unwrap());
        }
        for messages in prepared {
            t.new_commit().unwrap().commit(messages).await.unwrap();
        }
        let mut want: Vec<i64> = (0..4).flat_map(ids_of).flat_map(|i| [i, i]).collect();
        want.sort();
        assert_eq!(read_ids(&t, None, None).await, want, "round {round}");
        let values = {
            let plan = t.new_scan().plan().await.unwrap();
            let read = t.new_read().with_projection(vec!["v".into()]);
            let mut vs = Vec::new();
            for b in read.to_batches(plan.splits).await.unwrap() {
                let c = b
                    .column(0)
                    .as_any()
                    .downcast_ref::<arrow_array::Int32Array>()
                    .unwrap();
                vs.extend(c.iter().map(|v| v.unwrap()));
            }
            vs
        };
        assert!(
            values.iter().all(|v| *v == round),
            "round {round}: {values:?}"
        );
        let index = live_index(&t).await;
        for dt in ["a", "b"] {
            let hashes: Vec<i32> = (0..4).flat_map(|w| hashes_of(&t, &ids_of(w))).collect();
            let held = &index[&format!("dt={dt}")];
            for h in &hashes {
                let buckets = held.get(h).unwrap_or_else(|| {
                    panic!("round {round}: hash {h} of partition {dt} is missing from the index")
                });
                assert_eq!(buckets.len(), 1, "hash {h} in buckets {buckets:?}");
            }
            assert_eq!(held.len(), hashes.len(), "round {round}, partition {dt}");
        }
    }
    // The files a rebase replaced were deleted: every HASH file on disk belongs to a snapshot.
    let mut referenced = Vec::new();
    for snap in t.snapshot_manager().all().await.unwrap() {
        let (_, idx) = index_of(&t, snap.id).await;
        referenced.extend(idx.into_values().map(|(name, _)| name));
    }
    for f in std::fs::read_dir(wh.table_dir("db", "t").join("index")).unwrap() {
        let name = f.unwrap().file_name().into_string().unwrap();
        assert!(
            referenced.contains(&name),
            "HASH file {name} belongs to no snapshot"
        );
    }
}

/// Two writers put the same new key in different buckets: the second commit cannot keep both
/// (the key would be read twice) and is refused, naming the key hash and the buckets; nothing
/// of it lands. Written again, the key goes to the bucket the index holds.
#[tokio::test]
async fn concurrent_writers_assigning_one_key_to_two_buckets_conflict() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", PK_TABLE).await;
    let mut a1 = DynamicBucketAssigner::new(&t).await.unwrap();
    let mut a2 = DynamicBucketAssigner::new(&t).await.unwrap();
    // target-row-num = 2: a1 puts 1, 2 in bucket 0 and 3 in bucket 1; a2 puts 3 in bucket 0.
    assert_eq!(assign(&t, &mut a1, "a", &[1, 2, 3]).await, vec![0, 0, 1]);
    assert_eq!(assign(&t, &mut a2, "a", &[3, 4]).await, vec![0, 0]);
    let s1 = commit(&t, &mut a1, None).await;
    let changes = a2.prepare_commit().await.unwrap();
    let mut messages: Vec<CommitMessage> = Vec::new();
    attach_index_changes(&mut messages, changes, -1);
    for m in &mut messages {
        m.index_base = a2.base_snapshot();
        m.new_files
            .push(fake_file(&format!("data-{}.parquet", uuid_like())));
    }
    let err = t.new_commit().unwrap().commit(messages).await.unwrap_err();
    let text = err.to_string();
    let h3 = hashes_of(&t, &[3])[0];
    assert!(
        err.kind() == strata::ErrorKind::Conflict && !err.may_have_committed(),
        "{text}"
    );
    assert!(text.contains(&format!("key hash {h3}")), "{text}");
    assert!(text.contains("partition dt=a"), "{text}");
    assert!(
        text.contains("bucket 1") && text.contains("bucket 0"),
        "{text}"
    );
    assert_eq!(t.snapshot_manager().latest_id().await.unwrap(), Some(s1));
    a2.abort().await;
    // Retried from the latest index, key 3 goes where the index holds it.
    let mut a3 = DynamicBucketAssigner::new(&t).await.unwrap();
    assert_eq!(assign(&t, &mut a3, "a", &[3, 4]).await, vec![1, 1]);
}

/// `bucket` = BUCKET, primary key `id`, partition key `dt`: a cross-partition update table.
const CROSS_PARTITION: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
 {"name":"dt","type":"STRING NOT NULL"}],"partitionKeys":["dt"],"primaryKeys":["id"],
 "options":{"bucket":"BUCKET"}}"#;

/// With `bucket = -1` a primary key without every partition key is Paimon's cross-partition
/// upsert (Java's KEY_DYNAMIC bucket mode, tested in `cross_partition`). With a fixed bucket
/// count Java 1.4 / 2.0 accept the same schema (HASH_FIXED, a key unique within a partition
/// only) and so does strata.
#[tokio::test]
async fn cross_partition_key_with_fixed_buckets_is_unique_per_partition() {
    let wh = Warehouse::new();
    let f = wh
        .create("db.f", &CROSS_PARTITION.replace("BUCKET", "2"))
        .await;
    f.write_batches([keys(&[1, 2], "a")], None).await.unwrap();
    f.write_batches([keys(&[1], "b")], None).await.unwrap();
    // As in Java: id 1 is in partition a and in partition b.
    assert_eq!(read_ids(&f, None, None).await, [1, 1, 2]);
}
