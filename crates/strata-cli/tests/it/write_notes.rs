//! What `strata write` tells the user besides the snapshot it made.

use crate::common::{jsonl, ok, strata};

fn create(wh: &std::path::Path, name: &str, options: &str) {
    let schema = wh.join(format!("{name}.json"));
    std::fs::write(
        &schema,
        format!(
            r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"v","type":"INT"}}],
             "primaryKeys":["id"],"options":{{"bucket":"1"{options}}}}}"#
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

/// A first-row table is kept at one level by a full compaction of each bucket written: the
/// write says so (and that it rewrites those buckets), a deduplicate table's write does not.
#[test]
fn write_to_a_first_row_table_says_it_compacts_the_bucket_fully() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    create(wh, "first", r#","merge-engine":"first-row""#);
    create(wh, "dedup", "");
    let rows = wh.join("rows.jsonl");
    std::fs::write(&rows, "{\"id\":1,\"v\":1}\n{\"id\":2,\"v\":2}\n").unwrap();
    for _ in 0..2 {
        let out = strata(wh, &["write", "db.first", rows.to_str().unwrap()]);
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("note: db.first has merge-engine = first-row")
                && err.contains("fully compacts every bucket"),
            "{err}"
        );
    }
    // Kept at one level: both writes' files were compacted into one.
    let files = jsonl(&ok(wh, &["files", "db.first"]));
    assert_eq!(files.len(), 1, "{files:?}");
    let out = strata(wh, &["write", "db.dedup", rows.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("note:"));
}
