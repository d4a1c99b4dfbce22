//! Column default values (`defaultValue` in the schema): every write stores a column's default
//! where the input lacks the column or holds NULL in it, as Java ≥ 1.3 does (`DefaultValueRow`
//! in `TableWriteImpl`, after the NOT NULL check); a default Java cannot convert is refused when
//! the table is created, naming the column.

use std::sync::Arc;

use crate::common::*;
use arrow_array::{Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use strata::catalog::Identifier;
use strata::table::Table;
use strata_spec::schema::Schema;

const SCHEMA: &str = r#"{"fields":[
  {"name":"id","type":"BIGINT NOT NULL"},
  {"name":"v","type":"INT","defaultValue":"7"},
  {"name":"s","type":"VARCHAR(3)","defaultValue":"'abcdef'"},
  {"name":"n","type":"INT NOT NULL","defaultValue":"-1.9"},
  {"name":"d","type":"DECIMAL(5, 2)","defaultValue":"1234.5"}
 ],"partitionKeys":[],"options":{"bucket":"-1"}}"#;

fn ids(ids: &[i64]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![Field::new(
        "id",
        ArrowType::Int64,
        false,
    )]));
    RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from(ids.to_vec()))]).unwrap()
}

fn with_v(ids: &[i64], v: &[Option<i32>]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("v", ArrowType::Int32, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(Int32Array::from(v.to_vec())),
        ],
    )
    .unwrap()
}

type Row = (i64, Option<i32>, Option<String>, i32, bool);

/// (id, v, s, n, d is NULL) of every row, sorted.
async fn rows(t: &Table) -> Vec<Row> {
    let splits = t.new_scan().plan().await.unwrap().splits;
    let mut out = Vec::new();
    for b in t.new_read().to_batches(splits).await.unwrap() {
        let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let v = b.column(1).as_any().downcast_ref::<Int32Array>().unwrap();
        let s = b.column(2).as_any().downcast_ref::<StringArray>().unwrap();
        let n = b.column(3).as_any().downcast_ref::<Int32Array>().unwrap();
        for i in 0..b.num_rows() {
            out.push((
                id.value(i),
                v.is_valid(i).then(|| v.value(i)),
                s.is_valid(i).then(|| s.value(i).to_string()),
                n.value(i),
                b.column(4).is_null(i),
            ));
        }
    }
    out.sort();
    out
}

fn row(id: i64, v: Option<i32>) -> Row {
    (id, v, Some("abc".into()), -1, true)
}

#[tokio::test]
async fn missing_and_null_values_get_the_column_default() {
    let wh = Warehouse::new();
    for (name, pk) in [("db.append", ""), ("db.pk", r#","primaryKeys":["id"]"#)] {
        let schema = SCHEMA.replace(
            r#""partitionKeys":[]"#,
            &format!(r#""partitionKeys":[]{pk}"#),
        );
        let schema = if pk.is_empty() {
            schema
        } else {
            schema.replace(r#""bucket":"-1""#, r#""bucket":"1""#)
        };
        let t = wh.create(name, &schema).await;
        // Only `id`: every other column takes its default (VARCHAR(3) cut to 3 characters, the
        // INT text `-1.9` read as -1, the DECIMAL(5, 2) default of 6 digits is NULL as in Java).
        t.write_batches([ids(&[1])], None).await.unwrap();
        // An explicit NULL is replaced too; a value is kept.
        t.write_batches([with_v(&[2, 3], &[None, Some(3)])], None)
            .await
            .unwrap();
        assert_eq!(
            rows(&t).await,
            vec![row(1, Some(7)), row(2, Some(7)), row(3, Some(3))],
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_null_in_a_not_null_column_with_a_default_is_still_an_error() {
    let wh = Warehouse::new();
    let t = wh.create("db.t", SCHEMA).await;
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("n", ArrowType::Int32, true),
    ]));
    let b = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(vec![1])),
            Arc::new(Int32Array::from(vec![None])),
        ],
    )
    .unwrap();
    // Java checks NOT NULL before it applies defaults (TableWriteImpl.checkNullability).
    let err = t.write_batches([b], None).await.unwrap_err().to_string();
    assert!(err.contains('n') && err.contains("NOT NULL"), "{err}");
}

#[tokio::test]
async fn a_default_that_does_not_convert_is_refused_at_creation_naming_the_column() {
    let wh = Warehouse::new();
    let cases = [
        (
            r#"{"name":"v","type":"INT","defaultValue":"seven"}"#,
            "`seven`",
        ),
        (
            r#"{"name":"v","type":"TIMESTAMP(3) WITH LOCAL TIME ZONE","defaultValue":"2024-01-01 00:00:00"}"#,
            "time zone",
        ),
        (
            r#"{"name":"v","type":"ARRAY<INT>","defaultValue":"[1, 2]"}"#,
            "ARRAY",
        ),
    ];
    for (field, want) in cases {
        let json = format!(
            r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},{field}],"partitionKeys":[],"options":{{}}}}"#
        );
        let schema = Schema::from_json(&json).unwrap();
        let err = wh
            .catalog
            .create_table(&Identifier::new("db", "t").unwrap(), &schema, false)
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("`v`") && err.contains(want), "{field}: {err}");
    }
}
