//! MAP test helpers shared by the shared-shredding integration tests: batches of
//! `id BIGINT, m MAP<STRING, DOUBLE>` rows, whole-map reads, footers.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::builder::{Float64Builder, MapBuilder, MapFieldNames, StringBuilder};
use arrow_array::{Array, Float64Array, Int64Array, MapArray, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use parquet::file::reader::{FileReader, SerializedFileReader};
use strata::table::Table;
use strata::unstable::format::file_shredding_meta;
use strata_spec::shredding::MapShreddingFileMeta;

pub type Entries = Option<Vec<(String, Option<f64>)>>;
pub type Row = (i64, Entries);
pub type Rows = BTreeMap<i64, Entries>;

pub fn batch(rows: &[Row]) -> RecordBatch {
    let names = MapFieldNames {
        entry: "key_value".into(),
        key: "key".into(),
        value: "value".into(),
    };
    let mut b = MapBuilder::new(Some(names), StringBuilder::new(), Float64Builder::new());
    for (_, m) in rows {
        match m {
            None => b.append(false).unwrap(),
            Some(entries) => {
                for (k, v) in entries {
                    b.keys().append_value(k);
                    b.values().append_option(*v);
                }
                b.append(true).unwrap();
            }
        }
    }
    let map = b.finish();
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("m", map.data_type().clone(), true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(
                rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            )),
            Arc::new(map),
        ],
    )
    .unwrap()
}

/// Every row as id → map entries in the order read.
pub async fn read_rows(t: &Table, columns: Option<Vec<String>>) -> Rows {
    let plan = t.new_scan().plan().await.unwrap();
    let mut read = t.new_read();
    if let Some(c) = columns {
        read = read.with_projection(c);
    }
    let mut out = BTreeMap::new();
    for b in read.to_batches(plan.splits).await.unwrap() {
        let ids = b
            .column_by_name("id")
            .unwrap()
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        let maps = b
            .column_by_name("m")
            .unwrap()
            .as_any()
            .downcast_ref::<MapArray>()
            .unwrap();
        for r in 0..b.num_rows() {
            let v = (!maps.is_null(r)).then(|| {
                let e = maps.value(r);
                let k = e.column(0).as_any().downcast_ref::<StringArray>().unwrap();
                let v = e.column(1).as_any().downcast_ref::<Float64Array>().unwrap();
                (0..e.len())
                    .map(|i| (k.value(i).to_string(), (!v.is_null(i)).then(|| v.value(i))))
                    .collect()
            });
            out.insert(ids.value(r), v);
        }
    }
    out
}

pub fn sorted(m: &Entries) -> Entries {
    m.as_ref().map(|e| {
        let mut e = e.clone();
        e.sort_by(|a, b| a.0.cmp(&b.0));
        e
    })
}

pub fn shredded_schema(extra: &str) -> String {
    format!(
        r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}},
        {{"name":"m","type":"MAP<STRING NOT NULL, DOUBLE>"}}],
        "options":{{"fields.m.map.storage-layout":"shared-shredding"{extra}}}}}"#
    )
}

/// The data files under `dir`, in path order.
pub fn data_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "parquet") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// The shredding metadata of column `m` of every shredded data file, in path order.
pub fn file_metas(dir: &std::path::Path) -> Vec<MapShreddingFileMeta> {
    data_files(dir)
        .iter()
        .filter_map(|p| {
            let r = SerializedFileReader::new(std::fs::File::open(p).unwrap()).unwrap();
            let meta = file_shredding_meta(r.metadata(), "test").unwrap();
            meta.get("m").map(|m| (**m).clone())
        })
        .collect()
}

/// (K, max row width, dictionary) of every data file, in file-name order.
pub fn footers(dir: &std::path::Path) -> Vec<(usize, usize, BTreeMap<String, i32>)> {
    file_metas(dir)
        .into_iter()
        .map(|m| (m.num_columns, m.max_row_width, m.dictionary))
        .collect()
}

pub fn e(pairs: &[(&str, Option<f64>)]) -> Entries {
    Some(pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect())
}
