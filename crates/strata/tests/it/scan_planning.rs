//! Scan planning at scale (issue 5): the snapshot live manifest entry cache, lazy manifest
//! decoding and the scan metrics, on real local warehouses.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::common::*;
use arrow_array::{Int32Array, Int64Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use proptest::prelude::*;
use strata::cache::{Cache, LruCache};
use strata::commit::OverwriteScope;
use strata::expr::parse_sql_predicate;
use strata::scan::Plan;
use strata::table::Table;

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

const APPEND_ONE_BUCKET: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
 {"name":"p","type":"INT NOT NULL"},{"name":"v","type":"INT"}],"partitionKeys":["p"],
 "options":{"bucket":"1","bucket-key":"id"}}"#;

const PK_FOUR_BUCKETS: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
 {"name":"p","type":"INT NOT NULL"},{"name":"v","type":"INT"}],"partitionKeys":["p"],
 "primaryKeys":["p","id"],"options":{"bucket":"4"}}"#;

fn with(t: &Table, max_snapshots: usize, lazy: bool) -> Table {
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
}

async fn plan(t: &Table, filter: Option<&str>, bucket: Option<i32>, snapshot: Option<i64>) -> Plan {
    let mut scan = t.new_scan();
    if let Some(f) = filter {
        scan = scan.with_filter(parse_sql_predicate(f).unwrap());
    }
    if let Some(b) = bucket {
        scan = scan.with_bucket(b);
    }
    if let Some(s) = snapshot {
        scan = scan.with_snapshot(s);
    }
    scan.plan().await.unwrap()
}

/// A plan as comparable data: (partition bytes, bucket, raw-convertible, [(file, level)]).
type Shape = Vec<(Vec<u8>, i32, bool, Vec<(String, i32)>)>;

fn shape(p: &Plan) -> Shape {
    p.splits
        .iter()
        .map(|s| {
            let mut files: Vec<(String, i32)> = s
                .files
                .iter()
                .map(|f| (f.file_name.clone(), f.level))
                .collect();
            files.sort();
            (
                s.partition.as_bytes().to_vec(),
                s.bucket,
                s.raw_convertible,
                files,
            )
        })
        .collect()
}

/// The seed's example: one bucket with 604 live entries over 84 partitions; a scan of one
/// partition (6 entries) inspects 604 partition fields and fully decodes 6.
#[tokio::test]
async fn seed_example_604_entries_84_partitions_decodes_6() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", APPEND_ONE_BUCKET).await;
    // Six commits over all 84 partitions, one over 1..=83, one over 1..=17: 504 + 83 + 17.
    let mut id = 0i64;
    let mut commit = |parts: std::ops::RangeInclusive<i32>| {
        let rows: Vec<(i64, i32, i32)> = parts
            .map(|p| {
                id += 1;
                (id, p, p)
            })
            .collect();
        batch(&rows)
    };
    let mut batches = Vec::new();
    for _ in 0..6 {
        batches.push(commit(0..=83));
    }
    batches.push(commit(1..=83));
    batches.push(commit(1..=17));
    for b in batches {
        t.write_batches([b], None).await.unwrap();
    }
    let cache: Arc<dyn Cache> = Arc::new(LruCache::new(64 << 20));
    let cached = with(&t, 3, true).with_cache(cache.clone());

    let miss = plan(&cached, Some("p = 0"), Some(0), None).await;
    let m = &miss.metrics;
    assert_eq!(m.cache_hit, Some(false));
    assert_eq!(m.last_scanned_manifests, 8);
    assert_eq!(m.entries_inspected, 604);
    assert_eq!(m.entries_decoded, 6);
    assert_eq!((m.splits, m.files, m.skipped_files), (1, 6, 598));

    let hit = plan(&cached, Some("p = 0"), Some(0), None).await;
    let h = &hit.metrics;
    assert_eq!(h.cache_hit, Some(true));
    assert_eq!(
        h.last_scanned_manifests, 0,
        "an exact hit reads no manifest"
    );
    assert_eq!(h.entries_inspected, 604, "604 partition fields inspected");
    assert_eq!(h.entries_decoded, 6, "only the 6 kept entries decoded");
    assert_eq!(h.entries_skipped_by_partition, 598);
    assert_eq!((h.files, h.skipped_files), (6, 598));
    assert_eq!(shape(&hit), shape(&miss));

    // Another predicate is served by the same cached value.
    let other = plan(&cached, Some("p = 5"), Some(0), None).await;
    assert_eq!(other.metrics.cache_hit, Some(true));
    assert_eq!(other.metrics.entries_decoded, 8);

    // Lazy decoding off: the same plan, every entry decoded before filtering.
    let eager = with(&t, 3, false).with_cache(cache.clone());
    let e = plan(&eager, Some("p = 0"), Some(0), None).await;
    assert_eq!(e.metrics.cache_hit, Some(true));
    assert_eq!(e.metrics.entries_decoded, 604);
    assert_eq!(shape(&e), shape(&miss));

    // No cache: manifests without partition 0 are pruned by their partition statistics, the
    // rest are selected while encoded.
    let plain = plan(&t, Some("p = 0"), Some(0), None).await;
    assert_eq!(plain.metrics.cache_hit, None);
    assert_eq!(plain.metrics.last_scanned_manifests, 6);
    assert_eq!(plain.metrics.entries_inspected, 504);
    assert_eq!(plain.metrics.entries_decoded, 6);
    assert_eq!(shape(&plain), shape(&miss));
    let plain_eager = plan(&with(&t, 0, false), Some("p = 0"), Some(0), None).await;
    assert_eq!(plain_eager.metrics.entries_decoded, 504);
    assert_eq!(shape(&plain_eager), shape(&miss));

    // Multi-bucket scans (no bucket given, none derivable) bypass the cache.
    let all = plan(&cached, Some("p = 0"), None, None).await;
    assert_eq!(all.metrics.cache_hit, None);
    assert_eq!(shape(&all), shape(&miss));
}

#[tokio::test]
async fn equality_on_the_bucket_key_selects_one_bucket_and_uses_the_cache() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", PK_FOUR_BUCKETS).await;
    let rows: Vec<(i64, i32, i32)> = (0..200).map(|i| (i, (i % 3) as i32, 1)).collect();
    t.write_batches([batch(&rows)], None).await.unwrap();
    let cached = with(&t, 2, true).with_cache(Arc::new(LruCache::new(1 << 20)));
    let one = plan(&cached, Some("p = 1 AND id = 7"), None, None).await;
    assert_eq!(one.metrics.cache_hit, Some(false));
    assert_eq!(one.splits.len(), 1);
    let bucket = one.splits[0].bucket;
    // The bucket is the one the writer put key (1, 7) in: the row reads back through it.
    assert_eq!(read_ids(&t, Some("p = 1 AND id = 7"), None).await, vec![7]);
    let again = plan(&cached, Some("p = 1 AND id = 7"), None, None).await;
    assert_eq!(again.metrics.cache_hit, Some(true));
    assert_eq!(shape(&again), shape(&one));
    let explicit = plan(&t, Some("p = 1"), Some(bucket), None).await;
    assert_eq!(shape(&explicit), shape(&one));
    // An IN list over the key spans several buckets: no cache, but other buckets are still
    // skipped before decoding.
    let many = plan(
        &cached,
        Some("p = 1 AND id IN (1, 4, 7, 10, 13, 16)"),
        None,
        None,
    )
    .await;
    assert_eq!(many.metrics.cache_hit, None);
    assert!(many.metrics.entries_skipped_by_bucket > 0 || many.splits.len() == 4);
    // A bucket outside the derived one plans nothing.
    let none = plan(&t, Some("p = 1 AND id = 7"), Some((bucket + 1) % 4), None).await;
    assert!(none.splits.is_empty());
}

/// A snapshot id reused after a rollback must not be served from the old cached slot.
#[tokio::test]
async fn snapshot_id_reused_after_rollback_is_not_served_stale() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", APPEND_ONE_BUCKET).await;
    t.write_batches([batch(&[(1, 0, 1)])], None).await.unwrap();
    t.write_batches([batch(&[(2, 0, 1)])], None).await.unwrap();
    let cache: Arc<dyn Cache> = Arc::new(LruCache::new(1 << 20));
    let cached = with(&t, 4, true).with_cache(cache.clone());
    let before = plan(&cached, None, Some(0), None).await;
    assert_eq!(
        (before.metrics.cache_hit, before.metrics.files),
        (Some(false), 2)
    );
    assert_eq!(
        plan(&cached, None, Some(0), None).await.metrics.cache_hit,
        Some(true)
    );

    // Roll back snapshot 2 by hand (remove it, point LATEST at 1), then commit a new 2.
    let dir = wh.table_dir("db", "t").join("snapshot");
    std::fs::remove_file(dir.join("snapshot-2")).unwrap();
    std::fs::write(dir.join("LATEST"), "1").unwrap();
    let id = t
        .write_batches([batch(&[(3, 0, 1), (4, 1, 1)])], None)
        .await
        .unwrap();
    assert_eq!(id, Some(2));
    let after = plan(&cached, None, Some(0), None).await;
    assert_eq!(
        after.metrics.cache_hit,
        Some(false),
        "new content under the same id"
    );
    assert_eq!(shape(&after), shape(&plan(&t, None, Some(0), None).await));
    assert_eq!(after.metrics.files, 3);
}

#[tokio::test]
async fn bad_cache_option_is_a_clear_error() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", APPEND_ONE_BUCKET).await;
    let err = t
        .with_dynamic_options([(
            "scan.manifest-entry-cache.max-snapshots".to_string(),
            "-1".to_string(),
        )])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("scan.manifest-entry-cache.max-snapshots"),
        "{err}"
    );
}

#[derive(Clone, Debug)]
enum Op {
    Write(Vec<(i64, i32)>),
    Compact(bool),
    Overwrite(i32, Vec<i64>),
    Scan {
        filter: Option<String>,
        bucket: Option<i32>,
        back: usize,
    },
}

fn arb_op() -> impl Strategy<Value = Op> {
    let filter = prop_oneof![
        Just(None),
        (0i32..3).prop_map(|p| Some(format!("p = {p}"))),
        (0i32..3).prop_map(|p| Some(format!("p <> {p}"))),
        (0i64..40, 0i32..3).prop_map(|(id, p)| Some(format!("p = {p} AND id = {id}"))),
        (0i64..40).prop_map(|id| Some(format!("id < {id}"))),
    ];
    prop_oneof![
        3 => prop::collection::vec((0i64..40, 0i32..3), 1..30).prop_map(Op::Write),
        1 => any::<bool>().prop_map(Op::Compact),
        1 => (0i32..3, prop::collection::vec(0i64..40, 1..5)).prop_map(|(p, ids)| Op::Overwrite(p, ids)),
        4 => (filter, prop::option::of(0i32..2), 0usize..3)
            .prop_map(|(filter, bucket, back)| Op::Scan { filter, bucket, back }),
    ]
}

const PK_TWO_BUCKETS: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
 {"name":"p","type":"INT NOT NULL"},{"name":"v","type":"INT"}],"partitionKeys":["p"],
 "primaryKeys":["p","id"],"options":{"bucket":"2","num-sorted-run.compaction-trigger":"3"}}"#;

async fn run_ops(ops: Vec<Op>) {
    let wh = Warehouse::new();
    let t = wh.create("db.t", PK_TWO_BUCKETS).await;
    // One long-lived cache per lazy setting, small enough to evict.
    let configs: Vec<Table> = vec![
        with(&t, 0, true),
        with(&t, 0, false),
        with(&t, 2, true).with_cache(Arc::new(LruCache::new(64 << 10))),
        with(&t, 3, false).with_cache(Arc::new(LruCache::new(1 << 20))),
    ];
    let mut version = 0;
    for op in ops {
        match op {
            Op::Write(rows) => {
                version += 1;
                let rows: Vec<(i64, i32, i32)> =
                    rows.into_iter().map(|(id, p)| (id, p, version)).collect();
                t.write_batches([batch(&rows)], None).await.unwrap();
            }
            Op::Compact(full) => {
                let mut w = t.new_write().unwrap();
                w.compact(&|_, _| true, full).await.unwrap();
                let msgs = w.prepare_commit().await.unwrap();
                t.new_commit().unwrap().commit(msgs).await.unwrap();
            }
            Op::Overwrite(p, ids) => {
                version += 1;
                let rows: Vec<(i64, i32, i32)> =
                    ids.into_iter().map(|id| (id, p, version)).collect();
                t.write_batches([batch(&rows)], Some(OverwriteScope::Dynamic))
                    .await
                    .unwrap();
            }
            Op::Scan {
                filter,
                bucket,
                back,
            } => {
                let latest = t.snapshot_manager().latest().await.unwrap().map(|s| s.id);
                let snapshot = latest.map(|l| (l - back as i64).max(1));
                let mut shapes = Vec::new();
                for c in &configs {
                    // Twice: the second scan of a cached config is an exact hit.
                    for _ in 0..2 {
                        shapes.push(shape(&plan(c, filter.as_deref(), bucket, snapshot).await));
                    }
                }
                for s in &shapes[1..] {
                    assert_eq!(
                        s, &shapes[0],
                        "filter {filter:?} bucket {bucket:?} snapshot {snapshot:?}"
                    );
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Random commits, compactions, overwrites and scans: the same plans with the cache on and
    /// off and lazy decoding on and off.
    #[test]
    fn plans_are_identical_with_cache_and_lazy_decoding_on_and_off(
        ops in prop::collection::vec(arb_op(), 1..14)
    ) {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        rt.block_on(run_ops(ops));
    }
}

/// Many tasks scan through one cache while commits land; every plan equals the uncached plan
/// of the same snapshot.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_scans_through_one_cache_while_committing() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", PK_TWO_BUCKETS).await;
    t.write_batches([batch(&[(1, 0, 0), (2, 1, 0)])], None)
        .await
        .unwrap();
    let cache: Arc<dyn Cache> = Arc::new(LruCache::new(4 << 20));
    let cached = with(&t, 2, true).with_cache(cache.clone());
    let writer = {
        let t = t.clone();
        tokio::spawn(async move {
            for i in 0..20i64 {
                let rows: Vec<(i64, i32, i32)> = (0..10)
                    .map(|k| (i * 10 + k, (k % 3) as i32, i as i32))
                    .collect();
                t.write_batches([batch(&rows)], None).await.unwrap();
            }
        })
    };
    let mut scanners = Vec::new();
    for s in 0..8 {
        let cached = cached.clone();
        let plain = t.clone();
        scanners.push(tokio::spawn(async move {
            let mut checked = BTreeMap::new();
            for i in 0..15 {
                let filter = format!("p = {}", (s + i) % 3);
                let got = plan(&cached, Some(&filter), Some(s % 2), None).await;
                let Some(id) = got.metrics.snapshot_id else {
                    continue;
                };
                let want = plan(&plain, Some(&filter), Some(s % 2), Some(id)).await;
                assert_eq!(shape(&got), shape(&want), "snapshot {id} filter {filter}");
                *checked.entry(got.metrics.cache_hit).or_insert(0) += 1;
            }
            checked
        }));
    }
    writer.await.unwrap();
    let mut hits = 0;
    for s in scanners {
        hits += s.await.unwrap().get(&Some(true)).copied().unwrap_or(0);
    }
    assert!(hits > 0, "some scans were served from the cache");
}
