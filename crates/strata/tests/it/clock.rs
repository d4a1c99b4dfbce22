//! The injected clock ([`strata::clock`]): snapshots and schemas are stamped with the table's
//! clock, and time-based expiry measures ages against it, so a test (or an embedding engine)
//! moves time instead of sleeping.

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema as ArrowSchema};
use strata::catalog::{FileSystemCatalog, Identifier};
use strata::clock::ManualClock;
use strata::maintenance::ExpireSnapshots;
use strata::table::Table;

const T0: i64 = 1_700_000_000_000;
const HOUR: i64 = 3_600_000;

async fn commit(t: &Table, ids: &[i64]) -> i64 {
    let batch = RecordBatch::try_new(
        Arc::new(ArrowSchema::new(vec![Field::new(
            "id",
            DataType::Int64,
            false,
        )])),
        vec![Arc::new(Int64Array::from(ids.to_vec()))],
    )
    .unwrap();
    let mut w = t.new_write().unwrap();
    w.write(&batch).await.unwrap();
    let msgs = w.prepare_commit().await.unwrap();
    t.new_commit().unwrap().commit(msgs).await.unwrap().unwrap()
}

#[tokio::test]
async fn commits_schemas_and_expiry_read_the_injected_clock() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(T0));
    let catalog = FileSystemCatalog::open(dir.path().to_str().unwrap())
        .unwrap()
        .with_clock(clock.clone());
    let id: Identifier = "db.t".parse().unwrap();
    let schema = strata_spec::schema::Schema::from_json(
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"}],
        "options":{"snapshot.time-retained":"1 h","snapshot.num-retained.min":"1",
        "snapshot.num-retained.max":"100"}}"#,
    )
    .unwrap();
    catalog.create_table(&id, &schema, false).await.unwrap();
    let t = catalog.get_table(&id).await.unwrap();
    assert_eq!(
        t.schema().time_millis,
        T0,
        "schema-0 is stamped by the clock"
    );

    let s1 = commit(&t, &[1]).await;
    clock.advance(2 * HOUR);
    let s2 = commit(&t, &[2]).await;
    let sm = t.snapshot_manager();
    assert_eq!(sm.snapshot(s1).await.unwrap().time_millis, T0);
    assert_eq!(sm.snapshot(s2).await.unwrap().time_millis, T0 + 2 * HOUR);

    // An ALTER's schema is stamped by the clock too, and the altered handle keeps the clock.
    let altered = t
        .alter(&[strata_spec::schema::SchemaChange::set_option(
            "snapshot.num-retained.max",
            "50",
        )])
        .await
        .unwrap();
    assert_eq!(altered.schema().time_millis, T0 + 2 * HOUR);
    clock.advance(HOUR);
    let s3 = commit(&altered, &[3]).await;
    assert_eq!(sm.snapshot(s3).await.unwrap().time_millis, T0 + 3 * HOUR);

    // 30 min later by the clock, with `snapshot.time-retained` = 1 h: snapshot 1 goes (its
    // successor is 1.5 h old: Java 2.0's rule), snapshot 2 stays (its successor is 30 min
    // old). On the system clock all three are years old and both would go.
    clock.advance(HOUR / 2);
    let report = ExpireSnapshots::new(&altered)
        .unwrap()
        .expire()
        .await
        .unwrap();
    assert_eq!(report.expired, vec![s1], "{report:?}");
    assert_eq!(sm.earliest_id().await.unwrap(), Some(s2));
    assert_eq!(sm.latest_id().await.unwrap(), Some(s3));
}
