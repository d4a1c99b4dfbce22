//! Filters skip the row groups and pages whose Parquet statistics rule them out, across schema
//! changes, and the rows read are exactly the filter's.

use std::sync::Arc;

use crate::common::*;
use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::expr::parse_sql_predicate;
use strata::read::{ReadMetrics, ReadMetricsSnapshot};
use strata::table::Table;
use strata_spec::schema::SchemaChange;
use strata_spec::types::json::parse_type_text;

const ROWS: i64 = 20_000;

/// One file, ids ascending, several row groups of many pages.
const TABLE: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
 {"name":"s","type":"STRING"}],
 "options":{"bucket":"-1","parquet.block.size":"20000","parquet.page.row.count.limit":"200"}}"#;

fn batch(ids: std::ops::Range<i64>) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("s", ArrowType::Utf8, true),
    ]));
    let s: Vec<String> = ids.clone().map(|i| format!("s{:06}", i)).collect();
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.collect::<Vec<_>>())),
            Arc::new(StringArray::from(s)),
        ],
    )
    .unwrap()
}

/// The ids `filter` selects, and what the read did.
async fn read(t: &Table, filter: &str) -> (Vec<i64>, ReadMetricsSnapshot) {
    let metrics = Arc::new(ReadMetrics::default());
    let p = parse_sql_predicate(filter).unwrap();
    // No file-level pruning: every file is handed to the reader.
    let splits = t.new_scan().plan().await.unwrap().splits;
    let batches = t
        .new_read()
        .with_filter(p)
        .with_metrics(metrics.clone())
        .to_batches(splits)
        .await
        .unwrap();
    let mut ids = Vec::new();
    for b in batches {
        let c = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        ids.extend(c.values().iter().copied());
    }
    ids.sort_unstable();
    (ids, metrics.snapshot())
}

#[tokio::test]
async fn a_range_on_a_sorted_column_reads_only_its_pages() {
    let wh = Warehouse::new();
    let t = wh.create("db.p", TABLE).await;
    t.write_batches([batch(0..ROWS)], None).await.unwrap();
    let (all, whole) = read(&t, "id >= 0").await;
    assert_eq!(all.len(), ROWS as usize);
    assert!(whole.row_groups_read >= 3, "{whole:?}");
    assert_eq!(whole.page_rows_skipped, 0);

    let (ids, m) = read(&t, "id < 700").await;
    assert_eq!(ids, (0..700).collect::<Vec<_>>());
    assert_eq!(m.row_groups_read, 1, "{m:?}");
    assert_eq!(m.row_groups_skipped, whole.row_groups_read - 1);
    assert!(m.page_rows_skipped > 0, "{m:?}");
    assert!(m.bytes_read * 4 < whole.bytes_read, "{m:?} vs {whole:?}");

    // Pages inside a row group: a narrow range in the middle of the file.
    let (ids, m) = read(&t, "id BETWEEN 10100 AND 10200").await;
    assert_eq!(ids, (10100..=10200).collect::<Vec<_>>());
    assert!(m.page_rows_skipped > 0, "{m:?}");
    // OR unites, AND intersects; strings prune by their own pages.
    let (ids, _) = read(&t, "id < 3 OR s >= 's019998'").await;
    assert_eq!(ids, [0, 1, 2, 19998, 19999]);
    let (ids, m) = read(&t, "id > 5000 AND s < 's005003'").await;
    assert_eq!(ids, [5001, 5002]);
    assert!(m.row_groups_read <= 2, "{m:?}");
    // Nothing matches: no row group is read.
    let (ids, m) = read(&t, "id > 1000000").await;
    assert!(ids.is_empty());
    assert_eq!(m.row_groups_read, 0, "{m:?}");
}

#[tokio::test]
async fn pruning_follows_columns_across_schema_changes() {
    let wh = Warehouse::new();
    let t = wh.create("db.p", TABLE).await;
    t.write_batches([batch(0..ROWS)], None).await.unwrap();
    let t = t
        .alter(&[
            SchemaChange::rename_column("id", "key"),
            SchemaChange::add_column("extra", parse_type_text("BIGINT").unwrap()),
        ])
        .await
        .unwrap();
    // The renamed column prunes by its old name's statistics.
    let metrics = Arc::new(ReadMetrics::default());
    let splits = t.new_scan().plan().await.unwrap().splits;
    let rows: usize = t
        .new_read()
        .with_filter(parse_sql_predicate("key < 10").unwrap())
        .with_metrics(metrics.clone())
        .to_batches(splits.clone())
        .await
        .unwrap()
        .iter()
        .map(RecordBatch::num_rows)
        .sum();
    assert_eq!(rows, 10);
    assert_eq!(metrics.snapshot().row_groups_read, 1);
    // The added column is NULL in the old file: `extra = 1` matches no row group there, and
    // `extra IS NULL` matches all.
    let metrics = Arc::new(ReadMetrics::default());
    let rows: usize = t
        .new_read()
        .with_filter(parse_sql_predicate("extra = 1").unwrap())
        .with_metrics(metrics.clone())
        .to_batches(splits.clone())
        .await
        .unwrap()
        .iter()
        .map(RecordBatch::num_rows)
        .sum();
    assert_eq!(rows, 0);
    assert_eq!(metrics.snapshot().row_groups_read, 0);
    let rows: usize = t
        .new_read()
        .with_filter(parse_sql_predicate("extra IS NULL AND key >= 19990").unwrap())
        .to_batches(splits)
        .await
        .unwrap()
        .iter()
        .map(RecordBatch::num_rows)
        .sum();
    assert_eq!(rows, 10);
}
