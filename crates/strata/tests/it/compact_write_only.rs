//! `write-only = true` tells a table's *writers* not to compact, so that a dedicated compactor
//! does (Java's `CompactAction` copies the table with `write-only` false for its own writer).
//! `Table::compact` — behind `strata compact`, SQL `CALL sys.compact` and Python `compact()` —
//! is that compactor: it picks with the table's strategy whatever `write-only` says.

use strata::write::CompactRequest;

use crate::lifecycle_support::{batch, rows, Lake};

async fn level_counts(t: &strata::table::Table) -> (usize, usize) {
    let live = strata::system::live_files(t, None).await.unwrap();
    let l0 = live.files.iter().filter(|f| f.file.level == 0).count();
    (l0, live.files.len() - l0)
}

#[tokio::test]
async fn compact_applies_the_tables_picking_to_write_only_tables() {
    let lake = Lake::new();
    let t = lake
        .pk_table(
            "db.wo",
            r#","write-only":"true","num-sorted-run.compaction-trigger":"3""#,
        )
        .await;
    for i in 0..6i64 {
        t.write_batches([batch(i * 10..i * 10 + 20, &format!("v{i}"))], None)
            .await
            .unwrap();
    }
    // The writers did not compact: six level-0 runs.
    assert_eq!(level_counts(&t).await, (6, 0));
    let before = rows(&t, None).await;
    let report = t
        .compact(&CompactRequest::default(), &|_, _| {})
        .await
        .unwrap();
    let snapshot = report
        .snapshot
        .expect("six runs over a trigger of 3: the table's picking compacts");
    let s = t.snapshot_manager().snapshot(snapshot).await.unwrap();
    assert_eq!(s.commit_kind.as_str(), "COMPACT");
    assert!(!report.metrics.is_empty());
    let (l0, above) = level_counts(&t).await;
    assert!(l0 < 6 && above > 0, "level 0: {l0}, above: {above}");
    assert_eq!(rows(&t, None).await, before);
    // The table stays write-only for its writers.
    t.write_batches([batch(100..110, "w")], None).await.unwrap();
    assert_eq!(level_counts(&t).await.0, l0 + 1);
}
