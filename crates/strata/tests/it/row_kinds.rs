//! Reads with row kinds (`TableRead::with_row_kinds`, Paimon's `t$audit_log`) and APPEND
//! commits that remove files (`CommitMessage::deleted_files`, the copy-on-write rewrite).

use std::collections::BTreeMap;

use arrow::array::{Array, Int64Array, StringArray};
use strata::commit::CommitMessage;
use strata::spec::kv::RowKind;

use crate::lifecycle_support::{batch, full_compact, rows, write, Lake};

/// id → row kind of every record a read with row kinds returns.
async fn kinds(t: &strata::table::Table) -> BTreeMap<i64, String> {
    let splits = t.new_scan().plan().await.unwrap().splits;
    let read = t.new_read().with_row_kinds();
    let schema = read.output_schema().unwrap();
    assert_eq!(schema.field(0).name(), "rowkind");
    let mut out = BTreeMap::new();
    for b in read.to_batches(splits).await.unwrap() {
        assert_eq!(b.schema(), schema);
        let k = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
        let id = b.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
        for i in 0..b.num_rows() {
            assert!(out.insert(id.value(i), k.value(i).to_string()).is_none());
        }
    }
    out
}

#[tokio::test]
async fn primary_key_reads_keep_deletes_and_updates_until_full_compaction() {
    let lake = Lake::new();
    let t = lake.pk_table("db.kinds", r#","write-only":"true""#).await;
    write(&t, batch(0..6, "a")).await;
    // Updates of 1 and 2, a delete of 3, in one commit.
    let mut w = t.new_write().unwrap();
    let b = batch(1..4, "b");
    w.write_with_kinds(
        &b,
        &[RowKind::UpdateAfter, RowKind::UpdateAfter, RowKind::Delete],
    )
    .await
    .unwrap();
    t.new_commit()
        .unwrap()
        .commit(w.prepare_commit().await.unwrap())
        .await
        .unwrap();

    let got = kinds(&t).await;
    let want: BTreeMap<i64, String> = [
        (0, "+I"),
        (1, "+U"),
        (2, "+U"),
        (3, "-D"),
        (4, "+I"),
        (5, "+I"),
    ]
    .into_iter()
    .map(|(i, k)| (i, k.to_string()))
    .collect();
    assert_eq!(got, want);
    // The plain read drops the delete.
    assert_eq!(rows(&t, None).await.len(), 5);

    // A filter is refused, not ignored.
    let err = t
        .new_read()
        .with_row_kinds()
        .with_filter(strata::expr::Predicate::equal(
            "id",
            strata::spec::Datum::BigInt(1),
        ))
        .to_stream(vec![])
        .err()
        .expect("a filter with row kinds is refused");
    assert!(err.to_string().contains("row kinds and a filter"), "{err}");

    // A full compaction into the top level drops the delete record.
    full_compact(&t).await;
    let got = kinds(&t).await;
    assert_eq!(got.keys().copied().collect::<Vec<_>>(), [0, 1, 2, 4, 5]);
    assert!(got.values().all(|k| k != "-D"), "{got:?}");
}

#[tokio::test]
async fn append_rows_are_inserts() {
    let lake = Lake::new();
    let t = lake
        .create(
            "db.log",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"}],
                "options":{"bucket":"-1"}}"#,
        )
        .await;
    write(&t, batch(0..3, "a")).await;
    let got = kinds(&t).await;
    assert_eq!(got.len(), 3);
    assert!(got.values().all(|k| k == "+I"));
}

#[tokio::test]
async fn an_append_commit_replaces_files_and_refuses_files_no_longer_live() {
    let lake = Lake::new();
    let t = lake
        .create(
            "db.cow",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"}],
                "options":{"bucket":"-1"}}"#,
        )
        .await;
    write(&t, batch(0..10, "a")).await;
    let plan = t.new_scan().plan().await.unwrap();
    let split = plan.splits[0].clone();
    assert_eq!(split.files.len(), 1);
    let old = split.files[0].clone();

    // Rewrite: ids 0..5 again, the old file removed, one APPEND snapshot.
    let mut w = t.new_write().unwrap();
    w.write(&batch(0..5, "b")).await.unwrap();
    let mut messages = w.prepare_commit().await.unwrap();
    let mut removal =
        CommitMessage::new(split.partition.clone(), split.bucket, split.total_buckets);
    removal.deleted_files.push(old.clone());
    // The message survives the wire (a remote writer hands it to the committer).
    let removal: CommitMessage =
        serde_json::from_str(&serde_json::to_string(&removal).unwrap()).unwrap();
    assert_eq!(removal.deleted_files, vec![old.clone()]);
    messages.push(removal.clone());
    let id = t.new_commit().unwrap().commit(messages).await.unwrap();
    assert_eq!(id, Some(2));
    let snapshot = t.snapshot_manager().snapshot(2).await.unwrap();
    assert_eq!(
        snapshot.commit_kind,
        strata::spec::snapshot::CommitKind::Append
    );
    assert_eq!(snapshot.total_record_count, 5);
    let got = rows(&t, None).await;
    assert_eq!(got.keys().copied().collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
    assert!(got.values().all(|v| v.starts_with("b-")));

    // Removing the same file again is a conflict: nothing is committed.
    let err = t
        .new_commit()
        .unwrap()
        .commit(vec![removal])
        .await
        .expect_err("the file is no longer live");
    assert!(err.to_string().contains("no longer live"), "{err}");
    assert_eq!(t.snapshot_manager().latest().await.unwrap().unwrap().id, 2);
}
