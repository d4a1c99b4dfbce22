//! `scan.fallback-branch` / `scan.primary-branch` (Java's `FallbackReadFileStoreTable`):
//! batch reads take whole partitions from the other branch — those missing on the table's
//! branch (fallback) or those the other branch has (primary) — decided by the partition filter
//! alone; an unpartitioned table falls back only while its branch is empty; writes stay on the
//! table's branch; `read-fail-fast`; the options validated as Java's `validateFallbackBranch`;
//! time travel mapped to the other branch as Java's `rewriteOtherOptions` does.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::expr::Predicate;
use strata::table::branches::BranchStart;
use strata::table::Table;
use strata_spec::schema::SchemaChange;
use strata_spec::Datum;

use crate::lifecycle_support::*;

fn rows_dt(ids: std::ops::Range<i64>, dt: &str) -> RecordBatch {
    let ids: Vec<i64> = ids.collect();
    let v: Vec<String> = ids.iter().map(|i| format!("v{i}")).collect();
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("v", ArrowType::Utf8, true),
        Field::new("dt", ArrowType::Utf8, false),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.clone())),
            Arc::new(StringArray::from(v)),
            Arc::new(StringArray::from(vec![dt; ids.len()])),
        ],
    )
    .unwrap()
}

async fn partitioned(lake: &Lake, name: &str) -> Table {
    lake.create(
        name,
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"},
        {"name":"dt","type":"STRING NOT NULL"}],"partitionKeys":["dt"],
        "options":{"bucket":"-1"}}"#,
    )
    .await
}

async fn set(lake: &Lake, name: &str, key: &str, value: &str) -> Table {
    lake.table(name)
        .await
        .alter(&[SchemaChange::set_option(key, value)])
        .await
        .unwrap();
    lake.table(name).await
}

async fn ids(t: &Table, filter: Option<Predicate>, limit: Option<usize>) -> Vec<i64> {
    let mut scan = t.new_scan();
    let mut read = t.new_read();
    if let Some(f) = filter {
        scan = scan.with_filter(f.clone());
        read = read.with_filter(f);
    }
    if let Some(n) = limit {
        read = read.with_limit(n);
    }
    let plan = scan.plan().await.unwrap();
    let mut out = Vec::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        let c = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        out.extend(c.values().iter().copied());
    }
    out.sort();
    out
}

#[tokio::test]
async fn fallback_branch_fills_missing_partitions_whole() {
    let lake = Lake::new();
    let t = partitioned(&lake, "db.f").await;
    write(&t, rows_dt(0..3, "a")).await;
    t.create_branch("fb", BranchStart::Empty).await.unwrap();
    let fb = lake.table("db.f$branch_fb").await;
    write(&fb, rows_dt(100..103, "a")).await;
    write(&fb, rows_dt(200..202, "b")).await;

    // Java's validateFallbackBranch: the branch must exist, not both options.
    let e = t
        .alter(&[SchemaChange::set_option("scan.fallback-branch", "nope")])
        .await
        .unwrap_err();
    assert!(
        e.to_string().contains("branch 'nope' does not exist"),
        "{e}"
    );
    let t = set(&lake, "db.f", "scan.fallback-branch", "fb").await;
    let e = t
        .alter(&[SchemaChange::set_option("scan.primary-branch", "fb")])
        .await
        .unwrap_err();
    assert!(e.to_string().contains("Cannot set both"), "{e}");

    // Partition a from the own branch, b (missing there) from fb.
    assert_eq!(ids(&t, None, None).await, vec![0, 1, 2, 200, 201]);
    let plan = t.new_scan().plan().await.unwrap();
    let branches: BTreeMap<Option<String>, usize> =
        plan.splits.iter().fold(BTreeMap::new(), |mut m, s| {
            *m.entry(s.branch.clone()).or_default() += 1;
            m
        });
    assert_eq!(branches.get(&None), Some(&1));
    assert_eq!(branches.get(&Some("fb".into())), Some(&1));
    // A data filter does not make partition a "missing": fb's rows of a stay hidden.
    let ge100 = Predicate::greater_or_equal("id", Datum::BigInt(100));
    assert_eq!(ids(&t, Some(ge100), None).await, vec![200, 201]);
    // The partition filter alone decides.
    let only_a = Predicate::equal("dt", Datum::String("a".into()));
    assert_eq!(ids(&t, Some(only_a), None).await, vec![0, 1, 2]);
    assert_eq!(ids(&t, None, Some(4)).await.len(), 4);
    // The branch itself reads its own rows only.
    assert_eq!(ids(&fb, None, None).await, vec![100, 101, 102, 200, 201]);

    // Writes go to the table's own branch; b now exists there and hides fb's.
    write(&t, rows_dt(5..6, "b")).await;
    let t = lake.table("db.f").await;
    assert_eq!(ids(&t, None, None).await, vec![0, 1, 2, 5]);
    assert_eq!(
        ids(&lake.table("db.f$branch_fb").await, None, None)
            .await
            .len(),
        5
    );

    // Deleting the fallback branch is refused.
    let e = t.delete_branch("fb").await.unwrap_err();
    assert!(e.to_string().contains("scan.fallback-branch"), "{e}");
    // Time travel to snapshot 1 maps to fb's snapshot at or before its time (or fb's
    // snapshot 1): fb's partition a stays hidden, b did not exist on either.
    let plan = t.new_scan().with_snapshot(1).plan().await.unwrap();
    let got = t.new_read().to_batches(plan.splits).await.unwrap();
    assert_eq!(got.iter().map(|b| b.num_rows()).sum::<usize>(), 3);
}

/// Committed after a pause, so that the branches' snapshot times are ordered.
async fn write_later(t: &Table, b: RecordBatch) -> i64 {
    tokio::time::sleep(std::time::Duration::from_millis(15)).await;
    write(t, b).await
}

async fn ids_of(t: &Table, scan: strata::scan::TableScan) -> Vec<i64> {
    let plan = scan.plan().await.unwrap();
    let mut out = Vec::new();
    for b in t.new_read().to_batches(plan.splits).await.unwrap() {
        let c = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        out.extend(c.values().iter().copied());
    }
    out.sort();
    out
}

#[tokio::test]
async fn time_travel_maps_the_other_branch_as_java_does() {
    use strata::maintenance::{TableLifecycle, TravelTarget};
    let lake = Lake::new();
    let t = partitioned(&lake, "db.tt").await;
    t.create_branch("fb", BranchStart::Empty).await.unwrap();
    let fb = lake.table("db.tt$branch_fb").await;
    write_later(&t, rows_dt(0..2, "a")).await; // main 1
    write_later(&t, rows_dt(2..3, "a")).await; // main 2
    write_later(&fb, rows_dt(100..101, "a")).await; // fb 1
    write_later(&fb, rows_dt(200..201, "b")).await; // fb 2
    write_later(&t, rows_dt(3..4, "c")).await; // main 3
    write_later(&fb, rows_dt(201..202, "b")).await; // fb 3
    write_later(&fb, rows_dt(300..301, "d")).await; // fb 4
    t.create_tag("t1", Some(3), None).await.unwrap();
    fb.create_tag("t1", Some(3), None).await.unwrap();
    t.create_tag("only_main", Some(2), None).await.unwrap();
    let t = set(&lake, "db.tt", "scan.fallback-branch", "fb").await;
    assert_eq!(ids(&t, None, None).await, vec![0, 1, 2, 3, 200, 201, 300]);

    // A snapshot id travels fb by the own snapshot's time (fb 2), not by the same id.
    assert_eq!(
        ids_of(&t, t.new_scan().with_snapshot(3)).await,
        vec![0, 1, 2, 3, 200]
    );
    // No fb snapshot at or before main 2: Java reads fb's snapshot 1 (partition a, hidden).
    assert_eq!(
        ids_of(&t, t.new_scan().with_snapshot(2)).await,
        vec![0, 1, 2]
    );
    // The same through the table's options and through `travel`.
    let dynamic = t
        .with_dynamic_options([("scan.snapshot-id".to_string(), "3".to_string())])
        .unwrap();
    assert_eq!(ids(&dynamic, None, None).await, vec![0, 1, 2, 3, 200]);
    let (at, scan) = t.travel_to(&TravelTarget::Snapshot(3)).await.unwrap();
    assert_eq!(ids_of(&at, scan).await, vec![0, 1, 2, 3, 200]);

    // A tag: Java's `StaticFromTagStartingScanner` reads the main branch's tag on fb too
    // (its TagManager is built from the table path alone), so fb adds no partition.
    let (at, scan) = t.travel_to(&TravelTarget::Tag("t1".into())).await.unwrap();
    assert_eq!(ids_of(&at, scan).await, vec![0, 1, 2, 3]);
    let (at, scan) = t
        .travel_to(&TravelTarget::Tag("only_main".into()))
        .await
        .unwrap();
    assert_eq!(ids_of(&at, scan).await, vec![0, 1, 2]);
    // A tag only fb has cannot be read through main (strata's own branch lacks it too).
    fb.create_tag("only_fb", Some(2), None).await.unwrap();
    assert!(t
        .travel_to(&TravelTarget::Tag("only_fb".into()))
        .await
        .is_err());

    // A time travels each branch to its snapshot at or before it.
    let fb3 = fb.snapshot_manager().snapshot(3).await.unwrap().time_millis;
    let (at, scan) = t
        .travel_to(&TravelTarget::TimestampMillis(fb3))
        .await
        .unwrap();
    assert_eq!(ids_of(&at, scan).await, vec![0, 1, 2, 3, 200, 201]);

    // `scan.version` is resolved by each branch itself: 2 is fb's snapshot 2, not mapped.
    let v = t
        .with_dynamic_options([("scan.version".to_string(), "2".to_string())])
        .unwrap();
    assert_eq!(ids(&v, None, None).await, vec![0, 1, 2, 200]);

    // compacted-full: each branch at its own latest COMPACT snapshot (none: its latest).
    let report = fb
        .compact(
            &strata::write::CompactRequest {
                full: true,
                ..Default::default()
            },
            &|_, _| {},
        )
        .await
        .unwrap();
    assert_eq!(report.snapshot, Some(5)); // fb 5, COMPACT
    write_later(&fb, rows_dt(400..401, "e")).await; // fb 6
    let c = t
        .with_dynamic_options([("scan.mode".to_string(), "compacted-full".to_string())])
        .unwrap();
    assert_eq!(ids(&c, None, None).await, vec![0, 1, 2, 3, 200, 201, 300]);

    // Only the metadata of a snapshot: strata cannot tell how it was chosen.
    let meta = t.snapshot_manager().snapshot(3).await.unwrap();
    let e = t
        .new_scan()
        .with_snapshot_meta(meta)
        .plan()
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("time-travel target"), "{e}");

    // With scan.primary-branch the other branch comes first, at the mapped snapshot.
    let p = t
        .alter(&[
            SchemaChange::set_option("scan.fallback-branch", ""),
            SchemaChange::set_option("scan.primary-branch", "fb"),
        ])
        .await;
    p.unwrap();
    let t = lake.table("db.tt").await;
    assert_eq!(
        ids_of(&t, t.new_scan().with_snapshot(3)).await,
        vec![3, 100, 200]
    );
    // A tag with scan.primary-branch: fb plans main's tagged snapshot first, the same rows.
    let (at, scan) = t.travel_to(&TravelTarget::Tag("t1".into())).await.unwrap();
    assert_eq!(ids_of(&at, scan).await, vec![0, 1, 2, 3]);
}

#[tokio::test]
async fn primary_branch_wins_the_partitions_it_has() {
    let lake = Lake::new();
    let t = partitioned(&lake, "db.p").await;
    write(&t, rows_dt(0..3, "a")).await;
    write(&t, rows_dt(5..6, "b")).await;
    t.create_branch("pb", BranchStart::Empty).await.unwrap();
    let pb = lake.table("db.p$branch_pb").await;
    write(&pb, rows_dt(100..102, "a")).await;
    write(&pb, rows_dt(300..301, "c")).await;
    let t = set(&lake, "db.p", "scan.primary-branch", "pb").await;
    assert_eq!(ids(&t, None, None).await, vec![5, 100, 101, 300]);
    let e = t.delete_branch("pb").await.unwrap_err();
    assert!(e.to_string().contains("scan.primary-branch"), "{e}");
}

#[tokio::test]
async fn unpartitioned_table_falls_back_while_its_branch_is_empty() {
    let lake = Lake::new();
    let t = lake.pk_table("db.u", "").await;
    t.create_branch("fb", BranchStart::Empty).await.unwrap();
    let fb = lake.table("db.u$branch_fb").await;
    write(&fb, batch(10..13, "fb")).await;
    let t = set(&lake, "db.u", "scan.fallback-branch", "fb").await;
    assert_eq!(
        rows(&t, None).await.keys().copied().collect::<Vec<_>>(),
        vec![10, 11, 12]
    );
    write(&t, batch(0..2, "main")).await;
    let t = lake.table("db.u").await;
    assert_eq!(
        rows(&t, None).await.keys().copied().collect::<Vec<_>>(),
        vec![0, 1]
    );
}

#[tokio::test]
async fn read_fail_fast_decides_what_a_failing_fallback_read_does() {
    let lake = Lake::new();
    let t = partitioned(&lake, "db.r").await;
    write(&t, rows_dt(0..2, "a")).await;
    t.create_branch("fb", BranchStart::Empty).await.unwrap();
    write(&lake.table("db.r$branch_fb").await, rows_dt(200..202, "b")).await;
    set(&lake, "db.r", "scan.fallback-branch", "fb").await;
    for fail_fast in [false, true] {
        let t = set(
            &lake,
            "db.r",
            "scan.fallback-branch.read-fail-fast",
            &fail_fast.to_string(),
        )
        .await;
        let plan = t.new_scan().plan().await.unwrap();
        // The branch disappears between planning and reading (its files stay).
        let dir = lake.table_dir("db.r").join("branch/branch-fb");
        let keep = lake.dir.path().join(format!("keep-{fail_fast}"));
        std::fs::rename(&dir, &keep).unwrap();
        let read = t.new_read().to_batches(plan.splits).await;
        std::fs::rename(&keep, &dir).unwrap();
        match fail_fast {
            // Java: the split is read with the table's own branch (same files and schema).
            false => {
                let n: usize = read.unwrap().iter().map(|b| b.num_rows()).sum();
                assert_eq!(n, 4);
            }
            true => {
                let e = read.unwrap_err();
                assert!(e.to_string().contains("branch fb"), "{e}");
            }
        }
    }
}

#[tokio::test]
async fn streaming_reads_follow_the_own_branch_only() {
    use futures::StreamExt;
    let lake = Lake::new();
    let t = partitioned(&lake, "db.s").await;
    write(&t, rows_dt(0..2, "a")).await;
    t.create_branch("fb", BranchStart::Empty).await.unwrap();
    write(&lake.table("db.s$branch_fb").await, rows_dt(200..202, "b")).await;
    let t = set(&lake, "db.s", "scan.fallback-branch", "fb").await;
    let last = write(&t, rows_dt(2..3, "a")).await;
    assert_eq!(ids(&t, None, None).await, vec![0, 1, 2, 200, 201]);
    // Java's stream scan is the wrapped table's: the own branch's snapshots only.
    let mut s = t
        .new_stream_read()
        .with_start(strata::stream::StartingPosition::Earliest)
        .until_snapshot(last)
        .changes()
        .unwrap();
    let mut got = Vec::new();
    while let Some(b) = s.next().await {
        let b = b.unwrap().batch;
        let c = b.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
        got.extend(c.values().iter().copied());
    }
    got.sort();
    assert_eq!(got, vec![0, 1, 2]);
}

/// `scan.file-creation-time-millis` on a fallback table (Java hands it to the other branch):
/// each branch reads its files created since the time, and the own branch owns only the
/// partitions with such a file (Java's partition listing applies the start's file filter).
#[tokio::test]
async fn file_creation_start_filters_both_branches_and_the_listing() {
    let lake = Lake::new();
    let t = partitioned(&lake, "db.fc").await;
    t.create_branch("fb", BranchStart::Empty).await.unwrap();
    let fb = lake.table("db.fc$branch_fb").await;
    write_later(&t, rows_dt(1..2, "a")).await;
    tokio::time::sleep(std::time::Duration::from_millis(15)).await;
    let since = chrono::Utc::now().timestamp_millis();
    write_later(&t, rows_dt(2..3, "c")).await;
    write_later(&fb, rows_dt(10..11, "a")).await;
    write_later(&fb, rows_dt(20..21, "b")).await;
    let t = set(&lake, "db.fc", "scan.fallback-branch", "fb").await;
    assert_eq!(ids(&t, None, None).await, vec![1, 2, 20]);
    let c = t
        .with_dynamic_options([(
            "scan.file-creation-time-millis".to_string(),
            since.to_string(),
        )])
        .unwrap();
    // a has no main file created since: it is read from fb.
    assert_eq!(ids(&c, None, None).await, vec![2, 10, 20]);
}
