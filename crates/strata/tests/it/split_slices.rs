//! Slices of a large file (`DataSplit::slices`): several readers share one Parquet file by
//! row ranges, together reading every row exactly once — with filters, string views,
//! deletion vectors and across the serialized form.

use std::sync::Arc;

use crate::common::*;
use arrow_array::{Array, Int64Array, RecordBatch, StringArray, StringViewArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::read::ReadMetrics;
use strata::scan::DataSplit;
use strata::table::Table;

const ROWS: i64 = 20_000;

/// An append table whose one file has several row groups of several pages each.
const TABLE: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
 {"name":"s","type":"STRING"}],
 "options":{"bucket":"-1","parquet.block.size":"8000","parquet.page.row.count.limit":"500",
 "deletion-vectors.enabled":"true"}}"#;

fn batch(ids: std::ops::Range<i64>) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("s", ArrowType::Utf8, true),
    ]));
    let s: Vec<Option<String>> = ids
        .clone()
        .map(|i| (i % 7 != 0).then(|| format!("v{}", i % 13)))
        .collect();
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.collect::<Vec<_>>())),
            Arc::new(StringArray::from(s)),
        ],
    )
    .unwrap()
}

async fn one_file_table(wh: &Warehouse) -> (Table, DataSplit) {
    let t = wh.create("db.big", TABLE).await;
    t.write_batches([batch(0..ROWS)], None).await.unwrap();
    let mut splits = t.new_scan().plan().await.unwrap().splits;
    assert_eq!(splits.len(), 1);
    assert_eq!(splits[0].files.len(), 1, "the table is one file");
    (t, splits.remove(0))
}

/// The ids (in read order) and the `s` values of reading `splits`, with views when asked.
async fn read(
    t: &Table,
    splits: Vec<DataSplit>,
    filter: Option<&str>,
    views: bool,
) -> Vec<(i64, Option<String>)> {
    let mut read = t.new_read();
    if let Some(f) = filter {
        read = read.with_filter(strata::expr::parse_sql_predicate(f).unwrap());
    }
    if views {
        read = read.with_string_views();
    }
    let mut out = Vec::new();
    for b in read.to_batches(splits).await.unwrap() {
        let ids = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let s: Vec<Option<String>> = if views {
            let a = b
                .column(1)
                .as_any()
                .downcast_ref::<StringViewArray>()
                .unwrap();
            (0..a.len())
                .map(|i| a.is_valid(i).then(|| a.value(i).to_string()))
                .collect()
        } else {
            let a = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
            (0..a.len())
                .map(|i| a.is_valid(i).then(|| a.value(i).to_string()))
                .collect()
        };
        out.extend(ids.values().iter().copied().zip(s));
    }
    out
}

#[tokio::test]
async fn slices_read_every_row_once_in_file_order() {
    let wh = Warehouse::new();
    let (t, split) = one_file_table(&wh).await;
    let whole = read(&t, vec![split.clone()], None, false).await;
    assert_eq!(whole.len(), ROWS as usize);
    for n in [2, 3, 7] {
        let slices = split.clone().slices(n);
        assert_eq!(slices.len(), n);
        assert_eq!(slices.iter().map(DataSplit::row_count).sum::<i64>(), ROWS);
        let mut joined = Vec::new();
        for (i, s) in slices.into_iter().enumerate() {
            let r = s.row_range.clone().unwrap();
            let rows = read(&t, vec![s], None, i % 2 == 0).await;
            assert_eq!(rows.len() as u64, r.end - r.start, "slice {i} of {n}");
            assert_eq!(rows.first().unwrap().0, r.start as i64);
            joined.extend(rows);
        }
        assert_eq!(joined, whole, "{n} slices");
    }
    // A filter pushed into each slice (late materialization inside the range).
    let filter = "id >= 19990 OR s = 'v5'";
    let mut joined = Vec::new();
    for s in split.clone().slices(3) {
        joined.extend(read(&t, vec![s], Some(filter), true).await);
    }
    let expected: Vec<_> = whole
        .iter()
        .filter(|(id, s)| *id >= 19990 || s.as_deref() == Some("v5"))
        .cloned()
        .collect();
    assert_eq!(joined, expected);
}

#[tokio::test]
async fn a_small_slice_reads_only_the_row_groups_it_overlaps() {
    let wh = Warehouse::new();
    let (t, split) = one_file_table(&wh).await;
    let whole = Arc::new(ReadMetrics::default());
    t.new_read()
        .with_metrics(whole.clone())
        .to_batches(vec![split.clone()])
        .await
        .unwrap();
    let groups = whole.snapshot().row_groups_read;
    assert!(
        groups >= 4,
        "the file should have several row groups, has {groups}"
    );
    let mut tail = split.clone();
    let mid = ROWS as u64 / 2;
    tail.row_range = Some(mid..mid + 10);
    let m = Arc::new(ReadMetrics::default());
    let rows = t
        .new_read()
        .with_metrics(m.clone())
        .to_batches(vec![tail])
        .await
        .unwrap();
    assert_eq!(rows.iter().map(RecordBatch::num_rows).sum::<usize>(), 10);
    let m = m.snapshot();
    // Ten rows lie in one row group, or two when they straddle a boundary.
    assert!(m.row_groups_read <= 2, "{m:?}");
    assert_eq!(m.row_groups_skipped, groups - m.row_groups_read);
    assert!(m.bytes_read < whole.snapshot().bytes_read / 2, "{m:?}");
}

#[tokio::test]
async fn deletion_vectors_apply_at_file_positions_inside_a_slice() {
    let wh = Warehouse::new();
    let (t, split) = one_file_table(&wh).await;
    let file = split.files[0].file_name.clone();
    // Delete positions on both sides of every slice boundary of 3 slices, and the ends.
    let deleted: Vec<u32> = vec![0, 6665, 6666, 6667, 13332, 13333, 13334, ROWS as u32 - 1];
    commit_deletion_vector(
        &t,
        split.total_buckets,
        &file,
        &deleted,
        "index-slices-dv-0",
    )
    .await;
    let t = wh
        .catalog
        .get_table(&"db.big".parse().unwrap())
        .await
        .unwrap();
    let split = t.new_scan().plan().await.unwrap().splits.remove(0);
    let expected: Vec<i64> = (0..ROWS)
        .filter(|i| !deleted.contains(&(*i as u32)))
        .collect();
    let mut joined = Vec::new();
    for s in split.slices(3) {
        joined.extend(
            read(&t, vec![s], None, true)
                .await
                .into_iter()
                .map(|(id, _)| id),
        );
    }
    assert_eq!(joined, expected);
}

#[tokio::test]
async fn slices_travel_serialized_and_bad_ranges_are_refused() {
    let wh = Warehouse::new();
    let (t, split) = one_file_table(&wh).await;
    let slices = split.clone().slices(2);
    let json = serde_json::to_string(&slices).unwrap();
    let shipped: Vec<DataSplit> = serde_json::from_str(&json).unwrap();
    assert_eq!(format!("{shipped:?}"), format!("{slices:?}"));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v[0]["version"], 2, "a slice is written as version 2: {v}");
    let whole: serde_json::Value = serde_json::to_value(&split).unwrap();
    assert_eq!(whole["version"], 1, "a whole split stays version 1");
    let mut read_back = Vec::new();
    for s in shipped {
        read_back.extend(read(&t, vec![s], None, false).await);
    }
    assert_eq!(read_back, read(&t, vec![split.clone()], None, false).await);

    // A range claimed under version 1 (a reader that would ignore it) is refused.
    let mut bad = v.clone();
    bad[0]["version"] = serde_json::json!(1);
    let err = serde_json::from_value::<Vec<DataSplit>>(bad)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("row range") && err.contains("version 2"),
        "{err}"
    );
    let mut bad = v.clone();
    bad[0]["rowRange"] = serde_json::json!([9, 3]);
    let err = serde_json::from_value::<Vec<DataSplit>>(bad)
        .unwrap_err()
        .to_string();
    assert!(err.contains("start <= end"), "{err}");

    // A range over several files, or over a split that merges, is refused when read.
    t.write_batches([batch(ROWS..ROWS + 10)], None)
        .await
        .unwrap();
    let mut two = t.new_scan().plan().await.unwrap().splits.remove(0);
    assert_eq!(two.files.len(), 2);
    two.row_range = Some(0..5);
    let err = t
        .new_read()
        .to_stream(vec![two.clone()])
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("one file") && err.contains("2 files"), "{err}");
    // per_file then slices: what the SQL scan does.
    let units: Vec<DataSplit> = {
        two.row_range = None;
        two.per_file()
            .into_iter()
            .flat_map(|s| s.slices(2))
            .collect()
    };
    assert_eq!(units.len(), 4);
    let mut ids: Vec<i64> = Vec::new();
    for u in units {
        ids.extend(
            read(&t, vec![u], None, false)
                .await
                .into_iter()
                .map(|(id, _)| id),
        );
    }
    ids.sort_unstable();
    assert_eq!(ids, (0..ROWS + 10).collect::<Vec<_>>());
}
