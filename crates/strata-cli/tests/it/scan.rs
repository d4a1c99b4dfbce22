//! `strata scan` end to end through the binary: splits as JSON lines, per-scan metrics with
//! the snapshot live manifest entry cache filled by the first of `--repeat` scans and serving
//! the rest, lazy decoding counters, and errors for bad options.

use std::path::{Path, PathBuf};

use crate::common::{jsonl, ok, strata};
use serde_json::Value;

/// A PK table (partition dt, key (dt, id), 2 buckets), three commits over dt=a, b, c.
fn table(dir: &Path) -> PathBuf {
    let wh = dir.join("wh");
    let schema = dir.join("schema.json");
    std::fs::write(
        &schema,
        r#"{"fields": [{"name": "dt", "type": "STRING NOT NULL"},
                       {"name": "id", "type": "BIGINT NOT NULL"},
                       {"name": "v", "type": "STRING"}],
            "partitionKeys": ["dt"], "primaryKeys": ["dt", "id"],
            "options": {"bucket": "2", "write-only": "true"}}"#,
    )
    .unwrap();
    ok(
        &wh,
        &["create-table", "db.t", "--schema", schema.to_str().unwrap()],
    );
    for (i, dts) in [["a", "b", "c"], ["a", "b", "c"], ["a", "c", "c"]]
        .iter()
        .enumerate()
    {
        let mut text = String::new();
        for dt in dts {
            for id in 0..20 {
                text += &format!("{{\"dt\": \"{dt}\", \"id\": {id}, \"v\": \"v{i}\"}}\n");
            }
        }
        let f = dir.join(format!("c{i}.jsonl"));
        std::fs::write(&f, text).unwrap();
        ok(&wh, &["write", "db.t", f.to_str().unwrap()]);
    }
    wh
}

#[test]
fn scan_prints_splits_and_metrics_and_the_cache_serves_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let wh = table(dir.path());

    let splits = jsonl(&ok(&wh, &["scan", "db.t", "--where", "dt = 'b'"]));
    assert_eq!(splits.len(), 2, "dt=b in two buckets");
    for s in &splits {
        assert_eq!(s["partition"], "dt=b");
        assert_eq!(
            s["files"].as_array().unwrap().len(),
            2,
            "two commits wrote dt=b"
        );
    }

    let out = ok(
        &wh,
        &[
            "scan",
            "db.t",
            "--where",
            "dt = 'b'",
            "--bucket",
            "1",
            "--repeat",
            "3",
            "--metrics",
            "-o",
            "scan.manifest-entry-cache.max-snapshots=2",
        ],
    );
    let m = jsonl(&out);
    assert_eq!(m.len(), 3);
    assert_eq!(m[0]["cacheHit"], Value::Bool(false));
    assert_eq!(m[0]["lastScannedManifests"], 3);
    for later in &m[1..] {
        assert_eq!(later["cacheHit"], Value::Bool(true));
        assert_eq!(later["lastScannedManifests"], 0);
        assert_eq!(later["snapshotId"], 3);
    }
    for x in &m {
        // dt=b bucket 1: one file from each of the first two commits.
        assert_eq!(x["splits"], 1);
        assert_eq!(x["files"], 2);
        assert_eq!(x["entriesDecoded"], 2, "only dt=b's entries are decoded");
        assert!(x["entriesInspected"].as_u64().unwrap() > 2);
        assert!(x["planningMicros"].as_u64().is_some());
        // 16 data files in the snapshot (6 + 6 + 4), 2 planned; a hit keeps the count.
        assert_eq!(x["skippedFiles"], 14);
    }

    // Not eligible (no single bucket): cacheHit is null; lazy decoding off decodes all.
    let eager = jsonl(&ok(
        &wh,
        &[
            "scan",
            "db.t",
            "--where",
            "dt = 'b'",
            "--metrics",
            "-o",
            "scan.manifest-entry.lazy-decode.enabled=false",
        ],
    ));
    assert_eq!(eager[0]["cacheHit"], Value::Null);
    assert_eq!(eager[0]["entriesDecoded"], eager[0]["entriesInspected"]);
    assert_eq!(eager[0]["files"], 4);

    // Time travel: snapshot 1 has one file per (partition, bucket).
    let old = jsonl(&ok(&wh, &["scan", "db.t", "--snapshot", "1", "--metrics"]));
    assert_eq!(old[0]["snapshotId"], 1);
    assert_eq!(old[0]["files"], 6);
}

#[test]
fn scan_rejects_bad_options() {
    let dir = tempfile::tempdir().unwrap();
    let wh = table(dir.path());
    let out = strata(
        &wh,
        &[
            "scan",
            "db.t",
            "-o",
            "scan.manifest-entry-cache.max-snapshots=-2",
        ],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("scan.manifest-entry-cache.max-snapshots"),
        "{err}"
    );
    let out = strata(
        &wh,
        &[
            "scan",
            "db.t",
            "-o",
            "scan.manifest-entry-cache.max-snapshot=2",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("did you mean"),
        "{err}"
    );
    let out = strata(&wh, &["scan", "db.t", "-o", "novalue"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("KEY=VALUE"), "{err}");
}
