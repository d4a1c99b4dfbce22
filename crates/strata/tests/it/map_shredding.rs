//! Shared-shredding MAP columns (PIP-43, issue 6) end to end on local warehouses: the bytes
//! written (physical Parquet layout, footer metadata, K), reading back every layout, mixed
//! layouts and K across files, selected-key reads, primary-key tables through compaction,
//! and the errors.

use crate::maps;

use std::sync::Arc;

use crate::common::*;
use arrow_array::{Array, Int64Array};
use maps::*;
use parquet::file::reader::{FileReader, SerializedFileReader};
use proptest::prelude::*;
use strata::table::Table;

#[tokio::test]
async fn writes_paimon_layout_and_reads_back_in_column_order() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.t",
            &shredded_schema(r#","fields.m.map.shared-shredding.max-columns":"3""#),
        )
        .await;
    let rows: Vec<Row> = vec![
        (
            1,
            e(&[("c", Some(1.0)), ("a", Some(2.0)), ("b", Some(3.0))]),
        ),
        (2, e(&[("a", None), ("b", Some(20.0))])),
        (3, e(&[])),
        (4, None),
        (
            5,
            e(&[
                ("d", Some(1.0)),
                ("e", Some(2.0)),
                ("f", Some(3.0)),
                ("a", Some(9.0)),
            ]),
        ),
    ];
    t.write_batches([batch(&rows)], None).await.unwrap();
    let got = read_rows(&t, None).await;
    // lru, K = 3: the same placement pypaimon-rust 0.4.0 makes for these rows; keys come
    // back in column order, then overflow.
    assert_eq!(
        got[&1],
        e(&[("c", Some(1.0)), ("a", Some(2.0)), ("b", Some(3.0))])
    );
    assert_eq!(
        got[&2],
        e(&[("a", None), ("b", Some(20.0))]),
        "NULL value kept"
    );
    assert_eq!(got[&3], e(&[]), "empty map stays empty");
    assert_eq!(got[&4], None, "NULL map stays NULL");
    assert_eq!(
        got[&5],
        e(&[
            ("d", Some(1.0)),
            ("a", Some(9.0)),
            ("e", Some(2.0)),
            ("f", Some(3.0))
        ])
    );
    let f = footers(&wh.table_dir("db", "t"));
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].0, f[0].1), (3, 4));
    assert_eq!(
        f[0].2
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect::<Vec<_>>(),
        vec![("a", 1), ("b", 2), ("c", 0), ("d", 3), ("e", 4), ("f", 5)]
    );
    // The physical Parquet schema Java writes.
    let file = std::fs::read_dir(wh.table_dir("db", "t").join("bucket-0"))
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "parquet"))
        .unwrap()
        .path();
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
        vec![
            "id",
            "m.__field_mapping.list.element",
            "m.__col_0",
            "m.__col_1",
            "m.__col_2",
            "m.__overflow.key_value.key",
            "m.__overflow.key_value.value",
        ]
    );
}

#[tokio::test]
async fn k_adapts_across_rolled_files_and_layouts_mix() {
    let wh = Warehouse::new();
    // Default layout first, then the same table written shredded through dynamic options.
    let t = wh
        .create(
            "db.t",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
            {"name":"m","type":"MAP<STRING NOT NULL, DOUBLE>"}],
            "options":{"target-file-size":"1 kb","write-buffer-size":"1 mb"}}"#,
        )
        .await;
    let row = |i: i64| -> Row {
        let n = (i % 3 + 1) as usize;
        (
            i,
            Some(
                (0..n)
                    .map(|j| (format!("k{}", (i as usize + j) % 7), Some(i as f64)))
                    .collect(),
            ),
        )
    };
    let first: Vec<Row> = (0..50).map(row).collect();
    t.write_batches([batch(&first)], None).await.unwrap();
    let shredded = t
        .with_dynamic_options([
            (
                "fields.m.map.storage-layout".to_string(),
                "shared-shredding".to_string(),
            ),
            (
                "fields.m.map.shared-shredding.max-columns".to_string(),
                "8".to_string(),
            ),
            // Java's placement and K rule (strata's dedicated columns: tests/map_dedicated.rs).
            (
                "fields.m.map.shared-shredding.max-dedicated-columns".to_string(),
                "0".to_string(),
            ),
        ])
        .unwrap();
    let second: Vec<Row> = (50..2000).map(row).collect();
    for chunk in second.chunks(100) {
        // Several batches so the 1 kb target rolls files inside one writer.
        shredded.write_batches([batch(chunk)], None).await.unwrap();
    }
    // Each commit's writer sizes its first file from its first rows (widths 1..=3 → K = 3).
    let ks: Vec<usize> = footers(&wh.table_dir("db", "t"))
        .iter()
        .map(|f| f.0)
        .collect();
    assert!(!ks.is_empty() && ks.iter().all(|&k| k == 3), "{ks:?}");

    // One writer: narrow rows first (K = 1 from the sample), then rows of width 5 roll into
    // files whose K follows the reported widths (capped at max-columns = 8).
    let wide = |i: i64| -> Row {
        (
            i,
            Some(
                (0..5)
                    .map(|j| (format!("w{}", (i as usize + j) % 9), Some(j as f64)))
                    .collect(),
            ),
        )
    };
    let narrow: Vec<Row> = (2000..2100)
        .map(|i| (i, e(&[("solo", Some(i as f64))])))
        .collect();
    let wides: Vec<Row> = (2100..3000).map(wide).collect();
    let before = footers(&wh.table_dir("db", "t")).len();
    let mut w = shredded.new_write().unwrap();
    w.write(&batch(&narrow)).await.unwrap();
    for chunk in wides.chunks(50) {
        w.write(&batch(chunk)).await.unwrap();
    }
    let msgs = w.prepare_commit().await.unwrap();
    shredded.new_commit().unwrap().commit(msgs).await.unwrap();
    let all = footers(&wh.table_dir("db", "t"));
    assert!(all.len() > before + 2, "the writer rolled files");
    let ks: Vec<usize> = all.iter().map(|f| f.0).collect();
    assert!(
        ks.contains(&1),
        "first file sized from its first rows: {ks:?}"
    );
    assert!(
        ks.contains(&5),
        "later files adapt to the reported widths: {ks:?}"
    );

    let got = read_rows(&t, None).await;
    assert_eq!(got.len(), 3000);
    for i in 0..2000 {
        assert_eq!(sorted(&got[&i]), sorted(&row(i).1), "row {i}");
    }
    for r in narrow.iter().chain(&wides) {
        assert_eq!(sorted(&got[&r.0]), sorted(&r.1), "row {}", r.0);
    }
}

#[tokio::test]
async fn policies_and_compressions_round_trip() {
    for (policy, compression) in [("plain", "zstd"), ("sequential", "lz4"), ("lru", "none")] {
        let wh = Warehouse::new();
        let t = wh
            .create(
                "db.t",
                &shredded_schema(&format!(
                    r#","fields.m.map.shared-shredding.max-columns":"2",
                    "fields.m.map.shared-shredding.max-dedicated-columns":"0",
                    "fields.m.map.shared-shredding.column-placement-policy":"{policy}",
                    "file.compression":"{compression}""#
                )),
            )
            .await;
        let rows: Vec<Row> = (0..300)
            .map(|i| {
                let n = (i % 5) as usize;
                (
                    i,
                    Some(
                        (0..n)
                            .map(|j| (format!("key{}", (i as usize * 7 + j) % 11), Some(j as f64)))
                            .collect(),
                    ),
                )
            })
            .collect();
        t.write_batches([batch(&rows)], None).await.unwrap();
        let got = read_rows(&t, None).await;
        for (id, m) in &rows {
            assert_eq!(
                sorted(&got[id]),
                sorted(m),
                "{policy}/{compression} row {id}"
            );
        }
        let f = footers(&wh.table_dir("db", "t"));
        assert_eq!(f[0].0, 2);
    }
}

#[tokio::test]
async fn primary_key_table_shreds_values_through_compaction() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.t",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
            {"name":"m","type":"MAP<STRING NOT NULL, DOUBLE>"}],"primaryKeys":["id"],
            "options":{"bucket":"1","fields.m.map.storage-layout":"shared-shredding",
            "fields.m.map.shared-shredding.max-columns":"2"}}"#,
        )
        .await;
    let v1: Vec<Row> = (0..100)
        .map(|i| {
            (
                i,
                e(&[("a", Some(i as f64)), ("b", None), ("c", Some(1.0))]),
            )
        })
        .collect();
    let v2: Vec<Row> = (50..150)
        .map(|i| (i, e(&[("z", Some(-(i as f64)))])))
        .collect();
    t.write_batches([batch(&v1)], None).await.unwrap();
    t.write_batches([batch(&v2)], None).await.unwrap();
    let check = |got: &Rows| {
        assert_eq!(got.len(), 150);
        for i in 0..150i64 {
            let want = if i >= 50 {
                v2[(i - 50) as usize].1.clone()
            } else {
                v1[i as usize].1.clone()
            };
            assert_eq!(sorted(&got[&i]), sorted(&want), "id {i}");
        }
    };
    check(&read_rows(&t, None).await);
    let mut w = t.new_write().unwrap();
    w.compact(&|_, _| true, true).await.unwrap();
    let msgs = w.prepare_commit().await.unwrap();
    t.new_commit().unwrap().commit(msgs).await.unwrap();
    check(&read_rows(&t, None).await);
    assert!(
        footers(&wh.table_dir("db", "t")).len() >= 3,
        "compaction rewrote shredded"
    );
}

#[tokio::test]
async fn bad_options_and_duplicate_keys_are_clear_errors() {
    let wh = Warehouse::new();
    let cases = [
        (
            r#"{"fields":[{"name":"m","type":"MAP<STRING, DOUBLE>"}],
            "options":{"fields.m.map.storage-layout":"shared-shredding"}}"#,
            "nullable",
        ),
        (
            r#"{"fields":[{"name":"m","type":"MAP<INT NOT NULL, DOUBLE>"}],
            "options":{"fields.m.map.storage-layout":"shared-shredding"}}"#,
            "MAP<STRING NOT NULL, T>",
        ),
        (
            r#"{"fields":[{"name":"m","type":"INT"}],
            "options":{"fields.m.map.storage-layout":"shared-shredding"}}"#,
            "only to MAP columns",
        ),
        (
            r#"{"fields":[{"name":"m","type":"MAP<STRING NOT NULL, DOUBLE>"}],
            "options":{"fields.m.map.storage-layout":"columnar"}}"#,
            "shared-shredding",
        ),
        (
            r#"{"fields":[{"name":"m","type":"MAP<STRING NOT NULL, DOUBLE>"}],
            "options":{"fields.m.map.storage-layout":"shared-shredding",
            "fields.m.map.shared-shredding.max-columns":"0"}}"#,
            "max-columns",
        ),
        (
            r#"{"fields":[{"name":"m","type":"MAP<STRING NOT NULL, DOUBLE>"}],
            "options":{"fields.m.map.storage-layout":"shared-shredding",
            "fields.m.map.shared-shredding.column-placement-policy":"random"}}"#,
            "plain, sequential, lru",
        ),
        (
            r#"{"fields":[{"name":"m","type":"MAP<STRING NOT NULL, DOUBLE>"}],
            "options":{"fields.m.map.storage-layout":"shared-shredding",
            "file.compression":"snappy"}}"#,
            "none, lz4 or zstd",
        ),
        (
            r#"{"fields":[{"name":"m","type":"MAP<STRING NOT NULL, DOUBLE>"}],
            "options":{"fields.x.map.storage-layout":"shared-shredding"}}"#,
            "does not exist",
        ),
    ];
    for (json, want) in cases {
        let schema = strata_spec::schema::Schema::from_json(json).unwrap();
        let err = wh
            .catalog
            .create_table(&"db.bad".parse().unwrap(), &schema, false)
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{json}: {err}");
    }
    let t = wh.create("db.t", &shredded_schema("")).await;
    let err = t
        .write_batches(
            [batch(&[(1, e(&[("a", Some(1.0)), ("a", Some(2.0))]))])],
            None,
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("more than once") && err.contains("\"a\""),
        "{err}"
    );
    assert!(t.snapshot_manager().latest_id().await.unwrap().is_none());
}

fn arb_rows() -> impl Strategy<Value = Vec<Row>> {
    let entry = (
        0usize..12,
        proptest::option::weighted(0.9, -100.0f64..100.0),
    );
    let map = proptest::option::weighted(
        0.9,
        proptest::collection::btree_map(
            0usize..12,
            proptest::option::weighted(0.9, -100.0f64..100.0),
            0..8,
        ),
    );
    let _ = entry;
    proptest::collection::vec(map, 1..60).prop_map(|maps| {
        maps.into_iter()
            .enumerate()
            .map(|(i, m)| {
                (
                    i as i64,
                    m.map(|m| m.into_iter().map(|(k, v)| (format!("k{k}"), v)).collect()),
                )
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    /// Any rows, any K and policy: the shredded table reads exactly what the default-layout
    /// table reads (same keys, values, NULLs; order aside).
    #[test]
    fn shredded_reads_equal_default_layout(rows in arb_rows(), k in 1usize..6, policy in 0usize..3) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let wh = Warehouse::new();
            let policy = ["plain", "sequential", "lru"][policy];
            let s = wh.create("db.s", &shredded_schema(&format!(
                r#","fields.m.map.shared-shredding.max-columns":"{k}",
                "fields.m.map.shared-shredding.column-placement-policy":"{policy}""#))).await;
            let d = wh.create("db.d", r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
                {"name":"m","type":"MAP<STRING NOT NULL, DOUBLE>"}]}"#).await;
            s.write_batches([batch(&rows)], None).await.unwrap();
            d.write_batches([batch(&rows)], None).await.unwrap();
            let (a, b) = (read_rows(&s, None).await, read_rows(&d, None).await);
            prop_assert_eq!(a.len(), b.len());
            for (id, m) in &b {
                prop_assert_eq!(sorted(&a[id]), sorted(m));
            }
            Ok(())
        })?;
    }
}

#[tokio::test]
async fn key_predicates_skip_files_and_row_groups() {
    use strata::expr::parse_sql_predicate;
    use strata::read::ReadMetrics;
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.t",
            &shredded_schema(r#","fields.m.map.shared-shredding.max-columns":"4""#),
        )
        .await;
    // One file per commit: usage in 0..10, no usage at all, usage in 100..200.
    let low: Vec<Row> = (0..100)
        .map(|i| (i, e(&[("usage", Some((i % 10) as f64)), ("x", Some(1.0))])))
        .collect();
    let none: Vec<Row> = (100..200)
        .map(|i| (i, e(&[("cpu", Some(i as f64))])))
        .collect();
    let high: Vec<Row> = (200..300)
        .map(|i| (i, e(&[("x", None), ("usage", Some(i as f64 - 100.0))])))
        .collect();
    for rows in [&low, &none, &high] {
        t.write_batches([batch(rows)], None).await.unwrap();
    }
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
    // Lower bounds prune float keys; upper bounds do not, since the footer of the parquet
    // version strata is built on has no NaN count (a NaN, larger than every number, may
    // hide above a chunk's maximum).
    let (ids, m) = query("m['usage'] < 5").await;
    assert_eq!(ids, (0..100).filter(|i| i % 10 < 5).collect::<Vec<_>>());
    assert_eq!((m.files_read, m.files_skipped), (1, 2), "{m:?}");
    let (ids, m) = query("m['usage'] > 50").await;
    assert_eq!(
        ids,
        (200..300)
            .filter(|i| (*i as f64 - 100.0) > 50.0)
            .collect::<Vec<_>>()
    );
    assert_eq!(m.files_skipped, 1, "only the file without the key: {m:?}");
    let (ids, m) = query("m['usage'] IS NULL").await;
    assert_eq!(ids, (100..200).collect::<Vec<_>>());
    assert_eq!(m.files_skipped, 0, "IS NULL cannot skip: {m:?}");
    let (ids, m) = query("m['usage'] < 3 OR m['cpu'] = 150").await;
    assert_eq!(ids.len(), 31);
    assert_eq!(m.files_skipped, 1, "{m:?}");
}

async fn filtered_ids(t: &Table, filter: &str) -> Vec<i64> {
    let p = strata::expr::parse_sql_predicate(filter).unwrap();
    let plan = t.new_scan().with_filter(p.clone()).plan().await.unwrap();
    let read = t
        .new_read()
        .with_projection(vec!["id".into()])
        .with_filter(p)
        .with_batch_size(7);
    let mut ids = Vec::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        let c = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        ids.extend((0..c.len()).map(|i| c.value(i)));
    }
    ids.sort();
    ids
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    /// Key predicates prune shredded files and row groups (several small row groups and files
    /// here) but never lose a row: the ids equal those of the default-layout table.
    #[test]
    fn key_predicates_never_lose_rows(
        rows in arb_rows(),
        k in 1usize..5,
        key in 0usize..12,
        other in 0usize..12,
        threshold in -100.0f64..100.0,
        op in 0usize..7,
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let wh = Warehouse::new();
            let s = wh.create("db.s", &shredded_schema(&format!(
                r#","fields.m.map.shared-shredding.max-columns":"{k}",
                "parquet.block.size":"512","parquet.page.row.count.limit":"4""#))).await;
            let d = wh.create("db.d", r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
                {"name":"m","type":"MAP<STRING NOT NULL, DOUBLE>"}]}"#).await;
            let half = rows.len() / 2;
            for part in [&rows[..half], &rows[half..]] {
                if !part.is_empty() {
                    s.write_batches([batch(part)], None).await.unwrap();
                    d.write_batches([batch(part)], None).await.unwrap();
                }
            }
            let filter = match op {
                0 => format!("m['k{key}'] > {threshold}"),
                1 => format!("m['k{key}'] <= {threshold}"),
                2 => format!("m['k{key}'] = {threshold} OR m['k{other}'] < {threshold}"),
                3 => format!("m['k{key}'] IS NULL"),
                4 => format!("NOT (m['k{key}'] > {threshold}) AND m['k{other}'] IS NOT NULL"),
                5 => format!("m['k{key}'] IN (1.5, {threshold}) OR id < 3"),
                _ => format!("m['k{key}'] BETWEEN {threshold} AND 50"),
            };
            prop_assert_eq!(filtered_ids(&s, &filter).await, filtered_ids(&d, &filter).await, "{}", filter);
            Ok(())
        })?;
    }
}
