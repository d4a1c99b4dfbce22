//! Row kinds written to append tables (`rowkind.field`, `TableWrite::write_with_kinds`): an
//! append table stores rows, not changes, so it takes `+I` and `+U` rows and refuses `-U` / `-D`
//! ones, unless `ignore-delete` (both) or `ignore-update-before` (`-U`) drops them first — Java's
//! `AppendOnlyFileStoreTable.newWrite` and `RowKindFilter`.

use std::sync::Arc;

use crate::common::*;
use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::spec::kv::RowKind;
use strata::table::Table;

fn batch(ids: &[i64], kinds: &[&str]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("k", ArrowType::Utf8, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(kinds.to_vec())),
        ],
    )
    .unwrap()
}

async fn table(wh: &Warehouse, name: &str, options: &str) -> Table {
    let schema = format!(
        r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"k","type":"STRING"}}],
            "partitionKeys":[],"options":{{"bucket":"-1"{options}}}}}"#
    );
    wh.create(name, &schema).await
}

/// (id, k) of every row, sorted.
async fn rows(t: &Table) -> Vec<(i64, String)> {
    let splits = t.new_scan().plan().await.unwrap().splits;
    let mut out = Vec::new();
    for b in t.new_read().to_batches(splits).await.unwrap() {
        let ids = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let ks = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.num_rows() {
            out.push((ids.value(i), ks.value(i).to_string()));
        }
    }
    out.sort();
    out
}

fn owned(rows: &[(i64, &str)]) -> Vec<(i64, String)> {
    rows.iter().map(|(i, k)| (*i, k.to_string())).collect()
}

#[tokio::test]
async fn a_delete_row_of_the_rowkind_field_is_refused_and_nothing_is_committed() {
    let wh = Warehouse::new();
    let t = table(&wh, "db.t", r#","rowkind.field":"k""#).await;
    t.write_batches([batch(&[1], &["+I"])], None).await.unwrap();
    for kind in ["-D", "-U"] {
        let err = t
            .write_batches([batch(&[1, 2, 1], &["+I", "+U", kind])], None)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("db.t") && err.contains(&format!("row 2 of kind {kind}")),
            "{err}"
        );
        assert!(err.contains("ignore-delete"), "{err}");
    }
    // Only the first commit landed: before the refusal, the -D row was stored as data.
    assert_eq!(rows(&t).await, owned(&[(1, "+I")]));
    assert_eq!(t.snapshot_manager().latest_id().await.unwrap(), Some(1));
}

#[tokio::test]
async fn ignore_delete_drops_retractions_and_keeps_inserts_and_update_afters() {
    let wh = Warehouse::new();
    let t = table(
        &wh,
        "db.t",
        r#","rowkind.field":"k","ignore-delete":"true""#,
    )
    .await;
    t.write_batches(
        [batch(&[1, 1, 2, 3, 2], &["+I", "-D", "-U", "+U", "+I"])],
        None,
    )
    .await
    .unwrap();
    assert_eq!(rows(&t).await, owned(&[(1, "+I"), (2, "+I"), (3, "+U")]));
    // A batch of retractions only commits nothing.
    let snapshot = t.snapshot_manager().latest_id().await.unwrap();
    assert_eq!(
        t.write_batches([batch(&[1], &["-D"])], None).await.unwrap(),
        None
    );
    assert_eq!(t.snapshot_manager().latest_id().await.unwrap(), snapshot);
}

#[tokio::test]
async fn ignore_update_before_drops_update_befores_and_still_refuses_deletes() {
    let wh = Warehouse::new();
    let t = table(
        &wh,
        "db.t",
        r#","rowkind.field":"k","ignore-update-before":"true""#,
    )
    .await;
    t.write_batches([batch(&[1, 1, 2], &["+I", "-U", "+U"])], None)
        .await
        .unwrap();
    assert_eq!(rows(&t).await, owned(&[(1, "+I"), (2, "+U")]));
    let err = t
        .write_batches([batch(&[1], &["-D"])], None)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("row 0 of kind -D"), "{err}");
}

#[tokio::test]
async fn api_row_kinds_on_an_append_table_follow_the_same_rules() {
    let wh = Warehouse::new();
    let t = table(&wh, "db.t", "").await;
    let b = batch(&[1, 2], &["a", "b"]);
    let mut w = t.new_write().unwrap();
    w.write_with_kinds(&b, &[RowKind::Insert, RowKind::UpdateAfter])
        .await
        .unwrap();
    let err = w
        .write_with_kinds(&b, &[RowKind::Insert, RowKind::Delete])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("row 1 of kind -D"), "{err}");
    t.new_commit()
        .unwrap()
        .commit(w.prepare_commit().await.unwrap())
        .await
        .unwrap();
    assert_eq!(rows(&t).await, owned(&[(1, "a"), (2, "b")]));

    let t = table(&wh, "db.t2", r#","ignore-delete":"true""#).await;
    let mut w = t.new_write().unwrap();
    w.write_with_kinds(&b, &[RowKind::UpdateBefore, RowKind::Insert])
        .await
        .unwrap();
    t.new_commit()
        .unwrap()
        .commit(w.prepare_commit().await.unwrap())
        .await
        .unwrap();
    assert_eq!(rows(&t).await, owned(&[(2, "b")]));
}
