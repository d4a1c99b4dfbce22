//! Model-based tests of whole primary-key tables: random sequences of upserts, deletes,
//! partition overwrites, compactions (normal and full), snapshot expiries and pairs of
//! concurrent writers, applied to a table and to an in-memory model. After every step strata
//! must read exactly the model — all rows, and the rows a key filter selects — and at the end
//! every retained snapshot must read as the model did when it was committed (time travel).
//!
//! Fixed-bucket and dynamic-bucket (`bucket = -1`) tables, with a tiny write buffer so writes
//! spill and flush many level-0 files and compaction runs on writes.
//!
//! CI runs a few cases; a soak run sets `STRATA_SOAK_CASES` (e.g. 2000: about an hour):
//! `STRATA_SOAK_CASES=2000 cargo test --release -p strata --test it table_model`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crate::common::*;
use arrow_array::{Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use proptest::prelude::*;
use strata::commit::OverwriteScope;
use strata::maintenance::{ExpireConfig, ExpireSnapshots};
use strata::table::Table;
use strata_spec::kv::RowKind;
use strata_spec::Datum;

const PARTITIONS: [&str; 2] = ["a", "b"];

type Key = (i64, String);
type Model = BTreeMap<Key, i32>;

#[derive(Clone, Debug)]
enum Step {
    /// One commit: `(key, partition, Some(v))` upserts, `None` deletes.
    Write(Vec<(i64, usize, Option<i32>)>),
    /// INSERT OVERWRITE of one partition with these rows.
    Overwrite(usize, Vec<(i64, i32)>),
    /// Two writers that both start before either commits; even keys for one, odd for the other.
    Concurrent(Vec<(i64, usize, i32)>),
    Compact {
        full: bool,
    },
    /// Expire all but the newest `n` snapshots.
    Expire(i32),
}

fn step() -> impl Strategy<Value = Step> {
    let row = (0i64..30, 0usize..2, prop::option::weighted(0.8, -50i32..50));
    prop_oneof![
        6 => prop::collection::vec(row, 1..40).prop_map(Step::Write),
        1 => (0usize..2, prop::collection::vec((0i64..30, -50i32..50), 0..20))
            .prop_map(|(p, rows)| Step::Overwrite(p, rows)),
        2 => prop::collection::vec((0i64..30, 0usize..2, -50i32..50), 2..30)
            .prop_map(Step::Concurrent),
        1 => any::<bool>().prop_map(|full| Step::Compact { full }),
        1 => (1i32..4).prop_map(Step::Expire),
    ]
}

fn cases() -> u32 {
    std::env::var("STRATA_SOAK_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6)
}

fn schema_json(bucket: &str) -> String {
    format!(
        r#"{{"fields":[{{"name":"k","type":"BIGINT NOT NULL"}},{{"name":"dt","type":"STRING NOT NULL"}},
        {{"name":"v","type":"INT"}}],"partitionKeys":["dt"],"primaryKeys":["k","dt"],
        "options":{{"bucket":"{bucket}","write-buffer-size":"2kb","dynamic-bucket.target-row-num":"8",
        "num-sorted-run.compaction-trigger":"3","snapshot.num-retained.min":"1",
        "snapshot.num-retained.max":"1000000"}}}}"#
    )
}

fn batch(rows: &[(i64, &str, Option<i32>)]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("k", ArrowType::Int64, false),
        Field::new("dt", ArrowType::Utf8, false),
        Field::new("v", ArrowType::Int32, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.0))),
            Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.1))),
            Arc::new(Int32Array::from_iter(rows.iter().map(|r| r.2))),
        ],
    )
    .unwrap()
}

async fn read_model(t: &Table, filter: Option<&str>, snapshot: Option<i64>) -> Model {
    let mut scan = t.new_scan();
    let mut read = t.new_read();
    if let Some(f) = filter {
        let p = strata::expr::parse_sql_predicate(f).unwrap();
        scan = scan.with_filter(p.clone());
        read = read.with_filter(p);
    }
    if let Some(s) = snapshot {
        scan = scan.with_snapshot(s);
    }
    let plan = scan.plan().await.unwrap();
    let mut out = Model::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        let k = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let dt = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
        let v = b.column(2).as_any().downcast_ref::<Int32Array>().unwrap();
        for i in 0..b.num_rows() {
            assert!(!v.is_null(i), "only non-null values are written");
            let key = (k.value(i), dt.value(i).to_string());
            assert!(
                out.insert(key.clone(), v.value(i)).is_none(),
                "{key:?} read twice"
            );
        }
    }
    out
}

/// Writes `rows` with a new writer and returns its prepared messages.
async fn prepare(
    t: &Table,
    rows: &[(i64, &str, Option<i32>)],
) -> Vec<strata::commit::CommitMessage> {
    let mut w = t.new_write().unwrap();
    let kinds: Vec<RowKind> = rows
        .iter()
        .map(|r| {
            if r.2.is_some() {
                RowKind::Insert
            } else {
                RowKind::Delete
            }
        })
        .collect();
    for (chunk, kinds) in rows.chunks(9).zip(kinds.chunks(9)) {
        w.write_with_kinds(&batch(chunk), kinds).await.unwrap();
    }
    w.prepare_commit().await.unwrap()
}

async fn run(bucket: &str, steps: Vec<Step>) {
    let wh = Warehouse::new();
    let t = wh.create("db.m", &schema_json(bucket)).await;
    let mut model = Model::new();
    let mut history: Vec<(i64, Model)> = Vec::new();
    for (n, step) in steps.into_iter().enumerate() {
        match &step {
            Step::Write(rows) => {
                let rows: Vec<(i64, &str, Option<i32>)> = rows
                    .iter()
                    .map(|(k, p, v)| (*k, PARTITIONS[*p], *v))
                    .collect();
                let msgs = prepare(&t, &rows).await;
                t.new_commit().unwrap().commit(msgs).await.unwrap();
                for (k, p, v) in rows {
                    match v {
                        Some(v) => model.insert((k, p.to_string()), v),
                        None => model.remove(&(k, p.to_string())),
                    };
                }
            }
            Step::Overwrite(p, rows) => {
                let dt = PARTITIONS[*p];
                let data: Vec<(i64, &str, Option<i32>)> =
                    rows.iter().map(|(k, v)| (*k, dt, Some(*v))).collect();
                let scope =
                    OverwriteScope::Static(vec![("dt".into(), Some(Datum::String(dt.into())))]);
                let mut w = t.new_write().unwrap().with_overwrite(true);
                if !data.is_empty() {
                    w.write(&batch(&data)).await.unwrap();
                }
                let msgs = w.prepare_commit().await.unwrap();
                t.new_commit()
                    .unwrap()
                    .overwrite(scope, msgs)
                    .await
                    .unwrap();
                model.retain(|(_, d), _| d != dt);
                for (k, _, v) in data {
                    model.insert((k, dt.to_string()), v.unwrap());
                }
            }
            Step::Concurrent(rows) => {
                let (even, odd): (Vec<_>, Vec<_>) = rows.iter().partition(|r| r.0 % 2 == 0);
                let as_rows = |rs: &[&(i64, usize, i32)]| -> Vec<(i64, &str, Option<i32>)> {
                    rs.iter()
                        .map(|(k, p, v)| (*k, PARTITIONS[*p], Some(*v)))
                        .collect()
                };
                let (a, b) = (as_rows(&even), as_rows(&odd));
                // Both writers load the table before either commits.
                let ma = prepare(&t, &a).await;
                let mb = prepare(&t, &b).await;
                let (ra, rb) =
                    tokio::join!(async { t.new_commit().unwrap().commit(ma).await }, async {
                        t.new_commit().unwrap().commit(mb).await
                    });
                ra.unwrap();
                rb.unwrap();
                for (k, p, v) in a.into_iter().chain(b) {
                    model.insert((k, p.to_string()), v.unwrap());
                }
            }
            Step::Compact { full } => {
                let mut w = t.new_write().unwrap();
                w.compact(&|_, _| true, *full).await.unwrap();
                let msgs = w.prepare_commit().await.unwrap();
                t.new_commit().unwrap().commit(msgs).await.unwrap();
            }
            Step::Expire(keep) => {
                let config = ExpireConfig {
                    retain_max: *keep,
                    retain_min: 1,
                    time_retained: Duration::ZERO,
                    max_deletes: i32::MAX,
                };
                ExpireSnapshots::new(&t)
                    .unwrap()
                    .with_config(config)
                    .expire()
                    .await
                    .unwrap();
            }
        }
        let got = read_model(&t, None, None).await;
        assert_eq!(got, model, "step {n} ({step:?}) on bucket = {bucket}");
        let filtered: Model = model
            .iter()
            .filter(|((k, _), _)| *k < 12)
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        assert_eq!(
            read_model(&t, Some("k < 12"), None).await,
            filtered,
            "step {n} ({step:?}), k < 12"
        );
        if let Some(id) = t.snapshot_manager().latest_id().await.unwrap() {
            history.push((id, model.clone()));
        }
    }
    // Time travel: every retained snapshot reads as the model did after its step.
    let earliest = t.snapshot_manager().earliest_id().await.unwrap();
    for (id, then) in history {
        if earliest.is_some_and(|e| id >= e) {
            assert_eq!(read_model(&t, None, Some(id)).await, then, "snapshot {id}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), .. ProptestConfig::default() })]

    #[test]
    fn fixed_bucket_table_matches_its_model(steps in prop::collection::vec(step(), 1..14)) {
        tokio::runtime::Runtime::new().unwrap().block_on(run("2", steps));
    }

    #[test]
    fn dynamic_bucket_table_matches_its_model(steps in prop::collection::vec(step(), 1..14)) {
        tokio::runtime::Runtime::new().unwrap().block_on(run("-1", steps));
    }
}
