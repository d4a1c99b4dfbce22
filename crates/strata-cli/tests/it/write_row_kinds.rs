//! `strata write` into an append table whose `rowkind.field` column holds changes: `-U` / `-D`
//! rows are refused (nothing committed) unless `ignore-delete` drops them, as Java's
//! `AppendOnlyFileStoreTable` and `RowKindFilter` do; `+I` and `+U` rows are stored.

use crate::common::{fails, jsonl, ok};

fn create(wh: &std::path::Path, name: &str, options: &str) {
    let schema = wh.join(format!("{name}.json"));
    std::fs::write(
        &schema,
        format!(
            r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"k","type":"STRING"}}],
             "options":{{"rowkind.field":"k"{options}}}}}"#
        ),
    )
    .unwrap();
    ok(
        wh,
        &[
            "create-table",
            &format!("db.{name}"),
            "--schema",
            schema.to_str().unwrap(),
        ],
    );
}

#[test]
fn retractions_written_to_an_append_table_are_refused_or_dropped_by_ignore_delete() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    create(wh, "plain", "");
    create(wh, "ignoring", r#","ignore-delete":"true""#);
    let rows = wh.join("rows.jsonl");
    std::fs::write(
        &rows,
        "{\"id\":1,\"k\":\"+I\"}\n{\"id\":2,\"k\":\"+U\"}\n{\"id\":1,\"k\":\"-D\"}\n",
    )
    .unwrap();
    let err = fails(wh, &["write", "db.plain", rows.to_str().unwrap()]);
    assert!(
        err.contains("db.plain") && err.contains("row 2 of kind -D"),
        "{err}"
    );
    assert!(jsonl(&ok(wh, &["snapshots", "db.plain"])).is_empty());

    ok(wh, &["write", "db.ignoring", rows.to_str().unwrap()]);
    let got = jsonl(&ok(wh, &["read", "db.ignoring", "--format", "jsonl"]));
    let mut got: Vec<(i64, String)> = got
        .iter()
        .map(|r| {
            (
                r["id"].as_i64().unwrap(),
                r["k"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    got.sort();
    assert_eq!(got, vec![(1, "+I".to_string()), (2, "+U".to_string())]);
}
