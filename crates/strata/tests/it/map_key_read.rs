//! MAP key access `m['k']` end to end on default-layout maps: projections and filters on key
//! columns of append and primary-key tables, compared with a model computed here; errors for
//! key access on non-MAP / non-STRING-key / unknown columns; read metrics plumbing.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::common::*;
use arrow_array::builder::{Float64Builder, MapBuilder, MapFieldNames, StringBuilder};
use arrow_array::{Array, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::read::ReadMetrics;
use strata::table::Table;

/// One row of the model: id, the `m` map (NULL = None) and the `tags` map.
#[derive(Clone, Debug)]
struct Row {
    id: i64,
    m: Option<BTreeMap<String, Option<f64>>>,
    tags: Option<BTreeMap<String, Option<String>>>,
}

impl Row {
    fn m(&self, k: &str) -> Option<f64> {
        self.m.as_ref()?.get(k).copied().flatten()
    }
    fn tag(&self, k: &str) -> Option<String> {
        self.tags.as_ref()?.get(k).cloned().flatten()
    }
}

const KEYS: [&str; 5] = ["usage", "cpu", "mem", "it's", "a,b"];

/// Deterministic rows `ids` with a `version` mixed into the values: NULL maps, empty maps,
/// absent keys and present-with-NULL values all occur.
fn rows(ids: std::ops::Range<i64>, version: i64) -> Vec<Row> {
    ids.map(|id| {
        let h = (id * 7919 + version * 104_729) % 1000;
        let m = match h % 9 {
            0 => None,
            1 => Some(BTreeMap::new()),
            _ => Some(
                KEYS.iter()
                    .enumerate()
                    .filter(|(i, _)| (h >> i) & 1 == 1 || *i == (h as usize % 5))
                    .map(|(i, k)| {
                        let v = ((h * (i as i64 + 3)) % 61) as f64 + 0.5;
                        (k.to_string(), (h % 11 != i as i64).then_some(v))
                    })
                    .collect(),
            ),
        };
        let tags = (h % 13 != 0).then(|| {
            let mut t = BTreeMap::new();
            t.insert("host".to_string(), Some(format!("h{}", h % 4)));
            if h % 3 == 0 {
                t.insert("dc".to_string(), None);
            }
            t
        });
        Row { id, m, tags }
    })
    .collect()
}

fn names() -> MapFieldNames {
    MapFieldNames {
        entry: "key_value".into(),
        key: "key".into(),
        value: "value".into(),
    }
}

fn batch(rows: &[Row]) -> RecordBatch {
    let mut m = MapBuilder::new(Some(names()), StringBuilder::new(), Float64Builder::new());
    let mut tags = MapBuilder::new(Some(names()), StringBuilder::new(), StringBuilder::new());
    for r in rows {
        match &r.m {
            None => m.append(false).unwrap(),
            Some(map) => {
                for (k, v) in map {
                    m.keys().append_value(k);
                    m.values().append_option(*v);
                }
                m.append(true).unwrap();
            }
        }
        match &r.tags {
            None => tags.append(false).unwrap(),
            Some(map) => {
                for (k, v) in map {
                    tags.keys().append_value(k);
                    tags.values().append_option(v.as_deref());
                }
                tags.append(true).unwrap();
            }
        }
    }
    let m = m.finish();
    let tags = tags.finish();
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("m", m.data_type().clone(), true),
        Field::new("tags", tags.data_type().clone(), true),
    ]));
    let ids = Int64Array::from(rows.iter().map(|r| r.id).collect::<Vec<_>>());
    RecordBatch::try_new(schema, vec![Arc::new(ids), Arc::new(m), Arc::new(tags)]).unwrap()
}

const FIELDS: &str = r#"[{"name":"id","type":"BIGINT NOT NULL"},
    {"name":"m","type":"MAP<STRING NOT NULL, DOUBLE>"},
    {"name":"tags","type":"MAP<STRING NOT NULL, STRING>"},
    {"name":"im","type":"MAP<INT NOT NULL, DOUBLE>"}]"#;

async fn write(t: &Table, rows: &[Row]) {
    let mut w = t.new_write().unwrap();
    for chunk in rows.chunks(40) {
        w.write(&batch(chunk)).await.unwrap();
    }
    let msgs = w.prepare_commit().await.unwrap();
    t.new_commit().unwrap().commit(msgs).await.unwrap();
}

/// Options storing `m` and `tags` in the shared-shredding layout (PIP-43).
const SHREDDED: &str = r#""fields.m.map.storage-layout":"shared-shredding",
    "fields.m.map.shared-shredding.max-columns":"3",
    "fields.tags.map.storage-layout":"shared-shredding""#;

/// An append table written in two commits (several files) and its model.
async fn append_table(wh: &Warehouse) -> (Table, Vec<Row>) {
    append_table_with(wh, "db.a", "").await
}

async fn append_table_with(wh: &Warehouse, name: &str, options: &str) -> (Table, Vec<Row>) {
    let t = wh
        .create(
            name,
            &format!(r#"{{"fields":{FIELDS},"options":{{"target-file-size":"4kb"{options}}}}}"#),
        )
        .await;
    let mut model = rows(0..120, 0);
    write(&t, &model[..60]).await;
    write(&t, &model[60..]).await;
    model.sort_by_key(|r| r.id);
    (t, model)
}

/// A primary-key table with upserts over three commits (merge-on-read) and its model.
async fn pk_table(wh: &Warehouse) -> (Table, Vec<Row>) {
    pk_table_with(wh, "db.pk", "").await
}

async fn pk_table_with(wh: &Warehouse, name: &str, options: &str) -> (Table, Vec<Row>) {
    let t = wh
        .create(
            name,
            &format!(
                r#"{{"fields":{FIELDS},"primaryKeys":["id"],"options":{{"bucket":"2"{options}}}}}"#
            ),
        )
        .await;
    let mut model: BTreeMap<i64, Row> = BTreeMap::new();
    for (range, version) in [(0..80, 0), (40..120, 1), (0..30, 2)] {
        let rs = rows(range, version);
        write(&t, &rs).await;
        for r in rs {
            model.insert(r.id, r);
        }
    }
    (t, model.into_values().collect())
}

/// Rows read as (id, value columns as text) with `columns` after `id`, sorted by id.
async fn read(t: &Table, columns: &[&str], filter: Option<&str>) -> Vec<(i64, Vec<String>)> {
    let mut scan = t.new_scan();
    let mut projection = vec!["id".to_string()];
    projection.extend(columns.iter().map(|c| c.to_string()));
    let mut read = t.new_read().with_projection(projection);
    if let Some(f) = filter {
        let p = strata::expr::parse_sql_predicate(f).unwrap();
        scan = scan.with_filter(p.clone());
        read = read.with_filter(p);
    }
    let schema = read.output_schema().unwrap();
    let plan = scan.plan().await.unwrap();
    let mut out = Vec::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        assert_eq!(b.schema(), schema);
        let ids = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        for i in 0..b.num_rows() {
            let cells = (1..b.num_columns())
                .map(|c| cell(b.column(c).as_ref(), i))
                .collect();
            out.push((ids.value(i), cells));
        }
    }
    out.sort_by_key(|r| r.0);
    out
}

fn cell(a: &dyn Array, i: usize) -> String {
    if a.is_null(i) {
        return "NULL".into();
    }
    if let Some(f) = a.as_any().downcast_ref::<Float64Array>() {
        return f.value(i).to_string();
    }
    if let Some(s) = a.as_any().downcast_ref::<StringArray>() {
        return s.value(i).to_string();
    }
    format!("{:?}", a.slice(i, 1))
}

fn text<T: ToString>(v: Option<T>) -> String {
    v.map_or("NULL".into(), |v| v.to_string())
}

/// The model's rows for `keep`, with the `m['usage']` value.
fn expect_usage(model: &[Row], keep: impl Fn(&Row) -> bool) -> Vec<(i64, Vec<String>)> {
    model
        .iter()
        .filter(|r| keep(r))
        .map(|r| (r.id, vec![text(r.m("usage"))]))
        .collect()
}

/// SQL filters on key columns with the model's answer (SQL three-valued logic: a comparison
/// with NULL is not true, NOT of it neither).
#[allow(clippy::type_complexity)]
fn filters() -> Vec<(&'static str, Box<dyn Fn(&Row) -> bool>)> {
    let gt = |v: Option<f64>, x: f64| v.is_some_and(|v| v > x);
    vec![
        ("m['usage'] > 30", Box::new(move |r| gt(r.m("usage"), 30.0))),
        (
            "m['usage'] > 30 AND id < 50",
            Box::new(move |r| gt(r.m("usage"), 30.0) && r.id < 50),
        ),
        (
            "NOT (m['usage'] > 30)",
            Box::new(|r| r.m("usage").is_some_and(|v| v <= 30.0)),
        ),
        (
            "m['usage'] > 30 OR m['cpu'] IS NULL",
            Box::new(move |r| gt(r.m("usage"), 30.0) || r.m("cpu").is_none()),
        ),
        (
            "m['usage'] IN (3.5, 20.5, 33.5)",
            Box::new(|r| r.m("usage").is_some_and(|v| [3.5, 20.5, 33.5].contains(&v))),
        ),
        (
            "m['usage'] NOT IN (3.5, 20.5)",
            Box::new(|r| r.m("usage").is_some_and(|v| ![3.5, 20.5].contains(&v))),
        ),
        ("m['usage'] IS NULL", Box::new(|r| r.m("usage").is_none())),
        (
            "m['usage'] IS NOT NULL",
            Box::new(|r| r.m("usage").is_some()),
        ),
        (
            "m['usage'] BETWEEN 10 AND 40",
            Box::new(|r| r.m("usage").is_some_and(|v| (10.0..=40.0).contains(&v))),
        ),
        (
            "NOT (m['usage'] BETWEEN 10 AND 40) OR m['it''s'] >= 20",
            Box::new(|r| {
                r.m("usage").is_some_and(|v| !(10.0..=40.0).contains(&v))
                    || r.m("it's").is_some_and(|v| v >= 20.0)
            }),
        ),
        (
            "tags['host'] = 'h1' AND m['a,b'] IS NOT NULL",
            Box::new(|r| r.tag("host").as_deref() == Some("h1") && r.m("a,b").is_some()),
        ),
        (
            "tags['dc'] IS NULL AND tags IS NOT NULL",
            Box::new(|r| r.tag("dc").is_none() && r.tags.is_some()),
        ),
        (
            "m IS NULL OR m['mem'] < 10",
            Box::new(|r| r.m.is_none() || r.m("mem").is_some_and(|v| v < 10.0)),
        ),
        (
            "NOT (m['usage'] IS NULL AND id >= 10)",
            Box::new(|r| r.m("usage").is_some() || r.id < 10),
        ),
    ]
}

async fn check_table(t: &Table, model: &[Row]) {
    // Projection of several keys of two maps, with NULL maps, absent keys and NULL values.
    let got = read(
        t,
        &["m['usage']", "m['it''s']", "tags['host']", "m['a,b']"],
        None,
    )
    .await;
    let want: Vec<_> = model
        .iter()
        .map(|r| {
            (
                r.id,
                vec![
                    text(r.m("usage")),
                    text(r.m("it's")),
                    text(r.tag("host")),
                    text(r.m("a,b")),
                ],
            )
        })
        .collect();
    assert_eq!(got, want);
    assert!(got.iter().any(|r| r.1[0] == "NULL") && got.iter().any(|r| r.1[0] != "NULL"));

    for (sql, keep) in filters() {
        let got = read(t, &["m['usage']"], Some(sql)).await;
        let want = expect_usage(model, keep);
        assert_eq!(got, want, "{sql}");
    }
    // Filter on a key that is not projected; the map itself not read whole.
    let got: Vec<i64> = read(t, &[], Some("m['cpu'] < 20"))
        .await
        .into_iter()
        .map(|r| r.0)
        .collect();
    let want: Vec<i64> = model
        .iter()
        .filter(|r| r.m("cpu").is_some_and(|v| v < 20.0))
        .map(|r| r.id)
        .collect();
    assert_eq!(got, want);
    assert!(!want.is_empty());
}

#[tokio::test]
async fn append_table_key_columns_and_filters_match_the_model() {
    let wh = Warehouse::new();
    let (t, model) = append_table(&wh).await;
    check_table(&t, &model).await;
}

#[tokio::test]
async fn primary_key_table_key_columns_and_filters_match_the_model() {
    let wh = Warehouse::new();
    let (t, model) = pk_table(&wh).await;
    let plan = t.new_scan().plan().await.unwrap();
    assert!(
        plan.splits.iter().any(|s| !s.raw_convertible),
        "merge reads exercised"
    );
    check_table(&t, &model).await;
}

/// The same answers when the maps are stored shredded (the format layer may then read only
/// the physical columns holding the selected keys and skip by the MAP-key predicate).
#[tokio::test]
async fn shredded_maps_give_the_same_answers() {
    let wh = Warehouse::new();
    let (t, model) = append_table_with(&wh, "db.sa", &format!(",{SHREDDED}")).await;
    check_table(&t, &model).await;
    let (t, model) = pk_table_with(&wh, "db.sp", &format!(",{SHREDDED}")).await;
    check_table(&t, &model).await;
}

#[tokio::test]
async fn whole_map_and_key_columns_together() {
    let wh = Warehouse::new();
    let (t, model) = append_table(&wh).await;
    let read = t
        .new_read()
        .with_projection(vec!["m['usage']".into(), "m".into(), "id".into()])
        .with_filter(strata::expr::parse_sql_predicate("m['usage'] >= 0").unwrap());
    let fields = read.output_fields().unwrap();
    assert_eq!(fields[0].name, "m['usage']");
    assert_eq!(fields[0].data_type.to_string(), "DOUBLE");
    let schema = read.output_schema().unwrap();
    assert_eq!(schema.field(0).name(), "m['usage']");
    assert!(schema.field(0).is_nullable());
    let plan = t.new_scan().plan().await.unwrap();
    let mut n = 0;
    for b in read.to_batches(plan.splits).await.unwrap() {
        let usage = b.column(0).as_any().downcast_ref::<Float64Array>().unwrap();
        let maps = b
            .column(1)
            .as_any()
            .downcast_ref::<arrow_array::MapArray>()
            .unwrap();
        for i in 0..b.num_rows() {
            // The whole map is intact (not trimmed to the selected key).
            let entries = maps.value(i);
            let keys = entries
                .column(0)
                .as_any()
                .downcast_ref::<StringArray>()
                .unwrap();
            let id = b
                .column(2)
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap()
                .value(i);
            let row = model.iter().find(|r| r.id == id).unwrap();
            assert_eq!(keys.len(), row.m.as_ref().unwrap().len());
            assert_eq!(Some(usage.value(i)), row.m("usage"));
            n += 1;
        }
    }
    assert_eq!(n, model.iter().filter(|r| r.m("usage").is_some()).count());
}

#[tokio::test]
async fn key_access_errors_name_the_column() {
    let wh = Warehouse::new();
    let (t, _) = append_table(&wh).await;
    let projection_err = |c: &str| {
        t.new_read()
            .with_projection(vec!["id".into(), c.into()])
            .output_schema()
            .unwrap_err()
            .to_string()
    };
    let e = projection_err("id['k']");
    assert!(
        e.contains("column id has type BIGINT") && e.contains("not MAP"),
        "{e}"
    );
    let e = projection_err("im['k']");
    assert!(e.contains("im") && e.contains("STRING map keys"), "{e}");
    let e = projection_err("nope['k']");
    assert!(e.contains("nope"), "{e}");
    let e = projection_err("m[k]");
    assert!(e.contains("m[k]"), "{e}");

    let filter_err = |sql: &str| {
        let p = strata::expr::parse_sql_predicate(sql).unwrap();
        t.new_read()
            .with_filter(p)
            .output_schema()
            .unwrap_err()
            .to_string()
    };
    let e = filter_err("id['k'] > 1");
    assert!(e.contains("column id has type BIGINT"), "{e}");
    let e = filter_err("zz['k'] = 1");
    assert!(e.contains("zz"), "{e}");
    let e = filter_err("m['k'] = 'abc'");
    assert!(e.contains("m['k']") && e.contains("DOUBLE"), "{e}");
    let e = filter_err("m['k'] LIKE 'a%'");
    assert!(e.contains("m['k']"), "{e}");
    // The scan drops key-access parts (they cannot be pruned on) instead of failing.
    let p = strata::expr::parse_sql_predicate("m['usage'] > 1 AND id < 3").unwrap();
    let plan = t.new_scan().with_filter(p).plan().await.unwrap();
    assert!(!plan.splits.is_empty());
    let p = strata::expr::parse_sql_predicate("zz['k'] = 1").unwrap();
    assert!(t.new_scan().with_filter(p).plan().await.is_err());
}

#[tokio::test]
async fn metrics_count_files_and_bytes_for_append_and_merge_reads() {
    let wh = Warehouse::new();
    for (t, _) in [append_table(&wh).await, pk_table(&wh).await] {
        let metrics = Arc::new(ReadMetrics::default());
        let plan = t.new_scan().plan().await.unwrap();
        let n_files: usize = plan.splits.iter().map(|s| s.files.len()).sum();
        let read = t
            .new_read()
            .with_projection(vec!["id".into(), "m['usage']".into()])
            .with_metrics(metrics.clone());
        let rows: usize = read
            .to_batches(plan.splits)
            .await
            .unwrap()
            .iter()
            .map(|b| b.num_rows())
            .sum();
        assert_eq!(rows, 120);
        let s = metrics.snapshot();
        assert_eq!(s.files_read, n_files as u64, "{}: {s:?}", t.identifier());
        assert!(s.bytes_read > 0, "{s:?}");
        assert!(s.row_groups_read >= n_files as u64, "{s:?}");
    }
}

/// The scan prunes key tests as `m IS NOT NULL` (only a file whose maps are all NULL can be
/// skipped; `IS NULL` never prunes). Statistics of MAP columns are not decodable yet
/// (BinaryRow has no MAP field), so today nothing is skipped; either way no row may be lost.
#[tokio::test]
async fn scans_with_key_filters_lose_no_rows() {
    let wh = Warehouse::new();
    let t = wh
        .create("db.n", &format!(r#"{{"fields":{FIELDS}}}"#))
        .await;
    let mut some = rows(0..20, 0);
    some.retain(|r| r.m.is_some());
    let mut none = rows(100..110, 0);
    for r in &mut none {
        r.m = None;
    }
    write(&t, &some).await;
    write(&t, &none).await;
    let plan = |sql: &str| {
        let p = strata::expr::parse_sql_predicate(sql).unwrap();
        let scan = t.new_scan().with_filter(p);
        async move { scan.plan().await.unwrap() }
    };
    let p = plan("m['usage'] > 1").await;
    assert!(p.metrics.files_skipped_by_stats <= 1, "{:?}", p.metrics);
    let p = plan("m['usage'] IS NULL").await;
    assert_eq!(p.metrics.files_skipped_by_stats, 0);
    let got = read(&t, &["m['usage']"], Some("m['usage'] IS NULL")).await;
    assert_eq!(
        got.len(),
        10 + some.iter().filter(|r| r.m("usage").is_none()).count()
    );
    let got = read(&t, &["m['usage']"], Some("m['usage'] > 1")).await;
    assert_eq!(
        got,
        expect_usage(&some, |r| r.m("usage").is_some_and(|v| v > 1.0))
    );
}
