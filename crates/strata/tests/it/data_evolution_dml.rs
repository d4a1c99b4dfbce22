//! MERGE and DELETE on data-evolution tables through the library
//! (`Table::apply_row_id_changes`, `Table::delete_row_ids`), as Spark's
//! `MergeIntoPaimonDataEvolutionTable` / `DeleteFromPaimonTableCommand` write them: updated
//! columns by row id, inserts with new row ids, deletions in the anchor file's deletion vector,
//! all in one snapshot; reads apply the vectors to the stitched ranges.

use std::sync::Arc;

use crate::common::*;
use arrow_array::{Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::table::Table;
use strata::write::RowIdChanges;
use strata::ErrorKind;

const DV_TABLE: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"dt","type":"STRING"},{"name":"v","type":"INT"}],
 "partitionKeys":["dt"],"options":{"bucket":"-1","row-tracking.enabled":"true","data-evolution.enabled":"true","deletion-vectors.enabled":"true"}}"#;

const NO_DV_TABLE: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"dt","type":"STRING"},{"name":"v","type":"INT"}],
 "options":{"bucket":"-1","row-tracking.enabled":"true","data-evolution.enabled":"true"}}"#;

fn rows(ids: &[i64], dt: &str, vs: &[i32]) -> RecordBatch {
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
            Arc::new(Int32Array::from(vs.to_vec())),
        ],
    )
    .unwrap()
}

fn update(rids: &[i64], vs: &[i32]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("_ROW_ID", ArrowType::Int64, false),
        Field::new("v", ArrowType::Int32, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(rids.to_vec())),
            Arc::new(Int32Array::from(vs.to_vec())),
        ],
    )
    .unwrap()
}

/// (id, v, _ROW_ID) sorted by id.
async fn read(t: &Table) -> Vec<(i64, Option<i32>, i64)> {
    let read = t
        .new_read()
        .with_projection(vec!["id".into(), "v".into(), "_ROW_ID".into()]);
    let plan = t.new_scan().plan().await.unwrap();
    let mut out = Vec::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        let ids = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let vs = b.column(1).as_any().downcast_ref::<Int32Array>().unwrap();
        let rids = b.column(2).as_any().downcast_ref::<Int64Array>().unwrap();
        for i in 0..b.num_rows() {
            out.push((
                ids.value(i),
                (!vs.is_null(i)).then(|| vs.value(i)),
                rids.value(i),
            ));
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn merge_updates_deletes_and_inserts_in_one_snapshot() {
    let wh = Warehouse::new();
    let t = wh.create("db.m", DV_TABLE).await;
    t.write_batches([rows(&[1, 2, 3], "a", &[10, 20, 30])], None)
        .await
        .unwrap();
    t.write_batches([rows(&[4, 5], "b", &[40, 50])], None)
        .await
        .unwrap();
    // Update v of row 1 (id 2), delete rows 2 (id 3) and 3 (id 4), insert id 6.
    let changes = RowIdChanges::new()
        .with_updates(update(&[1], &[21]))
        .with_deletes([2, 3])
        .with_inserts(rows(&[6], "b", &[60]));
    let s = t.apply_row_id_changes(changes).await.unwrap();
    assert_eq!(s, Some(3));
    assert_eq!(
        read(&t).await,
        vec![
            (1, Some(10), 0),
            (2, Some(21), 1),
            (5, Some(50), 4),
            (6, Some(60), 5)
        ]
    );
    let sm = t.snapshot_manager();
    assert_eq!(sm.snapshot(3).await.unwrap().next_row_id, Some(6));
    // Files: the column file of range 0 (writeCols [v], firstRowId 0), the insert (firstRowId
    // 5); the original files untouched.
    let plan = t.new_scan().plan().await.unwrap();
    let mut files: Vec<_> = plan
        .splits
        .iter()
        .flat_map(|s| s.files.iter())
        .map(|f| (f.first_row_id, f.row_count, f.write_cols.clone()))
        .collect();
    files.sort();
    assert_eq!(
        files,
        vec![
            (Some(0), 3, None),
            (Some(0), 3, Some(vec!["v".to_string()])),
            (Some(3), 2, None),
            (Some(5), 1, None),
        ]
    );
    // A second delete in the same partition merges with the vector there (the index file is
    // replaced), and a row already deleted is refused.
    t.delete_row_ids(&[0]).await.unwrap();
    assert_eq!(
        read(&t).await,
        vec![(2, Some(21), 1), (5, Some(50), 4), (6, Some(60), 5)]
    );
    let err = t.delete_row_ids(&[2]).await.unwrap_err();
    assert!(err.to_string().contains("_ROW_ID 2"), "{err}");
    let err = t
        .apply_row_id_changes(RowIdChanges::new().with_updates(update(&[3], &[1])))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("is deleted"), "{err}");
    // A later column update of a range keeps the deletions (the anchor is the oldest file).
    t.update_columns(&update(&[1], &[22])).await.unwrap();
    assert_eq!(
        read(&t).await,
        vec![(2, Some(22), 1), (5, Some(50), 4), (6, Some(60), 5)]
    );
    // Updating and deleting one row at once is refused; so is an unknown row id.
    let err = t
        .apply_row_id_changes(
            RowIdChanges::new()
                .with_updates(update(&[4], &[1]))
                .with_deletes([4]),
        )
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("both updated and deleted"),
        "{err}"
    );
    let err = t.delete_row_ids(&[99]).await.unwrap_err();
    assert!(err.to_string().contains("_ROW_ID 99"), "{err}");
    // The index manifest holds one live deletion-vector file per partition touched.
    let latest = sm
        .snapshot(sm.latest_id().await.unwrap().unwrap())
        .await
        .unwrap();
    let vectors = strata::read::deletion_vectors::load_deletion_vectors(
        &t,
        &latest,
        &plan.splits[0].partition,
        0,
    )
    .await
    .unwrap();
    assert!(vectors.values().all(|v| v.cardinality() > 0));
}

#[tokio::test]
async fn deletes_need_deletion_vectors_as_in_java() {
    let wh = Warehouse::new();
    let t = wh.create("db.n", NO_DV_TABLE).await;
    t.write_batches([rows(&[1, 2], "a", &[10, 20])], None)
        .await
        .unwrap();
    let err = t.delete_row_ids(&[0]).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported, "{err}");
    assert!(
        err.to_string().contains("deletion-vectors.enabled"),
        "{err}"
    );
    // Updates and inserts need none.
    t.apply_row_id_changes(
        RowIdChanges::new()
            .with_updates(update(&[0], &[11]))
            .with_inserts(rows(&[3], "a", &[30])),
    )
    .await
    .unwrap();
    assert_eq!(
        read(&t).await,
        vec![(1, Some(11), 0), (2, Some(20), 1), (3, Some(30), 2)]
    );
}

#[tokio::test]
async fn column_updates_honour_global_index_column_update_action() {
    use strata::spec::manifest::model::{
        FileKind, GlobalIndexMeta, IndexFileMeta, IndexManifestEntry,
    };
    let wh = Warehouse::new();
    let t = wh.create("db.g", NO_DV_TABLE).await;
    t.write_batches([rows(&[1, 2], "a", &[10, 20])], None)
        .await
        .unwrap();
    // A global index (as Java's BTree global index writes them) over `v` (field id 2).
    let partition = t.new_scan().plan().await.unwrap().splits[0]
        .partition
        .clone();
    let mut message = strata::commit::CommitMessage::new(partition.clone(), 0, -1);
    message.index_changes.push(IndexManifestEntry {
        kind: FileKind::Add,
        partition,
        bucket: 0,
        index_file: IndexFileMeta {
            index_type: "btree".to_string(),
            file_name: "global-index-v".to_string(),
            file_size: 1,
            row_count: 2,
            dv_ranges: None,
            external_path: None,
            global_index: Some(GlobalIndexMeta {
                row_range_start: 0,
                row_range_end: 1,
                index_field_id: 2,
                extra_field_ids: None,
                index_meta: None,
                source_meta: None,
            }),
        },
    });
    t.new_commit().unwrap().commit(vec![message]).await.unwrap();
    // THROW_ERROR (Java's default): refused with Java's message, nothing written.
    let latest = t.snapshot_manager().latest_id().await.unwrap();
    let err = t.update_columns(&update(&[0], &[11])).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("update columns contain globally indexed columns"),
        "{err}"
    );
    assert!(err.to_string().contains("Conflicted columns: [v]"), "{err}");
    assert_eq!(t.snapshot_manager().latest_id().await.unwrap(), latest);
    // IGNORE: the update lands and the index stays (the next default update is refused).
    let ignore = t
        .with_dynamic_options([(
            "global-index.column-update-action".to_string(),
            "IGNORE".to_string(),
        )])
        .unwrap();
    ignore.update_columns(&update(&[0], &[11])).await.unwrap();
    assert!(t.update_columns(&update(&[0], &[12])).await.is_err());
    // DROP_PARTITION_INDEX: the update lands with the partition's index removed.
    let drop = t
        .with_dynamic_options([(
            "global-index.column-update-action".to_string(),
            "DROP_PARTITION_INDEX".to_string(),
        )])
        .unwrap();
    drop.apply_row_id_changes(RowIdChanges::new().with_updates(update(&[1], &[21])))
        .await
        .unwrap();
    t.update_columns(&update(&[0], &[13])).await.unwrap();
    assert_eq!(read(&t).await, vec![(1, Some(13), 0), (2, Some(21), 1)]);
}
