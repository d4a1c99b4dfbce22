//! strata's dedicated columns for frequent MAP keys (a shared-shredding extension, see
//! `strata_spec::shredding::plan`): the files written (which key owns which column, what
//! overflows, K), key reads that skip `__field_mapping`, the switch back to Java's placement,
//! primary-key tables through compaction, and a property test against a model.

use crate::maps;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::common::*;
use arrow_array::{Array, Float64Array, Int64Array};
use maps::*;
use parquet::file::reader::{FileReader, SerializedFileReader};
use proptest::prelude::*;
use strata::read::ReadMetrics;
use strata::table::Table;
use strata::unstable::format::ShreddedRead;
use strata_spec::shredding::MapShreddingFileMeta;
use strata_spec::types::DataType;

/// A deterministic generator of `n` rows from `start`: `cpu` in every row, `usage` in half
/// of them (1 in 50 of those present with a NULL value), and one to four keys of a
/// 500-key tail.
fn rows(start: i64, n: i64) -> Vec<Row> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15 ^ start as u64;
    let mut next = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x >> 33
    };
    (start..start + n)
        .map(|i| {
            let mut m = vec![("cpu".to_string(), Some((i % 100) as f64))];
            if next() % 2 == 0 {
                let v = (next() % 50 != 0).then_some(i as f64 / 10.0);
                m.push(("usage".into(), v));
            }
            for _ in 0..1 + next() % 4 {
                let k = format!("t{}", next() % 500);
                if !m.iter().any(|(n, _)| *n == k) {
                    m.push((k, Some(1.0)));
                }
            }
            (i, Some(m))
        })
        .collect()
}

/// Columns holding only `key` in `meta`, and whether `key` overflowed.
fn placement(meta: &MapShreddingFileMeta, key: &str) -> (Vec<u32>, bool, bool) {
    let id = meta.dictionary[key];
    let cols = meta.field_columns.get(&id).cloned().unwrap_or_default();
    let exclusive = cols.iter().all(|c| {
        meta.field_columns
            .iter()
            .all(|(other, oc)| *other == id || !oc.contains(c))
    });
    (cols, exclusive, meta.overflow.contains(&id))
}

fn map_type() -> DataType {
    strata_spec::types::json::parse_type_text("MAP<STRING NOT NULL, DOUBLE>").unwrap()
}

/// `m['key']` of every row, by id.
async fn key_values(
    t: &Table,
    key: &str,
    metrics: Option<Arc<ReadMetrics>>,
) -> BTreeMap<i64, Option<f64>> {
    let plan = t.new_scan().plan().await.unwrap();
    let mut read = t
        .new_read()
        .with_projection(vec!["id".into(), format!("m['{key}']")]);
    if let Some(m) = metrics {
        read = read.with_metrics(m);
    }
    let mut out = BTreeMap::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        let ids = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let v = b.column(1).as_any().downcast_ref::<Float64Array>().unwrap();
        for r in 0..b.num_rows() {
            out.insert(ids.value(r), (!v.is_null(r)).then(|| v.value(r)));
        }
    }
    out
}

fn model_value(rows: &[Row], key: &str) -> BTreeMap<i64, Option<f64>> {
    rows.iter()
        .map(|(id, m)| {
            let v = m
                .as_ref()
                .and_then(|e| e.iter().find(|(k, _)| k == key))
                .and_then(|(_, v)| *v);
            (*id, v)
        })
        .collect()
}

#[tokio::test]
async fn frequent_keys_get_their_own_columns_and_the_tail_overflows() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", &shredded_schema("")).await;
    let data = rows(0, 2000);
    t.write_batches([batch(&data)], None).await.unwrap();

    let metas = file_metas(&wh.table_dir("db", "t"));
    assert_eq!(metas.len(), 1);
    let meta = &metas[0];
    // cpu (every row) and usage (half) are dedicated, most frequent first; the 500 tail
    // keys would churn through shared columns, so they overflow and K is 2.
    assert_eq!(meta.num_columns, 2, "{:?}", meta.field_columns);
    assert_eq!(placement(meta, "cpu"), (vec![0], true, false));
    assert_eq!(placement(meta, "usage"), (vec![1], true, false));
    assert_eq!(
        meta.field_columns.len(),
        2,
        "only the dedicated keys have columns"
    );
    assert_eq!(meta.overflow.len(), meta.dictionary.len() - 2);
    assert_eq!(meta.max_row_width, 6);

    // The Parquet leaves are Paimon's layout with K = 2.
    let file = &data_files(&wh.table_dir("db", "t"))[0];
    let r = SerializedFileReader::new(std::fs::File::open(file).unwrap()).unwrap();
    let leaves: Vec<String> = r
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| c.path().string())
        .collect();
    assert_eq!(
        leaves,
        [
            "id",
            "m.__field_mapping.list.element",
            "m.__col_0",
            "m.__col_1",
            "m.__overflow.key_value.key",
            "m.__overflow.key_value.value"
        ]
    );

    // Whole maps read back exactly (NULL values of present keys included).
    let got = read_rows(&t, None).await;
    assert_eq!(got.len(), data.len());
    for (id, m) in &data {
        assert_eq!(sorted(&got[id]), sorted(m), "row {id}");
    }
    for key in ["usage", "cpu", "t7", "absent"] {
        assert_eq!(
            key_values(&t, key, None).await,
            model_value(&data, key),
            "{key}"
        );
    }
}

#[tokio::test]
async fn dedicated_key_reads_skip_the_mapping() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", &shredded_schema("")).await;
    let data = rows(0, 3000);
    t.write_batches([batch(&data)], None).await.unwrap();
    let meta = Arc::new(file_metas(&wh.table_dir("db", "t")).remove(0));
    let plan = |keys: &[&str]| {
        let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        ShreddedRead::plan("m", meta.clone(), &map_type(), Some(&keys)).unwrap()
    };
    let usage = plan(&["usage"]);
    assert!(usage.is_values_only());
    assert_eq!(usage.children, ["__col_1"]);
    let both = plan(&["usage", "cpu", "absent"]);
    assert_eq!(both.children, ["__col_0", "__col_1"]);
    let tail = plan(&["t7", "usage"]);
    assert!(!tail.is_values_only());
    assert_eq!(tail.children, ["__field_mapping", "__col_1", "__overflow"]);
    assert!(plan(&["absent"]).children.is_empty());

    // Bytes read: the dedicated key's column is a small part of the map.
    let read_bytes = |key: &'static str| {
        let t = t.clone();
        async move {
            let m = Arc::new(ReadMetrics::default());
            let values = key_values(&t, key, Some(m.clone())).await;
            (values, m.snapshot().bytes_read)
        }
    };
    let (values, usage_bytes) = read_bytes("usage").await;
    assert_eq!(values, model_value(&data, "usage"));
    let (values, tail_bytes) = read_bytes("t7").await;
    assert_eq!(values, model_value(&data, "t7"));
    let (values, absent_bytes) = read_bytes("absent").await;
    assert!(values.values().all(Option::is_none) && values.len() == data.len());
    let columns_bytes = |columns: &'static [&'static str]| {
        let t = t.clone();
        async move {
            let m = Arc::new(ReadMetrics::default());
            let plan = t.new_scan().plan().await.unwrap();
            t.new_read()
                .with_projection(columns.iter().map(|c| c.to_string()).collect())
                .with_metrics(m.clone())
                .to_batches(plan.splits)
                .await
                .unwrap();
            m.snapshot().bytes_read
        }
    };
    // Above the footer and `id`, which every read fetches: a file without the key reads
    // nothing of the map, the dedicated key a fraction of what a tail key (mapping and
    // overflow) or the whole map needs.
    let base = columns_bytes(&["id"]).await;
    let whole = columns_bytes(&["id", "m"]).await - base;
    let (usage, tail) = (usage_bytes - base, tail_bytes - base);
    assert_eq!(absent_bytes, base);
    assert!(
        usage * 2 < tail && tail < whole,
        "usage {usage}, tail key {tail}, whole map {whole} (footer and id: {base})"
    );
}

#[tokio::test]
async fn max_dedicated_columns_zero_places_keys_as_java() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.t",
            &shredded_schema(r#","fields.m.map.shared-shredding.max-dedicated-columns":"0""#),
        )
        .await;
    let data = rows(0, 2000);
    t.write_batches([batch(&data)], None).await.unwrap();
    let meta = file_metas(&wh.table_dir("db", "t")).remove(0);
    // Java's K for these widths (1..=6, P90 5 and max 6 are close: the max) and lru over
    // all columns: the tail evicts even cpu, so no key keeps a column to itself.
    assert_eq!(meta.num_columns, 6);
    let (cols, exclusive, _) = placement(&meta, "usage");
    assert!(cols.len() > 1 && !exclusive, "{cols:?}");
    let got = read_rows(&t, None).await;
    for (id, m) in &data {
        assert_eq!(sorted(&got[id]), sorted(m), "row {id}");
    }
}

#[tokio::test]
async fn a_stable_tail_keeps_shared_columns() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", &shredded_schema("")).await;
    // a and b (8 % of the rows, always together) stay below the dedicated threshold but
    // keep their shared columns from row to row.
    let data: Vec<Row> = (0..1000)
        .map(|i| {
            let mut m = vec![("cpu".to_string(), Some(i as f64))];
            if i % 25 < 2 {
                m.push(("b".into(), Some(2.0)));
                m.push(("a".into(), None));
            }
            (i, Some(m))
        })
        .collect();
    t.write_batches([batch(&data)], None).await.unwrap();
    let meta = file_metas(&wh.table_dir("db", "t")).remove(0);
    assert_eq!(meta.num_columns, 3);
    assert_eq!(placement(&meta, "cpu"), (vec![0], true, false));
    assert_eq!(placement(&meta, "a").0.len(), 1);
    assert_eq!(placement(&meta, "b").0.len(), 1);
    assert!(meta.overflow.is_empty());
    let got = read_rows(&t, None).await;
    for (id, m) in &data {
        assert_eq!(sorted(&got[id]), sorted(m), "row {id}");
    }
}

#[tokio::test]
async fn the_dedicated_option_is_validated() {
    let wh = Warehouse::new();
    for bad in ["-1", "many", "100000"] {
        let json = shredded_schema(&format!(
            r#","fields.m.map.shared-shredding.max-dedicated-columns":"{bad}""#
        ));
        let schema = strata_spec::schema::Schema::from_json(&json).unwrap();
        let err = wh
            .catalog
            .create_table(&"db.bad".parse().unwrap(), &schema, false)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("fields.m.map.shared-shredding.max-dedicated-columns"),
            "{bad}: {err}"
        );
    }
}

#[tokio::test]
async fn primary_key_tables_dedicate_through_updates_and_compaction() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.t",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
            {"name":"m","type":"MAP<STRING NOT NULL, DOUBLE>"}],
            "primaryKeys":["id"],
            "options":{"bucket":"1","fields.m.map.storage-layout":"shared-shredding"}}"#,
        )
        .await;
    let first = rows(0, 1500);
    let second = rows(500, 1500); // rows 500..1500 updated, 1500..2000 new
    t.write_batches([batch(&first)], None).await.unwrap();
    t.write_batches([batch(&second)], None).await.unwrap();
    let mut model: BTreeMap<i64, Entries> = first.into_iter().collect();
    model.extend(second);
    let check = |got: Rows| {
        assert_eq!(got.len(), model.len());
        for (id, m) in &model {
            assert_eq!(sorted(&got[id]), sorted(m), "row {id}");
        }
    };
    check(read_rows(&t, None).await);
    let mut w = t.new_write().unwrap();
    w.compact(&|_, _| true, true).await.unwrap();
    let msgs = w.prepare_commit().await.unwrap();
    t.new_commit().unwrap().commit(msgs).await.unwrap();
    check(read_rows(&t, None).await);
    let rows_vec: Vec<Row> = model.clone().into_iter().collect();
    assert_eq!(
        key_values(&t, "usage", None).await,
        model_value(&rows_vec, "usage")
    );
    // Every file, the compacted one included, gives cpu and usage their own columns.
    for meta in file_metas(&wh.table_dir("db", "t")) {
        assert_eq!(placement(&meta, "cpu"), (vec![0], true, false));
        assert_eq!(placement(&meta, "usage"), (vec![1], true, false));
    }
}

#[tokio::test]
async fn primary_key_spills_and_rolled_files_keep_every_map() {
    let wh = Warehouse::new();
    // A 64 kb buffer spills sorted runs to disk many times; 32 kb files roll.
    let t = wh
        .create(
            "db.t",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
            {"name":"m","type":"MAP<STRING NOT NULL, DOUBLE>"}],
            "primaryKeys":["id"],
            "options":{"bucket":"1","write-buffer-size":"64kb","target-file-size":"32kb",
            "fields.m.map.storage-layout":"shared-shredding"}}"#,
        )
        .await;
    let mut w = t.new_write().unwrap();
    let mut model: BTreeMap<i64, Entries> = BTreeMap::new();
    for round in 0..8 {
        // Each round updates a shifted window of ids.
        let data = rows(round * 300, 1200);
        model.extend(data.iter().cloned());
        w.write(&batch(&data)).await.unwrap();
    }
    let msgs = w.prepare_commit().await.unwrap();
    let files: usize = msgs.iter().map(|m| m.new_files.len()).sum();
    assert!(files > 1, "the 32 kb target rolls files, got {files}");
    t.new_commit().unwrap().commit(msgs).await.unwrap();
    let got = read_rows(&t, None).await;
    assert_eq!(got.len(), model.len());
    for (id, m) in &model {
        assert_eq!(sorted(&got[id]), sorted(m), "row {id}");
    }
    let metas = file_metas(&wh.table_dir("db", "t"));
    assert!(metas.len() > 1);
    assert!(
        metas
            .iter()
            .any(|m| placement(m, "cpu") == (vec![0], true, false)),
        "files planned from a large enough first batch dedicate cpu"
    );
}

#[tokio::test]
async fn key_predicates_skip_pages_of_dedicated_columns() {
    use strata::expr::parse_sql_predicate;
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.t",
            &shredded_schema(r#","parquet.page.row.count.limit":"500""#),
        )
        .await;
    // usage grows with the row, so each page of its dedicated column covers a narrow range.
    let data: Vec<Row> = (0..10_000)
        .map(|i| {
            let mut m = vec![("cpu".to_string(), Some((i % 7) as f64))];
            m.push(("usage".into(), Some(i as f64)));
            if i % 3 == 0 {
                m.push((format!("t{}", i % 400), Some(1.0)));
            }
            (i, Some(m))
        })
        .collect();
    t.write_batches([batch(&data)], None).await.unwrap();
    let query = |filter: &'static str| {
        let t = t.clone();
        async move {
            let metrics = Arc::new(ReadMetrics::default());
            let p = parse_sql_predicate(filter).unwrap();
            let plan = t.new_scan().with_filter(p.clone()).plan().await.unwrap();
            let read = t
                .new_read()
                .with_projection(vec!["id".into(), "m['usage']".into()])
                .with_filter(p)
                .with_metrics(metrics.clone());
            let mut ids = Vec::new();
            for b in read.to_batches(plan.splits).await.unwrap() {
                let c = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
                ids.extend((0..c.len()).map(|i| c.value(i)));
            }
            ids.sort();
            (ids, metrics.snapshot())
        }
    };
    // Float keys prune by lower bounds and equalities; upper bounds (`>=`) do not, since the
    // footer has no NaN count (see map_shredding::key_predicates_skip_files_and_row_groups).
    let (ids, m) = query("m['usage'] < 500").await;
    assert_eq!(ids, (0..500).collect::<Vec<_>>());
    assert!(m.page_rows_skipped >= 8000, "{m:?}");
    let (ids, m) = query("m['usage'] < 100 OR m['usage'] IN (5000, 5005, 5010)").await;
    let want: Vec<i64> = (0..100).chain([5000, 5005, 5010]).collect();
    assert_eq!(ids, want);
    assert!(m.page_rows_skipped >= 7000, "two pages kept: {m:?}");
    let (ids, m) = query("m['usage'] < 500 AND m['cpu'] = 3").await;
    assert_eq!(ids, (0..500).filter(|i| i % 7 == 3).collect::<Vec<_>>());
    assert!(m.page_rows_skipped >= 8000, "{m:?}");
    // A tail key overflowed, IS NULL matches anywhere: nothing to skip, results exact.
    let (ids, m) = query("m['t3'] = 1 OR m['usage'] >= 9500").await;
    assert_eq!(m.page_rows_skipped, 0, "{m:?}");
    let want: Vec<i64> = (0..10_000)
        .filter(|i| (i % 3 == 0 && i % 400 == 3) || *i >= 9500)
        .collect();
    assert_eq!(ids, want);
    let (ids, m) = query("m['usage'] IS NULL").await;
    assert!(ids.is_empty());
    assert_eq!(m.page_rows_skipped, 0, "{m:?}");
}

/// Rows over a small skewed key universe: key `k{j}` is present with probability about
/// 1 / (j + 1), so some keys are dedicated, some share columns or overflow.
fn arb_skewed_rows() -> impl Strategy<Value = Vec<Row>> {
    let row = proptest::option::weighted(
        0.95,
        proptest::collection::vec(
            (
                0usize..40,
                proptest::option::weighted(0.9, -100.0f64..100.0),
            ),
            0..10,
        ),
    );
    proptest::collection::vec(row, 256..600).prop_map(|maps| {
        maps.into_iter()
            .enumerate()
            .map(|(i, m)| {
                let m = m.map(|entries| {
                    let mut seen = std::collections::BTreeSet::new();
                    entries
                        .into_iter()
                        // Skew: rank r kept with probability ~1/(r/4 + 1).
                        .map(|(r, v)| (r * r / 40, v))
                        .filter(|(k, _)| seen.insert(*k))
                        .map(|(k, v)| (format!("k{k}"), v))
                        .collect()
                });
                (i as i64, m)
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]
    /// With dedicated columns, any skewed rows read back as the model: whole maps and key
    /// columns of dedicated, shared, overflowed and absent keys.
    #[test]
    fn dedicated_layout_reads_equal_the_model(rows in arb_skewed_rows(), policy in 0usize..3) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let wh = Warehouse::new();
            let policy = ["plain", "sequential", "lru"][policy];
            let t = wh.create("db.t", &shredded_schema(&format!(
                r#","fields.m.map.shared-shredding.column-placement-policy":"{policy}""#))).await;
            t.write_batches([batch(&rows)], None).await.unwrap();
            let got = read_rows(&t, None).await;
            prop_assert_eq!(got.len(), rows.len());
            for (id, m) in &rows {
                prop_assert_eq!(sorted(&got[id]), sorted(m), "row {}", id);
            }
            for key in ["k0", "k1", "k5", "k30", "none"] {
                prop_assert_eq!(key_values(&t, key, None).await, model_value(&rows, key), "{}", key);
            }
            Ok(())
        })?;
    }
}
