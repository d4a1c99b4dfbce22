//! The MAP half of `strata demo`: `demo.metrics`, an append table whose `metrics` column
//! (`MAP<STRING, DOUBLE>`) is stored in Paimon's shared-shredding layout (PIP-43). Three
//! commits of host metrics, where the key `gpu.temp` appears only in the last one and only on
//! some hosts; a read of `metrics['gpu.temp'] > 80` then skips every file and row group whose
//! per-key statistics rule it out, which the read counters show.

use std::sync::Arc;
use std::time::Instant;

use arrow::array::{
    ArrayRef, Float64Builder, Int64Array, MapBuilder, MapFieldNames, StringArray, StringBuilder,
};
use arrow::record_batch::RecordBatch;
use futures::StreamExt;
use strata::catalog::{Catalog, Identifier};
use strata::read::ReadMetrics;
use strata_spec::schema::Schema;

use crate::error::{msg, Result};

const SCHEMA: &str = r#"{
  "fields": [
    {"name": "ts", "type": "BIGINT NOT NULL"},
    {"name": "host", "type": "STRING"},
    {"name": "metrics", "type": "MAP<STRING NOT NULL, DOUBLE>"}
  ],
  "primaryKeys": [],
  "options": {
    "bucket": "-1",
    "file.block-size": "256 kb",
    "fields.metrics.map.storage-layout": "shared-shredding"
  },
  "comment": "strata demo: host metrics in a shared-shredding MAP column"
}"#;

const KEYS: [&str; 4] = ["cpu.user", "cpu.system", "mem.used", "net.rx"];

fn batch(start: i64, rows: usize, gpu: bool) -> Result<RecordBatch> {
    let ts: Vec<i64> = (start..start + rows as i64).collect();
    let host: Vec<String> = ts.iter().map(|t| format!("host-{:03}", t % 200)).collect();
    let names = MapFieldNames {
        entry: "key_value".into(),
        key: "key".into(),
        value: "value".into(),
    };
    let mut m = MapBuilder::new(Some(names), StringBuilder::new(), Float64Builder::new());
    for t in &ts {
        for (i, k) in KEYS.iter().enumerate() {
            m.keys().append_value(k);
            m.values()
                .append_value(((t * 31 + i as i64 * 7) % 1000) as f64 / 10.0);
        }
        // The GPU hosts (every 25th) report a temperature, only from the last commit on.
        if gpu && t % 200 % 25 == 0 {
            m.keys().append_value("gpu.temp");
            m.values().append_value(60.0 + (t % 40) as f64);
        }
        m.append(true).map_err(|e| msg(e.to_string()))?;
    }
    let cols: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(ts)),
        Arc::new(StringArray::from(host)),
        Arc::new(m.finish()),
    ];
    let schema = Arc::new(arrow::datatypes::Schema::new(
        cols.iter()
            .zip(["ts", "host", "metrics"])
            .map(|(c, n)| arrow::datatypes::Field::new(n, c.data_type().clone(), n != "ts"))
            .collect::<Vec<_>>(),
    ));
    RecordBatch::try_new(schema, cols).map_err(|e| msg(e.to_string()))
}

pub async fn run(catalog: &dyn Catalog, rows: usize, flags: &str) -> Result<()> {
    let id = Identifier::new("demo", "metrics")?;
    if catalog.table_exists(&id).await? {
        catalog.drop_table(&id, false).await?;
    }
    let schema = Schema::from_json(SCHEMA).map_err(strata::Error::from)?;
    catalog.create_table(&id, &schema, false).await?;
    let table = catalog.get_table(&id).await?;
    println!(
        "\ncreated {id}: append table, MAP column metrics in the shared-shredding layout (PIP-43)"
    );
    for commit in 0..3 {
        let gpu = commit == 2;
        let s = table
            .write_batches([batch((commit * rows) as i64, rows, gpu)?], None)
            .await?;
        println!(
            "commit {}: {rows} rows, keys {}{} -> snapshot {}",
            commit + 1,
            KEYS.join(", "),
            if gpu {
                " and, on 1 host in 25, gpu.temp"
            } else {
                ""
            },
            s.unwrap_or(0)
        );
    }
    let filter = strata::expr::parse_sql_predicate("metrics['gpu.temp'] > 80")?;
    let t0 = Instant::now();
    let plan = table.new_scan().with_filter(filter.clone()).plan().await?;
    let counters = Arc::new(ReadMetrics::default());
    let read = table
        .new_read()
        .with_projection(vec!["host".into(), "metrics['gpu.temp']".into()])
        .with_filter(filter)
        .with_metrics(counters.clone());
    let mut stream = read.to_stream(plan.splits)?;
    let mut found = 0usize;
    while let Some(b) = stream.next().await {
        found += b?.num_rows();
    }
    let m = counters.snapshot();
    let skipped = m.files_skipped + plan.metrics.skipped_files;
    println!(
        "WHERE metrics['gpu.temp'] > 80: {found} rows; {} of {} files read — {skipped} hold no \
         gpu.temp and were skipped from their footers' key statistics, {} row groups never \
         decoded; {} row groups read ({:.0} ms)",
        m.files_read,
        m.files_read + skipped,
        m.row_groups_skipped,
        m.row_groups_read,
        t0.elapsed().as_secs_f64() * 1000.0
    );
    println!(
        "\ntry: strata {flags} read demo.metrics --columns \"host, metrics['gpu.temp']\" \
         --where \"metrics['gpu.temp'] > 80\" --metrics --limit 3"
    );
    Ok(())
}
