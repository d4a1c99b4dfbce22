//! `strata sql` end to end through the binary: scripts from `-e`, `-f FILE` and standard input,
//! every `--format` (table, jsonl, csv, parquet with `--output`), syntax errors shown with a
//! caret under the column, and a failing statement stopping the script with a non-zero exit.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use arrow::array::{Array, Int32Array, Int64Array, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::json;

use crate::common::{fails, jsonl, ok, strata};

const SETUP: &str = "
    CREATE TABLE db.t (id INT NOT NULL, dt STRING NOT NULL, v STRING,
                       PRIMARY KEY (dt, id) NOT ENFORCED)
        PARTITIONED BY (dt) WITH ('bucket' = '1');
    INSERT INTO db.t VALUES (1, 'd1', 'a'), (2, 'd1', 'b'), (3, 'd2', NULL);
";

fn create_database(wh: &Path) {
    ok(wh, &["sql", "-e", "CREATE SCHEMA db"]);
}

/// `strata sql ARGS` with `input` on standard input.
fn with_stdin(wh: &Path, args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .arg("--warehouse")
        .arg(wh)
        .arg("sql")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run strata");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(input.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("strata finishes")
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "strata sql failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("utf-8 output")
}

#[test]
fn sql_runs_scripts_from_execute_file_and_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    create_database(&wh);

    // -e with several statements: each result in order (the INSERT's row count, then the rows);
    // statements without a result say OK on stderr.
    let out = strata(
        &wh,
        &[
            "sql",
            "--format",
            "jsonl",
            "-e",
            &format!("{SETUP} SELECT id, dt, v FROM db.t ORDER BY id;"),
        ],
    );
    let text = stdout(&out);
    assert_eq!(
        jsonl(&text),
        [
            json!({"count": 3}),
            json!({"id": 1, "dt": "d1", "v": "a"}),
            json!({"id": 2, "dt": "d1", "v": "b"}),
            json!({"id": 3, "dt": "d2", "v": null}),
        ]
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).matches("OK").count(),
        1,
        "CREATE TABLE prints OK on stderr"
    );

    // -f FILE, statements over several lines, comments, USE.
    let script = dir.path().join("script.sql");
    std::fs::write(
        &script,
        "-- upsert one row, delete another\n\
         USE db;\n\
         INSERT INTO t VALUES (1, 'd1', 'a2');\n\
         DELETE FROM t\n  WHERE id = 2;\n\
         SELECT id, v\n  FROM t\n  ORDER BY id;\n",
    )
    .unwrap();
    let text = ok(
        &wh,
        &["sql", "--format", "jsonl", "-f", script.to_str().unwrap()],
    );
    assert_eq!(
        jsonl(&text),
        [
            json!({"count": 1}),
            json!({"count": 1}),
            json!({"id": 1, "v": "a2"}),
            json!({"id": 3, "v": null}),
        ]
    );

    // Standard input: with `-f -`, and with no -e / -f when stdin is not a terminal.
    let query = "SELECT count(*) AS n FROM db.t;\nSELECT max(snapshot_id) AS s FROM \"db\".\"t$snapshots\";";
    for args in [
        &["--format", "jsonl", "-f", "-"][..],
        &["--format", "jsonl"],
    ] {
        let text = stdout(&with_stdin(&wh, args, query));
        assert_eq!(
            jsonl(&text),
            [json!({"n": 2}), json!({"s": 3})],
            "stdin with {args:?}"
        );
    }

    // Time travel and a procedure through the CLI.
    let text = ok(
        &wh,
        &[
            "sql",
            "--format",
            "jsonl",
            "-e",
            "CALL sys.create_tag(table => 'db.t', tag => 'first', snapshot => 1);
             SELECT count(*) AS n FROM db.t VERSION AS OF 'first';",
        ],
    );
    assert_eq!(jsonl(&text), [json!({"result": true}), json!({"n": 3})]);
}

#[test]
fn sql_writes_every_output_format() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    create_database(&wh);
    ok(&wh, &["sql", "-e", SETUP]);
    let query = "SELECT id, dt, v FROM db.t ORDER BY id";

    // table (the default): aligned, with a header and NULL shown empty.
    let text = ok(&wh, &["sql", "-e", query]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "+----+----+---+",
            "| id | dt | v |",
            "+----+----+---+",
            "| 1  | d1 | a |",
            "| 2  | d1 | b |",
            "| 3  | d2 |   |",
            "+----+----+---+",
        ],
        "{text}"
    );
    assert_eq!(ok(&wh, &["sql", "--format", "table", "-e", query]), text);

    // jsonl
    let text = ok(&wh, &["sql", "--format", "jsonl", "-e", query]);
    assert_eq!(jsonl(&text)[2], json!({"id": 3, "dt": "d2", "v": null}));
    assert_eq!(jsonl(&text).len(), 3);

    // csv, with a header; an empty result still has its header.
    let text = ok(&wh, &["sql", "--format", "csv", "-e", query]);
    assert_eq!(text, "id,dt,v\n1,d1,a\n2,d1,b\n3,d2,\n");
    let text = ok(
        &wh,
        &[
            "sql",
            "--format",
            "csv",
            "-e",
            "SELECT id FROM db.t WHERE id > 9",
        ],
    );
    assert_eq!(text, "id\n");

    // --output writes the file instead of stdout, in any format.
    let csv = dir.path().join("out.csv");
    let text = ok(
        &wh,
        &[
            "sql",
            "--format",
            "csv",
            "--output",
            csv.to_str().unwrap(),
            "-e",
            query,
        ],
    );
    assert_eq!(text, "");
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        "id,dt,v\n1,d1,a\n2,d1,b\n3,d2,\n"
    );

    // parquet with --output: the last statement's result goes to the file; the results
    // before it (an INSERT's count) are not written into stdout as Parquet bytes.
    let file = dir.path().join("out.parquet");
    let out = strata(
        &wh,
        &[
            "sql",
            "--format",
            "parquet",
            "--output",
            file.to_str().unwrap(),
            "-e",
            &format!("INSERT INTO db.t VALUES (4, 'd2', 'd'); {query}"),
        ],
    );
    let text = stdout(&out);
    assert!(!text.contains("PAR1"), "Parquet bytes on stdout: {text:?}");
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&file).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<_> = reader.map(|b| b.unwrap()).collect();
    let batch = arrow::compute::concat_batches(&batches[0].schema(), &batches).unwrap();
    assert_eq!(batch.num_rows(), 4);
    let names: Vec<&str> = batch
        .schema_ref()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(names, ["id", "dt", "v"]);
    let ids = batch
        .column(0)
        .as_any()
        .downcast_ref::<Int32Array>()
        .unwrap();
    assert_eq!(ids.values(), &[1, 2, 3, 4]);
    let v = batch
        .column(2)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert!(v.is_null(2));
    assert_eq!(v.value(3), "d");

    // A count read back from Parquet too (a BIGINT column).
    ok(
        &wh,
        &[
            "sql",
            "--format",
            "parquet",
            "--output",
            file.to_str().unwrap(),
            "-e",
            "SELECT count(*) AS n FROM db.t",
        ],
    );
    let batch = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&file).unwrap())
        .unwrap()
        .build()
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let n = batch
        .column(0)
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap();
    assert_eq!(n.value(0), 4);
}

#[test]
fn sql_errors_show_the_statement_and_stop_the_script() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    create_database(&wh);
    ok(&wh, &["sql", "-e", SETUP]);

    // An unknown table: carets under its name.
    let e = fails(&wh, &["sql", "-e", "SELECT *\nFROM db.missing"]);
    assert!(
        e.contains("not found\n  FROM db.missing\n       ^^^^^^^^^"),
        "{e}"
    );

    // A syntax error: the line, and a caret under the column the parser names.
    let e = fails(
        &wh,
        &[
            "sql",
            "-e",
            "SELECT 1;\nSELECT id\n  FROM db.t WHERE id = = 1;",
        ],
    );
    let lines: Vec<&str> = e.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == "    FROM db.t WHERE id = = 1;")
        .unwrap_or_else(|| panic!("the offending line is shown: {e}"));
    assert!(lines[at - 1].contains("Line: 3, Column: 24"), "{e}");
    assert_eq!(lines[at + 1], format!("  {}^", " ".repeat(23)), "{e}");
    assert!(
        !Path::new(&wh).join("db.db/t/snapshot/snapshot-2").exists(),
        "nothing ran"
    );

    // A statement that fails: the ones before it took effect, the ones after did not run, and
    // the exit status is non-zero with the message naming what failed.
    let out = strata(
        &wh,
        &[
            "sql",
            "--format",
            "jsonl",
            "-e",
            "INSERT INTO db.t VALUES (7, 'd7', 'x');
             SELECT nope FROM db.t;
             INSERT INTO db.t VALUES (8, 'd8', 'y');",
        ],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error:"), "{err}");
    assert!(err.contains("No field named nope"), "{err}");
    // Planning errors point at what they concern too: carets under the unknown column.
    assert!(
        err.contains(&format!(
            "\n{0}SELECT nope FROM db.t;\n{0}       ^^^^",
            " ".repeat(15)
        )),
        "{err}"
    );
    assert_eq!(
        jsonl(&String::from_utf8_lossy(&out.stdout)),
        [json!({"count": 1})]
    );
    let text = ok(
        &wh,
        &[
            "sql",
            "--format",
            "jsonl",
            "-e",
            "SELECT id FROM db.t WHERE id > 6",
        ],
    );
    assert_eq!(jsonl(&text), [json!({"id": 7})]);

    // Errors of strata's own statements name the table / argument.
    let e = fails(&wh, &["sql", "-e", "SELECT * FROM db.missing"]);
    assert!(e.contains("db.missing"), "{e}");
    let e = fails(&wh, &["sql", "-e", "CALL sys.create_tag(table => 'db.t')"]);
    assert!(e.contains("argument tag is required"), "{e}");
    let e = fails(&wh, &["sql", "-e", "SELECT * FROM db.t VERSION AS OF 99"]);
    assert!(e.contains("99"), "{e}");

    // A missing script file.
    let e = fails(&wh, &["sql", "-f", "/nonexistent/script.sql"]);
    assert!(
        e.contains("cannot read SQL file /nonexistent/script.sql"),
        "{e}"
    );
}
