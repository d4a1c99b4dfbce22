//! Corrupt, truncated and missing files of a real table, and stale or missing snapshot hints.
//!
//! Every kind of file a read touches (snapshot, schema, manifest list, manifest, index
//! manifest, Parquet data file) is truncated and bit-flipped in a table written by strata;
//! the read must then fail with an error of the right kind that names the damaged file, or
//! (for a flip that still decodes) succeed — never panic. Hints are checked against Java's
//! `SnapshotManager` / `HintFileUtils` rules: `LATEST` is trusted only when no next snapshot
//! exists, `EARLIEST` only when its snapshot exists, otherwise the snapshot directory is
//! listed.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::common::*;
use arrow_array::{Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::catalog::Identifier;
use strata::{Error, ErrorKind};

fn batch(ids: &[i64], dt: &str) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("dt", ArrowType::Utf8, true),
        Field::new("v", ArrowType::Int32, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(vec![dt; ids.len()])),
            Arc::new(Int32Array::from(
                ids.iter().map(|&i| i as i32 * 10).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap()
}

/// An append table, partitioned, with Avro manifests and Parquet data files uncompressed
/// (`codec`) so that byte flips reach the decoders rather than only the decompressor.
fn append_schema(codec: &str) -> String {
    format!(
        r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"dt","type":"STRING"}},
        {{"name":"v","type":"INT"}}],"partitionKeys":["dt"],
        "options":{{"bucket":"-1","manifest.compression":"{codec}","file.compression":"{codec}"}}}}"#
    )
}

/// A dynamic-bucket primary-key table: its snapshots carry HASH index manifests.
const DYNAMIC_PK: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"dt","type":"STRING"},
 {"name":"v","type":"INT"}],"primaryKeys":["id"],
 "options":{"bucket":"-1","manifest.compression":"none","file.compression":"none"}}"#;

/// Three commits: ids 1..=6 over two partitions.
async fn three_commits(wh: &Warehouse, name: &str, schema: &str) {
    let t = wh.create(name, schema).await;
    for (ids, dt) in [
        (&[1i64, 2][..], "a"),
        (&[3, 4][..], "b"),
        (&[5, 6][..], "a"),
    ] {
        t.write_batches([batch(ids, dt)], None).await.unwrap();
    }
}

/// Everything a reader does, from a fresh table handle (no cached schema): open the table,
/// plan the latest snapshot, read every row. Run in its own task so a panic is reported as
/// such instead of aborting the test.
async fn read_everything(wh: &Warehouse, name: &str) -> Result<Vec<i64>, String> {
    let catalog = wh.catalog.clone();
    let id: Identifier = name.parse().unwrap();
    let task = tokio::spawn(async move {
        let t = catalog.get_table(&id).await?;
        let plan = t.new_scan().plan().await?;
        let mut out = Vec::new();
        for b in t.new_read().to_batches(plan.splits).await? {
            let idx = b.schema().index_of("id").unwrap();
            let col = b.column(idx).as_any().downcast_ref::<Int64Array>().unwrap();
            out.extend(col.values().iter().copied());
        }
        out.sort();
        Ok::<_, Error>(out)
    });
    match task.await {
        Ok(result) => result.map_err(|e| format!("{} {e:?}\n{e}", tag(&e))),
        Err(join) => panic!("the read panicked: {join}"),
    }
}

/// What a read error says of the damaged file, as the prefix the checks read: a Parquet data
/// file (`Parquet {`), a metadata file (`CorruptFile {`), an option value (`InvalidOption {`),
/// or anything else.
fn tag(e: &Error) -> &'static str {
    match (e.kind(), e.file()) {
        (ErrorKind::Corrupt, Some(f)) if f.ends_with(".parquet") => "Parquet {",
        (ErrorKind::Corrupt, Some(_)) => "CorruptFile {",
        (ErrorKind::InvalidInput, _) if e.option().is_some() => "InvalidOption {",
        _ => "other {",
    }
}

/// Which kind of error a damaged file of each kind must give.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Snapshot,
    Schema,
    ManifestList,
    Manifest,
    DataFile,
}

impl Kind {
    /// Whether `e` (tag, Debug then Display, from [`read_everything`]) is the expected error.
    fn accepts(self, e: &str) -> bool {
        match self {
            Kind::DataFile => e.starts_with("Parquet {"),
            _ => e.starts_with("CorruptFile {"),
        }
    }
}

/// One file of each kind in table `db.<table>`: the latest snapshot, the latest schema, the
/// latest delta manifest list, a manifest it lists, a data file.
async fn files_of(wh: &Warehouse, name: &str) -> Vec<(Kind, PathBuf)> {
    let id: Identifier = name.parse().unwrap();
    let t = wh.catalog.get_table(&id).await.unwrap();
    let snap = t.snapshot_manager().latest().await.unwrap().unwrap();
    let dir = wh.table_dir(&id.database, &id.table);
    let metas = t
        .manifest_store()
        .read_list(&snap.delta_manifest_list)
        .await
        .unwrap();
    let data = find_files(&dir, |n| n.starts_with("data-") && n.ends_with(".parquet"));
    vec![
        (
            Kind::Snapshot,
            dir.join(format!("snapshot/snapshot-{}", snap.id)),
        ),
        (
            Kind::Schema,
            dir.join(format!("schema/schema-{}", t.schema().id)),
        ),
        (
            Kind::ManifestList,
            dir.join("manifest").join(&snap.delta_manifest_list),
        ),
        (
            Kind::Manifest,
            dir.join("manifest").join(&metas[0].file_name),
        ),
        (Kind::DataFile, data[0].clone()),
    ]
}

/// Files under `dir` whose name satisfies `pred`, sorted.
fn find_files(dir: &Path, pred: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().and_then(|n| n.to_str()).is_some_and(&pred) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn file_name(p: &Path) -> &str {
    p.file_name().unwrap().to_str().unwrap()
}

#[tokio::test]
async fn truncated_files_fail_naming_the_file() {
    for codec in ["none", "zstd"] {
        let wh = Warehouse::new();
        three_commits(&wh, "db.t", &append_schema(codec)).await;
        assert_eq!(
            read_everything(&wh, "db.t").await.unwrap(),
            [1, 2, 3, 4, 5, 6]
        );
        for (kind, path) in files_of(&wh, "db.t").await {
            let original = std::fs::read(&path).unwrap();
            let len = original.len();
            for cut in [0, 1, 8, len / 2, len - 1] {
                std::fs::write(&path, &original[..cut]).unwrap();
                let err = read_everything(&wh, "db.t")
                    .await
                    .expect_err(&format!("{kind:?} {} cut to {cut} bytes", file_name(&path)));
                assert!(kind.accepts(&err), "{kind:?} cut to {cut}: {err}");
                assert!(
                    err.contains(file_name(&path)),
                    "{kind:?} cut to {cut}: the error does not name the file: {err}"
                );
            }
            std::fs::write(&path, &original).unwrap();
        }
        assert_eq!(
            read_everything(&wh, "db.t").await.unwrap(),
            [1, 2, 3, 4, 5, 6]
        );
    }
}

/// Byte positions to damage in a file of `len` bytes: every position of the first 64 bytes
/// (headers), then about 120 spread over the rest, and the last 16 (Avro sync marker, Parquet
/// footer length and magic).
fn positions(len: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..len.min(64)).collect();
    let stride = (len / 120).max(1);
    p.extend((64..len).step_by(stride));
    p.extend(len.saturating_sub(16)..len);
    p.sort_unstable();
    p.dedup();
    p
}

#[tokio::test]
async fn flipped_bytes_fail_naming_the_file_or_still_decode() {
    let wh = Warehouse::new();
    three_commits(&wh, "db.t", &append_schema("none")).await;
    let table_dir = wh.table_dir("db", "t");
    for (kind, path) in files_of(&wh, "db.t").await {
        let original = std::fs::read(&path).unwrap();
        let (mut failed, mut decoded) = (0, 0);
        for pos in positions(original.len()) {
            for mask in [0x01u8, 0x80, 0xFF] {
                let mut bytes = original.clone();
                bytes[pos] ^= mask;
                std::fs::write(&path, &bytes).unwrap();
                match read_everything(&wh, "db.t").await {
                    Ok(ids) => {
                        decoded += 1;
                        // A data file that still decodes keeps its row count: a decoder
                        // failure must not end the file early (rows silently missing).
                        if matches!(kind, Kind::DataFile) {
                            assert_eq!(ids.len(), 6, "{kind:?} byte {pos} ^ {mask:#x}: {ids:?}");
                        }
                    }
                    Err(err) => {
                        failed += 1;
                        // A corrupt-file error can only be about the damaged file. Other
                        // errors come from a flip that still decodes into different metadata
                        // (a renamed column, a file name pointing nowhere): they must name the
                        // file they hit, which lies in the table directory.
                        // A schema flip that still parses contradicts the other metadata,
                        // which is then reported as corrupt, naming that file.
                        // An option value flipped in the schema names the option.
                        let names_it = if matches!(kind, Kind::Schema)
                            && err.starts_with("InvalidOption {")
                        {
                            true
                        } else if err.starts_with("CorruptFile {") && !matches!(kind, Kind::Schema)
                        {
                            err.contains(file_name(&path))
                        } else {
                            err.contains(file_name(&path))
                                || err.contains(table_dir.to_str().unwrap())
                        };
                        assert!(names_it, "{kind:?} byte {pos} ^ {mask:#x}: {err}");
                    }
                }
            }
        }
        std::fs::write(&path, &original).unwrap();
        assert!(failed > 0, "{kind:?}: no flip was detected at all");
        eprintln!(
            "{kind:?} {}: {failed} flips rejected, {decoded} decoded",
            file_name(&path)
        );
    }
    assert_eq!(
        read_everything(&wh, "db.t").await.unwrap(),
        [1, 2, 3, 4, 5, 6]
    );
}

#[tokio::test]
async fn missing_files_fail_naming_the_file() {
    let wh = Warehouse::new();
    three_commits(&wh, "db.t", &append_schema("zstd")).await;
    for (kind, path) in files_of(&wh, "db.t").await {
        if matches!(kind, Kind::Snapshot | Kind::Schema) {
            // A missing latest snapshot or schema is simply an older table state.
            continue;
        }
        let original = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let err = read_everything(&wh, "db.t")
            .await
            .expect_err(&format!("{kind:?} removed"));
        assert!(err.contains(file_name(&path)), "{kind:?} removed: {err}");
        std::fs::write(&path, &original).unwrap();
    }
}

#[tokio::test]
async fn corrupt_index_manifest_fails_the_next_write_naming_it() {
    let wh = Warehouse::new();
    let t = wh.create("db.pk", DYNAMIC_PK).await;
    t.write_batches([batch(&[1, 2, 3], "a")], None)
        .await
        .unwrap();
    let snap = t.snapshot_manager().latest().await.unwrap().unwrap();
    let index = snap
        .index_manifest
        .clone()
        .expect("a dynamic-bucket table has an index");
    let path = wh.table_dir("db", "pk").join("manifest").join(&index);
    let original = std::fs::read(&path).unwrap();
    for cut in [0, original.len() / 2, original.len() - 1] {
        std::fs::write(&path, &original[..cut]).unwrap();
        // Assigning buckets to known keys reads the HASH index of the latest snapshot.
        let err = t
            .write_batches([batch(&[2, 4], "a")], None)
            .await
            .expect_err("a truncated index manifest");
        assert_eq!(err.kind(), ErrorKind::Corrupt, "{err:?}");
        assert!(err.file().is_some_and(|f| f.contains(&index)), "{err:?}");
        assert!(err.to_string().contains(&index), "{err}");
    }
    std::fs::write(&path, &original).unwrap();
    t.write_batches([batch(&[2, 4], "a")], None).await.unwrap();
    assert_eq!(read_ids(&t, None, None).await, [1, 2, 3, 4]);
}

fn hint(wh: &Warehouse, name: &str) -> PathBuf {
    wh.table_dir("db", "t").join("snapshot").join(name)
}

#[tokio::test]
async fn stale_or_missing_latest_hint_reads_the_latest_snapshot() {
    let wh = Warehouse::new();
    three_commits(&wh, "db.t", &append_schema("zstd")).await;
    let latest = hint(&wh, "LATEST");
    assert_eq!(std::fs::read_to_string(&latest).unwrap(), "3");
    let t = wh
        .catalog
        .get_table(&"db.t".parse().unwrap())
        .await
        .unwrap();
    let sm = t.snapshot_manager();
    // Stale (an older snapshot whose successor exists), missing, malformed, not positive
    // (Java's `Long.parseLong` and `snapshotId > 0`), i64::MAX (whose successor id would
    // overflow): the directory is listed.
    for content in [
        Some("9223372036854775807"),
        Some("1"),
        Some("2"),
        None,
        Some(""),
        Some("x3"),
        Some("3\n"),
        Some("0"),
        Some("-1"),
    ] {
        match content {
            Some(c) => std::fs::write(&latest, c).unwrap(),
            None => std::fs::remove_file(&latest).unwrap(),
        }
        assert_eq!(
            sm.latest_id().await.unwrap(),
            Some(3),
            "LATEST = {content:?}"
        );
        assert_eq!(sm.latest().await.unwrap().unwrap().id, 3);
        assert_eq!(
            read_ids(&t, None, None).await,
            [1, 2, 3, 4, 5, 6],
            "LATEST = {content:?}"
        );
    }
    // A commit after a stale hint lands on top of the real latest snapshot and fixes the hint.
    std::fs::write(&latest, "1").unwrap();
    t.write_batches([batch(&[7], "b")], None).await.unwrap();
    assert_eq!(std::fs::read_to_string(&latest).unwrap(), "4");
    assert_eq!(read_ids(&t, None, None).await, [1, 2, 3, 4, 5, 6, 7]);
}

#[tokio::test]
async fn latest_hint_pointing_at_a_missing_snapshot_is_not_trusted() {
    let wh = Warehouse::new();
    three_commits(&wh, "db.t", &append_schema("zstd")).await;
    let t = wh
        .catalog
        .get_table(&"db.t".parse().unwrap())
        .await
        .unwrap();
    let sm = t.snapshot_manager();
    // Java would return 9 (no snapshot-10 exists) and then fail to read snapshot-9; strata
    // checks that the hinted snapshot exists and lists the directory otherwise.
    std::fs::write(hint(&wh, "LATEST"), "9").unwrap();
    assert_eq!(sm.latest_id().await.unwrap(), Some(3));
    assert_eq!(read_ids(&t, None, None).await, [1, 2, 3, 4, 5, 6]);
    // Snapshot 3 removed (a failed commit cleaned up, or an operator): the hint still says 3.
    let s3 = hint(&wh, "snapshot-3");
    let bytes = std::fs::read(&s3).unwrap();
    std::fs::write(hint(&wh, "LATEST"), "3").unwrap();
    std::fs::remove_file(&s3).unwrap();
    assert_eq!(sm.latest_id().await.unwrap(), Some(2));
    assert_eq!(read_ids(&t, None, None).await, [1, 2, 3, 4]);
    std::fs::write(&s3, bytes).unwrap();
    assert_eq!(sm.latest_id().await.unwrap(), Some(3));
}

#[tokio::test]
async fn corrupt_newest_snapshot_is_an_error_not_an_older_read() {
    let wh = Warehouse::new();
    three_commits(&wh, "db.t", &append_schema("zstd")).await;
    // The hint still says 2, but snapshot-3 exists: its corruption must surface rather than
    // the read silently answering from snapshot 2.
    std::fs::write(hint(&wh, "LATEST"), "2").unwrap();
    std::fs::write(hint(&wh, "snapshot-3"), b"{\"version\" : 3, \"id\" : 3,").unwrap();
    let err = read_everything(&wh, "db.t").await.unwrap_err();
    assert!(Kind::Snapshot.accepts(&err), "{err}");
    assert!(err.contains("snapshot-3"), "{err}");
}

#[tokio::test]
async fn snapshot_whose_id_is_not_its_file_name_is_corrupt() {
    let wh = Warehouse::new();
    three_commits(&wh, "db.t", &append_schema("zstd")).await;
    // snapshot-3 holding snapshot 2's content (a botched copy): reading it as snapshot 3 would
    // make the next commit write snapshot 3 again.
    let two = std::fs::read(hint(&wh, "snapshot-2")).unwrap();
    std::fs::write(hint(&wh, "snapshot-3"), two).unwrap();
    let err = read_everything(&wh, "db.t").await.unwrap_err();
    assert!(Kind::Snapshot.accepts(&err), "{err}");
    assert!(err.contains("snapshot-3 but its id is 2"), "{err}");
}

#[tokio::test]
async fn manifests_contradicting_the_partition_keys_are_named() {
    for lazy in ["true", "false"] {
        let wh = Warehouse::new();
        three_commits(&wh, "db.t", &append_schema("zstd")).await;
        // The schema loses its partition key (a damaged schema that still parses): every
        // manifest entry's partition now has the wrong arity.
        let schema = wh.table_dir("db", "t").join("schema/schema-0");
        let text = std::fs::read_to_string(&schema).unwrap();
        let text = text
            .replace("\"partitionKeys\" : [ \"dt\" ]", "\"partitionKeys\" : [ ]")
            .replace(
                "\"options\" : {",
                &format!("\"options\" : {{\n    \"scan.manifest-entry.lazy-decode.enabled\" : \"{lazy}\","),
            );
        assert!(text.contains("\"partitionKeys\" : [ ]"), "{text}");
        std::fs::write(&schema, text).unwrap();
        let err = read_everything(&wh, "db.t").await.unwrap_err();
        assert!(err.starts_with("CorruptFile {"), "lazy={lazy}: {err}");
        assert!(err.contains("/manifest/manifest-"), "lazy={lazy}: {err}");
        assert!(
            err.contains("partition of arity 1, but the table has 0"),
            "lazy={lazy}: {err}"
        );
    }
}

#[tokio::test]
async fn earliest_hint_missing_or_stale() {
    let wh = Warehouse::new();
    three_commits(&wh, "db.t", &append_schema("zstd")).await;
    let t = wh
        .catalog
        .get_table(&"db.t".parse().unwrap())
        .await
        .unwrap();
    let sm = t.snapshot_manager();
    assert_eq!(sm.earliest_id().await.unwrap(), Some(1));
    // Snapshot 1 expired: an EARLIEST hint still naming it is not trusted.
    std::fs::remove_file(hint(&wh, "snapshot-1")).unwrap();
    let earliest = hint(&wh, "EARLIEST");
    for content in [Some("1"), None, Some("garbage")] {
        match content {
            Some(c) => std::fs::write(&earliest, c).unwrap(),
            None => {
                let _ = std::fs::remove_file(&earliest);
            }
        }
        assert_eq!(
            sm.earliest_id().await.unwrap(),
            Some(2),
            "EARLIEST = {content:?}"
        );
    }
    // A hint naming an existing snapshot is trusted as is (Java does not list then either).
    std::fs::write(&earliest, "3").unwrap();
    assert_eq!(sm.earliest_id().await.unwrap(), Some(3));
    assert_eq!(sm.latest_id().await.unwrap(), Some(3));
    assert_eq!(read_ids(&t, None, None).await, [1, 2, 3, 4, 5, 6]);
}
