//! `strata read --incremental` end to end through the binary: delta and diff reads of a
//! primary-key table with updates and deletes (`rowkind.field`), the `rowkind` column in
//! every format, and errors naming the option.

use std::path::{Path, PathBuf};

use crate::common::{fails, jsonl, ok};

/// A PK table (key id, 1 bucket, row kinds from column `op`): snapshot 1 inserts 0..4,
/// snapshot 2 updates 1 and deletes 2, snapshot 3 inserts 9.
fn table(dir: &Path) -> PathBuf {
    let wh = dir.join("wh");
    let schema = dir.join("schema.json");
    std::fs::write(
        &schema,
        r#"{"fields": [{"name": "id", "type": "BIGINT NOT NULL"},
                       {"name": "v", "type": "STRING"},
                       {"name": "op", "type": "STRING"}],
            "primaryKeys": ["id"],
            "options": {"bucket": "1", "write-only": "true", "rowkind.field": "op"}}"#,
    )
    .unwrap();
    ok(
        &wh,
        &["create-table", "db.t", "--schema", schema.to_str().unwrap()],
    );
    let commits = [
        (0..4)
            .map(|i| format!("{{\"id\": {i}, \"v\": \"a\", \"op\": \"+I\"}}\n"))
            .collect::<String>(),
        "{\"id\": 1, \"v\": \"b\", \"op\": \"+U\"}\n{\"id\": 2, \"v\": \"a\", \"op\": \"-D\"}\n"
            .to_string(),
        "{\"id\": 9, \"v\": \"c\", \"op\": \"+I\"}\n".to_string(),
    ];
    for (i, text) in commits.iter().enumerate() {
        let f = dir.join(format!("c{i}.jsonl"));
        std::fs::write(&f, text).unwrap();
        ok(&wh, &["write", "db.t", f.to_str().unwrap()]);
    }
    wh
}

/// (rowkind, id, v) of JSON lines, sorted.
fn rows(text: &str) -> Vec<(String, i64, String)> {
    let mut out: Vec<_> = jsonl(text)
        .iter()
        .map(|r| {
            (
                r["rowkind"].as_str().unwrap().to_string(),
                r["id"].as_i64().unwrap(),
                r["v"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

fn want(list: &[(&str, i64, &str)]) -> Vec<(String, i64, String)> {
    let mut out: Vec<_> = list
        .iter()
        .map(|(k, i, v)| (k.to_string(), *i, v.to_string()))
        .collect();
    out.sort();
    out
}

#[test]
fn incremental_reads_print_row_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let wh = table(dir.path());
    let read = |extra: &[&str]| {
        let mut args = vec!["read", "db.t", "--format", "jsonl"];
        args.extend_from_slice(extra);
        rows(&ok(&wh, &args))
    };
    assert_eq!(
        read(&["--incremental", "1..3"]),
        want(&[("+U", 1, "b"), ("-D", 2, "a"), ("+I", 9, "c")])
    );
    assert_eq!(
        read(&["--incremental", "0..1", "--incremental-mode", "delta"]),
        want(&[
            ("+I", 0, "a"),
            ("+I", 1, "a"),
            ("+I", 2, "a"),
            ("+I", 3, "a")
        ])
    );
    assert_eq!(
        read(&["--incremental", "1..3", "--incremental-mode", "diff"]),
        want(&[("+U", 1, "b"), ("-D", 2, "a"), ("+I", 9, "c")])
    );
    assert!(read(&["--incremental", "2..2"]).is_empty());

    // The kind column leads in the other formats too.
    let csv = ok(
        &wh,
        &[
            "read",
            "db.t",
            "--incremental",
            "2..3",
            "--format",
            "csv",
            "--columns",
            "id",
        ],
    );
    assert_eq!(csv.lines().collect::<Vec<_>>(), ["rowkind,id", "+I,9"]);
    let table = ok(
        &wh,
        &["read", "db.t", "--incremental", "1..3", "--limit", "1"],
    );
    assert!(table.contains("rowkind"), "{table}");
    let data = table
        .lines()
        .filter(|l| l.starts_with("| +") || l.starts_with("| -"))
        .count();
    assert_eq!(data, 1, "{table}");

    let e = fails(&wh, &["read", "db.t", "--incremental", "3..1"]);
    assert!(e.contains("incremental-between"), "{e}");
    let e = fails(
        &wh,
        &[
            "read",
            "db.t",
            "--incremental",
            "1..3",
            "--incremental-mode",
            "changelog",
        ],
    );
    assert!(e.contains("changelog-producer = none"), "{e}");
    let e = fails(&wh, &["read", "db.t", "--incremental", "1-3"]);
    assert!(e.contains("START..END"), "{e}");
    let e = fails(&wh, &["read", "db.t", "--incremental-mode", "diff"]);
    assert!(e.contains("--incremental"), "{e}");
}

/// A table whose options hold `incremental-between` (Java's INCREMENTAL startup mode, e.g.
/// set by another engine's ALTER TABLE) is read incrementally by a plain `strata read`, as
/// Java reads it; an explicit snapshot still reads the snapshot.
#[test]
fn a_table_storing_incremental_between_is_read_incrementally() {
    let dir = tempfile::tempdir().unwrap();
    let wh = table(dir.path());
    let schemas = wh.join("db.db").join("t").join("schema");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schemas.join("schema-0")).unwrap()).unwrap();
    json["id"] = serde_json::json!(1);
    json["options"]["incremental-between"] = serde_json::json!("1,3");
    std::fs::write(schemas.join("schema-1"), json.to_string()).unwrap();
    assert_eq!(
        rows(&ok(&wh, &["read", "db.t", "--format", "jsonl"])),
        want(&[("+U", 1, "b"), ("-D", 2, "a"), ("+I", 9, "c")])
    );
    let at_one = jsonl(&ok(
        &wh,
        &["read", "db.t", "--format", "jsonl", "--snapshot", "1"],
    ));
    assert_eq!(at_one.len(), 4);
    let e = fails(&wh, &["read", "db.t", "--where", "id = 1"]);
    assert!(
        e.contains("incremental-between") || e.contains("incrementally"),
        "{e}"
    );
}
