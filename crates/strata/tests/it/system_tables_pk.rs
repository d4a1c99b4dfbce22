//! `strata::system` on primary-key tables: levels and sorted runs before and after a full
//! compaction, key text, time travel, bucket and partition sums, schema JSON and options in
//! Java's order, tags, and deletion-vector counts. Helpers are in `system_tables`.

use std::collections::BTreeSet;

use strata::maintenance::TableLifecycle;
use strata::system;

use crate::lifecycle_support::{batch, full_compact, write, Lake};
use crate::system_tables::{ints, longs, longs_nn, plan_files, schema_file, strs_nn};

#[tokio::test]
async fn primary_key_table_levels_before_and_after_compaction() {
    let lake = Lake::new();
    let t = lake.pk_table("db.pk", r#","write-only":"true""#).await;
    assert_eq!(write(&t, batch(0..100, "a")).await, 1);
    assert_eq!(write(&t, batch(50..150, "b")).await, 2);
    assert_eq!(write(&t, batch(200..250, "c")).await, 3);
    t.create_tag("before", None, None).await.unwrap();

    // Three level-0 files, one sorted run each, newest first.
    let lv = system::levels(&t).await.unwrap();
    assert_eq!(ints(&lv, "level"), [0, 0, 0]);
    assert_eq!(ints(&lv, "sorted_run"), [0, 1, 2]);
    assert_eq!(strs_nn(&lv, "min_key"), ["[200]", "[50]", "[0]"]);
    assert_eq!(strs_nn(&lv, "max_key"), ["[249]", "[149]", "[99]"]);
    assert_eq!(longs_nn(&lv, "record_count"), [50, 100, 100]);
    let max_seq = longs_nn(&lv, "max_sequence_number");
    assert!(
        max_seq[0] > max_seq[1] && max_seq[1] > max_seq[2],
        "{max_seq:?}"
    );
    let level0: BTreeSet<String> = strs_nn(&lv, "file_name").into_iter().collect();
    assert_eq!(level0, plan_files(&t, None).await);

    let f = system::files(&t).await.unwrap();
    assert_eq!(strs_nn(&f, "min_key"), ["[0]", "[50]", "[200]"]);
    assert_eq!(strs_nn(&f, "partition"), ["{}", "{}", "{}"]);
    assert!(strs_nn(&f, "null_value_counts")
        .iter()
        .all(|x| x == "{id=0, v=0}"));
    assert!(strs_nn(&f, "min_value_stats")[0].starts_with("{id=0, v="));
    assert_eq!(longs(&f, "deleteRowCount"), [Some(0), Some(0), Some(0)]);

    let compact = full_compact(&t).await;
    assert_eq!(compact, 4);
    let s = system::snapshots(&t).await.unwrap();
    assert_eq!(
        strs_nn(&s, "commit_kind"),
        ["APPEND", "APPEND", "APPEND", "COMPACT"]
    );
    assert_eq!(longs(&s, "total_record_count")[3], Some(200));

    // One sorted run at the top level, in key order, exactly the scan plan's files.
    let lv = system::levels(&t).await.unwrap();
    let levels = ints(&lv, "level");
    assert!(
        levels.iter().all(|l| *l == levels[0] && *l > 0),
        "{levels:?}"
    );
    assert!(ints(&lv, "sorted_run").iter().all(|r| *r == 0));
    let after: BTreeSet<String> = strs_nn(&lv, "file_name").into_iter().collect();
    assert_eq!(after, plan_files(&t, None).await);
    assert_eq!(longs_nn(&lv, "record_count").iter().sum::<i64>(), 200);
    assert_eq!(strs_nn(&lv, "min_key")[0], "[0]");
    assert_eq!(strs_nn(&lv, "max_key").last().unwrap(), "[249]");
    assert!(strs_nn(&lv, "file_source").iter().all(|x| x == "COMPACT"));
    let f = system::files(&t).await.unwrap();
    assert_eq!(ints(&f, "level"), levels);

    // Time travel: snapshot 3 still shows the three level-0 files.
    let lv3 = system::levels_at(&t, Some(3)).await.unwrap();
    assert_eq!(
        strs_nn(&lv3, "file_name")
            .into_iter()
            .collect::<BTreeSet<_>>(),
        level0
    );
    let f3 = system::files_at(&t, Some(3)).await.unwrap();
    assert_eq!(ints(&f3, "level"), [0, 0, 0]);

    // buckets and partitions of an unpartitioned one-bucket table.
    let bk = system::buckets(&t).await.unwrap();
    assert_eq!(strs_nn(&bk, "partition"), ["{}"]);
    assert_eq!(longs_nn(&bk, "record_count"), [200]);
    assert_eq!(longs_nn(&bk, "file_count"), [after.len() as i64]);
    let pt = system::partitions(&t).await.unwrap();
    assert_eq!(strs_nn(&pt, "partition"), [""]);
    assert_eq!(ints(&pt, "total_buckets"), [1]);
    assert_eq!(longs_nn(&pt, "record_count"), [200]);
    let m = system::manifests(&t).await.unwrap();
    let net: i64 = longs_nn(&m, "num_added_files").iter().sum::<i64>()
        - longs_nn(&m, "num_deleted_files").iter().sum::<i64>();
    assert_eq!(net, after.len() as i64);
    assert!(strs_nn(&m, "min_partition_stats").iter().all(|p| p == "{}"));

    // schemas and options of a primary-key table; the tag.
    let dir = lake.table_dir("db.pk");
    let file = schema_file(&dir, 0);
    let sc = system::schemas(&t).await.unwrap();
    assert_eq!(strs_nn(&sc, "primary_keys"), [r#"["id"]"#]);
    assert_eq!(
        strs_nn(&sc, "fields"),
        [serde_json::to_string(&file["fields"]).unwrap()]
    );
    assert_eq!(
        strs_nn(&sc, "fields")[0],
        r#"[{"id":0,"name":"id","type":"BIGINT NOT NULL"},{"id":1,"name":"v","type":"STRING"}]"#
    );
    // Java's HashMap order of these keys (checked with OpenJDK 17).
    let o = system::options(&t).await.unwrap();
    assert_eq!(
        strs_nn(&o, "key"),
        ["bucket", "target-file-size", "write-only"]
    );
    assert_eq!(strs_nn(&o, "value"), ["1", "256kb", "true"]);
    let tg = system::tags(&t).await.unwrap();
    assert_eq!(strs_nn(&tg, "tag_name"), ["before"]);
    assert_eq!(longs_nn(&tg, "snapshot_id"), [3]);
    assert_eq!(longs(&tg, "record_count"), [Some(250)]);
}

/// `partitions.deleted_record_count` adds up the cardinalities of the deletion vectors of the
/// snapshot's index manifest; `files` lists the level-0 files of a deletion-vector table that
/// scan planning leaves out.
#[tokio::test]
async fn deletion_vector_counts() {
    use strata::commit::CommitMessage;
    use strata::unstable::index::DELETION_VECTORS_INDEX;
    use strata_spec::binary_row::BinaryRow;
    use strata_spec::manifest::{DeletionVectorMeta, FileKind, IndexFileMeta, IndexManifestEntry};

    let lake = Lake::new();
    let t = lake
        .pk_table(
            "db.dv",
            r#","deletion-vectors.enabled":"true","write-only":"true""#,
        )
        .await;
    write(&t, batch(0..10, "a")).await;
    write(&t, batch(5..8, "b")).await;
    let pt = system::partitions(&t).await.unwrap();
    assert_eq!(longs(&pt, "deleted_record_count"), [Some(0)]);
    let live = system::live_files(&t, None).await.unwrap();
    assert_eq!(live.files.len(), 2);
    assert_eq!(system::files(&t).await.unwrap().num_rows(), 2);

    let name = "index-dv-system-0".to_string();
    t.file_io()
        .put(&t.paths().index_file(&name), bytes::Bytes::from(vec![1u8]))
        .await
        .unwrap();
    let entry = IndexManifestEntry {
        kind: FileKind::Add,
        partition: BinaryRow::empty(),
        bucket: 0,
        index_file: IndexFileMeta {
            index_type: DELETION_VECTORS_INDEX.into(),
            file_name: name,
            file_size: 1,
            row_count: 2,
            dv_ranges: Some(vec![DeletionVectorMeta {
                data_file_name: live.files[0].file.file_name.clone(),
                offset: 1,
                length: 0,
                cardinality: Some(3),
            }]),
            external_path: None,
            global_index: None,
        },
    };
    let msg = CommitMessage {
        partition: BinaryRow::empty(),
        bucket: 0,
        total_buckets: 1,
        new_files: Vec::new(),
        deleted_files: Vec::new(),
        compact_before: Vec::new(),
        compact_after: Vec::new(),
        new_changelog: Vec::new(),
        compact_changelog: Vec::new(),
        compact_index_changes: Vec::new(),
        index_changes: vec![entry],
        index_base: None,
        compact_base: None,
    };
    t.new_commit().unwrap().commit(vec![msg]).await.unwrap();
    let pt = system::partitions(&t).await.unwrap();
    assert_eq!(longs(&pt, "deleted_record_count"), [Some(3)]);
    let before = system::partitions_at(&t, Some(2)).await.unwrap();
    assert_eq!(longs(&before, "deleted_record_count"), [Some(0)]);
}
