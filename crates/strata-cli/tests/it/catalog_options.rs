//! The global `--catalog-option K=V` (Paimon's catalog option names, through
//! `strata::catalog::open`): a filesystem catalog given as `metastore=filesystem,warehouse=…`
//! (or in `$STRATA_CATALOG_OPTIONS`) is the same catalog as `--warehouse …` — a table created
//! and written through one reads back identically through the other — and options nothing
//! honours, or `--warehouse` disagreeing with `warehouse=`, are refused by name.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::{jsonl, ok};

/// `strata ARGS` with no `--warehouse` and none of the catalog environment variables, plus
/// `env`.
fn strata(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_strata"));
    c.env_remove("STRATA_WAREHOUSE")
        .env_remove("STRATA_CATALOG_OPTIONS")
        .args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run strata")
}

fn succeeds(args: &[&str], env: &[(&str, &str)]) -> String {
    let out = strata(args, env);
    assert!(
        out.status.success(),
        "strata {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn refused(args: &[&str]) -> String {
    let out = strata(args, &[]);
    assert!(!out.status.success(), "strata {args:?} succeeded");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn schema_file(dir: &Path) -> String {
    let schema = dir.join("t.json");
    std::fs::write(
        &schema,
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"}],
            "primaryKeys":["id"],"options":{"bucket":"2"}}"#,
    )
    .unwrap();
    schema.to_str().unwrap().to_string()
}

#[test]
fn filesystem_catalog_options_are_the_warehouse_flag() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let whs = wh.to_str().unwrap();
    let schema = schema_file(dir.path());
    let rows = dir.path().join("rows.jsonl");
    std::fs::write(
        &rows,
        "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"b\"}\n{\"id\":3,\"v\":null}\n",
    )
    .unwrap();
    let option = format!("metastore=filesystem,warehouse={whs}");
    // Created and written through --catalog-option only.
    succeeds(
        &[
            "--catalog-option",
            &option,
            "create-table",
            "db.t",
            "--schema",
            &schema,
        ],
        &[],
    );
    succeeds(
        &[
            "--catalog-option",
            "metastore=filesystem",
            "--catalog-option",
            &format!("warehouse={whs}"),
            "write",
            "db.t",
            rows.to_str().unwrap(),
        ],
        &[],
    );
    // The files are where --warehouse looks: the same catalog.
    assert!(wh.join("db.db/t/schema/schema-0").is_file());
    assert!(wh.join("db.db/t/snapshot/snapshot-1").is_file());
    let read = ["read", "db.t", "--format", "jsonl"];
    let by_flag = ok(&wh, &read);
    let by_option = succeeds(
        &[&["--catalog-option", &option][..], &read[..]].concat(),
        &[],
    );
    let by_env = succeeds(&read, &[("STRATA_CATALOG_OPTIONS", &option)]);
    let by_env_warehouse = succeeds(&read, &[("STRATA_WAREHOUSE", whs)]);
    // --warehouse and an agreeing warehouse= together are fine.
    let by_both = succeeds(
        &[
            &["--warehouse", whs, "--catalog-option", &option][..],
            &read[..],
        ]
        .concat(),
        &[],
    );
    let rows = jsonl(&by_flag);
    assert_eq!(rows.len(), 3, "{by_flag}");
    assert_eq!(rows[0]["id"], 1);
    assert_eq!(rows[1]["v"], "b");
    for other in [&by_option, &by_env, &by_env_warehouse, &by_both] {
        assert_eq!(other, &by_flag);
    }
    // A --catalog-option warehouse overrides $STRATA_WAREHOUSE (a default, not a conflict).
    let elsewhere = dir.path().join("elsewhere");
    let listed = succeeds(
        &["--catalog-option", &format!("warehouse={whs}"), "list"],
        &[("STRATA_WAREHOUSE", elsewhere.to_str().unwrap())],
    );
    assert!(listed.contains("\"db\""), "{listed}");
    // Metadata commands go through the same catalog.
    let snapshots = jsonl(&succeeds(
        &["--catalog-option", &option, "snapshots", "db.t"],
        &[],
    ));
    assert_eq!(snapshots.len(), 1);
}

#[test]
fn catalog_options_nothing_honours_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let whs = dir.path().to_str().unwrap();
    let w = format!("warehouse={whs}");

    let e = refused(&[
        "--catalog-option",
        "metastore=hive",
        "--catalog-option",
        &w,
        "list",
    ]);
    assert!(e.contains("metastore") && e.contains("hive"), "{e}");

    let e = refused(&[
        "--catalog-option",
        &format!("{w},cache-enabled=true"),
        "list",
    ]);
    assert!(e.contains("cache-enabled"), "{e}");

    // REST keys on a filesystem catalog: nothing there would honour them.
    let e = refused(&[
        "--catalog-option",
        &format!("{w},uri=http://127.0.0.1:1"),
        "list",
    ]);
    assert!(e.contains("uri"), "{e}");

    let e = refused(&[
        "--warehouse",
        whs,
        "--catalog-option",
        "warehouse=/elsewhere",
        "list",
    ]);
    assert!(e.contains("--warehouse") && e.contains("/elsewhere"), "{e}");

    let e = refused(&[
        "--catalog-option",
        "token=a",
        "--catalog-option",
        "token=b",
        "list",
    ]);
    assert!(e.contains("token") && e.contains("twice"), "{e}");

    let e = refused(&["--catalog-option", "metastore", "list"]);
    assert!(e.contains("K=V"), "{e}");
    // Nothing was created by the refused runs.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// `strata serve` over `warehouse`, with `token` granted admin; stopped when dropped.
struct Served {
    child: std::process::Child,
    uri: String,
    name: String,
}

impl Served {
    fn start(warehouse: &Path, tokens: &Path) -> Served {
        use std::io::BufRead;
        let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
            .env_remove("STRATA_WAREHOUSE")
            .env_remove("STRATA_CATALOG_OPTIONS")
            .arg("--warehouse")
            .arg(warehouse)
            .args(["serve", "--listen", "127.0.0.1:0", "--token-file"])
            .arg(tokens)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start strata serve");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        // "… (catalog options: metastore=rest, uri=http://127.0.0.1:PORT, warehouse=NAME)"
        let field = |k: &str| {
            let start = line.find(k).unwrap_or_else(|| panic!("{k} in {line:?}")) + k.len();
            line[start..]
                .split([',', ')'])
                .next()
                .unwrap()
                .trim()
                .to_string()
        };
        let (uri, name) = (field("uri="), field("warehouse="));
        Served { child, uri, name }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn every_command_through_a_rest_catalog_served_by_strata_serve() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    std::fs::create_dir(&wh).unwrap();
    let tokens = dir.path().join("tokens.txt");
    std::fs::write(
        &tokens,
        "admin-token-4f2 admin\nreader-token-9c1 reader read\n",
    )
    .unwrap();
    let server = Served::start(&wh, &tokens);
    let option = format!(
        "metastore=rest,uri={},warehouse={},token.provider=bear",
        server.uri, server.name
    );
    let admin = [("STRATA_CATALOG_OPTIONS", "token=admin-token-4f2")];
    let reader = [("STRATA_CATALOG_OPTIONS", "token=reader-token-9c1")];
    let rest = |args: &[&str], env: &[(&str, &str)]| {
        succeeds(&[&["--catalog-option", &option][..], args].concat(), env)
    };
    let schema = schema_file(dir.path());
    let rows = dir.path().join("rows.jsonl");
    std::fs::write(&rows, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"b\"}\n").unwrap();
    let more = dir.path().join("more.jsonl");
    std::fs::write(&more, "{\"id\":2,\"v\":\"B\"}\n{\"id\":3,\"v\":\"c\"}\n").unwrap();

    rest(&["create-table", "db.t", "--schema", &schema], &admin);
    rest(&["write", "db.t", rows.to_str().unwrap()], &admin);
    rest(&["write", "db.t", more.to_str().unwrap()], &admin);
    let read = ["read", "db.t", "--format", "jsonl"];
    let through_rest = rest(&read, &reader);
    let got = jsonl(&through_rest);
    assert_eq!(got.len(), 3, "{through_rest}");
    assert_eq!(got[1]["v"], "B");
    // The server keeps the tables in its warehouse as the filesystem catalog does.
    assert_eq!(ok(&wh, &read), through_rest);
    assert!(rest(&["list"], &reader).contains("\"db\""));
    assert_eq!(jsonl(&rest(&["snapshots", "db.t"], &reader)).len(), 2);
    let schema_json = rest(&["schema", "db.t"], &reader);
    assert!(schema_json.contains("\"primaryKeys\""), "{schema_json}");
    rest(&["compact", "db.t", "--full"], &admin);
    rest(&["create-tag", "db.t", "one", "--snapshot", "1"], &admin);
    assert!(rest(&["tags", "db.t"], &reader).contains("\"one\""));
    let sql = rest(
        &[
            "sql",
            "--format",
            "jsonl",
            "-e",
            "SELECT count(*) AS n FROM db.t",
        ],
        &reader,
    );
    assert_eq!(jsonl(&sql)[0]["n"], 3, "{sql}");
    rest(&["files", "db.t"], &reader);
    rest(&["levels", "db.t"], &reader);
    rest(
        &["read", "db.t", "--tag", "one", "--format", "jsonl"],
        &reader,
    );
    rest(&["remove-orphan-files", "db.t", "--dry-run"], &admin);

    // The reader's token may not commit; a wrong token is refused; neither changed anything.
    let out = strata(
        &[
            &["--catalog-option", &option][..],
            &["write", "db.t", rows.to_str().unwrap()][..],
        ]
        .concat(),
        &reader,
    );
    assert!(!out.status.success());
    let out = strata(
        &[&["--catalog-option", &option][..], &read[..]].concat(),
        &[("STRATA_CATALOG_OPTIONS", "token=wrong")],
    );
    assert!(!out.status.success());
    assert_eq!(rest(&read, &reader), through_rest);
    // REST keys the filesystem catalog does not honour stay refused there.
    let e = refused(&[
        "--warehouse",
        wh.to_str().unwrap(),
        "--catalog-option",
        "token.provider=bear",
        "list",
    ]);
    assert!(e.contains("token.provider"), "{e}");
}
