//! Manifest merging at commit time (issue 7), end to end on local warehouses: how many
//! manifests each snapshot lists (Java's rules predicted exactly), base lists equal to Java's
//! merge of the previous snapshot's manifests, full compaction past its threshold, files
//! upgraded by compaction, concurrent committers, and rows identical with merging on and off.
//!
//! The rules are re-stated here independently of `strata::commit::manifest_merge` (the
//! `java_*` functions), so a change to the implementation cannot silently change the
//! expectations.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;
use std::sync::Arc;

use crate::common::*;
use arrow_array::{Array, Int32Array, Int64Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::commit::OverwriteScope;
use strata::table::Table;
use strata_spec::manifest::{merge_entries, FileKind, ManifestEntry, ManifestFileMeta};

fn batch(rows: &[(i64, i32, i32)]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("p", ArrowType::Int32, false),
        Field::new("v", ArrowType::Int32, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(
                rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            )),
            Arc::new(Int32Array::from(
                rows.iter().map(|r| r.1).collect::<Vec<_>>(),
            )),
            Arc::new(Int32Array::from(
                rows.iter().map(|r| Some(r.2)).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap()
}

/// An append table `(id, p, v)` partitioned by `p`, unaware bucket, with extra options.
fn append_schema(options: &[(&str, &str)]) -> String {
    let opts: String = options
        .iter()
        .map(|(k, v)| format!(r#","{k}":"{v}""#))
        .collect();
    format!(
        r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"p","type":"INT NOT NULL"}},
        {{"name":"v","type":"INT"}}],"partitionKeys":["p"],"options":{{"bucket":"-1"{opts}}}}}"#
    )
}

/// A primary-key table `(id, p, v)`, key `(p, id)`, partitioned by `p`.
fn pk_schema(options: &[(&str, &str)]) -> String {
    let opts: String = options
        .iter()
        .map(|(k, v)| format!(r#","{k}":"{v}""#))
        .collect();
    format!(
        r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"p","type":"INT NOT NULL"}},
        {{"name":"v","type":"INT"}}],"partitionKeys":["p"],"primaryKeys":["p","id"],
        "options":{{"bucket":"2"{opts}}}}}"#
    )
}

/// Options that never merge: sizes never reach the target, too few manifests, no full
/// compaction.
const NO_MERGE: [(&str, &str); 3] = [
    ("manifest.merge-min-count", "1000000"),
    ("manifest.target-file-size", "1gb"),
    ("manifest.full-compaction-threshold-size", "1tb"),
];

async fn snapshot_lists(t: &Table, id: i64) -> (Vec<ManifestFileMeta>, Vec<ManifestFileMeta>) {
    let s = t.snapshot_manager().snapshot(id).await.unwrap();
    let store = t.manifest_store();
    (
        store.read_list(&s.base_manifest_list).await.unwrap(),
        store.read_list(&s.delta_manifest_list).await.unwrap(),
    )
}

async fn data_manifests(t: &Table, id: i64) -> Vec<ManifestFileMeta> {
    let (mut base, delta) = snapshot_lists(t, id).await;
    base.extend(delta);
    base
}

async fn entries_of(t: &Table, metas: &[ManifestFileMeta]) -> Vec<ManifestEntry> {
    t.manifest_store()
        .read_manifests(metas)
        .await
        .unwrap()
        .into_iter()
        .flatten()
        .collect()
}

type Identity = (Vec<u8>, i32, i32, String);

fn identity(e: &ManifestEntry) -> Identity {
    (
        e.partition.as_bytes().to_vec(),
        e.bucket,
        e.file.level,
        e.file.file_name.clone(),
    )
}

/// Live (partition, bucket, level, name) of a snapshot, from its manifests.
async fn live_files(t: &Table, id: i64) -> BTreeSet<Identity> {
    let entries = entries_of(t, &data_manifests(t, id).await).await;
    merge_entries(entries)
        .unwrap()
        .adds
        .iter()
        .map(identity)
        .collect()
}

async fn rows(t: &Table, snapshot: Option<i64>) -> Vec<(i64, i32, i32)> {
    let mut scan = t.new_scan();
    if let Some(s) = snapshot {
        scan = scan.with_snapshot(s);
    }
    let plan = scan.plan().await.unwrap();
    let mut out = Vec::new();
    for b in t.new_read().to_batches(plan.splits).await.unwrap() {
        let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let p = b.column(1).as_any().downcast_ref::<Int32Array>().unwrap();
        let v = b.column(2).as_any().downcast_ref::<Int32Array>().unwrap();
        for i in 0..b.num_rows() {
            out.push((id.value(i), p.value(i), v.value(i)));
        }
    }
    out.sort();
    out
}

// ---- Java's rules, re-stated -----------------------------------------------------------------

/// `tryMinorCompaction`: groups of consecutive manifests, `true` = merged.
fn java_minor(sizes: &[i64], target: i64, min_count: usize) -> Vec<(Range<usize>, bool)> {
    let mut out = Vec::new();
    let (mut start, mut total) = (0, 0i64);
    for (i, s) in sizes.iter().enumerate() {
        total += s;
        if total >= target {
            out.push((start..i + 1, i > start));
            start = i + 1;
            total = 0;
        }
    }
    if start < sizes.len() {
        let n = sizes.len() - start;
        out.push((start..sizes.len(), n >= min_count && n > 1));
    }
    out
}

/// `FileEntry.mergeEntries` into a LinkedHashMap: the map's values in order.
fn java_merge_entries(entries: Vec<ManifestEntry>) -> Vec<ManifestEntry> {
    let mut order: Vec<Option<ManifestEntry>> = Vec::new();
    let mut at: HashMap<Identity, usize> = HashMap::new();
    for e in entries {
        let id = identity(&e);
        match e.kind {
            FileKind::Add => {
                assert!(!at.contains_key(&id), "added twice: {id:?}");
                at.insert(id, order.len());
                order.push(Some(e));
            }
            FileKind::Delete => match at.remove(&id) {
                Some(i) => order[i] = None,
                None => {
                    at.insert(id, order.len());
                    order.push(Some(e));
                }
            },
        }
    }
    order.into_iter().flatten().collect()
}

fn kinds_and_ids(entries: &[ManifestEntry]) -> Vec<(FileKind, Identity)> {
    entries.iter().map(|e| (e.kind, identity(e))).collect()
}

/// No manifest written by a merge holds an ADD and a DELETE of the same file identity.
async fn assert_no_add_delete_pairs(t: &Table, metas: &[ManifestFileMeta]) {
    for m in metas {
        let entries = entries_of(t, std::slice::from_ref(m)).await;
        let adds: BTreeSet<Identity> = entries
            .iter()
            .filter(|e| e.kind == FileKind::Add)
            .map(identity)
            .collect();
        for d in entries.iter().filter(|e| e.kind == FileKind::Delete) {
            assert!(
                !adds.contains(&identity(d)),
                "{} holds ADD and DELETE of {:?}",
                m.file_name,
                identity(d)
            );
        }
    }
}

// ---- manifest counts --------------------------------------------------------------------------

/// Manifests (base + delta) of each snapshot of append-only commits when sizes never reach the
/// target and no full compaction triggers: the previous manifests are merged into one file once
/// they count `min_count` (and at least two); then the delta is added.
fn predicted_counts(commits: usize, min_count: usize) -> Vec<usize> {
    let mut prev = 0usize;
    (0..commits)
        .map(|_| {
            let base = if prev >= min_count.max(2) { 1 } else { prev };
            prev = base + 1;
            prev
        })
        .collect()
}

async fn counts_of(t: &Table) -> Vec<usize> {
    let mut out = Vec::new();
    for s in t.snapshot_manager().all().await.unwrap() {
        out.push(data_manifests(t, s.id).await.len());
    }
    out
}

#[tokio::test]
async fn manifest_counts_stay_bounded_as_java_predicts() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.small",
            &append_schema(&[
                ("manifest.merge-min-count", "3"),
                ("manifest.target-file-size", "1gb"),
                ("manifest.full-compaction-threshold-size", "1gb"),
            ]),
        )
        .await;
    let n = 40;
    for i in 0..n {
        t.write_batches([batch(&[(i as i64, (i % 4) as i32, 1)])], None)
            .await
            .unwrap();
    }
    let counts = counts_of(&t).await;
    assert_eq!(counts, predicted_counts(n, 3));
    assert_eq!(&counts[..6], [1, 2, 3, 2, 3, 2]);
    assert!(counts.iter().all(|&c| c <= 3), "bounded by merge-min-count");
    let ids: Vec<i64> = rows(&t, None).await.iter().map(|r| r.0).collect();
    assert_eq!(ids, (0..n as i64).collect::<Vec<_>>());

    // Java's defaults (merge-min-count 30, 8 MiB target, 16 MiB threshold): 30 manifests are
    // merged into one at the 31st commit.
    let d = wh.create("db.defaults", &append_schema(&[])).await;
    for i in 0..33 {
        d.write_batches([batch(&[(i, 0, 1)])], None).await.unwrap();
    }
    let counts = counts_of(&d).await;
    assert_eq!(counts, predicted_counts(33, 30));
    assert_eq!(&counts[28..], [29, 30, 2, 3, 4]);
    let (base, _) = snapshot_lists(&d, 31).await;
    assert_eq!(base.len(), 1);
    assert_eq!(
        (base[0].num_added_files, base[0].num_deleted_files),
        (30, 0)
    );
}

// ---- every base list is Java's merge of the previous snapshot -----------------------------------

/// Checks that `base` is exactly what Java's minor compaction makes of `input` (new files for
/// merged groups hold `java_merge_entries` of the group; kept manifests are the same files).
async fn assert_minor_merge(t: &Table, input: &[ManifestFileMeta], base: &[ManifestFileMeta]) {
    let sizes: Vec<i64> = input.iter().map(|m| m.file_size).collect();
    let o = t.options();
    let target = o.manifest_target_file_size().unwrap() as i64;
    let min_count = o.manifest_merge_min_count().unwrap() as usize;
    let input_names: BTreeSet<&str> = input.iter().map(|m| m.file_name.as_str()).collect();
    let mut at = 0;
    for (range, merged) in java_minor(&sizes, target, min_count) {
        if !merged {
            for m in &input[range] {
                assert_eq!(&base[at], m, "kept manifest");
                at += 1;
            }
            continue;
        }
        let want = java_merge_entries(entries_of(t, &input[range]).await);
        if want.is_empty() {
            continue;
        }
        // Fewer than 1000 entries: one new file.
        assert!(want.len() < 1000);
        let new = &base[at];
        at += 1;
        assert!(!input_names.contains(new.file_name.as_str()), "a new file");
        let got = entries_of(t, std::slice::from_ref(new)).await;
        assert_eq!(kinds_and_ids(&got), kinds_and_ids(&want));
    }
    assert_eq!(at, base.len(), "nothing else in the base list");
}

#[tokio::test]
async fn each_base_list_is_javas_minor_merge_of_the_previous_manifests() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.t",
            &append_schema(&[
                ("manifest.merge-min-count", "4"),
                ("manifest.target-file-size", "8kb"),
                ("manifest.full-compaction-threshold-size", "1gb"),
            ]),
        )
        .await;
    let mut model: BTreeMap<i64, (i32, i32)> = BTreeMap::new();
    for i in 0..36i64 {
        let p = (i % 3) as i32;
        let rows: Vec<(i64, i32, i32)> = (0..1 + i % 4).map(|k| (i * 10 + k, p, 1)).collect();
        if i % 7 == 6 {
            // Replaces partition p: DELETE entries of its files.
            t.write_batches([batch(&rows)], Some(OverwriteScope::Dynamic))
                .await
                .unwrap();
            model.retain(|_, v| v.0 != p);
        } else {
            t.write_batches([batch(&rows)], None).await.unwrap();
        }
        model.extend(rows.iter().map(|r| (r.0, (r.1, r.2))));
    }
    let snapshots = t.snapshot_manager().all().await.unwrap();
    let mut merged_any = false;
    for pair in snapshots.windows(2) {
        let input = data_manifests(&t, pair[0].id).await;
        let (base, _) = snapshot_lists(&t, pair[1].id).await;
        merged_any |= base != input;
        assert_minor_merge(&t, &input, &base).await;
        assert!(!live_files(&t, pair[1].id).await.is_empty(), "readable");
        assert_no_add_delete_pairs(&t, &base).await;
    }
    assert!(merged_any, "the history did merge");
    let want: Vec<(i64, i32, i32)> = model.iter().map(|(k, v)| (*k, v.0, v.1)).collect();
    assert_eq!(rows(&t, None).await, want);
}

// ---- full compaction ------------------------------------------------------------------------------

/// Sum of the sizes of the manifests a full compaction must change.
fn must_change_size(metas: &[ManifestFileMeta], target: i64) -> i64 {
    metas
        .iter()
        .filter(|m| m.num_deleted_files > 0 || m.file_size < target)
        .map(|m| m.file_size)
        .sum()
}

#[tokio::test]
async fn full_compaction_triggers_past_the_threshold_and_keeps_untouched_big_manifests() {
    let wh = Warehouse::new();
    let target = 8 * 1024;
    let t = wh
        .create(
            "db.full",
            &append_schema(&[
                ("manifest.merge-min-count", "1000000"),
                ("manifest.target-file-size", "8kb"),
                ("manifest.full-compaction-threshold-size", "1gb"),
            ]),
        )
        .await;
    // One commit over partitions 100..399: a manifest over the target size.
    let wide: Vec<(i64, i32, i32)> = (100..400).map(|p| (p as i64, p, 0)).collect();
    t.write_batches([batch(&wide)], None).await.unwrap();
    let big = data_manifests(&t, 1).await.remove(0);
    assert!(big.file_size >= target, "big manifest: {}", big.file_size);
    // Small commits into partitions 1 and 2, then an overwrite of partition 1.
    for i in 0..5i64 {
        let p = 1 + (i % 2) as i32;
        t.write_batches([batch(&[(1000 + i, p, 1)])], None)
            .await
            .unwrap();
    }
    t.write_batches([batch(&[(2000, 1, 2)])], Some(OverwriteScope::Dynamic))
        .await
        .unwrap();
    let before = rows(&t, None).await;
    assert!(before.iter().all(|r| r.1 != 1 || r.0 == 2000));

    // Just under the threshold: the next base list is the previous manifests, unchanged.
    let latest = t.snapshot_manager().latest_id().await.unwrap().unwrap();
    let input = data_manifests(&t, latest).await;
    let s = must_change_size(&input, target);
    let under = t
        .with_dynamic_options([(
            "manifest.full-compaction-threshold-size".to_string(),
            format!("{}b", s + 1),
        )])
        .unwrap();
    under
        .write_batches([batch(&[(3000, 2, 3)])], None)
        .await
        .unwrap();
    let (base, _) = snapshot_lists(&t, latest + 1).await;
    assert_eq!(base, input, "below the threshold: nothing merged");

    // At the threshold: full compaction. The big manifest touches no DELETE partition and
    // is kept first; everything else is rewritten into one file without DELETE entries.
    let input = data_manifests(&t, latest + 1).await;
    assert!(input.iter().any(|m| m.num_deleted_files > 0));
    let s = must_change_size(&input, target);
    let at = t
        .with_dynamic_options([(
            "manifest.full-compaction-threshold-size".to_string(),
            format!("{s}b"),
        )])
        .unwrap();
    at.write_batches([batch(&[(3001, 2, 3)])], None)
        .await
        .unwrap();
    let (base, _) = snapshot_lists(&t, latest + 2).await;
    assert_eq!(base.len(), 2, "{base:?}");
    assert_eq!(base[0], big, "kept as it is");
    assert_eq!(base[1].num_deleted_files, 0);
    let entries = entries_of(&t, &base[1..]).await;
    assert!(entries.iter().all(|e| e.kind == FileKind::Add));
    // The rewritten file holds exactly the live files outside the big manifest.
    let live_before = live_files(&t, latest + 1).await;
    let big_ids: BTreeSet<Identity> = entries_of(&t, &base[..1])
        .await
        .iter()
        .map(identity)
        .collect();
    let rewritten: BTreeSet<Identity> = entries.iter().map(identity).collect();
    assert_eq!(
        rewritten,
        live_before.difference(&big_ids).cloned().collect(),
        "only live ADDs survive"
    );
    let mut want = before.clone();
    want.extend([(3000, 2, 3), (3001, 2, 3)]);
    want.sort();
    assert_eq!(rows(&t, None).await, want);
    // Time travel to every snapshot still works (their manifests were not deleted).
    for s in t.snapshot_manager().all().await.unwrap() {
        assert!(!rows(&t, Some(s.id)).await.is_empty());
    }
}

// ---- rows with and without merging -----------------------------------------------------------------

const AGGRESSIVE: [(&str, &str); 3] = [
    ("manifest.merge-min-count", "2"),
    ("manifest.target-file-size", "3kb"),
    ("manifest.full-compaction-threshold-size", "20kb"),
];

#[tokio::test]
async fn rows_read_back_are_identical_with_and_without_merging() {
    let wh = Warehouse::new();
    let plain_a = wh.create("db.plain_a", &append_schema(&NO_MERGE)).await;
    let merged_a = wh.create("db.merged_a", &append_schema(&AGGRESSIVE)).await;
    let plain_k = wh.create("db.plain_k", &pk_schema(&NO_MERGE)).await;
    let merged_k = wh.create("db.merged_k", &pk_schema(&AGGRESSIVE)).await;
    let mut x: u64 = 7;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as i64
    };
    for i in 0..30i64 {
        let p = (next() % 4) as i32;
        let rows: Vec<(i64, i32, i32)> = (0..3).map(|_| (next() % 50, p, i as i32)).collect();
        let mut dedup = BTreeMap::new();
        for r in &rows {
            dedup.insert(r.0, *r);
        }
        let rows: Vec<(i64, i32, i32)> = dedup.into_values().collect();
        let overwrite = i % 6 == 5;
        for t in [&plain_a, &merged_a] {
            let scope = overwrite.then_some(OverwriteScope::Dynamic);
            t.write_batches([batch(&rows)], scope).await.unwrap();
        }
        for t in [&plain_k, &merged_k] {
            t.write_batches([batch(&rows)], None).await.unwrap();
        }
    }
    for (plain, merged) in [(&plain_a, &merged_a), (&plain_k, &merged_k)] {
        let ps = plain.snapshot_manager().all().await.unwrap();
        let ms = merged.snapshot_manager().all().await.unwrap();
        assert_eq!(ps.len(), ms.len());
        let mut fewer = false;
        for (a, b) in ps.iter().zip(&ms) {
            assert_eq!(a.commit_kind, b.commit_kind);
            assert_eq!(
                rows(plain, Some(a.id)).await,
                rows(merged, Some(b.id)).await
            );
            let (pa, pb) = (
                data_manifests(plain, a.id).await,
                data_manifests(merged, b.id).await,
            );
            assert_eq!(
                live_files(plain, a.id).await.len(),
                live_files(merged, b.id).await.len()
            );
            fewer |= pb.len() < pa.len();
            let (base, _) = snapshot_lists(merged, b.id).await;
            assert_no_add_delete_pairs(merged, &base).await;
        }
        assert!(
            fewer,
            "merging reduced the manifests of {}",
            merged.identifier()
        );
        let last = ms.last().unwrap().id;
        let (pn, mn) = (
            data_manifests(plain, last).await.len(),
            data_manifests(merged, last).await.len(),
        );
        println!(
            "{}: {pn} manifests unmerged, {mn} merged",
            merged.identifier()
        );
        assert!(mn * 4 <= pn, "{pn} vs {mn}");
    }
}

// ---- a file upgraded by compaction -----------------------------------------------------------------

#[tokio::test]
async fn an_upgraded_file_keeps_its_level_n_add_through_merging() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.up",
            &pk_schema(&[
                ("bucket", "1"),
                ("write-only", "true"),
                ("target-file-size", "64kb"),
                ("compaction.small-file-ratio", "0.001"),
                ("manifest.merge-min-count", "2"),
                ("manifest.target-file-size", "1gb"),
                ("manifest.full-compaction-threshold-size", "1gb"),
            ])
            .replace(r#""bucket":"2","#, ""),
        )
        .await;
    let mut want = Vec::new();
    for c in 0..3i64 {
        let rows: Vec<(i64, i32, i32)> = (0..20).map(|k| (c * 100 + k, 0, c as i32)).collect();
        t.write_batches([batch(&rows)], None).await.unwrap();
        want.extend(rows);
    }
    let before: BTreeMap<String, i32> = live_files(&t, 3)
        .await
        .into_iter()
        .map(|id| (id.3, id.2))
        .collect();
    assert_eq!(before.len(), 3);
    assert!(before.values().all(|&l| l == 0));

    // Full compaction: three key-disjoint files are upgraded (same names, max level).
    let mut w = t.new_write().unwrap();
    w.compact(&|_, _| true, true).await.unwrap();
    let msgs = w.prepare_commit().await.unwrap();
    let compact_id = t.new_commit().unwrap().commit(msgs).await.unwrap().unwrap();
    let (_, delta) = snapshot_lists(&t, compact_id).await;
    let delta_entries = entries_of(&t, &delta).await;
    let upgraded: BTreeSet<String> = delta_entries
        .iter()
        .filter(|e| e.kind == FileKind::Add)
        .map(|e| e.file.file_name.clone())
        .collect();
    assert_eq!(
        upgraded,
        before.keys().cloned().collect(),
        "upgrades keep the names"
    );
    let max_level = delta_entries
        .iter()
        .find(|e| e.kind == FileKind::Add)
        .unwrap()
        .file
        .level;
    assert!(max_level > 0);

    // More commits; merging now folds the L0 ADDs, their DELETEs and the level-N ADDs.
    for c in 3..6i64 {
        let rows: Vec<(i64, i32, i32)> = (0..20).map(|k| (c * 100 + k, 0, c as i32)).collect();
        t.write_batches([batch(&rows)], None).await.unwrap();
        want.extend(rows);
    }
    let latest = t.snapshot_manager().latest_id().await.unwrap().unwrap();
    let (base, _) = snapshot_lists(&t, latest).await;
    let base_entries = entries_of(&t, &base).await;
    for name in &upgraded {
        let of: Vec<(FileKind, i32)> = base_entries
            .iter()
            .filter(|e| &e.file.file_name == name)
            .map(|e| (e.kind, e.file.level))
            .collect();
        assert!(
            of.contains(&(FileKind::Add, max_level)),
            "{name}: level-{max_level} ADD survives: {of:?}"
        );
        assert!(!of.contains(&(FileKind::Add, 0)) || of.contains(&(FileKind::Delete, 0)));
    }
    assert_no_add_delete_pairs(&t, &base).await;
    let live = live_files(&t, latest).await;
    for name in &upgraded {
        assert!(live.iter().any(|id| &id.3 == name && id.2 == max_level));
        assert!(!live.iter().any(|id| &id.3 == name && id.2 == 0));
    }
    want.sort();
    assert_eq!(rows(&t, None).await, want);
    // The merged base of the latest snapshot is small: merging happened.
    assert!(data_manifests(&t, latest).await.len() <= 3);
}

// ---- concurrent committers ---------------------------------------------------------------------------

/// Every file under `manifest/` that some snapshot references (lists, manifests, index).
async fn referenced_metadata(t: &Table) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in t.snapshot_manager().all().await.unwrap() {
        out.insert(s.base_manifest_list.clone());
        out.insert(s.delta_manifest_list.clone());
        if let Some(i) = &s.index_manifest {
            out.insert(i.clone());
        }
        for m in data_manifests(t, s.id).await {
            out.insert(m.file_name);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_committers_with_merging_produce_consistent_snapshots() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.c",
            &append_schema(&[
                ("manifest.merge-min-count", "2"),
                ("manifest.target-file-size", "4kb"),
                ("manifest.full-compaction-threshold-size", "12kb"),
                ("commit.max-retries", "200"),
                ("commit.min-retry-wait", "1ms"),
                ("commit.max-retry-wait", "20ms"),
            ]),
        )
        .await;
    const WRITERS: i64 = 4;
    const COMMITS: i64 = 8;
    let mut tasks = Vec::new();
    for w in 0..WRITERS {
        let t = t.clone();
        tasks.push(tokio::spawn(async move {
            for c in 0..COMMITS {
                let id = w * 1000 + c;
                let p = (c % 3) as i32;
                t.write_batches([batch(&[(id, p, w as i32)])], None)
                    .await
                    .unwrap();
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let snapshots = t.snapshot_manager().all().await.unwrap();
    assert_eq!(snapshots.len() as i64, WRITERS * COMMITS);
    // Each snapshot's live files are the previous snapshot's plus the one file it added.
    let mut prev: BTreeSet<Identity> = BTreeSet::new();
    for s in &snapshots {
        let live = live_files(&t, s.id).await;
        let (_, delta) = snapshot_lists(&t, s.id).await;
        let added: BTreeSet<Identity> = entries_of(&t, &delta).await.iter().map(identity).collect();
        assert_eq!(added.len(), 1);
        let mut want = prev.clone();
        want.extend(added);
        assert_eq!(live, want, "snapshot {}", s.id);
        prev = live;
    }
    let ids: Vec<i64> = rows(&t, None).await.iter().map(|r| r.0).collect();
    let mut want: Vec<i64> = (0..WRITERS)
        .flat_map(|w| (0..COMMITS).map(move |c| w * 1000 + c))
        .collect();
    want.sort();
    assert_eq!(ids, want);
    // Lost races deleted their merged manifests; no snapshot lost a manifest it references.
    let on_disk: BTreeSet<String> = std::fs::read_dir(wh.table_dir("db", "c").join("manifest"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(on_disk, referenced_metadata(&t).await);
    let latest = snapshots.last().unwrap().id;
    assert!(data_manifests(&t, latest).await.len() < (WRITERS * COMMITS) as usize / 2);
}

// ---- planning time after many commits (measurement, not run by default) ----------------------------

/// Planning time of the latest snapshot after `STRATA_MERGE_BENCH_COMMITS` (default 2000)
/// one-row commits, with Java's default merging and with merging off. Run with
/// `cargo test -p strata --test manifest_merging -- --ignored --nocapture planning_time`;
/// `STRATA_MERGE_BENCH_DIR` keeps the warehouse for `strata scan --metrics`.
#[tokio::test]
#[ignore]
async fn planning_time_after_many_commits() {
    let commits: i64 = std::env::var("STRATA_MERGE_BENCH_COMMITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let wh = Warehouse::new();
    let opened;
    let catalog = match std::env::var("STRATA_MERGE_BENCH_DIR") {
        Ok(dir) => {
            opened = strata::catalog::FileSystemCatalog::open(&dir).unwrap();
            &opened
        }
        Err(_) => &wh.catalog,
    };
    for (name, opts) in [("bench.merged", &[][..]), ("bench.unmerged", &NO_MERGE[..])] {
        let id: strata::catalog::Identifier = name.parse().unwrap();
        let schema = strata_spec::schema::Schema::from_json(&append_schema(opts)).unwrap();
        catalog.create_table(&id, &schema, true).await.unwrap();
        let t = catalog.get_table(&id).await.unwrap();
        let started = std::time::Instant::now();
        let have = t.snapshot_manager().latest_id().await.unwrap().unwrap_or(0);
        for i in have..commits {
            t.write_batches([batch(&[(i, (i % 10) as i32, 1)])], None)
                .await
                .unwrap();
        }
        let write_s = started.elapsed().as_secs_f64();
        let latest = t.snapshot_manager().latest_id().await.unwrap().unwrap();
        let manifests = data_manifests(&t, latest).await.len();
        let mut micros = Vec::new();
        let mut files = 0;
        for _ in 0..7 {
            let plan = t.new_scan().plan().await.unwrap();
            micros.push(plan.metrics.planning_micros);
            files = plan.splits.iter().map(|s| s.files.len()).sum::<usize>();
        }
        micros.sort();
        println!(
            "{name}: {commits} commits in {write_s:.1}s, latest snapshot lists {manifests} \
             manifests, plans {files} files; planning median {} us (min {}, max {})",
            micros[micros.len() / 2],
            micros[0],
            micros[micros.len() - 1]
        );
        assert_eq!(files as i64, commits);
    }
}
