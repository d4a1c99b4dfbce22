//! Compaction of append tables through `Table::compact`: unaware-bucket tables picked as Java's
//! `AppendCompactCoordinator` (small files, `compaction.min.file-num`), fixed-bucket tables as
//! `BucketedAppendCompactManager`; files on disk, levels, file source and sequence numbers
//! checked, rows read back unchanged; row-tracking tables keep their row ids (stored in the
//! compacted files); data-evolution tables stitch each run of row-id ranges into one file
//! keeping `firstRowId` (Java's `DataEvolutionCompactCoordinator`); deletion vectors are applied
//! and leave the index with the files they belong to (`AppendDeleteFileMaintainer`); tables
//! strata cannot compact yet refused by name.

use std::sync::Arc;

use crate::common::*;
use arrow_array::{Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::table::Table;
use strata::write::CompactRequest;
use strata::ErrorKind;
use strata_spec::manifest::{DataFileMeta, FileSource};
use strata_spec::snapshot::CommitKind;

fn batch(ids: std::ops::Range<i64>, dt: &str) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("dt", ArrowType::Utf8, true),
        Field::new("v", ArrowType::Int32, true),
    ]));
    let n = ids.end - ids.start;
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.clone().collect::<Vec<_>>())),
            Arc::new(StringArray::from(vec![dt; n as usize])),
            Arc::new(Int32Array::from(
                ids.map(|i| (i * 7 % 1000) as i32).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap()
}

fn schema(options: &str) -> String {
    format!(
        r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"dt","type":"STRING"}},
 {{"name":"v","type":"INT"}}],"partitionKeys":["dt"],"options":{{{options}}}}}"#
    )
}

async fn live(t: &Table) -> Vec<DataFileMeta> {
    let plan = t.new_scan().plan().await.unwrap();
    plan.splits.into_iter().flat_map(|s| s.files).collect()
}

async fn live_in(t: &Table, dt: &str) -> Vec<DataFileMeta> {
    let plan = t
        .new_scan()
        .with_filter(strata::expr::parse_sql_predicate(&format!("dt = '{dt}'")).unwrap())
        .plan()
        .await
        .unwrap();
    plan.splits.into_iter().flat_map(|s| s.files).collect()
}

async fn compact(t: &Table, full: bool) -> strata::write::CompactReport {
    t.compact(
        &CompactRequest {
            full,
            ..Default::default()
        },
        &|_, _| {},
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn unaware_bucket_compacts_small_files_per_partition() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.t",
            &schema(r#""bucket":"-1","compaction.min.file-num":"3","file-index.bloom-filter.columns":"v""#),
        )
        .await;
    // Partition a: four small files; partition b: two (below min.file-num).
    for i in 0..4 {
        t.write_batches([batch(i * 100..i * 100 + 100, "a")], None)
            .await
            .unwrap();
    }
    for i in 4..6 {
        t.write_batches([batch(i * 100..i * 100 + 100, "b")], None)
            .await
            .unwrap();
    }
    let before_a = live_in(&t, "a").await;
    let before_b = live_in(&t, "b").await;
    assert_eq!((before_a.len(), before_b.len()), (4, 2));
    let ids_before = read_ids(&t, None, None).await;

    let report = compact(&t, false).await;
    let snap = t.snapshot_manager().latest().await.unwrap().unwrap();
    assert_eq!(report.snapshot, Some(snap.id));
    assert_eq!(snap.commit_kind, CommitKind::Compact);
    assert_eq!(snap.delta_record_count, 0, "DELETE 400 rows, ADD 400 rows");
    assert_eq!(report.metrics.len(), 1);
    assert_eq!(report.metrics[0].task.input_files, 4);

    let after_a = live_in(&t, "a").await;
    assert_eq!(after_a.len(), 1, "four small files into one");
    let f = &after_a[0];
    assert_eq!(f.row_count, 400);
    assert_eq!(f.level, 0);
    assert_eq!(f.file_source, Some(FileSource::Compact));
    // Sequence numbers count on from the first picked file's.
    let first_seq = before_a
        .iter()
        .filter(|g| g.file_size == before_a.iter().map(|h| h.file_size).min().unwrap())
        .map(|g| g.min_sequence_number)
        .min()
        .unwrap();
    assert_eq!(f.min_sequence_number, first_seq);
    assert_eq!(f.max_sequence_number, first_seq + 399);
    assert!(
        f.embedded_index.is_some() || !f.extra_files.is_empty(),
        "the new file is indexed as writes index"
    );
    assert!(before_a.iter().all(|g| g.file_name != f.file_name));
    // Partition b untouched.
    let mut names_b: Vec<_> = live_in(&t, "b")
        .await
        .into_iter()
        .map(|g| g.file_name)
        .collect();
    let mut old_b: Vec<_> = before_b.into_iter().map(|g| g.file_name).collect();
    names_b.sort();
    old_b.sort();
    assert_eq!(names_b, old_b);
    assert_eq!(read_ids(&t, None, None).await, ids_before);
    assert_eq!(read_ids(&t, Some("v = 7"), None).await, vec![1]);

    // Nothing left to pick: no snapshot.
    assert_eq!(compact(&t, false).await.snapshot, None);
    // Full: partition b's two files too.
    let full = compact(&t, true).await;
    assert!(full.snapshot.is_some());
    assert_eq!(live(&t).await.len(), 2);
    assert_eq!(read_ids(&t, None, None).await, ids_before);
    // The table writes on after its compaction.
    t.write_batches([batch(600..610, "a")], None).await.unwrap();
    assert_eq!(read_ids(&t, None, None).await.len(), 610);
}

#[tokio::test]
async fn fixed_bucket_picks_by_sequence_number() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.t",
            &schema(r#""bucket":"1","bucket-key":"id","compaction.min.file-num":"3","write-only":"true""#),
        )
        .await;
    for i in 0..5 {
        t.write_batches([batch(i * 50..i * 50 + 50, "a")], None)
            .await
            .unwrap();
    }
    let ids_before = read_ids(&t, None, None).await;
    let mut before = live(&t).await;
    before.sort_by_key(|f| f.min_sequence_number);
    assert_eq!(before.len(), 5);
    let report = compact(&t, false).await;
    assert!(report.snapshot.is_some());
    let mut after = live(&t).await;
    after.sort_by_key(|f| f.min_sequence_number);
    // The first three files (by sequence number) into one; the last two stay.
    assert_eq!(after.len(), 3);
    assert_eq!(after[0].min_sequence_number, before[0].min_sequence_number);
    assert_eq!(after[0].max_sequence_number, before[2].max_sequence_number);
    assert_eq!(after[0].row_count, 150);
    assert_eq!(after[0].file_source, Some(FileSource::Compact));
    assert_eq!(after[1].file_name, before[3].file_name);
    assert_eq!(after[2].file_name, before[4].file_name);
    assert_eq!(read_ids(&t, None, None).await, ids_before);
    // Full: the three small files left are rewritten into one.
    compact(&t, true).await;
    let after = live(&t).await;
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].row_count, 250);
    assert_eq!(read_ids(&t, None, None).await, ids_before);
}

/// id → (_ROW_ID, _SEQUENCE_NUMBER) of every row.
async fn tracked(t: &Table) -> std::collections::BTreeMap<i64, (i64, i64)> {
    let plan = t.new_scan().plan().await.unwrap();
    let read = t.new_read().with_projection(vec![
        "id".into(),
        "_ROW_ID".into(),
        "_SEQUENCE_NUMBER".into(),
    ]);
    let mut out = std::collections::BTreeMap::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        let col = |i: usize| {
            b.column(i)
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap()
                .clone()
        };
        let (id, rid, seq) = (col(0), col(1), col(2));
        for i in 0..b.num_rows() {
            assert!(out
                .insert(id.value(i), (rid.value(i), seq.value(i)))
                .is_none());
        }
    }
    out
}

#[tokio::test]
async fn row_tracking_compaction_keeps_row_ids() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.rt",
            &schema(r#""bucket":"-1","row-tracking.enabled":"true","compaction.min.file-num":"3""#),
        )
        .await;
    for i in 0..4 {
        t.write_batches([batch(i * 10..i * 10 + 10, "a")], None)
            .await
            .unwrap();
    }
    let before = tracked(&t).await;
    assert_eq!(before.len(), 40);
    let report = compact(&t, false).await;
    assert!(report.snapshot.is_some());
    let files = live(&t).await;
    assert_eq!(files.len(), 1);
    let f = &files[0];
    assert_eq!(f.first_row_id, None, "the ids are stored in the file");
    assert_eq!(
        f.write_cols.as_deref(),
        Some(&["id", "dt", "v", "_ROW_ID", "_SEQUENCE_NUMBER"].map(String::from)[..])
    );
    assert_eq!(f.file_source, Some(FileSource::Compact));
    assert_eq!(tracked(&t).await, before, "ids and sequence numbers kept");
    // New rows get ids after every existing one.
    t.write_batches([batch(100..103, "a")], None).await.unwrap();
    let after = tracked(&t).await;
    let max_before = before.values().map(|(r, _)| *r).max().unwrap();
    for i in 100..103 {
        assert!(after[&i].0 > max_before, "{after:?}");
    }
    for (k, v) in &before {
        assert_eq!(after[k], *v);
    }
}

/// id → v of every row.
async fn values(t: &Table) -> std::collections::BTreeMap<i64, Option<i32>> {
    let plan = t.new_scan().plan().await.unwrap();
    let read = t.new_read().with_projection(vec!["id".into(), "v".into()]);
    let mut out = std::collections::BTreeMap::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let v = b.column(1).as_any().downcast_ref::<Int32Array>().unwrap();
        for i in 0..b.num_rows() {
            out.insert(id.value(i), v.is_valid(i).then(|| v.value(i)));
        }
    }
    out
}

#[tokio::test]
async fn data_evolution_compaction_stitches_ranges_keeping_row_ids() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.de",
            &schema(
                r#""bucket":"-1","row-tracking.enabled":"true","data-evolution.enabled":"true",
                "compaction.min.file-num":"2""#,
            ),
        )
        .await;
    for i in 0..3 {
        t.write_batches([batch(i * 10..i * 10 + 4, "a")], None)
            .await
            .unwrap();
    }
    // v of row ids 1 and 9 (ids 1 and 21): one column file per range touched.
    let update = |rids: &[i64], vs: &[Option<i32>]| {
        let schema = Arc::new(ArrowSchema::new(vec![
            Field::new("_ROW_ID", ArrowType::Int64, false),
            Field::new("v", ArrowType::Int32, true),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(rids.to_vec())),
                Arc::new(Int32Array::from(vs.to_vec())),
            ],
        )
        .unwrap()
    };
    t.update_columns(&update(&[1, 9], &[Some(-1), None]))
        .await
        .unwrap();
    let files_before = live(&t).await;
    assert_eq!(files_before.len(), 5);
    let (rows_before, ids_before) = (values(&t).await, tracked(&t).await);
    assert_eq!(rows_before[&1], Some(-1));
    assert_eq!(rows_before[&21], None);

    let report = compact(&t, false).await;
    let s = report.snapshot.expect("compacted");
    let snap = t.snapshot_manager().snapshot(s).await.unwrap();
    assert_eq!(snap.commit_kind, CommitKind::Compact);
    let files = live(&t).await;
    assert_eq!(files.len(), 1, "{files:?}");
    let f = &files[0];
    // One file of every column for the three contiguous ranges, as Java's
    // DataEvolutionNormalCompactTask writes it.
    assert_eq!(f.first_row_id, Some(0));
    assert_eq!(f.row_count, 12);
    assert_eq!(f.write_cols, None);
    assert_eq!(f.level, 0);
    assert_eq!(f.file_source, Some(FileSource::Append));
    let seq = |g: fn(&DataFileMeta) -> i64| files_before.iter().map(g);
    assert_eq!(
        f.min_sequence_number,
        seq(|f| f.min_sequence_number).min().unwrap()
    );
    assert_eq!(
        f.max_sequence_number,
        seq(|f| f.max_sequence_number).max().unwrap()
    );
    assert_eq!(values(&t).await, rows_before);
    let ids_after = tracked(&t).await;
    let row_ids = |m: &std::collections::BTreeMap<i64, (i64, i64)>| {
        m.iter().map(|(k, (r, _))| (*k, *r)).collect::<Vec<_>>()
    };
    assert_eq!(row_ids(&ids_after), row_ids(&ids_before));
    // Nothing left: a second run commits nothing; new rows get new ids.
    assert_eq!(compact(&t, false).await.snapshot, None);
    t.write_batches([batch(100..102, "a")], None).await.unwrap();
    assert_eq!(tracked(&t).await[&100].0, 12);
}

/// Commits a deletion-vector index file of partition `dt` marking `positions` of each file.
async fn delete_positions(t: &Table, dt: &str, vectors: &[(&DataFileMeta, &[u64])]) {
    use strata::commit::CommitMessage;
    use strata::read::deletion_vectors::DeletionVector;
    use strata::unstable::format::encode_deletion_vectors_index;
    use strata::unstable::index::DELETION_VECTORS_INDEX;
    use strata_spec::manifest::{FileKind, IndexFileMeta, IndexManifestEntry};

    let list: Vec<(String, DeletionVector)> = vectors
        .iter()
        .map(|(f, ps)| {
            let mut dv = DeletionVector::new_empty(false);
            for p in *ps {
                dv.delete(*p).unwrap();
            }
            (f.file_name.clone(), dv)
        })
        .collect();
    let (bytes, ranges) = encode_deletion_vectors_index(&list).unwrap();
    let name = format!("index-test-{dt}-{}", vectors[0].0.file_name);
    let size = bytes.len() as i64;
    t.file_io()
        .put(&t.paths().index_file(&name), bytes::Bytes::from(bytes))
        .await
        .unwrap();
    let partition = live_in(t, dt).await[0].clone();
    let plan = t.new_scan().plan().await.unwrap();
    let split = plan
        .splits
        .iter()
        .find(|s| s.files.iter().any(|f| f.file_name == partition.file_name))
        .unwrap();
    let mut msg = CommitMessage::new(split.partition.clone(), split.bucket, split.total_buckets);
    msg.index_changes.push(IndexManifestEntry {
        kind: FileKind::Add,
        partition: split.partition.clone(),
        bucket: split.bucket,
        index_file: IndexFileMeta {
            index_type: DELETION_VECTORS_INDEX.into(),
            file_name: name,
            file_size: size,
            row_count: ranges.len() as i64,
            dv_ranges: Some(ranges),
            external_path: None,
            global_index: None,
        },
    });
    // A fixed bucket keeps one index file: the one this replaces is deleted.
    if split.bucket >= 0 && t.options().bucket().unwrap() > 0 {
        let s = t.snapshot_manager().latest().await.unwrap().unwrap();
        let live = strata::unstable::index::IndexManifestStore::new(t)
            .unwrap()
            .read_snapshot(&s)
            .await
            .unwrap();
        for mut e in live {
            if e.partition == split.partition && e.bucket == split.bucket {
                e.kind = FileKind::Delete;
                msg.index_changes.push(e);
            }
        }
    }
    t.new_commit().unwrap().commit(vec![msg]).await.unwrap();
}

/// Data files named by the live deletion-vector index entries, per index file.
async fn dv_index(t: &Table) -> Vec<Vec<String>> {
    let s = t.snapshot_manager().latest().await.unwrap().unwrap();
    let entries = strata::unstable::index::IndexManifestStore::new(t)
        .unwrap()
        .read_snapshot(&s)
        .await
        .unwrap();
    let mut out: Vec<Vec<String>> = entries
        .iter()
        .map(|e| {
            let mut v: Vec<String> = e
                .index_file
                .dv_ranges
                .iter()
                .flatten()
                .map(|r| r.data_file_name.clone())
                .collect();
            v.sort();
            v
        })
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn deletion_vector_compaction_applies_and_drops_vectors() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.dv",
            &schema(
                r#""bucket":"-1","deletion-vectors.enabled":"true","compaction.min.file-num":"2""#,
            ),
        )
        .await;
    for i in 0..3 {
        t.write_batches([batch(i * 10..i * 10 + 10, "a")], None)
            .await
            .unwrap();
    }
    let mut files = live(&t).await;
    files.sort_by_key(|f| f.min_sequence_number);
    // Rows 1 (file 0) and 10, 12 (file 1) deleted, in one index file.
    delete_positions(&t, "a", &[(&files[0], &[1]), (&files[1], &[0, 2])]).await;
    let want: Vec<i64> = (0..30).filter(|i| ![1, 10, 12].contains(i)).collect();
    assert_eq!(read_ids(&t, None, None).await, want);

    compact(&t, false).await;
    // The files with vectors are compacted (the third, alone without one, is left) and their
    // vectors leave the index with them.
    let after = live(&t).await;
    assert_eq!(after.len(), 2, "{after:?}");
    assert!(after.iter().any(|f| f.file_name == files[2].file_name));
    let new = after
        .iter()
        .find(|f| f.file_name != files[2].file_name)
        .unwrap();
    assert_eq!(
        (new.row_count, new.file_source, new.level),
        (17, Some(FileSource::Compact), 0)
    );
    assert!(dv_index(&t).await.is_empty());
    assert_eq!(read_ids(&t, None, None).await, want);
}

#[tokio::test]
async fn deletion_vector_compaction_keeps_vectors_of_files_not_rewritten() {
    let wh = Warehouse::new();
    // With a 600-byte target no file is small: only a file whose vector deletes more than
    // compaction.delete-ratio-threshold of its rows is compacted.
    let t = wh
        .create(
            "db.dv",
            &schema(
                r#""bucket":"-1","deletion-vectors.enabled":"true","target-file-size":"600 b""#,
            ),
        )
        .await;
    for i in 0..2 {
        t.write_batches([batch(i * 10..i * 10 + 10, "a")], None)
            .await
            .unwrap();
    }
    let mut files = live(&t).await;
    files.sort_by_key(|f| f.min_sequence_number);
    assert!(files.iter().all(|f| f.file_size > 420), "{files:?}");
    delete_positions(&t, "a", &[(&files[0], &[0, 1, 2, 3, 4]), (&files[1], &[9])]).await;
    let want: Vec<i64> = (5..19).collect();
    assert_eq!(read_ids(&t, None, None).await, want);
    compact(&t, false).await;
    let after = live(&t).await;
    assert_eq!(after.len(), 2);
    assert!(!after.iter().any(|f| f.file_name == files[0].file_name));
    // The index file is replaced by one holding only the vector of the file left.
    assert_eq!(dv_index(&t).await, vec![vec![files[1].file_name.clone()]]);
    assert_eq!(read_ids(&t, None, None).await, want);
}

#[tokio::test]
async fn fixed_bucket_deletion_vector_compaction_rewrites_the_bucket_index() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.fixed",
            &schema(r#""bucket":"1","bucket-key":"id","deletion-vectors.enabled":"true","compaction.min.file-num":"3""#),
        )
        .await;
    for i in 0..3 {
        t.write_batches([batch(i * 10..i * 10 + 10, "a")], None)
            .await
            .unwrap();
    }
    let mut files = live(&t).await;
    files.sort_by_key(|f| f.min_sequence_number);
    delete_positions(&t, "a", &[(&files[1], &[0, 1])]).await;
    let want: Vec<i64> = (0..30).filter(|i| ![10, 11].contains(i)).collect();
    assert_eq!(read_ids(&t, None, None).await, want);
    // Normal picking (three small files): all rewritten, the bucket's index file replaced by
    // one without vectors, as Java's BucketedDvMaintainer writes it.
    compact(&t, false).await;
    let after = live(&t).await;
    assert_eq!(after.len(), 1, "{after:?}");
    assert_eq!(after[0].row_count, 28);
    assert_eq!(dv_index(&t).await, vec![Vec::<String>::new()]);
    assert_eq!(read_ids(&t, None, None).await, want);
    // Full: a file with a vector is rewritten even alone.
    delete_positions(&t, "a", &[(&after[0], &[0])]).await;
    compact(&t, true).await;
    let last = live(&t).await;
    assert_eq!((last.len(), last[0].row_count), (1, 27));
    assert_ne!(last[0].file_name, after[0].file_name);
    assert_eq!(read_ids(&t, None, None).await, want[1..].to_vec());
}

#[tokio::test]
async fn row_tracking_deletion_vector_compaction_keeps_ids_of_live_rows() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.rtdv",
            &schema(
                r#""bucket":"-1","row-tracking.enabled":"true","deletion-vectors.enabled":"true",
                "compaction.min.file-num":"2""#,
            ),
        )
        .await;
    for i in 0..3 {
        t.write_batches([batch(i * 10..i * 10 + 10, "a")], None)
            .await
            .unwrap();
    }
    let mut files = live(&t).await;
    files.sort_by_key(|f| f.min_sequence_number);
    let all = tracked(&t).await;
    // Rows 1 (file 0) and 10, 12, 19 (file 1) deleted: the live rows keep the ids and sequence
    // numbers their positions gave them.
    delete_positions(&t, "a", &[(&files[0], &[1]), (&files[1], &[0, 2, 9])]).await;
    let deleted = [1, 10, 12, 19];
    let want: std::collections::BTreeMap<i64, (i64, i64)> = all
        .iter()
        .filter(|(id, _)| !deleted.contains(*id))
        .map(|(k, v)| (*k, *v))
        .collect();
    assert_eq!(want.len(), 26);
    assert_eq!(
        want[&11].0, 11,
        "row id from the position, vector applied after"
    );
    assert_eq!(tracked(&t).await, want);
    let next = |s: strata_spec::snapshot::Snapshot| s.next_row_id;
    let next_before = next(t.snapshot_manager().latest().await.unwrap().unwrap());
    assert_eq!(next_before, Some(30));

    compact(&t, false).await;
    let after = live(&t).await;
    let new: Vec<_> = after
        .iter()
        .filter(|f| f.file_source == Some(FileSource::Compact))
        .collect();
    // The files with vectors are rewritten, the third (alone without one) is left.
    assert_eq!((after.len(), new.len()), (2, 1), "{after:?}");
    let f = new[0];
    assert_eq!(f.first_row_id, None, "the ids are stored in the file");
    assert_eq!(
        f.write_cols.as_deref(),
        Some(&["id", "dt", "v", "_ROW_ID", "_SEQUENCE_NUMBER"].map(String::from)[..])
    );
    assert_eq!((f.row_count, f.level), (16, 0));
    // Java's RowDataFileSequenceNumberTracker: the range of the stored _SEQUENCE_NUMBERs.
    assert_eq!(
        (f.min_sequence_number, f.max_sequence_number),
        (want[&0].1, want[&11].1)
    );
    assert_ne!(want[&0].1, want[&11].1);
    assert!(dv_index(&t).await.is_empty());
    assert_eq!(
        tracked(&t).await,
        want,
        "live rows keep ids and sequence numbers"
    );
    let snap = t.snapshot_manager().latest().await.unwrap().unwrap();
    assert_eq!(snap.commit_kind, CommitKind::Compact);
    assert_eq!(next(snap), next_before, "no id reassigned");
    // A vector on the compacted file (ids stored in it) drops the row and keeps the others'.
    delete_positions(&t, "a", &[(f, &[0])]).await;
    let mut left = want.clone();
    left.remove(&0);
    assert_eq!(tracked(&t).await, left);
    compact(&t, true).await;
    assert_eq!(tracked(&t).await, left);
    assert!(dv_index(&t).await.is_empty());
    // New rows get ids after every id ever given.
    t.write_batches([batch(100..102, "a")], None).await.unwrap();
    assert_eq!(tracked(&t).await[&100].0, 30);
}

#[tokio::test]
async fn deletion_vector_compaction_refused_where_not_done() {
    let wh = Warehouse::new();
    for (name, option, why) in [(
        "db.de",
        r#""bucket":"-1","row-tracking.enabled":"true","data-evolution.enabled":"true",
            "deletion-vectors.enabled":"true","data-evolution.compaction.rewrite-row-ids":"true""#,
        "rewrite-row-ids = true",
    )] {
        let t = wh.create(name, &schema(option)).await;
        t.write_batches([batch(0..10, "a")], None).await.unwrap();
        let err = t
            .compact(&CompactRequest::default(), &|_, _| {})
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unsupported, "{err}");
        assert!(err.to_string().contains(why), "{err}");
    }
}

#[tokio::test]
async fn fixed_bucket_partition_left_in_old_bucket_count_refused_as_java() {
    let wh = Warehouse::new();
    let t = wh
        .create("db.t", &schema(r#""bucket":"2","bucket-key":"id""#))
        .await;
    for i in 0..3 {
        t.write_batches([batch(i * 10..i * 10 + 10, "a")], None)
            .await
            .unwrap();
    }
    let t = t
        .with_dynamic_options([("bucket".to_string(), "4".to_string())])
        .unwrap();
    let err = t
        .compact(
            &CompactRequest {
                full: true,
                ..Default::default()
            },
            &|_, _| {},
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("with a new bucket num 4"), "{err}");
}
