//! BLOB columns written through the `Table` API (Java 2.0's `DedicatedFormatRollingFileWriter`):
//! a data-evolution append table's rows split into a Parquet file of the other columns and
//! `.blob` files rolled at `blob.target-file-size`, read back stitched by row id; the commit
//! gives the `.blob` files the row ids of their Parquet file; snapshot expiry deletes the
//! `.blob` files of an overwritten write and orphan cleanup keeps the live ones. Java reading
//! strata's files, and the bytes equal to Java's: `tests/interop/test_blob.py`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crate::common::*;
use arrow_array::{Array, BinaryArray, Int32Array, Int64Array, LargeBinaryArray, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::maintenance::{ExpireConfig, ExpireSnapshots, OrphanFilesClean};
use strata::table::Table;

const OPTIONS: &str = r#""bucket":"-1","row-tracking.enabled":"true","data-evolution.enabled":"true","blob.target-file-size":"64 b""#;

async fn blob_table(wh: &Warehouse, name: &str, extra: &str) -> Table {
    wh.create(
        name,
        &format!(
            r#"{{"fields":[{{"name":"id","type":"INT"}},{{"name":"pic","type":"BLOB"}}],
              "partitionKeys":[],"options":{{{OPTIONS}{extra}}}}}"#
        ),
    )
    .await
}

fn payload(i: i32) -> Option<Vec<u8>> {
    (i % 3 != 2).then(|| vec![i as u8; (i as usize * 7) % 50])
}

fn batch(ids: std::ops::Range<i32>, large: bool) -> RecordBatch {
    let values: Vec<Option<Vec<u8>>> = ids.clone().map(payload).collect();
    let refs: Vec<Option<&[u8]>> = values.iter().map(|v| v.as_deref()).collect();
    let (ty, col): (ArrowType, Arc<dyn Array>) = if large {
        (
            ArrowType::LargeBinary,
            Arc::new(LargeBinaryArray::from_opt_vec(refs)),
        )
    } else {
        (ArrowType::Binary, Arc::new(BinaryArray::from_opt_vec(refs)))
    };
    RecordBatch::try_new(
        Arc::new(ArrowSchema::new(vec![
            Field::new("id", ArrowType::Int32, true),
            Field::new("pic", ty, true),
        ])),
        vec![Arc::new(Int32Array::from(ids.collect::<Vec<_>>())), col],
    )
    .unwrap()
}

/// Every row as id → (row id, BLOB).
async fn read_rows(t: &Table) -> BTreeMap<i32, (i64, Option<Vec<u8>>)> {
    let plan = t.new_scan().plan().await.unwrap();
    let read = t
        .new_read()
        .with_projection(vec!["_ROW_ID".into(), "id".into(), "pic".into()]);
    let mut out = BTreeMap::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        let rid = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let id = b.column(1).as_any().downcast_ref::<Int32Array>().unwrap();
        let pic = b.column(2).as_any().downcast_ref::<BinaryArray>().unwrap();
        for i in 0..b.num_rows() {
            let v = (!pic.is_null(i)).then(|| pic.value(i).to_vec());
            out.insert(id.value(i), (rid.value(i), v));
        }
    }
    out
}

/// (file name, row count, first row id, writeCols) of every live file.
async fn live_files(t: &Table) -> Vec<(String, i64, Option<i64>, Option<Vec<String>>)> {
    let plan = t.new_scan().plan().await.unwrap();
    let mut out: Vec<_> = plan
        .splits
        .iter()
        .flat_map(|s| s.files.iter())
        .map(|f| {
            (
                f.file_name.clone(),
                f.row_count,
                f.first_row_id,
                f.write_cols.clone(),
            )
        })
        .collect();
    out.sort_by_key(|f| (f.2, f.0.ends_with(".blob"), f.0.clone()));
    out
}

fn blob_files_on_disk(dir: &std::path::Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir.join("bucket-0"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".blob"))
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn blob_columns_are_written_to_blob_files_and_read_back() {
    let wh = Warehouse::new();
    let t = blob_table(&wh, "db.b", "").await;
    t.write_batches([batch(0..10, false)], None).await.unwrap();
    // LargeBinary input is taken too (cast to the table's Binary)
    t.write_batches([batch(10..16, true), batch(16..20, false)], None)
        .await
        .unwrap();
    let got = read_rows(&t).await;
    assert_eq!(got.len(), 20);
    for (id, (rid, v)) in &got {
        assert_eq!(*rid, *id as i64, "row ids follow the write order");
        assert_eq!(*v, payload(*id), "row {id}");
    }
    let files = live_files(&t).await;
    let data: Vec<_> = files.iter().filter(|f| f.0.ends_with(".parquet")).collect();
    assert_eq!(
        data.iter().map(|f| (f.1, f.2)).collect::<Vec<_>>(),
        vec![(10, Some(0)), (10, Some(10))]
    );
    assert!(data.iter().all(|f| f.3 == Some(vec!["id".to_string()])));
    let blobs: Vec<_> = files.iter().filter(|f| f.0.ends_with(".blob")).collect();
    assert!(blobs.len() > 2, "rolled at 64 bytes: {files:?}");
    assert!(blobs.iter().all(|f| f.3 == Some(vec!["pic".to_string()])));
    // each data file's rows are covered by consecutive .blob files
    for d in &data {
        let start = d.2.unwrap();
        let mut next = start;
        for b in blobs
            .iter()
            .filter(|b| (start..start + d.1).contains(&b.2.unwrap()))
        {
            assert_eq!(b.2, Some(next), "{files:?}");
            next += b.1;
        }
        assert_eq!(next, start + d.1, "{files:?}");
    }
    // projections without the BLOB column and filters on it
    assert_eq!(
        read_ids_i32(&t, Some("pic IS NULL")).await,
        vec![2, 5, 8, 11, 14, 17]
    );
}

async fn read_ids_i32(t: &Table, filter: Option<&str>) -> Vec<i32> {
    let mut scan = t.new_scan();
    let mut read = t.new_read().with_projection(vec!["id".into()]);
    if let Some(f) = filter {
        let p = strata::expr::parse_sql_predicate(f).unwrap();
        scan = scan.with_filter(p.clone());
        read = read.with_filter(p);
    }
    let plan = scan.plan().await.unwrap();
    let mut out = Vec::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        let c = b.column(0).as_any().downcast_ref::<Int32Array>().unwrap();
        out.extend(c.values().iter().copied());
    }
    out.sort();
    out
}

#[tokio::test]
async fn expiry_and_orphan_cleanup_know_blob_files() {
    let wh = Warehouse::new();
    let t = blob_table(&wh, "db.e", "").await;
    let dir = wh.table_dir("db", "e");
    t.write_batches([batch(0..8, false)], None).await.unwrap();
    let first = blob_files_on_disk(&dir);
    assert!(first.len() > 1, "{first:?}");
    t.write_batches(
        [batch(100..106, false)],
        Some(strata::commit::OverwriteScope::WholeTable),
    )
    .await
    .unwrap();
    let second: Vec<String> = blob_files_on_disk(&dir)
        .into_iter()
        .filter(|n| !first.contains(n))
        .collect();
    assert!(!second.is_empty());
    // a stray .blob file nobody references
    std::fs::write(dir.join("bucket-0/data-stray-0.blob"), b"x").unwrap();

    // orphan cleanup with every file old enough: only the stray file goes (the overwritten
    // write's files are still in snapshot 1)
    let report = OrphanFilesClean::new(&t, i64::MAX).clean().await.unwrap();
    let removed: Vec<&str> = report.files.iter().map(|f| f.path.as_str()).collect();
    assert!(
        removed.len() == 1 && removed[0].ends_with("data-stray-0.blob"),
        "{removed:?}"
    );
    let mut all = first.clone();
    all.extend(second.iter().cloned());
    all.sort();
    assert_eq!(blob_files_on_disk(&dir), all);

    // expiring snapshot 1 deletes the overwritten .blob files, keeps the live ones
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
    let mut left = second.clone();
    left.sort();
    assert_eq!(blob_files_on_disk(&dir), left);
    let got = read_rows(&t).await;
    assert_eq!(
        got.keys().copied().collect::<Vec<_>>(),
        (100..106).collect::<Vec<_>>()
    );
    assert!(got.iter().all(|(id, (_, v))| *v == payload(*id)));
}

#[tokio::test]
async fn unwritable_blob_tables_are_refused_by_name() {
    let wh = Warehouse::new();
    let create = |name: &str, extra: &str| {
        let json = format!(
            r#"{{"fields":[{{"name":"id","type":"INT"}},{{"name":"pic","type":"BLOB"}}],
              "partitionKeys":[],"options":{{{OPTIONS}{extra}}}}}"#
        );
        let id: strata::catalog::Identifier = name.parse().unwrap();
        let schema = strata_spec::schema::Schema::from_json(&json).unwrap();
        let catalog = wh.catalog.clone();
        async move { catalog.create_table(&id, &schema, false).await }
    };
    // descriptors stored inline (blob-descriptor-field) are not written by strata
    let err = create("db.d", r#","blob-descriptor-field":"pic""#)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("blob-descriptor-field"), "{err}");
    // Java's SchemaValidation.validateBlobFields
    let err = create("db.f", r#","blob-field":"id""#).await.unwrap_err();
    assert!(err.to_string().contains("'id' in 'blob-field'"), "{err}");
    let t = blob_table(&wh, "db.ok", r#","blob-field":"pic""#).await;
    t.write_batches([batch(0..3, false)], None).await.unwrap();
    assert_eq!(read_rows(&t).await.len(), 3);
}

/// Java `BlobDescriptor.serialize` (version 2), built independently of strata's codec.
fn descriptor(uri: &str, offset: i64, length: i64) -> Vec<u8> {
    let mut out = vec![2u8];
    out.extend_from_slice(&0x424C_4F42_4445_5343i64.to_le_bytes());
    out.extend_from_slice(&(uri.len() as i32).to_le_bytes());
    out.extend_from_slice(uri.as_bytes());
    out.extend_from_slice(&offset.to_le_bytes());
    out.extend_from_slice(&length.to_le_bytes());
    out
}

#[tokio::test]
async fn blob_as_descriptor_copies_on_write_and_reads_descriptors() {
    let wh = Warehouse::new();
    let src = wh.dir.path().join("source.bin");
    let data: Vec<u8> = (0..2000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&src, &data).unwrap();
    let uri = src.to_str().unwrap().to_string();
    let t = blob_table(&wh, "db.desc", "").await;
    let desc = t
        .with_dynamic_options([("blob-as-descriptor".to_string(), "true".to_string())])
        .unwrap();
    let ranges = [(0i64, 100i64), (5, 0), (1500, -1), (300, 700)];
    let values: Vec<Option<Vec<u8>>> = ranges
        .iter()
        .map(|(o, l)| Some(descriptor(&format!("file:{uri}"), *o, *l)))
        .chain([None])
        .collect();
    let refs: Vec<Option<&[u8]>> = values.iter().map(|v| v.as_deref()).collect();
    let input = RecordBatch::try_new(
        Arc::new(ArrowSchema::new(vec![
            Field::new("id", ArrowType::Int32, true),
            Field::new("pic", ArrowType::Binary, true),
        ])),
        vec![
            Arc::new(Int32Array::from(vec![0, 1, 2, 3, 4])),
            Arc::new(BinaryArray::from_opt_vec(refs)),
        ],
    )
    .unwrap();
    desc.write_batches([input], None).await.unwrap();
    let want = |(o, l): (i64, i64)| -> Vec<u8> {
        let o = o as usize;
        if l < 0 {
            data[o..].to_vec()
        } else {
            data[o..o + l as usize].to_vec()
        }
    };
    // the bytes were copied: a plain read returns them
    let got = read_rows(&t).await;
    for (i, r) in ranges.iter().enumerate() {
        assert_eq!(got[&(i as i32)].1, Some(want(*r)), "row {i}");
    }
    assert_eq!(got[&4].1, None);
    // a descriptor read: each value points into a .blob file of the table, at those bytes
    let got = read_rows(&desc).await;
    for (i, r) in ranges.iter().enumerate() {
        let d = got[&(i as i32)].1.clone().unwrap();
        let uri_len = i32::from_le_bytes(d[9..13].try_into().unwrap()) as usize;
        let path = std::str::from_utf8(&d[13..13 + uri_len]).unwrap();
        assert!(path.ends_with(".blob"), "{path}");
        let off = i64::from_le_bytes(d[13 + uri_len..21 + uri_len].try_into().unwrap()) as usize;
        let len = i64::from_le_bytes(d[21 + uri_len..].try_into().unwrap()) as usize;
        let file = std::fs::read(path).unwrap();
        assert_eq!(file[off..off + len].to_vec(), want(*r), "row {i}");
    }
    // a value that is not a descriptor is an error naming the column
    let bad = RecordBatch::try_new(
        Arc::new(ArrowSchema::new(vec![
            Field::new("id", ArrowType::Int32, true),
            Field::new("pic", ArrowType::Binary, true),
        ])),
        vec![
            Arc::new(Int32Array::from(vec![9])),
            Arc::new(BinaryArray::from_opt_vec(vec![Some(&b"raw bytes"[..])])),
        ],
    )
    .unwrap();
    let err = desc.write_batches([bad], None).await.unwrap_err();
    assert!(
        err.to_string().contains("pic") && err.to_string().contains("BlobDescriptor"),
        "{err}"
    );
}

/// `blob-write-null-on-missing-file` / `blob-write-null-on-fetch-failure`: a descriptor whose
/// bytes cannot be fetched fails the write naming the column and the file, unless the option
/// for that failure says to store NULL; the other rows keep their bytes.
#[tokio::test]
async fn descriptors_that_cannot_be_fetched_fail_or_write_null_as_the_options_say() {
    let wh = Warehouse::new();
    let src = wh.dir.path().join("present.bin");
    std::fs::write(&src, [7u8; 40]).unwrap();
    let present = format!("file:{}", src.to_str().unwrap());
    let missing = format!("file:{}", wh.dir.path().join("gone.bin").to_str().unwrap());
    let input = |uri: &str| {
        let values = [descriptor(&present, 0, 10), descriptor(uri, 0, 10)];
        RecordBatch::try_new(
            Arc::new(ArrowSchema::new(vec![
                Field::new("id", ArrowType::Int32, true),
                Field::new("pic", ArrowType::Binary, true),
            ])),
            vec![
                Arc::new(Int32Array::from(vec![0, 1])),
                Arc::new(BinaryArray::from_opt_vec(
                    values.iter().map(|v| Some(v.as_slice())).collect(),
                )),
            ],
        )
        .unwrap()
    };
    let with = |t: &Table, opts: &[(&str, &str)]| {
        t.with_dynamic_options(
            [("blob-as-descriptor", "true")]
                .iter()
                .chain(opts)
                .map(|(k, v)| (k.to_string(), v.to_string())),
        )
        .unwrap()
    };

    // a missing file: refused by default, NULL with blob-write-null-on-missing-file
    let t = blob_table(&wh, "db.missing", "").await;
    let err = with(&t, &[])
        .write_batches([input(&missing)], None)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), strata::ErrorKind::NotFound, "{err}");
    assert!(
        err.to_string().contains("pic") && err.to_string().contains("gone.bin"),
        "{err}"
    );
    assert!(
        read_rows(&t).await.is_empty(),
        "a failed write commits nothing"
    );
    // the fetch-failure option does not cover a missing file (Java: 404 is the other option's)
    with(&t, &[("blob-write-null-on-fetch-failure", "true")])
        .write_batches([input(&missing)], None)
        .await
        .unwrap_err();
    with(&t, &[("blob-write-null-on-missing-file", "true")])
        .write_batches([input(&missing)], None)
        .await
        .unwrap();
    let got = read_rows(&t).await;
    assert_eq!(got[&0].1, Some(vec![7u8; 10]));
    assert_eq!(got[&1].1, None);

    // a file shorter than the descriptor says: a fetch failure
    let t = blob_table(&wh, "db.short", "").await;
    let short = |t: &Table, opts: &[(&str, &str)]| {
        let t = with(t, opts);
        let values = [descriptor(&present, 0, 10), descriptor(&present, 30, 500)];
        let batch = RecordBatch::try_new(
            Arc::new(ArrowSchema::new(vec![
                Field::new("id", ArrowType::Int32, true),
                Field::new("pic", ArrowType::Binary, true),
            ])),
            vec![
                Arc::new(Int32Array::from(vec![0, 1])),
                Arc::new(BinaryArray::from_opt_vec(
                    values.iter().map(|v| Some(v.as_slice())).collect(),
                )),
            ],
        )
        .unwrap();
        async move { t.write_batches([batch], None).await }
    };
    short(&t, &[]).await.unwrap_err();
    short(&t, &[("blob-write-null-on-missing-file", "true")])
        .await
        .unwrap_err();
    short(&t, &[("blob-write-null-on-fetch-failure", "true")])
        .await
        .unwrap();
    let got = read_rows(&t).await;
    assert_eq!(got[&0].1, Some(vec![7u8; 10]));
    assert_eq!(got[&1].1, None);
}
