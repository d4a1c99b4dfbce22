//! Unit tests of `append_compact`'s picking (Java's `AppendCompactCoordinator` and
//! `BucketedAppendCompactManager`).

use super::*;

fn file(name: &str, size: i64, seq: i64) -> DataFileMeta {
    DataFileMeta {
        file_name: name.into(),
        file_size: size,
        row_count: 1,
        min_key: BinaryRow::empty(),
        max_key: BinaryRow::empty(),
        key_stats: strata_spec::stats::SimpleStats::empty(),
        value_stats: strata_spec::stats::SimpleStats::empty(),
        min_sequence_number: seq,
        max_sequence_number: seq,
        schema_id: 0,
        level: 0,
        extra_files: Vec::new(),
        creation_time: None,
        delete_row_count: Some(0),
        embedded_index: None,
        file_source: Some(FileSource::Append),
        value_stats_cols: None,
        external_path: None,
        first_row_id: None,
        write_cols: None,
    }
}

fn picking(target: u64, min: usize) -> Picking {
    Picking {
        target_file_size: target,
        small_file_size: (target as f64 * 0.7) as u64,
        open_file_cost: 0,
        min_file_num: min,
        file_num_limit: 100_000,
        force_rewrite_all: false,
        delete_ratio: 0.2,
    }
}

#[test]
fn unaware_packs_as_append_compact_coordinator() {
    let p = picking(100, 3);
    // Two small files: fewer than min.file-num, nothing.
    assert!(p
        .pack_unaware(&[file("a", 10, 0), file("b", 10, 1)])
        .is_empty());
    // A big file is no candidate; three small ones are a task.
    let tasks = p.pack_unaware(&[
        file("a", 10, 0),
        file("b", 90, 1),
        file("c", 5, 2),
        file("d", 7, 3),
    ]);
    let names: Vec<Vec<&str>> = tasks
        .iter()
        .map(|t| t.iter().map(|f| f.file_name.as_str()).collect())
        .collect();
    assert_eq!(names, vec![vec!["c", "d", "a"]]);
    // A bin reaching 2 × target becomes a task on its own.
    let tasks = p.pack_unaware(&[file("a", 69, 0), file("b", 69, 1), file("c", 69, 2)]);
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0].len(), 3);
}

#[test]
fn bucketed_picks_as_bucketed_append_compact_manager() {
    let p = picking(100, 3);
    let files = [
        file("a", 150, 0),
        file("b", 60, 1),
        file("c", 10, 2),
        file("d", 10, 3),
    ];
    let picked = p.pick_bucketed(&files).expect("a window");
    let names: Vec<&str> = picked.iter().map(|f| f.file_name.as_str()).collect();
    assert_eq!(names, vec!["b", "c", "d"]);
    assert!(p.pick_bucketed(&files[..2]).is_none());
    // Full: the leading big file stays, three small ones are rewritten.
    let full = p.full_bucketed(&files).expect("full");
    assert_eq!(full.len(), 3);
    assert!(p.full_bucketed(&files[..2]).is_none());
}
