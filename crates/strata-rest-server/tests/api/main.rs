//! Every operation of the REST catalog API against an in-process `strata serve` over a temporary
//! warehouse: strata's own REST client (`strata::catalog::open` with `metastore=rest`) writing,
//! committing and reading rows through it, and raw HTTP for each endpoint, paging, the commit
//! decision (stale base, wrong table id, a snapshot with unknown members kept as sent), error
//! answers (`ErrorResponse`, never a path), table ids that survive a restart, views and
//! functions.
//!
//! | module | what |
//! |---|---|
//! | `catalog` | config, databases, tables, paging, bad requests, ids across restarts |
//! | `commits` | strata's client writing through the server, the commit decision, racing writers |
//! | `versions` | tags, branches, rollback |
//! | `views`, `functions` | every view and function endpoint, their files in the warehouse |

#[path = "../support/mod.rs"]
mod support;

mod catalog;
mod commits;
mod functions;
mod versions;
mod views;

use std::sync::Arc;

use arrow::array::{Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use serde_json::Value;

use support::{create_table, get, post, Running};

pub(crate) fn batch(ids: &[i64], dt: &str) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("dt", DataType::Utf8, true),
        Field::new("v", DataType::Utf8, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(vec![dt; ids.len()])),
            Arc::new(StringArray::from(
                ids.iter().map(|i| format!("v{i}")).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap()
}

pub(crate) async fn read_ids(table: &strata::table::Table) -> Vec<i64> {
    let plan = table.new_scan().plan().await.unwrap();
    let batches = table.new_read().to_batches(plan.splits).await.unwrap();
    let mut ids: Vec<i64> = batches
        .iter()
        .flat_map(|b| {
            b.column_by_name("id")
                .unwrap()
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap()
                .values()
                .to_vec()
        })
        .collect();
    ids.sort();
    ids
}

/// The snapshot written by a normal commit, as JSON.
pub(crate) async fn first_commit(s: &Running) -> (String, Value) {
    assert_eq!(
        post(&s.api("/databases"), r#"{"name":"db"}"#).await.status,
        200
    );
    assert_eq!(create_table(s, "db", "t").await.status, 200);
    let catalog = strata::catalog::open(&s.client_options()).await.unwrap();
    let table = catalog.get_table(&"db.t".parse().unwrap()).await.unwrap();
    table.write_batches([batch(&[1], "a")], None).await.unwrap();
    let t = get(&s.api("/databases/db/tables/t")).await;
    let snap = get(&s.api("/databases/db/tables/t/snapshots/1")).await;
    assert_eq!(snap.status, 200, "{}", snap.text);
    (
        t.body["id"].as_str().unwrap().to_string(),
        snap.body["snapshot"].clone(),
    )
}
