//! Row tracking (`row-tracking.enabled`) through the library: row ids and sequence numbers
//! assigned at commit as Java's `RowTrackingCommitUtils` does (`firstRowId` per file, the
//! snapshot's `nextRowId`, new files stamped with the snapshot id), `_ROW_ID` and
//! `_SEQUENCE_NUMBER` read by name (projection and filter), Java's `SchemaValidation` rules,
//! INSERT OVERWRITE, the copy-on-write refusal, and data evolution (`Table::update_columns`
//! writing some columns by row id, reads stitching them).

use std::sync::Arc;

use crate::common::*;
use arrow_array::{Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::commit::OverwriteScope;
use strata::expr::parse_sql_predicate;
use strata::table::Table;
use strata::ErrorKind;

const TABLE: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"dt","type":"STRING"}],
 "partitionKeys":["dt"],"options":{"bucket":"-1","row-tracking.enabled":"true"}}"#;

fn batch(ids: &[i64], dt: &str) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("dt", ArrowType::Utf8, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(vec![dt; ids.len()])),
        ],
    )
    .unwrap()
}

/// (id, _ROW_ID, _SEQUENCE_NUMBER) sorted by id.
async fn tracked(t: &Table, filter: Option<&str>) -> Vec<(i64, i64, i64)> {
    let mut scan = t.new_scan();
    let mut read = t.new_read().with_projection(vec![
        "id".into(),
        "_ROW_ID".into(),
        "_SEQUENCE_NUMBER".into(),
    ]);
    if let Some(f) = filter {
        let p = parse_sql_predicate(f).unwrap();
        scan = scan.with_filter(p.clone());
        read = read.with_filter(p);
    }
    let plan = scan.plan().await.unwrap();
    let mut out = Vec::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        assert!(!b.schema().field(1).is_nullable());
        let c = |i: usize| {
            b.column(i)
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap()
                .clone()
        };
        let (a, r, s) = (c(0), c(1), c(2));
        for i in 0..b.num_rows() {
            out.push((a.value(i), r.value(i), s.value(i)));
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn commits_assign_row_ids_and_snapshot_sequence_numbers() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", TABLE).await;
    // One partition per commit: ids follow the delta order.
    t.write_batches([batch(&[1, 2, 3], "a")], None)
        .await
        .unwrap();
    t.write_batches([batch(&[4, 5], "b")], None).await.unwrap();
    let sm = t.snapshot_manager();
    assert_eq!(sm.snapshot(1).await.unwrap().next_row_id, Some(3));
    assert_eq!(sm.snapshot(2).await.unwrap().next_row_id, Some(5));
    assert_eq!(
        tracked(&t, None).await,
        vec![(1, 0, 1), (2, 1, 1), (3, 2, 1), (4, 3, 2), (5, 4, 2)]
    );
    // Manifest metadata: firstRowId per file, sequence numbers = the snapshot id.
    let plan = t.new_scan().plan().await.unwrap();
    let mut files: Vec<_> = plan
        .splits
        .iter()
        .flat_map(|s| s.files.iter())
        .map(|f| (f.first_row_id, f.min_sequence_number, f.max_sequence_number))
        .collect();
    files.sort();
    assert_eq!(files, vec![(Some(0), 1, 1), (Some(3), 2, 2)]);

    // Filters on the system columns (not prunable by statistics) and on table columns.
    assert_eq!(
        tracked(&t, Some("_ROW_ID >= 2 AND _ROW_ID < 4")).await,
        vec![(3, 2, 1), (4, 3, 2)]
    );
    assert_eq!(tracked(&t, Some("id = 5")).await, vec![(5, 4, 2)]);
    // The default projection leaves them out.
    let out = t.new_read().output_schema().unwrap();
    assert_eq!(out.fields().len(), 2);

    // INSERT OVERWRITE of partition a: new rows get new ids; nextRowId keeps growing.
    t.write_batches([batch(&[6], "a")], Some(OverwriteScope::Dynamic))
        .await
        .unwrap();
    assert_eq!(sm.snapshot(3).await.unwrap().next_row_id, Some(6));
    assert_eq!(
        tracked(&t, None).await,
        vec![(4, 3, 2), (5, 4, 2), (6, 5, 3)]
    );
}

#[tokio::test]
async fn java_schema_rules_and_copy_on_write_refusal() {
    let wh = Warehouse::new();
    let id: strata::catalog::Identifier = "db.pk".parse().unwrap();
    let pk = strata_spec::schema::Schema::from_json(
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"}],"primaryKeys":["id"],
        "options":{"bucket":"1","row-tracking.enabled":"true"}}"#,
    )
    .unwrap();
    let err = wh.catalog.create_table(&id, &pk, false).await.unwrap_err();
    assert!(err.to_string().contains("primary key"), "{err}");
    let fixed = strata_spec::schema::Schema::from_json(
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"}],
        "options":{"bucket":"2","bucket-key":"id","row-tracking.enabled":"true"}}"#,
    )
    .unwrap();
    let err = wh
        .catalog
        .create_table(&id, &fixed, false)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("bucket = -1"), "{err}");

    // A commit that rewrites files (copy-on-write) would renumber rows: refused.
    let t = wh.create("db.t", TABLE).await;
    t.write_batches([batch(&[1, 2], "a")], None).await.unwrap();
    let plan = t.new_scan().plan().await.unwrap();
    let split = &plan.splits[0];
    let mut msg = strata::commit::CommitMessage::new(split.partition.clone(), split.bucket, -1);
    msg.deleted_files = split.files.clone();
    let err = t.new_commit().unwrap().commit(vec![msg]).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported, "{err}");
    assert!(err.to_string().contains("row ids"), "{err}");
}

const EVOLVING: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"dt","type":"STRING"},
 {"name":"v","type":"INT"}],"partitionKeys":["dt"],
 "options":{"bucket":"-1","row-tracking.enabled":"true","data-evolution.enabled":"true"}}"#;

/// (id, v, _ROW_ID) sorted by id.
async fn evolved(t: &Table, filter: Option<&str>) -> Vec<(i64, Option<i32>, i64)> {
    let mut read = t
        .new_read()
        .with_projection(vec!["id".into(), "v".into(), "_ROW_ID".into()]);
    if let Some(f) = filter {
        read = read.with_filter(parse_sql_predicate(f).unwrap());
    }
    let plan = t.new_scan().plan().await.unwrap();
    let mut out = Vec::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        let ids = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let vs = b
            .column(1)
            .as_any()
            .downcast_ref::<arrow_array::Int32Array>()
            .unwrap();
        let rids = b.column(2).as_any().downcast_ref::<Int64Array>().unwrap();
        for i in 0..b.num_rows() {
            let v = (!vs.is_null(i)).then(|| vs.value(i));
            out.push((ids.value(i), v, rids.value(i)));
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn data_evolution_column_writes_are_stitched_by_row_id() {
    let wh = Warehouse::new();
    let t = wh.create("db.e", EVOLVING).await;
    let rows = |ids: &[i64], dt: &str, vs: &[i32]| {
        let schema = Arc::new(ArrowSchema::new(vec![
            Field::new("id", ArrowType::Int64, false),
            Field::new("dt", ArrowType::Utf8, true),
            Field::new("v", ArrowType::Int32, true),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(ids.to_vec())),
                Arc::new(StringArray::from(vec![dt; ids.len()])),
                Arc::new(arrow_array::Int32Array::from(vs.to_vec())),
            ],
        )
        .unwrap()
    };
    t.write_batches([rows(&[1, 2, 3], "a", &[10, 20, 30])], None)
        .await
        .unwrap();
    t.write_batches([rows(&[4, 5], "b", &[40, 50])], None)
        .await
        .unwrap();
    // v of row ids 1 and 4 (ids 2 and 5), then of row id 1 again.
    let update = |rids: &[i64], vs: &[Option<i32>]| {
        let schema = Arc::new(ArrowSchema::new(vec![
            Field::new("_ROW_ID", ArrowType::Int64, false),
            Field::new("v", ArrowType::Int32, true),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(rids.to_vec())),
                Arc::new(arrow_array::Int32Array::from(vs.to_vec())),
            ],
        )
        .unwrap()
    };
    let s3 = t
        .update_columns(&update(&[1, 4], &[Some(21), None]))
        .await
        .unwrap();
    assert_eq!(s3, Some(3));
    t.update_columns(&update(&[1], &[Some(22)])).await.unwrap();
    assert_eq!(
        evolved(&t, None).await,
        vec![
            (1, Some(10), 0),
            (2, Some(22), 1),
            (3, Some(30), 2),
            (4, Some(40), 3),
            (5, None, 4)
        ]
    );
    // Filters apply to the stitched rows.
    assert_eq!(evolved(&t, Some("v > 20")).await.len(), 3);
    // One file of `v` per range touched, with the range's firstRowId; nextRowId unchanged.
    let plan = t.new_scan().plan().await.unwrap();
    let mut partial: Vec<_> = plan
        .splits
        .iter()
        .flat_map(|s| s.files.iter())
        .filter_map(|f| {
            f.write_cols
                .clone()
                .map(|c| (f.first_row_id, f.row_count, c))
        })
        .collect();
    partial.sort();
    assert_eq!(
        partial,
        vec![
            (Some(0), 3, vec!["v".to_string()]),
            (Some(0), 3, vec!["v".to_string()]),
            (Some(3), 2, vec!["v".to_string()]),
        ]
    );
    let sm = t.snapshot_manager();
    assert_eq!(sm.snapshot(4).await.unwrap().next_row_id, Some(5));
    // A row id no range holds is refused, nothing committed.
    let err = t
        .update_columns(&update(&[9], &[Some(1)]))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("_ROW_ID 9"), "{err}");
    assert_eq!(sm.latest_id().await.unwrap(), Some(4));
    // The changes of a column update are not rows on their own: incremental reads and
    // streams are refused by name rather than return NULLs in every other column.
    for (from, to) in [(2, 3), (0, 4)] {
        let err = t
            .new_incremental_scan(strata::scan::IncrementalBetween::ids(from, to))
            .plan()
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unsupported, "{err}");
        assert!(err.to_string().contains("data-evolution.enabled"), "{err}");
    }
    let snapshot = sm.snapshot(3).await.unwrap();
    let err = t.plan_snapshot_changes(&snapshot).await.unwrap_err();
    assert!(err.to_string().contains("data-evolution.enabled"), "{err}");
}
