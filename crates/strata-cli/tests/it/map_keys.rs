//! `strata read` with MAP key access through the binary: `--columns` items `m['k']` (commas
//! inside quotes kept), `--where` on key columns, `--metrics` on stderr, and clear errors.

use std::path::{Path, PathBuf};

use crate::common::{fails, jsonl, ok, strata};
use serde_json::{json, Value};

/// A table `db.<name>` (append, or primary key `id` when `pk`) with rows written in two
/// commits: id 0..10, `m` holds `usage` = id * 10 (absent for id 3, NULL value for id 4,
/// NULL map for id 5, empty map for id 6) and `a,b` = id for even ids.
fn table(dir: &Path, name: &str, pk: bool) -> PathBuf {
    let wh = dir.join("wh");
    let schema = dir.join(format!("{name}.json"));
    let keys = if pk {
        r#", "primaryKeys": ["id"], "options": {"bucket": "1"}"#
    } else {
        ""
    };
    std::fs::write(
        &schema,
        format!(
            r#"{{"fields": [{{"name": "id", "type": "BIGINT NOT NULL"}},
                           {{"name": "m", "type": "MAP<STRING NOT NULL, DOUBLE>"}}]{keys}}}"#
        ),
    )
    .unwrap();
    let table = format!("db.{name}");
    ok(
        &wh,
        &["create-table", &table, "--schema", schema.to_str().unwrap()],
    );
    for (i, ids) in [0..5, 5..10].into_iter().enumerate() {
        let mut text = String::new();
        for id in ids {
            let m = match id {
                5 => Value::Null,
                6 => json!({}),
                _ => {
                    let mut m = serde_json::Map::new();
                    match id {
                        3 => {}
                        4 => {
                            m.insert("usage".into(), Value::Null);
                        }
                        _ => {
                            m.insert("usage".into(), json!(id as f64 * 10.0));
                        }
                    }
                    if id % 2 == 0 {
                        m.insert("a,b".into(), json!(id as f64));
                    }
                    Value::Object(m)
                }
            };
            text += &format!("{}\n", json!({"id": id, "m": m}));
        }
        let f = dir.join(format!("{name}-{i}.jsonl"));
        std::fs::write(&f, text).unwrap();
        ok(&wh, &["write", &table, f.to_str().unwrap()]);
    }
    wh
}

fn usage(id: i64) -> Value {
    match id {
        3..=6 => Value::Null,
        _ => json!(id as f64 * 10.0),
    }
}

fn sorted(mut rows: Vec<Value>) -> Vec<Value> {
    rows.sort_by_key(|r| r["id"].as_i64());
    rows
}

#[test]
fn columns_and_where_on_map_keys() {
    let dir = tempfile::tempdir().unwrap();
    for (name, pk) in [("a", false), ("p", true)] {
        let wh = table(dir.path(), name, pk);
        let t = format!("db.{name}");
        let rows = sorted(jsonl(&ok(
            &wh,
            &[
                "read",
                &t,
                "--columns",
                "id, m['usage'],m['a,b']",
                "--format",
                "jsonl",
            ],
        )));
        assert_eq!(rows.len(), 10);
        for r in &rows {
            let id = r["id"].as_i64().unwrap();
            let ab = if id % 2 == 0 && id != 6 {
                json!(id as f64)
            } else {
                Value::Null
            };
            assert_eq!(
                r,
                &json!({"id": id, "m['usage']": usage(id), "m['a,b']": ab}),
                "{t}"
            );
        }
        let ids = |filter: &str| -> Vec<i64> {
            sorted(jsonl(&ok(
                &wh,
                &[
                    "read",
                    &t,
                    "--columns",
                    "id",
                    "--where",
                    filter,
                    "--format",
                    "jsonl",
                ],
            )))
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect()
        };
        assert_eq!(ids("m['usage'] > 30 AND id < 9"), [7, 8]);
        assert_eq!(ids("NOT (m['usage'] > 30)"), [0, 1, 2]);
        assert_eq!(ids("m['usage'] IS NULL"), [3, 4, 5, 6]);
        assert_eq!(ids("m['usage'] IN (10, 90) OR m['a,b'] = 2"), [1, 2, 9]);
        assert_eq!(ids("m['usage'] BETWEEN 15 AND 25 OR m IS NULL"), [2, 5]);
        assert_eq!(ids("m['a,b'] IS NOT NULL AND m['usage'] IS NULL"), [4]);
    }
}

#[test]
fn metrics_go_to_stderr_after_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let wh = table(dir.path(), "a", false);
    let out = strata(
        &wh,
        &[
            "read",
            "db.a",
            "--columns",
            "m['usage']",
            "--where",
            "m['usage'] > 30",
            "--format",
            "jsonl",
            "--metrics",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = jsonl(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows.iter().all(|r| r.as_object().unwrap().len() == 1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let m: Value = serde_json::from_str(stderr.lines().last().unwrap()).unwrap();
    for k in [
        "filesRead",
        "filesSkipped",
        "rowGroupsRead",
        "rowGroupsSkipped",
        "bytesRead",
    ] {
        assert!(m[k].is_u64(), "{k} in {m}");
    }
    let files = m["filesRead"].as_u64().unwrap() + m["filesSkipped"].as_u64().unwrap();
    assert_eq!(files, 2, "{m}");
    assert!(m["bytesRead"].as_u64().unwrap() > 0, "{m}");
    assert_eq!(m["rowsOutput"], 3, "{m}");
    // Without --metrics nothing is printed to stderr.
    let out = strata(
        &wh,
        &["read", "db.a", "--columns", "id", "--format", "jsonl"],
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn key_access_errors_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let wh = table(dir.path(), "a", false);
    let e = fails(&wh, &["read", "db.a", "--columns", "id['k']"]);
    assert!(
        e.contains("column id has type BIGINT") && e.contains("MAP"),
        "{e}"
    );
    let e = fails(&wh, &["read", "db.a", "--columns", "zz['k']"]);
    assert!(e.contains("zz"), "{e}");
    let e = fails(&wh, &["read", "db.a", "--columns", "m['k"]);
    assert!(e.contains("unterminated quote"), "{e}");
    let e = fails(&wh, &["read", "db.a", "--where", "m['usage'] = 'high'"]);
    assert!(e.contains("m['usage']") && e.contains("DOUBLE"), "{e}");
    let e = fails(&wh, &["read", "db.a", "--where", "m[1] > 2"]);
    assert!(e.contains("column['key']"), "{e}");
    let help = ok(&wh, &["read", "--help"]);
    assert!(
        help.contains("m['key']") && help.contains("--metrics"),
        "{help}"
    );
}
