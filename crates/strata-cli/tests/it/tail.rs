//! `strata tail` through the binary: bounded with --until, from each starting point, with a
//! consumer that resumes where it stopped.

use std::path::{Path, PathBuf};

use crate::common::{fails, jsonl, ok};

/// An input-changelog PK table: snapshot 1 inserts 0..3, snapshot 2 updates 1 (-U/+U) and
/// deletes 2, snapshot 3 inserts 9.
fn table(dir: &Path) -> PathBuf {
    let wh = dir.join("wh");
    let schema = dir.join("schema.json");
    std::fs::write(
        &schema,
        r#"{"fields": [{"name": "id", "type": "BIGINT NOT NULL"},
                       {"name": "v", "type": "STRING"},
                       {"name": "op", "type": "STRING"}],
            "primaryKeys": ["id"],
            "options": {"bucket": "1", "write-only": "true", "rowkind.field": "op",
                        "changelog-producer": "input"}}"#,
    )
    .unwrap();
    ok(
        &wh,
        &["create-table", "db.t", "--schema", schema.to_str().unwrap()],
    );
    let commits = [
        "{\"id\": 0, \"v\": \"a\", \"op\": \"+I\"}\n{\"id\": 1, \"v\": \"a\", \"op\": \"+I\"}\n{\"id\": 2, \"v\": \"a\", \"op\": \"+I\"}\n",
        "{\"id\": 1, \"v\": \"a\", \"op\": \"-U\"}\n{\"id\": 1, \"v\": \"b\", \"op\": \"+U\"}\n{\"id\": 2, \"v\": \"a\", \"op\": \"-D\"}\n",
        "{\"id\": 9, \"v\": \"c\", \"op\": \"+I\"}\n",
    ];
    for (i, text) in commits.iter().enumerate() {
        let f = dir.join(format!("c{i}.jsonl"));
        std::fs::write(&f, text).unwrap();
        ok(&wh, &["write", "db.t", f.to_str().unwrap()]);
    }
    wh
}

/// (rowkind, id, v) of JSON lines, in output order.
fn rows(text: &str) -> Vec<(String, i64, String)> {
    jsonl(text)
        .iter()
        .map(|r| {
            (
                r["rowkind"].as_str().unwrap().to_string(),
                r["id"].as_i64().unwrap(),
                r["v"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn want(list: &[(&str, i64, &str)]) -> Vec<(String, i64, String)> {
    list.iter()
        .map(|(k, i, v)| (k.to_string(), *i, v.to_string()))
        .collect()
}

#[test]
fn tail_prints_changes_with_row_kinds_and_consumers_resume() {
    let dir = tempfile::tempdir().unwrap();
    let wh = table(dir.path());
    let tail = |extra: &[&str]| {
        let mut args = vec!["tail", "db.t", "--columns", "id,v", "--poll-ms", "10"];
        args.extend_from_slice(extra);
        rows(&ok(&wh, &args))
    };
    // From snapshot 2: its changelog (every input record, by key) then snapshot 3.
    assert_eq!(
        tail(&["--from", "2", "--until", "3"]),
        want(&[
            ("-U", 1, "a"),
            ("+U", 1, "b"),
            ("-D", 2, "a"),
            ("+I", 9, "c")
        ])
    );
    // earliest: snapshot 1 whole, then the changes of 2.
    assert_eq!(
        tail(&["--from", "earliest", "--until", "2"]),
        want(&[
            ("+I", 0, "a"),
            ("+I", 1, "a"),
            ("+I", 2, "a"),
            ("-U", 1, "a"),
            ("+U", 1, "b"),
            ("-D", 2, "a"),
        ])
    );
    // full: the latest snapshot whole, each row with its record's kind (key 1 was last
    // written as +U), as Java's ScanMode.ALL read gives Flink.
    assert_eq!(
        tail(&["--from", "full", "--until", "3"]),
        want(&[("+I", 0, "a"), ("+U", 1, "b"), ("+I", 9, "c")])
    );
    // A consumer reads snapshot 3, then resumes after it.
    assert_eq!(
        tail(&["--from", "3", "--until", "3", "--consumer-id", "c1"]),
        want(&[("+I", 9, "c")])
    );
    let consumer = wh.join("db.db/t/consumer/consumer-c1");
    let text = std::fs::read_to_string(&consumer).unwrap();
    assert!(text.contains("\"nextSnapshot\" : 4"), "{text}");
    let f = dir.path().join("c4.jsonl");
    std::fs::write(&f, "{\"id\": 5, \"v\": \"d\", \"op\": \"+I\"}\n").unwrap();
    ok(&wh, &["write", "db.t", f.to_str().unwrap()]);
    assert_eq!(
        tail(&["--from", "earliest", "--until", "4", "--consumer-id", "c1"]),
        want(&[("+I", 5, "d")])
    );
    // Bad input is refused with the option named.
    let err = fails(&wh, &["tail", "db.t", "--from", "soon"]);
    assert!(err.contains("--from soon"), "{err}");
    let err = fails(
        &wh,
        &["tail", "db.t", "--consumer-id", "a/b", "--until", "1"],
    );
    assert!(err.contains("consumer"), "{err}");
}
