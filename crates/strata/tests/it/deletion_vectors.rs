//! Deletion vectors written the way Java writes them (an index file of length-prefixed
//! RoaringBitmaps listed in the index manifest) are applied by strata's reads: rows at the
//! marked positions disappear, with merge-on-read and without.

use std::sync::Arc;

use crate::common::*;
use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};

fn ids(v: &[i64]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("v", ArrowType::Int64, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(v.to_vec())),
            Arc::new(Int64Array::from(
                v.iter().map(|i| i * 10).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap()
}

#[tokio::test]
async fn deletion_vectors_hide_marked_rows() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.dv",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"BIGINT"}],
            "primaryKeys":["id"],"options":{"bucket":"1","deletion-vectors.enabled":"true",
            "deletion-vectors.merge-on-read":"true","write-only":"true"}}"#,
        )
        .await;
    // Two overlapping level-0 files: ids 0..10, then 5..8 updated (write-only: strata does
    // not compact them, as if a Paimon job owned compaction).
    t.write_batches([ids(&(0..10).collect::<Vec<_>>())], None)
        .await
        .unwrap();
    let first = t.new_scan().plan().await.unwrap().splits[0].files[0].clone();
    t.write_batches([ids(&[5, 6, 7])], None).await.unwrap();
    assert_eq!(read_ids(&t, None, None).await, (0..10).collect::<Vec<_>>());

    // Mark positions 2 and 9 of the first file (ids 2 and 9) deleted: an index file with
    // Java's layout (version byte, then length-prefixed vectors).
    commit_deletion_vector(&t, 1, &first.file_name, &[2, 9], "index-dv-test-0").await;

    let t = wh
        .catalog
        .get_table(&"db.dv".parse().unwrap())
        .await
        .unwrap();
    assert_eq!(read_ids(&t, None, None).await, vec![0, 1, 3, 4, 5, 6, 7, 8]);
    // A key filter pushed into the read still honours the vector.
    assert_eq!(
        read_ids(&t, Some("id >= 2"), None).await,
        vec![3, 4, 5, 6, 7, 8]
    );
    // Time travel to before the vector: everything is back.
    assert_eq!(
        read_ids(&t, None, Some(2)).await,
        (0..10).collect::<Vec<_>>()
    );
}
