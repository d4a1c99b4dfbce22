//! Unit tests of the deletion-vector pairing check (`dv_conflicts`) on hand-made entries: the
//! races of a compaction and a DELETE in either order, and the commits that must still pass.

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{DataFileMeta, DeletionVectorMeta, FileSource, IndexFileMeta};
use strata_spec::stats::SimpleStats;

use super::*;

fn file(name: &str) -> DataFileMeta {
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
        level: 0,
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

fn data(kind: FileKind, name: &str) -> ManifestEntry {
    ManifestEntry {
        kind,
        partition: BinaryRow::empty(),
        bucket: 0,
        total_buckets: -1,
        file: file(name),
    }
}

/// A `DELETION_VECTORS` index entry `name` holding vectors of `files`.
fn dv(kind: FileKind, name: &str, files: &[&str]) -> IndexManifestEntry {
    IndexManifestEntry {
        kind,
        partition: BinaryRow::empty(),
        bucket: 0,
        index_file: IndexFileMeta {
            index_type: DELETION_VECTORS_INDEX.to_string(),
            file_name: name.to_string(),
            file_size: 100,
            row_count: files.len() as i64,
            dv_ranges: Some(
                files
                    .iter()
                    .enumerate()
                    .map(|(i, f)| DeletionVectorMeta {
                        data_file_name: f.to_string(),
                        offset: 1 + 20 * i as i32,
                        length: 12,
                        cardinality: Some(1),
                    })
                    .collect(),
            ),
            external_path: None,
            global_index: None,
        },
    }
}

fn check(
    live: &[ManifestEntry],
    live_index: &[IndexManifestEntry],
    delta: &[ManifestEntry],
    index: &[IndexManifestEntry],
) -> Result<()> {
    check_deletion_vector_conflicts("db.t", live, live_index, delta, index)
}

fn is_conflict(r: Result<()>, needle: &str) {
    let e = r.expect_err("expected a conflict");
    assert_eq!(e.kind(), crate::ErrorKind::Conflict, "{e}");
    assert!(e.to_string().contains(needle), "{e}");
}

use FileKind::{Add, Delete};

#[test]
fn compaction_after_a_first_delete_of_a_rewritten_file_conflicts() {
    // Planned with f1 and f2 without vectors; a DELETE then gave f1 one (index i1).
    let live = [data(Add, "f1"), data(Add, "f2")];
    let live_index = [dv(Add, "i1", &["f1"])];
    let delta = [data(Delete, "f1"), data(Delete, "f2"), data(Add, "f3")];
    is_conflict(check(&live, &live_index, &delta, &[]), "f1");
    // Planned on the latest snapshot (it deletes i1 with f1): it lands.
    let index = [dv(Delete, "i1", &["f1"])];
    check(&live, &live_index, &delta, &index).unwrap();
}

#[test]
fn compaction_after_a_changed_vector_conflicts() {
    // Planned with f1's vector in i1; a DELETE replaced it with i2.
    let live = [data(Add, "f1")];
    let live_index = [dv(Add, "i2", &["f1"])];
    let delta = [data(Delete, "f1"), data(Add, "f3")];
    let index = [dv(Delete, "i1", &["f1"])];
    is_conflict(check(&live, &live_index, &delta, &index), "i2");
}

#[test]
fn delete_after_the_file_was_compacted_away_conflicts() {
    // The DELETE gives f1 its first vector, but a compaction removed f1 meanwhile.
    let live = [data(Add, "f3")];
    let index = [dv(Add, "i1", &["f1"])];
    is_conflict(check(&live, &[], &[], &index), "no longer live");
}

#[test]
fn two_deletes_of_one_file_conflict() {
    // Both planned f1 without a vector; the first landed with i1, the second brings i2.
    let live = [data(Add, "f1")];
    let live_index = [dv(Add, "i1", &["f1"])];
    let index = [dv(Add, "i2", &["f1"])];
    is_conflict(check(&live, &live_index, &[], &index), "i1");
    // The second, planned on the first (it replaces i1), lands.
    let index = [dv(Delete, "i1", &["f1"]), dv(Add, "i2", &["f1"])];
    check(&live, &live_index, &[], &index).unwrap();
}

#[test]
fn unrelated_changes_pass() {
    // A DELETE of f2 while a compaction that rewrote f1 (and kept f2's vector) lands first:
    // the DELETE still pairs f2 with i1, which the compaction replaced by i3.
    let live = [data(Add, "f2"), data(Add, "f3")];
    let live_index = [dv(Add, "i3", &["f2"])];
    let index = [dv(Delete, "i1", &["f1", "f2"]), dv(Add, "i2", &["f2"])];
    is_conflict(
        check(&live, &live_index, &[], &index),
        "a concurrent commit",
    );
    // A plain append, and a compaction of files without vectors, pass.
    check(&live, &live_index, &[data(Add, "f4")], &[]).unwrap();
    let delta = [data(Delete, "f3"), data(Add, "f5")];
    check(&live, &live_index, &delta, &[]).unwrap();
    // A compaction that rewrote f2 with its vector, and keeps it paired: it lands.
    let delta = [data(Delete, "f2"), data(Add, "f6")];
    let index = [dv(Delete, "i3", &["f2"])];
    check(&live, &live_index, &delta, &index).unwrap();
    // A file re-indexed in place (deleted and added under its name) keeps its vector.
    let delta = [data(Delete, "f2"), data(Add, "f2")];
    check(&live, &live_index, &delta, &[]).unwrap();
    assert!(!needs_check(&[data(Add, "f4")], &[]));
    assert!(needs_check(&delta, &[]));
}
