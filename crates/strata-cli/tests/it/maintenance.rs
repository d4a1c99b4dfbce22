//! The lifecycle commands end to end through the `strata` binary: tags, reading a tag and a
//! timestamp, expiry, rollback and orphan cleanup (dry run and real), with the files checked
//! on disk.

use std::path::Path;

use crate::common::*;
use serde_json::Value;

fn setup(wh: &Path) -> std::path::PathBuf {
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
    for i in 0..4 {
        let f = wh.join(format!("in{i}.jsonl"));
        let rows: String = (0..3)
            .map(|k| format!("{{\"id\": {}, \"v\": \"w{i}\"}}\n", i * 2 + k))
            .collect();
        std::fs::write(&f, rows).unwrap();
        ok(wh, &["write", "db.t", f.to_str().unwrap()]);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    wh.join("db.db").join("t")
}

fn ids(out: &str) -> Vec<i64> {
    let mut v: Vec<i64> = jsonl(out)
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    v.sort();
    v
}

fn snapshot_ids(wh: &Path) -> Vec<i64> {
    jsonl(&ok(wh, &["snapshots", "db.t"]))
        .iter()
        .map(|s| s["id"].as_i64().unwrap())
        .collect()
}

#[test]
fn tags_expiry_rollback_and_orphans_through_the_cli() {
    let wh = tempfile::tempdir().unwrap();
    let wh = wh.path();
    let dir = setup(wh);
    let snaps = snapshot_ids(wh);
    assert_eq!(snaps, [1, 2, 3, 4]);
    let at2 = ids(&ok(
        wh,
        &["read", "db.t", "--snapshot", "2", "--format", "jsonl"],
    ));
    assert_eq!(at2, [0, 1, 2, 3, 4]);

    ok(wh, &["create-tag", "db.t", "first", "--snapshot", "2"]);
    ok(wh, &["create-tag", "db.t", "last"]);
    let tags = jsonl(&ok(wh, &["tags", "db.t"]));
    assert_eq!(tags.len(), 2);
    assert_eq!(tags[0]["name"], "first");
    assert_eq!(tags[0]["snapshotId"], 2);
    assert_eq!(tags[1]["snapshotId"], 4);
    assert!(dir.join("tag/tag-first").exists());
    let e = fails(wh, &["create-tag", "db.t", "first"]);
    assert!(e.contains("already exists"), "{e}");

    // Reading by timestamp: the latest snapshot at or before the given time.
    let times: Vec<i64> = jsonl(&ok(wh, &["snapshots", "db.t"]))
        .iter()
        .map(|s| s["timeMillis"].as_i64().unwrap())
        .collect();
    let by_time = ids(&ok(
        wh,
        &[
            "read",
            "db.t",
            "--timestamp-millis",
            &times[1].to_string(),
            "--format",
            "jsonl",
        ],
    ));
    assert_eq!(by_time, at2);
    let e = fails(
        wh,
        &[
            "read",
            "db.t",
            "--timestamp-millis",
            &(times[0] - 1).to_string(),
        ],
    );
    assert!(e.contains("no snapshot earlier than or equal"), "{e}");
    let e = fails(wh, &["read", "db.t", "--timestamp", "not a time"]);
    assert!(e.contains("not a time"), "{e}");

    // Expire all but the latest: the tag still reads.
    let dry = ok(
        wh,
        &[
            "expire-snapshots",
            "db.t",
            "--retain-max",
            "1",
            "--retain-min",
            "1",
            "--dry-run",
        ],
    );
    assert!(!jsonl(&dry).is_empty());
    assert_eq!(snapshot_ids(wh), [1, 2, 3, 4], "a dry run deletes nothing");
    let out = jsonl(&ok(
        wh,
        &[
            "expire-snapshots",
            "db.t",
            "--retain-max",
            "1",
            "--retain-min",
            "1",
        ],
    ));
    assert_eq!(out[0]["expiredSnapshots"], serde_json::json!([1, 2, 3]));
    assert_eq!(out[0]["earliestSnapshot"], 4);
    assert_eq!(snapshot_ids(wh), [4]);
    let tagged = ids(&ok(
        wh,
        &["read", "db.t", "--tag", "first", "--format", "jsonl"],
    ));
    assert_eq!(tagged, at2);
    let e = fails(wh, &["read", "db.t", "--snapshot", "2"]);
    assert!(e.contains("snapshot 2"), "{e}");
    let e = fails(
        wh,
        &[
            "expire-snapshots",
            "db.t",
            "--retain-max",
            "1",
            "--retain-min",
            "3",
        ],
    );
    assert!(e.contains("snapshot.num-retained.max"), "{e}");

    // Roll back to the expired tag: snapshot 2 comes back from it, newer tags go.
    let r: Value = jsonl(&ok(wh, &["rollback", "db.t", "--to-tag", "first"]))[0].clone();
    assert_eq!(r["snapshotId"], 2);
    assert_eq!(r["restoredFromTag"], true);
    assert_eq!(r["removedTags"], serde_json::json!(["last"]));
    assert_eq!(snapshot_ids(wh), [2]);
    assert_eq!(ids(&ok(wh, &["read", "db.t", "--format", "jsonl"])), at2);
    let e = fails(wh, &["rollback", "db.t"]);
    assert!(e.contains("--to-snapshot") || e.contains("to-tag"), "{e}");

    // An orphan: listed by a dry run, kept when too young, removed with --older-than 0s.
    let orphan = dir.join("bucket-0/data-orphan-0.parquet");
    std::fs::write(&orphan, b"x").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let listed = jsonl(&ok(
        wh,
        &[
            "remove-orphan-files",
            "db.t",
            "--older-than",
            "0s",
            "--dry-run",
        ],
    ));
    assert_eq!(listed.len(), 1);
    assert!(listed[0]["path"]
        .as_str()
        .unwrap()
        .ends_with("data-orphan-0.parquet"));
    assert!(orphan.exists());
    let kept = jsonl(&ok(wh, &["remove-orphan-files", "db.t"]));
    assert_eq!(kept[0]["deletedFiles"], 0, "younger than the 1-day default");
    let done = jsonl(&ok(
        wh,
        &["remove-orphan-files", "db.t", "--older-than", "0s"],
    ));
    assert_eq!(done[0]["deletedFiles"], 1);
    assert_eq!(done[0]["deletedBytes"], 1);
    assert!(!orphan.exists());
    assert_eq!(ids(&ok(wh, &["read", "db.t", "--format", "jsonl"])), at2);

    ok(wh, &["delete-tag", "db.t", "first"]);
    assert!(jsonl(&ok(wh, &["tags", "db.t"])).is_empty());
    let e = fails(wh, &["delete-tag", "db.t", "first"]);
    assert!(e.contains("first"), "{e}");
}
