//! Tags, branches (the `t$branch_b` object) and rollback through the server.

use serde_json::json;

use crate::support::{assert_error, delete, get, post, Running};
use crate::{batch, first_commit, read_ids};

/// Tags, branches (the `t$branch_b` object) and rollback.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tags_branches_rollback() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start(dir.path()).await;
    let d = s.dir.clone();
    let (_, _) = first_commit(&s).await;
    let catalog = strata::catalog::open(&s.client_options()).await.unwrap();
    let table = catalog.get_table(&"db.t".parse().unwrap()).await.unwrap();
    table.write_batches([batch(&[2], "a")], None).await.unwrap();
    let t = |p: &str| s.api(&format!("/databases/db/tables/t{p}"));

    // tags
    let a = post(
        &t("/tags"),
        r#"{"tagName":"v1","snapshotId":1,"timeRetained":"1 d"}"#,
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert!(d.join("db.db/t/tag/tag-v1").exists());
    assert_error(
        &post(&t("/tags"), r#"{"tagName":"v1","snapshotId":1}"#).await,
        409,
        &d,
    );
    assert_error(
        &post(&t("/tags"), r#"{"tagName":"v9","snapshotId":99}"#).await,
        404,
        &d,
    );
    let again = post(
        &t("/tags"),
        r#"{"tagName":"v1","snapshotId":2,"ignoreIfExists":true}"#,
    )
    .await;
    assert_eq!(again.status, 200);
    assert_eq!(
        get(&t("/tags/v1")).await.body["snapshot"]["id"],
        1,
        "kept as it was"
    );
    assert_eq!(post(&t("/tags"), r#"{"tagName":"w2"}"#).await.status, 200);
    let g = get(&t("/tags/v1")).await;
    assert_eq!(
        (g.body["tagName"].clone(), g.body["snapshot"]["id"].clone()),
        (json!("v1"), json!(1))
    );
    assert_eq!(get(&t("/tags")).await.body["tags"], json!(["v1", "w2"]));
    assert_eq!(
        get(&t("/tags?tagNamePrefix=w")).await.body["tags"],
        json!(["w2"])
    );
    assert_eq!(
        get(&t("/tags?maxResults=1")).await.body["nextPageToken"],
        "v1"
    );
    assert_eq!(delete(&t("/tags/w2")).await.status, 200);
    assert_error(&delete(&t("/tags/w2")).await, 404, &d);
    assert_error(&get(&t("/tags/w2")).await, 404, &d);

    // branches: from a tag, read as object t$branch_b1 (encoded as Java does: `$` → %24)
    let a = post(&t("/branches"), r#"{"branch":"b1","fromTag":"v1"}"#).await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert_error(&post(&t("/branches"), r#"{"branch":"b1"}"#).await, 409, &d);
    assert_error(
        &post(&t("/branches"), r#"{"branch":"b2","fromTag":"nope"}"#).await,
        404,
        &d,
    );
    assert_eq!(get(&t("/branches")).await.body["branches"], json!(["b1"]));
    let bt = get(&s.api("/databases/db/tables/t%24branch_b1")).await;
    assert_eq!(bt.status, 200, "{}", bt.text);
    let b_latest = get(&s.api("/databases/db/tables/t%24branch_b1/snapshots/LATEST")).await;
    assert_eq!(b_latest.body["snapshot"]["id"], 1);
    let branch = catalog
        .get_table(&"db.t$branch_b1".parse().unwrap())
        .await
        .unwrap();
    assert_eq!(read_ids(&branch).await, vec![1]);
    assert_error(
        &get(&s.api("/databases/db/tables/t%24branch_nope")).await,
        404,
        &d,
    );
    assert_error(
        &get(&s.api("/databases/db/tables/t%24snapshots")).await,
        404,
        &d,
    );
    assert_eq!(delete(&t("/branches/b1")).await.status, 200);
    assert_error(&delete(&t("/branches/b1")).await, 404, &d);

    // rollback: fromSnapshot must be the latest; a missing snapshot is 404
    let stale = post(
        &t("/rollback"),
        r#"{"instant":{"type":"snapshot","snapshotId":1},"fromSnapshot":1}"#,
    )
    .await;
    assert_error(&stale, 409, &d);
    assert_error(
        &post(
            &t("/rollback"),
            r#"{"instant":{"type":"snapshot","snapshotId":9}}"#,
        )
        .await,
        404,
        &d,
    );
    assert_error(
        &post(
            &t("/rollback"),
            r#"{"instant":{"type":"tag","tagName":"nope"}}"#,
        )
        .await,
        404,
        &d,
    );
    let a = post(
        &t("/rollback"),
        r#"{"instant":{"action":"snapshot","snapshotId":1},"fromSnapshot":2}"#,
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.text);
    let table = catalog.get_table(&"db.t".parse().unwrap()).await.unwrap();
    assert_eq!(read_ids(&table).await, vec![1]);
    assert!(!d.join("db.db/t/snapshot/snapshot-2").exists());
    s.stop().await;
}
