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

/// A `force-lookup` table is kept at one level by a full compaction of each bucket written
/// (strata's lookup compaction covers deletion vectors and first-row only): the write says so
/// (and that it rewrites those buckets). First-row and deduplicate tables' writes do not:
/// first-row tables compact level 0 up with lookups.
#[test]
fn write_to_a_force_lookup_table_says_it_compacts_the_bucket_fully() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    create(wh, "forced", r#","force-lookup":"true""#);
    create(wh, "first", r#","merge-engine":"first-row""#);
    create(wh, "dedup", "");
    let rows = wh.join("rows.jsonl");
    std::fs::write(&rows, "{\"id\":1,\"v\":1}\n{\"id\":2,\"v\":2}\n").unwrap();
    for _ in 0..2 {
        let out = strata(wh, &["write", "db.forced", rows.to_str().unwrap()]);
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("note: db.forced has force-lookup = true")
                && err.contains("fully compacts every bucket"),
            "{err}"
        );
    }
    // Kept at one level: both writes' files were compacted into one.
    let files = jsonl(&ok(wh, &["files", "db.forced"]));
    assert_eq!(files.len(), 1, "{files:?}");
    for table in ["db.first", "db.dedup"] {
        let out = strata(wh, &["write", table, rows.to_str().unwrap()]);
        assert!(out.status.success());
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("note:"),
            "{table}"
        );
    }
    // The first-row table's level 0 was compacted up (its readers skip level 0).
    let files = jsonl(&ok(wh, &["files", "db.first"]));
    assert!(
        files.iter().all(|f| f["level"].as_i64().unwrap() > 0),
        "{files:?}"
    );
}
