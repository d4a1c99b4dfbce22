//! A BLOB column updated by row id (`Table::update_columns`), as Spark's
//! `DataEvolutionTableDataWrite` writes it in Java Paimon 2.0: `.blob` files over the whole
//! row-id range, new values for the updated rows and placeholders for the others, no Parquet
//! file for a BLOB-only update; read back resolved as Java's `BlobFallbackRecordReader` (the
//! newest non-placeholder value, an updated NULL stays NULL), through data-evolution
//! compaction of the data files (the `.blob` files stay). Java and pypaimon reading strata's
//! updates and strata reading theirs: `tests/interop/test_blob.py`,
//! `tests/interop/test_pypaimon_2x.py::test_blob_both_ways`.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::common::*;
use arrow_array::{Array, BinaryArray, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::table::Table;
use strata::write::CompactRequest;

async fn table(wh: &Warehouse) -> Table {
    wh.create(
        "db.bu",
        r#"{"fields":[{"name":"id","type":"INT"},{"name":"name","type":"STRING"},
             {"name":"pic","type":"BLOB"}],
           "partitionKeys":[],"options":{"bucket":"-1","row-tracking.enabled":"true",
             "data-evolution.enabled":"true","blob.target-file-size":"64 b",
             "compaction.min.file-num":"2"}}"#,
    )
    .await
}

fn pic(i: i32) -> Option<Vec<u8>> {
    (i % 4 != 3).then(|| vec![i as u8; (i as usize * 9) % 40])
}

fn rows(ids: std::ops::Range<i32>) -> RecordBatch {
    let values: Vec<Option<Vec<u8>>> = ids.clone().map(pic).collect();
    let names: Vec<String> = ids.clone().map(|i| format!("n{i}")).collect();
    RecordBatch::try_new(
        Arc::new(ArrowSchema::new(vec![
            Field::new("id", ArrowType::Int32, true),
            Field::new("name", ArrowType::Utf8, true),
            Field::new("pic", ArrowType::Binary, true),
        ])),
        vec![
            Arc::new(Int32Array::from(ids.collect::<Vec<_>>())),
            Arc::new(StringArray::from(names)),
            Arc::new(BinaryArray::from_opt_vec(
                values.iter().map(|v| v.as_deref()).collect(),
            )),
        ],
    )
    .unwrap()
}

/// `_ROW_ID` and `pic` (and `name` when given) for the update.
fn update(rids: &[i64], pics: &[Option<&[u8]>], names: Option<&[&str]>) -> RecordBatch {
    let mut fields = vec![Field::new("_ROW_ID", ArrowType::Int64, false)];
    let mut cols: Vec<Arc<dyn Array>> = vec![Arc::new(Int64Array::from(rids.to_vec()))];
    if let Some(n) = names {
        fields.push(Field::new("name", ArrowType::Utf8, true));
        cols.push(Arc::new(StringArray::from(n.to_vec())));
    }
    fields.push(Field::new("pic", ArrowType::Binary, true));
    cols.push(Arc::new(BinaryArray::from_opt_vec(pics.to_vec())));
    RecordBatch::try_new(Arc::new(ArrowSchema::new(fields)), cols).unwrap()
}

type Row = (String, Option<Vec<u8>>);

/// id → (name, pic).
async fn read(t: &Table) -> BTreeMap<i32, Row> {
    let plan = t.new_scan().plan().await.unwrap();
    let read = t
        .new_read()
        .with_projection(vec!["id".into(), "name".into(), "pic".into()]);
    let mut out = BTreeMap::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        let id = b.column(0).as_any().downcast_ref::<Int32Array>().unwrap();
        let name = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
        let pic = b.column(2).as_any().downcast_ref::<BinaryArray>().unwrap();
        for i in 0..b.num_rows() {
            let v = (!pic.is_null(i)).then(|| pic.value(i).to_vec());
            out.insert(id.value(i), (name.value(i).to_string(), v));
        }
    }
    out
}

/// (first row id, row count, max sequence number, writeCols) of the live `.blob` / Parquet
/// files, by name suffix.
async fn files(t: &Table, ext: &str) -> Vec<(Option<i64>, i64, i64, Option<Vec<String>>)> {
    let plan = t.new_scan().plan().await.unwrap();
    let mut out: Vec<_> = plan
        .splits
        .iter()
        .flat_map(|s| s.files.iter())
        .filter(|f| f.file_name.ends_with(ext))
        .map(|f| {
            (
                f.first_row_id,
                f.row_count,
                f.max_sequence_number,
                f.write_cols.clone(),
            )
        })
        .collect();
    out.sort_by_key(|f| (f.2, f.0));
    out
}

#[tokio::test]
async fn blob_column_updates_stack_blob_files_read_newest_first() {
    let wh = Warehouse::new();
    let t = table(&wh).await;
    t.write_batches([rows(0..8)], None).await.unwrap();
    t.write_batches([rows(8..12)], None).await.unwrap();
    let mut want: BTreeMap<i32, Row> = (0..12).map(|i| (i, (format!("n{i}"), pic(i)))).collect();
    assert_eq!(read(&t).await, want);
    let parquet_before = files(&t, ".parquet").await;

    // a BLOB-only update of rows 1, 4 (to NULL), 9 (to empty): .blob files only
    let big = vec![0xAB; 100];
    let s1 = t
        .update_columns(&update(&[1, 4, 9], &[Some(&big), None, Some(b"")], None))
        .await
        .unwrap()
        .unwrap();
    want.get_mut(&1).unwrap().1 = Some(big.clone());
    want.get_mut(&4).unwrap().1 = None;
    want.get_mut(&9).unwrap().1 = Some(Vec::new());
    assert_eq!(read(&t).await, want);
    assert_eq!(
        files(&t, ".parquet").await,
        parquet_before,
        "no Parquet file"
    );
    let new: Vec<_> = files(&t, ".blob")
        .await
        .into_iter()
        .filter(|f| f.2 == s1)
        .collect();
    // range 0..8: the 100-byte value rolls the file at 64 bytes; range 8..12 in one file
    let pic_col = Some(vec!["pic".to_string()]);
    assert_eq!(
        new,
        vec![
            (Some(0), 2, s1, pic_col.clone()),
            (Some(2), 6, s1, pic_col.clone()),
            (Some(8), 4, s1, pic_col.clone()),
        ]
    );

    // BLOB and a normal column together, over an update: a Parquet file of `name` too
    let s2 = t
        .update_columns(&update(
            &[1, 2],
            &[None, Some(b"two")],
            Some(&["one", "zwei"]),
        ))
        .await
        .unwrap()
        .unwrap();
    want.insert(1, ("one".into(), None));
    want.insert(2, ("zwei".into(), Some(b"two".to_vec())));
    assert_eq!(read(&t).await, want);
    let p2: Vec<_> = files(&t, ".parquet")
        .await
        .into_iter()
        .filter(|f| f.2 == s2)
        .collect();
    assert_eq!(p2, vec![(Some(0), 8, s2, Some(vec!["name".to_string()]))]);

    // data-evolution compaction stitches the data files of both ranges into one; the .blob
    // files of every write stay and still resolve newest first
    let report = t
        .compact(
            &CompactRequest {
                full: true,
                ..Default::default()
            },
            &|_, _| {},
        )
        .await
        .unwrap();
    assert!(report.snapshot.is_some());
    let p = files(&t, ".parquet").await;
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!((p[0].0, p[0].1), (Some(0), 12));
    assert_eq!(read(&t).await, want);
    // and a BLOB update after compaction covers the merged range 0..12
    let s3 = t
        .update_columns(&update(&[11], &[Some(b"last")], None))
        .await
        .unwrap()
        .unwrap();
    want.get_mut(&11).unwrap().1 = Some(b"last".to_vec());
    assert_eq!(read(&t).await, want);
    let b3: Vec<_> = files(&t, ".blob")
        .await
        .into_iter()
        .filter(|f| f.2 == s3)
        .map(|f| (f.0, f.1))
        .collect();
    assert_eq!(b3, vec![(Some(0), 12)]);
}
