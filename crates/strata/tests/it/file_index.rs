//! File indexes (Java's `FileIndexer`s): append writes build bloom-filter, bitmap and
//! range-bitmap indexes,
//! embedded in the manifest under `file-index.in-manifest-threshold` or written as
//! `<data-file>.index`; filtered reads skip the files the indexes rule out and count them in
//! `ReadMetrics::files_skipped_by_index`; the rows are always exactly the filter's. Orphan
//! cleanup keeps live index files; refused index types are refused by name.

use std::sync::Arc;

use crate::common::*;
use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::expr::parse_sql_predicate;
use strata::read::{ReadMetrics, ReadMetricsSnapshot};
use strata::table::Table;

fn table(options: &str) -> String {
    format!(
        r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{{"name":"s","type":"STRING"}}],
        "options":{{"bucket":"-1",{options}}}}}"#
    )
}

/// File `k`: ids `100 k ..100 k + 50`, strings `s{k}_{i}`, plus `a` and `zzz` so that every
/// file's statistics span every filter value.
fn batch(k: i64) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("s", ArrowType::Utf8, true),
    ]));
    let mut ids: Vec<i64> = (100 * k..100 * k + 50).collect();
    let mut s: Vec<Option<String>> = (0..50).map(|i| Some(format!("s{k}_{i}"))).collect();
    ids.extend([-1, 100_000]);
    s.extend([Some("a".to_string()), Some("zzz".to_string())]);
    if k == 1 {
        s[3] = None;
    }
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids)),
            Arc::new(StringArray::from(s)),
        ],
    )
    .unwrap()
}

async fn read(t: &Table, filter: &str) -> (Vec<i64>, ReadMetricsSnapshot) {
    let metrics = Arc::new(ReadMetrics::default());
    let splits = t.new_scan().plan().await.unwrap().splits;
    let batches = t
        .new_read()
        .with_filter(parse_sql_predicate(filter).unwrap())
        .with_metrics(metrics.clone())
        .to_batches(splits)
        .await
        .unwrap();
    let mut ids = Vec::new();
    for b in batches {
        let c = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        ids.extend(c.values().iter().copied());
    }
    ids.sort_unstable();
    (ids, metrics.snapshot())
}

async fn three_files(wh: &Warehouse, name: &str, options: &str) -> Table {
    let t = wh.create(name, &table(options)).await;
    for k in 0..3 {
        t.write_batches([batch(k)], None).await.unwrap();
    }
    t
}

#[tokio::test]
async fn embedded_indexes_skip_files() {
    let wh = Warehouse::new();
    let t = three_files(
        &wh,
        "db.e",
        r#""file-index.bloom-filter.columns":"id","file-index.bloom-filter.id.items":"60",
           "file-index.bitmap.columns":"s","file-index.in-manifest-threshold":"4 kb""#,
    )
    .await;
    let files = t.new_scan().plan().await.unwrap().splits;
    let metas: Vec<_> = files.iter().flat_map(|s| s.files.iter()).collect();
    assert_eq!(metas.len(), 3);
    assert!(metas
        .iter()
        .all(|f| f.embedded_index.is_some() && f.extra_files.is_empty()));

    let (ids, m) = read(&t, "s = 's1_7'").await;
    assert_eq!(ids, vec![107]);
    assert_eq!((m.files_skipped_by_index, m.files_read), (2, 1), "{m:?}");
    let (ids, m) = read(&t, "s IN ('s0_1', 's2_2')").await;
    assert_eq!(ids, vec![1, 202]);
    assert_eq!(m.files_skipped_by_index, 1, "{m:?}");
    // The bitmap's NULL rows: only file 1 has one.
    let (ids, m) = read(&t, "s IS NULL").await;
    assert_eq!(ids, vec![103]);
    assert_eq!(m.files_read, 1, "{m:?}");
    // Bloom filter on id (statistics cannot rule 150 out: every file spans -1..100000).
    let (ids, m) = read(&t, "id = 150").await;
    assert!(ids.is_empty());
    assert!(m.files_skipped_by_index >= 2, "{m:?}");
    let (ids, _) = read(&t, "id = 201").await;
    assert_eq!(ids, vec![201]);
    // An OR with an unindexed test keeps every file; AND keeps the index's answer.
    let (_, m) = read(&t, "s = 's1_7' OR id > 0").await;
    assert_eq!(m.files_skipped_by_index, 0, "{m:?}");
    let (ids, m) = read(&t, "s = 's1_7' AND id > 0").await;
    assert_eq!((ids, m.files_skipped_by_index), (vec![107], 2));
}

#[tokio::test]
async fn range_bitmap_indexes_skip_files_by_range() {
    let wh = Warehouse::new();
    // ids 0..50, 100..150, 200..250 plus -1 and 100000 in every file: statistics span every
    // range, only the range bitmap rules files out.
    let t = three_files(
        &wh,
        "db.rb",
        r#""file-index.range-bitmap.columns":"id,s","file-index.range-bitmap.s.chunk-size":"64b",
           "file-index.in-manifest-threshold":"64 kb""#,
    )
    .await;
    let splits = t.new_scan().plan().await.unwrap().splits;
    assert!(splits
        .iter()
        .flat_map(|s| s.files.iter())
        .all(|f| f.embedded_index.is_some()));
    let (ids, m) = read(&t, "id > 120 AND id < 130").await;
    assert_eq!(ids, (121..130).collect::<Vec<_>>());
    assert_eq!((m.files_skipped_by_index, m.files_read), (2, 1), "{m:?}");
    let (ids, m) = read(&t, "id >= 60 AND id <= 99").await;
    assert!(ids.is_empty());
    assert_eq!(m.files_skipped_by_index, 3, "{m:?}");
    let (ids, m) = read(&t, "id IN (7, 207)").await;
    assert_eq!(ids, vec![7, 207]);
    assert_eq!(m.files_skipped_by_index, 1, "{m:?}");
    let (ids, m) = read(&t, "s = 's2_31'").await;
    assert_eq!(ids, vec![231]);
    assert_eq!(m.files_skipped_by_index, 2, "{m:?}");
    let (ids, m) = read(&t, "s IS NULL").await;
    assert_eq!(ids, vec![103]);
    assert_eq!(m.files_read, 1, "{m:?}");
    // The same rows as a scan when the index cannot decide (<> keeps every file).
    let (ids, _) = read(&t, "id <> 5 AND id < 3").await;
    assert_eq!(ids, vec![-1, -1, -1, 0, 1, 2]);
}

#[tokio::test]
async fn large_indexes_are_separate_files_kept_by_orphan_cleanup() {
    let wh = Warehouse::new();
    // Default bloom filter: 1,000,000 items, about 600 KB, above the 500-byte threshold.
    let t = three_files(&wh, "db.x", r#""file-index.bloom-filter.columns":"s""#).await;
    let splits = t.new_scan().plan().await.unwrap().splits;
    for s in &splits {
        for f in &s.files {
            assert!(f.embedded_index.is_none());
            assert_eq!(f.extra_files, vec![format!("{}.index", f.file_name)]);
            let dir = wh.table_dir("db", "x").join("bucket-0");
            let len = std::fs::metadata(dir.join(&f.extra_files[0]))
                .unwrap()
                .len();
            assert!(len > 500_000, "{len}");
        }
    }
    let (ids, m) = read(&t, "s = 's2_9'").await;
    assert_eq!(ids, vec![209]);
    assert_eq!(m.files_skipped_by_index, 2, "{m:?}");
    // `file-index.read.enabled = false`: every file read, same rows.
    let t2 = t
        .with_dynamic_options([("file-index.read.enabled".to_string(), "false".to_string())])
        .unwrap();
    let (ids, m) = read(&t2, "s = 's2_9'").await;
    assert_eq!(
        (ids, m.files_skipped_by_index, m.files_read),
        (vec![209], 0, 3)
    );
}

#[tokio::test]
async fn unwritten_index_types_are_refused_by_name() {
    let wh = Warehouse::new();
    // Creating such a table is refused (as is writing one another engine created).
    for key in ["file-index.no-such-type.columns"] {
        let id: strata::table::Identifier = "db.r".parse().unwrap();
        let schema =
            strata_spec::schema::Schema::from_json(&table(&format!(r#""{key}":"id""#))).unwrap();
        let err = wh
            .catalog
            .create_table(&id, &schema, false)
            .await
            .unwrap_err();
        assert!(err.to_string().contains(key), "{err}");
    }
    // A bloom filter on a column that does not exist, or on a type Java cannot hash.
    let t = wh
        .create(
            "db.c",
            &table(r#""file-index.bloom-filter.columns":"nope""#),
        )
        .await;
    let err = t.write_batches([batch(0)], None).await.unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
}

#[tokio::test]
async fn bsi_indexes_answer_ranges() {
    let wh = Warehouse::new();
    // Every file spans -1..100000, so statistics cannot rule a range inside out.
    let t = three_files(
        &wh,
        "db.b",
        r#""file-index.bsi.columns":"id","file-index.in-manifest-threshold":"4 kb""#,
    )
    .await;
    let (ids, m) = read(&t, "id BETWEEN 120 AND 130").await;
    assert_eq!(ids, (120..=130).collect::<Vec<_>>());
    assert_eq!(m.files_skipped_by_index, 2, "{m:?}");
    let (ids, m) = read(&t, "id > 60 AND id < 90").await;
    assert!(ids.is_empty());
    assert_eq!(m.files_skipped_by_index, 3, "{m:?}");
    let (ids, m) = read(&t, "id = 205 OR id = -1").await;
    assert_eq!(ids, vec![-1, -1, -1, 205]);
    assert_eq!(m.files_skipped_by_index, 0, "{m:?}");
}

#[tokio::test]
async fn rewrite_file_index_then_expiry_and_orphan_cleanup() {
    use std::time::Duration;
    use strata::maintenance::{ExpireConfig, ExpireSnapshots, OrphanFilesClean, TableLifecycle};
    let wh = Warehouse::new();
    let t = three_files(&wh, "db.o", r#""file-index.bloom-filter.columns":"s""#).await;
    let dir = wh.table_dir("db", "o").join("bucket-0");
    let index_files = || -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".index"))
            .collect();
        v.sort();
        v
    };
    assert_eq!(index_files().len(), 3);
    // Re-index with a bloom filter on another column: each file gets `<file>-1.index`.
    let t = t
        .with_dynamic_options([("file-index.bloom-filter.columns".into(), "id".into())])
        .unwrap();
    let report = t.rewrite_file_index(&[]).await.unwrap();
    assert_eq!((report.files, report.index_files), (3, 3));
    let live: Vec<String> = t
        .new_scan()
        .plan()
        .await
        .unwrap()
        .splits
        .iter()
        .flat_map(|s| s.files.iter().flat_map(|f| f.extra_files.clone()))
        .collect();
    assert_eq!(live.len(), 3);
    assert!(
        live.iter().all(|n| n.ends_with(".parquet-1.index")),
        "{live:?}"
    );
    assert_eq!(index_files().len(), 6);
    let (ids, m) = read(&t, "id = 150").await;
    assert!(ids.is_empty());
    assert!(m.files_skipped_by_index >= 2, "{m:?}");
    // Expiry and orphan cleanup never take a live index file. (The replaced ones stay while a
    // manifest still lists their entries, DELETE or ADD, as in Java's `OrphanFilesClean`.)
    tokio::time::sleep(Duration::from_millis(3)).await;
    ExpireSnapshots::new(&t)
        .unwrap()
        .with_config(ExpireConfig {
            retain_max: 1,
            retain_min: 1,
            time_retained: Duration::ZERO,
            max_deletes: 1000,
        })
        .expire()
        .await
        .unwrap();
    let future = OrphanFilesClean::default_older_than_millis(&t) + 10 * 86_400_000;
    t.remove_orphan_files(future, false).await.unwrap();
    let on_disk = index_files();
    assert!(live.iter().all(|n| on_disk.contains(n)), "{on_disk:?}");
    let (ids, _) = read(&t, "id = 201").await;
    assert_eq!(ids, vec![201]);
}

#[tokio::test]
async fn rewrite_file_index_of_primary_key_tables() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.pk",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"s","type":"STRING"}],
                "primaryKeys":["id"],"options":{"bucket":"1"}}"#,
        )
        .await;
    for k in 0..3 {
        t.write_batches([batch(k)], None).await.unwrap();
    }
    let files = |t: &Table| {
        let t = t.clone();
        async move {
            t.new_scan()
                .plan()
                .await
                .unwrap()
                .splits
                .into_iter()
                .flat_map(|s| s.files)
                .collect::<Vec<_>>()
        }
    };
    assert!(files(&t).await.iter().all(|f| f.embedded_index.is_none()));
    let t = t
        .with_dynamic_options([
            ("file-index.range-bitmap.columns".into(), "s".into()),
            ("file-index.in-manifest-threshold".into(), "64 kb".into()),
        ])
        .unwrap();
    let report = t.rewrite_file_index(&[]).await.unwrap();
    assert_eq!((report.files, report.index_files), (3, 0));
    let after = files(&t).await;
    assert_eq!(after.len(), 3);
    assert!(after.iter().all(|f| f.embedded_index.is_some()));
    // Keys -1 and 100000 are in every file (the last write wins): the rows stay merged.
    let (ids, _) = read(&t, "s = 'zzz'").await;
    assert_eq!(ids, vec![100_000]);
    let (ids, _) = read(&t, "s = 's1_9'").await;
    assert_eq!(ids, vec![109]);
}

#[tokio::test]
async fn map_key_indexes_are_written_and_skip_files() {
    use arrow_array::builder::{MapBuilder, StringBuilder};
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.mk",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
                          {"name":"m","type":"MAP<STRING, STRING>"}],
                "options":{"bucket":"-1","file-index.bitmap.columns":"m[color]",
                           "file-index.bloom-filter.columns":"m[size]",
                           "file-index.bloom-filter.m.items":"30"}}"#,
        )
        .await;
    for k in 0..3i64 {
        let mut b = MapBuilder::new(None, StringBuilder::new(), StringBuilder::new());
        let mut ids = Vec::new();
        for i in 0..20i64 {
            ids.push(100 * k + i);
            if i == 7 {
                b.append(false).unwrap();
                continue;
            }
            if i != 3 {
                b.keys().append_value("color");
                b.values().append_value(format!("c{k}"));
            }
            b.keys().append_value("size");
            b.values().append_value(format!("s{k}_{i}"));
            b.append(true).unwrap();
        }
        let m = b.finish();
        let schema = Arc::new(ArrowSchema::new(vec![
            Field::new("id", ArrowType::Int64, false),
            Field::new("m", arrow_array::Array::data_type(&m).clone(), true),
        ]));
        let batch =
            RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from(ids)), Arc::new(m)])
                .unwrap();
        t.write_batches([batch], None).await.unwrap();
    }
    let (ids, m) = read(&t, "m['color'] = 'c1'").await;
    assert_eq!(ids.len(), 18);
    assert_eq!((m.files_skipped_by_index, m.files_read), (2, 1), "{m:?}");
    let (ids, m) = read(&t, "m['size'] = 's2_5'").await;
    assert_eq!(ids, vec![205]);
    assert_eq!(m.files_skipped_by_index, 2, "{m:?}");
    // A key without an index keeps every file.
    let (ids, m) = read(&t, "m['shape'] = 'x'").await;
    assert!(ids.is_empty());
    assert_eq!(m.files_skipped_by_index, 0, "{m:?}");
    // A MAP key index needs a MAP column with string keys.
    let err = wh
        .catalog
        .create_table(
            &"db.bad".parse().unwrap(),
            &strata_spec::schema::Schema::from_json(&table(
                r#""file-index.bitmap.columns":"s[k]""#,
            ))
            .unwrap(),
            false,
        )
        .await
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    let err = if err.is_empty() {
        let t = wh
            .catalog
            .get_table(&"db.bad".parse().unwrap())
            .await
            .unwrap();
        t.write_batches([batch(0)], None)
            .await
            .unwrap_err()
            .to_string()
    } else {
        err
    };
    assert!(err.contains("not map type"), "{err}");
}
