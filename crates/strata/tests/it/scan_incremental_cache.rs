//! The snapshot live manifest entry cache built incrementally: a new snapshot's slot is the
//! previous snapshot's slot plus the new snapshots' delta manifests (`scan::entries`). Every
//! plan served that way must equal the uncached plan of the same snapshot exactly, and
//! anything that breaks the chain (expiry, rollback, an OVERWRITE, time travel backwards)
//! must fall back to a full rebuild.

use std::sync::Arc;

use crate::common::*;
use arrow_array::{Int32Array, Int64Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use proptest::prelude::*;
use strata::cache::{Cache, LruCache};
use strata::commit::{CommitMessage, OverwriteScope};
use strata::expr::parse_sql_predicate;
use strata::maintenance::{ExpireConfig, ExpireSnapshots, TableLifecycle};
use strata::scan::Plan;
use strata::spec::kv::RowKind;
use strata::table::Table;
use strata_spec::manifest::DataFileMeta;

const PK: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
 {"name":"p","type":"INT NOT NULL"},{"name":"v","type":"INT"}],"partitionKeys":["p"],
 "primaryKeys":["p","id"],"options":{"bucket":"3","num-sorted-run.compaction-trigger":"3"}}"#;

const APPEND: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
 {"name":"p","type":"INT NOT NULL"},{"name":"v","type":"INT"}],"partitionKeys":["p"],
 "options":{"bucket":"2","bucket-key":"id"}}"#;

fn batch(rows: &[(i64, i32, i32)]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("p", ArrowType::Int32, false),
        Field::new("v", ArrowType::Int32, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(
                rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            )),
            Arc::new(Int32Array::from(
                rows.iter().map(|r| r.1).collect::<Vec<_>>(),
            )),
            Arc::new(Int32Array::from(
                rows.iter().map(|r| Some(r.2)).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap()
}

/// `t` with the cache on (`max_snapshots` slots per bucket) and its own cache.
fn cached(t: &Table, max_snapshots: usize, lazy: bool) -> Table {
    t.with_dynamic_options([
        (
            "scan.manifest-entry-cache.max-snapshots".to_string(),
            max_snapshots.to_string(),
        ),
        (
            "scan.manifest-entry.lazy-decode.enabled".to_string(),
            lazy.to_string(),
        ),
    ])
    .unwrap()
    .with_cache(Arc::new(LruCache::new(64 << 20)) as Arc<dyn Cache>)
}

async fn plan(t: &Table, filter: Option<&str>, bucket: i32, snapshot: Option<i64>) -> Plan {
    let mut scan = t.new_scan().with_bucket(bucket);
    if let Some(f) = filter {
        scan = scan.with_filter(parse_sql_predicate(f).unwrap());
    }
    if let Some(s) = snapshot {
        scan = scan.with_snapshot(s);
    }
    scan.plan().await.unwrap()
}

/// A plan as comparable data: per split (partition, bucket, raw-convertible) and every file's
/// metadata (name, level, statistics, sequence numbers...), sorted by name and level.
type Shape = Vec<(Vec<u8>, i32, bool, Vec<DataFileMeta>)>;

fn shape(p: &Plan) -> Shape {
    p.splits
        .iter()
        .map(|s| {
            let mut files = s.files.clone();
            files.sort_by(|a, b| (&a.file_name, a.level).cmp(&(&b.file_name, b.level)));
            (
                s.partition.as_bytes().to_vec(),
                s.bucket,
                s.raw_convertible,
                files,
            )
        })
        .collect()
}

async fn latest(t: &Table) -> Option<i64> {
    t.snapshot_manager().latest().await.unwrap().map(|s| s.id)
}

/// Plans `bucket` of `snapshot` through `cached` (a miss: built incrementally or rebuilt),
/// checks it against the uncached plan of `plain`, then checks that the stored slot serves an
/// exact hit with the same plan and a partition-filtered plan. Returns the miss's metrics.
async fn check_bucket(
    plain: &Table,
    cached: &Table,
    bucket: i32,
    snapshot: i64,
    filter: &str,
) -> strata::scan::ScanMetrics {
    let want = plan(plain, None, bucket, Some(snapshot)).await;
    let got = plan(cached, None, bucket, Some(snapshot)).await;
    let at = format!("bucket {bucket} snapshot {snapshot}");
    assert_eq!(got.metrics.cache_hit, Some(false), "{at}");
    assert_eq!(shape(&got), shape(&want), "{at}");
    assert_eq!(got.metrics.files, want.metrics.files, "{at}");
    assert_eq!(
        got.metrics.skipped_files, want.metrics.skipped_files,
        "{at}: the slot's table file count"
    );
    let hit = plan(cached, None, bucket, Some(snapshot)).await;
    assert_eq!(hit.metrics.cache_hit, Some(true), "{at}");
    assert_eq!(shape(&hit), shape(&want), "{at}: the stored slot");
    assert_eq!(
        hit.metrics.skipped_files, want.metrics.skipped_files,
        "{at}"
    );
    let filtered = plan(cached, Some(filter), bucket, Some(snapshot)).await;
    assert_eq!(filtered.metrics.cache_hit, Some(true), "{at}");
    assert_eq!(
        shape(&filtered),
        shape(&plan(plain, Some(filter), bucket, Some(snapshot)).await),
        "{at} {filter}"
    );
    got.metrics
}

#[derive(Clone, Debug)]
enum Op {
    Write(Vec<(i64, i32)>),
    /// Primary-key tables: deletes of these keys (rows of kind -D); append tables: a write.
    DeleteRows(Vec<(i64, i32)>),
    /// An APPEND commit removing the live files at these positions (of the uncached plan of
    /// every bucket), plus new rows.
    RemoveFiles(Vec<usize>, Vec<(i64, i32)>),
    /// Primary-key tables only.
    Compact(bool),
    Overwrite(i32, Vec<i64>),
}

fn arb_rows() -> impl Strategy<Value = Vec<(i64, i32)>> {
    prop::collection::vec((0i64..40, 0i32..4), 1..24)
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => arb_rows().prop_map(Op::Write),
        1 => arb_rows().prop_map(Op::DeleteRows),
        2 => (prop::collection::vec(0usize..1000, 1..4), prop::collection::vec((0i64..40, 0i32..4), 0..6))
            .prop_map(|(files, rows)| Op::RemoveFiles(files, rows)),
        2 => any::<bool>().prop_map(Op::Compact),
        1 => (0i32..4, prop::collection::vec(0i64..40, 1..5)).prop_map(|(p, ids)| Op::Overwrite(p, ids)),
    ]
}

/// Applies `op` to `t` (`buckets` buckets); `version` stamps the values written.
async fn apply(t: &Table, op: Op, buckets: i32, version: i32) {
    let rows = |r: Vec<(i64, i32)>| -> Vec<(i64, i32, i32)> {
        r.into_iter().map(|(id, p)| (id, p, version)).collect()
    };
    let pk = t.is_primary_key_table();
    match op {
        Op::Write(r) => {
            t.write_batches([batch(&rows(r))], None).await.unwrap();
        }
        Op::DeleteRows(r) if pk => {
            let b = batch(&rows(r));
            let mut w = t.new_write().unwrap();
            w.write_with_kinds(&b, &vec![RowKind::Delete; b.num_rows()])
                .await
                .unwrap();
            let msgs = w.prepare_commit().await.unwrap();
            t.new_commit().unwrap().commit(msgs).await.unwrap();
        }
        Op::DeleteRows(r) => {
            t.write_batches([batch(&rows(r))], None).await.unwrap();
        }
        Op::RemoveFiles(picks, r) => {
            let mut live = Vec::new();
            for b in 0..buckets {
                for s in plan(t, None, b, None).await.splits {
                    for f in s.files {
                        live.push((s.partition.clone(), s.bucket, s.total_buckets, f));
                    }
                }
            }
            if live.is_empty() {
                return;
            }
            let mut chosen: Vec<usize> = picks.iter().map(|i| i % live.len()).collect();
            chosen.sort_unstable();
            chosen.dedup();
            let mut w = t.new_write().unwrap();
            if !r.is_empty() {
                w.write(&batch(&rows(r))).await.unwrap();
            }
            let mut msgs = w.prepare_commit().await.unwrap();
            for i in chosen {
                let (partition, bucket, total, file) = live[i].clone();
                let mut m = CommitMessage::new(partition, bucket, total);
                m.deleted_files.push(file);
                msgs.push(m);
            }
            t.new_commit().unwrap().commit(msgs).await.unwrap();
        }
        Op::Compact(full) if pk => {
            let mut w = t.new_write().unwrap();
            w.compact(&|_, _| true, full).await.unwrap();
            let msgs = w.prepare_commit().await.unwrap();
            t.new_commit().unwrap().commit(msgs).await.unwrap();
        }
        Op::Compact(_) => {}
        Op::Overwrite(p, ids) => {
            let r: Vec<(i64, i32, i32)> = ids.into_iter().map(|id| (id, p, version)).collect();
            t.write_batches([batch(&r)], Some(OverwriteScope::Dynamic))
                .await
                .unwrap();
        }
    }
}

/// Random commits over several partitions and buckets; after the commits whose `scan` flag is
/// set (so the cached slot is one or more snapshots behind), every bucket of the latest
/// snapshot is planned through the cache and compared with the uncached plan. Returns the
/// plans built incrementally.
async fn run(schema: &str, buckets: i32, ops: Vec<(Op, bool)>) -> usize {
    let wh = Warehouse::new();
    let t = wh.create("db.t", schema).await;
    let lazy = cached(&t, 3, true);
    let eager = cached(&t, 2, false);
    let mut incremental = 0;
    let mut planned = None;
    for (i, (op, scan)) in ops.into_iter().enumerate() {
        apply(&t, op, buckets, i as i32).await;
        let Some(snapshot) = latest(&t).await else {
            continue;
        };
        // (An op may commit nothing, e.g. a compaction with nothing to do.)
        if !scan || planned == Some(snapshot) {
            continue;
        }
        planned = Some(snapshot);
        let filter = format!("p = {}", i % 4);
        for b in 0..buckets {
            for c in [&lazy, &eager] {
                let m = check_bucket(&t, c, b, snapshot, &filter).await;
                if m.cache_deltas_applied > 0 {
                    incremental += 1;
                    assert_eq!(m.manifests_total, 0, "no manifest list of the snapshot");
                }
            }
        }
    }
    incremental
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    /// Primary-key table: writes, row deletes, file removals, compactions (level upgrades
    /// are a DELETE and an ADD of one file name) and overwrites.
    #[test]
    fn incremental_slots_equal_uncached_plans_primary_key(
        ops in prop::collection::vec((arb_op(), prop::bool::weighted(0.7)), 1..16)
    ) {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        rt.block_on(run(PK, 3, ops));
    }

    /// Append table: writes, file removals and overwrites.
    #[test]
    fn incremental_slots_equal_uncached_plans_append(
        ops in prop::collection::vec((arb_op(), prop::bool::weighted(0.7)), 1..16)
    ) {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        rt.block_on(run(APPEND, 2, ops));
    }
}

/// A fixed history covering every op, so the incremental path is known to be taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fixed_mixed_history_is_mostly_served_incrementally() {
    let rows =
        |k: i64| -> Vec<(i64, i32)> { (0..12).map(|i| (k * 7 + i, (i % 4) as i32)).collect() };
    let mut ops = Vec::new();
    for k in 0..4 {
        ops.push((Op::Write(rows(k)), true));
    }
    ops.push((Op::DeleteRows(rows(1)[..5].to_vec()), true));
    ops.push((Op::Write(rows(5)), false));
    ops.push((Op::RemoveFiles(vec![0, 3], rows(6)), true));
    ops.push((Op::Compact(false), true));
    ops.push((Op::Write(rows(7)), false));
    ops.push((Op::Write(rows(8)), false));
    ops.push((Op::Compact(true), true));
    ops.push((Op::Overwrite(2, vec![1, 2, 3]), true));
    ops.push((Op::Write(rows(9)), true));
    let incremental = run(PK, 3, ops.clone()).await;
    assert!(incremental >= 20, "{incremental} plans built incrementally");
    let incremental = run(APPEND, 2, ops).await;
    assert!(incremental >= 12, "{incremental} plans built incrementally");
}

/// A table committing continuously: after the first plan, every new snapshot's slot is the
/// previous slot plus one delta manifest — no manifest list of the snapshot, no base
/// manifest read. A COMPACT commit is applied the same way; an OVERWRITE is rebuilt, and the
/// snapshots after it are incremental again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continuous_commits_read_only_the_new_delta() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", PK).await;
    let c = cached(&t, 2, true);
    let commit = |k: i64| {
        let t = t.clone();
        async move {
            // Ids 0..30 in every partition: every bucket gets a file in each commit.
            let rows: Vec<(i64, i32, i32)> = (0..120)
                .map(|i| (i % 30, (i / 30) as i32, k as i32))
                .collect();
            t.write_batches([batch(&rows)], None).await.unwrap();
        }
    };
    commit(0).await;
    let first = check_bucket(&t, &c, 1, 1, "p = 1").await;
    assert_eq!(first.cache_deltas_applied, 0, "nothing cached yet");
    for k in 1..12 {
        commit(k).await;
        let s = latest(&t).await.unwrap();
        let kind = t.snapshot_manager().snapshot(s).await.unwrap().commit_kind;
        let m = check_bucket(&t, &c, 1, s, "p = 3").await;
        if kind == strata::spec::snapshot::CommitKind::Compact {
            // The writer compacted: its COMPACT snapshot follows the APPEND one.
            assert_eq!(m.cache_deltas_applied, 2, "snapshot {s}");
        } else {
            assert_eq!(m.cache_deltas_applied, 1, "snapshot {s}");
            assert_eq!(m.last_scanned_manifests, 1, "one delta manifest");
        }
        assert_eq!(m.manifests_total, 0);
    }
    let rows: Vec<(i64, i32, i32)> = (0..30).map(|i| (i, 2, 99)).collect();
    t.write_batches([batch(&rows)], Some(OverwriteScope::Dynamic))
        .await
        .unwrap();
    let s = latest(&t).await.unwrap();
    let m = check_bucket(&t, &c, 1, s, "p = 2").await;
    assert_eq!(m.cache_deltas_applied, 0, "an OVERWRITE is rebuilt");
    assert!(m.manifests_total > 0);
    commit(50).await;
    let s = latest(&t).await.unwrap();
    let m = check_bucket(&t, &c, 1, s, "p = 2").await;
    assert!(
        m.cache_deltas_applied >= 1,
        "incremental again after the overwrite"
    );
}

async fn write_all(t: &Table, k: i64) {
    let rows: Vec<(i64, i32, i32)> = (0..24).map(|i| (k * 100 + i, (i % 4) as i32, 1)).collect();
    t.write_batches([batch(&rows)], None).await.unwrap();
}

async fn expire_to(t: &Table, keep: i32) {
    ExpireSnapshots::new(t)
        .unwrap()
        .with_config(ExpireConfig {
            retain_max: keep,
            retain_min: keep,
            time_retained: std::time::Duration::ZERO,
            max_deletes: 1000,
        })
        .expire()
        .await
        .unwrap();
}

/// The cached base snapshot expired: its file is gone, so the chain cannot be verified and the
/// slot is rebuilt from the new snapshot's manifests.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_base_snapshot_falls_back_to_a_rebuild() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", APPEND).await;
    let c = cached(&t, 3, true);
    for k in 0..3 {
        write_all(&t, k).await;
    }
    check_bucket(&t, &c, 0, 3, "p = 0").await;
    for k in 3..8 {
        write_all(&t, k).await;
    }
    expire_to(&t, 2).await;
    assert!(t.snapshot_manager().snapshot(3).await.is_err());
    let m = check_bucket(&t, &c, 0, 8, "p = 1").await;
    assert_eq!(m.cache_deltas_applied, 0, "base snapshot 3 expired");
    // And the next commit builds on snapshot 8's slot.
    write_all(&t, 8).await;
    let m = check_bucket(&t, &c, 0, 9, "p = 1").await;
    assert_eq!(m.cache_deltas_applied, 1);
}

/// Rollbacks: a cached slot of a rolled-back snapshot never serves as a base (its id now
/// names other content), while a slot older than the rollback target still does — the chain
/// from it runs through the new snapshots.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rollback_falls_back_or_builds_from_a_surviving_slot() {
    // A slot of a snapshot that was rolled back.
    let wh = Warehouse::new();
    let t = wh.create("db.t", APPEND).await;
    let c = cached(&t, 3, true);
    for k in 0..5 {
        write_all(&t, k).await;
    }
    check_bucket(&t, &c, 1, 5, "p = 0").await;
    t.rollback_to_snapshot(3).await.unwrap();
    for k in 10..13 {
        write_all(&t, k).await;
    }
    assert_eq!(latest(&t).await, Some(6));
    let m = check_bucket(&t, &c, 1, 6, "p = 2").await;
    assert_eq!(
        m.cache_deltas_applied, 0,
        "slot 5 holds the old snapshot 5: not a base"
    );
    // The new 5: no slot older than it is cached (time travel behind 6).
    let m = check_bucket(&t, &c, 1, 5, "p = 2").await;
    assert_eq!(m.cache_deltas_applied, 0);

    // A slot older than the rollback target survives it and serves as the base.
    let wh = Warehouse::new();
    let t = wh.create("db.t", APPEND).await;
    let c = cached(&t, 3, true);
    for k in 0..5 {
        write_all(&t, k).await;
    }
    check_bucket(&t, &c, 1, 2, "p = 0").await;
    t.rollback_to_snapshot(4).await.unwrap();
    for k in 10..12 {
        write_all(&t, k).await;
    }
    assert_eq!(latest(&t).await, Some(6));
    let m = check_bucket(&t, &c, 1, 6, "p = 3").await;
    assert_eq!(m.cache_deltas_applied, 4, "2 → 3, 4, new 5, new 6");
}

/// Time travel to a snapshot older than every cached slot rebuilds; a slot far behind (more
/// than the incremental limit) is not used either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn older_snapshots_are_rebuilt() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", APPEND).await;
    let c = cached(&t, 4, true);
    for k in 0..4 {
        write_all(&t, k).await;
    }
    check_bucket(&t, &c, 0, 4, "p = 0").await;
    let m = check_bucket(&t, &c, 0, 2, "p = 0").await;
    assert_eq!(
        m.cache_deltas_applied, 0,
        "snapshot 2 is older than the cached 4"
    );
    // From 2 to 3: one step forward again.
    let m = check_bucket(&t, &c, 0, 3, "p = 1").await;
    assert_eq!(m.cache_deltas_applied, 1);
}

/// Each bucket keeps an index and at most `max-snapshots` slots, each under its own key: a new
/// snapshot's slot is added without rewriting the others, and the oldest is dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_most_max_snapshots_slots_are_kept_per_bucket() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", APPEND).await;
    let cache = Arc::new(LruCache::new(64 << 20));
    let c = t
        .with_dynamic_options([(
            "scan.manifest-entry-cache.max-snapshots".to_string(),
            "2".to_string(),
        )])
        .unwrap()
        .with_cache(cache.clone() as Arc<dyn Cache>);
    for k in 0..4 {
        write_all(&t, k).await;
        check_bucket(&t, &c, 0, k + 1, "p = 0").await;
        let kept = (k as usize + 1).min(2);
        assert_eq!(cache.stats().entries, 1 + kept, "index + {kept} slots");
    }
    // Both kept snapshots hit; the evicted one is rebuilt (nothing older to build from) and
    // kept, the oldest other slot (3) dropped.
    for s in [3, 4] {
        let p = plan(&c, None, 0, Some(s)).await;
        assert_eq!(p.metrics.cache_hit, Some(true), "snapshot {s}");
    }
    let p = plan(&c, None, 0, Some(2)).await;
    assert_eq!(
        (p.metrics.cache_hit, p.metrics.cache_deltas_applied),
        (Some(false), 0)
    );
    for (s, hit) in [(2, true), (4, true), (3, false)] {
        let p = plan(&c, None, 0, Some(s)).await;
        assert_eq!(p.metrics.cache_hit, Some(hit), "snapshot {s}");
    }
    // A second bucket has its own index and slots.
    check_bucket(&t, &c, 1, 4, "p = 0").await;
    assert_eq!(cache.stats().entries, 3 + 2);
}

/// A schema change between the cached snapshot and the new one does not stop the incremental
/// build: entries carry their own writer schema and data schema id, and the live set does not
/// depend on the table's current schema.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schema_changes_are_built_incrementally() {
    use strata_spec::schema::SchemaChange;
    use strata_spec::types::json::parse_type_text;
    let wh = Warehouse::new();
    let t = wh.create("db.t", APPEND).await;
    let cache: Arc<dyn Cache> = Arc::new(LruCache::new(64 << 20));
    let with_cache = |t: &Table| {
        t.with_dynamic_options([(
            "scan.manifest-entry-cache.max-snapshots".to_string(),
            "3".to_string(),
        )])
        .unwrap()
        .with_cache(cache.clone())
    };
    write_all(&t, 0).await;
    write_all(&t, 1).await;
    check_bucket(&t, &with_cache(&t), 0, 2, "p = 0").await;
    let id: strata::catalog::Identifier = "db.t".parse().unwrap();
    wh.catalog
        .alter_table(
            &id,
            vec![SchemaChange::add_column(
                "w",
                parse_type_text("INT").unwrap(),
            )],
            false,
        )
        .await
        .unwrap();
    let t1 = wh.catalog.get_table(&id).await.unwrap();
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("p", ArrowType::Int32, false),
        Field::new("v", ArrowType::Int32, true),
        Field::new("w", ArrowType::Int32, true),
    ]));
    let ids: Vec<i64> = (500..520).collect();
    let b = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.clone())),
            Arc::new(Int32Array::from(
                ids.iter().map(|i| (i % 4) as i32).collect::<Vec<_>>(),
            )),
            Arc::new(Int32Array::from(vec![Some(1); ids.len()])),
            Arc::new(Int32Array::from(vec![Some(2); ids.len()])),
        ],
    )
    .unwrap();
    t1.write_batches([b], None).await.unwrap();
    let m = check_bucket(&t1, &with_cache(&t1), 0, 3, "p = 1").await;
    assert_eq!(m.cache_deltas_applied, 1);
    let schema_ids: std::collections::BTreeSet<i64> = plan(&t1, None, 0, Some(3))
        .await
        .splits
        .iter()
        .flat_map(|s| s.files.iter().map(|f| f.schema_id))
        .collect();
    assert_eq!(
        schema_ids,
        [0, 1].into(),
        "files of both schemas in the slot"
    );
}
