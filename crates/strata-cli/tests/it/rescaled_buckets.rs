//! `strata write` and `strata compact` on a table whose `bucket` another engine changed (Java's
//! `ALTER TABLE … SET ('bucket' = '4')`, after which old partitions keep their old bucket
//! count until they are overwritten): refused with Java's message and exit code 1, nothing
//! committed; `strata write --overwrite --partition` rescales the partition, and writes work
//! again. Before, the write reported success and an updated key was read twice.

use crate::common::{fails, jsonl, ok};

fn alter_bucket_as_java(table_dir: &std::path::Path, bucket: i32) {
    let dir = table_dir.join("schema");
    let latest = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            e.unwrap()
                .file_name()
                .to_str()?
                .strip_prefix("schema-")?
                .parse::<i64>()
                .ok()
        })
        .max()
        .unwrap();
    let text = std::fs::read_to_string(dir.join(format!("schema-{latest}"))).unwrap();
    let mut schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    schema["id"] = (latest + 1).into();
    schema["options"]["bucket"] = bucket.to_string().into();
    std::fs::write(
        dir.join(format!("schema-{}", latest + 1)),
        serde_json::to_string_pretty(&schema).unwrap(),
    )
    .unwrap();
}

#[test]
fn writes_to_a_rescaled_partition_are_refused_until_it_is_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let schema = wh.join("t.json");
    std::fs::write(
        &schema,
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"dt","type":"STRING NOT NULL"},
           {"name":"v","type":"INT"}],"partitionKeys":["dt"],"primaryKeys":["id","dt"],
           "options":{"bucket":"2"}}"#,
    )
    .unwrap();
    ok(
        wh,
        &["create-table", "db.t", "--schema", schema.to_str().unwrap()],
    );
    let rows = |name: &str, v: i32| {
        let p = wh.join(name);
        let text: String = (0..40)
            .map(|k| format!("{{\"id\":{k},\"dt\":\"1\",\"v\":{v}}}\n"))
            .collect();
        std::fs::write(&p, text).unwrap();
        p
    };
    let one = rows("one.jsonl", 1);
    ok(wh, &["write", "db.t", one.to_str().unwrap()]);
    alter_bucket_as_java(&wh.join("db.db").join("t"), 4);
    let snapshots = jsonl(&ok(wh, &["snapshots", "db.t"])).len();
    let two = rows("two.jsonl", 2);
    let err = fails(wh, &["write", "db.t", two.to_str().unwrap()]);
    assert!(
        err.contains(
            "Try to write partition dt=1 with a new bucket num 4, but the previous bucket num \
             is 2. Please switch to batch mode, and perform INSERT OVERWRITE to rescale \
             current data layout first."
        ),
        "{err}"
    );
    let err = fails(wh, &["compact", "db.t", "--full"]);
    assert!(err.contains("with a new bucket num 4"), "{err}");
    assert_eq!(jsonl(&ok(wh, &["snapshots", "db.t"])).len(), snapshots);
    // INSERT OVERWRITE of the partition rescales it.
    ok(
        wh,
        &[
            "write",
            "db.t",
            two.to_str().unwrap(),
            "--overwrite",
            "--partition",
            "dt=1",
        ],
    );
    // Laid out in 4 buckets now (40 keys hash into buckets 2 and 3 too).
    let buckets: Vec<i64> = jsonl(&ok(wh, &["files", "db.t"]))
        .iter()
        .map(|f| f["bucket"].as_i64().unwrap())
        .collect();
    assert!(buckets.iter().any(|b| *b >= 2), "{buckets:?}");
    let three = rows("three.jsonl", 3);
    ok(wh, &["write", "db.t", three.to_str().unwrap()]);
    let read = jsonl(&ok(wh, &["read", "db.t", "--format", "jsonl"]));
    assert_eq!(read.len(), 40);
    assert!(read.iter().all(|r| r["v"] == 3), "{read:?}");
}
