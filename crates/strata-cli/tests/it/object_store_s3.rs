//! The `strata` binary on an `s3://` warehouse, configured only by the standard `AWS_*`
//! environment variables, against the loopback S3 test server: create, write over several
//! commits, compact, read back exact rows, time travel, snapshots — two processes committing
//! at once, and writers that die mid-commit (`STRATA_FAILPOINTS=...=abort`). Also the errors a
//! user sees for a bad location or an unreachable endpoint.

use std::process::{Command, Output};

use crate::common::jsonl;
use strata_s3_test_server::S3Server;

/// `strata --warehouse <server warehouse> ARGS` with the server's env vars and nothing else of
/// S3 configuration.
fn s3_strata(server: &S3Server, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_strata"));
    for (k, _) in std::env::vars() {
        if k.starts_with("AWS_") {
            cmd.env_remove(k);
        }
    }
    cmd.envs(server.env_vars())
        .arg("--warehouse")
        .arg(server.warehouse())
        .args(args)
        .output()
        .expect("run strata")
}

fn ok(server: &S3Server, args: &[&str]) -> String {
    let out = s3_strata(server, args);
    assert!(
        out.status.success(),
        "strata {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// (id, v) of every row, sorted.
fn rows(server: &S3Server, extra: &[&str]) -> Vec<(i64, String)> {
    let mut args = vec!["read", "db.t", "--format", "jsonl"];
    args.extend_from_slice(extra);
    let mut out: Vec<(i64, String)> = jsonl(&ok(server, &args))
        .iter()
        .map(|r| {
            (
                r["id"].as_i64().unwrap(),
                r["v"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn cli_writes_compacts_and_reads_an_s3_warehouse_from_env_vars() {
    let server = S3Server::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("schema.json");
    std::fs::write(
        &schema,
        r#"{"fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "v", "type": "STRING"}],
            "primaryKeys": ["id"], "options": {"bucket": "1", "write-only": "true"}}"#,
    )
    .unwrap();
    ok(
        &server,
        &["create-table", "db.t", "--schema", schema.to_str().unwrap()],
    );
    for (i, ids) in [[1, 2, 3], [2, 3, 4], [3, 4, 5]].iter().enumerate() {
        let f = dir.path().join(format!("c{i}.jsonl"));
        let text: String = ids
            .iter()
            .map(|id| format!("{{\"id\": {id}, \"v\": \"c{i}\"}}\n"))
            .collect();
        std::fs::write(&f, text).unwrap();
        ok(&server, &["write", "db.t", f.to_str().unwrap()]);
    }
    ok(&server, &["compact", "db.t", "--full"]);

    let want: Vec<(i64, String)> = [(1, "c0"), (2, "c1"), (3, "c2"), (4, "c2"), (5, "c2")]
        .iter()
        .map(|(i, v)| (*i, v.to_string()))
        .collect();
    assert_eq!(rows(&server, &[]), want);
    assert_eq!(
        rows(&server, &["--snapshot", "1"]),
        vec![(1, "c0".into()), (2, "c0".into()), (3, "c0".into())]
    );
    let snaps = jsonl(&ok(&server, &["snapshots", "db.t"]));
    let kinds: Vec<&str> = snaps
        .iter()
        .map(|s| s["commitKind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["APPEND", "APPEND", "APPEND", "COMPACT"]);
    // The table lives on the server's disk, not in the working directory.
    let table = server.root().join("strata/wh/db.db/t");
    assert!(table.join("snapshot/snapshot-4").is_file());
    assert!(table.join("schema/schema-0").is_file());
    let listed = jsonl(&ok(&server, &["list", "db"]));
    assert_eq!(listed.len(), 1, "{listed:?}");
}

#[test]
fn two_cli_processes_committing_at_once_both_land() {
    let server = S3Server::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("schema.json");
    std::fs::write(
        &schema,
        r#"{"fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "v", "type": "STRING"}],
            "options": {"bucket": "-1"}}"#,
    )
    .unwrap();
    ok(
        &server,
        &["create-table", "db.t", "--schema", schema.to_str().unwrap()],
    );
    let files: Vec<_> = (0..4)
        .map(|i| {
            let f = dir.path().join(format!("p{i}.jsonl"));
            std::fs::write(&f, format!("{{\"id\": {i}, \"v\": \"p{i}\"}}\n")).unwrap();
            f
        })
        .collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = files
            .iter()
            .map(|f| s.spawn(|| ok(&server, &["write", "db.t", f.to_str().unwrap()])))
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    });
    let snaps = jsonl(&ok(&server, &["snapshots", "db.t"]));
    let ids: Vec<i64> = snaps.iter().map(|s| s["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [1, 2, 3, 4]);
    assert_eq!(
        rows(&server, &[]),
        (0..4).map(|i| (i, format!("p{i}"))).collect::<Vec<_>>()
    );
}

#[test]
fn cli_names_the_bad_location_and_the_unreachable_endpoint() {
    let server = S3Server::start().unwrap();
    let bad = Command::new(env!("CARGO_BIN_EXE_strata"))
        .envs(server.env_vars())
        .args(["--warehouse", "s3:///wh", "list"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let text = String::from_utf8_lossy(&bad.stderr);
    assert!(
        text.contains("s3:///wh") && text.contains("no bucket"),
        "{text}"
    );

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let out = Command::new(env!("CARGO_BIN_EXE_strata"))
        .envs(server.env_vars())
        .env("AWS_ENDPOINT_URL", &endpoint)
        .env("AWS_MAX_ATTEMPTS", "1")
        .args(["--warehouse", &server.warehouse(), "list"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains(&endpoint), "{text}");
}

#[test]
fn a_writer_killed_mid_commit_leaves_the_s3_table_at_its_last_commit() {
    let server = S3Server::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("schema.json");
    std::fs::write(
        &schema,
        r#"{"fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "v", "type": "STRING"}],
            "options": {"bucket": "-1"}}"#,
    )
    .unwrap();
    ok(
        &server,
        &["create-table", "db.t", "--schema", schema.to_str().unwrap()],
    );
    let input = |i: i64| {
        let f = dir.path().join(format!("w{i}.jsonl"));
        std::fs::write(&f, format!("{{\"id\": {i}, \"v\": \"w{i}\"}}\n")).unwrap();
        f
    };
    ok(&server, &["write", "db.t", input(1).to_str().unwrap()]);

    // The process aborts (as kill -9 would) after its data files and manifests are on S3 but
    // before the snapshot: nothing is published.
    let f2 = input(2);
    let died = Command::new(env!("CARGO_BIN_EXE_strata"))
        .envs(server.env_vars())
        .env("STRATA_FAILPOINTS", "commit.before-snapshot=abort")
        .args(["--warehouse", &server.warehouse(), "write", "db.t"])
        .arg(&f2)
        .output()
        .unwrap();
    assert!(!died.status.success());
    assert_eq!(rows(&server, &[]), vec![(1, "w1".to_string())]);

    // Dying right after snapshot-2 is published (the LATEST hint not yet updated): the commit
    // is durable and visible.
    let f3 = input(3);
    let died = Command::new(env!("CARGO_BIN_EXE_strata"))
        .envs(server.env_vars())
        .env("STRATA_FAILPOINTS", "commit.after-snapshot=abort")
        .args(["--warehouse", &server.warehouse(), "write", "db.t"])
        .arg(&f3)
        .output()
        .unwrap();
    assert!(!died.status.success());
    assert_eq!(
        rows(&server, &[]),
        vec![(1, "w1".to_string()), (3, "w3".to_string())]
    );

    // The next writer carries on at snapshot 3.
    ok(&server, &["write", "db.t", input(4).to_str().unwrap()]);
    let snaps = jsonl(&ok(&server, &["snapshots", "db.t"]));
    let ids: Vec<i64> = snaps.iter().map(|s| s["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [1, 2, 3]);
    assert_eq!(
        rows(&server, &[]),
        vec![(1, "w1".into()), (3, "w3".into()), (4, "w4".into())]
    );
}
