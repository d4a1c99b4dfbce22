//! `strata files` and `strata levels` end to end through the binary: a partitioned
//! primary-key table with two buckets written in two commits, then its live files listed as
//! JSON and text, its LSM levels printed and drawn as SVG, and the error messages for an
//! unknown partition column or value, a bucket out of range and a missing snapshot.

use std::path::Path;

use crate::common::{fails, jsonl, ok};

/// A PK table `db.t` (partition dt, key (dt, id), 2 buckets) after two commits:
/// ids 1..=40 in dt=a and dt=b, then ids 30..=60 in dt=a.
fn table(dir: &Path) -> std::path::PathBuf {
    let wh = dir.join("wh");
    let schema = dir.join("schema.json");
    std::fs::write(
        &schema,
        r#"{"fields": [{"name": "dt", "type": "STRING NOT NULL"},
                       {"name": "id", "type": "BIGINT NOT NULL"},
                       {"name": "v", "type": "STRING"}],
            "partitionKeys": ["dt"], "primaryKeys": ["dt", "id"],
            "options": {"bucket": "2"}}"#,
    )
    .unwrap();
    ok(
        &wh,
        &["create-table", "db.t", "--schema", schema.to_str().unwrap()],
    );
    let rows = |dt: &str, ids: std::ops::RangeInclusive<i64>| -> String {
        ids.map(|i| format!("{{\"dt\": \"{dt}\", \"id\": {i}, \"v\": \"v{i}\"}}\n"))
            .collect()
    };
    let c1 = dir.join("c1.jsonl");
    std::fs::write(&c1, rows("a", 1..=40) + &rows("b", 1..=40)).unwrap();
    ok(&wh, &["write", "db.t", c1.to_str().unwrap()]);
    let c2 = dir.join("c2.jsonl");
    std::fs::write(&c2, rows("a", 30..=60)).unwrap();
    ok(&wh, &["write", "db.t", c2.to_str().unwrap()]);
    wh
}

#[test]
fn files_and_levels() {
    let dir = tempfile::tempdir().unwrap();
    let wh = table(dir.path());

    // files: JSON lines (default and --json), ordered by partition, bucket, level, min key.
    let out = ok(&wh, &["files", "db.t"]);
    assert_eq!(out, ok(&wh, &["files", "db.t", "--json"]));
    let files = jsonl(&out);
    // dt=a: 2 buckets x 2 commits; dt=b: 2 buckets x 1 commit.
    assert_eq!(files.len(), 6, "{out}");
    let order: Vec<(String, i64, i64, i64)> = files
        .iter()
        .map(|f| {
            (
                f["partition"]["dt"].as_str().unwrap().to_string(),
                f["bucket"].as_i64().unwrap(),
                f["level"].as_i64().unwrap(),
                f["minKey"][0].as_i64().unwrap(),
            )
        })
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
    for f in &files {
        for k in [
            "fileName",
            "fileSize",
            "rowCount",
            "maxKey",
            "minSequenceNumber",
            "maxSequenceNumber",
            "deleteRowCount",
            "schemaId",
            "creationTime",
        ] {
            assert!(f.get(k).is_some(), "{k} missing in {f}");
        }
        assert_eq!(f["fileSource"], "APPEND");
        assert_eq!(f["level"], 0);
    }
    let rows: i64 = files.iter().map(|f| f["rowCount"].as_i64().unwrap()).sum();
    assert_eq!(rows, 40 + 40 + 31);
    let names: Vec<&str> = files
        .iter()
        .map(|f| f["fileName"].as_str().unwrap())
        .collect();

    // files --format text: a header and one row per file with its key and sequence range.
    let text = ok(&wh, &["files", "db.t", "--format", "text"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "{text}");
    for h in [
        "PARTITION",
        "BUCKET",
        "LEVEL",
        "FILE",
        "ROWS",
        "SIZE",
        "KEYS",
        "SEQUENCE",
        "DELETES",
        "SOURCE",
    ] {
        assert!(lines[0].contains(h), "{h} missing in {}", lines[0]);
    }
    for (line, f) in lines[1..].iter().zip(&files) {
        assert!(line.starts_with(&format!("dt={}", f["partition"]["dt"].as_str().unwrap())));
        assert!(line.contains(f["fileName"].as_str().unwrap()), "{line}");
        assert!(line.contains(&format!("{}..{}", f["minKey"][0], f["maxKey"][0])));
        assert!(line.contains(&format!(
            "{}..{}",
            f["minSequenceNumber"], f["maxSequenceNumber"]
        )));
        assert!(line.ends_with("APPEND"), "{line}");
    }

    // Time travel: snapshot 1 has only the first commit's files.
    assert_eq!(
        jsonl(&ok(&wh, &["files", "db.t", "--snapshot", "1"])).len(),
        4
    );

    // levels: one heading per (partition, bucket), one line per level.
    let text = ok(&wh, &["levels", "db.t"]);
    assert!(text.starts_with("db.t at snapshot 2\n"), "{text}");
    for p in ["a", "b"] {
        for b in 0..2 {
            assert!(
                text.contains(&format!("partition dt={p}, bucket {b}: ")),
                "{text}"
            );
        }
    }
    assert_eq!(text.lines().filter(|l| l.starts_with("  L0  ")).count(), 4);
    for n in &names {
        let short = format!(
            "{}-{}",
            &n[5..13],
            n.rsplit('-').next().unwrap().trim_end_matches(".parquet")
        );
        assert!(text.contains(&short), "{short} missing in {text}");
    }

    // levels --svg for one bucket of one partition.
    let svg_path = dir.path().join("a0.svg");
    ok(
        &wh,
        &[
            "levels",
            "db.t",
            "--partition",
            "dt=a",
            "--bucket",
            "0",
            "--svg",
            svg_path.to_str().unwrap(),
        ],
    );
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.starts_with("<?xml") && svg.trim_end().ends_with("</svg>"));
    assert!(
        svg.contains("db.t · partition dt=a · bucket 0 · snapshot 2"),
        "{svg}"
    );
    assert!(svg.contains(">L0</text>"));
    assert_eq!(svg.matches("<g class=\"panel\"").count(), 1);
    for f in &files {
        let name = f["fileName"].as_str().unwrap();
        let inside = f["partition"]["dt"] == "a" && f["bucket"] == 0;
        assert_eq!(
            svg.contains(&format!("data-file=\"{name}\"")),
            inside,
            "{name}"
        );
    }

    // All buckets: stacked panels with every live file.
    let all = dir.path().join("all.svg");
    ok(&wh, &["levels", "db.t", "--svg", all.to_str().unwrap()]);
    let svg = std::fs::read_to_string(&all).unwrap();
    assert_eq!(svg.matches("<g class=\"panel\"").count(), 4);
    for n in &names {
        assert!(svg.contains(&format!("data-file=\"{n}\"")), "{n}");
    }

    // A partial partition spec over a one-column partition, and an older snapshot.
    let text = ok(
        &wh,
        &["levels", "db.t", "--partition", "dt=b", "--snapshot", "1"],
    );
    assert!(text.starts_with("db.t at snapshot 1\n"));
    assert!(!text.contains("dt=a"));
    assert_eq!(text.lines().filter(|l| l.starts_with("  L0")).count(), 2);
}

#[test]
fn levels_errors_name_the_culprit() {
    let dir = tempfile::tempdir().unwrap();
    let wh = table(dir.path());
    let err = fails(&wh, &["levels", "db.t", "--partition", "region=eu"]);
    assert!(
        err.contains("region") && err.contains("not a partition column"),
        "{err}"
    );
    let err = fails(&wh, &["levels", "db.t", "--partition", "dt=zz"]);
    assert!(err.contains("partition dt=zz not found"), "{err}");
    assert!(err.contains("dt=a") && err.contains("dt=b"), "{err}");
    let err = fails(&wh, &["levels", "db.t", "--partition", "dt"]);
    assert!(err.contains("K=V"), "{err}");
    let err = fails(&wh, &["levels", "db.t", "--bucket", "2"]);
    assert!(
        err.contains("bucket 2 is out of range") && err.contains("2 bucket(s)"),
        "{err}"
    );
    let err = fails(&wh, &["levels", "db.t", "--snapshot", "9"]);
    assert!(err.contains("snapshot 9 not found in db.t"), "{err}");
    let err = fails(&wh, &["files", "db.t", "--snapshot", "9"]);
    assert!(err.contains("snapshot 9 not found in db.t"), "{err}");
    let err = fails(&wh, &["files", "db.t", "--json", "--format", "text"]);
    assert!(err.contains("cannot be used with"), "{err}");
}

/// Many commits into one bucket (enough for the writer's compaction to run when it is on):
/// `files`, `levels` and `levels --svg` agree on every live file's level, and a COMPACT
/// snapshot shows up as COMPACT files above level 0.
#[test]
fn levels_agree_with_files_across_commits() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let schema = dir.path().join("schema.json");
    std::fs::write(
        &schema,
        r#"{"fields": [{"name": "id", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"}],
            "primaryKeys": ["id"], "options": {"bucket": "1"}}"#,
    )
    .unwrap();
    ok(
        &wh,
        &["create-table", "db.k", "--schema", schema.to_str().unwrap()],
    );
    for c in 0..8i64 {
        let path = dir.path().join(format!("c{c}.jsonl"));
        let rows: String = (c * 100..c * 100 + 250)
            .map(|i| format!("{{\"id\": {i}, \"v\": \"c{c}\"}}\n"))
            .collect();
        std::fs::write(&path, rows).unwrap();
        ok(&wh, &["write", "db.k", path.to_str().unwrap()]);
    }
    let files = jsonl(&ok(&wh, &["files", "db.k"]));
    let compacted = jsonl(&ok(&wh, &["snapshots", "db.k"]))
        .iter()
        .any(|s| s["commitKind"] == "COMPACT");
    if compacted {
        assert!(
            files
                .iter()
                .any(|f| f["fileSource"] == "COMPACT" && f["level"].as_i64() > Some(0)),
            "a COMPACT snapshot but no compacted file: {files:?}"
        );
    }
    let text = ok(&wh, &["levels", "db.k"]);
    let svg_path = dir.path().join("k.svg");
    ok(
        &wh,
        &["levels", "db.k", "--svg", svg_path.to_str().unwrap()],
    );
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let max_level = files
        .iter()
        .map(|f| f["level"].as_i64().unwrap())
        .max()
        .unwrap();
    for level in 0..=max_level {
        assert!(
            text.lines().any(|l| l.starts_with(&format!("  L{level} "))),
            "L{level} missing in {text}"
        );
        assert!(
            svg.contains(&format!(">L{level}</text>")),
            "L{level} missing in SVG"
        );
    }
    for f in &files {
        let name = f["fileName"].as_str().unwrap();
        let level = f["level"].as_i64().unwrap();
        let short = format!(
            "{}-{}",
            &name[5..13],
            name.rsplit('-')
                .next()
                .unwrap()
                .trim_end_matches(".parquet")
        );
        let line = text
            .lines()
            .find(|l| l.contains(&short))
            .unwrap_or_else(|| panic!("{short} missing in {text}"));
        assert!(line.starts_with(&format!("  L{level} ")), "{line}");
        assert!(
            svg.contains(&format!("data-file=\"{name}\" data-level=\"{level}\"")),
            "{name} at L{level} missing in SVG"
        );
    }
}
