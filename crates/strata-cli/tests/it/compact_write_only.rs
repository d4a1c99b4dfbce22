//! `strata compact` on a `write-only` table: the option tells writers not to compact so that a
//! dedicated compactor does, and `strata compact` is that compactor (Java's `CompactAction`
//! overrides `write-only` for its own writer). Before, it said "nothing needed compaction".

use crate::common::{jsonl, ok, strata};

#[test]
fn compact_picks_with_the_tables_strategy_on_a_write_only_table() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let schema = wh.join("t.json");
    std::fs::write(
        &schema,
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"INT"}],
           "primaryKeys":["id"],"options":{"bucket":"1","write-only":"true",
           "num-sorted-run.compaction-trigger":"3"}}"#,
    )
    .unwrap();
    ok(
        wh,
        &["create-table", "db.t", "--schema", schema.to_str().unwrap()],
    );
    for i in 0..6 {
        let rows = wh.join(format!("r{i}.jsonl"));
        let text: String = (i * 10..i * 10 + 20)
            .map(|k| format!("{{\"id\":{k},\"v\":{i}}}\n"))
            .collect();
        std::fs::write(&rows, text).unwrap();
        ok(wh, &["write", "db.t", rows.to_str().unwrap()]);
    }
    let level0 = |wh: &std::path::Path| {
        jsonl(&ok(wh, &["files", "db.t"]))
            .iter()
            .filter(|f| f["level"].as_i64() == Some(0))
            .count()
    };
    assert_eq!(level0(wh), 6);
    let before = ok(wh, &["read", "db.t", "--format", "jsonl"]);
    let out = strata(wh, &["compact", "db.t"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("(COMPACT)") && !err.contains("nothing needed compaction"),
        "{err}"
    );
    assert!(level0(wh) < 6);
    let snapshots = jsonl(&ok(wh, &["snapshots", "db.t"]));
    assert_eq!(snapshots.last().unwrap()["commitKind"], "COMPACT");
    assert_eq!(ok(wh, &["read", "db.t", "--format", "jsonl"]), before);
}
