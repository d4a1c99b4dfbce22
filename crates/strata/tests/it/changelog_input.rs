//! `changelog-producer = input`: every APPEND commit carries changelog files holding the input
//! records, unmerged, with their row kinds, sorted by key and sequence number, listed by the
//! snapshot's `changelogManifestList` (Java `MergeTreeWriter.flushWriteBuffer` and
//! `FileStoreCommitImpl.tryCommitOnce`). Checked on the files themselves: manifests, names,
//! levels, the records in the Parquet files, and their removal by snapshot expiry.

use std::collections::BTreeSet;

use arrow::array::{Array, Int64Array, Int8Array, RecordBatch, StringArray};
use strata::spec::kv::RowKind;
use strata::spec::manifest::{FileKind, ManifestEntry};
use strata::table::Table;

use crate::lifecycle_support::{batch, files_on_disk, rows, Lake};

const INPUT: &str = r#","changelog-producer":"input""#;

/// The changelog entries of snapshot `id` (empty when it has no changelog list).
async fn changelog_entries(t: &Table, id: i64) -> Vec<ManifestEntry> {
    let s = t.snapshot_manager().snapshot(id).await.unwrap();
    let Some(list) = &s.changelog_manifest_list else {
        return Vec::new();
    };
    let store = t.manifest_store();
    let mut out = Vec::new();
    for m in store.read_list(list).await.unwrap() {
        out.extend(store.read_manifest(&m.file_name).await.unwrap());
    }
    out
}

/// (id, row kind, sequence number, v) of every record of the changelog files of `entries`,
/// file by file in manifest order.
fn changelog_records(lake: &Lake, name: &str, entries: &[ManifestEntry]) -> Vec<Record> {
    let mut out = Vec::new();
    for e in entries {
        let path = lake
            .table_dir(name)
            .join(format!("bucket-{}", e.bucket))
            .join(&e.file.file_name);
        let file = std::fs::File::open(&path).unwrap();
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap();
        for b in reader {
            out.extend(records(&b.unwrap()));
        }
    }
    out
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Record {
    id: i64,
    seq: i64,
    kind: String,
    v: Option<String>,
}

fn records(b: &RecordBatch) -> Vec<Record> {
    let col = |n: &str| b.column(b.schema().index_of(n).unwrap()).clone();
    let key = col("_KEY_id");
    let key = key.as_any().downcast_ref::<Int64Array>().unwrap();
    let id = col("id");
    let id = id.as_any().downcast_ref::<Int64Array>().unwrap();
    let seq = col("_SEQUENCE_NUMBER");
    let seq = seq.as_any().downcast_ref::<Int64Array>().unwrap();
    let kind = col("_VALUE_KIND");
    let kind = kind.as_any().downcast_ref::<Int8Array>().unwrap();
    let v = col("v");
    let v = v.as_any().downcast_ref::<StringArray>().unwrap();
    (0..b.num_rows())
        .map(|i| {
            assert_eq!(key.value(i), id.value(i), "_KEY_id is the key");
            Record {
                id: id.value(i),
                seq: seq.value(i),
                kind: RowKind::from_byte(kind.value(i))
                    .unwrap()
                    .short_string()
                    .to_string(),
                v: (!v.is_null(i)).then(|| v.value(i).to_string()),
            }
        })
        .collect()
}

/// Writes the `(ids, tag, kind)` parts as one commit; returns the snapshots it created.
async fn write_parts(t: &Table, parts: &[(std::ops::Range<i64>, &str, RowKind)]) -> Vec<i64> {
    let mut w = t.new_write().unwrap();
    for (ids, tag, kind) in parts {
        let b = batch(ids.clone(), tag);
        let kinds = vec![*kind; b.num_rows()];
        w.write_with_kinds(&b, &kinds).await.unwrap();
    }
    let c = t
        .new_commit()
        .unwrap()
        .commit_messages(w.prepare_commit().await.unwrap(), None)
        .await
        .unwrap();
    c.append.into_iter().chain(c.compact).collect()
}

fn value(id: i64, tag: &str) -> Option<String> {
    let b = batch(id..id + 1, tag);
    let v = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
    Some(v.value(0).to_string())
}

#[tokio::test]
async fn input_changelog_holds_every_record_with_its_kind_sorted_by_key_and_sequence() {
    let lake = Lake::new();
    let name = "db.input";
    let t = lake.pk_table(name, INPUT).await;
    let first = write_parts(&t, &[(0..5, "a", RowKind::Insert)]).await;
    assert_eq!(first.len(), 1, "one APPEND, nothing to compact yet");
    let s1 = t.snapshot_manager().snapshot(first[0]).await.unwrap();
    assert_eq!(s1.changelog_record_count, Some(5));

    // One commit: updates of 1..3 as -U/+U pairs, a second update of 2, a delete of 4.
    let second = write_parts(
        &t,
        &[
            (1..3, "a", RowKind::UpdateBefore),
            (1..3, "b", RowKind::UpdateAfter),
            (2..3, "c", RowKind::UpdateAfter),
            (4..5, "a", RowKind::Delete),
        ],
    )
    .await;
    let append = second[0];
    let snap = t.snapshot_manager().snapshot(append).await.unwrap();
    assert_eq!(snap.commit_kind, strata::spec::snapshot::CommitKind::Append);
    assert_eq!(snap.changelog_record_count, Some(6));
    assert!(snap.changelog_manifest_list_size.unwrap() > 0);

    let entries = changelog_entries(&t, append).await;
    assert!(!entries.is_empty());
    for e in &entries {
        assert_eq!(e.kind, FileKind::Add);
        assert_eq!(e.file.level, 0);
        assert!(
            e.file.file_name.starts_with("changelog-"),
            "{}",
            e.file.file_name
        );
        assert!(e.file.file_name.ends_with(".parquet"));
    }
    assert_eq!(entries.iter().map(|e| e.file.row_count).sum::<i64>(), 6);
    // -U, -U, -D are retractions.
    assert_eq!(
        entries
            .iter()
            .map(|e| e.file.delete_row_count.unwrap_or(0))
            .sum::<i64>(),
        3
    );

    let got = changelog_records(&lake, name, &entries);
    let kinds: Vec<(i64, &str, Option<String>)> = got
        .iter()
        .map(|r| (r.id, r.kind.as_str(), r.v.clone()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (1, "-U", value(1, "a")),
            (1, "+U", value(1, "b")),
            (2, "-U", value(2, "a")),
            (2, "+U", value(2, "b")),
            (2, "+U", value(2, "c")),
            (4, "-D", value(4, "a")),
        ]
    );
    // Within a key, records follow their sequence numbers (arrival order), which continue
    // from the first commit's.
    let seqs: Vec<i64> = got.iter().map(|r| r.seq).collect();
    assert!(seqs.iter().all(|s| *s >= 5), "{seqs:?}");
    assert!(seqs[2] < seqs[3] && seqs[3] < seqs[4], "{seqs:?}");

    // The data files hold the merged rows; the changelog does not change what a read sees.
    let data = rows(&t, None).await;
    assert_eq!(data.keys().copied().collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    assert_eq!(Some(data[&2].clone()), value(2, "c"));

    // A compaction's COMPACT snapshot carries no changelog with the input producer.
    for id in second.iter().skip(1) {
        let s = t.snapshot_manager().snapshot(*id).await.unwrap();
        assert_eq!(s.changelog_manifest_list, None);
        assert_eq!(s.changelog_record_count, None);
    }
}

#[tokio::test]
async fn spilled_buffers_keep_every_record_in_the_changelog() {
    let lake = Lake::new();
    let name = "db.spill";
    let t = lake
        .pk_table(
            name,
            r#","changelog-producer":"input","write-buffer-size":"256kb","write-buffer-spillable":"true","write-only":"true""#,
        )
        .await;
    let mut w = t.new_write().unwrap();
    // 8 rounds over the same 3000 keys: every key 8 times, interleaved across spilled runs.
    let mut expected: Vec<(i64, String)> = Vec::new();
    for round in 0..8 {
        let tag = format!("r{round}");
        let b = batch(0..3000, &tag);
        w.write_with_kinds(&b, &vec![RowKind::UpdateAfter; 3000])
            .await
            .unwrap();
        for id in 0..3000 {
            expected.push((id, value(id, &tag).unwrap()));
        }
    }
    let c = t
        .new_commit()
        .unwrap()
        .commit_messages(w.prepare_commit().await.unwrap(), None)
        .await
        .unwrap();
    let id = c.append.unwrap();
    let entries = changelog_entries(&t, id).await;
    let got = changelog_records(&lake, name, &entries);
    assert_eq!(got.len(), 24_000);
    // Sorted by key then sequence across all files; within a key, the rounds in order.
    let mut sorted = got.clone();
    sorted.sort_by_key(|r| (r.id, r.seq));
    assert_eq!(
        got, sorted,
        "changelog records are sorted by (key, sequence)"
    );
    expected.sort_by_key(|(id, _)| *id); // stable: rounds stay in order per key
    let values: Vec<(i64, String)> = got.iter().map(|r| (r.id, r.v.clone().unwrap())).collect();
    assert_eq!(values, expected);
    // The data is merged: every key once, with its last value.
    let data = rows(&t, None).await;
    assert_eq!(data.len(), 3000);
    assert_eq!(Some(data[&17].clone()), value(17, "r7"));
}

#[tokio::test]
async fn overwrite_commits_no_changelog_and_orc_changelog_files_are_refused() {
    let lake = Lake::new();
    let t = lake.pk_table("db.ow", INPUT).await;
    write_parts(&t, &[(0..10, "a", RowKind::Insert)]).await;
    let c = t
        .write_batches(
            [batch(0..3, "b")],
            Some(strata::commit::OverwriteScope::WholeTable),
        )
        .await
        .unwrap()
        .unwrap();
    let s = t.snapshot_manager().snapshot(c).await.unwrap();
    assert_eq!(s.changelog_manifest_list, None);
    let names: BTreeSet<String> = files_on_disk(&lake.table_dir("db.ow"))
        .into_iter()
        .filter(|p| p.contains("changelog-"))
        .collect();
    assert_eq!(
        names.len(),
        1,
        "only the first commit's changelog: {names:?}"
    );

    // Changelog files are Parquet only.
    let json = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"}],"primaryKeys":["id"],
        "options":{"bucket":"1","changelog-producer":"input","changelog-file.format":"orc"}}"#;
    let id: strata::catalog::Identifier = "db.orc_changelog".parse().unwrap();
    let created = lake
        .catalog
        .create_table(
            &id,
            &strata_spec::schema::Schema::from_json(json).unwrap(),
            false,
        )
        .await;
    let err = match created {
        Err(e) => e.to_string(),
        Ok(_) => {
            let t = lake.table("db.orc_changelog").await;
            t.new_write()
                .err()
                .expect("orc changelog files are refused")
                .to_string()
        }
    };
    assert!(err.contains("changelog-file.format"), "{err}");
}

#[tokio::test]
async fn changelog_prefix_and_expiry() {
    let lake = Lake::new();
    let name = "db.expire";
    let t = lake
        .pk_table(
            name,
            r#","changelog-producer":"input","changelog-file.prefix":"cl-","num-sorted-run.compaction-trigger":"10","snapshot.num-retained.min":"1","snapshot.num-retained.max":"2""#,
        )
        .await;
    let mut ids = Vec::new();
    for round in 0..4 {
        ids.extend(write_parts(&t, &[(0..100, &format!("r{round}"), RowKind::Insert)]).await);
    }
    let on_disk = |lake: &Lake| -> BTreeSet<String> {
        files_on_disk(&lake.table_dir(name))
            .into_iter()
            .filter_map(|p| p.rsplit('/').next().map(str::to_string))
            .filter(|n| n.starts_with("cl-"))
            .collect()
    };
    let mut kept = BTreeSet::new();
    for s in t.snapshot_manager().all().await.unwrap() {
        for e in changelog_entries(&t, s.id).await {
            kept.insert(e.file.file_name.clone());
        }
    }
    assert_eq!(t.snapshot_manager().all().await.unwrap().len(), 2);
    assert_eq!(kept.len(), 2, "one changelog file per retained snapshot");
    assert_eq!(
        on_disk(&lake),
        kept,
        "expired snapshots' changelog files are deleted"
    );
}

/// The changelog of snapshot `id` as read by an incremental read in changelog mode: batches
/// of `rowkind`, then the table's columns.
pub(crate) async fn changelog_batches(t: &Table, id: i64) -> Vec<RecordBatch> {
    use strata::scan::{IncrementalBetween, IncrementalMode};
    let plan = t
        .new_incremental_scan(IncrementalBetween::ids(id - 1, id))
        .with_mode(IncrementalMode::Changelog)
        .plan()
        .await
        .unwrap();
    t.new_incremental_read()
        .to_batches(plan.splits)
        .await
        .unwrap()
}

/// (id → v) after applying the changelog of snapshots `(0, last]` in order: `+I`/`+U` upsert,
/// `-U`/`-D` remove.
pub(crate) async fn replay_changelog(
    t: &Table,
    last: i64,
) -> std::collections::BTreeMap<i64, String> {
    let mut model = std::collections::BTreeMap::new();
    for id in 1..=last {
        for b in changelog_batches(t, id).await {
            let kind = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
            let ids = b.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
            let v = b.column(2).as_any().downcast_ref::<StringArray>().unwrap();
            for i in 0..b.num_rows() {
                match kind.value(i) {
                    "+I" | "+U" => {
                        model.insert(ids.value(i), v.value(i).to_string());
                    }
                    _ => {
                        model.remove(&ids.value(i));
                    }
                }
            }
        }
    }
    model
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 8, ..Default::default() })]

    /// Random commits of upserts and deletes (several parts per commit, so a key may change
    /// more than once in one commit; small buffers so runs spill): after every commit the
    /// merged read equals the model, and so does the changelog of every snapshot so far,
    /// replayed from empty in snapshot order.
    #[test]
    fn replayed_input_changelog_equals_the_merged_read(
        commits in proptest::collection::vec(
            proptest::collection::vec((0i64..400, 1i64..120, proptest::bool::weighted(0.3)), 1..4),
            1..6,
        ),
        spill in proptest::bool::ANY,
    ) {
        let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let lake = Lake::new();
            let extra = if spill {
                r#","changelog-producer":"input","write-buffer-size":"64kb","target-file-size":"16kb""#
            } else {
                r#","changelog-producer":"input""#
            };
            let t = lake.pk_table("db.prop", extra).await;
            let mut model = std::collections::BTreeMap::new();
            for (c, parts) in commits.iter().enumerate() {
                let mut w = t.new_write().unwrap();
                for (p, (lo, len, delete)) in parts.iter().enumerate() {
                    let tag = format!("c{c}p{p}");
                    let b = batch(*lo..lo + len, &tag);
                    let kind = if *delete { RowKind::Delete } else { RowKind::Insert };
                    w.write_with_kinds(&b, &vec![kind; b.num_rows()]).await.unwrap();
                    for id in *lo..lo + len {
                        if *delete {
                            model.remove(&id);
                        } else {
                            model.insert(id, value(id, &tag).unwrap());
                        }
                    }
                }
                t.new_commit()
                    .unwrap()
                    .commit_messages(w.prepare_commit().await.unwrap(), None)
                    .await
                    .unwrap();
                assert_eq!(rows(&t, None).await, model, "merged read after commit {c}");
                let last = t.snapshot_manager().latest_id().await.unwrap().unwrap();
                assert_eq!(replay_changelog(&t, last).await, model, "replayed changelog after commit {c}");
            }
        });
    }
}
