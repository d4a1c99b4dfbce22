//! Unit tests of the index module: HASH file bytes, Java's index-manifest combination rules,
//! and the assigner's routing on an in-memory table.

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{FileKind, IndexFileMeta, IndexManifestEntry};
use strata_spec::schema::Schema;
use strata_spec::{DataType, Datum};

use super::*;
use crate::catalog::{FileSystemCatalog, Identifier};
use crate::commit::{attach_index_changes, TableCommit};
use crate::error::ErrorDetail;
use crate::table::Table;

async fn table(options: &str, partitioned: bool) -> Table {
    let catalog = FileSystemCatalog::open("memory://index-tests").unwrap();
    let json = format!(
        r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"dt","type":"STRING NOT NULL"}},
        {{"name":"v","type":"INT"}}],"partitionKeys":{},"primaryKeys":["id","dt"],
        "options":{{"bucket":"-1"{options}}}}}"#,
        if partitioned { r#"["dt"]"# } else { "[]" }
    );
    let id: Identifier = "db.t".parse().unwrap();
    catalog
        .create_table(&id, &Schema::from_json(&json).unwrap(), false)
        .await
        .unwrap();
    catalog.get_table(&id).await.unwrap()
}

fn part(dt: &str) -> BinaryRow {
    BinaryRow::from_datums(&[Some(Datum::String(dt.into()))], &[DataType::string()]).unwrap()
}

fn entry(kind: FileKind, p: &BinaryRow, bucket: i32, ty: &str, name: &str) -> IndexManifestEntry {
    IndexManifestEntry {
        kind,
        partition: p.clone(),
        bucket,
        index_file: IndexFileMeta {
            index_type: ty.into(),
            file_name: name.into(),
            file_size: 4,
            row_count: 1,
            dv_ranges: None,
            external_path: None,
            global_index: None,
        },
    }
}

#[test]
fn hash_file_bytes() {
    let bytes = encode_hash_index(&[1, -1, 0x0102_0304, i32::MIN]);
    assert_eq!(
        bytes,
        vec![0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 0x80, 0, 0, 0]
    );
    assert_eq!(
        decode_hash_index(&bytes).unwrap(),
        vec![1, -1, 0x0102_0304, i32::MIN]
    );
    assert!(decode_hash_index(&[]).unwrap().is_empty());
    for len in [1, 2, 3, 5, 15] {
        let err = decode_hash_index(&bytes[..len]).unwrap_err().to_string();
        assert!(err.contains("not a whole number of 4-byte hashes"), "{err}");
    }
}

#[tokio::test]
async fn truncated_hash_file_is_a_corrupt_file_error_naming_it() {
    let t = table("", true).await;
    let files = HashIndexFiles::new(&t).unwrap();
    let p = part("a");
    let (meta, path) = files.write(&p, 0, vec![3, 1, 2, 1]).await.unwrap();
    assert_eq!(meta.row_count, 3, "deduplicated");
    assert_eq!(meta.file_size, 12);
    assert!(meta.file_name.starts_with("index-"));
    assert!(path
        .as_ref()
        .ends_with(&format!("db.db/t/index/{}", meta.file_name)));
    assert_eq!(files.read(&p, 0, &meta).await.unwrap(), vec![1, 2, 3]);
    t.file_io().put(&path, vec![0u8; 7]).await.unwrap();
    match files.read(&p, 0, &meta).await.unwrap_err().detail() {
        ErrorDetail::CorruptFile { path: shown, .. } => assert!(shown.contains(&meta.file_name)),
        other => panic!("unexpected {other}"),
    }
}

#[test]
fn combine_hash_entries_by_partition_and_bucket() {
    let (a, b) = (part("a"), part("b"));
    let prev = vec![
        entry(FileKind::Add, &a, 0, HASH_INDEX, "h-a0"),
        entry(FileKind::Add, &a, 1, HASH_INDEX, "h-a1"),
        entry(FileKind::Add, &b, 0, HASH_INDEX, "h-b0"),
        entry(FileKind::Add, &a, 0, DELETION_VECTORS_INDEX, "dv-a0"),
    ];
    // ADD replaces the bucket's file even without a DELETE; DELETE then ADD of the same key
    // keeps the ADD whatever their order; a new bucket is appended.
    let changes = vec![
        entry(FileKind::Add, &a, 1, HASH_INDEX, "h-a1-new"),
        entry(FileKind::Add, &b, 0, HASH_INDEX, "h-b0-new"),
        entry(FileKind::Delete, &b, 0, HASH_INDEX, "h-b0"),
        entry(FileKind::Add, &b, 1, HASH_INDEX, "h-b1"),
    ];
    let out = combine_index_entries(prev.clone(), &changes, false).unwrap();
    let names: Vec<&str> = out
        .iter()
        .map(|e| e.index_file.file_name.as_str())
        .collect();
    // h-b0's DELETE frees its slot, so its replacement is appended after the retained ones.
    assert_eq!(names, ["h-a0", "h-a1-new", "dv-a0", "h-b0-new", "h-b1"]);
    assert!(out.iter().all(|e| e.kind == FileKind::Add));

    // Deleting a bucket's file (an overwrite) removes it; deleting an absent one is a no-op.
    let changes = vec![
        entry(FileKind::Delete, &a, 0, HASH_INDEX, "h-a0"),
        entry(FileKind::Delete, &a, 0, DELETION_VECTORS_INDEX, "dv-a0"),
        entry(FileKind::Delete, &a, 7, HASH_INDEX, "nope"),
    ];
    let out = combine_index_entries(prev.clone(), &changes, false).unwrap();
    let names: Vec<&str> = out
        .iter()
        .map(|e| e.index_file.file_name.as_str())
        .collect();
    assert_eq!(names, ["h-a1", "h-b0"]);

    // A previous manifest may only hold ADD entries.
    let mut bad = prev;
    bad[0].kind = FileKind::Delete;
    assert!(combine_index_entries(bad, &[], false).is_err());
}

#[test]
fn a_buckets_deletion_vector_file_is_replaced_only_by_name() {
    // Stricter than Java's map: a bucket's vectors live in one file that each compaction
    // replaces whole, so a DELETE must name the live file and an ADD must not replace a live
    // file it does not delete (either would drop that file's vectors).
    let a = part("a");
    let dv = |k, b, n| entry(k, &a, b, DELETION_VECTORS_INDEX, n);
    let prev = vec![
        dv(FileKind::Add, 0, "dv-live"),
        dv(FileKind::Add, 1, "dv-other"),
    ];
    let out = combine_index_entries(
        prev.clone(),
        &[
            dv(FileKind::Delete, 0, "dv-live"),
            dv(FileKind::Add, 0, "dv-new"),
        ],
        false,
    )
    .unwrap();
    let names: Vec<&str> = out
        .iter()
        .map(|e| e.index_file.file_name.as_str())
        .collect();
    assert_eq!(names, ["dv-other", "dv-new"]);
    // Planned on a file that another commit replaced since.
    let err = combine_index_entries(
        prev.clone(),
        &[
            dv(FileKind::Delete, 0, "dv-old"),
            dv(FileKind::Add, 0, "dv-new"),
        ],
        false,
    )
    .unwrap_err();
    assert!(
        matches!(err.detail(), ErrorDetail::CommitConflict { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("dv-live"), "{err}");
    // Planned on a bucket without vectors that has some now.
    let err =
        combine_index_entries(prev.clone(), &[dv(FileKind::Add, 0, "dv-new")], false).unwrap_err();
    assert!(err.to_string().contains("dv-new") && err.to_string().contains("dv-live"));
    // Deleting a file twice in one change set (an OVERWRITE's and a compaction's) is fine.
    let out = combine_index_entries(
        prev,
        &[
            dv(FileKind::Delete, 1, "dv-other"),
            dv(FileKind::Delete, 1, "dv-other"),
        ],
        false,
    )
    .unwrap();
    assert_eq!(out.len(), 1);
}

#[test]
fn combine_by_file_name_rules() {
    let e = BinaryRow::empty();
    let dv = |k, n| entry(k, &e, 0, DELETION_VECTORS_INDEX, n);
    // Bucket-unaware deletion vectors: by file name, two files of one bucket coexist.
    let prev = vec![dv(FileKind::Add, "dv1")];
    let out = combine_index_entries(prev.clone(), &[dv(FileKind::Add, "dv2")], true).unwrap();
    assert_eq!(out.len(), 2);
    let err = combine_index_entries(prev.clone(), &[dv(FileKind::Add, "dv1")], true).unwrap_err();
    assert!(err.to_string().contains("dv1"), "{err}");
    let err = combine_index_entries(prev, &[dv(FileKind::Delete, "dv9")], true).unwrap_err();
    assert!(err.to_string().contains("dv9"), "{err}");
    // Global indexes: by file name; deleting an absent file is an error.
    let g = |k, n| entry(k, &e, 0, "btree", n);
    let out = combine_index_entries(
        vec![g(FileKind::Add, "g1")],
        &[g(FileKind::Add, "g2"), g(FileKind::Delete, "g1")],
        false,
    )
    .unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].index_file.file_name, "g2");
    assert!(combine_index_entries(Vec::new(), &[g(FileKind::Delete, "g1")], false).is_err());
}

#[test]
fn assigner_id_matches_java() {
    // Java: (Math.abs(ph % n) + Math.abs(kh % n)) % n.
    assert_eq!(compute_assigner(-7, 5, 4), (3 + 1) % 4);
    assert_eq!(compute_assigner(i32::MIN, i32::MIN, 3), (2 + 2) % 3);
    assert_eq!(compute_assigner(123, -456, 1), 0);
}

async fn assign_all(a: &mut DynamicBucketAssigner, p: &BinaryRow, hashes: &[i32]) -> Vec<i32> {
    a.assign_batch(p, hashes).await.unwrap()
}

#[tokio::test]
async fn new_keys_fill_buckets_up_to_target_and_existing_keys_keep_theirs() {
    let t = table(r#","dynamic-bucket.target-row-num":"3""#, true).await;
    let (a, b) = (part("a"), part("b"));
    let mut asg = DynamicBucketAssigner::new(&t).await.unwrap();
    assert_eq!(
        assign_all(&mut asg, &a, &[10, 11, 12, 10, 13, 14, 15, 16, 11]).await,
        [0, 0, 0, 0, 1, 1, 1, 2, 0]
    );
    assert_eq!(assign_all(&mut asg, &b, &[10, 20]).await, [0, 0]);
    let changes = asg.prepare_commit().await.unwrap();
    assert_eq!(changes.len(), 4);
    assert!(changes.iter().all(|c| c.kind == FileKind::Add));
    let rows: Vec<(i32, i64)> = changes
        .iter()
        .filter(|c| c.partition == a)
        .map(|c| (c.bucket, c.index_file.row_count))
        .collect();
    assert_eq!(rows, [(0, 3), (1, 3), (2, 1)]);
    // Nothing new → nothing to write.
    assert!(asg.prepare_commit().await.unwrap().is_empty());

    let mut messages = Vec::new();
    attach_index_changes(&mut messages, changes, -1);
    assert_eq!(messages.len(), 4);
    TableCommit::new(t.clone())
        .unwrap()
        .commit(messages)
        .await
        .unwrap()
        .unwrap();

    // A new assigner restores the mapping from the HASH files of the snapshot.
    let mut asg = DynamicBucketAssigner::new(&t).await.unwrap();
    assert_eq!(
        assign_all(&mut asg, &a, &[16, 15, 12, 30, 31, 32, 33]).await,
        [2, 1, 0, 2, 2, 3, 3]
    );
    assert_eq!(assign_all(&mut asg, &b, &[20, 21]).await, [0, 0]);
    let changes = asg.prepare_commit().await.unwrap();
    let summary: Vec<(FileKind, String, i32, i64)> = changes
        .iter()
        .map(|c| {
            (
                c.kind,
                t.partition_text(&c.partition).unwrap(),
                c.bucket,
                c.index_file.row_count,
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (FileKind::Delete, "dt=a".to_string(), 2, 1),
            (FileKind::Add, "dt=a".to_string(), 2, 3),
            (FileKind::Add, "dt=a".to_string(), 3, 2),
            (FileKind::Delete, "dt=b".to_string(), 0, 2),
            (FileKind::Add, "dt=b".to_string(), 0, 3),
        ]
    );
    // The new file of a bucket holds the old hashes and the new ones, sorted.
    let files = HashIndexFiles::new(&t).unwrap();
    let add = &changes[1];
    assert_eq!(
        files.read(&a, 2, &add.index_file).await.unwrap(),
        vec![16, 30, 31]
    );
}

#[tokio::test]
async fn max_buckets_caps_new_buckets() {
    let t = table(
        r#","dynamic-bucket.target-row-num":"1","dynamic-bucket.max-buckets":"2""#,
        false,
    )
    .await;
    let mut asg = DynamicBucketAssigner::new(&t).await.unwrap();
    let p = BinaryRow::empty();
    let out = assign_all(&mut asg, &p, &(0..50).collect::<Vec<_>>()).await;
    assert_eq!(&out[..2], [0, 1]);
    assert!(out.iter().all(|b| *b == 0 || *b == 1), "{out:?}");
    // Keys keep the bucket they were given, random or not.
    assert_eq!(
        assign_all(&mut asg, &p, &(0..50).collect::<Vec<_>>()).await,
        out
    );
}

#[tokio::test]
async fn initial_buckets_emulate_parallel_assigners() {
    let t = table(
        r#","dynamic-bucket.target-row-num":"2","dynamic-bucket.initial-buckets":"3""#,
        false,
    )
    .await;
    let mut asg = DynamicBucketAssigner::new(&t).await.unwrap();
    assert_eq!(asg.options().num_assigners, 3);
    let p = BinaryRow::empty();
    let ph = p.hash_code();
    let hashes: Vec<i32> = (0..30).collect();
    let out = assign_all(&mut asg, &p, &hashes).await;
    for (h, b) in hashes.iter().zip(&out) {
        // Assigner k only uses buckets ≡ k (mod 3).
        assert_eq!(b % 3, compute_assigner(ph, *h, 3), "hash {h} bucket {b}");
    }
    // Each assigner fills its buckets in order, 2 keys each: 10 keys → its buckets 0..4.
    let mut per_bucket = std::collections::BTreeMap::<i32, usize>::new();
    for b in &out {
        *per_bucket.entry(*b).or_default() += 1;
    }
    assert!(per_bucket.values().all(|c| *c <= 2), "{per_bucket:?}");
}

#[tokio::test]
async fn abort_deletes_prepared_files_and_resets() {
    let t = table("", false).await;
    let mut asg = DynamicBucketAssigner::new(&t).await.unwrap();
    let p = BinaryRow::empty();
    asg.assign(&p, 1).await.unwrap();
    let changes = asg.prepare_commit().await.unwrap();
    let files = HashIndexFiles::new(&t).unwrap();
    let path = files.path(&p, 0, &changes[0].index_file).unwrap();
    assert!(t.file_io().exists(&path).await.unwrap());
    asg.abort().await;
    assert!(!t.file_io().exists(&path).await.unwrap());
    // After an abort the assigner starts over from the (unchanged) table.
    assert_eq!(asg.assign(&p, 1).await.unwrap(), 0);
    assert_eq!(asg.prepare_commit().await.unwrap().len(), 1);
}

#[tokio::test]
async fn key_hash_is_binary_row_hash_of_trimmed_primary_key() {
    use arrow_array::{Int32Array, Int64Array, RecordBatch, StringArray};
    use std::sync::Arc;
    let t = table("", true).await;
    let hasher = KeyHasher::new(&t).unwrap();
    assert_eq!(hasher.key_columns(), ["id"]);
    let schema = Arc::new(arrow_schema::Schema::new(vec![
        arrow_schema::Field::new("v", arrow_schema::DataType::Int32, true),
        arrow_schema::Field::new("dt", arrow_schema::DataType::Utf8, false),
        arrow_schema::Field::new("id", arrow_schema::DataType::Int64, false),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int32Array::from(vec![Some(1), None])),
            Arc::new(StringArray::from(vec!["a", "b"])),
            Arc::new(Int64Array::from(vec![7, -3])),
        ],
    )
    .unwrap();
    let hashes = hasher.hash_batch(&batch).unwrap();
    for (i, id) in [7i64, -3].iter().enumerate() {
        let row = BinaryRow::from_datums(
            &[Some(Datum::BigInt(*id))],
            &[DataType::not_null(strata_spec::TypeKind::BigInt)],
        )
        .unwrap();
        assert_eq!(hashes[i], key_hash(&row));
        assert_eq!(hasher.key_row(&batch, i).unwrap(), row);
    }
    // Java's BinaryRow hash of the single BIGINT 7 (golden value from strata_spec::bucket).
    assert_eq!(
        hashes[0],
        strata_spec::bucket::hash_bytes_by_words(
            BinaryRow::from_datums(
                &[Some(Datum::BigInt(7))],
                &[DataType::not_null(strata_spec::TypeKind::BigInt)]
            )
            .unwrap()
            .as_bytes()
        )
    );
}
