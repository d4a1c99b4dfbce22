//! VARIANT and BLOB columns. A VARIANT is Paimon's variant binary, exposed in Arrow as
//! `Struct{value, metadata}` binaries and stored as that Parquet group (unshredded), so what is
//! written is read back byte for byte; a shredded file (Java's `typed_value`) is refused naming
//! the column (`tests/interop/test_variant.py`). A table with a BLOB column (Java 2.0's separate
//! `.blob` files) is refused for writes and reads, naming the column, unless it is a top-level
//! BLOB of a data-evolution append table (read from and written to its `.blob` files:
//! `blob_write.rs`).

use std::sync::Arc;

use crate::common::*;
use arrow_array::{Array, BinaryArray, Int32Array, RecordBatch, StructArray};
use arrow_schema::{DataType as ArrowType, Field, Fields, Schema as ArrowSchema};

fn variant_fields() -> Fields {
    Fields::from(vec![
        Field::new("value", ArrowType::Binary, false),
        Field::new("metadata", ArrowType::Binary, false),
    ])
}

#[tokio::test]
async fn unshredded_variants_round_trip_byte_for_byte() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.v",
            r#"{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"v","type":"VARIANT"}],
             "partitionKeys":[],"options":{"bucket":"-1"}}"#,
        )
        .await;
    // {"a":1} and the string "hi" in the variant encoding (metadata version 1, sorted keys).
    let values: Vec<&[u8]> = vec![
        &[0x02, 0x01, 0x00, 0x00, 0x02, 0x0c, 0x01],
        &[0x09, b'h', b'i'],
    ];
    let metas: Vec<&[u8]> = vec![&[0x11, 0x01, 0x00, 0x01, b'a'], &[0x01, 0x00, 0x00]];
    let v = StructArray::try_new(
        variant_fields(),
        vec![
            Arc::new(BinaryArray::from(values.clone())),
            Arc::new(BinaryArray::from(metas.clone())),
        ],
        Some(vec![true, true].into()),
    )
    .unwrap();
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int32, false),
        Field::new("v", ArrowType::Struct(variant_fields()), true),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![Arc::new(Int32Array::from(vec![1, 2])), Arc::new(v)],
    )
    .unwrap();
    t.write_batches([batch], None).await.unwrap();
    let splits = t.new_scan().plan().await.unwrap().splits;
    let out = t.new_read().to_batches(splits).await.unwrap();
    let mut got = Vec::new();
    for b in out {
        let s = b.column(1).as_any().downcast_ref::<StructArray>().unwrap();
        let val = s.column_by_name("value").unwrap();
        let val = val.as_any().downcast_ref::<BinaryArray>().unwrap();
        let meta = s.column_by_name("metadata").unwrap();
        let meta = meta.as_any().downcast_ref::<BinaryArray>().unwrap();
        for i in 0..b.num_rows() {
            got.push((val.value(i).to_vec(), meta.value(i).to_vec()));
        }
    }
    got.sort();
    let mut want: Vec<_> = values
        .iter()
        .zip(&metas)
        .map(|(v, m)| (v.to_vec(), m.to_vec()))
        .collect();
    want.sort();
    assert_eq!(got, want);
}

#[tokio::test]
async fn blob_columns_are_refused_by_name() {
    // Java's SchemaValidation: an append table with BLOB columns needs data evolution
    let wh = Warehouse::new();
    let id: strata::catalog::Identifier = "db.b".parse().unwrap();
    let schema = strata_spec::schema::Schema::from_json(
        r#"{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"pic","type":"BLOB"},
          {"name":"more","type":"ARRAY<BLOB>"}],"partitionKeys":[],"options":{"bucket":"-1"}}"#,
    )
    .unwrap();
    let err = wh
        .catalog
        .create_table(&id, &schema, false)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("Data evolution config must enabled") && err.contains("pic, more"),
        "{err}"
    );
    // with data evolution: a BLOB inside an ARRAY is refused for writes and reads by name
    let t = wh
        .create(
            "db.b",
            r#"{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"pic","type":"BLOB"},
              {"name":"more","type":"ARRAY<BLOB>"}],"partitionKeys":[],"options":{"bucket":"-1",
              "row-tracking.enabled":"true","data-evolution.enabled":"true"}}"#,
        )
        .await;
    let err = t.new_write().err().expect("writing is refused");
    let text = err.to_string();
    assert_eq!(err.kind(), strata::ErrorKind::Unsupported, "{text}");
    assert!(
        text.contains("pic, more") && text.contains("ARRAY<BLOB>"),
        "{text}"
    );
    let err = t.new_scan().plan().await.unwrap_err().to_string();
    assert!(
        err.contains("reading table db.b") && err.contains("more"),
        "{err}"
    );
}

#[tokio::test]
async fn blob_columns_of_data_evolution_tables_plan_and_take_column_updates() {
    let wh = Warehouse::new();
    let options = r#""options":{"bucket":"-1","row-tracking.enabled":"true","data-evolution.enabled":"true"}"#;
    let t = wh
        .create(
            "db.de",
            &format!(
                r#"{{"fields":[{{"name":"id","type":"INT"}},{{"name":"pic","type":"BLOB"}}],
                  "partitionKeys":[],{options}}}"#
            ),
        )
        .await;
    // reads plan (the .blob files are read by row id: tests/interop/test_blob.py)
    let plan = t
        .new_scan()
        .plan()
        .await
        .expect("a BLOB column of a data-evolution table reads");
    assert!(plan.splits.is_empty());
    // writes go to .blob files (tests/it/blob_write.rs); column updates are taken
    // (tests/it/blob_update.rs): here row id 0 is no row of the empty table
    t.new_write()
        .expect("BLOB columns of data-evolution tables are written");
    let batch = RecordBatch::try_new(
        Arc::new(ArrowSchema::new(vec![
            Field::new("_ROW_ID", ArrowType::Int64, false),
            Field::new("id", ArrowType::Int32, true),
        ])),
        vec![
            Arc::new(arrow_array::Int64Array::from(vec![0])),
            Arc::new(Int32Array::from(vec![1])),
        ],
    )
    .unwrap();
    let err = t.update_columns(&batch).await.unwrap_err();
    assert_eq!(err.kind(), strata::ErrorKind::InvalidInput, "{err}");
    assert!(err.to_string().contains("_ROW_ID 0 is not a row"), "{err}");

    // BLOB inside an ARRAY (Java's ArrayBlobElementSerializer) stays refused for reads
    let nested = wh
        .create(
            "db.nested",
            &format!(
                r#"{{"fields":[{{"name":"id","type":"INT"}},{{"name":"pics","type":"ARRAY<BLOB>"}}],
                  "partitionKeys":[],{options}}}"#
            ),
        )
        .await;
    let err = nested.new_scan().plan().await.unwrap_err().to_string();
    assert!(
        err.contains("reading table db.nested") && err.contains("pics"),
        "{err}"
    );
}
