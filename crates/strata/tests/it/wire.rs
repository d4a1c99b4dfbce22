//! Commit messages and data splits cross process boundaries: serialized (JSON here), they
//! commit and read exactly as the originals.

use std::sync::Arc;

use crate::common::*;
use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::commit::CommitMessage;
use strata::scan::DataSplit;

const TABLE: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
 {"name":"dt","type":"STRING NOT NULL"}],"partitionKeys":["dt"],"primaryKeys":["id","dt"],
 "options":{"bucket":"-1"}}"#;

fn rows(ids: &[i64], dt: &str) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("dt", ArrowType::Utf8, false),
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

#[tokio::test]
async fn serialized_messages_commit_and_serialized_splits_read_like_the_originals() {
    let wh = Warehouse::new();
    let t = wh.create("db.w", TABLE).await;
    let mut w = t.new_write().unwrap();
    w.write(&rows(&[1, 2, 3], "a")).await.unwrap();
    w.write(&rows(&[4, 5], "b")).await.unwrap();
    let messages = w.prepare_commit().await.unwrap();
    assert!(messages.iter().any(|m| !m.index_changes.is_empty()));
    // A "worker" ships its messages to the "driver" as JSON.
    let json = serde_json::to_string(&messages).unwrap();
    let shipped: Vec<CommitMessage> = serde_json::from_str(&json).unwrap();
    assert_eq!(format!("{shipped:?}"), format!("{messages:?}"));
    t.new_commit().unwrap().commit(shipped).await.unwrap();
    assert_eq!(read_ids(&t, None, None).await, vec![1, 2, 3, 4, 5]);

    // The driver plans; workers read the splits it sends them.
    let plan = t.new_scan().plan().await.unwrap();
    let json = serde_json::to_string(&plan.splits).unwrap();
    let splits: Vec<DataSplit> = serde_json::from_str(&json).unwrap();
    assert_eq!(format!("{splits:?}"), format!("{:?}", plan.splits));
    let read = t.new_read().with_projection(vec!["id".into()]);
    let mut ids: Vec<i64> = Vec::new();
    for b in read.to_batches(splits).await.unwrap() {
        let c = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        ids.extend(c.values().iter().copied());
    }
    ids.sort();
    assert_eq!(ids, vec![1, 2, 3, 4, 5]);

    // Another version is refused with a message that says so.
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v[0]["version"] = serde_json::json!(7);
    let err = serde_json::from_value::<Vec<DataSplit>>(v)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("version 7") && err.contains("reads version 1"),
        "{err}"
    );
}
