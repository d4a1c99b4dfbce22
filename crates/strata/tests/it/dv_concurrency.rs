//! Concurrent writers of tables whose batch readers skip level 0 (deletion vectors, first-row)
//! and of `changelog-producer = lookup` tables: every write that reports success has its rows
//! visible to those readers, each key exactly once with its newest value.
//!
//! The interleavings are deterministic: writers A and B both plan their write (level-0 files
//! and the lookup compaction of them) on the same snapshot N, then commit in either order.
//! Before the fix the second writer's compaction lost the conflict (its level-0 file stayed,
//! invisible: old values read) or landed with a deletion-vector index built from snapshot N
//! that replaced the first writer's vectors (the first writer's keys read twice).

use std::collections::BTreeMap;

use arrow::array::{Array, Int64Array, StringArray};
use strata::commit::CommitMessage;
use strata::table::Table;

use crate::lifecycle_support::{batch, Lake};

/// Every (id, v) the table's normal batch read returns (level 0 skipped for deletion-vector
/// and first-row tables), in read order: duplicates are kept.
async fn all_rows(t: &Table) -> Vec<(i64, String)> {
    let plan = t.new_scan().plan().await.unwrap();
    let mut out = Vec::new();
    for b in t.new_read().to_batches(plan.splits).await.unwrap() {
        let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let v = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.num_rows() {
            out.push((id.value(i), v.value(i).to_string()));
        }
    }
    out
}

/// Asserts every key is read exactly once and the rows equal `model`.
async fn assert_reads(t: &Table, model: &BTreeMap<i64, String>, what: &str) {
    let rows = all_rows(t).await;
    let mut seen: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for (id, v) in rows {
        seen.entry(id).or_default().push(v);
    }
    let twice: Vec<i64> = seen
        .iter()
        .filter(|(_, v)| v.len() > 1)
        .map(|(k, _)| *k)
        .collect();
    assert!(twice.is_empty(), "{what}: keys read twice: {twice:?}");
    let got: BTreeMap<i64, String> = seen
        .into_iter()
        .map(|(k, mut v)| (k, v.pop().unwrap()))
        .collect();
    let stale: Vec<i64> = model
        .iter()
        .filter(|(k, v)| got.get(k) != Some(v))
        .map(|(k, _)| *k)
        .collect();
    assert!(
        stale.is_empty() && got.len() == model.len(),
        "{what}: {} keys with an old or missing value (first: {:?}); {} keys read, {} expected",
        stale.len(),
        stale.iter().take(10).collect::<Vec<_>>(),
        got.len(),
        model.len()
    );
}

/// Rows of `ids` tagged `tag` (only the given ids, in order).
fn rows_of_ids(ids: &[i64], tag: &str) -> arrow_array::RecordBatch {
    let mut parts = Vec::new();
    for id in ids {
        parts.push(batch(*id..*id + 1, tag));
    }
    arrow::compute::concat_batches(&parts[0].schema(), &parts).unwrap()
}

fn value(id: i64, tag: &str) -> String {
    let b = batch(id..id + 1, tag);
    let v = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
    v.value(0).to_string()
}

/// Writes `ids` tagged `tag` and prepares the commit (the lookup compaction runs here, on the
/// snapshot the writer restored).
async fn prepare(t: &Table, ids: &[i64], tag: &str) -> Vec<CommitMessage> {
    let mut w = t.new_write().unwrap();
    w.write(&rows_of_ids(ids, tag)).await.unwrap();
    w.prepare_commit().await.unwrap()
}

/// Level-0 files of the latest snapshot.
async fn level0_files(t: &Table) -> usize {
    let live = strata::system::live_files(t, None).await.unwrap();
    live.files.iter().filter(|f| f.file.level == 0).count()
}

/// A table with 200 keys (tag "base"), fully compacted (the write's own lookup compaction
/// takes them to the max level).
async fn seeded(lake: &Lake, name: &str, options: &str) -> (Table, BTreeMap<i64, String>) {
    let t = lake.pk_table(name, options).await;
    t.write_batches([batch(0..200, "base")], None)
        .await
        .unwrap();
    let live = strata::system::live_files(&t, None).await.unwrap();
    assert!(
        live.files.iter().all(|f| f.file.level == 5),
        "not at the max level"
    );
    let model = (0..200).map(|i| (i, value(i, "base"))).collect();
    (t, model)
}

/// Writers A and B plan on the same snapshot, then commit A first or B first. `replans`: how
/// many times the second writer's compaction is expected to be planned again (`None`: any).
async fn two_writers(
    options: &str,
    a_ids: &[i64],
    b_ids: &[i64],
    first_row: bool,
    replans: Option<u32>,
) {
    for a_first in [true, false] {
        let lake = Lake::new();
        let (t, mut model) = seeded(&lake, "db.t", options).await;
        let a = prepare(&t, a_ids, "a").await;
        let b = prepare(&t, b_ids, "b").await;
        let order = if a_first {
            [(a, a_ids, "a"), (b, b_ids, "b")]
        } else {
            [(b, b_ids, "b"), (a, a_ids, "a")]
        };
        let mut second = None;
        let mut committed = Vec::new();
        for (messages, ids, tag) in order {
            let c = t
                .new_commit()
                .unwrap()
                .commit_messages(messages, None)
                .await;
            let c = c.unwrap_or_else(|e| panic!("writer {tag}: {e}"));
            assert!(c.append.is_some(), "writer {tag} committed nothing");
            committed.push((tag, c.compact, c.compact_error));
            second = Some(c.recompactions);
            for id in ids {
                if !(first_row && model.contains_key(id)) {
                    model.insert(*id, value(*id, tag));
                }
            }
        }
        let what = format!(
            "{options}: {} first",
            if a_first { "writer a" } else { "writer b" }
        );
        assert_reads(&t, &model, &what).await;
        assert_eq!(level0_files(&t).await, 0, "{what}: level-0 files left");
        // A fresh table handle (new caches) reads the same.
        let fresh = lake.table("db.t").await;
        assert_reads(&fresh, &model, &what).await;
        for (tag, compact, error) in committed {
            assert!(
                compact.is_some(),
                "{what}: writer {tag}: no COMPACT snapshot"
            );
            assert!(error.is_none(), "{what}: writer {tag}: {error:?}");
        }
        if let Some(n) = replans {
            assert_eq!(second, Some(n), "{what}: re-plans of the second compaction");
        }
    }
}

const DV: &str = r#","deletion-vectors.enabled":"true""#;

#[tokio::test]
async fn dv_writers_with_interleaved_keys_both_land_visible() {
    // Key ranges overlap (even and odd keys): the compactions both write level 4 and overlap,
    // so the later one conflicts; before the fix its level-0 file stayed and its keys read
    // their old values.
    let even: Vec<i64> = (0..40).filter(|i| i % 2 == 0).collect();
    let odd: Vec<i64> = (0..40).filter(|i| i % 2 == 1).collect();
    two_writers(DV, &even, &odd, false, Some(1)).await;
}

#[tokio::test]
async fn dv_writers_with_disjoint_key_blocks_keep_each_others_vectors() {
    // Disjoint key blocks: both compactions land, and before the fix the later one's
    // deletion-vector index (built on snapshot N) replaced the earlier one's: the earlier
    // writer's keys were read twice (old row at the max level and new row above it).
    let a: Vec<i64> = (0..20).collect();
    let b: Vec<i64> = (100..120).collect();
    two_writers(DV, &a, &b, false, Some(0)).await;
}

#[tokio::test]
async fn first_row_writers_both_land_visible() {
    // First-row: new keys of both writers (interleaved) and existing keys (ignored).
    let a: Vec<i64> = (190..260).filter(|i| i % 2 == 0).collect();
    let b: Vec<i64> = (190..260).filter(|i| i % 2 == 1).collect();
    two_writers(r#","merge-engine":"first-row""#, &a, &b, true, Some(1)).await;
}

#[tokio::test]
async fn dv_lookup_changelog_writers_both_land_visible() {
    let even: Vec<i64> = (0..40).filter(|i| i % 2 == 0).collect();
    let odd: Vec<i64> = (0..40).filter(|i| i % 2 == 1).collect();
    two_writers(
        r#","deletion-vectors.enabled":"true","changelog-producer":"lookup""#,
        &even,
        &odd,
        false,
        Some(1),
    )
    .await;
}

#[tokio::test]
async fn a_write_whose_rows_cannot_be_made_visible_fails_saying_so() {
    // Writer B's compaction loses to A's and `commit.timeout` leaves no time to plan it again:
    // B's rows are committed at level 0, which this table's readers skip. The write must not
    // report success; the error names the snapshot and what makes the rows visible.
    let lake = Lake::new();
    let (t, mut model) = seeded(&lake, "db.t", DV).await;
    let even: Vec<i64> = (0..40).filter(|i| i % 2 == 0).collect();
    let odd: Vec<i64> = (0..40).filter(|i| i % 2 == 1).collect();
    let a = prepare(&t, &even, "a").await;
    let b = prepare(&t, &odd, "b").await;
    t.new_commit().unwrap().commit(a).await.unwrap();
    for id in &even {
        model.insert(*id, value(*id, "a"));
    }
    let hurried = t
        .with_dynamic_options([("commit.timeout".to_string(), "1 ms".to_string())])
        .unwrap();
    let err = hurried
        .new_commit()
        .unwrap()
        .commit_messages(b, None)
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(err.may_have_committed(), "{text}");
    assert_eq!(err.kind(), strata::ErrorKind::Conflict, "{text}");
    let appended = t.snapshot_manager().latest_id().await.unwrap().unwrap();
    assert!(
        text.contains(&format!("committed in snapshot {appended}"))
            && text.contains("not yet visible")
            && text.contains("strata compact db.t"),
        "{text}"
    );
    // What the error says: B's rows are committed (merge-on-read sees them) but not visible.
    assert_eq!(level0_files(&t).await, 1);
    let stale = all_rows(&t).await;
    assert!(stale.contains(&(1, value(1, "base"))));
    // A compaction makes them visible.
    t.compact(&strata::write::CompactRequest::default(), &|_, _| {})
        .await
        .unwrap();
    for id in &odd {
        model.insert(*id, value(*id, "b"));
    }
    assert_reads(&t, &model, "after strata compact").await;
    assert_eq!(level0_files(&t).await, 0);
}
