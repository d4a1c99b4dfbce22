//! Unit tests of manifest merging: the pure decisions on hand-made inputs, and whole merges on
//! an in-memory store (files really written and read back), including a property test that
//! merging never changes the live file set.

use std::collections::BTreeSet;

use object_store::path::Path;
use proptest::prelude::*;
use strata_spec::manifest::{DataFileMeta, FileSource, ManifestCompression};
use strata_spec::stats::SimpleStats;
use strata_spec::{DataField, TypeKind};

use super::*;
use crate::io::FileIO;
use crate::meta::TablePaths;

fn int_type() -> DataType {
    DataType::nullable(TypeKind::Int)
}

fn part_type() -> RowType {
    RowType::new(vec![DataField::new(0, "p", int_type())])
}

fn part(p: Option<i32>) -> BinaryRow {
    BinaryRow::from_datums(&[p.map(Datum::Int)], &[int_type()]).unwrap()
}

fn file(name: &str, level: i32) -> DataFileMeta {
    DataFileMeta {
        file_name: name.to_string(),
        file_size: 1024,
        row_count: 10,
        min_key: BinaryRow::empty(),
        max_key: BinaryRow::empty(),
        key_stats: SimpleStats::empty(),
        value_stats: SimpleStats::empty(),
        min_sequence_number: 0,
        max_sequence_number: 9,
        schema_id: 0,
        level,
        extra_files: vec![],
        creation_time: Some(1_700_000_000_000),
        delete_row_count: Some(0),
        embedded_index: None,
        file_source: Some(FileSource::Append),
        value_stats_cols: None,
        external_path: None,
        first_row_id: None,
        write_cols: None,
    }
}

fn entry(kind: FileKind, p: i32, name: &str, level: i32) -> ManifestEntry {
    ManifestEntry {
        kind,
        partition: part(Some(p)),
        bucket: 0,
        total_buckets: 1,
        file: file(name, level),
    }
}

fn add(p: i32, name: &str) -> ManifestEntry {
    entry(FileKind::Add, p, name, 0)
}

fn del(p: i32, name: &str) -> ManifestEntry {
    entry(FileKind::Delete, p, name, 0)
}

fn meta(size: i64, deletes: i64) -> ManifestFileMeta {
    ManifestFileMeta {
        file_name: format!("m-{size}-{deletes}"),
        file_size: size,
        num_added_files: 1,
        num_deleted_files: deletes,
        partition_stats: SimpleStats::empty(),
        schema_id: 0,
        min_bucket: None,
        max_bucket: None,
        min_level: None,
        max_level: None,
        min_row_id: None,
        max_row_id: None,
    }
}

// ---- pure decisions ----------------------------------------------------------------------------

#[test]
fn minor_plan_groups_by_size_and_merges_the_tail_only_past_the_min_count() {
    use MinorStep::{Keep, Merge};
    // Groups close when their sizes reach the target; a one-manifest group is kept.
    assert_eq!(
        plan_minor(&[40, 70, 100, 10, 10], 100, 30),
        vec![Merge(0..2), Keep(2..3), Keep(3..5)]
    );
    // The tail is merged once it counts merge-min-count manifests.
    assert_eq!(plan_minor(&[10, 10, 10], 100, 3), vec![Merge(0..3)]);
    assert_eq!(plan_minor(&[10, 10], 100, 3), vec![Keep(0..2)]);
    // A lone small manifest is never rewritten, even with a minimum count of 1.
    assert_eq!(plan_minor(&[10], 100, 1), vec![Keep(0..1)]);
    assert_eq!(plan_minor(&[], 100, 3), Vec::<MinorStep>::new());
    // Big manifests each close their own group: nothing to merge.
    assert_eq!(
        plan_minor(&[200, 300], 100, 1),
        vec![Keep(0..1), Keep(1..2)]
    );
}

#[test]
fn full_compaction_counts_only_manifests_that_must_change() {
    let opts = ManifestMergeOptions {
        target_file_size: 100,
        merge_min_count: 30,
        full_compaction_threshold: 150,
    };
    assert!(must_change(&meta(99, 0), 100));
    assert!(!must_change(&meta(100, 0), 100));
    assert!(must_change(&meta(500, 1), 100));
    // 500 (has deletes) counts, the big ADD-only one does not.
    assert!(full_compaction_triggered(
        &[meta(500, 1), meta(1000, 0)],
        &opts
    ));
    assert!(!full_compaction_triggered(
        &[meta(90, 0), meta(1000, 0)],
        &opts
    ));
    assert!(full_compaction_triggered(
        &[meta(90, 0), meta(60, 0)],
        &opts
    ));
}

fn stats_meta(min: Option<i32>, max: Option<i32>, nulls: i64, entries: i64) -> ManifestFileMeta {
    let cols = vec![ColumnStats {
        min: min.map(Datum::Int),
        max: max.map(Datum::Int),
        null_count: Some(nulls),
    }];
    let mut m = meta(1000, 0);
    m.num_added_files = entries;
    m.partition_stats = SimpleStats::from_columns(&cols, &[int_type()]).unwrap();
    m
}

#[test]
fn delete_partitions_filter_manifests_by_their_partition_range() {
    let rows = [part(Some(5)), part(Some(9))];
    let pred = DeletePartitions::new(rows.iter(), &part_type()).unwrap();
    assert!(pred.may_touch(&stats_meta(Some(1), Some(5), 0, 3)));
    assert!(
        pred.may_touch(&stats_meta(Some(6), Some(7), 0, 3)),
        "range test only"
    );
    assert!(pred.may_touch(&stats_meta(Some(9), Some(20), 0, 3)));
    assert!(!pred.may_touch(&stats_meta(Some(1), Some(4), 0, 3)));
    assert!(!pred.may_touch(&stats_meta(Some(10), Some(20), 0, 3)));
    // A manifest whose partitions are all NULL matches no non-NULL DELETE partition.
    assert!(!pred.may_touch(&stats_meta(None, None, 3, 3)));

    // A NULL DELETE partition reaches manifests holding NULLs.
    let rows = [part(None)];
    let only_null = DeletePartitions::new(rows.iter(), &part_type()).unwrap();
    assert!(only_null.may_touch(&stats_meta(None, None, 3, 3)));
    assert!(only_null.may_touch(&stats_meta(Some(1), Some(2), 1, 3)));
    assert!(!only_null.may_touch(&stats_meta(Some(1), Some(2), 0, 3)));
    let rows = [part(None), part(Some(50))];
    let mixed = DeletePartitions::new(rows.iter(), &part_type()).unwrap();
    assert!(mixed.may_touch(&stats_meta(Some(1), Some(2), 1, 3)));
    assert!(!mixed.may_touch(&stats_meta(Some(1), Some(2), 0, 3)));

    // No DELETE: nothing to look at; unpartitioned with DELETEs: everything.
    let none = DeletePartitions::new(std::iter::empty(), &part_type()).unwrap();
    assert!(!none.may_touch(&stats_meta(Some(1), Some(2), 0, 3)));
    let empty = BinaryRow::empty();
    let all = DeletePartitions::new([&empty], &RowType::default()).unwrap();
    assert!(all.may_touch(&meta(10, 0)));
}

#[test]
fn merge_in_order_cancels_pairs_keeps_orphan_deletes_and_linked_order() {
    let mut upgraded = add(1, "f");
    upgraded.file.level = 4;
    let merged = merge_in_order([
        del(1, "old"),
        add(1, "a"),
        add(1, "f"),
        add(1, "b"),
        del(1, "a"),
        del(1, "f"),
        upgraded.clone(),
        add(1, "a2"),
    ])
    .unwrap();
    let got: Vec<(FileKind, &str, i32)> = merged
        .iter()
        .map(|e| (e.kind, e.file.file_name.as_str(), e.file.level))
        .collect();
    assert_eq!(
        got,
        vec![
            (FileKind::Delete, "old", 0),
            (FileKind::Add, "b", 0),
            (FileKind::Add, "f", 4),
            (FileKind::Add, "a2", 0),
        ]
    );
    let err = merge_in_order([add(1, "x"), add(1, "x")]).unwrap_err();
    assert!(err.to_string().contains("x") && err.to_string().contains("already"));
}

// ---- whole merges on an in-memory store ----------------------------------------------------------

struct Fixture {
    io: FileIO,
    store: ManifestStore,
    namer: FileNamer,
    ptype: RowType,
}

impl Fixture {
    fn new() -> Self {
        let io = FileIO::memory();
        Fixture {
            io: io.clone(),
            store: ManifestStore::new(
                io,
                TablePaths::new(Path::from("t")),
                ManifestCompression::default(),
            ),
            namer: FileNamer::new(),
            ptype: part_type(),
        }
    }

    fn ctx(&self) -> MergeContext<'_> {
        MergeContext {
            store: &self.store,
            namer: &self.namer,
            partition_type: &self.ptype,
            schema_id: 0,
        }
    }

    async fn write(&self, entries: &[ManifestEntry]) -> ManifestFileMeta {
        self.store
            .write_manifest(&self.namer, entries, &self.ptype, 0)
            .await
            .unwrap()
    }

    /// Names of the manifest files on storage.
    async fn files(&self) -> BTreeSet<String> {
        self.io
            .list(&Path::from("t/manifest"))
            .await
            .unwrap()
            .into_iter()
            .map(|o| o.location.filename().unwrap().to_string())
            .collect()
    }

    async fn entries(&self, metas: &[ManifestFileMeta]) -> Vec<ManifestEntry> {
        self.store
            .read_manifests(metas)
            .await
            .unwrap()
            .into_iter()
            .flatten()
            .collect()
    }

    /// Live (partition, name, level) of a manifest chain.
    async fn live(&self, metas: &[ManifestFileMeta]) -> BTreeSet<(Vec<u8>, String, i32)> {
        let merged = strata_spec::manifest::merge_entries(self.entries(metas).await).unwrap();
        merged
            .adds
            .iter()
            .map(|e| {
                (
                    e.partition.as_bytes().to_vec(),
                    e.file.file_name.clone(),
                    e.file.level,
                )
            })
            .collect()
    }
}

fn opts(target: u64, min_count: usize, full: u64) -> ManifestMergeOptions {
    ManifestMergeOptions {
        target_file_size: target,
        merge_min_count: min_count,
        full_compaction_threshold: full,
    }
}

#[tokio::test]
async fn minor_compaction_merges_small_manifests_and_drops_add_delete_pairs() {
    let fx = Fixture::new();
    let m1 = fx.write(&[add(1, "a"), add(1, "b")]).await;
    let m2 = fx.write(&[del(1, "a"), add(2, "c")]).await;
    let m3 = fx.write(&[add(2, "d")]).await;
    let input = vec![m1, m2, m3];
    let before = fx.live(&input).await;
    // Huge thresholds: only the min count decides; 3 manifests reach it.
    let out = merge(&fx.ctx(), &input, &opts(1 << 30, 3, 1 << 40))
        .await
        .unwrap();
    assert!(!out.full_compaction);
    assert_eq!(out.manifests.len(), 1);
    assert_eq!(out.new_files, vec![out.manifests[0].file_name.clone()]);
    let entries = fx.entries(&out.manifests).await;
    let names: Vec<&str> = entries.iter().map(|e| e.file.file_name.as_str()).collect();
    assert_eq!(names, ["b", "c", "d"], "a's ADD and DELETE cancel");
    assert!(entries.iter().all(|e| e.kind == FileKind::Add));
    assert_eq!(out.manifests[0].num_deleted_files, 0);
    assert_eq!(fx.live(&out.manifests).await, before);

    // Below the min count nothing is read or written.
    let out = merge(&fx.ctx(), &input, &opts(1 << 30, 4, 1 << 40))
        .await
        .unwrap();
    assert_eq!(out.manifests, input);
    assert!(out.new_files.is_empty());
}

#[tokio::test]
async fn a_group_that_cancels_out_leaves_no_file_and_orphan_deletes_survive() {
    let fx = Fixture::new();
    let mut first: Vec<ManifestEntry> = (0..2000)
        .map(|_| add(9, &uuid::Uuid::new_v4().to_string()))
        .collect();
    first.push(add(1, "a"));
    let m1 = fx.write(&first).await;
    // `a` is deleted in the second group: its DELETE must survive that group's merge.
    let m2 = fx.write(&[add(1, "x")]).await;
    let m3 = fx.write(&[del(1, "x")]).await;
    let m4 = fx.write(&[del(1, "a")]).await;
    let m5 = fx.write(&[add(1, "y")]).await;
    // Target = m1's size: m1 alone forms a (kept) group, then the tail of four is merged.
    let target = m1.file_size as u64;
    let input = vec![m1.clone(), m2, m3, m4, m5];
    let tail: i64 = input[1..].iter().map(|m| m.file_size).sum();
    assert!(
        tail < m1.file_size,
        "the tail stays one group under the target: {tail} vs {}",
        m1.file_size
    );
    let out = merge(&fx.ctx(), &input, &opts(target, 2, 1 << 40))
        .await
        .unwrap();
    assert_eq!(out.manifests[0], m1);
    let tail = fx.entries(&out.manifests[1..]).await;
    let got: Vec<(FileKind, &str)> = tail
        .iter()
        .map(|e| (e.kind, e.file.file_name.as_str()))
        .collect();
    assert_eq!(got, [(FileKind::Delete, "a"), (FileKind::Add, "y")]);
    assert_eq!(fx.live(&out.manifests).await, fx.live(&input).await);

    // A group of an ADD and its DELETE only: no file at all.
    let n1 = fx.write(&[add(3, "z")]).await;
    let n2 = fx.write(&[del(3, "z")]).await;
    let out = merge(&fx.ctx(), &[n1, n2], &opts(1 << 30, 2, 1 << 40))
        .await
        .unwrap();
    assert!(out.manifests.is_empty() && out.new_files.is_empty());
}

#[tokio::test]
async fn full_compaction_rewrites_small_and_deleting_manifests_and_keeps_big_untouched_ones() {
    let fx = Fixture::new();
    // A "big" manifest of partition 7 (no deletes), a big one of partition 1, then small ones.
    let big7: Vec<ManifestEntry> = (0..40).map(|i| add(7, &format!("p7-{i}"))).collect();
    let big1: Vec<ManifestEntry> = (0..40).map(|i| add(1, &format!("p1-{i}"))).collect();
    let b7 = fx.write(&big7).await;
    let b1 = fx.write(&big1).await;
    let s1 = fx.write(&[add(2, "s1")]).await;
    let s2 = fx.write(&[del(1, "p1-3"), add(2, "s2")]).await;
    let target = b7.file_size.min(b1.file_size) as u64;
    assert!(s1.file_size < target as i64 && s2.file_size < target as i64);
    let input = vec![b7.clone(), b1.clone(), s1, s2];
    let before = fx.live(&input).await;
    let out = merge(&fx.ctx(), &input, &opts(target, 30, 1))
        .await
        .unwrap();
    assert!(out.full_compaction);
    // b7 is outside every DELETE partition: kept first, unread. b1 holds the cancelled ADD
    // of p1-3: rewritten with s1 and s2 into new files holding no DELETE.
    assert_eq!(out.manifests[0], b7);
    assert!(!out.manifests.contains(&b1));
    let rewritten = &out.manifests[1..];
    assert!(rewritten
        .iter()
        .all(|m| out.new_files.contains(&m.file_name)));
    let entries = fx.entries(rewritten).await;
    assert!(entries.iter().all(|e| e.kind == FileKind::Add));
    assert_eq!(entries.len(), 39 + 2);
    assert_eq!(fx.live(&out.manifests).await, before);

    // Without deletes, big manifests are kept and the small ones merged.
    let t1 = fx.write(&[add(3, "t1")]).await;
    let t2 = fx.write(&[add(3, "t2")]).await;
    let input = vec![b7.clone(), t1, t2];
    let out = merge(&fx.ctx(), &input, &opts(target, 30, 1))
        .await
        .unwrap();
    assert!(out.full_compaction);
    assert_eq!(out.manifests.len(), 2);
    assert_eq!(out.manifests[0], b7);
    assert_eq!(fx.live(&out.manifests).await, fx.live(&input).await);

    // Only one manifest to look at: no full compaction, minor compaction instead.
    let input = vec![b7.clone(), fx.write(&[add(3, "u")]).await];
    let out = merge(&fx.ctx(), &input, &opts(target, 30, 1))
        .await
        .unwrap();
    assert!(!out.full_compaction);
    assert_eq!(out.manifests, input);
}

#[tokio::test]
async fn an_upgraded_file_keeps_its_new_level_through_both_merges() {
    let fx = Fixture::new();
    let mut up = add(1, "f");
    up.file.level = 5;
    let m1 = fx.write(&[add(1, "f"), add(1, "g")]).await;
    let m2 = fx
        .write(&[entry(FileKind::Delete, 1, "f", 0), up.clone()])
        .await;
    let input = vec![m1, m2];
    for o in [opts(1 << 30, 2, 1 << 40), opts(1 << 30, 30, 1)] {
        let out = merge(&fx.ctx(), &input, &o).await.unwrap();
        let entries = fx.entries(&out.manifests).await;
        let got: Vec<(FileKind, &str, i32)> = entries
            .iter()
            .map(|e| (e.kind, e.file.file_name.as_str(), e.file.level))
            .collect();
        assert_eq!(got, [(FileKind::Add, "g", 0), (FileKind::Add, "f", 5)]);
    }
}

#[tokio::test]
async fn merged_files_roll_at_the_target_size_every_thousand_entries() {
    let fx = Fixture::new();
    let small: Vec<ManifestEntry> = (0..10).map(|i| add(1, &format!("s{i}"))).collect();
    let big: Vec<ManifestEntry> = (0..2500).map(|i| add(1, &format!("b{i}"))).collect();
    let m1 = fx.write(&small).await;
    let m2 = fx.write(&big).await;
    // The group [m1, m2] reaches the target with m2 and is merged; 1000 entries are far over
    // the target, so a file closes at every check (entries 1000 and 2000).
    let target = m1.file_size as u64 + 1;
    let input = vec![m1, m2];
    let out = merge(&fx.ctx(), &input, &opts(target, 30, 1 << 40))
        .await
        .unwrap();
    let counts: Vec<i64> = out.manifests.iter().map(|m| m.num_added_files).collect();
    assert_eq!(counts, [1000, 1000, 510]);
    assert_eq!(out.new_files.len(), 3);
    assert_eq!(fx.live(&out.manifests).await, fx.live(&input).await);

    // Under the target at the check: one file of 1400 entries; a lone third manifest is kept.
    let a: Vec<ManifestEntry> = (0..2100).map(|i| add(2, &format!("a{i}"))).collect();
    let input = vec![
        fx.write(&a[..700]).await,
        fx.write(&a[700..1400]).await,
        fx.write(&a[1400..]).await,
    ];
    let target = (input[0].file_size + input[1].file_size) as u64;
    let out = merge(&fx.ctx(), &input, &opts(target, 30, 1 << 40))
        .await
        .unwrap();
    let counts: Vec<i64> = out.manifests.iter().map(|m| m.num_added_files).collect();
    assert_eq!(counts, [1400, 700]);
    assert_eq!(out.manifests[1], input[2]);
}

#[tokio::test]
async fn a_failed_merge_deletes_the_files_it_wrote() {
    let fx = Fixture::new();
    let a1 = fx.write(&[add(1, "a1")]).await;
    let a2 = fx.write(&[add(1, "a2")]).await;
    let b1 = fx.write(&[add(2, "b1")]).await;
    let mut gone = fx.write(&[add(2, "b2")]).await;
    gone.file_name = "manifest-missing".into();
    let before = fx.files().await;
    // Group [a1, a2] reaches the target and is merged (a file is written); the tail [b1, gone]
    // counts the minimum and fails to read.
    let target = (a1.file_size + a2.file_size) as u64;
    let err = merge(&fx.ctx(), &[a1, a2, b1, gone], &opts(target, 2, 1 << 40))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("manifest-missing"), "{err}");
    assert_eq!(fx.files().await, before, "the merged file was deleted");
}

// ---- property: merging never changes the live set -----------------------------------------------

/// One commit of a random history: files added, and indexes (into the files live before the
/// commit) deleted or upgraded to a higher level.
#[derive(Clone, Debug)]
struct Commit {
    adds: Vec<i32>,
    deletes: Vec<usize>,
    upgrades: Vec<usize>,
}

fn arb_history() -> impl Strategy<Value = Vec<Commit>> {
    prop::collection::vec(
        (
            prop::collection::vec(0..4i32, 0..4),
            prop::collection::vec(any::<usize>(), 0..3),
            prop::collection::vec(any::<usize>(), 0..2),
        )
            .prop_map(|(adds, deletes, upgrades)| Commit {
                adds,
                deletes,
                upgrades,
            }),
        1..24,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn merging_any_history_keeps_the_live_set(
        history in arb_history(),
        target in prop::sample::select(vec![1u64, 400, 900, 2000, 1 << 30]),
        min_count in 1usize..5,
        full in prop::sample::select(vec![1u64, 1500, 1 << 40]),
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let fx = Fixture::new();
            let o = opts(target, min_count, full);
            // Unmerged chain and merged chain, built commit by commit like the committer does.
            let mut plain: Vec<ManifestFileMeta> = Vec::new();
            let mut merged: Vec<ManifestFileMeta> = Vec::new();
            let mut live: Vec<ManifestEntry> = Vec::new();
            let mut next = 0;
            for c in &history {
                let mut delta = Vec::new();
                let mut gone = BTreeSet::new();
                for &d in &c.deletes {
                    if !live.is_empty() {
                        gone.insert(d % live.len());
                    }
                }
                let mut ups = BTreeSet::new();
                for &u in &c.upgrades {
                    if !live.is_empty() && !gone.contains(&(u % live.len())) {
                        ups.insert(u % live.len());
                    }
                }
                let mut kept = Vec::new();
                for (i, e) in live.iter().enumerate() {
                    if gone.contains(&i) {
                        let mut d = e.clone();
                        d.kind = FileKind::Delete;
                        delta.push(d);
                    } else if ups.contains(&i) {
                        let mut d = e.clone();
                        d.kind = FileKind::Delete;
                        delta.push(d);
                        let mut a = e.clone();
                        a.file.level += 1;
                        delta.push(a.clone());
                        kept.push(a);
                    } else {
                        kept.push(e.clone());
                    }
                }
                for &p in &c.adds {
                    let a = add(p, &format!("f{next}"));
                    next += 1;
                    delta.push(a.clone());
                    kept.push(a);
                }
                live = kept;
                if delta.is_empty() {
                    continue;
                }
                let m = fx.write(&delta).await;
                let out = merge(&fx.ctx(), &merged, &o).await.unwrap();
                merged = out.manifests;
                merged.push(m.clone());
                plain.push(m);
                let want: BTreeSet<_> = live
                    .iter()
                    .map(|e| (e.partition.as_bytes().to_vec(), e.file.file_name.clone(), e.file.level))
                    .collect();
                prop_assert_eq!(fx.live(&merged).await, want.clone());
                prop_assert_eq!(fx.live(&plain).await, want);
                // Merged manifests never hold an ADD and a DELETE of the same identity.
                for m in &merged {
                    let entries = fx.entries(std::slice::from_ref(m)).await;
                    let adds: BTreeSet<_> = entries.iter().filter(|e| e.kind == FileKind::Add).map(|e| e.identifier().file_name + &e.file.level.to_string()).collect();
                    let dels: BTreeSet<_> = entries.iter().filter(|e| e.kind == FileKind::Delete).map(|e| e.identifier().file_name + &e.file.level.to_string()).collect();
                    prop_assert!(adds.is_disjoint(&dels) || plain.contains(m));
                }
            }
            Ok(())
        })?;
    }
}
