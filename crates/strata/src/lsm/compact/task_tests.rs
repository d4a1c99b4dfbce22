//! Upgrade-vs-rewrite decisions of the compaction task on the seed experiment's layouts
//! with a rewriter that records what it is asked to do.

use std::sync::Mutex;

use strata_spec::manifest::DataFileMeta;
use strata_spec::types::TypeKind;
use strata_spec::DataType;

use super::*;
use crate::error::ErrorDetail;

fn key() -> Vec<DataType> {
    vec![DataType::not_null(TypeKind::Int)]
}

fn file(name: &str, level: i32, min: i32, max: i32, size: i64) -> DataFileMeta {
    DataFileMeta {
        row_count: (max - min + 1) as i64,
        ..crate::lsm::compact::picking_tests::file(name, level, size, (min, max), (0, 0))
    }
}

/// Six 2000-key files of a 12000-row commit starting at `first`.
fn commit(prefix: &str, level: i32, first: i32) -> Vec<DataFileMeta> {
    (0..6)
        .map(|i| {
            let lo = first + i * 2000;
            file(&format!("{prefix}{}", i + 1), level, lo, lo + 1999, 7400)
        })
        .collect()
}

#[derive(Default)]
struct Recorder {
    /// Input file names of each rewrite call.
    calls: Mutex<Vec<Vec<String>>>,
    fail_on_call: Option<usize>,
    discarded: Mutex<Vec<String>>,
    expired: Vec<String>,
}

impl CompactRewriter for Recorder {
    async fn rewrite(
        &self,
        output_level: i32,
        _drop_delete: bool,
        sections: Sections,
    ) -> Result<CompactResult> {
        let before: Vec<DataFileMeta> = sections
            .into_iter()
            .flatten()
            .flatten()
            .map(|k| k.file)
            .collect();
        let mut calls = self.calls.lock().unwrap();
        if self.fail_on_call == Some(calls.len()) {
            return Err(ErrorDetail::InvalidArgument("injected failure".into()).into());
        }
        calls.push(before.iter().map(|f| f.file_name.clone()).collect());
        let n = calls.len();
        let after = vec![file(&format!("new{n}"), output_level, 0, 0, 100)];
        Ok(CompactResult {
            before,
            after,
            ..Default::default()
        })
    }

    async fn has_expired_records(&self, file: &DataFileMeta) -> Result<bool> {
        Ok(self.expired.contains(&file.file_name))
    }

    async fn discard(&self, files: &[DataFileMeta]) {
        let mut d = self.discarded.lock().unwrap();
        d.extend(files.iter().map(|f| f.file_name.clone()));
    }
}

fn options(min_file_size: i64, drop_delete: bool) -> TaskOptions {
    TaskOptions {
        min_file_size,
        max_level: 5,
        drop_delete,
        force_rewrite_all_files: false,
        lookup: LookupUpgrade::Off,
    }
}

fn unit(level: i32, files: Vec<DataFileMeta>) -> CompactUnit {
    CompactUnit {
        output_level: level,
        files,
        file_rewrite: false,
    }
}

fn names(files: &[DataFileMeta]) -> Vec<String> {
    let mut v: Vec<String> = files
        .iter()
        .map(|f| format!("{}@{}", f.file_name, f.level))
        .collect();
    v.sort();
    v
}

#[tokio::test]
async fn e_plus_a_upgrades_all_seven_at_ratio_005() {
    let mut files = commit("a", 0, 1);
    files.push(file("e", 0, 300001, 300010, 1286));
    let r = Recorder::default();
    let (result, m) = run_compact_task(unit(5, files), &key(), &options(3276, true), &r)
        .await
        .unwrap();
    assert!(r.calls.lock().unwrap().is_empty(), "nothing is rewritten");
    assert_eq!(m.upgraded_files, 7);
    assert_eq!(m.output_files, 0);
    assert_eq!(m.output_bytes, 0, "upgrades are never counted as written");
    assert_eq!(m.upgraded_bytes, 6 * 7400 + 1286);
    // Same names, new level.
    assert!(result.after.iter().all(|f| f.level == 5));
    let before: Vec<_> = result.before.iter().map(|f| &f.file_name).collect();
    let after: Vec<_> = result.after.iter().map(|f| &f.file_name).collect();
    assert_eq!(before, after);
}

#[tokio::test]
async fn e_plus_a_rewrites_everything_at_default_ratio() {
    let mut files = commit("a", 0, 1);
    files.push(file("e", 0, 300001, 300010, 1286));
    let r = Recorder::default();
    let (result, m) = run_compact_task(unit(5, files), &key(), &options(45875, true), &r)
        .await
        .unwrap();
    let calls = r.calls.lock().unwrap();
    assert_eq!(calls.len(), 1, "one merged rewrite of all small neighbours");
    assert_eq!(calls[0], vec!["a1", "a2", "a3", "a4", "a5", "a6", "e"]);
    assert_eq!(m.upgraded_files, 0);
    assert_eq!(m.rewritten_input_files, 7);
    assert_eq!(names(&result.after), vec!["new1@5"]);
}

#[tokio::test]
async fn step_c_rewrites_overlaps_once_and_upgrades_b() {
    // Runs after commit C: c@L0, B@L4, {E, A}@L5; all 19 files → L5 (dropDelete).
    let mut files = commit("c", 0, 1);
    files.extend(commit("b", 4, 100001));
    files.extend(commit("a", 5, 1));
    files.push(file("e", 5, 300001, 300010, 1286));
    let r = Recorder::default();
    let (result, m) = run_compact_task(unit(5, files), &key(), &options(3276, true), &r)
        .await
        .unwrap();
    let calls = r.calls.lock().unwrap();
    assert_eq!(calls.len(), 1);
    let mut first = calls[0].clone();
    first.sort();
    let mut expected: Vec<String> = (1..=6)
        .flat_map(|i| [format!("a{i}"), format!("c{i}")])
        .collect();
    expected.sort();
    assert_eq!(
        first, expected,
        "the six overlapping sections in one rewrite"
    );
    assert_eq!(m.upgraded_files, 6, "b1..b6 move from L4 to L5");
    assert_eq!(
        result.before.len(),
        18,
        "E is already at L5: in neither list"
    );
    let upgraded: Vec<_> = result
        .after
        .iter()
        .filter(|f| f.file_name.starts_with('b'))
        .collect();
    assert_eq!(upgraded.len(), 6);
    assert!(upgraded.iter().all(|f| f.level == 5));
}

#[tokio::test]
async fn step_c_at_default_ratio_is_one_rewrite_of_everything() {
    let mut files = commit("c", 0, 1);
    files.extend(commit("b", 4, 100001));
    files.extend(commit("a", 5, 1));
    files.push(file("e", 5, 300001, 300010, 1286));
    let r = Recorder::default();
    let (result, m) = run_compact_task(unit(5, files), &key(), &options(45875, true), &r)
        .await
        .unwrap();
    assert_eq!(r.calls.lock().unwrap().len(), 1);
    assert_eq!(m.upgraded_files, 0);
    assert_eq!(result.before.len(), 19, "E is rewritten too");
}

#[tokio::test]
async fn a_big_file_cuts_the_candidates() {
    // small(1..10) big(20..30) small(40..50) → two separate lone smalls → both upgraded.
    let files = vec![
        file("s1", 0, 1, 10, 10),
        file("big", 0, 20, 30, 10_000),
        file("s2", 0, 40, 50, 10),
        file("s3", 0, 60, 70, 10),
    ];
    let r = Recorder::default();
    let (result, m) = run_compact_task(unit(3, files), &key(), &options(1000, false), &r)
        .await
        .unwrap();
    let calls = r.calls.lock().unwrap();
    // s1 alone before big → upgraded; s2+s3 are two candidates → one rewrite.
    assert_eq!(*calls, vec![vec!["s2".to_string(), "s3".to_string()]]);
    assert_eq!(m.upgraded_files, 2);
    assert_eq!(names(&result.after), vec!["big@3", "new1@3", "s1@3"]);
}

#[tokio::test]
async fn deletes_at_max_level_force_a_rewrite() {
    let mut f = file("d", 0, 1, 10, 10_000);
    f.delete_row_count = Some(3);
    let mut unknown = file("u", 0, 20, 30, 10_000);
    unknown.delete_row_count = None;
    let r = Recorder::default();
    let (_, m) = run_compact_task(
        unit(5, vec![f.clone(), unknown]),
        &key(),
        &options(1000, true),
        &r,
    )
    .await
    .unwrap();
    assert_eq!(r.calls.lock().unwrap().len(), 2, "each rewritten alone");
    assert_eq!(m.upgraded_files, 0);
    // Below the max level the same file is upgraded.
    let r = Recorder::default();
    let (_, m) = run_compact_task(unit(4, vec![f]), &key(), &options(1000, false), &r)
        .await
        .unwrap();
    assert_eq!(m.upgraded_files, 1);
}

#[tokio::test]
async fn force_rewrite_and_expired_records_turn_upgrades_into_rewrites() {
    let files = vec![file("x", 0, 1, 10, 10_000), file("y", 0, 20, 30, 10_000)];
    let mut opts = options(1000, false);
    opts.force_rewrite_all_files = true;
    let r = Recorder::default();
    let (_, m) = run_compact_task(unit(3, files.clone()), &key(), &opts, &r)
        .await
        .unwrap();
    assert_eq!(m.rewrites, 2);
    let r = Recorder {
        expired: vec!["y".into()],
        ..Default::default()
    };
    let (_, m) = run_compact_task(unit(3, files), &key(), &options(1000, false), &r)
        .await
        .unwrap();
    assert_eq!((m.upgraded_files, m.rewrites), (1, 1));
}

#[tokio::test]
async fn a_failed_task_discards_what_it_wrote() {
    // Two rewrites: overlapping pair, big file, overlapping pair; the second fails.
    let files = vec![
        file("p1", 0, 1, 10, 10),
        file("p2", 1, 5, 15, 10),
        file("big", 0, 20, 30, 10_000),
        file("q1", 0, 40, 50, 10),
        file("q2", 1, 45, 55, 10),
    ];
    let r = Recorder {
        fail_on_call: Some(1),
        ..Default::default()
    };
    let err = run_compact_task(unit(3, files), &key(), &options(1000, false), &r)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("injected"));
    assert_eq!(*r.discarded.lock().unwrap(), vec!["new1".to_string()]);
}

#[tokio::test]
async fn file_rewrite_units_rewrite_each_file_alone() {
    let files = vec![file("x", 5, 1, 10, 10_000), file("y", 5, 20, 30, 10_000)];
    let r = Recorder::default();
    let u = CompactUnit {
        output_level: 5,
        files,
        file_rewrite: true,
    };
    let (_, m) = run_compact_task(u, &key(), &options(1000, true), &r)
        .await
        .unwrap();
    assert_eq!(m.rewrites, 2);
    assert_eq!(m.upgraded_files, 0);
}
