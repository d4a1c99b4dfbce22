//! The branch commands end to end through the `strata` binary: `create-branch` (empty, from a
//! tag, from a snapshot), `branches`, writes and reads of `db.t$branch_NAME`, `fast-forward`,
//! `delete-branch`, `rename-branch`, Java's name checks, and the branch's own `snapshots` and `tail`.

use std::path::Path;

use crate::common::*;

fn write(wh: &Path, table: &str, name: &str, rows: &[(i64, &str)]) {
    let f = wh.join(format!("{name}.jsonl"));
    let text: String = rows
        .iter()
        .map(|(id, v)| format!("{{\"id\": {id}, \"v\": \"{v}\"}}\n"))
        .collect();
    std::fs::write(&f, text).unwrap();
    ok(wh, &["write", table, f.to_str().unwrap()]);
}

fn rows(wh: &Path, table: &str) -> Vec<(i64, String)> {
    let mut v: Vec<(i64, String)> = jsonl(&ok(wh, &["read", table, "--format", "jsonl"]))
        .iter()
        .map(|r| {
            (
                r["id"].as_i64().unwrap(),
                r["v"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn branch_commands() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let schema = wh.join("schema.json");
    std::fs::write(
        &schema,
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"}],
            "primaryKeys":["id"],"options":{"bucket":"1"}}"#,
    )
    .unwrap();
    ok(
        wh,
        &["create-table", "db.t", "--schema", schema.to_str().unwrap()],
    );
    write(wh, "db.t", "a", &[(1, "a"), (2, "b")]);
    ok(wh, &["create-tag", "db.t", "t1"]);
    ok(wh, &["create-branch", "db.t", "dev", "--tag", "t1"]);
    ok(wh, &["create-branch", "db.t", "snap", "--snapshot", "1"]);
    ok(wh, &["create-branch", "db.t", "empty"]);
    let listed = jsonl(&ok(wh, &["branches", "db.t"]));
    let names: Vec<&str> = listed
        .iter()
        .map(|b| b["branchName"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["dev", "empty", "snap"]);
    assert_eq!(listed[0]["latestSnapshotId"], 1);
    assert!(listed[1]["latestSnapshotId"].is_null());

    write(wh, "db.t$branch_dev", "dev", &[(2, "dev"), (3, "dev")]);
    assert_eq!(
        rows(wh, "db.t$branch_dev"),
        [(1, "a".into()), (2, "dev".into()), (3, "dev".into())]
    );
    assert_eq!(rows(wh, "db.t"), [(1, "a".into()), (2, "b".into())]);
    assert_eq!(jsonl(&ok(wh, &["snapshots", "db.t$branch_dev"])).len(), 2);
    assert_eq!(jsonl(&ok(wh, &["snapshots", "db.t"])).len(), 1);
    let tail = ok(
        wh,
        &["tail", "db.t$branch_dev", "--from", "2", "--until", "2"],
    );
    assert_eq!(jsonl(&tail).len(), 2, "{tail}");

    assert!(fails(wh, &["create-branch", "db.t", "123"]).contains("pure numeric"));
    assert!(fails(wh, &["create-branch", "db.t", "dev"]).contains("already exists"));
    assert!(fails(wh, &["fast-forward", "db.t", "empty"]).contains("does not have snapshot"));

    ok(wh, &["fast-forward", "db.t", "dev"]);
    assert_eq!(rows(wh, "db.t"), rows(wh, "db.t$branch_dev"));
    ok(wh, &["delete-branch", "db.t", "empty"]);
    assert!(!wh.join("db.db/t/branch/branch-empty").exists());
    assert!(fails(wh, &["read", "db.t$branch_empty"]).contains("not"));

    // rename: the branch's rows under its new name, the old name gone
    let dev_rows = rows(wh, "db.t$branch_dev");
    ok(wh, &["rename-branch", "db.t", "dev", "prod"]);
    assert_eq!(rows(wh, "db.t$branch_prod"), dev_rows);
    assert!(!wh.join("db.db/t/branch/branch-dev").exists());
    assert!(fails(wh, &["rename-branch", "db.t", "dev", "x"]).contains("doesn't exist"));
    assert!(fails(wh, &["rename-branch", "db.t", "main", "x"]).contains("main branch"));
}
