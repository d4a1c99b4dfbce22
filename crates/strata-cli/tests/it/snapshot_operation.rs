//! `strata write` marks its snapshots as Spark's INSERT INTO / INSERT OVERWRITE do (Java 2.0
//! `Snapshot.operation` WRITE / OVERWRITE); `strata compact` leaves it out, as Java's
//! compactions do.

use crate::common::{jsonl, ok};

#[test]
fn write_and_overwrite_mark_their_snapshots_compaction_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let schema = wh.join("t.json");
    std::fs::write(
        &schema,
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"INT"}],
            "primaryKeys":["id"],"options":{"bucket":"1"}}"#,
    )
    .unwrap();
    ok(
        wh,
        &["create-table", "db.t", "--schema", schema.to_str().unwrap()],
    );
    let rows = wh.join("rows.jsonl");
    std::fs::write(&rows, "{\"id\":1,\"v\":1}\n{\"id\":2,\"v\":2}\n").unwrap();
    let rows = rows.to_str().unwrap();
    ok(wh, &["write", "db.t", rows]);
    ok(wh, &["write", "db.t", rows, "--overwrite"]);
    ok(wh, &["write", "db.t", rows]);
    ok(wh, &["compact", "db.t", "--full"]);
    let snapshots = jsonl(&ok(
        wh,
        &[
            "sql",
            "--format",
            "jsonl",
            "-e",
            "SELECT commit_kind, operation FROM \"db\".\"t$snapshots\" ORDER BY snapshot_id",
        ],
    ));
    let got: Vec<(String, Option<String>)> = snapshots
        .iter()
        .map(|s| {
            (
                s["commit_kind"].as_str().unwrap().to_string(),
                s.get("operation")
                    .and_then(|o| o.as_str())
                    .map(str::to_string),
            )
        })
        .collect();
    let some = |s: &str| Some(s.to_string());
    assert_eq!(
        got,
        vec![
            ("APPEND".into(), some("WRITE")),
            ("OVERWRITE".into(), some("OVERWRITE")),
            ("APPEND".into(), some("WRITE")),
            ("COMPACT".into(), None),
        ]
    );
}
